"""What a price answer says when the calculator's table has nothing for what was asked: hardware the question names
that no quoted line prices (its rate is never another card's), a quoted line that does price it after all, and a
price noted only as spot or interruptible (counted, and said so)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..prices.factmatch import holds_name, sizes_of
from .answer import Answer

__all__ = ["MONEY", "PIECE", "SPOT", "SPOT_ONLY", "priced_elsewhere", "quote_prices"]

MONEY = re.compile(r"[$€£]\s?\d|\d\s?(?:usd|dollars?)\b", re.I)  # an amount of money in a quote
PIECE = re.compile(r"(.*?)\s*\[(\d+)\]", re.S)  # a quoted piece and the number of the passage it cites
SPOT = frozenset({"spot", "preemptible"})
SPOT_ONLY = "Your notes price what you asked only as spot or interruptible, counted here: it can be stopped at any time."


def priced_elsewhere(unpriced: Sequence[str], quoted: Sequence[tuple[str, str]]) -> bool:
    """Whether the hardware a question names that the price table has no price for is on none of the quoted lines:
    their rates are other things'."""
    names = [n for n in unpriced if not sizes_of(n)]  # "8TB" is a size the question gives, not hardware
    return bool(names) and not any(holds_name(piece.lower(), name.lower()) for piece, _ in quoted for name in names)


def quote_prices(answer: Answer, names: Sequence[str]) -> bool:
    """Whether one quoted piece of ``answer`` states a price and names each of ``names`` ("On Lambda an A100 40GB was
    $1.29 an hour" for the A100 on Lambda): the notes price what the calculator's table left out."""
    wanted = [n.lower() for n in names if n]
    return any(MONEY.search(m.group(1)) and all(n in m.group(1).lower() for n in wanted) for m in PIECE.finditer(answer.text))
