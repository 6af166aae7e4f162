"""What the served web chat accepts: no file uploads from anywhere, and a login that is exact and
throttled per client (a real server on a loopback port, driven over HTTP)."""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest

from hwqa.settings import Settings
from hwqa.ui.security import LOGIN_FREE_FAILURES, LOGIN_MAX_DELAY_S, LoginThrottle
from tests.browser_support import App


def _multipart(fields: dict[str, str | bytes], boundary: str = "hwqa-test-boundary") -> tuple[bytes, str]:
    parts = []
    for name, value in fields.items():
        data = value if isinstance(value, bytes) else value.encode()
        filename = f'; filename="{name}.bin"' if isinstance(value, bytes) else ""
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"{filename}\r\n\r\n'.encode() + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _post(url: str, body: bytes, content_type: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = Request(url, data=body, method="POST", headers={"Content-Type": content_type, **headers})
    try:
        with urlopen(request, timeout=60) as response:
            return int(response.status), dict(response.headers), response.read()
    except HTTPError as exc:
        return int(exc.code), dict(exc.headers), exc.read()


def _files_holding(marker: bytes, folder: Path) -> list[Path]:
    found = []
    for top, _, names in os.walk(folder):
        for name in names:
            path = Path(top) / name
            try:
                if marker in path.read_bytes():
                    found.append(path)
            except OSError:
                continue
    return found


@pytest.fixture(scope="module")
def open_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    running = App(tmp_path_factory.mktemp("guard"))
    yield running
    running.stop()


def test_a_cross_origin_upload_is_refused_and_writes_nothing(open_app: App) -> None:
    marker = secrets.token_hex(16).encode()
    payload = marker + os.urandom(32_000) + marker  # small enough to be sent whole before the refusal
    body, content_type = _multipart({"files": payload})
    upload_dirs = {Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio")}
    for route in ("/gradio_api/upload?upload_id=x", "/gradio_api/upload", "/gradio_api/process_recording"):
        status, _, _ = _post(open_app.url + route, body, content_type, Origin="http://evil.example")
        assert status == 403, route
        status, _, _ = _post(open_app.url + route, body, content_type)  # same origin: the chat needs no upload either
        assert status == 403, route
    status, _, _ = _post(open_app.url + "/gradio_api/upload", payload, "application/octet-stream", Origin="http://evil.example")
    assert status == 403
    time.sleep(0.5)  # Gradio moves uploads to its cache in a background task
    for folder in upload_dirs:
        assert not _files_holding(marker, folder), "an upload was written to disk"
    # the chat itself still works
    with urlopen(open_app.url + "/config", timeout=60) as response:
        assert response.status == 200


@pytest.fixture(scope="module")
def login_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    running = App(tmp_path_factory.mktemp("login"), auth="me:secret")
    yield running
    running.stop()


def _login(app: App, user: str, password: str) -> tuple[int, dict[str, str]]:
    body, content_type = _multipart({"username": user, "password": password})
    status, headers, _ = _post(app.url + "/login", body, content_type)
    return status, headers


def test_user_names_are_compared_exactly(login_app: App) -> None:
    assert _login(login_app, "me ", "secret")[0] == 400  # Gradio would strip the space and let it in
    assert _login(login_app, " me", "secret")[0] == 400
    assert _login(login_app, "ME", "secret")[0] == 400
    assert _login(login_app, "me", "secret")[0] == 200


def test_the_eleventh_wrong_password_in_a_minute_is_delayed(login_app: App) -> None:
    assert _login(login_app, "me", "secret")[0] == 200  # a right login clears what the test before left
    started = time.monotonic()
    for i in range(LOGIN_FREE_FAILURES):
        assert _login(login_app, "me", f"wrong{i}")[0] == 400, i
    status, headers = _login(login_app, "me", "wrong-again")
    assert time.monotonic() - started < 60, "the wrong logins took over a minute; the test proves nothing"
    assert status == 429 and int(headers["retry-after"]) >= 1
    # while the client must wait, even the right password is not checked
    status, headers = _login(login_app, "me", "secret")
    assert status == 429
    time.sleep(int(headers["retry-after"]) + 0.2)
    assert _login(login_app, "me", "secret")[0] == 200


def test_the_delay_grows_with_each_wrong_login_and_is_forgotten_after_a_right_one() -> None:
    now = [1000.0]
    throttle = LoginThrottle(clock=lambda: now[0])
    for _ in range(LOGIN_FREE_FAILURES):
        assert throttle.wait("10.0.0.1") == 0
        throttle.failed("10.0.0.1")
    waits = []
    for _ in range(12):
        waits.append(throttle.wait("10.0.0.1"))
        now[0] += waits[-1]
        throttle.failed("10.0.0.1")
    assert waits[:4] == [1.0, 2.0, 4.0, 8.0] and waits[-1] == LOGIN_MAX_DELAY_S
    assert throttle.wait("10.0.0.2") == 0, "another client is not slowed down"
    throttle.succeeded("10.0.0.1")
    assert throttle.wait("10.0.0.1") == 0


def test_a_full_queue_is_said_in_the_chat_and_the_question_kept(settings: Settings) -> None:
    from hwqa.build.builder import build_index
    from hwqa.engine import Engine
    from hwqa.ui.chat import BUSY, WORKING, ChatController

    build_index(settings)
    full = [True]
    chat = ChatController(Engine.load(settings), queue_full=lambda: full[0])
    request: Any = SimpleNamespace(session_hash="one-browser")
    question = "How much does a TPU v3 cost per hour?"
    box, shown, *_ = chat.enqueue(question, [], [], [], False, request)
    assert box == question, "the question stays in the box to send again"
    assert shown[-1] == {"role": "assistant", "content": BUSY} and "try again in a moment" in BUSY
    assert list(chat.drain(shown, request)) != [] and chat._session(request).pending == []  # nothing was queued
    full[0] = False
    box, shown, *_ = chat.enqueue(question, [], [], [], False, request)
    assert box != question and shown[-1]["content"] == WORKING  # the box is left as the page emptied it when sent


def test_queue_full_reads_the_apps_queue(settings: Settings) -> None:
    from hwqa.build.builder import build_index
    from hwqa.engine import Engine
    from hwqa.ui import build_app
    from hwqa.ui.security import queue_full

    build_index(settings)
    demo = build_app(Engine.load(settings))
    assert not queue_full(demo)
    demo.queue(max_size=0)  # a queue that cannot take one more
    assert queue_full(demo)
