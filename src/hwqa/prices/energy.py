"""What electricity a money question asks for costs, worked over the passages its answer quotes (see
:mod:`hwqa.prices.quoted`): a draw in the quote (the one whose words match what the question says of the load:
idle, busy) × the hours of use (the question's, scaled by how many hours a day the quote says it runs; the
occasions a period holds, "10.5 h a night … 22 nights a month", "shows are 3 hrs, 8 a week"; or the quote's run
length) × the price of a kWh (the quote's, in cents or pence too, else the notes' for the same note, else the
newest).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .counts import asked_count
from .factmatch import CostAnswer, holds_name, is_model, of_kind, overlap, price_text, total_text, words_of
from .names import find_money, find_watts
from .passagesums import LINES, clause_of, line_at
from .rates import _ALL_DAY, _LENGTHS, _TIME_WORDS, _TOTAL, _counts, _noun
from .roles import watt_role
from .table import PriceFact, PriceTable
from .units import HOURS_PER
from .words import PriceWords, nights_only, read_price_words

__all__ = ["energy_sum"]

_CENTS_KWH = re.compile(r"(?<![\w.,$£€])(\d{1,3}(?:\.\d+)?)\s?(?P<u>cents?|ct|c|¢|p|pence)\s?(?:/|per\s+|a\s+)?\s?kwh\b", re.I)
_IDLE = re.compile(r"\bidl\w*|\bsleep\w*|\bstandby\b|\bsuspend\w*")
_LOAD = re.compile(r"\b(?:load\w*|full\s+tilt|flat\s+out|max\w*|peak|train\w*|busy|stress\w*|render\w*|gaming|inference)\b")
_PERIOD = re.compile(
    r"\b(?:a|per|each|every|the)\s+(?P<u>month|year|week|day)\b|\b(?P<adv>monthly|yearly|annual(?:ly)?|weekly|daily)\b"
)


_GEFORCE = re.compile(r"[1-5]0[5-9]0")


def _draw(text: str, pieces: Sequence[tuple[str, str]]) -> tuple[float, str, str] | None:
    """The draw the question asks about: (watts, its clause, its note)."""
    # "the a10g", "my 3070" (a GeForce number): never the draw of another card
    models = [w for w in re.findall(r"[a-z0-9]+", text) if is_model(w) or _GEFORCE.fullmatch(w)]
    found: list[tuple[float, str, str]] = []
    for piece, note in pieces:
        for line in LINES.split(piece):
            if not all(holds_name(line.lower(), m) for m in models):
                continue
            for at, end, watts in find_watts(line):
                if watt_role(line, at, end) is None:  # "a 1000W PSU", "the 200W cap": a capacity or a limit, no draw
                    found.append((watts, clause_of(line, at, end).strip(), note))
        if found:
            break  # the best piece with a draw in it
    if not found and models:
        # "~260W at the wall while training" beside "… takes ~19 hrs on the 3060": the piece names the card, the draw's
        # line no card at all
        for piece, note in pieces:
            if all(holds_name(piece.lower(), m) for m in models):
                for line in LINES.split(piece):
                    if not any(is_model(w) or _GEFORCE.fullmatch(w) for w in re.findall(r"[a-z0-9]+", line.lower())):
                        found += [
                            (watts, clause_of(line, at, end).strip(), note)
                            for at, end, watts in find_watts(line)
                            if watt_role(line, at, end) is None
                        ]
            if found:
                break
    if not found:
        return None
    for asked in (_IDLE, _LOAD):
        if asked.search(text):
            fitting = [f for f in found if asked.search(f[1])]
            if fitting:
                return fitting[0]
    fitting = [f for f in found if not _IDLE.search(f[1])] or found
    asked_words = words_of(text)
    return max(fitting, key=lambda f: overlap(asked_words, words_of(f[1])))


# The two sides of a two-rate tariff, as a question or a price's clause names them ("a day" is a length, no rate)
_NIGHT_RATE = re.compile(r"\b(?:night\w*|overnight|off[\s-]?peak|economy|cheap(?:er)?\s+rate|low\s+rate)\b")
_DAY_RATE = re.compile(r"\b(?:day[\s-]?(?:time|rate|tariff)|daytime|peak|during\s+the\s+day|standard\s+rate)\b")
# "7am-9pm", "9pm to 7am": the hours of a clock range
_CLOCK = r"(?P<{0}>\d{{1,2}})(?::\d\d)?\s*(?P<{0}m>am|pm)"
_NOON, _MIDNIGHT = re.compile(r"\bnoon\b|\bmidday\b", re.I), re.compile(r"\bmidnight\b", re.I)
_RANGE = re.compile(rf"{_CLOCK.format('a')}\s*(?:-|–|to|till|until)\s*{_CLOCK.format('b')}", re.I)


def _side(text: str) -> str | None:
    """Which rate of a two-rate tariff ``text`` names: "night" (off-peak, overnight, economy), "day", or None."""
    night, day = _NIGHT_RATE.search(text) is not None, _DAY_RATE.search(_NIGHT_RATE.sub(" ", text)) is not None
    return "night" if night and not day else "day" if day and not night else None


def clock_hours(text: str) -> tuple[float, str] | None:
    """The hours of the first clock range ``text`` writes ("9pm to 7am": 10 h, "noon to 8pm": 8 h) and the range."""
    clock = _NOON.sub(lambda n: "12pm".ljust(len(n.group(0))), _MIDNIGHT.sub(lambda n: "12am".ljust(len(n.group(0))), text))
    m = _RANGE.search(clock)  # "noon", "midnight" as clock times, the same length: the range is said as written
    if m is None:
        return None
    start, end = (int(m.group(k)) % 12 + (12 if m.group(f"{k}m").lower() == "pm" else 0) for k in ("a", "b"))
    hours = (end - start) % 24
    return (float(hours), text[m.start() : m.end()]) if hours else None


def _kwh_price(
    pieces: Sequence[tuple[str, str]], note: str, table: PriceTable | None, asked: str = ""
) -> tuple[float, str, str] | None:
    """The price of a kWh: (amount, currency, where): the quote's (of two, the one whose clause names the rate the
    question asks: "overnight" the night rate), else the notes' (the draw's note first)."""
    side = _side(asked)
    for piece, _ in pieces:
        kwh = [m for m in find_money(piece) if m.unit == "kwh" and m.amount > 0]
        sides = [_side(clause_of(piece.lower(), m.start, m.end)) for m in kwh]
        named = [m for m, s in zip(kwh, sides, strict=True) if side and s == side]
        if kwh:
            m = named[0] if len(named) == 1 else kwh[0]
            return m.amount, m.currency, "the quote below"
        cents = _CENTS_KWH.search(piece)
        if cents is not None:  # "24.5p/kWh": pence, a British tariff
            return float(cents.group(1)) / 100, "GBP" if cents.group("u").lower() in ("p", "pence") else "USD", "the quote below"
    if table is None:
        return None
    prices = [f for f in of_kind(table.facts, "electricity") if f.unit == "kwh" and f.amount > 0]
    same = [f for f in prices if f.note == note]
    pick = same or prices
    if not pick or (not same and len({(f.amount, f.currency) for f in prices}) != 1):
        return None  # several prices in other notes: which one is the box's is not said
    fact = max(pick, key=lambda f: f.as_of or "")
    return fact.amount, fact.currency, f"your notes ({fact.note_title or fact.note})"


def energy_sum(
    words: PriceWords, pieces: Sequence[tuple[str, str]], table: PriceTable | None, context: str = ""
) -> CostAnswer | None:
    text = words.text
    draw = _draw(text, pieces)
    if draw is None or find_watts(text):
        return None
    watts, clause, note = draw
    whole = " ".join(p for p, _ in pieces)
    said = read_price_words(whole.lower())
    per_day = 24.0 if _ALL_DAY.search(whole.lower()) else said.hours_per_day
    hours = words.hours
    how = ""
    period = _PERIOD.search(text)
    bare = period is not None and period.group("u") in HOURS_PER and hours == HOURS_PER[period.group("u")]  # "a week"
    if (hours is None or bare) and (cycle := _duty_cycle(text, f"{whole}\n{context}")) is not None:
        # "overnight each month" over the quote or the rest of its note: "10.5 h a night … 22 nights a month"
        hours, how = cycle
    said_range = clock_hours(text)
    ranged = said_range or _rate_hours(text, pieces)  # "from 9pm to 7am", "over the day-rate hours"
    if ranged is not None and (words.hours is None or words.hours == 24):  # within "a day", never beside "for 3 days"
        hours, how = ranged[0], f"{ranged[1]}, as {'you say' if said_range else 'the tariff says'}"
    if per_day is None and hours is None and nights_only(words):
        return None  # "overnight each month": how long a night is, neither the question nor the quote says
    if not how and hours is not None and words.hours_per_day is None and per_day is not None and per_day < 24 and hours >= 24:
        how = f"{hours / 24:g} days × {per_day:g} h a day (as the quote says)"
        hours = hours / 24 * per_day
    if hours is None:
        period = _PERIOD.search(text)
        if period is not None and per_day is not None:
            unit = period.group("u") or _TIME_WORDS[period.group("adv")]
            days = HOURS_PER[unit] / 24
            hours = days * per_day
            how = f"{days:,.4g} days × {per_day:g} h a day (as the quote says)"
        elif _TOTAL.search(text) and said.hours is not None and said.hours_per_day is None:
            hours = said.hours
            how = f"{hours:g} h (as the quote says)"
        elif _ONE_RUN.search(text) and (run := _one_length(whole)) is not None:
            hours = run  # "one full training run" over "a full 100 epoch run takes ~19 hrs"
            how = f"{hours:g} h a run (as the quote says)"
    if hours is None:
        return None
    # use round the clock on a two-rate tariff ("idling 24/7", "a 30 day month" of a box left on): each rate for its hours
    all_day = _ALL_DAY.search(text) is not None or (per_day == 24 and hours >= 24 and not how)
    blend = _blended(pieces) or _blended(_tariffs(table, note)) if all_day and _side(text) is None else None
    price = blend or _kwh_price(pieces, note, table, text)
    if price is None:
        return None
    amount, currency, where = price
    many = asked_count(text, "", clause, _counts(text))  # "the 9 gpu desktops" over "each desktop pulls ~220W"
    # "~60W per hut normal, ~120W on cold days": the draws of a line are each per the thing it names
    line = next((ln for piece, _ in pieces for ln in LINES.split(piece) if clause in ln), clause)
    per = _PER_THING.search(clause.lower()) or _PER_THING.search(line.lower())
    if many is None and per is not None and (n := _counts(text).get(_noun(per.group("w")), 0)) > 1:
        many = (n, per.group("w"))  # "~60W per hut" for "7 huts"
    draws = f"{many[0]:g} {many[1]}s × {watts:g} W" if many else f"{watts:g} W"
    kwh = watts * hours / 1000 * (many[0] if many else 1)
    cost = kwh * amount
    span = f" ({how})" if how else ""
    body = (
        f"Energy for {hours:,g} hours{span} at {watts:g} W (“{clause}”): {draws} × {hours:,g} h = {kwh:,.1f} kWh; "
        f"at {price_text(amount, currency)}/kWh that is **{total_text(cost, currency)}** (the kWh price: {where})."
    )
    return CostAnswer(body, ())


_PER_THING = re.compile(r"\b(?:per|each|every)\s+(?P<w>(?!(?:hour|day|night|week|month|year|run|job)s?\b)[a-z]{3,})\b")
# "over the day-rate hours", "the whole cheap night window": the hours of one rate of a two-rate tariff
_RATE_HOURS = re.compile(r"\b(?:day|night|peak|off[\s-]?peak|cheap|economy)(?:[\s-]?rate)?\s+(?:hours|window|period)\b")


_REST_OF_DAY = re.compile(r"\b(?:the\s+)?rest\s+of\s+the\s+(?:day|time)|\botherwise\b|\ball\s+other\s+(?:hours|times)\b")


def _blended(pieces: Sequence[tuple[str, str]]) -> tuple[float, str, str] | None:
    """The price of a kWh used evenly round the clock on a two-rate tariff whose line gives each rate its hours ("$0.19/kWh
    peak (noon to 8pm), $0.11/kWh off-peak the rest of the day"): each rate for its share of the day; None unless the
    quote writes two kWh prices in one currency whose hours make up the day."""
    for piece, _ in pieces:
        kwh = [m for m in find_money(piece) if m.unit == "kwh" and m.amount > 0]
        if len(kwh) != 2 or kwh[0].currency != kwh[1].currency:
            continue
        ends = [kwh[1].start, len(piece)]
        spans = [piece[m.end : min(end, m.end + 60)] for m, end in zip(kwh, ends, strict=True)]
        hours = [clock_hours(span) for span in spans]
        rest = [_REST_OF_DAY.search(span.lower()) is not None for span in spans]
        if all(hours):
            split = [h[0] for h in hours if h]
        elif any(hours) and any(rest):
            known = next(h[0] for h in hours if h)
            split = [known if h else 24 - known for h in hours]
        else:
            continue
        if sum(split) != 24:
            continue
        amount = sum(m.amount * h for m, h in zip(kwh, split, strict=True)) / 24
        parts = " + ".join(f"{h:g} h at {price_text(m.amount, m.currency)}" for m, h in zip(kwh, split, strict=True))
        return amount, kwh[0].currency, f"the quote below, round the clock: ({parts}) ÷ 24 h"
    return None


_HOURS_SAID = re.compile(r"\b\d[\d,.]*\s*(?:h|hrs?|hours?)\b")


def tariff_rate(text: str, hours: float, rates: Sequence[PriceFact]) -> tuple[float, str] | None:
    """Of a two-rate tariff the notes price (``rates``, its kWh prices), the price of a kWh for the use a question asks
    about, and how: the rate it names ("at the off-peak rate"), else, for use round the clock ("24/7", a month or a
    year of it, never "for 10 hours"), each rate for its hours of the day; None when neither applies."""
    side = _side(text)
    if side is not None:
        sides = [_side(clause_of(f.evidence.lower(), *(f.stated_at or (0, len(f.evidence))))) for f in rates]
        named = {f.amount: f for f, said in zip(rates, sides, strict=True) if said == side}
        return (next(iter(named)), f"the {side} rate") if len(named) == 1 else None
    if not (_ALL_DAY.search(text) or (hours >= 24 and not _HOURS_SAID.search(text))):
        return None
    blend = _blended(sorted({(f.evidence, f.note) for f in rates}))
    return (blend[0], blend[2].replace("the quote below, ", "")) if blend else None


def _tariffs(table: PriceTable | None, note: str) -> list[tuple[str, str]]:
    """The lines the notes price a kWh on, as (line, note): the draw's note's when it has one, else all of them."""
    lines = {(f.evidence, f.note) for f in of_kind(table.facts, "electricity") if f.unit == "kwh"} if table else set()
    own = [line for line in lines if line[1] == note]
    return sorted(own or lines) if len({e for e, _ in own or lines}) == 1 else []


def _rate_hours(text: str, pieces: Sequence[tuple[str, str]]) -> tuple[float, str] | None:
    """ "over the day-rate hours": the clock range the quote writes beside the kWh price of that rate."""
    side = _side(text)
    if side is None or not _RATE_HOURS.search(text):
        return None
    for piece, _ in pieces:
        for m in find_money(piece):
            clause = clause_of(piece.lower(), m.start, m.end)
            if m.unit == "kwh" and _side(clause) == side and (hours := clock_hours(piece[m.end : m.end + 30])) is not None:
                return hours
    return None


# "one full training run", "a render", "per retrain": one of a job whose length the quote gives
_ONE_RUN = re.compile(
    r"\b(?:one|a|an|each|per|single)\s+(?:[\w-]+\s+){0,3}?(?:run|job|retrain\w*|render|epoch|pass|batch|fine-?tune)s?\b"
)


def _one_length(said: str) -> float | None:
    """The one length, in hours, the quote gives (each time it says one, the same); None for none or several."""
    lengths = {read_price_words(m.group(0)).hours for m in _LENGTHS.finditer(said.lower())}
    return lengths.pop() if len(lengths) == 1 and None not in lengths else None


_DAYS_PER = re.compile(r"(?<![\w.$£€])(?P<n>\d{1,3})\s+(?:(?P<what>[a-z]+)\s+)?(?:a|per|each|every)\s+(?P<u>week|month|year)\b")


def _duty_cycle(text: str, context: str) -> tuple[float, str] | None:
    """The hours of use in the period a question asks for ("each month"), from the rest of the note when it says both
    how long a day or night of use is and how many of them the period holds ("10.5 h a night", "22 nights a month")."""
    period = _PERIOD.search(text)
    if period is None or not context:
        return None
    unit = period.group("u") or {"monthly": "month", "weekly": "week", "yearly": "year", "annual": "year"}.get(
        period.group("adv") or "", ""
    )
    lower = context.lower()
    found = {(float(m.group("n")), m.group("what") or "", m.start()) for m in _DAYS_PER.finditer(lower) if m.group("u") == unit}
    if len({n for n, _, _ in found}) != 1:
        return None  # none, or two different counts: which is meant is a guess
    n, what, at = min(found, key=lambda f: f[2])
    if what in _TIME_WORDS or what.isdigit():
        return None  # "3 hours a week" is a length, not a count of occasions
    lengths = [m.group(0) for m in _LENGTHS.finditer(line_at(lower, at))]
    if len(lengths) == 1 and not what.startswith(("day", "night", "weekday", "weeknight", "evening")):
        # "shows are 3 hrs incl interval, 8 a week": the one length on the count's line is one occasion's
        one = read_price_words(lengths[0]).hours
        if one is not None and 0 < one <= 24:
            return n * one, f"{n:g} × {lengths[0].strip('~ ')}, as your note says"
    per_day = read_price_words(lower).hours_per_day
    if per_day is None or not 0 < per_day <= 24 or not what:
        return None
    return n * per_day, f"{n:g} × {per_day:g} h, as your note says"
