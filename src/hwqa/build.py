"""Build or update the index from the notes (and the articles they link to).

Only chunks whose embedded text is new are embedded; everything else reuses the vectors of the
live generation. Changing the embedding model or the chunking settings forces a full rebuild, and
the report says why. One builder at a time holds ``build.lock``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import index as store
from .atomic import disk_error
from .chunk import Chunk, chunk_markdown
from .deadline import TimeLimitExceeded, time_limit
from .embed import Embedder, embed_with_pieces, make_embedder
from .errors import HwqaError, IndexCorruptError, IndexLockedError
from .extract import EXTRACTOR_VERSION, extract_article
from .fetch import FetchConfig, Fetcher, FetchOutcome, FetchStatus
from .links import find_all_urls
from .notes import Note, load_notes
from .prices import Found, article_doc, load_price_table, read_document
from .settings import Settings
from .spans import SPANS_VERSION, locate, spans_of
from .status import LinkCounts

LOCK = "build.lock"


@dataclass
class LinkReport:
    """What happened to one linked URL during a build."""

    url: str
    status: FetchStatus
    reason: str | None = None
    linked_from: list[str] = field(default_factory=list)
    chunks: int = 0
    hidden_dropped: int = 0  # hidden elements, comments and invisible characters left out of the page


@dataclass
class BuildReport:
    """The summary of one ``hwqa index`` run (its ``--json`` output)."""

    notes_seen: int = 0
    notes_skipped: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    chunks_total: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_removed: int = 0
    full_rebuild: str | None = None  # why every chunk was embedded again, if it was
    price_problems: list[str] = field(default_factory=list)  # malformed price-table rows, by note and line
    changed: bool = True
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


@contextmanager
def build_lock(index_dir: Path, *, wait: float = 0.0, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the index's build lock; wait up to ``wait`` seconds for another builder, then refuse."""
    index_dir.mkdir(parents=True, exist_ok=True)
    path = index_dir / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = _lock_holder(path)
                if time.monotonic() >= deadline:
                    raise IndexLockedError(
                        f"another build of {index_dir} is running ({holder}); wait for it to finish and try again"
                    ) from None
                if on_wait and not told:
                    on_wait(f"waiting for another build of {index_dir} ({holder})")
                    told = True
                time.sleep(0.2)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def _lock_holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text(encoding="utf-8") or "{}")
        since = time.strftime("%H:%M:%S", time.localtime(float(info["since"])))
        return f"pid {info['pid']} on {info['host']}, since {since}"
    except (OSError, ValueError, KeyError, TypeError):
        return "holder unknown"


def chunking_settings(settings: Settings, embedder: Embedder) -> dict[str, Any]:
    return {"max_tokens": min(settings.chunk_tokens, embedder.max_tokens), "overlap": settings.chunk_overlap}


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


def _content_digest(chunks: list[Chunk], prices: dict[str, Any]) -> str:
    h = hashlib.sha256(json.dumps(prices, sort_keys=True).encode())
    for c in chunks:
        row = [c.key, c.kind, c.source, c.heading, c.url, c.line, c.ordinal, c.meta]
        h.update(json.dumps(row, sort_keys=True, default=str).encode())
    return h.hexdigest()


def build_index(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    progress: ProgressFn = _noop,
    lock_wait: float = 0.0,
    on_wait: Callable[[str], None] | None = None,
) -> BuildReport:
    """Build or update the index in ``settings.index`` from ``settings.notes``.

    A disk that is full, over quota or failing (ENOSPC, EDQUOT, EIO) anywhere in the build is one
    line (an ``IndexWriteError`` naming the index folder and what to free); the live generation
    is untouched and no partial generation is left behind.
    """
    try:
        return _build(settings, embedder=embedder, progress=progress, lock_wait=lock_wait, on_wait=on_wait)
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
) -> BuildReport:
    started = time.monotonic()
    report = BuildReport()
    if not settings.notes.is_dir():
        load_notes(settings.notes)  # the one-line error for a missing folder, before any index folder is made
    embedder = embedder or make_embedder(settings)
    chunking = chunking_settings(settings, embedder)

    with build_lock(settings.index, wait=lock_wait, on_wait=on_wait):
        store.remove_litter(settings.index)  # what a build killed mid-write or mid-switch left behind
        loaded = load_notes(  # read under the lock: a build that waited sees the latest notes
            settings.notes, follow_outside_symlinks=settings.follow_outside_symlinks, max_bytes=settings.note_max_bytes
        )
        report.notes_seen = len(loaded.notes)
        report.notes_skipped = [{"note": rel, "reason": why} for rel, why in loaded.skipped]
        report.warnings = list(loaded.warnings)
        previous = _previous_generation(settings.index, embedder, chunking, report)
        reusable = _chunks_by_source(previous)
        unchanged = _unchanged_note_chunks(previous, reusable, loaded.notes)
        chunks: list[Chunk] = []
        for i, note in enumerate(loaded.notes):
            chunks.extend(unchanged.get(note.rel) or note_chunks(note, settings, embedder))
            progress("chunk", i + 1, len(loaded.notes))
        articles, link_records = _article_chunks(settings, embedder, loaded.notes, previous, reusable, report, progress)
        chunks.extend(articles)
        prices = load_price_table(loaded.notes, [Found.from_json(r["prices"]) for r in link_records.values() if r.get("prices")])
        report.price_problems = list(prices.problems)
        report.warnings.extend(f"price table: {problem}" for problem in prices.problems)
        digest = _content_digest(chunks, prices.to_json())
        if (
            previous is not None
            and previous.manifest.get("format") == store.FORMAT  # an older format is rewritten, vectors reused
            and previous.manifest.get("content_digest") == digest
            and previous.manifest.get("spans") == SPANS_VERSION
        ):
            report.chunks_total = previous.size
            report.chunks_reused = previous.size
            report.changed = False
            report.generation = previous.name
            previous.close()
            report.seconds = time.monotonic() - started
            return report

        reuse = previous.vectors_for_keys() if previous is not None else {}
        same_spans = previous is not None and previous.manifest.get("spans") == SPANS_VERSION
        reuse_spans = previous.span_vectors_for_keys() if previous is not None and same_spans else {}
        old_keys = set(reuse)
        if previous is not None:
            previous.close()
        # A chunk is embedded once for its own vector and its spans' (the same forward pass, see hwqa.light).
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
        vectors = (
            np.vstack([vectors_by_key[c.key] for c in chunks]).astype(np.float32)
            if chunks
            else np.zeros((0, embedder.dim), dtype=np.float32)
        )
        new_keys = {c.key for c in chunks}
        report.chunks_total = len(chunks)
        report.chunks_embedded = len(todo)
        report.chunks_reused = sum(1 for c in chunks if c.key in old_keys)
        report.chunks_removed = len(old_keys - new_keys)
        manifest = {
            "prices": prices.to_json(),
            "embedder": embedder.describe(),
            "chunking": chunking,
            "spans": SPANS_VERSION,
            "content_digest": digest,
            "notes": {n.rel: {"sha256": n.content_hash, "title": n.title, "draft": n.draft} for n in loaded.notes},
            "links": {
                link.url: {
                    "status": link.status,
                    "reason": link.reason,
                    "linked_from": link.linked_from,
                    **link_records.get(link.url, {"chunks": 0}),
                }
                for link in report.links
            },
            "notes_skipped": report.notes_skipped,  # for the web chat's index tab
            "note_warnings": list(loaded.warnings),
            "settings": {"notes": str(settings.notes)},
        }
        progress("write", 0, 4)
        gen = store.write_generation(
            settings.index,
            chunks,
            vectors,
            manifest,
            step=lambda n: progress("write", n, 4),
            span_vectors=[spans_by_key[c.key] for c in chunks],
        )
        store.switch_to(settings.index, gen)
        progress("write", 4, 4)
        report.generation = gen.name
    report.seconds = time.monotonic() - started
    return report


def _span_ranges(chunk: Chunk) -> list[tuple[int, int]]:
    """Where the candidate spans of ``chunk`` (:func:`hwqa.spans.spans_of`) are in its embedded text."""
    offset = len(chunk.embed_text) - len(chunk.text)
    return [(a + offset, b + offset) if b > a else (0, 0) for a, b in locate(chunk.text, spans_of(chunk.text))]


def _previous_generation(
    index_dir: Path, embedder: Embedder, chunking: dict[str, Any], report: BuildReport
) -> store.Generation | None:
    """The live generation if its vectors can be reused; otherwise None and the reason in the report."""
    gen_dir: Path | None = None
    try:
        gen_dir = store.current_generation_dir(index_dir)
        if gen_dir is None:
            report.full_rebuild = "no index yet"
            return None
        manifest = store.read_manifest(gen_dir, store.READABLE_FORMATS)
        why = store.check_compatible(manifest, embedder.describe(), chunking)
        if why:
            report.full_rebuild = why
            return None
        return store.open_generation(gen_dir, formats=store.READABLE_FORMATS)
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


def _chunks_by_source(previous: store.Generation | None) -> PreviousChunks:
    """Every chunk of the previous generation, read once, grouped by document."""
    out: PreviousChunks = {}
    for c in previous.all_chunks() if previous is not None else []:
        out.setdefault((c.kind, c.source), []).append(
            Chunk(c.kind, c.source, c.title, c.heading, c.text, c.line, c.ordinal, c.url, c.meta)
        )
    return out


def _unchanged_note_chunks(
    previous: store.Generation | None, reusable: PreviousChunks, notes: list[Note]
) -> dict[str, list[Chunk]]:
    """Chunks of notes whose content hash is what the previous generation indexed: no re-chunking."""
    if previous is None:
        return {}
    indexed = previous.manifest.get("notes", {})
    same = {n.rel for n in notes if indexed.get(n.rel, {}).get("sha256") == n.content_hash}
    return {rel: reusable[("note", rel)] for rel in same if ("note", rel) in reusable}


def _article_chunks(
    settings: Settings,
    embedder: Embedder,
    notes: list[Note],
    previous: store.Generation | None,
    reusable: PreviousChunks,
    report: BuildReport,
    progress: ProgressFn,
) -> tuple[list[Chunk], dict[str, dict[str, Any]]]:
    """Chunks of the web articles the notes link to, and what the manifest records of each link.

    Every URL is reported with its outcome. A page whose text (and whose linking notes) did not
    change since the previous generation reuses its chunks without being extracted again.
    """
    linked: dict[str, dict[str, Any]] = {}
    for note in notes:
        for link in find_all_urls(note.body):
            entry = linked.setdefault(link.url, {"notes": [], "fragments": []})
            if note.title not in entry["notes"]:
                entry["notes"].append(note.title)
            if link.fragment and link.fragment not in entry["fragments"]:
                entry["fragments"].append(link.fragment)
    if not linked:
        return [], {}
    urls = list(linked)
    if not settings.fetch_links:
        off = "fetching links is turned off (fetch_links)"
        report.links = [LinkReport(u, FetchStatus.SKIPPED, off, linked[u]["notes"]) for u in urls]
        return [], {}

    fetcher = Fetcher(
        settings.fetch_cache,
        FetchConfig.from_settings(settings),
    )
    done = 0

    def fetched(_outcome: FetchOutcome) -> None:
        nonlocal done
        done += 1
        progress("fetch", done, len(urls))

    progress("fetch", 0, len(urls))
    outcomes = fetcher.fetch_many(urls, offline=settings.offline, progress=fetched)
    before = previous.manifest.get("links", {}) if previous is not None else {}
    chunks: list[Chunk] = []
    recorded: dict[str, dict[str, Any]] = {}
    for outcome in outcomes:
        info = linked[outcome.url]
        record = LinkReport(outcome.url, outcome.status, outcome.reason, info["notes"])
        report.links.append(record)
        if outcome.text is None:
            continue
        digest = hashlib.sha256(f"{outcome.content_type}\n{outcome.text}".encode()).hexdigest()
        same = before.get(outcome.url, {})
        if (
            same.get("sha256") == digest
            and same.get("notes") == info["notes"]
            and same.get("extractor") == EXTRACTOR_VERSION  # a newer extractor reads the page again
            and "prices" in same  # ... and so does a generation from before prices were read from pages
            and ("article", outcome.url) in reusable
        ):
            mine = reusable[("article", outcome.url)]
            record.hidden_dropped = int(same.get("hidden_dropped", 0))
            prices = same["prices"]
        else:
            mine, prices = _extract_and_chunk(settings, embedder, outcome, info, record)
        record.chunks = len(mine)
        chunks.extend(mine)
        recorded[outcome.url] = {
            "sha256": digest,
            "notes": info["notes"],
            "chunks": len(mine),
            "hidden_dropped": record.hidden_dropped,
            "extractor": EXTRACTOR_VERSION,
            "prices": prices,  # what the page states of prices (rows, statements left out, speeds)
        }
    return chunks, recorded


def _extract_and_chunk(
    settings: Settings, embedder: Embedder, outcome: FetchOutcome, info: dict[str, Any], link: LinkReport
) -> tuple[list[Chunk], dict[str, Any]]:
    """The page's passages and the prices it states (:func:`hwqa.prices.read_document`, as JSON), read
    within what is left of the link's deadline."""
    left = outcome.seconds_left if outcome.seconds_left is not None else settings.fetch_link_deadline
    try:
        with time_limit(left):
            return _extract_and_chunk_now(settings, embedder, outcome, info, link)
    except TimeLimitExceeded:
        link.status = FetchStatus.FAILED
        link.reason = (
            f"extracting and chunking the page took longer than the {left:.1f} s left of its link deadline "
            "(fetch_link_deadline); not indexed"
        )
        return [], {}


def _extract_and_chunk_now(
    settings: Settings, embedder: Embedder, outcome: FetchOutcome, info: dict[str, Any], link: LinkReport
) -> tuple[list[Chunk], dict[str, Any]]:
    assert outcome.text is not None
    fragment = info["fragments"][0] if info["fragments"] else None
    try:
        article = extract_article(outcome.text, outcome.content_type, outcome.final_url or outcome.url, fragment)
    except Exception as exc:  # a page we cannot parse must not stop the build; it is reported
        link.status, link.reason = FetchStatus.FAILED, f"could not extract the text ({type(exc).__name__}: {exc})"
        return [], {}
    link.hidden_dropped = article.hidden_dropped
    if not article.markdown.strip():
        link.reason = (link.reason + "; " if link.reason else "") + "no article text found on the page"
        return [], {}
    chunking = chunking_settings(settings, embedder)
    preferred = article.preferred_heading
    prices = read_document(article_doc(outcome.url, article.title, article.markdown)).to_json()
    chunks = chunk_markdown(
        article.markdown,
        kind="article",
        source=outcome.url,
        title=article.title or outcome.url,
        max_tokens=chunking["max_tokens"],
        overlap=chunking["overlap"],
        count_tokens=embedder.count_tokens,
        first_line=0,
        url=outcome.url,
        meta={"linked_from": info["notes"]},
        section_meta=lambda path: {"preferred": True} if preferred and preferred in path else {},
    )
    return chunks, prices
