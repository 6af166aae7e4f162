"""Fetch the web pages that notes link to: safely, politely, and with a cache.

Safety
    Only ``http`` and ``https``. Every host is resolved once, *every* address it resolves to is
    checked (loopback, private, link-local, carrier-grade NAT, multicast, reserved, unspecified,
    IPv4-mapped / NAT64 / 6to4 forms of those, cloud-metadata addresses and names), and the TCP
    connection is made to one of exactly those checked addresses: there is no second DNS lookup.
    The same happens for every redirect hop and for robots.txt. Odd IPv4 spellings
    (``2130706433``, ``0x7f000001``, ``127.1``, ``0177.0.0.1``) are parsed the way the C library
    would and refused too. The decoded body is capped while streaming (so a small gzip bomb is
    stopped), each attempt has a total time limit enforced by a watchdog (so a slow drip is
    stopped), redirects are capped and only HTML and plain text are accepted; a body labelled as
    text that is binary (file signature, or too many control/undecodable characters) is skipped.
    One link has a wall-clock deadline (``link_deadline_s``) over robots.txt, every attempt,
    retry wait and redirect hop. Cached copies obey the same address policy: the URL, the final
    URL and the addresses recorded when it was fetched are re-checked before a copy is used.
    Proxy variables and ``~/.netrc`` are never consulted: connections go to checked addresses.

Politeness
    A User-Agent naming hwqa and its version; robots.txt is respected (4xx: everything allowed;
    5xx, 429 or unreachable: everything disallowed) and cached per origin for the lifetime of the
    :class:`Fetcher`, the host in one spelling (:func:`host_key`); at most ``per_host_concurrency``
    requests are in flight per host, with
    ``per_host_delay_s`` (or the site's Crawl-delay, capped) between their starts; 429 and 5xx are
    retried with exponential backoff honouring ``Retry-After``; other 4xx are never retried.

Cache
    One JSON metadata file and one body file per URL under ``cache_dir``, named by the SHA-256 of
    the URL, written atomically (temp file + ``os.replace``). Within ``max_age_s`` a cached page is
    used without any request; after that a conditional request (``If-None-Match`` /
    ``If-Modified-Since``) is sent; offline mode uses the cache only; a failed refresh keeps the
    last good copy.

The network sits behind two seams that tests replace: the ``resolver`` (host, port -> addresses)
and the HTTP server itself (tests start loopback servers).
"""

from __future__ import annotations

import codecs
import contextlib
import email.utils
import hashlib
import http.client
import ipaddress
import json
import logging
import os
import re
import socket
import ssl
import tempfile
import threading
import time
import urllib.robotparser
import zlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urljoin, urlsplit

from . import __version__
from .errors import ConfigError
from .links import normalize_url, split_fragment
from .sniff import binary_reason, looks_like_html_document

__all__ = [
    "DEFAULT_USER_AGENT",
    "FetchConfig",
    "FetchOutcome",
    "Fetcher",
    "Resolver",
    "address_problem",
    "decode_body",
    "default_resolver",
    "host_key",
    "parse_ip_literal",
]

log = logging.getLogger(__name__)

DEFAULT_USER_AGENT = f"hwqa/{__version__} (+https://github.com/hwqa; notes assistant)"
ROBOTS_AGENT = "hwqa"

Status = Literal["fetched", "not-modified", "from-cache", "failed", "skipped"]
Resolver = Callable[[str, int], list[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})
_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
_CACHE_VERSION = 1


@dataclass
class FetchConfig:
    """Settings for fetching linked pages. Every field has a safe default."""

    user_agent: str = DEFAULT_USER_AGENT
    """User-Agent header sent with every request (names hwqa and its version)."""
    allow_private_hosts: bool = False
    """Allow loopback, private, link-local and other non-public addresses (intranets, tests).
    Cloud-metadata addresses and names stay refused even then."""
    allow_hosts: tuple[str, ...] = ()
    """Host names allowed to resolve to non-public addresses (``wiki.corp``; a leading dot,
    ``.corp.example``, also allows every subdomain). Narrower than ``allow_private_hosts``."""
    allow_networks: tuple[str, ...] = ()
    """Networks (CIDR, e.g. ``10.20.0.0/16``) whose addresses are allowed although not public."""
    max_bytes: int = 5_000_000
    """Cap on the decoded body, enforced while streaming."""
    timeout_s: float = 20.0
    """Total network time for one attempt at a page: every redirect hop, connecting, headers and
    body together (a slow drip is cut off). Waiting for a politeness slot is not counted."""
    max_redirects: int = 5
    """Redirects followed before giving up."""
    max_age_s: float = 86400.0
    """A cached page checked less than this long ago is used without any request."""
    per_host_concurrency: int = 2
    """Requests in flight at once to one host."""
    per_host_delay_s: float = 1.0
    """Minimum time between the starts of two requests to one host."""
    max_crawl_delay_s: float = 10.0
    """A robots.txt Crawl-delay above ``per_host_delay_s`` is honoured up to this many seconds."""
    retries: int = 3
    """Retries after a 429 or 5xx answer (never after another 4xx)."""
    backoff_base_s: float = 1.0
    """First retry waits this long (doubling each time) unless the server sends Retry-After."""
    max_retry_after_s: float = 30.0
    """A Retry-After longer than this is not waited for: the page fails instead."""
    max_workers: int = 8
    """Pages fetched in parallel (across all hosts)."""
    robots_max_bytes: int = 500_000
    """robots.txt is read up to this many bytes (the rest, and a line cut in half, is ignored)."""
    link_deadline_s: float = 30.0
    """Wall-clock limit for one link, everything included: robots.txt, every attempt and retry
    wait, every redirect hop. Waiting for a turn at a busy host (politeness) is not counted."""

    def validate(self) -> None:
        """Raise :class:`~hwqa.errors.ConfigError` if a value makes no sense."""
        positive = {
            "max_bytes": self.max_bytes,
            "timeout_s": self.timeout_s,
            "per_host_concurrency": self.per_host_concurrency,
            "max_workers": self.max_workers,
            "robots_max_bytes": self.robots_max_bytes,
            "link_deadline_s": self.link_deadline_s,
        }
        for name, value in positive.items():
            if value <= 0:
                raise ConfigError(f"fetch setting {name} must be positive (got {value})")
        non_negative = {
            "max_redirects": self.max_redirects,
            "max_age_s": self.max_age_s,
            "per_host_delay_s": self.per_host_delay_s,
            "max_crawl_delay_s": self.max_crawl_delay_s,
            "retries": self.retries,
            "backoff_base_s": self.backoff_base_s,
            "max_retry_after_s": self.max_retry_after_s,
        }
        for name, value in non_negative.items():
            if value < 0:
                raise ConfigError(f"fetch setting {name} must not be negative (got {value})")
        for net in self.allow_networks:
            try:
                ipaddress.ip_network(net, strict=False)
            except ValueError:
                raise ConfigError(
                    f"fetch setting allow_networks has {net!r}, which is not a network (write it like 10.20.0.0/16)"
                ) from None


@dataclass
class FetchOutcome:
    """What happened to one URL.

    ``text`` is the decoded body to index: the fresh one, or the last good cached copy (on
    ``not-modified``, ``from-cache``, and on a ``failed`` refresh when a cached copy exists, in
    which case ``reason`` ends with "kept cached copy").
    """

    url: str
    status: Status
    reason: str | None = None
    final_url: str | None = None
    content_type: str | None = None
    text: str | None = None
    http_status: int | None = None
    fetched_at: float | None = None
    """When ``text`` was downloaded (seconds since the epoch)."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary (without the text itself; ``chars`` gives its length)."""
        return {
            "url": self.url,
            "status": self.status,
            "reason": self.reason,
            "final_url": self.final_url,
            "content_type": self.content_type,
            "http_status": self.http_status,
            "chars": None if self.text is None else len(self.text),
        }


# ============================================================================================
# Address policy


_METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack, ...
        ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
        ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
        ipaddress.ip_address("fd00:ec2::254"),  # AWS IPv6
        ipaddress.ip_address("192.0.0.192"),  # Oracle Cloud
    }
)
_METADATA_NAMES = frozenset(
    {
        "metadata.google.internal",
        "metadata.goog",
        "metadata",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.internal",
    }
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_PART_RE = re.compile(r"^(?:0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*)$")
_NUMERICISH_RE = re.compile(r"^[0-9][0-9a-fA-FxX.]*$")


class _Stop(Exception):
    """Ends the fetch of one URL with a status and a one-line reason."""

    def __init__(self, status: Literal["failed", "skipped"], reason: str) -> None:
        super().__init__(reason)
        self.status: Literal["failed", "skipped"] = status
        self.reason = reason


class _DeadlineStop(_Stop):
    """The link's wall-clock deadline ran out (never cached as a robots.txt answer)."""

    def __init__(self, seconds: float) -> None:
        super().__init__("failed", f"link deadline of {_fmt_s(seconds)} s reached")


class _Deadline:
    """The wall-clock deadline of one link (see ``FetchConfig.link_deadline_s``)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def extend(self, seconds: float) -> None:
        """Give back time spent waiting for a politeness slot."""
        self.end += max(seconds, 0.0)


def host_key(host: str) -> str:
    """One spelling per host: lower case, no trailing dot, IDNA, IP addresses in canonical form.

    ``127.1``, ``0x7f.1``, ``2130706433`` and ``127.0.0.1`` are one host, so they share one
    robots.txt and one politeness gate.
    """
    name = host.strip().strip("[]").lower().rstrip(".")
    try:
        ip = parse_ip_literal(name)
    except _Stop:
        ip = None
    if ip is not None:
        return str(ip)
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError:
        return name


def parse_ip_literal(host: str) -> IPAddress | None:
    """Parse ``host`` as an IP address, including the legacy IPv4 spellings.

    Accepts what ``inet_aton`` accepts: 1 to 4 dot-separated parts, each decimal, octal (leading
    ``0``) or hex (``0x``), the last part filling the remaining bytes; so ``2130706433``,
    ``0x7f000001``, ``127.1`` and ``0177.0.0.1`` are all 127.0.0.1. Returns ``None`` for a name.
    Raises :class:`_Stop` for a numeric-looking host that is no valid address.
    """
    h = host.strip("[]")
    if "%" in h:  # IPv6 zone id
        h = h.split("%", 1)[0]
    if ":" in h:
        try:
            return ipaddress.IPv6Address(h)
        except ValueError:
            raise _Stop("skipped", f"refused: {host} is not a valid address") from None
    if h.endswith("."):
        h = h[:-1]
    if not h or not _NUMERICISH_RE.match(h):
        return None
    parts = h.split(".")
    if not all(_IPV4_PART_RE.match(p) for p in parts):
        return None  # a name (resolved, and its addresses checked, like any other)
    if len(parts) > 4:
        raise _Stop("skipped", f"refused: {host} is not a valid address")
    values: list[int] = []
    for p in parts:
        if p.lower().startswith("0x"):
            values.append(int(p[2:] or "0", 16))
        elif p.startswith("0") and len(p) > 1:
            values.append(int(p, 8))
        else:
            values.append(int(p))
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(values)):
        raise _Stop("skipped", f"refused: {host} is not a valid address")
    number = 0
    for v in head:
        number = number * 256 + v
    number = number * 256 ** (5 - len(values)) + last
    return ipaddress.IPv4Address(number)


def address_problem(ip: IPAddress) -> str | None:
    """Why ``ip`` must not be connected to (e.g. "a private address"), or ``None`` if public."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded: ipaddress.IPv4Address | None = None
        kind = ""
        if ip.ipv4_mapped is not None:
            embedded, kind = ip.ipv4_mapped, "IPv4-mapped"
        elif any(ip in net for net in _NAT64):
            embedded, kind = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF), "NAT64"
        elif ip.sixtofour is not None:
            embedded, kind = ip.sixtofour, "6to4"
        if embedded is not None:
            inner = address_problem(embedded)
            if inner:
                return f"{inner} ({kind} form of {embedded})"
            if kind == "NAT64" and ip not in _NAT64[0]:
                return "a local-use NAT64 address"
    if ip in _METADATA_ADDRESSES:
        return "a cloud metadata address"
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "a carrier-grade NAT address"
    if ip.is_private:
        return "a private address"
    if ip.is_reserved:
        return "a reserved address"
    if not ip.is_global:
        return "not a public address"
    return None


def default_resolver(host: str, port: int) -> list[str]:
    """Resolve ``host`` with the system resolver; every address, in the order given."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    seen: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        addr = str(sockaddr[0])
        if addr not in seen:
            seen.append(addr)
    return seen


# ============================================================================================
# Small helpers: time limits, politeness gate, decoding


def _fmt_s(seconds: float) -> str:
    return f"{seconds:g}"


class _Watchdog:
    """Hard time limit for one network exchange: shuts the socket down when time is up."""

    def __init__(self, seconds: float) -> None:
        self.seconds = max(seconds, 0.0)
        self.deadline = time.monotonic() + self.seconds
        self.expired = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(self.seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0 or self.expired:
            self.expired = True
            raise TimeoutError("time limit reached")
        return left

    def attach(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
            if self.expired:
                self._shutdown()

    def _shutdown(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)

    def _fire(self) -> None:
        with self._lock:
            self.expired = True
            self._shutdown()

    def cancel(self) -> None:
        self._timer.cancel()


class _HostGate:
    """At most ``limit`` requests in flight to one host, starts spaced by ``delay`` seconds."""

    def __init__(self, limit: int, delay: float) -> None:
        self._sem = threading.BoundedSemaphore(limit)
        self._lock = threading.Lock()
        self._next_start = 0.0
        self.delay = delay

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        self._sem.acquire()
        try:
            with self._lock:
                now = time.monotonic()
                start = max(now, self._next_start)
                self._next_start = start + self.delay
            if start > now:
                time.sleep(start - now)
            yield
        finally:
            self._sem.release()


class _Decoder:
    """Incremental Content-Encoding decoder whose output never exceeds a given limit."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._z: Any = None
        self._started = False

    def _new(self, first: bytes) -> Any:
        if self.encoding in ("gzip", "x-gzip"):
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        # "deflate" should be zlib-wrapped, but some servers send raw deflate.
        wrapped = len(first) >= 2 and first[0] & 0x0F == 8 and (first[0] * 256 + first[1]) % 31 == 0
        return zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)

    def feed(self, data: bytes, limit: int) -> bytes:
        if self.encoding in ("", "identity"):
            return data
        out = bytearray()
        while data and len(out) < limit:
            if self._z is None:
                self._z = self._new(data)
            try:
                out += self._z.decompress(data, limit - len(out))
            except zlib.error:
                raise _Stop("failed", f"body is not valid {self.encoding} data") from None
            if self._z.unconsumed_tail:
                data = self._z.unconsumed_tail
            elif self._z.eof and self._z.unused_data:
                data = self._z.unused_data  # another gzip member follows
                self._z = None
            else:
                data = b""
        return bytes(out)


_SNIFF_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
    (b"OggS", "audio/ogg"),
    (b"ID3", "audio/mpeg"),
)
_HTML_SNIFF_RE = re.compile(
    rb"^\s*(?:<!doctype\s+html|<html|<head|<body|<title|<meta|<div|<p[\s>]|<h[1-6]|<!--|<table)",
    re.I,
)


def _sniff(data: bytes) -> str:
    """Guess a content type from the first bytes (when the server sent none, or a generic one)."""
    head = data[:1024]
    for magic, mime in _SNIFF_MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    stripped = head.lstrip(b"\xef\xbb\xbf")
    if _HTML_SNIFF_RE.match(stripped):
        return "text/html"
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "application/octet-stream"
    return "text/plain"


def _parse_content_type(value: str | None) -> tuple[str | None, str | None]:
    """(mime type lower-case, charset) from a Content-Type header."""
    if not value:
        return None, None
    parts = value.split(";")
    mime = parts[0].strip().lower() or None
    charset = None
    for p in parts[1:]:
        key, _, val = p.partition("=")
        if key.strip().lower() == "charset":
            charset = val.strip().strip("\"'") or None
    return mime, charset


_META_CHARSET_RE = re.compile(rb"<meta[^>]+?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:\-]+)", re.I)
_WHATWG_ALIASES = {
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
}


def _codec(name: str | None) -> str | None:
    if not name:
        return None
    name = name.strip().lower()
    name = _WHATWG_ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode_body(data: bytes, mime: str | None, charset: str | None) -> str:
    """Decode a body: BOM, then the header charset, then ``<meta charset>``, then UTF-8.

    Undecodable bytes become U+FFFD rather than failing the page.
    """
    for bom, bom_enc in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom) :].decode(bom_enc, errors="replace")
    enc: str | None = _codec(charset)
    if enc is None and mime in HTML_TYPES:
        m = _META_CHARSET_RE.search(data[:8192])
        if m:
            enc = _codec(m.group(1).decode("ascii", "replace"))
            if enc and enc.startswith("utf-16"):
                enc = "utf-8"  # a meta tag cannot truthfully declare UTF-16
    return data.decode(enc or "utf-8", errors="replace")


def _retry_after_s(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


# ============================================================================================
# Cache


@dataclass
class _CacheEntry:
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


class _Cache:
    """One ``<sha256(url)>.json`` + ``<sha256(url)>.body`` pair per URL; no pickle."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _paths(self, url: str) -> tuple[Path, Path]:
        key = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.root / f"{key}.json", self.root / f"{key}.body"

    def load(self, url: str) -> _CacheEntry | None:
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
            return _CacheEntry(
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

    def _write_atomic(self, path: Path, data: bytes) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def store(self, entry: _CacheEntry, *, body_changed: bool = True) -> None:
        meta_path, body_path = self._paths(entry.url)
        body = entry.text.encode("utf-8")
        entry.body_sha256 = hashlib.sha256(body).hexdigest()
        if body_changed:
            self._write_atomic(body_path, body)
        meta = asdict(entry)
        del meta["text"]
        self._write_atomic(meta_path, json.dumps(meta, indent=1).encode("utf-8"))


# ============================================================================================
# HTTP over a pinned address


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to a host name whose TCP socket goes to pre-checked addresses.

    The Host header and TLS server name (SNI and certificate check) use the host name; the socket
    connects only to ``addresses``, which the caller has already checked. No DNS lookup happens.
    """

    def __init__(
        self,
        host: str,
        port: int,
        addresses: list[str],
        watchdog: _Watchdog,
        tls: ssl.SSLContext | None,
    ) -> None:
        super().__init__(host, port, timeout=watchdog.seconds)
        self._addresses = addresses
        self._watchdog = watchdog
        self._tls = tls

    def connect(self) -> None:
        last: OSError | None = None
        for address in self._addresses:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sock = socket.socket(family, socket.SOCK_STREAM)
            self._watchdog.attach(sock)
            try:
                sock.settimeout(self._watchdog.remaining())
                sock.connect((address, self.port))
            except OSError as exc:
                sock.close()
                last = exc
                if self._watchdog.expired:
                    raise
                continue
            if self._tls is not None:
                sock = self._tls.wrap_socket(sock, server_hostname=self.host)
                self._watchdog.attach(sock)
            self.sock = sock
            return
        raise last or OSError("no address to connect to")


@dataclass
class _Reply:
    """The end of a redirect chain."""

    url: str
    status: int
    headers: dict[str, str]
    body: bytes | None
    mime: str | None
    charset: str | None
    addresses: list[str] = field(default_factory=list)


_ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1"


# ============================================================================================
# The fetcher


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
        self.cache = _Cache(self.cache_dir)
        self._resolver: Resolver = resolver or default_resolver
        self._allowed_networks = [ipaddress.ip_network(n, strict=False) for n in self.config.allow_networks]
        self._lock = threading.Lock()
        self._gates: dict[str, _HostGate] = {}
        self._robots: dict[str, urllib.robotparser.RobotFileParser | str | None] = {}
        self._robots_locks: dict[str, threading.Lock] = {}
        self._tls = ssl.create_default_context()
        self._local = threading.local()  # the current link's _Deadline, per worker thread

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
        self._local.deadline = _Deadline(self.config.link_deadline_s)
        try:
            return self._fetch(url, offline)
        except Exception as exc:  # a bug or an unforeseen OS error must not stop the run
            log.exception("unexpected error fetching %s", url)
            return FetchOutcome(url, "failed", f"unexpected error: {type(exc).__name__}: {exc}")
        finally:
            self._local.deadline = None

    def _deadline(self) -> _Deadline:
        deadline: _Deadline | None = getattr(self._local, "deadline", None)
        if deadline is None:  # robots.txt or a page fetched outside fetch(): a deadline of its own
            deadline = self._local.deadline = _Deadline(self.config.link_deadline_s)
        return deadline

    # ---------------------------------------------------------------- one URL

    def _fetch(self, url: str, offline: bool) -> FetchOutcome:
        norm = normalize_url(url)
        if norm is None:
            return FetchOutcome(url, "skipped", "not an absolute URL")
        scheme = norm[0].split(":", 1)[0]
        if scheme not in ("http", "https"):
            return FetchOutcome(url, "skipped", f"scheme {scheme}: not allowed (only http and https)")

        cached = self.cache.load(url)
        if cached is not None:
            # The address policy applies to cached copies too: a page cached while private hosts
            # were allowed is not used once they are not (offline, fresh or not-modified alike).
            refused = self._cache_refusal(cached, offline=offline)
            if refused is not None:
                return FetchOutcome(url, "skipped", refused)
        if offline:
            if cached is None:
                return FetchOutcome(url, "skipped", "offline and not in cache")
            return self._from_cache(url, cached, "from-cache", None)
        if cached is not None and time.time() - cached.checked_at < self.config.max_age_s:
            return self._from_cache(url, cached, "from-cache", None)

        try:
            reply = self._get_with_retries(url, cached)
        except _Stop as stop:
            if stop.status == "failed" and cached is not None:
                return self._from_cache(url, cached, "failed", f"{stop.reason}; kept cached copy")
            return FetchOutcome(url, stop.status, stop.reason)

        now = time.time()
        if reply.status == 304 and cached is not None:
            cached.checked_at = now
            cached.etag = reply.headers.get("etag") or cached.etag
            cached.last_modified = reply.headers.get("last-modified") or cached.last_modified
            if reply.url == cached.final_url and reply.addresses:
                cached.addresses = reply.addresses
            self.cache.store(cached, body_changed=False)
            return self._from_cache(url, cached, "not-modified", None, http_status=304)

        assert reply.body is not None and reply.mime is not None
        text = decode_body(reply.body, reply.mime, reply.charset)
        binary = binary_reason(reply.body, text, reply.mime)
        if binary is not None:
            return FetchOutcome(url, "skipped", binary, reply.url, reply.mime, None, reply.status)
        if reply.mime == "text/plain" and looks_like_html_document(text):
            reply.mime = "text/html"  # an HTML document served as text: extracted as HTML
        entry = _CacheEntry(
            url=url,
            final_url=reply.url,
            content_type=reply.mime,
            etag=reply.headers.get("etag"),
            last_modified=reply.headers.get("last-modified"),
            fetched_at=now,
            checked_at=now,
            http_status=reply.status,
            body_sha256="",
            text=text,
            addresses=reply.addresses,
        )
        try:
            self.cache.store(entry)
        except OSError as exc:
            log.warning("could not cache %s: %s", url, exc)
        return FetchOutcome(url, "fetched", None, reply.url, reply.mime, text, reply.status, now)

    @staticmethod
    def _from_cache(
        url: str,
        entry: _CacheEntry,
        status: Status,
        reason: str | None,
        http_status: int | None = None,
    ) -> FetchOutcome:
        binary = binary_reason(None, entry.text, entry.content_type)
        if binary is not None:  # cached before binary bodies were recognised
            return FetchOutcome(url, "skipped", f"cached copy is {binary}")
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

    def _cache_refusal(self, entry: _CacheEntry, *, offline: bool) -> str | None:
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
                self._checked_addresses(parts.hostname, port, resolved=None if recorded == [] and not offline else recorded)
            except _Stop as stop:
                if stop.status == "failed":
                    continue  # could not resolve: not a refusal
                where = "" if u == entry.url else f" (its cached copy came from {u})"
                return f"{stop.reason}{where}"
        return None

    def _get_with_retries(self, url: str, cached: _CacheEntry | None) -> _Reply:
        cfg = self.config
        attempt = 0
        while True:
            reply = self._get(url, cached, page=True)
            code = reply.status
            if 200 <= code < 300 or (code == 304 and cached is not None):
                return reply
            retryable = code == 429 or 500 <= code < 600
            if not retryable:
                raise _Stop("failed", f"HTTP {code}")
            if attempt >= cfg.retries:
                tries = f" after {attempt + 1} attempts" if attempt else ""
                raise _Stop("failed", f"HTTP {code}{tries}")
            asked = _retry_after_s(reply.headers.get("retry-after"))
            if asked is not None and asked > cfg.max_retry_after_s:
                raise _Stop(
                    "failed",
                    f"HTTP {code}; server asked to retry after "
                    f"{_fmt_s(round(asked))} s (over the "
                    f"{_fmt_s(cfg.max_retry_after_s)} s limit)",
                )
            wait = asked if asked is not None else cfg.backoff_base_s * 2**attempt
            deadline = self._deadline()
            if wait >= deadline.remaining():
                if asked is not None:
                    why = f"server asked to retry after {_fmt_s(round(asked))} s"
                else:
                    why = f"next retry in {_fmt_s(wait)} s"
                raise _Stop("failed", f"HTTP {code}; {why}, past the link deadline of {_fmt_s(deadline.seconds)} s")
            log.info("HTTP %s from %s; retrying in %.1f s", code, url, wait)
            time.sleep(wait)
            attempt += 1

    # ---------------------------------------------------------------- redirect chain

    def _get(self, url: str, cached: _CacheEntry | None, *, page: bool) -> _Reply:
        """GET ``url``, following redirects. ``page=False`` is the robots.txt request."""
        cfg = self.config
        budget = cfg.timeout_s
        current = url
        for hop in range(cfg.max_redirects + 1):
            parts = urlsplit(current)
            scheme = parts.scheme.lower()
            if scheme not in ("http", "https"):
                raise _Stop("skipped", f"scheme {scheme}: not allowed (only http and https)")
            host = parts.hostname
            try:
                port = parts.port or (443 if scheme == "https" else 80)
            except ValueError:
                raise _Stop("failed", f"invalid URL {current}") from None
            if not host:
                raise _Stop("failed", f"invalid URL {current}: no host")
            addresses = self._checked_addresses(host, port)
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
                        raise _DeadlineStop(deadline.seconds)
                    reply = self._exchange(
                        current, scheme, host, port, addresses, headers, min(budget, left), page=page,
                        deadline=deadline if left < budget else None,
                    )
                finally:
                    budget -= time.monotonic() - started
            if reply.status in _REDIRECT_CODES:
                location = reply.headers.get("location")
                if not location:
                    raise _Stop("failed", f"HTTP {reply.status} without a Location header")
                target = split_fragment(urljoin(current, location.strip()))[0]
                norm = normalize_url(target)
                if norm is None:
                    raise _Stop("failed", f"redirect to an invalid URL {location!r}")
                if hop == cfg.max_redirects:
                    break
                try:
                    self._precheck(norm[0])
                except _Stop as stop:
                    raise _Stop(stop.status, f"redirected to {norm[0]}: {stop.reason}") from None
                current = norm[0]
                continue
            return reply
        raise _Stop("failed", f"too many redirects (more than {cfg.max_redirects})")

    def _precheck(self, url: str) -> None:
        """Scheme and host checks for a redirect target (before anything is sent)."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise _Stop("skipped", f"scheme {scheme}: not allowed (only http and https)")
        if not parts.hostname:
            raise _Stop("failed", "invalid URL: no host")
        try:
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError:
            raise _Stop("failed", "invalid URL: bad port") from None
        self._checked_addresses(parts.hostname, port)

    def _exchange(
        self,
        url: str,
        scheme: str,
        host: str,
        port: int,
        addresses: list[str],
        headers: dict[str, str],
        budget: float,
        *,
        page: bool,
        deadline: _Deadline | None = None,
    ) -> _Reply:
        """One request/response on a fresh connection to a checked address, within ``budget``.

        ``deadline`` is given when the link's deadline, not ``timeout_s``, sets ``budget``.
        """
        cfg = self.config

        def timed_out() -> _Stop:
            if deadline is not None:
                return _DeadlineStop(deadline.seconds)
            return _Stop("failed", f"timed out after {_fmt_s(cfg.timeout_s)} s")

        if budget <= 0:
            raise timed_out()
        watchdog = _Watchdog(budget)
        conn = _PinnedConnection(host, port, addresses, watchdog, self._tls if scheme == "https" else None)
        parts = urlsplit(url)
        target = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
        if parts.query:
            target += "?" + quote(parts.query, safe="/%:@!$&'()*+,;=-._~?")
        try:
            conn.request("GET", target, headers=headers)
            resp = conn.getresponse()
            if watchdog.expired:
                raise TimeoutError("time limit reached")
            status = resp.status
            resp_headers = {k.lower(): v for k, v in resp.getheaders()}
            encodings = [v for k, v in resp.getheaders() if k.lower() == "content-encoding"]
            if len(encodings) > 1:  # repeated header lines: one list, as RFC 9110 says
                resp_headers["content-encoding"] = ", ".join(encodings)
            if status in _REDIRECT_CODES or status == 304 or not 200 <= status < 300:
                return _Reply(url, status, resp_headers, None, None, None, addresses)
            mime, charset = _parse_content_type(resp_headers.get("content-type"))
            generic = mime in (None, "application/octet-stream", "binary/octet-stream")
            if page and not generic and mime not in HTML_TYPES | TEXT_TYPES:
                raise _Stop("skipped", f"content type {mime} is not HTML or text")
            cap = cfg.max_bytes if page else cfg.robots_max_bytes
            body = self._read_body(resp, conn, watchdog, resp_headers, cap, truncate=not page)
            if generic:
                sniffed = _sniff(body)
                if page and sniffed not in HTML_TYPES | TEXT_TYPES:
                    raise _Stop("skipped", f"content type {sniffed} (sniffed) is not HTML or text")
                mime = sniffed
            return _Reply(url, status, resp_headers, body, mime, charset, addresses)
        except _Stop:
            raise
        except (OSError, http.client.HTTPException, ssl.SSLError) as exc:
            if watchdog.expired or isinstance(exc, TimeoutError):
                raise timed_out() from None
            raise _Stop("failed", _network_reason(exc)) from None
        finally:
            watchdog.cancel()
            conn.close()

    def _read_body(
        self,
        resp: http.client.HTTPResponse,
        conn: _PinnedConnection,
        watchdog: _Watchdog,
        headers: dict[str, str],
        cap: int,
        *,
        truncate: bool,
    ) -> bytes:
        encoding = headers.get("content-encoding", "").strip().lower()
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            # One layer at most: "gzip, gzip, ..." (in one header or many) is refused, not peeled.
            shown = encoding if len(encoding) <= 60 else encoding[:57] + "..."
            raise _Stop("failed", f"unsupported content encoding {shown}")
        declared = headers.get("content-length", "")
        if not truncate and encoding in ("", "identity") and declared.isdigit() and int(declared) > cap:
            raise _Stop("failed", f"body over {cap} bytes")
        decoder = _Decoder(encoding)
        out = bytearray()
        while True:
            if conn.sock is not None:
                conn.sock.settimeout(watchdog.remaining())
            chunk = resp.read1(_CHUNK)
            if not chunk:
                if watchdog.expired:  # the watchdog shut the socket: not a real end of body
                    raise TimeoutError("time limit reached")
                break
            out += decoder.feed(chunk, cap + 1 - len(out))
            if len(out) > cap:
                if truncate:
                    return bytes(out[:cap])
                raise _Stop("failed", f"body over {cap} bytes")
        return bytes(out)

    # ---------------------------------------------------------------- safety

    def _host_allowed_private(self, host: str) -> bool:
        if self.config.allow_private_hosts:
            return True
        name = host_key(host)  # compared in one spelling (IDNA, canonical IP), like robots.txt
        for allowed in self.config.allow_hosts:
            allowed = allowed.strip().lower().rstrip(".")
            base = host_key(allowed.lstrip("."))
            if name == base or (allowed.startswith(".") and name.endswith("." + base)):
                return True
        return False

    def _checked_addresses(self, host: str, port: int, *, resolved: list[str] | None = None) -> list[str]:
        """Resolve ``host`` once and check every address; return them or raise :class:`_Stop`.

        With ``resolved`` (addresses recorded earlier), no lookup is made: those are checked.
        """
        name = host.lower().rstrip(".")
        if not name:
            raise _Stop("failed", "invalid URL: no host")
        if name in _METADATA_NAMES:
            raise _Stop("skipped", f"refused: {name} is a cloud metadata host")
        literal = parse_ip_literal(name)
        private_ok = self._host_allowed_private(name)
        if literal is None:
            if (name == "localhost" or name.endswith(".localhost")) and not private_ok:
                raise _Stop("skipped", f"refused: {name} is a loopback host name")
            try:
                ascii_name = name.encode("idna").decode("ascii")
            except UnicodeError:
                raise _Stop("failed", f"invalid host name {name}") from None
            if resolved is not None:
                raw = resolved
            else:
                try:
                    raw = self._resolver(ascii_name, port)
                except (OSError, UnicodeError) as exc:
                    raise _Stop("failed", f"could not resolve {name} ({_network_reason(exc)})") from None
                if not raw:
                    raise _Stop("failed", f"could not resolve {name}")
        else:
            raw = [str(literal)]
        checked: list[str] = []
        for address in raw:
            ip = parse_ip_literal(address.split("%", 1)[0])
            if ip is None:
                raise _Stop("failed", f"resolver returned {address!r}, not an address")
            problem = address_problem(ip)
            if problem is not None:
                always = ip in _METADATA_ADDRESSES or "cloud metadata" in problem
                allowed = not always and (private_ok or any(ip in net for net in self._allowed_networks))
                if not allowed:
                    if literal is not None:
                        if isinstance(literal, ipaddress.IPv6Address):
                            shown = f"[{name}]"
                        else:
                            shown = name if str(literal) == name else f"{name} ({literal})"
                        raise _Stop("skipped", f"refused: {shown} is {problem}")
                    raise _Stop("skipped", f"refused: {name} resolves to {ip}, {problem}")
            checked.append(str(ip))
        return checked

    # ---------------------------------------------------------------- politeness

    def _gate(self, host: str) -> _HostGate:
        key = host_key(host)
        with self._lock:
            gate = self._gates.get(key)
            if gate is None:
                gate = _HostGate(self.config.per_host_concurrency, self.config.per_host_delay_s)
                self._gates[key] = gate
            return gate

    def _check_robots(self, scheme: str, host: str, port: int, url: str) -> None:
        """Raise :class:`_Stop` unless robots.txt lets hwqa fetch ``url``.

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
                self._robots[origin] = self._load_robots(scheme, host, port)  # a _DeadlineStop is not stored
        rules = self._robots[origin]
        if rules is None:
            return
        if isinstance(rules, str):
            raise _Stop("failed", f"disallowed by robots.txt ({rules})")
        if not rules.can_fetch(ROBOTS_AGENT, url):
            raise _Stop("skipped", "disallowed by robots.txt")

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
        except _DeadlineStop:
            raise  # this link ran out of time; the next link to the site asks again
        except _Stop as stop:
            return f"robots.txt unreachable: {stop.reason}"
        text: str | None = None
        if reply.status == 304 and cached is not None:
            text = cached.text
        elif 200 <= reply.status < 300 and reply.body is not None:
            body = reply.body
            if len(body) >= self.config.robots_max_bytes:
                body = body[: body.rfind(b"\n") + 1]  # cut at the cap: drop the half line
            text = decode_body(body, "text/plain", reply.charset)
            now = time.time()
            with contextlib.suppress(OSError):
                self.cache.store(
                    _CacheEntry(
                        url=robots_url, final_url=reply.url, content_type="text/plain",
                        etag=reply.headers.get("etag"), last_modified=reply.headers.get("last-modified"),
                        fetched_at=now, checked_at=now, http_status=reply.status, body_sha256="", text=text,
                    )
                )
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


def _network_reason(exc: BaseException) -> str:
    """A one-line reason for a network error."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted ({exc.verify_message})"
    if isinstance(exc, ssl.SSLError):
        return f"TLS error ({exc.reason or exc})"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ConnectionResetError):
        return "connection reset by the server"
    if isinstance(exc, http.client.IncompleteRead):
        return "connection closed before the page was complete"
    if isinstance(exc, http.client.RemoteDisconnected):
        return "server closed the connection without answering"
    if isinstance(exc, socket.gaierror):
        return exc.strerror or "name not found"
    if isinstance(exc, http.client.HTTPException):
        return f"bad HTTP answer ({type(exc).__name__})"
    return str(exc) or type(exc).__name__
