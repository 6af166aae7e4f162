"""Markdown pipe tables in a note's body, outside code, with the problems a reader should fix.

Rows, separators and code blocks are read by the shared rules of :mod:`hwqa.notes.markdown`, so the
price tables are the tables chunking and the answerer see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..notes.markdown import code_lines, is_delimiter_row, split_row

__all__ = ["PipeTable", "find_tables", "is_delimiter_row"]


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
    code = code_lines(lines)
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if code[i]:
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
            while j < n and lines[j].strip() and "|" in lines[j] and not code[j]:
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
