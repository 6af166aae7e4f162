"""A plan's price as a money question asks for it (see :mod:`hwqa.prices.rates`):

- the billing it names: "if we go annual", "on the annual plan" picks the rate a note gives for yearly billing
  ("$30/seat/mo billed monthly, or $24/seat/mo if we pay yearly"), "month to month" the monthly one;
- the seats it counts: "for all the editors", "for the teaching parents" over the note's "4 editors", "the 6
  parents who teach", "for the whole team" over its only head count ("Team is 14 devs"), for a price per seat or user;
- a price per a thing the note says how long one of takes ("per genome" over "one 30x genome is ~1h 15m");
- how many runs a period holds when the question says how often ("retrain every quarter … what's that a year": 4).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .counts import PEOPLE
from .factmatch import words_of

__all__ = ["billed_as_asked", "per_thing_noted", "runs_in_period", "seats_noted"]

_YEARLY = re.compile(r"\b(?:annual(?:ly)?|yearly|per\s+year|a\s+year\s+up\s*front|upfront)\b")
_MONTHLY = re.compile(r"\b(?:monthly|month[\s-]to[\s-]month)\b")
# A question naming a billing: "go annual", "on the annual plan", "billed yearly", "pay monthly"; never "for a year"
_ASKS_YEARLY = re.compile(r"\b(?:annual(?:ly)?|yearly)\b")
_ASKS_MONTHLY = re.compile(r"\b(?:monthly|month[\s-]to[\s-]month)\b")


def billed_as_asked(text: str, clauses: Sequence[str]) -> list[int]:
    """The indexes of the rates (by their ``clauses``) billed as the question asks ("if we go annual": the clause
    that says yearly), all of them when it names no billing or when no clause names one."""
    everyone = list(range(len(clauses)))
    if len(clauses) < 2:
        return everyone
    for asks, says in ((_ASKS_YEARLY, _YEARLY), (_ASKS_MONTHLY, _MONTHLY)):
        if asks.search(text):
            chosen = [i for i, clause in enumerate(clauses) if says.search(clause)]
            return chosen or everyone
    return everyone


def seats_noted(text: str, said: str, noted: Mapping[str, float]) -> tuple[float, str] | None:
    """How many seats of a plan priced per seat or user the question means, from the note's counts (``noted``, by
    noun): the one the question names ("all the editors" and "4 editors"), else the only one of the line ``said``
    ("… $24/seat/mo if we pay yearly. 4 editors.")."""
    asked = words_of(text)
    named = [(n, noun) for noun, n in noted.items() if words_of(noun) & asked or any(a.startswith(noun[:4]) for a in asked)]
    if len(named) == 1:
        return named[0]
    line = words_of(said)
    own = [(n, noun) for noun, n in noted.items() if words_of(noun) & line]
    if len(own) == 1 and not named:
        return own[0]
    people = [(n, noun) for noun, n in noted.items() if noun in PEOPLE]  # "the whole team" over "Team is 14 devs."
    return people[0] if _GROUP.search(text) and len(people) == 1 and not named else None


_GROUP = re.compile(r"\b(?:team|office|staff|everyone|everybody|company|lab|all\s+of\s+us)\b")


_PER_THING = re.compile(r"\bper\s+(?P<u>[a-z]{3,})\b")
_NOT_THINGS = frozenset({"gpu", "card", "node", "seat", "user", "person"})


def per_thing_noted(text: str, said: str, time_words: Mapping[str, str]) -> bool:
    """Whether the question asks a price per a thing the note's sentence says how long one of takes ("per genome" over
    "one 30x genome is ~1h 15m on it"): that length is the one the rate is for."""
    m = _PER_THING.search(text)
    if m is None or m.group("u") in time_words or m.group("u") in _NOT_THINGS:
        return False
    return re.search(rf"\b{re.escape(m.group('u')[:4])}", said.lower()) is not None


# How often something runs: "every quarter", "nightly", "twice a month", "3 times a week"
_EVERY = re.compile(r"\bevery\s+(?P<u>day|night|week|month|quarter|year)\b|\b(?P<adv>daily|nightly|weekly|monthly|quarterly)\b")
_TIMES = re.compile(r"\b(?P<n>once|twice|\d{1,2}\s*(?:x|times))\s+(?:a|per|each)\s+(?P<u>day|week|month|year)\b")
_IN_PERIOD = re.compile(r"\b(?:a|per|each|one|the)\s+(?P<u>month|year|quarter)\b|\b(?P<adv>yearly|annually)\b")
_PER_YEAR = {"day": 365.0, "night": 365.0, "week": 52.0, "month": 12.0, "quarter": 4.0, "year": 1.0}
_ADVERB = {"daily": "day", "nightly": "night", "weekly": "week", "monthly": "month", "quarterly": "quarter", "yearly": "year",
           "annually": "year"}  # fmt: skip


def runs_in_period(text: str) -> tuple[float, str] | None:
    """How many runs the period a question asks for holds, when it says how often they happen: "retrain every quarter …
    what's that a year" is 4 runs, "twice a month … per year" 24; None when it says no frequency or no other period."""
    often = _EVERY.search(text)
    times = _TIMES.search(text)
    if often is not None:
        per_run, each = 1.0, often.group("u") or _ADVERB[often.group("adv")]
    elif times is not None:
        n = times.group("n")
        per_run, each = (1.0 if n == "once" else 2.0 if n == "twice" else float(re.sub(r"\D", "", n))), times.group("u")
    else:
        return None
    rest = text[: (often or times).start()] + text[(often or times).end() :]  # type: ignore[union-attr]
    period = _IN_PERIOD.search(rest)
    if period is None:
        return None
    unit = period.group("u") or _ADVERB[period.group("adv")]
    days = each in ("day", "night") and unit == "month"  # a month is 30 days of use (hwqa.prices.units)
    runs = per_run * (30.0 if days else _PER_YEAR[each] / _PER_YEAR[unit])
    if runs < 1 or runs != round(runs, 2):
        return None  # "weekly … a month": not a whole count of runs
    return runs, f"{runs:g} runs"
