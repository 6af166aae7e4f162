"""The web articles the notes link to, in a build: which to fetch, what each adds to the index.

A build fetches every linked page when it reads everything (a full build or check), and otherwise
only pages newly linked or linked from other notes than before; the rest keep their passages and
their record in the manifest unchanged. A page whose text did not change is not extracted again.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..index import reader as store
from ..index.embed import Embedder
from ..notes.chunk import CHUNKER_VERSION, Chunk, chunk_markdown
from ..prices import article_doc, read_document
from ..settings import Settings
from .deadline import TimeLimitExceeded, time_limit

# A link that failed is remembered with its reason and fetched again only after a pause that doubles
# with each failure in a row: 1, 2, 4 … hours, at most a week (or at once: hwqa index --retry-links).
LINK_RETRY_FIRST_S = 3600.0
LINK_RETRY_MAX_S = 7 * 24 * 3600.0


def link_retry_pause(failures: int) -> float:
    """Seconds before a link that failed ``failures`` times in a row is fetched again."""
    return float(min(LINK_RETRY_FIRST_S * 2 ** max(0, min(failures, 30) - 1), LINK_RETRY_MAX_S))


def retry_waits(old: dict[str, Any] | None, now: float) -> bool:
    """Whether a link the previous build failed to fetch is still in its pause before the next try."""
    return old is not None and old.get("status") == "failed" and now < float(old.get("retry_at") or 0)


FETCH_POLICY = (  # the settings deciding which pages are admitted and how: when one changes, every page is fetched again
    "offline",
    "fetch_links",
    "allow_private_hosts",
    "fetch_allow_hosts",
    "fetch_allow_networks",
    "fetch_max_bytes",
    "fetch_max_redirects",
    "fetch_user_agent",
    "fetch_robots_max_bytes",
)


def link_changed(old: dict[str, Any] | None, now: dict[str, list[str]], settings: Settings) -> bool:
    """Whether a linked page is fetched by a build that reads only what changed: one newly linked, or
    linked from other notes, or fetched longer than ``fetch_max_age`` ago (or never), or extracted by an
    older extractor (its passages are not what this one makes of the page)."""
    if old is None or old.get("linked_from") != now["notes"] or old.get("fragments", []) != now["fragments"]:
        return True
    if "extractor" in old:
        from ..extract import EXTRACTOR_VERSION

        if old["extractor"] != EXTRACTOR_VERSION:
            return True
    if old.get("status") == "skipped":
        return settings.fetch_links
    return time.time() - float(old.get("fetched_at") or 0) >= settings.fetch_max_age


if TYPE_CHECKING:  # the fetcher and the HTML extractor are imported only by a build that fetches
    from ..fetch import FetchOutcome

KEPT = "from-cache"  # the status of a page a build did not fetch: the index keeps its copy

ProgressFn = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class LinkReport:
    """What happened to one linked URL during a build."""

    url: str
    status: str  # a FetchStatus
    reason: str | None = None
    linked_from: list[str] = field(default_factory=list)
    chunks: int = 0
    hidden_dropped: int = 0  # hidden elements, comments and invisible characters left out of the page


def chunking_settings(settings: Settings, embedder: Embedder) -> dict[str, Any]:
    return {"max_tokens": min(settings.chunk_tokens, embedder.max_tokens), "overlap": settings.chunk_overlap}


Linked = dict[str, dict[str, list[str]]]  # url -> {"notes": titles linking to it, "fragments": its #fragments}


def linked_urls(notes: Iterable[tuple[str, Iterable[Any]]]) -> Linked:
    """Every URL the notes link to, with the titles of the notes linking to it and its fragments, in
    note order; ``notes``: (title, [(url, fragment), ...]) of each note."""
    linked: Linked = {}
    for title, links in notes:
        for url, fragment in links:
            entry = linked.setdefault(url, {"notes": [], "fragments": []})
            if title not in entry["notes"]:
                entry["notes"].append(title)
            if fragment and fragment not in entry["fragments"]:
                entry["fragments"].append(fragment)
    return linked


def refresh_articles(
    settings: Settings,
    embedder: Embedder,
    linked: Linked,
    urls: list[str],
    previous: store.Generation | None,
    progress: ProgressFn,
) -> tuple[list[LinkReport], dict[str, list[Chunk] | None], dict[str, dict[str, Any]]]:
    """Fetch ``urls`` (of ``linked``): each one's report, its new passages (None: the previous
    generation's stay as they are), and what the manifest records of it.

    A page whose text, linking notes and extractor are what the previous generation indexed keeps
    its passages without being extracted again.
    """
    if not urls:
        return [], {}, {}
    from ..extract import EXTRACTOR_VERSION
    from ..fetch import FetchConfig, Fetcher, FetchStatus

    if not settings.fetch_links:
        off = "fetching links is turned off (fetch_links)"
        return [LinkReport(u, FetchStatus.SKIPPED, off, linked[u]["notes"]) for u in urls], {u: [] for u in urls}, {}
    fetcher = Fetcher(settings.fetch_cache, FetchConfig.from_settings(settings))
    done = 0

    def fetched(_outcome: object) -> None:
        nonlocal done
        done += 1
        progress("fetch", done, len(urls))

    progress("fetch", 0, len(urls))
    outcomes = fetcher.fetch_many(urls, offline=settings.offline, progress=fetched)
    before: Mapping[str, Any] = previous.manifest.get("links", {}) if previous is not None else {}
    reports: list[LinkReport] = []
    updates: dict[str, list[Chunk] | None] = {}
    recorded: dict[str, dict[str, Any]] = {}
    for outcome in outcomes:
        info = linked[outcome.url]
        record = LinkReport(outcome.url, outcome.status, outcome.reason, info["notes"])
        reports.append(record)
        if outcome.text is None:
            updates[outcome.url] = []
            continue
        digest = hashlib.sha256(f"{outcome.content_type}\n{outcome.text}".encode()).hexdigest()
        same = before.get(outcome.url, {})
        if (
            same.get("sha256") == digest
            and same.get("notes") == info["notes"]
            and same.get("fragments", []) == info["fragments"]
            and same.get("extractor") == EXTRACTOR_VERSION  # a newer extractor reads the page again
            and same.get("chunker") == CHUNKER_VERSION  # ... and a newer chunker cuts it again
            and "prices" in same  # ... and so does a generation from before prices were read from pages
            and previous is not None
            and previous.of_source("article", outcome.url)
        ):
            updates[outcome.url] = None
            record.hidden_dropped = int(same.get("hidden_dropped", 0))
            record.chunks = int(same.get("chunks", 0))
            prices = same["prices"]
        else:
            mine, prices = _extract_and_chunk(settings, embedder, outcome, info, record)
            updates[outcome.url] = mine
            record.chunks = len(mine)
        recorded[outcome.url] = {
            "sha256": digest,
            "notes": info["notes"],
            "fragments": info["fragments"],
            "chunks": record.chunks,
            "hidden_dropped": record.hidden_dropped,
            "extractor": EXTRACTOR_VERSION,
            "chunker": CHUNKER_VERSION,
            "prices": prices,  # what the page states of prices (rows, statements left out, speeds)
            "fetched_at": round(time.time(), 3),  # a build that reads only changes fetches it again after fetch_max_age
        }
    return reports, updates, recorded


def _extract_and_chunk(
    settings: Settings, embedder: Embedder, outcome: FetchOutcome, info: Mapping[str, Any], link: LinkReport
) -> tuple[list[Chunk], dict[str, Any]]:
    """The page's passages and the prices it states (:func:`hwqa.prices.read_document`, as JSON), read
    within what is left of the link's deadline."""
    from ..fetch import FetchStatus

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
    settings: Settings, embedder: Embedder, outcome: FetchOutcome, info: Mapping[str, Any], link: LinkReport
) -> tuple[list[Chunk], dict[str, Any]]:
    from ..extract import extract_article
    from ..fetch import FetchStatus

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
