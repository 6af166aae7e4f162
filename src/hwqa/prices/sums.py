"""Sums over several things the notes price: "three spare batteries and the charger hub together?", "parts total for
my friend's test pc".

A question asking a total (together, total, altogether, combined, all in, in all, plus) is summed in two shapes:

- things joined by "and", "+", "plus" or commas, each matched to the one-off price whose subject shares most of its
  words, times the count written before it ("three spare batteries"): ``3 × $159.00 + $89.00 = $566.00``;
- the total of one line of prices ("used 3070 $310, 32GB ram kit $85, 1TB nvme $65"): every one-off price of the
  line that fits the question best.

Only one-off prices in one currency are summed. A thing no price fits, or two different things that fit it equally,
leave the question to the rest of the calculator and to the passages: a sum is never made of a guess.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from .factmatch import GENERIC, CostAnswer, count_word, money_text, of_kind, overlap, words_of
from .table import PriceFact, PriceTable
from .words import COUNT_WORDS, PriceWords

__all__ = ["answer_sum"]

_TOTAL = re.compile(r"\b(?:together|total|altogether|combined|all\s+in|in\s+all|sum|plus)\b")
_SPLIT = re.compile(r"\s*(?:\band\b|\+|,|\bplus\b|&)\s*")
_COUNT = re.compile(rf"(?<![\w.$])(?P<n>\d{{1,3}}|{COUNT_WORDS})\s+(?!(?:more|of|hours?|hrs?|days?|months?|years?)\b)")
_FILLER = words_of(
    "what whats how much cost costs price prices would will does did do be is are was were come came to get buy pay "
    "paid me us it that those these them total together altogether combined sum plus all in"
)
_MAX_ITEMS = 12


def answer_sum(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    """The sum a question asks over several one-off prices of ``table`` (see the module doc), or None."""
    if not _TOTAL.search(text) or words.hours is not None or words.budget_usd is not None or words.money:
        return None
    bought = [f for f in of_kind(table.facts, "purchase") if f.unit == "once"]
    if len(bought) < 2:
        return None
    core = _TOTAL.sub(" ", text)
    parts = [p for p in _SPLIT.split(core) if _asked(p)]
    if len(parts) >= 2:
        chosen = [_item(part, bought) for part in parts[:_MAX_ITEMS]]
        if any(c is None for c in chosen):
            return None
        items = [c for c in chosen if c is not None]
        if len({(f.note, f.line, f.amount) for _, f in items}) != len(items):
            return None
        return _worked(items)
    return _line_total(_asked(core), bought)


def _asked(text: str) -> set[str]:
    return words_of(text) - GENERIC - _FILLER


def _item(part: str, bought: Sequence[PriceFact]) -> tuple[float, PriceFact] | None:
    """The count and the price of one thing the question sums: the one-off price whose subject shares most words."""
    m = _COUNT.search(part)
    n = count_word(m.group("n")) if m else 1.0
    asked = _asked(part)
    scored = sorted(((overlap(asked, words_of(f.subject)), i, f) for i, f in enumerate(bought)), key=lambda s: (-s[0], s[1]))
    if not scored or scored[0][0] == 0 or not 0 < n <= 1000:
        return None
    best = scored[0][2]
    if len(scored) > 1 and scored[1][0] == scored[0][0] and scored[1][2].subject.lower() != best.subject.lower():
        return None  # two different things fit it equally
    return n, best


def _line_total(asked: set[str], bought: Sequence[PriceFact]) -> CostAnswer | None:
    """Every one-off price of the one line (of two or more) whose words, section and note fit the question best."""
    if not asked:
        return None
    lines: dict[tuple[str, int], list[PriceFact]] = defaultdict(list)
    for fact in bought:
        lines[(fact.note, fact.line)].append(fact)
    scored = sorted(
        (
            (overlap(asked, words_of(f"{facts[0].evidence} {facts[0].section} {facts[0].note_title}")), key, facts)
            for key, facts in lines.items()
        ),
        key=lambda s: (-s[0], s[1]),
    )
    best = [facts for score, _, facts in scored if score == scored[0][0] and len(facts) >= 2]
    if not scored or scored[0][0] == 0 or len(best) != 1:
        return None  # the lines that fit best price one thing each, or two lines fit: no line's total is asked
    facts = best[0]
    if len({f.currency for f in facts}) != 1:
        return None
    total = sum(f.amount for f in facts)
    terms = " + ".join(money_text(f.amount, f.currency) for f in facts)
    said = f"{terms} = **{money_text(total, facts[0].currency)}**: every price of the line “{facts[0].evidence}”."
    return CostAnswer(said, tuple(facts))


def _worked(items: Sequence[tuple[float, PriceFact]]) -> CostAnswer | None:
    if len({f.currency for _, f in items}) != 1:
        return None  # no exchange rate: never a sum across currencies
    currency = items[0][1].currency
    terms = [
        f"{n:g} × {money_text(f.amount, currency)} ({f.subject})" if n != 1 else f"{money_text(f.amount, currency)} ({f.subject})"
        for n, f in items
    ]
    total = sum(n * f.amount for n, f in items)
    said = f"{' + '.join(terms)} = **{money_text(total, currency)}**, as your notes price them."
    return CostAnswer(said, tuple(f for _, f in items))
