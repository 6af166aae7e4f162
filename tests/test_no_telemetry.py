"""The web chat sends nothing off the machine: no usage statistics, no version check.

Gradio, left to its defaults, reports to its makers when an app is built and checks PyPI for a newer
version. ``hwqa serve`` runs here as a real process whose proxy settings point at a loopback
listener, so any request it tries to make to another host arrives there instead; a question is
asked and answered through the page's API, and the listener must have seen no connection.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from hwqa.engine import build_index
from hwqa.settings import Settings

SRC = Path(__file__).resolve().parent.parent / "src"


class Listener:
    """A loopback TCP port that counts the connections it is offered, and answers none."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = int(self.sock.getsockname()[1])
        self.seen: list[bytes] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.seen.append(conn.recv(200))
                except OSError:
                    self.seen.append(b"")

    def close(self) -> None:
        self.done.set()
        self.thread.join(timeout=5)
        self.sock.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_web_chat_makes_no_request_to_another_host(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_index(settings)
    listener = Listener()
    proxy = f"http://127.0.0.1:{listener.port}"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HWQA_", "GRADIO_", "HF_"))}
    env.update(
        HWQA_NOTES=str(settings.notes),
        HWQA_INDEX=str(settings.index),
        HWQA_EMBED_BACKEND="hash",
        HWQA_FETCH_LINKS="false",
        PYTHONPATH=f"{SRC}{os.pathsep}{env.get('PYTHONPATH', '')}",
        HTTP_PROXY=proxy,
        HTTPS_PROXY=proxy,
        ALL_PROXY=proxy,
        http_proxy=proxy,
        https_proxy=proxy,
        all_proxy=proxy,
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)  # this test's own client talks to the app directly
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "hwqa.cli", "serve", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, f"hwqa serve exited: {(tmp_path / 'serve.log').read_text()[-2000:]}"
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "hwqa serve did not answer within 120 s"
            time.sleep(0.3)
        from gradio_client import Client

        answer = Client(url, verbose=False).predict("How much does a TPU v3 cost per hour?", api_name="/chat")
        assert "8.00" in str(answer)
        time.sleep(3)  # what a background thread would send, it has sent by now
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        listener.close()
    assert listener.seen == [], f"hwqa serve tried to reach another host: {listener.seen}"
