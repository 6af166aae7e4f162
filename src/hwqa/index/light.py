"""The light embedding path: a BERT-style sentence-transformers model run with numpy alone.

It reads the model folder sentence-transformers would load (``modules.json``, ``config.json``,
``model.safetensors``, ``tokenizer.json``) and reproduces its forward pass: token, position and
type embeddings, the encoder layers (self-attention, exact-erf GELU feed-forward, post layer
norm), mean or CLS pooling. Tokenising uses the ``tokenizers`` library with the model's window
(``max_seq_length``). No torch, no transformers: loading takes a fraction of a second and the
vectors match sentence-transformers' (cosine >= 0.999; tests check it).

:func:`load_light_model` raises :class:`Unsupported` for anything it cannot reproduce exactly
(another architecture, a Dense layer, other pooling, missing files); the caller then falls back
to sentence-transformers.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64}
_SEQ_BLOCK = 4  # sequences per attention block
_ROW_BLOCK = 256  # token rows per feed-forward block: keeps the 4x-wide activations in cache


def _find_openblas_local() -> Any:
    """numpy's OpenBLAS ``openblas_set_num_threads_local`` (per-thread BLAS threads), or None."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            paths = {line.split()[-1] for line in fh if "openblas" in line.rsplit("/", 1)[-1].lower()}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            fn = ctypes.CDLL(path).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        fn.argtypes, fn.restype = [ctypes.c_int], ctypes.c_int
        return fn
    return None


_BLAS_LOCAL: Any = _find_openblas_local()


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run this thread's numpy matmuls on one BLAS thread (parallelism comes from our own workers).

    Two BLAS threads spin-waiting for each other on many small matrices are slow on a busy machine;
    one worker thread per core, each single-threaded, keeps every core busy with no hand-offs.
    """
    if _BLAS_LOCAL is None:
        yield
        return
    previous = _BLAS_LOCAL(1)
    try:
        yield
    finally:
        _BLAS_LOCAL(previous if previous > 0 else 0)


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class Unsupported(Exception):
    """The light path cannot reproduce this model; the message says why (one line)."""


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every weight of a ``.safetensors`` file as a numpy array.

    float32 tensors are read-only views of a memory map of the file (no copy, and only the rows of
    the vocabulary that are used become resident); other float types are converted to float32.
    """
    with open(path, "rb") as fh:
        (size,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(size))
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)  # stays open while any view is alive
    base = 8 + size
    out: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        dtype = spec["dtype"]
        if dtype == "I64":
            continue  # position_ids buffers: not weights
        if dtype not in _DTYPES:
            raise Unsupported(f"weights in {dtype} are not supported")
        kind = np.dtype(_DTYPES[dtype])
        if end > len(mm) - base or (end - start) != kind.itemsize * int(np.prod(spec["shape"])):
            raise Unsupported(f"model.safetensors is truncated or inconsistent at {name}")
        raw = np.frombuffer(mm, dtype=kind, count=(end - start) // kind.itemsize, offset=base + start)
        out[name] = raw.reshape(spec["shape"]) if kind == np.float32 else raw.reshape(spec["shape"]).astype(np.float32)
    return out


def _gelu_(x: np.ndarray, z: np.ndarray, t: np.ndarray, p: np.ndarray) -> None:
    """x <- x * Phi(x) = (x + |x| erf(|x|/sqrt2)) / 2, in place; z, t, p are scratch of x's shape.

    erf from Abramowitz & Stegun 7.1.25 (|error| < 2.5e-5, so GELU is off by < 2e-5 |x|):
    19 numpy passes, where torch runs one fused kernel; this is most of the light path's overhead.
    """
    np.abs(x, out=z)
    z *= np.float32(0.7071067811865476)  # u = |x| / sqrt(2)
    np.multiply(z, np.float32(0.47047), out=t)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    np.multiply(t, np.float32(0.7478556), out=p)
    p += np.float32(-0.0958798)
    p *= t
    p += np.float32(0.3480242)
    p *= t  # p = a1 t + a2 t^2 + a3 t^3
    np.square(z, out=t)
    np.negative(t, out=t)
    np.exp(t, out=t)
    t *= p  # 1 - erf(u)
    t *= z
    z -= t  # u erf(u)
    z *= np.float32(0.7071067811865476)  # |x| erf(u) / 2
    x *= np.float32(0.5)
    x += z


def _layer_norm_(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    x -= mean
    var = np.einsum("ij,ij->i", x, x)[:, None] / np.float32(x.shape[-1])
    var += np.float32(eps)
    np.sqrt(var, out=var)
    x /= var
    x *= weight
    x += bias
    return x


@dataclass
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3*hidden), already transposed
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    ln1_w: np.ndarray
    ln1_b: np.ndarray
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    ln2_w: np.ndarray
    ln2_b: np.ndarray


class LightModel:
    """A loaded BERT encoder + pooling; :meth:`encode` gives the pooled (not normalised) vectors."""

    backend = "numpy"

    def __init__(
        self,
        folder: Path,
        *,
        config: dict[str, Any],
        pooling: str,
        max_tokens: int,
        lowercase: bool,
        weights: dict[str, np.ndarray],
        tokenizer: Any,
    ) -> None:
        self.folder = folder
        self.pooling = pooling
        self.max_tokens = max_tokens
        self.lowercase = lowercase
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.dim = self.hidden
        self.intermediate = int(config["intermediate_size"])
        self.n_layers = int(config["num_hidden_layers"])
        self.tokenizer = tokenizer
        self._lock = threading.Lock()
        w = _strip_prefix(weights)

        def get(name: str) -> np.ndarray:
            try:
                return w[name]
            except KeyError:
                raise Unsupported(f"model.safetensors has no tensor {name}") from None

        self.word = get("embeddings.word_embeddings.weight")
        self.position = get("embeddings.position_embeddings.weight")
        types = get("embeddings.token_type_embeddings.weight")
        self.type0 = types[0]
        self.emb_ln = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
        self.layers: list[_Layer] = []
        for i in range(self.n_layers):
            p = f"encoder.layer.{i}."
            q, k, v = (get(p + f"attention.self.{n}.weight") for n in ("query", "key", "value"))
            qb, kb, vb = (get(p + f"attention.self.{n}.bias") for n in ("query", "key", "value"))
            scale = np.float32(1.0 / np.sqrt(self.hidden // self.heads))
            self.layers.append(
                _Layer(
                    qkv_w=np.ascontiguousarray(np.concatenate([q * scale, k, v], axis=0).T),
                    qkv_b=np.concatenate([qb * scale, kb, vb]),
                    out_w=np.ascontiguousarray(get(p + "attention.output.dense.weight").T),
                    out_b=get(p + "attention.output.dense.bias"),
                    ln1_w=get(p + "attention.output.LayerNorm.weight"),
                    ln1_b=get(p + "attention.output.LayerNorm.bias"),
                    up_w=np.ascontiguousarray(get(p + "intermediate.dense.weight").T),
                    up_b=get(p + "intermediate.dense.bias"),
                    down_w=np.ascontiguousarray(get(p + "output.dense.weight").T),
                    down_b=get(p + "output.dense.bias"),
                    ln2_w=get(p + "output.LayerNorm.weight"),
                    ln2_b=get(p + "output.LayerNorm.bias"),
                )
            )
        if self.word.shape[1] != self.hidden or self.position.shape[0] < self.max_tokens:
            raise Unsupported("the embedding tables do not match config.json")

    # -- tokens -------------------------------------------------------------------------------------

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        prepared = [t.lower() if self.lowercase else t for t in texts]
        return [e.ids for e in self.tokenizer.encode_batch(prepared)]

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` without truncation (special tokens included)."""
        return len(self._counter.encode(text.lower() if self.lowercase else text).ids)

    @property
    def _counter(self) -> Any:
        counter = getattr(self, "_untruncated", None)
        if counter is None:
            from tokenizers import Tokenizer

            counter = Tokenizer.from_str(self.tokenizer.to_str())
            counter.no_truncation()
            counter.no_padding()
            self._untruncated = counter
        return counter

    # -- forward ------------------------------------------------------------------------------------

    def encode(self, texts: Sequence[str], batch_size: int = 32, progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Pooled vectors, one row per text, in input order (batches of similar length)."""
        return self.encode_pieces(texts, [[] for _ in texts], batch_size, progress)[0]

    def encode_pieces(
        self,
        texts: Sequence[str],
        pieces: Sequence[Sequence[tuple[int, int]]],
        batch_size: int = 32,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Pooled vectors of ``texts`` and, from the same forward pass, of pieces of them.

        ``pieces[i]`` are (start, end) character ranges of ``texts[i]``; a piece's vector is the mean
        of the output vectors of the tokens it covers, read in the context of the whole text (so a
        sentence's vector knows its heading and neighbours). A piece with no token in the window
        gets its text's pooled vector.
        """
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        parts = [np.zeros((len(p), self.dim), dtype=np.float32) for p in pieces]
        if not texts:
            return out, parts
        prepared = [t.lower() if self.lowercase else t for t in texts]
        encodings = self.tokenizer.encode_batch(prepared)
        ids = [e.ids for e in encodings]
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        cores = _cores() if _BLAS_LOCAL is not None else 1
        size = max(1, min(batch_size, -(-len(order) // cores)))  # a few texts: one share per core
        batches = [order[s : s + size] for s in range(0, len(order), size)]
        workers = min(len(batches), cores)

        def run(rows: list[int]) -> list[int]:
            with single_threaded_blas():
                pooled, hidden = self._forward([ids[i] for i in rows])
            out[rows] = pooled
            for b, i in enumerate(rows):
                if pieces[i]:
                    parts[i][...] = _pool_pieces(hidden[b], encodings[i].offsets, pieces[i], pooled[b])
            return rows

        with self._lock:
            if workers <= 1:
                for rows in batches:
                    run(rows)
                    if progress is not None:
                        progress(len(rows))
                return out, parts
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hwqa-embed") as pool:
                for rows in pool.map(run, batches):
                    if progress is not None:
                        progress(len(rows))
        return out, parts

    def _forward(self, batch: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """The pooled vectors of a batch, and every token's output vector (n, length, hidden)."""
        n, length = len(batch), max(len(b) for b in batch)
        tokens = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=bool)
        for i, seq in enumerate(batch):
            tokens[i, : len(seq)] = seq
            mask[i, : len(seq)] = True
        h, d = self.heads, self.hidden // self.heads
        x = self.word[tokens.reshape(-1)]
        x.reshape(n, length, self.hidden)[...] += self.position[:length] + self.type0
        _layer_norm_(x, *self.emb_ln, self.eps)
        key_bias = np.where(mask, np.float32(0.0), np.float32(-1e30)).astype(np.float32)[:, None, None, :]
        ctx = np.empty((n, length, self.hidden), dtype=np.float32)
        rows = n * length
        block = max(1, min(rows, _ROW_BLOCK))
        up = np.empty((block, self.intermediate), dtype=np.float32)
        scratch = [np.empty_like(up) for _ in range(3)]
        for layer in self.layers:
            qkv = (x @ layer.qkv_w).reshape(n, length, 3, h, d)
            qkv += layer.qkv_b.reshape(3, h, d)
            q, k, v = np.ascontiguousarray(qkv.transpose(2, 0, 3, 1, 4))  # each (n, heads, L, d)
            for i in range(0, n, _SEQ_BLOCK):  # a few sequences at a time: the (heads, L, L) scores stay small
                j = min(n, i + _SEQ_BLOCK)
                scores = np.matmul(q[i:j], k[i:j].transpose(0, 1, 3, 2))
                scores += key_bias[i:j]
                scores -= scores.max(axis=-1, keepdims=True)
                np.exp(scores, out=scores)
                scores /= scores.sum(axis=-1, keepdims=True)
                ctx[i:j] = np.matmul(scores, v[i:j]).transpose(0, 2, 1, 3).reshape(j - i, length, self.hidden)
            attn = ctx.reshape(rows, self.hidden) @ layer.out_w
            attn += layer.out_b
            attn += x
            x = _layer_norm_(attn, layer.ln1_w, layer.ln1_b, self.eps)
            y = np.empty_like(x)
            for s in range(0, rows, block):
                e = min(rows, s + block)
                u = up[: e - s]
                np.matmul(x[s:e], layer.up_w, out=u)
                u += layer.up_b
                _gelu_(u, *(buf[: e - s] for buf in scratch))
                np.matmul(u, layer.down_w, out=y[s:e])
            y += layer.down_b
            y += x
            x = _layer_norm_(y, layer.ln2_w, layer.ln2_b, self.eps)
        hidden = x.reshape(n, length, self.hidden)
        if self.pooling == "cls":
            return np.ascontiguousarray(hidden[:, 0]), hidden
        weights = mask.astype(np.float32)
        summed = np.einsum("nl,nlh->nh", weights, hidden)
        pooled: np.ndarray = summed / np.maximum(weights.sum(axis=1, keepdims=True), np.float32(1e-9))
        return pooled, hidden


def _pool_pieces(
    hidden: np.ndarray, offsets: Sequence[tuple[int, int]], pieces: Sequence[tuple[int, int]], whole: np.ndarray
) -> np.ndarray:
    """The mean output vector of the tokens inside each (start, end) range; ``whole`` when none is."""
    starts = np.array([a for a, b in offsets], dtype=np.int64)
    ends = np.array([b for a, b in offsets], dtype=np.int64)
    real = ends > starts  # special tokens ([CLS], [SEP]) have empty offsets
    out = np.empty((len(pieces), hidden.shape[1]), dtype=np.float32)
    for j, (a, b) in enumerate(pieces):
        inside = real & (starts < b) & (ends > a)
        out[j] = hidden[: len(offsets)][inside].mean(axis=0) if inside.any() else whole
    return out


def _strip_prefix(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    if "embeddings.word_embeddings.weight" in weights:
        return weights
    return {k.removeprefix("bert."): v for k, v in weights.items()}


def load_light_model(folder: Path) -> LightModel:
    """The numpy twin of the sentence-transformers model in ``folder``; raises :class:`Unsupported`."""

    def read_json(path: Path) -> Any:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise Unsupported(f"{path.name} is missing") from None
        except (OSError, ValueError) as exc:
            raise Unsupported(f"{path.name} is unreadable ({exc})") from None

    modules = read_json(folder / "modules.json")
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        raise Unsupported(f"modules {kinds} (only Transformer + Pooling [+ Normalize])")
    transformer = next(m for m in modules if str(m["type"]).endswith("Transformer"))
    if transformer.get("path", ""):
        raise Unsupported("the transformer is not at the folder's top level")
    pool_path = next(m for m in modules if str(m["type"]).endswith("Pooling"))["path"]
    pool = read_json(folder / pool_path / "config.json")
    modes = {
        k.removeprefix("pooling_mode_").removesuffix("_tokens").removesuffix("_token")
        for k, v in pool.items()
        if k.startswith("pooling_mode_") and v
    }
    if modes not in ({"mean"}, {"cls"}):
        raise Unsupported(f"pooling {sorted(modes)} (only mean or cls)")
    if pool.get("include_prompt") is False:
        raise Unsupported("pooling that excludes the prompt")
    config = read_json(folder / "config.json")
    if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu":
        raise Unsupported(f"model type {config.get('model_type')}/{config.get('hidden_act')} (only BERT with GELU)")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise Unsupported("relative position embeddings")
    st_config = read_json(folder / "sentence_bert_config.json")
    extra = set(st_config) - {"max_seq_length", "do_lower_case"}
    if extra:
        raise Unsupported(f"sentence_bert_config.json sets {sorted(extra)}")
    max_tokens = int(st_config.get("max_seq_length") or 0)
    if max_tokens <= 0:
        raise Unsupported("sentence_bert_config.json has no max_seq_length")
    st_extra = folder / "config_sentence_transformers.json"
    if st_extra.exists():
        prompts = read_json(st_extra).get("prompts") or {}
        if any(prompts.values()) or read_json(st_extra).get("default_prompt_name"):
            raise Unsupported("the model uses prompts")
    weights_file = folder / "model.safetensors"
    if not weights_file.exists():
        raise Unsupported("model.safetensors is missing")
    try:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    except ImportError:
        raise Unsupported("the tokenizers package is not installed") from None
    except Exception as exc:
        raise Unsupported(f"tokenizer.json is unusable ({type(exc).__name__})") from None
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    try:
        weights = read_safetensors(weights_file)
    except (OSError, ValueError, KeyError, struct.error) as exc:
        raise Unsupported(f"model.safetensors is unreadable ({exc})") from None
    return LightModel(
        folder,
        config=config,
        pooling=modes.pop(),
        max_tokens=max_tokens,
        lowercase=bool(st_config.get("do_lower_case")),
        weights=weights,
        tokenizer=tokenizer,
    )
