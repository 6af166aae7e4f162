"""A chat model's answer that can be trusted: the calculator first, every claim checked, the notes' words otherwise.

:class:`GroundedAnswerer` wraps the OpenAI-compatible answerer (:mod:`hwqa.answer.chat.llm`):

1. A price question is planned by hwqa (the planner the builtin answerer uses,
   :meth:`hwqa.answer.pricetool.PriceTool.plan`) and calculated before the model is asked; the result
   goes to the model with the passages, heads the answer (cited to the price notes) and is the
   answer's first tool call, whatever the model does. A model that calls the tool itself still can.
2. The model's text is checked sentence by sentence against the passages it cites and the
   calculator's results (:mod:`hwqa.answer.chat.claims`), while it streams: nothing is shown until a sentence
   is supported, then each finished sentence is shown checked (unsupported ones marked).
3. When the model's answer has no supported claim, repeats its instructions, times out or fails,
   the answer is the builtin answerer's (quotes from the notes, cited) under one line saying why
   the model's answer is not shown (:attr:`hwqa.answer.answer.Answer.fallback`). Never an empty or
   uncited model answer presented as an answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...errors import LLMError, PriceTableError, ToolArgumentError
from ...prices import CalcResult, render_price_result
from ...prices.costs import answer_costs
from ..answer import Answer, Citation, CitationList, Claim, final_answer
from ..base import Hit, Tool, ToolCall
from ..builtin import BuiltinAnswerer
from ..pricetool import PriceTool, compose_cost_answer
from ..question import Question
from .claims import SUPPORTED, Checked, Checker
from .llm import Generated, OpenAIAnswerer

NOT_SUPPORTED = "none of its sentences was found in the passages it cites"
WITHHELD_REASON = "it repeated its hidden instructions"


@dataclass
class _Plan:
    """The calculation made before the model is asked: its call, its text, and the price notes it cites."""

    call: ToolCall
    text: str = ""
    sources: list[Citation] = field(default_factory=list)

    def head(self) -> tuple[str, list[Citation]]:
        """The answer's opening: the calculator's table cited to the price notes (or why it could not answer)."""
        if not self.text:
            return f"The price calculator could not answer: {self.call.result.get('error')}", []
        cites = CitationList()
        marks = "".join(f"[{cites.add(c)}]" for c in self.sources)
        return f"{self.text.rstrip()}\n\nPrices from your price table {marks}.".replace(" .", "."), cites.citations


def tool_evidence(call: ToolCall) -> str:
    """What a tool result says, as text a sentence can be checked against."""
    result = call.result
    if isinstance(result, Mapping) and "options" in result:
        try:
            return render_price_result(CalcResult.from_json(result), max_rows=10_000)
        except (KeyError, TypeError, ValueError):
            pass
    return json.dumps(result, ensure_ascii=False, default=str)


class GroundedAnswerer:
    """The chat model's answer, checked claim by claim against the notes (see the module doc)."""

    name = "openai"

    def __init__(self, model: OpenAIAnswerer, notes: BuiltinAnswerer) -> None:
        self.model = model
        self.notes = notes

    def answer(
        self, question: Question, hits: Sequence[Hit], history: Sequence[Mapping[str, Any]] = (), tools: Sequence[Tool] = ()
    ) -> Answer:
        return final_answer(self.stream(question, hits, history, tools))

    def stream(
        self, question: Question, hits: Sequence[Hit], history: Sequence[Mapping[str, Any]], tools: Sequence[Tool] = ()
    ) -> Iterator[str | Answer]:
        plan = _plan(tools, question, history)
        head, head_citations = plan.head() if plan else ("", [])
        evidence = [(plan.call.name, tool_evidence(plan.call))] if plan else []
        checker = Checker(hits, evidence, first=len(head_citations) + 1)
        generated: Generated | None = None
        shown = ""
        try:
            for item in self.model.generate(question, hits, history, tools, context=plan.text if plan else ""):
                if isinstance(item, Generated):
                    generated = item
                    continue
                partial = checker.check(item, complete_only=True)
                if partial.supported:
                    display = _join(head, partial.text)
                    if display != shown:
                        shown = display
                        yield display
        except LLMError as exc:
            yield self._fallback(question, hits, history, tools, f"the chat model failed: {exc}", [])
            return
        assert generated is not None
        calls = ([plan.call] if plan else []) + generated.calls
        if generated.withheld:
            yield self._fallback(question, hits, history, tools, WITHHELD_REASON, [])
            return
        if generated.calls:  # the model's own calculations are evidence too
            evidence += [(c.name, tool_evidence(c)) for c in generated.calls if "error" not in _mapping(c.result)]
            checker = Checker(hits, evidence, first=len(head_citations) + 1)
        checked = checker.check(generated.text)
        if not checked.supported:
            yield self._fallback(question, hits, history, tools, NOT_SUPPORTED, checked.claims)
            return
        yield _answer(head, head_citations, checked, calls, backend=self.name)

    def _fallback(
        self,
        question: Question,
        hits: Sequence[Hit],
        history: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool],
        reason: str,
        claims: list[Claim],
    ) -> Answer:
        """The builtin answerer's cited answer, under one line saying why the model's answer is not shown."""
        notes = self.notes.answer(question, hits, history, tools)
        line = f"_The chat model's answer is not shown ({reason}); here is what your notes say._"
        return replace(
            notes,
            text=f"{line}\n\n{notes.text}",
            backend=notes.backend,
            claims=[replace(c, shown=False) for c in claims],
            fallback=reason,
        )


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _plan(tools: Sequence[Tool], question: Question, history: Sequence[Mapping[str, Any]]) -> _Plan | None:
    """The calculation a price question implies, done now (None when it is not a price question)."""
    price = next((t for t in tools if isinstance(t, PriceTool)), None)
    costs = answer_costs(question.price, price.table) if price is not None else None
    if price is not None and costs is not None:  # a plan, energy or purchase sum over the notes' facts
        worked = compose_cost_answer(costs, price, Answer("", covered=False))
        return _Plan(worked.tool_calls[0], costs.text, worked.citations)
    asked = price.ask(question, history) if price is not None and price.table.rows else None
    if price is not None and asked is not None and asked.problems:  # an amount it cannot use: said, not replaced
        return _Plan(ToolCall(price.name, {}, {"error": "; ".join(asked.problems)}))
    request = price.plan(question, history) if price is not None else None
    if price is None or request is None:
        return None
    arguments = request.to_arguments()
    try:
        result = price.compute(request)
    except (ToolArgumentError, PriceTableError) as exc:
        return _Plan(ToolCall(price.name, arguments, {"error": str(exc)}))
    return _Plan(ToolCall(price.name, arguments, result.to_json()), render_price_result(result), price.sources(result))


def _join(head: str, text: str) -> str:
    return f"{head}\n\n{text}" if head and text else head or text


def _answer(head: str, head_citations: list[Citation], checked: Checked, calls: list[ToolCall], *, backend: str) -> Answer:
    citations = head_citations + checked.citations
    covered = any(c.verdict == SUPPORTED for c in checked.claims)
    return Answer(_join(head, checked.text), citations, calls, backend=backend, covered=covered, claims=checked.claims)
