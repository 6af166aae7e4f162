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

Modules: ``types`` (the status, the outcome, the :class:`~hwqa.errors.FetchError` tree),
``config`` (:class:`FetchConfig`, built from :class:`~hwqa.settings.Settings`), ``address`` (the
address policy), ``connection`` (HTTP over a pinned address), ``cache``, ``gate`` (politeness and
deadlines), ``decode`` and ``sniff`` (what a body is), ``fetcher`` (the :class:`Fetcher`).
"""

from __future__ import annotations

from ..errors import FetchError
from .address import address_problem, default_resolver, host_key, parse_ip_literal
from .config import DEFAULT_USER_AGENT, FetchConfig
from .decode import decode_body
from .fetcher import Fetcher
from .types import (
    BadContentType,
    BadEncoding,
    FetchOutcome,
    FetchStatus,
    FetchTimeout,
    HTTPStatusError,
    InvalidAddress,
    InvalidURL,
    LinkDeadlineReached,
    NetworkError,
    RedirectError,
    RefusedAddress,
    ResolveError,
    Resolver,
    RobotsDisallowed,
    RobotsUnavailable,
    SchemeNotAllowed,
    TooLarge,
)

__all__ = [
    "DEFAULT_USER_AGENT",
    "BadContentType",
    "BadEncoding",
    "FetchConfig",
    "FetchError",
    "FetchOutcome",
    "FetchStatus",
    "FetchTimeout",
    "Fetcher",
    "HTTPStatusError",
    "InvalidAddress",
    "InvalidURL",
    "LinkDeadlineReached",
    "NetworkError",
    "RedirectError",
    "RefusedAddress",
    "ResolveError",
    "Resolver",
    "RobotsDisallowed",
    "RobotsUnavailable",
    "SchemeNotAllowed",
    "TooLarge",
    "address_problem",
    "decode_body",
    "default_resolver",
    "host_key",
    "parse_ip_literal",
]
