"""The total of a table's money column, for a question asking what everything in it came to.

A log of runs or purchases is often a small table ("| date | run | where | gpu | hrs | cost |"); "what did all the
rented runs cost altogether" asks for the sum of its money column. The column is the one whose header names money
(cost, price, paid, total, spent, amount, $, USD), or whose cells are mostly amounts ("| item | 2025 |"), with an amount
in at least two rows; a cell without an amount
("power only") is left out and said. When the question's words pick some rows out ("the a100 runs" where only two
rows name an A100), only those are added.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..notes.markdown import is_delimiter_row, split_row
from .factmatch import CostAnswer, money_text, overlap, price_text, words_of
from .names import find_money
from .words import PriceWords

__all__ = ["table_total"]

_MONEY_HEADER = re.compile(r"\b(?:cost|price|paid|total|spent|spend|amount|bill|usd|eur)\b|\$|€", re.I)
_SUM_WORDS = frozenset(
    "what did does do the all our my total cost costs spent spend come came altogether together everything "
    "add added adds sum whole how much rented rent renting".split()
)


def _tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    lines = text.splitlines()
    found: list[tuple[list[str], list[list[str]]]] = []
    i = 0
    while i + 1 < len(lines):
        if "|" in lines[i] and is_delimiter_row(lines[i + 1]):
            header, rows, j = split_row(lines[i]), [], i + 2
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                rows.append(split_row(lines[j]))
                j += 1
            found.append((header, rows))
            i = j
        else:
            i += 1
    return found


def _merged(texts: Sequence[str]) -> list[tuple[list[str], list[list[str]]]]:
    """The tables of ``texts`` (chunks of one section, in order), a table split over them (its header repeated in each)
    joined, each row once."""
    merged: dict[tuple[str, ...], list[list[str]]] = {}
    for text in texts:
        for header, rows in _tables(text):
            kept = merged.setdefault(tuple(header), [])
            kept += [row for row in rows if row not in kept]
    return [(list(header), rows) for header, rows in merged.items()]


def _money_column(rows: Sequence[list[str]], col: int) -> bool:
    """Whether a column whose header names no money ("| item | 2025 | note |") holds amounts of money: one in each of
    at least two rows, and in most of the rows that have a cell there."""
    cells = [row[col] for row in rows if col < len(row) and row[col].strip()]
    priced = [c for c in cells if len([m for m in find_money(c) if m.unit is None]) == 1]
    return len(priced) >= 2 and 2 * len(priced) > len(cells)


def table_total(words: PriceWords, texts: Sequence[str]) -> CostAnswer | None:
    """The sum of the money column of the first table in ``texts`` that has one (see the module doc), or None."""
    for header, rows in _merged(texts):
        columns = [i for i, head in enumerate(header) if _MONEY_HEADER.search(head) or _money_column(rows, i)]
        for col in columns:
            cells = [(row, row[col]) for row in rows if col < len(row)]
            priced = [(row, m[0]) for row, cell in cells if len(m := [x for x in find_money(cell) if x.unit is None]) == 1]
            if len(priced) < 2 or len({m.currency for _, m in priced}) != 1:
                continue
            asked = words_of(words.text) - _SUM_WORDS
            fits = [overlap(asked, words_of(" ".join(c for i, c in enumerate(row) if i != col))) for row, _ in priced]
            kept = [p for p, fit in zip(priced, fits, strict=True) if fit == max(fits)] if max(fits) > min(fits) else priced
            if len(kept) < 1 or (len(kept) == 1 and len(priced) > 1 and max(fits) < 2):
                kept = priced  # one row picked out by one shared word: a guess, every row instead
            currency = kept[0][1].currency
            total = sum(m.amount for _, m in kept)
            unpriced = [cell for row, cell in cells if cell.strip() and not find_money(cell)]
            parts = " + ".join(price_text(m.amount, currency) for _, m in kept)
            which = "every" if len(kept) == len(priced) else f"the {len(kept)} rows your question names of the"
            rest = f"; no amount in {', '.join(f'“{c.strip()}”' for c in unpriced)}" if unpriced else ""
            column = header[col].strip()
            column = (
                column if column and _MONEY_HEADER.search(column) else f"amount in the “{column}” column" if column else "amount"
            )
            said = f"{parts} = **{money_text(total, currency)}** ({which} {column} of the table below{rest})."
            return CostAnswer(said, (), total=total)
    return None
