"""The price reader's precision (issue 33): no row or fact whose source line does not state that price for that thing.

What a line says a number is decides whether it is a price at all: a total, a bill, a refund, credits, a payout,
a budget, a price alert or target, a difference, a figure worked out from others and the price the owner sold a
card at are no price of a thing; a TDP, a PSU's or UPS's capacity, a power limit and a card's figure no word calls
a draw are no draw. Which thing a price is of: the nearest hardware name of its own clause, else words that name a
thing, never a verb or filler ("Paid", "more like", "adds"), and a heading only when it names a thing. What the
reader cannot attribute goes to "left out", with its reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from .conftest import point_cli_at_folder, prices_table, write_note

runner = CliRunner()

MONEY_IN_AND_OUT = """---
title: Money in and out
tags: ["costs"]
date: 2025-05-02
---

# Money in and out

## Cloud

* Last month's RunPod bill was $212, mostly one long fine-tune.
* The whole sweep came to $96 in the end on an L4.
* Lambda refunded $40 after the node died mid-run; the A100 itself was $1.29/hr.
* got $300 in Azure credits from a hackathon, used them on a T4.
* Vast charged me $14.50 for the weekend on a 4090.

## Cards

* Sold my old 2080 Ti for $310 and the 1070 for $95 to a friend.
* got $120 for my old 1660 Super from a coworker.
* Target: a used A6000 under $3,000.
* Picked up a used 3090 for $640 off a miner.
* Vast.ai payout for lending the 3090 out over the holidays was $57.
* Price alert set at $1,400 for a 4090; it never fired.
* Budget $3k, maybe a second 3090 if they drop under $600.
* The 4080 Super was about $200 cheaper than the 4090 that week.

## Running costs

* Idle box ~45W, that's ~$9/mo just sitting there.
"""

POWER = """---
title: Power notes
tags: ["power"]
date: 2025-05-03
---

# Power notes

## Power

* The 3090 is rated 350W TDP; I cap mine at 280W with nvidia-smi.
* Both cards hang off a 1200W Seasonic, which has never tripped.
* UPS: CyberPower 1500VA / 1000W, $210 on sale.
* The 4070 Ti stock is 285W and it's quiet.
* Mac mini M2 Pro maxes out around 80W when compiling.
* Idles at 7W, less than one 3090 at idle.
* An old 4x P100 server draws 1.4kW under load.
* The 8x A100 box is ~6.5kW peak (per spec sheet).

## My rig

* Idle is ~90W with both cards at 18W each.

## Render box

* Uncapped it pulls ~1,050W at the wall under load.
"""

NAMES = """---
title: Buying and hosting
tags: ["hardware"]
date: 2025-05-04
---

# Buying and hosting

## Colo

* The 4U with the 3090 box would need 6A there, so more like $220/mo all in, on top of a $120 install fee.

## Bits

* Picked up the 1080 Ti for $180 and the 2070 Super for $240 from the same seller.
* Paid $1,200 for the Mac mini; AppleCare+ adds $99.
* Bought 2x 8TB WD Red drives at $150 each.
* Spent $1,150 on a Threadripper 3960X, used.
* The PSU is a 1000W Corsair RM1000x, $190.

## Subscriptions

* Paid $20/mo for Colab Pro last year.

## TPU

* v5e is $1.20 per chip-hour on-demand, v4 is $3.22 per chip-hour.
"""


SHORTHAND = """---
title: APIs and odds and ends
tags: ["llm"]
date: 2025-05-05
---

# APIs and odds and ends

* Mistral Small $0.20/M in, $0.60/M out, fine for tagging.
* Llama 3 70B at $0.88 per million tokens on Together, 8B is $0.18/1M.
* Samsung 990 Pro 2TB NVMe for the scratch disk, $169 on a Prime Day deal.
* Swapped the 1080 Ti for a used 3090, $650 shipped.
* My 4090 box cost $2,900 with the case and the PSU.
* Electricity for the 3090 rig runs ~$35/mo in winter.
* I'd pay up to $1/hr for an H100, not more.
* [EC2 G5](https://aws.amazon.com/ec2/g5/) - g5.xlarge: one A10G, $1.01/hr on demand. g5.12xlarge has 4 of them for ~$5.67/hr.
* Jetson AGX Orin dev kit - the fun one. list price was ~$1,999, saw a used one on ebay for $1,100.
* 2024: took the full $4,200 as a Section 179 deduction.
"""


PLANS = """---
title: Subscriptions
tags: ["costs"]
date: 2025-05-06
---

# Subscriptions

* Colab Pro+ is $49.99/mo, that's $600 a year.
* Dropped Claude Pro, $20/mo, after the API got cheap.
* My budget for rentals is $60/mo, roughly 25 hours of A100.
* Total subscriptions come to about $45/mo.
* At 3,000 hr/yr renting on Lambda is ~$9,600/yr. Keep renting.
* Backblaze B2, 1,200 GB at $6/TB-month for the archive.
"""


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "notes"
    for name, text in {
        "money.md": MONEY_IN_AND_OUT,
        "power.md": POWER,
        "names.md": NAMES,
        "short.md": SHORTHAND,
        "plans.md": PLANS,
    }.items():
        write_note(folder, name, text)
    point_cli_at_folder(monkeypatch, folder)
    return folder


def table(notes: Path) -> dict[str, Any]:
    return prices_table(notes, "--all")


def listed(data: dict[str, Any], note: str) -> set[tuple[str, str, str]]:
    """(kind, what it is of, the amount as stated) of every row and fact read from ``note``."""
    rows = {("rental", r["hardware"], r["stated"]) for r in data["rows"] if r["note"] == note}
    return rows | {(f["kind"], f["subject"], f["stated"]) for f in data["facts"] if f["note"] == note}


def left_out(data: dict[str, Any], note: str) -> str:
    return "\n".join(f"{item['text']} :: {item['reason']}" for item in data["left_out"] if item["where"].startswith(note))


def test_totals_refunds_credits_payouts_budgets_alerts_sales_and_differences_are_no_price(notes: Path) -> None:
    data = table(notes)
    # the prices these lines do state, of the thing they state them for
    assert listed(data, "money.md") == {
        ("rental", "A100", "$1.29/hr"),
        ("purchase", "RTX 3090", "$640"),
        ("power", "Idle box", "45W"),  # its "$9/mo" is worked out from it
    }
    said = left_out(data, "money.md")
    for stated, why in [
        ("$212", "a total or a bill"),
        ("$96", "a total or a bill"),
        ("$40", "a refund"),
        ("$300", "credit"),
        ("$310", "sold it for"),
        ("$95", "sold it for"),
        ("$57", "payout"),
        ("$1,400", "alert or target"),
        ("$3k", "budget"),
        ("$600", "alert or target"),
        ("$200", "a difference"),
        ("$9/mo", "worked out"),
        ("$14.50", "a total or a bill"),
        ("$120", "sold it for"),
        ("$3,000", "alert or target"),
    ]:
        assert any(stated in line and why in line for line in said.splitlines()), (stated, said)


def test_ratings_limits_capacities_and_figures_no_word_calls_a_draw_are_no_draws(notes: Path) -> None:
    data = table(notes)
    draws = {(f["subject"], f["stated"]) for f in data["facts"] if f["kind"] == "power" and f["note"] == "power.md"}
    assert draws == {
        ("Mac mini M2 Pro", "80W"),  # "maxes out around 80W"
        ("Mac mini M2 Pro", "7W"),  # "Idles at 7W": the thing the sentence before was about, never the "Power" heading
        ("P100", "1.4kW"),
        ("My rig", "90W"),  # the heading names a thing; "both cards at 18W each" is no draw of the rig
        ("Render box", "1,050W"),  # a thousands comma is part of the figure, never where it starts
    }
    assert [f["amount"] for f in data["facts"] if f["kind"] == "power" and f["stated"] == "1,050W"] == [1050.0]
    # the UPS's price is still a purchase; its 1000W is its capacity
    assert ("purchase", "UPS", "$210") in {(f["kind"], f["subject"].split(":")[0], f["stated"]) for f in data["facts"]}


def test_a_price_is_of_the_nearest_thing_of_its_clause_and_never_of_a_verb_or_filler(notes: Path) -> None:
    data = table(notes)
    got = listed(data, "names.md")
    assert {
        ("purchase", "GTX 1080 Ti", "$180"),
        ("purchase", "RTX 2070 Super", "$240"),
        ("plan", "install fee", "$120"),
        ("purchase", "Threadripper 3960X", "$1,150"),  # "Spent $1,150 on a Threadripper": what it cost
        ("purchase", "1000W Corsair RM1000x", "$190"),  # the thing the PSU is, never "PSU is a ..."
        ("plan", "Colab Pro", "$20/mo"),  # never "Paid"
        ("rental", "TPU v5e", "$1.20 per chip-hour"),
        ("rental", "TPU v4", "$3.22 per chip-hour"),
    } <= got
    # "more like $220/mo" is the colo's, not a rent of the 3090; "AppleCare+ adds $99" names no thing
    assert not {item for item in got if item[2] in ("$220/mo", "$99")}, got
    assert "$220/mo: its clause names neither hardware nor the thing it is the price of" in left_out(data, "names.md")
    subjects = {item[1].lower() for item in got}
    for filler in ("more like", "on top of a", "paid", "applecare+ adds", "bought"):
        assert filler not in subjects
    assert any(item[0] == "purchase" and item[2] == "$150" and "WD Red" in item[1] for item in got), got


def test_api_prices_written_short_and_a_thing_named_before_what_it_is_for(notes: Path) -> None:
    data = table(notes)
    tokens = {
        (f["subject"], f["amount"], f["detail"]) for f in data["facts"] if f["kind"] == "tokens" and f["note"] == "short.md"
    }
    assert tokens == {
        ("Mistral Small", 0.2, "input"),  # "$0.20/M in"
        ("Mistral Small", 0.6, "output"),
        ("Llama 3 70B", 0.88, ""),
        ("8B", 0.18, ""),  # "$0.18/1M" after a price per million tokens is another
    }
    assert ("purchase", "Samsung 990 Pro 2TB NVMe", "$169") in listed(data, "short.md")  # not what it is for


def test_a_card_before_a_comma_a_box_named_by_its_card_and_running_costs_and_limits_per_month_or_hour(notes: Path) -> None:
    data = table(notes)
    got = listed(data, "short.md")
    assert ("purchase", "RTX 3090", "$650") in got  # "a used 3090, $650": never the 1080 Ti it replaced
    assert ("purchase", "4090 box", "$2,900") in got  # the box, not the card
    # "Electricity for the 3090 rig runs ~$35/mo" is no rent of a 3090; "I'd pay up to $1/hr" no price of an H100
    assert not [item for item in got if item[2] in ("$35/mo", "$1/hr")], got
    said = left_out(data, "short.md")
    assert "$35/mo is a running cost (electricity)" in said and "$1/hr is a limit, budget, alert or target" in said


def test_a_sentence_begun_in_lower_case_is_a_sentence_and_its_one_is_the_items_own_name(notes: Path) -> None:
    data = table(notes)
    rows = {(r["hardware"], r["stated"]) for r in data["rows"] if r["note"] == "short.md"}
    assert rows == {("A10G", "$1.01/hr"), ("g5.12xlarge", "$5.67/hr")}  # never the other's price
    got = listed(data, "short.md")
    # "2024: took the full" is no name; "list price was ~$1,999" and "a used one on ebay" are of the item's own name
    assert not [item for item in got if item[2] == "$4,200"], got
    assert {
        ("purchase", "Jetson AGX Orin dev kit list price", "$1,999"),
        ("purchase", "Jetson AGX Orin dev kit used", "$1,100"),
    } <= got


def test_a_plan_named_after_a_verb_and_no_plan_of_a_budget_a_total_or_a_sum(notes: Path) -> None:
    data = table(notes)
    assert listed(data, "plans.md") == {("plan", "Colab Pro+", "$49.99/mo"), ("plan", "Claude Pro", "$20/mo")}
    said = left_out(data, "plans.md")
    for stated, why in [("$600 a year", "worked out"), ("$60/mo", "budget"), ("$45/mo", "a total")]:
        assert any(stated in line and why in line for line in said.splitlines()), (stated, said)


def test_an_amount_of_use_is_no_thing_and_a_thousands_comma_splits_no_name(notes: Path) -> None:
    """ "At 3,000 hr/yr renting on Lambda is ~$9,600/yr": a figure worked from a use, no plan of "000 hr/yr renting"."""
    data = table(notes)
    subjects = {subject for _, subject, _ in listed(data, "plans.md")}
    assert not any(s.startswith(("000", "3,000")) for s in subjects), subjects
    assert any("$9,600/yr" in line for line in left_out(data, "plans.md").splitlines())


def test_a_run_log_prices_rentals_and_earned_money_thresholds_and_bought_credits_are_read_as_written(tmp_path: Path) -> None:
    """A run log's cost over its hours is the rate rented at (never a price to buy the card); money a channel makes
    and a bound ("> $50/mo") are no price; "$5/mo for 30k credits" is a plan (the credits are what it buys), named
    with the site of its link; "$35 month to month" is per month, "$12 per finished minute" per minute, and "$230 incl
    shipping" what the card cost."""
    notes = tmp_path / "notes"
    write_note(
        notes,
        "log.md",
        "---\ntitle: Run log\n---\n# Run log\n\n"
        "| date | run | where | gpu | hrs | cost |\n|---|---|---|---|---|---|\n"
        "| 2026-03-14 | v1 | RunPod community | 1x 4090 | 6.5 | $2.21 |\n"
        "| 2026-08-05 | v4 | Vast.ai | 2x 3090 | 8 | $3.04 |\n",
    )
    write_note(
        notes,
        "money.md",
        "---\ntitle: Money\n---\n# Money\n\n"
        "* keep the 3060, rent RunPod for the back catalogue, revisit when YPP money is > $50/mo\n"
        "* the studio quoted $12 per finished minute, no way on a channel making ~$31/mo from AdSense\n"
        "* [ElevenLabs - Pricing](https://elevenlabs.example/pricing) - Starter $5/mo for 30k credits, Creator $22/mo.\n"
        "* [Descript - Pricing](https://descript.example/pricing) - Creator plan $24/mo if billed yearly, $35 month to month.\n"
        "* RTX 3060 12GB bought used on eBay in Oct 2025 for $230 incl shipping.\n",
    )
    data = table(notes)
    assert listed(data, "log.md") == {("rental", "RTX 4090", "$2.21"), ("rental", "RTX 3090", "$3.04")}
    rates = {r["hardware"]: (round(r["usd_per_hour"], 2), r["provider"]) for r in data["rows"] if r["note"] == "log.md"}
    assert rates == {"RTX 4090": (0.34, "RunPod"), "RTX 3090": (0.19, "Vast.ai")}  # $3.04 / 8 h / 2 cards
    assert listed(data, "money.md") == {
        ("plan", "ElevenLabs Starter", "$5/mo"),
        ("plan", "ElevenLabs Creator", "$22/mo"),
        ("plan", "Descript Creator plan", "$24/mo"),
        ("plan", "Descript Creator plan", "$35 month to month"),
        ("purchase", "RTX 3060", "$230"),
    }
    said = [item["reason"] for item in data["left_out"] if item["where"].startswith("money.md")]
    reasons = {reason.split(" is ")[0]: reason for reason in said}
    assert "alert or target" in reasons["$50/mo"]
    assert "came back or in" in reasons["$31/mo"]  # what the channel makes


def test_a_table_mixing_hourly_rentals_and_one_off_prices_reads_each_as_written(tmp_path: Path) -> None:
    """ "| used RTX 3090 24GB | $700 |" beside "| rent RTX 4090 (runpod) | $0.34/hr |": the card to buy and the card to
    rent, never the $700 left out for having no time unit."""
    notes = tmp_path / "notes"
    write_note(
        notes,
        "options.md",
        "---\ntitle: Options\n---\n# Options\n\n| option | price | note |\n|---|---|---|\n"
        "| used RTX 3090 24GB | $700 | local listings |\n| RTX 4060 Ti 16GB | $449 | new |\n"
        "| rent RTX 4090 (runpod) | $0.34/hr | only for sweeps |\n",
    )
    data = table(notes)
    assert listed(data, "options.md") == {
        ("purchase", "RTX 3090", "$700"),
        ("purchase", "RTX 4060 Ti", "$449"),
        ("rental", "RTX 4090", "$0.34/hr"),
    }


def test_lambda_before_a_card_names_the_cloud(tmp_path: Path) -> None:
    """ "lambda A10s at $0.75/hr … but I mostly use runpod": Lambda's price, never RunPod's; "lambda" alone (a
    function) names no provider."""
    notes = tmp_path / "notes"
    write_note(
        notes,
        "budget.md",
        "---\ntitle: Budget\n---\n# Budget\n\n"
        "* idea is lambda A10s at $0.75/hr when the closet box can't cope, but I mostly use runpod so this will stretch.\n"
        "* a lambda function in the pipeline renames the files; the L4 at $0.80/hr does the rest.\n",
    )
    rows = {(r["hardware"], r["provider"]) for r in table(notes)["rows"]}
    assert rows == {("A10", "Lambda"), ("L4", "not stated")}


def test_a_geforce_number_before_a_word_starting_with_w_is_the_card() -> None:
    """ "the 4090 was $0.69/hr", "a 3090 with 24GB": the card, read as a rental (a draw, "350 w", is still no card)."""
    from hwqa.prices.names import find_hardware

    assert [m.name for m in find_hardware("secure cloud 4090 was $0.69/hr")] == ["RTX 4090"]
    assert [m.name for m in find_hardware("a 3090 with 24GB went for $700")] == ["RTX 3090"]
    assert find_hardware("a 1050 w psu") == [] and find_hardware("core at 2080 mhz") == []


def test_one_got_of_a_list_items_own_thing_is_it_not_the_parts_it_came_with(tmp_path: Path) -> None:
    """ "Dell Precision 7820 Tower - got one off eBay for $420, dual Xeon Silver 4114": the tower is what cost $420,
    the Xeon named after the price is what it came with."""
    folder = tmp_path / "notes"
    write_note(
        folder,
        "server.md",
        "---\ntitle: Club GPU server\ndate: 2025-11-01\n---\n\n# Club GPU server\n\n"
        "* [Dell Precision 7820 Tower - Dell](https://www.dell.com/precision-7820) - got one off eBay for $420, dual Xeon "
        "Silver 4114, 64GB RAM, the stock 950W PSU.\n",
    )
    got = listed(table(folder), "server.md")
    assert ("purchase", "Dell Precision 7820 Tower", "$420") in got, got
    assert not [item for item in got if item[1].startswith("Xeon")], got


def test_prices_in_and_out_are_per_million_tokens_a_grant_is_no_price_and_a_size_is_no_count(tmp_path: Path) -> None:
    """ "Mistral Small $0.10 in / $0.30 out" prices a model's tokens (never two purchases, nor a division); a grant
    line in quotes is money in; "50 GB for €12" is a data pack, never 50 of a "GB" at €0.24."""
    folder = tmp_path / "notes"
    write_note(
        folder,
        "apis.md",
        "---\ntitle: Transcript summaries\ndate: 2026-02-01\n---\n\n# Transcript summaries\n\n## Models\n\n"
        "* [Mistral pricing](https://mistral.ai/pricing) - Mistral Small $0.10 in / $0.30 out.\n"
        "* Command R $0.15 input, $0.60 output.\n\n## Money\n\n"
        '* Grant line for "travel, tools and compute" is £2,500 for the year.\n'
        "* prepaid SIM for the field router, 50 GB for €12.\n",
    )
    data = table(folder)
    got = listed(data, "apis.md")
    assert ("tokens", "Mistral Small", "$0.10 in") in got and ("tokens", "Mistral Small", "$0.30 out") in got, got
    assert ("tokens", "Command R", "$0.15 input") in got and ("tokens", "Command R", "$0.60 output") in got, got
    assert not [item for item in got if item[0] == "purchase" and item[2].startswith(("$0.", "£2,500"))], got
    assert not [item for item in got if "€0.24" in item[2] or item[1] == "GB"], got
    assert "£2,500 is money that came back or in" in left_out(data, "apis.md"), left_out(data, "apis.md")


def test_a_minimum_order_money_put_on_an_account_and_a_verb_are_no_price_of_a_thing(tmp_path: Path) -> None:
    """ "$0.08 per frame, $400 minimum order" prices frames, the minimum is a bound; "put $200 on the account" is
    money to spend later; "charges us $45/hr" names no thing with "charges us". Each is left out, said why."""
    folder = tmp_path / "notes"
    write_note(
        folder,
        "labels.md",
        "---\ntitle: Labelling\ndate: 2026-03-01\n---\n\n# Labelling\n\n"
        "* KeyFrame Labs - quote was $0.08 per frame, $400 minimum order, 10 day turnaround.\n"
        "* Sam put $200 on the account in March.\n"
        "* the physio scores the clips herself and charges us $45/hr for it.\n",
    )
    data = table(folder)
    got = listed(data, "labels.md")
    assert not [item for item in got if item[2] in ("$400", "$200") or item[1].lower().startswith(("sam put", "charges"))], got
    said = left_out(data, "labels.md")
    assert "$400 is a limit, budget, alert or target" in said and "$200 is a limit, budget, alert or target" in said, said


BUY_OR_RENT = """---
title: Second card
date: 2025-06-02
---

# Second card

Right now ~80 hrs/month of GPU work.

| option | upfront | per hour |
|---|---|---|
| used 3090 (r/hardwareswap) | $720 | power only |
| Vast.ai 3090, good host | - | $0.30 |

Ignoring power: a used 3090 will probably still sell for ~$500 in two years.
"""


def test_an_upfront_column_holds_purchase_prices_and_a_resale_value_is_no_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A buy-or-rent table's "upfront" column is what each card costs to buy; what the card "will still sell for" later
    is a resale value, left out with its reason; a break-even then buys at the upfront price."""
    notes = tmp_path / "notes"
    write_note(notes, "second.md", BUY_OR_RENT)
    data = table(notes)
    assert ("purchase", "RTX 3090", "$720") in listed(data, "second.md"), data["facts"]
    assert ("rental", "RTX 3090", "$0.30") in listed(data, "second.md"), data["rows"]
    assert not any(f["stated"] == "~$500" or f["amount"] == 500 for f in data["facts"]), data["facts"]
    assert "$500 is a resale value" in left_out(data, "second.md"), data["left_out"]
    from hwqa.cli import app

    point_cli_at_folder(monkeypatch, notes)
    assert runner.invoke(app, ["index"]).exit_code == 0
    question = "used 3090 vs just renting the vast 3090 at my usage - how many months till buying pays off"
    answer = runner.invoke(app, ["ask", question])
    assert answer.exit_code == 0 and "$720" in answer.stdout and "30 months" in answer.stdout, answer.stdout


CLOUDS = """---
title: Cloud rentals
date: 2025-05-19
---

# Cloud rentals

## RunPod

RTX 4090 community cloud $0.69/hr, A100 80G secure cloud $1.89/hr.

## Lambda

H100 PCIe $2.49/hr, A10 (24GB) $0.75/hr. Usually sold out in the evening.
"""


def test_a_section_headed_lambda_names_the_cloud_of_its_prices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "## Lambda" over "H100 PCIe $2.49/hr": Lambda's price (alone, "lambda" is a function too; a heading is the
    cloud). Asked the A100 on Lambda, the notes price it only on RunPod: said so, never RunPod's $1.89 as Lambda's."""
    notes = tmp_path / "notes"
    write_note(notes, "clouds.md", CLOUDS)
    rows = {(r["hardware"], r["provider"]) for r in table(notes)["rows"]}
    assert {("H100 PCIe", "Lambda"), ("A10", "Lambda"), ("A100", "RunPod")} <= rows, rows
    from hwqa.cli import app

    point_cli_at_folder(monkeypatch, notes)
    assert runner.invoke(app, ["index"]).exit_code == 0
    answer = runner.invoke(app, ["ask", "how much is an a100 on lambda per hour"])
    assert "no price for the A100 on Lambda" in answer.stdout and "$1.89 per hour" not in answer.stdout, answer.stdout
    # "per hr" asks a price like "per hour"; the thing not priced is said as the question writes it
    answer = runner.invoke(app, ["ask", "lambda a100 per hr"])
    assert "no price for the Lambda A100" in answer.stdout and "$1.89 per hour" not in answer.stdout, answer.stdout


WASH = """---
title: Printer farm
date: 2025-05-01
---

# Printer farm

* [Mercury Plus 2.0 wash and cure - Elegoo](https://www.elegoo.com/products/mercury-plus-2-0) - $99, one shared by all four.
"""


def test_a_list_items_own_name_keeps_its_version_dot(tmp_path: Path) -> None:
    """ "Mercury Plus 2.0 wash and cure - Elegoo - $99": the item's own name runs to the " - " (a version's dot is no
    sentence end), so the $99 is the wash station's, never the maker's ("Elegoo: $99")."""
    notes = tmp_path / "notes"
    write_note(notes, "farm.md", WASH)
    subjects = {f["subject"] for f in table(notes)["facts"] if f["stated"] == "$99"}
    assert len(subjects) == 1 and next(iter(subjects)).startswith("Mercury Plus 2.0 wash and cure"), subjects


SHELF = """---
title: Printer farm
date: 2025-05-01
---

# Printer farm

Back shelf: 4x Elegoo Saturn 3 Ultra for the shop's terrain. Bought them at $379 each in the spring sale.

Also got both for $500 last winter, no idea what.
"""


def test_a_price_of_them_is_of_what_the_sentence_before_counted(tmp_path: Path) -> None:
    """ "4x Elegoo Saturn 3 Ultra … Bought them at $379 each": the printers' price, one each; a "both" whose sentence
    before counts nothing is no one's price."""
    notes = tmp_path / "notes"
    write_note(notes, "farm.md", SHELF)
    bought = {(f["subject"], f["amount"]) for f in table(notes)["facts"] if f["kind"] == "purchase"}
    assert bought == {("Elegoo Saturn 3 Ultra", 379.0)}, bought


KIT = """---
title: Truck kit
date: 2026-04-02
---

# Truck kit

* [Raspberry Pi AI Kit - Raspberry Pi](https://www.raspberrypi.com/products/ai-kit/) - Hailo-8L M.2, $70. Pi 5 8GB is another $80.
* [APC Back-UPS Pro 1500VA - APC](https://www.apc.com/) - $219, ~10 min runtime for the box at training load.
"""


def test_another_names_no_thing_and_an_items_own_name_beats_its_makers(tmp_path: Path) -> None:
    """ "Pi 5 8GB is another $80": the Pi's price, never a thing called "another"; "APC Back-UPS Pro 1500VA - APC -
    $219": the UPS the item names, not "APC", the maker its link title ends with."""
    notes = tmp_path / "notes"
    write_note(notes, "kit.md", KIT)
    bought = {(f["subject"], f["stated"]) for f in table(notes)["facts"] if f["kind"] == "purchase"}
    assert ("APC Back-UPS Pro 1500VA", "$219") in bought, bought
    assert not any(subject.lower() in ("another", "apc") for subject, _ in bought), bought


def test_a_quantity_with_its_unit_before_a_price_is_no_count_of_the_thing(tmp_path: Path) -> None:
    """ "6 axis, 600 g payload, ~$3,499 list": the arm costs $3,499, never 600 of something at $5.83."""
    text = (
        "# Robot arms\n\n"
        "* [uFactory Lite 6 - UFACTORY](https://www.ufactory.cc/) - 6 axis, 600 g payload, ~$3,499 list.\n"
        "* [uFactory xArm 6 - UFACTORY](https://www.ufactory.cc/) - 5 kg payload, ~$8,999, overkill for bottles.\n"
    )
    write_note(tmp_path / "notes", "arms.md", text)
    facts = prices_table(tmp_path / "notes", "--all")["facts"]
    amounts = sorted(f["amount"] for f in facts if f["kind"] == "purchase")
    assert amounts == [3499.0, 8999.0], facts
