"""A percentage a note adds to or takes off a price, applied when the question asks for it.

"what does the quote come to once sales tax is added?" over "quote $11,800 … before sales tax, which is 8.25% in
their county"; "per genome, what will they bill incl. their overhead?" over a run's cost and "adds 20% overhead on
top"; "the box after the reseller's discount" over "list $21,400, our reseller does 12% off list". The question
names the kind (a tax, an overhead or markup, a discount); the quote gives one percentage of that kind; the sum
is the quote's total for the rest of the question (:mod:`hwqa.prices.quoted`), else the one price the percentage's
own line, or a line next to it, gives. Taxes and overheads add, discounts take off; the answer writes both steps.

A question that sets the percentage aside ("ignoring tax", "pre-tax", "before tax") asks for none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .factmatch import CostAnswer, money_text, price_text, total_text
from .names import find_money
from .passagesums import LINES

__all__ = ["Percent", "asked_percent", "percent_of", "without_percent"]

# The kinds of percentage, by the words that name them; the sign they apply with.
_KINDS = {
    "tax": (r"tax\w*|vat|gst", 1),
    "overhead": (r"overhead|mark-?up|margin|fees?|surcharge|pass[\s-]?through|commission|on\s+top", 1),
    "discount": (r"discount\w*|off|cut|rebate|coupon", -1),
}
_ASKED = re.compile(
    r"\b(?:incl\w*\.?|inc\.|with|after|once|plus|add\w*|on\s+top\s+of|less|minus|net\s+of|counting)\s[^?;]{0,40}?"
    r"\b(?P<k>tax\w*|vat|gst|overhead|mark-?up|margin|fees?|surcharge|discount|cut|rebate)\b"
    r"|\b(?P<done>discounted|marked[\s-]up|taxed)\b"
)
_SET_ASIDE = re.compile(
    r"\b(?:ignor\w*|excl\w*|without|before|pre|minus|not\s+counting|leav\w*\s+out)[\s-]+(?:the\s+)?(?:\w+\s+)?(?:tax|vat|gst)"
)
_PERCENT = re.compile(r"(?<![\w.])(?P<p>\d{1,2}(?:\.\d{1,3})?)\s?%")


@dataclass(frozen=True)
class Percent:
    """A percentage of a kind ("tax", "overhead", "discount"), as the question asks for it."""

    kind: str
    start: int  # where the question's words asking for it start, and end
    end: int


def asked_percent(text: str) -> Percent | None:
    """The kind of percentage a money question asks to be applied ("incl. their overhead", "once sales tax is
    added", "discounted"), or None."""
    if _SET_ASIDE.search(text):
        return None
    m = _ASKED.search(text)
    if m is None:
        return None
    if m.group("done"):
        kind = {"d": "discount", "m": "overhead", "t": "tax"}[m.group("done")[0]]
    else:
        kind = next(k for k, (pattern, _) in _KINDS.items() if re.fullmatch(pattern, m.group("k")))
    return Percent(kind, m.start(), m.end())


def without_percent(original: str, asked: Percent) -> str:
    """The question with its words asking for the percentage taken out: what the percentage is applied to."""
    return f"{original[: asked.start]} {original[asked.end :]}".strip()


def _noted(asked: Percent, pieces: Sequence[tuple[str, str]]) -> tuple[float, list[tuple[list[str], int]], str] | None:
    """The one percentage of the kind asked the quote gives: (percent, each place it is said: the lines of its piece
    and its line's index, the words it is said with)."""
    pattern, _ = _KINDS[asked.kind]
    found: dict[float, list[tuple[list[str], int]]] = {}
    said: dict[float, str] = {}
    for piece, _ in pieces:
        lines = [line.strip(" *-") for line in LINES.split(piece) if line.strip(" *-")]
        for i, line in enumerate(lines):
            lower = line.lower()
            kind = re.search(rf"\b(?:{pattern})\b", lower)
            if kind is None:
                continue
            near = min(_PERCENT.finditer(lower), key=lambda m: abs(m.start() - kind.start()), default=None)
            if near is not None:
                percent = float(near.group("p"))
                found.setdefault(percent, []).append((lines, i))
                said.setdefault(percent, lower[min(near.start(), kind.start()) :][:40])
    if len(found) != 1:
        return None  # none, or several percentages of that kind: which one applies is a guess
    percent, places = next(iter(found.items()))
    return percent, places, said[percent]


def _price_near(places: list[tuple[list[str], int]]) -> tuple[float, str, str] | None:
    """The one price paid once on the percentage's line, else on one of the two before it or the one after it (a
    quote may give the lines in another order than the note): (amount, currency, the line)."""
    for lines, at in places:
        for line in (lines[at], *reversed(lines[max(0, at - 2) : at]), *lines[at + 1 : at + 2]):
            once = [m for m in find_money(line) if m.unit is None and m.qualifier is None and m.amount > 0]
            if len(once) == 1:
                return once[0].amount, once[0].currency, line
    return None


def percent_of(asked: Percent, base: CostAnswer | None, pieces: Sequence[tuple[str, str]]) -> CostAnswer | None:
    """``base`` (the sum of the rest of the question, if the quote gave one) with the percentage asked applied, or
    the one price on the percentage's line or the line before it with it applied; None when either is missing."""
    noted = _noted(asked, pieces)
    if noted is None:
        return None
    percent, places, said = noted
    sign = _KINDS[asked.kind][1]
    if base is not None and base.total is not None:
        currency = "EUR" if "€" in base.text else "GBP" if "£" in base.text else "USD"
        amount, before = base.total, base.text.rstrip(".")
    elif (near := _price_near(places)) is not None:
        amount, currency, line = near
        before = f"{price_text(amount, currency)} (“{line[:70]}”)"
    else:
        return None
    change = amount * percent / 100
    total = amount + sign * change
    step = f"{'+' if sign > 0 else '−'} {percent:g}% ({money_text(change, currency)}, “{said.strip()}”)"
    body = f"{before}; {step} = **{total_text(total, currency)}** (as the quote below says)."
    return CostAnswer(body, (), total=total)
