"""The on-disk index: generations of (FAISS vectors, SQLite docstore, manifest).

Layout of the index folder::

    CURRENT                  name of the live generation (replaced atomically)
    gen-<time>-<id>/         one complete build
        vectors.faiss        FAISS flat inner-product index, row i = chunk id i
        docstore.sqlite      chunk text and metadata (+ FTS5 table); no pickle anywhere
        manifest.json        what built it, counts and SHA-256 of the two files above
    cache/                   fetched web pages
    build.lock               held by the one builder at a time

A build writes a new generation beside the live one, fsyncs it, then swaps ``CURRENT`` with
an atomic rename; readers load whichever generation ``CURRENT`` names, and every check in
:func:`open_generation` must pass before a query is answered from it.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import secrets
import shutil
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from .atomic import disk_error, fsync_dir, write_atomic
from .chunk import Chunk
from .errors import IndexCorruptError, IndexMismatchError, IndexMissingError
from .keywords import fts_query, idents_column

# The live pointer lives in pointer.py; its names are re-exported, callers use them as index.*
from .pointer import CURRENT as CURRENT
from .pointer import REBUILD_HINT as REBUILD_HINT
from .pointer import current_generation_dir as current_generation_dir
from .pointer import quarantine as quarantine
from .pointer import remove_litter as remove_litter
from .pointer import switch_to as switch_to

# BM25 column weights: title, heading, tags and aliases, text, whole identifiers.
BM25_WEIGHTS = (3.0, 2.0, 2.0, 1.0, 4.0)

FORMAT = 3  # 2: the FTS table holds title, heading, tags/aliases, text and whole identifiers; 3: span vectors
READABLE_FORMATS = (1, 2, 3)  # a build may reuse the vectors of these; queries need FORMAT
VECTORS = "vectors.faiss"
DOCSTORE = "docstore.sqlite"
MANIFEST = "manifest.json"

_SCHEMA = """
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    title TEXT NOT NULL,
    heading TEXT NOT NULL,
    url TEXT,
    line INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    text TEXT NOT NULL,
    meta TEXT NOT NULL
);
CREATE INDEX chunks_key ON chunks(key);
CREATE INDEX chunks_source ON chunks(source);
CREATE VIRTUAL TABLE chunks_fts USING fts5(title, heading, meta, text, idents, tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE info (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE spans (id INTEGER PRIMARY KEY, count INTEGER NOT NULL, vectors BLOB NOT NULL);
"""


def _faiss() -> Any:
    import faiss

    return faiss


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


@dataclass(frozen=True)
class StoredChunk:
    """A chunk as read back from the docstore, with its vector row id."""

    id: int
    key: str
    kind: str
    source: str
    title: str
    heading: str
    url: str | None
    line: int
    ordinal: int
    text: str
    meta: dict[str, Any]
    spans: np.ndarray | None = field(default=None, compare=False, repr=False)  # its candidate spans' vectors


class Generation:
    """One loaded, verified generation: search vectors, read chunks. Safe to share across threads."""

    def __init__(self, path: Path, manifest: dict[str, Any], faiss_index: Any, db: sqlite3.Connection) -> None:
        self.path = path
        self.manifest = manifest
        self._index = faiss_index
        self._db = db

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def size(self) -> int:
        return int(self._index.ntotal)

    def search(self, query: np.ndarray, k: int, allowed: frozenset[int] | None = None) -> list[tuple[int, float]]:
        """Up to ``k`` (chunk id, cosine) pairs nearest to ``query``, best first; only ``allowed`` ids if given."""
        if self.size == 0 or (allowed is not None and not allowed):
            return []
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        if allowed is not None:
            faiss = _faiss()
            selector = faiss.IDSelectorBatch(np.fromiter(sorted(allowed), dtype=np.int64))
            scores, ids = self._index.search(q, min(k, len(allowed)), params=faiss.SearchParameters(sel=selector))
            return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]
        scores, ids = self._index.search(q, min(k, self.size))
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def keyword_search(self, question: str, k: int, allowed: frozenset[int] | None = None) -> list[tuple[int, float]]:
        """Up to ``k`` (chunk id, BM25 score) pairs matching the question's words, best first (higher is better)."""
        query = fts_query(question)
        if query is None or self.size == 0:
            return []
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        limit = k if allowed is None else max(k * 20, 500)
        try:
            rows = self._db.execute(
                f"SELECT rowid, bm25(chunks_fts, {weights}) AS s FROM chunks_fts WHERE chunks_fts MATCH ? "
                "ORDER BY s, rowid LIMIT ?",
                (query, limit),
            ).fetchall()
        except sqlite3.OperationalError as exc:
            raise IndexCorruptError(f"the keyword index of generation {self.name} is unusable ({exc}); {REBUILD_HINT}") from None
        hits = [(int(r[0]), -float(r[1])) for r in rows if allowed is None or int(r[0]) in allowed]
        return hits[:k]

    def _matches(self, query: str) -> bool:
        """Whether any passage matches the FTS5 ``query`` (a query FTS5 cannot parse matches nothing)."""
        try:
            row = self._db.execute("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1", (query,)).fetchone()
        except sqlite3.OperationalError:
            return False
        return row is not None

    def has_term(self, term: str, column: str | None = None) -> bool:
        """Whether any passage holds ``term`` (a word, or with ``column='idents'`` a folded identifier)."""
        quoted = '"' + term.replace('"', '""') + '"'
        return self._matches(f"{column} : {quoted}" if column else quoted)

    def has_phrase(self, text: str) -> bool:
        """Whether any passage holds the words of ``text`` in a row (any column, stemmed like the index)."""
        words = re.findall(r"[^\W_]+", text)
        return bool(words) and self.has_term(" ".join(words))

    def has_near(self, first: str, second: str, distance: int = 12) -> bool:
        """Whether one passage holds the words of ``first`` and of ``second`` within ``distance`` words."""
        a, b = (" ".join(re.findall(r"[^\W_]+", t)) for t in (first, second))
        return bool(a and b) and self._matches(f'NEAR("{a}" "{b}", {distance})')

    def vectors(self, ids: Sequence[int]) -> np.ndarray:
        """The stored vectors of ``ids``, one row each."""
        if not ids:
            return np.zeros((0, int(self._index.d)), dtype=np.float32)
        return np.vstack([self._index.reconstruct(int(i)) for i in ids]).astype(np.float32)

    def span_vectors(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The vectors of the candidate spans of chunks ``ids`` (one row per span of ``spans_of(text)``,
        in order), by chunk id; a chunk without them (an older format) is left out."""
        if not ids or self.manifest.get("format", 0) < 3:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._db.execute(f"SELECT id, count, vectors FROM spans WHERE id IN ({marks})", list(ids)).fetchall()
        return {int(i): _span_matrix(n, blob) for i, n, blob in rows}

    def span_vectors_for_keys(self) -> dict[str, np.ndarray]:
        """The span vectors of every distinct chunk key, for reuse by the next build."""
        if self.manifest.get("format", 0) < 3:
            return {}
        rows = self._db.execute("SELECT c.key, s.count, s.vectors FROM chunks c JOIN spans s ON s.id = c.id").fetchall()
        return {key: _span_matrix(n, blob) for key, n, blob in rows}

    def chunks(self, ids: Sequence[int]) -> list[StoredChunk]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM chunks WHERE id IN ({marks})",
            list(ids),
        ).fetchall()
        by_id = {r[0]: _stored(r) for r in rows}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise IndexCorruptError(f"index generation {self.name} has vectors without text; {REBUILD_HINT}")
        return self._with_spans([by_id[i] for i in ids])

    def _with_spans(self, chunks: list[StoredChunk]) -> list[StoredChunk]:
        """``chunks`` carrying their span vectors (for the answerer)."""
        vectors = self.span_vectors([c.id for c in chunks])
        return [replace(c, spans=vectors.get(c.id)) for c in chunks]

    def section_at(self, source: str, line: int) -> StoredChunk | None:
        """The first chunk of the section of ``source`` that holds file line ``line``."""
        row = self._db.execute(
            f"SELECT {_COLUMNS} FROM chunks WHERE source = ? AND line <= ? ORDER BY line DESC, ordinal LIMIT 1",
            (source, line),
        ).fetchone()
        return _stored(row) if row else None

    def nearby(self, chunk: StoredChunk, before: int, after: int) -> list[StoredChunk]:
        """The chunks of ``chunk``'s section from ``before`` ordinals before it to ``after`` after, in order."""
        where = "source = ? AND kind = ? AND url IS ? AND heading = ? AND ordinal BETWEEN ? AND ? ORDER BY ordinal"
        args = (chunk.source, chunk.kind, chunk.url, chunk.heading, chunk.ordinal - before, chunk.ordinal + after)
        return self._with_spans(
            [_stored(r) for r in self._db.execute(f"SELECT {_COLUMNS} FROM chunks WHERE {where}", args).fetchall()]
        )

    def all_chunks(self) -> list[StoredChunk]:
        rows = self._db.execute(f"SELECT {_COLUMNS} FROM chunks ORDER BY id").fetchall()
        return [_stored(r) for r in rows]

    def vectors_for_keys(self) -> dict[str, np.ndarray]:
        """Embedding of every distinct chunk key, for reuse by the next build."""
        keys = self._db.execute("SELECT id, key FROM chunks ORDER BY id").fetchall()
        if not keys:
            return {}
        matrix = self._index.reconstruct_n(0, self.size)
        return {key: matrix[i] for i, key in keys}

    def close(self) -> None:
        self._db.close()


def _span_matrix(count: int, blob: bytes) -> np.ndarray:
    """Span vectors as stored (float16, to halve the docstore) back to float32 rows."""
    flat = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
    return flat.reshape(int(count), -1) if count else flat.reshape(0, 0)


def _meta_words(meta: dict[str, Any]) -> str:
    """Tags and aliases of a note (and the notes linking to an article), for keyword search."""
    parts: list[str] = []
    for key in ("tags", "aliases", "linked_from"):
        value = meta.get(key) or []
        parts.extend(str(v) for v in value) if isinstance(value, list) else parts.append(str(value))
    return " ; ".join(parts)


def _stored(row: Sequence[Any]) -> StoredChunk:
    return StoredChunk(
        id=row[0],
        key=row[1],
        kind=row[2],
        source=row[3],
        title=row[4],
        heading=row[5],
        url=row[6],
        line=row[7],
        ordinal=row[8],
        text=row[9],
        meta=json.loads(row[10]),
    )


_COLUMNS = "id, key, kind, source, title, heading, url, line, ordinal, text, meta"


def read_manifest(gen_dir: Path, formats: Sequence[int] = (FORMAT,)) -> dict[str, Any]:
    path = gen_dir / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IndexCorruptError(f"index generation {gen_dir.name} has no manifest; {REBUILD_HINT}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise IndexCorruptError(f"the manifest of index generation {gen_dir.name} is unreadable; {REBUILD_HINT}") from None
    if not isinstance(manifest, dict) or manifest.get("format") not in formats:
        raise IndexMismatchError(f"the index at {gen_dir.parent} was written by another hwqa format; {REBUILD_HINT}")
    return manifest


def embedder_mismatch(manifest: dict[str, Any], embedder: dict[str, Any]) -> tuple[str, Any, Any] | None:
    """The first of backend, model, dim where the embedder that built ``manifest`` differs from ``embedder``:
    (key, built with, configured), or None when they agree."""
    built = manifest.get("embedder", {})
    for key in ("backend", "model", "dim"):
        if built.get(key) != embedder.get(key):
            return key, built.get(key), embedder.get(key)
    return None


def check_compatible(manifest: dict[str, Any], embedder: dict[str, Any], chunking: dict[str, Any]) -> str | None:
    """Why an index built with ``manifest`` cannot serve these settings, or None if it can."""
    differs = embedder_mismatch(manifest, embedder)
    if differs:
        key, built, wanted = differs
        return f"it was built with embedding {key} {built!r}, the settings say {wanted!r}"
    if manifest.get("chunking") != chunking:
        return f"it was built with chunking {manifest.get('chunking')}, the settings say {chunking}"
    return None


def open_generation(
    gen_dir: Path, *, embedder: dict[str, Any] | None = None, verify: bool = True, formats: Sequence[int] = (FORMAT,)
) -> Generation:
    """Load one generation after checking it against its manifest (and the configured embedder).

    ``formats``: the index formats accepted; a build reading an older generation for its vectors
    passes :data:`READABLE_FORMATS`, queries need the current one.
    """
    manifest = read_manifest(gen_dir, formats)
    differs = embedder_mismatch(manifest, embedder) if embedder is not None else None
    if differs:
        key, built, wanted = differs
        raise IndexMismatchError(
            f"the index was built with embedding {key} {built!r} but the settings say {wanted!r}; "
            "run 'hwqa index' to rebuild it for the new model"
        )
    files = manifest.get("files", {})
    for name in (VECTORS, DOCSTORE):
        path = gen_dir / name
        if not path.is_file():
            raise IndexCorruptError(f"index generation {gen_dir.name} is missing {name}; {REBUILD_HINT}")
        if verify:
            expected = files.get(name, {})
            if path.stat().st_size != expected.get("bytes") or sha256_file(path) != expected.get("sha256"):
                raise IndexCorruptError(
                    f"{name} in index generation {gen_dir.name} does not match its manifest "
                    f"(truncated or altered); {REBUILD_HINT}"
                )
    faiss = _faiss()
    try:
        index = faiss.read_index(str(gen_dir / VECTORS))
    except RuntimeError:
        raise IndexCorruptError(f"{VECTORS} in index generation {gen_dir.name} is unreadable; {REBUILD_HINT}") from None
    dim = manifest.get("embedder", {}).get("dim")
    count = manifest.get("counts", {}).get("chunks")
    if index.d != dim or index.ntotal != count:
        raise IndexCorruptError(
            f"index generation {gen_dir.name} holds {index.ntotal} vectors of dimension {index.d}, "
            f"its manifest says {count} of {dim}; {REBUILD_HINT}"
        )
    try:
        db = sqlite3.connect(f"file:{gen_dir / DOCSTORE}?mode=ro&immutable=1", uri=True, check_same_thread=False)
        rows = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        gen_id = db.execute("SELECT value FROM info WHERE name='generation'").fetchone()
    except sqlite3.DatabaseError:
        raise IndexCorruptError(f"{DOCSTORE} in index generation {gen_dir.name} is unreadable; {REBUILD_HINT}") from None
    if rows != count or gen_id is None or gen_id[0] != manifest.get("generation"):
        db.close()
        raise IndexCorruptError(f"the docstore of index generation {gen_dir.name} does not belong to its vectors; {REBUILD_HINT}")
    return Generation(gen_dir, manifest, index, db)


def open_current(index_dir: Path, *, embedder: dict[str, Any] | None = None) -> Generation:
    """Load the live generation, or say how to build one."""
    gen_dir = current_generation_dir(index_dir)
    if gen_dir is None:
        raise IndexMissingError(f"no index found at {index_dir}/; run 'hwqa index' to build it from your notes")
    if not gen_dir.is_dir():
        raise IndexCorruptError(f"{index_dir / CURRENT} names {gen_dir.name}, which is missing; {REBUILD_HINT}")
    return open_generation(gen_dir, embedder=embedder)


def new_generation_name() -> str:
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"gen-{stamp}-{secrets.token_hex(3)}"


def write_generation(
    index_dir: Path,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    manifest: dict[str, Any],
    step: Callable[[int], None] | None = None,
    span_vectors: Sequence[np.ndarray] = (),
) -> Path:
    """Write a complete new generation folder (not yet live) and return its path.

    ``span_vectors[i]``: the vectors of chunk i's candidate spans (:mod:`hwqa.spans`), stored with it.
    ``step(n)`` is called after each stage: 1 vectors written, 2 docstore written, 3 manifest
    written and the folder in place (only :func:`switch_to` remains). A write that fails removes
    its ``.gen-*.partial`` folder; a full, over-quota or failing disk is an ``IndexWriteError``.
    """
    name = new_generation_name()
    try:
        return _write_generation(index_dir, name, chunks, vectors, manifest, step, span_vectors)
    except BaseException as exc:
        shutil.rmtree(index_dir / f".{name}.partial", ignore_errors=True)  # never left on a full disk
        need = int(vectors.nbytes) + 3 * sum(len(c.text) for c in chunks) + (1 << 20)
        error = disk_error(exc, index_dir, need)
        if error is not None:
            raise error from None
        raise


def _write_generation(
    index_dir: Path,
    name: str,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    manifest: dict[str, Any],
    step: Callable[[int], None] | None = None,
    span_vectors: Sequence[np.ndarray] = (),
) -> Path:
    step = step or (lambda n: None)
    if len(chunks) != len(vectors):
        raise ValueError("one vector per chunk")
    index_dir.mkdir(parents=True, exist_ok=True)
    tmp = index_dir / f".{name}.partial"
    tmp.mkdir()
    dim = int(manifest["embedder"]["dim"])
    faiss = _faiss()
    index = faiss.IndexFlatIP(dim)
    if len(vectors):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    faiss.write_index(index, str(tmp / VECTORS))
    step(1)
    db = sqlite3.connect(tmp / DOCSTORE)
    try:
        db.executescript(_SCHEMA)
        db.executemany(
            "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    i,
                    c.key,
                    c.kind,
                    c.source,
                    c.title,
                    c.heading,
                    c.url,
                    c.line,
                    c.ordinal,
                    c.text,
                    json.dumps(c.meta, sort_keys=True, ensure_ascii=False),
                )
                for i, c in enumerate(chunks)
            ],
        )
        db.executemany(
            "INSERT INTO chunks_fts(rowid, title, heading, meta, text, idents) VALUES (?,?,?,?,?,?)",
            [
                (i, c.title, c.heading, _meta_words(c.meta), c.text, idents_column((c.title, c.heading, c.text)))
                for i, c in enumerate(chunks)
            ],
        )
        db.executemany(
            "INSERT INTO spans VALUES (?,?,?)",
            [(i, len(v), np.ascontiguousarray(v, dtype=np.float16).tobytes()) for i, v in enumerate(span_vectors)],
        )
        db.execute("INSERT INTO info VALUES ('generation', ?)", (name,))
        db.commit()
    finally:
        db.close()
    step(2)
    full = {
        **manifest,
        "format": FORMAT,
        "hwqa_version": __version__,
        "generation": name,
        "built_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "counts": {"chunks": len(chunks)},
        "files": {n: {"bytes": (tmp / n).stat().st_size, "sha256": sha256_file(tmp / n)} for n in (VECTORS, DOCSTORE)},
    }
    for n in (VECTORS, DOCSTORE):
        _fsync_file(tmp / n)
    write_atomic(tmp / MANIFEST, json.dumps(full, indent=2, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    final = index_dir / name
    os.replace(tmp, final)
    fsync_dir(index_dir)
    step(3)
    return final
