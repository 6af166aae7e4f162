"""Break-even over the quote: how long renting (or a plan) runs before a price paid once pays for itself.

"how many hours of renting before buying the 3090 pays off", "how many months of heygen for both of us would pay
for a used 3090": a price paid once over a quoted rate, in the rate's time unit; each the only one of its kind in
the quote, else the one whose clause (and the lead of its line: "HeyGen Pricing - … Team plan $35/seat/mo") shares
most words with the question; the cited passage whole, then the rest of its note, when the quote lacks one of
them. A plan priced per seat counts the seats the question names ("both of us", "the 3 of us").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from .counts import PAIR
from .factmatch import CostAnswer, overlap, price_text, words_of
from .names import find_money
from .passagesums import clause_words, head_words
from .rates import Rate, _counts, rates_in
from .words import PriceWords

__all__ = ["UNTIL_ASKED", "asks_break_even", "break_even", "breaks_even", "names_break_even"]

T = TypeVar("T")


def breaks_even(words: PriceWords, pieces: Sequence[tuple[str, str]], context: str = "") -> bool:
    """Whether a break-even question ("how many months of the plan would pay for a used 3090") is worked out over the
    quote: its price paid once and its rate, in the quote."""
    return (
        bool(pieces)
        and asks_break_even(words.text)
        and words.purchase_usd is None
        and break_even(words, pieces, context) is not None
    )


def asks_break_even(text: str) -> bool:
    """Whether a question asks a break-even ("after how many months would the box have paid for itself", or in
    shorthand "break even on a new 4090 vs runpod?": the noun asks for the point itself)."""
    return bool(_BREAK_EVEN.search(text) and _HOW_MANY.search(text)) or names_break_even(text)


def names_break_even(text: str) -> bool:
    """Whether a question names the break-even itself ("break even on a new 4090 vs runpod?"): asked without "how many"."""
    return _POINT.search(text) is not None


_BREAK_EVEN = re.compile(
    r"\bbreak[\s-]?even|\bpa(?:y|ys|id|ying)\s+(?:for\s+)?(?:it|itself|themselves|off)\b|\badd(?:ed|s)?\s+up\s+to\b|"
    r"\bcheaper\s+than\s+rent\w*|\bbeats?\s+rent\w*|\bbefore\s+buying\b|\bworth\s+buying\b|\bpa(?:y|ys|id)\s+for\s+(?:a|an|the|my|our)\s|"
    r"\bmatch(?:es)?\s+what\b[^?]*\b(?:cost|paid|spent)\b"  # "months of the plan to match what the 3090 cost"
)
# "months till it pays for itself": a length asked with no "how many" (payback's buy-against-rent asks it too)
UNTIL_ASKED = r"\b(?:months?|weeks?|years?|days?|hours?|hrs?)\s+(?:till|until|til|before)\b"
_POINT = re.compile(r"\bbreak[\s-]?even\b")
_HOW_MANY = re.compile(
    rf"\bhow\s+(?:many|long)\b|\bat\s+what\s+point\b|\bwhen\s+(?:does|would|is|do)\b|\bafter\s+how\s+many\b|{UNTIL_ASKED}"
)
_NOT_PURCHASE = re.compile(r"\b(?:budget|total|spent|saved|credits?|cap|allowance|sponsor\w*|per|each)\b")


def break_even(words: PriceWords, pieces: Sequence[tuple[str, str]], context: str = "") -> CostAnswer | None:
    """ "how many hours of renting before buying pays off": a price paid once over the quoted rental rate, the two the
    question names (each the only one of its kind in the quote, else the one whose clause shares most words with it)."""
    asked = words_of(words.text)
    quote, passage = list(pieces[:-1]) or list(pieces), list(pieces[-1:])
    seats = _counts(words.text).get("seat") or (2.0 if PAIR.search(words.text) else None)  # "for both of us"

    def found(group: Sequence[tuple[str, str]]) -> tuple[list[tuple[Rate, set[str]]], list[tuple[float, str, set[str]]]]:
        rates, once = [], []
        for piece, _ in group:
            lower = piece.lower()
            usable = [  # never "$0/day"; a plan per seat for the seats the question counts
                r for r in rates_in(lower) if (r.per is None or (r.per == "seat" and seats)) and r.time and r.amount > 0
            ]
            rates += [(r, clause_words(lower, r.start, r.end) | head_words(lower, r.start)) for r in usable]
            for m in find_money(piece):
                clause = clause_words(lower, m.start, m.end)
                if m.unit is None and m.qualifier is None and m.amount > 0 and not _NOT_PURCHASE.search(" ".join(clause)):
                    once.append((m.amount, m.currency, clause | head_words(lower, m.start)))
        return rates, once

    rates, once = found(quote)
    for group in (passage, [(context, "")]):  # the passage whole, then the rest of its note
        if not rates or not once:
            more_rates, more_once = found(group)
            rates, once = rates or more_rates, once or more_once
    rate = _one(rates, asked, lambda r: r[1])
    paid = _one(once, asked, lambda o: o[2])
    if context and ((rate is not None and not overlap(asked, rate[1])) or (paid is not None and not overlap(asked, paid[2]))):
        # the quote's price names nothing the question does ("quote was $2,100" of another note's box): the one of the
        # rest of the note that does ("bought a used RTX 3090 for 700 bucks")
        noted_rates, noted_once = found([(context, "")])
        if rate is not None and not overlap(asked, rate[1]):
            rate = _one([r for r in noted_rates if overlap(asked, r[1])], asked, lambda r: r[1]) or rate
        if paid is not None and not overlap(asked, paid[2]):
            paid = _one([o for o in noted_once if overlap(asked, o[2])], asked, lambda o: o[2]) or paid
    if rate is None or paid is None or rate[0].currency != paid[1]:
        return None
    # "before buying an h100" over the 4090's price: no break-even of the H100's ("an rtx 4090" is its number's)
    to_buy = [_model_words(h.word) for h in words.hardware if words.bought(h.start)]
    if to_buy and not any(model <= paid[2] for model in to_buy):
        return None
    r, amount = rate[0], paid[0]
    many = seats if r.per == "seat" and seats else 1.0
    n = amount / (r.amount * many)
    unit = r.time or "hour"
    shown = f"{n:,.0f}" if n >= 100 or round(n, 2) == round(n) else f"{n:,.2f}"  # "12 months", not "12.00 months"
    per = (
        f"({many:g} seats × {price_text(r.amount, r.currency)}/{unit})"
        if many != 1
        else f"{price_text(r.amount, r.currency)}/{unit}"
    )
    body = (
        f"{price_text(amount, paid[1])} ÷ {per} = **{shown} {unit}s** of renting "
        "before buying pays for itself (as the quote below prices them; power and resale left out)."
    )
    return CostAnswer(body, (), total=n)


def _model_words(name: str) -> set[str]:
    """The words of a hardware name that tell it from others: those with a digit ("4090" of "rtx 4090"), else all."""
    said = words_of(name)
    return {w for w in said if any(c.isdigit() for c in w)} or said


def _one(items: Sequence[T], asked: set[str], words_of_item: Callable[[T], set[str]]) -> T | None:
    """The only item, else the one whose words share most with the question (None when two tie)."""
    if len(items) == 1:
        return items[0]
    scored = sorted(((overlap(asked, words_of_item(i)), k) for k, i in enumerate(items)), reverse=True)
    if not scored or scored[0][0] == 0 or scored[1][0] == scored[0][0]:
        return None
    return items[scored[0][1]]
