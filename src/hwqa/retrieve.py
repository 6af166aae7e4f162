"""Retrieve the passages most similar to a question from one index generation."""

from __future__ import annotations

from dataclasses import dataclass

from .embed import Embedder
from .index import Generation, StoredChunk

PREFERRED_SECTION_BONUS = 0.03  # an article section named by the link's #fragment


@dataclass(frozen=True)
class Hit:
    """A retrieved passage and its cosine similarity to the question."""

    chunk: StoredChunk
    score: float


def retrieve(generation: Generation, embedder: Embedder, question: str, k: int) -> list[Hit]:
    """The ``k`` best passages, best first. All of them come from ``generation``."""
    query = embedder.embed([question])[0]
    raw = generation.search(query, k * 2)
    chunks = generation.chunks([i for i, _ in raw])
    hits = [
        Hit(chunk, score + (PREFERRED_SECTION_BONUS if chunk.meta.get("preferred") else 0.0))
        for chunk, (_, score) in zip(chunks, raw, strict=True)
    ]
    hits.sort(key=lambda h: h.score, reverse=True)
    return hits[:k]
