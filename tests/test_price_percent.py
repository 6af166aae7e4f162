"""A percentage a note adds to or takes off a price (a sales tax, a facility's overhead, a reseller's discount),
applied when the question asks for it, with both steps written out; a question that sets it aside gets none. A
price per a thing the note says how long one of takes ("per exome" over "one exome is ~1h 30m on it"), and hours
with minutes ("2h 30m", "3h40m")."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ask_text as ask
from .conftest import cli_over

OFFICE = """---
title: Office AI box
tags: ["purchases"]
date: 2026-03-01
---

# Office AI box

## The quote

* the integrator quoted the 2x RTX 4500 Ada tower at $9,400 incl. setup
* that quote is before sales tax, which is 7.5% here.

## Render workstation

* vendor list price for the render workstation is $14,000, the university reseller does 15% off list.

## Cluster time

* the genomics facility bills the A100 nodes at $3.20/hr and adds 25% overhead on top.
"""


CORE = """---
title: Sequencing core
date: 2026-03-01
---

# Sequencing core

* the sequencing core's L40S box is $2.40/hr; one exome through the pipeline is ~1h 30m on it.
"""


notes = cli_over("percent", {"office.md": OFFICE, "core.md": CORE})


@pytest.mark.parametrize(
    ("question", "said"),
    [
        # a tax on the line before the percentage's: 9,400 × 1.075
        ("what does the integrator's quote come to once sales tax is added?", "+ 7.5% ($705.00"),
        # a discount on the percentage's own line: 14,000 × 0.85
        ("what does the render workstation cost after the reseller's discount?", "− 15% ($2,100.00"),
        # an overhead on a sum worked out first: 10 h × $3.20 = $32.00, + 25%
        ("what would 10 hours on the facility's A100 nodes cost incl. their overhead?", "+ 25% ($8.00"),
    ],
)
def test_the_percentage_asked_for_is_applied_with_both_steps_written(notes: Path, question: str, said: str) -> None:
    answer = ask(question)
    total = {"+ 7.5%": "**$10,105**", "− 15%": "**$11,900**", "+ 25%": "**$40.00**"}[said.split(" (")[0]]
    assert said in answer and total in answer, answer


def test_a_question_setting_the_tax_aside_gets_the_price_without_it(notes: Path) -> None:
    answer = ask("ignoring tax, what did the integrator quote for the tower?")
    assert "$10,105" not in answer and "7.5%" not in answer.split("\n\n")[0], answer


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("per exome, what does the sequencing core's L40S box cost?", "1.5 h (as your note says) × $2.40/hour = **$3.60**"),
        ("what would 2h 30m on the facility's A100 nodes cost?", "2.5 h × $3.20/hour = **$8.00**"),
    ],
)
def test_a_length_in_hours_and_minutes_or_per_thing_times_the_rate(notes: Path, question: str, said: str) -> None:
    answer = ask(question)
    assert said in answer, answer
