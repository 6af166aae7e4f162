"""Retrieve the passages that answer a question from one index generation.

Three retrievers, chosen by name (``Settings.retriever``):

- ``dense``: FAISS inner product over the passage embeddings;
- ``keyword``: SQLite FTS5 BM25 over title, heading, tags/aliases, text and whole identifiers;
- ``hybrid`` (default): both lists fused by reciprocal rank fusion (RRF), the dense list's votes
  weighted :data:`DENSE_WEIGHT` against the keyword list's 1.0.

Every hit carries its cosine similarity to the question whatever found it, so the relevance
floor means the same thing for all three. Near-duplicate passages (the same text in a note and in
the article it quotes) are collapsed to the better-ranked one. A :class:`Filter` restricts the
search to notes with a tag or to named notes (and the articles those notes link to).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from ..errors import ConfigError
from ..index.embed import Embedder
from ..index.reader import Generation
from ..notes.keywords import fold
from ..notes.markdown import table_headers
from .base import Hit
from .question import Question, content_words, is_kind

RETRIEVERS = ("dense", "keyword", "hybrid")
RRF_K = 60  # the constant of reciprocal rank fusion (Cormack et al. 2009)
DENSE_WEIGHT = 0.6  # the dense list's vote against the keyword list's 1.0 (hwqa eval: 0.5, 0.6, 0.7, 1.0 tried)
PREFERRED_SECTION_BONUS = 0.5 / RRF_K  # an article section named by the link's #fragment: about half a rank-1 vote
DUPLICATE_JACCARD = 0.8  # word-set overlap above which two passages count as the same text
TABLE_REACH = 8  # chunks either side of a hit searched for the rest of a table it holds rows of
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Filter:
    """Restrict retrieval to notes carrying any of ``tags`` or named in ``notes`` (path, file name or title)."""

    tags: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.tags or self.notes)

    @classmethod
    def of(cls, tags: Iterable[str] | None = None, notes: Iterable[str] | None = None) -> Filter:
        return cls(tuple(t.strip() for t in tags or () if t.strip()), tuple(n.strip() for n in notes or () if n.strip()))


def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K, weights: Sequence[float] | None = None) -> list[tuple[int, float]]:
    """Reciprocal rank fusion of ranked id lists, best first; ``weights`` scale each list's votes.

    Scores are exactly rounded sums (``math.fsum``), so they do not depend on the order of the
    lists; ties are broken by the best single rank any list gave the id, then by the id, so the
    order is a pure function of the inputs.
    """
    parts: dict[int, list[float]] = {}
    best: dict[int, int] = {}
    for ranking, weight in zip(rankings, weights or [1.0] * len(rankings), strict=True):
        for rank, doc in enumerate(ranking, start=1):
            parts.setdefault(doc, []).append(weight / (k + rank))
            best[doc] = min(best.get(doc, rank), rank)
    scores = {doc: math.fsum(values) for doc, values in parts.items()}
    return sorted(scores.items(), key=lambda item: (-item[1], best[item[0]], item[0]))


def with_surroundings(generation: Generation, hit: Hit) -> Hit:
    """``hit`` with what an answer may need to read on: the next chunk of its section, and the other
    chunks of a table split across the section that ``hit`` holds rows of (its header repeats in each)."""
    headers = table_headers(hit.chunk.text)
    reach = TABLE_REACH if headers else 0
    near = generation.nearby(hit.chunk, reach, max(reach, 1))
    following = next((c for c in near if c.ordinal == hit.chunk.ordinal + 1), None)
    table = tuple(c for c in near if c.id != hit.chunk.id and any(h in c.text for h in headers))
    return replace(hit, following=following, table=table)


def _norm(text: str) -> str:
    return text.strip().casefold()


def admitted(generation: Generation, flt: Filter) -> tuple[frozenset[int], frozenset[str]]:
    """What a filter admits: the ids of the chunks of matching notes and of the articles they link to,
    and the matching notes' paths."""
    tags = {_norm(t).lstrip("#") for t in flt.tags}
    names = {_norm(n) for n in flt.notes}
    titles: set[str] = set()
    notes: set[str] = set()
    ids: set[int] = set()
    chunks = generation.all_chunks()
    for c in chunks:
        if c.kind != "note":
            continue
        path = PurePosixPath(c.source)
        note_names = {_norm(c.source), _norm(path.name), _norm(path.stem), _norm(c.title)}
        note_tags = {_norm(str(t)) for t in c.meta.get("tags", [])}
        if (not tags or tags & note_tags) and (not names or names & note_names):
            ids.add(c.id)
            titles.add(c.title)
            notes.add(c.source)
    for c in chunks:
        if c.kind == "article" and titles.intersection(c.meta.get("linked_from", [])):
            ids.add(c.id)
    return frozenset(ids), frozenset(notes)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def _collapse(hits: list[Hit]) -> list[Hit]:
    """Drop passages whose text repeats a better-ranked one (a note quoting its article, say)."""
    kept: list[tuple[Hit, set[str]]] = []
    for hit in hits:
        words = _words(hit.chunk.text)
        duplicate = False
        for _, other in kept:
            union = words | other
            if union and len(words & other) / len(union) >= DUPLICATE_JACCARD:
                duplicate = True
                break
        if not duplicate:
            kept.append((hit, words))
    return [h for h, _ in kept]


def retrieve(
    generation: Generation,
    embedder: Embedder,
    question: str,
    k: int,
    *,
    mode: str = "hybrid",
    flt: Filter | None = None,
) -> list[Hit]:
    """The ``k`` best passages, best first. All of them come from ``generation``."""
    if mode not in RETRIEVERS:
        raise ConfigError(f"unknown retriever '{mode}'; use one of: {', '.join(RETRIEVERS)}")
    allowed = admitted(generation, flt)[0] if flt else None
    depth = max(4 * k, 30)
    query = embedder.embed([question])[0]
    dense = generation.search(query, depth, allowed) if mode != "keyword" else []
    keyword = generation.keyword_search(question, depth, allowed) if mode != "dense" else []
    dense_ids = [i for i, _ in dense]
    keyword_ids = [i for i, _ in keyword]
    rankings = {"dense": [dense_ids], "keyword": [keyword_ids], "hybrid": [dense_ids, keyword_ids]}[mode]
    fused = rrf(rankings, weights=[DENSE_WEIGHT, 1.0] if mode == "hybrid" else None)
    if not fused:
        return []
    ids = [i for i, _ in fused[:depth]]
    chunks = generation.chunks(ids)
    cosine = dict(dense)
    missing = [i for i in ids if i not in cosine]
    if missing:
        cosine.update(zip(missing, (generation.vectors(missing) @ query).tolist(), strict=True))
    d_rank = {i: r for r, i in enumerate(dense_ids, start=1)}
    k_rank = {i: r for r, i in enumerate(keyword_ids, start=1)}
    hits = [
        Hit(
            chunk,
            float(cosine[i]),
            score + (PREFERRED_SECTION_BONUS if chunk.meta.get("preferred") else 0.0),
            d_rank.get(i),
            k_rank.get(i),
            query=query,
        )
        for chunk, (i, score) in zip(chunks, fused[:depth], strict=True)
    ]
    hits.sort(key=lambda h: -h.fused)  # stable: the RRF order decides among equals
    return _collapse(hits)[:k]


@dataclass(frozen=True)
class NameEvidence:
    """What a question names that no passage holds (see :func:`name_evidence`)."""

    missing: list[str]  # names and identifiers ("RTX 5090", "sm_100", "Jetson")
    asked: int  # how many names and identifiers the question asks about
    unknown: list[str]  # lower-case words no dictionary knows ("tenstorrent"), asked when it names nothing else
    coined: int  # how many such words it asks about then
    unheard: list[str] = field(default_factory=list)  # when it names nothing missing: its other words no passage holds

    @property
    def share(self) -> float:
        """The share of the asked names that no passage holds."""
        return len(self.missing) / self.asked if self.asked else 0.0


UNHEARD_NAMED = 3  # at most this many of a question's words a not-covered answer names


def name_evidence(generation: Generation, q: Question) -> NameEvidence:
    """The names a question asks about (model names, identifiers, capitalised names) that no passage
    holds; and, for a question that names nothing else, its words no dictionary knows that no passage holds.

    An identifier counts as present when a passage holds it whole (see :mod:`hwqa.notes.keywords`); one
    written with spaces or hyphens also when a passage holds the same words in a row ("RTX 5090");
    a name with a version ("Rivulet 1.8") also when one passage holds the name near the version.
    A capitalised name counts as present when any passage holds the word. A slash pair ("nic/gpu",
    "Arc/Xe", "A100/H100") names each of its parts: it is present when a passage holds one of them.

    Only names count, never a word the passages may phrase differently: not a number format or
    memory type ("fp16", "HBM2e", see :func:`hwqa.answer.question.is_kind`). A lower-case word no
    dictionary knows ("pytest", but also "wattage" or "redid", which the dictionary lacks) is kept
    apart: it names the thing in a not-covered answer, never weighs on the decision.

    This is evidence, not a verdict: a missing name lowers the fitted "not covered" decision's
    confidence (:meth:`hwqa.answer.scorer.Model.declines`) and, when the question is answered all the same,
    the answer names it in a caveat.
    """
    missing: list[str] = []
    terms = [t for t in q.terms if not is_kind(t.written)]
    names = [n for n in q.names if not is_kind(n)]
    for term in terms:
        if generation.has_term(term.folded, "idents"):
            continue
        if any(generation.has_term(fold(part), "idents") or generation.has_phrase(part) for part in alternatives(term.written)):
            continue
        # Its words in a row ("RTX 5090"); one run of letters and digits also as a word of a longer name ("q4" of
        # "Q4_K_M", ".import"), never the parts of a joined one ("PYTHON_GIL" is not "the Python GIL").
        if (term.spaced or re.fullmatch(r"\W*[^\W_]+", term.written)) and generation.has_phrase(term.written):
            continue
        # "Rivulet Serve 1.8": the notes may say "Rivulet 1.8"; a capitalised word just before the name counts.
        if term.versioned and any(generation.has_near(name, term.parts[1]) for name in (term.parts[0], *term.qualifiers)):
            continue
        missing.append(term.written)
    missing.extend(name for name in names if not generation.has_phrase(name))
    coined = [] if terms or names else list(q.coined)
    unknown = [word for word in coined if not generation.has_term(word)]
    # Said, never weighed: when nothing it names is missing, the words of the question no passage holds
    # ("can lstopo show the temperature?") tell the reader of a not-covered answer what the notes lack.
    unheard = [] if missing or unknown else [w for w in content_words(q.text) if not generation.has_term(w)][:UNHEARD_NAMED]
    return NameEvidence(missing, len(terms) + len(names), unknown, len(coined), unheard)


def alternatives(written: str) -> tuple[str, ...]:
    """The parts of a slash pair, each a name of two characters or more with a letter ("nic/gpu" → nic,
    gpu); () for anything else: a unit ("TB/s"), a fraction, a path, a flag."""
    if written.startswith("-") or "/" not in written:
        return ()
    parts = tuple(written.split("/"))
    if all(len(part) >= 2 and any(c.isalpha() for c in part) for part in parts):
        return parts
    return ()


def missing_terms(generation: Generation, q: Question) -> list[str]:
    """What a question names that no passage holds: its names and identifiers, else its unknown words
    (see :func:`name_evidence`)."""
    evidence = name_evidence(generation, q)
    return evidence.missing + evidence.unknown


__all__ = ["RETRIEVERS", "Filter", "NameEvidence", "missing_terms", "name_evidence", "retrieve", "rrf"]
