"""Another revision measured in the same run (``--ref main``), the 100,000-chunk scale runs, and the price
table's build and a price answer of every revision (``bench/prices.py``).

Everything here runs in new processes (``bench/warm.py`` for the warm half), so the code of any
revision can be timed beside the working tree's: ``git archive REF src`` is unpacked into the
work folder and put on ``PYTHONPATH``. A revision's index is its own folder; both read the same
notes. Each one-note rebuild is timed twice: a price-table edit (the note rewritten, its price
table with it, so the price table is merged again) and a prose edit (a sentence added).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corpus import LoopbackSite, edit_note, edit_prose

REPO = Path(__file__).resolve().parent.parent

Child = Callable[[list[str], dict[str, str], str], tuple[float, float, str]]


def ref_src(ref: str, work: Path) -> Path:
    """The ``src`` folder of revision ``ref``, unpacked under ``work``."""
    data = subprocess.run(["git", "-C", str(REPO), "archive", ref, "src"], capture_output=True, check=True).stdout
    out = work / f"ref-{ref.replace('/', '_')}"
    shutil.rmtree(out, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(out, filter="data")
    return out / "src"


def measure(
    child: Child,
    env: Callable[..., dict[str, str]],
    src: Path,
    notes: Path,
    index: Path,
    site: LoopbackSite,
    *,
    runs: int,
    first: int,
    questions: list[str],
    extra: dict[str, str] | None = None,
    long_articles: int = 0,
    label: str,
) -> dict[str, Any]:
    """Full build, one-note rebuilds (new process and warm) and warm retrieval of the code in ``src``."""
    hwqa = [sys.executable, "-m", "hwqa.cli", "index", "--json"]
    base = {**env(notes, index, **(extra or {})), "PYTHONPATH": str(src)}
    shutil.rmtree(index, ignore_errors=True)
    full, _, out = child(hwqa, base, f"{label} full build")
    chunks = json.loads(out)["chunks_total"]
    price, prose = [], []
    for r in range(runs):
        edit_note(notes, first + r, site, edit=1 + r, long_articles=long_articles)
        price.append(child(hwqa, base, f"{label} one-note rebuild (price edit)")[0])
        edit_prose(notes, first + 50 + r, edit=1 + r)
        prose.append(child(hwqa, base, f"{label} one-note rebuild (prose edit)")[0])
    settings = {k.removeprefix("HWQA_").lower(): v for k, v in (extra or {}).items()}
    spec = {"runs": runs, "first": first + 200, "questions": questions, "long_articles": long_articles, "settings": settings}
    warm_cmd = [sys.executable, str(REPO / "bench" / "warm.py"), str(notes), str(index), str(site.port), json.dumps(spec)]
    _, _, text = child(warm_cmd, base, "")
    warm = json.loads(text)
    return {
        "chunks": chunks,
        "full_build_s": full,
        "new_process_price_edit_s": statistics.median(price),
        "new_process_prose_edit_s": statistics.median(prose),
        **warm,
    }


def scale_runs(
    child: Child,
    env: Callable[..., dict[str, str]],
    work: Path,
    site: LoopbackSite,
    trees: dict[str, Path],
    *,
    notes: int,
    chunks: int,
    runs: int,
    questions: list[str],
    log: Callable[[str], None],
) -> dict[str, Any]:
    """One-note rebuilds at ``notes`` notes and at about ``chunks`` chunks (the same notes, plus long
    pages they link to), for every tree, with the hash embedder (the model's cost is the same at
    any size; building 10^5 chunks with it takes half an hour here)."""
    from corpus import make_corpus

    extra = {"HWQA_EMBED_BACKEND": "hash"}
    per_note = 2
    longs = max(0, (chunks - per_note * notes) // (site.long_sections + 1))
    out: dict[str, Any] = {"embedder": "hash", "note_count": notes, "long_articles": longs, "corpora": {}}
    for name, folder_longs in (("notes", 0), ("chunks", longs)):
        folder = work / f"scale-{name}"
        shutil.rmtree(folder, ignore_errors=True)
        make_corpus(folder, notes, site, long_articles=folder_longs)
        for k, (tree, src) in enumerate(trees.items()):  # each tree edits notes of its own: an edit done
            # again by the next tree would rewrite the same text, which costs nothing to index
            result = measure(
                child,
                env,
                src,
                folder,
                work / f"scale-{name}-{tree}",
                site,
                runs=runs,
                first=min(1000, notes - 260 * len(trees)) + 260 * k,
                questions=questions,
                extra=extra,
                long_articles=folder_longs,
                label=f"scale {name} {tree}",
            )
            out["corpora"].setdefault(name, {})[tree] = result
            log(f"scale {name} ({result['chunks']} chunks), {tree}: {result}")
    return out


# Issue 33 bounds these two figures at 1.2 times the code it was filed against. Owner-style notes are what the
# price reader is for (sentences, list items, small tables); the bench corpus's notes hold tagged price tables only.
OWNER_STYLE = (
    "notes",
    "eval/owner-notes",
    "eval/outside-owner-7-notes",
    "eval/outside-owner-9-notes",
    "eval/price-facts/notes",
    "eval/price-facts-2/notes",
)
PRICE_QUESTIONS = [
    "How many hours of TPU v2 can I get for $100?",
    "How long can I run a P100 on $50?",
    "What does the Lambda H100 cost per month if it runs all the time?",
    "How many hours of an RTX 4090 does $20 buy?",
    "TPU or GPU for my budget of $100?",
    "What would 30 hours on a V100 cost?",
    "After how many hours does buying an RTX 3090 workstation beat renting a V100 on Google Cloud?",
    "What does the RTX 3090 workstation cost per hour to run in electricity?",
]


def price_runs(
    child: Child, work: Path, trees: dict[str, Path], corpus: Path, *, rounds: int, log: Callable[[str], None]
) -> dict[str, Any]:
    """The price table built from notes (the build's price stage: CPU and wall, the reader's caches cleared for
    each build) and a price answer's p50 (``Engine.ask``, the bundled model, warm), for every tree in the same run;
    the trees alternate, ``rounds`` rounds, each a new process (``bench/prices.py``) per tree."""
    owner = work / "owner-style"
    shutil.rmtree(owner, ignore_errors=True)
    for folder in OWNER_STYLE:  # the repository's notes in the owner's style (never a blind set's)
        shutil.copytree(REPO / folder, owner / folder.replace("/", "_"))
    tables = {"owner-style": str(owner), "bench corpus": str(corpus)}
    env = {k: v for k, v in os.environ.items() if not k.startswith("HWQA_")} | {"HF_HUB_OFFLINE": "1"}
    runs: dict[str, list[dict[str, Any]]] = {tree: [] for tree in trees}
    order = list(trees.items())
    for r in range(rounds):
        for tree, src in order if r % 2 == 0 else order[::-1]:
            spec = {
                "tables": tables,
                "table_runs": 15,
                "answer": {
                    "notes": str(owner),
                    "index": str(work / f"price-index-{tree.replace('/', '_')}"),
                    "questions": PRICE_QUESTIONS,
                    "runs": 5,
                    "settings": {"fetch_links": False},
                },
            }
            cmd = [sys.executable, str(REPO / "bench" / "prices.py"), json.dumps(spec)]
            _, _, out = child(cmd, env | {"PYTHONPATH": str(src)}, f"prices {tree}")
            runs[tree].append(json.loads(out))
            log(f"prices, {tree}, round {r + 1}/{rounds}: {runs[tree][-1]}")
    result: dict[str, Any] = {"rounds": rounds, "questions": PRICE_QUESTIONS, "trees": {}}
    for tree, got in runs.items():
        result["trees"][tree] = {
            "tables": {
                name: {
                    "notes": got[0]["tables"][name]["notes"],
                    "rows": got[0]["tables"][name]["rows"],
                    "cpu_s": statistics.median(g["tables"][name]["cpu_s"] for g in got),
                    "wall_s": statistics.median(g["tables"][name]["wall_s"] for g in got),
                }
                for name in tables
            },
            "answer_p50_s": statistics.median(g["answer"]["p50_s"] for g in got),
            "answer_p95_s": statistics.median(g["answer"]["p95_s"] for g in got),
            "first_lines": got[0]["answer"]["first_lines"],
        }
    return result
