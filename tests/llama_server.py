"""The real local chat server for tests: ``llama_cpp.server`` with the bundled SmolLM2 model.

:class:`LlamaServer` starts ``hwqa llm serve``'s command line (:func:`hwqa.answer.chat.localmodel.server_command`)
on a free loopback port, waits until it answers, and stops it. :class:`KillingProxy` sits between
hwqa and a server and kills the server (SIGKILL) once a streamed answer has begun, so the
connection drops mid-stream as it does when a server crashes.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from hwqa.answer.chat.localmodel import server_command

START_TIMEOUT = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """``python -m llama_cpp.server`` with the bundled model on 127.0.0.1, started and stopped by a test."""

    def __init__(self) -> None:
        self.port = free_port()
        self.log = Path(tempfile.mkstemp(prefix="hwqa-llama-", suffix=".log")[1])
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(server_command(self.port, threads=1), stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.process.returncode}: {self.tail()}")
            with (
                contextlib.suppress(OSError, urllib.error.URLError),
                urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response,
            ):
                if response.status == 200:
                    return self
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer within {START_TIMEOUT:.0f} s: {self.tail()}")

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.unlink(missing_ok=True)

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class KillingProxy:
    """Forwards 127.0.0.1:<port> to ``server``; after ``events`` Server-Sent Events of an answer have
    reached the client, kills the server process and drops the client's connection."""

    def __init__(self, server: LlamaServer, events: int = 3) -> None:
        self.server = server
        self.events = events
        self.killed = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def __enter__(self) -> KillingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self.server.port))
        except OSError:
            client.close()
            return
        threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
        seen = 0
        try:
            while data := upstream.recv(65536):
                client.sendall(data)
                seen += data.count(b"data: ")
                if seen >= self.events and self.server.process is not None:
                    self.server.process.kill()  # the server dies halfway through its answer
                    self.server.process.wait()
                    self.killed.set()
                    break
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)
            client.close()
            upstream.close()


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
