"""Prices as other people write them in owner-style notes (issue 33): a card listed with a bare price is a
purchase, services and plans that name no hardware are plans (with their setup fee), an API's price per million
tokens and a monthly volume of tokens, the draws of the thing a question names with the electricity price of its
own note, rates per gigabyte said in "left out", and euros kept in euros. Every row and fact quotes its source
line, which states that price; every money question over them reaches the calculator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hwqa.cli import app

from .conftest import point_cli_at_folder, prices_table, write_note

runner = CliRunner()

SHELF = """---
title: The shelf
tags: ["hardware"]
date: 2025-03-03
---

# The shelf

## Cards

* K40 12GB - $60 from a recycler, passive cooling
* picked up two A2000s, $300 each
* the 3080 used is ~$400 right now
* rented a V100 for a day, the whole thing came to $48
* 2x P4 for $140 total

A T4 goes for about $650 these days.
"""

HOSTING = """---
title: Hosting
tags: ["hosting"]
date: 2025-04-01
---

# Hosting

## The rack

* half cabinet $550/mo with 2 kW of power
* setup fee $250, one time
* smart hands $80/hr
* cross connect $120 one-time, then $30/mo

## Storage

* object storage $0.02/GB-month
* egress $0.08/GB past the free allowance
"""

API = """---
title: API spend
tags: ["llm"]
date: 2025-05-05
---

# API spend

* Mistral Large - $2/M input, $6/M output
* Claude Haiku: $0.25 per million input tokens
* Claude Haiku on Bedrock: $0.30 per million input tokens
* embeddings (text-embedding-3-small): $0.02 per 1M tokens

We send ~15M input and ~3M output tokens a month. Monthly usage of embeddings: ~300M embedding tokens.
The API bill is about $60/mo.

* a 4090 runs $1,800 at the shop, vs the $60/mo API bill
* a used 3090 at $700 would replace the $60/mo bill, maybe
"""

POWER = """---
title: Small server
tags: ["power"]
date: 2025-06-06
---

# Small server

The NUC idles at ~7W and peaks around 40W under load. Electricity here is $0.20/kWh.
"""

GPU_BOX = """---
title: GPU box
tags: ["power"]
date: 2025-06-07
---

# GPU box

* the 3090 pulls ~340W while training and ~25W idle
* power at the other flat costs $0.12/kWh
"""

EU = """---
title: EU clouds
tags: ["cloud"]
date: 2025-02-02
---

# EU clouds

* OVHcloud L40S €1.80/h, billed hourly

| GPU | Provider | Price |
|---|---|---|
| A100 80GB | Scaleway | €2.40/h |
"""


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "notes"
    for name, text in {
        "shelf.md": SHELF,
        "hosting.md": HOSTING,
        "api.md": API,
        "power.md": POWER,
        "gpu-box.md": GPU_BOX,
        "eu.md": EU,
    }.items():
        write_note(folder, name, text)
    point_cli_at_folder(monkeypatch, folder)
    return folder


def table(notes: Path) -> dict[str, Any]:
    return prices_table(notes, "--all")


def ask(question: str) -> str:
    result = runner.invoke(app, ["ask", question, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    assert data["covered"] and data["citations"], data
    return str(data["answer"])


def facts(data: dict[str, Any], kind: str) -> set[tuple[str, float, str, str]]:
    return {(f["subject"], round(f["amount"], 4), f["unit"], f["detail"]) for f in data["facts"] if f["kind"] == kind}


def test_every_row_and_fact_is_stated_on_its_own_source_line(notes: Path) -> None:
    data = table(notes)
    for item in data["rows"] + data["facts"]:
        assert item["stated"].lstrip("~") in item["evidence"], item
        line = (notes / item["note"]).read_text(encoding="utf-8").splitlines()[item["line"] - 1]
        assert item["stated"].lstrip("~") in line, item


def test_a_card_listed_with_a_bare_price_is_a_purchase_unless_the_clause_says_it_is_a_total(notes: Path) -> None:
    data = table(notes)
    assert facts(data, "purchase") >= {
        ("K40 12GB", 60.0, "once", ""),
        ("RTX A2000", 300.0, "once", ""),  # "two A2000s, $300 each"
        ("RTX 3080", 400.0, "once", ""),  # "the 3080 used is ~$400"
        ("T4", 650.0, "once", ""),
        ("RTX 4090", 1800.0, "once", ""),
        ("RTX 3090", 700.0, "once", ""),
        ("P4", 70.0, "once", "of $140 for 2"),  # "2x P4 for $140 total": the price of both
    }
    assert not [f for f in data["facts"] if f["amount"] == 48.0]  # what a day's rental came to, not a price of the V100
    assert not data["rows"]  # no card rented by the month from a bill written next to it


def test_services_and_plans_that_name_no_hardware_are_plans_and_rates_per_gigabyte_are_said(notes: Path) -> None:
    data = table(notes)
    assert facts(data, "plan") >= {
        ("half cabinet", 550.0, "month", ""),
        ("setup fee", 250.0, "once", ""),
        ("smart hands", 80.0, "hour", ""),
        ("cross connect", 120.0, "once", ""),  # a one-off fee, however it is written
        ("cross connect", 30.0, "month", ""),  # "then $30/mo": the same thing's
        ("API bill", 60.0, "month", ""),
    }
    reasons = [item["reason"] for item in data["left_out"]]
    assert any(r.startswith("$0.02/GB-month is a rate per GB-month") for r in reasons), reasons
    assert any(r.startswith("$0.08/GB is a rate per GB") for r in reasons), reasons


def test_api_prices_per_million_tokens_and_volumes_are_facts(notes: Path) -> None:
    data = table(notes)
    assert facts(data, "tokens") >= {
        ("Mistral Large", 2.0, "mtok", "input"),
        ("Mistral Large", 6.0, "mtok", "output"),
        ("Claude Haiku", 0.25, "mtok", "input"),
        ("Claude Haiku on Bedrock", 0.3, "mtok", "input"),
    }
    assert facts(data, "usage") == {
        ("input tokens", 15.0, "month", "input"),
        ("output tokens", 3.0, "month", "output"),
        ("embedding tokens", 300.0, "month", ""),  # the period written before the volume
    }


def test_several_draws_of_one_thing_are_kept_with_what_each_is_of(notes: Path) -> None:
    assert facts(table(notes), "power") >= {
        ("NUC", 7.0, "watt", "idle"),
        ("NUC", 40.0, "watt", "under load"),
        ("RTX 3090", 340.0, "watt", "under load"),  # "~340W while training and ~25W idle": each figure's own words
        ("RTX 3090", 25.0, "watt", "idle"),
    }


def test_a_price_in_euros_is_kept_in_euros_and_said(notes: Path) -> None:
    data = table(notes)
    assert facts(data, "rental") == {("L40S", 1.8, "hour", ""), ("A100 80GB", 2.4, "hour", "")}  # a sentence, a table
    assert [f["currency"] for f in data["facts"] if f["kind"] == "rental"] == ["EUR", "EUR"]
    assert any("€1.80/h is not in US dollars: kept as written, in EUR" in item["reason"] for item in data["left_out"])


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # purchases
        ("What would three more A2000s cost?", "3 × $300.00 = **$900.00**"),
        ("What would another K40 cost?", "1 × $60.00 = **$60.00**"),
        ("What would 2 K40s cost?", "2 × $60.00 = **$120.00**"),
        ("How much did the K40 cost?", "**$60.00**"),
        # plans and services, with a one-off fee when the question includes it
        ("What's the first year of the half cabinet incl setup?", "12 × $550.00/month + $250.00 setup fee = **$6,850.00**"),
        ("What would 4 hours of smart hands cost?", "4 × $80.00 = **$320.00**"),
        # API prices: a volume asked, the volumes noted, a purchase against the monthly bill
        ("What do 15M input tokens cost on Mistral Large?", "= **$30.00**"),
        ("What do our monthly tokens cost on Mistral Large?", "together **$48.00** a month"),
        ("What do our monthly embedding tokens cost?", "300M tokens × $0.02 per million (embeddings, API spend) = **$6.00**"),
        ("How many months until a 4090 pays for itself against the API bill?", "**30.0 months**"),
        ("Where is Claude Haiku input cheaper?", "1. Claude Haiku input, API spend: **$0.25 per million tokens**"),
        # energy: the draw of the thing named, with its own note's electricity price; the other draw said too
        ("What does the NUC cost to run for a month?", "40 W × 720 h = 28.8 kWh; at $0.20/kWh that is **$5.76**"),
        ("Power bill for 100 hours of training on the 3090?", "340 W × 100 h = 34.0 kWh; at $0.12/kWh that is **$4.08**"),
        ("What's the monthly electricity cost of the NUC?", "that is **$5.76**"),
        # another currency, kept as written
        ("What would 10 hours on the OVH L40S cost?", "**€18.00**"),
        ("How much is the OVH L40S?", "**L40S** (OVHcloud): **€1.80/hour**"),
    ],
)
def test_money_questions_over_owner_style_notes_reach_the_calculator(notes: Path, question: str, expected: str) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    answer = ask(question)
    assert expected in answer, answer


def test_an_energy_answer_names_the_draw_it_used_and_says_the_other(notes: Path) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    answer = ask("What does the NUC cost to run for a month?")
    assert "28 W" not in answer and "340 W" not in answer  # never another machine's draw
    assert "draw under load" in answer and "at 7 W idle: 5.0 kWh, **$1.01**" in answer
