"""A total over a period of something priced once and per month or year: "playsight on both courts, first year all in?"
over "$7,800 install per court + $120/court/month for the service" is 2 × $7,800 + 2 × $120/court/month × 12 months.

A question asks such a total when it says so ("in total", "all in", "altogether", "all told", "overall", "the first
year", "year one", "what do we pay … for 3 months") and how long (the first year, 3 months, 2 years, 6 weeks). The
quoted passages (then the rest of their note) are read line by line with their quantities
(:mod:`hwqa.prices.quantities`); a line that prices one thing once (its clause says so: "install", "setup",
"one-off", "upfront", …, or a "+" joins it to the other price) and per a length of time (``€184/mo``,
``$120/court/month``) is the pair. A price per a thing ("install per court", "/court/month") is multiplied by the
count the question gives of it ("both courts", "3 lift boxes", "for one site"). A line of several options, one pair
each ("basic is $60 install + $15/mo; premium is $150 install + $28/mo"), gives the pair of the one clause whose own
words the question names ("premium"). The answer writes each term out with the line it is from.

None (the rest of the answer path decides) when no line holds one such pair, when a line holds several prices of one
kind and which one-off goes with which recurring price is not clear, when two lines fit the question as well and give
different sums, or when a price is per a thing the question gives no count of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from .factmatch import CostAnswer, money_text, overlap, total_text, words_of
from .passagesums import LINES
from .quantities import Qty, quantities, unit_of
from .words import WORD_NUMBERS

__all__ = ["all_in", "asks_all_in"]

_TOTAL = re.compile(
    r"\b(?:in\s+total|total|all[\s-]+in|altogether|all\s+together|all\s+told|overall|grand\s+total|everything\s+included|"
    r"first\s+(?:year|month|\w+\s+(?:months|years|weeks))|year\s+one|(?:incl\w*|with)\s+(?:the\s+)?"
    r"(?:set-?up|install\w*|one[\s-]?off|fees?))\b"
)
# "what do we pay hetzner … for 3 months": what is paid over a length, the one-off with it
_PAY = re.compile(r"\b(?:do|would|will|did|does|are)\s+(?:we|i|you|they|us)\s+(?:end\s+up\s+)?pay(?:ing)?\b")
_NUMBER = rf"\d+(?:\.\d+)?|{'|'.join(w for w in WORD_NUMBERS if w not in ('a', 'an', 'single', 'dual'))}"
_LENGTH = re.compile(rf"(?<![\w.$€£])(?P<n>{_NUMBER})\s*-?\s*(?P<unit>years?|yrs?|months?|mos?|weeks?|wks?)\b")
_ONE_LENGTH = re.compile(
    r"\b(?:(?:the\s+)?first|1st|a|one|a\s+full|a\s+whole|the\s+whole|an\s+entire)\s+(?P<unit>year|month|week)\b|\b(?P<one>year)\s+one\b"
)
_IN_BASE = {"y": ("month", 12.0), "m": ("month", 1.0), "w": ("day", 7.0)}
_TIMES = ("hour", "day", "month")
_YEARLY = re.compile(r"\b(?:y|yr|yrs|year|years|annual\w*|yearly)\b")
_WEEKLY = re.compile(r"\b(?:w|wk|wks|week|weeks|weekly)\b")
_MONEY = ("USD", "EUR", "GBP")
# Words of such a question that say nothing of what is priced
_SUM_WORDS = words_of(
    "first year years month months week weeks one all in total altogether together overall told everything included "
    "incl including what whats do does would will we i you pay paying cost costs come to over for the a an"
)
# Words that say a price is paid once
_ONCE = re.compile(
    r"\b(?:install\w*|set-?up|one[\s-]?off|one[\s-]?time|once|up-?front|onboarding|activation|deposit|joining|"
    r"sign[\s-]?up|initiation|commissioning|fitting|enrol\w*|start-?up)\b"
)
_ALTERNATIVE = re.compile(r"\s*(?:or|to|-|–|/)\s*")
_JOINED = re.compile(r"^\s*(?:\+|plus\b)|(?:\+|\bplus)\s*$")
_PER_AFTER = re.compile(r"(?:\bper\b|/|\bfor\s+each\b|\ba\s+piece\s+for\s+each\b)\s*(?P<w>[a-z][a-z-]*)")
_OPTIONS = re.compile(r";|\s\|\s|\bvs\.?\s|\bversus\b|\bor\s+(?=[a-z][\w-]*\s+(?:is|at|for|:))|,\s+(?=[a-z][\w-]*\s+(?:is|at|:))")
_LEAD = re.compile(r"^[^$€£:]*?(?::|\s[-–—]\s)")
_EACH = re.compile(r"\b(?:each|apiece|ea)\b")
_COUNT = re.compile(rf"(?<![\w.$€£/])(?P<n>\d{{1,4}}|{_NUMBER}|both)\s+(?P<words>(?:[a-z][\w-]*\s*){{1,3}})")
_ONE_THING = re.compile(r"\b(?:a|one|per|each|a\s+single|one\s+single)\s+(?P<words>(?:[a-z][\w-]*\s*){1,2})")


@dataclass(frozen=True)
class _Pair:
    once: Qty
    once_text: str
    recurring: Qty
    per: str | None  # the thing a price is per ("court"), or None
    once_per: bool  # the one-off price is per it
    recurring_per: bool  # the recurring price is per it
    line: str
    note: str
    fit: int
    option: str = ""  # the clause of the line the pair is from, when the line gives several


def asks_all_in(text: str) -> bool:
    """Whether a question asks a total over a period that a one-off price belongs in ("first year all in", "for 3 months
    … what do we pay in total")."""
    text = text.lower()
    if _period(text) is None:
        return False
    return bool(_TOTAL.search(text) or (_PAY.search(text) and _LENGTH.search(text)))


def all_in(words_text: str, pieces: Sequence[tuple[str, str]], context: str = "") -> CostAnswer | None:
    """One-off × count + recurring × count × period, over the quoted ``pieces`` (text, note) and then ``context`` (the
    rest of the first quoted note), or None (see the module doc)."""
    text = words_text.lower()
    if not asks_all_in(text):
        return None
    period = _period(text)
    if period is None:
        return None
    base, length = period
    asked = words_of(text) - _SUM_WORDS
    pairs: list[_Pair] = []
    seen: set[str] = set()
    sources = [*pieces, *([(context, pieces[0][1] if pieces else "")] if context else [])]
    for whole, note in sources:
        for line in LINES.split(whole):
            line = line.strip()
            if not line or line in seen:
                continue
            seen.add(line)
            pair = _pair_of(line, note, asked) or _clause_pair(line, note, asked)
            if pair is not None:
                pairs.append(pair)
    if not pairs:
        return None
    pairs.sort(key=lambda p: -p.fit)
    best = pairs[0]
    if best.fit == 0:
        return None  # a pair on a line that names nothing the question asks about: another thing's prices
    worked = _worked(best, text, base, length)
    if worked is None:
        return None
    for other in pairs[1:]:
        if other.fit < best.fit:
            break
        rival = _worked(other, text, base, length)
        if rival is None or rival.total != worked.total:
            return None  # two lines as likely, two sums: which is meant is not said
    return worked


def _period(text: str) -> tuple[str, float] | None:
    """The length the question asks about: its base ("month", or "day" for weeks) and how many."""
    m = _LENGTH.search(text)
    if m is not None:
        n = float(m.group("n")) if m.group("n")[0].isdigit() else float(WORD_NUMBERS[m.group("n")])
        unit = m.group("unit")
    else:
        one = _ONE_LENGTH.search(text)
        if one is None:
            return None
        n, unit = 1.0, one.group("unit") or one.group("one")
    if not 0 < n <= 100:
        return None
    base, factor = _IN_BASE[unit[0]]
    return base, n * factor


def _pair_of(line: str, note: str, asked: set[str]) -> _Pair | None:
    """The one-off price and the recurring one of a line, or None when it holds no such pair, or more than one of
    either (which goes with which is not said)."""
    lower = line.lower()
    money = [q for q in quantities(lower) if q.money]
    if len({q.money for q in money}) != 1:
        return None  # no price, or prices in two currencies: not one thing's
    recurring = [q for q in money if _time_of(q) in ("day", "month")]
    once = []
    for i, q in enumerate(money):
        if _time_of(q) is not None:
            continue
        before = lower[money[i - 1].end if i else 0 : q.start]
        after = lower[q.end : money[i + 1].start if i + 1 < len(money) else len(lower)]
        near = f"{before[-40:]} {_clause_start(after)}"
        joined = _JOINED.search(before) or _JOINED.search(after)
        plain = not _per_things(q) and _PER_AFTER.search(_clause_start(after)) is None  # "+ $0.01/GB egress": no one-off
        if _ONCE.search(near) or (joined and plain):
            once.append((q, before, after))
    if len(recurring) != 1 or len(once) != 1:
        return None
    for a, b in pairwise(money):
        if _ALTERNATIVE.fullmatch(lower[a.end : b.start]):
            return None  # "setup is $90 or $140", "$12 or $20 a month": which price is meant is not said
    rec = recurring[0]
    q, before, after = once[0]
    per_rec = _per_things(rec)
    per_once = _per_things(q)
    clause = _clause_start(after)
    written = clause.strip(" .,:")
    tail = _PER_AFTER.search(clause)
    if tail is not None:  # "$7,800 install per court"
        one = unit_of(tail.group("w"))
        if one is None:
            return None
        per_once |= {b for b, p in one[0].items() if p > 0 and b not in _TIMES}
    elif _EACH.search(clause):  # "$400 setup each": each of what the recurring price is per, if it says
        per_once |= per_rec or {"?"}
    per = per_rec | per_once
    if "?" in per or len(per) > 1:
        return None  # "each" of nothing said, or per two things: which count is whose is not clear
    if _ONCE.search(clause) or not _ONCE.search(before):
        once_text = " ".join(f"{q.written} {written}".split()[:6])
    else:  # "setup $150": the words before it say what it is
        once_text = " ".join([*re.split(r"[+,;:(]|\.\s", before)[-1].split()[-3:], q.written])
    fit = overlap(asked, words_of(lower))
    return _Pair(q, once_text, rec, next(iter(per), None), bool(per_once), bool(per_rec), line, note, fit)


def _clause_pair(line: str, note: str, asked: set[str]) -> _Pair | None:
    """ "basic is $90 setup + $12/mo; pro is $140 setup + $20/mo": the pair of the one clause whose own words the
    question names ("pro"), none when it names none or two as well."""
    parts = _OPTIONS.split(line)
    if len(parts) < 2:
        return None
    lead = _LEAD.match(line)  # "FleetDot: …" names the line's thing, none of its options
    said = words_of(lead.group(0)) if lead is not None else set()
    found = []
    for part in parts:
        pair = _pair_of(part, note, asked)
        if pair is not None:
            others = set().union(*(words_of(p.lower()) for p in parts if p is not part))
            own = overlap(asked, words_of(part.lower()) - others - said)
            found.append((own, pair))
    found.sort(key=lambda f: -f[0])
    if not found or found[0][0] == 0 or (len(found) > 1 and found[1][0] == found[0][0]):
        return None
    own, pair = found[0]
    return replace(pair, line=line, fit=overlap(asked, words_of(line.lower())) + own, option=pair.line.strip(" .,;"))


def _clause_start(after: str) -> str:
    """The words after a price up to the next break ("install per court " of " install per court + $120…")."""
    return re.split(r"[+,;()]|\bplus\b|\band\b|\.\s", after, maxsplit=1)[0]


def _time_of(q: Qty) -> str | None:
    return next((b for b, p in q.units if b in _TIMES and p < 0), None)


def _per_things(q: Qty) -> set[str]:
    return {b for b, p in q.units if p < 0 and b not in _TIMES and b not in _MONEY}


def _count(text: str, thing: str) -> tuple[float, str] | None:
    """How many of ``thing`` (a base unit: "court", "seat") the question gives ("both courts", "3 lift boxes", "for one
    site"), and as said; None when it gives none, or two different ones."""
    found: dict[float, str] = {}
    for m in _COUNT.finditer(text):
        if _names(m.group("words"), thing):
            token = m.group("n")
            n = 2.0 if token == "both" else float(token) if token[0].isdigit() else float(WORD_NUMBERS[token])
            found.setdefault(n, " ".join(m.group(0).split()))
    if not found:
        for m in _ONE_THING.finditer(text):
            if _names(m.group("words"), thing):
                found.setdefault(1.0, " ".join(m.group(0).split()))
    if len(found) != 1:
        return None
    n, said = next(iter(found.items()))
    return n, said


def _names(words: str, thing: str) -> bool:
    """Whether one of ``words`` is a word for ``thing`` ("courts" for "court", "players" for "seat")."""
    for word in words.split():
        one = unit_of(word)
        if one is not None and thing in one[0]:
            return True
    return False


def _length_said(written: str, base: str, length: float) -> str:
    """The length asked in the unit the recurring price is written per ("12 months" for "$120/court/month")."""
    if base == "month" and _YEARLY.search(written) and length % 12 == 0:
        n, unit = length / 12, "year"
    elif base == "day" and _WEEKLY.search(written) and length % 7 == 0:
        n, unit = length / 7, "week"
    else:
        n, unit = length, base
    return f"{n:g} {unit}{'s' if n != 1 else ''}"


def _worked(pair: _Pair, text: str, base: str, length: float) -> CostAnswer | None:
    if _time_of(pair.recurring) != base:
        return None  # a price per month over weeks asked, or per day over months: no link assumed
    currency = pair.once.money or "USD"
    n, counted = 1.0, ""
    if pair.per is not None:
        got = _count(text, pair.per)
        if got is None:
            return None  # a price per court and no count of courts
        n, counted = got
    once_n = n if pair.once_per else 1.0
    recurring_n = n if pair.recurring_per else 1.0
    total = once_n * pair.once.value + recurring_n * pair.recurring.value * length
    said = _length_said(pair.recurring.written, base, length)
    once = f"{once_n:g} × {pair.once_text}" if pair.once_per else pair.once_text
    recurring = f"{recurring_n:g} × {pair.recurring.written}" if pair.recurring_per else pair.recurring.written
    terms = f"{once} + {recurring} × {said}"
    result = total_text(total, currency) if total >= 100 else money_text(total, currency)
    option = f"the option “{pair.option}”" if pair.option else ""
    lead = f"For {' and '.join(w for w in (counted, option) if w)}: " if counted or option else ""
    body = (
        f"{lead}{terms} = **{result}** (the one-off price once, the recurring one over {said}; worked out from your "
        f"notes: “{pair.line}”)."
    )
    return CostAnswer(body, (), total=total)
