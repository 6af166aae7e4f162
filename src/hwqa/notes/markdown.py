"""Markdown structure: the one place that says which lines are code, headings and table rows.

Notes' titles, chunking (of notes and of articles extracted to Markdown), answer spans, link
finding and price tables all read Markdown. They share these rules, so that a line is code, a
heading or a table row to all of them or to none:

- **Fenced code** (CommonMark): a run of three or more backticks or tildes, indented at most
  three spaces (any amount inside a list item, or right after a list marker), opens a block that
  the next run of the same character, at least as long and with nothing after it, closes: a line
  of three backticks inside a four-backtick block is code. A backtick fence's info string holds no
  backtick (a line starting with three backticks, ``x`` and three backticks is inline code). A
  fence in a block quote or a list item ends with its container; an unclosed fence runs to the
  end of the text.
- **Indented code**: a line indented four or more columns after a blank line (or another code
  line), outside a list; inside a list, indentation is the list item's content.
- **ATX headings**: one to six ``#`` at the margin, a space or tab, the text (closing ``#`` dropped).
- **Pipe tables** (GFM): a delimiter row's cells are ``-`` runs with optional ``:`` at either end;
  a row's cells are split at unescaped pipes (as in GFM, a pipe inside a code span splits the cell
  too: write ``\\|`` to keep it).

:func:`mask_code` blanks what is code (blocks, inline code spans) and HTML comments, keeping every
offset and newline, so a scanner over the result (the link finder) sees only text a reader sees.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

__all__ = [
    "blank",
    "code_lines",
    "first_heading",
    "heading",
    "headings",
    "is_delimiter_row",
    "iter_code",
    "mask_code",
    "split_row",
    "table_headers",
    "unquote",
]

_HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_LIST_ITEM_RE = re.compile(r"^[ ]{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_BLOCKQUOTE_RE = re.compile(r"^(?:[ ]{0,3}>[ ]?)+")
_QUOTE_MARKER_RE = re.compile(r"[ ]{0,3}>[ ]?")
_BLOCK_START_RE = re.compile(r"^[ ]{0,3}(?:#{1,6}(?:[ \t]|$)|(?:[-*_][ \t]*){3,}$)")
_DELIM_CELL_RE = re.compile(r"^\s*:?-+:?\s*$")
_DELIM_CHARS_RE = re.compile(r"[\s|:-]*")  # all a delimiter row may hold (a quick test before its cells)
_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_BACKTICKS_RE = re.compile(r"`+")
_PARAGRAPH_BREAK_RE = re.compile(r"\n(?=\n)")
_NOT_NEWLINE_RE = re.compile(r"[^\n]")
# First characters (besides whitespace) of a line that may be anything but prose at the margin:
# nothing (a blank line), a quote, a fence, a list marker, a heading or a thematic break.
_MAY_START_BLOCK = frozenset(">`~-*+_#0123456789") | {""}


# --------------------------------------------------------------------------------------------
# Headings and tables


def unquote(line: str) -> str:
    """``line`` without its block-quote markers ("> > text" -> "text"); a quote's empty line becomes blank."""
    return _BLOCKQUOTE_RE.sub("", line, count=1)


def heading(line: str) -> tuple[int, str] | None:
    """``(level, text)`` if ``line`` is an ATX heading (whatever surrounds it), else ``None``."""
    m = _HEADING_RE.match(line)
    return (len(m.group(1)), m.group(2).strip()) if m else None


def headings(lines: Sequence[str]) -> Iterator[tuple[int, int, str]]:
    """``(line index, level, text)`` of every heading in ``lines`` that is not inside code."""
    for i, (line, code) in enumerate(zip(lines, iter_code(lines), strict=False)):
        found = None if code else heading(line)
        if found:
            yield i, found[0], found[1]


def first_heading(markdown: str) -> str | None:
    """The text of the first heading (any level) outside code, or ``None``."""
    if "#" not in markdown:
        return None
    return next((text for _, _, text in headings(markdown.splitlines())), None)


def split_row(line: str) -> list[str]:
    """The cells of a Markdown table row (escaped pipes kept inside cells)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [c.replace("\\|", "|").strip() for c in re.split(r"(?<!\\)\|", body)]


def is_delimiter_row(line: str) -> bool:
    """Whether ``line`` is a table's delimiter row (``|---|:--:|``), the line under its header."""
    if "-" not in line or not _DELIM_CHARS_RE.fullmatch(line):
        return False
    cells = split_row(line)
    return bool(cells) and all(_DELIM_CELL_RE.match(c) for c in cells)


def table_headers(text: str) -> list[str]:
    """Each table's header and delimiter rows in ``text`` (outside code), as two lines."""
    lines = text.splitlines()
    code = code_lines(lines)
    return [
        f"{line}\n{lines[i + 1]}"
        for i, line in enumerate(lines[:-1])
        if line.lstrip().startswith("|") and not code[i] and not code[i + 1] and is_delimiter_row(lines[i + 1])
    ]


# --------------------------------------------------------------------------------------------
# Code blocks


def _indent_width(line: str) -> int:
    """Leading whitespace in columns (a tab advances to the next multiple of four)."""
    width = 0
    for ch in line:
        if ch == " ":
            width += 1
        elif ch == "\t":
            width += 4 - width % 4
        else:
            break
    return width


@dataclass
class _Fence:
    marker: str  # the opening run of backticks or tildes
    quote: int  # block-quote depth it was opened at
    container: int  # a non-blank line indented less ends it (its list item ended); 0 at the margin

    def content(self, line: str) -> str | None:
        """``line`` inside the fence's block quotes (further ``>`` are code), or ``None`` if they ended."""
        pos = 0
        for _ in range(self.quote):
            m = _QUOTE_MARKER_RE.match(line, pos)
            if not m:
                return None
            pos = m.end()
        return line[pos:]

    def closed_by(self, content: str) -> bool:
        m = _FENCE_RE.match(content)
        return (
            m is not None
            and m.group("fence")[0] == self.marker[0]
            and len(m.group("fence")) >= len(self.marker)
            and not m.group("info").strip()
        )

    def ended_by(self, content: str | None) -> bool:
        """Whether the fence's container (block quote, list item) ends at this line."""
        if content is None:
            return True
        return self.container > 0 and bool(content.strip()) and _indent_width(content) < self.container


def _opening(content: str) -> tuple[str, int] | None:
    """(marker, indent) of an opening fence at the start of ``content``, else ``None``."""
    m = _FENCE_RE.match(content)
    if not m or (m.group("fence")[0] == "`" and "`" in m.group("info")):
        return None
    return m.group("fence"), _indent_width(content)


def iter_code(lines: Iterable[str]) -> Iterator[bool]:
    """For each line, whether it is code: a fence line, inside a fenced block, or indented code.

    Lines may keep their line endings. Linear in the text; lazy, so a caller may stop early.
    """
    fence: _Fence | None = None
    items: list[int] = []  # content columns of the open list items, outermost first
    prev_blank, prev_code = True, False
    for line in lines:
        first = line[:1]
        if fence is None and first not in _MAY_START_BLOCK and not first.isspace():  # prose at the margin, quickly
            if prev_blank:
                items.clear()
            yield False
            prev_blank, prev_code = False, False
            continue
        body = line.rstrip("\r\n")
        if fence is not None:
            inside = fence.content(body)
            if not fence.ended_by(inside):
                if inside is not None and fence.closed_by(inside):
                    fence = None
                yield True
                prev_blank, prev_code = False, False
                continue
            fence = None  # its block quote or list item ended: the line is read afresh
        prefix = _BLOCKQUOTE_RE.match(body)
        quote = prefix.group().count(">") if prefix else 0
        content = body[prefix.end() :] if prefix else body
        indent = _indent_width(content)
        item = _LIST_ITEM_RE.match(content) if indent < 4 else None
        opened = _opening(content[item.end() :]) if item else _opening(content)
        if opened and (item or opened[1] < 4 or items):
            if item:
                del items[next((k for k, col in enumerate(items) if col > indent), len(items)) :]
                items.append(item.end())
            elif opened[1] < 4 and not any(col <= opened[1] for col in items):
                items.clear()  # a fence at the margin ends any list
            else:
                del items[next((k for k, col in enumerate(items) if col > opened[1]), len(items)) :]
            fence = _Fence(opened[0], quote, items[-1] if items else 0)
            yield True
            prev_blank, prev_code = False, False
            continue
        if not content.strip():
            yield False
            prev_blank = True
            continue
        if indent >= 4 and not items and (prev_blank or prev_code):
            yield True
            prev_blank, prev_code = False, True
            continue
        if item:
            del items[next((k for k, col in enumerate(items) if col > indent), len(items)) :]
            items.append(item.end())
        elif indent < 4 and (prev_blank or _BLOCK_START_RE.match(content)):
            items.clear()
        yield False
        prev_blank, prev_code = False, False


def code_lines(lines: Sequence[str]) -> list[bool]:
    """:func:`iter_code` as a list: ``code_lines(lines)[i]`` says whether ``lines[i]`` is code."""
    return list(iter_code(lines))


# --------------------------------------------------------------------------------------------
# Masking: code blocks, code spans and comments are blanked out (same length, newlines kept), so
# a pattern run over the result never sees them and offsets still map to the original lines.


def blank(s: str) -> str:
    """``s`` with every character but newlines replaced by a space."""
    return _NOT_NEWLINE_RE.sub(" ", s)


def _mask_blocks(markdown: str) -> str:
    lines = markdown.splitlines(keepends=True)
    return "".join(blank(line) if code else line for line, code in zip(lines, iter_code(lines), strict=True))


def _mask_code_spans(text: str) -> str:
    """Blank inline code spans (backtick runs closed by a run of the same length).

    Linear: the backtick runs are listed once, and the closer of an opening run is the next run
    of the same length (found by bisection) if it starts before the paragraph ends.
    """
    if "`" not in text:
        return text
    runs = [(m.start(), m.end()) for m in _BACKTICKS_RE.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for k, (a, b) in enumerate(runs):
        by_length.setdefault(b - a, []).append(k)
    breaks = [m.start() for m in _PARAGRAPH_BREAK_RE.finditer(text)]
    pieces: list[str] = []
    done = 0  # text[:done] is already in pieces
    k = 0
    while k < len(runs):
        i, j = runs[k]
        if i < done:
            k += 1
            continue
        if i > 0 and text[i - 1] == "\\":
            i += 1  # an escaped backtick: the rest of the run may still open a span
            if i == j:
                k += 1
                continue
        run = j - i
        # The closing run must start before the first paragraph break at or after j.
        nb = bisect.bisect_left(breaks, j)
        limit = breaks[nb] if nb < len(breaks) else len(text)
        same = by_length.get(run, [])
        pos = bisect.bisect_right(same, k)
        close_k = same[pos] if pos < len(same) else -1
        if close_k < 0 or runs[close_k][0] >= limit:
            k += 1
            continue
        end = runs[close_k][1]
        pieces.append(text[done:i])
        pieces.append(blank(text[i:end]))
        done = end
        k = close_k + 1
    pieces.append(text[done:])
    return "".join(pieces)


def mask_code(markdown: str) -> str:
    """``markdown`` with code blocks, HTML comments and inline code spans blanked (offsets kept)."""
    text = _mask_blocks(markdown)
    text = _COMMENT_RE.sub(lambda m: blank(m.group(0)), text)
    return _mask_code_spans(text)
