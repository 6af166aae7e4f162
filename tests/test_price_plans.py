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

HOSTING = """---
title: Newspaper archive search
date: 2026-05-09
---

# Newspaper archive search

## Embeddings

* [Hetzner dedicated GPU servers](https://www.hetzner.com/dedicated-rootserver/matrix-gpu/) - GEX44 (RTX 4000 SFF Ada, 20GB) is
  €184/mo + €79 setup, cheapest way to keep a box for a few months.
* [Alveo U250 - AMD](https://www.amd.com/en/products/accelerators/alveo/u250.html) - list price was ~$7k, saw a used one on ebay
  for $1,850.
"""

notes = cli_over("plans", {"podcast.md": PODCAST, "code.md": CODE, "hosting.md": HOSTING})


def test_the_billing_the_question_names_and_the_seats_the_note_counts(notes: Path) -> None:
    # 4 editors × 12 months × $24/seat-month (the yearly billing), not $30
    answer = ask("how much is descript for all the editors for a year if we go annual?")
    assert "**$1,152**" in answer, answer
    answer = ask("how much is descript for all the editors for a year if we pay monthly?")
    assert "**$1,440**" in answer, answer


def test_the_whole_team_is_the_notes_head_count(notes: Path) -> None:
    answer = ask("copilot business for the whole team for a yr = ?")
    assert "**$3,192**" in answer and "14 devs" in answer, answer


def test_a_model_the_question_names_is_never_answered_with_another_ones_price(notes: Path) -> None:
    answer = ask("hetzner gex130 monthly price?")
    assert "€184" not in answer.split("**From your notes:**")[0] and "GEX130" in answer, answer
    answer = ask("what do second hand alveo u250s go for")  # the plural of a model it prices
    assert "no price for the U250" not in answer and "U250S" not in answer, answer


STORAGE = """---
title: Archive storage
date: 2026-05-10
---

# Archive storage

## Scans

* TIFFs are 6.2 TB total
* [Backblaze B2](https://www.backblaze.com/cloud-storage/pricing) - $6/TB/mo, no egress drama for our traffic
"""

storage = cli_over("storage", {"storage.md": STORAGE})


def test_money_asked_in_shorthand_over_a_price_per_size_and_the_size_noted(storage: Path) -> None:
    # 6.2 TB × 12 × $6: "what's that" asks the sum as "how much" does
    answer = ask("keeping the scans on b2 for a year, what's that")
    assert "**$446.40**" in answer, answer


CVAT = (
    "[CVAT pricing](https://www.cvat.ai/pricing/cloud) - CVAT Online Solo is $33/mo paid monthly or $23/mo if billed "
    "yearly. Team plan is $33 per seat per month billed yearly."
)
LABELLING = f"""---
title: Labelling tools
date: 2026-01-09
---

# Labelling tools

* {CVAT}
* for now we self-host CVAT on the GPU server for free.
"""

labelling = cli_over("labelling", {"labelling.md": LABELLING})


def test_a_plan_priced_per_seat_per_month_for_the_people_the_question_counts(labelling: Path) -> None:
    # "$33 per seat per month" is per seat; "our 4 labellers" counts four of them: 4 × 12 × $33 = $1,584
    answer = ask("cvat online team for our 4 labellers, what's that per year")
    assert "**$1,584.00**" in answer, answer
    assert "4 seats" in answer, answer


SUBSCRIPTIONS = """---
title: Subscriptions for the drone survey
date: 2026-06-02
---

# Subscriptions for the drone survey

## Mapping

* [Pricing - Pix4D](https://www.pix4d.com/pricing) - Mapper is $65/mo, or $650/yr if paid annually. We only need it in summer.
* [Sketchfab plans](https://sketchfab.com/plans) - Pro $15/mo, or $144/yr.

## Labelling

* [Pricing - Labelbox](https://labelbox.com/) - Starter $40/seat/mo billed monthly, or $30/seat/mo billed annually ($360/seat/yr).
* 3 labellers on the team this season.
"""

subscriptions = cli_over("plan-savings", {"subscriptions.md": SUBSCRIPTIONS})


def test_what_paying_yearly_saves_over_paying_monthly(subscriptions: Path) -> None:
    # 12 × $65 = $780 paid monthly against $650 for the year: $130, asked without "how much"
    answer = ask("pix4d mapper - saving from paying annually?")
    assert "**$130.00**" in answer and "$780.00" in answer, answer
    # the plan the question names, never the other "Pro"-like plan of the same note: 12 × $15 − $144 = $36
    answer = ask("sketchfab pro, what do we save going yearly")
    assert "**$36.00**" in answer, answer
    # over the period asked: 2 years of it, 24 × $65 − 2 × $650 = $260
    answer = ask("how much would paying pix4d yearly save over 2 years vs month to month")
    assert "**$260.00**" in answer, answer


def test_a_saving_per_seat_for_the_seats_asked_and_one_billing_written_two_ways(subscriptions: Path) -> None:
    # "$30/seat/mo billed annually ($360/seat/yr)" is one billing: (12 × $40 − 12 × $30) per seat = $120
    answer = ask("labelbox starter per seat, how much cheaper is annual billing over a year")
    assert "**$120.00**" in answer and "one seat" in answer, answer
    # for the 3 seats the question counts: $360
    answer = ask("how much do we save a year on labelbox for 3 seats paying annually instead of monthly")
    assert "**$360.00**" in answer, answer


WORKSHOP = """---
title: Workshop kit
date: 2026-06-03
---

# Workshop kit

## Edge box

* [Coral Dev Board - Coral](https://coral.ai/) - Dev Board 4GB, $149.99 new. Got a used one off eBay for 95 bucks.
* [Pi 5 - Raspberry Pi](https://www.raspberrypi.com/products/raspberry-pi-5/) - the 8GB one, $80.
"""

workshop = cli_over("used-saving", {"workshop.md": WORKSHOP})


def test_what_buying_used_saved_over_new(workshop: Path) -> None:
    # "$149.99 new" and "a used one … 95 bucks": $54.99 saved, asked with a word the note never writes ("secondhand")
    answer = ask("how much did i save getting the coral dev board secondhand")
    assert "**$54.99**" in answer, answer
    assert "don't mention" not in answer, answer  # "secondhand" names no sibling of the Dev Board
