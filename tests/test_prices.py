"""Price tables in notes, the calculator, the price_calculator tool and its rendering."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwqa.answer.pricetool import PRICE_CALCULATOR_TOOL, run_price_calculator, validate_arguments
from hwqa.errors import HwqaError, PriceTableError, ToolArgumentError
from hwqa.notes.note import Note, load_notes, parse_note
from hwqa.prices import CalcRequest, CalcResult, PriceRow, PriceTable, calculate, load_price_table
from hwqa.prices.parse import normalize_column, parse_usd_per_hour
from hwqa.prices.render import render_price_result, render_price_table
from hwqa.prices.result import rank_key
from hwqa.prices.table import hardware_matches

REPO = Path(__file__).resolve().parent.parent
FRONT = "---\ntitle: Prices\ntags: [Prices, cloud]\n---\n"  # 4 lines: the body starts at file line 5
HEADER = "| hardware | provider | type | usd_per_hour | speed | memory_gb | pricing | as_of | source |"
DELIM = "|---|---|---|---|---|---|---|---|---|"


def note_from(body_lines: list[str], rel: str = "prices.md", front: str = FRONT) -> Note:
    return parse_note(front + "\n".join(body_lines) + "\n", rel)


def table_from(body_lines: list[str], rel: str = "prices.md") -> PriceTable:
    return load_price_table([note_from(body_lines, rel)])


def file_line(note: Note, needle: str) -> int:
    """1-based file line of the first line of the note's text containing ``needle``."""
    for i, line in enumerate(note.body.split("\n")):
        if needle in line:
            return note.body_line + i
    raise AssertionError(needle)


SAMPLE = [
    "# Prices",
    "",
    "Some words before the table.",
    "",
    HEADER,
    DELIM,
    "| P100 | GCP | gpu | $1.46 | 0.5 | 16 | on-demand | 2021-12-21 | https://example.com/gcp |",
    "| TPU v2-8 | GCP | TPU | 4.50 USD | 2.9 | 64 | On Demand | 2021-12-21 | [GCP TPU](https://example.com/tpu) |",
    "| TPU v3-8 | GCP | tpu | 8.00 | 8 | 128 |  | 2021-12-21 | <https://example.com/tpu> |",
    "| V100 | GCP | gpu | 2.48 | 1.0 | 16 | on-demand | 2024-06-01 | |",
    "| A100 40GB | AWS | gpu | 4.10 | 2.0 | 40 | on-demand | 2024-06-01 | |",
    "| A100 80GB | AWS | gpu | 5.12 | 2.2 | 80 | on-demand | 2024-06-01 | |",
    "| H100 | AWS | gpu | 12.29 |  | 80 | on-demand | 2024-06-01 | |",
    "| V100 | GCP | gpu | 0.74 | 1.0 | 16 | preemptible | 2021-12-01 | |",
    "| n2-standard-8 | GCP | cpu | 0.39 |  |  | on-demand | 2024-06-01 | |",
    "",
    "Words after.",
]


@pytest.fixture
def sample() -> PriceTable:
    table = table_from(SAMPLE)
    assert table.problems == []
    return table


# --- parsing -------------------------------------------------------------------------------------


def test_parses_rows_with_fields_note_and_file_line(sample: PriceTable) -> None:
    note = note_from(SAMPLE)
    assert len(sample.rows) == 9
    p100 = sample.rows[0]
    assert p100 == PriceRow(
        hardware="P100",
        provider="GCP",
        type="gpu",
        usd_per_hour=1.46,
        speed=0.5,
        memory_gb=16.0,
        pricing="on-demand",
        as_of="2021-12-21",
        source="https://example.com/gcp",
        note="prices.md",
        note_title="Prices",
        line=file_line(note, "| P100 |"),
    )
    assert p100.line == 11  # 4 front-matter lines + body line 7
    v2, v3 = sample.rows[1], sample.rows[2]
    assert (v2.type, v2.usd_per_hour, v2.pricing, v2.source) == ("tpu", 4.5, "on-demand", "https://example.com/tpu")
    assert (v3.pricing, v3.source, v3.speed) == ("on-demand", "https://example.com/tpu", 8.0)
    assert sample.rows[6].speed is None and sample.rows[6].usd_per_v100_hour is None
    assert sample.rows[7].pricing == "preemptible" and sample.rows[7].interruptible
    assert sample.rows[3].usd_per_v100_hour == pytest.approx(2.48)
    assert sample.notes == ["prices.md"]


@pytest.mark.parametrize(
    "header",
    [
        "| Hardware | Provider | Type | USD per hour | Speed | Memory GB |",
        "| hardware | provider | type | usd_per_hour | speed | memory_gb |",
        "| HARDWARE | provider | TYPE | usd-per-hour | speed | Memory_GB |",
        "hardware | provider | type | Usd Per Hour | speed | memory gb",
    ],
)
def test_header_names_match_ignoring_case_spaces_underscores_hyphens(header: str) -> None:
    table = table_from([header, "|---|---|---|---|---|---|", "| V100 | GCP | gpu | 2.48 | 1 | 16 |"])
    assert table.problems == []
    assert [(r.hardware, r.usd_per_hour, r.memory_gb) for r in table.rows] == [("V100", 2.48, 16.0)]


def test_normalize_column() -> None:
    assert normalize_column("USD per hour") == normalize_column("usd_per_hour") == "usdperhour"
    assert normalize_column("Memory-GB") == "memorygb"


def test_columns_in_any_order_and_extra_columns_ignored() -> None:
    table = table_from(
        [
            "| usd_per_hour | notes | type | hardware | provider |",
            "|--:|:--|:-:|---|---|",
            "| $3.06 | whole instance | gpu | V100 | AWS |",
        ]
    )
    assert table.problems == []
    row = table.rows[0]
    assert (row.hardware, row.provider, row.type, row.usd_per_hour, row.pricing) == ("V100", "AWS", "gpu", 3.06, "on-demand")


@pytest.mark.parametrize("cell", ["$1.46", "1.46", "1.46 USD", "$1.46/h", "**1.46**", "US$1.46"])
def test_usd_per_hour_accepted_forms(cell: str) -> None:
    assert parse_usd_per_hour(cell) == 1.46


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("1,46", "comma"),
        ("$1,460.00", "comma"),
        ("-1.46", "negative"),
        ("$-1.46", "negative"),
        ("", "empty"),
        ("inf", "finite"),
        ("nan", "finite"),
        ("0", "above 0"),
        ("€1.46", "US dollars"),
        ("cheap", "US dollars"),
        ("1e3", "US dollars"),
    ],
)
def test_usd_per_hour_errors(cell: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_usd_per_hour(cell)


MALFORMED = {
    "comma decimal": ("| P100 | GCP | gpu | 1,46 | 0.5 |", "comma"),
    "negative": ("| P100 | GCP | gpu | -1.46 | 0.5 |", "negative"),
    "empty price": ("| P100 | GCP | gpu |  | 0.5 |", "usd_per_hour is empty"),
    "infinite": ("| P100 | GCP | gpu | inf | 0.5 |", "finite"),
    "bad type": ("| P100 | GCP | fpga | 1.46 | 0.5 |", "type 'fpga' is not one of gpu, tpu, cpu"),
    "empty type": ("| P100 | GCP |  | 1.46 | 0.5 |", "type is empty"),
    "speed not a number": ("| P100 | GCP | gpu | 1.46 | fast |", "speed 'fast' is not a positive number"),
    "speed zero": ("| P100 | GCP | gpu | 1.46 | 0 |", "speed '0' must be a number above 0"),
    "speed negative": ("| P100 | GCP | gpu | 1.46 | -2 |", "speed '-2' is not a positive number"),
    "too few cells": ("| P100 | GCP | gpu | 1.46 |", "row has 4 cells but the header has 5"),
    "too many cells": ("| P100 | GCP | gpu | 1.46 | 0.5 | x |", "row has 6 cells but the header has 5"),
    "empty hardware": ("|  | GCP | gpu | 1.46 | 0.5 |", "hardware is empty"),
    "empty provider": ("| P100 |  | gpu | 1.46 | 0.5 |", "provider is empty"),
}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_each_malformed_row_kind_is_reported_with_note_and_file_line(kind: str) -> None:
    bad, message = MALFORMED[kind]
    body = [
        "# Prices",
        "",
        "| hardware | provider | type | usd_per_hour | speed |",
        "|---|---|---|---|---|",
        "| V100 | GCP | gpu | 2.48 | 1.0 |",
        bad,
        "| TPU v3-8 | GCP | tpu | 8.00 | 8.0 |",
    ]
    note = note_from(body, rel="sub/cloud.md")
    table = load_price_table([note])
    assert [r.hardware for r in table.rows] == ["V100", "TPU v3-8"]
    assert len(table.problems) == 1
    problem = table.problems[0]
    assert problem.startswith(f"sub/cloud.md:{note.body_line + 5}: ")
    assert note.body_line + 5 == 10
    assert message in problem
    assert problem.endswith("; fix the row to include it")


def test_several_issues_in_one_row_make_one_problem() -> None:
    table = table_from(["| hardware | provider | type | usd_per_hour |", "|---|---|---|---|", "| X | Y | fpga | 1,5 |"])
    assert table.rows == []
    assert len(table.problems) == 1
    assert "type 'fpga'" in table.problems[0] and "comma" in table.problems[0]


def test_table_missing_required_columns_is_one_problem() -> None:
    body = ["intro", "", "| hardware | type | price |", "|---|---|---|", "| V100 | gpu | 2.48 |", "| P100 | gpu | 1.46 |"]
    table = table_from(body)
    assert table.rows == []
    assert len(table.problems) == 1
    assert table.problems[0].startswith("prices.md:7: ")
    assert "missing the column(s) provider, usd_per_hour" in table.problems[0]


def test_duplicate_column_is_a_problem() -> None:
    table = table_from(
        ["| hardware | provider | type | usd_per_hour | USD per hour |", "|---|---|---|---|---|", "| V | G | gpu | 1 | 2 |"]
    )
    assert table.rows == [] and "more than once" in table.problems[0]


def test_separator_mismatch_and_missing_separator_are_reported() -> None:
    table = table_from(
        [
            "| hardware | provider | type | usd_per_hour |",
            "|---|---|",
            "| V100 | GCP | gpu | 2.48 |",
            "",
            "| hardware | provider | type | usd_per_hour |",
            "| V100 | GCP | gpu | 2.48 |",
        ]
    )
    assert table.rows == []
    assert [p.split(":")[1] for p in table.problems] == ["5", "9"]
    assert "separator row" in table.problems[0] and "no separator row" in table.problems[1]


def test_tables_in_notes_not_tagged_prices_are_ignored() -> None:
    front = "---\ntitle: Other\ntags: [gpu, pricing]\n---\n"
    note = note_from(["| hardware | provider |", "|---|---|", "| V100 | GCP |"], front=front)
    table = load_price_table([note])
    assert table.rows == [] and table.problems == []


def test_tag_match_is_case_insensitive_and_notes_without_front_matter_are_ignored() -> None:
    upper = note_from([HEADER, DELIM, "| V100 | GCP | gpu | 2.48 | 1 | 16 | | | |"], front="---\ntags: PRICES\n---\n")
    bare = parse_note("| hardware | provider | type | usd_per_hour |\n|---|---|---|---|\n| V | G | gpu | 1 |\n", "x.md")
    table = load_price_table([upper, bare])
    assert [r.hardware for r in table.rows] == ["V100"]


def test_tables_in_code_fences_and_multiple_tables_and_notes() -> None:
    body1 = [
        "```",
        "| hardware | provider | type | usd_per_hour |",
        "|---|---|---|---|",
        "| Fake | X | gpu | 1,00 |",
        "```",
        "",
        "| hardware | provider | type | usd_per_hour |",
        "|---|---|---|---|",
        "| V100 | GCP | gpu | 2.48 |",
        "",
        "## More",
        "",
        "| Hardware | Provider | Type | USD per hour | Pricing |",
        "|---|---|---|---|---|",
        "| V100 | GCP | gpu | 0.74 | Spot |",
    ]
    body2 = ["| hardware | provider | type | usd_per_hour |", "|---|---|---|---|", "| T4 | AWS | gpu | 0.526 |"]
    table = load_price_table([note_from(body1, "a.md"), note_from(body2, "b.md")])
    assert table.problems == []
    assert [(r.note, r.line, r.hardware, r.pricing) for r in table.rows] == [
        ("a.md", 13, "V100", "on-demand"),
        ("a.md", 19, "V100", "spot"),
        ("b.md", 7, "T4", "on-demand"),
    ]


def test_note_without_front_matter_lines_count_from_one() -> None:
    note = parse_note(
        "---\ntags: [prices]\n---\n| hardware | provider | type | usd_per_hour |\n|-|-|-|-|\n| V | G | gpu | x |\n", "n.md"
    )
    table = load_price_table([note])
    assert table.problems[0].startswith("n.md:6: ")


def test_escaped_pipe_and_emphasis_in_cells() -> None:
    table = table_from(
        [
            "| hardware | provider | type | usd_per_hour | memory_gb |",
            "|---|---|---|---|---|",
            "| **A100 \\| SXM** | `GCP` | gpu | *3.67* | 40 GB |",
        ]
    )
    assert table.problems == []
    assert (table.rows[0].hardware, table.rows[0].provider, table.rows[0].usd_per_hour, table.rows[0].memory_gb) == (
        "A100 | SXM",
        "GCP",
        3.67,
        40.0,
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tpu v3", ["TPU v3-8"]),
        ("TPUv3", ["TPU v3-8"]),
        ("v3 tpu", ["TPU v3-8"]),
        ("v100", ["V100", "V100"]),
        ("NVIDIA Tesla V100", ["V100", "V100"]),
        ("nvidia tesla p100", ["P100"]),
        ("a100", ["A100 40GB", "A100 80GB"]),
        ("A100 80GB", ["A100 80GB"]),
        ("a10", []),
        ("h100 gpu", ["H100"]),
        ("tpu", ["TPU v2-8", "TPU v3-8"]),
        ("gpu", []),
        ("", []),
    ],
)
def test_find_is_forgiving(sample: PriceTable, query: str, expected: list[str]) -> None:
    assert [r.hardware for r in sample.find(query)] == expected


def test_hardware_matches_boundaries() -> None:
    assert not hardware_matches("l4", "L40S")
    assert hardware_matches("l4", "L4")
    assert hardware_matches("3090", "RTX 3090")
    assert not hardware_matches("a10", "A100")
    assert hardware_matches("TPU v3 8", "TPU v3-8")


# --- calculator ----------------------------------------------------------------------------------


def test_budget_figures_on_the_users_prices(sample: PriceTable) -> None:
    result = calculate(sample, CalcRequest(budget_usd=500, types=("gpu", "tpu")))
    by_name = {(o.row.hardware, o.row.provider): o for o in result.options}
    p100 = by_name[("P100", "GCP")]
    assert p100.hours == pytest.approx(500 / 1.46)
    assert p100.v100_hours == pytest.approx(500 / 1.46 * 0.5)
    v3 = by_name[("TPU v3-8", "GCP")]
    assert (v3.hours, v3.v100_hours, v3.usd_per_v100_hour) == pytest.approx((62.5, 500.0, 1.0))
    assert result.recommendation is not None
    assert result.recommendation.hardware == "TPU v3-8"
    assert "most V100-equivalent hours for $500" in result.recommendation.reason
    assert all(o.row.type != "cpu" for o in result.options)
    assert [e.pricing for e in result.excluded] == ["preemptible"]
    # the option without speed is ranked last
    assert result.options[-1].row.hardware == "H100"
    assert any("no speed" in n for n in result.notes)


def test_workload_on_named_hardware(sample: PriceTable) -> None:
    result = calculate(sample, CalcRequest(hours=100, hardware="V100"))
    assert result.mode == "workload"
    assert result.workload_v100_hours == pytest.approx(100)
    by_name = {o.row.hardware: o for o in result.options}
    assert by_name["V100"].is_reference and by_name["V100"].wall_hours == pytest.approx(100)
    assert by_name["V100"].cost == pytest.approx(248)
    assert by_name["TPU v3-8"].wall_hours == pytest.approx(12.5)
    assert by_name["TPU v3-8"].cost == pytest.approx(100)
    assert by_name["H100"].cost is None
    assert result.recommendation is not None and result.recommendation.hardware == "TPU v3-8"
    assert "cheapest way to do 100 V100-hours" in result.recommendation.reason


def test_workload_reference_without_speed_only_prices_the_reference(sample: PriceTable) -> None:
    result = calculate(sample, CalcRequest(hours=10, hardware="H100"))
    priced = [o for o in result.options if o.cost is not None]
    assert [o.row.hardware for o in priced] == ["H100"]
    assert priced[0].cost == pytest.approx(122.9)
    assert any("no speed is listed for H100" in n for n in result.notes)


def test_rent_mode_and_budget_excludes_over_budget(sample: PriceTable) -> None:
    result = calculate(sample, CalcRequest(hours=100, budget_usd=300))
    assert result.mode == "rent"
    for option in result.options:
        assert option.cost == pytest.approx(100 * option.row.usd_per_hour)
        assert option.cost is not None and option.cost <= 300
    over = [e for e in result.excluded if "over the $300 budget" in e.reason]
    assert {e.hardware for e in over} == {"TPU v2-8", "TPU v3-8", "A100 40GB", "A100 80GB", "H100"}


def test_lookup_mode_restricted_to_named_hardware(sample: PriceTable) -> None:
    result = calculate(sample, CalcRequest(hardware="TPU v3", allow_preemptible=True))
    assert [o.row.hardware for o in result.options] == ["TPU v3-8"]
    assert result.options[0].hours is None and result.options[0].cost is None
    assert result.recommendation is not None and "per V100-hour" in result.recommendation.reason


def test_memory_floor_and_pricing_filters(sample: PriceTable) -> None:
    result = calculate(sample, CalcRequest(budget_usd=100, min_memory_gb=64, allow_preemptible=True))
    assert {o.row.hardware for o in result.options} == {"TPU v2-8", "TPU v3-8", "A100 80GB", "H100"}
    reasons = {e.hardware: e.reason for e in result.excluded}
    assert "memory not listed" in reasons["n2-standard-8"]
    assert "below the 64 GB" in reasons["A100 40GB"]


def test_break_even(sample: PriceTable) -> None:
    result = calculate(sample, CalcRequest(hardware="V100", purchase_usd=2480, hours_per_day=8, devices=2))
    option = result.options[0]
    assert option.break_even_hours == pytest.approx(2480 / (2.48 * 2))
    assert option.break_even_days == pytest.approx(2480 / (2.48 * 2) / 8)


def test_ties_are_explained() -> None:
    rows = [
        PriceRow("A", "X", "gpu", 2.0, speed=1.0, note="n.md", line=1),
        PriceRow("B", "Y", "gpu", 4.0, speed=2.0, note="n.md", line=2),
    ]
    result = calculate(rows, CalcRequest(budget_usd=100))
    assert [o.row.hardware for o in result.options] == ["B", "A"]
    assert result.recommendation is not None and "ties with A (X)" in result.recommendation.reason
    assert "faster" in result.recommendation.reason


def test_no_speed_anywhere_ranks_by_hours() -> None:
    rows = [PriceRow("A", "X", "gpu", 2.0), PriceRow("B", "Y", "gpu", 1.0)]
    result = calculate(rows, CalcRequest(budget_usd=10))
    assert [o.row.hardware for o in result.options] == ["B", "A"]
    assert result.recommendation is not None and result.recommendation.reason.startswith("most hours for the money")


def test_nothing_left_gives_no_recommendation(sample: PriceTable) -> None:
    result = calculate(sample, CalcRequest(budget_usd=10, min_memory_gb=1000))
    assert result.options == () and result.recommendation is None
    assert any("no option is left" in n for n in result.notes)


NAMES = ["V100", "P100", "T4", "A100 40GB", "A100 80GB", "TPU v2-8", "TPU v3-8", "H100", "L4", "n2-standard-8"]
PRICINGS = ["on-demand", "preemptible", "spot", "reserved"]

rows_strategy = st.lists(
    st.builds(
        PriceRow,
        hardware=st.sampled_from(NAMES),
        provider=st.sampled_from(["GCP", "AWS", "Azure"]),
        type=st.sampled_from(["gpu", "tpu", "cpu"]),
        usd_per_hour=st.floats(min_value=0.01, max_value=500, allow_nan=False),
        speed=st.none() | st.floats(min_value=0.01, max_value=50),
        memory_gb=st.none() | st.sampled_from([8.0, 16.0, 24.0, 40.0, 80.0, 128.0]),
        pricing=st.sampled_from(PRICINGS),
        note=st.just("p.md"),
        line=st.integers(min_value=1, max_value=500),
    ),
    min_size=1,
    max_size=12,
)
money = st.floats(min_value=0, max_value=1e9, allow_nan=False)
hours = st.floats(min_value=0, max_value=1e6, allow_nan=False)
devices = st.integers(min_value=1, max_value=1024)
type_sets = st.sets(st.sampled_from(["gpu", "tpu", "cpu"]), min_size=1).map(lambda s: tuple(sorted(s)))
FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check_common(result_rows: list[PriceRow], request: CalcRequest, result) -> None:  # type: ignore[no-untyped-def]
    # ranking is sorted by the stated key, ranks are 1..n
    keys = [rank_key(o) for o in result.options]
    assert keys == sorted(keys)
    assert [o.rank for o in result.options] == list(range(1, len(result.options) + 1))
    # filters hold
    for o in result.options:
        assert o.row.type in request.types or o.is_reference
        assert o.row.pricing == "on-demand" or (request.allow_preemptible and o.row.pricing in ("preemptible", "spot"))
        if request.min_memory_gb is not None:
            assert o.row.memory_gb is not None and o.row.memory_gb >= request.min_memory_gb
        if o.usd_per_v100_hour is not None:
            assert o.row.speed is not None
            assert math.isclose(o.usd_per_v100_hour, o.row.usd_per_hour / o.row.speed)
        if request.purchase_usd is not None:
            assert o.break_even_hours is not None and o.break_even_days is not None
            be = request.purchase_usd / (o.row.usd_per_hour * request.devices)
            assert math.isclose(o.break_even_hours, be)
            assert math.isclose(o.break_even_days, be / request.hours_per_day)
    # every row is either an option, excluded with a reason, or not compared
    accounted = [o.row.where for o in result.options] + [e.where for e in result.excluded]
    assert len(accounted) <= len(result_rows)
    for e in result.excluded:
        assert e.reason
    if result.options:
        assert result.recommendation is not None
        assert result.recommendation.hardware == result.options[0].row.hardware
    # the JSON is JSON and carries the source of every option
    data = json.loads(json.dumps(result.to_json()))
    for o, j in zip(result.options, data["options"], strict=True):
        assert (j["note"], j["line"]) == (o.row.note, o.row.line)


@FAST
@given(
    rows=rows_strategy,
    budget=money,
    n=devices,
    types=type_sets,
    preempt=st.booleans(),
    memory=st.none() | st.sampled_from([16.0, 32.0, 80.0]),
    purchase=st.none() | money,
    per_day=st.floats(min_value=0.5, max_value=24),
)
def test_budget_formulae_property(rows, budget, n, types, preempt, memory, purchase, per_day) -> None:  # type: ignore[no-untyped-def]
    request = CalcRequest(
        budget_usd=budget,
        devices=n,
        types=types,
        allow_preemptible=preempt,
        min_memory_gb=memory,
        purchase_usd=purchase,
        hours_per_day=per_day,
    )
    result = calculate(rows, request)
    assert result.mode == "budget"
    for o in result.options:
        p, s = o.row.usd_per_hour, o.row.speed
        assert o.hours is not None and math.isclose(o.hours, budget / (p * n))
        assert o.wall_hours == o.hours
        if s is None:
            assert o.v100_hours is None
        else:
            assert o.v100_hours is not None and math.isclose(o.v100_hours, o.hours * s * n, abs_tol=1e-12)
    # more V100-hours ranks higher among options with a speed
    with_speed = [o.v100_hours for o in result.options if o.v100_hours is not None]
    assert all(a >= b * (1 - 1e-9) for a, b in itertools.pairwise(with_speed))
    _check_common(rows, request, result)
    # JSON figures equal the formulae (rounded to 6 significant figures)
    for j, o in zip(result.to_json()["options"], result.options, strict=True):
        assert o.hours is not None and math.isclose(j["hours"], o.hours, rel_tol=1e-5, abs_tol=1e-300)


@FAST
@given(
    rows=rows_strategy,
    h=hours,
    n=devices,
    ref=st.sampled_from(NAMES),
    budget=st.none() | money,
    types=type_sets,
    preempt=st.booleans(),
)
def test_workload_formulae_property(rows, h, n, ref, budget, types, preempt) -> None:  # type: ignore[no-untyped-def]
    request = CalcRequest(hours=h, hardware=ref, devices=n, budget_usd=budget, types=types, allow_preemptible=preempt)
    result = calculate(rows, request)
    assert result.mode == "workload"
    w = result.workload_v100_hours
    if result.reference is not None and result.reference.speed is not None:
        assert w is not None and math.isclose(w, h * result.reference.speed * n)
    for o in result.options:
        p, s = o.row.usd_per_hour, o.row.speed
        if s is not None and w is not None:
            assert o.wall_hours is not None and math.isclose(o.wall_hours, w / (s * n))
            assert o.cost is not None and math.isclose(o.cost, o.wall_hours * p * n)
            assert o.v100_hours == w
        elif o.cost is not None:
            assert o.is_reference and o.wall_hours == h and math.isclose(o.cost, h * p * n)
        if budget is not None and o.cost is not None:
            assert o.cost <= budget * (1 + 1e-9)
    _check_common(rows, request, result)


@FAST
@given(rows=rows_strategy, w=st.floats(min_value=0, max_value=1e9), n=devices, types=type_sets)
def test_v100_hours_workload_and_rent_property(rows, w, n, types) -> None:  # type: ignore[no-untyped-def]
    result = calculate(rows, CalcRequest(v100_hours=w, devices=n, types=types))
    for o in result.options:
        if o.row.speed is None:
            assert o.cost is None and o.wall_hours is None
        else:
            assert o.wall_hours is not None and math.isclose(o.wall_hours, w / (o.row.speed * n))
            assert o.cost is not None and math.isclose(o.cost, w * o.row.usd_per_hour / o.row.speed, abs_tol=1e-9)
    costs = [o.cost for o in result.options if o.cost is not None]
    assert all(a <= b * (1 + 1e-9) + 1e-9 for a, b in itertools.pairwise(costs))
    rent = calculate(rows, CalcRequest(hours=w / 1000, devices=n, types=types))
    for o in rent.options:
        assert o.cost is not None and math.isclose(o.cost, (w / 1000) * o.row.usd_per_hour * n)
        if o.row.speed is not None:
            assert o.v100_hours is not None and math.isclose(o.v100_hours, (w / 1000) * o.row.speed * n)


# --- parsing, as a property ----------------------------------------------------------------------

HEADER_SPELLINGS = {
    "hardware": ["hardware", "Hardware", "HARDWARE"],
    "provider": ["provider", "Provider"],
    "type": ["type", "Type"],
    "usd_per_hour": ["usd_per_hour", "USD per hour", "usd-per-hour", "Usd Per Hour"],
    "speed": ["speed", "Speed"],
    "memory_gb": ["memory_gb", "Memory GB", "memory-gb"],
    "pricing": ["pricing", "Pricing"],
}
BAD_ROWS = {
    "comma": ({"usd_per_hour": "1,46"}, "comma"),
    "negative": ({"usd_per_hour": "-3"}, "negative"),
    "empty price": ({"usd_per_hour": ""}, "empty"),
    "not finite": ({"usd_per_hour": "nan"}, "finite"),
    "bad type": ({"type": "fpga"}, "not one of gpu, tpu, cpu"),
    "bad speed": ({"speed": "fast"}, "speed"),
    "bad memory": ({"memory_gb": "lots"}, "memory_gb"),
}

valid_row = st.fixed_dictionaries(
    {
        "hardware": st.sampled_from(NAMES),
        "provider": st.sampled_from(["GCP", "AWS"]),
        "type": st.sampled_from(["gpu", "tpu", "cpu", "GPU"]),
        "cents": st.integers(min_value=1, max_value=10**6),
        "price_form": st.sampled_from(["{}", "${}", "{} USD"]),
        "speed": st.none() | st.integers(min_value=1, max_value=5000),
        "memory_gb": st.none() | st.integers(min_value=1, max_value=256),
        "pricing": st.sampled_from(["", "on-demand", "Preemptible", "spot"]),
    }
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(valid_row, min_size=1, max_size=8),
    bad=st.lists(st.tuples(st.sampled_from(sorted(BAD_ROWS)), st.integers(min_value=0, max_value=8)), max_size=3),
    order=st.permutations(list(HEADER_SPELLINGS)),
    spelling=st.integers(min_value=0, max_value=3),
    preamble=st.integers(min_value=0, max_value=5),
)
def test_parse_property(rows, bad, order, spelling, preamble) -> None:  # type: ignore[no-untyped-def]
    header = [HEADER_SPELLINGS[c][spelling % len(HEADER_SPELLINGS[c])] for c in order]

    def cells(r: dict[str, object]) -> dict[str, str]:
        price = f"{int(r['cents']) / 100:.2f}"  # type: ignore[call-overload]
        return {
            "hardware": str(r["hardware"]),
            "provider": str(r["provider"]),
            "type": str(r["type"]),
            "usd_per_hour": str(r["price_form"]).format(price),
            "speed": "" if r["speed"] is None else f"{int(r['speed']) / 100:g}",  # type: ignore[call-overload]
            "memory_gb": "" if r["memory_gb"] is None else str(r["memory_gb"]),
            "pricing": str(r["pricing"]),
        }

    lines = [f"para {i}" for i in range(preamble)] + ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    expected: list[tuple[dict[str, object], int]] = []
    bad_at: list[tuple[int, str]] = []
    table_rows: list[tuple[str, object]] = [("ok", r) for r in rows]
    for kind, pos in bad:
        table_rows.insert(min(pos, len(table_rows)), ("bad", kind))
    for tag, payload in table_rows:
        if tag == "ok":
            assert isinstance(payload, dict)
            c = cells(payload)
            expected.append((payload, len(lines)))
        else:
            override, _ = BAD_ROWS[str(payload)]
            c = cells(
                {
                    "hardware": "Broken",
                    "provider": "P",
                    "type": "gpu",
                    "cents": 100,
                    "price_form": "{}",
                    "speed": 100,
                    "memory_gb": 16,
                    "pricing": "",
                }
            )
            c.update(override)
            bad_at.append((len(lines), str(payload)))
        lines.append("| " + " | ".join(c[col] for col in order) + " |")
    note = note_from(lines, rel="gen/prices.md")
    table = load_price_table([note])

    assert len(table.rows) == len(expected)
    for row, (r, index) in zip(table.rows, expected, strict=True):
        assert row.hardware == r["hardware"] and row.provider == r["provider"]
        assert row.type == str(r["type"]).lower()
        assert row.usd_per_hour == float(f"{int(r['cents']) / 100:.2f}")  # type: ignore[call-overload]
        assert row.speed == (None if r["speed"] is None else float(f"{int(r['speed']) / 100:g}"))  # type: ignore[call-overload]
        assert row.memory_gb == (None if r["memory_gb"] is None else float(r["memory_gb"]))  # type: ignore[arg-type]
        assert row.pricing == (str(r["pricing"]).lower() or "on-demand")
        assert (row.note, row.line) == ("gen/prices.md", note.body_line + index)
    assert len(table.problems) == len(bad_at)
    for problem, (index, kind) in zip(table.problems, bad_at, strict=True):
        assert problem.startswith(f"gen/prices.md:{note.body_line + index}: ")
        assert BAD_ROWS[kind][1] in problem
        assert problem.endswith("fix the row to include it")
    assert all(r.hardware != "Broken" for r in table.rows)


# --- the tool --------------------------------------------------------------------------------------


def test_tool_schema_shape() -> None:
    fn = PRICE_CALCULATOR_TOOL["function"]
    assert PRICE_CALCULATOR_TOOL["type"] == "function" and fn["name"] == "price_calculator"
    props = fn["parameters"]["properties"]
    for key in [
        "budget_usd",
        "hours",
        "hardware",
        "v100_hours",
        "devices",
        "min_memory_gb",
        "allow_preemptible",
        "purchase_usd",
        "types",
    ]:
        assert key in props and props[key]["description"]
    assert fn["parameters"]["additionalProperties"] is False
    json.dumps(PRICE_CALCULATOR_TOOL)


def test_run_price_calculator_result(sample: PriceTable) -> None:
    result = run_price_calculator({"budget_usd": 500, "types": ["GPU", "tpu"]}, sample)
    json.dumps(result)
    assert result["mode"] == "budget" and result["inputs"]["budget_usd"] == 500
    first = result["options"][0]
    assert first["hardware"] == "TPU v3-8"
    for key in [
        "hardware",
        "provider",
        "type",
        "pricing",
        "usd_per_hour",
        "hours",
        "v100_hours",
        "cost",
        "wall_hours",
        "note",
        "line",
        "as_of",
        "source",
        "usd_per_v100_hour",
    ]:
        assert key in first
    assert (first["note"], first["line"], first["source"]) == ("prices.md", 13, "https://example.com/tpu")
    assert first["hours"] == 62.5 and first["v100_hours"] == 500
    assert result["recommendation"]["hardware"] == "TPU v3-8" and result["recommendation"]["reason"]
    assert result["excluded"][0]["reason"].startswith("preemptible pricing")
    assert result["problems"] == []


def test_run_price_calculator_accepts_nulls_and_integral_float_devices(sample: PriceTable) -> None:
    result = run_price_calculator({"budget_usd": 100.0, "hours": None, "devices": 8.0, "allow_preemptible": None}, sample)
    assert result["inputs"]["devices"] == 8


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"budget_usd": float("nan")}, "a budget must be a number, not nan"),
        ({"budget_usd": float("inf")}, "a budget must be a number"),
        ({"budget_usd": -1}, "a budget must be between $0 and $1,000,000,000, not -$1"),
        ({"budget_usd": 1e10}, "a budget must be between $0 and $1,000,000,000, not $10,000,000,000"),
        ({"budget_usd": "500*2"}, "plain number"),
        ({"budget_usd": "500"}, "plain number"),
        ({"budget_usd": True}, "plain number"),
        ({"budget_usd": [500]}, "plain number"),
        ({"hours": 2e6}, "hours must be between 0 and 1,000,000, not 2,000,000"),
        ({"hours": -3}, "hours must be between 0 and 1,000,000, not -3"),
        ({"v100_hours": float("-inf")}, "V100-hours must be a number"),
        ({"hours": 1, "v100_hours": 1}, "not both"),
        ({"devices": 0}, "from 1 to 1024"),
        ({"devices": 1025}, "from 1 to 1024"),
        ({"devices": 2.5}, "whole number"),
        ({"devices": "8"}, "integer"),
        ({"min_memory_gb": -5}, "between 0 and"),
        ({"purchase_usd": float("nan")}, "a purchase price must be a number"),
        ({"hours_per_day": 0}, "hours a day must be above 0 and at most 24"),
        ({"hours_per_day": 25}, "hours a day must be above 0 and at most 24, not 25"),
        ({"allow_preemptible": "yes"}, "true or false"),
        ({"hardware": "Cerebras WSE"}, "unknown hardware 'Cerebras WSE'; known hardware: P100"),
        ({"hardware": 100}, "hardware name string"),
        ({"hardware": ""}, "empty"),
        ({"compare": "V100"}, "list"),
        ({"compare": ["V100", "Z9"]}, "unknown hardware 'Z9'"),
        ({"types": ["fpga"]}, "unknown type"),
        ({"types": "gpu"}, "list"),
        ({"types": []}, "empty"),
        ({"budget": 500}, "unknown argument(s) budget"),
        ({"budget_usd": 5, "__import__": "os"}, "unknown argument(s) __import__"),
    ],
)
def test_validation_rejects(sample: PriceTable, arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ToolArgumentError) as info:
        run_price_calculator(arguments, sample)
    text = str(info.value)
    assert message in text
    assert "\n" not in text
    assert isinstance(info.value, HwqaError)


def test_validation_rejects_non_mapping(sample: PriceTable) -> None:
    with pytest.raises(ToolArgumentError):
        validate_arguments([("budget_usd", 5)], sample)  # type: ignore[arg-type]


@FAST
@given(
    value=st.one_of(
        st.text(max_size=10),
        st.just(float("nan")),
        st.just(float("inf")),
        st.floats(max_value=-1e-9),
        st.floats(min_value=1.0001e9),
        st.booleans(),
        st.lists(st.integers()),
    )
)
def test_validation_property_rejects_bad_budgets(value: object) -> None:
    table = PriceTable(rows=[PriceRow("V100", "GCP", "gpu", 2.48, speed=1.0)])
    with pytest.raises(ToolArgumentError):
        run_price_calculator({"budget_usd": value}, table)


def test_empty_table_is_a_price_table_error() -> None:
    with pytest.raises(PriceTableError, match="no valid price rows.*first problem: x.md:3"):
        run_price_calculator({"budget_usd": 5}, PriceTable(rows=[], problems=["x.md:3: bad; fix the row to include it"]))


def test_run_price_calculator_reports_table_problems() -> None:
    table = table_from([*SAMPLE, "", HEADER, DELIM, "| Bad | GCP | gpu | 1,46 | | | | | |"])
    result = run_price_calculator({}, table)
    assert result["mode"] == "lookup"
    assert len(result["problems"]) == 1 and "comma" in result["problems"][0]


# --- rendering ------------------------------------------------------------------------------------


def rendered(arguments: dict[str, object], table: PriceTable) -> str:
    """What an answer shows for a tool call with ``arguments``."""
    return render_price_result(calculate(table, validate_arguments(arguments, table)))


def test_render_budget_result(sample: PriceTable) -> None:
    text = rendered({"budget_usd": 500, "types": ["gpu", "tpu"]}, sample)
    assert text.startswith("With $500:")
    assert "| # | Hardware | $/h | Hours | V100-h | Provider |" in text  # the figures right after the name
    assert "| 1 | TPU v3-8 | $8.00 | 62.5 | 500 | GCP |" in text
    assert "**Recommendation:** TPU v3-8 (GCP) — most V100-equivalent hours for $500" in text
    assert "Excluded: V100 (GCP): preemptible pricing" in text


def test_render_workload_rent_lookup_and_break_even(sample: PriceTable) -> None:
    workload = rendered({"hours": 100, "hardware": "V100", "devices": 2}, sample)
    assert (
        "| # | Hardware | $/h | Cost | Wall time (h) | Provider |" in workload
        and "V100 (ref)" in workload
        and "2 devices" in workload
    )
    rent = rendered({"hours": 10}, sample)
    assert rent.startswith("For 10.0 h of use:") and "| $/h | Cost | V100-h | Provider |" in rent
    lookup = rendered({"hardware": "v100", "allow_preemptible": True, "purchase_usd": 3000}, sample)
    assert "| # | Hardware | $/h | $/V100-h | Speed (V100=1) | Break-even (h) | Provider | Pricing |" in lookup
    nothing = rendered({"budget_usd": 5, "min_memory_gb": 999}, sample)
    assert "**No option fits**" in nothing


@pytest.mark.parametrize(
    "arguments",
    [{"budget_usd": 500, "types": ["gpu", "tpu"]}, {"hours": 100, "hardware": "V100", "devices": 2}, {"hardware": "v100"}],
)
def test_a_result_read_back_from_its_json_renders_the_same(sample: PriceTable, arguments: dict[str, object]) -> None:
    """The web page renders tool calls from their JSON: it must show what the answer showed."""
    result = calculate(sample, validate_arguments(arguments, sample))
    again = CalcResult.from_json(json.loads(json.dumps(result.to_json())))
    assert again.to_json() == result.to_json()
    assert render_price_result(again) == render_price_result(result)


def test_render_price_table(sample: PriceTable) -> None:
    text = render_price_table(sample)
    assert text.splitlines()[0].startswith("| Hardware | $/h | $/V100-h | Speed | Provider | Pricing | Type |")
    assert "| P100 | $1.46 | $2.92 | 0.5 | GCP | on-demand | gpu | 16 | 2021-12-21 | prices.md:11 |" in text
    only_tpu = render_price_table(sample, types=["tpu"])
    assert "P100" not in only_tpu and "TPU v3-8" in only_tpu
    broken = table_from(["| hardware | provider | type | usd_per_hour |", "|---|---|---|---|", "| V | G | gpu | 1,5 |"])
    assert "Problems (1):" in render_price_table(broken) and "No price rows found" in render_price_table(broken)


# --- the bundled notes -----------------------------------------------------------------------------


def test_bundled_price_note_parses_without_problems() -> None:
    notes_dir = REPO / "notes"
    if not any(notes_dir.glob("*.md")):
        pytest.skip("bundled notes not written yet")
    table = load_price_table(load_notes(notes_dir).notes)
    assert table.problems == []
    assert table.rows, "the bundled notes need a note tagged prices with a price table"
    for name, price in [("P100", 1.46), ("TPU v2", 4.50), ("TPU v3", 8.00)]:
        on_demand = [r for r in table.find(name) if r.pricing == "on-demand" and r.provider == "GCP"]
        assert on_demand and on_demand[0].usd_per_hour == price
    for row in table.rows:
        assert row.as_of and row.source, f"{row.where} needs as_of and source"
    result = run_price_calculator({"budget_usd": 500}, table)
    assert result["recommendation"] is not None
