"""The price calculator as a tool: the JSON schema a chat model sees, the checks on the JSON it
sends, and :class:`PriceTool`, the calculator bound to one index generation's price table.

Dicts exist only here, at the model's boundary: :func:`request_from_arguments` turns the model's
JSON arguments into a :class:`~hwqa.prices.request.CalcRequest` (never evaluating anything), and
:func:`run_price_calculator` returns the result's JSON. The builtin answerer has no model, so the
tool also says which request a question implies (:meth:`PriceTool.plan`, with follow-ups such as
"and with $1000?" read against earlier turns), computes it (:meth:`PriceTool.compute`), says which
price rows to cite (:meth:`PriceTool.sources`) and what the notes say to be careful about
(:attr:`PriceTool.caveats`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ToolArgumentError
from ..index.reader import StoredChunk
from ..prices.calculator import check_and_calculate
from ..prices.costs import CostAnswer
from ..prices.request import (
    MAX_BUDGET_USD,
    MAX_COMPARE,
    MAX_DEVICES,
    MAX_HOURS,
    MAX_MEMORY_GB,
    MAX_NAME_CHARS,
    MAX_PURCHASE_USD,
    MAX_V100_HOURS,
    CalcRequest,
    check_request,
)
from ..prices.result import CalcResult
from ..prices.table import HARDWARE_TYPES, HardwareType, PriceFact, PriceRow, PriceTable, hardware_matches
from .answer import Answer, Citation
from .base import Tool, ToolCall
from .priceplan import PricePlan, plan_price_question, plan_price_request
from .question import Question, parse_question

__all__ = [
    "PRICE_CALCULATOR_TOOL",
    "PriceTool",
    "price_request",
    "request_from_arguments",
    "run_price_calculator",
    "validate_arguments",
]

PRICE_CALCULATOR_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "price_calculator",
        "description": (
            "Compare ML training hardware (GPUs, TPUs, CPUs) using the price tables in the user's notes. "
            "Give budget_usd to see how many hours and V100-equivalent hours each option buys; hours "
            "(optionally with hardware: the job takes that many hours on it) or v100_hours to see each "
            "option's cost and wall time; nothing to list prices. Numbers must be plain JSON numbers "
            "(no expressions, no units). Returns ranked options with their source note and line, a "
            "recommendation with its reason, and the options excluded with reasons."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "budget_usd": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": MAX_BUDGET_USD,
                    "description": "Money to spend, in US dollars.",
                },
                "hours": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": MAX_HOURS,
                    "description": "Wall-clock hours: with hardware, how long the job takes on it; "
                    "without, how long to rent each option.",
                },
                "hardware": {
                    "type": "string",
                    "maxLength": MAX_NAME_CHARS,
                    "description": "A hardware name from the price table (e.g. 'V100', 'TPU v3'). With hours: "
                    "the hardware the hours refer to; otherwise: only compare this hardware.",
                },
                "compare": {
                    "type": "array",
                    "items": {"type": "string", "maxLength": MAX_NAME_CHARS},
                    "maxItems": MAX_COMPARE,
                    "description": "Only compare these hardware names.",
                },
                "v100_hours": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": MAX_V100_HOURS,
                    "description": "Size of the job in NVIDIA V100-hours (instead of hours).",
                },
                "devices": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_DEVICES,
                    "description": "Number of devices used together (default 1).",
                },
                "min_memory_gb": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": MAX_MEMORY_GB,
                    "description": "Memory each device needs, in GB; rows without memory are excluded.",
                },
                "allow_preemptible": {
                    "type": "boolean",
                    "description": "Also include preemptible/spot prices (default: on-demand only).",
                },
                "purchase_usd": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": MAX_PURCHASE_USD,
                    "description": "Price of buying hardware instead, in US dollars, for a buy-vs-rent break-even.",
                },
                "hours_per_day": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": 24,
                    "description": "Hours of use per day, for the break-even in days (default 24).",
                },
                "providers": {
                    "type": "array",
                    "items": {"type": "string", "maxLength": MAX_NAME_CHARS},
                    "maxItems": MAX_COMPARE,
                    "description": "Only these providers, as the price table names them (e.g. 'AWS', 'GCP'); default all.",
                },
                "types": {
                    "type": "array",
                    "items": {"type": "string", "enum": list(HARDWARE_TYPES)},
                    "minItems": 1,
                    "maxItems": 3,
                    "description": "Kinds of hardware to compare (default all).",
                },
            },
            "required": [],
            "additionalProperties": False,
        },
    },
}

_ALLOWED_KEYS = tuple(PRICE_CALCULATOR_TOOL["function"]["parameters"]["properties"])
_TYPES: dict[str, HardwareType] = {t: t for t in HARDWARE_TYPES}


def _json_number(args: Mapping[str, object], key: str) -> float | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        kind = "a string" if isinstance(value, str) else type(value).__name__
        raise ToolArgumentError(f"{key} must be a plain number like 500, not {kind} ({str(value)[:40]!r})")
    return value


def _devices(args: Mapping[str, object]) -> int:
    raw = args.get("devices")
    if raw is None:
        return 1
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise ToolArgumentError(f"devices must be an integer from 1 to {MAX_DEVICES}, not {str(raw)[:40]!r}")
    if not math.isfinite(raw) or raw != int(raw):
        raise ToolArgumentError(f"devices must be a whole number from 1 to {MAX_DEVICES}, not {raw!r}")
    return int(raw)


def _list(args: Mapping[str, object], key: str, wrong_type: str) -> Sequence[object]:
    """The list argument ``key`` (empty when absent); ``wrong_type`` is the error for a non-list."""
    value = args.get(key)
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ToolArgumentError(wrong_type)
    return value


def _name_string(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise ToolArgumentError(f"{key} must be a hardware name string, not {type(value).__name__}")
    return value


def _types(args: Mapping[str, object]) -> tuple[HardwareType, ...]:
    if args.get("types") is None:
        return HARDWARE_TYPES
    chosen: list[HardwareType] = []
    for item in _list(args, "types", 'types must be a list such as ["gpu", "tpu"]'):
        if not isinstance(item, str) or item.strip().lower() not in _TYPES:
            raise ToolArgumentError(f"unknown type {str(item)[:40]!r} in types; use gpu, tpu or cpu")
        chosen.append(_TYPES[item.strip().lower()])
    return tuple(chosen)


def request_from_arguments(arguments: Mapping[str, object]) -> CalcRequest:
    """The :class:`CalcRequest` a tool call's JSON arguments ask for, checked for JSON shape only.

    Raises :class:`ToolArgumentError` for unknown keys and wrong types (strings such as
    ``"500*2"`` are never evaluated; null means "not given"); :func:`check_request` checks the values.
    """
    if not isinstance(arguments, Mapping):
        raise ToolArgumentError("arguments must be a JSON object")
    unknown = [str(k) for k in arguments if k not in _ALLOWED_KEYS]
    if unknown:
        raise ToolArgumentError(f"unknown argument(s) {', '.join(sorted(unknown))}; allowed: {', '.join(_ALLOWED_KEYS)}")
    preemptible = arguments.get("allow_preemptible")
    if preemptible is not None and not isinstance(preemptible, bool):
        raise ToolArgumentError(f"allow_preemptible must be true or false, not {str(preemptible)[:40]!r}")
    hardware = arguments.get("hardware")
    compare = _list(arguments, "compare", "compare must be a list of hardware names")
    providers = _list(arguments, "providers", 'providers must be a list such as ["AWS", "GCP"]')
    per_day = _json_number(arguments, "hours_per_day")
    return CalcRequest(
        budget_usd=_json_number(arguments, "budget_usd"),
        hours=_json_number(arguments, "hours"),
        hardware=None if hardware is None else _name_string(hardware, "hardware"),
        compare=tuple(_name_string(name, "compare") for name in compare),
        v100_hours=_json_number(arguments, "v100_hours"),
        devices=_devices(arguments),
        min_memory_gb=_json_number(arguments, "min_memory_gb"),
        allow_preemptible=bool(preemptible),
        purchase_usd=_json_number(arguments, "purchase_usd"),
        hours_per_day=24.0 if per_day is None else per_day,
        types=_types(arguments),
        providers=tuple(str(item) for item in providers),
    )


def validate_arguments(arguments: Mapping[str, object], table: PriceTable) -> CalcRequest:
    """Check a tool call's arguments against the JSON rules and ``table``; the checked request."""
    return check_request(request_from_arguments(arguments), table)


def run_price_calculator(arguments: Mapping[str, object], table: PriceTable) -> dict[str, Any]:
    """Run the ``price_calculator`` tool: check ``arguments``, calculate, return the result's JSON.

    Raises :class:`ToolArgumentError` for invalid arguments (send its message back to the model)
    and :class:`PriceTableError` when the notes hold no valid price rows at all.
    """
    return check_and_calculate(table, request_from_arguments(arguments)).to_json()


_COMPUTABLE = ("budget_usd", "hours", "v100_hours", "hardware", "compare", "purchase_usd", "min_memory_gb")

Message = Mapping[str, Any]


def computable(request: CalcRequest) -> bool:
    """Whether the calculator has something to work out: a budget, hours, a job size, hardware, a purchase or a memory floor."""
    return any(getattr(request, k) for k in _COMPUTABLE)


def price_plan(question: Question, history: Sequence[Message], table: PriceTable | None) -> PricePlan | None:
    """What a price question asks, or None when it is not one; context comes from earlier turns ("and
    with $1000?"), only from the turn it follows, so a question in between that is not about prices
    ends the chain. ``table`` None: the notes hold no prices, and the plan says what was asked all the same."""
    previous: CalcRequest | None = None
    for message in history:
        if message.get("role") == "user":
            earlier = plan_price_question(parse_question(str(message.get("content", ""))), table, previous)
            previous = earlier.request if earlier is not None else None
    plan = plan_price_question(question, table, previous)
    if plan is None or not (computable(plan.request) or plan.unpriced or plan.problems):
        return None
    return plan


def price_request(question: Question, history: Sequence[Message], table: PriceTable) -> CalcRequest | None:
    """The calculator request a question asks for, with context from earlier turns ("and with $1000?")."""
    plan = price_plan(question, history, table)
    return plan.request if plan is not None and computable(plan.request) else None


def reused(request: CalcRequest, alone: CalcRequest | None) -> str:
    """What ``request`` took from the turn before, in words ('TPU v3', '$500', '8 devices'): the parts
    the question alone (``alone``) does not state. '' when it took nothing."""
    base = alone or CalcRequest()
    parts: list[str] = []
    names = [n for n in dict.fromkeys([request.hardware or "", *request.compare]) if n]
    if names and names != [n for n in dict.fromkeys([base.hardware or "", *base.compare]) if n]:
        parts.append(" and ".join(names))
    if request.budget_usd is not None and request.budget_usd != base.budget_usd:
        parts.append(f"the budget of ${request.budget_usd:,.0f}")
    if request.hours is not None and request.hours != base.hours:
        parts.append(f"{request.hours:g} hours")
    if request.v100_hours is not None and request.v100_hours != base.v100_hours:
        parts.append(f"{request.v100_hours:g} V100-hours")
    if request.devices != base.devices:
        parts.append(f"{request.devices} devices")
    if request.min_memory_gb is not None and request.min_memory_gb != base.min_memory_gb:
        parts.append(f"at least {request.min_memory_gb:g} GB per device")
    if request.types != base.types and set(request.types) != set(HARDWARE_TYPES):
        parts.append(" and ".join(t.upper() + "s" for t in request.types))
    if request.providers and request.providers != base.providers:
        parts.append(" and ".join(request.providers))
    return ", ".join(parts)


def _evidence_lines(row: PriceRow) -> list[str]:
    """What a citation quotes for one row: the explicit table's row as data, or the text it was read from."""
    if row.origin == "price table" or not row.evidence:
        return [
            f"line {row.line}: {row.hardware} ({row.provider}, {row.pricing}) ${row.usd_per_hour:.2f}/h"
            + (f", as of {row.as_of}" if row.as_of else "")
            + (f", source {row.source}" if row.source else "")
        ]
    lines = [row.evidence]
    if row.speed_from:
        lines.append(row.speed_from.split(": ", 1)[-1])
    return lines


@dataclass(frozen=True)
class PriceTool(Tool):
    """The ``price_calculator`` tool bound to one generation's tables."""

    table: PriceTable = field(compare=False)
    section_at: Callable[[str, int], StoredChunk | None] = field(compare=False)
    caveats: Callable[[], Answer] = field(compare=False)  # what the notes warn about prices (computed on use)
    preemptible: bool = False  # the person asked to count spot/preemptible prices too (the chat's control)

    @classmethod
    def over(
        cls,
        table: PriceTable,
        section_at: Callable[[str, int], StoredChunk | None],
        caveats: Callable[[], Answer],
        *,
        preemptible: bool = False,
    ) -> PriceTool:
        spec = PRICE_CALCULATOR_TOOL["function"]
        extra = {"allow_preemptible": True} if preemptible else {}
        return cls(
            str(spec["name"]),
            str(spec["description"]),
            dict(spec["parameters"]),
            lambda arguments: run_price_calculator({**arguments, **extra}, table),
            table,
            section_at,
            caveats,
            preemptible,
        )

    def plan(self, question: Question, history: Sequence[Message]) -> CalcRequest | None:
        """The request ``question`` implies, or None when it is not a price question (or no table exists)."""
        if not self.table.rows:
            return None
        request = price_request(question, history, self.table)
        return replace(request, allow_preemptible=True) if request is not None and self.preemptible else request

    def reused(self, question: Question, history: Sequence[Message], request: CalcRequest) -> str:
        """What the planned ``request`` took from the turn before ``question`` ('' when nothing)."""
        # the question over a blank earlier request: what it states itself, as a follow-up would be read
        return reused(request, plan_price_request(question, self.table, CalcRequest())) if history else ""

    def ask(self, question: Question, history: Sequence[Message]) -> PricePlan | None:
        """What ``question`` asks of the calculator, or None when it is not a price question: planned
        over this table (the hardware it has no price for named), or without one when the notes hold
        no prices (so the answer can say so)."""
        plan = price_plan(question, history, self.table if self.table.rows else None)
        if plan is not None and self.preemptible:
            plan = replace(plan, request=replace(plan.request, allow_preemptible=True))
        return plan

    def compute(self, request: CalcRequest) -> CalcResult:
        """The calculator's result for ``request`` over this generation's table (see :func:`check_and_calculate`)."""
        return check_and_calculate(self.table, request)

    def sources(self, result: CalcResult) -> list[Citation]:
        """One citation per note (or article) whose prices the result used: the rows of an explicit price
        table with their lines, or the sentences and table rows the prices were read from, as written
        (and the sentence a speed in words came from)."""
        rows: dict[str, list[PriceRow]] = {}
        for option in result.options:
            rows.setdefault(option.row.note, []).append(option.row)
        citations = []
        for note, used in rows.items():
            section = self.section_at(note, min(r.line for r in used))
            lines: list[str] = []
            for r in used:
                for line in _evidence_lines(r):
                    if line not in lines:
                        lines.append(line)
            first = used[0]
            citations.append(
                Citation(
                    n=0,
                    title=first.note_title or note,
                    source=note,
                    url=first.url,
                    heading=section.heading if section else first.section,
                    text="\n".join(lines),
                    score=1.0,
                    kind="note" if first.url is None else "article",
                )
            )
        bought = self.purchase_fact(result.request)
        if bought is not None:  # the purchase price a break-even was worked out from, as the notes state it
            known = next((c for c in citations if c.source == bought.note), None)
            if known is not None:
                known.text = "\n".join(dict.fromkeys([*known.text.split("\n"), bought.evidence]))
            else:
                section = self.section_at(bought.note, bought.line)
                citations.append(
                    Citation(
                        n=0,
                        title=bought.note_title or bought.note,
                        source=bought.note,
                        url=bought.url,
                        heading=section.heading if section else bought.section,
                        text=bought.evidence,
                        score=1.0,
                        kind="note" if bought.url is None else "article",
                    )
                )
        return citations

    def purchase_fact(self, request: CalcRequest) -> PriceFact | None:
        """The noted purchase whose price ``request`` compares renting with, if it came from the notes."""
        if request.purchase_usd is None or not request.hardware:
            return None
        hardware = request.hardware
        return next(
            (
                f
                for f in self.table.facts
                if f.kind == "purchase" and f.amount == request.purchase_usd and hardware_matches(hardware, f.subject)
            ),
            None,
        )


def compose_cost_answer(costs: CostAnswer, price: PriceTool, from_notes: Answer) -> Answer:
    """A plan, energy or purchase answer (:mod:`hwqa.prices.costs`): the sum, cited to the sentences or rows
    of the facts it used, then what the passages say."""
    by_note: dict[str, list[PriceFact]] = {}
    for fact in costs.facts:
        by_note.setdefault(fact.note, []).append(fact)
    citations: list[Citation] = []
    for note, used in by_note.items():
        section = price.section_at(note, min(f.line for f in used))
        first = used[0]
        citations.append(
            Citation(
                n=len(citations) + 1,
                title=first.note_title or note,
                source=note,
                url=first.url,
                heading=section.heading if section else first.section,
                text="\n".join(dict.fromkeys(f.evidence for f in used)),
                score=1.0,
                kind="note" if first.url is None else "article",
            )
        )
    marks = "".join(f"[{c.n}]" for c in citations)
    call = ToolCall("price_facts", {}, {"answer": costs.text, "facts": [f.to_json() for f in costs.facts]})
    return Answer(f"{costs.text} {marks}", citations, [call], covered=True)
