"""The facade the CLI, the web chat and the tests use: build the index, load an engine, ask.

An :class:`Engine` answers from the live index generation and notices when a rebuild switched
``CURRENT``: the next question loads the new generation (after verifying it). Each question is
answered entirely from one generation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import index as store
from .answer import Answer, BuiltinAnswerer, Citation, ToolCall, compose_price_answer
from .calc import PRICE_CALCULATOR_TOOL, render_price_result, run_price_calculator
from .embed import Embedder, make_embedder
from .errors import ConfigError, HwqaError, IndexCorruptError, PriceTableError, ToolArgumentError
from .llm import OpenAIAnswerer, Tool
from .pricequery import PriceQuery, parse_price_question
from .prices import PriceTable
from .retrieve import Hit, retrieve
from .settings import Settings, load_settings

if TYPE_CHECKING:
    from .build import BuildReport, build_index

Message = dict[str, Any]  # {"role": "user" | "assistant", "content": str}

__all__ = ["BuildReport", "Engine", "build_index", "load_settings"]


def __getattr__(name: str) -> Any:
    """``build_index`` and ``BuildReport`` import the build stack (fetcher, HTML extraction) when first asked for,
    so answering a question never loads it."""
    if name in ("BuildReport", "build_index"):
        from . import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


PRICE_TOOL = "price_calculator"
CAVEAT_QUERY = "caveats: TPUs need XLA-compatible code; GPUs are more versatile; prices vary by region and change"
_COMPUTABLE = ("budget_usd", "hours", "v100_hours", "hardware", "compare", "purchase_usd", "min_memory_gb")


def make_answerer(settings: Settings, embedder: Embedder) -> BuiltinAnswerer | OpenAIAnswerer:
    """The answer backend the settings name (``llm_backend``)."""
    backends: dict[str, Callable[[], BuiltinAnswerer | OpenAIAnswerer]] = {
        "builtin": lambda: BuiltinAnswerer(embedder, min_score=settings.min_score, max_sentences=settings.answer_sentences),
        "openai": lambda: OpenAIAnswerer.from_settings(settings, timeout=settings.llm_timeout),
    }
    if settings.llm_backend not in backends:
        raise ConfigError(f"unknown llm_backend '{settings.llm_backend}'; use one of: {', '.join(backends)}")
    return backends[settings.llm_backend]()


def price_query(question: str, history: Sequence[Message], table: PriceTable) -> PriceQuery | None:
    """The calculator request a question asks for, with context from earlier turns ("and with $1000?")."""
    previous: PriceQuery | None = None
    for message in history:
        if message.get("role") == "user":
            previous = parse_price_question(str(message.get("content", "")), table, previous) or previous
    query = parse_price_question(question, table, previous)
    if query is None or not any(query.to_tool_arguments().get(k) for k in _COMPUTABLE):
        return None
    return query


class Engine:
    """Answers questions from the index in ``settings.index``."""

    def __init__(self, settings: Settings, *, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.embedder = embedder or make_embedder(settings)
        self._lock = threading.Lock()
        self._generation: store.Generation | None = None
        self._prices: tuple[str, PriceTable] | None = None
        self.answerer = make_answerer(settings, self.embedder)
        self.caveats = BuiltinAnswerer(self.embedder, min_score=settings.min_score, max_sentences=2)

    @classmethod
    def load(cls, settings: Settings | None = None, **overrides: Any) -> Engine:
        """An engine over the configured index; raises a one-line error if there is none."""
        engine = cls(settings or load_settings(overrides))
        engine.generation()
        return engine

    def generation(self) -> store.Generation:
        """The live generation, reloaded when a build has switched ``CURRENT`` since the last call."""
        with self._lock:
            for attempt in range(5):
                gen_dir = store.current_generation_dir(self.settings.index)
                current = self._generation
                if current is not None and gen_dir is not None and gen_dir.name == current.name:
                    return current
                try:
                    loaded = store.open_current(self.settings.index, embedder=self.embedder.describe())
                except IndexCorruptError:
                    # Two quick builds can prune the generation we were opening; if CURRENT moved, try again.
                    if attempt < 4 and store.current_generation_dir(self.settings.index) != gen_dir:
                        continue
                    raise
                self._generation = loaded  # the old one is released when no query holds it any more
                return loaded
        raise AssertionError("unreachable")

    def price_table(self, gen: store.Generation) -> PriceTable:
        """The price tables as they were when ``gen`` was built (so answers match their citations)."""
        cached = self._prices
        if cached is not None and cached[0] == gen.name:
            return cached[1]
        table = PriceTable.from_json(gen.manifest.get("prices", {}))
        self._prices = (gen.name, table)
        return table

    def tools(self, gen: store.Generation) -> list[Tool]:
        """The tools offered to a chat model: the price calculator over this generation's tables."""
        table = self.price_table(gen)
        spec = PRICE_CALCULATOR_TOOL["function"]
        return [Tool(spec["name"], spec["description"], spec["parameters"], lambda a: run_price_calculator(a, table))]

    def status(self) -> dict[str, Any]:
        """What the index holds, for the web chat's header and ``hwqa status``."""
        gen = self.generation()
        m = gen.manifest
        links = m.get("links", {})
        by_status: dict[str, int] = {}
        for info in links.values():
            by_status[info.get("status", "?")] = by_status.get(info.get("status", "?"), 0) + 1
        return {
            "generation": gen.name,
            "built_at": m.get("built_at"),
            "notes": len(m.get("notes", {})),
            "chunks": gen.size,
            "links": by_status,
            "price_rows": len(m.get("prices", {}).get("rows", [])),
            "embedder": m.get("embedder", {}),
            "backend": self.answerer.name,
        }

    def ask(self, question: str, history: Sequence[Message] | None = None) -> Answer:
        """Answer ``question`` (``history``: earlier turns, OpenAI-style messages)."""
        answer: Answer | None = None
        for item in self.stream(question, history):
            if isinstance(item, Answer):
                answer = item
        assert answer is not None
        return answer

    def stream(self, question: str, history: Sequence[Message] | None = None) -> Iterator[str | Answer]:
        """Yield growing answer text, then the final :class:`Answer`."""
        question = (question or "").strip()
        if not question:
            raise HwqaError("the question is empty; type a question about your hardware notes")
        history = list(history or [])
        started = time.perf_counter()
        gen = self.generation()
        t_retrieve = time.perf_counter()
        hits = retrieve(gen, self.embedder, question, self.settings.top_k)
        t_answer = time.perf_counter()
        answer: Answer | None = None
        if isinstance(self.answerer, OpenAIAnswerer):
            for item in self.answerer.stream(question, hits, history, self.tools(gen)):
                if isinstance(item, Answer):
                    answer = item
                else:
                    yield item
        else:
            answer = self._builtin(self.answerer, gen, question, history, hits)
        assert answer is not None
        done = time.perf_counter()
        answer.timings = {
            "load": t_retrieve - started,
            "retrieve": t_answer - t_retrieve,
            "answer": done - t_answer,
            "total": done - started,
        }
        yield answer.text
        yield answer

    def _builtin(
        self, answerer: BuiltinAnswerer, gen: store.Generation, question: str, history: Sequence[Message], hits: list[Hit]
    ) -> Answer:
        table = self.price_table(gen)
        from_notes = answerer.answer(question, hits)
        query = price_query(question, history, table) if table.rows else None
        if query is None:
            return from_notes
        arguments = query.to_tool_arguments()
        try:
            result = run_price_calculator(arguments, table)
        except (ToolArgumentError, PriceTableError) as exc:
            call = ToolCall(PRICE_TOOL, arguments, {"error": str(exc)})
            text = f"The price calculator could not answer: {exc}\n\n{from_notes.text}"
            return Answer(text, from_notes.citations, [call], covered=from_notes.covered)
        caveat_hits = retrieve(gen, self.embedder, CAVEAT_QUERY, 4)
        caveats = self.caveats.answer(CAVEAT_QUERY, caveat_hits)
        return compose_price_answer(
            render_price_result(result),
            self._price_sources(gen, result),
            ToolCall(PRICE_TOOL, arguments, result),
            from_notes,
            caveats,
        )

    def _price_sources(self, gen: store.Generation, result: Mapping[str, Any]) -> list[Citation]:
        """One citation per price note used, listing the rows (with their lines) the result relied on."""
        rows: dict[str, list[Mapping[str, Any]]] = {}
        for option in result.get("options", []):
            rows.setdefault(str(option["note"]), []).append(option)
        citations = []
        for note, options in rows.items():
            first = options[0]
            section = gen.section_at(note, min(int(o["line"]) for o in options))
            lines = [
                f"line {o['line']}: {o['hardware']} ({o['provider']}, {o['pricing']}) ${o['usd_per_hour']:.2f}/h"
                + (f", as of {o['as_of']}" if o.get("as_of") else "")
                + (f", source {o['source']}" if o.get("source") else "")
                for o in options
            ]
            citations.append(
                Citation(
                    n=0,
                    title=str(first.get("note_title") or note),
                    source=note,
                    url=None,
                    heading=section.heading if section else "",
                    text="\n".join(lines),
                    score=1.0,
                )
            )
        return citations
