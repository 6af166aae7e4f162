"""The data the answerers share, below all of them: a retrieved passage (:class:`Hit`), a tool a
chat model may call (:class:`Tool`) and a call made to one (:class:`ToolCall`).

Kept apart so that the builtin answerer, the chat-model answerer, the prompt and the price tool
can all use them without importing one another.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..index.reader import StoredChunk

__all__ = ["Hit", "Tool", "ToolCall"]


@dataclass(frozen=True)
class Hit:
    """A retrieved passage: its cosine similarity to the question, and its fused rank score."""

    chunk: StoredChunk
    score: float  # cosine similarity to the question (the relevance floor applies to it)
    fused: float = 0.0  # ordering score: RRF for hybrid, the single list's rank for dense/keyword
    dense_rank: int | None = None  # 1-based rank in the dense list, None if not in it
    keyword_rank: int | None = None  # 1-based rank in the keyword list, None if not in it
    following: StoredChunk | None = None  # the next chunk of its document, for an answer that runs on
    table: tuple[StoredChunk, ...] = ()  # the section's other chunks of a table it holds rows of
    section: tuple[StoredChunk, ...] = ()  # a list split over chunks: its section's chunks in order, this one among them
    query: Any = field(default=None, compare=False, repr=False)  # the question's vector (numpy), for span similarity
    pointer: str = ""  # a page's passage found through a note's link: that note's line (hwqa.answer.linked)


@dataclass(frozen=True)
class Tool:
    """A function the chat model may call; ``run`` raises ToolArgumentError on invalid arguments."""

    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments object
    run: Callable[[Mapping[str, object]], object] = field(compare=False)

    def spec(self) -> dict[str, Any]:
        """The entry for the chat-completions ``tools=[...]`` parameter."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


@dataclass
class ToolCall:
    """A tool call made while answering: its name, the arguments sent and what it returned."""

    name: str
    arguments: dict[str, Any]
    result: Any

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "result": self.result}
