"""HTTP over a pinned address: one request on a fresh connection to a checked address.

The TCP connection goes only to addresses the address policy has checked: there is no second DNS
lookup. Each exchange has a hard time limit enforced by a watchdog (so a slow drip is stopped),
and the decoded body is capped while streaming (so a small gzip bomb is stopped).
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from ..errors import FetchError
from .decode import HTML_TYPES, TEXT_TYPES, Decoder, parse_content_type
from .sniff import sniff_content_type
from .types import BadContentType, BadEncoding, NetworkError, TooLarge

__all__ = ["REDIRECT_CODES", "PinnedConnection", "Reply", "Watchdog", "exchange", "network_reason"]

REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024


class Watchdog:
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


class PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to a host name whose TCP socket goes to pre-checked addresses.

    The Host header and TLS server name (SNI and certificate check) use the host name; the socket
    connects only to ``addresses``, which the caller has already checked. No DNS lookup happens.
    """

    def __init__(
        self,
        host: str,
        port: int,
        addresses: list[str],
        watchdog: Watchdog,
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
class Reply:
    """The end of a redirect chain."""

    url: str
    status: int
    headers: dict[str, str]
    body: bytes | None
    mime: str | None
    charset: str | None
    addresses: list[str] = field(default_factory=list)


def exchange(
    url: str,
    scheme: str,
    host: str,
    port: int,
    addresses: list[str],
    headers: dict[str, str],
    budget: float,
    *,
    page: bool,
    cap: int,
    tls: ssl.SSLContext,
    timed_out: Callable[[], FetchError],
) -> Reply:
    """One request/response on a fresh connection to a checked address, within ``budget``.

    ``page=False`` is the robots.txt request: other content types are read, and a body over
    ``cap`` is cut rather than refused. ``timed_out`` makes the error for running out of time.
    """
    if budget <= 0:
        raise timed_out()
    watchdog = Watchdog(budget)
    conn = PinnedConnection(host, port, addresses, watchdog, tls if scheme == "https" else None)
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
        if status in REDIRECT_CODES or status == 304 or not 200 <= status < 300:
            return Reply(url, status, resp_headers, None, None, None, addresses)
        mime, charset = parse_content_type(resp_headers.get("content-type"))
        generic = mime in (None, "application/octet-stream", "binary/octet-stream")
        if page and not generic and mime not in HTML_TYPES | TEXT_TYPES:
            raise BadContentType(f"content type {mime} is not HTML or text")
        body = _read_body(resp, conn, watchdog, resp_headers, cap, truncate=not page)
        if generic:
            sniffed = sniff_content_type(body)
            if page and sniffed not in HTML_TYPES | TEXT_TYPES:
                raise BadContentType(f"content type {sniffed} (sniffed) is not HTML or text")
            mime = sniffed
        return Reply(url, status, resp_headers, body, mime, charset, addresses)
    except FetchError:
        raise
    except (OSError, http.client.HTTPException, ssl.SSLError) as exc:
        if watchdog.expired or isinstance(exc, TimeoutError):
            raise timed_out() from None
        raise NetworkError(network_reason(exc)) from None
    finally:
        watchdog.cancel()
        conn.close()


def _read_body(
    resp: http.client.HTTPResponse,
    conn: PinnedConnection,
    watchdog: Watchdog,
    headers: dict[str, str],
    cap: int,
    *,
    truncate: bool,
) -> bytes:
    encoding = headers.get("content-encoding", "").strip().lower()
    if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
        # One layer at most: "gzip, gzip, ..." (in one header or many) is refused, not peeled.
        shown = encoding if len(encoding) <= 60 else encoding[:57] + "..."
        raise BadEncoding(f"unsupported content encoding {shown}")
    declared = headers.get("content-length", "")
    if not truncate and encoding in ("", "identity") and declared.isdigit() and int(declared) > cap:
        raise TooLarge(f"body over {cap} bytes")
    decoder = Decoder(encoding)
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
            raise TooLarge(f"body over {cap} bytes")
    return bytes(out)


def network_reason(exc: BaseException) -> str:
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
