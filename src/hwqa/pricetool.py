"""The price calculator as a tool over one index generation's price tables.

A chat model calls it with JSON arguments (:class:`hwqa.llm.Tool`). The builtin answerer has no
model, so the tool also says which arguments a question implies (:meth:`PriceTool.plan`, with
follow-ups such as "and with $1000?" read against earlier turns), which price rows to cite
(:meth:`PriceTool.sources`) and what the notes say to be careful about (:attr:`PriceTool.caveats`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .answer import Answer, Citation
from .calc import PRICE_CALCULATOR_TOOL, run_price_calculator
from .index import StoredChunk
from .llm import Tool
from .pricequery import PriceQuery, parse_price_question
from .prices import PriceTable

PRICE_TOOL = str(PRICE_CALCULATOR_TOOL["function"]["name"])
_COMPUTABLE = ("budget_usd", "hours", "v100_hours", "hardware", "compare", "purchase_usd", "min_memory_gb")

Message = Mapping[str, Any]


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


@dataclass(frozen=True)
class PriceTool(Tool):
    """The ``price_calculator`` tool bound to one generation's tables."""

    table: PriceTable = field(compare=False)
    section_at: Callable[[str, int], StoredChunk | None] = field(compare=False)
    caveats: Callable[[], Answer] = field(compare=False)  # what the notes warn about prices (computed on use)

    @classmethod
    def over(
        cls, table: PriceTable, section_at: Callable[[str, int], StoredChunk | None], caveats: Callable[[], Answer]
    ) -> PriceTool:
        spec = PRICE_CALCULATOR_TOOL["function"]
        return cls(
            str(spec["name"]),
            str(spec["description"]),
            dict(spec["parameters"]),
            lambda arguments: run_price_calculator(arguments, table),
            table,
            section_at,
            caveats,
        )

    def plan(self, question: str, history: Sequence[Message]) -> dict[str, Any] | None:
        """The arguments ``question`` implies, or None when it is not a price question (or no table exists)."""
        if not self.table.rows:
            return None
        query = price_query(question, history, self.table)
        return query.to_tool_arguments() if query is not None else None

    def sources(self, result: Mapping[str, Any]) -> list[Citation]:
        """One citation per price note used, listing the rows (with their lines) the result relied on."""
        rows: dict[str, list[Mapping[str, Any]]] = {}
        for option in result.get("options", []):
            rows.setdefault(str(option["note"]), []).append(option)
        citations = []
        for note, options in rows.items():
            first = options[0]
            section = self.section_at(note, min(int(o["line"]) for o in options))
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
