"""The facade the CLI, the web chat and the tests use: build the index, load an engine, ask.

An :class:`Engine` answers from the live index generation and notices when a rebuild switched
``CURRENT``: the next question loads the new generation (after verifying it). Each question is
answered entirely from one generation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from . import index as store
from .answer import Answer, BuiltinAnswerer
from .build import BuildReport, build_index
from .embed import Embedder, make_embedder
from .errors import HwqaError, IndexCorruptError
from .retrieve import retrieve
from .settings import Settings, load_settings

Message = dict[str, Any]  # {"role": "user" | "assistant", "content": str}

__all__ = ["BuildReport", "Engine", "build_index", "load_settings"]


class Engine:
    """Answers questions from the index in ``settings.index``."""

    def __init__(self, settings: Settings, *, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.embedder = embedder or make_embedder(settings)
        self._lock = threading.Lock()
        self._generation: store.Generation | None = None
        self.answerer = BuiltinAnswerer(
            self.embedder, min_score=settings.min_score, max_sentences=settings.answer_sentences
        )

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
            "embedder": m.get("embedder", {}),
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
        started = time.perf_counter()
        gen = self.generation()
        t_retrieve = time.perf_counter()
        hits = retrieve(gen, self.embedder, question, self.settings.top_k)
        t_answer = time.perf_counter()
        answer = self.answerer.answer(question, hits)
        done = time.perf_counter()
        answer.timings = {
            "load": t_retrieve - started,
            "retrieve": t_answer - t_retrieve,
            "answer": done - t_answer,
            "total": done - started,
        }
        yield answer.text
        yield answer
