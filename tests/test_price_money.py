"""Money read safely: amounts in a question the calculator cannot use are refused in one line, in the
question's own words, never read as another amount; prices in notes that are not prices (negative, not a
number, absurdly large) are listed as left out with their reason, never turned into a row; and reading a
question or a note for money takes time linear in its length (issues 33 and 35)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hwqa.answer.question import parse_question
from hwqa.cli import app
from hwqa.prices.facts import Doc
from hwqa.prices.prose import read_document
from hwqa.prices.words import read_price_words

from .conftest import point_cli_at_folder, prices_table, write_note

runner = CliRunner()

RENTALS = """
---
title: Where I rent GPUs
tags: [hardware, cloud]
date: 2024-03-02
---

# Where I rent GPUs

## Clouds

* [Lambda GPU Cloud](https://lambdalabs.com/service/gpu-cloud) - the A100 was $1.10/hr here last spring, cheapest I found.
* [RunPod](https://www.runpod.io/) - a V100 runs $0.39/hr on the community cloud, fine for small jobs.
* [A forum thread](https://example.com/thread) - one reply swore a T4 was $-5/hr, another said $NaN/hr for an L4; broken scrapers.

## From a comparison site

| GPU | $/hr |
|---|---|
| A100 | 1.20 |
| H100 | 99999999999999999999999 |
"""


@pytest.fixture
def rentals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    notes = tmp_path / "notes"
    write_note(notes, "renting.md", RENTALS)
    point_cli_at_folder(monkeypatch, notes)
    return notes


def ask(question: str) -> dict[str, Any]:
    result = runner.invoke(app, ["ask", question, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def price_table(notes: Path) -> dict[str, Any]:
    return prices_table(notes)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How many V100 hours do I get for $1e400?", "'$1e400' is written with an exponent; write the amount in digits"),
        ("What can I rent with $10^30?", "'$10^30' is written with an exponent"),
        ("What can I rent with -$5?", "a budget must be between $0 and $1,000,000,000, not -$5"),
        ("I have -5 dollars, which GPU?", "a budget must be between $0 and $1,000,000,000, not -5 dollars"),
        ("What does $-100 get me on a V100?", "a budget must be between $0 and $1,000,000,000, not $-100"),
        ("What can I rent with $1000000000000000?", "a budget must be between $0 and $1,000,000,000, not $1000000000000000"),
        ("What do 0 hours on a V100 cost?", "0 hours costs nothing; ask about more than 0 hours"),
        ("What can I rent with $NaN?", "'$NaN' is not an amount of money"),
    ],
)
def test_an_amount_the_calculator_cannot_use_is_refused_in_one_line_in_the_questions_words(
    rentals: Path, question: str, said: str
) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    data = ask(question)
    first = data["answer"].split("\n")[0]
    assert first.startswith("The price calculator could not answer: ") and said in first
    assert "budget_usd" not in data["answer"]  # never an internal name
    assert not data["tool_calls"]  # nothing computed from another amount than the one written


def test_a_money_question_within_bounds_still_reaches_the_calculator(rentals: Path) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    data = ask("How many hours on a V100 do I get for $100?")
    assert data["tool_calls"] and data["tool_calls"][0]["arguments"]["budget_usd"] == 100


def test_a_negative_or_not_a_number_price_in_a_sentence_is_listed_as_left_out(rentals: Path) -> None:
    table = price_table(rentals)
    reasons = [item["reason"] for item in table["left_out"]]
    assert "$-5/hr is not above 0; a free offer has no price per hour to compare" in reasons
    assert "$NaN/hr is not a number" in reasons
    assert {row["hardware"] for row in table["rows"]} == {"A100", "V100"}


def test_an_absurd_table_price_is_left_out_and_never_recommended(rentals: Path) -> None:
    table = price_table(rentals)
    assert not [row for row in table["rows"] if row["hardware"] == "H100"]
    assert any("99999999999999999999999 is more than $1,000,000,000" in item["reason"] for item in table["left_out"])
    assert runner.invoke(app, ["index"]).exit_code == 0
    options = ask("Which GPU should I rent with $500?")["tool_calls"][0]["result"]["options"]
    assert options and all(option["hardware"] != "H100" for option in options)


# --- time linear in the length: a question or a note of up to 1 MB is read within 1 s of CPU -------------

MB = 1_000_000


def _cpu_seconds(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def _within_a_second_and_linear(reader: str, text: str, what: str) -> None:
    """``reader`` reads ``text`` (up to 1 MB) within 1 s of CPU; on a machine too busy for that (CPU time
    counts every thread of the process), it must at least be linear: a tenth of the text, read in the
    same run, takes no less than a twelfth of the time (a quadratic reader takes a hundredth)."""
    whole = _cpu_seconds(_readers(text)[reader])
    if whole < 1.0:
        return
    tenth = _cpu_seconds(_readers(text[: len(text) // 10])[reader])
    assert whole < 12 * tenth + 0.05, f"{reader} on {what}: {whole:.2f} s for the whole, {tenth:.2f} s for a tenth"


def _readers(text: str) -> dict[str, Callable[[], object]]:
    return {
        "parse_question": lambda: parse_question(text),
        "read_price_words": lambda: read_price_words(text),
        "read_document": lambda: read_document(Doc("note.md", "Note", text, 1)),
    }


ADVERSARIAL = {
    "digits": "9" * MB,  # 30,000 digits took 65 s in the question's money patterns
    "digit groups": "$1," * (MB // 3),
    "decimal points": "1." * (MB // 2),
    "spaces": " " * MB,
    "dollar signs": "$" * MB,
    "minus signs": "-$" * (MB // 2),
    "exponents": "$1e9" * (MB // 4),
    "prices and names, no sentence end": "A100 $1/hr, " * (MB // 12),
    "one paragraph of one-sentence lines": "The A100 is $1.10/hr on Lambda.\n" * (MB // 32),
    "a long table": "| GPU | $/hr |\n|---|---|\n" + "| A100 | $1.10 |\n" * (MB // 16),
    "names and versions": "tpu v3-8 RTX 4090 " * (MB // 18),
    "brackets": "(" * MB,
}


@pytest.mark.parametrize("kind", list(ADVERSARIAL))
def test_adversarial_text_of_1_mb_is_read_within_1_second(kind: str) -> None:
    for reader in _readers(""):
        _within_a_second_and_linear(reader, ADVERSARIAL[kind], kind)


_TOKENS = ["9", "1", ",", ".", "$", "-", "e", "^", "k", " ", "\n", "(", ")", "|", "A100", "V100", "tpu v3", "/hr", "per hour",
           "hours", "days", "GPUs", "budget", "of", "for", "and", "USD", "€", "x", "TPUv3-8", ";", "*", "#", "NaN"]  # fmt: skip


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=12), st.integers(0, 2**32 - 1), st.booleans())
def test_random_text_up_to_1_mb_is_read_within_1_second(pattern: list[str], seed: int, shuffle: bool) -> None:
    """A short pattern repeated up to 1 MB, or the same tokens drawn at random: each reader within 1 s."""
    unit = "".join(pattern)
    if shuffle:
        rng = random.Random(seed)
        parts: list[str] = []
        size = 0
        while size < MB:
            token = rng.choice(pattern)
            parts.append(token)
            size += len(token)
        text = "".join(parts)
    else:
        text = unit * (MB // len(unit))
    for reader in _readers(""):
        _within_a_second_and_linear(reader, text[:MB], repr(unit))


def test_a_long_question_says_how_much_of_it_was_read() -> None:
    words = read_price_words("I have $500. " + "9" * 30_000)
    assert words.budget_usd == 500
    assert (
        words.problems[0]
        == "the question is 30,013 characters long; only its first 4,000 were read for amounts, times and hardware"
    )
    assert "too long to read" in words.problems[1]


def test_a_fraction_of_a_device_is_said_not_rounded() -> None:
    """'2.5 V100s' was read as a workload on V100s with no count at all; a fraction of hours is a time."""
    words = read_price_words("what would 10 hours on 2.5 V100s cost?")
    assert words.refused and words.problems == ("a number of devices must be whole, not 2.5 V100s",)
    assert read_price_words("and on 1.5 GPUs?").problems == ("a number of devices must be whole, not 1.5 GPUs",)
    hours = read_price_words("how much for 2.5 hours on a V100?")
    assert hours.hours == 2.5 and not hours.problems
