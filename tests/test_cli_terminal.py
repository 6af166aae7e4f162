"""The CLI as a person sees it: in a real pseudo-terminal (rendered Markdown) and piped (plain text).

These run ``python -m hwqa`` as a child process: the pty tests give it a terminal of 100 columns,
the way a person's shell would, and read what reaches the screen.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.cli import app
from hwqa.settings import Settings

runner = CliRunner()
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def _env(settings: Settings, columns: int = 100) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HWQA_")}
    env.update(
        HWQA_NOTES=str(settings.notes),
        HWQA_INDEX=str(settings.index),
        HWQA_EMBED_BACKEND="hash",
        HWQA_FETCH_LINKS="false",
        COLUMNS=str(columns),
        LINES="40",
        TERM="xterm-256color",
    )
    env.pop("NO_COLOR", None)
    return env


def in_terminal(args: list[str], settings: Settings, cwd: Path | None = None, columns: int = 100) -> str:
    """What ``hwqa ARGS`` writes to a terminal ``columns`` wide (escape codes removed)."""
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hwqa", *args], stdin=child, stdout=child, stderr=child, env=_env(settings, columns), cwd=cwd
    )
    os.close(child)
    chunks = []
    while True:
        ready, _, _ = select.select([main], [], [], 120)
        if not ready:
            proc.kill()
            pytest.fail("hwqa wrote nothing for 120 s")
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    assert proc.wait(timeout=60) == 0, b"".join(chunks).decode(errors="replace")
    return ANSI.sub("", b"".join(chunks).decode("utf-8", errors="replace"))


def piped(args: list[str], settings: Settings, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "hwqa", *args], capture_output=True, text=True, env=_env(settings), cwd=cwd, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def built(hash_env: Settings) -> Settings:
    assert runner.invoke(app, ["index"]).exit_code == 0
    return hash_env


def test_ask_in_a_terminal_renders_markdown_and_piped_output_stays_plain(built: Settings, tmp_path: Path) -> None:
    question = "TPU or GPU for my budget of $500?"
    screen = in_terminal(["ask", question], built, tmp_path)
    assert "Recommendation" in screen and "Sources" in screen
    assert "**" not in screen  # bold is shown as bold, not as asterisks
    assert not re.search(r"^\|.*\|$", screen, re.MULTILINE)  # tables are drawn, not pipe-separated source
    text = piped(["ask", question], built, tmp_path)
    assert "\x1b[" not in text  # no escape codes in a file or a pipe
    assert "**Recommendation:**" in text and "| # |" in text.replace("|#|", "| # |")


def test_prices_in_a_terminal_is_a_drawn_table_and_all_shows_every_option(built: Settings, tmp_path: Path) -> None:
    screen = in_terminal(["prices", "--budget", "500", "--preemptible"], built, tmp_path)
    assert "**" not in screen and "TPU v3" in screen
    text = piped(["prices", "--budget", "500", "--no-preemptible", "--all"], built, tmp_path)
    assert "more option" not in text and "\x1b[" not in text


def test_boolean_options_are_flags_and_help_shows_no_value(built: Settings) -> None:
    assert runner.invoke(app, ["prices", "--budget", "500", "--preemptible"]).exit_code == 0
    assert runner.invoke(app, ["prices", "--budget", "500", "--no-preemptible"]).exit_code == 0
    assert runner.invoke(app, ["prices", "--budget", "500", "--preemptible", "true"]).exit_code == 2  # no value
    for command in ("prices", "index", "ask", "links"):
        shown = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"}).stdout
        assert "<bool>" not in shown and "BOOLEAN" not in shown, command


def test_index_counts_links_not_fetched_and_points_to_the_list(hash_env: Settings) -> None:
    (hash_env.notes / "reading.md").write_text(
        "# Reading\n\nSee [one](https://example.org/a), <https://example.org/b> and https://example.com/c.\n", encoding="utf-8"
    )
    result = runner.invoke(app, ["index"])
    assert result.exit_code == 0, result.output
    assert "Indexed 4 notes" in result.stdout
    assert "3 fetching links is turned off" in result.stdout and "hwqa links --failed" in result.stdout
    assert "https://example.org/a" not in result.output  # counted, not listed one by one
    failed = runner.invoke(app, ["links", "--failed"]).stdout
    assert "https://example.org/a" in failed
    tail = failed[failed.index("Not fetched, by reason") :]
    assert re.search(r"3\s+fetching links is turned off", tail)


def test_one_note_is_counted_in_the_singular(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "only.md").write_text("# Only\n\nThe one note about TPUs.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for key, value in {"NOTES": notes, "INDEX": tmp_path / "index", "EMBED_BACKEND": "hash", "FETCH_LINKS": "false"}.items():
        monkeypatch.setenv(f"HWQA_{key}", str(value))
    result = runner.invoke(app, ["index"])
    assert result.exit_code == 0 and "Indexed 1 note:" in result.stdout
