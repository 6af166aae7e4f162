"""Issue 33's two figures of one revision, in a process of its own: ``python bench/prices.py SPEC``.

Run with ``PYTHONPATH`` set to the revision measured (``bench/compare.py``), so two revisions can be
timed in one run, alternating. ``SPEC`` is a JSON object:

- ``tables``: ``{name: notes folder}``; each folder's notes are read once, then the price table is
  built from them ``table_runs`` times (``load_price_table``: what a build's price stage does for the
  notes that changed, then the merge), the reader's caches cleared before each build. CPU seconds
  (``time.process_time``: the stage is one thread of Python, so a busy machine moves it little) and wall.
- ``answer``: ``{"notes", "index", "questions", "runs", "settings"}``; the index is built there if it is
  not yet (a revision's index is its own folder), then each price question is asked ``runs`` times
  through ``Engine.ask`` after one warm-up round; the p50 and p95 of the answers' ``total`` timing.

Prints one JSON object, with each answer's first line so a reader can see both revisions answered.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def clear_caches() -> None:
    """Empty the revision's cache of what each note states (``prices.parse._READ``, which spares a watcher's
    rebuild the notes that did not change) and every ``functools`` cache of its price modules: each build
    reads every note, as a full build does."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("hwqa.prices"):
            continue
        read = vars(module).get("_READ")
        if isinstance(read, dict):
            read.clear()
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def time_table(folder: Path, runs: int) -> dict[str, Any]:
    try:
        from hwqa.notes.note import load_notes
    except ImportError:  # a revision where notes was one module
        from hwqa.notes import load_notes  # type: ignore[attr-defined,no-redef]
    from hwqa.prices import load_price_table

    notes = load_notes(folder).notes
    cpu, wall, rows = [], [], 0
    for _ in range(runs):
        clear_caches()
        started, began = time.perf_counter(), time.process_time()
        table = load_price_table(notes)
        cpu.append(time.process_time() - began)
        wall.append(time.perf_counter() - started)
        rows = len(table.rows)
    return {"notes": len(notes), "rows": rows, "cpu_s": statistics.median(cpu), "wall_s": statistics.median(wall)}


def time_answers(spec: dict[str, Any]) -> dict[str, Any]:
    from hwqa import Engine, build_index, load_settings

    notes, index = Path(spec["notes"]), Path(spec["index"])
    settings = load_settings({"notes": notes, "index": index, **spec.get("settings", {})}, env={}, cwd=index.parent)
    if not index.exists():
        build_index(settings)
    engine = Engine.load(settings)
    questions = spec["questions"]
    first = [engine.ask(q).text.strip().splitlines()[0][:160] for q in questions]  # warm-up round
    totals = [engine.ask(q).timings["total"] for _ in range(spec["runs"]) for q in questions]
    return {
        "questions": len(questions),
        "asked": len(totals),
        "p50_s": statistics.median(totals),
        "p95_s": sorted(totals)[min(len(totals) - 1, round(0.95 * (len(totals) - 1)))],
        "first_lines": first,
    }


def main() -> None:
    spec = json.loads(sys.argv[1])
    out: dict[str, Any] = {"tables": {}}
    for name, folder in spec.get("tables", {}).items():
        out["tables"][name] = time_table(Path(folder), spec.get("table_runs", 5))
    if spec.get("answer"):
        out["answer"] = time_answers(spec["answer"])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
