"""Every reader of Markdown agrees on what is code, a heading, a table row and a link (hwqa.notes.markdown).

Notes' titles, chunking's sections and table headers, answer spans and link finding are each
checked through their own public function on the same text: a line inside a four-backtick or
``~~~~`` fence (even one holding a shorter fence), or in an indented code block, is never a heading,
a table row or a link; a table nested in a list item is still a table.
"""

from __future__ import annotations

import pytest

from hwqa.notes.chunk import Chunk, chunk_markdown
from hwqa.notes.links import find_links
from hwqa.notes.note import parse_note
from hwqa.notes.spans import spans_of
from hwqa.prices.pipe_tables import find_tables


def words(text: str) -> int:
    return len(text.split())


def chunks_of(markdown: str, max_tokens: int = 200) -> list[Chunk]:
    return chunk_markdown(
        markdown, kind="note", source="n.md", title="Setup", max_tokens=max_tokens, overlap=4, count_tokens=words
    )


def rows_of(markdown: str) -> list[dict[str, str]]:
    return [span.cells for chunk in chunks_of(markdown) for span in spans_of(chunk.text) if span.kind == "row"]


def price_rows(markdown: str) -> list[list[str]]:
    """The body rows the price-table reader finds (hwqa.prices)."""
    tables, _ = find_tables(markdown.split("\n"))
    return [cells for table in tables for _, cells in table.rows]


def urls(markdown: str) -> list[str]:
    return [link.url for link in find_links(markdown)]


# A fence whose body holds a shorter fence of the same character, then what would be a heading, a
# table and a link outside code. A reader that closes the block at the shorter fence sees all three.
FENCES = {
    "four backticks": ("````markdown", "```", "````"),
    "four tildes": ("~~~~", "~~~", "~~~~"),
    "tildes closed by a longer fence": ("~~~", "~~~python", "~~~~~"),
}


def fenced_note(opening: str, inner: str, closing: str) -> str:
    return (
        "Intro: how to write a note.\n"
        "\n"
        f"{opening}\n"
        "An example note:\n"
        f"{inner}\n"
        "# comment in the example\n"
        "| chip | memory_gb |\n"
        "|---|---|\n"
        "| Example-9000 | 999 |\n"
        "See https://inside-the-fence.example/page\n"
        f"{closing}\n"
        "\n"
        "## Real section\n"
        "\n"
        "| chip | memory_gb |\n"
        "|---|---|\n"
        "| H100 | 80 |\n"
        "\n"
        "Read https://after-the-fence.example/page\n"
    )


@pytest.mark.parametrize("name", list(FENCES))
def test_a_long_fence_hides_headings_tables_and_links_from_every_reader(name: str) -> None:
    note = fenced_note(*FENCES[name])
    # notes: the title is the first real heading, not a '#' line of the example
    assert parse_note(note, "setup-notes.md").title == "Real section"
    # chunk: the '# comment' does not start a section; the example stays whole under the intro
    chunks = chunks_of(note)
    assert [c.heading for c in chunks] == ["", "Real section"]
    assert "# comment in the example" in chunks[0].text and "| Example-9000 | 999 |" in chunks[0].text
    # spans: the fenced table gives no rows to answer from; the real one does
    assert rows_of(note) == [{"chip": "H100", "memory_gb": "80"}]
    # prices: a price table in the example is not priced
    assert price_rows(note) == [["H100", "80"]]
    # links: the URL in the example is not fetched
    assert urls(note) == ["https://after-the-fence.example/page"]


def test_indented_code_is_code_to_every_reader() -> None:
    note = (
        "# Setup\n"
        "\n"
        "The config file looks like this:\n"
        "\n"
        "    # comment in the config\n"
        "    | chip | memory_gb |\n"
        "    |---|---|\n"
        "    | Example-9000 | 999 |\n"
        "    mirror = https://indented-code.example/\n"
        "\n"
        "Afterwards read https://after-the-code.example/\n"
    )
    assert [c.heading for c in chunks_of(note)] == [""]  # the H1 is the title; no '# comment' section
    assert rows_of(note) == []
    assert price_rows(note) == []
    assert urls(note) == ["https://after-the-code.example/"]
    # An indented line continuing a paragraph is not code: its URL is a link
    assert urls("Mirror list:\n    https://continued.example/\n") == ["https://continued.example/"]


def test_a_table_nested_in_a_list_item_is_a_table() -> None:
    note = (
        "# Setup\n"
        "\n"
        "- GPUs we rent:\n"
        "\n"
        "    | chip | memory_gb |\n"
        "    |---|---|\n"
        "    | H100 | 80 |\n"
        "    | A100 | 40 |\n"
        "\n"
        "- Docs: see https://in-the-list.example/\n"
    )
    assert rows_of(note) == [{"chip": "H100", "memory_gb": "80"}, {"chip": "A100", "memory_gb": "40"}]
    assert urls(note) == ["https://in-the-list.example/"]


def test_a_split_table_in_a_list_keeps_its_header_in_every_chunk() -> None:
    rows = "".join(f"  | GPU model {i} with a long description | {i} |\n" for i in range(40))
    note = f"# Prices\n\n- Rented GPUs:\n\n  | hardware | usd_per_hour |\n  |-|-:|\n{rows}"
    chunks = [c for c in chunks_of(note, max_tokens=64) if "| GPU model" in c.text]
    assert len(chunks) > 3
    for chunk in chunks:
        assert "| hardware | usd_per_hour |\n  |-|-:|\n  | GPU model" in chunk.text
    # and each chunk's rows are read with the column names
    assert {s.cells["hardware"] for c in chunks for s in spans_of(c.text) if s.kind == "row"} == {
        f"GPU model {i} with a long description" for i in range(40)
    }


def test_a_fence_in_a_block_quote_ends_with_the_quote() -> None:
    note = (
        "Quoted example:\n"
        "\n"
        "> ```\n"
        "> # quoted comment\n"
        "> https://quoted-code.example/\n"
        "\n"
        "## After the quote\n"
        "\n"
        "See https://after-the-quote.example/\n"
    )
    assert parse_note(note, "q.md").title == "After the quote"
    assert [c.heading for c in chunks_of(note)] == ["", "After the quote"]
    assert urls(note) == ["https://after-the-quote.example/"]


def test_a_code_block_in_a_list_item_ends_with_the_item() -> None:
    note = (
        "1. Run this:\n"
        "   ```\n"
        "   >>> import hwqa  # https://in-the-item-code.example/\n"
        "\n"
        "# Next step\n"
        "\n"
        "Go to https://after-the-list.example/\n"
    )
    assert [c.heading for c in chunks_of(note)] == ["", "Next step"]
    assert urls(note) == ["https://after-the-list.example/"]
    # The code is no sentence of its own; it is the command of the step that introduces it ("Run this:").
    spans = [(s.kind, s.text) for c in chunks_of(note) for s in spans_of(c.text)]
    assert spans == [
        ("item", "Run this: import hwqa # https://in-the-item-code.example/"),
        ("sentence", "Go to https://after-the-list.example/"),
    ]


def test_triple_backticks_with_a_backtick_after_them_are_inline_code_not_a_fence() -> None:
    note = "```x``` is inline code.\n\n# Real heading\n\nSee https://after-inline.example/\n"
    assert parse_note(note, "i.md").title == "Real heading"
    assert [c.heading for c in chunks_of(note)] == ["", "Real heading"]
    assert urls(note) == ["https://after-inline.example/"]
