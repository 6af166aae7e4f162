"""Buy versus rent over the price facts (hwqa.prices.payback): the hours of renting by the hour before a card the
notes say was bought pays for itself, however the question words it; the rented card's count, the power owning costs
when the question counts it, and months at the usage the question or the note gives."""

from __future__ import annotations

from pathlib import Path

from .conftest import ask_text as ask
from .conftest import cli_over

RIG = """---
title: Home rig vs renting
date: 2025-05-01
---

# Home rig vs renting

## Bought

* bought the RTX 4090 FE in march for $1,599 from Best Buy, no regrets so far.
* used RTX 3090 off ebay was $700 for the second box.
* the 3090 pulls ~350W at the wall under load, electricity here is $0.30/kWh.

## Renting

* [Vast.ai - Console](https://vast.ai) - 4090s go for ~$0.41/hr on vast when I need a second one.
* [Lambda GPU Cloud](https://lambdalabs.com) - A10 at $0.75/hr on-demand.
"""

WORKSTATION = """---
title: Buy vs rent - workstation
date: 2026-06-12
---

# Buy vs rent - workstation

## Inputs

* P920 all-in $3,087 (box, 2x 3090, NVMe).
* what we'd rent instead: RunPod secure A100 80G at $1.64/hr.
* we've been doing ~150 GPU-hrs/month since June.
"""

rig = cli_over("payback-rig", {"rig.md": RIG})
workstation = cli_over("payback-workstation", {"buy-vs-rent.md": WORKSTATION})


def test_hours_until_a_card_bought_costs_what_renting_it_would_have(rig: Path) -> None:
    # $1,599 / $0.41 an hour = 3,900 hours, however the question says "pays for itself"
    for question in (
        "how many hrs of vast 4090 rental until it matches what my 4090 cost",
        "at what point is buying a 4090 cheaper than renting one on vast",
    ):
        answer = ask(question)
        assert "**3,900 hours**" in answer, (question, answer)
        assert "$1,599" in answer and "$0.41/h" in answer, answer


def test_the_card_bought_and_the_card_rented_are_told_apart(rig: Path) -> None:
    # the 3090 bought ($700) against the A10 rented ($0.75/h): 933 hours, never the 4090's price
    answer = ask("after how many hours would buying the 3090 beat renting the lambda a10")
    assert "**933 hours**" in answer, answer
    assert "3,900" not in answer and "$1,599" not in answer.split("\n\n")[0], answer
    # the name before "rental" is the one rented: 2 × $0.75 an hour
    answer = ask("how many hrs of 2x a10 rental before the 3090 pays off")
    assert "**467 hours**" in answer, answer


def test_power_is_taken_off_only_when_the_question_counts_it(rig: Path) -> None:
    # 350 W × $0.30/kWh = $0.105 an hour of owning; $700 / ($0.75 - $0.105) = 1,085 hours
    answer = ask("counting the power it draws, how many hours of renting the lambda a10 before the 3090 pays for itself")
    assert "**1,085 hours**" in answer, answer
    assert "350 W" in answer, answer
    answer = ask("ignoring electricity, how many hours of renting the lambda a10 before the 3090 pays for itself")
    assert "**933 hours**" in answer and "Power left out, as you asked." in answer, answer


def test_months_at_the_usage_the_question_gives(rig: Path) -> None:
    # 1,707 hours at 40 hours a month: 42.7 months
    answer = ask("at 40 gpu hrs a month, how many months before the 3090 pays for itself vs renting a vast 4090")
    assert "**42.7 months**" in answer, answer


def test_months_at_the_usage_the_note_gives(workstation: Path) -> None:
    # $3,087 / $1.64 an hour = 1,882 hours; at ~150 GPU-hours a month, 12.5 months
    answer = ask("how many months of renting the runpod a100 until buying the p920 pays for itself")
    assert "**1,882 hours**" in answer and "**12.5 months**" in answer, answer
    assert "150" in answer, answer
    # 150 hours a month is 1,800 a year: about a year
    answer = ask("renting the runpod a100 vs buying the p920, when does it break even, in hours and years")
    assert "**1,882 hours**" in answer and "at 1800 hours a year" in answer and "**1 year**" in answer, answer


def test_no_break_even_without_a_purchase_of_what_is_asked(rig: Path) -> None:
    # the notes price no H100 bought: never the 4090's or the 3090's purchase against it
    answer = ask("how many hours of renting an a10 before buying an h100 pays for itself")
    assert "hours of renting before buying pays for itself" not in answer or "H100" in answer, answer
    assert "$1,599 ÷" not in answer and "$700 ÷" not in answer, answer


def test_the_quotes_break_even_is_of_the_card_bought_however_its_name_is_written() -> None:
    """ "before buying an rtx 4090" over "bought the RTX 4090 for $1,599": its price (the name's number is what tells
    it apart); "before buying an h100" over the same quote: none."""
    from hwqa.prices.breakeven import break_even
    from hwqa.prices.words import read_price_words

    pieces = [("bought the RTX 4090 for $1,599 last spring.", "n.md"), ("vast rents a 4090 at $0.41/hr.", "n.md")]
    for card in ("an rtx 4090", "a 4090"):
        worked = break_even(read_price_words(f"how many hours of renting before buying {card} pays off"), pieces)
        assert worked is not None and "**3,900 hours**" in worked.text, (card, worked)
    assert break_even(read_price_words("how many hours of renting before buying an h100 pays off"), pieces) is None


def test_months_till_and_how_long_at_the_usage_the_note_gives_and_plural_cards_rented(workstation: Path) -> None:
    # "months till …" asks months as "how many months" does; "how long" at a noted usage is in that usage's period
    for question in (
        "months till the p920 pays for itself vs renting a100s on runpod",
        "how long till buying the p920 beats renting the runpod a100",
    ):
        answer = ask(question)
        assert "**1,882 hours**" in answer and "**12.5 months**" in answer, (question, answer)


def test_break_even_asked_in_shorthand_against_a_provider(rig: Path) -> None:
    # "break even on X vs vast?" asks no "how many" and names the rental by its provider: $1,599 ÷ $0.41/h
    answer = ask("break even on the 4090 vs vast?")
    assert "**3,900 hours**" in answer, answer
