"""Recognising price and budget questions and turning them into price-calculator requests."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwqa.answer.priceplan import find_hardware_mentions, plan_price_question, plan_price_request
from hwqa.answer.pricetool import run_price_calculator
from hwqa.answer.question import parse_question
from hwqa.notes.note import parse_note
from hwqa.prices import CalcRequest, PriceTable, load_price_table

NOTE = """---
title: Prices
tags: [prices]
---
| hardware | provider | type | usd_per_hour | speed | memory_gb | pricing |
|---|---|---|---|---|---|---|
| P100 | GCP | gpu | 1.46 | 0.5 | 16 | on-demand |
| TPU v2-8 | GCP | tpu | 4.50 | 2.9 | 64 | on-demand |
| TPU v3-8 | GCP | tpu | 8.00 | 8.0 | 128 | on-demand |
| TPU v3-8 | GCP | tpu | 2.40 | 8.0 | 128 | preemptible |
| V100 | GCP | gpu | 2.48 | 1.0 | 16 | on-demand |
| T4 | AWS | gpu | 0.526 | 0.4 | 16 | on-demand |
| A100 40GB | AWS | gpu | 4.10 | 2.0 | 40 | on-demand |
| A100 80GB | AWS | gpu | 5.12 | 2.2 | 80 | on-demand |
| RTX 3090 | Lambda | gpu | 0.80 | 1.2 | 24 | on-demand |
| n2-standard-8 | GCP | cpu | 0.39 |  | 32 | on-demand |
"""


@pytest.fixture(scope="module")
def table() -> PriceTable:
    t = load_price_table([parse_note(NOTE, "prices.md")])
    assert t.problems == []
    return t


def parse_price_question(
    question: str, table: PriceTable | None = None, previous: CalcRequest | None = None
) -> CalcRequest | None:
    """The question parsed once, planned over ``table``."""
    return plan_price_request(parse_question(question), table, previous)


def price_question_warnings(question: str) -> tuple[str, ...]:
    return parse_question(question).price.warnings


def parse(question: str, table: PriceTable, previous: CalcRequest | None = None) -> CalcRequest:
    query = parse_price_question(question, table, previous)
    assert query is not None, question
    return query


def stated(query: CalcRequest) -> dict[str, Any]:
    """The request's fields that differ from the defaults."""
    default = CalcRequest()
    return {k: v for k, v in query.__dict__.items() if v != getattr(default, k)}


def named(query: CalcRequest) -> tuple[str, ...]:
    """The hardware the question named, in order (the reference first, then the names compared)."""
    return tuple(dict.fromkeys(([query.hardware] if query.hardware else []) + list(query.compare)))


@pytest.mark.parametrize(
    ("question", "budget"),
    [
        ("I have $500", 500),
        ("I have 500 dollars for training", 500),
        ("what can I get for $1.2k?", 1200),
        ("$1,200 for a GPU?", 1200),
        ("USD 300 on TPUs", 300),
        ("budget of 2k USD, TPU or GPU?", 2000),
        ("My budget is 800, which GPU?", 800),
        ("I've got US$ 250", 250),
        ("with $1.5 million", 1_500_000),
        ("$500.50 to spend", 500.5),
    ],
)
def test_budgets(table: PriceTable, question: str, budget: float) -> None:
    query = parse(question, table)
    assert query.budget_usd == pytest.approx(budget)
    assert query.mode == "budget"
    assert query.to_arguments()["budget_usd"] == pytest.approx(budget)


@pytest.mark.parametrize(
    ("question", "hours"),
    [
        ("How much for 100 hours on 8 GPUs?", 100),
        ("cost of 100 h of GPU time", 100),
        ("cost of 36h on TPUs", 36),
        ("2 days of compute on a TPU, what does it cost?", 48),
        ("price of a week of GPU time", 168),
        ("cost of 250 GPU-hours", 250),
        ("I train 8 hours a day for 10 days, GPU cost?", 80),
        # a use that repeats, however the day is called: hours a night, evening or workday times the span
        ("if I train 5h every night for two weeks, GPU cost?", 70),
        ("GPUs flat out 9 hrs a day for 22 workdays, cost?", 198),
        ("~4h nightly for 10 nights, GPU cost?", 40),
        ("GPU cost of running over a full year?", 8760),
    ],
)
def test_hours(table: PriceTable, question: str, hours: float) -> None:
    query = parse(question, table)
    assert query.hours == pytest.approx(hours)
    assert query.mode == "rent"


@pytest.mark.parametrize(
    "question",
    [
        "GPU cost of running every night (30 nights)?",  # how long a night is, the question does not say
        "GPU cost with a 1-year reservation?",  # a commitment's term, no time of use
    ],
)
def test_spans_that_give_no_hours(table: PriceTable, question: str) -> None:
    assert parse(question, table).hours is None


def test_hours_per_day_goes_with_a_purchase(table: PriceTable) -> None:
    query = parse("I use a GPU 8 hours a day: buy one for $1500 or rent a T4?", table)
    assert (query.purchase_usd, query.hours_per_day, query.hours, named(query)) == (1500, 8, None, ("T4",))
    assert query.to_arguments() == {"hardware": "T4", "purchase_usd": 1500, "hours_per_day": 8, "types": ["gpu"]}


@pytest.mark.parametrize(
    ("question", "devices"),
    [
        ("$500 on 8 GPUs", 8),
        ("4 TPUs for $1000", 4),
        ("8x A100 for $2000", 8),
        ("8 × A100 for $2000", 8),
        ("two GPUs for $400", 2),
        ("4 A100s for $900", 4),
        ("a V100 for $100", 1),
        ("a pair of A100s for $900", 2),  # a pair is two, before the name or after it
        ("how long does $250 keep the A100 pair running", 2),
    ],
)
def test_devices(table: PriceTable, question: str, devices: int) -> None:
    assert parse(question, table).devices == devices


@pytest.mark.parametrize(
    ("question", "memory"),
    [
        ("I need at least 32 GB, budget $500", 32),
        ("≥ 40GB memory, $500", 40),
        ("$500, needs 24GB", 24),
        ("$500 and >= 80 GB of GPU memory", 80),
    ],
)
def test_memory_floor(table: PriceTable, question: str, memory: float) -> None:
    query = parse(question, table)
    assert query.min_memory_gb == memory
    assert query.to_arguments()["min_memory_gb"] == memory


@pytest.mark.parametrize(
    ("question", "allowed"),
    [
        ("$500 with spot instances", True),
        ("preemptible TPU v3 for $300", True),
        ("no spot please, $300 for a V100", False),
        ("$300, on-demand only", False),
        ("$300 for a V100", False),
    ],
)
def test_preemptible(table: PriceTable, question: str, allowed: bool) -> None:
    assert parse(question, table).allow_preemptible is allowed


@pytest.mark.parametrize(
    ("question", "hardware"),
    [
        ("$500 on a V100", ("V100",)),
        ("$500 on a Tesla V100", ("V100",)),
        ("how many hours of TPU v3 for $500", ("TPU v3",)),
        ("TPUv3 or V100 for $500?", ("TPU v3", "V100")),
        ("$500 for a TPU v3-8", ("TPU v3-8",)),
        ("$500 on an A100", ("A100",)),
        ("$500 on an A100 80GB", ("A100 80GB",)),
        ("$500 on a 3090", ("3090",)),
        ("$500 for nvidia tesla p100", ("P100",)),
    ],
)
def test_hardware_names_from_the_table(table: PriceTable, question: str, hardware: tuple[str, ...]) -> None:
    query = parse(question, table)
    assert named(query) == hardware
    for name in hardware:
        assert table.find(name), name


def test_hardware_mentions_without_a_table() -> None:
    assert [m[2] for m in find_hardware_mentions(parse_question("TPU v3 or V100 or an RTX 3090?"))] == [
        "TPU v3",
        "V100",
        "RTX 3090",
    ]
    query = parse_price_question("TPU v3 for $500?")
    assert query is not None and named(query) == ("TPU v3",)


def test_a10_is_not_an_a100(table: PriceTable) -> None:
    assert find_hardware_mentions(parse_question("an A10 for $5"), table) == []


@pytest.mark.parametrize(
    ("question", "types"),
    [
        ("TPU or GPU for my budget of $500?", ("gpu", "tpu")),
        ("$500 on GPUs", ("gpu",)),
        ("cheapest TPU?", ("tpu",)),
        ("$500 for CPUs or GPUs", ("gpu", "cpu")),
        ("$500", ("gpu", "tpu", "cpu")),
    ],
)
def test_types(table: PriceTable, question: str, types: tuple[str, ...]) -> None:
    assert parse(question, table).types == types


def test_hardware_and_a_different_type_compare_all_of_both_types(table: PriceTable) -> None:
    query = parse("TPU v3 vs a GPU for $500?", table)
    assert named(query) == () and query.types == ("gpu", "tpu")


def test_purchase_price(table: PriceTable) -> None:
    a = parse("Should I buy an RTX 3090 for $1500 or rent a V100?", table)
    assert (a.purchase_usd, a.budget_usd) == (1500, None)
    b = parse("An RTX 3090 costs $1,500 to buy; with my $500 budget should I rent a V100?", table)
    assert (b.purchase_usd, b.budget_usd) == (1500, 500)
    c = parse("I have $500; is buying a GPU for $2k better than renting?", table)
    assert (c.budget_usd, c.purchase_usd) == (500, 2000)
    assert c.to_arguments()["purchase_usd"] == 2000


def test_the_issue_question(table: PriceTable) -> None:
    query = parse("TPU or GPU for my budget of $500?", table)
    assert query.to_arguments() == {"budget_usd": 500, "types": ["gpu", "tpu"]}
    result = run_price_calculator(query.to_arguments(), table)
    assert result["inputs"]["budget_usd"] == 500 and result["recommendation"]["hardware"] == "RTX 3090"
    assert {o["type"] for o in result["options"]} == {"gpu", "tpu"}
    for option in result["options"]:
        assert option["hours"] == pytest.approx(500 / option["usd_per_hour"], rel=1e-5)


def test_lookup_question(table: PriceTable) -> None:
    query = parse("How much does a TPU v3 cost per hour?", table)
    assert query.mode == "lookup"
    assert stated(query) == {"hardware": "TPU v3"}
    assert query.to_arguments() == {"hardware": "TPU v3"}
    result = run_price_calculator(query.to_arguments(), table)
    assert [o["usd_per_hour"] for o in result["options"]] == [8.0]


def test_price_per_hour_is_not_a_budget(table: PriceTable) -> None:
    query = parse("Is $8/hour for a TPU v3 expensive?", table)
    assert query.budget_usd is None and query.mode == "lookup"
    assert parse("Is 2.48 dollars per hour a fair V100 price?", table).budget_usd is None


def test_workload_on_named_hardware(table: PriceTable) -> None:
    query = parse("My training takes 100 hours on a V100. What would it cost on a TPU v3?", table)
    assert query.mode == "workload"
    assert query.to_arguments() == {"hours": 100, "hardware": "V100", "compare": ["V100", "TPU v3"]}
    result = run_price_calculator(query.to_arguments(), table)
    costs = {o["hardware"]: o["cost"] for o in result["options"]}
    assert costs == pytest.approx({"TPU v3-8": 100.0, "V100": 248.0})


def test_v100_hours(table: PriceTable) -> None:
    query = parse("300 V100-hours: which is cheapest?", table)
    assert (query.v100_hours, query.mode) == (300, "workload")
    assert parse("I need 50 V100 hours of compute on A100s, cost?", table).to_arguments() == {
        "v100_hours": 50,
        "hardware": "A100",
    }


@pytest.mark.parametrize(
    "question",
    [
        "What is PyTorch/XLA?",
        "Is a TPU faster than a GPU?",
        "Do TPUs need XLA-compatible code?",
        "Summarise my notes on ASICs",
        "What did I write about prices?",
        "How much memory does an A100 have?",
        "How much RAM did the Colab TPU runtime have?",
        "How much faster is a TPU v3-8 than a V100?",
        "",
        "   ",
    ],
)
def test_not_price_questions(table: PriceTable, question: str) -> None:
    assert parse_price_question(question, table) is None


def test_other_currencies_are_not_converted(table: PriceTable) -> None:
    query = parse("I have €500 for a TPU", table)
    assert query.budget_usd is None
    warnings = price_question_warnings("I have €500 for a TPU")
    assert warnings and "US dollars only" in warnings[0]
    assert parse("£300 for a GPU?", table).budget_usd is None


def test_comma_decimal_amount_is_ambiguous(table: PriceTable) -> None:
    query = parse("TPU v3 for $1,46?", table)
    assert query.budget_usd is None and "ambiguous" in price_question_warnings("TPU v3 for $1,46?")[0]


def test_follow_ups_reuse_the_previous_query(table: PriceTable) -> None:
    first = parse("TPU or GPU for my budget of $500 on 2 devices?", table)
    more = parse("and with $1000?", table, first)
    assert stated(more) == {"budget_usd": 1000, "devices": 2, "types": ("gpu", "tpu")}
    gpus = parse("what about 8 GPUs?", table, more)
    assert (gpus.budget_usd, gpus.devices, gpus.types) == (1000, 8, ("gpu",))
    hours = parse("and for 200 hours?", table, first)
    assert (hours.budget_usd, hours.hours) == (500, 200)
    v3 = parse("how about TPU v3?", table, first)
    assert named(v3) == ("TPU v3",) and v3.budget_usd == 500
    assert parse("$2k?", table, first).budget_usd == 2000
    spot = parse("and with spot?", table, first)
    assert spot.allow_preemptible and spot.budget_usd == 500


def test_follow_up_v100_hours_replace_hours(table: PriceTable) -> None:
    first = parse("cost of 100 hours on a V100?", table)
    second = parse("and 300 V100-hours?", table, first)
    assert (second.hours, second.v100_hours) == (None, 300)


def test_new_question_is_not_merged(table: PriceTable) -> None:
    first = parse("TPU or GPU for my budget of $500?", table)
    lookup = parse("How much does a V100 cost per hour on Google Cloud?", table, first)
    assert lookup.budget_usd is None and named(lookup) == ("V100",)
    assert parse_price_question("What is PyTorch/XLA?", table, first) is None


def test_follow_up_without_previous(table: PriceTable) -> None:
    assert parse_price_question("and what about TPUs?", table) is None
    assert parse_price_question("and with spot?", table) is None
    query = parse_price_question("and with $1000?", table)
    assert query is not None and query.budget_usd == 1000


def test_to_json(table: PriceTable) -> None:
    data = parse("$500 on 8 GPUs with at least 32 GB", table).to_json()
    assert data["mode"] == "budget" and data["devices"] == 8 and data["min_memory_gb"] == 32


ISSUE_PHRASES = [
    "I have $500, TPU or GPU?",
    "500 dollars: which is best for training?",
    "$1.2k budget, V100?",
    "for 100 hours on 8 GPUs what does it cost?",
    "TPU or GPU for my budget of $500?",
    "How much does a TPU v3 cost per hour?",
    "$500 on 4 TPUs with spot pricing",
    "8x A100 for $2000 with at least 40 GB",
    "TPUv3 vs V100 for 100 hours: which is cheaper?",
    "I have $500 - should I buy an RTX 3090 for $1500 instead?",
]


@pytest.mark.parametrize("question", ISSUE_PHRASES)
def test_queries_are_valid_tool_arguments(table: PriceTable, question: str) -> None:
    query = parse(question, table)
    result = run_price_calculator(query.to_arguments(), table)
    assert result["mode"] == query.mode


@settings(max_examples=60, deadline=None)
@given(
    dollars=st.integers(min_value=1, max_value=999_999),
    form=st.sampled_from(["${:,}", "${}", "{} dollars", "USD {}", "{} USD"]),
    hours=st.none() | st.integers(min_value=1, max_value=9999),
    devices=st.integers(min_value=1, max_value=64),
    hw=st.sampled_from(["", " on a V100", " on TPU v3", " with an A100"]),
)
def test_budget_phrases_property(table: PriceTable, dollars: int, form: str, hours: int | None, devices: int, hw: str) -> None:
    amount = form.format(dollars)
    parts = [f"I have {amount}"]
    if hours is not None:
        parts.append(f"for {hours} hours")
    if devices > 1:
        parts.append(f"on {devices} devices")
    question = " ".join(parts) + hw + "?"
    query = parse(question, table)
    assert query.budget_usd == dollars
    assert query.hours == hours
    assert query.devices == devices
    if hw:
        assert len(named(query)) == 1


def test_v100_hour_as_a_unit_is_not_the_v100(table: PriceTable) -> None:
    query = parse("What is cheaper per V100-hour, TPU v3 or A100?", table)
    assert named(query) == ("TPU v3", "A100")


def test_more_money_forms_and_host_ram(table: PriceTable) -> None:
    assert parse("I have 1000$", table).budget_usd == 1000
    query = parse("I have 32GB of RAM on my laptop, which GPU should I rent?", table)
    assert query.min_memory_gb is None and query.types == ("gpu",)


def test_days_follow_hours_per_day(table: PriceTable) -> None:
    query = parse("I need to train for 3 hours a day over 2 weeks on a T4, cost?", table)
    assert (query.hours, named(query), query.mode) == (42, ("T4",), "workload")


def test_out_of_bounds_budget_is_refused_in_the_questions_words(table: PriceTable) -> None:
    plan = plan_price_question(parse_question("$10000000000 on GPUs"), table)
    assert plan is not None and plan.request.budget_usd is None
    assert plan.problems == ("a budget must be between $0 and $1,000,000,000, not $10000000000",)


def test_a_year_after_a_word_is_no_hardware_without_a_price(table: PriceTable) -> None:
    """ "the A100 rental for geminids 2025": the event's year is no card the notes lack a price for (it once answered
    "Your notes give no hourly price for a geminids 2025"); a model number is still one ("RTX 5090")."""
    plan = plan_price_question(parse_question("cost of the A100 rental for geminids 2025?"), table)
    assert plan is not None and plan.unpriced == (), plan
    plan = plan_price_question(parse_question("what would 10 hours on an RTX 5090 cost?"), table)
    assert plan is not None and any("5090" in name for name in plan.unpriced), plan
