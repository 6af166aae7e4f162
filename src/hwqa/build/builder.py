"""Build or update the index from the notes (and the articles they link to).

A build costs what changed. Note files whose size, mtime, ctime and inode are those the live
generation recorded are not read; the notes that changed are chunked and go, with the pages
newly linked, into one new segment of a new generation, which shares the live one's segments
(:mod:`hwqa.index.reader`); only chunks whose embedded text is new are embedded. A full build (no index,
an older format, ``full_check``, or a day since the last full check) reads every note and page and
writes one segment, reusing the stored vectors. Changing the embedding model or the chunking
settings re-embeds everything, and the report says why. :func:`hwqa.build.compact.compact_index` merges
segments after a build, never inside one. One builder at a time holds ``build.lock`` (:mod:`.lock`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import HwqaError, IndexCorruptError
from ..index import reader as store
from ..index import writer
from ..index.atomic import disk_error
from ..index.embed import Embedder, embed_with_pieces, make_embedder
from ..index.status import LinkCounts
from ..notes.chunk import CHUNKER_VERSION, Chunk, chunk_markdown
from ..notes.links import find_all_urls
from ..notes.note import LoadReport, Note, load_notes
from ..notes.spans import SPANS_VERSION, locate, spans_of
from ..prices import PRICES_READER, note_prices
from ..prices.delta import index_entries
from ..settings import Settings
from .articles import (
    FETCH_POLICY,
    KEPT,
    LinkReport,
    chunking_settings,
    link_changed,
    link_retry_pause,
    linked_urls,
    refresh_articles,
    retry_waits,
)
from .lock import build_lock
from .pricebuild import new_price_table

__all__ = ["BuildReport", "LinkReport", "build_index", "chunking_settings", "note_chunks"]

FULL_CHECK_EVERY = 24 * 3600.0  # seconds between full builds that read every note and page again


@dataclass
class BuildReport:
    """The summary of one ``hwqa index`` run (its ``--json`` output)."""

    notes_seen: int = 0
    notes_read: int = 0  # notes read and hashed: those whose file changed since the last build (all in a full build)
    notes_skipped: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    chunks_total: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_removed: int = 0
    full_rebuild: str | None = None  # why every chunk was embedded again, if it was
    price_problems: list[str] = field(default_factory=list)  # malformed price-table rows, by note and line
    changed: bool = True
    compaction: str | None = None  # "all" or "small" when the new generation should be compacted (compact_index)
    generation: str = ""
    links: list[LinkReport] = field(default_factory=list)
    seconds: float = 0.0

    def link_counts(self) -> LinkCounts:
        return LinkCounts.of(link.status for link in self.links)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["links"] = {
            **self.link_counts().to_json(),
            "hidden_dropped": sum(link.hidden_dropped for link in self.links),
            "urls": [asdict(link) for link in self.links],
        }
        data["seconds"] = round(self.seconds, 3)
        return data


ProgressFn = Callable[[str, int, int], None]  # (stage, done, total)


def _noop(stage: str, done: int, total: int) -> None:
    return None


def note_chunks(note: Note, settings: Settings, embedder: Embedder) -> list[Chunk]:
    chunking = chunking_settings(settings, embedder)
    return chunk_markdown(
        note.body,
        kind="note",
        source=note.rel,
        title=note.title,
        max_tokens=chunking["max_tokens"],
        overlap=chunking["overlap"],
        count_tokens=embedder.count_tokens,
        first_line=note.body_line,
        meta={"tags": list(note.tags), "draft": note.draft, "aliases": list(note.aliases), "date": note.date},
    )


def build_index(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    progress: ProgressFn = _noop,
    lock_wait: float = 0.0,
    on_wait: Callable[[str], None] | None = None,
    full_check: bool = False,
    paths: Collection[str] | None = None,
    retry_links: bool = False,
) -> BuildReport:
    """Build or update the index in ``settings.index`` from ``settings.notes``.

    ``retry_links``: fetch again at once the links that failed before, whose pause before the next
    try (:func:`link_retry_pause`) has not ended (a full check does too).

    ``paths``: the note files (relative to the notes folder) that changed, when the caller knows
    (a watcher): the folder is not walked. Ignored by a full build.

    ``full_check``: read every note and linked page again, as if their stamps had changed, and
    verify the checksums of every file of the live generation (a full build reusing the vectors).

    A disk that is full, over quota or failing (ENOSPC, EDQUOT, EIO) anywhere in the build is one
    line (an ``IndexWriteError`` naming the index folder and what to free); the live generation
    is untouched and no partial generation is left behind.
    """
    try:
        return _build(
            settings,
            embedder=embedder,
            progress=progress,
            lock_wait=lock_wait,
            on_wait=on_wait,
            full_check=full_check,
            paths=paths,
            retry_links=retry_links,
        )
    except (OSError, sqlite3.Error, RuntimeError) as exc:
        error = disk_error(exc, settings.index)
        if error is not None:
            raise error from None
        raise


def _build(
    settings: Settings,
    *,
    embedder: Embedder | None,
    progress: ProgressFn,
    lock_wait: float,
    on_wait: Callable[[str], None] | None,
    full_check: bool,
    paths: Collection[str] | None,
    retry_links: bool = False,
) -> BuildReport:
    started = time.monotonic()
    report = BuildReport()
    if not settings.notes.is_dir():
        load_notes(settings.notes)  # the one-line error for a missing folder, before any index folder is made
    embedder = embedder or make_embedder(settings)
    chunking = chunking_settings(settings, embedder)

    with build_lock(settings.index, wait=lock_wait, on_wait=on_wait):
        store.remove_litter(settings.index)  # what a build killed mid-write or mid-switch left behind
        cleared = store.clear_pointer(settings.index)  # a folder or FIFO as CURRENT: moved aside now, not after the work
        if cleared:
            report.warnings.append(cleared)
        previous = _previous_generation(settings.index, embedder, chunking, report, verify=full_check)
        try:
            _build_locked(settings, embedder, chunking, previous, report, progress, full_check, paths, retry_links)
        finally:
            if previous is not None:
                previous.close()
    report.seconds = time.monotonic() - started
    return report


def _build_locked(
    settings: Settings,
    embedder: Embedder,
    chunking: dict[str, Any],
    previous: store.Generation | None,
    report: BuildReport,
    progress: ProgressFn,
    full_check: bool,
    paths: Collection[str] | None,
    retry_links: bool = False,
) -> None:
    old_notes: dict[str, dict[str, Any]] = previous.manifest.get("notes", {}) if previous is not None else {}
    delta = (
        previous is not None
        and previous.manifest.get("format") == store.FORMAT
        and previous.manifest.get("spans") == SPANS_VERSION  # other span vectors: every chunk is embedded again
        and previous.manifest.get("chunker") == CHUNKER_VERSION  # a newer chunker cuts every note and page again
        and previous.manifest.get("prices_reader") == PRICES_READER  # a newer price reader reads every note again
        and not full_check
        and time.time() - float(previous.manifest.get("checked_at") or 0) < FULL_CHECK_EVERY
    )
    loaded = load_notes(  # read under the lock: a build that waited sees the latest notes
        settings.notes,
        follow_outside_symlinks=settings.follow_outside_symlinks,
        max_bytes=settings.note_max_bytes,
        known={rel: r.get("stamp") or () for rel, r in old_notes.items()} if delta else None,
        only=paths,
    )
    report.notes_seen = len(loaded.notes) + len(loaded.unchanged)
    report.notes_read = len(loaded.notes)
    report.notes_skipped = [{"note": rel, "reason": why} for rel, why in loaded.skipped]
    note_warnings = list(loaded.warnings) + [w for rel in loaded.unchanged for w in old_notes[rel].get("warnings", [])]
    if delta and paths is not None and previous is not None:  # the folder was not walked: what was skipped still is
        still = [s for s in previous.manifest.get("notes_skipped", []) if s.get("note") not in set(paths)]
        report.notes_skipped.extend(still)
        note_warnings.extend(f"{s['note']}: skipped: {s['reason']}" for s in still)
    report.warnings = note_warnings + report.warnings  # after the notes': the damaged generation moved aside

    records = {rel: old_notes[rel] for rel in loaded.unchanged}
    written: list[Note] = []
    for note in loaded.notes:
        old = old_notes.get(note.rel)
        if delta and old is not None and old.get("sha256") == note.content_hash and "seg" in old:
            records[note.rel] = {**old, "stamp": loaded.stamps.get(note.rel)}  # touched, not changed
        else:
            records[note.rel] = _record(note, loaded)
            written.append(note)
    records = dict(sorted(records.items()))
    removed = [rel for rel in old_notes if rel not in records] if delta else []

    same_chunker = previous is not None and previous.manifest.get("chunker") == CHUNKER_VERSION
    reusable = _chunks_by_source(previous) if previous is not None and same_chunker and not delta else {}
    chunks: list[Chunk] = []
    for i, note in enumerate(written):
        same = old_notes.get(note.rel, {}).get("sha256") == note.content_hash
        chunks.extend((reusable.get(("note", note.rel)) if same else None) or note_chunks(note, settings, embedder))
        progress("chunk", i + 1, len(written))
    deleted: dict[int, str] = {}  # chunk id -> key, of the previous generation's chunks this build replaces
    if delta:
        assert previous is not None
        for rel in [n.rel for n in written if n.rel in old_notes] + removed:
            deleted.update((c.id, c.key) for c in previous.of_source("note", rel))

    linked = linked_urls((r["title"], r.get("links", [])) for r in records.values())
    before: dict[str, dict[str, Any]] = previous.manifest.get("links", {}) if previous is not None else {}
    policy = {k: str(getattr(settings, k)) for k in FETCH_POLICY}
    new_policy = previous is None or previous.manifest.get("fetch_policy") != policy  # a new policy reads every page
    every = not delta or new_policy
    now = time.time()
    # a link that failed waits out its pause, even in a full build (nothing else changed for it)
    waits = not (retry_links or full_check or new_policy or settings.offline)
    fetch = [
        u
        for u in linked
        if (every or link_changed(before.get(u), linked[u], settings)) and not (waits and retry_waits(before.get(u), now))
    ]
    fetched, updates, recorded = refresh_articles(settings, embedder, linked, fetch, previous, progress)
    if not settings.offline:  # offline, a link is not tried: its pause is not counted
        for link in fetched:
            if link.status == "failed":
                old = before.get(link.url) or {}
                failures = int(old.get("failures") or 0) + 1 if old.get("status") == "failed" else 1
                retry = {"failed_at": round(now, 3), "failures": failures, "retry_at": round(now + link_retry_pause(failures), 3)}
                recorded[link.url] = {**recorded.get(link.url, {"chunks": 0}), **retry}
    by_url = {r.url: r for r in fetched}
    for url in linked:
        if url not in by_url:  # kept as the previous generation has it
            old = before[url]
            by_url[url] = LinkReport(
                url,
                old["status"] if old.get("status") in ("failed", "skipped") else KEPT,
                old.get("reason"),
                linked[url]["notes"],
                int(old.get("chunks", 0)),
                int(old.get("hidden_dropped", 0)),
            )
            recorded[url] = {k: v for k, v in old.items() if k not in ("status", "reason", "linked_from")}
    report.links = [by_url[u] for u in linked]
    for url, rows in updates.items():
        if rows is not None:
            chunks.extend(rows)
            if delta and previous is not None:
                deleted.update((c.id, c.key) for c in previous.of_source("article", url))
        elif not delta:
            chunks.extend(reusable.get(("article", url), []))
    for url in before:
        if delta and previous is not None and url not in linked:
            deleted.update((c.id, c.key) for c in previous.of_source("article", url))

    facts = {n.rel: note_prices(n) for n in written}
    article_prices = [recorded[u]["prices"] for u in linked if recorded.get(u, {}).get("prices")]
    table, report.price_problems = new_price_table(previous if delta else None, records, facts, removed, article_prices, before)
    report.warnings.extend(f"price table: {problem}" for problem in report.price_problems)

    links_manifest = {
        link.url: {
            "status": link.status,
            "reason": link.reason,
            "linked_from": link.linked_from,
            **recorded.get(link.url, {"chunks": 0}),
        }
        for link in report.links
    }
    manifest = {
        "embedder": embedder.describe(),
        "chunking": chunking,
        "spans": SPANS_VERSION,
        "chunker": CHUNKER_VERSION,
        "prices_reader": PRICES_READER,
        "notes": records,
        "links": links_manifest,
        "notes_skipped": report.notes_skipped,  # for the web chat's index tab
        "note_warnings": note_warnings,
        "price_problems": report.price_problems,
        "settings": {"notes": str(settings.notes)},
        "checked_at": previous.manifest.get("checked_at") if delta and previous is not None else round(time.time(), 3),
        "fetch_policy": policy,
    }
    if delta and previous is not None and not chunks and not deleted and table is None and _same(manifest, previous.manifest):
        report.chunks_total = report.chunks_reused = previous.size
        report.changed = False
        report.generation = previous.name
        return

    keys = {c.key for c in chunks}
    reuse = previous.vectors_for_keys(keys) if previous is not None and keys else {}
    same_spans = previous is not None and previous.manifest.get("spans") == SPANS_VERSION
    reuse_spans = previous.span_vectors_for_keys(keys) if previous is not None and same_spans and keys else {}
    # A chunk is embedded once for its own vector and its spans' (the same forward pass, see hwqa.index.light).
    todo = sorted({c.key: c for c in chunks if c.key not in reuse or c.key not in reuse_spans}.items())
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        progress("embed", done, len(todo))

    progress("embed", 0, len(todo))
    fresh, fresh_spans = embed_with_pieces(
        embedder, [c.embed_text for _, c in todo], [_span_ranges(c) for _, c in todo], progress=tick
    )
    vectors_by_key = dict(reuse)
    spans_by_key = dict(reuse_spans)
    vectors_by_key.update({key: fresh[i] for i, (key, _) in enumerate(todo)})
    spans_by_key.update({key: fresh_spans[i] for i, (key, _) in enumerate(todo)})
    vectors = np.zeros((0, embedder.dim), dtype=np.float32)
    if chunks:
        vectors = np.vstack([vectors_by_key[c.key] for c in chunks]).astype(np.float32)
    report.chunks_embedded = len(todo)
    if delta and previous is not None:
        kept = previous.size - len(deleted)
        report.chunks_total = kept + len(chunks)
        report.chunks_reused = kept + sum(1 for c in chunks if c.key in reuse)
        report.chunks_removed = len(set(deleted.values()) - keys)
    else:
        old_keys = {c.key for rows in reusable.values() for c in rows}
        report.chunks_total = len(chunks)
        report.chunks_reused = sum(1 for c in chunks if c.key in reuse)
        report.chunks_removed = len(old_keys - keys)
    progress("write", 0, 4)
    gen = writer.write_generation(
        settings.index,
        chunks,
        vectors,
        manifest,
        step=lambda n: progress("write", n, 4),
        previous=previous if delta else None,
        deleted=deleted,
        notes=facts,
        prices=table,
        span_vectors=[spans_by_key[c.key] for c in chunks],
        note_index=index_entries,
    )
    store.switch_to(settings.index, gen)
    progress("write", 4, 4)
    report.generation = gen.name
    if delta and previous is not None:
        stored = previous.stored + len(chunks)
        report.compaction = writer.compaction_due(stored, report.chunks_total, len(previous.segments) + (1 if chunks else 0))


def _span_ranges(chunk: Chunk) -> list[tuple[int, int]]:
    """Where the candidate spans of ``chunk`` (:func:`hwqa.notes.spans.spans_of`) are in its embedded text."""
    offset = len(chunk.embed_text) - len(chunk.text)
    return [(a + offset, b + offset) if b > a else (0, 0) for a, b in locate(chunk.text, spans_of(chunk.text))]


def _same(manifest: dict[str, Any], before: dict[str, Any]) -> bool:
    """Whether the notes and pages ``manifest`` records are what ``before`` records, apart from what
    does not change the index: a note's stamp (saved again unchanged, it is read again until the next
    change), a page's fetch time and status (not modified, cached)."""

    def notes(m: dict[str, Any]) -> str:
        return json.dumps(
            {n: {k: v for k, v in r.items() if k != "stamp"} for n, r in m.get("notes", {}).items()}, sort_keys=True
        )

    def links(m: dict[str, Any]) -> str:
        volatile = ("fetched_at", "status", "reason")
        return json.dumps(
            {u: {k: v for k, v in r.items() if k not in volatile} for u, r in m.get("links", {}).items()}, sort_keys=True
        )

    return (
        notes(manifest) == notes(before)
        and links(manifest) == links(before)
        and manifest["fetch_policy"] == before.get("fetch_policy")
    )


def _record(note: Note, loaded: LoadReport) -> dict[str, Any]:
    """What the manifest keeps of a note: enough to skip reading it next time and to link its pages."""
    return {
        "sha256": note.content_hash,
        "title": note.title,
        "draft": note.draft,
        "stamp": loaded.stamps.get(note.rel),
        "links": [[link.url, link.fragment] for link in find_all_urls(note.body)],
        "warnings": [w for w in loaded.warnings if w.startswith(f"{note.rel}:")],
    }


def _previous_generation(
    index_dir: Path, embedder: Embedder, chunking: dict[str, Any], report: BuildReport, *, verify: bool
) -> store.Generation | None:
    """The live generation if its vectors can be reused; otherwise None and the reason in the report.

    ``verify``: hash its files; otherwise files whose size and mtime are as recorded are trusted.
    """
    gen_dir: Path | None = None
    try:
        gen_dir = store.current_generation_dir(index_dir)
        if gen_dir is None:
            report.full_rebuild = "no index yet"
            return None
        gen = store.open_generation(gen_dir, formats=store.READABLE_FORMATS, verify=verify)
        why = store.check_compatible(gen.manifest, embedder.describe(), chunking)
        if why:
            gen.close()
            report.full_rebuild = why
            return None
        return gen
    except IndexCorruptError as exc:
        report.full_rebuild = f"the previous index is damaged ({exc})"
        if gen_dir is not None and gen_dir.is_dir():
            kept = store.quarantine(gen_dir)
            report.warnings.append(f"the damaged index generation was moved aside to {kept}")
        return None
    except HwqaError as exc:
        report.full_rebuild = f"the previous index could not be used ({exc})"
        return None


PreviousChunks = dict[tuple[str, str], list[Chunk]]  # (kind, source) -> its chunks in the previous generation


def _chunks_by_source(previous: store.Generation) -> PreviousChunks:
    """Every chunk of the previous generation, read once, grouped by document (a full build)."""
    out: PreviousChunks = {}
    for c in previous.all_chunks():
        out.setdefault((c.kind, c.source), []).append(c.to_chunk())
    return out
