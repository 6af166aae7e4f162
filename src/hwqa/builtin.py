"""The builtin answerer: the words of the retrieved passages that answer the question, cited.

It needs no language model. Each retrieved passage is cut into candidate spans (sentences with
their neighbours, list items with their lead-in, table rows with their header; see
:mod:`hwqa.spans`), and each span is scored on what the question asks (:mod:`hwqa.question`):

- the question's content words found in the span (weighted by how rare they are among the
  candidates), and less so in its context, heading and title;
- the things the question names exactly (model names, identifiers, versions): a span that names
  them outranks one that names a sibling ("RTX 3090" when the question asks about the "RTX 4090"),
  and a name in the span's heading, title or definition term counts nearly as much as in the span;
- the question's type: "how many / how much" wants a number (with the asked unit), "which
  version" a version, "which ... are" a list;
- how well the passage itself was retrieved.

Superlatives ("which GPU has the most memory?") are answered by :mod:`hwqa.superlatives`;
comparisons ("X vs Y") quote the best span for each side; how a chosen span is quoted so that it
reads alone is :mod:`hwqa.quotes`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .answer import Answer, CitationList, compose_price_answer, compose_price_gap, make_citation, not_covered, similar
from .base import Hit, Tool, ToolCall
from .errors import PriceTableError, ToolArgumentError
from .keywords import fold
from .prices.render import render_no_prices, render_price_result, render_unpriced
from .prices.tool import PriceTool, computable
from .question import Question, content_stems
from .quotes import Candidate, introduced, introduced_rows, quote, span_idents, whole_list, whole_table
from .spans import clean_markdown, spans_of
from .superlatives import price_rows, superlative

#: Words that judge or advise ("TPUs are best when ...", "we recommend CPUs", "needs XLA-compatible code").
_ADVICE = re.compile(
    r"\b(?:recommend\w*|best|better|worse|prefer\w*|choose|choice|should|avoid\w*|versatil\w*|suited|suitable|ideal|"
    r"worth|unless|only if|needs?|require[sd]?|must|careful|caveat\w*|limit(?:s|ed|ation\w*)|drawbacks?|downsides?)\b",
    re.I,
)
_MONEY = re.compile(r"[$€£]\s?\d|\d\s?(?:usd|dollars?)\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])\$?\d[\d,]*(?:\.\d+)?(?:\s?(?:%|[a-zA-Z/]+))?")
_VERSIONISH = re.compile(r"\b(?:version|v?\d+\.\d+(?:\.\d+)?)\b", re.I)


def _family(ident: str) -> str:
    """'rtx4090' -> 'rtx', 'a100' -> 'a', 'tpuv5e' -> 'tpuv': the letters before the first digit."""
    m = re.match(r"[a-z]*", ident)
    return m.group(0) if m else ""


class BuiltinAnswerer:
    """Extractive answers: the spans of the retrieved passages that answer the question, cited."""

    name = "builtin"

    def __init__(self, *, min_score: float, max_sentences: int) -> None:
        self.min_score = min_score
        self.max_sentences = max_sentences

    def stream(
        self, question: Question, hits: Sequence[Hit], history: Sequence[Mapping[str, Any]], tools: Sequence[Tool] = ()
    ) -> Iterator[str | Answer]:
        """The answer from the passages; for a price question, the calculator's table first (see :mod:`hwqa.prices.tool`)."""
        yield self.answer(question, hits, history, tools)

    def answer(
        self, question: Question, hits: Sequence[Hit], history: Sequence[Mapping[str, Any]] = (), tools: Sequence[Tool] = ()
    ) -> Answer:
        price = next((t for t in tools if isinstance(t, PriceTool)), None)
        from_notes = self.extract(question, hits, price)
        asked = price.ask(question, history) if price is not None else None
        if price is None or asked is None:
            return from_notes
        # What the notes hold no price for is said first, never dropped: no prices at all, or none for the hardware named.
        if not price.table.rows:
            return compose_price_gap(render_no_prices(asked.request, asked.unpriced), from_notes)
        preface = render_unpriced(asked.unpriced, price.table) if asked.unpriced else ""
        if not computable(asked.request):
            # Only hardware without an hourly price was asked about: what the notes say of it comes first.
            if from_notes.covered:
                return Answer(f"{from_notes.text}\n\n{preface}", from_notes.citations, covered=True)
            return compose_price_gap(preface, from_notes)
        request = asked.request
        arguments = request.to_arguments()
        try:
            result = price.compute(request)
        except (ToolArgumentError, PriceTableError) as exc:
            call = ToolCall(price.name, arguments, {"error": str(exc)})
            text = "\n\n".join(p for p in (preface, f"The price calculator could not answer: {exc}", from_notes.text) if p)
            return Answer(text, from_notes.citations, [call], covered=from_notes.covered)
        call = ToolCall(price.name, arguments, result.to_json())
        explicit = any(o.row.origin == "price table" for o in result.options) or not result.options
        carried = price.reused(question, history, request)
        answer = compose_price_answer(
            render_price_result(result),
            price.sources(result),
            call,
            from_notes,
            price.caveats(),
            "your price table" if explicit else "your notes",
            preface,
        )
        if carried:  # a follow-up says what it took from the question before
            answer.text = f"Using {carried} from your earlier question.\n\n{answer.text}"
        return answer

    def advice(self, hits: Sequence[Hit], names: Sequence[str], limit: int = 2) -> Answer:
        """What the passages advise about the hardware compared: the first ``limit`` sentences or items
        (by retrieval rank) that name one of ``names`` and judge it ("best when", "recommend", "needs"),
        without a price in them (the prices are the calculator's). Not covered when none does."""
        if not names:
            return Answer("", covered=False)
        named = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in names) + r")s?(?![\w-])", re.I)
        chosen: list[tuple[Candidate, str]] = []
        for rank, hit in enumerate(hits):
            for span in spans_of(hit.chunk.text):
                text = clean_markdown(span.text)
                if span.kind == "sentence" and text.startswith("#"):
                    continue
                judged = _ADVICE.search(text) and named.search(text) and not _MONEY.search(text)
                if judged and not any(similar(text, t) for _, t in chosen):
                    chosen.append((Candidate(hit, rank, span), text))
            if len(chosen) >= limit:
                break
        return _compose(chosen[:limit]) if chosen else Answer("", covered=False)

    def extract(self, q: Question, hits: Sequence[Hit], price: PriceTool | None = None) -> Answer:
        """The spans of ``hits`` that answer ``q``, cited; 'not covered' when nothing is close enough.

        A price superlative ("the cheapest GPU per hour") also reads every row of the price table.
        """
        named = {t.folded for t in q.terms}
        # A passage that holds a name the question asks about ("-OO") covers it, however its wording scores.
        relevant = [h for h in hits if h.score >= self.min_score or (named and named & span_idents(h.chunk.text))]
        if not relevant:
            return not_covered(hits)
        depth = len(relevant) if q.superlative else 5  # a superlative compares every candidate passage
        pool = [Candidate(h, r, s) for r, h in enumerate(relevant[:depth]) for s in spans_of(h.chunk.text)]
        pool += _following(relevant[:depth])
        if price is not None and q.superlative and q.attribute == "price":
            pool += price_rows(price, q, pool)
        if not pool:
            return _passages_only(relevant)
        _score(q, pool)
        chosen = superlative(q, pool) or _comparison(q, pool) or self._best(q, pool)
        if not chosen:
            return _passages_only(relevant)
        if not q.terms and not any(_overlaps(q, c) for c, _ in chosen):
            return not_covered(hits)  # nothing quoted says a word of the question: the passages only sound related
        return _compose(chosen)

    def _best(self, q: Question, pool: list[Candidate]) -> list[tuple[Candidate, str]]:
        ranked = sorted(pool, key=lambda c: (-c.score, c.rank, c.span.position))
        best = ranked[0]
        following = introduced(best, pool)
        if following:  # a lead-in ("The SDK supports these versions:") answers through the list it introduces
            return whole_list(following[0], pool)
        rows = introduced_rows(best, pool)
        if rows:  # ... or through the table it introduces
            return [(best, whole_table(best, rows))]
        if q.wants == "list" and best.span.kind == "item":
            return whole_list(best, pool)
        chosen: list[tuple[Candidate, str]] = []
        per_chunk: dict[int, int] = {}
        for cand in ranked:
            if len(chosen) == self.max_sentences or cand.score < best.score - 0.15:
                break
            if per_chunk.get(cand.hit.chunk.id, 0) >= 2 or any(similar(cand.span.text, t) for _, t in chosen):
                continue
            items = introduced(cand, pool)
            if items:  # a lead-in quoted alone ("... supports these versions:") says nothing: quote its list
                chosen.extend(whole_list(items[0], pool))
                break
            rows = introduced_rows(cand, pool)
            if rows:
                chosen.append((cand, whole_table(cand, rows)))
                break
            text = quote(cand, pool)
            if any(cand.span.text in t for _, t in chosen):
                continue  # already part of a longer quote (a definition read on)
            chosen = [(c, t) for c, t in chosen if c.span.text not in text]  # ... or now part of this one
            chosen.append((cand, text))
            per_chunk[cand.hit.chunk.id] = per_chunk.get(cand.hit.chunk.id, 0) + 1
        return chosen


def _overlaps(q: Question, cand: Candidate) -> bool:
    """Whether a quoted span, its context, heading or title holds any content word of the question."""
    words = set(content_stems(f"{cand.span.text} {cand.span.context} {cand.hit.chunk.heading} {cand.hit.chunk.title}"))
    return bool(words & set(q.stems))


def _following(hits: Sequence[Hit]) -> list[Candidate]:
    """Spans of the chunks the best hits hand over (their section's next chunk, the rest of a table
    they hold rows of) that were not retrieved themselves, ranked as their hit."""
    have = {h.chunk.id for h in hits}
    out: list[Candidate] = []
    for rank, hit in enumerate(hits):
        for nxt in [*([hit.following] if hit.following is not None else []), *hit.table]:
            if nxt.id not in have:
                have.add(nxt.id)
                after = Hit(nxt, hit.score, hit.fused)
                out += [Candidate(after, rank, s) for s in spans_of(nxt.text)]
    return out


def _score(q: Question, pool: list[Candidate]) -> None:
    stems_of = [set(content_stems(c.span.text)) for c in pool]
    context_of = [set(content_stems(f"{c.span.context} {c.hit.chunk.heading} {c.hit.chunk.title}")) for c in pool]
    n = len(pool)
    # The words of a name the question asks about ("Tessera SDK 3.2") count as fully in the span's
    # heading or title as in the span: the section is about it.
    named = set(content_stems(" ".join(f"{t.written} {' '.join(t.qualifiers)}" for t in q.terms)))
    idf = {w: math.log(1 + n / (1 + sum(1 for s in stems_of if w in s))) for w in q.stems}
    total = sum(idf.values()) or 1.0
    terms = [t.folded for t in q.terms]
    families = {_family(t) for t in terms if _family(t)}
    unit_re = _unit_pattern(q.units)
    for cand, stems, context in zip(pool, stems_of, context_of, strict=True):
        span = cand.span
        # A list answers "what are the types of X" through its lead-in and heading, not its items' words.
        # A row's header names what its cells are ("chips", "price"): it counts like the row's own words.
        weight = 1.0 if (q.wants == "list" and span.kind == "item") or span.kind == "row" else 0.35
        lexical = (
            sum(idf[w] * (1.0 if w in stems else (1.0 if w in named else weight) if w in context else 0.0) for w in q.stems)
            / total
        )
        score = 0.5 * lexical
        if terms:
            folded = fold(span.text)
            mine = span_idents(span.text)
            found = sum(1 for t in terms if t in mine or t in folded)
            # ... and the name itself nearly so in its section: its heading, its title, its neighbours, or
            # the term line of the definition it belongs to.
            around = fold(f"{span.context} {span.subject} {cand.hit.chunk.heading} {cand.hit.chunk.title}")
            near = sum(1 for t in terms if not (t in mine or t in folded) and t in around)
            score += 0.35 * (found + 0.85 * near) / len(terms)
            siblings = {i for i in mine if _family(i) in families and i not in terms}
            if siblings and not found:
                score -= 0.25
        if q.keys and span.kind == "row" and clean_markdown(next(iter(span.cells.values()), "")) in q.keys:
            score += 0.35  # the row keyed by the code the question names ("format character H")
        has_number = bool(_NUMBER.search(span.text))
        if q.wants == "number":
            score += 0.08 if has_number else -0.05
            if unit_re is not None and unit_re.search(span.text):
                score += 0.12
        elif q.wants == "version":
            score += 0.12 if _VERSIONISH.search(span.text) else -0.05
        elif q.wants == "list" and span.kind == "item":
            score += 0.08
        if q.entity and q.entity in stems:
            score += 0.04
        words = len(span.text.split())
        if words < 4 and span.kind == "sentence":
            score -= 0.2
        elif words > 70:
            score -= 0.08
        score += 0.15 * cand.hit.score + 0.06 / (1 + cand.rank)
        cand.score = score


def _unit_pattern(units: Sequence[str]) -> re.Pattern[str] | None:
    if not units:
        return None
    alternatives = "|".join(re.escape(u) for u in units if u != "$")
    parts = []
    if alternatives:
        parts.append(rf"\d\s?(?:{alternatives})\b")
    if "$" in units:
        parts.append(r"\$\s?\d")
    return re.compile("|".join(parts), re.I)


def _comparison(q: Question, pool: list[Candidate]) -> list[tuple[Candidate, str]] | None:
    """'X vs Y': the best span naming each side."""
    terms = [t.folded for t in q.terms]
    if not q.comparison or len(terms) < 2:
        return None
    chosen: list[tuple[Candidate, str]] = []
    for term in terms[:3]:
        # The span must name the term itself ("T3"), not a longer name that contains it ("T3X").
        naming = [c for c in pool if term in span_idents(c.span.text)] or [c for c in pool if term in fold(c.span.text)]
        if not naming:
            return None
        best = max(naming, key=lambda c: c.score)
        if all(best is not c for c, _ in chosen):
            chosen.append((best, quote(best, pool)))
    return chosen


def _compose(chosen: list[tuple[Candidate, str]]) -> Answer:
    cites = CitationList()  # one number per section, even when it is split in chunks
    parts = []
    for cand, text in chosen:
        n = cites.add(make_citation(0, cand.hit))
        citation = cites.citations[n - 1]
        if cand.hit.chunk.text not in citation.text:
            citation.text += "\n" + cand.hit.chunk.text
        end = "" if text.endswith((".", "!", "?")) else "."
        parts.append(f"{text}{end} [{n}]")
    return Answer(" ".join(parts), cites.citations)


def _passages_only(hits: Sequence[Hit]) -> Answer:
    citations = [make_citation(i + 1, h) for i, h in enumerate(hits[:3])]
    listing = "; ".join(f"{c.label()} [{c.n}]" for c in citations)
    return Answer(f"These passages of my notes are the most relevant: {listing}.", citations)
