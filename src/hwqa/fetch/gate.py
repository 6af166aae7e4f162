"""Politeness and time: the per-host gate, the link's deadline, and Retry-After."""

from __future__ import annotations

import contextlib
import email.utils
import threading
import time
from collections.abc import Iterator

__all__ = ["Deadline", "HostGate", "retry_after_s"]


class HostGate:
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


class Deadline:
    """The wall-clock deadline of one link (see ``FetchConfig.link_deadline_s``)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def extend(self, seconds: float) -> None:
        """Give back time spent waiting for a politeness slot."""
        self.end += max(seconds, 0.0)


def retry_after_s(value: str | None) -> float | None:
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
