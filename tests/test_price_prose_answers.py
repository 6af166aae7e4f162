"""A budget question over a note that states its prices in a sentence, in the owner's style: the
calculator runs on the prices read from the sentence, cites it, and quotes the note's own advice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hwqa.cli import app

from .conftest import point_cli_at_folder, write_note

runner = CliRunner()

PRICE_SENTENCE = (
    "Per hour, TPUs cost about 5x what GPUs do (the Nvidia Tesla P100 GPU at $1.46/hr vs the Google TPU v3 "
    "at $8.00/hr vs $4.50/hr for the TPUv2, all with “on-demand” access on GCP)."
)
FIRST_ITEM = (
    "* PyTorch reaches a TPU through [PyTorch/XLA](https://github.com/pytorch/xla), so the TPUv3-8 works like a big GPU. "
    "A TPUv3-8, which Colab hands out for free, delivers compute equivalent to 8 V100 Tesla GPU. " + PRICE_SENTENCE
)
SECOND_ITEM = (
    "* I reach for CPUs first for their versatility and their memory. GPUs are the better choice when a data science "
    "workflow must simply go faster, and TPUs are best when the one goal is training a model as fast as possible."
)
OWNER_NOTE = f"""
---
title: Renting accelerators
tags: ["machine learning", "hardware"]
date: 2021-11-02 09:12:00
---

# Renting accelerators

## TPU or GPU

{FIRST_ITEM}
{SECOND_ITEM}
"""
OTHER_NOTE = """
---
title: Inference boxes
tags: [inference]
---
# Inference boxes

* For serving small models, GPUs with 24 GB are the sweet spot and should be preferred over TPUs.
"""


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    notes = tmp_path / "notes"
    write_note(notes, "hardware-notes.md", OWNER_NOTE)
    point_cli_at_folder(monkeypatch, notes)
    return notes


def ask(question: str, *flags: str) -> dict[str, Any]:
    result = runner.invoke(app, ["ask", question, "--json", *flags])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_a_budget_question_over_prices_in_a_sentence_runs_the_calculator_and_cites_the_sentence(owner: Path) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    data = ask("TPU or GPU for my budget of $100?")
    [call] = data["tool_calls"]
    assert call["name"] == "price_calculator" and call["arguments"]["budget_usd"] == 100
    options = {o["hardware"]: o for o in call["result"]["options"]}
    assert {name: round(o["hours"], 2) for name, o in options.items()} == {"TPU v3": 12.5, "TPUv2": 22.22, "P100": 68.49}
    assert options["TPU v3"]["v100_hours"] == pytest.approx(100)  # "equivalent to 8 V100": 12.5 h x 8
    assert call["result"]["recommendation"]["hardware"] == "TPU v3"
    answer = data["answer"]
    assert "| 1 | TPU v3 | $8.00 | 12.5 | 100 | GCP |" in answer and "22.2" in answer and "68.5" in answer
    assert "**Recommendation:** TPU v3 (GCP) — most V100-equivalent hours for $100" in answer
    first = data["citations"][0]
    assert first["source"] == "hardware-notes.md" and first["text"].splitlines()[0] == PRICE_SENTENCE
    assert "Prices from your notes [1]." in answer
    assert "TPUs are best when the one goal is training a model as fast as possible" in answer
    assert ask("TPU or GPU for my budget of $500?")["answer"] != answer  # the budget is never dropped


def test_caveats_come_from_the_notes_the_filter_admits_found_by_the_question(owner: Path) -> None:
    write_note(owner, "inference.md", OTHER_NOTE)
    assert runner.invoke(app, ["index"]).exit_code == 0
    data = ask("Should I rent a GPU or a TPU with $100?")
    everything = data["answer"]
    # The other note's advice is found by the question, in its own words, and cited (as an answer or a
    # caveat); nothing quoted is repeated.
    assert everything.count("For serving small models, GPUs with 24 GB are the sweet spot") == 1
    assert "inference.md" in {c["source"] for c in data["citations"]}
    assert everything.count("TPUs are best when the one goal") == 1
    only_mine = ask("Should I rent a GPU or a TPU with $100?", "--note", "hardware-notes.md")
    assert "sweet spot" not in only_mine["answer"]
    assert {c["source"] for c in only_mine["citations"]} == {"hardware-notes.md"}
