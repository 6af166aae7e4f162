"""What fetching one URL can come to: the status, the outcome, and the errors that end a fetch.

Every reason a link is not fetched is a :class:`~hwqa.errors.FetchError` subclass whose ``status``
says how the link is reported ("skipped": hwqa will not fetch it; "failed": it could not be
fetched, so a cached copy is kept) and whose message is the one-line reason shown to users.
"""

from __future__ import annotations

import copy
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..errors import FetchError

Resolver = Callable[[str, int], list[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class FetchStatus(StrEnum):
    """How one link ended. The values are the strings reports and JSON have always used."""

    FETCHED = "fetched"
    NOT_MODIFIED = "not-modified"
    FROM_CACHE = "from-cache"
    FAILED = "failed"
    SKIPPED = "skipped"


def fmt_s(seconds: float) -> str:
    """Seconds as shown in reasons: ``20``, ``0.5``."""
    return f"{seconds:g}"


def prefixed(error: FetchError, prefix: str) -> FetchError:
    """The same error with ``prefix`` in front of its reason (e.g. "redirected to URL: ")."""
    new = copy.copy(error)
    new.reason = prefix + error.reason
    new.args = (new.reason,)
    return new


def status_of(error: FetchError) -> FetchStatus:
    """How a link that ended with ``error`` is reported."""
    return FetchStatus(error.status)


class RefusedAddress(FetchError):
    """The address policy refuses the host: loopback, private, metadata, ... (skipped)."""

    status = FetchStatus.SKIPPED


class InvalidAddress(RefusedAddress):
    """A numeric-looking host that is no valid IP address (``1.2.3.4.5``, ``[::zz]``)."""


class SchemeNotAllowed(FetchError):
    """A scheme other than http and https (skipped)."""

    status = FetchStatus.SKIPPED


class BadContentType(FetchError):
    """The page is neither HTML nor text (skipped)."""

    status = FetchStatus.SKIPPED


class RobotsDisallowed(FetchError):
    """robots.txt disallows the URL (skipped)."""

    status = FetchStatus.SKIPPED


class RobotsUnavailable(FetchError):
    """robots.txt could not be read (5xx, 429, network trouble): everything is disallowed (failed)."""


class InvalidURL(FetchError):
    """The URL, its host or its port cannot be used (failed)."""


class ResolveError(FetchError):
    """The host name could not be resolved to addresses (failed)."""


class RedirectError(FetchError):
    """A redirect without a usable target, or too many of them (failed)."""


class HTTPStatusError(FetchError):
    """The server answered with an error status (failed); ``code`` is the HTTP status."""

    def __init__(self, reason: str, code: int) -> None:
        super().__init__(reason)
        self.code = code


class TooLarge(FetchError):
    """The body is over the size cap (failed)."""


class BadEncoding(FetchError):
    """The Content-Encoding is unsupported or the body does not decode (failed)."""


class NetworkError(FetchError):
    """Connection trouble: refused, reset, TLS, a broken HTTP answer (failed)."""


class FetchTimeout(FetchError):
    """One attempt ran over its time limit (failed)."""


class LinkDeadlineReached(FetchTimeout):
    """The link's wall-clock deadline ran out (never cached as a robots.txt answer)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"link deadline of {fmt_s(seconds)} s reached")


@dataclass
class FetchOutcome:
    """What happened to one URL.

    ``text`` is the decoded body to index: the fresh one, or the last good cached copy (on
    ``not-modified``, ``from-cache``, and on a ``failed`` refresh when a cached copy exists, in
    which case ``reason`` ends with "kept cached copy").
    """

    url: str
    status: FetchStatus
    reason: str | None = None
    final_url: str | None = None
    content_type: str | None = None
    text: str | None = None
    http_status: int | None = None
    fetched_at: float | None = None
    """When ``text`` was downloaded (seconds since the epoch)."""
    seconds_left: float | None = field(default=None, compare=False)
    """What was left of the link's deadline when the outcome was made: extracting and chunking
    the page are charged to it."""

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
