"""Load: concurrent chat sessions against a launched web chat while the index is rebuilt twice.

``hwqa serve`` runs as a real process on a free loopback port (hash embedder, a small notes
folder); N sessions, each its own gradio_client, ask questions for T seconds; meanwhile the test
rebuilds the index twice through ``build_index`` on the same folder, which the running app picks up.
Figures (requests, errors, p50/p95 latency, queue rejections, resident memory at start, after
warm-up and at the end) are printed in the test log.

Sizes come from ``HWQA_SOAK_SESSIONS`` / ``HWQA_SOAK_SECONDS``: 10 x 15 s in ``make test``,
50 x 60 s under ``make soak``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hwqa.engine import build_index
from hwqa.settings import Settings

from .browser_support import serve_process
from .conftest import write_note

pytestmark = pytest.mark.soak

SESSIONS = int(os.environ.get("HWQA_SOAK_SESSIONS", "10"))
SECONDS = float(os.environ.get("HWQA_SOAK_SECONDS", "15"))
REQUEST_TIMEOUT = 120.0
QUESTIONS = [
    "How much does a TPU v3 cost per hour?",
    "What hardware does a Google Colab TPU runtime have?",
    "When is a CPU the better choice?",
    "TPU or GPU for my budget of $500?",
    "Does PyTorch run on a TPU?",
]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.fixture
def server(settings: Settings, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    build_index(settings)
    with serve_process(settings, tmp_path) as served:
        yield served


def chat_endpoint(client: Any) -> str:
    """The web chat's endpoint, found by what it is rather than by a fixed name."""
    info = client.view_api(print_info=False, return_format="dict")
    named: dict[str, Any] = info.get("named_endpoints", {})

    def takes_message(spec: dict[str, Any]) -> bool:
        params = spec.get("parameters", [])
        return bool(params) and params[0].get("parameter_name") in ("message", "question", "text", "msg")

    for name in ("/chat", "/respond", "/ask"):
        if name in named:
            return name
    candidates = [n for n, spec in named.items() if "chat" in n.lower() and takes_message(spec)]
    candidates += [n for n, spec in named.items() if takes_message(spec)]
    assert candidates, f"no chat endpoint among {sorted(named)}"
    return candidates[0]


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    rejections: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, seconds: float, error: str | None = None, rejected: bool = False) -> None:
        with self.lock:
            self.latencies.append(seconds)
            if rejected:
                self.rejections += 1
            elif error:
                self.errors.append(error)


def session(url: str, endpoint: str, stop: threading.Event, figures: Figures, offset: int) -> None:
    from gradio_client import Client

    try:
        client = Client(url, verbose=False, download_files=False, analytics_enabled=False)
    except Exception as exc:  # a session that cannot even connect is an error, not a crash of the test
        figures.add(0.0, f"connect: {type(exc).__name__}: {exc}")
        return
    i = offset
    while not stop.is_set():
        question = QUESTIONS[i % len(QUESTIONS)]
        i += 1
        started = time.perf_counter()
        try:
            result = client.submit(question, api_name=endpoint).result(timeout=REQUEST_TIMEOUT)
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            figures.add(time.perf_counter() - started, message, rejected="queue is full" in message.lower())
            continue
        text = result if isinstance(result, str) else str(result)
        failed = text.startswith("⚠️") or ("[" not in text and "notes don't cover" not in text)
        figures.add(time.perf_counter() - started, f"answer: {text[:200]}" if failed else None)
    close = getattr(client, "close", None)
    if callable(close):
        close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def test_chat_sessions_under_load_while_the_index_is_rebuilt(
    server: tuple[str, subprocess.Popen[bytes]], settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    url, proc = server
    from gradio_client import Client

    probe = Client(url, verbose=False, download_files=False, analytics_enabled=False)
    endpoint = chat_endpoint(probe)
    first = probe.predict(QUESTIONS[0], api_name=endpoint)
    assert "[1]" in str(first), f"the chat answers with a citation before the load starts: {first!r}"
    rss_start = rss_mb(proc.pid)

    figures = Figures()
    stop = threading.Event()
    threads = [threading.Thread(target=session, args=(url, endpoint, stop, figures, i), daemon=True) for i in range(SESSIONS)]
    started = time.monotonic()
    for t in threads:
        t.start()
    # warm-up: a quarter of the run; then two rebuilds that change the notes, spread over the rest
    time.sleep(SECONDS / 4)
    rss_warm = rss_mb(proc.pid)
    rebuilds = []
    for n in (1, 2):
        write_note(settings.notes, f"load{n}.md", f"# Load note {n}\n\nAn A100 GPU has 40 GB or 80 GB of memory ({n}).\n")
        report = build_index(settings)
        rebuilds.append(report.chunks_embedded)
        time.sleep(max(0.0, started + SECONDS * (0.25 + 0.35 * n) - time.monotonic()))
    time.sleep(max(0.0, started + SECONDS - time.monotonic()))
    stop.set()
    for t in threads:
        t.join(timeout=REQUEST_TIMEOUT + 30)
    elapsed = time.monotonic() - started
    rss_end = rss_mb(proc.pid)
    after = probe.predict("How much memory does an A100 GPU have?", api_name=endpoint)

    requests = len(figures.latencies)
    ok = figures.latencies
    growth = (rss_end - rss_warm) / rss_warm * 100
    lines = [
        f"load: {SESSIONS} sessions x {SECONDS:g} s against hwqa serve ({endpoint}), 2 rebuilds during the run",
        f"load: requests {requests} ({requests / elapsed:.1f}/s), errors {len(figures.errors)}, "
        f"queue rejections {figures.rejections}",
        f"load: latency p50 {statistics.median(ok):.2f} s, p95 {percentile(ok, 0.95):.2f} s, max {max(ok):.2f} s",
        f"load: RSS start {rss_start:.0f} MB, after warm-up {rss_warm:.0f} MB, end {rss_end:.0f} MB "
        f"({growth:+.1f}% after warm-up)",
    ]
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert all(t.is_alive() is False for t in threads), "every session finished"
    assert rebuilds[0] > 0 and rebuilds[1] > 0, "both rebuilds changed the index"
    assert requests >= SESSIONS, "every session got at least one answer"
    assert figures.errors == [], f"{len(figures.errors)} errors, first: {figures.errors[:3]}"
    assert figures.rejections == 0
    assert growth <= 10.0, "\n".join(lines)
    assert "A100" in str(after) or "80 GB" in str(after), "the app answers from the rebuilt index"
    assert proc.poll() is None, "the server is still up"
