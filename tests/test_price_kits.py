"""What a whole kit came to, over a parts list as people write one: "what did the whole finish camera setup cost us
all together". Every one-off price of the list's lines is added, a price each times its count, when the list is long
enough to be stored in several passages, when one line prices two things ("the NVMe was $62, and a tripod $40"),
when a price sits in an aside ("$9 (the $4 ones hissed)") or a remark says "total" of something else ("$119, total
overkill"). A line giving one thing's other prices ("$599 at one shop, or $629 at another") is never added up."""

from __future__ import annotations

from pathlib import Path

from .conftest import ask_text as ask
from .conftest import cli_over

# Long list items, as people write them: the list is stored in more than one passage
_BUILD = [
    "* [Jetson Orin Nano Super Developer Kit - NVIDIA](https://developer.nvidia.com/embedded/jetson-orin-nano-devkit)"
    " - got it at $249 from the local reseller, runs the detector and the bib reader at the same time without a sweat",
    "* 2x Arducam USB global shutter cams at $89 each, one each side of the line, they run at 240 fps at 640x480"
    " which is plenty for a jog series and the odd sprint finish",
    "* [Samsung 990 EVO 1TB - Samsung](https://www.samsung.com/us/computing/memory-storage/solid-state-drives/)"
    " for the clips was $62, and a tripod off Amazon $40 that wobbles a bit in the wind but holds",
    "* cheap USB lav mic for the start gun - $9 (the $4 ones hissed too much), picks the bang up fine from 50 m away",
    "* [Corsair SF600 - Corsair](https://www.corsair.com/us/en/c/psu) - SFX 600W for the bench box, $119,"
    " total overkill for this but it was on the shelf at the store",
    "* [Pelican 1535 Air - Pelican](https://www.pelican.com/us/en/product/cases/carry-on-case/air/1535)"
    " - 305 bucks w/ the foam insert, everything lives in it between race nights",
]
CAMERA = f"""---
title: Finish line camera
tags: ["vision", "jetson"]
date: 2026-03-01
---

# Finish line camera

Club wants cheaper timing for the Tuesday 5k series than hiring the timing company, so we built our own rig.

## Our build

{chr(10).join(_BUILD)}

## Software

* yolov8n for person detection, tracks the runner crossing the line
* PaddleOCR reads the bib numbers from the crop
"""

SHOP = """---
title: Card shopping
tags: ["gpu"]
date: 2026-03-02
---

# Card shopping

## Options

* RTX 4070 Super 12GB - $599 at Micro Center, or $629 at Best Buy
* RTX 4070 Ti Super 16GB - $799 at Micro Center
"""

BOX = """---
title: Guest chatbot box
tags: ["llm"]
date: 2026-03-03
---

# Guest chatbot box

## Build (lives in the luggage room)

* Ryzen 5 7600 $189 + a B650M board $129
* 2x 32GB DDR5 at $92 each
* Fractal Pop Mini case and a Corsair RM650, $95 and $89

## Running it

* averages ~95W, on 24/7
"""

LIFTS = """---
title: Lift line wait cams
tags: ["vision"]
date: 2026-03-04
---

# Lift line wait cams

## What

* a cam counts people in the maze, wait = people in line / the lift's hourly capacity
* 5 lifts this season

## Per-lift box

* Axis M3088-V dome cam, $329
* Raspberry Pi 5 8GB, $80
* heated enclosure $65 (the Pi does not love -20°C)
"""

BIKE = """---
title: Bike shop parts recognizer
date: 2026-03-06
---

# Bike shop parts recognizer

## Counter device

* [Jetson Orin Nano Super Developer Kit](https://developer.nvidia.com/embedded/jetson-orin-nano-devkit) - $249
* Arducam 12MP USB cam $39
* 256GB NVMe $32
* exported to TensorRT, runs about 30 fps at 640, way more than needed
"""

notes = cli_over(
    "kits",
    {"finish-camera.md": CAMERA, "card-shopping.md": SHOP, "chatbot-box.md": BOX, "lifts.md": LIFTS, "bike.md": BIKE},
)


def test_a_whole_parts_list_is_added_up_over_every_passage_it_is_stored_in(notes: Path) -> None:
    # 249 + 2 × 89 + 62 + 40 + 9 + 119 + 305: the aside's $4 and the remark's "total" are not prices of the kit
    answer = ask("what did the whole finish line camera setup cost us all together")
    assert "**$962.00**" in answer, answer
    terms = answer.split("=")[0]
    assert "2 × $89" in terms and "$4 " not in terms, answer
    assert "- cheap USB lav mic for the start gun - $9" in answer, answer  # the list it added, line by line


def test_prices_written_in_one_run_are_each_things_in_turn(notes: Path) -> None:
    # 189 + 129 + 2 × 92 + 95 + 89: "$95 and $89" prices the case and the PSU, as people ask it ("in parts")
    answer = ask("what did the guest chatbot box cost in parts?")
    assert "**$686.00**" in answer, answer


def test_more_of_a_kit_listed_once_is_that_many_times_its_list(notes: Path) -> None:
    # 3 × (329 + 80 + 65): the list is headed by what one kit is for ("Per-lift box")
    answer = ask("adding 3 more lifts next winter, what's the hardware cost for those")
    assert "**$1,422.00**" in answer, answer


def test_a_part_of_a_kit_asked_is_never_its_whole_list(notes: Path) -> None:
    answer = ask("adding 3 more lifts next winter, how much just for the cameras")
    assert "$1,422.00" not in answer and "$474.00" not in answer, answer


def test_a_models_number_is_no_count_of_kits() -> None:
    """ "a hailo-8 for the queue cam" over a list headed "Parts for the queue cam": the 8 of a name, and "for" no
    thing counted (it once priced 8 kits)."""
    from hwqa.prices.passagesums import kits_asked
    from hwqa.prices.words import read_price_words

    assert kits_asked(read_price_words("how much is a hailo-8 for the queue cam"), "Parts for the queue cam") is None
    assert kits_asked(read_price_words("what would 2 more queue cams cost"), "Parts for the queue cam") == (2.0, "queue")


def test_the_list_headed_as_the_question_names_it_is_added_up(notes: Path) -> None:
    # "all together?" asks the sum; the list under "Counter device", not another note's parts
    answer = ask("counter device parts all together?")
    assert "$249 + $39 + $32 = **$320.00**" in answer, answer


def test_one_things_other_prices_are_never_added(notes: Path) -> None:
    answer = ask("what would the whole card shopping list come to all together")
    assert "$1,228" not in answer and "$2,027" not in answer, answer
