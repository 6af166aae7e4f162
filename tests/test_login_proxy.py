"""The login throttle keys on the socket's peer, not on what a request says (issue 35, finding 3).

With ``HWQA_AUTH`` set, 300 wrong passwords each with another ``X-Forwarded-For`` from 127.0.0.1
were all checked (0 × 429): uvicorn believed the header from loopback by default. And anyone
behind the same proxy could lock the real user out for 10 minutes by guessing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hwqa.ui.security import LOGIN_FREE_FAILURES, LOGIN_MAX_DELAY_S, USER_FREE_FAILURES, USER_MAX_DELAY_S, LoginThrottle
from tests.browser_support import App
from tests.test_web_guard import _multipart, _post


def login(app: App, password: str, forwarded_for: str | None = None) -> tuple[int, dict[str, str], float]:
    body, content_type = _multipart({"username": "me", "password": password})
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    started = time.monotonic()
    status, reply, _ = _post(app.url + "/login", body, content_type, **headers)
    return status, reply, time.monotonic() - started


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    running = App(tmp_path, auth="me:secret")
    yield running
    running.stop()


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[App]:
    running = App(tmp_path, auth="me:secret", trusted_proxies="127.0.0.1")
    yield running
    running.stop()


def test_a_forwarded_for_header_does_not_make_a_new_client(app: App) -> None:
    statuses = [login(app, f"wrong{i}", forwarded_for=f"198.51.100.{i + 1}")[0] for i in range(LOGIN_FREE_FAILURES + 5)]
    assert statuses[:LOGIN_FREE_FAILURES] == [400] * LOGIN_FREE_FAILURES
    assert set(statuses[LOGIN_FREE_FAILURES:]) == {429}, statuses


def test_behind_a_trusted_proxy_each_client_waits_alone(proxied: App) -> None:
    for i in range(LOGIN_FREE_FAILURES):
        assert login(proxied, f"wrong{i}", forwarded_for="203.0.113.7")[0] == 400
    assert login(proxied, "wrong-again", forwarded_for="203.0.113.7")[0] == 429
    assert login(proxied, "secret", forwarded_for="203.0.113.7")[0] == 429  # the guesser waits
    assert login(proxied, "secret", forwarded_for="203.0.113.8")[0] == 200  # the real user does not


def test_guessing_from_many_addresses_slows_every_check_but_the_right_password_gets_in(proxied: App) -> None:
    seconds = []
    for i in range(USER_FREE_FAILURES + 4):
        status, _, took = login(proxied, f"wrong{i}", forwarded_for=f"192.0.2.{i + 1}")
        assert status == 400, (i, status)
        seconds.append(took)
    assert seconds[-1] >= 1.5, f"the login checks were not slowed: {seconds}"
    status, _, took = login(proxied, "secret", forwarded_for="192.0.2.250")
    assert status == 200 and took <= USER_MAX_DELAY_S + 4, (status, took)


def test_a_client_never_waits_longer_than_a_minute() -> None:
    now = [1000.0]
    throttle = LoginThrottle(clock=lambda: now[0])
    for _ in range(LOGIN_FREE_FAILURES + 40):
        now[0] += throttle.wait("10.0.0.1")
        throttle.failed("10.0.0.1")
    assert throttle.wait("10.0.0.1") == LOGIN_MAX_DELAY_S <= 60
    assert throttle.user_delay() == USER_MAX_DELAY_S <= 10
