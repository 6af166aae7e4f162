"""Writing index generations: a new one sharing the live one's segments, and compaction.

A new generation folder is written as ``.gen-*.partial`` beside the live one and renamed into
place when complete; the live generation's segments enter it by hard link (a copy where the
filesystem refuses links), so unchanged chunks cost neither a read nor a write. :func:`compact`
writes the same chunks with fewer segments and no deleted rows, as one more generation; the
build calls it after a new generation is live, never on the way to it (:mod:`hwqa.build.builder`).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import secrets
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..notes.chunk import Chunk
from .atomic import disk_error, fsync_dir, write_atomic
from .reader import FORMAT, MANIFEST, PRICES, Generation, StoredChunk, manifest_text, stored_row
from .segment import COLUMNS, NoteIndex, Segment, file_record, new_segment_name, write_segment

COMPACT_RATIO = 1.2  # stored rows past this multiple of the live ones: compact everything
MAX_SEGMENTS = 6  # more segments than this: the small ones are merged into one


def new_generation_name() -> str:
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"gen-{stamp}-{secrets.token_hex(3)}"


def write_generation(
    index_dir: Path,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    manifest: dict[str, Any],
    step: Callable[[int], None] | None = None,
    *,
    previous: Generation | None = None,
    keep: Sequence[Segment] | None = None,
    deleted: Iterable[int] = (),
    base: int | None = None,
    notes: Mapping[str, dict[str, Any]] | None = None,
    prices: dict[str, Any] | None = None,
    span_vectors: Sequence[np.ndarray] = (),
    note_index: NoteIndex | None = None,
) -> Path:
    """Write a complete new generation folder (not yet live) and return its path.

    ``span_vectors[i]``: the vectors of ``chunks[i]``'s candidate spans, stored with it.
    ``notes``: what each note written now adds to the price table, kept in the new segment (each
    one's ``manifest["notes"][rel]["seg"]`` then names it). ``prices``: the price table, written to
    :data:`PRICES`; None keeps ``previous``'s file. ``note_index``: the entries each note's facts are
    also found by in the new segment (:func:`hwqa.index.segment.write_segment`).

    With ``previous`` (a FORMAT 4 generation), the new one holds ``keep`` of its segments (all by
    default) by hard link, plus one new segment of ``chunks``; ``deleted`` adds chunk ids of the
    kept segments that no longer count. Without it, ``chunks`` are the whole index.
    ``step(n)`` is called after each stage: 1 vectors written, 2 docstore written, 3 manifest
    written and the folder in place (only :func:`switch_to` remains). A write that fails removes
    its ``.gen-*.partial`` folder; a full, over-quota or failing disk is an ``IndexWriteError``.
    """
    name = new_generation_name()
    try:
        parts = _Parts(previous, keep, deleted, base, notes, prices, span_vectors, note_index)
        return _write_generation(index_dir, name, chunks, vectors, manifest, step, parts)
    except BaseException as exc:
        shutil.rmtree(index_dir / f".{name}.partial", ignore_errors=True)  # never left on a full disk
        need = int(vectors.nbytes) + 3 * sum(len(c.text) for c in chunks) + (1 << 20)
        error = disk_error(exc, index_dir, need)
        if error is not None:
            raise error from None
        raise


def _share(source: Path, target: Path) -> None:
    """``target`` becomes the same bytes as ``source``: a hard link, or a copy where links are refused."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _write_generation(
    index_dir: Path,
    name: str,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    manifest: dict[str, Any],
    step: Callable[[int], None] | None,
    parts: _Parts,
) -> Path:
    previous, keep, base = parts.previous, parts.keep, parts.base
    step = step or (lambda n: None)
    if len(chunks) != len(vectors):
        raise ValueError("one vector per chunk")
    index_dir.mkdir(parents=True, exist_ok=True)
    tmp = index_dir / f".{name}.partial"
    tmp.mkdir()
    entries: list[dict[str, Any]] = []
    files: dict[str, Any] = {}
    gone = set(parts.deleted)
    next_id = 0
    if previous is not None:
        kept = list(previous.segments if keep is None else keep)
        old_files = previous.manifest.get("files", {})
        old_entries = {e["name"]: e for e in previous.manifest.get("segments", [])}
        for seg in kept:
            dead = (seg.deleted | {i for i in gone if seg.base <= i < seg.end}) if seg.count else frozenset()
            if len(dead) >= seg.count:
                continue  # every row deleted: the segment is left out
            gone |= dead
            entries.append({k: old_entries[seg.entry["name"]][k] for k in ("name", "base", "count")})
            for path in (seg.vectors_path, seg.docstore_path):
                _share(path, tmp / path.name)
                files[path.name] = old_files[path.name]
        next_id = int(previous.manifest.get("next_id", previous.stored))
    live_ranges = [(e["base"], e["base"] + e["count"]) for e in entries]
    gone = {i for i in gone if any(a <= i < b for a, b in live_ranges)}
    if chunks or any((parts.notes or {}).values()):
        start = next_id if base is None else base
        entry = write_segment(
            tmp,
            new_segment_name(),
            start,
            chunks,
            vectors,
            on_vectors=lambda: step(1),
            notes=parts.notes,
            span_vectors=parts.span_vectors,
            note_index=parts.note_index,
        )
        for rel in parts.notes or {}:
            if rel in manifest.get("notes", {}):
                manifest["notes"][rel]["seg"] = entry["name"]
        files.update(entry.pop("files"))
        entries.append(entry)
        next_id = max(next_id, start + len(chunks))
    else:
        step(1)
    step(2)
    if parts.prices is not None:
        write_atomic(tmp / PRICES, json.dumps(parts.prices, sort_keys=True, ensure_ascii=False).encode("utf-8"))
        files[PRICES] = file_record(tmp / PRICES)
    elif previous is not None and PRICES in previous.manifest.get("files", {}):
        _share(previous.path / PRICES, tmp / PRICES)
        files[PRICES] = previous.manifest["files"][PRICES]
    stored = sum(e["count"] for e in entries)
    full = {
        **{k: v for k, v in manifest.items() if k != "prices"},  # the price table is its own file
        "format": FORMAT,
        "hwqa_version": __version__,
        "generation": name,
        "built_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "counts": {"chunks": stored - len(gone), "stored": stored},
        "segments": entries,
        "deleted": sorted(gone),
        "next_id": next_id,
        "files": files,
    }
    write_atomic(tmp / MANIFEST, manifest_text(full))
    final = index_dir / name
    os.replace(tmp, final)
    fsync_dir(index_dir)
    step(3)
    return final


@dataclass(frozen=True)
class _Parts:
    """What a new generation takes from the previous one, and what it adds beside its chunks."""

    previous: Generation | None
    keep: Sequence[Segment] | None
    deleted: Iterable[int]
    base: int | None
    notes: Mapping[str, dict[str, Any]] | None
    prices: dict[str, Any] | None
    span_vectors: Sequence[np.ndarray]
    note_index: NoteIndex | None


def needs_compaction(gen: Generation) -> str | None:
    """``"all"`` when deleted rows make the index more than :data:`COMPACT_RATIO` times a fresh one,
    ``"small"`` when it has more than :data:`MAX_SEGMENTS` segments, else None."""
    if gen.manifest.get("format") != FORMAT:
        return None
    return compaction_due(gen.stored, gen.size, len(gen.segments))


def compaction_due(stored: int, live: int, segments: int) -> str | None:
    """What :func:`needs_compaction` says of a generation of ``stored`` rows, ``live`` of them not deleted."""
    if stored > COMPACT_RATIO * live + 1:
        return "all"
    if segments > MAX_SEGMENTS:
        return "small"
    return None


def compact(
    index_dir: Path, gen: Generation, how: str, step: Callable[[int], None] | None = None, note_index: NoteIndex | None = None
) -> Path:
    """Write a generation holding ``gen``'s live chunks with fewer segments and no deleted rows.

    ``how="all"``: one segment of every live chunk (ids from 0); ``"small"``: every segment but
    the largest merged into one. ``note_index``: as for :func:`write_generation`. Returns the new
    generation's folder (not yet live).
    """
    largest = max(gen.segments, key=lambda s: s.count)
    merge = gen.segments if how == "all" else [s for s in gen.segments if s is not largest]
    keep = [] if how == "all" else [largest]
    rows: list[StoredChunk] = []
    matrices: list[np.ndarray] = []
    spans: list[np.ndarray] = []
    for seg in merge:
        live = [c for c in _segment_rows(seg) if c.id not in seg.deleted]
        rows.extend(live)
        if live:
            matrix = seg.matrix(gen.dim)
            matrices.append(np.asarray(matrix[[c.id - seg.base for c in live]], dtype=np.float32))
            stored = seg.span_vectors([c.id for c in live])
            spans.extend(stored.get(c.id, np.zeros((0, gen.dim), dtype=np.float32)) for c in live)
    vectors = np.vstack(matrices) if matrices else np.zeros((0, gen.dim), dtype=np.float32)
    chunks = [c.to_chunk() for c in rows]
    dropped = ("segments", "deleted", "next_id", "files", "counts", "prices")
    manifest = {k: v for k, v in gen.manifest.items() if k not in dropped}
    records: dict[str, dict[str, Any]] = {rel: dict(r) for rel, r in gen.manifest.get("notes", {}).items()}
    manifest["notes"] = records
    notes: dict[str, dict[str, Any]] = {}
    for seg in merge:  # the price facts of the notes whose segment is merged move with their chunks
        owned = [rel for rel, r in records.items() if r.get("seg") == seg.entry.get("name")]
        facts = seg.note_prices(owned)
        notes.update((rel, facts.get(rel, {})) for rel in owned)
    return write_generation(
        index_dir,
        chunks,
        vectors,
        manifest,
        step,
        previous=gen,
        keep=keep,
        base=0 if how == "all" else None,
        notes=notes,
        span_vectors=spans,
        note_index=note_index,
    )


def _segment_rows(seg: Segment) -> list[StoredChunk]:
    return [stored_row(r) for r in seg.db.execute(f"SELECT {COLUMNS} FROM chunks ORDER BY id").fetchall()]
