"""The facade the CLI, the web chat and the tests use: build the index, load an engine, ask.

An :class:`Engine` answers from the live index generation and notices when a rebuild switched
``CURRENT``: the next question loads the new generation (after verifying it). Each question is
answered entirely from one generation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .answer.answer import Answer, Answerer, not_covered
from .answer.base import Hit, Tool
from .answer.budget import read_question
from .answer.builtin import BuiltinAnswerer
from .answer.chat.grounded import GroundedAnswerer
from .answer.chat.llm import OpenAIAnswerer
from .answer.linked import follow_links
from .answer.priceplan import resolve_reference
from .answer.pricetool import PriceTool, computable
from .answer.question import Question, parse_question
from .answer.retrieve import Filter, admitted, as_asked, name_evidence, retrieve, with_surroundings
from .answer.safety import install_log_redaction, neutralise, neutralise_answer
from .errors import ConfigError, HwqaError
from .index import reader as store
from .index.embed import Embedder, make_embedder
from .index.status import IndexStatus
from .prices import HARDWARE_TYPES, Found, PriceTable, price_table_from
from .prices.costs import answer_costs
from .prices.factmatch import tiers_asked
from .prices.table import OTHER_TYPE
from .settings import Settings, load_settings

if TYPE_CHECKING:
    from .build.builder import BuildReport, build_index
    from .build.compact import compact_index

Message = dict[str, Any]  # {"role": "user" | "assistant", "content": str}

__all__ = ["BuildReport", "Engine", "build_index", "compact_index", "load_settings"]

install_log_redaction()  # no API-key-shaped string from notes or pages reaches a log


def __getattr__(name: str) -> Any:
    """``build_index``, ``compact_index`` and ``BuildReport`` import the build stack when first asked for,
    so answering a question never loads it."""
    if name in ("BuildReport", "build_index"):
        from .build import builder

        return getattr(builder, name)
    if name == "compact_index":
        from .build.compact import compact_index

        return compact_index
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


FOLLOWED = 3  # the best hits whose next chunk the answerer may read too

CAVEAT_HITS = 8  # passages searched for what the notes advise about the hardware a price answer compares

SUPERLATIVE_REACH = 3  # a superlative retrieves this many times top_k passages, to compare every candidate

HISTORY_MESSAGES = 40  # earlier messages a question is read with at most (the newest); each user turn is re-read


def bounded_history(history: Sequence[Message] | None, max_chars: int) -> list[Message]:
    """The newest earlier turns, each user turn cut to the question length cap: a follow-up re-reads
    them ("and with $1000?"), so what an API client sends as history costs no more than questions."""
    turns = list(history or [])[-HISTORY_MESSAGES:]
    return [
        {**m, "content": m["content"][:max_chars]}
        if isinstance(m, dict) and m.get("role") == "user" and isinstance(m.get("content"), str)
        else m
        for m in turns
    ]


def _pages_linked_from(manifest: dict[str, Any], notes: frozenset[str]) -> set[str]:
    """The URLs of the articles the notes (by path) link to: their prices pass the notes' filter too."""
    titles = {str(info.get("title")) for rel, info in (manifest.get("notes") or {}).items() if rel in notes}
    return {
        url
        for url, info in (manifest.get("links") or {}).items()
        if titles.intersection(info.get("linked_from") or info.get("notes") or [])
    }


def _filtered_prices(gen: store.Generation, table: PriceTable, notes: frozenset[str], pages: set[str]) -> PriceTable:
    """The prices of the notes a filter admits (and of the pages they link to), merged among themselves:
    a note's own price stays even where the whole table prefers another note's for the same offer.
    Read from the facts each segment keeps per note; the whole table's rows of those notes if that fails."""
    records: dict[str, Any] = gen.manifest.get("notes") or {}
    wanted: dict[str, list[str]] = {}
    for rel in sorted(notes):
        seg = (records.get(rel) or {}).get("seg")
        if seg:
            wanted.setdefault(str(seg), []).append(rel)
    try:
        facts: dict[str, Any] = {}
        for seg in gen.segments:
            name = str(seg.entry.get("name"))
            if name in wanted:
                facts.update(seg.note_prices(wanted[name]))
        links: dict[str, Any] = gen.manifest.get("links") or {}
        articles = [Found.from_json(links[url]["prices"]) for url in sorted(pages) if (links.get(url) or {}).get("prices")]
        return price_table_from([facts.get(rel, {}) for rel in sorted(notes)], articles)
    except (KeyError, TypeError, ValueError):
        kept = [r for r in table.rows if r.note in notes or r.note in pages]
        return PriceTable(kept, list(table.problems), facts=[f for f in table.facts if f.note in notes or f.note in pages])


def embedder_id(settings: Settings) -> str:
    """'backend:model': what the answer scorer's not-covered threshold was calibrated with (see hwqa.answer.scorer)."""
    return f"{settings.embed_backend}:{settings.embed_model}"


def make_answerer(settings: Settings) -> Answerer:
    """The answer backend the settings name (``llm_backend``)."""
    backends: dict[str, Callable[[], Answerer]] = {
        "builtin": lambda: BuiltinAnswerer(
            min_score=settings.min_score, max_sentences=settings.answer_sentences, embedder=embedder_id(settings)
        ),
        "openai": lambda: GroundedAnswerer(
            OpenAIAnswerer.from_settings(settings, timeout=settings.llm_timeout),
            BuiltinAnswerer(
                min_score=settings.min_score, max_sentences=settings.answer_sentences, embedder=embedder_id(settings)
            ),
        ),
    }
    if settings.llm_backend not in backends:
        raise ConfigError(f"unknown llm_backend '{settings.llm_backend}'; use one of: {', '.join(backends)}")
    return backends[settings.llm_backend]()


def describe_filter(flt: Filter) -> str:
    """The notes a filter admits, in words: 'the notes tagged “prices”', '… or the note “tpu.md”'."""

    def quoted(values: Sequence[str]) -> str:
        names = [f"“{v}”" for v in values]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" or {names[-1]}"

    parts = []
    if flt.tags:
        parts.append(f"the notes tagged {quoted(flt.tags)}")
    if flt.notes:
        parts.append(f"the note{'s' if len(flt.notes) > 1 else ''} {quoted(flt.notes)}")
    one = not flt.tags and len(flt.notes) == 1
    return " and ".join(parts) + ((" and the articles it links to" if one else " and the articles they link to") if parts else "")


def filter_problem(gen: store.Generation, flt: Filter) -> str | None:
    """Why a filter admits no note at all, in one line saying what to do; None when it admits some."""
    if admitted(gen, flt)[1]:
        return None
    tags = sorted({str(t) for c in gen.all_chunks() if c.kind == "note" for t in c.meta.get("tags", [])}, key=str.casefold)
    known = {t.casefold().lstrip("#") for t in tags}
    unknown = [t for t in flt.tags if t.casefold().lstrip("#") not in known]
    listed = ", ".join(tags[:12]) + (f" and {len(tags) - 12} more" if len(tags) > 12 else "") if tags else "none"
    if unknown:
        which = "the tag" if len(unknown) == 1 else "the tags"
        return f"no note has {which} {', '.join(f'“{t}”' for t in unknown)}; the tags in your notes are: {listed}"
    if flt.notes and not admitted(gen, Filter(notes=flt.notes))[1]:
        names = ", ".join(f"“{n}”" for n in flt.notes)
        return f"no note is called {names}; name a note by its path, file name or title (hwqa status counts them)"
    return f"no note matches {describe_filter(flt).removesuffix(' and the articles they link to')}; widen the filter"


class Engine:
    """Answers questions from the index in ``settings.index``."""

    def __init__(self, settings: Settings, *, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.embedder = embedder or make_embedder(settings)
        self._lock = threading.Lock()
        self._generation: store.Generation | None = None
        self._prices: tuple[str, PriceTable] | None = None
        self.answerer = make_answerer(settings)
        self.caveats = BuiltinAnswerer(min_score=settings.min_score, max_sentences=2, embedder=embedder_id(settings))
        # lines about the server for the web chat's index summary, '' when there is nothing to say
        # (the notes watcher registers one: whether it stopped and was restarted)
        self.notices: list[Callable[[], str]] = []

    @classmethod
    def load(cls, settings: Settings | None = None, **overrides: Any) -> Engine:
        """An engine over the configured index; raises a one-line error if there is none."""
        engine = cls(settings or load_settings(overrides))
        engine.generation()
        return engine

    def generation(self) -> store.Generation:
        """The live generation, reloaded when a build has switched ``CURRENT`` since the last call."""
        with self._lock:
            gen_dir = store.current_generation_dir(self.settings.index)
            current = self._generation
            if current is not None and gen_dir is not None and gen_dir.name == current.name:
                return current
            # open_current reads CURRENT again, and again if two quick builds prune what it was opening
            loaded = store.open_current(self.settings.index, embedder=self.embedder.describe())
            self._generation = loaded  # the old one is released when no query holds it any more
            return loaded

    def warm(self) -> None:
        """Load what a first question would (the index, the model, FAISS and the keyword table, the word
        list a question's parse reads), so it is as quick as the next: the web chat does this before it
        listens. The first search imports FAISS, 0.1-0.3 s that the first question paid before."""
        parse_question("warm up")
        self.search("warm up")

    def price_table(self, gen: store.Generation) -> PriceTable:
        """The price tables as they were when ``gen`` was built (so answers match their citations)."""
        cached = self._prices
        if cached is not None and cached[0] == gen.name:
            return cached[1]
        table = PriceTable.from_json(gen.manifest.get("prices", {}))
        self._prices = (gen.name, table)
        return table

    def tools(
        self, gen: store.Generation, flt: Filter | None = None, question: str = "", *, preemptible: bool = False
    ) -> list[Tool]:
        """The tools an answerer may use: the price calculator over this generation's tables (with a
        filter, only the rows of the notes it admits; ``preemptible``: spot/preemptible prices count too).
        Its caveats are what the passages found for ``question`` (within the filter) advise about the
        kinds of hardware priced."""
        table = self.price_table(gen)
        if flt:
            notes = admitted(gen, flt)[1]
            pages = _pages_linked_from(gen.manifest, notes)
            table = _filtered_prices(gen, table, notes, pages)

        def caveats() -> Answer:
            if not question:
                return Answer("", covered=False)
            names = sorted({*HARDWARE_TYPES, *(r.type for r in table.rows), *table.hardware_names()} - {OTHER_TYPE})
            return self.caveats.advice(retrieve(gen, self.embedder, question, CAVEAT_HITS, flt=flt), names)

        return [PriceTool.over(table, gen.section_at, caveats, preemptible=preemptible)]

    def status(self) -> IndexStatus:
        """What the index holds, for the web chat's header and ``hwqa status``."""
        gen = self.generation()
        return IndexStatus.from_manifest(gen.name, gen.manifest, chunks=gen.size, backend=self.answerer.name)

    def search(
        self, question: str, k: int | None = None, *, flt: Filter | None = None, retriever: str | None = None
    ) -> list[Hit]:
        """The passages ``retriever`` (default: the configured one) finds for ``question``, best first."""
        mode = retriever or self.settings.retriever
        gen, k = self.generation(), k or self.settings.top_k
        return follow_links(gen, retrieve(gen, self.embedder, question, k, mode=mode, flt=flt), question, k, mode)

    def hits(self, gen: store.Generation, q: Question, flt: Filter | None = None) -> list[Hit]:
        """The passages an answer to ``q`` is read from, best first."""
        # A superlative ("which GPU has the most memory?") is answered by comparing every candidate: look wider.
        k = self.settings.top_k * (SUPERLATIVE_REACH if q.superlative else 1)
        hits = retrieve(gen, self.embedder, q.text, k, mode=self.settings.retriever, flt=flt)
        # A note's link line that matches the question best leads to the page it links: its best passages join.
        hits = follow_links(gen, hits, q.text, k, self.settings.retriever)
        # An answer often runs on past the passage that was found: the best hits carry their next chunk,
        # and the rest of a table split across chunks that they hold rows of.
        return [with_surroundings(gen, h) if i < FOLLOWED else h for i, h in enumerate(hits)]

    def name_evidence(
        self, gen: store.Generation, q: Question, tools: Sequence[Tool], history: Sequence[Message] = (), hits: Sequence[Hit] = ()
    ) -> Question:
        """``q`` with the names it asks about that no passage holds (see :func:`hwqa.answer.retrieve.name_evidence`):
        evidence for the answerer's "not covered" decision. For a price question the calculator can answer (or a
        budget over notes with no prices, which the answer must say) only a sibling of a name the passages write
        ("raspberry boom" where they write "Raspberry Shake"): it is never turned away for a word the passages lack,
        but may be for asking about another thing than the one they price."""
        evidence = name_evidence(gen, q, hits)
        price = next((t for t in tools if isinstance(t, PriceTool)), None)
        costs = answer_costs(q.price, price.table) if price is not None else None
        if costs is not None:
            tiers = tiers_asked(q.price.text, evidence.unheard)  # "the elevenlabs scale plan": a sibling of the ones priced
            evidence = evidence.siblings_only()  # a plan, energy or purchase question the notes' facts answer
            if tiers:
                covering = [*evidence.covering, *(f.subject for f in costs.facts)]
                evidence = replace(
                    evidence,
                    missing=[*evidence.missing, *tiers],
                    asked=evidence.asked + len(tiers),  # a tier is a name asked about: its share weighs
                    kin=[*evidence.kin, *tiers],
                    covering=covering,
                )
        else:
            asked = price.ask(q, history) if price is not None else None
            if price is not None and asked is not None and (not price.table.rows or computable(asked.request) or asked.problems):
                evidence = evidence.siblings_only()
        if not evidence.missing and not evidence.unknown and not evidence.unheard:
            return q
        return replace(
            q,
            missing=tuple(as_asked(q.text, evidence.missing)),  # named as the question writes them: "m4 max macbook"
            missing_share=evidence.share,
            unknown=tuple(as_asked(q.text, evidence.unknown)),
            unheard=tuple(evidence.unheard),
            covering=tuple(evidence.covering),
        )

    def ask(
        self, question: str, history: Sequence[Message] | None = None, *, flt: Filter | None = None, preemptible: bool = False
    ) -> Answer:
        """Answer ``question`` (``history``: earlier turns, OpenAI-style messages; ``flt``: tags/notes to search;
        ``preemptible``: the price calculator counts spot/preemptible prices too)."""
        answer: Answer | None = None
        for item in self.stream(question, history, flt=flt, preemptible=preemptible):
            if isinstance(item, Answer):
                answer = item
        assert answer is not None
        return answer

    def stream(
        self, question: str, history: Sequence[Message] | None = None, *, flt: Filter | None = None, preemptible: bool = False
    ) -> Iterator[str | Answer]:
        """Yield growing answer text, then the final :class:`Answer`."""
        question = (question or "").strip()
        if not question:
            raise HwqaError("the question is empty; type a question about your hardware notes")
        # the one parse (retrieval, "not covered", the answerer and the price planner read it), within
        # the length cap and the time budget: in a worker process unless this is the main thread
        q = read_question(question, max_chars=self.settings.question_max_chars, budget=self.settings.question_budget_s)
        history = bounded_history(history, self.settings.question_max_chars)
        started = time.perf_counter()
        gen = self.generation()
        problem = filter_problem(gen, flt) if flt else None
        if problem:
            raise HwqaError(problem)
        earlier = next((str(m.get("content", "")) for m in reversed(history) if m.get("role") == "user"), "")
        took = ""
        if earlier:  # "how much memory does it have?": "it" is the hardware the question before named
            rewritten, took = resolve_reference(q, parse_question(earlier), self.price_table(gen))
            if took:
                q = parse_question(rewritten)
        t_retrieve = time.perf_counter()
        hits = self.hits(gen, q, flt)
        t_answer = time.perf_counter()
        answer: Answer | None = None
        tools = self.tools(gen, flt, question, preemptible=preemptible)
        q = self.name_evidence(gen, q, tools, history, hits)
        if (q.missing or q.unknown) and not isinstance(self.answerer, BuiltinAnswerer):
            # A chat model is not asked about a thing no passage names; the builtin answerer weighs the evidence.
            answer = not_covered(hits, missing=q.absent, unheard=q.unheard, covering=q.covering)
        else:
            for item in self.answerer.stream(q, hits, history, tools):
                if isinstance(item, Answer):
                    answer = item
                else:
                    yield neutralise(item, [h.chunk.url for h in hits])
        assert answer is not None
        if took:
            answer = replace(answer, text=f"{took}\n\n{answer.text}")
        if flt and not answer.covered:  # say which notes were searched: the filter may be why
            answer = replace(answer, text=f"I searched only {describe_filter(flt)} (your filter). {answer.text}")
        # No live image, raw HTML or outside link reaches a reader (a fallback's line may name the model's server).
        answer = neutralise_answer(answer, [self.settings.llm_base_url] if answer.fallback else [])
        done = time.perf_counter()
        answer.timings = {
            "load": t_retrieve - started,
            "retrieve": t_answer - t_retrieve,
            "answer": done - t_answer,
            "total": done - started,
        }
        yield answer.text
        yield answer
