"""Wide tables cost chunks in proportion to their rows: a note or a linked page with a table of
thousands of columns builds into a bounded number of bounded chunks, each holding whole rows under
the table's header; a page too slow to extract is stopped at its link's deadline."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hwqa.build.builder import build_index
from hwqa.engine import Engine
from hwqa.index.embed import HashEmbedder
from hwqa.notes.chunk import CHARS_PER_TOKEN, TABLE_MAX_COLUMNS, Chunk, chunk_markdown
from hwqa.settings import load_settings

from .conftest import write_note
from .helpers_http import LoopbackSite, Reply


def wide_table(columns: int, rows: int, cell: str = "x") -> str:
    """A Markdown table as the reliability probe wrote it (2,000 columns × 200 rows: 0.8 MB)."""
    header = "|" + "|".join(f"c{i}" for i in range(columns)) + "|"
    return header + "\n|" + "---|" * columns + ("\n|" + "|".join([cell] * columns) + "|") * rows


def wide_page(columns: int, rows: int) -> str:
    head = "".join(f"<th>c{i}</th>" for i in range(columns))
    row = "<tr>" + "".join(f"<td>v{i}</td>" for i in range(columns)) + "</tr>"
    table = f"<table><tr>{head}</tr>{row * rows}</table>"
    return f"<html><head><title>Wide</title></head><body><main><h1>Wide</h1><p>Measured values.</p>{table}</main></body></html>"


def chunk(text: str) -> list[Chunk]:
    count = HashEmbedder().count_tokens
    return chunk_markdown(text, kind="note", source="t.md", title="T", max_tokens=200, overlap=40, count_tokens=count)


def test_a_2000_column_note_is_chunked_by_rows_under_its_header(tmp_path: Path) -> None:
    table = wide_table(2000, 200)
    note = f"# Wide\n\nA table of measurements.\n\n{table}\n\n## After\n\nThe text after the table.\n"
    assert len(note) > 800_000
    write_note(tmp_path / "notes", "wide.md", note)
    settings = load_settings(
        {"notes": tmp_path / "notes", "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False},
        env={},
        cwd=tmp_path,
    )
    report = build_index(settings)
    # 200 rows: a few rows per chunk, never rows x columns (the probe's build made 802,749 chunks)
    assert report.chunks_total <= 100, report.chunks_total
    chunks = Engine.load(settings).generation().all_chunks()
    limit = CHARS_PER_TOKEN * settings.chunk_tokens
    assert all(len(c.text) <= limit for c in chunks)
    rows = [c for c in chunks if "| x |" in c.text]
    header = next(line for line in rows[0].text.splitlines() if line.startswith("| c0 |"))
    assert header.startswith("| c0 | c1 |") and header.endswith("| … |")  # the cut is marked
    assert len(header.split("|")) - 2 <= TABLE_MAX_COLUMNS + 1
    for chunk in rows:
        lines = chunk.text.splitlines()
        in_table = lines[lines.index(header) :]  # the table's header, then only its rows
        assert in_table[1].startswith("| --- |"), "every piece of the table starts with its header"
        assert all(line.count("|") == header.count("|") for line in in_table), "rows are whole and as wide as the header"
    assert sum(c.text.count("\n| x |") for c in rows) >= 200, "every row is indexed"
    assert any("The text after the table." in c.text for c in chunks)


@pytest.mark.parametrize(("columns", "rows", "cell"), [(300, 10, "value"), (40, 400, "a longer cell of words"), (5000, 3, "")])
def test_chunks_of_any_table_grow_with_its_rows_not_its_columns(columns: int, rows: int, cell: str) -> None:
    text = f"# T\n\n{wide_table(columns, rows, cell)}\n"
    chunks = chunk(text)
    assert len(chunks) <= rows // 2 + 3, len(chunks)
    assert all("| c0 |" in c.text for c in chunks)
    assert sum(len(c.text) for c in chunks) <= 2 * len(text)


def test_a_narrow_table_is_left_as_written() -> None:
    text = "# T\n\n| Chip | USD per hour |\n|---|---|\n| V100 | 2.48 |\n| A100 | 3.67 |\n"
    (only,) = chunk(text)
    assert only.text == "| Chip | USD per hour |\n|---|---|\n| V100 | 2.48 |\n| A100 | 3.67 |"


@pytest.fixture
def wide_site() -> Iterator[LoopbackSite]:
    routes = {
        "/wide": Reply(body=wide_page(300, 40)),  # 300 columns: quick to extract, many chunks before the cut
        "/huge": Reply(body=wide_page(2000, 140)),  # 3.9 MB, 280,000 cells: minutes of extraction
        "/robots.txt": Reply(status=404, body="", content_type="text/plain"),
    }
    with LoopbackSite(routes) as site:
        yield site


def test_a_linked_wide_page_is_bounded_and_a_slow_one_stops_at_its_link_deadline(tmp_path: Path, wide_site: LoopbackSite) -> None:
    note = f"# Links\n\n- [wide]({wide_site.url('/wide')})\n- [huge]({wide_site.url('/huge')})\n"
    write_note(tmp_path / "notes", "links.md", note)
    settings = load_settings(
        {
            "notes": tmp_path / "notes",
            "index": tmp_path / "index",
            "embed_backend": "hash",
            "allow_private_hosts": True,
            "fetch_host_delay": 0.0,
            "fetch_link_deadline": 8.0,
        },
        env={},
        cwd=tmp_path,
    )
    report = build_index(settings)
    links = {link.url.rsplit("/", 1)[-1]: link for link in report.links}
    assert links["wide"].status == "fetched" and 0 < links["wide"].chunks <= 30, links["wide"]
    huge = links["huge"]
    assert huge.status == "failed" and huge.chunks == 0
    assert "link deadline" in (huge.reason or "") and "fetch_link_deadline" in (huge.reason or "")
    chunks = [c for c in Engine.load(settings).generation().all_chunks() if c.kind == "article"]
    assert chunks and all(len(c.text) <= CHARS_PER_TOKEN * settings.chunk_tokens for c in chunks)
    assert all("| c0 | c1 |" in c.text for c in chunks if "| v0 |" in c.text)
