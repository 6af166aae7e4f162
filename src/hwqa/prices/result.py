"""What the calculator found: :class:`CalcResult`, its ranked :class:`PriceOption` values, the rows
it left out (:class:`ExcludedOption`) and a :class:`Recommendation`.

Rendering (:mod:`hwqa.prices.render`) and citations (:meth:`hwqa.answer.pricetool.PriceTool.sources`)
read these types. JSON exists only at the edge: :meth:`CalcResult.to_json` is what a chat model,
``hwqa ask --json`` and ``hwqa prices --json`` see, and :meth:`CalcResult.from_json` reads such a
result back (the web page shows tool calls from their JSON).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from .request import CalcRequest
from .table import PriceRow, round_figures

__all__ = ["CalcResult", "ExcludedOption", "PriceOption", "Recommendation", "WorkloadReference", "rank_key"]


def _known_keys(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of ``data`` that are fields of the dataclass ``cls`` (the rest are derived figures)."""
    return {f.name: data[f.name] for f in fields(cls) if f.name in data}


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

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PriceOption:
        """The option :meth:`to_json` described (figures as rounded there)."""
        return cls(row=PriceRow(**_known_keys(PriceRow, data)), **_known_keys(cls, data))


@dataclass(frozen=True)
class ExcludedOption:
    """A row left out of the comparison by a filter the person asked for, and why."""

    hardware: str
    provider: str
    pricing: str
    reason: str
    note: str
    line: int

    @classmethod
    def of(cls, row: PriceRow, reason: str) -> ExcludedOption:
        """``row`` left out for ``reason``."""
        return cls(row.hardware, row.provider, row.pricing, reason, row.note, row.line)

    @property
    def where(self) -> str:
        """``note:line`` of the row."""
        return f"{self.note}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: which row (with note and line) and why it was left out."""
        return asdict(self)


@dataclass(frozen=True)
class Recommendation:
    """The top-ranked option and a one-line reason."""

    hardware: str
    provider: str
    pricing: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class WorkloadReference:
    """The hardware a workload's hours were measured on (``hours`` on ``hardware``)."""

    hardware: str
    provider: str
    speed: float | None
    note: str
    line: int

    @classmethod
    def of(cls, row: PriceRow) -> WorkloadReference:
        return cls(row.hardware, row.provider, row.speed, row.note, row.line)


@dataclass(frozen=True)
class CalcResult:
    """Ranked options, the excluded rows with reasons, a recommendation, and explanatory notes.

    ``problems`` are the price table's malformed rows (the first 20), so whoever shows the result
    can say which rows were left out of the table itself.
    """

    request: CalcRequest
    options: tuple[PriceOption, ...]
    excluded: tuple[ExcludedOption, ...]
    recommendation: Recommendation | None
    notes: tuple[str, ...] = ()
    reference: WorkloadReference | None = None
    workload_v100_hours: float | None = None
    problems: tuple[str, ...] = ()

    @property
    def mode(self) -> str:
        """The request's mode."""
        return self.request.mode

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (what the ``price_calculator`` tool returns)."""
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
            "problems": list(self.problems),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CalcResult:
        """The result :meth:`to_json` described (figures as rounded there)."""
        inputs: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in _known_keys(CalcRequest, data.get("inputs") or {}).items()
        }
        request = CalcRequest(**inputs)
        ref_data = data.get("reference")
        reference = WorkloadReference(**_known_keys(WorkloadReference, ref_data)) if ref_data else None
        rec = data.get("recommendation")
        return cls(
            request=request,
            options=tuple(PriceOption.from_json(o) for o in data.get("options") or []),
            excluded=tuple(ExcludedOption(**_known_keys(ExcludedOption, e)) for e in data.get("excluded") or []),
            recommendation=Recommendation(**_known_keys(Recommendation, rec)) if rec else None,
            notes=tuple(str(n) for n in data.get("notes") or []),
            reference=reference,
            workload_v100_hours=ref_data.get("v100_hours") if ref_data else request.v100_hours,
            problems=tuple(str(p) for p in data.get("problems") or []),
        )


RankKey = tuple[int, float, float, str, str, str]


def rank_key(option: PriceOption) -> RankKey:
    """Sort key of the ranking: options with a speed first, by dollars per V100-hour (then faster
    first); options without a speed after, by price per hour; then names, for a stable order."""
    row = option.row
    names = (row.hardware.lower(), row.provider.lower(), row.pricing)
    if option.usd_per_v100_hour is not None and row.speed is not None:
        return (0, option.usd_per_v100_hour, -row.speed, *names)
    return (1, row.usd_per_hour, 0.0, *names)
