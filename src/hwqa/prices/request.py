"""What to compute: :class:`CalcRequest`, the one shape of a price-calculator request.

The price planner (:mod:`hwqa.answer.priceplan`), the ``hwqa prices`` flags, the web page's
prices tab and the tool (:mod:`hwqa.answer.pricetool`, from a chat model's JSON arguments) all build a
``CalcRequest``; :func:`check_request` holds it to the bounds and to the price table before the
calculator runs. Dicts exist only at the edges: :meth:`CalcRequest.to_arguments` (the tool
arguments that ask for it) and :meth:`CalcRequest.to_json` (the ``inputs`` of a result).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

from ..errors import ToolArgumentError
from .table import HARDWARE_TYPES, HardwareType, PriceTable
from .units import MAX_BUDGET_USD, MAX_HOURS, MAX_PURCHASE_USD, money_words

__all__ = [
    "MAX_BUDGET_USD",
    "MAX_COMPARE",
    "MAX_DEVICES",
    "MAX_HOURS",
    "MAX_MEMORY_GB",
    "MAX_NAME_CHARS",
    "MAX_PURCHASE_USD",
    "MAX_V100_HOURS",
    "CalcRequest",
    "calc_mode",
    "check_request",
]

# Bounds of a request (a chat model may send anything); those a question can state are shared with its reading.
MAX_V100_HOURS = 1e9
MAX_DEVICES = 1024
MAX_MEMORY_GB = 1e5
MAX_NAME_CHARS = 100
MAX_COMPARE = 20


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

    Every field has a default, and the tool's JSON schema (``PRICE_CALCULATOR_TOOL``) has one
    property per field, of the same type (a test holds them together).
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
    types: tuple[HardwareType, ...] = HARDWARE_TYPES
    providers: tuple[str, ...] = ()  # only rows of these providers (as the price table spells them); empty: all

    @property
    def mode(self) -> str:
        """One of ``workload``, ``rent``, ``budget``, ``lookup``."""
        return calc_mode(self.budget_usd, self.hours, self.v100_hours, bool(self.hardware))

    def to_json(self) -> dict[str, Any]:
        """The request as a JSON-ready dict (every field, plus the mode)."""
        return {"mode": self.mode} | {f.name: _json_value(getattr(self, f.name)) for f in fields(self)}

    def to_arguments(self) -> dict[str, Any]:
        """The ``price_calculator`` tool arguments that ask for this request: the fields that differ
        from their defaults, as JSON values."""
        return {f.name: _json_value(value) for f in fields(self) if (value := getattr(self, f.name)) != f.default}


def _json_value(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


# What each bounded field is called in a message, and whether it is money: one line a person reads
# ("a budget must be between $0 and $1,000,000,000, not $5,000,000,000"), never a field's name alone.
_SAID = {
    "budget_usd": ("a budget", True),
    "purchase_usd": ("a purchase price", True),
    "hours": ("hours", False),
    "v100_hours": ("V100-hours", False),
    "min_memory_gb": ("a memory floor (GB)", False),
    "hours_per_day": ("hours a day", False),
}


def _bounded(value: float | None, key: str, maximum: float, *, positive: bool = False) -> float | None:
    if value is None:
        return None
    said, money = _SAID.get(key, (key, False))
    number = float(value)
    if not math.isfinite(number):
        raise ToolArgumentError(f"{said} must be a number, not {value!r}")
    low = "above 0" if positive else ("$0" if money else "0")
    high = money_words(maximum) if money else f"{maximum:,.0f}"
    shown = money_words(number) if money else (f"{number:,.0f}" if number == int(number) else f"{number:,g}")
    if number < 0 or (positive and number == 0) or number > maximum:
        if positive:
            raise ToolArgumentError(f"{said} must be above 0 and at most {high}, not {shown}")
        raise ToolArgumentError(f"{said} must be between {low} and {high}, not {shown}")
    return number


def _known(table: PriceTable) -> str:
    names = table.hardware_names()
    shown = ", ".join(names[:15])
    return shown + (f", ... ({len(names)} in all)" if len(names) > 15 else "") if names else "(none)"


def _hardware_name(value: str, key: str, table: PriceTable) -> str:
    name = value.strip()
    if not name:
        raise ToolArgumentError(f"{key} is empty; give a hardware name such as {_known(table)}")
    if len(name) > MAX_NAME_CHARS:
        raise ToolArgumentError(f"{key} is too long (at most {MAX_NAME_CHARS} characters)")
    if not table.find(name):
        raise ToolArgumentError(f"unknown hardware {name!r}; known hardware: {_known(table)}")
    return name


def _names(values: tuple[str, ...], key: str) -> tuple[str, ...]:
    if len(values) > MAX_COMPARE:
        raise ToolArgumentError(f"{key} lists too many names (at most {MAX_COMPARE})")
    return values


def _providers(values: tuple[str, ...], table: PriceTable) -> tuple[str, ...]:
    """The providers as the price table spells them (matched ignoring case)."""
    known = {row.provider.casefold(): row.provider for row in table.rows}
    for item in _names(values, "providers"):
        if item.strip().casefold() not in known:
            listed = ", ".join(sorted(set(known.values())))
            raise ToolArgumentError(f"unknown provider {item[:40]!r}; the price table has: {listed}")
    return tuple(dict.fromkeys(known[item.strip().casefold()] for item in values))


def check_request(request: CalcRequest, table: PriceTable) -> CalcRequest:
    """``request`` held to the bounds and to ``table``: numbers as floats, hardware names the table
    knows, types in their usual order, providers as the table spells them.

    Raises :class:`ToolArgumentError` with a one-line message a person or a chat model can act
    on: NaN/infinity, negative or out-of-bounds numbers, hours and V100-hours together, a device
    count outside 1..1024, unknown hardware or providers, no types.
    """
    budget = _bounded(request.budget_usd, "budget_usd", MAX_BUDGET_USD)
    hours = _bounded(request.hours, "hours", MAX_HOURS)
    v100_hours = _bounded(request.v100_hours, "v100_hours", MAX_V100_HOURS)
    min_memory = _bounded(request.min_memory_gb, "min_memory_gb", MAX_MEMORY_GB)
    purchase = _bounded(request.purchase_usd, "purchase_usd", MAX_PURCHASE_USD)
    per_day = _bounded(request.hours_per_day, "hours_per_day", 24, positive=True)
    if hours is not None and v100_hours is not None:
        raise ToolArgumentError("give hours or v100_hours, not both")
    if not 1 <= request.devices <= MAX_DEVICES:
        raise ToolArgumentError(f"devices must be from 1 to {MAX_DEVICES}, not {request.devices!r}")
    if not request.types:
        raise ToolArgumentError('types is empty; give some of "gpu", "tpu", "cpu" or leave it out')
    hardware = None if request.hardware is None else _hardware_name(request.hardware, "hardware", table)
    return replace(
        request,
        budget_usd=budget,
        hours=hours,
        v100_hours=v100_hours,
        min_memory_gb=min_memory,
        purchase_usd=purchase,
        hours_per_day=per_day if per_day is not None else 24.0,
        hardware=hardware,
        compare=tuple(_hardware_name(name, "compare", table) for name in _names(request.compare, "compare")),
        types=tuple(t for t in HARDWARE_TYPES if t in request.types),
        providers=_providers(request.providers, table),
    )
