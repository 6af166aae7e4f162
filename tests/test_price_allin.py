"""A total over a period of something priced once and per month, week or year (hwqa.prices.allin): the one-off price
once plus the recurring one over the length asked, each per a thing times the count the question gives; and no such
sum when which one-off goes with which recurring price is not said, or a price is per a thing the question counts not."""

from __future__ import annotations

from pathlib import Path

from .conftest import ask_text as ask
from .conftest import cli_over

SHELTER = """---
title: Animal shelter tech
date: 2026-05-03
---

# Animal shelter tech

## Kennel cameras

* [PawWatch kennel streams](https://example.com/pawwatch) - rep quoted $350 install per kennel + $18/kennel/month to stream.
* adopters love watching the dogs from home, the board wants it for the adoption wing.

## Kiosk

* the lobby adoption kiosk is a touchscreen from KioskCo, £1,200 onboarding, then £2,400 a year for the licence.
* volunteers update the animal profiles on it every morning.

## Server

* rented a small OVH Rise-2 box for the adoption site: $95/mo plus a $150 one-time setup fee.
* it also runs the volunteer rota app.

## Lift boxes

* every lift box needs a LinkPort modem: $120 setup each + $9/box/month for the data plan.

## Door alarm

* SafeDoor monitoring for the back gate: basic is $60 install + $15/mo; premium is $150 install + $28/mo.

## Newsletter

* Buttondown plan for the adopters newsletter is $29/month.
* Buttondown onboarding was a one-time $50.

## Van tracker

* FleetDot tracker on the rescue van, setup is $90 or $140 (with the harness), and it's $12 or $20 a month depending on the plan.
"""

MARKET = """---
title: Saturday market stall
date: 2026-04-11
---

# Saturday market stall

## Pitch

* council pitch at the harbour market: €300 joining fee + €45/wk while the season runs.
* we share the van with the bakery next door.

## Card reader

* SumPay reader, bought it at the start, no monthly fee.
"""

shelter = cli_over("shelter", {"shelter.md": SHELTER, "market.md": MARKET})


def test_a_one_off_per_thing_and_a_monthly_per_thing_for_the_count_asked_over_the_first_year(shelter: Path) -> None:
    # 6 × $350 + 6 × $18/kennel/month × 12 months = $2,100 + $1,296 = $3,396
    answer = ask("pawwatch cams for all 6 kennels, first year all in?")
    assert "**$3,396**" in answer, answer
    assert "$350 install per kennel" in answer and "$18/kennel/month" in answer, answer
    # no count of kennels: no sum guessed for one
    answer = ask("pawwatch for the adoption wing, first year all in?")
    assert "the one-off price once" not in answer and "**$566**" not in answer, answer


def test_a_setup_each_goes_with_what_the_monthly_price_is_per(shelter: Path) -> None:
    # 3 × $120 + 3 × $9/box/month × 24 months = $360 + $648 = $1,008
    answer = ask("linkport modems for 3 lift boxes over 2 years, what's that all told?")
    assert "**$1,008**" in answer, answer


def test_a_monthly_server_and_its_setup_fee_over_the_months_asked_altogether(shelter: Path) -> None:
    # $150 + 6 × $95 = $720
    answer = ask("if we keep the rise-2 box for 6 months how much do we pay ovh altogether?")
    assert "**$720**" in answer, answer
    assert "$150 one-time setup fee" in answer, answer


def test_a_yearly_licence_and_its_onboarding_over_two_years_in_total(shelter: Path) -> None:
    # £1,200 + £2,400/year × 2 years = £6,000
    answer = ask("what does the kioskco kiosk come to in total over 2 years?")
    assert "**£6,000**" in answer, answer


def test_a_weekly_price_and_a_joining_fee_over_the_weeks_asked(shelter: Path) -> None:
    # €300 + €45/wk × 8 weeks = €660
    answer = ask("harbour market pitch for 8 weeks, what's that in total?")
    assert "**€660**" in answer, answer
    # which of two setups goes with which of two monthly prices is not said: no sum of a guessed pair
    answer = ask("fleetdot tracker on the van, first year all in?")
    assert "the one-off price once" not in answer, answer
    for guess in ("$234", "$330", "$380", "$284"):  # 90 or 140, + 12 or 20 × 12
        assert f"**{guess}**" not in answer, answer


def test_a_plans_setup_fee_on_a_line_of_its_own_is_in_a_total_over_months(shelter: Path) -> None:
    # the price facts: $29/month × 6 months + the $50 one-time onboarding = $224 (it was said beside $174)
    answer = ask("buttondown for 6 months, what do we pay altogether?")
    assert "**$224.00**" in answer, answer


def test_of_two_options_on_one_line_the_one_the_question_names(shelter: Path) -> None:
    # premium: $150 + $28/mo × 12 months = $486
    answer = ask("safedoor premium, first year all in?")
    assert "**$486**" in answer, answer
    answer = ask("safedoor on the back gate, first year all in?")  # which option is not said
    assert "the one-off price once" not in answer, answer
