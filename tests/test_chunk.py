from __future__ import annotations

import itertools

from hwqa.index.embed import HashEmbedder
from hwqa.notes.chunk import Chunk, chunk_markdown, split_sections

EMB = HashEmbedder()

DOC = """# Guide

Intro paragraph about accelerators.

## GPUs

GPUs are versatile.

```python
# not a heading
x = 1
```

### Memory

The A100 has 80 GB.

## TPUs

TPUs need XLA.
"""


def chunks_of(text: str, max_tokens: int = 200, overlap: int = 20, title: str = "Guide") -> list[Chunk]:
    return chunk_markdown(
        text,
        kind="note",
        source="g.md",
        title=title,
        max_tokens=max_tokens,
        overlap=overlap,
        count_tokens=EMB.count_tokens,
        first_line=1,
    )


def test_sections_follow_headings_not_code_comments() -> None:
    sections = split_sections(DOC)
    assert [s.heading_path for s in sections] == [
        ("Guide",),
        ("Guide", "GPUs"),
        ("Guide", "GPUs", "Memory"),
        ("Guide", "TPUs"),
    ]
    assert "# not a heading" in sections[1].text


def test_chunk_carries_title_and_heading_path_in_embedded_text() -> None:
    chunks = chunks_of(DOC)
    memory = next(c for c in chunks if "80 GB" in c.text)
    assert memory.heading == "GPUs > Memory"  # the H1 that repeats the title is dropped
    assert memory.embed_text.startswith("Guide — GPUs > Memory\n")
    assert memory.line == 14


def test_a_chunk_never_spans_two_sections() -> None:
    chunks = chunks_of(DOC, max_tokens=40, overlap=5)
    for c in chunks:
        assert not any(line.startswith("## ") for line in c.text.splitlines())
    assert {c.heading for c in chunks} == {"", "GPUs", "GPUs > Memory", "TPUs"}


def test_long_sections_are_split_within_budget_with_overlap() -> None:
    sentences = [f"Sentence number {i} talks about GPU memory bandwidth." for i in range(60)]
    text = "# Long\n\n" + " ".join(sentences)
    chunks = chunks_of(text, max_tokens=60, overlap=15, title="Long")
    assert len(chunks) > 3
    for c in chunks:
        assert EMB.count_tokens(c.embed_text) <= 60
    for a, b in itertools.pairwise(chunks):
        assert set(a.text.splitlines()) & set(b.text.splitlines()), "consecutive pieces share an overlap"
    joined = " ".join(c.text for c in chunks)
    for s in sentences:
        assert s.rstrip(".") in joined, "no text is lost"


def test_a_giant_token_is_still_bounded() -> None:
    blob = "x" * 5000
    chunks = chunks_of(f"# Blob\n\n{blob}", max_tokens=50, overlap=0, title="Blob")
    assert all(EMB.count_tokens(c.embed_text) <= 50 for c in chunks)
    assert "".join(c.text for c in chunks).replace(" ", "") == blob


def test_chunk_key_depends_on_text_title_and_heading() -> None:
    a = chunks_of("# T\n\n## H\n\nsame text")[0]
    b = chunks_of("# T\n\n## H2\n\nsame text")[0]
    c = chunks_of("# T\n\n## H\n\nsame text")[0]
    assert a.key != b.key and a.key == c.key


def test_a_split_table_repeats_its_header_in_every_piece() -> None:
    rows = "".join(f"| GPU model {i} with a long description | {i} |\n" for i in range(60))
    md = f"# Prices\n\nIntro line.\n\n| hardware | usd_per_hour |\n|---|---|\n{rows}\nAfter the table.\n"
    chunks = chunk_markdown(
        md, kind="note", source="p.md", title="Prices", max_tokens=64, overlap=8, count_tokens=lambda t: len(t.split())
    )
    with_rows = [c for c in chunks if "| GPU model" in c.text]
    assert len(with_rows) > 3
    for c in with_rows:
        lines = c.text.splitlines()
        first_row = next(i for i, line in enumerate(lines) if line.startswith("| GPU model"))
        assert lines[first_row - 2 : first_row] == ["| hardware | usd_per_hour |", "|---|---|"]
    assert sum(c.text.count("| GPU model") for c in chunks) >= 60


def test_a_long_block_quote_splits_at_its_empty_lines_and_keeps_its_markers() -> None:
    """A block quote (a Sphinx summary, a quoted passage) is cut into its paragraphs, each still quoted,
    rather than flattened into one line of "> >" sentences."""
    paragraphs = [f"> `Name{i}`\n>\n> > What Name{i} is for, told in a sentence of a dozen words or so." for i in range(12)]
    md = "# Summary\n\n" + "\n>\n".join(paragraphs) + "\n"
    chunks = chunks_of(md, max_tokens=48, overlap=8, title="Summary")
    assert len(chunks) > 2
    for c in chunks:
        for line in c.text.splitlines():
            assert not line or line.startswith(">"), c.text
            assert " > " not in line.lstrip("> "), c.text
