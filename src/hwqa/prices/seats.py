"""Plans priced per seat or user ("$20/user/mo", "$149.99/yr per user"), and how many seats a question asks for.

The question's own count comes first: "for 3 people", "the three of us", "both of us", "me and ines", "for all 12
players"; one when it asks the price of one ("per person", "per seat", "each"). Else the seats its line notes ("2 seats",
"x2"), for "the whole team", "everyone", "at the current seat count" and for a question that names no count at all;
for "all the editors" with no count on the line, none (the passages' sums may have it); else one seat, said so.
"""

from __future__ import annotations

import re

from .counts import PAIR
from .names import Money
from .words import COUNT_WORDS, WORD_NUMBERS

__all__ = ["per_seat", "seats_for"]

_SEAT_AFTER = re.compile(r"\s*(?:/\s*|\bper\s+|\ba\s+)(?:seat|user|person|head|member)\b", re.I)


def per_seat(item: Money, sentence: str = "") -> bool:
    """Whether ``item`` is a plan's price for each seat or user ("$20/user/mo", "$149.99/yr per user")."""
    if item.unit not in ("month", "year"):
        return False
    per = (item.qualifier or "").lower().split()[:1]  # "seat per" in "$33 per seat per month": the seat
    return (bool(per) and per[0].rstrip("s") in ("seat", "user")) or _SEAT_AFTER.match(sentence, item.end) is not None


_WHO = (
    r"(?:seats?|users?|people|ppl|persons?|members?|devs?|developers?|engineers?|players?|students?|staff|employees?|"
    r"editors?|lawyers?|teachers?|volunteers?|translators?|of\s+us|of\s+them)"
)
_COUNTED = re.compile(rf"(?<![\w.$/])(?P<n>\d{{1,4}}|{COUNT_WORDS})\s+(?:[a-z]+\s+)?{_WHO}\b")
_ONE = re.compile(r"\b(?:per|a|each|every)\s+(?:person|head|seat|user|member|dev|player|student)\b|\beach\b")
_NOTED = re.compile(rf"{_COUNTED.pattern}|(?<![\w.])x\s?(?P<x>\d{{1,3}})\b")  # "2 seats", or "x2" after the price


def _count(m: re.Match[str]) -> float:
    n = next(g for g in m.groups() if g)
    return float(n) if n.isdigit() else float(WORD_NUMBERS[n])


# People counted by what they do ("our 4 labellers", "3 annotators", "6 analysts"): a count of seats for a plan priced
# per seat, though no list of such words can hold them all
_DOERS = re.compile(rf"(?<![\w.$/])(?P<n>\d{{1,4}}|{COUNT_WORDS})\s+(?:[a-z]+\s+)?[a-z]{{3,}}(?:ers|ors|ists|ants|ees|ians)\b")


def seats_asked(text: str) -> bool:
    """Whether a question counts people ("for the 3 of us", "our 4 labellers"): a plan priced per seat is asked."""
    return bool(_COUNTED.search(text) or _DOERS.search(text) or PAIR.search(text))


def seats_for(text: str, line: str) -> tuple[float | None, str]:
    """The seats a question (``text``) asks for of a plan priced per seat on ``line``: (count, where it is from); None
    when the question leaves the count to the notes ("all the editors") and the line gives none."""
    asked = _COUNTED.search(text) or _DOERS.search(text)
    if asked is not None:
        return _count(asked), "your question's"
    if PAIR.search(text):
        return 2.0, "your question's"
    if _ONE.search(text):
        return 1.0, "one"
    noted = _NOTED.search(line.lower())
    if noted is not None and 1 <= _count(noted) <= 10_000:
        return _count(noted), "your notes'"
    if _LEFT.search(text):
        return None, ""  # "for all the editors": a count its line does not give, which the passages may
    return 1.0, "one"


_LEFT = re.compile(r"\b(?:all\s+(?:the|our|my|of\s+the)|every(?:one|body)?|whole|entire|current\s+seat)\b")
