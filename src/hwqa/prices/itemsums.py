"""What several things a money question names came to together, each priced on a line of the quote.

"what did the cfexpress cards plus the reader come to", "refurb ups plus two spare battery packs, how much",
"tailscale plus parsec, what's that per year": the question lists two or more things (joined by "plus", "and",
"+", "incl", "with"; a comma alone lists nothing); each is the one thing a quoted line prices once (its words
before the price name it). The sum is each line's price, times the count the question gives for it ("two spare battery packs") or,
for a price each, the line's own count ("4x … at $9 each"); a thing the question wants one of for each of the
first ("2 more kits each with the same nvme", "a weather box for each") takes the first's count; one more of a thing
("adding a 3rd panel") is one. A line naming one of the things listed goes before a line naming several (a kit's
total); in the period the question asks (a monthly price
× 12 for "per year"), written out term by term.

Nothing is summed when fewer than two lines are named, when a line named holds several prices (which one is
meant is a guess), when the question compares ("vs", "or", "cheaper") or asks what is left, or when the periods
cannot be brought to one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .factmatch import CostAnswer, count_word, price_text, total_text, words_of
from .names import Money, find_money
from .passagesums import ASKS, EACH, LINES, own_count
from .words import COUNT_WORDS, PriceWords

__all__ = ["asks_items", "named_total"]

# Things listed: "plus", "and", "+", "incl", "with" (a comma alone joins clauses as often: "2 more 3090s at the price of
# the ebay one, what would that cost").
_LISTED = re.compile(r"\bplus\b|\+|&|\band\b|\bincl(?:uding|uded|\.)?(?=\s|$)|\bwith\b|\bboth\b")
_NOT_A_LIST = re.compile(r"\bvs\.?\b|\bversus\b|\bor\b|\bcheaper\b|\bdifference\b|\bleft\b|\bremain\w*|\bsav(?:e|ed|ing)\b")
# Words of a money question that name no thing.
_ASKING = frozenset(
    "come came spent spend bill all toget altog much whats did new used got bough buy sum whole plus both "
    "thing stuff those these them this that there get gonna would could should been have was were from".split()
)
_YEAR = re.compile(r"\b(?:per|a|an|each|every|one)\s+year\b|\b(?:yearly|annual(?:ly)?|/\s*yr)\b")
_MONTH = re.compile(r"\b(?:per|a|each|every|one)\s+month\b|\bmonthly\b")
_COUNT = rf"(?P<n>\d{{1,3}}|{COUNT_WORDS}|both|pair\s+of)"
_MOST_LINES = 6
# One more of each thing, not the count the notes bought ("adding a 3rd panel and a second battery").
_ONE_MORE = re.compile(r"\b(?:add(?:ing)?|another|more|extra|a\s+(?:\d+(?:st|nd|rd|th)|second|third|fourth|fifth))\b")
_FOR_EACH = re.compile(r"\b(?:(?:for\s+)?(?:each|every)(?:\s+one)?|apiece|a\s+pop)\b")
_WHAT_PER = re.compile(
    r"\bwhat(?:'s|s|\s+is|\s+are|\s+would)\b[^?]*\b(?:per|a|each|every)\s+(?:year|month)\b"
)  # "what's that per year"
_ITEMS = re.compile(rf"{LINES.pattern}|;\s+")  # a quote joins a list's items with "; "


def asks_items(words: PriceWords) -> bool:
    """Whether a money question lists several things it asks the price of together ("the cards plus the reader")."""
    text = words.text
    return (
        (ASKS.search(text) is not None or _WHAT_PER.search(text) is not None)
        and _LISTED.search(text) is not None
        and _NOT_A_LIST.search(text) is None
        and words.hours is None
        and words.budget_usd is None
    )


def _count(n: str) -> float:
    return 2.0 if n == "both" or n.startswith("pair") else count_word(n)


def _asked_count(text: str, named: set[str]) -> tuple[float, int] | None:
    """The count the question writes before one of the words naming a line ("two spare battery packs", "both 3090s"),
    and where it ends."""
    for m in re.finditer(rf"(?<![\w.$]){_COUNT}\s+((?:[a-z0-9.-]+\s+){{0,2}})(?P<w>[a-z0-9.-]+)", text):
        said = words_of(f"{m.group(2)} {m.group('w')}")
        if said & named:
            return _count(m.group("n")), m.end()
    return None


def _each_count(text: str, counted: Sequence[tuple[float, int]]) -> float | None:
    """The count of the things a question lists first, when what follows is one for each of them ("2 more kits each
    with the nvme we put in", "2 spare cams plus a weather box for each"): "each", "for every one", "apiece" after
    the only count the question writes."""
    if len(counted) != 1:
        return None
    n, end = counted[0]
    return n if n > 1 and _FOR_EACH.search(text, end) else None


def _line_count(line: str, money: Money) -> float:
    """A price each times the line's own count ("4x 32GB SD cards at $9 each"); 1 otherwise."""
    if not EACH.match(line, money.end):
        return 1.0
    lower = line.lower()
    many = own_count(lower[: money.start] + " " * (money.end - money.start) + lower[money.end :])
    return _count(many.group("n")) if many is not None else 1.0


def named_total(words: PriceWords, pieces: Sequence[tuple[str, str]]) -> CostAnswer | None:
    """The sum of the things the question lists, each priced once on a quoted line (see the module doc), or None."""
    text = words.text
    asked = {w for w in words_of(text) if w not in _ASKING and not w.isdigit()}
    period = "year" if _YEAR.search(text) else "month" if _MONTH.search(text) else None
    lines: list[tuple[set[str], Money, str]] = []
    seen: set[str] = set()
    for piece, _ in pieces:
        for line in _ITEMS.split(piece):
            line = line.strip(" *-")
            if not line or line in seen:
                continue
            seen.add(line)
            amounts = [m for m in find_money(line) if m.amount > 0 and m.qualifier is None]
            named = {w for w in asked if w in words_of(line[: amounts[0].start])} if amounts else set()
            if not named:
                continue
            if len(amounts) != 1 or amounts[0].unit not in (None, "month", "year"):
                return None  # a line named with several prices, or a rate: which amount is meant is a guess
            lines.append((named, amounts[0], line))
    chosen: list[tuple[set[str], Money, str]] = []
    covered: set[str] = set()
    # The things listed, each a run of the question between joiners ("adding a 3rd panel" | "a second battery"): a
    # line naming one of them before a line naming several (a kit's total, "2 panels, battery, MPPT, $893.98").
    parts = [words_of(p) - _ASKING for p in _LISTED.split(text)]
    parts = [p for p in parts if p]

    def listed(named: set[str]) -> set[int]:
        return {i for i, p in enumerate(parts) if p & named} if len(parts) > 1 else set()

    said: set[int] = set()
    for named, money, line in sorted(lines, key=lambda item: (len(listed(item[0])) > 1, -len(item[0]))):
        if named <= covered or (said and listed(named) <= said):
            continue  # another line already names these words: the same thing twice, or its neighbour
        chosen.append((named, money, line))
        covered |= named
        said |= listed(named)
    if not 2 <= len(chosen) <= _MOST_LINES or len({m.currency for _, m, _ in chosen}) != 1:
        return None
    currency = chosen[0][1].currency
    if period is None:  # no period asked: the lines' own, when they share one ("$8/mo" and "$12/mo" is a month)
        units = {m.unit for _, m, _ in chosen}
        period = units.pop() if len(units) == 1 else None
    terms: list[str] = []
    total = 0.0
    asked_counts = {id(item): _asked_count(text, item[0]) for item in chosen}
    each = _each_count(text, [c for c in asked_counts.values() if c is not None])
    for item in sorted(chosen, key=lambda item: text.find(next(iter(sorted(item[0]))))):
        named, money, line = item
        count = asked_counts[id(item)]
        n = count[0] if count is not None else each or (1.0 if _ONE_MORE.search(text) else _line_count(line, money))
        factor, amount = _in_period(money, period)
        if factor is None:
            return None
        total += n * factor * amount
        shown = f"{price_text(amount, currency)}/{money.unit}" if money.unit else price_text(amount, currency)
        many = f"{n:g} × " if n != 1 else ""
        times = f"{factor:g} × " if factor != 1 else ""
        terms.append(f"{many}{times}{shown} (“{line[:70]}”)")
    per = f" a {period}" if period else ""
    body = f"{' + '.join(terms)} = **{total_text(total, currency)}**{per} (as the quote below prices them)."
    return CostAnswer(body, (), total=total)


def _in_period(money: Money, period: str | None) -> tuple[float | None, float]:
    """How many of the line's periods make the one asked: a monthly price is 12 in a year; a one-off price is once."""
    if money.unit is None or money.unit == period:
        return 1.0, money.amount
    if period is None:
        return None, money.amount  # monthly beside one-off prices, no period asked: what the sum is of is unclear
    if money.unit == "month" and period == "year":
        return 12.0, money.amount
    if money.unit == "year" and period == "month":
        return 1 / 12, money.amount
    return None, money.amount
