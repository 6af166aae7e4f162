"""A count the notes give and a money question leaves to them: "ups for every hut", "the other lifts".

A question may ask the cost of something for every one of a group without saying how many there are, because the
notes say it ("7 huts, one per lift", "18 cams total", "a fleet of 14 trucks"): "ups for every hut, total",
"a sim on all the trucks for a year", "reolink cam for each of the lifts". It may ask for the rest of a group: "the
other lifts (we have the one used one already)", "the remaining boxes" where the notes write "already have 2". The
question is then asked again with the count written in ("ups for 7 huts, total"; "the other lifts" less the ones had:
"6 lifts"), and the answer says which line gave the count.

The count is read from the retrieved passages, best-ranked first: a number written before the noun the question
uses, singular or plural ("7 huts", "14 trucks in the fleet", "18 cams total"), never a count of one per something
("2 cams each", "2 per side") nor a count of times. When no passage counts the noun plainly, a count with one word
between ("the nine busiest stations", "Three Transit vans") is read, never a unit ("2 TB drives"). Two different
counts of the noun in one passage leave the question as it was: which is meant is not said. "The whole fleet of
vans", "the entire team" ask for every one as "every" does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..prices.allin import asks_all_in
from ..prices.quoted import asks_sum
from ..prices.solve import asks_product
from ..prices.words import COUNT_WORDS, WORD_NUMBERS
from .answer import Answer
from .base import Hit
from .question import Question

__all__ = ["NotedCount", "counted_again", "noted_count"]

_NUMBER = rf"(?:\d{{1,3}}(?:,\d{{3}})+|\d{{1,5}}|{COUNT_WORDS})"
# "every hut", "all the reolinks", "each of our trucks", "for all huts"; "the other lifts", "the remaining boxes",
# "the rest of the trucks", "trucks not in the pilot" is not read (what "in the pilot" counts is not a number)
_EVERY = re.compile(
    r"\b(?P<q>every|each\s+of\s+(?:the|my|our)|all\s+(?:of\s+)?(?:the|my|our)|all|the\s+(?:whole|entire))\s+"
    r"(?:(?P<adj>[a-z][a-z'-]*)\s+)?(?P<noun>[a-z][a-z-]*)\b"
)
_UNITS = r"(?:mp|w|watts?|v|volts?|gb|tb|mb|k|hz|fps|mm|cm|m|inch|in|ft|kg|lbs?|hrs?|hours?|mins?|days?|weeks?|months?|years?)"
_REST = re.compile(r"\bthe\s+(?P<q>other|remaining|rest\s+of\s+the)\s+(?:(?P<adj>[a-z][a-z'-]*)\s+)?(?P<noun>[a-z][a-z-]*)\b")
# What a question has of the group already: "we have the one used one already", "got 2 of them"
_HAVE = re.compile(rf"\b(?:have|had|got|own|bought)\s+(?:the\s+)?(?P<n>{_NUMBER})\b")
_HAVE_NOTED = re.compile(
    rf"\balready\s+(?:have|got|own|bought)\s+(?P<n>{_NUMBER})\b|\b(?:have|got)\s+(?P<m>{_NUMBER})\s+already\b"
)
# Words after "every" or "all" that are no group the notes count
_NOT_GROUPS = frozenset(
    "one ones thing things time times day days week weeks month months year years hour hours night nights minute "
    "minutes season seasons morning evening weekend weekends in together told up that this these those it them of "
    "my our the in-one from to at on for with by into over under during after before till until".split()
)
_MOST = 1_000_000
_SENTENCE = re.compile(r"[^.\n;]+(?:\.(?=\d)[^.\n;]*)*")


@dataclass(frozen=True)
class NotedCount:
    """A question asked again with the count the notes give written in."""

    text: str  # the question, the count written in
    count: int
    said: str  # one sentence for the answer: the count, and the line of the notes that gives it


def _number(token: str) -> int:
    token = token.replace(",", "")
    return int(token) if token.isdigit() else WORD_NUMBERS[token]


def _stem(word: str) -> str:
    word = word.lower()
    for end, to in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("sses", "ss"), ("s", "")):
        if word.endswith(end) and len(word) > len(end) + 2 and not word.endswith("ss"):
            return word[: -len(end)] + to
    return word


def _counted(noun: str, adj: str | None, hits: Sequence[Hit], depth: int, *, loose: bool = False) -> tuple[int, str, str] | None:
    """How many of ``noun`` the first passage counting it says there are: (count, its sentence, where). A count of
    a kind of it ("4 slope cams") counts only when the question writes the same word (``adj``), or (``loose``, when
    no passage counts it plainly) when it is the only count of the noun in its passage ("Three Transit vans")."""
    stem = _stem(noun)
    kind = rf"{re.escape(adj)}\s+" if adj else rf"(?!{_UNITS}\s)[a-z][\w'-]*\s+" if loose else ""
    pattern = re.compile(
        rf"(?<![\w.,$/-])(?<!first\s)(?<!last\s)(?<!more\s)(?<!extra\s)(?P<n>{_NUMBER})\s+{kind}(?P<noun>[a-z][\w-]*)\b(?!\s+(?:each|per|apiece)\b|\s*/)",
        re.I,
    )
    for hit in hits[:depth]:
        found: dict[int, str] = {}
        for sentence in _SENTENCE.finditer(hit.chunk.text):
            line = sentence.group(0)
            for m in pattern.finditer(line.lower()):
                n = _number(m.group("n"))
                if _stem(m.group("noun")) == stem and 1 < n < _MOST:
                    found.setdefault(n, line.strip(" *-\t"))
        if len(found) > 1:
            return None  # "14 trucks" and "9 trucks" in one passage: which is meant is not said
        if found:
            n, line = next(iter(found.items()))
            where = " › ".join(p for p in (hit.chunk.title, hit.chunk.heading) if p) or hit.chunk.source
            return n, line, where
    return None


def _had(text: str, hits: Sequence[Hit], depth: int) -> int | None:
    """How many of the group the question, or else the passages, say are had already."""
    m = _HAVE.search(text)
    if m is not None:
        return _number(m.group("n"))
    for hit in hits[:depth]:
        m = _HAVE_NOTED.search(hit.chunk.text.lower())
        if m is not None:
            return _number(m.group("n") or m.group("m"))
    return None


def noted_count(text: str, hits: Sequence[Hit], depth: int = 5) -> NotedCount | None:
    """The question ``text`` asked again with the count of the group it asks about every one (or the
    rest) of, from the first of ``hits[:depth]`` that counts it (see the module doc); None when the question writes
    no such group, or no passage counts it."""
    lower = text.lower() if len(text.lower()) == len(text) else text
    for m in (*_EVERY.finditer(lower), *_REST.finditer(lower)):
        if m.group("adj") and re.fullmatch(_NUMBER, m.group("adj")):
            continue  # "the other three troughs": the question counts them itself
        for noun, adj, end in ((m.group("noun"), m.group("adj"), m.end()), (m.group("adj"), None, m.end("adj"))):
            if not noun or noun in _NOT_GROUPS or re.fullmatch(_NUMBER, noun):
                continue
            counted = (
                _counted(noun, adj, hits, depth)
                or (_counted(noun, None, hits, depth) if adj else None)
                or _counted(noun, None, hits, depth, loose=True)
            )
            if counted is None:
                continue
            n, line, where = counted
            said = f"the {n} {noun if noun.endswith('s') else noun + 's'} your notes give ({where}: “{line}”)"
            if m.re is _REST:
                had = _had(lower[: m.start()] + lower[end:], hits, depth)
                if had is None and m.group("q") == "other":
                    had = 1  # "the other lifts": all but the one the question is about
                if had is None or not 0 < had < n:
                    return None
                said = f"{said}, less the {had} you have"
                n -= had
            group = " ".join(w for w in (adj, noun) if w and w not in _NOT_GROUPS)
            plural = group if group.endswith("s") else f"{group}s"
            asked = f"{text[: m.start()]}{n} {plural}{text[end:]}"
            return NotedCount(asked, n, f"Counting {n:,} {plural}: {said}.")
    return None


def counted_again(question: Question, hits: Sequence[Hit], answer: Answer, ask: Callable[[str], Answer]) -> Answer:
    """``answer``, or the question asked again (``ask``) with the count the notes give of the group it asks about
    every one of, when ``answer``'s worked sum does not multiply by that count and the new one's does; the new answer
    says where the count came from."""
    text = question.price.text
    if not (asks_sum(text) or asks_product(text) or asks_all_in(text)):
        return answer
    counted = noted_count(question.text, hits)
    if counted is None or _uses(answer.text, counted.count):
        return answer
    again = ask(counted.text)
    return replace(again, text=f"{counted.said}\n\n{again.text}") if _uses(again.text, counted.count) else answer


def _uses(text: str, n: int) -> bool:
    """Whether an answer's worked sum (its first paragraph, a product shown "× … = **…**") multiplies by ``n``."""
    lead = text.split("\n\n", 1)[0]
    count = rf"(?<![\d.,$])(?<!÷\s){n:,}"  # "7 ×", "18 cams ×", "× 7": never "÷ 7 huts"
    return "×" in lead and "**" in lead and re.search(rf"{count}(?:\s+[a-z][\w-]*)?\s*×|×\s*{n:,}(?![\d.,])", lead) is not None
