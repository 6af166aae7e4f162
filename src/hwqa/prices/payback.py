"""Buy versus rent over the price facts: how long renting a card by the hour runs before a purchase pays for itself.

"how many hrs renting a 4090 on vast before it equals what my 4090 cost", "after how many hours would buying the 3090
beat renting the lambda a10", "at our current usage how many months till the workstation pays for itself, power
included": a purchase the notes record (:class:`~hwqa.prices.table.PriceFact` of kind "purchase") over the hourly
rentals they price (:class:`~hwqa.prices.table.PriceRow`), worked out in the open.

- **What is rented**: the rows of the hardware the question names for renting (a name after a buy word is bought),
  or of the one hardware it names for both ("renting a 4090 before buying one"); of the provider it names, if any;
  on-demand unless it asks for spot. Each distinct rate is worked out (at most four).
- **What is bought**: the purchase of the hardware the question names for buying, else the one sharing most words
  with it ("the workstation", "the p920"); the newest when several agree.
- **Devices**: a count of the rented hardware ("renting four 4090s") multiplies its rate.
- **Power**, only when the question counts it ("power included", "counting the power it uses") and never when it
  leaves it out ("ignoring electricity"): owning costs the bought thing's noted draw × the noted $/kWh an hour,
  taken off what renting costs an hour. When the notes lack either, that is said and power is left out.
- **Months, weeks or days**: the hours over the question's own usage ("at my ~40 gpu hrs a month"), else over the
  one usage the bought thing's note states ("~150 GPU-hrs/month"); without either, hours, and that is said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .breakeven import UNTIL_ASKED, names_break_even
from .counts import SINGULAR_MODEL
from .factmatch import CostAnswer, money_text, newest_of, of_kind, price_text, purchases_named
from .names import find_providers
from .table import PriceFact, PriceRow, PriceTable, hardware_matches
from .units import HOURS_PER
from .words import COUNT_WORDS, WORD_NUMBERS, PriceWords, Reading

__all__ = ["rent_payback", "usage_in"]

_ASKS_LENGTH = re.compile(
    rf"\bhow\s+(?:many|long)\b|\bafter\s+how\s+many\b|\bat\s+what\s+point\b|\bwhen\s+(?:does|would|will|is|do)\b|{UNTIL_ASKED}"
)
_PAYS = re.compile(
    r"\bbreak[\s-]?even\b|\bpa(?:y|ys|id|ying)\s+(?:for\s+)?(?:it|itself|themselves|off|back)\b|\bpaid\s+back\b|"
    r"\bbeats?\b|\bcheaper\b|\bequals?\b|\bworth\s+(?:it|buying)\b|\badds?\s+up\s+to\b|\bcosts?\s+what\b|\bmatch(?:es)?\b"
)
_RENT = re.compile(r"\b(?:rent\w*|hir(?:e|ing)|on[\s-]?demand|cloud|spot)\b")
_COUNTS_POWER = re.compile(
    r"\b(?:power|electricity|energy|at\s+the\s+wall)\s+(?:included|incl\w*|counted|in)\b|"
    r"\b(?:with|incl\w*|including|counting|plus|add(?:ing)?)\s+(?:the\s+)?(?:power|electricity|energy|running\s+costs?)\b|"
    r"\bcounting\s+(?:the\s+)?(?:power|electricity|energy|what\s+it\s+(?:uses|draws|burns)|it)\b|"
    r"\b(?:power|electricity)\s+it\s+(?:uses|draws|burns)\b"
)
_NO_POWER = re.compile(
    r"\b(?:ignor\w*|not\s+counting|without|excluding|exclude|forget(?:ting)?|leav\w*\s+out|minus|no)\s+"
    r"(?:the\s+)?(?:power|electricity|energy|running)\b"
)
_PERIOD_ASKED = re.compile(
    r"\bhow\s+many\s+(?:more\s+)?(months?|weeks?|days?|years?)\b|\bin\s+(?:hours\s+and\s+)?(months|weeks|days|years)\b|"
    r"\b(months?|weeks?|days?|years?)\s+(?:till|until|til|before)\b"
)
# "~40 gpu hrs a month", "150 GPU-hrs/month", "about 10 hours per week"
_USAGE = re.compile(
    r"(?<![\w.$])~?(?P<n>\d{1,4}(?:\.\d+)?)\s*(?:(?:gpu|card|box)[\s-]?)?(?:hours?|hrs?|h)\b\s*"
    r"(?:/\s*|per\s+|an?\s+|each\s+)(?P<unit>month|mo|week|wk|day|year|yr)\b"
)
_UNIT = {"mo": "month", "wk": "week", "yr": "year"}
_MOST = 4
_PER_YEAR = {"day": 365.0, "week": 52.0, "month": 12.0, "year": 1.0}  # a usage's periods in a year, as people count them


def usage_in(text: str) -> tuple[float, str, str] | None:
    """The one usage ``text`` states, as (hours, period, as written), or None when it states none or two."""
    found = {
        (float(m.group("n")), _UNIT.get(m.group("unit"), m.group("unit")), m.group(0).strip()) for m in _USAGE.finditer(text)
    }
    if len({(h, p) for h, p, _ in found}) != 1:
        return None
    return next(iter(found))


def rent_payback(words: PriceWords, table: PriceTable, note_text: str = "") -> CostAnswer | None:
    """The hours (or months at the usage given) of renting before the purchase the question names pays for itself,
    over ``table``'s facts and rows (see the module doc), or None when the question asks no such thing or the notes
    lack the purchase or the rental. ``note_text``: the bought thing's note, where its usage may be stated."""
    text = words.text
    asks = (_ASKS_LENGTH.search(text) and _PAYS.search(text)) or names_break_even(text)  # "break even on …?"
    if not asks or words.purchase_usd is not None or words.budget_usd is not None:
        return None
    bought_facts = [f for f in of_kind(table.facts, "purchase") if f.unit == "once"]
    if not bought_facts or not table.rows or not words.hardware:
        return None
    names = list(words.hardware)
    for_rent = names
    if len(names) > 1:  # "the 3090 … vs renting a vast 4090": the names after a rent word, else those only rented
        for_rent = [h for h in names if _rented(text, h.start, h.end)] or [
            h for h in names if not any(hardware_matches(h.word, f.subject) for f in bought_facts)
        ]
    rows = [r for r in table.rows if any(r.named(h.word) or r.named(SINGULAR_MODEL.sub("", h.word)) for h in for_rent)]  # "a100s"
    rented_at = any(r.provider.lower() in text for r in rows if r.provider and r.provider != "not stated")  # "vs runpod"
    if not rows or not (_RENT.search(text) or len(names) > 1 or rented_at):
        return None
    rows = _narrowed(text, rows)
    to_buy = [h for h in names if h not in for_rent] or names
    bought = [f for f in bought_facts if any(hardware_matches(h.word, f.subject) for h in to_buy)]
    if not bought:  # "the workstation", "the integrator box": the purchase sharing most words with the question
        rented = {h.word.lower() for h in for_rent}
        bought = [f for f in purchases_named(words, text, bought_facts) if f.subject.lower() not in rented]
    if not bought:
        return None
    card = newest_of(bought)
    if card.currency != "USD":  # the rentals are in dollars: a purchase in another currency has no rate to meet
        return None
    rentals = _distinct(rows)[:_MOST]
    devices = max((d.value for d in words.devices), default=0.0) or _count_before(text, for_rent)
    power, power_said = _power(text, table, card)
    usage = _usage(text, note_text)
    lines: list[str] = []
    never: list[str] = []
    totals: list[float] = []
    asked_period = _period_asked(text)
    if asked_period is None and usage is not None and not _ASKS_HOURS.search(text):
        asked_period = usage[1]  # "how long to break even", at "~50 hrs/mo": months
    converted = False
    for row in rentals:
        # a rental priced per day, week or month is worked out in its own unit ("$720 ÷ $15/day = 48 days") unless
        # the question asks hours
        unit = _stated_period(row)
        unit = unit if unit and (asked_period == unit or (asked_period is None and not _ASKS_HOURS.search(text))) else "hour"
        span = HOURS_PER[unit]
        rate = row.usd_per_hour * devices * span
        per_unit = rate - power * span
        if per_unit <= 0:  # owning costs as much an hour as renting: said, never a negative break-even
            never.append(f"{_what(row, devices)} costs no more an hour than owning the {card.subject} does in power")
            continue
        n = card.amount / per_unit
        totals.append(n)
        short = "h" if unit == "hour" else unit
        rate_said = price_text(row.usd_per_hour * span, "USD") + f"/{short}"
        rate_said = f"{devices:g} × {rate_said}" if devices != 1 else rate_said
        if power:
            over = f"({rate_said} − {money_text(power * span)}/{short} for power)"
        else:
            over = f"({rate_said})" if devices != 1 else rate_said
        said = f"{price_text(card.amount, card.currency)} ÷ {over} = **{_counted(n, unit)}**"
        if unit == "hour" and usage is not None and asked_period is not None:
            per_period = usage[0] * _PER_YEAR[usage[1]] / _PER_YEAR[asked_period]  # 150 h a month: 1,800 a year
            said += f"; at {per_period:g} hours a {asked_period} ({usage[2]}), **{_counted(n / per_period, asked_period)}**"
        elif unit == "hour" and asked_period is not None:
            converted = True
        lines.append(f"against {_what(row, devices)}: {said}")
    if not lines and not never:
        return None
    head = f"The {card.subject} at the {price_text(card.amount, card.currency)} your notes record"
    tail = [power_said or "Power left out" + (", as you asked." if _NO_POWER.search(text) else "."), "Resale left out."]
    if converted:
        tail.append("Your notes give no hours a month to turn the hours into a period.")
    if never:
        tail.insert(0, f"It never pays for itself against {'; '.join(never)}.")
    if len(lines) == 1:
        body = f"{head}, {lines[0]} of renting before buying pays for itself."
    elif not lines:
        body = f"{head}:"
    else:
        body = f"{head}, against each rental, before buying pays for itself:\n" + "\n".join(f"- {line}" for line in lines)
    used = (card, *(_as_fact(r) for r in rentals))
    return CostAnswer(f"{body} {' '.join(tail)}", used, total=totals[0] if len(totals) == 1 else None)


def _rented(text: str, at: int, end: int) -> bool:
    """Whether the hardware named at ``at:end`` is the one rented: a rent word at most three words before it
    ("renting two 4090s", "rent the lambda a10"), or right after it ("2x a10 rental")."""
    return bool(_RENT_BEFORE.search(text, 0, at) or _RENT_AFTER.match(text, end))


_RENT_BEFORE = re.compile(r"\b(?:rent\w*|hir(?:e|ing))\s+(?:[\w.'-]+\s+){0,3}$")
_RENT_AFTER = re.compile(r"\w*\s*(?:\w+\s+)?(?:rent\w*|hire)\b")


_COUNT = re.compile(rf"(?<![\w.$])(\d{{1,2}}|{COUNT_WORDS})\s*(?:x\s*)?$")


def _count_before(text: str, names: Sequence[Reading]) -> float:
    """The count written right before the rented hardware ("renting four 4090s", "2x A100"), else 1."""
    for h in names:
        m = _COUNT.search(text[: h.start])
        if m is not None:
            token = m.group(1)
            return float(token) if token[0].isdigit() else float(WORD_NUMBERS[token])
    return 1.0


def _as_fact(row: PriceRow) -> PriceFact:
    """A rental row as the fact it is, to be cited beside the purchase."""
    return PriceFact(
        row.hardware,
        "rental",
        row.usd_per_hour,
        "USD",
        "hour",
        row.provider,
        row.as_of,
        row.note,
        row.note_title,
        row.line,
        row.evidence,
        row.stated,
        row.section,
        row.url,
    )


def _narrowed(text: str, rows: Sequence[PriceRow]) -> list[PriceRow]:
    """The rows of the provider the question names (all when it names none of theirs), on-demand unless it asks spot."""
    providers = {p[2] for p in find_providers(text)}
    named = [r for r in rows if r.provider in providers]
    kept = named or list(rows)
    spot = re.search(r"\b(?:spot|interruptible|preemptible)\b", text) is not None
    same = [r for r in kept if r.interruptible == spot]
    return same or kept


def _distinct(rows: Sequence[PriceRow]) -> list[PriceRow]:
    seen: dict[tuple[str, str, float], PriceRow] = {}
    for row in sorted(rows, key=lambda r: r.usd_per_hour):
        seen.setdefault((row.hardware, row.provider, row.usd_per_hour), row)
    return list(seen.values())


def _what(row: PriceRow, devices: float) -> str:
    where = f" on {row.provider}" if row.provider and row.provider != "not stated" else ""
    count = f"{devices:g} × " if devices != 1 else ""
    return f"renting {count}{row.hardware}{where} at {price_text(row.usd_per_hour, 'USD')}/h"


def _power(text: str, table: PriceTable, card: PriceFact) -> tuple[float, str]:
    """What owning ``card`` costs in power an hour (0 unless the question counts power), and how it was worked out."""
    if not _COUNTS_POWER.search(text) or _NO_POWER.search(text):
        return 0.0, ""
    rates = [f for f in of_kind(table.facts, "electricity") if f.unit == "kwh" and f.currency == card.currency]
    draws = [f for f in of_kind(table.facts, "power") if f.note == card.note]
    named = [f for f in draws if hardware_matches(f.subject, card.subject) or hardware_matches(card.subject, f.subject)]
    draws = named or (draws if len({f.subject.lower() for f in draws}) == 1 else [])
    if not rates or not draws:
        return 0.0, f"Power left out: your notes give no draw and $/kWh for the {card.subject}."
    loaded = [f for f in draws if "load" in f.detail] or draws
    draw = max(loaded, key=lambda f: f.amount)
    same = [r for r in rates if r.note == card.note]
    kwh = same[0] if same else newest_of(rates)
    per_hour = draw.amount * kwh.amount / 1000
    return per_hour, (
        f"Power: {draw.amount:g} W ({draw.subject}) × {price_text(kwh.amount, kwh.currency)}/kWh = "
        f"{money_text(per_hour, kwh.currency)} an hour of owning."
    )


def _usage(text: str, note_text: str) -> tuple[float, str, str] | None:
    asked = usage_in(text)
    if asked is not None:
        return asked[0], asked[1], "your figure"
    noted = usage_in(note_text.lower()) if note_text else None
    return (noted[0], noted[1], f"your notes: “{noted[2]}”") if noted is not None else None


def _period_asked(text: str) -> str | None:
    m = _PERIOD_ASKED.search(text)
    if m is None:
        return None
    word = (m.group(1) or m.group(2) or m.group(3)).rstrip("s")
    return word if word in HOURS_PER else None


def _stated_period(row: PriceRow) -> str | None:
    """The period a rental was priced per as written ("$15/day"), when it was no hourly price."""
    m = _PER_PERIOD.search(row.stated.lower())
    return None if m is None else _UNIT.get(m.group(1), m.group(1))


_PER_PERIOD = re.compile(r"(?:/\s*|\bper\s+|\ban?\s+)(day|week|wk|month|mo)\b")
_ASKS_HOURS = re.compile(r"\b(?:hours?|hrs?|gpu[\s-]?hours?)\b")


def _counted(n: float, unit: str) -> str:
    """ "3,900 hours", "42.7 months", "1 year" """
    shown = f"{n:,.0f}" if n >= 100 or round(n, 1) == round(n) else f"{n:,.1f}"
    return f"{shown} {unit}{'' if shown == '1' else 's'}"
