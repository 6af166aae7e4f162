"""The builtin answerer quotes the span that answers: numbers, named things, lists, table rows, superlatives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hwqa.answer.base import Hit
from hwqa.answer.builtin import BuiltinAnswerer
from hwqa.answer.question import parse_question
from hwqa.answer.quotes import Candidate, quote
from hwqa.answer.retrieve import Filter, with_surroundings
from hwqa.answer.scorer import FEATURES, features
from hwqa.engine import Engine
from hwqa.notes.spans import spans_of
from hwqa.settings import Settings

from .conftest import REPO, built_hash_index, write_note

CHIPS_NOTE = """
---
title: Accelerator chips
tags: [hardware]
---
# Accelerator chips

## Chip table

The chips I keep running into, with what each one is for.

| chip | vendor | memory_gb | power_w | purpose |
|---|---|---|---|---|
| Gaudi 2 | Intel | 96 | 600 | training large language models |
| Gaudi 3 | Intel | 128 | 900 | training and inference at scale |
| Inferentia2 | AWS | 32 | 175 | low-cost inference |
| Trainium1 | AWS | 32 | 400 | training on AWS |

## Supported versions

The SDK supports these framework versions:
- PyTorch 2.1 and 2.2
- TensorFlow 2.14
- JAX 0.4.25

## Cores

The Gaudi 3 is built from two dies. In total it has 64 tensor processor cores and 8 matrix engines.
Each die has its own HBM stacks.
"""


@pytest.fixture
def chips(tmp_path: Path) -> Engine:
    return _engine(tmp_path, "chips.md", CHIPS_NOTE)


def test_spans_keep_rows_with_their_header_and_items_with_their_lead_in() -> None:
    spans = spans_of(CHIPS_NOTE.split("## Chip table", 1)[1])
    rows = [s for s in spans if s.kind == "row"]
    assert len(rows) == 4
    assert rows[1].cells == {
        "chip": "Gaudi 3",
        "vendor": "Intel",
        "memory_gb": "128",
        "power_w": "900",
        "purpose": "training and inference at scale",
    }
    assert "memory 128 GB" in rows[1].text
    items = [s for s in spans if s.kind == "item"]
    assert [i.text for i in items] == ["PyTorch 2.1 and 2.2", "TensorFlow 2.14", "JAX 0.4.25"]
    assert all(i.lead == "The SDK supports these framework versions:" for i in items)


@pytest.mark.parametrize(
    ("question", "wants"),
    [
        ("How many cores does the Gaudi 3 have?", "number"),
        ("Which versions of PyTorch are supported?", "version"),
        ("Which chip is for low-cost inference?", "entity"),
        ("Is the Gaudi 3 good for inference?", "yesno"),
        ("What are the supported frameworks?", "list"),
        ("is there an env var that makes the launcher kill a slow job?", "variable"),
        ("Which environment variable holds the job ID?", "variable"),
        ("what flag prints the compile line?", "flag"),
        ("which configure switch turns on avx-512?", "flag"),
        ("how does the agree call combine the flag values?", "any"),
        ("which switch did i buy for the 10g network?", "entity"),
    ],
)
def test_question_types(question: str, wants: str) -> None:
    assert parse_question(question).wants == wants


def test_superlative_reads_the_table_column(chips: Engine) -> None:
    answer = chips.ask("Which chip has the most memory?")
    assert answer.text.startswith("Gaudi 3")
    assert "128 GB" in answer.text
    answer = chips.ask("Which chip draws the least power?")
    assert answer.text.startswith("Inferentia2") and "175 W" in answer.text
    assert answer.citations[0].heading == "Chip table", "the row is cited at its section"


def test_which_chip_is_for_picks_the_row_that_names_the_purpose(chips: Engine) -> None:
    answer = chips.ask("Which chip is meant for low-cost inference?")
    first = answer.text.split("[1]")[0]
    assert "Inferentia2" in first and "Trainium1" not in first


def test_lookup_of_a_named_row_does_not_quote_its_sibling(chips: Engine) -> None:
    answer = chips.ask("How much memory does the Gaudi 2 have?")
    first = answer.text.split("[1]")[0]
    assert "Gaudi 2" in first and "96 GB" in first


def test_how_many_quotes_the_sentence_with_the_number(chips: Engine) -> None:
    answer = chips.ask("How many tensor processor cores does the Gaudi 3 have?")
    assert "64 tensor processor cores" in answer.text.split("[")[0]


def test_list_question_gets_the_list_with_its_lead_in(chips: Engine) -> None:
    answer = chips.ask("Which framework versions does the SDK support?")
    assert "PyTorch 2.1 and 2.2" in answer.text and "TensorFlow 2.14" in answer.text and "JAX 0.4.25" in answer.text


@pytest.fixture
def bundled(tmp_path: Path) -> Settings:
    return built_hash_index(tmp_path, notes=REPO / "notes")


def test_price_lookup_uses_the_named_provider(bundled: Settings) -> None:
    answer = Engine.load(bundled).ask("How much does an A100 cost on AWS?")
    call = answer.tool_calls[0]
    assert call.arguments["providers"] == ["AWS"]
    assert {o["provider"] for o in call.result["options"]} == {"AWS"}
    assert "4.10" in answer.text and "3.67" not in answer.text.split("**From your notes:**")[0]


def test_price_lookup_understands_the_providers_long_name(bundled: Settings) -> None:
    answer = Engine.load(bundled).ask("What does a V100 cost on Google Cloud?")
    assert answer.tool_calls[0].arguments["providers"] == ["GCP"]
    assert "2.48" in answer.text


def test_most_memory_comes_from_the_price_tables_memory_column(bundled: Settings) -> None:
    answer = Engine.load(bundled).ask("Which GPU has the most memory?")
    assert "80 GB" in answer.text.split("[1]")[0]


def test_the_calculator_tool_checks_provider_names() -> None:
    from hwqa.answer.pricetool import run_price_calculator
    from hwqa.errors import ToolArgumentError
    from hwqa.notes.note import load_notes
    from hwqa.prices import load_price_table

    table = load_price_table(load_notes(REPO / "notes").notes)
    result = run_price_calculator({"hardware": "V100", "providers": ["azure"]}, table)
    assert {o["provider"] for o in result["options"]} == {"Azure"}
    with pytest.raises(ToolArgumentError, match=r"unknown provider 'Oracle'; the price table has: AWS, Azure, GCP"):
        run_price_calculator({"providers": ["Oracle"]}, table)
    with pytest.raises(ToolArgumentError, match="providers must be a list"):
        run_price_calculator({"providers": "AWS"}, table)


MIXED_NOTE = """
---
title: Accelerator memory
---
# Accelerator memory

## Inference cards

| card | memory_gb | power_w |
|---|---|---|
| L4 | 24 | 72 |
| T4 | 16 | 70 |

## Big parts

The AMD MI300X carries 192 GB of HBM3 memory on one package.
"""

FORMATS_NOTE = """
---
title: Export tool
---
# Export tool

## Formats

The export tool writes these file formats:

- ONNX graphs with external weights for models over two gigabytes in size
- TorchScript archives that load without the Python class definitions
- TensorFlow SavedModel folders with their signatures and assets
- Core ML packages for Apple devices with the neural engine enabled
- TensorRT engines built for one GPU model and one TensorRT version
- OpenVINO intermediate representation files for Intel CPUs and GPUs
- GGUF files with quantized weights for llama.cpp and its servers
"""


def _engine(tmp_path: Path, name: str, text: str, **extra: object) -> Engine:
    write_note(tmp_path / "notes", name, text)
    return Engine.load(built_hash_index(tmp_path, min_score=0.0, **extra))


def test_superlative_weighs_the_prose_against_the_table(tmp_path: Path) -> None:
    """A table of small cards does not hide the bigger part a sentence states, in the same unit."""
    answer = _engine(tmp_path, "memory.md", MIXED_NOTE).ask("Which accelerator has the most memory?")
    assert "192 GB" in answer.text.split("[1]")[0]
    # Power: no sentence states watts, so the table alone answers.
    answer = _engine(tmp_path / "b", "memory.md", MIXED_NOTE).ask("Which card draws the least power?")
    assert answer.text.startswith("T4") and "70 W" in answer.text


# The same list with items of two sentences: an item's second sentence does not end the list.
TWO_SENTENCE_FORMATS_NOTE = re.sub(r"^(- [^\n]*?) (with|for|built) ", r"\1. They come \2 ", FORMATS_NOTE, flags=re.M)


@pytest.mark.parametrize("note", [FORMATS_NOTE, TWO_SENTENCE_FORMATS_NOTE], ids=["one sentence an item", "two sentences an item"])
def test_a_list_cut_between_chunks_is_quoted_whole(tmp_path: Path, note: str) -> None:
    engine = _engine(tmp_path, "formats.md", note, chunk_tokens=64, chunk_overlap=8)
    chunks = [h.chunk for h in engine.search("Which file formats does the export tool write?", 10)]
    assert len({c.ordinal for c in chunks}) > 1, "the list must span chunks for this test to mean anything"
    answer = engine.ask("Which file formats does the export tool write?")
    for fmt in ("ONNX graphs", "TensorRT engines", "GGUF files"):
        assert fmt in answer.text, fmt


CODES_NOTE = """
---
title: Packing formats
---
# Packing formats

## Format characters

| format | C type | size |
|---|---|---|
| h | short | 2 |
| H | unsigned short | 2 |
| i | int | 4 |
| I | unsigned int | 4 |

## Byte order

| character | byte order |
|---|---|
| < | little-endian |
| > | big-endian |
| ! | network (big-endian) |

## FAQ

Q: Does the T4 support bf16?

A: No. It lacks bf16 tensor cores, so train in fp16 with loss scaling instead.
"""


def test_a_row_keyed_by_a_short_code_is_found_by_its_code(tmp_path: Path) -> None:
    engine = _engine(tmp_path, "codes.md", CODES_NOTE)
    first = engine.ask("Which C type does the format character H stand for?").text.split("[1]")[0]
    assert "unsigned short" in first and "int" not in first
    first = engine.ask("What byte order does a format starting with '!' use?").text.split("[1]")[0]
    assert "network" in first


def test_a_question_in_the_notes_is_quoted_with_its_answer(tmp_path: Path) -> None:
    answer = _engine(tmp_path, "codes.md", CODES_NOTE).ask("Does the T4 support bf16?")
    assert "fp16 with loss scaling" in answer.text


DRIVER_NOTE = """
---
title: Zephyr cards
---
# Zephyr cards

## Driver

The Zephyr card needs the Zephyr kernel driver. Install the Zephyr driver before the Zephyr runtime.
The Zephyr driver ships as a Debian package. The Zephyr driver loads at boot once it is installed.

Older releases of the package were unsigned. Secure boot systems want the signed package today.
Version 6.1 is the oldest that works.

## Cooling

The cards need front-to-back airflow.
"""


def test_the_answer_may_run_on_into_the_next_chunk_of_the_section(tmp_path: Path) -> None:
    """The best passage is found; the sentence that answers is in the chunk after it, in the same section."""
    engine = _engine(tmp_path, "zephyr.md", DRIVER_NOTE, chunk_tokens=48, chunk_overlap=0)
    gen = engine.generation()
    chunks = sorted((c for c in gen.all_chunks() if c.heading.endswith("Driver")), key=lambda c: c.ordinal)
    assert len(chunks) >= 2 and "6.1" not in chunks[0].text, "the section must be split for this test"
    assert with_surroundings(gen, Hit(chunks[0], 0.5)).following == chunks[1]
    assert with_surroundings(gen, Hit(chunks[-1], 0.5)).following is None, "the next section is not the same passage"
    question = "What version of the kernel does the Zephyr driver need?"
    answerer = BuiltinAnswerer(min_score=0.0, max_sentences=3)
    alone = answerer.answer(parse_question(question), [Hit(chunks[0], 0.6)])
    assert "6.1" not in alone.text
    answer = answerer.answer(parse_question(question), [Hit(chunks[0], 0.6, following=chunks[1])])
    assert "6.1" in answer.text
    assert any(c.text and "6.1" in c.text for c in answer.citations), "the chunk it came from is cited"
    # The engine hands the best hits their next chunk.
    assert "6.1" in engine.ask(question).text


ENV_NOTE = """
---
title: Zephyr runtime
---
# Zephyr runtime

## Environment variables

The runtime reads these variables.

ZEPHYR_VISIBLE_CARDS

A comma-separated list of card indices the runtime may use.

ZEPHYR_LOG_LEVEL

How much the tools log: error, warning or debug.
"""


def test_a_definition_is_quoted_with_the_term_line_above_it(tmp_path: Path) -> None:
    """Reference pages put the name on a line of its own (a <dt>); the quote names it."""
    answer = _engine(tmp_path, "zephyr.md", ENV_NOTE).ask("Which variable sets how much the tools log?")
    assert "ZEPHYR_LOG_LEVEL: How much the tools log" in answer.text
    assert "ZEPHYR_VISIBLE_CARDS: How much" not in answer.text
    answer = _engine(tmp_path / "b", "zephyr.md", ENV_NOTE).ask("Which variable lists the cards the runtime may use?")
    first = answer.text.split("[1]")[0]
    assert "ZEPHYR_VISIBLE_CARDS: A comma-separated list" in first and "ZEPHYR_LOG_LEVEL" not in first, first


def test_only_a_short_naming_line_is_a_term() -> None:
    spans = spans_of("March 18, 2025 · 3 min · the SDK team\n\nSDK 3.2 is out.\n\nSource code: Lib/x.py\n\nIt parses.")
    assert [s.label for s in spans if s.kind == "sentence"] == ["", "", "", ""]
    spans = spans_of("The intro says so.\n\n--json-lines\n\nParse every line as one object. Then print it.")
    assert [(s.text, s.label) for s in spans if s.label] == [("Parse every line as one object.", "--json-lines")]


SERVE_NOTE = """
---
title: Zephyr serving
---
# Zephyr serving

## Kernels

Release 2.1 ships kernels for these chips:

| chip | architecture |
|---|---|
| Z1 | Aurora |
| Z2 | Borealis |
| Z3 | Corona |

## Setup

1. Install the package.
2. Check that the cards are detected:
   ```console
   $ zctl cards
   ```
   It prints one line per card.

To see the driver version, run:

```
zctl --version
```

## Flags

--zone

Where the slice is created. It defaults to us-east1-b.
"""


def test_a_lead_in_brings_its_table_its_command_or_its_definition(tmp_path: Path) -> None:
    engine = _engine(tmp_path, "serve.md", SERVE_NOTE)
    answer = engine.ask("Which chips does release 2.1 ship kernels for?").text
    assert all(chip in answer for chip in ("Z1", "Z2", "Z3")), answer
    assert "zctl cards" in engine.ask("How do I check that the cards are detected?").text
    assert "zctl --version" in engine.ask("How do I see the driver version?").text
    answer = engine.ask("What does the --zone flag set?").text
    assert "--zone: Where the slice is created. It defaults to us-east1-b." in answer, answer


ZEPHYR_CLOUD_NOTE = """
---
title: Zephyr Cloud pricing
---
# Zephyr Cloud pricing

## Instance types

| Instance type | Cards | Price per hour |
|---|---|---|
| z1.large | 4 | $6.80 |
| z1.small | 1 | $1.90 |
"""

OTHER_PRICES_NOTE = """
---
title: GPU rental prices
---
# GPU rental prices

## Table

| hardware | provider | usd_per_hour |
|---|---|---|
| T4 | AWS | 0.53 |
| V100 | GCP | 2.48 |
"""


def test_a_superlative_reads_human_headers_in_the_table_the_question_names(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write_note(notes, "other.md", OTHER_PRICES_NOTE)
    engine = _engine(tmp_path, "zephyr-cloud.md", ZEPHYR_CLOUD_NOTE)
    first = engine.ask("What is the cheapest Zephyr Cloud instance?").text.split("[1]")[0]
    assert "z1.small" in first and "1.90" in first, first
    first = engine.ask("What is the cheapest GPU to rent per hour?").text.split("[1]")[0]
    assert "T4" in first, first


def test_a_price_superlative_reads_the_whole_price_table(bundled: Settings) -> None:
    """The cheapest row is found even when its passage is not among the retrieved ones; spot rows only if asked."""
    engine = Engine.load(bundled)
    first = engine.ask("What is the cheapest GPU to rent per hour?").text.split("[1]")[0]
    assert "T4" in first and "0.35" in first, first
    first = engine.ask("Which TPU is the most expensive per hour?").text.split("[1]")[0]
    assert "TPU" in first and "preemptible" not in first, first


FLAG_NOTE = """
---
title: Slice flags
---
# Slice flags

## Zone

--zone

Where the slice is created, as a region and a zone letter.

The default zone is us-east1-b when neither the flag nor a config file names one.
"""


def test_a_quote_reads_on_into_the_next_chunk_of_its_section(tmp_path: Path) -> None:
    """A term line found alone brings its definition, even where the chunker cut the section."""
    engine = _engine(tmp_path, "flags.md", FLAG_NOTE, chunk_tokens=32, chunk_overlap=0)
    chunks = sorted((c for c in engine.generation().all_chunks() if c.heading.endswith("Zone")), key=lambda c: c.ordinal)
    assert len(chunks) >= 2 and "us-east1-b" not in chunks[0].text, [c.text for c in chunks]
    answerer = BuiltinAnswerer(min_score=0.0, max_sentences=3)
    hit = Hit(chunks[0], 0.6, following=chunks[1])
    answer = answerer.answer(parse_question("What does --zone do?"), [hit])
    assert "--zone: Where the slice is created, as a region and a zone letter. The default zone is us-east1-b" in answer.text
    assert answer.text.count("us-east1-b") == 1, "the sentence is quoted once, inside the definition"


CONSTANTS_NOTE = """
---
title: Zipcsv constants
---
# Zipcsv constants

## Quoting

The zipcsv module defines the following constants:

zipcsv.QUOTE_EVERY

Tells writers to quote every field.

zipcsv.QUOTE_WORDS

Tells writers to quote the fields that are not numbers.

Tells the reader to turn each unquoted field into a float.

zipcsv.QUOTE_NOTHING

Tells writers to quote nothing, and readers to keep quote characters.
"""


def test_a_later_paragraph_of_a_definition_is_quoted_under_its_term(tmp_path: Path) -> None:
    """A definition's second paragraph still belongs to its term line: the answer names the constant."""
    answer = _engine(tmp_path, "consts.md", CONSTANTS_NOTE).ask(
        "Which constant makes the reader turn unquoted fields into floats?"
    )
    assert "zipcsv.QUOTE_WORDS: Tells the reader to turn each unquoted field into a float" in answer.text, answer.text
    assert "QUOTE_NOTHING" not in answer.text, "the next term line is another definition"


RELEASE_NOTE = """
---
title: Zorro SDK release notes
---
# Zorro SDK release notes

## Zorro SDK 2.1

Changes you may notice:

- The ONNX importer accepts models up to opset 21.
- Logs now go to standard error.
"""

BENCH_NOTE = """
---
title: Zorro benchmark
---
# Zorro benchmark

Both machines ran the same models: the A100 through CUDA, the Z2 through Zorro SDK 2.1, exported from ONNX.

Zorro SDK 2.1 was installed with pip on both hosts. The Z2 ran Zorro SDK 2.1 with its default settings.
"""


def test_a_name_in_the_section_heading_counts_for_the_sentences_under_it(tmp_path: Path) -> None:
    """The release notes' item under the 'Zorro SDK 2.1' heading answers, even ranked below another note's
    sentences that only name the version."""
    write_note(tmp_path / "notes", "bench.md", BENCH_NOTE)
    engine = _engine(tmp_path, "release.md", RELEASE_NOTE)
    chunks = {c.source: c for c in engine.generation().all_chunks() if "Zorro SDK 2.1" in c.heading or c.source == "bench.md"}
    hits = [Hit(chunks["bench.md"], 0.7), Hit(chunks["release.md"], 0.6)]
    question = parse_question("What is the highest ONNX opset the Zorro SDK 2.1 importer accepts?")
    _, pool = BuiltinAnswerer(min_score=0.0, max_sentences=3).candidates(question, hits)
    item = next(i for i, c in enumerate(pool) if "opset 21" in c.span.text)
    row = dict(zip(FEATURES, features(question, pool)[item], strict=True))
    assert row["name_near"] == 1.0 and row["name"] == 0.0  # the scorer sees the name in its heading


PLACEMENT_NOTE = FLAG_NOTE.replace("--zone", "--placement")


def test_a_quote_read_on_into_the_next_chunk_skips_the_chunks_overlap(tmp_path: Path) -> None:
    """Chunks overlap by a sentence or two; a definition read on into the next chunk says each sentence once."""
    engine = _engine(tmp_path, "flags.md", PLACEMENT_NOTE, chunk_tokens=40, chunk_overlap=19)
    chunks = sorted((c for c in engine.generation().all_chunks() if c.heading.endswith("Zone")), key=lambda c: c.ordinal)
    assert len(chunks) == 2 and "Where the slice is created" in chunks[1].text, [c.text for c in chunks]
    answerer = BuiltinAnswerer(min_score=0.0, max_sentences=3)
    answer = answerer.answer(parse_question("What does --placement do?"), [Hit(chunks[0], 0.6, following=chunks[1])])
    assert answer.text.startswith("--placement: Where the slice is created"), answer.text
    assert answer.text.count("Where the slice is created") == 1, answer.text
    assert "us-east1-b" in answer.text, answer.text


QUOTED_NOTE = """
---
title: Zipenum summary
---
# Zipenum summary

## Module contents

> `ZipCheck`
>
> > An enumeration with the values `SOLID`, `HOLLOW` and `SINGLE`, for use with `verify()`.
>
> `ZipBoundary`
>
> > An enumeration with the values `STRICT` and `LOOSE` for out-of-range values.
"""


def test_a_definition_inside_a_block_quote_is_quoted_as_text_under_its_term(tmp_path: Path) -> None:
    answer = _engine(tmp_path, "zipenum.md", QUOTED_NOTE).ask("What values does ZipCheck have?")
    first = answer.text.split("[1]")[0]
    assert first.startswith("ZipCheck: An enumeration with the values SOLID, HOLLOW and SINGLE"), answer.text
    assert ">" not in first and "STRICT" not in first, answer.text


OPTIONS_NOTE = """
---
title: Zython interpreter options
---
# Zython interpreter options

## Optimisation

-O

Remove assert statements and any code conditional on the value of __debug__.

-OO

Do -O and also discard docstrings.
"""


def test_a_short_flag_before_a_word_is_not_a_flag_with_a_value() -> None:
    """'-O and -OO' names the flag -OO (and -O, too short to be a name); not the flag -O with the value 'and'."""
    assert [t.written for t in parse_question("What is the difference between the -O and -OO options?").terms] == ["-OO"]
    assert [t.written for t in parse_question("What does -X perf enable?").terms] == ["-X perf"]


def test_the_scorer_decides_what_is_covered_and_a_floor_set_by_the_user_narrows_it(tmp_path: Path) -> None:
    """By default the answer scorer's confidence decides; a ``min_score`` floor keeps every passage under it out."""
    write_note(tmp_path / "notes", "options.md", OPTIONS_NOTE)
    answer = Engine.load(built_hash_index(tmp_path)).ask("What does -OO do?")
    assert answer.covered and "discard docstrings" in answer.text, answer.text
    assert not Engine.load(built_hash_index(tmp_path, min_score=0.99)).ask("What does -OO do?").covered


def test_the_price_calculator_reads_only_the_notes_a_filter_admits(bundled: Settings) -> None:
    """`hwqa ask --note` / the chat's note filter: the price rows of other notes are not used, nor cited."""
    engine = Engine.load(bundled)
    question = "How much does an A100 cost on AWS?"
    assert engine.ask(question).tool_calls
    only_colab = engine.ask(question, flt=Filter.of(notes=["google-colab-runtimes.md"]))
    assert not only_colab.tool_calls and "4.10" not in only_colab.text, only_colab.text
    assert {c.source for c in only_colab.citations} <= {"google-colab-runtimes.md"}
    only_prices = engine.ask(question, flt=Filter.of(notes=["cloud-prices.md"]))
    assert only_prices.tool_calls and "4.10" in only_prices.text, only_prices.text


DIRECTIVES_NOTE = """
---
title: Zformat directives
---
# Zformat directives

## Directives

The following directives can be used in a zformat string:

| Directive | Meaning |
|---|---|
""" + "".join(
    f"| `%{c}` | {m} |\n"
    for c, m in [
        ("a", "Weekday as an abbreviated name."),
        ("b", "Month as an abbreviated name."),
        ("d", "Day of the month as a decimal number."),
        ("H", "Hour (24-hour clock) as a decimal number."),
        ("j", "Day of the year as a decimal number [001,366]."),
        ("m", "Month as a decimal number."),
        ("M", "Minute as a decimal number."),
        ("S", "Second as a decimal number."),
        ("U", "Week number of the year (Sunday as the first day of the week) as a decimal number."),
        ("W", "Week number of the year (Monday as the first day of the week) as a decimal number."),
        ("y", "Year without century as a decimal number."),
        ("Y", "Year with century as a decimal number."),
    ]
)


def test_a_table_split_across_chunks_is_read_whole(tmp_path: Path) -> None:
    """The row that answers sits in another chunk of the table than the one retrieved: it is still read."""
    engine = _engine(tmp_path, "directives.md", DIRECTIVES_NOTE, chunk_tokens=64, chunk_overlap=0)
    gen = engine.generation()
    chunks = sorted((c for c in gen.all_chunks() if c.heading.endswith("Directives")), key=lambda c: c.ordinal)
    found = next(c for c in chunks if "`%W`" in c.text)
    assert "`%j`" not in found.text and found.text.startswith("| Directive"), [c.text for c in chunks]
    hit = with_surroundings(gen, Hit(found, 0.6))
    assert any("`%j`" in c.text for c in hit.table) and all(c.heading == found.heading for c in hit.table)
    answer = BuiltinAnswerer(min_score=0.0, max_sentences=3).answer(
        parse_question("Which directive gives the day of the year?"), [hit]
    )
    assert "%j" in answer.text, answer.text


def test_function_words_are_not_what_a_question_is_about() -> None:
    """'start up', 'only', 'such': NLTK's English function words are stopwords, so a table whose header
    says "(up to)" does not match 'start up'."""
    stems = parse_question("How much faster does the interpreter start up, using only the standard library?").stems
    assert stems == ("faster", "interpreter", "start", "standard", "library")


LONG_ITEMS_NOTE = """
---
title: Colab runtimes
tags: [hardware]
---
# Colab runtimes

## What each runtime had

* Colab is free to start with. The CPU types vary between sessions (Xeon, Skylake, Broadwell or Haswell).
  GPU runtimes came with an NVIDIA P100, a 2-core Xeon and 13 GB of RAM.
  TPU runtimes came with a TPUv3 (8 cores), a 4-core Xeon and 16 GB of RAM.
* Kaggle notebooks are the other free option. Their weekly GPU quota is 30 hours.
"""


def test_a_list_item_of_several_sentences_is_quoted_by_the_sentence_that_answers(tmp_path: Path) -> None:
    """Notes written as long bullets: the answer quotes the bullet's sentence about the TPU runtime, not
    the whole bullet; the list is still read as a list, item by item."""
    write_note(tmp_path / "notes", "colab.md", LONG_ITEMS_NOTE)
    engine = Engine.load(built_hash_index(tmp_path))
    answer = engine.ask("How much RAM did the TPU runtimes come with?")
    assert answer.covered and "16 GB of RAM" in answer.text, answer.text
    assert "CPU types vary" not in answer.text and "Colab is free" not in answer.text, answer.text
    spans = spans_of(LONG_ITEMS_NOTE.split("---", 2)[2])
    items = [s.text for s in spans if s.kind == "item"]
    assert items == ["Colab is free to start with.", "Kaggle notebooks are the other free option."]
    rest = [s for s in spans if s.kind == "sentence" and s.list_id == 0]
    assert [s.text for s in rest][-1] == "Their weekly GPU quota is 30 hours."
    assert "TPU runtimes came with" in rest[2].text and "GPU runtimes came with" in rest[2].context  # its neighbours


TIMEOUTS_NOTE = """
---
title: Zorrod settings
---
# Zorrod settings

## Timeouts

zorrod.connect_timeout

How long a client waits for the daemon to accept a connection. Raise it on a slow network. The default is 30 seconds.

zorrod.idle_timeout

How long an idle session is kept open. The default is 600 seconds.
"""


def test_a_later_sentence_of_a_definition_is_quoted_with_its_term(tmp_path: Path) -> None:
    """Read alone, "The default is 30 seconds." says nothing of what it is the default of: the quote names its term."""
    engine = _engine(tmp_path, "settings.md", TIMEOUTS_NOTE)
    gen = engine.generation()
    (chunk,) = [c for c in gen.all_chunks() if "connect_timeout" in c.text]
    pool = [Candidate(Hit(chunk, 0.9), 0, span) for span in spans_of(chunk.text)]
    (default,) = [c for c in pool if c.span.text == "The default is 30 seconds."]
    assert quote(default, pool) == "zorrod.connect_timeout: The default is 30 seconds."
    (idle,) = [c for c in pool if c.span.text == "The default is 600 seconds."]
    assert quote(idle, pool) == "zorrod.idle_timeout: The default is 600 seconds."


LAUNCHER_NOTE = """
---
title: Zorro launcher
---
# Zorro launcher

## Compiler wrapper

- `-cc=name`: use the compiler name instead of the default C compiler choice.
- `-show`: print the compiler command line the wrapper would run, without running it.

## Environment

- `ZORRO_CC`: sets which C compiler the wrapper runs.
- `ZORRO_TIMEOUT`: seconds after which a launch is killed.
- The launcher writes its logs to standard error.
"""


@pytest.mark.parametrize(
    ("question", "expected", "not_first"),
    [
        # the flag's line shares more of the question's words; the question asks for a variable
        ("env var to make the wrapper use another c compiler instead of the default?", "ZORRO_CC", "-cc=name"),
        # the variable's line says "compiler"; the question asks for a flag
        ("what flag prints the compiler command without running it?", "-show", "ZORRO_CC"),
    ],
)
def test_a_question_asking_for_a_variable_or_a_flag_gets_one(
    tmp_path: Path, question: str, expected: str, not_first: str
) -> None:
    answer = _engine(tmp_path, "launcher.md", LAUNCHER_NOTE).ask(question)
    first = answer.text.split("[1]")[0]
    assert expected in first and not_first not in first, answer.text
