"""Money questions over the price facts that are not hourly rentals (:class:`~hwqa.prices.table.PriceFact`):
a plan over a period, the energy a run uses, buying more of a card the notes give a price for.

:func:`answer_costs` reads the question once more for what only these questions say (a period in
months or years, a power draw in watts, "N more"), picks the facts it needs from the table, and works
the sum out in the open: ``12 × $9.99/month = $119.88``. It returns None when the question asks
none of these, or the notes hold no fact it needs (then the rental calculator, or the passages, answer).
Each answer cites the facts it used, by note and line, with their sentence or row as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .table import PriceFact, PriceTable, hardware_matches
from .units import HOURS_PER_MONTH
from .words import WORD_NUMBERS, PriceWords

__all__ = ["CostAnswer", "answer_costs"]

_ENERGY = re.compile(
    r"\b(?:power\s+bill|electricity|electric\s+bill|energy\s+(?:cost|bill|use)|kwh|power\s+cost|cost\s+in\s+power|"
    r"power\s+(?:would|will|does)|watts?)\b"
)
_PLAN = re.compile(r"\b(?:plan|subscription|membership|tier)s?\b")
_PERIOD = re.compile(rf"(?<![\w.])(?P<n>\d+(?:\.\d+)?|{'|'.join(WORD_NUMBERS)})\s*-?\s*(?P<unit>years?|months?|yrs?)\b")
_PER_PERIOD = re.compile(r"\b(?:per|a|an|each|every)\s+(?P<unit>year|month)\b|\b(?P<word>annual(?:ly)?|yearly|monthly)\b")
_COUNTS = "|".join(w for w in WORD_NUMBERS if w not in ("a", "an", "single"))  # "buy an RTX 4090" is not a count
_MORE = re.compile(
    rf"(?<![\w.])(?P<n>\d{{1,3}}|{_COUNTS})\s+(?:more|extra|additional|other)\b"
    r"(?!\s+(?:hours?|hrs?|days?|weeks?|months?|years?|minutes?|gb|tb|runs?|jobs?|epochs?|times?)\b)"
)
_BUY_N = re.compile(rf"\b(?:buy(?:ing)?|purchas\w*|get(?:ting)?)\s+(?P<n>\d{{1,3}}|{_COUNTS})\b")
_RENTING = re.compile(r"\b(?:rent\w*|hir(?:e|ing)|break[\s-]?even|versus|vs\.?)\b")
_BOUGHT = re.compile(r"\b(?:i|we)\s+(?:bought|got|own|have|paid\s+for|purchased)\b|\bmy\s+(?:card|gpu)\b")
_MINE = re.compile(r"\b(?:i|we|my|our|me)\b", re.I)
_WATTS = re.compile(r"(?<![\w.])(\d{1,5}(?:\.\d+)?)\s?(?:w|watts?)\b")
_KW = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s?kw\b(?!h)")
_TOKENS = re.compile(r"[a-z0-9+]+")
_MAX_UNITS = 10_000
_STOP = frozenset({"the", "a", "an", "of", "for", "on", "in", "at", "to", "is", "my", "what", "how", "much", "cost", "would"})


@dataclass(frozen=True)
class CostAnswer:
    """What a cost question over the facts comes to: the answer in Markdown, and the facts it used."""

    text: str
    facts: tuple[PriceFact, ...]


def _words(text: str) -> set[str]:
    """The words of ``text``, long ones cut to their first five letters ("colocating" meets "colocation")."""
    return {t[:5] if len(t) > 5 else t for t in _TOKENS.findall(text) if t not in _STOP}


def _count(token: str) -> float:
    return float(token) if token[0].isdigit() else float(WORD_NUMBERS[token])


def _money(value: float, currency: str = "USD") -> str:
    mark = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency)
    text = f"{value:,.2f}"
    return f"{mark}{text}" if mark else f"{text} {currency}"


def _of(facts: Sequence[PriceFact], kind: str) -> list[PriceFact]:
    return [f for f in facts if f.kind == kind]


def _newest(facts: Sequence[PriceFact]) -> PriceFact:
    return max(facts, key=lambda f: f.as_of or "")


def answer_costs(words: PriceWords, table: PriceTable) -> CostAnswer | None:
    """The answer to a plan, energy or purchase question over ``table``'s facts (see the module doc), or None."""
    if not table.facts:
        return None
    text = words.text
    for answer in (_energy(words, text, table), _plan(words, text, table), _purchase(words, text, table)):
        if answer is not None:
            return answer
    return None


def _energy(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    if not _ENERGY.search(text) or words.hours is None:
        return None
    rates = [f for f in _of(table.facts, "electricity") if f.unit == "kwh"]
    if not rates:
        return None
    rate = _newest(rates)
    used: list[PriceFact] = [rate]
    stated = _WATTS.search(text) or _KW.search(text)
    if stated:
        watts = float(stated.group(1)) * (1000 if stated.re is _KW else 1)
        draw = f"{watts:g} W (your figure)"
    else:
        draws = _of(table.facts, "power")
        named = [f for f in draws if any(hardware_matches(h.word, f.subject) for h in words.hardware)]
        chosen = named or (draws if len({f.subject.lower() for f in draws}) == 1 else [])
        if not chosen:
            return None
        power = chosen[0]
        used.append(power)
        watts = power.amount
        draw = f"{watts:g} W (the {power.subject}'s draw in your notes)"
    devices = max((d.value for d in words.devices), default=1.0)
    kwh = watts * devices * words.hours / 1000
    cost = kwh * rate.amount
    times = f" × {devices:g} devices" if devices > 1 else ""
    body = (
        f"Energy for {words.hours:,g} hours at {draw}{times}: {watts:g} W{times} × {words.hours:,g} h = "
        f"{kwh:,.1f} kWh; at {_money(rate.amount, rate.currency)}/kWh that is **{_money(cost, rate.currency)}**."
    )
    return CostAnswer(body, tuple(used))


def _plan(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    plans = [f for f in _of(table.facts, "plan") if f.unit in ("month", "year")]
    if not plans:
        return None
    asked = _words(text)
    scored = [(len(asked & _words(f.subject.lower())), f) for f in plans]
    best = max(score for score, _ in scored)
    top = [f for score, f in scored if score == best]
    if best == 0 and not (_PLAN.search(text) and len(plans) == 1):
        return None
    if len({f.subject.lower() for f in top}) != 1:
        return None
    plan = _newest(top)
    period = _PERIOD.search(text)
    if period:
        n = _count(period.group("n"))
        months = n * 12 if period.group("unit").startswith(("y", "Y")) else n
        said = f"{n:g} {'year' if months == n * 12 and period.group('unit').startswith('y') else 'month'}{'s' if n != 1 else ''}"
    elif (per := _PER_PERIOD.search(text)) is not None:
        unit = per.group("unit") or ("month" if per.group("word") == "monthly" else "year")
        months, said = (12.0, "a year") if unit == "year" else (1.0, "a month")
    elif words.hours is not None:
        months, said = words.hours / HOURS_PER_MONTH, f"{words.hours:,g} hours ({words.hours / HOURS_PER_MONTH:.2g} months)"
    else:
        return None
    if not 0 < months <= 12 * 100:
        return None
    per_month = plan.amount if plan.unit == "month" else plan.amount / 12
    total = per_month * months
    rate = f"{_money(plan.amount, plan.currency)}/{plan.unit}"
    sum_text = f"{months:g} × {_money(per_month, plan.currency)}/month" if plan.unit == "month" else f"{months:g}/12 × {rate}"
    body = f"{said[0].upper()}{said[1:]} of {plan.subject} at {rate}: {sum_text} = **{_money(total, plan.currency)}**."
    return CostAnswer(body, (plan,))


def _purchase(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    bought = [f for f in _of(table.facts, "purchase") if f.unit == "once"]
    if not bought:
        return None
    more = _MORE.search(text) or _BUY_N.search(text)
    if more is None or _RENTING.search(text):  # buying against renting: the calculator's break-even
        return None
    n = _count(more.group("n"))
    if not 0 < n <= _MAX_UNITS:
        return None
    named = [f for f in bought if any(hardware_matches(h.word, f.subject) for h in words.hardware)]
    if not named and _BOUGHT.search(text):  # "the card I bought": the one purchase the notes say was the owner's own
        mine = [f for f in bought if _MINE.search(f.evidence)]
        named = mine if len({f.subject.lower() for f in mine}) == 1 else []
    if not named:
        return None
    fact = _newest(named)
    total = n * fact.amount
    body = (
        f"{n:g} more {fact.subject} at the {_money(fact.amount, fact.currency)} your notes record: "
        f"{n:g} × {_money(fact.amount, fact.currency)} = **{_money(total, fact.currency)}**."
    )
    return CostAnswer(body, (fact,))
