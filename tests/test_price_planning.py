"""Every price question reaches the calculator, before any "not covered" check, and an answer says what
the notes hold no price for (issue 19, item 3; issue 18, item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.answer.answer import Answer
from hwqa.cli import app
from hwqa.engine import Engine
from hwqa.settings import Settings

from .conftest import built_hash_index, point_cli_at, write_note

runner = CliRunner()

# A rental log in the owner's style: short sections, a sentence per link, and one table of prices.
RENTALS = """
---
title: Renting accelerators
tags: [cloud]
date: 2021-11-02
---
# Renting accelerators

## Where I rent

* [Cloud TPU pricing](https://cloud.example/tpu/pricing) - the on-demand and preemptible rates per chip.
* [Lambda GPU cloud](https://lambda.example/pricing) - cheap consumer cards by the hour.

## What it costs

| hardware | provider | type | usd_per_hour | speed |
|---|---|---|---|---|
| Tesla P100 | GCP | gpu | 1.46 | 0.5 |
| V100 | GCP | gpu | 2.48 | 1.0 |
| TPU v3-8 | GCP | tpu | 8.00 | 8.0 |
| RTX 3090 | Lambda | gpu | 0.80 | 1.2 |

## Notes to self

* A TPU v3-8 trains about as fast as eight V100s on my transformer runs.
* Preemptible machines get stopped at least once a day, so checkpoint often.
"""

# The same kind of note with no price anywhere: only opinions and links.
NO_PRICES = """
---
title: TPU or GPU
tags: [hardware]
---
# TPU or GPU

* [PyTorch on TPUs](https://pytorch.example/xla) - PyTorch/XLA runs PyTorch code on a TPU.
* TPUs are best when you want to train a model as fast as you possibly can.
* GPUs are the more versatile choice for everyday experiments.
"""


def engine_over(tmp_path: Path, **notes: str) -> Engine:
    for name, text in notes.items():
        write_note(tmp_path / "notes", f"{name}.md", text)
    return Engine(built_hash_index(tmp_path))


def calculator_call(answer: Answer) -> dict[str, object]:
    calls = [c for c in answer.tool_calls if c.name == "price_calculator"]
    assert calls, answer.text
    return calls[0].arguments


@pytest.fixture
def rentals(tmp_path: Path) -> Engine:
    return engine_over(tmp_path, rentals=RENTALS)


@pytest.mark.parametrize(
    ("question", "argument", "value"),
    [
        ("What would a 300 V100-hours job cost on each option?", "v100_hours", 300),
        ("How much do 250 GPU-hours cost?", "hours", 250),
        ("What do 40 chip-hours on a TPU v3 cost?", "hours", 40),
        ("What does a V100 cost per month?", "hours", 720),
        ("How much is a TPU v3 for 3 days?", "hours", 72),
        ("What can I rent with $120?", "budget_usd", 120),
        ("how many hours does my 120 buck budget buy?", "budget_usd", 120),  # "buck", as people say it
    ],
)
def test_workload_and_budget_words_reach_the_calculator(rentals: Engine, question: str, argument: str, value: float) -> None:
    answer = rentals.ask(question)
    assert calculator_call(answer)[argument] == value, answer.text
    assert "don't mention" not in answer.text and answer.covered, answer.text


def test_v100_hours_over_a_price_table_are_not_turned_away(rentals: Engine) -> None:
    """The words the question measures the job in ("V100-hours") appear in no passage; the calculator answers."""
    answer = rentals.ask("How much would a 500 V100-hours training run cost on the cheapest option?")
    assert calculator_call(answer)["v100_hours"] == 500
    # 500 V100-hours: 417 h on the RTX 3090 (1.2 V100s at $0.80/h) for $333; 62.5 h on the TPU v3-8 (8 V100s) for $500.
    assert "| 1 | RTX 3090 | $0.80 | $333 | 417 | Lambda |" in answer.text, answer.text
    assert "My notes don't" not in answer.text


def test_hardware_without_a_price_is_named_and_the_budget_kept(rentals: Engine) -> None:
    answer = rentals.ask("How many hours of H100 time does $100 buy?")
    assert "Your notes give no hourly price for an H100" in answer.text
    assert "they price P100, V100, TPU v3-8 and RTX 3090" in answer.text
    assert calculator_call(answer)["budget_usd"] == 100  # what the notes do price, with the budget asked
    assert "| RTX 3090 | $0.80 | 125 |" in answer.text  # $100 / $0.80 an hour


def test_a_price_asked_only_for_unpriced_hardware_is_not_covered_and_says_which(rentals: Engine) -> None:
    answer = rentals.ask("What does an MI300X cost per hour?")
    assert not answer.covered and not answer.tool_calls
    assert "My notes don't mention “MI300X”" in answer.text
    assert "Your notes give no hourly price for an MI300X; they price P100, V100, TPU v3-8 and RTX 3090." in answer.text


def test_hardware_the_notes_describe_without_an_hourly_price_is_answered_from_the_notes(tmp_path: Path) -> None:
    """A purchase price in prose is no hourly price: the notes' sentence answers, and the answer says what is priced."""
    edge = """
    ---
    title: Edge boxes
    ---
    # Edge boxes

    * [Pebble Edge N2 review](https://pebble.example/n2) - the Pebble Edge N2 sells for $249 and draws 15 W.
    """
    engine = engine_over(tmp_path, rentals=RENTALS, edge=edge)
    answer = engine.ask("How much does the Pebble Edge N2 cost?")
    assert answer.covered and "$249" in answer.text.split("\n\n")[0], answer.text
    assert "Your notes give no hourly price for a Pebble Edge N2" in answer.text


def test_hardware_to_buy_needs_no_hourly_price(rentals: Engine) -> None:
    answer = rentals.ask("Is buying an RTX 4090 for $1,800 cheaper than renting a V100?")
    assert calculator_call(answer)["purchase_usd"] == 1800
    assert "no hourly price" not in answer.text


def test_a_budget_over_notes_without_prices_says_so(tmp_path: Path) -> None:
    engine = engine_over(tmp_path, tpu=NO_PRICES)
    for budget in ("$100", "$500"):
        answer = engine.ask(f"TPU or GPU for my budget of {budget}?")
        assert answer.text.startswith("Your notes hold no prices"), answer.text
        assert f"what a budget of {budget} buys" in answer.text
        assert not answer.covered and not answer.tool_calls


def test_hwqa_ask_shows_the_missing_prices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings: Settings = built_hash_index_in(tmp_path, monkeypatch, tpu=NO_PRICES)
    result = runner.invoke(app, ["ask", "I have $250 - TPU or GPU?"])
    assert result.exit_code == 0, result.output
    assert "Your notes hold no prices" in result.stdout and "$250" in result.stdout
    data = json.loads(runner.invoke(app, ["ask", "I have $250 - TPU or GPU?", "--json"]).stdout)
    assert data["covered"] is False and data["answer"].startswith("Your notes hold no prices")
    assert settings.index.exists()


def built_hash_index_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **notes: str) -> Settings:
    """Notes written under ``tmp_path``, indexed with the hash embedder, and the CLI pointed at them."""
    for name, text in notes.items():
        write_note(tmp_path / "notes", f"{name}.md", text)
    settings = built_hash_index(tmp_path)
    point_cli_at(monkeypatch, settings)
    return settings


def test_names_the_notes_never_mention_still_turn_a_non_price_question_away(rentals: Engine) -> None:
    answer = rentals.ask("How much memory does the RTX 5090 have?")
    assert not answer.covered and "RTX 5090" in answer.text


def test_hardware_with_no_price_is_named_as_asked_and_never_given_another_s_rate(rentals: Engine) -> None:
    # "4070 ti super", never "4070 ti" (another card); and never 10 h at a quoted line's rate for a P100 ($14.60)
    answer = rentals.ask("How much would 10 hours on a 4070 ti super cost?")
    assert "no hourly price for the 4070 ti super;" in answer.text, answer.text
    assert "10 h × $1.46/hour" not in answer.text and "as the quote below says" not in answer.text, answer.text


def test_a_price_on_a_provider_the_notes_do_not_price_it_on_says_so(rentals: Engine) -> None:
    # the V100 is priced on GCP only: never an empty table and "relax it", and never answered as covered
    answer = rentals.ask("What's the hourly price of a V100 on Lambda?")
    assert not answer.covered, answer.text
    assert answer.text.startswith("Your notes give no price for the V100 on Lambda."), answer.text
    assert "No option fits" not in answer.text, answer.text


def test_a_ballpark_asks_money(rentals: Engine) -> None:
    # "ballpark for …" asks what it comes to, like "how much": never only a table of jobs
    answer = rentals.ask("ballpark for 20 hours on the RTX 3090?")
    assert "**$16.00**" in answer.text, answer.text


def test_a_price_noted_only_as_spot_is_counted_and_said_so(tmp_path: Path) -> None:
    # the only 3090 price is interruptible: the budget's hours at it, never "No option fits … relax it"
    vast = "---\ntitle: Vast\n---\n# Vast\n\n* Vast.ai - 3090s go for ~$0.19/hr interruptible, got bumped twice.\n"
    answer = engine_over(tmp_path, vast=vast).ask("how many hrs of a vast 3090 do i get for $20")
    assert "only as spot or interruptible" in answer.text and "| 105 |" in answer.text, answer.text
    assert "No option fits" not in answer.text, answer.text


def test_a_year_of_a_plan_priced_by_the_month_and_by_the_year_gives_both_unless_the_question_says_how_it_is_paid(
    tmp_path: Path,
) -> None:
    notes = (
        "---\ntitle: Apps\n---\n# Apps\n\n* [SwingVision](https://swing.vision/) - SwingVision Pro is $14.99/mo or $149.99/yr.\n"
    )
    engine = engine_over(tmp_path, apps=notes)
    answer = engine.ask("what would swingvision pro cost per year")
    assert "**$149.99**" in answer.text and "**$179.88**" in answer.text, answer.text
    answer = engine.ask("a year of swingvision pro paying month to month?")
    assert "**$179.88**" in answer.text and "$149.99" not in answer.text, answer.text


def test_a_plan_priced_per_seat_is_times_the_seats_asked_or_noted(tmp_path: Path) -> None:
    notes = (
        "---\ntitle: Tools\n---\n# Tools\n\n"
        "* [Pricing - Weights & Biases](https://wandb.ai/site/pricing) - Pro, $50 per seat/mo, 2 seats. Sweeps live here.\n"
        "* HF Team org is $20/user/mo - nice SSO but no client asked for it.\n"
    )
    engine = engine_over(tmp_path, tools=notes)
    answer = engine.ask("weights & biases pro for a full year at the current seat count?")
    assert "12 × $50.00/month × 2 seats" in answer.text and "**$1,200.00**" in answer.text, answer.text
    answer = engine.ask("hf team org for the three of us for a year")
    assert "**$720.00**" in answer.text, answer.text  # 12 × $20 × 3
    answer = engine.ask("what's a month of the hf team org per person")
    assert "**$20.00**" in answer.text and "one seat" in answer.text, answer.text
