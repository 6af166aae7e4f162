"""Who may reach the web chat and what they may send.

Loopback by default; another address only with a login. In front of the app, :class:`Guard`
refuses file uploads (the chat takes none).
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

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


# --- what reaches the app: no uploads ------------------------------

_UPLOAD_ROUTES = ("upload", "process_recording")  # Gradio's routes that write a request's files to disk


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class Guard:
    """ASGI middleware in front of the web chat: file uploads switched off.

    The chat takes no files, so Gradio's upload routes (``/gradio_api/upload``,
    ``/gradio_api/process_recording``) and any other ``multipart/form-data`` request are refused
    with 403 before a byte of the body is read: nothing is written under Gradio's temp folder,
    whatever the origin. The one multipart request let through is the login form (when a login is
    configured).
    """

    def __init__(self, app: Any, auth: tuple[str, str] | None) -> None:
        self.app = app
        self.auth = auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", "")).rstrip("/")
        content_type = dict(scope.get("headers") or []).get(b"content-type", b"").lower()
        login = self.auth is not None and path == "/login" and scope.get("method") == "POST"
        if path.rsplit("/", 1)[-1] in _UPLOAD_ROUTES or (content_type.startswith(b"multipart/") and not login):
            await _reply(send, 403, "uploads are switched off: the chat takes no files")
            return
        await self.app(scope, receive, send)


async def _reply(send: Send, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    head += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})
