"""How a chosen span is quoted: what it needs to be read alone.

A candidate is a span of a retrieved passage (see :mod:`hwqa.notes.spans`) with its score. Quoted, a
sentence that starts with "It" keeps the sentence before it; a definition's opening sentence its
term line and the rest of its short paragraph; a term line alone its definition; a lead-in ending
in ":" its list (continued from the section's next chunk), its table or its command or prototype (also
before the sentence after it); a question
in the notes ("Q: ...") its answer; a sentence of a short list item the whole item.

A quote never leaves its entry (a term and its definition, see :mod:`hwqa.notes.spans`): the sentences
read on, the sentence before a pronoun and an FAQ's answer all come from the span's own entry, and
a sentence of an entry is shown with the entry's term and, while the quote stays short, after the
entry's first sentence (what the term is).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..notes.keywords import identifiers
from ..notes.spans import Span, is_term
from .base import Hit

_PRONOUN_START = re.compile(r"^\(?(?:it|this|that|these|those|they|its|their|such|the latter|the former)\b", re.I)
DEFINITION_WORDS = 45  # a definition is quoted on while it stays this short (ablation in eval/fit-report.md)
FAQ_ANSWER_WORDS = 8  # a question in the notes is quoted with what follows, until this many words (idem)
_ANGLED = re.compile(r"<([^<>\s][^<>]*)>")
_SOURCE_TRAILER = re.compile(r"\s+Source:\s[^.]{0,120}\.?$")  # a note's "Source: <link text>" after a fact


@dataclass
class Candidate:
    """A span of a retrieved passage that may be quoted, with its score for the question."""

    hit: Hit
    rank: int  # of the passage among the relevant hits
    span: Span
    score: float = 0.0  # the scorer's confidence that it answers (hwqa.answer.scorer)
    sim: float = 0.0  # the question's cosine with the span (its passage's, if the index holds no span vectors)


def span_idents(text: str) -> set[str]:
    return set(identifiers(text))


def quote(cand: Candidate, pool: Sequence[Candidate]) -> str:
    """The span as quoted, with what it needs to be read alone (see the module docstring)."""
    span = cand.span
    text = said(span)
    entry = whole_entry(cand, pool)
    if entry is not None:  # a short entry is read whole, its term first (once: "GCP: a2-highgpu-1g …" names it already)
        return entry if entry.lower().startswith(span.subject.lower()) else f"{shown_term(span.subject)}: {entry}"
    item = whole_item(cand, pool)
    whole = _short_item(item)
    if whole is not None:  # a short list item is read whole, like a short definition; a long one by its sentences
        text, lead = _SOURCE_TRAILER.sub("", whole), item[0].span.lead
        return _with_subject(span, f"{lead} {text}" if lead.endswith(":") else text)
    if span.kind == "sentence" and _PRONOUN_START.match(span.text):
        before = [
            c
            for c in pool
            if c.hit is cand.hit
            and c.span.position == span.position - 1
            and (c.span.kind == "sentence" or c.span.list_id == span.list_id >= 0)  # or the item it goes on from
            and c.span.entry == span.entry
            and not (span.entry >= 0 and c.span.text == span.subject)  # (not the entry's term line)
        ]
        if before:  # (the sentence before with the code it introduces: "… by means of the function: `…`")
            return _with_subject(span, f"{said(before[0].span)} {text}")
    after = _next_sentences(cand, pool, 3)
    if after and after[0].span.label == span.text:  # a term line alone says nothing: quote its definition
        return f"{shown_term(text)}: " + " ".join(c.span.text for c in [after[0], *_same_definition(after[1:], pool, text)])
    if span.label and span.label not in text:
        text = f"{shown_term(span.label)}: {text}"  # the term a definition is about ("csv.QUOTE_ALL: Instructs ...")
        # A definition is read whole: its next sentences, while it stays short.
        rest: list[str] = []
        for nxt in _same_definition(after, pool, span.label):
            if len(" ".join([text, *rest, nxt.span.text]).split()) > DEFINITION_WORDS:
                break
            rest.append(nxt.span.text)
        return " ".join([text, *rest])
    if span.kind == "sentence" and span.text.endswith("?"):
        # A question in the text (an FAQ, "Q: ... A: ...") is answered by what follows it.
        answer: list[str] = []  # the next sentences, until they say something ("A: Maybe not." is not enough)
        for nxt in [c for c in after if c.hit is cand.hit][:2]:
            if len(" ".join(answer).split()) >= FAQ_ANSWER_WORDS:
                break
            answer.append(nxt.span.text)
        if answer:
            return " ".join([text, *answer])
    if span.kind == "item" and span.lead and span.lead.endswith(":"):
        text = f"{span.lead} {text}"
    opening = _opening(cand, pool)
    if opening and len(f"{span.subject} {opening} {text}".split()) <= DEFINITION_WORDS:
        text = f"{opening} {text}"  # a later sentence of an entry after what the entry says first
    if span.subject and span.subject not in text and (span.kind == "sentence" or span.entry >= 0):
        return f"{shown_term(span.subject)}: {text}"  # a later sentence of a definition says which term it is about
    term = heading_term(cand.hit.chunk.heading)
    if term and term.lower() not in text.lower():
        return f"{term}: {text}"  # a sentence of a reference section that names one directive or setting
    return text


# A reference section's heading that names one identifier: "ProxyPreserveHost Directive", "CMAKE_CUDA_ARCHITECTURES"
_HEADING_TERM = re.compile(
    r"^(?P<id>[A-Za-z_][\w.:-]{3,})(?:\s+(?:directive|option|variable|property|setting|parameter|macro))?$", re.I
)
_IDENTIFIER = re.compile(r"[a-z][A-Z]|_|\w[.:]\w")  # "TimeOut", "CMAKE_CUDA", "mpi4py.MPI": never a plain word


def heading_term(heading: str) -> str:
    """The identifier a reference section's heading names (its last part: "Apache Core Features > TimeOut Directive"
    names "TimeOut"), or "" for a heading of words ("Installation", "OPTIONS")."""
    last = heading.rsplit(">", 1)[-1].strip() if heading else ""
    m = _HEADING_TERM.match(last)
    return m.group("id") if m and _IDENTIFIER.search(m.group("id")) else ""


def _opening(cand: Candidate, pool: Sequence[Candidate]) -> str:
    """The first sentence of the definition ``cand`` is a later sentence of ("DRAINING: The node is currently
    executing a job, but will not be allocated additional jobs." before "The node state will be changed …"),
    as quoted; "" for an opening sentence, outside an entry, or when the pool lacks it."""
    span = cand.span
    if span.kind != "sentence" or span.entry < 0 or not span.subject:
        return ""
    parts = entry_of(cand, pool)
    first = parts[0] if parts else None
    if first is None or first is cand or first.span.kind != "sentence" or first.span.text == span.text:
        return ""
    if first.hit is cand.hit and first.span.position > span.position:
        return ""
    return said(first.span)


def said(span: Span) -> str:
    """What a span says as quoted: a lead-in with the command or signature it introduces ("Check that the
    cards are visible: `tsr devices`", "… by means of the function: `int fftw_export_wisdom(…)`")."""
    text = _SOURCE_TRAILER.sub("", span.text)
    return f"{text} `{span.code}`" if span.code else text


def shown_term(term: str) -> str:
    """A term as a quote shows it: a placeholder in angle brackets ("--array=<indexes>", "<script>") would
    read as an HTML tag, which the answer's safety pass drops; it is written with ‹ › instead."""
    return _ANGLED.sub(r"‹\1›", term)


def _with_subject(span: Span, text: str) -> str:
    """``text`` of an entry's span, with the entry's term in front unless it says it already."""
    return f"{shown_term(span.subject)}: {text}" if span.entry >= 0 and span.subject and span.subject not in text else text


def join_entry(quoted: str, cand: Candidate, pool: Sequence[Candidate]) -> str:
    """``quoted`` (a quote of ``cand``'s entry) with what a quote of ``cand`` adds to it: its sentence and
    the ones it reads on with, those not quoted yet, the term not said again."""
    span = cand.span
    parts = [cand] if span.text != span.subject else []
    if span.label or span.text == span.subject:  # a definition's opening (or its term line) reads on while short
        words = len(quoted.split())
        for nxt in _same_definition(_next_sentences(cand, pool, 3), pool, span.label or span.text):
            words += len(nxt.span.text.split())
            if words > len(quoted.split()) + DEFINITION_WORDS:
                break
            parts.append(nxt)
    added = [said(c.span) for c in parts if c.span.text not in quoted]
    return " ".join([quoted, *added])


def entry_of(cand: Candidate, pool: Sequence[Candidate]) -> list[Candidate]:
    """The spans of the entry ``cand`` belongs to, without the term line, in order: in its passage and,
    when the pool holds them, in the chunks of its section right before and after it (an entry cut
    between chunks has its term on both sides); empty outside an entry."""
    span, chunk = cand.span, cand.hit.chunk
    if span.entry < 0:
        return []
    same = [c for c in pool if c.hit is cand.hit and c.span.entry == span.entry]
    if span.subject:
        same += [
            c
            for c in pool
            if c.hit.chunk.source == chunk.source
            and c.hit.chunk.heading == chunk.heading
            and abs(c.hit.chunk.ordinal - chunk.ordinal) == 1
            and c.span.entry >= 0
            and c.span.subject == span.subject
        ]
    same.sort(key=lambda c: (c.hit.chunk.ordinal, c.span.position))
    out: list[Candidate] = []
    seen: set[str] = set()
    for c in same:  # (consecutive chunks overlap: a sentence is said once)
        if c.span.text != span.subject and c.span.text not in seen:
            seen.add(c.span.text)
            out.append(c)
    return out


def whole_entry(cand: Candidate, pool: Sequence[Candidate]) -> str | None:
    """The text of the entry ``cand`` belongs to, when the entry has a term and, with it, at most
    DEFINITION_WORDS words (its tables and the entries nested in it left out); else None."""
    span = cand.span
    if span.entry < 0 or not span.subject:
        return None
    parts = [c for c in entry_of(cand, pool) if c.span.kind != "row"]
    if not parts or any(c.span.code for c in parts):
        return None
    text = " ".join(_SOURCE_TRAILER.sub("", c.span.text) for c in parts)
    if span.kind == "row" or len(f"{span.subject} {text}".split()) > DEFINITION_WORDS:
        return None
    return text


def same_entry(a: Candidate, b: Candidate) -> bool:
    """Whether two candidates are of one entry (:mod:`hwqa.notes.spans`): in one passage by its number, across
    the chunks of a section by its term."""
    if a.hit is b.hit:
        return a.span.entry == b.span.entry
    return a.span.subject == b.span.subject


def whole_item(cand: Candidate, pool: Sequence[Candidate]) -> list[Candidate]:
    """The sentences of the list item ``cand`` belongs to (its first sentence is the item's span, the
    others follow it in the passage: see :func:`hwqa.notes.spans.spans_of`); empty outside a list."""
    span = cand.span
    if span.list_id < 0:
        return []
    same = sorted((c for c in pool if c.hit is cand.hit and c.span.list_id == span.list_id), key=lambda c: c.span.position)
    heads = [c for c in same if c.span.kind == "item" and c.span.position <= span.position]
    if not heads:
        return []
    out = [heads[-1]]
    for c in same:
        if c.span.position <= out[-1].span.position:
            continue
        if c.span.kind == "item" or c.span.position != out[-1].span.position + 1:
            break
        out.append(c)
    return out


def _same_definition(after: Sequence[Candidate], pool: Sequence[Candidate], term: str) -> list[Candidate]:
    """The sentences of ``after`` up to the next term line ("See also", the next ``<dt>``) or its definition."""
    out: list[Candidate] = []
    for cand in after:
        nxt = _next_sentences(cand, pool, 1)
        if cand.span.label not in ("", term) or (nxt and nxt[0].span.label == cand.span.text) or is_term(cand.span.text):
            break
        out.append(cand)
    return out


def _next_sentences(cand: Candidate, pool: Sequence[Candidate], n: int) -> list[Candidate]:
    """Up to ``n`` sentences right after ``cand`` in its passage, and on into the section's next chunk
    when the pool holds it (stopping at anything else)."""
    out: list[Candidate] = []
    hit, pos = cand.hit, cand.span.position + 1
    while len(out) < n:
        nxt = next((c for c in pool if c.hit is hit and c.span.position == pos), None)
        if nxt is None and hit.following is not None and pos > 0:
            after = _next_chunk(hit, pool)
            if after:  # the passage ended: its section goes on in the next chunk
                hit, pos = after[0].hit, after[0].span.position
                continue
        if nxt is None or nxt.span.kind != "sentence" or not same_entry(cand, nxt):
            break
        out.append(nxt)
        pos += 1
    return out


def introduced_rows(cand: Candidate, pool: Sequence[Candidate]) -> list[Candidate]:
    """The rows of the table right after a lead-in sentence ("... these compute capabilities:")."""
    span = cand.span
    if span.kind != "sentence" or not span.text.endswith(":") or span.code:
        return []
    rows: list[Candidate] = []
    for pos in range(span.position + 1, span.position + 200):
        nxt = next((c for c in pool if c.hit is cand.hit and c.span.position == pos), None)
        if (nxt is None and pos > span.position + 1) or (nxt is not None and nxt.span.kind != "row"):
            return rows
        if nxt is None:
            break
        rows.append(nxt)
    # The lead-in ends its passage: the table is at the start of the section's next chunk.
    for nxt in _next_chunk(cand.hit, pool):
        if nxt.span.kind != "row":
            break
        rows.append(nxt)
    return rows


def whole_table(lead: Candidate, rows: Sequence[Candidate], shown: int = 12) -> str:
    """A table answer: its lead-in and its rows, as one quote."""
    body = "; ".join(c.span.text for c in rows[:shown])
    more = f"; and {len(rows) - shown} more" if len(rows) > shown else ""
    return f"{lead.span.text} {body}{more}"


def introduced(cand: Candidate, pool: Sequence[Candidate]) -> list[Candidate]:
    """The list items a lead-in sentence ("... these versions:") introduces, if ``cand`` is one."""
    span = cand.span
    if span.kind != "sentence" or not span.text.endswith(":"):
        return []
    return [c for c in pool if c.hit is cand.hit and c.span.kind == "item" and c.span.lead == span.text]


def _next_chunk(hit: Hit, pool: Sequence[Candidate]) -> list[Candidate]:
    """The pool's spans of the chunk after ``hit``'s in its section (retrieved, or handed over as following),
    without the ones it repeats from ``hit``'s (the chunks' overlap)."""
    chunk = hit.chunk
    nxt = [
        c
        for c in pool
        if c.hit.chunk.source == chunk.source
        and c.hit.chunk.heading == chunk.heading
        and c.hit.chunk.ordinal == chunk.ordinal + 1
    ]
    nxt.sort(key=lambda c: c.span.position)
    repeated = {c.span.text for c in pool if c.hit.chunk.id == chunk.id}
    while nxt and nxt[0].span.text in repeated:
        nxt.pop(0)
    return nxt


def _continuation(last: Candidate, pool: Sequence[Candidate]) -> list[Candidate]:
    """The items of a list cut at the end of its chunk, from the section's next chunk if it was retrieved."""
    if any(c.hit is last.hit and c.span.position > last.span.position and c.span.list_id != last.span.list_id for c in pool):
        return []  # the list ends inside its chunk (its last item's further sentences are still the list)
    out = []
    for c in _next_chunk(last.hit, pool):
        if c.span.kind != "item" and c.span.list_id < 0:
            break
        if c.span.kind == "item":  # an item's further sentences are not items of the list
            out.append(c)
    return out


def _short_item(item: Sequence[Candidate]) -> str | None:
    """The text of a list item's sentences (:func:`whole_item`), when it has several and at most
    DEFINITION_WORDS words; else None."""
    whole = " ".join(c.span.text for c in item)
    return whole if len(item) > 1 and len(whole.split()) <= DEFINITION_WORDS else None


def whole_list(best: Candidate, pool: Sequence[Candidate]) -> list[tuple[Candidate, str]]:
    """A list answer: its lead-in and its items, as one quote (continued from the next chunk if cut)."""
    items = [c for c in pool if c.hit is best.hit and c.span.kind == "item" and c.span.list_id == best.span.list_id]
    items.sort(key=lambda c: c.span.position)
    seen = {c.span.text for c in items}
    while items:  # a long list goes on over several chunks: each next chunk of the section the pool holds
        more = [c for c in _continuation(items[-1], pool) if c.span.text not in seen]
        if not more:
            break
        items += more
        seen.update(c.span.text for c in more)
    shown = items[:12]
    body = "; ".join(_SOURCE_TRAILER.sub("", _short_item(whole_item(c, pool)) or c.span.text).rstrip(".;") for c in shown)
    if len(items) > len(shown):
        body += f"; and {len(items) - len(shown)} more"
    lead = best.span.lead.rstrip(":.").strip()
    text = f"{lead}: {body}" if lead else body
    return [(best, text)]
