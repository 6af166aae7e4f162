"""Loopback HTTP servers and a socket spy for the fetcher tests.

``LoopbackSite`` is a real threaded HTTP server on 127.0.0.1 serving replies the test defines per
path. It records every request (path, headers, time), counts TCP connections and tracks how many
requests were in flight at once. ``SocketSpy`` records every outgoing ``connect`` made in this
process (and can forbid DNS lookups), which proves that a refused URL made no connection at all.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """What the loopback site answers for one request."""

    status: int = 200
    body: bytes | str = b""
    content_type: str | None = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Sleep this long before sending anything (status line included)."""
    drip_s: float | None = None
    """If set, send the body one byte at a time, this many seconds apart."""
    content_length: bool = True
    """Send a Content-Length header (otherwise the body ends when the connection closes)."""


@dataclass
class SeenRequest:
    path: str
    headers: dict[str, str]
    at: float


Route = Reply | Callable[[SeenRequest], Reply]


class LoopbackSite:
    """A threaded HTTP/1.0 server on 127.0.0.1; use as a context manager."""

    def __init__(self, routes: Mapping[str, Route] | None = None) -> None:
        self.routes: dict[str, Route] = dict(routes or {})
        self.requests: list[SeenRequest] = []
        self.connections = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                seen = SeenRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, time.monotonic())
                with site._lock:
                    site.requests.append(seen)
                    site.in_flight += 1
                    site.max_in_flight = max(site.max_in_flight, site.in_flight)
                answered = threading.Event()

                def done() -> None:
                    # Counted out before the response's last byte: a client that has its whole reply may send its next
                    # request before this thread would get to run again, and that request is not one in flight with it.
                    if not answered.is_set():
                        answered.set()
                        with site._lock:
                            site.in_flight -= 1

                try:
                    site._answer(self, seen, done)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass  # the client gave up (that is what some tests want)
                finally:
                    done()

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False

            def process_request(self, request: Any, client_address: Any) -> None:
                with site._lock:
                    site.connections += 1
                super().process_request(request, client_address)

        self._server = Server(("127.0.0.1", 0), Handler)
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    # -- routing

    def _answer(self, handler: BaseHTTPRequestHandler, seen: SeenRequest, done: Callable[[], None]) -> None:
        route = self.routes.get(seen.path)
        if route is None:
            reply = Reply(404, b"<html><body>not found</body></html>")
        elif callable(route):
            reply = route(seen)
        else:
            reply = route
        if reply.delay_s:
            time.sleep(reply.delay_s)
        body = reply.body.encode("utf-8") if isinstance(reply.body, str) else reply.body
        handler.send_response(reply.status)
        if reply.content_type is not None:
            handler.send_header("Content-Type", reply.content_type)
        if reply.content_length:
            handler.send_header("Content-Length", str(len(body)))
        for key, value in reply.headers.items():
            handler.send_header(key, value)
        handler.end_headers()
        if reply.drip_s is None:
            handler.wfile.write(body[:-1])
            handler.wfile.flush()
            done()
            handler.wfile.write(body[-1:])
            return
        for i in range(len(body)):
            if i == len(body) - 1:
                done()
            handler.wfile.write(body[i : i + 1])
            handler.wfile.flush()
            time.sleep(reply.drip_s)

    # -- helpers for tests

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def paths(self) -> list[str]:
        with self._lock:
            return [r.path for r in self.requests]

    def count(self, path: str) -> int:
        return self.paths().count(path)

    def __enter__(self) -> LoopbackSite:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class SocketSpy:
    """Records every ``socket.connect`` / ``connect_ex`` in the process while active.

    With ``forbid_dns=True`` any ``getaddrinfo`` call fails the test (proves no second lookup).
    """

    def __init__(self, *, forbid_dns: bool = False) -> None:
        self.connects: list[Any] = []
        self.dns_lookups: list[Any] = []
        self.forbid_dns = forbid_dns

    @contextlib.contextmanager
    def active(self) -> Iterator[SocketSpy]:
        real_connect = socket.socket.connect
        real_connect_ex = socket.socket.connect_ex
        real_getaddrinfo = socket.getaddrinfo
        spy = self

        def connect(sock: socket.socket, address: Any) -> None:
            spy.connects.append(address)
            real_connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> int:
            spy.connects.append(address)
            return real_connect_ex(sock, address)

        def getaddrinfo(*args: Any, **kwargs: Any) -> Any:
            spy.dns_lookups.append(args)
            if spy.forbid_dns:
                raise AssertionError(f"unexpected DNS lookup {args!r}")
            return real_getaddrinfo(*args, **kwargs)

        socket.socket.connect = connect  # type: ignore[method-assign,assignment]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
        socket.getaddrinfo = getaddrinfo
        try:
            yield self
        finally:
            socket.socket.connect = real_connect  # type: ignore[method-assign]
            socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
            socket.getaddrinfo = real_getaddrinfo


class RawServer:
    """A bare TCP server on 127.0.0.1 for replies no well-behaved HTTP server would send.

    ``handler(conn, server)`` runs in its own thread for every connection (the connection is
    closed afterwards). The server counts connections, keeps the raw request heads it read and
    the number of bytes its handlers sent (through :meth:`send`).
    """

    def __init__(self, handler: Callable[[socket.socket, RawServer], None]) -> None:
        self.handler = handler
        self.connections = 0
        self.heads: list[bytes] = []
        self.bytes_sent = 0
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._sock.settimeout(0.05)
        self.port: int = self._sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def read_head(self, conn: socket.socket) -> bytes:
        """Read a request head (up to the blank line) and remember it."""
        conn.settimeout(5)
        data = b""
        with contextlib.suppress(OSError):
            while b"\r\n\r\n" not in data and len(data) < 65536:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                data += chunk
        with self._lock:
            self.heads.append(data)
        return data

    def send(self, conn: socket.socket, data: bytes) -> None:
        conn.sendall(data)
        with self._lock:
            self.bytes_sent += len(data)

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            with self._lock:
                self.connections += 1
            threading.Thread(target=self._run, args=(conn,), daemon=True).start()

    def _run(self, conn: socket.socket) -> None:
        try:
            self.handler(conn, self)
        except OSError:
            pass  # the client hung up: what several tests want
        finally:
            with contextlib.suppress(OSError):
                conn.close()

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._thread.join(timeout=2)
        self._sock.close()
