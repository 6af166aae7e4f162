"""A budget the notes name: "how many L4 hours does my MD money for the quarter get me?".

A question may ask what a budget buys without saying the amount, because the notes say it ("put aside $200 for
cloud MD this quarter", "my own cap for compute on this one: $250", "sponsor gave us $400"). When the question
names a budget (budget, cap, credits, money, grant, ...) and gives no amount, the first retrieved passage whose
sentence names a budget and states one amount in dollars that is no rate gives it; the calculator then works with
that amount, and the answer says where it came from. Nothing is guessed: several amounts in that sentence, or
none, leave the question as it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..prices.names import find_money
from .base import Hit

__all__ = ["NotedBudget", "noted_budget"]

_BUDGET = re.compile(
    r"\b(?:budget\w*|cap|credits?|grants?|allowance|funds?|funding|money|sponsor\w*|stipend|(?:set|put)\s+aside|"
    r"spending\s+limit)\b"
)
_ASKS_TIME = re.compile(r"\bhow\s+(?:many|long|much\s+time)\b|\bhours?\b.{0,60}\b(?:get|buy|last|cover)\b")
_RATE_AFTER = re.compile(r"\s?(?:/|per\b|an?\s+(?:hour|hr|month|mo|year|yr|day|week)\b|each\b|ea\b|monthly\b|hourly\b)")
_SENTENCE = re.compile(r"[^.\n;]+(?:\.(?=\d)[^.\n;]*)*")


@dataclass(frozen=True)
class NotedBudget:
    amount: float
    sentence: str  # as the note writes it
    where: str  # the note (or page) and its heading


def noted_budget(text: str, budget_stated: bool, hits: Sequence[Hit], depth: int = 3) -> NotedBudget | None:
    """The amount of the budget ``text`` (the question, lower case) names without stating it, from the first of
    ``hits[:depth]`` that states one (see the module doc); None when the question states an amount, asks no
    time, names no budget, or no passage states one amount of it."""
    if budget_stated or not _BUDGET.search(text) or not _ASKS_TIME.search(text):
        return None
    for hit in hits[:depth]:
        for m in _SENTENCE.finditer(hit.chunk.text):
            sentence = m.group(0).strip(" *-\t")
            if not _BUDGET.search(sentence.lower()):
                continue
            amounts = [
                money  # written in dollars (the calculator's currency), with no unit of time or amount after it
                for money in find_money(sentence)
                if money.stated.startswith("$")
                and money.unit is None
                and money.qualifier is None
                and money.amount > 0
                and not _RATE_AFTER.match(sentence, money.end)
            ]
            if len(amounts) != 1:
                continue
            value = amounts[0].amount
            where = " › ".join(p for p in (hit.chunk.title, hit.chunk.heading) if p)
            return NotedBudget(value, sentence, where or hit.chunk.source)
    return None
