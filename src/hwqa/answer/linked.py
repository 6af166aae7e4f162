"""A note's link line leads retrieval to the page it links.

Notes are often reading lists: "[Sticky modules](…/sticky.html) - the module that won't go away with
purge". Such a one-liner matches a question's words best, so it ranks first, while the page it points
at, which holds the answer, ranks low or not at all. The line is a pointer: its writer meant "this page
answers questions like this".

:func:`follow_links` follows it. For each of the first :data:`LEAD` hits that is a note passage, the
line of it that best matches the question (the candidate span with the highest similarity, from the
span vectors the index keeps) is looked at; when it links to a page the index holds, that page's
best passages for the question, searched among that page's chunks alone (dense and keyword, fused as
retrieval fuses them; a ``#fragment``'s section favoured as retrieval favours it), join the hits in
the note passage's place, and the note passage follows them: the page holds the answer, the line
only says where it is, but its citation says why the page was read. The list keeps its ``k`` cap
(the last hits make room). Only one line of a passage is followed, never every link in it. Each
joined passage carries the line (:attr:`hwqa.answer.base.Hit.pointer`): the builtin answerer reads it
around the page's spans, as it reads a heading, so the page's answer competes with the one-liner that
matched the question's words.

Measured with ``hwqa eval`` (all sets, hybrid): python-docs train hit@1 0.95 -> 0.975, bundled train
0.936 -> 0.942, nothing else moved; putting the page's passage after the note instead, following the
first 1 or 6 hits instead of 3, or joining 2 passages of a page instead of 1 changed nothing further.

A filter needs no check here: a page a note links to is admitted whenever that note is
(:func:`hwqa.answer.retrieve.admitted`).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace

from ..index.reader import Generation
from ..notes.links import find_links
from ..notes.spans import clean_markdown, locate, spans_of
from .base import Hit
from .question import content_stems
from .retrieve import DENSE_WEIGHT, PREFERRED_SECTION_BONUS, rrf

__all__ = ["best_link", "follow_links"]

LEAD = 3  # the best hits whose link line is followed, when they are note passages
PER_LINK = 1  # a followed page's passages joined to the hits
PAGE_DEPTH = 10  # passages of a followed page each list ranks


def best_link(hit: Hit, question: str) -> tuple[str, str | None, str] | None:
    """The (URL, fragment, line) of the link on the line of ``hit``'s note passage that best matches
    ``question``, the line as plain text; None when that line holds no link.

    A line is a candidate span of the passage; they are ranked as retrieval ranks passages: by their
    similarity to the question (the span vectors the index keeps) and by the question's words they
    hold, the two orders fused (reciprocal rank fusion, the dense order weighted as in retrieval).
    """
    text = hit.chunk.text
    links = find_links(text)
    if not links or hit.query is None or hit.chunk.spans is None:
        return None
    spans = spans_of(text)
    if len(spans) != len(hit.chunk.spans) or not spans:
        return None
    sims = [float(s) for s in hit.chunk.spans @ hit.query]
    asked = set(content_stems(question))
    shared = [len(asked.intersection(content_stems(s.text))) for s in spans]
    dense = sorted(range(len(spans)), key=lambda i: (-sims[i], i))
    keyword = sorted((i for i in range(len(spans)) if shared[i]), key=lambda i: (-shared[i], -sims[i], i))
    best = rrf([dense, keyword], weights=[DENSE_WEIGHT, 1.0])[0][0]
    start, end = locate(text, spans)[best]
    if end <= start:
        return None
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    first, last = bisect.bisect_right(starts, start), bisect.bisect_right(starts, end - 1)
    on_line = [link for link in links if first <= link.line <= last]
    return (on_line[0].url, on_line[0].fragment, clean_markdown(spans[best].text)) if on_line else None


def _page_hits(generation: Generation, hit: Hit, question: str, url: str, fragment: str | None, mode: str) -> list[Hit]:
    """The passages of the page at ``url`` that best answer ``question``, best first (none when the
    index holds no such page)."""
    ids = generation.ids_of("article", url)
    if not ids:
        return []
    allowed = frozenset(ids)
    dense = generation.search(hit.query, PAGE_DEPTH, allowed) if mode != "keyword" else []
    keyword = generation.keyword_search(question, PAGE_DEPTH, allowed) if mode != "dense" else []
    lists = {"dense": [[i for i, _ in dense]], "keyword": [[i for i, _ in keyword]]}
    lists["hybrid"] = lists["dense"] + lists["keyword"]
    fused = rrf(lists[mode], weights=[DENSE_WEIGHT, 1.0] if mode == "hybrid" else None)
    if not fused:
        return []
    chunks = {c.id: c for c in generation.chunks([i for i, _ in fused])}
    # The section the link names, favoured as retrieval favours it: the build marked the section of the
    # first fragment the notes link the page with (build/articles.py), so only a link with that fragment.
    recorded = ((generation.manifest.get("links") or {}).get(url) or {}).get("fragments") or [None]
    if fragment and fragment == recorded[0]:
        fused = sorted(
            ((i, s + (PREFERRED_SECTION_BONUS if chunks[i].meta.get("preferred") else 0.0)) for i, s in fused),
            key=lambda item: -item[1],
        )
    cosine = dict(dense)
    missing = [i for i, _ in fused if i not in cosine]
    if missing:
        cosine.update(zip(missing, (generation.vectors(missing) @ hit.query).tolist(), strict=True))
    return [
        replace(hit, chunk=chunks[i], score=float(cosine[i]), dense_rank=None, keyword_rank=None, following=None, table=())
        for i, _ in fused
    ]


def follow_links(generation: Generation, hits: Sequence[Hit], question: str, k: int, mode: str = "hybrid") -> list[Hit]:
    """``hits`` with the passages of the pages their first note passages point at for ``question``,
    each just before the note passage that links it; at most ``k`` in all."""
    out = list(hits)
    for hit in list(out[:LEAD]):
        if hit.chunk.kind != "note":
            continue
        link = best_link(hit, question)
        if link is None:
            continue
        found = _page_hits(generation, hit, question, link[0], link[1], mode)[:PER_LINK]
        at = next(i for i, h in enumerate(out) if h is hit)
        for page in found:
            before = next((i for i, h in enumerate(out) if h.chunk.id == page.chunk.id), None)
            if before is not None and before < at:
                continue  # already ranked above: it stays there
            if before is not None:
                out.pop(before)
            out.insert(at, replace(page, fused=hit.fused, pointer=link[2]))
            at += 1
    return out[:k]
