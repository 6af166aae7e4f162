"""The web chat sends nothing off the machine: no usage statistics, no version check.

Gradio, left to its defaults, reports to its makers when an app is built and asks them for its
newest version. ``hwqa serve`` runs here as a real process whose proxy settings point at a loopback
listener, so any request it tries to make to another host arrives there instead; a question is
asked and answered through the page's API, and the listener must have seen no connection.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from hwqa.engine import build_index
from hwqa.settings import Settings

from .browser_support import serve_process
from .helpers_http import RawServer


def _read(conn: socket.socket, server: RawServer) -> None:
    server.read_head(conn)


def test_the_web_chat_makes_no_request_to_another_host(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_index(settings)
    for name in [k for k in os.environ if k.startswith(("GRADIO_", "HF_"))]:
        monkeypatch.delenv(name)  # the server runs with Gradio's and the hub's defaults
    with RawServer(_read) as listener:
        proxy = listener.url("")
        proxies = {name: proxy for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")}
        for name in proxies:
            monkeypatch.delenv(name, raising=False)  # this test's own client talks to the app directly
        with serve_process(settings, tmp_path, **proxies) as (url, _):
            from gradio_client import Client

            answer = Client(url, verbose=False).predict("How much does a TPU v3 cost per hour?", api_name="/chat")
            assert "8.00" in str(answer)
            time.sleep(3)  # what a background thread would send, it has sent by now
        assert (listener.connections, listener.heads) == (0, []), f"hwqa serve tried to reach another host: {listener.heads}"
