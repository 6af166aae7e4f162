"""Prices as people write them (issue 33): a list item's price of the hardware its lead-in or heading names,
an untagged table, cloud instance types, purchases, plans and power, each read into one model of a price fact
(rentals per hour as rows, everything else as facts), and every money question over them answered by the
calculator, with 0 rows whose source line does not state that price for that item."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hwqa.cli import app

from .conftest import point_cli_at_folder, prices_table, write_note

runner = CliRunner()

HOME_LAB = """---
title: Home lab
tags: [hardware]
date: 2025-02-10
---

# Home lab

## The RTX 3090

* [r/hardwareswap](https://www.reddit.com/r/hardwareswap/) - where I found my used RTX 3090 for 650 bucks, shipped.
* [TH review](https://www.tomshardware.com/reviews/rtx-3090) - says the card pulls about 350 W under load; my meter agrees.
* Power here costs $0.15/kWh on the evening tariff, so long runs are not free.

## What the shops asked

| Card | Shop | Price |
|---|---|---|
| RTX 4090 | Micro Center | $1,599 |
| RTX 3090 | eBay (used) | 1.2k |
"""

CLOUD_RENTALS = """---
title: Cloud rentals
tags: [cloud]
date: 2025-03-01
---

# Cloud rentals

## A100 80GB

Where I rented an A100 80GB this winter:

* [Lambda](https://lambdalabs.com/service/gpu-cloud) - ~$1.29/hr on-demand, the one I keep going back to.
* [RunPod](https://www.runpod.io/) - $1.19/hr on the community cloud, but spot only.

## AWS instances

* [g6.xlarge](https://aws.amazon.com/ec2/instance-types/g6/) - one L4, about $0.80/hr on-demand, my default for inference tests.
* [p3.2xlarge](https://aws.amazon.com/ec2/instance-types/p3/) - a single V100 for $3.06/hr; old but everywhere.

## Plans and hosting

* [Paperspace Gradient](https://www.paperspace.com/gradient) - the Pro plan is $8/month and comes with free M4000 notebooks.
* [Colab Pro](https://colab.research.google.com/signup) - $9.99/mo, usually a T4, sometimes a V100.
* Colocating the 8-GPU H100 server at the local datacenter runs $4,500/month including power.

## Price sheet I copied

| GPU | Provider | On-demand $/hr |
|---|---|---|
| H100 80GB | Lambda | $2.49 |
| L40S | CoreWeave | €0.89/h |

## RTX 4090 boxes

* [Vast.ai](https://vast.ai/) - around $0.40/hr when the market is quiet, double that on weekends.
* [TensorDock](https://www.tensordock.com/) - $0.37/hr, fewer regions.
"""


@pytest.fixture
def owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    notes = tmp_path / "notes"
    write_note(notes, "home-lab.md", HOME_LAB)
    write_note(notes, "cloud-rentals.md", CLOUD_RENTALS)
    point_cli_at_folder(monkeypatch, notes)
    return notes


def table(notes: Path) -> dict[str, Any]:
    return prices_table(notes)


def ask(question: str, *flags: str) -> dict[str, Any]:
    result = runner.invoke(app, ["ask", question, "--json", *flags])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


RENTALS = {
    # hardware, provider, pricing, $/h: each stated on its own line, for that hardware
    ("A100 80GB", "Lambda", "on-demand", 1.29),  # the lead-in "Where I rented an A100 80GB" names it
    ("A100 80GB", "RunPod", "spot", 1.19),
    ("L4", "AWS", "on-demand", 0.80),  # stated for a g6.xlarge
    ("V100", "AWS", "on-demand", 3.06),  # stated for a p3.2xlarge
    ("H100 80GB", "Lambda", "on-demand", 2.49),  # an untagged table with a price column
    ("RTX 4090", "Vast.ai", "on-demand", 0.40),  # the heading "RTX 4090 boxes" names it
}


def test_rentals_are_read_from_list_items_lead_ins_headings_and_untagged_tables_and_nothing_else(owner: Path) -> None:
    data = table(owner)
    rows = {(r["hardware"], r["provider"], r["pricing"], round(r["usd_per_hour"], 2)) for r in data["rows"]}
    assert rows >= RENTALS
    # no plan, colocation or purchase became a rental: no T4 or M4000 from a notebook plan, no H100 from colocation
    assert {r["hardware"] for r in data["rows"]} <= {"A100 80GB", "L4", "V100", "H100 80GB", "RTX 4090"}
    for row in data["rows"]:  # every row's line states that price: the amount as written is in its evidence
        assert row["stated"].lstrip("~") in row["evidence"], row
        assert row["usd_per_hour"] < 10, row


def test_instance_types_are_what_their_price_was_stated_for(owner: Path) -> None:
    rows = {r["instance"]: r for r in table(owner)["rows"] if r["instance"]}
    assert (rows["g6.xlarge"]["hardware"], rows["g6.xlarge"]["instance_devices"]) == ("L4", 1)
    assert rows["p3.2xlarge"]["hardware"] == "V100"


def test_purchases_plans_electricity_and_power_are_facts_of_their_own(owner: Path) -> None:
    facts = {(f["kind"], f["subject"], f["amount"], f["currency"], f["unit"]) for f in table(owner)["facts"]}
    assert facts >= {
        ("purchase", "RTX 3090", 650.0, "USD", "once"),  # "650 bucks"
        ("purchase", "RTX 4090", 1599.0, "USD", "once"),  # a shop's price in an untagged table
        ("power", "RTX 3090", 350.0, "W", "watt"),  # the heading names the card
        ("electricity", "electricity", 0.15, "USD", "kwh"),
        ("plan", "Paperspace Gradient Pro plan", 8.0, "USD", "month"),
        ("plan", "Colab Pro", 9.99, "USD", "month"),
    }
    assert [f for f in table(owner)["facts"] if f["kind"] == "plan" and f["amount"] == 4500.0]  # colocation, not an H100


def test_a_price_in_another_currency_or_written_ambiguously_is_left_out_with_its_reason(owner: Path) -> None:
    reasons = [item["reason"] for item in table(owner)["left_out"]]
    assert any("€0.89/h is not in US dollars" in reason for reason in reasons)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What would 30 hours on a g6.xlarge cost?", "$24.00"),  # an instance type is hardware to the calculator
        ("What's a year of the Pro plan?", "12 × $8.00/month = **$96.00**"),
        ("What does Colab Pro cost per year?", "**$119.88**"),
        ("What's the power bill for 300 hours of training?", "350 W × 300 h = 105.0 kWh; at $0.15/kWh that is **$15.75**"),
        ("What would two more of the card I bought cost?", "2 × $650.00 = **$1,300.00**"),
        ("How much would colocation cost for 6 months?", "**$27,000.00**"),
        ("Should I buy an RTX 4090 or keep renting one?", "Buying for $1,599 costs the same as renting it for **3,998 hours**"),
    ],
)
def test_every_money_question_over_the_facts_reaches_the_calculator(owner: Path, question: str, expected: str) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    data = ask(question)
    assert expected in data["answer"], data["answer"]
    assert data["covered"] and data["citations"]


def test_a_break_even_cites_the_purchase_price_it_used(owner: Path) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    cited = "\n".join(c["text"] for c in ask("Should I buy an RTX 4090 or keep renting one?")["citations"])
    assert "| RTX 4090 | Micro Center | $1,599 |" in cited and "$0.40/hr" in cited


PRICE_TABLE_NOTE = """
---
title: Cloud prices
tags: [prices]
---
# Cloud prices

| hardware | provider | type | usd_per_hour | pricing | as_of |
|---|---|---|---|---|---|
| TPU v3 | GCP | tpu | 8.00 | on-demand | 2021-06-01 |
| P100 | GCP | gpu | 1.46 | on-demand | 2021-06-01 |
"""

OWNER_NOTE = """
---
title: Hardware for Machine Learning
tags: [hardware]
---
# Hardware for Machine Learning

## TPU - GPU

* TPUs are ~5x as expensive as GPUs ($1.46/hr for a Nvidia Tesla P100 GPU vs $8.00/hr for a Google TPU v3 vs $4.50/hr
  for the TPUv2 with on-demand access on GCP). A TPUv3-8 gives compute equivalent to 8 V100 Tesla GPU.
"""


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    notes = tmp_path / "notes"
    write_note(notes, "cloud-prices.md", PRICE_TABLE_NOTE)
    write_note(notes, "hardware-for-machine-learning.md", OWNER_NOTE)
    point_cli_at_folder(monkeypatch, notes)
    assert runner.invoke(app, ["index"]).exit_code == 0
    return notes


def test_a_note_filter_keeps_that_notes_own_prices(bundled: Path) -> None:
    data = ask("How much does a TPU v3 cost per hour?", "--note", "Hardware for Machine Learning")
    assert "hold no prices" not in data["answer"]
    assert data["answer"].startswith("**TPU v3** on GCP costs **$8.00 per hour**")
    assert {c["source"] for c in data["citations"]} == {"hardware-for-machine-learning.md"}


@pytest.mark.parametrize(
    ("question", "not_said"),
    [
        ("Is a TPU worth 5x the price of a GPU?", "no hourly price for the 5x"),
        ("How many V100s is a TPUv3-8 worth?", "no hourly price for a V100s"),
    ],
)
def test_words_near_hardware_are_not_read_as_hardware_without_a_price(bundled: Path, question: str, not_said: str) -> None:
    assert not_said not in ask(question)["answer"]


def _conversation(*questions: str) -> list[str]:
    """Each question asked after the ones before it (the chat's history), the answers in order."""
    from hwqa import Engine, load_settings

    engine = Engine(load_settings(env=dict(os.environ)))
    history: list[dict[str, str]] = []
    answers = []
    for question in questions:
        text = engine.ask(question, history).text
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": text}]
        answers.append(text)
    return answers


@pytest.fixture
def both(owner: Path) -> Path:
    write_note(owner, "cloud-prices.md", PRICE_TABLE_NOTE)
    write_note(owner, "gpus.md", "---\ntitle: GPU memory\n---\n# GPU memory\n\nThe NVIDIA L4 has 24 GB of GDDR6 memory.\n")
    assert runner.invoke(app, ["index"]).exit_code == 0
    return owner


def test_and_for_three_days_reuses_the_instance_and_says_so(both: Path) -> None:
    _, follow = _conversation("What would 30 hours on a g6.xlarge cost?", "and for three days?")
    assert follow.startswith("Using g6.xlarge from your earlier question.")
    assert "For a job that takes 72.0 h on g6.xlarge" in follow and "$57.60" in follow


def test_how_much_memory_does_it_have_is_about_the_hardware_before(both: Path) -> None:
    _, follow = _conversation("What would 30 hours on a g6.xlarge cost?", "how much memory does it have?")
    assert follow.startswith("Taking “it” to mean the L4 of the g6.xlarge, from your earlier question.")
    assert "24 GB" in follow


def test_what_about_on_gcp_keeps_the_budget_and_names_only_that_providers_options(both: Path) -> None:
    _, follow = _conversation("TPU or GPU for my budget of $100?", "what about on GCP?")
    assert follow.startswith("Using the budget of $100, GPUs and TPUs from your earlier question.")
    table = [line for line in follow.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert table and all(line.rstrip(" |").endswith("GCP") for line in table)


def test_a_monthly_budget_too_small_says_what_a_month_costs_not_relax_the_filters(both: Path) -> None:
    answer = ask("TPU or GPU for my budget of $100 per month?")["answer"]
    assert "relax" not in answer
    assert "**Nothing fits $100 for 720 h:**" in answer


@pytest.mark.parametrize(
    "question",
    ["I need two more hours on the RTX 3090, is that a lot?", "What is the Pro plan?", "Does Colab Pro give me a V100?"],
)
def test_plain_questions_that_mention_a_priced_thing_are_not_taken_over(owner: Path, question: str) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    assert not [call for call in ask(question)["tool_calls"] if call["name"] == "price_facts"]


@pytest.mark.parametrize(
    "sentence",
    [
        "* I used a V100 for $300 total last month, then stopped.",  # a total, not what a V100 costs to buy
        "* The run on the A100 cost me $42 all told.",
    ],
)
def test_a_total_spent_is_not_a_purchase_price(tmp_path: Path, sentence: str) -> None:
    notes = tmp_path / "notes"
    write_note(notes, "log.md", f"---\ntitle: Log\n---\n# Log\n\n{sentence}\n")
    data = table(notes)
    assert not data["facts"] and not data["rows"]


def test_with_a_chat_model_a_plan_question_opens_with_the_worked_sum(owner: Path) -> None:
    from hwqa import Engine, load_settings

    from .fake_openai import FakeOpenAI, text

    assert runner.invoke(app, ["index"]).exit_code == 0
    with FakeOpenAI([text("The plan is cheap.")]) as fake:
        settings = load_settings(env=dict(os.environ)).replace(
            llm_backend="openai", llm_base_url=fake.base_url, llm_model="m", llm_timeout=5.0
        )
        answer = Engine.load(settings).ask("What's a year of the Pro plan?")
    assert answer.text.startswith("1 year of Paperspace Gradient Pro plan at $8.00/month: 12 × $8.00/month = **$96.00**")
    assert answer.tool_calls[0].name == "price_facts" and answer.citations[0].source == "cloud-rentals.md"


def test_a_plan_is_named_by_the_words_before_its_price_and_a_rate_per_gigabyte_is_no_plan(tmp_path: Path) -> None:
    """Several plans in one sentence each take the name written just before their price, after the site the link's
    title names ("Pricing - Fernbook": Fernbook, never the page word "Pricing"); a storage rate per GB-month is a rate
    per amount, not the price of a plan."""
    notes = tmp_path / "notes"
    write_note(
        notes,
        "subs.md",
        "---\ntitle: Subscriptions\n---\n# Subscriptions\n\n"
        "* [Pricing - Fernbook](https://fernbook.example/pricing) - notebook plans: Starter $8/mo, Studio $39/mo (fast).\n"
        "* [Pricing - Modelhub](https://modelhub.example/pricing) - PLUS is $9/mo; public repos are free.\n"
        "* [Object storage - Bucketco](https://bucketco.example) - Standard is $0.023/GB-mo; egress is what hurts.\n",
    )
    plans = {(f["subject"], f["amount"]) for f in table(notes)["facts"] if f["kind"] == "plan"}
    assert plans == {("Fernbook Starter", 8.0), ("Fernbook Studio", 39.0), ("Modelhub PLUS", 9.0)}


def test_a_list_item_ending_in_a_colon_names_the_hardware_of_the_items_nested_under_it(tmp_path: Path) -> None:
    """'* A4000 16G:' with its prices as sub-items: each sub-item is that card's price (the bare 'A4000' is
    the RTX A4000); the item after the nested list is no longer under it."""
    notes = tmp_path / "notes"
    write_note(
        notes,
        "rent.md",
        "---\ntitle: Renting\n---\n# Renting\n\n## Where I rented\n\n"
        "* A4000 16G:\n  * on-demand $0.76/hr\n  * spot / interruptible $0.47/hr\n"
        "* L4 24G: $0.80/hr on-demand.\n"
        "* the notebook box was $0.30/hr, no idea which card\n",
    )
    data = table(notes)
    rows = {(r["hardware"], r["usd_per_hour"], r["pricing"]) for r in data["rows"]}
    assert rows == {("RTX A4000", 0.76, "on-demand"), ("RTX A4000", 0.47, "spot"), ("L4", 0.8, "on-demand")}
    assert any("$0.30/hr" in item["reason"] for item in data["left_out"])


def test_a_per_gpu_price_in_a_table_cell_is_not_divided_by_the_nodes_devices(tmp_path: Path) -> None:
    """ "8x H100 SXM" in one cell and "$2.99/hr per GPU" in the next: the price is already per device."""
    notes = tmp_path / "notes"
    note = (
        "---\ntitle: Options\n---\n# Options\n\n"
        "| option | what | price |\n|---|---|---|\n"
        "| burst | 8x H100 SXM on-demand | $2.99/hr per GPU |\n"
        "| node | 8x A100 80GB node | $14.32/hr |\n"
    )
    write_note(notes, "options.md", note)
    rows = {r["hardware"]: round(r["usd_per_hour"], 2) for r in table(notes)["rows"]}
    assert rows.get("H100 SXM") == 2.99, rows
    assert rows.get("A100 80GB") == 1.79, rows  # a price for the node: ÷ 8


RATINGS_AND_ACCESSORIES = """---
title: Rig
---
# Rig

## Power

* 3090 is rated 350W TDP; the box pulls ~780W at the wall.
* UPS: APC 1500VA / 900W, $230 refurbished.
* Running a 70B the Mac pulls ~140W vs ~780W for my 3090 box.
cpu for comparison: i5-6500 w/ Eigen ~19, so dont.

## Parts

* the 3090s take the NVLink bridge; got a used one for $80.
"""


def test_ratings_are_no_draws_and_a_price_in_another_clause_is_not_the_cards(tmp_path: Path) -> None:
    """A TDP, a rating and a UPS's capacity are not what a card draws; a figure said before the card is named, in
    another clause, is not the card's; the bridge's $80 is not what an RTX 3090 costs."""
    notes = tmp_path / "notes"
    write_note(notes, "rig.md", RATINGS_AND_ACCESSORIES)
    facts = {(f["subject"], f["kind"], f["amount"]) for f in table(notes)["facts"]}
    assert ("RTX 3090", "power", 350.0) not in facts and ("RTX 3090", "power", 780.0) in facts, facts
    assert not any(kind == "power" and amount in (900.0, 1500.0) for _, kind, amount in facts), facts
    assert ("RTX 3090", "power", 140.0) not in facts, facts
    assert not any(subject == "RTX 3090" and kind == "purchase" for subject, kind, _ in facts), facts
    assert not any(kind == "power" and amount == 6500.0 for _, kind, amount in facts), facts  # "w/" is "with"


def test_a_price_asked_of_hardware_the_notes_mention_but_never_price_is_not_covered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notes say something of the H200 but no price: the answer says so (not covered) and still quotes them;
    a question about the same hardware that asks no price is answered from them."""
    notes = tmp_path / "notes"
    write_note(notes, "cloud-rentals.md", CLOUD_RENTALS)
    write_note(
        notes,
        "next-gen.md",
        "---\ntitle: Next gen\n---\n# Next gen\n\n* [H200 - NVIDIA](https://www.nvidia.com/en-us/data-center/h200/) - "
        "141 GB of HBM3e; Lambda lists the H200 as coming soon.\n",
    )
    point_cli_at_folder(monkeypatch, notes)
    assert runner.invoke(app, ["index"]).exit_code == 0
    priced = ask("What does an H200 cost per hour?")
    assert priced["covered"] is False
    assert "no hourly price for a H200" in priced["answer"] or "no hourly price for an H200" in priced["answer"]
    assert "coming soon" in priced["answer"]  # what the notes do say is still quoted
    memory = ask("How much memory does the H200 have?")
    assert memory["covered"] is True and "141 GB" in memory["answer"]


def test_a_purchase_is_never_the_price_of_a_thing_without_the_card_the_question_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bare GeForce number in lower case, plural ("the 3080s"), names a card: a rig of 3070s was no 3080's price."""
    notes = tmp_path / "notes"
    write_note(
        notes,
        "rig.md",
        "---\ntitle: Mining rig\n---\n# Mining rig\n\n"
        "* bought a whole ETH mining rig off a guy in 2023 for $1,800: 6x RTX 3070 8GB, ASRock H110 board.\n"
        "* [Vast.ai](https://vast.ai/) - a 4090 is ~$0.40/hr.\n",
    )
    point_cli_at_folder(monkeypatch, notes)
    assert runner.invoke(app, ["index"]).exit_code == 0
    other = ask("what did the 3080s in the mining rig go for")
    assert other["covered"] is False and "1,800" not in other["answer"]
    assert "$1,800.00" in ask("what did the 3070s in the mining rig go for")["answer"]


def test_a_rental_log_s_where_column_is_its_provider(tmp_path: Path) -> None:
    """A rental log's "where" column says where each card was rented: "Lambda" there is the provider, a name the
    prose reader does not take alone ("a lambda" is a function to Python)."""
    notes = tmp_path / "notes"
    write_note(
        notes,
        "rentals.md",
        "---\ntitle: Rentals\n---\n# Rentals\n\n"
        "| date | where | gpu | $/hr | hrs |\n|---|---|---|---|---|\n"
        "| 2025-04-11 | RunPod community | RTX 4090 | 0.69 | 6.5 |\n"
        "| 2025-07-08 | Lambda | H100 PCIe | 2.49 | 2 |\n",
    )
    rows = {(r["hardware"], r["provider"]) for r in table(notes)["rows"]}
    assert rows == {("RTX 4090", "RunPod"), ("H100 PCIe", "Lambda")}, rows


def test_interruptible_is_spot(tmp_path: Path) -> None:
    """Vast.ai calls its spot instances "interruptible": a price said so is never an on-demand row."""
    notes = tmp_path / "notes"
    write_note(
        notes,
        "vast.md",
        "---\ntitle: Vast\n---\n# Vast\n\n"
        "* [Vast.ai - rent GPUs](https://vast.ai/pricing) - 3090s go for ~$0.19/hr interruptible, got bumped twice.\n",
    )
    rows = {(r["hardware"], r["provider"], r["pricing"]) for r in table(notes)["rows"]}
    assert rows == {("RTX 3090", "Vast.ai", "spot")}, rows
