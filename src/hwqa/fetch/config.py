"""The fetcher's settings: built from :class:`~hwqa.settings.Settings` in one place.

Users set these through ``Settings`` (``HWQA_FETCH_*``, ``hwqa.toml``); :meth:`FetchConfig.from_settings`
maps them. A library user may also build a ``FetchConfig`` directly.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..settings import DEFAULT_USER_AGENT

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = ["DEFAULT_USER_AGENT", "FetchConfig"]


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

    @classmethod
    def from_settings(cls, settings: Settings) -> FetchConfig:
        """The fetch settings held by ``settings`` (the one place they are mapped)."""
        return cls(
            user_agent=settings.fetch_user_agent,
            allow_private_hosts=settings.allow_private_hosts,
            allow_hosts=_split_list(settings.fetch_allow_hosts),
            allow_networks=_split_list(settings.fetch_allow_networks),
            max_bytes=settings.fetch_max_bytes,
            timeout_s=settings.fetch_timeout,
            max_redirects=settings.fetch_max_redirects,
            max_age_s=settings.fetch_max_age,
            per_host_concurrency=settings.fetch_host_concurrency,
            per_host_delay_s=settings.fetch_host_delay,
            max_crawl_delay_s=settings.fetch_max_crawl_delay,
            retries=settings.fetch_retries,
            backoff_base_s=settings.fetch_backoff,
            max_retry_after_s=settings.fetch_max_retry_after,
            max_workers=settings.fetch_workers,
            robots_max_bytes=settings.fetch_robots_max_bytes,
            link_deadline_s=settings.fetch_link_deadline,
        )


def _split_list(text: str) -> tuple[str, ...]:
    """``"a, b,"`` -> ``("a", "b")``: a comma-separated setting as a tuple."""
    return tuple(item.strip() for item in text.split(",") if item.strip())
