"""How many of a priced thing a money question asks for: "4 A6000 cards for 12 hrs" over a note that prices one
A6000 an hour is four of them; "me and carla" on a plan per seat is two seats; "the 9 desktops" over "each desktop
pulls ~220W" is nine draws. A note that prices the whole group ("a 4x A100 node at $7.20/hr") is not multiplied
again, and a card's number ("the 4090 box") is never a count. Sums are written to the cent, as a person working
them out writes them, and a month of use is 30 days."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ask_text as ask
from .conftest import cli_over

HOBBY = """---
title: Drone and video side projects
tags: ["projects"]
date: 2026-06-08
---

# Drone and video side projects

## Compute

* renting an RTX A6000 (48 gigs) for training at $0.79/hr, the field dataset run took 9h end to end
* a 4x A100 node on Lambda was $7.20/hr for the whole node
* the 4090 box on vast.ai is $0.42/hr

## Dubbing

* HeyGen Pricing - video translation with lip sync, Team plan $35/seat/mo. me + Carla (editor) would both need a seat.

## Night shift desktops

* each 3060 desktop pulls ~220W at the wall flat out.
* business rate here is $0.24/kWh.
"""


notes = cli_over("counts", {"hobby.md": HOBBY})


@pytest.mark.parametrize(
    ("question", "sum_"),
    [
        # a count of cards, not next to the card's name, over a price of one card an hour
        ("if i grab 4 A6000 cards for 12 hrs whats that cost", "4 cards × 12 h × $0.79/hour = **$37.92**"),
        ("what would 4 of the A6000s for 12 hrs cost me", "× 12 h × $0.79/hour = **$37.92**"),
        # "me and carla" on a plan priced per seat: two seats
        ("heygen for me and carla for 6 months, how much?", "2 seats × 6 months × $35/seat-month = **$420**"),
    ],
)
def test_the_count_the_question_asks_for_multiplies_a_price_of_one(notes: Path, question: str, sum_: str) -> None:
    answer = ask(question)
    assert sum_ in answer, answer


def test_a_price_of_the_whole_group_is_not_multiplied_by_its_size_again(notes: Path) -> None:
    answer = ask("what would the 4x A100 node cost for 10 hours")
    assert "10 h × $7.20/hour = **$72.00**" in answer, answer
    assert "$288" not in answer, answer  # never 4 × the node's price


def test_a_cards_number_is_never_a_count(notes: Path) -> None:
    answer = ask("what does the 4090 box cost for 10 hours")
    assert "$4.20" in answer, answer  # 10 h × $0.42
    assert "4090 instances" not in answer and "4,090" not in answer and "1,717" not in answer, answer


def test_energy_counts_every_machine_the_question_names_when_the_draw_is_of_each(notes: Path) -> None:
    answer = ask("power cost of running the 9 desktops flat out 10 hours a day for 30 days?")
    # 9 × 220 W × 300 h = 594 kWh; at $0.24/kWh: $142.56
    assert "9 desktops × 220 W × 300 h = 594.0 kWh" in answer and "**$142.56**" in answer, answer


def test_a_month_of_use_is_thirty_days_and_sums_keep_their_cents(notes: Path) -> None:
    answer = ask("running the A6000 6 hours a day for a month, how much?")
    # 30 days × 6 h = 180 h × $0.79 = $142.20 (a 730 h month made it 182.5 h, $144.18; whole dollars said $142)
    assert "**$142.20**" in answer, answer


def test_use_by_night_with_no_hours_a_night_is_never_worked_as_a_whole_month(notes: Path) -> None:
    answer = ask("power bill for running the 9 desktops overnight each month?")
    assert "720 h" not in answer and "720 hours" not in answer, answer  # how long a night is, nobody said


ARCHIVE = """---
title: Radio archive
date: 2026-05-01
---

# Radio archive

36 episodes in the archive so far, plus ~2,400 pages of old station logbooks scanned at 600 dpi.

## Transcripts

* rented an L4 at $0.80/hr; one episode takes ~25 min to transcribe on it.

## Logbook OCR

* GPT-4o vision came out at $0.004 per page in a test batch of 40.
"""


archive = cli_over("archive", {"archive.md": ARCHIVE})


@pytest.mark.parametrize(
    ("question", "sum_"),
    [
        # how many the note says there are, times the rate for one: 36 × 25 min × $0.80/h
        ("total cost of running every episode through the L4?", "**$12.00**"),
        # a price per page times the pages the note counts in another passage: 2,400 × $0.004
        ("what would running all the pages through gpt-4o vision cost?", "2,400 pages × $0.004/page = **$9.60**"),
    ],
)
def test_every_thing_the_note_counts_is_priced(archive: Path, question: str, sum_: str) -> None:
    answer = ask(question)
    assert sum_ in answer, answer


DUBBING = """---
title: Dubbing the channel
date: 2026-04-01
---

# Dubbing the channel

## Hosted

* [Pricing - ElevenLabs](https://elevenlabs.io/pricing) - Creator $22/mo incl. 100k credits. Pro is $99/mo.
* [HeyGen Pricing](https://www.heygen.com/pricing) - video dubbing, Team plan $40/seat/mo. me + Carla would both need a seat.

## Local

* [LatentSync - GitHub](https://github.com/bytedance/LatentSync) - lip sync, needs ~18GB VRAM.
* used 3090s locally are ~$720.
"""


dubbing = cli_over("dubbing", {"dubbing.md": DUBBING})


def test_break_even_against_a_plan_per_seat_counts_the_seats_the_question_names(dubbing: Path) -> None:
    answer = ask("how many months of heygen for both of us would pay for a used 3090 instead?")
    # $720 ÷ (2 seats × $40/month): the plan's line is named by its lead ("HeyGen Pricing"), the 3090 in another section
    assert "$720 ÷ (2 seats × $40/month) = **9 months**" in answer, answer


SWEEP = """---
title: Render sweep
date: 2026-04-01
---

# Render sweep

Plan is a sweep of 200 renders.

* GCP g2-standard-8 (1x L4 24GB) ~ $0.80/hr all in. a render takes ~9 min on it.
* [Pricing - RunPod](https://www.runpod.io/pricing) - RTX 4090 on community cloud $0.60/hr, a render is ~4 min there.
"""


sweep = cli_over("sweep", {"sweep.md": SWEEP})


def test_a_count_of_runs_times_what_one_run_takes_on_each_of_two_options(sweep: Path) -> None:
    answer = ask("the 200 render sweep: what does it cost on the gcp l4 box vs a runpod 4090?")
    # 200 × 9 min × $0.80/h = $24.00 against 200 × 4 min × $0.60/h = $8.00, each with its own line's length
    assert "200 renders × 9 min (as your note says) × $0.80/hour = **$24.00**" in answer, answer
    assert "200 renders × 4 min (as your note says) × $0.60/hour = **$8.00**" in answer, answer
    assert "the difference is **$16.00**" in answer, answer


FESTIVAL = """---
title: Subtitle drafts for the cinema
date: 2026-05-01
---

# Subtitle drafts for the cinema

* WhisperX runs on a RunPod A40 at $0.39/hr, roughly 20 min per film.
* festival in Oct: 36 films need drafts.
"""


festival = cli_over("festival", {"festival.md": FESTIVAL})


def test_a_time_per_thing_times_how_many_of_them_the_note_counts(festival: Path) -> None:
    # 36 films × 20 min × $0.39/h: the time is written after what it is per ("20 min per film")
    answer = ask("what will the whisperx drafts for the october festival cost on runpod?")
    assert "**$4.68**" in answer, answer


def test_a_question_about_one_of_them_is_not_multiplied_by_the_notes_count(festival: Path) -> None:
    answer = ask("what does whisperx on runpod cost per film?")
    assert "$4.68" not in answer, answer


NIGHTS = """---
title: Night-shift cluster
date: 2026-05-04
---

# Night-shift cluster

The studio has 9 desktops with an RTX 3060 that sit idle all night.

* wake-on-LAN at 20:00, shutdown at 06:30, so 10.5 h a night. weeknights only, call it 22 nights a month.
* each 3060 desktop pulls ~220W at the wall flat out.
* business rate here is $0.24/kWh.
"""


nights = cli_over("nights", {"nights.md": NIGHTS})


def test_use_by_night_counts_the_hours_and_nights_the_note_gives(nights: Path) -> None:
    # 9 × 220 W × 22 nights × 10.5 h = 457.4 kWh at $0.24
    answer = ask("how much does running the 9 desktops overnight add to the power bill each month?")
    assert "**$109.77**" in answer, answer
    assert "22 × 10.5 h, as your note says" in answer, answer


WORKSHOP = """---
title: Intro to ML workshop
date: 2026-05-05
---

# Intro to ML workshop

## Plan

* sponsor gave us $400 total. 25 people signed up.
* workshop GPUs: one cloud T4 box each, $0.35/hr, the session is 6h with lunch.
* pizza for everyone ~$180, stickers $45
"""


workshop = cli_over("workshop", {"workshop.md": WORKSHOP})


def test_a_price_of_one_each_times_the_people_the_question_counts(workshop: Path) -> None:
    # 30 × 8 h × $0.35/h: "one cloud T4 box each", for the people asked, not one T4 for 8 hours ($2.80)
    answer = ask("workshop gpus for 30 ppl and an 8 hour day, how much?")
    assert "30 ppl × 8 h × $0.35/hour = **$84.00**" in answer, answer


RUNS = """---
title: Engine sound model
date: 2026-05-06
---

# Engine sound model

* GCP GPU pricing - L4 on a g2-standard-4, ~$0.71/hr on-demand. One fine-tune run takes 3.5 hrs.
* Lambda GPU Cloud pricing - if the old box dies: A10 is ~$0.75/hr and one full retrain on it took 1.5 hrs when I tested
"""


runs = cli_over("runs", {"runs.md": RUNS})


@pytest.mark.parametrize(
    ("question", "sum_"),
    [
        ("4 fine-tune runs on the L4, cost?", "4 runs × 3.5 h (as your note says) × $0.71/hour = **$9.94**"),
        ("what would 10 retrains on a rented A10 cost me", "10 retrains × 1.5 h (as your note says) × $0.75/hour = **$11.25**"),
    ],
)
def test_a_count_of_runs_times_what_the_note_says_one_takes(runs: Path, question: str, sum_: str) -> None:
    answer = ask(question)
    assert sum_ in answer, answer


THEATRE = """---
title: Theatre live captioning
date: 2026-05-07
---

# Theatre live captioning

## Box

* used RTX 3090 for £620 off eBay, the whole box came to £1,140
* pulls ~380W at the wall while captioning (whisper + the aligner)
* shows are 3 hrs incl interval, 8 a week in season. Electric is 24.5p/kWh on the theatre's tariff

## Display

* LED caption board rental, £95 a week from the sign place
"""


theatre = cli_over("theatre", {"theatre.md": THEATRE})


def test_power_for_the_occasions_a_week_holds_at_a_tariff_in_pence(theatre: Path) -> None:
    # 8 shows × 3 h × 380 W = 9.1 kWh at 24.5p: a week of shows is 24 hours of use, not 168
    answer = ask("what does running the caption box cost in power for a week of shows")
    assert "8 × 3 hrs, as your note says" in answer and "£0.245/kWh" in answer and "**£2.23**" in answer, answer


SURF = """---
title: Surf school wave forecast
date: 2026-05-08
---

# Surf school wave forecast

Old gaming PC in the back office, GTX 1070 8 gigs. Retrain runs overnight, takes about 6 hrs. Pulls ~210W at the wall.

* Lambda GPU Cloud pricing - if the 1070 dies: A10 is ~$0.75/hr and one full retrain on it took 1.5 hrs when I tested
"""


surf = cli_over("surf", {"surf.md": SURF})


def test_a_cards_number_is_no_count_of_runs_and_electricity_is_never_a_rental(surf: Path) -> None:
    answer = ask("if the 1070 retrains every night for a month (30 nights) what does that cost in electricity")
    assert "1,070 retrains" not in answer and "$577,800" not in answer and "× $0.75/hour" not in answer, answer


MARATHON = """---
title: Race photo tagging
date: 2026-05-11
---

# Race photo tagging

## Compute

* renting 2x RTX 4090 on Vast.ai, ~$0.38/hr each. a full marathon takes about 9 hrs on the pair.
* Pricing - Wasabi - $6.99/TB/mo, a marathon is ~1.2 TB of jpegs and we keep them 90 days.
"""


marathon = cli_over("marathon", {"marathon.md": MARATHON})


def test_a_rental_of_several_priced_each_over_the_length_of_the_thing_asked_per(marathon: Path) -> None:
    # 2 × 9 h × $0.38: the pair is rented, each at $0.38/hr; the marathon's 9 hrs, not the 90 days of storage
    answer = ask("what does gpu rental cost us per marathon?")
    assert "**$6.84**" in answer, answer


def test_a_question_about_one_of_the_group_is_not_multiplied(marathon: Path) -> None:
    answer = ask("what does one gpu on vast cost for 10 hours?")
    assert "$7.60" not in answer and "2 RTX 4090" not in answer, answer


DENTAL = """---
title: Pano x-ray triage box
date: 2026-05-12
---

# Pano x-ray triage box

* fine-tuned on a rented A100 40G from Lambda, $1.29/hr, took about 6 hrs end to end.
"""


dental = cli_over("dental", {"dental.md": DENTAL})


def test_how_often_a_run_happens_counts_the_runs_a_period_holds(dental: Path) -> None:
    # 4 runs a year × 6 h × $1.29, not a year of the card around the clock (8,760 h, $11,300.40)
    answer = ask("if we retrain the xray model every quarter on the rented a100, what's that a year")
    assert "4 runs × 6 h (as your note says) × $1.29/hour = **$30.96**" in answer, answer


KILN = """---
title: Kiln camera box
date: 2026-05-06
---

# Kiln camera box

* the inference box pulls ~300W while the kiln runs, and the kiln runs 8 h a day.
* workshop electricity is $0.30/kWh.
"""


kiln = cli_over("kiln", {"kiln.md": KILN})


def test_a_daily_power_cost_is_the_hours_a_day_the_note_gives(kiln: Path) -> None:
    # 300 W × 8 h = 2.4 kWh at $0.30 (the question's "daily" once failed with an internal KeyError)
    answer = ask("whats the daily electricity cost of the inference box?")
    assert "**$0.72**" in answer, answer
