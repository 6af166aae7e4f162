"""The page cache: one JSON metadata file and one body file per URL under the cache folder.

Files are named by the SHA-256 of the URL and written atomically (temp file + ``os.replace``); a
body whose hash does not match its metadata is ignored. No pickle.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..index.atomic import write_atomic

__all__ = ["Cache", "CacheEntry"]

log = logging.getLogger(__name__)

_CACHE_VERSION = 1


@dataclass
class CacheEntry:
    url: str
    final_url: str
    content_type: str
    etag: str | None
    last_modified: str | None
    fetched_at: float
    checked_at: float
    http_status: int
    body_sha256: str
    version: int = _CACHE_VERSION
    text: str = field(default="", repr=False)
    addresses: list[str] = field(default_factory=list)
    """The checked addresses the final URL was fetched from (re-checked when the copy is used)."""


class Cache:
    """One ``<sha256(url)>.json`` + ``<sha256(url)>.body`` pair per URL; no pickle."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _paths(self, url: str) -> tuple[Path, Path]:
        key = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.root / f"{key}.json", self.root / f"{key}.body"

    def load(self, url: str) -> CacheEntry | None:
        meta_path, body_path = self._paths(url)
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            body = body_path.read_bytes()
        except (OSError, ValueError):
            return None
        try:
            if meta.get("version") != _CACHE_VERSION or meta.get("url") != url:
                return None
            if hashlib.sha256(body).hexdigest() != meta["body_sha256"]:
                log.warning("cached copy of %s is damaged; ignoring it", url)
                return None
            return CacheEntry(
                url=str(meta["url"]),
                final_url=str(meta["final_url"]),
                content_type=str(meta["content_type"]),
                etag=meta.get("etag"),
                last_modified=meta.get("last_modified"),
                fetched_at=float(meta["fetched_at"]),
                checked_at=float(meta["checked_at"]),
                http_status=int(meta["http_status"]),
                body_sha256=str(meta["body_sha256"]),
                text=body.decode("utf-8", errors="replace"),
                addresses=[str(a) for a in meta.get("addresses") or []],
            )
        except (KeyError, TypeError, ValueError):
            return None

    def store(self, entry: CacheEntry, *, body_changed: bool = True) -> None:
        meta_path, body_path = self._paths(entry.url)
        body = entry.text.encode("utf-8")
        entry.body_sha256 = hashlib.sha256(body).hexdigest()
        if body_changed:
            write_atomic(body_path, body)
        meta = asdict(entry)
        del meta["text"]
        write_atomic(meta_path, json.dumps(meta, indent=1).encode("utf-8"))
