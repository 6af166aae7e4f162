"""Money questions whose numbers the notes give: the total of something they describe with its rate and its length
("rented an L4 at $0.52/hr, the whole render took about 6.5 hrs"), and what a budget they name buys ("put aside $200
for cloud rendering this quarter"). Each answer says which of its numbers came from the notes."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from .conftest import ask_json, index_notes_once, point_cli_at_folder

runner = CliRunner()

JOBS = """---
title: Client jobs
tags: ["cloud"]
date: 2025-06-01
---

# Client jobs

## Render for the museum

* rented an L4 on vast at $0.52/hr for the museum walkthrough render, the whole render took about 6.5 hrs.
* [Lambda](https://lambdalabs.com/) - A100 80G is $1.29/hr on-demand.

## Money

* put aside $200 for cloud rendering this quarter.

## Field kit

* extra SD cards are $24 each, the 128GB ones.
* card reader $15.

## Second box parts

* used 2080 Ti $350, 64GB ram $120, 2TB ssd $99
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_notes_once(tmp_path_factory, "described", {"jobs.md": JOBS})


@pytest.fixture
def notes(built: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    point_cli_at_folder(monkeypatch, built)
    return built


def ask(question: str) -> str:
    return str(ask_json(question)["answer"])


def test_the_total_of_a_run_the_notes_describe_takes_its_length_from_the_note(notes: Path) -> None:
    answer = ask("what did the museum walkthrough render come to")
    assert "6.5 h (as your note says) × $0.52/hour = **$3.38**" in answer, answer


def test_a_price_lookup_is_no_total_and_a_duration_asked_wins_over_the_notes(notes: Path) -> None:
    assert "×" not in ask("how much is an a100 on lambda")
    assert "10 h × $0.52/hour = **$5.20**" in ask("what would 10 hrs on the l4 cost")


def test_a_budget_the_notes_name_is_what_the_calculator_works_with_and_the_answer_says_so(notes: Path) -> None:
    answer = ask("how many a100 hours does my rendering money for the quarter get me")
    assert answer.startswith("Using the $200.00 your notes give"), answer
    assert "put aside $200 for cloud rendering this quarter" in answer
    assert "| 155 |" in answer or "155.0" in answer, answer
    stated = ask("how many a100 hours does $100 of my rendering money get me")
    assert "Using the $200.00" not in stated


def test_several_priced_things_asked_together_are_summed_with_their_counts(notes: Path) -> None:
    answer = ask("two extra sd cards and the card reader together?")
    assert "2 × $24.00" in answer and "$15.00" in answer and "= **$63.00**" in answer, answer


def test_the_total_of_a_line_of_prices_is_every_price_on_it(notes: Path) -> None:
    answer = ask("what did the second box parts come to in total")
    assert "$350.00 + $120.00 + $99.00 = **$569.00**" in answer, answer
    assert "+" not in ask("how much is the card reader")


def test_what_does_that_run_asks_money_for_more_of_a_thing_the_notes_price(notes: Path) -> None:
    answer = ask("if i get 2 more of those sd cards what does that run")
    assert "2 × $24.00 = **$48.00**" in answer, answer
