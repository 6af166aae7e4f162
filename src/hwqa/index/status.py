"""Typed summaries of an index: what happened to its links, and what the live generation holds.

Link outcomes are counted here and nowhere else (``hwqa index``, ``hwqa status``, ``hwqa links``,
the web chat and ``hwqa eval`` all use :class:`LinkCounts`), and every JSON output names the
counts the same way: ``fetched``, ``not_modified``, ``cached``, ``failed``, ``skipped``. Each URL's
own ``status`` keeps the fetcher's values (``not-modified``, ``from-cache``, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

# A fetch outcome (per-URL ``status``) -> the LinkCounts field that counts it.
COUNTED_AS = {
    "fetched": "fetched",
    "not-modified": "not_modified",
    "from-cache": "cached",
    "failed": "failed",
    "skipped": "skipped",
}


@dataclass(frozen=True)
class LinkCounts:
    """How many linked URLs were fetched, unchanged since the last fetch, served from the cache, failed or skipped."""

    fetched: int = 0
    not_modified: int = 0  # the server said the cached copy is current (HTTP 304)
    cached: int = 0  # the cached copy was used without asking (fresh, or offline)
    failed: int = 0
    skipped: int = 0

    @classmethod
    def of(cls, statuses: Iterable[object]) -> LinkCounts:
        """Count per-URL statuses (``fetched``, ``not-modified``, ``from-cache``, ``failed``, ``skipped``)."""
        counts = dict.fromkeys(COUNTED_AS.values(), 0)
        for status in statuses:
            key = COUNTED_AS.get(str(status))
            if key is not None:
                counts[key] += 1
        return cls(**counts)

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> LinkCounts:
        """The counts of the links a generation's manifest records."""
        return cls.of(info.get("status") for info in (manifest.get("links") or {}).values())

    @property
    def total(self) -> int:
        return self.fetched + self.not_modified + self.cached + self.failed + self.skipped

    def to_json(self) -> dict[str, int]:
        return asdict(self)

    def summary(self) -> str:
        """One line for people: 'N fetched, N cached, N failed, N skipped' (cached counts not-modified too)."""
        return f"{self.fetched} fetched, {self.not_modified + self.cached} cached, {self.failed} failed, {self.skipped} skipped"


@dataclass(frozen=True)
class IndexStatus:
    """What the live index generation holds (``hwqa status``, the web chat's index tab)."""

    generation: str
    built_at: str | None
    notes: int
    chunks: int
    links: LinkCounts
    price_rows: int
    price_rows_from_text: int  # rows read from sentences, list items and untagged tables (notes and articles)
    price_left_out: int  # price statements not read, each with its reason (hwqa prices lists them)
    embedder: dict[str, Any]  # backend, model, dim, ... of the embedder that built the index
    backend: str  # the answer backend the engine uses

    @classmethod
    def from_manifest(cls, generation: str, manifest: Mapping[str, Any], *, chunks: int, backend: str) -> IndexStatus:
        built_at = manifest.get("built_at")
        prices: Mapping[str, Any] = manifest.get("prices") or {}
        return cls(
            generation=generation,
            built_at=str(built_at) if built_at is not None else None,
            notes=len(manifest.get("notes") or {}),
            chunks=chunks,
            price_rows=len(prices.get("rows") or []),
            price_rows_from_text=sum(1 for r in prices.get("rows") or [] if r.get("origin", "price table") != "price table"),
            price_left_out=len(prices.get("left_out") or []),
            backend=backend,
            embedder=dict(manifest.get("embedder") or {}),
            links=LinkCounts.from_manifest(manifest),
        )

    def to_json(self) -> dict[str, Any]:
        """The ``hwqa status --json`` object."""
        return asdict(self)

    def summary(self) -> str:
        """One line for people (``hwqa status``)."""
        links = self.links.summary() if self.links.total else "none"
        return (
            f"Index {self.generation} (built {self.built_at}): {_count(self.notes, 'note')}, "
            f"{_count(self.chunks, 'passage')}, {_count(self.price_rows, 'price row')} ({self.price_rows_from_text} read "
            f"from text, {_count(self.price_left_out, 'statement')} left out); links: {links}; "
            f"model {self.embedder.get('model')} ({self.embedder.get('dim')} dims); answers: {self.backend}"
        )


def _count(n: int, word: str) -> str:
    """'1 note', '2 notes'."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
