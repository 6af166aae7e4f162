"""A plan priced per seat, as people ask for it: the seats the note counts ("4 editors", "Team is 14 devs") for "all
the editors" or "the whole team", the billing the question names ("if we go annual" over "$30/seat/mo billed
monthly, or $24/seat/mo if we pay yearly"), and a sum asked with "= ?"."""

from __future__ import annotations

from pathlib import Path

from .conftest import ask_text as ask
from .conftest import cli_over

PODCAST = """---
title: Ad-break detector
date: 2026-05-02
---

# Ad-break detector

## Editing

* Descript Pro for the editors who confirm the cuts: $30/seat/mo billed monthly, or $24/seat/mo if we pay yearly.
* the network has 4 editors on staff.
"""

CODE = """---
title: Self-hosted code assistant
date: 2026-05-03
---

# Self-hosted code assistant

Team is 14 devs. Legal doesnt love code going to a third party so looking at running our own completion server.

* [GitHub Copilot plans - GitHub](https://github.com/features/copilot/plans) - Copilot Business is $19/user/mo.
"""

notes = cli_over("plans", {"podcast.md": PODCAST, "code.md": CODE})


def test_the_billing_the_question_names_and_the_seats_the_note_counts(notes: Path) -> None:
    # 4 editors × 12 months × $24/seat-month (the yearly billing), not $30
    answer = ask("how much is descript for all the editors for a year if we go annual?")
    assert "**$1,152**" in answer, answer
    answer = ask("how much is descript for all the editors for a year if we pay monthly?")
    assert "**$1,440**" in answer, answer


def test_the_whole_team_is_the_notes_head_count(notes: Path) -> None:
    answer = ask("copilot business for the whole team for a yr = ?")
    assert "**$3,192**" in answer and "14 devs" in answer, answer
