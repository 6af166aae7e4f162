"""Money questions over the price facts that are not hourly rentals in dollars (:class:`~hwqa.prices.table.PriceFact`):
a plan or service over a period (with its setup fee), an API's price for a volume of tokens
(:mod:`hwqa.prices.tokens`), the months a purchase takes to pay for itself against a monthly bill, the energy a
machine uses, a rental noted in another currency, buying more of something the notes give a price for, and what a
thing was bought for.

:func:`answer_costs` reads the question once more for what only these questions say (a period in months or
years, a volume of tokens, a power draw in watts, "N more"), picks the facts it needs from the table by the
words the question shares with them (what is priced, its section and note), and works the sum out in the
open: ``12 × $9.99/month = $119.88``. It returns None when the question asks none of these, or the notes hold
no fact it needs (then the rental calculator, or the passages, answer). Each answer cites the facts it used,
by note and line, with their sentence or row as written; when several facts fit equally, each is worked out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .allin import asks_all_in
from .counts import MODEL_NUMBER
from .energy import tariff_rate
from .factmatch import (
    GENERIC,
    CostAnswer,
    best_fit,
    count_word,
    fit_score,
    foreign_note,
    holds_name,
    is_model,
    money_text,
    named_in,
    newest_of,
    of_kind,
    overlap,
    price_text,
    purchases_named,
    words_of,
)
from .payback import rent_payback
from .plansaving import asks_saving, billed_as_paid, plan_saving, used_saving
from .rates import answer_rate
from .seats import seats_asked, seats_for
from .sums import answer_sum
from .table import PriceFact, PriceTable, hardware_matches
from .tokens import answer_tokens
from .units import HOURS_PER, HOURS_PER_MONTH
from .words import WORD_NUMBERS, PriceWords, nights_only

__all__ = ["CostAnswer", "answer_costs"]

_ENERGY = re.compile(
    r"\b(?:power\s+bill|electricity|electric\s+bill|energy\s+(?:cost|bill|use)|kwh|power\s+cost|cost\s+in\s+power|"
    r"power\s+(?:would|will|does|money|spend)|watts?)\b"
)
_TO_RUN = re.compile(r"\b(?:to\s+run|running|run\s+(?:it|them|the)|keep\s+(?:it|the\s+[\w\s]{1,30}?)\s+(?:on|running))\b|24/7")
_PLAN = re.compile(r"\b(?:plan|subscription|membership|tier)s?\b")
_PERIOD = re.compile(rf"(?<![\w.])(?P<n>\d+(?:\.\d+)?|{'|'.join(WORD_NUMBERS)})\s*-?\s*(?P<unit>years?|months?|yrs?)\b")
_PER_PERIOD = re.compile(
    r"\b(?:per|a|an|each|every|first|one|the)\s+(?:(?:full|whole|entire)\s+)?(?P<unit>year|month)\b|"
    r"\b(?P<word>annual(?:ly)?|yearly|monthly)\b"
)
_ONE_OFF = re.compile(
    r"\b(?:set-?up|one-?time|one-?off|incl\w*|with\s+the\s+fee|up\s*front|install\w*|first\s+year|first\s+month)\b"
)
_COUNTS = "|".join(w for w in WORD_NUMBERS if w not in ("a", "an", "single"))  # "buy an RTX 4090" is not a count
# What "another" or "3 more" counts when it is no device: time, runs ("another 3 hours", "2 more epochs").
_NOT_DEVICES = r"hours?|hrs?|days?|weeks?|months?|years?|minutes?|runs?|jobs?|epochs?|times?"
_ANOTHER = re.compile(
    r"\b(?:another|one\s+more|a\s+(?:second|third|fourth|fifth|sixth|seventh|eighth))\b"
    rf"(?!\s+(?:{_NOT_DEVICES}|provider|one\s+of)\b)"
)
_MORE = re.compile(rf"(?<![\w.])(?P<n>\d{{1,3}}|{_COUNTS})\s+(?:more|extra|additional|other)\b(?!\s+(?:{_NOT_DEVICES}|gb|tb)\b)")
_BUY_N = re.compile(rf"\b(?:buy(?:ing)?|purchas\w*|get(?:ting)?)\s+(?P<n>\d{{1,3}}|{_COUNTS})\b")
_RENTING = re.compile(r"\b(?:rent\w*|hir(?:e|ing)|break[\s-]?even|versus|vs\.?)\b")
_BOUGHT = re.compile(r"\b(?:i|we)\s+(?:bought|got|own|have|paid\s+for|purchased)\b|\bmy\s+(?:card|gpu)\b")
_WAS_BOUGHT = re.compile(
    r"\b(?:bought|buy|paid|pay|purchas\w*|did\s+.{0,40}\s+cost|go(?:es)?\s+for|went\s+for|used|second-?hand|new|msrp|retail|"
    r"how\s+much\s+(?:was|were|did))\b"
)
_PAYBACK = re.compile(
    r"\bpays?\s+(?:for\s+)?itself|\bpay\s*back\b|\bpays?\s+off\b|\bbreak[\s-]?even\b|\bmonths?\s+(?:until|before|till|to)\b|"
    r"\bhow\s+long\s+(?:until|before|till|to)\b|\bworth\s+buying\b|\bamortis|\bamortiz"
)
_MINE = re.compile(r"\b(?:i|we|my|our|me)\b", re.I)
_WATTS = re.compile(r"(?<![\w.])(\d{1,5}(?:\.\d+)?)\s?(?:w(?!/)|watts?)\b")  # "w/" is "with"
_KW = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s?kw\b(?!h)")
_DRAW_ASKED = (
    ("idle", re.compile(r"\bidl\w*")),
    ("after undervolt", re.compile(r"undervolt\w*|power[\s-]?limit\w*")),
    ("under load", re.compile(r"\b(?:load|full\s+tilt|max\w*|peak|training|flat\s+out|stress\w*|gaming|inference|busy)\b")),
)
_N_OF = re.compile(rf"(?<![\w.$])(?P<n>\d{{1,3}}|{_COUNTS})\s+of\s+(?:the|those|these|them|that)\b")
_SET_BACK = re.compile(
    r"\b(?:set|run)\s+(?:me|us|you)\s+back\b|\brun\s+(?:me|us)\b|\bbill\b|\btotal\b|\bwhat\s+(?:does|would|will)\s+(?:that|it|this)\s+run\b"
)
_ASKS_MEMORY = re.compile(r"\b(?:memory|vram|ram|gb|gigs?|hbm)\b")
_GB = re.compile(r"(?<![\w.])(\d{1,4})\s?(?:gb|gib)\b", re.I)
_MAX_UNITS = 10_000
_MAX_OPTIONS = 4
# Words after a count that count no thing: a time, a size, money
_NOT_GROUPS = rf"(?:{_NOT_DEVICES}|gb|tb|more|of|dollars?|bucks|euros?|pounds?|quid|usd|eur|gbp|k\b)"
# "a ups for 7 huts", "one cam on each of 7 lifts": one of the thing for each of a group the question counts
_FOR_EACH_OF = re.compile(
    rf"\b(?:for|on|in|at|across|to)\s+(?:each\s+of\s+|all\s+)?(?:the\s+|our\s+|my\s+)?(?P<n>\d{{1,4}}|{_COUNTS})\s+"
    rf"(?:[a-z][\w-]*\s+)?(?!{_NOT_GROUPS})(?P<what>[a-z][\w-]*)\b"
)
# "7 reolink maze cams", "5 lift boxes": a count before words that name a thing the notes price
_N_THINGS = re.compile(
    rf"(?<![\w.$-])(?P<n>\d{{1,4}}|{_COUNTS})\s+(?!{_NOT_GROUPS})(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}})"
)


def answer_costs(words: PriceWords, table: PriceTable, context: str = "") -> CostAnswer | None:
    """The answer to a plan, tokens, payback, energy, rental-in-another-currency or purchase question over
    ``table``'s facts (see the module doc), or None. ``context``: the text of the note answering, for a usage it
    states (:func:`~hwqa.prices.payback.rent_payback`)."""
    stated = answer_rate(words, None)  # a rate the question states: its own quantities, whatever the notes price
    if stated is not None:
        return stated
    text = words.text
    noted = answer_rate(words, table)
    if not table.facts:
        return noted
    renting = rent_payback(words, table, context)
    if renting is not None:
        return renting
    for ask in (_payback, answer_tokens, _energy):
        answer = ask(words, text, table)
        if answer is not None:
            return answer
    if noted is not None and noted.counted:  # "2 mig slices for 30 hours": the count a plan's sum would miss
        return noted
    for ask in (answer_sum, _plan, _foreign_rental, _purchase, _bought_for, _foreign_price):
        answer = ask(words, text, table)
        if answer is not None:
            return answer
    return noted


def saving_asked(words: PriceWords, table: PriceTable) -> CostAnswer | None:
    """What paying a plan one way saves over the other, or buying a thing used over new, when the notes price both
    (:mod:`hwqa.prices.plansaving`); None for any other question."""
    if not asks_saving(words.text):
        return None
    bought = [f for f in of_kind(table.facts, "purchase") if f.unit == "once"]
    many = _SAVED_N.search(words.text)
    used = used_saving(words.text, purchases_named(words, words.text, bought), count_word(many.group(1)) if many else None)
    if used is not None:
        return CostAnswer(used[0] + foreign_note(used[1][0].currency), used[1], saving=True)
    answer = _plan(words, words.text, table)
    return answer if answer is not None and answer.saving else None


_SAVED_N = re.compile(rf"(?<![\w.$])(\d{{1,3}}|{_COUNTS})\s+(?:[a-z]+\s+)?[a-z]+s\b")


def _payback(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    if not _PAYBACK.search(text):
        return None
    bought = [f for f in named_in(text, of_kind(table.facts, "purchase")) if f.unit == "once"]
    bills = [f for f in of_kind(table.facts, "plan", "rental") if f.unit in ("month", "year")]
    if not bought or not bills:
        return None
    asked = words_of(text) - GENERIC
    scored = [(fit_score(asked, f)[0], f) for f in bills]
    best = max(score for score, _ in scored)
    top = [f for score, f in scored if score == best]
    if best == 0 or len({f.amount for f in top}) != 1:
        return None
    bill, card = newest_of(top), newest_of(bought)
    if bill.currency != card.currency:
        return None
    monthly = bill.amount if bill.unit == "month" else bill.amount / 12
    months = card.amount / monthly
    per_month = f"{money_text(monthly, bill.currency)}/month"
    body = (
        f"The {card.subject} at the {money_text(card.amount, card.currency)} your notes record, against the "
        f"{bill.subject} of {per_month}: {money_text(card.amount, card.currency)} ÷ {per_month} = "
        f"**{months:,.1f} months** (about {months / 12:.1f} years) to pay for itself, before power and resale."
    )
    return CostAnswer(body, (card, bill))


def _energy(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    if nights_only(words):
        return None  # "overnight each month": how long a night is, the question does not say
    hours = words.hours
    if hours is None and re.search(r"\b(?:per|a|each|every)\s+year\b|\b(?:annual(?:ly)?|yearly)\b", text):
        hours = HOURS_PER["year"]
    if hours is None and (per := re.search(r"\b(monthly|daily|weekly)\b", text)) is not None:
        hours = HOURS_PER[{"monthly": "month", "daily": "day", "weekly": "week"}[per.group(1)]]
    if hours is None and "24/7" in text:  # round the clock, no period named: a month of it
        hours = HOURS_PER_MONTH
    explicit = _ENERGY.search(text) is not None
    if hours is None or not (explicit or _TO_RUN.search(text)):
        return None
    rates = [f for f in of_kind(table.facts, "electricity") if f.unit == "kwh"]
    if not rates:
        return None
    stated = _WATTS.search(text) or _KW.search(text)
    draws = of_kind(table.facts, "power")
    chosen: list[PriceFact] = []
    if stated:
        watts = float(stated.group(1)) * (1000 if stated.re is _KW else 1)
        draw = f"{watts:g} W (your figure)"
    else:
        chosen = named_in(text, draws) or best_fit(words_of(text) - {"power", "electricity", "energy"}, draws, where_counts=True)
        if not chosen and len({(f.subject.lower(), f.note) for f in draws}) == 1:
            chosen = draws  # the one thing the notes give a draw for
        if not chosen:
            return None
        first = chosen[0]
        chosen = [f for f in chosen if f.subject.lower() == first.subject.lower() and f.note == first.note]
        if not explicit and any(r.named(first.subject) for r in table.rows):
            return None  # "cost to run an A100 for 10 hours": renting it, which the calculator answers
        if not all(holds_name(first.evidence.lower(), m) for m in re.findall(r"[a-z0-9]+", text) if is_model(m)):
            return None  # "a month of an A100 running 24/7": never the draw of another thing the notes give one for
        asked_for = [label for label, pattern in _DRAW_ASKED if pattern.search(text)]
        fitting = ([f for f in chosen if label in f.detail] for label in asked_for)
        picked = next((found for found in fitting if found), [])
        power = picked[0] if picked else max(chosen, key=lambda f: f.amount)
        watts = power.amount
        draw = f"{watts:g} W (the {power.subject}'s draw{' ' + power.detail if power.detail else ''} in your notes)"
    same_note = [r for r in rates if chosen and r.note == chosen[0].note]
    rate = same_note[0] if same_note else newest_of(rates)
    per_kwh, how = tariff_rate(text, hours, same_note or [rate]) or (rate.amount, "")  # "off-peak", "24/7" on two rates
    devices = max((d.value for d in words.devices), default=1.0)
    used: list[PriceFact] = [rate, *chosen]

    def cost_of(w: float) -> tuple[float, float]:
        kwh = w * devices * hours / 1000
        return kwh, kwh * per_kwh

    kwh, cost = cost_of(watts)
    times, how = f" × {devices:g} devices" if devices > 1 else "", f" ({how})" if how else ""
    body = (
        f"Energy for {hours:,g} hours at {draw}{times}: {watts:g} W{times} × {hours:,g} h = {kwh:,.1f} kWh; "
        f"at {(price_text if how else money_text)(per_kwh, rate.currency)}/kWh{how} that is **{money_text(cost, rate.currency)}**"
        "."
    )
    if others := [f for f in chosen if f.amount != watts]:
        said = "; ".join(
            f"at {f.amount:g} W{' ' + f.detail if f.detail else ''}: {cost_of(f.amount)[0]:,.1f} kWh, "
            f"**{money_text(cost_of(f.amount)[1], rate.currency)}**"
            for f in others
        )
        body += f" Your notes give other draws too: {said}."
    listed = [money_text(r.amount, r.currency) + "/kWh" for r in (same_note or rates) if r is not rate and r.amount != per_kwh]
    body += f" Other electricity prices noted: {', '.join(listed)}." if listed and not how else ""
    return CostAnswer(body + foreign_note(rate.currency), tuple(used))


def _period(words: PriceWords, text: str) -> tuple[float, str] | None:
    """The months a question asks about, and how it said it; None when it names no period."""
    period = _PERIOD.search(text)
    if period:
        n = count_word(period.group("n"))
        yearly = period.group("unit").startswith("y")
        return (n * 12 if yearly else n), f"{n:g} {'year' if yearly else 'month'}{'s' if n != 1 else ''}"
    per = _PER_PERIOD.search(text)
    if per is not None:
        unit = per.group("unit") or ("month" if per.group("word") == "monthly" else "year")
        return (12.0, "a year") if unit == "year" else (1.0, "a month")
    if words.hours is not None:
        return words.hours / HOURS_PER_MONTH, f"{words.hours:,g} hours ({words.hours / HOURS_PER_MONTH:.2g} months)"
    return None


def _plan(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    plans = [f for f in of_kind(table.facts, "plan") if f.unit in ("month", "year")]
    plans += [f for f in of_kind(table.facts, "rental") if f.unit in ("month", "year")]  # "€184/month" for a server
    services = [f for f in of_kind(table.facts, "plan") if f.unit == "hour"]
    asked = words_of(text)
    if services and words.hours is not None:  # "3 hours of remote hands"
        best = best_fit(asked, services, where_counts=False)
        if best and len({f.amount for f in best}) == 1:
            service = newest_of(best)
            cost = words.hours * service.amount
            body = (
                f"{words.hours:,g} hours of {service.subject} at {money_text(service.amount, service.currency)}/hour: "
                f"{words.hours:,g} × {money_text(service.amount, service.currency)} = **{money_text(cost, service.currency)}**."
            )
            return CostAnswer(body + foreign_note(service.currency), (service,))
    if not plans or _ENERGY.search(text):  # "the power bill for 50 hours": energy, never a plan's bill
        return None
    named = bool(words.hardware) or bool(named_in(text, plans))
    top = best_fit(asked, plans, where_counts=not named)
    if not top and _PLAN.search(text) and len(plans) == 1:
        top = plans
    if not top:
        return None
    if seats_asked(text) and not any(f.detail == "per seat" for f in top):
        # "cvat team for our 4 labellers": of the plans it names, the ones priced per seat
        seated = [f for f in plans if f.detail == "per seat" and fit_score(asked, f)[0] > 0]
        top = best_fit(asked, seated, where_counts=not named) or top
    if all(fit_score(asked, f)[0] == 0 for f in top):  # only the note's or section's words fit ("the colo")
        others = [f for f in table.facts if f.kind not in ("plan", "electricity")]
        if not (_PLAN.search(text) or _ONE_OFF.search(text) or len(asked) <= 3) or best_fit(asked, others, where_counts=False):
            return None  # a question about something else ("the Proxmox host", which has a draw of its own)
    saving = asks_saving(text)  # "save paying yearly vs monthly": the billings are not the period, a year is
    period = (12.0, "a year") if saving and not _PERIOD.search(text) else _period(words, text)
    if period is None:
        return None
    months, said = period
    if not 0 < months <= 12 * 100:
        return None
    chosen = list({(f.subject.lower(), f.amount): f for f in sorted(top, key=lambda f: (f.note, f.line))}.values())
    if saving and (saved := plan_saving(text, chosen, plans, months, said)) is not None:
        return CostAnswer(saved[0] + foreign_note(saved[1][0].currency), saved[1], saving=True)
    if len({f.subject.lower() for f in chosen}) == 1:
        # "$14.99/mo or $149.99/yr": a year of it is either, unless the question says how it is paid
        billed = billed_as_paid(text, chosen)
        both = months % 12 == 0 and {f.unit for f in chosen} == {"month", "year"} and not billed
        chosen = sorted(chosen, key=lambda f: f.unit != "year")[:2] if both else [newest_of(billed or chosen)]
    fees = [f for f in of_kind(table.facts, "plan") if f.unit == "once"]
    lines: list[str] = []
    used: list[PriceFact] = []
    for plan in chosen[:_MAX_OPTIONS]:
        total = (per_month := plan.amount if plan.unit == "month" else plan.amount / 12) * months
        rate = f"{money_text(plan.amount, plan.currency)}/{plan.unit}"
        monthly = f"{months:g} × {money_text(per_month, plan.currency)}/month"
        sum_text = monthly if plan.unit == "month" else f"{months / 12:g} × {rate}"
        if plan.detail == "per seat":  # "$20/user/mo" for "the three of us": times the seats
            seats, whose = seats_for(text, plan.evidence)
            if seats is None:
                continue  # "for all the editors", counted in another sentence: the quote's sum, never one seat
            total *= seats
            rate += " per seat"
            sum_text += f" × {seats:g} seats ({whose} count)" if whose != "one" else " for one seat"
        setup = [f for f in fees if (f.note, f.section, f.currency) == (plan.note, plan.section, plan.currency)]
        setup.sort(key=lambda f: -overlap(asked, words_of(f.subject)))  # "incl setup": the fee called setup first
        shown = plan.provider if plan.provider and plan.provider != "not stated" else ""
        what = plan.subject if not shown or shown.lower() in plan.subject.lower() else f"{plan.subject} ({shown})"
        line = f"{said[0].upper()}{said[1:]} of {what} at {rate}: {sum_text}"
        used.append(plan)
        once = _ONE_OFF.search(text) is not None or asks_all_in(text)  # "incl setup", "3 months … in total"
        if setup and once:  # "the first year incl setup": the one-off charge is part of the sum
            fee = setup[0]
            total += fee.amount
            line += f" + {money_text(fee.amount, fee.currency)} {fee.subject}"
            used.append(fee)
        line += f" = **{money_text(total, plan.currency)}**."
        if setup and not once:  # said, never silently added or dropped
            fee = setup[0]
            with_fee = money_text(total + fee.amount, plan.currency)
            line += f" With the {money_text(fee.amount, fee.currency)} {fee.subject} once: {with_fee}."
            used.append(fee)
        lines.append(line + foreign_note(plan.currency))
    if not lines:
        return None
    if len(lines) == 1:
        return CostAnswer(lines[0], tuple(used))
    more = f" (and {len(chosen) - _MAX_OPTIONS} more)" if len(chosen) > _MAX_OPTIONS else ""
    head = f"Your notes price {len(lines)} options that fit{more}"
    if len({f.subject.lower() for f in chosen}) == 1:  # one plan, billed yearly or monthly
        head = f"Your notes price the {chosen[0].subject} by the year and by the month"
    body = f"{head}:\n\n" + "\n".join(f"- {line}" for line in lines)
    return CostAnswer(body, tuple(used))


def _foreign_rental(words: PriceWords, text: str, table: PriceTable, *, lookup: bool = False) -> CostAnswer | None:
    if words.hours is None and not lookup:
        return None
    rentals = [f for f in of_kind(table.facts, "rental") if f.unit in HOURS_PER]
    if not rentals or (words.hours is None and (not words.cost or words.states or _MORE.search(text) or _ANOTHER.search(text))):
        return None
    named = named_in(text, rentals)
    if not named:
        return None
    asked = words_of(text)
    by_place = [f for f in named if overlap(asked, words_of(f"{f.evidence} {f.provider} {f.section}") - words_of(f.subject))]
    asked_rows = any(r.named(h.word) for h in words.hardware for r in table.rows)  # "a V100": not the V100S in euros
    if not by_place and (asked_rows or any(r.named(named[0].subject) for r in table.rows)):
        return None  # the dollar rows for it are the calculator's
    pick = by_place or named
    if len({(f.amount, f.unit, f.currency) for f in pick}) != 1:
        return None
    rental = newest_of(pick)
    if words.hours is None:  # "how much is the L4 on Scaleway?": its price, as noted (asked last: see _foreign_price)
        where = f" ({rental.provider})" if rental.provider and rental.provider != "not stated" else ""
        body = f"**{rental.subject}**{where}: **{money_text(rental.amount, rental.currency)}/{rental.unit}**."
        return CostAnswer(body + foreign_note(rental.currency), (rental,))
    units = words.hours / HOURS_PER[rental.unit]
    cost = units * rental.amount
    said = f"{words.hours:,g} hours" if rental.unit == "hour" else f"{words.hours:,g} hours ({units:.3g} {rental.unit}s)"
    body = (
        f"{said} of the {rental.subject} at {money_text(rental.amount, rental.currency)}/{rental.unit}: "
        f"{units:,.4g} × {money_text(rental.amount, rental.currency)} = **{money_text(cost, rental.currency)}**."
    )
    return CostAnswer(body + foreign_note(rental.currency), (rental,))


_COUNTED = re.compile(rf"(?<![\w.$])(?P<n>\d{{1,3}}|{_COUNTS})\s*(?:x\s*)?(?P<what>[a-z]{{0,6}}-?\d{{1,4}}[a-z]{{0,3}}?)s?\b")


def _counted(text: str, bought: Sequence[PriceFact], table: PriceTable) -> float | None:
    """ "What would 3 P40s cost?": the count written before a thing the notes give a purchase price for and no
    hourly price (with one, the calculator prices renting that many)."""
    for m in _COUNTED.finditer(text):
        named = [f for f in bought if hardware_matches(m.group("what"), f.subject)]
        if named and not any(r.named(named[0].subject) for r in table.rows) and count_word(m.group("n")) > 1:
            return count_word(m.group("n"))
    return None


def _group_of(words: PriceWords, text: str, bought: Sequence[PriceFact]) -> tuple[float, str] | None:
    """ "a ups for 7 huts", "7 reolink maze cams": the count of a group the question gives one priced thing for
    each of, or of the priced thing itself; and the question without the count, to name the thing by. None when no
    count, or nothing the notes bought is named without it."""
    for pattern in (_FOR_EACH_OF, _N_THINGS):
        for m in pattern.finditer(text):
            n = count_word(m.group("n"))
            if not 1 < n <= _MAX_UNITS or MODEL_NUMBER.fullmatch(m.group("n")):
                continue  # "4090 rtx" is a card, never 4,090 of them
            if pattern is _FOR_EACH_OF:  # the thing is named by the rest of the question, never by the group
                rest = f"{text[: m.start()]} {text[m.end() :]}"
                if purchases_named(words, rest, bought):
                    return n, rest
            elif overlap(
                words_of(m.group("what")) - GENERIC,
                words_of(" ".join(f.subject for f in purchases_named(words, m.group("what"), bought))),
            ):
                return n, text[: m.start()] + " " + text[m.start("what") :]
    return None


def _foreign_price(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    """ "How much is the L4 on Scaleway?": a rental noted in another currency, when no other fact answers."""
    return _foreign_rental(words, text, table, lookup=True) if words.hours is None else None


def _spec_total(text: str, n: float, fact: PriceFact) -> str:
    """ "and how much memory is that in total": n × the memory the fact's subject (or its sentence) gives, in words."""
    if not _ASKS_MEMORY.search(text):
        return ""
    own = _GB.search(fact.subject) or _GB.search(fact.evidence)
    if own is None:
        return " Your notes give no memory for it."
    each = float(own.group(1))
    return f" Memory: {n:g} × {each:g} GB = **{n * each:,g} GB** in total."


def _purchase(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    bought = [f for f in of_kind(table.facts, "purchase") if f.unit == "once"]
    if not bought or not (words.cost or _SET_BACK.search(text)):
        return None  # "what psu did I put in the dual 4090 box?": a count, but no money asked
    more = _MORE.search(text) or _BUY_N.search(text) or _N_OF.search(text)
    another = None if more else _ANOTHER.search(text)  # "a third P40": one more
    counted = None if more or another or words.hours is not None else _counted(text, bought, table)
    plain = not (more or another or counted) and words.hours is None and words.budget_usd is None and not words.money
    group = _group_of(words, text, bought) if plain else None
    if group is not None:
        counted, text = group
    if (more is None and another is None and counted is None) or _RENTING.search(text) or words.hours is not None:
        return None  # buying against renting: the calculator's break-even; "a 20 hr job on one of the 3090 boxes": rent
    n = count_word(more.group("n")) if more else (counted or 1.0)
    if not 0 < n <= _MAX_UNITS:
        return None
    of_the = more is not None and more.re is _N_OF  # "4 of the X": X named as the notes price it, no shared word
    named = purchases_named(words, text, bought, loose=not of_the)
    if not named and _BOUGHT.search(text):  # "the card I bought": the one purchase the notes say was the owner's own
        mine = [f for f in bought if _MINE.search(f.evidence)]
        named = mine if len({f.subject.lower() for f in mine}) == 1 else []
    if not named:
        return None
    fact = newest_of(named)
    total = n * fact.amount
    extra = "" if counted or of_the else " more"
    body = (
        f"{n:g}{extra} {fact.subject} at the {money_text(fact.amount, fact.currency)} your notes record: "
        f"{n:g} × {money_text(fact.amount, fact.currency)} = **{money_text(total, fact.currency)}**."
    )
    return CostAnswer(body + _spec_total(text, n, fact) + foreign_note(fact.currency), (fact,))


def _bought_for(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    """ "How much did the P40 cost?", "what does a used V100 go for?": what the notes say it was bought for, when the
    question asks about buying it."""
    bought = [f for f in of_kind(table.facts, "purchase") if f.unit == "once"]
    asks = words.cost or re.search(r"\bpa(?:y|id)\b|\bgo(?:es)?\s+for\b|\bwent\s+for\b", text)
    if not bought or not asks or words.states or _RENTING.search(text) or _PERIOD.search(text):
        return None
    named = purchases_named(words, text, bought)
    if not named:
        return None
    if not _WAS_BOUGHT.search(text):
        return None  # "how much does an RTX 3090 cost?": its hourly prices, or what the passages say of it
    named = sorted(named, key=lambda f: (f.note, f.line))[:_MAX_OPTIONS]
    lines = []
    for f in named:
        detail = f" ({f.detail})" if f.detail else ""
        provider = f": {f.provider}" if f.provider and f.provider != "not stated" else ""
        lines.append(
            f"**{f.subject}**: **{money_text(f.amount, f.currency)}**{detail}, as bought or priced in "
            f"{f.note_title or f.note}{provider}.{foreign_note(f.currency)}"
        )
    body = lines[0] if len(lines) == 1 else "Your notes give these purchase prices:\n\n" + "\n".join(f"- {x}" for x in lines)
    return CostAnswer(body, tuple(named))
