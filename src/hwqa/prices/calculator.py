"""The price calculator: pure functions over :class:`~hwqa.prices.table.PriceRow` values.

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

:func:`calculate` takes a :class:`~hwqa.prices.request.CalcRequest` and returns a
:class:`~hwqa.prices.result.CalcResult`; :func:`check_and_calculate` first holds the request to
the bounds and the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from ..errors import PriceTableError
from .fmt import money, number
from .request import CalcRequest, check_request
from .result import CalcResult, ExcludedOption, PriceOption, Recommendation, WorkloadReference, rank_key
from .table import DEFAULT_PRICING, HARDWARE_TYPES, OTHER_TYPE, PriceRow, PriceTable

__all__ = [
    "break_even_hours",
    "calculate",
    "check_and_calculate",
    "cost_for_hours",
    "hours_for_budget",
    "usd_per_v100_hour",
    "v100_hours_for",
    "wall_hours_for",
]


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


def _pricing_excluded(row: PriceRow, allow_preemptible: bool) -> str | None:
    if row.pricing == DEFAULT_PRICING:
        return None
    if row.interruptible:
        if allow_preemptible:
            return None
        return (
            f"{row.pricing} pricing can be interrupted; include spot/preemptible prices to count it "
            "(hwqa prices --preemptible; in the web chat, “Include spot/preemptible prices”)"
        )
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
        if restrict and not any(row.named(name) for name in restrict):
            not_named += 1
            continue
        if providers and row.provider.casefold() not in providers and row not in reference_rows:
            other_provider += 1
            continue
        open_types = row.type == OTHER_TYPE and set(request.types) == set(HARDWARE_TYPES)
        if row.type not in request.types and not open_types and row not in reference_rows:
            wrong_type += 1
            continue
        reason = _pricing_excluded(row, request.allow_preemptible)
        if reason is None and request.min_memory_gb is not None:
            if row.memory_gb is None:
                reason = f"memory not listed in the price note (needs at least {request.min_memory_gb:g} GB)"
            elif row.memory_gb < request.min_memory_gb:
                reason = f"{row.memory_gb:g} GB memory per device, below the {request.min_memory_gb:g} GB asked for"
        if reason is not None:
            excluded.append(ExcludedOption.of(row, reason))
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
    return [row for row in rows if row.named(request.hardware)]


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
                f"most hours for the money ({number(best.hours)} h on {devices}{row.hardware} for "
                f"{money(request.budget_usd or 0)}); no speed is listed, so compute per dollar "
                f"cannot be compared{tie}"
            )
        if best.cost is not None:
            return f"the only priced option for this job: {money(best.cost)} ({number(best.hours or 0)} h){tie}"
        return f"lowest price per hour ({money(row.usd_per_hour)}/h); no speed is listed to compare compute{tie}"
    per = f"{money(best.usd_per_v100_hour)} per V100-hour"
    if request.mode == "budget" and best.v100_hours is not None and best.hours is not None:
        text = (
            f"most V100-equivalent hours for {money(request.budget_usd or 0)}: "
            f"{number(best.v100_hours)} V100-h ({number(best.hours)} h on {devices}{row.hardware}, {per})"
        )
        if nxt is not None and nxt.v100_hours is not None and not tie:
            text += f"; next best {_label(nxt.row)} gives {number(nxt.v100_hours)} V100-h"
        return text + tie
    if request.mode == "workload" and best.cost is not None and workload is not None:
        text = (
            f"cheapest way to do {number(workload)} V100-hours of training: {money(best.cost)}, "
            f"done in {number(best.hours or 0)} h on {devices}{row.hardware} ({per})"
        )
        if nxt is not None and nxt.cost is not None and not tie:
            text += f"; next {_label(nxt.row)} costs {money(nxt.cost)}"
        return text + tie
    if request.mode == "rent" and best.cost is not None and best.v100_hours is not None:
        return (
            f"lowest price per V100-hour ({per}): {number(request.hours or 0)} h on {devices}{row.hardware} "
            f"costs {money(best.cost)} and gives {number(best.v100_hours)} V100-h{tie}"
        )
    speed = f"{row.speed:g}" if row.speed is not None else "?"
    return f"lowest price per V100-hour: {per} ({money(row.usd_per_hour)}/h at {speed}× a V100){tie}"


def calculate(table: PriceTable | Sequence[PriceRow], request: CalcRequest) -> CalcResult:
    """Evaluate and rank every matching row of ``table`` for ``request`` (pure; no I/O).

    ``request`` is assumed valid (see :func:`check_and_calculate`); hardware names that match no
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
                f"the job ({number(request.hours)} h on {request.devices} × {reference.hardware}, speed "
                f"{reference.speed:g}) is {number(workload)} V100-hours; other options are converted with their speed"
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
                    ExcludedOption.of(
                        option.row,
                        f"costs {money(option.cost)} for this, over the {money(request.budget_usd)} budget",
                    )
                )
            else:
                affordable.append(option)
        options = affordable
    options.sort(key=rank_key)
    ranked = tuple(replace(option, rank=i + 1) for i, option in enumerate(options))
    unknown = sum(1 for o in ranked if o.row.speed is None)
    if unknown:
        have = "1 option has" if unknown == 1 else f"{unknown} options have"
        notes.append(f"{have} no speed listed; ranked after the others by price per hour")
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
        reference=WorkloadReference.of(reference) if reference is not None else None,
        workload_v100_hours=workload,
        problems=tuple(table.problems[:20]) if isinstance(table, PriceTable) else (),
    )


def check_and_calculate(table: PriceTable, request: CalcRequest) -> CalcResult:
    """:func:`calculate` after :func:`check_request`.

    Raises :class:`PriceTableError` when the notes hold no valid price rows at all, and
    :class:`ToolArgumentError` for a request out of bounds or naming what the table lacks.
    """
    if not table.rows:
        first = f" (first problem: {table.problems[0]})" if table.problems else ""
        raise PriceTableError(
            "no valid price rows in the notes; add a note tagged prices with a table of hardware, provider, "
            f"type, usd_per_hour{first}"
        )
    return calculate(table, check_request(request, table))
