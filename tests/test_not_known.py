"""A note that says it does not know yet ("haven't benchmarked ViTPose yet", "no price anywhere yet") does not cover
a question asking that number: the answer says so and quotes it, never as if the note had answered. A yes/no
question about it ("did I try ViTPose?") is answered by the same line."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from .conftest import ask_json, index_notes_once, point_cli_at_folder

runner = CliRunner()

POSE = """---
title: Pose estimation
date: 2025-07-01
---

# Pose estimation

## ViTPose

ViTPose on the workstation: haven't benchmarked ViTPose yet, supposedly better on feet.

## Desk box

The DGX Spark desk box was announced at GTC, no price anywhere yet.
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_notes_once(tmp_path_factory, "notknown", {"pose.md": POSE})


def test_a_number_the_notes_say_they_have_not_measured_is_not_covered(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    point_cli_at_folder(monkeypatch, built)
    data = ask_json("vitpose benchmark fps on the workstation?")
    assert data["covered"] is False, data["answer"]
    assert data["answer"].startswith("Your notes don't have that yet:"), data["answer"]
    assert "haven't benchmarked ViTPose yet" in data["answer"]
    data = ask_json("what does the dgx spark desk box cost?")
    assert data["covered"] is False and "no price anywhere yet" in data["answer"], data["answer"]


def test_a_yes_no_question_about_it_is_answered_by_the_same_line(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    point_cli_at_folder(monkeypatch, built)
    data = ask_json("did i benchmark vitpose on the workstation?")
    assert data["covered"] is True and "haven't benchmarked ViTPose yet" in data["answer"], data["answer"]
