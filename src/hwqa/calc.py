"""The price calculator over the price tables of :mod:`hwqa.prices`.

The calculator is a set of pure functions over :class:`PriceRow` values:

- budget: ``hours = budget / (usd_per_hour * devices)``, ``v100_hours = hours * speed * devices``;
- rent for H hours: ``cost = H * usd_per_hour * devices``, ``v100_hours = H * speed * devices``;
- workload of W V100-hours (given directly, or as H hours on a named hardware, i.e.
  ``W = H * speed_ref * devices``): ``wall_hours = W / (speed * devices)``,
  ``cost = wall_hours * usd_per_hour * devices``;
- dollars per V100-hour: ``usd_per_hour / speed``;
- buy-vs-rent: ``break_even_hours = purchase_usd / (usd_per_hour * devices)``, and
  ``break_even_days = break_even_hours / hours_per_day``.

Options are ranked by dollars per V100-hour (lowest first: most V100-hours for the money, and
the cheapest way to do a fixed workload); options without a speed come after, by price per hour.

:data:`PRICE_CALCULATOR_TOOL` offers the calculator to a chat model as an OpenAI-style function
tool; :func:`run_price_calculator` validates the model's arguments (never evaluating anything) and
returns a JSON-ready dict, which :func:`render_price_result` turns into a compact Markdown table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .errors import PriceTableError, ToolArgumentError
from .prices import (
    DEFAULT_PRICING,
    HARDWARE_TYPES,
    PriceRow,
    PriceTable,
    hardware_matches,
    round_figures,
)

__all__ = [
    "PRICE_CALCULATOR_TOOL",
    "CalcRequest",
    "CalcResult",
    "ExcludedOption",
    "PriceOption",
    "Recommendation",
    "break_even_hours",
    "calc_mode",
    "calculate",
    "cost_for_hours",
    "hours_for_budget",
    "rank_key",
    "render_price_result",
    "render_price_table",
    "run_price_calculator",
    "usd_per_v100_hour",
    "v100_hours_for",
    "validate_arguments",
    "wall_hours_for",
]

# Bounds for tool arguments (a chat model may send anything).
MAX_BUDGET_USD = 1e9
MAX_PURCHASE_USD = 1e9
MAX_HOURS = 1e6
MAX_V100_HOURS = 1e9
MAX_DEVICES = 1024
MAX_MEMORY_GB = 1e5
MAX_NAME_CHARS = 100
MAX_COMPARE = 20

# ---------------------------------------------------------------------------------------------
# Calculator: formulae
# ---------------------------------------------------------------------------------------------


def usd_per_v100_hour(row: PriceRow) -> float | None:
    """``usd_per_hour / speed``: what one V100-hour of training costs on this row's hardware."""
    return row.usd_per_v100_hour


def hours_for_budget(budget_usd: float, usd_per_hour: float, devices: int = 1) -> float:
    """Wall-clock hours ``devices`` devices can run for ``budget_usd``: budget / (price × devices)."""
    return budget_usd / (usd_per_hour * devices)


def cost_for_hours(hours: float, usd_per_hour: float, devices: int = 1) -> float:
    """Dollars to run ``devices`` devices for ``hours`` wall-clock hours: hours × price × devices."""
    return hours * usd_per_hour * devices


def v100_hours_for(hours: float, speed: float | None, devices: int = 1) -> float | None:
    """V100-equivalent hours of ``hours`` on ``devices`` devices: hours × speed × devices."""
    if speed is None:
        return None
    return hours * speed * devices


def wall_hours_for(v100_hours: float, speed: float | None, devices: int = 1) -> float | None:
    """Wall-clock hours a ``v100_hours`` workload takes on ``devices`` devices: W / (speed × devices)."""
    if speed is None:
        return None
    return v100_hours / (speed * devices)


def break_even_hours(purchase_usd: float, usd_per_hour: float, devices: int = 1) -> float:
    """Hours of renting after which buying for ``purchase_usd`` would have been cheaper."""
    return purchase_usd / (usd_per_hour * devices)


# ---------------------------------------------------------------------------------------------
# Calculator: requests and results
# ---------------------------------------------------------------------------------------------


def calc_mode(budget_usd: float | None, hours: float | None, v100_hours: float | None, named_hardware: bool) -> str:
    """What a calculation is about: ``workload`` (a job size, or hours on named hardware),
    ``rent`` (hours on any option), ``budget`` (what money buys) or ``lookup`` (just prices)."""
    if v100_hours is not None or (hours is not None and named_hardware):
        return "workload"
    if hours is not None:
        return "rent"
    if budget_usd is not None:
        return "budget"
    return "lookup"


@dataclass(frozen=True)
class CalcRequest:
    """What to compute; money in US dollars, time in hours.

    Modes (see :attr:`mode`): ``workload`` when ``v100_hours`` is given, or ``hours`` together
    with ``hardware`` (the job takes ``hours`` on ``devices`` × ``hardware``); ``rent`` when only
    ``hours`` is given (cost of running each option that long); ``budget`` when only
    ``budget_usd`` is given; ``lookup`` otherwise (prices and dollars per V100-hour). A budget
    given with a workload or rent excludes options that cost more than the budget.

    ``hardware`` restricts the options to that hardware, except in a workload given as hours on
    ``hardware``, where it names the reference and every option is compared. ``compare``
    restricts the options to those names in every mode.
    """

    budget_usd: float | None = None
    hours: float | None = None
    hardware: str | None = None
    compare: tuple[str, ...] = ()
    v100_hours: float | None = None
    devices: int = 1
    min_memory_gb: float | None = None
    allow_preemptible: bool = False
    purchase_usd: float | None = None
    hours_per_day: float = 24.0
    types: tuple[str, ...] = HARDWARE_TYPES
    providers: tuple[str, ...] = ()  # only rows of these providers (as the price table spells them); empty: all

    @property
    def mode(self) -> str:
        """One of ``workload``, ``rent``, ``budget``, ``lookup``."""
        return calc_mode(self.budget_usd, self.hours, self.v100_hours, bool(self.hardware))

    def to_json(self) -> dict[str, Any]:
        """The request as a JSON-ready dict (every field, plus the mode)."""
        return {
            "mode": self.mode,
            "budget_usd": self.budget_usd,
            "hours": self.hours,
            "hardware": self.hardware,
            "compare": list(self.compare),
            "v100_hours": self.v100_hours,
            "devices": self.devices,
            "min_memory_gb": self.min_memory_gb,
            "allow_preemptible": self.allow_preemptible,
            "purchase_usd": self.purchase_usd,
            "hours_per_day": self.hours_per_day,
            "types": list(self.types),
            "providers": list(self.providers),
        }


@dataclass(frozen=True)
class PriceOption:
    """One row evaluated for a request. Figures that cannot be computed (no speed) are None.

    ``hours`` and ``wall_hours`` are the same wall-clock time (all devices running together);
    ``cost`` is what that time costs; ``v100_hours`` is the V100-equivalent compute it gives.
    """

    row: PriceRow
    devices: int
    usd_per_v100_hour: float | None
    hours: float | None = None
    v100_hours: float | None = None
    cost: float | None = None
    wall_hours: float | None = None
    within_budget: bool | None = None
    break_even_hours: float | None = None
    break_even_days: float | None = None
    is_reference: bool = False
    rank: int = 0

    def to_json(self) -> dict[str, Any]:
        """The option as a JSON-ready dict, with the row's source note, line, as_of and URL."""
        r = self.row
        return {
            "rank": self.rank,
            "hardware": r.hardware,
            "provider": r.provider,
            "type": r.type,
            "pricing": r.pricing,
            "devices": self.devices,
            "usd_per_hour": r.usd_per_hour,
            "usd_per_hour_total": round_figures(r.usd_per_hour * self.devices),
            "speed": r.speed,
            "memory_gb": r.memory_gb,
            "usd_per_v100_hour": round_figures(self.usd_per_v100_hour),
            "hours": round_figures(self.hours),
            "v100_hours": round_figures(self.v100_hours),
            "cost": round_figures(self.cost),
            "wall_hours": round_figures(self.wall_hours),
            "within_budget": self.within_budget,
            "break_even_hours": round_figures(self.break_even_hours),
            "break_even_days": round_figures(self.break_even_days),
            "is_reference": self.is_reference,
            "note": r.note,
            "note_title": r.note_title,
            "line": r.line,
            "as_of": r.as_of,
            "source": r.source,
        }


@dataclass(frozen=True)
class ExcludedOption:
    """A row left out of the comparison by a filter the person asked for, and why."""

    row: PriceRow
    reason: str

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: which row (with note and line) and why it was left out."""
        return {
            "hardware": self.row.hardware,
            "provider": self.row.provider,
            "pricing": self.row.pricing,
            "reason": self.reason,
            "note": self.row.note,
            "line": self.row.line,
        }


@dataclass(frozen=True)
class Recommendation:
    """The top-ranked option and a one-line reason."""

    hardware: str
    provider: str
    pricing: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"hardware": self.hardware, "provider": self.provider, "pricing": self.pricing, "reason": self.reason}


@dataclass(frozen=True)
class CalcResult:
    """Ranked options, the excluded rows with reasons, a recommendation, and explanatory notes."""

    request: CalcRequest
    options: tuple[PriceOption, ...]
    excluded: tuple[ExcludedOption, ...]
    recommendation: Recommendation | None
    notes: tuple[str, ...] = ()
    reference: PriceRow | None = None
    workload_v100_hours: float | None = None

    @property
    def mode(self) -> str:
        """The request's mode."""
        return self.request.mode

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (what :func:`run_price_calculator` returns)."""
        reference: dict[str, Any] | None = None
        if self.reference is not None:
            reference = {
                "hardware": self.reference.hardware,
                "provider": self.reference.provider,
                "speed": self.reference.speed,
                "hours": self.request.hours,
                "devices": self.request.devices,
                "v100_hours": round_figures(self.workload_v100_hours),
                "note": self.reference.note,
                "line": self.reference.line,
            }
        return {
            "mode": self.mode,
            "inputs": self.request.to_json(),
            "options": [o.to_json() for o in self.options],
            "recommendation": self.recommendation.to_json() if self.recommendation else None,
            "excluded": [e.to_json() for e in self.excluded],
            "reference": reference,
            "notes": list(self.notes),
        }


RankKey = tuple[int, float, float, str, str, str]


def rank_key(option: PriceOption) -> RankKey:
    """Sort key of the ranking: options with a speed first, by dollars per V100-hour (then faster
    first); options without a speed after, by price per hour; then names, for a stable order."""
    row = option.row
    names = (row.hardware.lower(), row.provider.lower(), row.pricing)
    if option.usd_per_v100_hour is not None and row.speed is not None:
        return (0, option.usd_per_v100_hour, -row.speed, *names)
    return (1, row.usd_per_hour, 0.0, *names)


def _fmt_money(value: float) -> str:
    if value >= 100:
        return f"${value:,.0f}"
    return f"${value:,.2f}"


def _fmt_num(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2g}" if value < 0.1 else f"{value:.2f}"


def _pricing_excluded(row: PriceRow, allow_preemptible: bool) -> str | None:
    if row.pricing == DEFAULT_PRICING:
        return None
    if row.interruptible:
        if allow_preemptible:
            return None
        return f"{row.pricing} pricing can be interrupted; allow preemptible capacity to include it"
    return f"{row.pricing} pricing is not on-demand (needs a commitment)"


def _filter_rows(
    rows: Sequence[PriceRow], request: CalcRequest, reference_rows: Sequence[PriceRow]
) -> tuple[list[PriceRow], list[ExcludedOption], list[str]]:
    kept: list[PriceRow] = []
    excluded: list[ExcludedOption] = []
    notes: list[str] = []
    restrict: list[str] = list(request.compare)
    if request.hardware and (request.mode != "workload" or request.v100_hours is not None):
        restrict.append(request.hardware)
    not_named = 0
    wrong_type = 0
    other_provider = 0
    providers = {p.casefold() for p in request.providers}
    for row in rows:
        if restrict and not any(hardware_matches(name, row.hardware) for name in restrict):
            not_named += 1
            continue
        if providers and row.provider.casefold() not in providers and row not in reference_rows:
            other_provider += 1
            continue
        if row.type not in request.types and row not in reference_rows:
            wrong_type += 1
            continue
        reason = _pricing_excluded(row, request.allow_preemptible)
        if reason is None and request.min_memory_gb is not None:
            if row.memory_gb is None:
                reason = f"memory not listed in the price note (needs at least {request.min_memory_gb:g} GB)"
            elif row.memory_gb < request.min_memory_gb:
                reason = f"{row.memory_gb:g} GB memory per device, below the {request.min_memory_gb:g} GB asked for"
        if reason is not None:
            excluded.append(ExcludedOption(row, reason))
        else:
            kept.append(row)
    if not_named:
        notes.append(f"{not_named} other row(s) not compared (hardware named: {', '.join(dict.fromkeys(restrict))})")
    if wrong_type:
        notes.append(f"{wrong_type} row(s) of other types not compared (types: {', '.join(request.types)})")
    if other_provider:
        notes.append(f"{other_provider} row(s) of other providers not compared (providers: {', '.join(request.providers)})")
    if request.min_memory_gb is not None:
        notes.append("the memory floor applies per device (the row's memory_gb)")
    return kept, excluded, notes


def _reference_rows(rows: Sequence[PriceRow], request: CalcRequest) -> list[PriceRow]:
    if request.mode != "workload" or request.v100_hours is not None or not request.hardware:
        return []
    return [row for row in rows if hardware_matches(request.hardware, row.hardware)]


def _pick_reference(candidates: Sequence[PriceRow]) -> PriceRow | None:
    with_speed = [r for r in candidates if r.speed is not None]
    on_demand = [r for r in with_speed if r.pricing == DEFAULT_PRICING]
    if on_demand:
        return on_demand[0]
    if with_speed:
        return with_speed[0]
    return candidates[0] if candidates else None


def _evaluate(
    row: PriceRow,
    request: CalcRequest,
    workload: float | None,
    reference_rows: Sequence[PriceRow],
) -> PriceOption:
    devices = request.devices
    per_v100 = usd_per_v100_hour(row)
    hours: float | None = None
    v100: float | None = None
    cost: float | None = None
    is_reference = row in reference_rows
    mode = request.mode
    if mode == "budget":
        assert request.budget_usd is not None
        hours = hours_for_budget(request.budget_usd, row.usd_per_hour, devices)
        v100 = v100_hours_for(hours, row.speed, devices)
        cost = cost_for_hours(hours, row.usd_per_hour, devices)
    elif mode == "rent":
        assert request.hours is not None
        hours = request.hours
        v100 = v100_hours_for(hours, row.speed, devices)
        cost = cost_for_hours(hours, row.usd_per_hour, devices)
    elif mode == "workload":
        if workload is not None and row.speed is not None:
            v100 = workload
            hours = wall_hours_for(workload, row.speed, devices)
        elif is_reference and request.hours is not None:
            hours = request.hours
            v100 = v100_hours_for(hours, row.speed, devices)
        if hours is not None:
            cost = cost_for_hours(hours, row.usd_per_hour, devices)
    within: bool | None = None
    if request.budget_usd is not None and mode != "budget" and cost is not None:
        within = cost <= request.budget_usd * (1 + 1e-9)
    be_hours: float | None = None
    be_days: float | None = None
    if request.purchase_usd is not None:
        be_hours = break_even_hours(request.purchase_usd, row.usd_per_hour, devices)
        be_days = be_hours / request.hours_per_day
    return PriceOption(
        row=row,
        devices=devices,
        usd_per_v100_hour=per_v100,
        hours=hours,
        v100_hours=v100,
        cost=cost,
        wall_hours=hours,
        within_budget=within,
        break_even_hours=be_hours,
        break_even_days=be_days,
        is_reference=is_reference,
    )


def _label(row: PriceRow) -> str:
    extra = "" if row.pricing == DEFAULT_PRICING else f", {row.pricing}"
    return f"{row.hardware} ({row.provider}{extra})"


def _reason(result_options: Sequence[PriceOption], request: CalcRequest, workload: float | None) -> str:
    best = result_options[0]
    row = best.row
    nxt = result_options[1] if len(result_options) > 1 else None
    devices = f"{request.devices} × " if request.devices > 1 else ""
    tie = ""
    if (
        nxt is not None
        and rank_key(best)[0] == rank_key(nxt)[0]
        and math.isclose(rank_key(best)[1], rank_key(nxt)[1], rel_tol=1e-9)
    ):
        if rank_key(best)[0] == 0:
            why = "faster" if (nxt.row.speed or 0) < (row.speed or 0) else "first by name"
            tie = f"; ties with {_label(nxt.row)} on price per V100-hour, listed first as {why}"
        else:
            tie = f"; ties with {_label(nxt.row)} on price per hour"
    if best.usd_per_v100_hour is None:
        if request.mode == "budget" and best.hours is not None:
            return (
                f"most hours for the money ({_fmt_num(best.hours)} h on {devices}{row.hardware} for "
                f"{_fmt_money(request.budget_usd or 0)}); no speed is listed, so compute per dollar "
                f"cannot be compared{tie}"
            )
        if best.cost is not None:
            return f"the only priced option for this job: {_fmt_money(best.cost)} ({_fmt_num(best.hours or 0)} h){tie}"
        return f"lowest price per hour ({_fmt_money(row.usd_per_hour)}/h); no speed is listed to compare compute{tie}"
    per = f"{_fmt_money(best.usd_per_v100_hour)} per V100-hour"
    if request.mode == "budget" and best.v100_hours is not None and best.hours is not None:
        text = (
            f"most V100-equivalent hours for {_fmt_money(request.budget_usd or 0)}: "
            f"{_fmt_num(best.v100_hours)} V100-h ({_fmt_num(best.hours)} h on {devices}{row.hardware}, {per})"
        )
        if nxt is not None and nxt.v100_hours is not None and not tie:
            text += f"; next best {_label(nxt.row)} gives {_fmt_num(nxt.v100_hours)} V100-h"
        return text + tie
    if request.mode == "workload" and best.cost is not None and workload is not None:
        text = (
            f"cheapest way to do {_fmt_num(workload)} V100-hours of training: {_fmt_money(best.cost)}, "
            f"done in {_fmt_num(best.hours or 0)} h on {devices}{row.hardware} ({per})"
        )
        if nxt is not None and nxt.cost is not None and not tie:
            text += f"; next {_label(nxt.row)} costs {_fmt_money(nxt.cost)}"
        return text + tie
    if request.mode == "rent" and best.cost is not None and best.v100_hours is not None:
        return (
            f"lowest price per V100-hour ({per}): {_fmt_num(request.hours or 0)} h on {devices}{row.hardware} "
            f"costs {_fmt_money(best.cost)} and gives {_fmt_num(best.v100_hours)} V100-h{tie}"
        )
    speed = f"{row.speed:g}" if row.speed is not None else "?"
    return f"lowest price per V100-hour: {per} ({_fmt_money(row.usd_per_hour)}/h at {speed}× a V100){tie}"


def calculate(table: PriceTable | Sequence[PriceRow], request: CalcRequest) -> CalcResult:
    """Evaluate and rank every matching row of ``table`` for ``request`` (pure; no I/O).

    ``request`` is assumed valid (see :func:`validate_arguments`); hardware names that match no
    row simply give fewer options.
    """
    rows = list(table.rows if isinstance(table, PriceTable) else table)
    reference_rows = _reference_rows(rows, request)
    reference = _pick_reference(reference_rows)
    notes: list[str] = []
    workload: float | None = request.v100_hours
    if request.mode == "workload" and request.v100_hours is None and request.hours is not None:
        if reference is not None and reference.speed is not None:
            workload = request.hours * reference.speed * request.devices
            notes.append(
                f"the job ({_fmt_num(request.hours)} h on {request.devices} × {reference.hardware}, speed "
                f"{reference.speed:g}) is {_fmt_num(workload)} V100-hours; other options are converted with their speed"
            )
        elif reference is not None:
            notes.append(f"no speed is listed for {reference.hardware}, so the job cannot be converted to other hardware")
    kept, excluded, filter_notes = _filter_rows(rows, request, reference_rows)
    notes.extend(filter_notes)
    options = [_evaluate(row, request, workload, reference_rows) for row in kept]
    if request.budget_usd is not None and request.mode in ("workload", "rent"):
        affordable: list[PriceOption] = []
        for option in options:
            if option.within_budget is False and option.cost is not None:
                excluded.append(
                    ExcludedOption(
                        option.row,
                        f"costs {_fmt_money(option.cost)} for this, over the {_fmt_money(request.budget_usd)} budget",
                    )
                )
            else:
                affordable.append(option)
        options = affordable
    options.sort(key=rank_key)
    ranked = tuple(replace(option, rank=i + 1) for i, option in enumerate(options))
    unknown = sum(1 for o in ranked if o.row.speed is None)
    if unknown:
        notes.append(f"{unknown} option(s) have no speed listed; ranked after the others by price per hour")
    recommendation: Recommendation | None = None
    if ranked:
        best = ranked[0].row
        recommendation = Recommendation(best.hardware, best.provider, best.pricing, _reason(ranked, request, workload))
    else:
        notes.append("no option is left after the filters; relax them (types, memory, pricing, budget)")
    return CalcResult(
        request=request,
        options=ranked,
        excluded=tuple(excluded),
        recommendation=recommendation,
        notes=tuple(notes),
        reference=reference,
        workload_v100_hours=workload,
    )


# ---------------------------------------------------------------------------------------------
# The tool offered to chat models
# ---------------------------------------------------------------------------------------------

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


def _number(args: Mapping[str, object], key: str, maximum: float, *, positive: bool = False) -> float | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        kind = "a string" if isinstance(value, str) else type(value).__name__
        raise ToolArgumentError(f"{key} must be a plain number like 500, not {kind} ({str(value)[:40]!r})")
    number = float(value)
    if not math.isfinite(number):
        raise ToolArgumentError(f"{key} must be a finite number, not {value!r}")
    if number < 0 or (positive and number == 0):
        bound = "above 0" if positive else "0 or more"
        raise ToolArgumentError(f"{key} must be {bound}, not {value!r}")
    if number > maximum:
        raise ToolArgumentError(f"{key} {value!r} is too large (at most {maximum:g})")
    return number


def _name_list(args: Mapping[str, object], key: str, wrong_type: str) -> Sequence[object]:
    """The list argument ``key`` (empty when absent); ``wrong_type`` is the error for a non-list."""
    value = args.get(key)
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ToolArgumentError(wrong_type)
    if len(value) > MAX_COMPARE:
        raise ToolArgumentError(f"{key} lists too many names (at most {MAX_COMPARE})")
    return value


def _hardware_name(value: object, key: str, table: PriceTable) -> str:
    if not isinstance(value, str):
        raise ToolArgumentError(f"{key} must be a hardware name string, not {type(value).__name__}")
    name = value.strip()
    if not name:
        raise ToolArgumentError(f"{key} is empty; give a hardware name such as {_known(table)}")
    if len(name) > MAX_NAME_CHARS:
        raise ToolArgumentError(f"{key} is too long (at most {MAX_NAME_CHARS} characters)")
    if not table.find(name):
        raise ToolArgumentError(f"unknown hardware {name!r}; known hardware: {_known(table)}")
    return name


def _known(table: PriceTable) -> str:
    names = table.hardware_names()
    shown = ", ".join(names[:15])
    return shown + (f", ... ({len(names)} in all)" if len(names) > 15 else "") if names else "(none)"


def validate_arguments(arguments: Mapping[str, object], table: PriceTable) -> CalcRequest:
    """Check a tool call's arguments and build a :class:`CalcRequest`.

    Raises :class:`ToolArgumentError` with a one-line message a chat model can act on for unknown
    keys, wrong types (strings such as ``"500*2"`` are never evaluated), NaN/infinity, negative or
    out-of-bounds numbers, a device count that is not an integer in 1..1024, unknown hardware,
    unknown types, or contradictory arguments.
    """
    if not isinstance(arguments, Mapping):
        raise ToolArgumentError("arguments must be a JSON object")
    unknown = [str(k) for k in arguments if k not in _ALLOWED_KEYS]
    if unknown:
        raise ToolArgumentError(f"unknown argument(s) {', '.join(sorted(unknown))}; allowed: {', '.join(_ALLOWED_KEYS)}")
    budget = _number(arguments, "budget_usd", MAX_BUDGET_USD)
    hours = _number(arguments, "hours", MAX_HOURS)
    v100_hours = _number(arguments, "v100_hours", MAX_V100_HOURS)
    min_memory = _number(arguments, "min_memory_gb", MAX_MEMORY_GB)
    purchase = _number(arguments, "purchase_usd", MAX_PURCHASE_USD)
    per_day = _number(arguments, "hours_per_day", 24, positive=True)
    if hours is not None and v100_hours is not None:
        raise ToolArgumentError("give hours or v100_hours, not both")

    raw_devices = arguments.get("devices")
    devices = 1
    if raw_devices is not None:
        if isinstance(raw_devices, bool) or not isinstance(raw_devices, (int, float)):
            raise ToolArgumentError(f"devices must be an integer from 1 to {MAX_DEVICES}, not {str(raw_devices)[:40]!r}")
        if not math.isfinite(raw_devices) or raw_devices != int(raw_devices):
            raise ToolArgumentError(f"devices must be a whole number from 1 to {MAX_DEVICES}, not {raw_devices!r}")
        devices = int(raw_devices)
        if not 1 <= devices <= MAX_DEVICES:
            raise ToolArgumentError(f"devices must be from 1 to {MAX_DEVICES}, not {raw_devices!r}")

    preemptible = arguments.get("allow_preemptible")
    if preemptible is None:
        preemptible = False
    if not isinstance(preemptible, bool):
        raise ToolArgumentError(f"allow_preemptible must be true or false, not {str(preemptible)[:40]!r}")

    hardware: str | None = None
    if arguments.get("hardware") is not None:
        hardware = _hardware_name(arguments["hardware"], "hardware", table)
    raw_compare = _name_list(arguments, "compare", "compare must be a list of hardware names")
    compare = tuple(_hardware_name(v, "compare", table) for v in raw_compare)

    types: tuple[str, ...] = HARDWARE_TYPES
    raw_types = arguments.get("types")
    if raw_types is not None:
        if isinstance(raw_types, str) or not isinstance(raw_types, Sequence):
            raise ToolArgumentError('types must be a list such as ["gpu", "tpu"]')
        if not raw_types:
            raise ToolArgumentError('types is empty; give some of "gpu", "tpu", "cpu" or leave it out')
        chosen: list[str] = []
        for item in raw_types:
            if not isinstance(item, str) or item.strip().lower() not in HARDWARE_TYPES:
                raise ToolArgumentError(f"unknown type {str(item)[:40]!r} in types; use gpu, tpu or cpu")
            if item.strip().lower() not in chosen:
                chosen.append(item.strip().lower())
        types = tuple(t for t in HARDWARE_TYPES if t in chosen)

    raw_providers = _name_list(arguments, "providers", 'providers must be a list such as ["AWS", "GCP"]')
    known = {row.provider.casefold(): row.provider for row in table.rows}
    for item in raw_providers:
        if not isinstance(item, str) or item.strip().casefold() not in known:
            listed = ", ".join(sorted(set(known.values())))
            raise ToolArgumentError(f"unknown provider {str(item)[:40]!r}; the price table has: {listed}")
    providers = tuple(dict.fromkeys(known[str(item).strip().casefold()] for item in raw_providers))

    return CalcRequest(
        budget_usd=budget,
        hours=hours,
        hardware=hardware,
        compare=compare,
        v100_hours=v100_hours,
        devices=devices,
        min_memory_gb=min_memory,
        allow_preemptible=preemptible,
        purchase_usd=purchase,
        hours_per_day=per_day if per_day is not None else 24.0,
        types=types,
        providers=providers,
    )


def run_price_calculator(arguments: Mapping[str, object], table: PriceTable) -> dict[str, Any]:
    """Run the ``price_calculator`` tool: validate ``arguments``, calculate, return a JSON-ready dict.

    Raises :class:`ToolArgumentError` for invalid arguments (send its message back to the model)
    and :class:`PriceTableError` when the notes hold no valid price rows at all.
    """
    if not table.rows:
        first = f" (first problem: {table.problems[0]})" if table.problems else ""
        raise PriceTableError(
            "no valid price rows in the notes; add a note tagged prices with a table of hardware, provider, "
            f"type, usd_per_hour{first}"
        )
    request = validate_arguments(arguments, table)
    data = calculate(table, request).to_json()
    data["problems"] = list(table.problems[:20])
    return data


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


def _cell(value: float | None, money: bool = False) -> str:
    if value is None:
        return "–"
    return _fmt_money(value) if money else _fmt_num(value)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def render_price_result(result: Mapping[str, Any], max_rows: int = 12) -> str:
    """A compact Markdown table of a :func:`run_price_calculator` result plus one recommendation line.

    Columns depend on the mode: budget → hours and V100-hours; workload → cost and wall time;
    rent → cost and V100-hours; lookup → speed and dollars per V100-hour. A break-even column is
    added when a purchase price was given, a pricing column when options mix pricing kinds.
    """
    mode = str(result.get("mode", "lookup"))
    inputs: Mapping[str, Any] = result.get("inputs") or {}
    options: list[Mapping[str, Any]] = list(result.get("options") or [])
    if mode == "lookup" and len(options) == 1:  # "how much does X cost?": one sentence, no table
        parts = (_describe_price(options[0]), _render_excluded(result), _render_problems(result))
        return "\n".join(line for line in parts if line)
    devices = int(inputs.get("devices") or 1)
    show_pricing = len({str(o.get("pricing")) for o in options}) > 1
    show_break_even = inputs.get("purchase_usd") is not None

    headers = ["#", "Hardware", "Provider"] + (["Pricing"] if show_pricing else []) + ["$/h"]
    if mode == "budget":
        headers += ["Hours", "V100-h"]
    elif mode == "workload":
        headers += ["Cost", "Wall time (h)"]
    elif mode == "rent":
        headers += ["Cost", "V100-h"]
    else:
        headers += ["Speed (V100=1)", "$/V100-h"]
    if show_break_even:
        headers += ["Break-even (h)"]

    lines: list[str] = []
    intro = _describe_inputs(mode, inputs)
    if intro:
        lines.append(intro)
        lines.append("")
    lines.append("| " + " | ".join(headers) + " |")
    lines.append("|" + "|".join("---" for _ in headers) + "|")
    for option in options[:max_rows]:
        price = option.get("usd_per_hour")
        cells = [
            str(option.get("rank", "")),
            _md_escape(str(option.get("hardware", ""))) + (" (ref)" if option.get("is_reference") else ""),
            _md_escape(str(option.get("provider", ""))),
        ]
        if show_pricing:
            cells.append(str(option.get("pricing", "")))
        cells.append(_cell(price, money=True))
        if mode == "budget":
            cells += [_cell(option.get("hours")), _cell(option.get("v100_hours"))]
        elif mode == "workload":
            cells += [_cell(option.get("cost"), money=True), _cell(option.get("wall_hours"))]
        elif mode == "rent":
            cells += [_cell(option.get("cost"), money=True), _cell(option.get("v100_hours"))]
        else:
            speed = option.get("speed")
            cells += ["–" if speed is None else f"{speed:g}", _cell(option.get("usd_per_v100_hour"), money=True)]
        if show_break_even:
            cells.append(_cell(option.get("break_even_hours")))
        lines.append("| " + " | ".join(cells) + " |")
    if len(options) > max_rows:
        lines.append(f"\n… and {len(options) - max_rows} more option(s).")
    if devices > 1:
        lines.append(f"\n$/h is per device; figures are for {devices} devices together.")
    recommendation = result.get("recommendation")
    lines.append("")
    if recommendation:
        lines.append(
            f"**Recommendation:** {recommendation.get('hardware')} ({recommendation.get('provider')}) — "
            f"{recommendation.get('reason')}."
        )
    else:
        lines.append("**No option fits** the filters; relax them (types, memory, pricing or budget).")
    lines.extend(line for line in (_render_excluded(result), _render_problems(result)) if line)
    return "\n".join(lines)


def _render_problems(result: Mapping[str, Any]) -> str:
    """The malformed price rows that were left out, by note and line, so a person can fix them."""
    problems = [str(p) for p in result.get("problems") or []]
    if not problems:
        return ""
    more = f" (and {len(problems) - 3} more; `hwqa prices` lists them)" if len(problems) > 3 else ""
    return f"Left out, malformed price rows: {'; '.join(problems[:3])}{more}."


def _describe_price(option: Mapping[str, Any]) -> str:
    """One option's price as a sentence: hardware, provider, $/h, pricing, date, $/V100-hour."""
    when = f", as of {option['as_of']}" if option.get("as_of") else ""
    text = (
        f"**{_md_escape(str(option.get('hardware')))}** on {_md_escape(str(option.get('provider')))} costs "
        f"**{_cell(option.get('usd_per_hour'), money=True)} per hour** ({option.get('pricing')}{when})."
    )
    if option.get("speed") is not None and option.get("usd_per_v100_hour") is not None:
        text += (
            f" At {option['speed']:g}× the speed of a V100 that is "
            f"{_cell(option.get('usd_per_v100_hour'), money=True)} per V100-hour."
        )
    return text


def _render_excluded(result: Mapping[str, Any]) -> str:
    """'Excluded: <options>: <reason>; …' for the options the filters left out, or ''."""
    excluded: list[Mapping[str, Any]] = list(result.get("excluded") or [])
    if not excluded:
        return ""
    by_reason: dict[str, list[str]] = {}
    for e in excluded:
        by_reason.setdefault(str(e.get("reason")), []).append(f"{e.get('hardware')} ({e.get('provider')})")
    parts = []
    for reason, names in list(by_reason.items())[:4]:
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        parts.append(f"{shown}: {reason}")
    more = f"; and {len(by_reason) - 4} other reason(s)" if len(by_reason) > 4 else ""
    return f"Excluded: {'; '.join(parts)}{more}."


def _describe_inputs(mode: str, inputs: Mapping[str, Any]) -> str:
    devices = int(inputs.get("devices") or 1)
    on = f" on {devices} devices" if devices > 1 else ""
    if mode == "budget":
        return f"With {_fmt_money(float(inputs['budget_usd']))}{on}:"
    if mode == "workload":
        if inputs.get("v100_hours") is not None:
            return f"For a job of {_fmt_num(float(inputs['v100_hours']))} V100-hours{on}:"
        return f"For a job that takes {_fmt_num(float(inputs['hours']))} h on {inputs.get('hardware')}{on}:"
    if mode == "rent":
        return f"For {_fmt_num(float(inputs['hours']))} h of use{on}:"
    return ""


def render_price_table(
    table: PriceTable,
    *,
    types: Iterable[str] | None = None,
    show_problems: bool = True,
) -> str:
    """The whole price table as Markdown (for ``hwqa prices``), optionally only some types, with
    the problems found listed after it."""
    wanted = {t.lower() for t in types} if types is not None else set(HARDWARE_TYPES)
    rows = [r for r in table.rows if r.type in wanted]
    headers = ["Hardware", "Provider", "Type", "Pricing", "$/h", "Speed", "$/V100-h", "Memory GB", "As of", "Note"]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        lines.append(
            "| "
            + " | ".join(
                [
                    _md_escape(r.hardware),
                    _md_escape(r.provider),
                    r.type,
                    r.pricing,
                    _fmt_money(r.usd_per_hour),
                    "–" if r.speed is None else f"{r.speed:g}",
                    _cell(r.usd_per_v100_hour, money=True),
                    "–" if r.memory_gb is None else f"{r.memory_gb:g}",
                    _md_escape(r.as_of or "–"),
                    f"{r.note}:{r.line}",
                ]
            )
            + " |"
        )
    if not rows:
        lines.append("")
        lines.append("No price rows found; add a note tagged `prices` with a table of hardware, provider, type, usd_per_hour.")
    if show_problems and table.problems:
        lines.append("")
        lines.append(f"Problems ({len(table.problems)}):")
        lines.extend(f"- {p}" for p in table.problems)
    return "\n".join(lines)
