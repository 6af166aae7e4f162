"""One question must not freeze the chat (issue 35, finding 1).

A question of 30,000 digits took 65 s to read, and while ``hwqa serve`` read it, ``GET /`` took
15.9 s for everyone: the regular expressions ran where they held the interpreter lock. A question
is now refused past ``question_max_chars`` and stopped past ``question_budget_s``; in the web chat
it is read in a worker process, so the server keeps answering meanwhile.
"""

from __future__ import annotations

import subprocess
import threading
import time
import urllib.request
from pathlib import Path

from hwqa.engine import build_index
from hwqa.settings import Settings

from .browser_support import serve_process
from .conftest import run_hwqa

DIGITS = "9" * 30_000  # 65 s to read on the code before the budget


def hwqa_ask(settings: Settings, question: str, **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = run_hwqa(settings, "ask", question, timeout=40, **env)
    return done, time.monotonic() - started


def test_ask_refuses_a_question_past_the_length_cap_in_one_line(settings: Settings) -> None:
    build_index(settings)
    done, seconds = hwqa_ask(settings, DIGITS)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "30,000 characters" in lines[0] and "question_max_chars" in lines[0], done.stderr
    assert seconds < 15


def test_ask_stops_a_slow_question_at_its_budget(settings: Settings) -> None:
    build_index(settings)
    done, seconds = hwqa_ask(settings, DIGITS, HWQA_QUESTION_MAX_CHARS="100000", HWQA_QUESTION_BUDGET_S="1")
    assert seconds < 20, f"the budget of 1 s did not stop it: {seconds:.1f} s"
    if done.returncode:  # stopped (a reader fast enough answers instead: then exit 0)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 1 and len(lines) == 1 and "question_budget_s" in lines[0], done.stderr
    # the next question is read as usual
    ok, _ = hwqa_ask(settings, "How much does a TPU v3 cost per hour?")
    assert ok.returncode == 0 and "$8.00" in ok.stdout, ok.stderr


def test_the_web_chat_serves_others_while_one_question_is_slow(settings: Settings, tmp_path: Path) -> None:
    from gradio_client import Client

    build_index(settings)
    with serve_process(settings, tmp_path, HWQA_QUESTION_MAX_CHARS="100000", HWQA_QUESTION_BUDGET_S="3") as (url, _):
        slow: dict[str, object] = {}

        def ask_slow() -> None:
            started = time.monotonic()
            slow["answer"] = Client(url, verbose=False).predict(DIGITS, api_name="/chat")
            slow["seconds"] = time.monotonic() - started

        thread = threading.Thread(target=ask_slow, daemon=True)
        thread.start()
        time.sleep(1.0)  # the slow question is being read
        pages = []
        for _ in range(4):
            started = time.monotonic()
            with urllib.request.urlopen(url, timeout=60) as response:
                assert response.status == 200
            pages.append(time.monotonic() - started)
            time.sleep(0.3)
        started = time.monotonic()
        other = Client(url, verbose=False).predict("How much does a TPU v3 cost per hour?", api_name="/chat")
        other_seconds = time.monotonic() - started
        thread.join(60)
        assert not thread.is_alive(), "the slow question never finished"
        assert max(pages) < 5.0, f"GET / took {max(pages):.1f} s while one question was slow"
        assert "$8.00" in str(other) and other_seconds < 20, (other, other_seconds)
        assert float(str(slow["seconds"])) < 25, slow
        answer = str(slow["answer"])
        assert "question_budget_s" in answer or "Traceback" not in answer, answer
        # and the question after it is read by a fresh worker
        again = Client(url, verbose=False).predict("How much does a TPU v3 cost per hour?", api_name="/chat")
        assert "$8.00" in str(again)
