"""One segment of an index generation: the vectors and docstore of the chunks one build wrote.

A segment is two immutable files beside a generation's manifest::

    seg-<time>-<id>.npy      float32 vectors, row i = chunk id ``base + i``
    seg-<time>-<id>.sqlite   the chunks (ids ``base`` .. ``base + count - 1``), their FTS5 keyword
                             rows and any per-chunk data (span vectors), and the segment's name

A generation lists its live segments and the chunk ids deleted from them; the next generation
takes the unchanged segments by hard link (the bytes are shared, never rewritten) and adds one
small segment. Generations older than the FORMAT 4 of :mod:`hwqa.index.reader` are read as one segment
(``vectors.faiss``, ``docstore.sqlite``) so a build can reuse their vectors.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import os
import secrets
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import IndexCorruptError
from ..notes.chunk import Chunk
from ..notes.keywords import idents_column
from .pointer import REBUILD_HINT

SCHEMA = """
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
CREATE TABLE notes (rel TEXT PRIMARY KEY, prices TEXT NOT NULL);
CREATE TABLE spans (id INTEGER PRIMARY KEY, count INTEGER NOT NULL, vectors BLOB NOT NULL);
CREATE TABLE note_keys (key TEXT NOT NULL, rel TEXT NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (key, rel)) WITHOUT ROWID;
"""

NoteIndex = Callable[[Mapping[str, Any]], Mapping[str, str]]  # a note's price facts -> its index entries by key

COLUMNS = "id, key, kind, source, title, heading, url, line, ordinal, text, meta"

_VERIFIED: set[tuple[int, int, int, int, str]] = set()  # (device, inode, bytes, mtime_ns, sha256) checked in this process


def _faiss() -> Any:
    import faiss

    return faiss


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def new_segment_name() -> str:
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"seg-{stamp}-{secrets.token_hex(4)}"


def file_record(path: Path, sha256: str | None = None) -> dict[str, Any]:
    """What a manifest records of one file: size, checksum, and the mtime/inode that let a build trust it unread."""
    st = path.stat()
    return {"bytes": st.st_size, "sha256": sha256 or sha256_file(path), "mtime_ns": st.st_mtime_ns}


def check_file(path: Path, record: dict[str, Any], gen_name: str, *, full: bool) -> None:
    """Raise :class:`IndexCorruptError` unless ``path`` is the file ``record`` describes.

    ``full=False`` trusts a file whose size and mtime are as recorded (a build's cheap check);
    ``full=True`` hashes it, once per process for a file that does not change (a reader's check).
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        raise IndexCorruptError(f"index generation {gen_name} is missing {path.name}; {REBUILD_HINT}") from None
    expected = record.get("sha256")
    if st.st_size != record.get("bytes"):
        raise IndexCorruptError(
            f"{path.name} in index generation {gen_name} does not match its manifest (truncated or altered); {REBUILD_HINT}"
        )
    same_stat = st.st_mtime_ns == record.get("mtime_ns")
    if not full and same_stat:
        return
    stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, str(expected))
    if stamp in _VERIFIED:
        return
    try:
        digest = sha256_file(path)
    except FileNotFoundError:  # removed since the stat above (a build pruned its generation)
        raise IndexCorruptError(f"index generation {gen_name} is missing {path.name}; {REBUILD_HINT}") from None
    if digest != expected:
        raise IndexCorruptError(
            f"{path.name} in index generation {gen_name} does not match its manifest (truncated or altered); {REBUILD_HINT}"
        )
    _VERIFIED.add(stamp)


def meta_words(meta: dict[str, Any]) -> str:
    """Tags and aliases of a note (and the notes linking to an article), for keyword search."""
    parts: list[str] = []
    for key in ("tags", "aliases", "linked_from"):
        value = meta.get(key) or []
        parts.extend(str(v) for v in value) if isinstance(value, list) else parts.append(str(value))
    return " ; ".join(parts)


def write_segment(
    folder: Path,
    name: str,
    base: int,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    on_vectors: Any = None,
    notes: Mapping[str, dict[str, Any]] | None = None,
    span_vectors: Sequence[np.ndarray] = (),
    note_index: NoteIndex | None = None,
) -> dict[str, Any]:
    """Write a segment's two files into ``folder`` (fsynced) and return its manifest entry.

    ``span_vectors[i]``: the vectors of chunk i's candidate spans (:mod:`hwqa.notes.spans`), stored with it
    (float16, to halve the docstore).

    ``notes``: what each note written here adds to the price table (:func:`hwqa.prices.note_prices`),
    kept so the next build need not read the note again; ``note_index(facts)`` gives the entries
    (key -> text) each note is also found by (:meth:`Segment.entries_for_keys`).
    """
    if len(chunks) != len(vectors):
        raise ValueError("one vector per chunk")
    vec_path, db_path = folder / f"{name}.npy", folder / f"{name}.sqlite"
    matrix = np.ascontiguousarray(vectors, dtype=np.float32)
    with open(vec_path, "xb") as fh:
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(matrix))
        fh.write(header.getvalue())
        fh.write(matrix.data.cast("B"))  # a plain write: a full disk is ENOSPC, not numpy's own error
        fh.flush()
        os.fsync(fh.fileno())
    if on_vectors is not None:
        on_vectors()
    db = sqlite3.connect(db_path, isolation_level=None)
    try:
        # a new file no reader sees before it is fsynced below: no journal, no sync per statement
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("BEGIN")
        for statement in filter(str.strip, SCHEMA.split(";")):
            db.execute(statement)
        ids = range(base, base + len(chunks))
        db.executemany(
            "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [
                (i, c.key, c.kind, c.source, c.title, c.heading, c.url, c.line, c.ordinal, c.text, _meta_json(c.meta))
                for i, c in zip(ids, chunks, strict=True)
            ],
        )
        db.executemany(
            "INSERT INTO chunks_fts(rowid, title, heading, meta, text, idents) VALUES (?,?,?,?,?,?)",
            [
                (i, c.title, c.heading, meta_words(c.meta), c.text, idents_column((c.title, c.heading, c.text)))
                for i, c in zip(ids, chunks, strict=True)
            ],
        )
        db.executemany(
            "INSERT INTO spans VALUES (?,?,?)",
            [(i, len(v), np.ascontiguousarray(v, dtype=np.float16).tobytes()) for i, v in zip(ids, span_vectors, strict=False)],
        )
        kept = {rel: facts for rel, facts in (notes or {}).items() if facts}
        db.executemany("INSERT INTO notes VALUES (?,?)", [(rel, _meta_json(facts)) for rel, facts in kept.items()])
        if note_index is not None:
            db.executemany(
                "INSERT INTO note_keys VALUES (?,?,?)",
                [(key, rel, entry) for rel, facts in kept.items() for key, entry in note_index(facts).items()],
            )
            db.execute("INSERT INTO info VALUES ('note_keys', 'all')")  # every note's entries are indexed
        db.execute("INSERT INTO info VALUES ('segment', ?)", (name,))
        db.execute("COMMIT")
    finally:
        db.close()
    with open(db_path, "rb") as fh:
        os.fsync(fh.fileno())
    return {
        "name": name,
        "base": base,
        "count": len(chunks),
        "files": {p.name: file_record(p) for p in (vec_path, db_path)},
    }


def _meta_json(meta: dict[str, Any]) -> str:
    return json.dumps(meta, sort_keys=True, ensure_ascii=False)


class Segment:
    """One opened segment: its docstore connection, its vectors (memory-mapped), FAISS built on first search."""

    def __init__(self, gen_dir: Path, entry: dict[str, Any], deleted: Iterable[int]) -> None:
        self.entry = entry
        self.base = int(entry["base"])
        self.count = int(entry["count"])
        self.end = self.base + self.count
        self.deleted = frozenset(i for i in deleted if self.base <= i < self.end)
        self.live = self.count - len(self.deleted)
        self.gen_name = gen_dir.name
        self.vectors_path = gen_dir / str(entry["vectors"])
        self.docstore_path = gen_dir / str(entry["docstore"])
        self._matrix: np.ndarray | None = None
        self._faiss: Any = None
        self._not_deleted: tuple[Any, Any] | None = None
        self._avgdl: float | None = None
        self._lock = threading.Lock()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []  # every thread's, to close
        self._connections_lock = threading.Lock()
        try:
            rows = self.db.execute("SELECT count(*) FROM chunks").fetchone()[0]
            label = self.db.execute("SELECT value FROM info WHERE name=?", (entry.get("label_key", "segment"),)).fetchone()
        except sqlite3.DatabaseError:
            raise IndexCorruptError(
                f"{self.docstore_path.name} in index generation {self.gen_name} is unreadable; {REBUILD_HINT}"
            ) from None
        if rows != self.count or label is None or label[0] != entry.get("label", entry.get("name")):
            self.close()
            raise IndexCorruptError(
                f"the docstore of index generation {self.gen_name} does not belong to its vectors; {REBUILD_HINT}"
            )

    def matrix(self, dim: int) -> np.ndarray:
        """All stored vectors of the segment (deleted rows included), read once."""
        if self._matrix is None:
            self._matrix = _load_vectors(self.vectors_path, self.gen_name)
            if self._matrix.ndim != 2 or self._matrix.shape != (self.count, dim):
                raise IndexCorruptError(
                    f"index generation {self.gen_name} holds {self._matrix.shape[0]} vectors of dimension "
                    f"{self._matrix.shape[-1]} in {self.vectors_path.name}, its manifest says {self.count} of {dim}; "
                    f"{REBUILD_HINT}"
                )
        return self._matrix

    def row(self, chunk_id: int, dim: int) -> np.ndarray:
        """The stored vector of one chunk of this segment."""
        if self._faiss is not None:
            return np.asarray(self._faiss.reconstruct(chunk_id - self.base), dtype=np.float32)
        return np.asarray(self.matrix(dim)[chunk_id - self.base], dtype=np.float32)

    def search(self, query: np.ndarray, k: int, dim: int, allowed: frozenset[int] | None) -> list[tuple[int, float]]:
        """Up to ``k`` live (chunk id, cosine) pairs of this segment, best first."""
        if self.live == 0:
            return []
        faiss = _faiss()
        with self._lock:  # the web chat's threads share a generation: FAISS is built once
            if self._faiss is None:
                index = faiss.IndexFlatIP(dim)
                matrix = self.matrix(dim)
                if len(matrix):
                    index.add(np.ascontiguousarray(matrix, dtype=np.float32))
                self._faiss = index
                self._matrix = None  # the vectors live in FAISS now; the file's mapping is let go (one copy in memory)
        if allowed is not None:
            keep = sorted(i - self.base for i in allowed if self.base <= i < self.end and i not in self.deleted)
            if not keep:
                return []
            selector = faiss.IDSelectorBatch(np.asarray(keep, dtype=np.int64))
            scores, ids = self._faiss.search(query, min(k, len(keep)), params=faiss.SearchParameters(sel=selector))
        elif self.deleted:
            if self._not_deleted is None:
                inner = faiss.IDSelectorBatch(np.asarray(sorted(i - self.base for i in self.deleted), dtype=np.int64))
                self._not_deleted = (inner, faiss.IDSelectorNot(inner))  # the inner selector must outlive the outer
            params = faiss.SearchParameters(sel=self._not_deleted[1])
            scores, ids = self._faiss.search(query, min(k, self.live), params=params)
        else:
            scores, ids = self._faiss.search(query, min(k, self.count))
        return [(int(i) + self.base, float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def fts_average(self) -> float:
        """Mean tokens per row of the keyword table, all columns (FTS5's ``avgdl``), read from its averages record."""
        if self._avgdl is None:
            row = self.db.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
            counts = _varints(bytes(row[0])) if row and row[0] else [0]
            self._avgdl = sum(counts[1:]) / counts[0] if counts[0] else 0.0
        return self._avgdl

    def fts_sizes(self, rowids: Sequence[int]) -> dict[int, int]:
        """Tokens of each row of the keyword table, all columns (FTS5's ``D``)."""
        marks = ",".join("?" * len(rowids))
        rows = self.db.execute(f"SELECT id, sz FROM chunks_fts_docsize WHERE id IN ({marks})", list(rowids))
        return {int(i): sum(_varints(bytes(sz))) for i, sz in rows}

    def span_vectors(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored span vectors of chunks ``ids`` of this segment (none in a generation before FORMAT 3)."""
        out: dict[int, np.ndarray] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            try:
                rows = self.db.execute(f"SELECT id, count, vectors FROM spans WHERE id IN ({','.join('?' * len(part))})", part)
                out.update((int(i), span_matrix(n, blob)) for i, n, blob in rows)
            except sqlite3.OperationalError:
                return {}
        return out

    def spans_for_keys(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The span vectors stored for chunk ``keys`` (deleted rows included: the same text has the same spans)."""
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            part = list(keys[start : start + 500])
            sql = (
                "SELECT c.key, s.count, s.vectors FROM chunks c JOIN spans s ON s.id = c.id "
                f"WHERE c.key IN ({','.join('?' * len(part))})"
            )
            try:
                out.update((key, span_matrix(n, blob)) for key, n, blob in self.db.execute(sql, part))
            except sqlite3.OperationalError:
                return {}
        return out

    def note_prices(self, rels: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The price facts this segment keeps for ``rels`` (a note without any is left out)."""
        out: dict[str, dict[str, Any]] = {}
        if len(rels) > 500:  # most of the segment's notes: one scan
            wanted = set(rels)
            try:
                rows = self.db.execute("SELECT rel, prices FROM notes").fetchall()
            except sqlite3.OperationalError:
                return {}
            return {rel: json.loads(text) for rel, text in rows if rel in wanted}
        for start in range(0, len(rels), 500):
            part = list(rels[start : start + 500])
            sql = f"SELECT rel, prices FROM notes WHERE rel IN ({','.join('?' * len(part))})"
            try:
                out.update((rel, json.loads(text)) for rel, text in self.db.execute(sql, part))
            except sqlite3.OperationalError:
                return {}  # a generation from before notes were kept per segment
        return out

    def entries_for_keys(self, keys: Iterable[str]) -> list[tuple[str, str]] | None:
        """(note, entry) of this segment's notes indexed under one of ``keys`` (``note_index`` of
        :func:`write_segment`), or None when the segment was written without that index."""
        try:
            if self.db.execute("SELECT 1 FROM info WHERE name='note_keys' AND value='all'").fetchone() is None:
                return None
            out: list[tuple[str, str]] = []
            for key in keys:
                out.extend(self.db.execute("SELECT rel, entry FROM note_keys WHERE key=?", (key,)))
            return out
        except sqlite3.OperationalError:
            return None

    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection to the docstore (read-only). The web chat's threads share a segment, and
        one connection used from several threads at once mixes their rows up on Python 3.12 (its cached
        statements are shared): 20 questions at once failed there with rows of the wrong length."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(f"file:{self.docstore_path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
            self._local.db = db
            with self._connections_lock:
                self._connections.append(db)
        return db

    def close(self) -> None:
        with self._connections_lock:
            for db in self._connections:
                db.close()
            self._connections.clear()


def span_matrix(count: int, blob: bytes) -> np.ndarray:
    """Span vectors as stored (float16) back to float32 rows."""
    flat = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
    return flat.reshape(int(count), -1) if count else flat.reshape(0, 0)


def _varints(blob: bytes) -> list[int]:
    """The SQLite varints FTS5 stores its sizes in (big-endian groups of 7 bits; a 9th byte of 8)."""
    out: list[int] = []
    i = 0
    while i < len(blob):
        value = 0
        for j in range(9):
            byte = blob[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def _load_vectors(path: Path, gen_name: str) -> np.ndarray:
    try:
        if path.suffix == ".npy":
            matrix: np.ndarray = np.load(path, mmap_mode="r", allow_pickle=False)
            return matrix
        index = _faiss().read_index(str(path))  # an older generation's FAISS file
        return np.asarray(index.reconstruct_n(0, index.ntotal), dtype=np.float32).reshape(index.ntotal, index.d)
    except (RuntimeError, ValueError, OSError):
        raise IndexCorruptError(f"{path.name} in index generation {gen_name} is unreadable; {REBUILD_HINT}") from None
