"""Money questions about every one of a group the notes count ("ups for every hut", "the remaining boxes"): the count
the notes give is written into the question, the answer multiplies by it and says which line gave it."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ask_json, cli_over, index_notes_once, point_cli_at_folder, prices_table

HUTS = """---
title: Lift huts
tags: ["edge"]
date: 2026-10-01
---

# Lift huts

## Plan

* One edge box per lift hut. 7 lifts on the mountain, so 7 huts.
* Already have 2 boxes (used), need the rest before opening day.

## Power

* [APC Back-UPS Pro 1500 - APC](https://www.apc.com/) - $269, rides through the generator switchover.
* [reComputer J4012 - Seeed](https://www.seeedstudio.com/) - Orin NX box, $899 new.
* So ~60W per hut normal, ~120W on cold days with the heater.
* Day rate $0.24/kWh (7am-9pm), night rate $0.11/kWh (9pm-7am).
"""

RACK = """---
title: Rack parts
date: 2026-10-02
---

# Rack parts

* patch panel $45, shelf $60, cable kit $30
* [Noctua fan - Noctua](https://noctua.at/) - $25.

## Solar

* [Renogy 200 Watt 12 Volt Panel - Renogy](https://www.renogy.com/) - $189 each, 2 of them on the roof.
* [Victron MPPT 100/30 - Victron](https://www.victronenergy.com/) - $155.

## Buy or rent

* Keep renting a RunPod 4090 at ~$0.44/hr.
* set myself a $120 cap for the A100 runs this winter.

| option | upfront | monthly |
|---|---|---|
| rent 4090 | $0 | ~150 hrs x $0.44 |
"""


BOUGHT = """---
title: Club kit
date: 2026-10-03
---

# Club kit

* [Dell Precision 7820 Tower - eBay](https://www.ebay.co.uk/itm/7820)
  Got it used for $640, 2x Xeon Silver 4114, 64 gigs ECC RAM, no GPU.
* [Google One plans - Google](https://one.google.com/about/plans) - 2 TB plan is $9.99/mo or $99.99/yr paid yearly.
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_notes_once(tmp_path_factory, "noted-count", {"huts.md": HUTS, "rack.md": RACK, "kit.md": BOUGHT})


@pytest.fixture
def notes(built: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    point_cli_at_folder(monkeypatch, built)
    return built


def ask(question: str) -> str:
    return str(ask_json(question)["answer"])


def test_a_thing_for_every_one_of_a_group_the_notes_count_is_that_many_of_it(notes: Path) -> None:
    answer = ask("apc ups for every hut, total")
    assert answer.startswith("Counting 7 huts: the 7 huts your notes give"), answer
    assert "7 × $269.00 = **$1,883.00**" in answer, answer


def test_the_rest_of_a_group_is_the_count_less_the_ones_the_notes_say_are_had(notes: Path) -> None:
    answer = ask("what would j4012 boxes for the remaining huts cost")
    assert "less the 2 you have" in answer, answer
    assert "5 × $899.00 = **$4,495.00**" in answer, answer


def test_a_count_written_before_a_priced_thing_or_a_group_multiplies_its_price(notes: Path) -> None:
    assert "3 × $269.00 = **$807.00**" in ask("3 apc ups, what would that cost")
    assert "4 × $25.00 = **$100.00**" in ask("noctua fans for 4 racks, total cost")


def test_a_total_asked_of_a_thing_priced_alone_is_never_another_lines_total(notes: Path) -> None:
    assert "$45.00 + $60.00 + $30.00" not in ask("rack fan total?")
    assert "$45.00 + $60.00 + $30.00 = **$135.00**" in ask("what did the rack parts come to in total")


def test_a_size_or_rating_before_a_price_each_is_no_count_of_it(notes: Path) -> None:
    answer = ask("what did the whole solar setup come to")
    assert "2 × $189 + $155 = **$533.00**" in answer, answer


def test_a_cap_and_a_sum_worked_out_in_a_table_cell_are_no_prices(notes: Path) -> None:
    data = prices_table(notes)
    rows = [(r["hardware"], round(r["usd_per_hour"], 2)) for r in data["rows"]]
    assert rows == [("RTX 4090", 0.44)], rows
    assert not [f for f in data["facts"] if f["amount"] == 120 and f["kind"] == "purchase"], data["facts"]
    reasons = " ".join(item["reason"] for item in data["left_out"])
    assert "a sum worked out" in reasons and "a limit, budget, alert or target" in reasons, reasons


def test_energy_for_every_hut_over_the_hours_of_a_rate_at_that_rate(notes: Path) -> None:
    day = ask("power bill for all huts over the day-rate hours on a normal day")
    assert "Counting 7 huts" in day and "7 huts × 60 W × 14 h" in day and "at $0.24/kWh that is **$1.41**" in day, day
    night = ask("cold night with the heaters on, all huts from 9pm to 7am - electricity cost?")
    assert "7 huts × 120 W × 10 h" in night and "at $0.11/kWh that is **$0.92**" in night, night
    assert "at $0.11/kWh" in ask("power cost for one hut on a cold day with the heater, 10 hours overnight"), (
        "the night rate, asked"
    )


def test_a_time_of_day_is_no_hardware_without_a_price(notes: Path) -> None:
    answer = ask("what does renting the runpod 4090 from 9pm to 7am cost")
    assert "9pm" not in answer.split("\n\n")[0] or "10 h" in answer, answer


def test_got_it_below_a_link_is_the_linked_things_price_and_a_plan_keeps_its_size(notes: Path) -> None:
    facts = {(f["subject"], f["amount"]) for f in prices_table(notes)["facts"] if f["note"] == "kit.md"}
    assert ("Dell Precision 7820 Tower", 640.0) in facts, facts  # never half of it for each of its 2 Xeons
    plans = {amount for subject, amount in facts if subject.endswith("2 TB plan")}
    assert plans == {9.99, 99.99}, facts  # never "TB plan", its size lost


MARKET = """---
title: Market stall cameras
date: 2026-06-05
---

# Market stall cameras

## Pilot

* Pilot goes on the five busiest stalls, one camera over each till.

## Hardware

* [RLC-510A - Reolink](https://reolink.com/product/rlc-510a/) - $64 each new, 5MP PoE.
"""


market = cli_over("noted-market", {"market.md": MARKET})


def test_a_count_written_in_words_with_a_word_between_it_and_the_group(market: Path) -> None:
    # "the five busiest stalls": five stalls, for "every pilot stall" (and "the whole" asks as "every" does)
    answer = ask("a reolink for every pilot stall, total?")
    assert "5 × $64.00 = **$320.00**" in answer and "Counting 5" in answer, answer
