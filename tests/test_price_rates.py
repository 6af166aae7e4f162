"""Money questions whose quantities compose (issue 33): a cost is a rate times the quantities it is per, with units
that cancel. The rate is the one the question states ("at $0.68/hr") or the one the notes state for what the question
names (an instance type, a nickname, the spot price of a clause); the counts and durations come from the question
("4 nodes", "~20 min", "24/7 for a 30 day month") or the note's own sentence ("we're 3 people"). Every answer works
the sum in the open and cites the line its rate is on; what the question leaves out is said, never guessed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hwqa.cli import app

from .conftest import index_notes_once, point_cli_at_folder

runner = CliRunner()

CLOUD = """---
title: Cloud boxes
tags: ["cloud", "aws"]
date: 2025-03-10
---

# Cloud boxes

## AWS

* g5.xlarge (1x A10G 24GB) $1.006/hr on demand, spot was ~$0.42/hr last week
* inf2.xlarge: 1 Inferentia2 chip, 32 GB, $0.76/hr. good for serving 7B stuff
* the slurm cluster on the lab account bills $0.95/node-hr, nodes are 8x V100

## Serverless

* Modal A10G is $0.000306/sec, billed per second, nice for LoRA runs
"""

PLANS = """---
title: Plans and seats
tags: ["saas"]
date: 2025-04-02
---

# Plans and seats

* Lightning Teams plan $250/mo, includes $100 of compute credits, usage past that billed at cost
* W&B Teams $50/seat/month, we're 3 people
* block storage volume $0.08/GB-month
* dept charges $0.40/hr per 1g slice for the MIG slices on the lab A100
* Groq Llama 3.1 8B: $0.05 per 1M input tokens, $0.08 per 1M output tokens
"""

SHOPPING = """---
title: Workstation shopping
tags: ["hardware"]
date: 2025-05-05
---

# Workstation shopping

* RTX 6000 Ada 48GB - $6,800 at the shop, blower cooler
* the "big box" (our nickname for the 4x A6000 server) rents at $2.20/hr on the internal cluster
* RTX PRO 6000 Blackwell 96GB, ~$8,500 from the distributor
* the NUC idles at ~7W and peaks around 40W, power here is $0.20/kWh
* Alveo V70 - 75W inference card, list price was ~$3k, saw a used one on ebay for $900
* the dual 4090 box: 2x RTX 4090 at $1,750 each
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three notes and their index, built once for the module."""
    return index_notes_once(tmp_path_factory, "rates", {"cloud.md": CLOUD, "plans.md": PLANS, "shopping.md": SHOPPING})


@pytest.fixture
def notes(built: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    point_cli_at_folder(monkeypatch, built)
    return built


def ask(question: str) -> dict[str, Any]:
    result = runner.invoke(app, ["ask", question, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    assert data["covered"], data
    return data


def cited(data: dict[str, Any], note: str, text: str) -> bool:
    return any(c["source"] == note and text in c["text"] for c in data["citations"])


@pytest.mark.parametrize(
    ("question", "worked"),
    [
        ("if I rent a box at $0.68/hr for the 30 hours the suite takes, what's the bill", "30 h × $0.68/hour = **$20.40**"),
        ("what's 4.5 GB on a $0.08/GB-month volume per month", "4.5 GB × 1 month × $0.08/GB-month = **$0.36**"),
        ("4 nodes for 10 hrs at $0.95/node-hr, how much", "4 nodes × 10 h × $0.95/node-hour = **$38.00**"),
        ("a LoRA run of ~20 min at $0.000725/sec, what does that cost", "× $0.000725/second = **$0.87**"),
        # under half a cent: its first two digits, never "$0.00"
        ("a 10 second smoke test at $1.20/hr, what does that cost", "10 s × $1.20/hour = **$0.0033**"),
        # "gpu hours" are hours of one gpu each: never 300 gpus for 300 hours
        ("300 gpu hours at $0.90/gpu-hour, what's the charge", "1 gpu × 300 h × $0.90/gpu-hour = **$270**"),
    ],
)
def test_a_rate_the_question_states_is_used_with_its_quantities_never_taken_for_a_name(
    notes: Path, question: str, worked: str
) -> None:
    data = ask(question)
    assert worked in data["answer"], data["answer"]
    assert "don't mention" not in data["answer"]
    assert "(the rate your question gives)" in data["answer"]


def test_a_stated_rate_without_the_quantity_it_needs_says_what_is_missing_and_mere_money_is_not_worked_out(
    notes: Path,
) -> None:
    answer = ask("at $0.68/hr what's the bill")["answer"]
    assert "I need for how long" in answer, answer
    assert "$0.00" not in answer  # never a sum over a time nobody gave
    for question in ("is the $250 lightning plan any good for a small team", "would $0.000725/sec be ok for LoRA runs"):
        result = runner.invoke(app, ["ask", question, "--json"])
        assert result.exit_code == 0, result.output
        answer = json.loads(result.stdout)["answer"]
        assert " × " not in answer and "With $0.00" not in answer, answer  # a rate is no budget either


@pytest.mark.parametrize(
    ("question", "worked", "note", "line"),
    [
        (
            "what would 4 nodes on the slurm cluster for 10 hrs cost",
            "4 nodes × 10 h × $0.95/node-hour = **$38.00**",
            "cloud.md",
            "bills $0.95/node-hr",
        ),
        (
            "what would 4 g5.xlarge on spot for 36 hrs cost",
            "4 g5.xlarge × 36 h × $0.42/hour = **$60.48**",
            "cloud.md",
            "spot was",
        ),
        (
            "an inf2.xlarge up 24/7 for a 30 day month, what's that",
            "720 h × $0.76/hour = **$547.20**",
            "cloud.md",
            "inf2.xlarge:",
        ),
        ("a LoRA run of ~20 min on the Modal A10G, what does it cost", "= **$0.37**", "cloud.md", "$0.000306/sec"),
        (
            "the big box for a work week of 40 hours, how much",
            "40 h × $2.20/hour = **$88.00** for the big box",
            "shopping.md",
            "big box",
        ),
        ("how much is a g5.xlarge for 3h a day for 20 days", "60 h × $1.006/hour = **$60.36**", "cloud.md", "$1.006/hr"),
        (
            "what do 2 of the MIG slices for 30 hours get charged",
            "2 slices × 30 h × $0.40/slice-hour = **$24.00**",
            "plans.md",
            "1g slice",
        ),
        (
            "what's 100 GB of block storage for 6 months",
            "100 GB × 6 months × $0.08/GB-month = **$48.00**",
            "plans.md",
            "block storage",
        ),
        (
            # a whole year of a monthly price is 12 months, never 8,760 h (12.17 months: $97.33)
            "keeping 100 GB of block storage for a whole year, how much",
            "100 GB × 12 months × $0.08/GB-month = **$96.00**",
            "plans.md",
            "block storage",
        ),
    ],
)
def test_count_times_duration_times_the_rate_noted_for_the_thing_named(
    notes: Path, question: str, worked: str, note: str, line: str
) -> None:
    data = ask(question)
    assert worked in data["answer"], data["answer"]
    assert cited(data, note, line), data["citations"]


def test_a_count_the_note_itself_gives_is_used_and_said(notes: Path) -> None:
    data = ask("what's a year of W&B for us")
    assert "3 seats × 12 months × $50/seat-month = **$1,800**" in data["answer"], data["answer"]
    assert "as your note says" in data["answer"]
    assert cited(data, "plans.md", "W&B Teams")


def test_a_monthly_plan_with_included_usage_adds_only_what_was_used_past_it(notes: Path) -> None:
    data = ask("lightning plan, we used $180 of compute this month, what's the bill")
    assert "$250 + ($180 used − $100 included) = **$330**" in data["answer"], data["answer"]
    assert cited(data, "plans.md", "Lightning Teams plan")
    within = ask("lightning plan, we used $60 of compute this month, what's the bill")["answer"]
    assert "**$250**" in within and "within" in within, within


def test_n_of_a_purchase_with_the_memory_they_hold_together(notes: Path) -> None:
    data = ask("what would 4 of the RTX PRO 6000 cost me, and how much memory is that in total")
    assert "4 × $8,500.00 = **$34,000.00**" in data["answer"], data["answer"]
    assert "4 × 96 GB = **384 GB**" in data["answer"]
    assert cited(data, "shopping.md", "RTX PRO 6000 Blackwell")
    assert "$6,800" not in data["answer"].split("[")[0]  # not the RTX 6000 Ada


def test_token_volumes_written_short_with_their_direction_after_them(notes: Path) -> None:
    data = ask("what would 20M tokens in and 5M out cost on the groq llama 8b")
    assert "**$1.40**" in data["answer"], data["answer"]  # 20 × $0.05 + 5 × $0.08
    assert cited(data, "plans.md", "per 1M input tokens")


def test_what_a_thing_goes_for_second_hand_is_its_purchase_prices(notes: Path) -> None:
    data = ask("what do second hand alveo v70s go for")
    assert "$900.00" in data["answer"], data["answer"]
    assert cited(data, "shopping.md", "saw a used one")
    result = runner.invoke(app, ["ask", "what does a used H200 go for", "--json"])
    assert result.exit_code == 0, result.output
    assert "$900" not in json.loads(result.stdout)["answer"]  # no other card's price for a card the notes never price


def test_a_count_in_a_question_that_asks_no_money_is_not_a_purchase_sum(notes: Path) -> None:
    result = runner.invoke(app, ["ask", "what psu wattage did i put in the dual 4090 box", "--json"])
    assert result.exit_code == 0, result.output
    assert "× $1,750" not in json.loads(result.stdout)["answer"]
    assert "2 × $1,750.00 = **$3,500.00**" in ask("what would two more 4090s set me back")["answer"]


def test_a_thing_named_with_no_draw_of_its_own_is_never_worked_out_with_another_things_draw(notes: Path) -> None:
    answer = ask("an inf2.xlarge running 24/7 for a month, what's that")["answer"]
    assert "720 h × $0.76/hour = **$547.20**" in answer, answer  # renting it, not the NUC's 40 W at $0.20/kWh
    assert "kWh" not in answer
    energy = ask("what's the power bill for the NUC running 24/7 for a month")["answer"]
    assert "40 W × 720 h = 28.8 kWh" in energy, energy  # the thing the draw is noted for still has its energy sum


def test_a_geforce_number_with_an_s_is_cards_never_seconds() -> None:
    """ "if we'd used secure cloud 4090s for the run": the cards, never 4,090 seconds (1.14 h) of the run; "a 20s clip"
    is still twenty seconds."""
    from hwqa.prices.rates import _duration
    from hwqa.prices.words import read_price_words

    cards = read_price_words("if we'd used secure cloud 4090s for the perseids run what would it have cost")
    assert _duration(cards, cards.text, "hour") is None
    clip = read_price_words("what does a 20s clip cost at $0.10/min")
    minutes = _duration(clip, clip.text, "minute")
    assert minutes is not None and abs(minutes[0] - 20 / 60) < 1e-9, minutes
