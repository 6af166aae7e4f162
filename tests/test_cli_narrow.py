"""The CLI in an 80-column terminal (a real pseudo-terminal) and its words: every price whole, tables
that wrap their text, plurals, a filter that matches no note, whole devices (issue 36)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.cli import app
from hwqa.settings import Settings
from tests.conftest import built_hash_index, point_cli_at, write_note
from tests.test_cli_terminal import in_terminal

runner = CliRunner()
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
PRICES = {  # hardware -> (provider, $/h, speed): 13 options, one more than `hwqa prices` shows at first
    "TPU v3-8": ("GCP", 8.0, 8.0),
    "TPU v2-8": ("GCP", 4.5, 4.0),
    "V100": ("GCP", 2.48, 1.0),
    "P100": ("GCP", 1.46, 0.5),
    "A100 40GB": ("AWS", 4.1, 3.0),
    "A100 80GB": ("Lambda Labs", 12.34, 3.2),
    "H100 SXM": ("CoreWeave", 11.06, 6.0),
    "L4": ("GCP", 0.71, 0.9),
    "T4": ("AWS", 0.53, 0.4),
    "K80": ("Azure", 0.9, 0.2),
    "A10G": ("AWS", 1.21, 1.1),
    "RTX 4090": ("Vast.ai Community Cloud", 0.44, 2.1),
    "MI250": ("Oracle Cloud Infrastructure", 10.52, 4.2),
}
TABLE = "\n".join(
    f"| {hw} | {p} | {'tpu' if hw.startswith('TPU') else 'gpu'} | {usd:.2f} | {speed} | 16 | on-demand | 2026-10 |"
    for hw, (p, usd, speed) in PRICES.items()
)
NOTE = f"""
---
title: Cloud prices
tags: [prices, cloud]
---
# Cloud prices

| hardware | provider | type | usd_per_hour | speed | memory_gb | pricing | as_of |
|---|---|---|---|---|---|---|---|
{TABLE}
"""


@pytest.fixture
def wide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    write_note(tmp_path / "notes", "prices.md", NOTE)
    write_note(tmp_path / "notes", "tpu.md", "# TPU\n\nA TPU v3-8 has 8 cores and runs PyTorch through PyTorch/XLA.\n")
    settings = built_hash_index(tmp_path)
    point_cli_at(monkeypatch, settings)
    return settings


def at_80_columns(args: list[str], settings: Settings) -> str:
    """What ``hwqa ARGS`` shows in a terminal 80 columns wide (escape codes removed)."""
    return in_terminal(args, settings, columns=80).replace("\r\n", "\n")


def test_the_price_table_at_80_columns_shows_every_price_and_header_whole(wide: Settings) -> None:
    screen = at_80_columns(["prices"], wide)
    assert "…" not in screen, screen  # nothing cut
    assert all(len(line.rstrip()) <= 80 for line in screen.splitlines()), screen
    for _hw, (_, usd, speed) in PRICES.items():
        assert re.search(rf"(?<![\d.])\${usd:.2f}(?!\d)", screen), (usd, screen)
        assert re.search(rf"(?<![\d.])\${usd / speed:.2f}(?!\d)", screen), (usd / speed, screen)
    assert "$/V100-h" in screen


def test_a_budget_at_80_columns_says_how_to_see_the_option_left_out(wide: Settings) -> None:
    screen = at_80_columns(["prices", "--budget", "500"], wide)
    assert "…" not in screen.replace("… and 1 more option", "")
    more = next(line for line in screen.splitlines() if "more option" in line)
    assert "1 more option" in more and "--all" in more, more
    shown = [usd for _, usd, _ in PRICES.values() if f"${usd:.2f}" in screen]
    assert len(shown) == 12, screen  # every option shown, its price whole


def test_sources_stand_apart_from_the_answer(wide: Settings) -> None:
    screen = at_80_columns(["ask", "How many cores does a TPU v3-8 have?"], wide)
    lines = [line.rstrip() for line in screen.splitlines()]
    at = next(i for i, line in enumerate(lines) if line.strip() == "Sources")
    assert lines[at - 1] == "", screen  # a blank line before them


def test_status_counts_in_the_singular(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_note(tmp_path / "notes", "only.md", "# Only\n\nA P100 costs $1.46 per hour on GCP.\n")
    point_cli_at(monkeypatch, built_hash_index(tmp_path))
    shown = runner.invoke(app, ["status"]).stdout
    assert "1 note," in shown and "1 passage," in shown and "1 price row " in shown, shown
    assert not re.search(r"\b1 (notes|passages|price rows|statements)\b", shown), shown


def test_a_tag_no_note_has_is_said_and_exits_1(wide: Settings) -> None:
    result = runner.invoke(app, ["ask", "--tag", "nosuchtag", "What is a TPU?"])
    assert result.exit_code == 1
    assert "no note has the tag “nosuchtag”" in result.stderr and "prices" in result.stderr  # the tags there are
    assert "index is empty" not in result.output and len(result.stderr.strip().splitlines()) == 1


def test_two_and_a_half_devices_are_refused_in_one_line(wide: Settings) -> None:
    result = runner.invoke(app, ["prices", "--hours", "10", "--devices", "2.5"])
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: --devices takes a whole number, 1 or more (you typed 2.5)"
    assert runner.invoke(app, ["prices", "--hours", "10", "--devices", "2"]).exit_code == 0


def test_a_preemptible_price_left_out_names_the_flag_that_counts_it(wide: Settings, tmp_path: Path) -> None:
    spot = NOTE.replace(
        "| V100 | GCP | gpu | 2.48 | 1.0 | 16 | on-demand |", "| V100 | GCP | gpu | 0.74 | 1.0 | 16 | preemptible |"
    )
    write_note(wide.notes, "prices.md", spot)
    assert runner.invoke(app, ["index"]).exit_code == 0
    shown = runner.invoke(app, ["prices", "--budget", "100"]).stdout
    assert "--preemptible" in shown and "allow preemptible capacity" not in shown, shown
