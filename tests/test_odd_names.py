"""A file name that is not UTF-8 must not stop every build (issue 35, finding 2).

``notes/bad\\xffname.md`` made every ``hwqa index`` fail with a 55-line ``UnicodeEncodeError``
(nothing indexed), killed ``hwqa index --watch``, and left ``HWQA_WATCH=true hwqa serve`` up but
silent, never indexing another edit. Now such a file is skipped with its reason, its name shown
with ``\\x`` escapes, and the watcher, when ``watchfiles`` stops on the name, is started again
and the web chat says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from hwqa.engine import build_index
from hwqa.settings import Settings

from .browser_support import serve_process
from .conftest import run_hwqa, write_note

BAD = os.fsdecode(b"bad\xffname.md")  # the file system's bytes, as Python names them


def cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    return run_hwqa(settings, *args, HWQA_FETCH_LINKS="false")


def test_a_note_whose_name_is_not_utf8_is_skipped_with_its_reason(settings: Settings) -> None:
    (settings.notes / BAD).write_text("# Bad name\n\nThe Zorblax 9000 has 12 GB of memory.\n", encoding="utf-8")
    (settings.notes / os.fsdecode(b"folder\xfe")).mkdir()
    (settings.notes / os.fsdecode(b"folder\xfe") / "inside.md").write_text("# Inside\n\nText.\n", encoding="utf-8")
    done = cli(settings, "index")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "bad\\xffname.md: skipped: its name is not valid UTF-8" in done.stderr, done.stderr
    assert "folder\\xfe/inside.md: skipped" in done.stderr, done.stderr
    # the other notes are indexed and answer; the skipped files are listed, escaped, in the JSON report
    asked = cli(settings, "ask", "How much does a TPU v3 cost per hour?")
    assert asked.returncode == 0 and "$8.00" in asked.stdout, asked.stderr
    report = json.loads(cli(settings, "index", "--json").stdout)
    assert {s["note"] for s in report["notes_skipped"]} >= {"bad\\xffname.md", "folder\\xfe/inside.md"}, report


def test_the_web_chat_watcher_survives_the_name_and_says_so(settings: Settings, tmp_path: Path) -> None:
    from gradio_client import Client

    build_index(settings)
    with serve_process(settings, tmp_path, HWQA_WATCH="true", HWQA_WATCH_DEBOUNCE_MS="200") as (url, _):
        time.sleep(1.0)  # the watcher is watching
        (settings.notes / BAD).write_text("# Bad\n\nbad\n", encoding="utf-8")
        time.sleep(1.5)
        write_note(settings.notes, "late.md", "# Late note\n\nThe Quuxtron 77 accelerator has 48 GB of memory.\n")
        client = Client(url, verbose=False)
        deadline = time.monotonic() + 60
        answer = ""
        while time.monotonic() < deadline:
            answer = str(client.predict("How much memory does the Quuxtron 77 have?", api_name="/chat"))
            if "48 GB" in answer:
                break
            time.sleep(1.0)
        assert "48 GB" in answer, f"the edit after the odd name was never indexed: {answer}"
        status = str(client.predict(api_name="/status"))
        assert "notes watcher stopped" in status and "restarted" in status, status
        log = (tmp_path / "serve.log").read_text(encoding="utf-8", errors="replace")
        assert "notes watcher stopped" in log and "Traceback" not in log, log[-3000:]
