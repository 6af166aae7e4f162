"""Markdown in a terminal (``hwqa ask``, ``hwqa prices``): tables that fit the width by wrapping
their text, never by cutting a number.

rich draws a Markdown table by shrinking every column alike and cutting cells with "…", so at 80
columns a price became "$12.…" and a header "$/V1…". Here a column whose cells are all figures
(money, counts, hours, dates) keeps its width: its figures and its header's words are whole; the
text columns wrap (and fold a word longer than their width). A table that cannot fit even so is
drawn one option per block, "column: value" lines, so nothing is lost at any width.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown, MarkdownElement, TableElement
from rich.table import Table
from rich.text import Text

# A figure: money, a count, hours, a ratio, a date; an optional unit or sign around it. "–" is an empty figure.
_FIGURE = re.compile(r"^[~≈<>]?[-+]?[$€£]?\d[\d,.:/-]*\s?(?:%|×|x|h|GB|TB|W|[kKMB])?$|^[–—-]?$")
_MIN_TEXT = 4  # the narrowest a text column is drawn before the table becomes blocks
_PADDING = 2  # one space either side of a cell


def _is_figure(text: str) -> bool:
    return bool(_FIGURE.match(text.strip()))


class FittedTable(TableElement):
    """A Markdown table drawn to fit the terminal: figures whole, text wrapped."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        headers = [c.content for c in self.header.row.cells] if self.header and self.header.row else []
        rows = [[c.content for c in row.cells] for row in self.body.rows] if self.body else []
        figures = []
        for k, heading in enumerate(headers):
            cells = [r[k].plain for r in rows if k < len(r)]
            words = heading.plain.split() or [""]
            if cells and all(_is_figure(c) for c in cells):
                figures.append(max([len(c.strip()) for c in cells] + [max(len(w) for w in words)]))
            else:
                figures.append(0)
        text_cols = [k for k, w in enumerate(figures) if not w]
        room = options.max_width - sum(figures) - _PADDING * len(headers)
        if room < _MIN_TEXT * len(text_cols):
            yield from _blocks(headers, rows)
            return
        longest = {k: max([len(headers[k].plain)] + [len(r[k].plain) for r in rows if k < len(r)]) for k in text_cols}
        widths = _share(room, longest)
        table = Table(box=box.SIMPLE, pad_edge=False, style="markdown.table.border", show_edge=True, collapse_padding=True)
        for k, heading in enumerate(headers):
            shown = heading.copy()
            shown.stylize("markdown.table.header")
            table.add_column(shown, width=figures[k] or widths[k], overflow="fold")
        for row in rows:
            table.add_row(*row)
        yield table


def _share(room: int, longest: dict[int, int]) -> dict[int, int]:
    """``room`` characters shared by the text columns: none wider than its longest cell, the rest evenly."""
    widths: dict[int, int] = {}
    left = dict(longest)
    while left:
        even = room // len(left)
        fits = {k: n for k, n in left.items() if n <= even}
        if not fits:
            for i, k in enumerate(sorted(left)):
                widths[k] = even + (1 if i < room - even * len(left) else 0)
            break
        widths.update(fits)
        room -= sum(fits.values())
        left = {k: n for k, n in left.items() if k not in fits}
    return widths


def _blocks(headers: list[Text], rows: list[list[Text]]) -> RenderResult:
    """A table too wide for the terminal: each row as 'column: value' lines, a blank line between rows."""
    for n, row in enumerate(rows):
        if n:
            yield Text("")
        for heading, cell in zip(headers, row, strict=False):
            line = Text.assemble((f"{heading.plain}: ", "markdown.table.header"), cell)
            yield line


class TerminalMarkdown(Markdown):
    """rich's Markdown with tables that fit the terminal (see the module docstring)."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {**Markdown.elements, "table_open": FittedTable}

    def __init__(self, markup: str, **options: Any) -> None:
        super().__init__(markup, **options)


_MORE = re.compile(r"… and (\d+) more (options?)\.")


def more_options(text: str, how: str) -> str:
    """The calculator's "… and N more options." saying how to see them all (``how``: "add `--all`")."""
    return _MORE.sub(lambda m: f"… and {m.group(1)} more {m.group(2)}: {how} to see every one.", text)


def stream_markdown(items: Iterator[Any], console: Console) -> Any:
    """Show the growing answer rendered as Markdown while it is written; returns the final Answer
    (the caller prints it for good, so nothing of the draft stays on the screen)."""
    from rich.live import Live

    from ..answer.answer import Answer

    answer = None
    with Live(console=console, transient=True, auto_refresh=False, vertical_overflow="visible") as live:
        for item in items:
            if isinstance(item, Answer):
                answer = item
            else:
                live.update(TerminalMarkdown(item), refresh=True)
    return answer
