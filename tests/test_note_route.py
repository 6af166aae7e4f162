"""The note viewer's route answers odd paths with a clean 4xx (issue 35, finding 8, first item).

``/hwqa/note/x.md%00.png`` answered 500 with a traceback in the server's log: the NUL reached
the file system's path functions.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from hwqa.engine import build_index
from hwqa.settings import Settings

from .browser_support import serve_process

ODD = [
    "x.md%00.png",
    "tpu.md%00",
    "%00",
    "hardware%2F..%2F..%2Fetc%2Fpasswd%00.md",
    "%ff%fe.md",
    "a" * 5000 + ".md",
    "tpu.md%0a.png",
]


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_odd_note_paths_are_a_clean_404_with_no_traceback(settings: Settings, tmp_path: Path) -> None:
    build_index(settings)
    with serve_process(settings, tmp_path) as (url, _):
        statuses = {path[:40]: status_of(f"{url}hwqa/note/{path}") for path in ODD}
        assert set(statuses.values()) == {404}, statuses
        assert status_of(f"{url}hwqa/note/tpu.md") == 200  # the viewer itself still works
    log = (tmp_path / "serve.log").read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log and "Exception" not in log, log[-3000:]
