"""The on-disk index: generations made of segments (vectors, SQLite docstore), a manifest, the live pointer.

Layout of the index folder::

    CURRENT                  name of the live generation (replaced atomically)
    gen-<time>-<id>/         one complete generation
        seg-*.npy, seg-*.sqlite   its segments (:mod:`hwqa.index.segment`): vectors, chunks, FTS5 rows
        manifest.json        what built it, its segments, the chunk ids deleted from them, and the
                             size, SHA-256 and mtime of every file it uses
    cache/                   fetched web pages
    build.lock               held by the one builder at a time

A build writes a new generation beside the live one: the live one's segments enter it by hard
link (shared bytes, nothing rewritten), the chunks that changed go into one new segment, and the
chunks they replace are listed as deleted. It fsyncs what it wrote, then swaps ``CURRENT`` with an
atomic rename; readers load whichever generation ``CURRENT`` names, and every check in
:func:`open_generation` must pass before a query is answered from it. :func:`compact` merges
segments and drops deleted rows, as one more generation.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..errors import IndexCorruptError, IndexMismatchError, IndexMissingError
from ..notes.chunk import Chunk
from ..notes.keywords import fts_terms
from .manifest import CHECKSUM_KEY as CHECKSUM_KEY
from .manifest import DOCSTORE as DOCSTORE

# The manifest lives in manifest.py; its names are re-exported, callers use them as index.*
from .manifest import FORMAT as FORMAT
from .manifest import MANIFEST as MANIFEST
from .manifest import PRICES as PRICES
from .manifest import READABLE_FORMATS as READABLE_FORMATS
from .manifest import VECTORS as VECTORS
from .manifest import _read_checked_manifest
from .manifest import check_compatible as check_compatible
from .manifest import embedder_mismatch as embedder_mismatch
from .manifest import manifest_text as manifest_text
from .manifest import read_manifest as read_manifest
from .manifest import read_prices as read_prices
from .manifest import segment_entries as segment_entries

# The live pointer lives in pointer.py; its names are re-exported, callers use them as index.*
from .pointer import CURRENT as CURRENT
from .pointer import REBUILD_HINT as REBUILD_HINT
from .pointer import clear_pointer as clear_pointer
from .pointer import current_generation_dir as current_generation_dir
from .pointer import quarantine as quarantine
from .pointer import remove_litter as remove_litter
from .pointer import switch_to as switch_to
from .segment import COLUMNS, Segment, check_file
from .segment import sha256_file as sha256_file

# BM25 column weights: title, heading, tags and aliases, text, whole identifiers.
BM25_WEIGHTS = (3.0, 2.0, 2.0, 1.0, 4.0)
FEW_ROWS = 900  # a keyword search allowed at most this many rows names them in its query (SQLite's 999 variables)


T = TypeVar("T")


@dataclass(frozen=True)
class StoredChunk:
    """A chunk as read back from the docstore, with its id (unique within a generation)."""

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

    def to_chunk(self) -> Chunk:
        return Chunk(self.kind, self.source, self.title, self.heading, self.text, self.line, self.ordinal, self.url, self.meta)


def stored_row(row: Sequence[Any]) -> StoredChunk:
    return StoredChunk(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], json.loads(row[10]))


def _idf(rows: int, hits: int) -> float:
    """FTS5's BM25 inverse document frequency (fts5_aux.c), floored as it floors it."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5)) if rows else 0.0
    return idf if idf > 0 else 1e-6


class Generation:
    """One loaded, verified generation: search vectors, read chunks. Safe to share across threads."""

    def __init__(self, path: Path, manifest: dict[str, Any], segments: list[Segment]) -> None:
        self.path = path
        self.manifest = manifest
        self.segments = segments
        self.dim = int(manifest.get("embedder", {}).get("dim") or 0)
        self.deleted = frozenset(i for s in segments for i in s.deleted)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def size(self) -> int:
        return sum(s.live for s in self.segments)

    @property
    def stored(self) -> int:
        return sum(s.count for s in self.segments)

    def _segment_of(self, chunk_id: int) -> Segment:
        for s in self.segments:
            if s.base <= chunk_id < s.end:
                return s
        raise IndexCorruptError(f"index generation {self.name} has no chunk {chunk_id}; {REBUILD_HINT}")

    def search(self, query: np.ndarray, k: int, allowed: frozenset[int] | None = None) -> list[tuple[int, float]]:
        """Up to ``k`` (chunk id, cosine) pairs nearest to ``query``, best first; only ``allowed`` ids if given."""
        if self.size == 0 or (allowed is not None and not allowed):
            return []
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        hits = [h for s in self.segments for h in s.search(q, k, self.dim, allowed)]
        hits.sort(key=lambda h: (-h[1], h[0]))
        return hits[:k]

    def keyword_search(self, question: str, k: int, allowed: frozenset[int] | None = None) -> list[tuple[int, float]]:
        """Up to ``k`` (chunk id, BM25 score) pairs matching the question's words, best first (higher is better).

        The largest segment is ranked by SQLite's BM25 as is; the rows of smaller segments are scored
        term by term with the largest one's term statistics, so an edited note ranks as it would
        in one table, not by the statistics of its own tiny segment.
        """
        terms = fts_terms(question)
        if not terms or self.size == 0:
            return []
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        limit = k if allowed is None else max(k * 20, 500)
        main = max(self.segments, key=lambda s: s.count)
        # A few allowed rows (one page's chunks) are matched among themselves, not looked for in the best 500.
        few = allowed is not None and len(allowed) <= FEW_ROWS
        only = sorted(i for i in allowed if main.base <= i < main.end) if allowed is not None and few else None
        hits: list[tuple[int, float]] = []
        try:
            rows = main.db.execute(
                f"SELECT rowid, bm25(chunks_fts, {weights}) AS s FROM chunks_fts WHERE chunks_fts MATCH ? "
                + (f"AND rowid IN ({','.join('?' * len(only))}) " if only is not None else "")
                + "ORDER BY s, rowid LIMIT ?",
                (" OR ".join(terms), *(only or ()), limit + len(main.deleted)),
            ).fetchall()
            hits.extend((int(r[0]), -float(r[1])) for r in rows if int(r[0]) not in main.deleted)
            counts: dict[str, int] = {}
            for seg in self.segments:
                if seg is not main and seg.live:
                    hits.extend(self._rescaled(seg, main, terms, weights, counts))
        except sqlite3.OperationalError as exc:
            raise IndexCorruptError(f"the keyword index of generation {self.name} is unusable ({exc}); {REBUILD_HINT}") from None
        hits = [h for h in hits if allowed is None or h[0] in allowed]
        hits.sort(key=lambda h: (-h[1], h[0]))
        return hits[:k]

    @staticmethod
    def _rescaled(seg: Segment, main: Segment, terms: list[str], weights: str, counts: dict[str, int]) -> list[tuple[int, float]]:
        """BM25 of ``seg``'s matching rows as ``main`` would score them: FTS5's BM25 is a sum over the
        query's terms, each ``idf * f (k1 + 1) / (f + k1 (1 - b + b D / avgdl))``; every term is
        matched alone, its weighted frequency ``f`` recovered from ``seg``'s own score, and scored
        again with ``main``'s row count, matching rows and mean row length."""
        if seg.db.execute("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1", (" OR ".join(terms),)).fetchone() is None:
            return []
        k1, b = 1.2, 0.75  # FTS5's constants
        own, theirs = seg.fts_average() or 1.0, main.fts_average() or 1.0
        scores: dict[int, float] = {}
        for term in terms:
            rows = seg.db.execute(
                f"SELECT rowid, bm25(chunks_fts, {weights}) FROM chunks_fts WHERE chunks_fts MATCH ?", (term,)
            ).fetchall()
            if not rows:
                continue
            if term not in counts:
                counts[term] = main.db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (term,)).fetchone()[0]
            idf_own, idf_main = _idf(seg.count, len(rows)), _idf(main.count, counts[term])
            sizes = seg.fts_sizes([int(r[0]) for r in rows])
            for rowid, score in rows:
                if int(rowid) in seg.deleted:
                    continue
                size = sizes.get(int(rowid), 0)
                part = -float(score) / idf_own  # f (k1 + 1) / (f + c)
                c = k1 * (1 - b + b * size / own)
                freq = part * c / (k1 + 1 - part) if part < k1 + 1 else 0.0
                again = freq * (k1 + 1) / (freq + k1 * (1 - b + b * size / theirs)) if freq > 0 else 0.0
                scores[int(rowid)] = scores.get(int(rowid), 0.0) + idf_main * again
        return list(scores.items())

    def _matches(self, query: str) -> bool:
        """Whether any live passage matches the FTS5 ``query`` (a query FTS5 cannot parse matches nothing)."""
        for seg in self.segments:
            try:
                if not seg.deleted:
                    if seg.db.execute("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1", (query,)).fetchone():
                        return True
                    continue
                for (rowid,) in seg.db.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (query,)):
                    if rowid not in seg.deleted:
                        return True
            except sqlite3.OperationalError:
                return False
        return False

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
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([self._segment_of(int(i)).row(int(i), self.dim) for i in ids]).astype(np.float32)

    def _select(self, where: str, args: Sequence[Any], live: bool = True) -> list[StoredChunk]:
        out: list[StoredChunk] = []
        for seg in self.segments:
            rows = seg.db.execute(f"SELECT {COLUMNS} FROM chunks WHERE {where}", list(args)).fetchall()
            out.extend(stored_row(r) for r in rows if not live or r[0] not in seg.deleted)
        return out

    def span_vectors(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The vectors of the candidate spans of chunks ``ids`` (one row per span of ``spans_of(text)``,
        in order), by chunk id; a chunk without them (an older format) is left out."""
        out: dict[int, np.ndarray] = {}
        for seg in self.segments:
            mine = [int(i) for i in ids if seg.base <= int(i) < seg.end]
            if mine:
                out.update(seg.span_vectors(mine))
        return out

    def span_vectors_for_keys(self, keys: Iterable[str] | None = None) -> dict[str, np.ndarray]:
        """The span vectors of every distinct chunk key (or of ``keys``), for reuse by the next build."""
        out: dict[str, np.ndarray] = {}
        for seg in self.segments:
            wanted = sorted(set(keys)) if keys is not None else [r[0] for r in seg.db.execute("SELECT DISTINCT key FROM chunks")]
            out.update(seg.spans_for_keys(wanted))
        return out

    def _with_spans(self, chunks: list[StoredChunk]) -> list[StoredChunk]:
        """``chunks`` carrying their span vectors (for the answerer)."""
        vectors = self.span_vectors([c.id for c in chunks])
        return [replace(c, spans=vectors.get(c.id)) for c in chunks]

    def chunks(self, ids: Sequence[int]) -> list[StoredChunk]:
        if not ids:
            return []
        by_id: dict[int, StoredChunk] = {}
        wanted = [int(i) for i in ids]
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            by_id.update((c.id, c) for c in self._select(f"id IN ({','.join('?' * len(part))})", part))
        if any(i not in by_id for i in wanted):
            raise IndexCorruptError(f"index generation {self.name} has vectors without text; {REBUILD_HINT}")
        return self._with_spans([by_id[i] for i in wanted])

    def section_at(self, source: str, line: int) -> StoredChunk | None:
        """The first chunk of the section of ``source`` that holds file line ``line``."""
        found = self._select("source = ? AND line <= ?", (source, line))
        return min(found, key=lambda c: (-c.line, c.ordinal, c.id)) if found else None

    def nearby(self, chunk: StoredChunk, before: int, after: int) -> list[StoredChunk]:
        """The chunks of ``chunk``'s section from ``before`` ordinals before it to ``after`` after, in order."""
        where = "source = ? AND kind = ? AND url IS ? AND heading = ? AND ordinal BETWEEN ? AND ?"
        args = (chunk.source, chunk.kind, chunk.url, chunk.heading, chunk.ordinal - before, chunk.ordinal + after)
        return self._with_spans(sorted(self._select(where, args), key=lambda c: (c.ordinal, c.id)))

    def of_source(self, kind: str, source: str) -> list[StoredChunk]:
        """The live chunks of one note or article, in order."""
        return sorted(self._select("source = ? AND kind = ?", (source, kind)), key=lambda c: (c.ordinal, c.id))

    def ids_of(self, kind: str, source: str) -> list[int]:
        """The ids of the live chunks of one note or article (by its path or URL), in id order."""
        ids: list[int] = []
        for seg in self.segments:
            rows = seg.db.execute("SELECT id FROM chunks WHERE source = ? AND kind = ?", (source, kind)).fetchall()
            ids.extend(int(r[0]) for r in rows if int(r[0]) not in seg.deleted)
        return sorted(ids)

    def all_chunks(self) -> list[StoredChunk]:
        return sorted(self._select("1", ()), key=lambda c: c.id)

    def vectors_for_keys(self, keys: Iterable[str] | None = None) -> dict[str, np.ndarray]:
        """Embedding of every distinct chunk key (or of ``keys``), deleted rows included, for reuse by the next build."""
        out: dict[str, np.ndarray] = {}
        wanted = None if keys is None else sorted(set(keys))
        for seg in self.segments:
            if wanted is None:
                rows = seg.db.execute("SELECT id, key FROM chunks").fetchall()
            else:
                rows = []
                for start in range(0, len(wanted), 500):
                    part = wanted[start : start + 500]
                    sql = f"SELECT id, key FROM chunks WHERE key IN ({','.join('?' * len(part))})"
                    rows.extend(seg.db.execute(sql, part).fetchall())
            if rows:
                matrix = seg.matrix(self.dim)
                out.update((key, np.array(matrix[i - seg.base], dtype=np.float32)) for i, key in rows)
        return out

    def close(self) -> None:
        for seg in self.segments:
            seg.close()


def open_generation(
    gen_dir: Path,
    *,
    embedder: dict[str, Any] | None = None,
    verify: bool = True,
    formats: Sequence[int] = (FORMAT,),
) -> Generation:
    """Load one generation after checking it against its manifest (and the configured embedder).

    ``verify``: hash every file the generation uses (once per process for a file that did not
    change); otherwise a file whose size and mtime are as recorded is trusted (a build's check).
    ``formats``: the index formats accepted; a build reading an older generation for its vectors
    passes :data:`READABLE_FORMATS`, queries need the current one.
    """
    manifest, intact = _read_checked_manifest(gen_dir, formats)
    differs = embedder_mismatch(manifest, embedder) if embedder is not None else None
    if differs:
        key, built, wanted = differs
        raise IndexMismatchError(
            f"the index was built with embedding {key} {built!r} but the settings say {wanted!r}; "
            "run 'hwqa index' to rebuild it for the new model"
        )
    if intact is None and manifest.get("format", 0) >= 4:
        raise IndexCorruptError(f"the manifest of index generation {gen_dir.name} does not match its checksum; {REBUILD_HINT}")
    files = manifest.get("files", {})
    if PRICES in files:
        check_file(gen_dir / PRICES, files[PRICES], gen_dir.name, full=verify)
        if verify:
            manifest["prices"] = read_prices(gen_dir)
    entries = segment_entries(manifest)
    for entry in entries:
        for name in (entry["vectors"], entry["docstore"]):
            check_file(gen_dir / name, files.get(name, {}), gen_dir.name, full=verify)
    deleted = manifest.get("deleted", [])
    segments: list[Segment] = []
    try:
        for entry in entries:
            segments.append(Segment(gen_dir, entry, deleted))
        gen = Generation(gen_dir, manifest, segments)
        if gen.size != manifest.get("counts", {}).get("chunks"):
            raise IndexCorruptError(
                f"index generation {gen_dir.name} does not hold the chunks its manifest counts; {REBUILD_HINT}"
            )
        if verify:
            for seg in segments:
                seg.matrix(gen.dim)  # shape checked against the manifest before a query needs it
    except BaseException:
        for seg in segments:
            seg.close()
        raise
    return gen


OPEN_ATTEMPTS = 5  # a reader outrun by this many pairs of builds in a row gives up with the last error


def read_live(index_dir: Path, read: Callable[[Path], T]) -> T | None:
    """``read(gen_dir)`` of the live generation (None when no index has been built), read again from
    the new one if the generation was pruned while it was being read.

    Reading ``CURRENT`` and then the generation it names are two steps: between them (or while
    ``read`` opens the files one by one) two builds can switch the pointer twice, and the second
    switch removes the generation read first (:func:`hwqa.index.pointer.switch_to` keeps only the live one
    and the one before it). A file found missing or unreadable then says nothing about the index:
    when ``CURRENT`` has moved since it was read, the new generation is read instead. An error in a
    generation that is still live is raised as it is (a damaged index, not a race).
    """
    for attempt in range(OPEN_ATTEMPTS):
        gen_dir = current_generation_dir(index_dir)
        if gen_dir is None:
            return None
        try:
            if not gen_dir.is_dir():
                raise IndexCorruptError(f"{index_dir / CURRENT} names {gen_dir.name}, which is missing; {REBUILD_HINT}")
            return read(gen_dir)
        except IndexCorruptError:
            if attempt + 1 < OPEN_ATTEMPTS and _moved(index_dir, gen_dir):
                continue
            raise
    raise AssertionError("unreachable")


def _moved(index_dir: Path, gen_dir: Path) -> bool:
    """Whether ``CURRENT`` names another generation than ``gen_dir`` now."""
    try:
        return current_generation_dir(index_dir) != gen_dir
    except IndexCorruptError:
        return False


def open_current(index_dir: Path, *, embedder: dict[str, Any] | None = None) -> Generation:
    """Load the live generation (see :func:`read_live`), or say how to build one."""
    gen = read_live(index_dir, lambda gen_dir: open_generation(gen_dir, embedder=embedder))
    if gen is None:
        raise IndexMissingError(f"no index found at {index_dir}/; run 'hwqa index' to build it from your notes")
    return gen


def read_live_manifest(index_dir: Path) -> dict[str, Any] | None:
    """The live generation's manifest with its price table (see :func:`read_live`), or None when no index has been built."""
    return read_live(index_dir, read_manifest)
