"""Sums over the lines of one quoted passage, for a money question (see :mod:`hwqa.prices.quoted`):

- what is left of a budget the passage names after the other prices it gives ("after the parts");
- what a whole setup came to: every price of the passage's lines, a price each times its line's count ("3 of them
  at $129 each", "6x … at $12 each", "one per cam");
- a price per TB or GB: each line of one price and one size, the price over the size;
- the words of a price's clause, and of the lead of its line (what a list item is about), that the sums match a
  question's words against.

A line of several prices, or one that names a budget, total, credit or sale among the things bought, makes the sum
a guess: none is given.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from .factmatch import ENERGY, STOP, CostAnswer, money_text, overlap, price_text, words_of
from .names import Money, find_money
from .rates import rates_in
from .words import COUNT_WORDS, WORD_NUMBERS, PriceWords

__all__ = [
    "ASKS",
    "EACH",
    "LINES",
    "asks_left",
    "asks_whole",
    "budget_left",
    "clause_of",
    "clause_words",
    "head_words",
    "kits_asked",
    "own_count",
    "per_size",
    "size_asked",
    "whole_setup",
]

# Money asked of a total: the words of rates.py's asks, and "owe", "run me".
ASKS = re.compile(
    r"\b(?:cost\w*|bill\w*|charg\w*|pay|paid|owe|total|spend|spent|come\s+to|came\s+to|run\s+(?:me|us)|ballpark|budget\s+for|"
    r"set\s+(?:me|us)\s+back)\b|\bhow\s+much\b(?!\s+(?:memory|ram|vram|time|power|faster|slower|longer|more\s+time))|"
    r"=\s*\?"  # "copilot for the whole team for a yr = ?"
)
EACH = re.compile(r"\s*(?:each|apiece|a\s+piece|ea\.?|/\s*ea\b|per\s+(?:unit|piece|one|stick|drive|card|dongle|pack))", re.I)

LINES = re.compile(r"\n+|(?<=[.!?])\s+|\s\*\s")  # a passage's sentences and list items, as quoted
_LEFT = re.compile(r"\b(?:left|leftover|remain(?:s|ing)?|to\s+spare)\b(?!\s+out\b)")
_BUDGET = re.compile(r"\b(?:budget\w*|gave|sponsor\w*|cap|allowance|put\s+aside|set\s+aside|grant|fund\w*)\b")
_ALL_OF_IT = re.compile(
    r"\bafter\s+(?:(?:all\s+)?(?:the|my|our)\s+)?(?:parts|purchases|buys|stuff|everything|it\s+all|all\s+that)\b"
)


def budget_left(words: PriceWords, pieces: Sequence[tuple[str, str]]) -> CostAnswer | None:
    """ "how much of the box budget is left after the parts": the budget the passage names less every other price it
    gives once (the prices of one section, never a guess at which of several sections' prices were spent)."""
    if not _ALL_OF_IT.search(words.text):
        return None
    budgets: list[Money] = []
    spent: list[Money] = []
    for line in LINES.split(pieces[-1][0]):
        for m in find_money(line):
            if m.unit is None and m.qualifier is None and m.amount > 0:
                (budgets if _BUDGET.search(line[: m.start].lower()) else spent).append(m)
    if len(budgets) != 1 or not spent or any(m.currency != budgets[0].currency for m in spent):
        return None
    budget = budgets[0]
    total = sum(m.amount for m in spent)
    items = " + ".join(price_text(m.amount, m.currency) for m in spent)
    left = budget.amount - total
    said = f"**{money_text(left, budget.currency)}** left" if left >= 0 else f"**{money_text(-left, budget.currency)}** over"
    body = f"{price_text(budget.amount, budget.currency)} budget − ({items}) = {said} (as the passage below prices them)."
    return CostAnswer(body, (), total=left)


_WHOLE_ASKED = re.compile(
    r"\b(?:whole|entire|all\s+in|in\s+all|altogether|all\s+together|everything|in\s+parts|adds?\s+up)\b|"
    r"\btotal\s+(?:(?:spend|spent|cost)\s+)?(?:for|of|on)\s+(?:the|my|our)\b"
)
_NOT_BOUGHT = re.compile(r"\b(?:budget|total|spent|saved|credits?|allowance|sponsor\w*|refund\w*|sold|quote[ds]?)\b")
_ONE_PER = re.compile(r"\bone\s+(?:per|for\s+each|each\s+for)\s+(?P<what>[a-z]+)")
_N_SAID = re.compile(rf"(?<![\w.$])(?P<n>\d{{1,3}}|{COUNT_WORDS})\s*(?:x\b|×|of\s+them\b|pcs\b|units?\b)")
# "3 cams": a count before a word, never a size or a rating ("5 MP", "200 Watt 12 Volt", "8 port")
_N_BARE = re.compile(
    rf"(?<![\w.$])(?P<n>\d{{1,3}}|{COUNT_WORDS})(?=\s+[a-z])(?!\s+(?:mp|megapixels?|w|watts?|v|volts?|ah|mah|mm|cm|m|gb|tb|mb|"
    r"hz|ghz|mhz|fps|k|bits?|ports?|bays?|inch|in|ft|lbs?|kg|g|tops|nm|cores?|amps?|a|kwh|wh|ch|channels?|gigs?)\b)"
)


def line_at(text: str, at: int) -> str:
    """The sentence or list item of ``text`` (split as quotes are: :data:`LINES`) holding position ``at``."""
    begin = max((m.end() for m in LINES.finditer(text, 0, at)), default=0)
    end = LINES.search(text, at)
    return text[begin : end.start() if end else len(text)]


def own_count(line: str) -> re.Match[str] | None:
    """The count a line of one price each gives ("4x 32GB SD cards", "2 of them", "3 cams"), the line's price blanked:
    a count said as one ("x", "of them", "pcs") before a bare one, never a size or a rating ("5 MP", "200 Watt")."""
    return _N_SAID.search(line) or _N_BARE.search(line)


def asks_whole(words: PriceWords) -> bool:
    """Whether a money question asks what a whole setup came to ("what did the whole camera setup cost", "all in"),
    giving no time of its own."""
    asks = ASKS.search(words.text) is not None or _SUM_ENDS.search(words.text) is not None
    energy = ENERGY.search(words.text) is not None  # "power cost for the whole night window": a length, no parts list
    return words.hours is None and asks and not energy and _WHOLE_ASKED.search(words.text) is not None


# A question ending in what asks a sum: "counter device parts all together?"
_SUM_ENDS = re.compile(r"\b(?:altogether|all\s+together|in\s+total|all\s+in)\s*\??\s*$")


def whole_setup(words: PriceWords, pieces: Sequence[tuple[str, str]], kits: tuple[float, str] | None = None) -> CostAnswer | None:
    """ "what did the whole cabin camera setup cost": every one-off price the passage's lines give, a price each
    times its line's count ("3 of them at $129 each", "6x … at $12 each", "one per cam": the cams' count); ``kits`` of
    them when the question asks for that many of the kit the passage lists (:func:`kits_asked`)."""
    if any(r.time for r in rates_in(pieces[-1][0].lower())):
        return None  # a passage of rates: a rental's total, the rates' sums
    if _PART_ONLY.search(words.text):
        return None  # "how much just for the cameras": a part of the list, not all of it
    lines = [part for line in LINES.split(pieces[-1][0]) for part in _ADDED.split(line) if part.strip()]
    found: list[tuple[float, Money, str]] = []
    counts: dict[str, float] = {}
    for line in lines:
        money = [m for m in find_money(line) if m.unit is None and m.qualifier is None and m.amount > 0]
        outside = [m for m in money if not _in_aside(line, m)]
        money = outside or money  # "$9 (the $4 ones hissed too much)": the price in parentheses is an aside
        # A budget or total is said in the price's own clause ("sponsor gave us $400 total"), not in a remark beside
        # it ("$119, total overkill for this box")
        if len(money) > 1 and _one_run(line, money) and not _NOT_BOUGHT.search(line.lower()):
            # "a Pop Mini case and a Corsair RM650, $95 and $89": each thing's price in the order it names them
            found += [(1.0, m, line.strip()) for m in money]
            continue
        if len(money) != 1 or _NOT_BOUGHT.search(clause_of(line.lower(), money[0].start, money[0].end)):
            if money:
                return None  # a line of several prices, or a budget or total among them: which to add is a guess
            continue
        m = money[0]
        lower = line.lower()
        n = 1.0
        if EACH.match(line, m.end):
            per = _ONE_PER.search(lower)
            many = own_count(_strip_money(lower, m))
            if per is not None:
                n = next((v for k, v in counts.items() if k.startswith(per.group("what")[:4])), 0.0)
            elif many is not None:
                n = _number(many.group("n"))
            if not n:
                return None
        for noun in re.findall(r"[a-z]{3,}", lower):
            counts.setdefault(noun, n)
        found.append((n, m, line.strip()))
    if len(found) < 2 or len({m.currency for _, m, _ in found}) != 1:
        return None
    currency = found[0][1].currency
    total = sum(n * m.amount for n, m, _ in found)
    each = [price_text(m.amount, currency) if n == 1 else f"{n:g} × {price_text(m.amount, currency)}" for n, m, _ in found]
    parts = " + ".join(each)
    if kits is not None:  # "3 more lifts" of a kit listed once: "3 lifts × ($329 + $80 = $409.00) = $1,227.00"
        n, noun = kits
        one = money_text(total, currency)
        return CostAnswer(
            f"{n:g} {noun} × ({parts} = {one}, every price of the list below) = **{money_text(n * total, currency)}**.",
            (),
            total=n * total,
        )
    return CostAnswer(f"{parts} = **{money_text(total, currency)}** (every price of the passage below).", (), total=total)


# One thing bought added to another on a line: "… was $62, and a tripod off Amazon $40", "$149, plus two used cards",
# "Pi Zero - $15; mic - $9". Never a comma alone, "or", "vs" or "was … now": those give one thing's other prices.
_ADDED = re.compile(r"\s*(?:[,;]\s*(?:and|plus)\s+|\s(?:and|plus)\s+(?=(?:a|an|two|three|four|\d+)\s)|;\s+|\s\+\s)", re.I)


_KITS = re.compile(rf"(?<![\w.$/-])(?P<n>\d{{1,3}}|{COUNT_WORDS})\s+(?:more\s+|extra\s+|new\s+|other\s+)?(?P<noun>[a-z]{{3,}})")


def kits_asked(words: PriceWords, heading: str) -> tuple[float, str] | None:
    """ "adding 3 more lifts, what's the hardware cost": how many of a kit the question asks for, when the kit's list
    is headed by what one kit is for ("Per-lift box", "Kit (trough #1)"); None when it asks no money, gives hours, or
    counts anything else."""
    if words.hours is not None or not ASKS.search(words.text):
        return None
    for m in _KITS.finditer(words.text):
        noun = m.group("noun")
        n = _number(m.group("n"))
        if noun in STOP:
            continue  # "a hailo-8 for the cam": no count of anything
        if 1 < n <= 1000 and re.search(rf"(?<![a-z]){re.escape(noun[:4])}", heading.lower()):
            return n, noun
    return None


_PART_ONLY = re.compile(r"\b(?:just|only)\s+(?:for\s+)?the\b")


def _one_run(line: str, money: Sequence[Money]) -> bool:
    """Whether a line's prices are written in one run, joined by "and", "&", "+" or commas only ("$95 and $89")."""
    return all(re.fullmatch(r"\s*(?:,|&|\+|and|,\s*and)?\s*", line[a.end : b.start]) for a, b in itertools.pairwise(money))


def _in_aside(line: str, m: Money) -> bool:
    """Whether a price is inside parentheses: an aside beside the price of the thing ("(the $4 ones hissed)")."""
    return line.rfind("(", 0, m.start) > line.rfind(")", 0, m.start)


def _strip_money(text: str, m: Money) -> str:
    return text[: m.start] + " " * (m.end - m.start) + text[m.end :]


def _number(token: str) -> float:
    return float(token) if token[0].isdigit() else float(WORD_NUMBERS[token])


_PER_SIZE = re.compile(r"(?:\bper\s+|\$?\s*/\s*)(?P<u>tb|gb|gig|terabyte|gigabyte)s?\b")
_SIZED = re.compile(r"(?<![\w.])(\d{1,4}(?:\.\d+)?)\s?(gb|tb|gigs?)\b", re.I)


def per_size(words: PriceWords, pieces: Sequence[tuple[str, str]], unit: str) -> CostAnswer | None:
    """ "per tb, ssd vs hdd?": each line of the quote with one price and one size, the price over the size, in the
    unit asked; only the lines naming what the question names, when it names any of them."""
    asked = words_of(words.text) - {"per", "tb", "gb", "gig", "gigs", "terab", "gigab", "vs", "versus"}
    found: list[tuple[str, float, str, float, str]] = []
    for piece, _ in pieces:
        for line in LINES.split(piece):
            money = [m for m in find_money(line) if m.unit is None and m.qualifier is None and m.amount > 0]
            sizes = _SIZED.findall(line)
            if len(money) != 1 or len(sizes) != 1:
                continue
            size = float(sizes[0][0]) * (1000 if sizes[0][1].lower() == "tb" else 1) / (1000 if unit == "TB" else 1)
            if size <= 0:
                continue
            name = line[: min(m.start for m in money)].split(":")[0].strip(" *|-") or line.strip()
            found.append((name[:60], money[0].amount, money[0].currency, size, line.lower()))
        if found:
            break
    named = [f for f in found if overlap(asked, words_of(f[4]))]
    found = named or found
    if not found or len({f[2] for f in found}) != 1:
        return None
    parts = [
        f"{name}: {price_text(amount, cur)} ÷ {size:g} {unit} = **{money_text(amount / size, cur)}/{unit}**"
        for name, amount, cur, size, _ in found
    ]
    return CostAnswer("; ".join(parts) + " (as the quote below prices them).", ())


def asks_left(text: str) -> bool:
    """Whether a question asks what is left ("how much of the budget is left", "what remains")."""
    return _LEFT.search(text) is not None


def size_asked(text: str) -> str | None:
    """The size a price is asked per ("per tb", "$/gb"): "TB" or "GB", else None."""
    per = _PER_SIZE.search(text)
    return None if per is None else "TB" if per.group("u").startswith("t") else "GB"


_CLAUSE = re.compile(r"[,;()]|\.\s|\s[-–—]\s|\bwhen\b|\bwhile\b|\band\b")


def head_words(text: str, at: int) -> set[str]:
    """The words of the lead of the line ``at`` is on: what a list item is about ("heygen pricing - … $35/seat/mo")."""
    begin = max(text.rfind("\n", 0, at), text.rfind(" * ", 0, at), text.rfind(". ", 0, at)) + 1
    head = re.split(r"\s[-–—]\s|:", text[begin:at], maxsplit=1)
    return words_of(head[0]) if len(head) > 1 else set()


def clause_of(text: str, start: int, end: int) -> str:
    """The clause of ``text`` holding ``start``–``end`` (a price's, a draw's): between the clause breaks around it."""
    before = max((c.end() for c in _CLAUSE.finditer(text, 0, start)), default=0)
    after = _CLAUSE.search(text, end)
    return text[before : after.start() if after else len(text)]


def clause_words(text: str, start: int, end: int) -> set[str]:
    """The words of :func:`clause_of`."""
    return words_of(clause_of(text, start, end))
