"""Who may reach the web chat: loopback by default; another address only with a login."""

from __future__ import annotations

import ipaddress

from ..errors import ConfigError
from ..settings import Settings


def parse_auth(value: str) -> tuple[str, str] | None:
    """``user:password`` from the ``auth`` setting, or None when it is empty."""
    if not value:
        return None
    user, sep, password = value.partition(":")
    if not sep or not user or not password:
        raise ConfigError("auth must be 'user:password' (HWQA_AUTH); fix it and run again")
    return user, password


def is_loopback(host: str) -> bool:
    if host in ("localhost", "127.0.0.1", "::1"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(settings: Settings) -> tuple[str, str] | None:
    """Refuse to listen beyond this machine without a login; returns the (user, password) pair, if any."""
    auth = parse_auth(settings.auth)
    if not is_loopback(settings.host) and auth is None:
        raise ConfigError(
            f"refusing to serve on {settings.host} without a login; set HWQA_AUTH=user:password or use --host 127.0.0.1"
        )
    return auth
