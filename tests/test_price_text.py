"""Prices read where people write them: sentences, list items, tables without the `prices` tag, and
the pricing tables of linked pages; each row with its evidence, ranked, conflicts said."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hwqa.build.builder import build_index
from hwqa.cli import app
from hwqa.notes.note import load_notes, parse_note
from hwqa.prices import PriceRow, PriceTable, load_price_table, note_doc, read_document
from hwqa.settings import Settings, load_settings

from .conftest import LOOPBACK_FETCH, built_hash_index, write_note
from .helpers_http import LoopbackSite, Reply

runner = CliRunner()

RENTAL_LOG = """
---
title: Where I rented GPUs
tags: ["cloud", "gpu"]
date: 2024-03-10 18:02:11
---
# Where I rented GPUs

## Lambda Labs

In February 2024 an A100 80GB on Lambda Labs was $1.29/hr on-demand, which beat every big cloud I tried.

## AWS

* A g5.xlarge with one A10G GPU costs $1.006 per hour on demand.
* When I went for spot capacity, the same A10G dropped to $0.45/hr.
* A workstation with an RTX 3090 would have cost me $3,000 to buy.

## RunPod

* An RTX 4090 on RunPod is $540 per month when reserved for the whole month.
* In Germany an RTX 4090 was €0.69/h, which I never paid.
"""

ADHOC_TABLE = """
---
title: Colab or a cloud VM
tags: [colab]
as_of: 2023-09-01
---
# Colab or a cloud VM

What the runtimes I compared cost per hour:

| Accelerator | Where | Price per hour | Memory |
|---|---|---|---|
| Tesla T4 | GCP | $0.35 | 16 GB |
| TPU v2-8 | GCP preemptible | $1.35 | 64 GB |
| a mystery box | GCP | $0.99 | 8 GB |
"""

PRICING_PAGE = """<!doctype html><html><head><title>GPU Cloud Pricing - CoreWeave</title></head>
<body><main><article><h1>GPU Cloud Pricing</h1>
<p>Reserved capacity for the H100 starts at $2.23 per GPU-hour with a one-year commitment.</p>
<h2>Instances</h2>
<table>
<tr><th>Instance</th><th>GPUs</th><th>GPU memory</th><th>On-demand (USD/hour)</th><th>Spot (USD/hour)</th></tr>
<tr><td>gpu-h100-8x</td><td>8 x NVIDIA H100</td><td>80 GB</td><td>$49.24</td><td>$19.70</td></tr>
<tr><td>gpu-l40s-1x</td><td>1 x NVIDIA L40S</td><td>48 GB</td><td>$1.25</td><td>—</td></tr>
</table>
</article></main></body></html>"""


@pytest.fixture
def site() -> Iterator[LoopbackSite]:
    with LoopbackSite({"/pricing": Reply(body=PRICING_PAGE), "/robots.txt": Reply(body="", content_type="text/plain")}) as s:
        yield s


@pytest.fixture
def folder(tmp_path: Path, site: LoopbackSite) -> Settings:
    notes = tmp_path / "notes"
    write_note(notes, "rental-log.md", RENTAL_LOG)
    write_note(notes, "colab.md", ADHOC_TABLE)
    write_note(notes, "reading.md", f"# Reading\n\n* [CoreWeave prices]({site.url('/pricing')})\n")
    return built_hash_index(tmp_path, **LOOPBACK_FETCH)


def _stored(settings: Settings) -> PriceTable:
    from hwqa.prices import stored_price_table

    return stored_price_table(settings.index)


def _find(table: PriceTable, hardware: str, pricing: str = "on-demand") -> PriceRow:
    matches = [r for r in table.rows if r.hardware == hardware and r.pricing == pricing]
    assert len(matches) == 1, (hardware, pricing, [r.to_json() for r in table.rows])
    return matches[0]


EXPECTED = [
    # hardware, pricing, provider, $/h, origin, date
    ("A100 80GB", "on-demand", "Lambda", 1.29, "sentence", "2024-02"),
    ("A10G", "on-demand", "AWS", 1.006, "list item", "2024-03-10"),
    ("A10G", "spot", "AWS", 0.45, "list item", "2024-03-10"),
    ("RTX 4090", "reserved", "RunPod", 540 / 720, "list item", "2024-03-10"),
    ("T4", "on-demand", "GCP", 0.35, "table", "2023-09-01"),
    ("TPU v2-8", "preemptible", "GCP", 1.35, "table", "2023-09-01"),
    ("H100", "reserved", "CoreWeave", 2.23, "sentence", None),
    ("H100", "on-demand", "CoreWeave", 49.24 / 8, "table", None),
    ("H100", "spot", "CoreWeave", 19.70 / 8, "table", None),
    ("L40S", "on-demand", "CoreWeave", 1.25, "table", None),
]


def test_every_price_in_sentences_lists_untagged_tables_and_a_linked_pricing_page_is_a_row(folder: Settings) -> None:
    table = _stored(folder)
    assert len(table.rows) == len(EXPECTED)
    for hardware, pricing, provider, usd, origin, as_of in EXPECTED:
        row = _find(table, hardware, pricing)
        assert (row.provider, row.origin, row.as_of) == (provider, origin, as_of), row.to_json()
        assert math.isclose(row.usd_per_hour, usd, rel_tol=1e-9)
    assert _find(table, "T4").memory_gb == 16 and _find(table, "H100").memory_gb == 80
    page = _find(table, "L40S")
    assert page.url is not None and page.url.endswith("/pricing") and page.section == "Instances"


def test_each_row_quotes_its_evidence_with_the_price_and_hardware_verbatim(folder: Settings) -> None:
    table = _stored(folder)
    lines = {path.name: path.read_text(encoding="utf-8").splitlines() for path in (folder.notes).glob("*.md") if path.is_file()}
    for row in table.rows:
        assert row.hardware in row.evidence and row.stated in row.evidence, row.to_json()
        if row.url is None:  # a note's row: its evidence is on the line it cites
            assert row.evidence.replace("**", "") in " ".join(lines[row.note][row.line - 1 : row.line + 1])
    monthly = _find(table, "RTX 4090", "reserved")
    assert monthly.stated == "$540 per month" and "720" in monthly.conversion
    eight = _find(table, "H100")
    assert eight.stated == "$49.24" and "÷ 8 devices" in eight.conversion


def test_what_cannot_be_read_with_confidence_is_left_out_with_its_reason(folder: Settings) -> None:
    table = _stored(folder)
    by_text = {item.text: item.reason for item in table.left_out}
    assert not [text for text in by_text if "$3,000" in text]  # a purchase: a fact of its own, of the workstation
    (bought,) = [f for f in table.facts if f.stated == "$3,000"]
    assert (bought.kind, bought.subject, bought.amount, bought.unit) == ("purchase", "workstation with an RTX 3090", 3000, "once")
    euro = next(reason for text, reason in by_text.items() if "€0.69/h" in text)
    assert "not in US dollars" in euro
    # a price in euros is kept in euros (no exchange rate is noted), a fact of its own, never a dollar row
    (kept,) = [f for f in table.facts if f.stated == "€0.69/h"]
    assert (kept.kind, kept.subject, kept.amount, kept.currency, kept.unit) == ("rental", "RTX 4090", 0.69, "EUR", "hour")
    mystery = next(reason for text, reason in by_text.items() if "mystery box" in text)
    assert mystery == "no hardware name in the row"
    assert not [r for r in table.rows if r.stated in ("$3,000", "€0.69/h", "$0.99")]


def test_status_and_the_prices_command_say_where_rows_came_from_and_what_was_left_out(
    folder: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HWQA_INDEX", str(folder.index))
    monkeypatch.setenv("HWQA_EMBED_BACKEND", "hash")
    status = json.loads(runner.invoke(app, ["status", "--json"]).stdout)
    assert status["price_rows"] == len(EXPECTED) and status["price_rows_from_text"] == len(EXPECTED)
    assert status["price_left_out"] >= 2  # the $3,000 workstation is a purchase now, not a statement left out
    text = runner.invoke(app, ["prices"]).stdout
    assert "rental-log.md:10" in text and "sentence: “In February 2024 an A100 80GB" in text
    assert "Left out (" in text and "no hardware name in the row" in text


def test_prices_with_notes_shows_the_rows_of_the_linked_pages_and_names_a_page_the_index_has_not_read(
    folder: Settings, site: LoopbackSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(folder.notes.parent)
    monkeypatch.setenv("HWQA_INDEX", str(folder.index))
    monkeypatch.setenv("HWQA_EMBED_BACKEND", "hash")

    def rows(*flags: str) -> tuple[list[tuple[str, str, float]], dict[str, object]]:
        result = runner.invoke(app, ["prices", *flags, "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        return sorted((r["hardware"], r["pricing"], r["usd_per_hour"]) for r in data["table"]["rows"]), data

    indexed, _ = rows()
    read, data = rows("--notes", str(folder.notes))
    assert read == indexed and ("L40S", "on-demand", 1.25) in read  # the pricing page's rows, as the index read them
    assert data["pages_not_read"] == []
    write_note(folder.notes, "more.md", f"# More\n\n* [Spot market]({site.url('/spot')}) sells H100 time by the hour.\n")
    result = runner.invoke(app, ["prices", "--notes", str(folder.notes)])
    assert result.exit_code == 0 and "L40S" in result.stdout
    [warning] = [line for line in result.stderr.splitlines() if "left out" in line]
    assert site.url("/spot") in warning and f"run 'hwqa index --notes {folder.notes}" in warning
    assert rows("--notes", str(folder.notes))[1]["pages_not_read"] == [site.url("/spot")]


def _table_of(tmp_path: Path, notes: dict[str, str]) -> PriceTable:
    folder = tmp_path / "notes"
    for name, text in notes.items():
        write_note(folder, name, text)
    return load_price_table(load_notes(folder).notes)


EXPLICIT = """
---
title: Price table
tags: [prices]
---
| hardware | provider | type | usd_per_hour | as_of |
|---|---|---|---|---|
| TPU v3-8 | GCP | tpu | 8.00 | 2021-12-21 |
"""


def test_an_explicit_price_table_wins_over_a_sentence_and_the_conflict_is_shown(tmp_path: Path) -> None:
    table = _table_of(
        tmp_path,
        {
            "table.md": EXPLICIT,
            "later.md": "# TPUs\n\nAs of 2023-05 I was quoted $4.50/hr for an on-demand TPU v3 on Google Cloud.\n",
        },
    )
    used = [r for r in table.rows if r.hardware.startswith("TPU v3")]
    assert [(r.usd_per_hour, r.origin) for r in used] == [(8.0, "price table")]
    [conflict] = table.conflicts
    assert conflict.startswith("TPU v3-8 (GCP, on-demand): $8.00/h in table.md:7 (price table, 2021-12-21) is used")
    assert "not $4.50/h in later.md:3 (sentence, 2023-05)" in conflict


def test_a_newer_statement_wins_over_an_older_one(tmp_path: Path) -> None:
    table = _table_of(
        tmp_path,
        {
            "old.md": "---\ndate: 2021-06-01\n---\n# GPUs\n\nA V100 on GCP costs $2.48/hr on demand.\n",
            "new.md": "---\ndate: 2024-01-15\n---\n# GPUs\n\nA V100 on GCP now costs $2.95/hr on demand.\n",
        },
    )
    [row] = table.rows
    assert (row.usd_per_hour, row.note, row.as_of) == (2.95, "new.md", "2024-01-15")
    assert table.conflicts == [
        "V100 (GCP, on-demand): $2.95/h in new.md:6 (sentence, 2024-01-15) is used; "
        "not $2.48/h in old.md:6 (sentence, 2021-06-01)"
    ]


def test_a_speed_in_words_fills_the_speed_of_the_hardware_named_before_it(tmp_path: Path) -> None:
    note = parse_note(
        "# Notes\n\nA TPUv3-8 gives about the compute equivalent to 8 V100 GPUs. "
        "The H100 is about 3× a V100 in my runs. The A100 has 2.5x the V100's bandwidth. An L4 is worth 0.8 V100.\n\n"
        "* TPU v3 on GCP: $8.00/hr. H100 on AWS: $12.29/hr. A100 on AWS: $4.10/hr.\n",
        "speeds.md",
    )
    found = read_document(note_doc(note))
    assert [(s.subject, s.value) for s in found.speeds] == [("TPUv3-8", 8.0), ("H100", 3.0), ("L4", 0.8)]
    table = _table_of(tmp_path, {"speeds.md": note.body})
    speeds = {r.hardware: r.speed for r in table.rows}
    assert speeds == {"TPU v3": 8.0, "H100": 3.0, "A100": None}
    assert next(r for r in table.rows if r.hardware == "H100").speed_from.startswith("speeds.md:3: ")


SEED_PRICES = {("P100", "$1.46/hr"), ("TPU v3", "$8.00/hr"), ("TPUv2", "$4.50/hr")}


@pytest.mark.parametrize(
    "text",
    [
        # the owner's shape: prices before their hardware, three pairs in one bracket
        "TPUs cost about five times what GPUs do ($1.46/hr for a Nvidia Tesla P100 GPU vs $8.00/hr for a Google "
        "TPU v3 vs $4.50/hr for the TPUv2 on GCP).",
        "On GCP I was quoted $8.00/hr for a TPU v3 and $4.50/hr for a TPUv2, and $1.46/hr for a P100.",
        "$1.46/hr for a P100, $8.00/hr for a TPU v3, $4.50/hr for a TPUv2.",
        "A P100 at $1.46/hr, a TPU v3 at $8.00/hr and a TPUv2 at $4.50/hr.",
        "The TPU v3 ($8.00/hr) and the TPUv2 ($4.50/hr) both cost more than the P100 ($1.46/hr).",
        "* $8.00/hr for a TPU v3 and $4.50/hr for a TPUv2\n* P100: $1.46/hr",
        "| Price per hour | Accelerator |\n|---|---|\n| $8.00/hr | TPU v3 |\n| $4.50/hr | TPUv2 |\n| $1.46/hr | P100 |",
    ],
    ids=["seed-vs", "price-first-and", "price-first-commas", "hardware-first", "brackets", "list", "table"],
)
def test_each_price_is_paired_with_the_hardware_its_own_clause_names(text: str) -> None:
    found = read_document(note_doc(parse_note(f"# TPU or GPU\n\n{text}\n", "tpu.md")))
    assert {(r.hardware, r.stated) for r in found.rows} == SEED_PRICES
    assert not found.left_out


def test_a_hardware_name_ending_a_sentence_is_read() -> None:
    note = parse_note(
        "# Cheap\n\nThe cheapest I found was $0.35/hr for a T4. A pod slice was $32.00/hr for a TPU v4-8.\n", "c.md"
    )
    rows = [(r.hardware, r.stated) for r in read_document(note_doc(note)).rows]
    assert rows == [("T4", "$0.35/hr"), ("TPU v4-8", "$32.00/hr")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I paid $1.46/hr for a P100 on AWS and $0.74/hr for a spot V100 on GCP.",
            {"P100": ("AWS", "on-demand"), "V100": ("GCP", "spot")},
        ),
        ("A P100 on AWS was $1.46/hr and a spot V100 on GCP $0.74/hr.", {"P100": ("AWS", "on-demand"), "V100": ("GCP", "spot")}),
        ("On AWS, $1.46/hr for a P100 and $0.74/hr for a V100, both spot.", {"P100": ("AWS", "spot"), "V100": ("AWS", "spot")}),
    ],
)
def test_several_pairs_in_one_clause_keep_their_own_provider_and_pricing(text: str, expected: dict[str, tuple[str, str]]) -> None:
    note = parse_note(f"# Quotes\n\n{text}\n", "q.md")
    assert {r.hardware: (r.provider, r.pricing) for r in read_document(note_doc(note)).rows} == expected


def test_a_second_price_for_a_name_already_priced_is_left_out_saying_so() -> None:
    note = parse_note("# V100\n\nA V100 costs $2.48/hr on demand and $0.74/hr preemptible.\n", "v.md")
    found = read_document(note_doc(note))
    assert [(r.hardware, r.stated) for r in found.rows] == [("V100", "$2.48/hr")]
    assert [item.reason for item in found.left_out] == ["$0.74/hr: every hardware name in its clause has a price of its own"]


SPEEDS_AGAINST_OTHERS = """
# GPUs I trained on

The A100 was about 3x a V100 for training. An H100 is about 2x an A100 in my runs, and an L4 is half the speed
of a P100. A T4 trains at half a P100's speed. An MI300X is twice as fast as an H200.

* A100 on AWS: $4.10/hr. H100 on AWS: $12.29/hr. L4 on GCP: $0.70/hr. T4 on GCP: $0.35/hr.
* An 8x A100 node on Lambda Labs is $14.32/hr.
* MI300X on Azure: $6.00/hr.
"""
P100_SPEED = """
---
tags: [prices]
---
| hardware | provider | type | usd_per_hour | speed |
|---|---|---|---|---|
| P100 | GCP | gpu | 1.46 | 0.5 |
"""


def test_a_speed_against_another_gpu_is_converted_through_that_gpus_own_v100_speed(tmp_path: Path) -> None:
    table = _table_of(tmp_path, {"gpus.md": SPEEDS_AGAINST_OTHERS, "p100.md": P100_SPEED})
    speeds = {(r.hardware, r.provider): r.speed for r in table.rows}
    # H100 = 2 x A100 = 2 x 3 V100; L4 and T4 = 0.5 x P100 = 0.5 x 0.5 V100 (the P100's speed from the price table)
    assert speeds == {
        ("P100", "GCP"): 0.5,
        ("A100", "AWS"): 3.0,
        ("H100", "AWS"): 6.0,
        ("L4", "GCP"): 0.25,
        ("T4", "GCP"): 0.25,
        ("A100", "Lambda"): 3.0,  # "8x A100" is eight devices, not a speed
        ("MI300X", "Azure"): None,
    }
    h100 = next(r for r in table.rows if r.hardware == "H100")
    assert h100.speed_from.startswith("gpus.md:3 (2 × the A100, itself 3 V100 in gpus.md:3): An H100 is about 2x an A100")
    t4 = next(r for r in table.rows if r.hardware == "T4")
    assert "itself 0.5 V100 in p100.md:6" in t4.speed_from  # the price table row with the P100
    [unknown] = [item for item in table.left_out if "MI300X" in item.reason]
    assert (
        unknown.reason == "the MI300X's speed is stated as 2 × the H200, and the notes give no speed of the H200 against a V100"
    )
    assert unknown.where == "gpus.md:4" and "twice as fast as an H200" in unknown.text


# --- property: no row invented, none read from a neighbouring sentence --------------------------

HARDWARE = ["V100", "P100", "T4", "A100 40GB", "H100", "L4", "TPU v3", "TPU v4-8", "RTX 4090", "TPUv2"]
PROVIDERS = {"GCP": "GCP", "AWS": "AWS", "Azure": "Azure", "Lambda Labs": "Lambda", "RunPod": "RunPod"}
PRICE_TEMPLATES = [
    "On {provider}, a {hardware} costs {price} on demand.",
    "I paid {price} for a {hardware} on {provider}.",
    "The {hardware} ({provider}) was {price} as spot capacity.",
    "{provider} rents the {hardware} at {price}.",
]
# One price and its hardware, in either order; several of them joined make one sentence.
HARDWARE_FIRST = ["a {hardware} at {price}", "the {hardware} for {price}", "a {hardware} costs {price}", "{hardware}: {price}"]
PRICE_FIRST = ["{price} for a {hardware}", "{price} for the {hardware}", "{price} to rent a {hardware}"]
JOINS = [" and ", ", ", ", and ", " vs ", "; ", " or "]
FRAMES = ["On {provider}, {pairs}.", "I was quoted {pairs} on {provider}.", "{pairs}.", "Prices I saw: {pairs}."]
FILLER = [
    "Training took most of the night.",
    "The {hardware} had enough memory for the model.",
    "I would not buy one for $3,000.",
    "Power cost me $0.15 per kWh.",
    "Storage added $0.05/hr to the bill.",
]


@st.composite
def prices(draw: st.DrawFn) -> str:
    cents = draw(st.integers(1, 99_999))
    return f"${cents // 100}.{cents % 100:02d}" + draw(st.sampled_from(["/hr", " per hour", " an hour", "/h"]))


@st.composite
def paragraphs(draw: st.DrawFn) -> tuple[str, list[tuple[str, str, str, str]]]:
    """A paragraph of price sentences (one price, or several pairs in either order) and filler; the
    truth: (sentence, hardware, price, provider) per price."""
    sentences: list[str] = []
    truth: list[tuple[str, str, str, str]] = []
    for _ in range(draw(st.integers(1, 6))):
        hardware = draw(st.sampled_from(HARDWARE))
        provider = draw(st.sampled_from(sorted(PROVIDERS)))
        shape = draw(st.sampled_from(["one", "pairs", "filler"]))
        if shape == "one":
            price = draw(prices())
            sentence = draw(st.sampled_from(PRICE_TEMPLATES)).format(provider=provider, hardware=hardware, price=price)
            truth.append((sentence, hardware, price, PROVIDERS[provider]))
        elif shape == "pairs":
            pairs = draw(st.lists(st.tuples(st.sampled_from(HARDWARE), prices(), st.booleans()), min_size=2, max_size=4))
            texts = [
                draw(st.sampled_from(PRICE_FIRST if first else HARDWARE_FIRST)).format(hardware=h, price=p)
                for h, p, first in pairs
            ]
            joined = texts[0] + "".join(draw(st.sampled_from(JOINS)) + text for text in texts[1:])
            frame = draw(st.sampled_from(FRAMES))
            sentence = frame.format(provider=provider, pairs=joined)
            sentence = sentence[0].upper() + sentence[1:]
            said = PROVIDERS[provider] if "{provider}" in frame else "not stated"
            truth.extend((sentence, h, p, said) for h, p, _ in pairs)
        else:
            sentence = draw(st.sampled_from(FILLER)).format(hardware=hardware)
        sentences.append(sentence)
    return " ".join(sentences), truth


@settings(max_examples=300, deadline=None)
@given(paragraphs())
def test_generated_sentences_give_exactly_their_own_rows(case: tuple[str, list[tuple[str, str, str, str]]]) -> None:
    text, truth = case
    found = read_document(note_doc(parse_note(f"# Rentals\n\n{text}\n", "gen.md")))
    got = sorted((r.evidence, r.hardware, r.stated, r.provider) for r in found.rows)
    assert got == sorted(truth)
    for row in found.rows:  # the price is the one written, per hour, and nothing from a neighbour
        assert row.hardware in row.evidence and row.stated in row.evidence
        assert math.isclose(row.usd_per_hour, float(row.stated.lstrip("$").split("/")[0].split(" ")[0]), rel_tol=1e-9)


def test_the_prices_tab_shows_where_each_row_came_from_and_what_was_left_out(folder: Settings) -> None:
    from hwqa.engine import Engine
    from hwqa.ui import panels, reports

    engine = Engine.load(folder)
    rows = panels.filtered_prices(engine, [], [])
    source = reports.PRICE_COLUMNS.index("From")
    lambda_labs = next(row for row in rows if row[0] == "A100 80GB")
    assert lambda_labs[:2] == ["A100 80GB", "$1.29"]  # the name and its price first, as a phone shows them
    assert lambda_labs[source].startswith("sentence: “In February 2024 an A100 80GB on Lambda Labs was $1.29/hr")
    page = next(row for row in rows if row[0] == "L40S")
    assert page[source].startswith("table: “| gpu-l40s-1x | 1 x NVIDIA L40S |")
    notes = panels.price_notes(engine)
    assert "**Left out**" in notes and "no hardware name in the row" in notes and "not in US dollars" in notes


def test_a_note_filter_admits_the_prices_of_the_pages_its_notes_link_to(folder: Settings) -> None:
    from hwqa.answer.retrieve import Filter
    from hwqa.engine import Engine

    engine = Engine.load(folder)
    question = "What does an L40S cost per hour?"
    linked = engine.ask(question, flt=Filter.of(notes=["reading.md"]))
    assert linked.tool_calls and linked.tool_calls[0].result["options"][0]["usd_per_hour"] == 1.25
    assert linked.citations[0].kind == "article" and linked.citations[0].text.startswith("| gpu-l40s-1x |")
    other = engine.ask(question, flt=Filter.of(notes=["colab.md"]))
    assert "1.25" not in other.text and all(c.source == "colab.md" for c in other.citations)


def test_amounts_in_a_calculation_or_per_gpu_are_left_out_saying_so(tmp_path: Path) -> None:
    note = parse_note(
        "# Per unit of work\n\nOne V100-hour on a TPU v3-8 costs $8.00 / 8 = $1.00, so it beats the P100.\n"
        "An 8-GPU A100 box is $32.77 per hour, which is $4.10 per GPU.\n",
        "work.md",
    )
    found = read_document(note_doc(note))
    reasons = sorted(item.reason for item in found.left_out)
    assert reasons == [
        "$1.00 is part of a calculation, not a price as stated",
        "$4.10 per GPU has no time unit (per hour, per month)",
        "$8.00 is part of a calculation, not a price as stated",
    ]
    [row] = found.rows  # an 8-GPU box's price is for 8 devices
    assert (row.hardware, row.stated, row.usd_per_hour) == ("A100", "$32.77 per hour", 32.77 / 8)
    assert row.conversion == "÷ 8 devices (the price is for 8)"


def test_a_month_is_the_same_hours_in_a_price_read_and_a_month_asked_about(tmp_path: Path) -> None:
    """'$540 per month' in a note and 'per month' in a question use one month: the answer is $540 again."""
    from hwqa.engine import Engine
    from hwqa.prices.units import HOURS_PER_MONTH

    write_note(tmp_path / "notes", "runpod.md", "# RunPod\n\n* I keep an RTX 4090 on RunPod for $540 per month.\n")
    values = {"notes": tmp_path / "notes", "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False}
    settings = load_settings(values, env={}, cwd=tmp_path)
    build_index(settings)
    answer = Engine.load(settings).ask("What does the RTX 4090 cost per month?")
    [call] = [c for c in answer.tool_calls if c.name == "price_calculator"]
    assert call.arguments["hours"] == HOURS_PER_MONTH == 720
    [option] = call.result["options"]
    assert option["cost"] == 540 and option["usd_per_hour"] == 540 / 720, answer.text


def test_an_index_built_by_an_older_price_reader_reads_every_note_again(tmp_path: Path) -> None:
    """A note unchanged since the last build keeps its price facts, unless they were read by an older reader."""
    from hwqa.index import reader as store
    from hwqa.prices import PRICES_READER

    write_note(tmp_path / "notes", "tpu.md", "# TPUs\n\nOn GCP I paid $8.00/hr for a TPU v3 and $4.50/hr for a TPUv2.\n")
    values = {"notes": tmp_path / "notes", "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False}
    settings = load_settings(values, env={}, cwd=tmp_path)
    build_index(settings)
    assert build_index(settings).notes_read == 0  # nothing changed: no note is read
    gen = store.current_generation_dir(settings.index)
    assert gen is not None
    path = gen / store.MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8"))
    assert manifest["prices_reader"] == PRICES_READER
    manifest["prices_reader"] = PRICES_READER - 1  # as an index built before this reader left it
    path.write_bytes(store.manifest_text(manifest))  # with its checksum, as a release writes it
    again = build_index(settings)
    assert again.notes_read == 1 and not again.warnings  # read again, not thrown away as damaged
    rows = {r.hardware: r.usd_per_hour for r in _stored(settings).rows}
    assert rows == {"TPU v3": 8.0, "TPUv2": 4.5}
