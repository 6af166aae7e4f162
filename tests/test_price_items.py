"""What several things a money question lists came to together, each priced on its own line of a note: "the NAS
plus two of the 8TB drives", "the cards plus the reader" (a price each times the line's count), "dropbox and
1password, per year" (a monthly price twelve times). Each term is written out with the line it is from; a
question that compares the things, or names only one, is not summed."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ask_text as ask
from .conftest import cli_over

KIT = """---
title: Photo archive kit
tags: ["storage"]
date: 2026-02-01
---

# Photo archive kit

## Bought in Jan

* Synology DS224+ for the archive, $299
* 8TB IronWolf drives $169 each
* 4x SanDisk Extreme 128GB cards @ $18 each
* 1x Anker USB-C card reader, $25
* flowcells: $900 each if you buy singles, or the 4-pack for $3,240
* Raspberry Pi 5 8GB for the scanner, $80 each, bought 2
* Pimoroni fan shim on each Pi, $12
* Pi cluster all in (2 pis, fan shims, case), $210

## Subscriptions

* Dropbox Plus $11.99/mo for the offsite copy
* 1Password Families $59.88/yr so the whole family has the NAS logins
"""


notes = cli_over("items", {"kit.md": KIT})


@pytest.mark.parametrize(
    ("question", "total"),
    [
        # the question's count for one of the things: 299 + 2 × 169
        ("what did the synology plus two of the ironwolf drives come to?", "**$637**"),
        # a price each times the line's own count: 4 × 18 + 25
        ("what did the sandisk cards and the card reader cost me", "**$97.00**"),
        # a monthly price twelve times beside a yearly one: 12 × 11.99 + 59.88
        ("dropbox plus 1password, what's that per year", "**$203.76**"),
        # one of the second thing for each of the first: 2 × 80 + 2 × 12
        ("2 more raspberry pis each with a fan shim, how much?", "**$184**"),
        # one more of each, not the count the notes bought (2 × 80) nor the line pricing them together ($210)
        ("adding another pi and a fan shim would run how much", "**$92.00**"),
    ],
)
def test_the_things_a_question_lists_are_summed_each_from_its_line(notes: Path, question: str, total: str) -> None:
    answer = ask(question)
    assert total in answer, answer
    assert answer.count("(“") >= 2, answer  # each term shows the line it is from


def test_a_question_comparing_the_things_is_not_summed(notes: Path) -> None:
    answer = ask("is dropbox or 1password more per year?")
    assert "$203.76" not in answer, answer


def test_a_comma_alone_lists_nothing(notes: Path) -> None:
    answer = ask("if i bought 2 more ironwolf drives for the synology at the price of the last one, what would that cost")
    assert "$299 (" not in answer and "+ $" not in answer, answer  # never the synology's line added in


def test_a_thing_asked_in_the_plural_is_the_one_priced_in_the_singular(notes: Path) -> None:
    # "4-packs" is the 4-pack's price, not the single flowcell's ($1,800)
    answer = ask("cost for 2 more of the flowcell 4-packs")
    assert "**$6,480.00**" in answer, answer
