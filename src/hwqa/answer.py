"""Answers as data, and the builtin answerer that needs no LLM.

An :class:`Answer` holds the text, the numbered citations the text refers to as ``[n]``, the tool
calls made on the way, the backend and timings. The CLI and the web chat only render it.
The builtin answerer composes a short answer from the retrieved passages' most relevant
sentences, each tagged with its citation; when nothing retrieved is close enough it says so and
lists the closest notes instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .chunk import iter_sentences
from .embed import Embedder
from .index import StoredChunk
from .retrieve import Hit

_STOP = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "by", "can", "could", "do", "does", "did", "for", "from", "had",
        "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "should",
        "so", "than", "that", "the", "their", "them", "then", "there", "these", "this", "to", "was", "we", "were",
        "what", "when", "where", "which", "who", "why", "will", "with", "would", "you", "your", "vs", "versus", "about",
        "much", "many", "per", "any", "some", "get",
    }
)
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_EMPHASIS = re.compile(r"(\*\*|__|\*|`)")


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
class ToolCall:
    name: str
    arguments: dict[str, Any]
    result: Any

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "result": self.result}


@dataclass
class Answer:
    text: str
    citations: list[Citation] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    backend: str = "builtin"
    covered: bool = True
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "answer": self.text,
            "citations": [c.to_json() for c in self.citations],
            "tool_calls": [t.to_json() for t in self.tool_calls],
            "backend": self.backend,
            "covered": self.covered,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


def clean_markdown(text: str) -> str:
    """Plain sentence text: links become their text, emphasis and list markers go."""
    for _ in range(8):  # nested links and images ([![a](x.png)](url)) unwrap one level per pass
        unwrapped = _MD_LINK.sub(lambda m: m.group(1), text)
        if unwrapped == text:
            break
        text = unwrapped
    text = _AUTOLINK.sub(lambda m: m.group(1), text)
    text = _EMPHASIS.sub("", text)
    text = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", text)
    return re.sub(r"\s+", " ", text).strip()


def terms(text: str) -> set[str]:
    """Content words, lightly stemmed (plural 's' dropped), for lexical overlap."""
    out = set()
    for tok in _TOKEN.findall(text.lower()):
        if tok in _STOP:
            continue
        if len(tok) > 3 and tok.endswith("s") and not tok.endswith("ss"):
            tok = tok[:-1]
        out.add(tok)
    return out


def _table_sentences(text: str) -> list[str]:
    """Turn Markdown table rows into 'column: value; ...' sentences using the chunk's header row."""
    rows = [line.strip() for line in text.splitlines() if line.strip().startswith("|")]
    if len(rows) < 3 or not re.fullmatch(r"\|?[\s:|-]+\|?", rows[1]):
        return []
    header = [h.strip() for h in rows[0].strip("|").split("|")]
    out = []
    for row in rows[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) == len(header):
            out.append("; ".join(f"{h}: {clean_markdown(c)}" for h, c in zip(header, cells, strict=True) if c))
    return out


def candidate_sentences(chunk: StoredChunk) -> list[str]:
    sentences = []
    prose = "\n".join(line for line in chunk.text.splitlines() if not line.strip().startswith("|"))
    for raw in iter_sentences(prose):
        sentence = clean_markdown(raw)
        if len(sentence.split()) >= 4:
            sentences.append(sentence)
    return sentences + _table_sentences(chunk.text)


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


def not_covered(hits: Sequence[Hit], limit: int = 3) -> Answer:
    """Say plainly that the notes do not cover the question, and list the closest notes."""
    seen: dict[str, Hit] = {}
    for hit in hits:
        seen.setdefault(hit.chunk.source, hit)
        if len(seen) == limit:
            break
    citations = [make_citation(i + 1, h) for i, h in enumerate(seen.values())]
    if not citations:
        return Answer("My notes don't cover that, and the index is empty.", covered=False)
    closest = "; ".join(f"{c.label()} [{c.n}]" for c in citations)
    return Answer(f"My notes don't cover that question. The closest notes are: {closest}.", citations, covered=False)


class BuiltinAnswerer:
    """Extractive answers: the most relevant sentences of the retrieved passages, cited."""

    name = "builtin"

    def __init__(self, embedder: Embedder, *, min_score: float, max_sentences: int) -> None:
        self.embedder = embedder
        self.min_score = min_score
        self.max_sentences = max_sentences

    def answer(self, question: str, hits: Sequence[Hit]) -> Answer:
        relevant = [h for h in hits if h.score >= self.min_score]
        if not relevant:
            return not_covered(hits)
        q_terms = terms(question)
        pool: list[tuple[Hit, str]] = [(h, s) for h in relevant[:5] for s in candidate_sentences(h.chunk)]
        if not pool:
            return self._passages_only(relevant)
        vectors = self.embedder.embed([question] + [s for _, s in pool])
        sims = vectors[1:] @ vectors[0]
        scored = []
        for (hit, sentence), sim in zip(pool, sims, strict=True):
            lexical = len(q_terms & terms(sentence)) / len(q_terms) if q_terms else 0.0
            scored.append((0.55 * float(sim) + 0.30 * lexical + 0.15 * hit.score, hit, sentence))
        scored.sort(key=lambda t: t[0], reverse=True)
        chosen: list[tuple[Hit, str]] = []
        per_chunk: dict[int, int] = {}
        best = scored[0][0]
        for score, hit, sentence in scored:
            if len(chosen) == self.max_sentences or score < max(0.25, best - 0.25):
                break
            if per_chunk.get(hit.chunk.id, 0) >= 2 or any(_similar(sentence, s) for _, s in chosen):
                continue
            chosen.append((hit, sentence))
            per_chunk[hit.chunk.id] = per_chunk.get(hit.chunk.id, 0) + 1
        if not chosen:
            return self._passages_only(relevant)
        numbers: dict[tuple[str, str], int] = {}  # one number per section, even when split in chunks
        citations: list[Citation] = []
        parts = []
        for hit, sentence in chosen:
            where = (hit.chunk.source, hit.chunk.heading)
            if where not in numbers:
                numbers[where] = len(citations) + 1
                citations.append(make_citation(numbers[where], hit))
            elif hit.chunk.text not in citations[numbers[where] - 1].text:
                citations[numbers[where] - 1].text += "\n" + hit.chunk.text
            end = "" if sentence.endswith((".", "!", "?")) else "."
            parts.append(f"{sentence}{end} [{numbers[where]}]")
        return Answer(" ".join(parts), citations)

    def _passages_only(self, hits: Sequence[Hit]) -> Answer:
        citations = [make_citation(i + 1, h) for i, h in enumerate(hits[:3])]
        listing = "; ".join(f"{c.label()} [{c.n}]" for c in citations)
        return Answer(f"These passages of my notes are the most relevant: {listing}.", citations)


def _similar(a: str, b: str) -> bool:
    ta, tb = terms(a), terms(b)
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


def stream_text(text: str) -> list[str]:
    """Growing prefixes of ``text`` word by word, for chat UIs that stream."""
    words = text.split(" ")
    return [" ".join(words[: i + 1]) for i in range(0, len(words), 3)] + [text]


_MARKER = re.compile(r"\[(\d+)\]")


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
) -> Answer:
    """Calculator table and recommendation, cited to the price notes, then what the notes say."""
    cites = CitationList()
    marks = "".join(f"[{cites.add(c)}]" for c in price_sources)
    parts = [f"{calculation.rstrip()}\n\nPrices from your price table {marks}.".replace(" .", ".")]
    if from_notes.covered and from_notes.citations:
        parts.append(f"**From your notes:** {cites.adopt(from_notes)}")
    caveat_text = cites.adopt(caveats) if caveats.covered and caveats.citations else ""
    if caveat_text and not any(_similar(caveat_text, p) for p in parts):
        parts.append(f"**Caveats:** {caveat_text}")
    return Answer("\n\n".join(parts), cites.citations, [tool_call])
