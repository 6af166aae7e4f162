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

import difflib
import itertools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from ..errors import ConfigError
from ..index.embed import Embedder
from ..index.reader import Generation
from ..notes.keywords import STOPWORDS, fold
from ..notes.markdown import table_headers
from .base import Hit
from .question import Question, content_words, is_kind, known

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
    """``hit`` with what an answer may need to read on: the next chunk of its section, the other
    chunks of a table split across the section that ``hit`` holds rows of (its header repeats in each), and
    a note's list split over chunks whole (a parts list whose total is asked)."""
    headers = table_headers(hit.chunk.text)
    listed = hit.chunk.kind == "note" and _LIST_ITEM.match(hit.chunk.text) is not None
    reach = TABLE_REACH if headers or listed else 0
    near = generation.nearby(hit.chunk, reach, max(reach, 1))
    following = next((c for c in near if c.ordinal == hit.chunk.ordinal + 1), None)
    table = tuple(c for c in near if c.id != hit.chunk.id and any(h in c.text for h in headers))
    section = tuple(near) if listed and len(near) > 1 else ()
    return replace(hit, following=following, table=table, section=section)


_LIST_ITEM = re.compile(r"\s*(?:[*+-]|\d{1,2}[.)])\s")


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
    covering: list[str] = field(default_factory=list)  # the names the passages write in a missing sibling's place
    kin: list[str] = field(default_factory=list)  # the missing siblings of those names, as the question writes them

    @property
    def share(self) -> float:
        """The share of the asked names that no passage holds."""
        return len(self.missing) / self.asked if self.asked else 0.0

    def siblings_only(self) -> NameEvidence:
        """The evidence of the missing siblings alone (for a question the price facts answer: the other names it
        asks about may be written otherwise in a fact, a sibling is another thing than the one they price)."""
        return NameEvidence(list(self.kin), self.asked, [], 0, [], list(self.covering), list(self.kin))


_COUNTED_MODEL = re.compile(r"\d{1,2}\s*[x×]\s*([a-z]*\d[\w.-]*)", re.I)
UNHEARD_NAMED = 3  # at most this many of a question's words a not-covered answer names


def name_evidence(generation: Generation, q: Question, hits: Sequence[Hit] = ()) -> NameEvidence:
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

    With the retrieved ``hits``, a sibling of a name they write (:func:`siblings`: "raspberry boom" where they
    write "Raspberry Shake") is a missing name too, said with the name the passages write instead.

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
        # "2x3090": a count of a model, held when the model is ("2x used 3090")
        counted = _COUNTED_MODEL.fullmatch(term.written)
        if counted and (generation.has_term(fold(counted.group(1)), "idents") or generation.has_phrase(counted.group(1))):
            continue
        missing.append(term.written)
    missing.extend(name for name in names if not generation.has_phrase(name))
    missing = [m for m in missing if not _spelled_out(m, hits)]  # "OOM" where a passage says "runs out of memory"
    asked = len(terms) + len(names)
    kin = siblings(generation, q, hits)
    if kin:  # a sibling is one name asked about: a name or term of the question that is one of its words is part of it
        words = {w.lower() for sib in kin for w in sib.asked.split()}
        parts = [n for n in [*names, *(t.written for t in terms)] if n.lower() in words]
        missing = [m for m in missing if m.lower() not in words] + [sib.asked for sib in kin]
        asked += len(kin) - len(parts)
    coined = [] if terms or names else list(q.coined)
    unknown = [word for word in coined if not generation.has_term(word)]
    # Said, never weighed: when nothing it names is missing, the words of the question no passage holds
    # ("can lstopo show the temperature?") tell the reader of a not-covered answer what the notes lack.
    unheard = [] if missing or unknown else [w for w in content_words(q.text) if not generation.has_term(w)][:UNHEARD_NAMED]
    return NameEvidence(missing, asked, unknown, len(coined), unheard, [sib.covered for sib in kin], [sib.asked for sib in kin])


def _spelled_out(name: str, hits: Sequence[Hit]) -> bool:
    """Whether ``name`` is an acronym ("OOM", "PSUs") a retrieved passage writes out: words in a row whose initials
    spell it ("out of memory", "power supply units"); of two letters, words that are no function words ("access
    point", never "and power")."""
    acronym = re.fullmatch(r"([A-Z]{2,5})s?", name)
    if acronym is None:
        return False
    letters = acronym.group(1).lower()
    spelled = r"\W+".join(rf"{c}[a-z]*" for c in letters)
    pattern = re.compile(rf"(?<![\w-]){spelled}(?![\w-])", re.I)
    for hit in hits:
        for m in pattern.finditer(hit.chunk.text):
            words = re.findall(r"\w+", m.group(0).lower())
            if len(letters) > 2 or not any(w in STOPWORDS for w in words):
                return True
    return False


@dataclass(frozen=True)
class Sibling:
    """A name the question asks about that the notes never write, where a note writes another name in its place."""

    asked: str  # as the question writes it: "raspberry boom", "copilot enterprise"
    covered: str  # as the note writes the name beside it: "Raspberry Shake", "Copilot Business"


_URL = re.compile(r"https?://\S+|\(/[^)\s]*\)")
_PRICED = re.compile(r"[$€£]\s?\d|\d\s?(?:USD|EUR|GBP|bucks|dollars)\b")
_QWORD = re.compile(r"[A-Za-z0-9][\w'.+-]*[A-Za-z0-9]|[A-Za-z0-9]")
NAME_SHARE = 0.8  # the share of a word's occurrences in the notes' prose written capitalised for it to be a name there
TITLE_SHARE = 0.5  # a line with more of its words capitalised than this is a title, not prose
SIMILAR_SPELLING = 0.8  # a word at least this close to a passage's word (difflib ratio) is that word (a typo, a plural)
# What may follow a name in a question: nothing, "per" or "vs" ("per seat"), or a word that is no function word
# ("courses", "tier"); never a determiner, preposition or auxiliary, which follow a verb ("can Rivulet shard a model",
# "does the SDK work on Windows").
_AFTER_NAME = frozenset({"per", "vs", "versus"})
_PREPOSITIONS = frozenset({"like", "about", "over", "into", "onto", "than", "across", "around", "through", "via"})
# Determiners the stopwords lack: never a word of a name ("dubbing every video" beside "Dubbing Studio").
_DETERMINERS = frozenset({"every", "another", "several", "either", "neither", "whole", "half"})
# Words that say what is asked about a thing (its price), never a part of its name.
_ASKING = re.compile(r"pric\w*|costs?|costing|charge[sd]?|pa(?:y|id|ying)|fees?|bills?|dollars?|bucks|spent|spend")


# Words of a question that say what it asks or does, never part of a thing's name ("does the m4 max macbook *run* …")
_NOT_NAMING = frozenset(
    "how much many what whats which who when where why price prices cost costs fast faster slow slower try tried "
    "trying work works worked run runs running ran use used using need needs get got buy bought worth pull pulls draw "
    "draws compare compared good better best cheap cheaper big bigger long take takes took give gives support supports "
    "handle handles do does did is are was were be been have has had can could would should will like ran goes keeps "
    "keep follows follow pay pays paid beat beats basically actually really just still ever even "
    "new secondhand refurb refurbished spare extra".split()  # how a thing was bought: never a sibling's name
)
_TOKEN_RUN = re.compile(r"[\w.+'-]+")


def as_asked(text: str, names: Sequence[str]) -> list[str]:
    """Each of ``names`` as the question ``text`` writes it whole: the run of its words around it that name a thing
    ("m4" of "tok/s for a 70b on an m4 max macbook?" is "m4 max macbook"; "jetson" and "orin" of "the jetson orin
    nano" are "jetson orin nano"), stopped by a function word, a word saying what is asked, or punctuation. Names in
    one run are said once; a name the question does not write as words stays as it is."""
    tokens = list(_TOKEN_RUN.finditer(text))
    lowered = [t.group(0).lower().strip(".'") for t in tokens]
    verb = [w.endswith(("ing", "ed", "ly")) and known(w) for w in lowered]  # "going", "basically": never part of a name
    naming = [
        w not in STOPWORDS and w not in _NOT_NAMING and not w.endswith("'s") and not v for w, v in zip(lowered, verb, strict=True)
    ]
    out: list[str] = []
    for name in names:
        parts = name.lower().split()
        at = next((i for i in range(len(tokens)) if lowered[i : i + len(parts)] == parts), None)
        if at is None:
            out.append(name)
            continue
        start, end = at, at + len(parts)
        while start > 0 and naming[start - 1] and not text[tokens[start - 1].end() : tokens[start].start()].strip():
            start -= 1
        while end < len(tokens) and naming[end] and not text[tokens[end - 1].end() : tokens[end].start()].strip():
            end += 1
        out.append(text[tokens[start].start() : tokens[end - 1].end()])
    return list(dict.fromkeys(out))


def _prose_lines(text: str) -> list[str]:
    """The lines of a passage that are prose, links dropped: not a heading, nor a line in title case ("Memory Pools
    and Allocators"), where every word is capitalised and none is a name for being so. A line that prices what it names
    ("Jetson Orin Nano Super dev kit - $249") is no title, however many of its words are names."""
    out = []
    for line in _URL.sub(" ", text).splitlines():
        words = re.findall(r"[A-Za-z]+", line)
        if line.lstrip().startswith("#") or not words:
            continue
        priced = _PRICED.search(re.sub(r"\[[^\]]*\]", " ", line)) is not None  # a link's title aside
        if not priced and len(words) >= 2 and sum(1 for w in words if w[:1].isupper()) > TITLE_SHARE * len(words):
            continue
        out.append(line)
    return out


def _name_like(word: str) -> bool:
    """Written as a word of a name in a note: a capitalised word ("Shake", "Business"); not a version or a size
    ("v3", "48GB"), which a question's identifier is compared with, nor a kind of thing ("GPUs"), nor a function word."""
    plural = word.endswith("s") and word[:-1].isupper()
    return word[:1].isupper() and word.isalpha() and not plural and word.lower() not in STOPWORDS


def siblings(generation: Generation, q: Question, hits: Sequence[Hit]) -> list[Sibling]:
    """Two words of the question in a row ("raspberry boom") naming a thing the notes never name, where a retrieved
    note writes the first word as a name with another word after it ("Raspberry Shake"): the question asks about a
    sibling of what the notes cover.

    The first word must be a name in the notes' prose (capitalised in most of its occurrences, titles and headings
    aside, which capitalise every word); the second a word no retrieved passage writes in any spelling close to it
    (so not a typo or a plural of a word they use: "raspberry shaek", "the dell workstations"), nor one that says what
    is asked ("price"), nor one followed by a function word ("can Rivulet shard a model": a verb); and no passage of
    the index may hold the two in a row. The names the notes write count, not a page's (docs capitalise features).

    A name and a number ("saturn 4 ultra", "hero 13") are a sibling when a note writes the name with another number
    and never with this one ("Saturn 3 Ultra", "HERO12"; see :func:`_numbered_sibling`).

    Evidence, like a missing name: it weighs on the "not covered" decision, and a not-covered answer names both."""
    prose = ["\n".join(_prose_lines(h.chunk.text)) for h in hits if h.chunk.kind == "note"]
    words = [(m.group(0), m.start(), m.end()) for m in _QWORD.finditer(q.text)]
    if len(words) < 2 or not any(prose):
        return []
    texts = [_URL.sub(" ", f"{h.chunk.title}\n{h.chunk.heading}\n{h.chunk.text}") for h in hits]
    vocabulary = {w.lower() for text in texts for w in _WORD.findall(text)}
    out: list[Sibling] = []
    for i, ((a, _, a_end), (b, b_start, b_end)) in enumerate(itertools.pairwise(words)):
        if q.text[a_end:b_start].strip(" ") or a.lower() in STOPWORDS or b.lower() in STOPWORDS | _DETERMINERS:
            continue
        after = words[i + 2][0].lower() if i + 2 < len(words) and not q.text[b_end : words[i + 2][1]].strip(" ") else ""
        if b.isdigit() and a.isalpha():  # "saturn 4 ultra" where a note writes "Saturn 3 Ultra", "hero 13" beside "HERO12"
            covered = _numbered_sibling(generation, a, b, after, prose)
            if covered:
                out.append(Sibling(f"{a} {b}", covered))
            continue
        # two letters or more ("orin nx": a model's two letters; the stopwords above keep out "is", "on", "to")
        if len(b) < 2 or not b.isalpha() or _ASKING.fullmatch(b.lower()) or b.lower() in _NOT_NAMING:
            continue
        if b.lower().endswith(("ly", "ing", "ed")) and known(b.lower()):
            continue  # "the orin nano actually pulls", "the nano running": an adverb or a verb, never a name
        if (after in STOPWORDS or after in _PREPOSITIONS or after in _DETERMINERS) and after not in _AFTER_NAME:
            continue
        if difflib.get_close_matches(b.lower(), vocabulary, n=1, cutoff=SIMILAR_SPELLING):
            continue  # a word the passages use (or its typo, its plural): the question's own words, not another name
        word_a = re.compile(rf"(?<![\w-]){re.escape(a)}(?![\w-])", re.I)
        named = re.compile(rf"(?<![\w-])({re.escape(a)})[ \t]+(\w+)(?![\w-])((?-i:[ \t]+(?:[A-Z][\w-]*|[\w-]*\d[\w-]*))*)", re.I)
        found = [m for text in prose for m in named.finditer(text) if m.group(1)[:1].isupper() and _name_like(m.group(2))]
        if not found:
            continue
        every = [m.group(0) for text in prose for m in word_a.finditer(text)]
        if sum(1 for w in every if w[:1].isupper()) < NAME_SHARE * len(every):
            continue  # "the job finishes": a word the notes write in lower case ("job"), not a name ("Job Array")
        if generation.has_phrase(f"{a} {b}"):
            continue  # a passage retrieval did not bring writes it
        out.append(Sibling(f"{a} {b}", found[0].group(0).strip()))  # the name whole: "Raspberry Shake RS4D"
    return out


def _numbered_sibling(generation: Generation, a: str, number: str, after: str, prose: Sequence[str]) -> str | None:
    """The name a note writes where the question writes ``a`` and ``number`` ("Saturn 3 Ultra" for "saturn 4 ultra",
    "HERO12" for "hero 13"): the same name with another number, never this one, and the word after the number the same
    (so "runpod 3 days" is no sibling of "RunPod 4090"). The name must be written capitalised in the notes; no passage
    may hold the name with this number, spaced or joined."""
    if generation.has_phrase(f"{a} {number}") or generation.has_term(fold(f"{a}{number}"), "idents"):
        return None
    tail = rf"[ \t]+({re.escape(after)})(?![\w-])" if after and after not in STOPWORDS and not _ASKING.fullmatch(after) else ""
    named = re.compile(rf"(?<![\w-])({re.escape(a)})[ \t-]?(\d+)(?![\w.]){tail}", re.I)
    for text in prose:
        for m in named.finditer(text):
            if m.group(1)[:1].isupper() and m.group(2) != number:
                return m.group(0).strip()
    return None


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
