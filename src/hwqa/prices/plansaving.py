"""What paying a plan yearly saves over paying it month to month, when the notes price the plan both ways.

A question asking what is saved, or how much cheaper one billing is ("roboflow starter - saving from paying
annually?", "what do we save going yearly", "how much cheaper is annual than paying monthly over a year") over a
plan whose line gives two prices — "$249/mo, or $2,388/yr", or two monthly ones "$33/mo, or $23/mo billed yearly"
— is the dearer billing's sum over the period less the cheaper one's: ``12 × $249.00/month = $2,988.00`` against
``$2,388.00/year``, a saving of **$600.00**. The period is the one the question asks ("over 2 yrs"), else a year.
A plan priced per seat is worked out for the seats the question or its line counts, else for one seat, said so.

Buying used: "how much did i save getting the orin nano secondhand" over "$249 new. Got a used one off eBay for 170
bucks" is the new price less the used one, times the count the question gives ("the 2 ebay jetsons").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .factmatch import money_text
from .plans import billed_as_asked
from .seats import seats_for
from .table import PriceFact

__all__ = ["asks_saving", "billed_as_paid", "plan_saving", "used_saving"]

_SAVING = re.compile(r"\bsav(?:e|ed|es|ing|ings)\b|\bcheaper\b|\bdifference\b|\bhow\s+much\s+(?:less|more)\b|\bby\s+how\s+much\b")
_SEATS = re.compile(r"\b(?:seats|users|licen[cs]es|logins)\b")
_ONE_SEAT = re.compile(r"\b(?:per|a|one|each)\s+(?:seat|user|person|head)\b")


def asks_saving(text: str) -> bool:
    """Whether a money question asks what is saved, or how much cheaper or dearer one choice is."""
    return _SAVING.search(text) is not None


def _monthly(fact: PriceFact) -> float:
    return fact.amount if fact.unit == "month" else fact.amount / 12


def plan_saving(
    text: str, chosen: Sequence[PriceFact], plans: Sequence[PriceFact], months: float, said: str
) -> tuple[str, tuple[PriceFact, ...]] | None:
    """The saving of the plan's cheaper billing over its dearer one across ``months`` (``said``: "a year",
    "2 years"), with the sums worked out; None unless the ``chosen`` facts are of one plan, which ``plans`` (all of
    them) price two ways in one currency."""
    subjects = {f.subject.lower() for f in chosen}
    billed = [f for f in plans if f.subject.lower() in subjects and f.unit in ("month", "year") and f.note == chosen[0].note]
    if len({f.subject.lower() for f in billed}) != 1 or len({f.currency for f in billed}) != 1:
        return None
    # "$65/mo billed yearly ($780/yr)": one billing written two ways
    ways = sorted({round(_monthly(f), 2): f for f in sorted(billed, key=lambda f: f.unit == "year")}.values(), key=_monthly)
    if len(ways) != 2 or _monthly(ways[0]) == _monthly(ways[1]):
        return None
    cheap, dear = ways
    seats, whose = 1.0, "one"
    if cheap.detail == "per seat" or dear.detail == "per seat":
        counted, whose = seats_for(text, cheap.evidence)
        if (counted is None or whose == "one") and not _ONE_SEAT.search(text) and _SEATS.search(text):
            return None  # "the labelling seats", counted in another sentence: never one seat
        seats = counted if counted is not None else 1.0

    def worked(fact: PriceFact) -> tuple[float, str]:
        rate = f"{money_text(fact.amount, fact.currency)}/{fact.unit}"
        n = months if fact.unit == "month" else months / 12
        total = n * fact.amount * seats
        per_seat = f" × {seats:g} seats" if seats != 1 else ""
        return total, f"{n:g} × {rate}{per_seat} = {money_text(total, fact.currency)}"

    (high, dear_said), (low, cheap_said) = worked(dear), worked(cheap)
    per_seat = "per seat" in (cheap.detail, dear.detail)
    seated = f" ({whose} count of seats)" if seats != 1 else " (for one seat)" if per_seat else ""
    body = (
        f"{said[0].upper()}{said[1:]} of {cheap.subject}{seated}: {dear_said} against {cheap_said}; "
        f"the cheaper billing saves **{money_text(high - low, cheap.currency)}**."
    )
    return body, (dear, cheap)


# How the question says a plan is paid: "paying month to month", "billed yearly", "on the annual plan".
_PAID = re.compile(
    r"\b(month[\s-]to[\s-]month|monthly|yearly|annual(?:ly)?)\b|\bpa(?:y|ying|id)\s+(?:by\s+the\s+)?(month|year)\b"
)
_BILLED = {"mont": "month", "year": "year", "annu": "year"}


def _billing(fact: PriceFact) -> str:
    """The clause of a plan's line that its price opens ("$9/seat/mo if you pay yearly"): how that price is billed."""
    at = fact.stated_at
    return "" if at is None else re.split(r"[;,]|\bor\b", fact.evidence[at[1] :].lower())[0]


def billed_as_paid(text: str, chosen: Sequence[PriceFact]) -> list[PriceFact]:
    """Of one plan's prices, those billed as the question says it pays ("paying month to month", "on the annual
    plan", "$12 per seat per month billed monthly, or $9/seat/mo if you pay yearly"); [] when it names no billing."""
    paid = _PAID.search(text)
    if paid is None:
        return []
    billed = [f for f in chosen if f.unit == _BILLED[(paid.group(1) or paid.group(2))[:4]]]
    if not billed and len(chosen) > 1:
        billed = [chosen[i] for i in billed_as_asked(text, [_billing(f) for f in chosen])]
    return billed


# A thing bought used ("got it secondhand", "off eBay", "refurb"), and one priced new ("$249 new", "list price")
_USED = re.compile(r"\b(?:used|second[\s-]?hand|pre[\s-]?owned|refurb\w*|ebay|marketplace|open[\s-]box)\b", re.I)


def used_saving(text: str, named: Sequence[PriceFact], count: float | None) -> tuple[str, tuple[PriceFact, ...]] | None:
    """What buying a thing used saved over buying it new ("how much did i save getting the orin nano secondhand"), when
    the purchases the question names (``named``) are one priced used and one priced new, in one currency: the new
    price less the used one, times ``count`` (the question's or the used line's, else one). None otherwise."""
    if not asks_saving(text) or not _USED.search(text):
        return None
    used = [f for f in named if _USED.search(f"{f.subject} {f.detail}") or _USED.search(_clause_of(f))]
    new = [f for f in named if f not in used]
    if len({f.amount for f in used}) != 1 or len({f.amount for f in new}) != 1:
        return None
    bought, listed = used[0], new[0]
    if bought.currency != listed.currency or listed.amount <= bought.amount:
        return None
    n = count or 1.0
    each = listed.amount - bought.amount
    times = f"{n:g} × " if n != 1 else ""
    said = (
        f"{times}({money_text(listed.amount, listed.currency)} new − {money_text(bought.amount, bought.currency)} used) "
        f"= **{money_text(n * each, listed.currency)}** saved ({listed.subject} against {bought.subject})."
    )
    return said, (listed, bought)


def _clause_of(fact: PriceFact) -> str:
    """The words of a fact's line around its amount as written: "Got a used one for $170" says it was bought used."""
    at = fact.stated_at
    return fact.evidence[max(0, at[0] - 40) : at[1] + 20] if at is not None else ""
