"""Benchmark: full build vs incremental rebuild after editing one note (issue 4).

Generates a corpus of 1,000 notes (4 sections each, ~120 words a section), then measures on this
machine, in one run:

1. a full build, as a user runs it: ``hwqa index --json`` in a new process, empty index folder;
2. the rebuild after editing one note, the same way (a new process: imports and all);
3. the same edit-and-rebuild in a warm process, as ``hwqa index --watch`` and the web chat do.

Writes ``bench/results/incremental.json`` and prints a Markdown table. Uses the real bundled
embedding model. Usage: ``python bench/incremental.py [--notes 1000] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HWQA = [sys.executable, "-m", "hwqa.cli"]

WORDS = (
    "GPU TPU CPU accelerator memory bandwidth tensor core HBM training inference batch throughput latency "
    "precision fp16 bf16 int8 cluster node interconnect NVLink PCIe rack cooling power watt price hour "
    "preemptible on-demand reserved region zone quota driver CUDA XLA compiler kernel sharding pipeline "
    "checkpoint dataset epoch optimizer gradient activation transformer convolution benchmark MLPerf"
).split()


def make_corpus(folder: Path, notes: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    for i in range(notes):
        sections = []
        for s in range(4):
            sentences = []
            for _ in range(8):
                words = rng.choices(WORDS, k=rng.randint(10, 16))
                sentences.append(" ".join(words).capitalize() + f" ({i}.{s}).")
            sections.append(f"## Topic {s} of note {i}\n\n" + " ".join(sentences))
        text = (
            f"---\ntitle: Generated note {i}\ntags: [bench, gpu]\ndate: 2026-01-01\ndraft: false\n---\n"
            f"# Generated note {i}\n\n" + "\n\n".join(sections) + "\n"
        )
        (folder / f"note-{i:04d}.md").write_text(text, encoding="utf-8")


def run_cli(notes: Path, index: Path) -> tuple[float, dict]:
    env = {**os.environ, "HWQA_NOTES": str(notes), "HWQA_INDEX": str(index), "HWQA_FETCH_LINKS": "false"}
    started = time.perf_counter()
    proc = subprocess.run([*HWQA, "index", "--json"], env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, json.loads(proc.stdout)


def edit(notes: Path, i: int, stamp: str) -> None:
    path = notes / f"note-{i:04d}.md"
    path.write_text(path.read_text(encoding="utf-8") + f"\nEdited {stamp}: added a line about NVLink bandwidth.\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "incremental.json")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="hwqa-bench-"))
    notes, index = work / "notes", work / "index"
    notes.mkdir()
    try:
        make_corpus(notes, args.notes)
        print(f"corpus: {args.notes} notes in {notes}", file=sys.stderr)
        full_s, full = run_cli(notes, index)
        print(f"full build: {full_s:.1f} s, {full['chunks_embedded']} chunks embedded", file=sys.stderr)

        edit(notes, 123, "cold")
        cold_s, cold = run_cli(notes, index)
        print(f"rebuild after one edit (new process): {cold_s:.2f} s", file=sys.stderr)

        sys.path.insert(0, str(REPO / "src"))
        from hwqa.build import build_index
        from hwqa.embed import make_embedder
        from hwqa.settings import load_settings

        settings = load_settings({"notes": notes, "index": index, "fetch_links": False})
        embedder = make_embedder(settings)
        embedder.embed(["warm up"])  # a watcher has the model loaded already
        edit(notes, 456, "warm")
        started = time.perf_counter()
        warm = build_index(settings, embedder=embedder)
        warm_s = time.perf_counter() - started
        print(f"rebuild after one edit (warm, as the watcher): {warm_s:.2f} s", file=sys.stderr)
        from hwqa.engine import Engine

        note_chunks = sum(1 for c in Engine(settings, embedder=embedder).generation().all_chunks()
                          if c.source == "note-0456.md")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    result = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "corpus": {"notes": args.notes, "chunks": full["chunks_total"]},
        "full_build": {"seconds": round(full_s, 2), "chunks_embedded": full["chunks_embedded"],
                       "chunks_per_second": round(full["chunks_embedded"] / full_s, 1)},
        "rebuild_one_edit_new_process": {
            "seconds": round(cold_s, 2), "chunks_embedded": cold["chunks_embedded"],
            "chunks_reused": cold["chunks_reused"], "percent_of_full": round(100 * cold_s / full_s, 2),
        },
        "rebuild_one_edit_warm": {
            "seconds": round(warm_s, 3), "chunks_embedded": warm.chunks_embedded,
            "chunks_reused": warm.chunks_reused, "percent_of_full": round(100 * warm_s / full_s, 2),
        },
        "chunks_in_the_edited_note": note_chunks,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print("| run | seconds | chunks embedded | chunks reused | % of full build |")
    print("|---|---|---|---|---|")
    print(f"| full build ({args.notes} notes, new process) | {full_s:.1f} | {full['chunks_embedded']} | 0 | 100 |")
    c, w = result["rebuild_one_edit_new_process"], result["rebuild_one_edit_warm"]
    print(f"| one note edited, `hwqa index` (new process) | {c['seconds']} | {c['chunks_embedded']} | "
          f"{c['chunks_reused']} | {c['percent_of_full']} |")
    print(f"| one note edited, warm (`--watch`, web chat) | {w['seconds']} | {w['chunks_embedded']} | "
          f"{w['chunks_reused']} | {w['percent_of_full']} |")


if __name__ == "__main__":
    main()
