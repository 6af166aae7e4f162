"""Markdown pipe tables in a note's body, outside fenced code, with the problems a reader should fix.

The table-row rules of the price tables (:mod:`hwqa.prices.parse`); they are to move to the
shared Markdown rules (:mod:`hwqa.markdown`) so every module reads tables the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..spans import split_row

__all__ = ["PipeTable", "find_tables", "is_delimiter_row"]

_DELIM_CELL_RE = re.compile(r"^\s*:?-+:?\s*$")
_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def is_delimiter_row(line: str) -> bool:
    """True for a table's separator row (``|---|:--:|``)."""
    if "-" not in line:
        return False
    cells = split_row(line)
    return bool(cells) and all(_DELIM_CELL_RE.match(c) for c in cells)


@dataclass
class PipeTable:
    """A table: its header cells and its body rows, by line index in the body."""

    header_index: int
    header: list[str]
    rows: list[tuple[int, list[str]]]  # (body line index, cells)


def find_tables(lines: Sequence[str]) -> tuple[list[PipeTable], list[tuple[int, str]]]:
    """Pipe tables in ``lines`` (outside fenced code), plus (line index, message) table problems."""
    tables: list[PipeTable] = []
    problems: list[tuple[int, str]] = []
    fence: str | None = None
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        fence_match = _FENCE_RE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
            i += 1
            continue
        if fence_match:
            fence = fence_match.group(1)
            i += 1
            continue
        if "|" in line and not line.lstrip().startswith(">") and i + 1 < n and is_delimiter_row(lines[i + 1]):
            header = split_row(line)
            delim = split_row(lines[i + 1])
            if len(header) != len(delim):
                problems.append(
                    (
                        i,
                        f"table header has {len(header)} columns but the separator row below it has {len(delim)}; "
                        "make them match",
                    )
                )
            body: list[tuple[int, list[str]]] = []
            j = i + 2
            while j < n and lines[j].strip() and "|" in lines[j] and not _FENCE_RE.match(lines[j]):
                body.append((j, split_row(lines[j])))
                j += 1
            if len(header) == len(delim):
                tables.append(PipeTable(header_index=i, header=header, rows=body))
            i = j
            continue
        if line.lstrip().startswith("|") and line.rstrip().endswith("|") and line.count("|") >= 3:
            # Looks like a table row that is not under a header + separator row.
            prev_is_row = i > 0 and lines[i - 1].lstrip().startswith("|")
            if not prev_is_row:
                problems.append((i, "lines look like a table but have no separator row (|---|---|) under the header; add one"))
        i += 1
    return tables, problems
