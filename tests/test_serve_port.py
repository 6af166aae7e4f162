"""``make run PORT=… HOST=…``, and a busy port said in one line before anything loads (issue 34, item 3).

With port 7860 taken, ``hwqa serve`` loaded the model first, then printed uvicorn's raw
``ERROR: [Errno 98]`` line and "try --port", which ``make run`` did not take.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from hwqa.build.builder import build_index
from hwqa.settings import Settings

REPO = Path(__file__).resolve().parent.parent


def test_a_busy_port_is_one_line_and_exit_1_before_the_model_loads(settings: Settings) -> None:
    build_index(settings)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        environ = {k: v for k, v in os.environ.items() if not k.startswith("HWQA_")}
        # the real embedding model: a server that loaded it before noticing the port would take seconds
        environ |= {"HWQA_NOTES": str(settings.notes), "HWQA_INDEX": str(settings.index), "HWQA_FETCH_LINKS": "false"}
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "hwqa.cli", "serve", "--build", "--port", str(port)],
            env=environ,
            capture_output=True,
            text=True,
            timeout=120,
        )
        seconds = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"port {port} on 127.0.0.1 is in use" in lines[0] and f"make run PORT={port + 1}" in lines[0], lines
    assert "loading" not in done.stderr and "Indexing" not in done.stderr
    assert seconds < 10, f"{seconds:.1f} s: something was loaded before the port was checked"


def test_make_run_takes_port_and_host() -> None:
    done = subprocess.run(
        ["make", "-n", "run", "PORT=7999", "HOST=127.0.0.2"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    serve = [line for line in done.stdout.splitlines() if " serve" in line]
    assert serve and serve[-1].endswith("serve --build --port 7999 --host 127.0.0.2"), done.stdout
    plain = subprocess.run(["make", "-n", "run"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert [line for line in plain.stdout.splitlines() if line.endswith("hwqa serve --build")], plain.stdout
