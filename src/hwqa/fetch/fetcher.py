"""The :class:`Fetcher`: one link from robots.txt through retries and redirects to the cache.

Politeness (robots.txt, the per-host gate, retries) and the link's wall-clock deadline are
described in :mod:`hwqa.fetch`; the address policy is applied to every hop and to cached copies.
"""

from __future__ import annotations

import contextlib
import logging
import ssl
import threading
import time
import urllib.robotparser
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from ..errors import FetchError
from ..notes.links import normalize_url, split_fragment
from .address import AddressPolicy, default_resolver, host_key
from .cache import Cache, CacheEntry
from .config import FetchConfig
from .connection import REDIRECT_CODES, Reply, exchange
from .decode import decode_body
from .gate import Deadline, HostGate, retry_after_s
from .sniff import binary_reason, looks_like_html_document
from .types import (
    FetchOutcome,
    FetchStatus,
    FetchTimeout,
    HTTPStatusError,
    InvalidURL,
    LinkDeadlineReached,
    RedirectError,
    RefusedAddress,
    Resolver,
    RobotsDisallowed,
    RobotsUnavailable,
    SchemeNotAllowed,
    fmt_s,
    prefixed,
    status_of,
)

__all__ = ["ROBOTS_AGENT", "Fetcher"]

log = logging.getLogger(__name__)

ROBOTS_AGENT = "hwqa"
_ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1"


def _fresh_entry(
    url: str, reply: Reply, content_type: str, text: str, now: float, *, addresses: Sequence[str] = ()
) -> CacheEntry:
    """The cache entry for ``url`` just fetched: the reply's validators, fetched and checked ``now``."""
    return CacheEntry(
        url=url,
        final_url=reply.url,
        content_type=content_type,
        etag=reply.headers.get("etag"),
        last_modified=reply.headers.get("last-modified"),
        fetched_at=now,
        checked_at=now,
        http_status=reply.status,
        body_sha256="",
        text=text,
        addresses=list(addresses),
    )


class Fetcher:
    """Fetches pages safely and politely, with a cache under ``cache_dir``.

    ``resolver`` maps (host, port) to the addresses to check and connect to; it defaults to the
    system resolver. One Fetcher is one "run": robots.txt answers are cached for its lifetime.
    Thread-safe; :meth:`fetch_many` fetches in parallel.
    """

    def __init__(
        self,
        cache_dir: Path,
        config: FetchConfig | None = None,
        *,
        resolver: Resolver | None = None,
    ) -> None:
        self.config = config or FetchConfig()
        self.config.validate()
        self.cache_dir = Path(cache_dir)
        self.cache = Cache(self.cache_dir)
        self.policy = AddressPolicy(self.config, resolver or default_resolver)
        self._lock = threading.Lock()
        self._gates: dict[str, HostGate] = {}
        self._robots: dict[str, urllib.robotparser.RobotFileParser | str | None] = {}
        self._robots_locks: dict[str, threading.Lock] = {}
        self._tls = ssl.create_default_context()
        self._local = threading.local()  # the current link's Deadline, per worker thread

    # ---------------------------------------------------------------- public API

    def fetch_many(
        self,
        urls: Sequence[str],
        *,
        offline: bool = False,
        progress: Callable[[FetchOutcome], None] | None = None,
    ) -> list[FetchOutcome]:
        """Fetch ``urls`` in parallel; one outcome per input URL, in the same order.

        A URL given twice is fetched once (both positions get the same outcome). ``progress`` is
        called once per distinct URL, in the calling thread, as each finishes.
        """
        keys = [split_fragment(u.strip())[0] for u in urls]
        unique = list(dict.fromkeys(keys))
        results: dict[str, FetchOutcome] = {}
        if unique:
            workers = min(self.config.max_workers, len(unique))
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hwqa-fetch") as pool:
                futures = {pool.submit(self.fetch, u, offline=offline): u for u in unique}
                for fut in as_completed(futures):
                    outcome = fut.result()
                    results[futures[fut]] = outcome
                    if progress is not None:
                        progress(outcome)
        return [results[k] for k in keys]

    def fetch(self, url: str, *, offline: bool = False) -> FetchOutcome:
        """Fetch one URL (its fragment, if any, is ignored). Never raises for network trouble."""
        url = split_fragment(url.strip())[0]
        deadline = self._local.deadline = Deadline(self.config.link_deadline_s)
        try:
            outcome = self._fetch(url, offline)
            outcome.seconds_left = max(0.0, deadline.remaining())
            return outcome
        except Exception as exc:  # a bug or an unforeseen OS error must not stop the run
            log.exception("unexpected error fetching %s", url)
            return FetchOutcome(url, FetchStatus.FAILED, f"unexpected error: {type(exc).__name__}: {exc}")
        finally:
            self._local.deadline = None

    def _deadline(self) -> Deadline:
        deadline: Deadline | None = getattr(self._local, "deadline", None)
        if deadline is None:  # robots.txt or a page fetched outside fetch(): a deadline of its own
            deadline = self._local.deadline = Deadline(self.config.link_deadline_s)
        return deadline

    # ---------------------------------------------------------------- one URL

    def _fetch(self, url: str, offline: bool) -> FetchOutcome:
        norm = normalize_url(url)
        if norm is None:
            return FetchOutcome(url, FetchStatus.SKIPPED, "not an absolute URL")
        scheme = norm[0].split(":", 1)[0]
        if scheme not in ("http", "https"):
            return FetchOutcome(url, FetchStatus.SKIPPED, f"scheme {scheme}: not allowed (only http and https)")

        cached = self.cache.load(url)
        if cached is not None:
            # The address policy applies to cached copies too: a page cached while private hosts
            # were allowed is not used once they are not (offline, fresh or not-modified alike).
            refused = self._cache_refusal(cached, offline=offline)
            if refused is not None:
                return FetchOutcome(url, FetchStatus.SKIPPED, refused)
        if offline:
            if cached is None:
                return FetchOutcome(url, FetchStatus.SKIPPED, "offline and not in cache")
            return self._from_cache(url, cached, FetchStatus.FROM_CACHE, None)
        if cached is not None and time.time() - cached.checked_at < self.config.max_age_s:
            return self._from_cache(url, cached, FetchStatus.FROM_CACHE, None)

        try:
            reply = self._get_with_retries(url, cached)
        except FetchError as stop:
            status = status_of(stop)
            if status is FetchStatus.FAILED and cached is not None:
                return self._from_cache(url, cached, FetchStatus.FAILED, f"{stop.reason}; kept cached copy")
            return FetchOutcome(url, status, stop.reason)

        now = time.time()
        if reply.status == 304 and cached is not None:
            cached.checked_at = now
            cached.etag = reply.headers.get("etag") or cached.etag
            cached.last_modified = reply.headers.get("last-modified") or cached.last_modified
            if reply.url == cached.final_url and reply.addresses:
                cached.addresses = reply.addresses
            self.cache.store(cached, body_changed=False)
            return self._from_cache(url, cached, FetchStatus.NOT_MODIFIED, None, http_status=304)

        assert reply.body is not None and reply.mime is not None
        text = decode_body(reply.body, reply.mime, reply.charset)
        binary = binary_reason(reply.body, text, reply.mime)
        if binary is not None:
            return FetchOutcome(url, FetchStatus.SKIPPED, binary, reply.url, reply.mime, None, reply.status)
        if reply.mime == "text/plain" and looks_like_html_document(text):
            reply.mime = "text/html"  # an HTML document served as text: extracted as HTML
        entry = _fresh_entry(url, reply, reply.mime, text, now, addresses=reply.addresses)
        try:
            self.cache.store(entry)
        except OSError as exc:
            log.warning("could not cache %s: %s", url, exc)
        return FetchOutcome(url, FetchStatus.FETCHED, None, reply.url, reply.mime, text, reply.status, now)

    @staticmethod
    def _from_cache(
        url: str,
        entry: CacheEntry,
        status: FetchStatus,
        reason: str | None,
        http_status: int | None = None,
    ) -> FetchOutcome:
        binary = binary_reason(None, entry.text, entry.content_type)
        if binary is not None:  # cached before binary bodies were recognised
            return FetchOutcome(url, FetchStatus.SKIPPED, f"cached copy is {binary}")
        return FetchOutcome(
            url,
            status,
            reason,
            entry.final_url,
            entry.content_type,
            entry.text,
            http_status if http_status is not None else entry.http_status,
            entry.fetched_at,
        )

    def _cache_refusal(self, entry: CacheEntry, *, offline: bool) -> str | None:
        """Why the current address policy refuses a cached copy, or ``None``.

        The URL and the final URL are checked as written (IP literals, loopback and metadata
        names), and the addresses the final URL was fetched from, recorded in the cache, are
        checked against the current policy. A host with no recorded addresses (an earlier hop,
        or a copy cached by an older hwqa) is resolved again, except offline; a failed lookup
        holds nothing against the copy.
        """
        urls = [entry.url] if entry.final_url == entry.url else [entry.url, entry.final_url]
        for u in urls:
            parts = urlsplit(u)
            if not parts.hostname:
                continue
            recorded = entry.addresses if u == entry.final_url else []
            try:
                port = parts.port or (443 if parts.scheme == "https" else 80)
            except ValueError:
                port = 80
            try:
                self.policy.checked_addresses(parts.hostname, port, resolved=None if recorded == [] and not offline else recorded)
            except RefusedAddress as stop:
                where = "" if u == entry.url else f" (its cached copy came from {u})"
                return f"{stop.reason}{where}"
            except FetchError:
                continue  # could not resolve: not a refusal
        return None

    def _get_with_retries(self, url: str, cached: CacheEntry | None) -> Reply:
        cfg = self.config
        attempt = 0
        while True:
            reply = self._get(url, cached, page=True)
            code = reply.status
            if 200 <= code < 300 or (code == 304 and cached is not None):
                return reply
            retryable = code == 429 or 500 <= code < 600
            if not retryable:
                raise HTTPStatusError(f"HTTP {code}", code)
            if attempt >= cfg.retries:
                tries = f" after {attempt + 1} attempts" if attempt else ""
                raise HTTPStatusError(f"HTTP {code}{tries}", code)
            asked = retry_after_s(reply.headers.get("retry-after"))
            if asked is not None and asked > cfg.max_retry_after_s:
                raise HTTPStatusError(
                    f"HTTP {code}; server asked to retry after "
                    f"{fmt_s(round(asked))} s (over the "
                    f"{fmt_s(cfg.max_retry_after_s)} s limit)",
                    code,
                )
            wait = asked if asked is not None else cfg.backoff_base_s * 2**attempt
            deadline = self._deadline()
            if wait >= deadline.remaining():
                if asked is not None:
                    why = f"server asked to retry after {fmt_s(round(asked))} s"
                else:
                    why = f"next retry in {fmt_s(wait)} s"
                raise HTTPStatusError(f"HTTP {code}; {why}, past the link deadline of {fmt_s(deadline.seconds)} s", code)
            log.info("HTTP %s from %s; retrying in %.1f s", code, url, wait)
            time.sleep(wait)
            attempt += 1

    # ---------------------------------------------------------------- redirect chain

    def _get(self, url: str, cached: CacheEntry | None, *, page: bool) -> Reply:
        """GET ``url``, following redirects. ``page=False`` is the robots.txt request."""
        cfg = self.config
        budget = cfg.timeout_s
        current = url
        for hop in range(cfg.max_redirects + 1):
            parts = urlsplit(current)
            scheme = parts.scheme.lower()
            if scheme not in ("http", "https"):
                raise SchemeNotAllowed(f"scheme {scheme}: not allowed (only http and https)")
            host = parts.hostname
            try:
                port = parts.port or (443 if scheme == "https" else 80)
            except ValueError:
                raise InvalidURL(f"invalid URL {current}") from None
            if not host:
                raise InvalidURL(f"invalid URL {current}: no host")
            addresses = self.policy.checked_addresses(host, port)
            if page:
                self._check_robots(scheme, host, port, current)
            headers = {
                "User-Agent": cfg.user_agent,
                "Accept": _ACCEPT if page else "text/plain,*/*;q=0.5",
                "Accept-Encoding": "gzip, deflate",
                "Connection": "close",
            }
            if cached is not None and cached.final_url == current:
                if cached.etag:
                    headers["If-None-Match"] = cached.etag
                if cached.last_modified:
                    headers["If-Modified-Since"] = cached.last_modified
            deadline = self._deadline()
            queued = time.monotonic()
            with self._gate(host).slot():
                started = time.monotonic()
                deadline.extend(started - queued)  # a politeness wait is not charged to the link
                left = deadline.remaining()
                try:
                    if left <= 0:
                        raise LinkDeadlineReached(deadline.seconds)
                    reply = exchange(
                        current,
                        scheme,
                        host,
                        port,
                        addresses,
                        headers,
                        min(budget, left),
                        page=page,
                        cap=cfg.max_bytes if page else cfg.robots_max_bytes,
                        tls=self._tls,
                        timed_out=self._timeout_error(deadline if left < budget else None),
                    )
                finally:
                    budget -= time.monotonic() - started
            if reply.status in REDIRECT_CODES:
                location = reply.headers.get("location")
                if not location:
                    raise RedirectError(f"HTTP {reply.status} without a Location header")
                target = split_fragment(urljoin(current, location.strip()))[0]
                norm = normalize_url(target)
                if norm is None:
                    raise RedirectError(f"redirect to an invalid URL {location!r}")
                if hop == cfg.max_redirects:
                    break
                try:
                    self._precheck(norm[0])
                except FetchError as stop:
                    raise prefixed(stop, f"redirected to {norm[0]}: ") from None
                current = norm[0]
                continue
            return reply
        raise RedirectError(f"too many redirects (more than {cfg.max_redirects})")

    def _precheck(self, url: str) -> None:
        """Scheme and host checks for a redirect target (before anything is sent)."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise SchemeNotAllowed(f"scheme {scheme}: not allowed (only http and https)")
        if not parts.hostname:
            raise InvalidURL("invalid URL: no host")
        try:
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError:
            raise InvalidURL("invalid URL: bad port") from None
        self.policy.checked_addresses(parts.hostname, port)

    def _timeout_error(self, deadline: Deadline | None) -> Callable[[], FetchError]:
        """What running out of time is called: the link's deadline when ``deadline`` (not
        ``timeout_s``) set the budget, else a time-out after ``timeout_s``."""

        def timed_out() -> FetchError:
            if deadline is not None:
                return LinkDeadlineReached(deadline.seconds)
            return FetchTimeout(f"timed out after {fmt_s(self.config.timeout_s)} s")

        return timed_out

    # ---------------------------------------------------------------- politeness

    def _gate(self, host: str) -> HostGate:
        key = host_key(host)
        with self._lock:
            gate = self._gates.get(key)
            if gate is None:
                gate = HostGate(self.config.per_host_concurrency, self.config.per_host_delay_s)
                self._gates[key] = gate
            return gate

    def _check_robots(self, scheme: str, host: str, port: int, url: str) -> None:
        """Raise a :class:`~hwqa.errors.FetchError` unless robots.txt lets hwqa fetch ``url``.

        A rule that disallows the URL makes it "skipped"; a robots.txt that could not be read
        (5xx, 429, network trouble) disallows everything and makes it "failed", so that a cached
        copy is kept while the site is unwell.
        """
        host = host_key(host)  # every spelling of one host shares one robots.txt
        origin = f"{scheme}://{host}:{port}"
        with self._lock:
            lock = self._robots_locks.setdefault(origin, threading.Lock())
        with lock:
            if origin not in self._robots:
                self._robots[origin] = self._load_robots(scheme, host, port)  # a LinkDeadlineReached is not stored
        rules = self._robots[origin]
        if rules is None:
            return
        if isinstance(rules, str):
            raise RobotsUnavailable(f"disallowed by robots.txt ({rules})")
        if not rules.can_fetch(ROBOTS_AGENT, url):
            raise RobotsDisallowed("disallowed by robots.txt")

    def _load_robots(self, scheme: str, host: str, port: int) -> urllib.robotparser.RobotFileParser | str | None:
        """Parsed rules; ``None`` for allow-all; a string (the why) for disallow-all."""
        default_port = 443 if scheme == "https" else 80
        netloc = f"[{host}]" if ":" in host else host
        if port != default_port:
            netloc += f":{port}"
        robots_url = f"{scheme}://{netloc}/robots.txt"
        cached = self.cache.load(robots_url)  # revalidated like a page: a re-index sends only conditional requests
        try:
            reply = self._get(robots_url, cached, page=False)
        except LinkDeadlineReached:
            raise  # this link ran out of time; the next link to the site asks again
        except FetchError as stop:
            return f"robots.txt unreachable: {stop.reason}"
        text: str | None = None
        if reply.status == 304 and cached is not None:
            text = cached.text
        elif 200 <= reply.status < 300 and reply.body is not None:
            body = reply.body
            if len(body) >= self.config.robots_max_bytes:
                body = body[: body.rfind(b"\n") + 1]  # cut at the cap: drop the half line
            text = decode_body(body, "text/plain", reply.charset)
            with contextlib.suppress(OSError):
                self.cache.store(_fresh_entry(robots_url, reply, "text/plain", text, time.time()))
        if text is not None:
            rules = urllib.robotparser.RobotFileParser(robots_url)
            rules.parse(text.splitlines())
            delay = rules.crawl_delay(ROBOTS_AGENT)
            if delay is not None:
                gate = self._gate(host)
                gate.delay = max(gate.delay, min(float(delay), self.config.max_crawl_delay_s))
            return rules
        if reply.status == 429 or reply.status >= 500:
            return f"robots.txt answered HTTP {reply.status}"
        if 400 <= reply.status < 500:
            return None
        return f"robots.txt answered HTTP {reply.status}"
