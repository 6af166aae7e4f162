"""The builtin answerer: the words of the retrieved passages that answer the question, cited.

It needs no language model. Each retrieved passage is cut into candidate spans (sentences with
their neighbours, list items with their lead-in, table rows with their header; see
:mod:`hwqa.spans`), and each span is scored on what the question asks (:mod:`hwqa.question`):

- the question's content words found in the span (weighted by how rare they are among the
  candidates), and less so in its context, heading and title;
- the things the question names exactly (model names, identifiers, versions): a span that names
  them outranks one that names a sibling ("RTX 3090" when the question asks about the "RTX 4090");
- the question's type: "how many / how much" wants a number (with the asked unit), "which
  version" a version, "which ... are" a list;
- how well the passage itself was retrieved.

Superlatives ("which GPU has the most memory?") are answered from table columns and from the
quantities the spans state; comparisons ("X vs Y") quote the best span for each side.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .answer import Answer, CitationList, ToolCall, compose_price_answer, make_citation, not_covered, similar
from .errors import PriceTableError, ToolArgumentError
from .keywords import fold, identifiers
from .llm import Tool
from .prices import render_price_result
from .prices.tool import PriceTool
from .question import Question, content_stems, parse_question, stem
from .retrieve import Hit
from .spans import Span, cell_text, clean_markdown, column_label, row_text, spans_of, unit_of

_NUMBER = re.compile(r"(?<![\w.])\$?\d[\d,]*(?:\.\d+)?(?:\s?(?:%|[a-zA-Z/]+))?")
_VERSIONISH = re.compile(r"\b(?:version|v?\d+\.\d+(?:\.\d+)?)\b", re.I)
_PRONOUN_START = re.compile(r"^(?:it|this|that|these|those|they|its|their|such|the latter|the former)\b", re.I)
_SOURCE_TRAILER = re.compile(r"\s+Source:\s[^.]{0,120}\.?$")  # a note's "Source: <link text>" after a fact
_SCALE = {"kw": 1000.0, "tb": 1000.0, "mb": 0.001}  # to the base unit of the family (W, GB)
_QUANTITY = re.compile(r"(?P<prefix>\$)?(?P<num>\d[\d,]*(?:\.\d+)?)\s?(?P<unit>[a-zA-Z%/]+)?")
# Column names that hold what a superlative asks about.
_ATTRIBUTE_COLUMNS: dict[str, tuple[str, ...]] = {
    "memory": ("memory", "memory_gb", "vram", "ram", "hbm"),
    "price": ("usd_per_hour", "price", "cost", "usd", "price_per_hour"),
    "expensive": ("usd_per_hour", "price", "cost"),
    "cheap": ("usd_per_hour", "price", "cost"),
    "speed": ("speed", "throughput", "tflops"),
    "power": ("power", "tdp", "watts", "power_w"),
    "year": ("year", "released", "release"),
}


@dataclass
class _Candidate:
    hit: Hit
    rank: int  # of the passage among the relevant hits
    span: Span
    score: float = 0.0


def _span_idents(text: str) -> set[str]:
    return set(identifiers(text))


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
        self, question: str, hits: Sequence[Hit], history: Sequence[Mapping[str, Any]], tools: Sequence[Tool] = ()
    ) -> Iterator[str | Answer]:
        """The answer from the passages; for a price question, the calculator's table first (see :mod:`hwqa.prices.tool`)."""
        yield self.answer(question, hits, history, tools)

    def answer(
        self, question: str, hits: Sequence[Hit], history: Sequence[Mapping[str, Any]] = (), tools: Sequence[Tool] = ()
    ) -> Answer:
        price = next((t for t in tools if isinstance(t, PriceTool)), None)
        from_notes = self.extract(question, hits, price)
        request = price.plan(question, history) if price is not None else None
        if price is None or request is None:
            return from_notes
        arguments = request.to_arguments()
        try:
            result = price.compute(request)
        except (ToolArgumentError, PriceTableError) as exc:
            call = ToolCall(price.name, arguments, {"error": str(exc)})
            text = f"The price calculator could not answer: {exc}\n\n{from_notes.text}"
            return Answer(text, from_notes.citations, [call], covered=from_notes.covered)
        call = ToolCall(price.name, arguments, result.to_json())
        return compose_price_answer(render_price_result(result), price.sources(result), call, from_notes, price.caveats())

    def extract(self, question: str, hits: Sequence[Hit], price: PriceTool | None = None) -> Answer:
        """The spans of ``hits`` that answer ``question``, cited; 'not covered' when nothing is close enough.

        A price superlative ("the cheapest GPU per hour") also reads every row of the price table.
        """
        relevant = [h for h in hits if h.score >= self.min_score]
        if not relevant:
            return not_covered(hits)
        q = parse_question(question)
        depth = len(relevant) if q.superlative else 5  # a superlative compares every candidate passage
        pool = [_Candidate(h, r, s) for r, h in enumerate(relevant[:depth]) for s in spans_of(h.chunk.text)]
        pool += _following(relevant[:depth])
        if price is not None and q.superlative and q.attribute == "price":
            pool += _price_rows(price, q, pool)
        if not pool:
            return _passages_only(relevant)
        _score(q, pool)
        chosen = _superlative(q, pool) or _comparison(q, pool) or self._best(q, pool)
        if not chosen:
            return _passages_only(relevant)
        return _compose(chosen)

    def _best(self, q: Question, pool: list[_Candidate]) -> list[tuple[_Candidate, str]]:
        ranked = sorted(pool, key=lambda c: (-c.score, c.rank, c.span.position))
        best = ranked[0]
        following = _introduced(best, pool)
        if following:  # a lead-in ("The SDK supports these versions:") answers through the list it introduces
            return _whole_list(following[0], pool)
        rows = _introduced_rows(best, pool)
        if rows:  # ... or through the table it introduces
            return [(best, _whole_table(best, rows))]
        if q.wants == "list" and best.span.kind == "item":
            return _whole_list(best, pool)
        chosen: list[tuple[_Candidate, str]] = []
        per_chunk: dict[int, int] = {}
        for cand in ranked:
            if len(chosen) == self.max_sentences or cand.score < best.score - 0.15:
                break
            if per_chunk.get(cand.hit.chunk.id, 0) >= 2 or any(similar(cand.span.text, t) for _, t in chosen):
                continue
            items = _introduced(cand, pool)
            if items:  # a lead-in quoted alone ("... supports these versions:") says nothing: quote its list
                chosen.extend(_whole_list(items[0], pool))
                break
            rows = _introduced_rows(cand, pool)
            if rows:
                chosen.append((cand, _whole_table(cand, rows)))
                break
            chosen.append((cand, _quote(cand, pool)))
            per_chunk[cand.hit.chunk.id] = per_chunk.get(cand.hit.chunk.id, 0) + 1
        return chosen


def _price_rows(price: PriceTool, q: Question, pool: Sequence[_Candidate]) -> list[_Candidate]:
    """Rows of the price table as candidates (on-demand ones unless the question asks for spot or preemptible)."""
    interruptible = bool({"spot", "preemptibl", "preemptible"} & set(q.stems))
    have = {(c.span.cells.get("hardware"), c.span.cells.get("provider")) for c in pool if c.span.kind == "row"}
    out: list[_Candidate] = []
    for row in price.table.rows:
        if (row.interruptible and not interruptible) or (row.hardware, row.provider) in have:
            continue
        section = price.section_at(row.note, row.line)
        if section is None:
            continue
        cells = {"hardware": row.hardware, "provider": row.provider, "type": row.type, "usd_per_hour": f"{row.usd_per_hour:g}"}
        cells["pricing"] = row.pricing
        span = Span(row_text(cells), "row", " ".join(cells), 10_000 + row.line, cells=cells)
        out.append(_Candidate(Hit(section, 1.0), len(pool), span, score=0.5))
    return out


def _following(hits: Sequence[Hit]) -> list[_Candidate]:
    """Spans of the chunks that follow the best hits (not retrieved themselves), ranked as their hit."""
    have = {h.chunk.id for h in hits}
    out: list[_Candidate] = []
    for rank, hit in enumerate(hits):
        nxt = hit.following
        if nxt is not None and nxt.id not in have:
            have.add(nxt.id)
            after = Hit(nxt, hit.score, hit.fused)
            out += [_Candidate(after, rank, s) for s in spans_of(nxt.text)]
    return out


def _score(q: Question, pool: list[_Candidate]) -> None:
    stems_of = [set(content_stems(c.span.text)) for c in pool]
    context_of = [set(content_stems(f"{c.span.context} {c.hit.chunk.heading} {c.hit.chunk.title}")) for c in pool]
    n = len(pool)
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
        lexical = sum(idf[w] * (1.0 if w in stems else weight if w in context else 0.0) for w in q.stems) / total
        score = 0.5 * lexical
        if terms:
            folded = fold(span.text)
            mine = _span_idents(span.text)
            found = sum(1 for t in terms if t in mine or t in folded)
            score += 0.35 * found / len(terms)
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


def _quote(cand: _Candidate, pool: Sequence[_Candidate]) -> str:
    """The span as quoted: a sentence that starts with 'It'/'This' keeps the sentence before it."""
    span = cand.span
    text = _SOURCE_TRAILER.sub("", span.text)
    if span.kind == "sentence" and _PRONOUN_START.match(span.text):
        before = [c for c in pool if c.hit is cand.hit and c.span.position == span.position - 1 and c.span.kind == "sentence"]
        if before:
            return f"{before[0].span.text} {text}"
    after = _next_sentences(cand, pool, 3)
    if after and after[0].span.label == span.text:  # a term line alone says nothing: quote its definition
        return f"{text}: " + " ".join(c.span.text for c in after[:1] + [c for c in after[1:] if not c.span.label])
    if span.label and span.label not in text:
        text = f"{span.label}: {text}"  # the term a definition is about ("csv.QUOTE_ALL: Instructs ...")
        # A definition is read whole: its next sentences in the paragraph, while it stays short.
        rest: list[str] = []
        for nxt in after:
            if nxt.span.label or len(" ".join([text, *rest, nxt.span.text]).split()) > 45:
                break
            rest.append(nxt.span.text)
        return " ".join([text, *rest])
    if span.kind == "sentence" and span.text.endswith("?"):
        # A question in the text (an FAQ, "Q: ... A: ...") is answered by what follows it.
        answer: list[str] = []  # the next sentences, until they say something ("A: Maybe not." is not enough)
        for pos in range(span.position + 1, span.position + 3):
            after = [c for c in pool if c.hit is cand.hit and c.span.position == pos and c.span.kind == "sentence"]
            if not after or len(" ".join(answer).split()) >= 8:
                break
            answer.append(after[0].span.text)
        if answer:
            return " ".join([text, *answer])
    if span.code:
        return f"{text} `{span.code}`"  # "Check that the cards are visible: `tsr devices`"
    if span.kind == "item" and span.lead and span.lead.endswith(":"):
        return f"{span.lead} {text}"
    return text


def _next_sentences(cand: _Candidate, pool: Sequence[_Candidate], n: int) -> list[_Candidate]:
    """Up to ``n`` sentences right after ``cand`` in its passage (stopping at anything else)."""
    out: list[_Candidate] = []
    for pos in range(cand.span.position + 1, cand.span.position + 1 + n):
        nxt = next((c for c in pool if c.hit is cand.hit and c.span.position == pos), None)
        if nxt is None or nxt.span.kind != "sentence":
            break
        out.append(nxt)
    return out


def _introduced_rows(cand: _Candidate, pool: Sequence[_Candidate]) -> list[_Candidate]:
    """The rows of the table right after a lead-in sentence ("... these compute capabilities:")."""
    span = cand.span
    if span.kind != "sentence" or not span.text.endswith(":") or span.code:
        return []
    rows: list[_Candidate] = []
    for pos in range(span.position + 1, span.position + 200):
        nxt = next((c for c in pool if c.hit is cand.hit and c.span.position == pos), None)
        if nxt is None or nxt.span.kind != "row":
            break
        rows.append(nxt)
    return rows


def _whole_table(lead: _Candidate, rows: Sequence[_Candidate], shown: int = 12) -> str:
    """A table answer: its lead-in and its rows, as one quote."""
    body = "; ".join(c.span.text for c in rows[:shown])
    more = f"; and {len(rows) - shown} more" if len(rows) > shown else ""
    return f"{lead.span.text} {body}{more}"


def _introduced(cand: _Candidate, pool: Sequence[_Candidate]) -> list[_Candidate]:
    """The list items a lead-in sentence ("... these versions:") introduces, if ``cand`` is one."""
    span = cand.span
    if span.kind != "sentence" or not span.text.endswith(":"):
        return []
    return [c for c in pool if c.hit is cand.hit and c.span.kind == "item" and c.span.lead == span.text]


def _continuation(last: _Candidate, pool: Sequence[_Candidate]) -> list[_Candidate]:
    """The items of a list cut at the end of its chunk, from the section's next chunk if it was retrieved."""
    chunk = last.hit.chunk
    if any(c.hit is last.hit and c.span.position > last.span.position for c in pool):
        return []  # the list ends inside its chunk
    nxt = [
        c
        for c in pool
        if c.hit.chunk.source == chunk.source
        and c.hit.chunk.heading == chunk.heading
        and c.hit.chunk.ordinal == chunk.ordinal + 1
    ]
    nxt.sort(key=lambda c: c.span.position)
    out = []
    for c in nxt:
        if c.span.kind != "item":
            break
        out.append(c)
    return out


def _whole_list(best: _Candidate, pool: Sequence[_Candidate]) -> list[tuple[_Candidate, str]]:
    """A list answer: its lead-in and its items, as one quote (continued from the next chunk if cut)."""
    items = [c for c in pool if c.hit is best.hit and c.span.kind == "item" and c.span.list_id == best.span.list_id]
    items.sort(key=lambda c: c.span.position)
    if items:
        seen = {c.span.text for c in items}
        items += [c for c in _continuation(items[-1], pool) if c.span.text not in seen]
    shown = items[:12]
    body = "; ".join(_SOURCE_TRAILER.sub("", c.span.text).rstrip(".;") for c in shown)
    if len(items) > len(shown):
        body += f"; and {len(items) - len(shown)} more"
    lead = best.span.lead.rstrip(":.").strip()
    text = f"{lead}: {body}" if lead else body
    return [(best, text)]


def _quantities(span: Span, units: Sequence[str]) -> list[float]:
    out = []
    for m in _QUANTITY.finditer(span.text):
        unit = (m.group("unit") or "").lower()
        dollars = bool(m.group("prefix"))
        if units and not (unit in units or (dollars and "$" in units)):
            continue
        try:
            value = float(m.group("num").replace(",", ""))
        except ValueError:
            continue
        out.append(value * _SCALE.get(unit, 1.0))
    return out


def _superlative(q: Question, pool: list[_Candidate]) -> list[tuple[_Candidate, str]] | None:
    """'Which GPU has the most memory?': the extreme row of a matching table column, or the extreme quantity."""
    if q.superlative is None:
        return None
    columns = _ATTRIBUTE_COLUMNS.get(stem(q.attribute or ""), (q.attribute or "",))
    rows = [c for c in pool if c.span.kind == "row"]
    scored: list[tuple[float, _Candidate, str]] = []
    for cand in rows:
        cells = cand.span.cells
        column = next((k for k in cells if _column_key(k) in columns or column_label(k) in columns), None)
        if column is None or not _row_matches_entity(q, cells):
            continue
        try:
            value = float(re.sub(r"[^\d.]", "", cells[column]) or "nan")
        except ValueError:
            continue
        if math.isnan(value):
            continue
        scored.append((value, cand, column))
    scored = _in_named_tables(q, scored)
    from_rows = [(v, c, _row_sentence(q, c, col)) for v, c, col in _dedupe_rows(scored)]
    if from_rows and not _comparable(q, [col for _, _, col in scored]):
        return _extremes(q, from_rows)
    stated = _stated(q, pool) if q.units else []
    if not from_rows and not stated:
        return None
    return _extremes(q, from_rows + stated)  # a table and the prose may both state the quantity: the extreme of all


def _column_key(column: str) -> str:
    """A header as a column name: 'Price per hour' -> 'price_per_hour'."""
    return re.sub(r"\W+", "_", column.strip().lower()).strip("_")


def _in_named_tables(q: Question, scored: list[tuple[float, _Candidate, str]]) -> list[tuple[float, _Candidate, str]]:
    """'The cheapest Tessera Cloud instance': only the rows of tables whose passage names what the question names."""
    names = [fold(n) for n in (*q.names, *(t.written for t in q.terms))]
    if not names:
        return scored

    def named(cand: _Candidate) -> bool:
        chunk = cand.hit.chunk
        where = _runs(f"{chunk.title} {chunk.heading} {chunk.text}")
        return all(n in where for n in names)

    kept = [s for s in scored if named(s[1])]
    return kept or scored


def _runs(text: str, longest: int = 4) -> set[str]:
    """Folded runs of up to ``longest`` consecutive words ("Tessera Cloud" -> "tesseracloud")."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {"".join(words[i : i + n]) for i in range(len(words)) for n in range(1, longest + 1) if i + n <= len(words)}


def _comparable(q: Question, columns: Sequence[str]) -> bool:
    """Whether a table's column holds the quantity in the question's unit, so prose figures compare with it.

    Prices stay with the table: a price table is the authority, and prose prices are of other things
    (electricity per kWh, a whole workstation).
    """
    if not q.units or "$" in q.units:
        return False
    return all((unit_of(col)[1].strip().lower() or "?") in q.units for col in columns)


def _stated(q: Question, pool: Sequence[_Candidate]) -> list[tuple[float, _Candidate, str]]:
    """The extreme quantity in the question's unit that each prose span states."""
    found = [
        (max(vals) if q.superlative == "max" else min(vals), c)
        for c in pool
        if c.span.kind != "row" and (vals := _quantities(c.span, q.units))
    ]
    found = [
        (v, c)
        for v, c in found
        if c.score > 0.15 and (not q.entity or q.entity in set(content_stems(c.span.text)) or _span_idents(c.span.text))
    ]
    return [(v, c, _quote(c, pool)) for v, c in found]


def _dedupe_rows(scored: list[tuple[float, _Candidate, str]]) -> list[tuple[float, _Candidate, str]]:
    seen: set[str] = set()
    out = []
    for value, cand, column in scored:
        key = cand.span.text
        if key not in seen:
            seen.add(key)
            out.append((value, cand, column))
    return out


def _row_matches_entity(q: Question, cells: dict[str, str]) -> bool:
    """A row is in scope if the question's kind word (GPU, TPU, ...) is in it or the question names none."""
    kinds = {"gpu", "tpu", "cpu"}
    asked = {s for s in q.stems if s in kinds}
    if not asked:
        return True
    values = " ".join(cells.values()).lower()
    return any(re.search(rf"\b{k}\b", values) for k in asked)


def _row_sentence(q: Question, cand: _Candidate, column: str) -> str:
    cells = cand.span.cells
    first_col, first = next(iter(cells.items()))
    others = [f"{column_label(k)} {cell_text(k, v)}" for k, v in cells.items() if k not in (first_col, column) and v.strip()]
    extra = f" ({', '.join(others[:3])})" if others else ""
    return f"{first}{extra} has {column_label(column)} {cell_text(column, cells[column])}"


def _extremes(q: Question, values: list[tuple[float, _Candidate, str]]) -> list[tuple[_Candidate, str]]:
    pick = max if q.superlative == "max" else min
    target = pick(v for v, _, _ in values)
    best = [(c, text) for v, c, text in values if v == target]
    best.sort(key=lambda ct: -ct[0].score)
    return best[:3]


def _comparison(q: Question, pool: list[_Candidate]) -> list[tuple[_Candidate, str]] | None:
    """'X vs Y': the best span naming each side."""
    terms = [t.folded for t in q.terms]
    if not q.comparison or len(terms) < 2:
        return None
    chosen: list[tuple[_Candidate, str]] = []
    for term in terms[:3]:
        # The span must name the term itself ("T3"), not a longer name that contains it ("T3X").
        naming = [c for c in pool if term in _span_idents(c.span.text)] or [c for c in pool if term in fold(c.span.text)]
        if not naming:
            return None
        best = max(naming, key=lambda c: c.score)
        if all(best is not c for c, _ in chosen):
            chosen.append((best, _quote(best, pool)))
    return chosen


def _compose(chosen: list[tuple[_Candidate, str]]) -> Answer:
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
