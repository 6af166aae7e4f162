"""Answers as data, and the builtin answerer that needs no LLM.

An :class:`Answer` holds the text, the numbered citations the text refers to as ``[n]``, the tool
calls made on the way, the backend and timings. The CLI and the web chat only render it.
The builtin answerer (:mod:`hwqa.answer.builtin`) and the LLM answerer (:mod:`hwqa.answer.chat.llm`) both produce
it; :func:`not_covered` is the answer when the notes do not hold what was asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from .base import Hit, Tool, ToolCall
from .question import Question, content_stems

_MARKER = re.compile(r"\[(\d+)\]")
_QUOTE = re.compile(r"(.+?)\s\[(\d+)\](?=\s|$)", re.S)  # one quote of an extractive answer and its marker


@dataclass
class Citation:
    """One numbered source the answer text refers to as ``[n]``."""

    n: int
    title: str
    source: str
    url: str | None
    heading: str
    text: str
    score: float
    kind: str = "note"
    linked_from: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["score"] = round(self.score, 4)
        return data

    def label(self) -> str:
        """'Title › heading' for people."""
        return f"{self.title} › {self.heading}" if self.heading else self.title


@dataclass
class Claim:
    """One sentence of a chat model's answer, checked against what it cites (see :mod:`hwqa.answer.chat.claims`).

    ``verdict`` is ``supported`` (its numbers, names and most key words are in a cited passage or
    the calculator's result), ``unsupported`` (shown marked, its citations dropped) or ``none``
    (nothing to check: "Yes.", a heading). ``evidence`` says which source holds what;
    ``shown`` is false when the model's answer was replaced by the notes' own words.
    """

    sentence: str
    verdict: str
    reason: str
    citations: list[int] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    shown: bool = True

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Answer:
    text: str
    citations: list[Citation] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    backend: str = "builtin"
    covered: bool = True
    timings: dict[str, float] = field(default_factory=dict)
    claims: list[Claim] = field(default_factory=list)  # a chat model's sentences with their verdicts
    fallback: str | None = None  # why the chat model's answer is not shown (the notes' own words are)

    def to_json(self) -> dict[str, Any]:
        return {
            "answer": self.text,
            "citations": [c.to_json() for c in self.citations],
            "tool_calls": [t.to_json() for t in self.tool_calls],
            "backend": self.backend,
            "covered": self.covered,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "claims": [c.to_json() for c in self.claims],
            "fallback": self.fallback,
        }


class Answerer(Protocol):
    """What the engine needs of an answer backend (the builtin one, or a chat model).

    ``stream`` yields growing answer text (optional) and ends with the final :class:`Answer`, whose
    text refers to its citations as ``[n]``. ``question`` is the question as the engine parsed it
    once (:func:`hwqa.answer.question.parse_question`); ``hits`` are the retrieved passages, best first;
    ``history`` earlier turns as OpenAI-style messages; ``tools`` what the backend may call.
    """

    name: str

    def stream(
        self, question: Question, hits: Sequence[Hit], history: Sequence[Mapping[str, Any]], tools: Sequence[Tool]
    ) -> Iterator[str | Answer]: ...


def make_citation(n: int, hit: Hit) -> Citation:
    c = hit.chunk
    return Citation(
        n=n,
        title=c.title,
        source=c.source,
        url=c.url,
        heading=c.heading,
        text=c.text,
        score=hit.score,
        kind=c.kind,
        linked_from=list(c.meta.get("linked_from", [])),
    )


def not_covered(
    hits: Sequence[Hit],
    limit: int = 3,
    missing: Sequence[str] = (),
    also: str = "",
    unheard: Sequence[str] = (),
    covering: Sequence[str] = (),
) -> Answer:
    """Say plainly that the notes do not cover the question (naming what they never mention), and list the
    closest notes; ``also`` is said before them (what the notes do price, for a price question). ``missing``
    are names the decision weighed; ``unheard`` other words of the question no passage holds, said as a fact,
    not as the reason; ``covering`` the names the notes write in a missing name's place ("they cover the
    Raspberry Shake")."""
    seen: dict[str, Hit] = {}
    for hit in hits:
        seen.setdefault(hit.chunk.source, hit)
        if len(seen) == limit:
            break
    citations = [make_citation(i + 1, h) for i, h in enumerate(seen.values())]
    if not citations:
        return Answer("My notes don't cover that, and the index is empty.", covered=False)
    closest = "; ".join(f"{c.label()} [{c.n}]" for c in citations)
    if missing:
        named = quote_names(missing, "or")
        instead = f" They cover {quote_names(covering, 'and')}." if covering else ""
        return Answer(
            f"My notes don't mention {named}, so they don't cover that question.{instead} {also + ' ' if also else ''}"
            f"The closest notes are: {closest}.",
            citations,
            covered=False,
        )
    if unheard:
        words = quote_names(unheard, "or")
        return Answer(
            f"My notes don't cover that question; they never use the word{'s' if len(unheard) > 1 else ''} {words}. "
            f"The closest notes are: {closest}.",
            citations,
            covered=False,
        )
    return Answer(f"My notes don't cover that question. The closest notes are: {closest}.", citations, covered=False)


def quote_names(names: Sequence[str], last: str) -> str:
    """“A”, “B” or “C”: names for a sentence, joined by ``last`` before the final one."""
    quoted = [f"“{n}”" for n in names]
    return ", ".join(quoted[:-1]) + (f" {last} " if len(quoted) > 1 else "") + quoted[-1]


def with_caveat(answer: Answer, missing: Sequence[str]) -> Answer:
    """An answer from passages that never name ``missing``, said so before it: the reader weighs it."""
    if not missing or not answer.covered:
        return answer
    head = f"Your notes don't mention {quote_names(missing, 'or')} by name; this is what they say that comes closest:"
    return replace(answer, text=f"{head} {answer.text}")


def similar(a: str, b: str) -> bool:
    """Whether two texts say mostly the same words (Jaccard of content stems above 0.6)."""
    ta, tb = set(content_stems(a)), set(content_stems(b))
    return bool(ta and tb) and len(ta & tb) / len(ta | tb) > 0.6


def render_sources(answer: Answer) -> str:
    """The numbered sources under an answer, as Markdown lines."""
    lines = []
    for c in answer.citations:
        where = c.url or c.source
        origin = ""
        if c.kind == "article" and c.linked_from:
            origin = f" (article linked from {', '.join(c.linked_from[:3])})"
        link = f"[{where}]({c.url})" if c.url else f"`{where}`"
        lines.append(f"[{c.n}] {c.label()}{origin} — {link}")
    return "\n".join(lines)


def final_answer(items: Iterable[str | Answer]) -> Answer:
    """The `Answer` a stream ends with (its text pieces are dropped): what `answer()` returns."""
    final: Answer | None = None
    for item in items:
        if isinstance(item, Answer):
            final = item
    assert final is not None
    return final


def stream_text(text: str) -> list[str]:
    """Growing prefixes of ``text`` word by word, for chat UIs that stream."""
    words = text.split(" ")
    return [" ".join(words[: i + 1]) for i in range(0, len(words), 3)] + [text]


class CitationList:
    """Numbers citations across the parts of one answer: one number per (source, section)."""

    def __init__(self) -> None:
        self.citations: list[Citation] = []
        self._numbers: dict[tuple[str, str], int] = {}

    def add(self, citation: Citation) -> int:
        where = (citation.source, citation.heading)
        if where not in self._numbers:
            self._numbers[where] = len(self.citations) + 1
            self.citations.append(Citation(**{**asdict(citation), "n": self._numbers[where]}))
        return self._numbers[where]

    def adopt(self, answer: Answer) -> str:
        """``answer.text`` with its markers renumbered into this list (its citations added)."""
        mapping = {c.n: self.add(c) for c in answer.citations}
        return _MARKER.sub(lambda m: f"[{mapping.get(int(m.group(1)), int(m.group(1)))}]", answer.text)


def compose_price_answer(
    calculation: str,
    price_sources: Sequence[Citation],
    tool_call: ToolCall,
    from_notes: Answer,
    caveats: Answer,
    prices_from: str = "your price table",
    preface: str = "",
) -> Answer:
    """Calculator table and recommendation, cited to where the prices are (``prices_from``: your price
    table, or your notes when they were read from text), then what the notes say and their caveats.
    ``preface`` comes first: what the notes hold no price for, when the question named such hardware."""
    cites = CitationList()
    marks = "".join(f"[{cites.add(c)}]" for c in price_sources)
    parts = [preface] if preface else []
    parts.append(f"{calculation.rstrip()}\n\nPrices from {prices_from} {marks}.".replace(" .", "."))
    if from_notes.covered and from_notes.citations:
        parts.append(f"**From your notes:** {cites.adopt(from_notes)}")
    if caveats.covered and caveats.citations:
        # Each cited quote of the caveats once: not one "From your notes" already gave.
        quotes = [(m.group(1).strip(), m.group(2)) for m in _QUOTE.finditer(caveats.text)]
        fresh = [f"{text} [{n}]" for text, n in quotes if not any(text in p or similar(text, p) for p in parts)]
        if fresh:
            kept = {int(n) for piece in fresh for n in _MARKER.findall(piece)}
            own = Answer(" ".join(fresh), [c for c in caveats.citations if c.n in kept])
            parts.append(f"**Caveats:** {cites.adopt(own)}")
    return Answer("\n\n".join(parts), cites.citations, [tool_call])


def compose_price_gap(said: str, from_notes: Answer) -> Answer:
    """A price question the notes hold no price for: ``said`` (what is missing, what they do price),
    then what the notes say. Not covered: the price asked for is not in the notes."""
    cites = CitationList()
    parts = [said]
    if from_notes.covered and from_notes.citations:
        parts.append(f"**From your notes:** {cites.adopt(from_notes)}")
    return Answer("\n\n".join(parts), cites.citations, covered=False)
