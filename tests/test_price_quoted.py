"""Money questions worked out over the passage the answer quotes, when its factors sit in neighbouring sentences or
items that no single price fact holds: a rental's rate and the run's length, a box's draw and the price of a kWh, a
price each and how many are wanted, two prices compared over the same run, a rate the question states and a length
the page gives. The answer shows the sum and quotes the passage it came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.cli import app

from .conftest import ask_json, cli_over, index_notes_once, point_cli_at_folder

runner = CliRunner()

PROJECTS = """---
title: Side projects
tags: ["projects"]
date: 2025-07-01
---

# Side projects

## Finetune for the choir app

Rented an RTX A5000 on Genesis at $0.41/hr for the choir finetune. The whole finetune took 11 hrs incl eval.

## Pi cluster

The pi cluster in the closet pulls ~18W at the wall, runs 24/7.

## Accelerators

Coral USB accelerators are $59.99 each, want some for the doorbell cams.

## Render box

The club rents its RTX 3090 render box out for $15/day. A used 3090 on the forum went for $720 last week.

## Scanner box

budget for the scanner box was $500.

* used GTX 1080, got it for 150 bucks
* 1TB SSD, $69
* case $45

## Game boxes

* the 4070 Ti in the other box renders at stock (~285W).
* my own 3070 draws about 220W at full tilt in game.

## Cloud

* On GCP a V100 is $2.48/hr on demand.
* OVHcloud has the V100S at €1.93/h.

## Weather station gear

* anemometer kits, 2 of them at $89 each.
* 4x 32GB SD cards for the loggers at $9 each.
* mounting poles $25 each, one per kit.

## Kid's PC

Bought the RTX 4060 Ti 16GB for $449 for the kid's PC.

## Texture batch

For the texture batch I rented RTX A4500s on vast.ai, $0.27/hr each.

## Tower box

kill-a-watt says ~190W at the wall while training, 40W idle. A full 50 epoch training run takes ~6 hrs on the 2080 Ti.

## Protein folding run

One node of 4x L40S. On-demand was $1.50/hr per GPU, spot $0.90/hr per GPU but I didn't want restarts.
The folding run took 10h wall clock.
"""

HOUSE = """---
title: House
date: 2025-07-01
---

# House

Electricity here is $0.28/kWh since the spring.
"""

SUITE = """---
title: Test suite notes
date: 2025-07-01
---

# Conformance

The full conformance suite takes up to 30 hours on an 8 core box, the quick label about 2 hours.
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_notes_once(tmp_path_factory, "quoted", {"projects.md": PROJECTS, "house.md": HOUSE, "suite.md": SUITE})


@pytest.fixture
def notes(built: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    point_cli_at_folder(monkeypatch, built)
    return built


def ask(question: str) -> str:
    return str(ask_json(question)["answer"])


def test_a_rental_total_takes_the_length_from_the_next_sentence_of_the_quote(notes: Path) -> None:
    answer = ask("what did the choir finetune on genesis cost me")
    assert "11 h (as your note says) × $0.41/hour = **$4.51**" in answer, answer
    assert "The whole finetune took 11 hrs" in answer  # the quote it was worked from


def test_energy_is_the_quoted_draw_over_the_question_time_at_the_noted_kwh_price(notes: Path) -> None:
    answer = ask("what does the pi cluster cost in electricity over a full year")
    assert "**$44.15**" in answer, answer  # 18 W x 8,760 h = 157.68 kWh at $0.28
    assert "$0.28/kWh" in answer


def test_energy_of_one_run_is_the_draw_over_the_length_the_quote_gives_a_run(notes: Path) -> None:
    # the draw's sentence names no card, the next one the card asked about and how long a run takes
    answer = ask("power cost of one full training run on the 2080 ti?")
    assert "190 W × 6 h = 1.1 kWh" in answer and "**$0.32**" in answer, answer  # 1.14 kWh at $0.28


def test_a_count_of_a_card_the_line_names_in_the_plural(notes: Path) -> None:
    # "4 of those a4500s" over "rented RTX A4500s … $0.27/hr each": 4 × 5 h × $0.27
    answer = ask("if i rent 4 of those a4500s for 5 hours whats the bill")
    assert "**$5.40**" in answer, answer


def test_the_draw_is_the_one_of_the_card_the_question_names(notes: Path) -> None:
    answer = ask("running my 3070 3h a day for a month, power cost?")
    assert "220 W × 90 h = 19.8 kWh" in answer and "285 W" not in answer, answer
    # a quote whose first passage holds only another card's draw: that one is never taken for the card asked about
    from hwqa.prices.quoted import work_quoted
    from hwqa.prices.words import read_price_words

    words = read_price_words("running my 3070 3h a day for a month, power cost?")
    pieces = [("the 4070 Ti renders at stock (~285W). power is $0.33/kWh.", "rag.md")]
    assert work_quoted(words, pieces, None) is None
    pieces.append(("my own 3070 draws about 220W at full tilt.", "game.md"))
    worked = work_quoted(words, pieces, None)
    assert worked is not None and "220 W × 90 h" in worked.text, worked


def test_a_price_each_times_how_many_are_wanted(notes: Path) -> None:
    answer = ask("cost for four coral usb accelerators")
    assert "**$239.96**" in answer, answer


def test_a_number_of_something_else_is_no_count_of_what_is_priced_each(notes: Path) -> None:
    answer = ask("how much is the 26 tops version of the coral accelerator")
    assert "26 ×" not in answer and "$1,559.74" not in answer, answer  # "26 tops" is a speed, not 26 accelerators


def test_what_one_price_would_have_saved_over_the_other_for_the_same_run(notes: Path) -> None:
    answer = ask("how much would spot have saved on the folding run")
    assert "the difference is **$24.00**" in answer, answer  # 4 GPUs x 10 h x ($1.50 - $0.90)


def test_a_rate_the_question_states_over_a_length_the_notes_give(notes: Path) -> None:
    answer = ask("at $0.50/hr, what's the worst case bill to run the full conformance suite")
    assert "**$15.00**" in answer, answer


def test_break_even_is_the_price_paid_once_over_the_rental_rate(notes: Path) -> None:
    answer = ask("how many days of renting the club render box before a used 3090 would have paid for itself")
    assert "$720 ÷ $15/day = **48 days**" in answer, answer


def test_a_price_asked_of_another_size_is_not_the_noted_size_s_price(notes: Path) -> None:
    result = runner.invoke(app, ["ask", "how much was the 8 gig 4060ti", "--json"])
    data = json.loads(result.stdout)
    assert data["covered"] is False, data["answer"]
    assert data["answer"].startswith("Your notes price the RTX 4060 Ti at 16 GB, not the size you asked about."), data["answer"]
    assert "$449" in data["answer"]  # what they do say is quoted
    assert "16GB" in runner.invoke(app, ["ask", "how much was the 16 gig 4060ti", "--json"]).stdout


def test_what_is_left_of_a_budget_after_the_parts_the_passage_prices(notes: Path) -> None:
    answer = ask("how much of the scanner box budget is left after the parts")
    assert "$500 budget − ($150 + $69 + $45) = **$236.00** left" in answer, answer


def test_a_whole_setup_is_every_price_of_its_passage_each_times_its_count(notes: Path) -> None:
    answer = ask("what did the whole weather station gear cost, all in")
    assert "2 × $89 + 4 × $9 + 2 × $25 = **$264.00**" in answer, answer


def test_a_price_per_size_is_each_line_s_price_over_its_size() -> None:
    from hwqa.prices.quoted import work_quoted
    from hwqa.prices.words import read_price_words

    pieces = [("| Crucial X9 SSD | 2TB | $139 |\n| Seagate Expansion HDD | 12 TB | $199 |\nbought the HDD.", "disks.md")]
    worked = work_quoted(read_price_words("per tb, ssd vs hdd for the backups?"), pieces, None)
    assert worked is not None, pieces
    assert "$139 ÷ 2 TB = **$69.50/TB**" in worked.text and "$199 ÷ 12 TB = **$16.58/TB**" in worked.text, worked.text
    worked = work_quoted(read_price_words("the ssd in $/gb?"), pieces, None)
    assert worked is not None, pieces
    assert "$139 ÷ 2000 GB = **$0.07/GB**" in worked.text and "HDD" not in worked.text, worked.text


def test_a_card_asked_by_its_name_is_never_a_sibling_priced_in_another_currency(notes: Path) -> None:
    answer = ask("What would 30 hours on a V100 cost?")
    assert "$74.40" in answer and "€" not in answer.split("**From your notes:**")[0], answer


def test_a_price_lookup_is_no_sum(notes: Path) -> None:
    answer = ask("what's the rtx a5000 on genesis per hour")
    assert "×" not in answer and "$0.41/hr" in answer, answer


SORTER = """---
title: Sorter
date: 2025-07-01
---

# Sorter

## Sorter parts

* Raspberry Pi 5 8GB - $80
* camera module $25
* 2 servos at $9 each

## Playtests

renting a 4090 on vast for playtests, $0.44/hr, about 3h a day.
"""


def test_a_sum_whose_factors_the_best_spans_hold_is_worked_even_when_the_confidence_turns_the_question_away(
    tmp_path: Path,
) -> None:
    """A money question the quote can answer is planned, never turned away: with a scorer whose threshold turns
    every question away, the parts' total is still worked over the best spans; a question that is no sum is not."""
    from dataclasses import replace

    from hwqa.answer.builtin import BuiltinAnswerer
    from hwqa.answer.scorer import load_model
    from hwqa.engine import Engine

    from .conftest import built_hash_index, write_note

    write_note(tmp_path / "notes", "sorter.md", SORTER)
    engine = Engine.load(built_hash_index(tmp_path, min_score=0.0))
    engine.answerer = BuiltinAnswerer(min_score=0.0, max_sentences=3, model=replace(load_model(), threshold=0.9999))
    answer = engine.ask("what did the sorter parts come to, all in")
    assert answer.covered and "$80 + $25 + 2 × $9 = **$123.00**" in answer.text, answer.text
    assert not engine.ask("which camera module went into the sorter").covered
    # its own time and count over spans the confidence turned away: never another card's rate multiplied
    answer = engine.ask("if i grab 4 of the 48gb cards for 12 hrs whats that cost")
    assert "$0.44/hour =" not in answer.text and "$5.28" not in answer.text, answer.text


def test_a_zero_rate_or_size_is_never_divided_by() -> None:
    from hwqa.prices.quoted import work_quoted
    from hwqa.prices.words import read_price_words

    breakeven = read_price_words("how many days of renting the box before the 3090 would have paid for itself")
    assert work_quoted(breakeven, [("the box rents for $0/day. a used 3090 went for $720.", "a.md")], None) is None
    assert work_quoted(read_price_words("per tb, ssd?"), [("the ssd, 0TB, $100", "a.md")], None) is None


def test_break_even_takes_the_price_paid_the_question_names_from_the_rest_of_the_note() -> None:
    """The quote's only price paid is another note's box; the note quoted first says what the 3090 cost."""
    from hwqa.prices.quoted import work_quoted
    from hwqa.prices.words import read_price_words

    words = read_price_words("how many months of elevenlabs pro would it take to match what the 3090 cost")
    pieces = [
        ("Pricing - ElevenLabs - Creator is $22/mo, Pro $99/mo. Pro gets the 192kbps output.", "voice.md"),
        ("priced out building our own 2x used 3090 box instead, quote was $2,100 all in.", "marathon.md"),
        ("Pricing - ElevenLabs - Creator is $22/mo, Pro $99/mo. Pro gets the 192kbps output.", "voice.md"),
    ]
    context = "Pricing - ElevenLabs - Creator is $22/mo, Pro $99/mo.\nbought a used RTX 3090 for 700 bucks off a guy in Leeds"
    worked = work_quoted(words, pieces, None, context=context)
    assert worked is not None and "$700 ÷ $99/month = **7.07 months**" in worked.text, worked


def test_a_count_written_as_a_product_counts_all_of_them() -> None:
    """ "3 seeds x 5 folds" is 15 folds, each of the length the note gives."""
    from hwqa.prices.quoted import work_quoted
    from hwqa.prices.words import read_price_words

    words = read_price_words("how much more wouldve the final ensemble cost on runpod secure cloud vs community")
    quote = (
        "Pricing - RunPod - community cloud RTX 4090 was $0.34/hr, secure cloud $0.69/hr when i checked. "
        "Final ensemble = 3 seeds x 5 folds of convnext_base, each fold ~1.6 hrs on a 4090."
    )
    worked = work_quoted(words, [(quote, "kaggle.md"), (quote, "kaggle.md")], None, context=quote)
    assert worked is not None and "the difference is **$8.40**" in worked.text, worked


SHED = """---
title: Shed server
date: 2026-06-01
---

# Shed server

## Storage

* [IronWolf Pro 12TB - Seagate](https://www.seagate.com/ironwolf/) - $219 each, need 4 for the RAID 10.
* [Noctua NF-A12x25 - Noctua](https://noctua.at/en/nf-a12x25-pwm) - $32.95 each, bought three for the front of the case.
"""


shed = cli_over("quoted-shed", {"shed.md": SHED})


def test_a_total_of_what_a_line_prices_each_is_that_line_s_count_times_the_price(shed: Path) -> None:
    # the question counts nothing: "need 4" in the priced line is how many, 4 × $219
    answer = ask("what do the drives for the raid 10 come to")
    assert "**$876.00**" in answer, answer
    answer = ask("what did the case fans cost us")  # "bought three": 3 × $32.95
    assert "**$98.85**" in answer, answer
    # the price of one is what is quoted, never the line's count times it
    answer = ask("what does one ironwolf pro cost")
    assert "$876" not in answer and "$219" in answer, answer


RIG = """---
title: Training rig
date: 2026-06-02
---

# Training rig

## Build

* used 3090 + old workstation from the office + new 1000W PSU. Pulls ~420W at the wall when training.
* home electricity is $0.30/kWh.
"""


rig = cli_over("quoted-rig", {"rig.md": RIG})


def test_a_psu_s_capacity_is_never_the_draw_of_the_box(rig: Path) -> None:
    # 420 W × 10 h = 4.2 kWh at $0.30: the box's draw, never the "1000W PSU" it was built with
    answer = ask("power cost of 10 hrs training on the 3090 box")
    assert "**$1.26**" in answer and "1000 W ×" not in answer, answer


GREENHOUSE = """---
title: Greenhouse camera box
date: 2026-06-04
---

# Greenhouse camera box

## Power

* Box is left on 24/7 so the night cams keep recording, idles ~40W.
* We're on a time-of-use tariff: $0.25/kWh peak (noon to 6pm), $0.09/kWh off-peak the rest of the day.
"""


greenhouse = cli_over("quoted-greenhouse", {"greenhouse.md": GREENHOUSE})


def test_use_round_the_clock_on_a_two_rate_tariff_pays_each_rate_for_its_hours(greenhouse: Path) -> None:
    # 40 W × 720 h = 28.8 kWh at (6 h × $0.25 + 18 h × $0.09) ÷ 24 = $0.13/kWh: $3.74, never all of it at the peak rate
    answer = ask("what does leaving the box on 24/7 cost over a 30 day month")
    assert "**$3.74**" in answer and "6 h at $0.25 + 18 h at $0.09" in answer, answer
    # a rate the question names is that rate alone: 28.8 kWh at the off-peak $0.09
    answer = ask("what would 720 hours of the box cost at the off-peak rate")
    assert "**$2.59**" in answer, answer
    # "the whole peak window": the hours the tariff gives that rate (noon to 6pm), never a parts list's "whole"
    answer = ask("power cost of running the box for the whole peak window")
    assert "6 hours (noon to 6pm" in answer and "**$0.06**" in answer, answer
