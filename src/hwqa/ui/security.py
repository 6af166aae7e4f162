"""Who may reach the web chat and what they may send.

Loopback by default; another address only with a login. In front of the app, :class:`Guard`
refuses file uploads (the chat takes none) and checks logins exactly, throttled per client.
"""

from __future__ import annotations

import asyncio
import errno
import hmac
import ipaddress
import json
import math
import socket
import threading
import time
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


def queue_full(blocks: Any) -> bool:
    """Whether the app's answer queue is full: one more question would be refused ("Queue is full")."""
    queue = getattr(blocks, "_queue", None)  # Gradio's queue, made by Blocks.queue(max_size=...)
    size = getattr(queue, "max_size", None)
    return queue is not None and size is not None and len(queue) >= size


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


def check_port(settings: Settings) -> None:
    """Refuse, in one line and before anything loads, a port another program listens on.

    The address is bound (as uvicorn will, with ``SO_REUSEADDR``) and let go at once; a program that
    takes the port in the moment between is still reported when the server starts.
    """
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((settings.host, settings.port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(port_in_use(settings)) from None
        if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or isinstance(exc, socket.gaierror):
            raise ConfigError(
                f"cannot listen on {settings.host}: it is not an address of this machine; use --host 127.0.0.1 (make run HOST=…)"
            ) from None
        if exc.errno == errno.EACCES:
            raise ConfigError(
                f"port {settings.port} needs administrator rights; pick one above 1023: --port 7860 (make run PORT=7860)"
            ) from None
        why = exc.strerror or exc
        raise ConfigError(f"cannot listen on {settings.host}:{settings.port} ({why}); pick another --port") from None


def port_in_use(settings: Settings) -> str:
    return (
        f"port {settings.port} on {settings.host} is in use by another program (another hwqa serve?); "
        f"stop it, or pick another port: make run PORT={settings.port + 1} (hwqa serve --port {settings.port + 1})"
    )


# --- what reaches the app: no uploads; an exact, throttled login ------------------------------

LOGIN_FREE_FAILURES = 10  # wrong logins from one client before each next try must wait
LOGIN_MAX_DELAY_S = 60.0  # the wait doubles per wrong login past the free ones, up to this
LOGIN_FORGET_S = 900.0  # a quarter of an hour without a wrong login forgets a client's (and the user's) failures
USER_FREE_FAILURES = 20  # wrong logins from all clients together before every login check is slowed down
USER_FIRST_DELAY_S = 0.25  # then each check waits this, doubling per wrong login, up to USER_MAX_DELAY_S
USER_MAX_DELAY_S = 8.0  # guessing from many addresses is slowed; the right password still gets in within this
LOGIN_MAX_WAITING = 8  # login checks held by that delay at once; one more is told to try again in a moment
LOGIN_MAX_BODY = 16_384  # bytes of a login form read; a bigger one is refused
_UPLOAD_ROUTES = ("upload", "process_recording")  # Gradio's routes that write a request's files to disk
_USER = "\x00user"  # the key of the failures counted for the login itself, from every client


class LoginThrottle:
    """Wrong logins per client, and for the login as a whole.

    A client is its socket's peer address (the address a trusted proxy names, with
    ``trusted_proxies``). Its first :data:`LOGIN_FREE_FAILURES` wrong logins cost nothing; after the
    n-th, its next try waits ``2 ** (n - LOGIN_FREE_FAILURES)`` seconds (1, 2, 4 … up to
    :data:`LOGIN_MAX_DELAY_S`), counted from that wrong login: only that client waits. Past
    :data:`USER_FREE_FAILURES` wrong logins from all clients together, every check is delayed
    (:meth:`user_delay`, at most :data:`USER_MAX_DELAY_S`), never refused: guessing from many
    addresses slows down, and the right password from anywhere still gets in. A right login clears
    its client; :data:`LOGIN_FORGET_S` without a wrong one clears a client and the login.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failures: dict[str, tuple[int, float]] = {}  # client (or _USER) -> (wrong logins, time of the last)
        self._lock = threading.Lock()

    def _count(self, key: str) -> tuple[int, float]:
        count, last = self._failures.get(key, (0, 0.0))
        elapsed = self._clock() - last
        if count and elapsed > LOGIN_FORGET_S:
            del self._failures[key]
            return 0, elapsed
        return count, elapsed

    def wait(self, client: str) -> float:
        """Seconds ``client`` must still wait before a login is checked (0: check it now)."""
        with self._lock:
            count, elapsed = self._count(client)
            if count < LOGIN_FREE_FAILURES:
                return 0.0
            return max(0.0, min(2.0 ** (count - LOGIN_FREE_FAILURES), LOGIN_MAX_DELAY_S) - elapsed)

    def user_delay(self) -> float:
        """Seconds every login check waits now, from the wrong logins of all clients together."""
        with self._lock:
            count, _ = self._count(_USER)
            if count < USER_FREE_FAILURES:
                return 0.0
            return min(USER_FIRST_DELAY_S * 2.0 ** min(count - USER_FREE_FAILURES, 30), USER_MAX_DELAY_S)

    def failed(self, client: str) -> None:
        with self._lock:
            now = self._clock()
            if len(self._failures) > 10_000:  # clients long quiet are dropped, so memory stays bounded
                self._failures = {k: v for k, v in self._failures.items() if now - v[1] <= LOGIN_FORGET_S}
            for key in (client, _USER):
                count, _ = self._count(key)
                self._failures[key] = (count + 1, now)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class Guard:
    """ASGI middleware in front of the web chat: file uploads switched off, logins exact and throttled.

    The chat takes no files, so Gradio's upload routes (``/gradio_api/upload``,
    ``/gradio_api/process_recording``) and any other ``multipart/form-data`` request are refused
    with 403 before a byte of the body is read: nothing is written under Gradio's temp folder,
    whatever the origin. The one multipart request let through is the login form (when a login is
    configured): its user name must equal the configured one exactly (Gradio strips spaces), and
    a client past its free wrong logins gets 429 with ``Retry-After`` without its password being
    checked, and every check waits a little once many clients guessed wrong (:class:`LoginThrottle`).
    """

    def __init__(self, app: Any, auth: tuple[str, str] | None, throttle: LoginThrottle | None = None) -> None:
        self.app = app
        self.auth = auth
        self.throttle = throttle or LoginThrottle()
        self.waiting = 0  # login checks being delayed now (one event loop: no lock needed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", "")).rstrip("/")
        if self.auth is not None and path == "/login" and scope.get("method") == "POST":
            await self._login(scope, receive, send)
            return
        content_type = dict(scope.get("headers") or []).get(b"content-type", b"").lower()
        if path.rsplit("/", 1)[-1] in _UPLOAD_ROUTES or content_type.startswith(b"multipart/"):
            await _reply(send, 403, "uploads are switched off: the chat takes no files")
            return
        await self.app(scope, receive, send)

    async def _login(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.auth is not None
        # the socket's peer; uvicorn puts the client a trusted proxy names here only with trusted_proxies
        client = (scope.get("client") or ("unknown", 0))[0]
        wait = self.throttle.wait(client)
        if wait > 0:
            seconds = math.ceil(wait)
            await _reply(send, 429, f"too many wrong logins; try again in {seconds} s", {"retry-after": str(seconds)})
            return
        delay = self.throttle.user_delay()
        if delay > 0:
            if self.waiting >= LOGIN_MAX_WAITING:
                seconds = math.ceil(delay)
                await _reply(send, 429, f"many logins at once; try again in {seconds} s", {"retry-after": str(seconds)})
                return
            self.waiting += 1
            try:
                await asyncio.sleep(delay)
            finally:
                self.waiting -= 1
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > LOGIN_MAX_BODY:
                await _reply(send, 413, "login form too large")
                return
            if not message.get("more_body"):
                break
        sent = False

        async def replay() -> MutableMapping[str, Any]:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        from starlette.requests import Request

        try:
            form = await Request(scope, replay).form()
            user, password = form.get("username"), form.get("password")
        except Exception:  # a malformed form: a wrong login
            user = password = None
        sent = False
        if (
            isinstance(user, str)
            and isinstance(password, str)
            and hmac.compare_digest(user.encode(), self.auth[0].encode())
            and hmac.compare_digest(password.encode(), self.auth[1].encode())
        ):
            self.throttle.succeeded(client)
            await self.app(scope, replay, send)  # Gradio checks it again and sets its cookie
            return
        self.throttle.failed(client)
        await _reply(send, 400, "Incorrect credentials.")


async def _reply(send: Send, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    head += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})
