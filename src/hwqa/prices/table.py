"""Price rows and tables: what the price calculator (:mod:`hwqa.prices.calculator`) works on.

A :class:`PriceTable` holds every valid :class:`PriceRow` found in the notes tagged ``prices``
(see :mod:`hwqa.prices.parse` for the table format) and read from the notes' and articles' text
(:mod:`hwqa.prices.prose`), one message per malformed row, and what was left out. Each
index generation's manifest stores the table as JSON (:meth:`PriceTable.to_json`), so answers
use exactly the table they cite. Hardware names are matched forgivingly (:func:`hardware_matches`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

__all__ = [
    "FACT_KINDS",
    "FACT_UNITS",
    "HARDWARE_TYPES",
    "OPTIONAL_COLUMNS",
    "OTHER_TYPE",
    "PRICES_TAG",
    "REQUIRED_COLUMNS",
    "HardwareType",
    "LeftOut",
    "PriceFact",
    "PriceRow",
    "PriceTable",
    "hardware_key",
    "hardware_matches",
    "round_figures",
]

HardwareType = Literal["gpu", "tpu", "cpu"]
PRICES_TAG = "prices"
HARDWARE_TYPES: tuple[HardwareType, ...] = ("gpu", "tpu", "cpu")
#: The type of a row read from text whose hardware is neither (Trainium, Gaudi, ...): compared only
#: when a request leaves the types open.
OTHER_TYPE = "other"
REQUIRED_COLUMNS: tuple[str, ...] = ("hardware", "provider", "type", "usd_per_hour")
OPTIONAL_COLUMNS: tuple[str, ...] = ("speed", "memory_gb", "pricing", "as_of", "source")
DEFAULT_PRICING = "on-demand"
#: Pricing kinds that can be interrupted; included only when preemptible capacity is allowed.
INTERRUPTIBLE_PRICING = frozenset({"preemptible", "spot"})


def round_figures(value: float | None) -> float | None:
    """Six significant figures for JSON (readable for people and models; exact enough)."""
    if value is None:
        return None
    return float(f"{value:.6g}")


# ---------------------------------------------------------------------------------------------
# Rows and tables
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PriceRow:
    """One valid row of a price table, with where it came from (note path, title, file line)."""

    hardware: str
    provider: str
    type: str
    usd_per_hour: float
    speed: float | None = None
    memory_gb: float | None = None
    pricing: str = DEFAULT_PRICING
    as_of: str | None = None
    source: str | None = None
    note: str = ""  # the note's path, or the article's URL
    note_title: str = ""
    line: int = 0
    # Where the price was read (provenance: not part of a row's value, so not compared).
    origin: str = field(default="price table", compare=False)  # price table (tagged prices), table, sentence, list item
    evidence: str = field(default="", compare=False)  # the exact row or sentence the price was read from
    stated: str = field(default="", compare=False)  # the price as written ("$1.46/hr", "$3.22 per chip-hour")
    conversion: str = field(default="", compare=False)  # how it became dollars per hour of one device, if it had to
    section: str = field(default="", compare=False)  # the heading the evidence is under
    url: str | None = field(default=None, compare=False)  # set when the price was read from a linked article
    speed_from: str = field(default="", compare=False)  # where a speed stated in words was read ("note:line: sentence")
    instance: str = field(default="", compare=False)  # the cloud instance type the price was stated for ("g5.xlarge")
    instance_devices: int = field(default=0, compare=False)  # how many of ``hardware`` that instance holds

    def named(self, name: str) -> bool:
        """Whether ``name`` names this row: its hardware, or the instance type its price was stated for."""
        return hardware_matches(name, self.hardware) or bool(self.instance and hardware_matches(name, self.instance))

    @property
    def usd_per_v100_hour(self) -> float | None:
        """Dollars per V100-hour (``usd_per_hour / speed``), or None when the speed is unknown."""
        return None if self.speed is None else self.usd_per_hour / self.speed

    @property
    def interruptible(self) -> bool:
        """True for preemptible/spot pricing (the provider may stop the machine)."""
        return self.pricing in INTERRUPTIBLE_PRICING

    @property
    def where(self) -> str:
        """``note:line`` of the row, for citations and problem messages."""
        return f"{self.note}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON-ready dict."""
        return {
            "hardware": self.hardware,
            "provider": self.provider,
            "type": self.type,
            "usd_per_hour": self.usd_per_hour,
            "speed": self.speed,
            "memory_gb": self.memory_gb,
            "pricing": self.pricing,
            "as_of": self.as_of,
            "source": self.source,
            "usd_per_v100_hour": round_figures(self.usd_per_v100_hour),
            "note": self.note,
            "note_title": self.note_title,
            "line": self.line,
            "origin": self.origin,
            "evidence": self.evidence,
            "stated": self.stated,
            "conversion": self.conversion,
            "section": self.section,
            "url": self.url,
            "speed_from": self.speed_from,
            "instance": self.instance,
            "instance_devices": self.instance_devices,
        }


_NOISE_WORDS = frozenset({"nvidia", "tesla", "google", "cloud", "geforce", "the", "a", "an"})
_GENERIC_WORDS = frozenset({"gpu", "gpus", "card", "cards", "accelerator", "chip", "chips"})


_TOKEN = re.compile(r"[a-z0-9]+")


@functools.lru_cache(maxsize=8192)
def _hardware_tokens(name: str) -> tuple[str, ...]:
    """A name's words that tell hardware apart (kept: the merge compares every pair of names of an offer)."""
    tokens = [t for t in _TOKEN.findall(name.lower()) if t not in _NOISE_WORDS]
    specific = [t for t in tokens if t not in _GENERIC_WORDS]
    return tuple(specific if specific else tokens)


def _join_tokens(tokens: Sequence[str]) -> str:
    out = ""
    for tok in tokens:
        if out and out[-1].isdigit() and tok[0].isdigit():
            out += "-"
        out += tok
    return out


def hardware_key(name: str) -> str:
    """A compact comparison key: ``"NVIDIA Tesla V100"`` → ``"v100"``, ``"TPU v3-8"`` → ``"tpuv3-8"``.

    Vendor words (nvidia, tesla, google, cloud, geforce) are dropped, as are separators, except
    that a ``-`` is kept between two numbers so ``"A100 40GB"`` stays ``"a100-40gb"``.
    """
    return _join_tokens(_hardware_tokens(name))


def _same_class(a: str, b: str) -> bool:
    return (a.isdigit() and b.isdigit()) or (a.isalpha() and b.isalpha())


def hardware_matches(query: str, name: str) -> bool:
    """Forgiving hardware-name match: does ``query`` (what a person typed) name ``name`` (a row)?

    ``"tpu v3"`` matches ``"TPU v3-8"``, ``"nvidia tesla p100"`` matches ``"P100"``, ``"a100"``
    matches ``"A100 40GB"`` and ``"A100 80GB"``, but ``"a10"`` does not match ``"A100"`` nor
    ``"l4"`` ``"L40S"``.
    """
    q_tokens = _hardware_tokens(query)
    if not q_tokens:
        return False
    n_tokens = _hardware_tokens(name)
    if set(q_tokens) <= set(n_tokens):
        return True
    q_key, n_key = _join_tokens(q_tokens), _join_tokens(n_tokens)
    start = n_key.find(q_key)
    while start >= 0:
        end = start + len(q_key)
        before_ok = start == 0 or not _same_class(n_key[start - 1], q_key[0])
        after_ok = end == len(n_key) or not _same_class(n_key[end], q_key[-1])
        if before_ok and after_ok:
            return True
        start = n_key.find(q_key, start + 1)
    return False


#: What a price fact prices: a card, chip or other thing (bought), a plan, subscription or service (a notebook
#: plan, colocation, hosting, remote hands: paid per month, year or hour, or once, as a setup fee), electricity,
#: a rental stated in another currency than US dollars (kept in its currency), an API's price per million
#: tokens; and what is not money but prices are worked out from: a power draw noted for a card or machine
#: (watts) and a volume of tokens used (millions of tokens per month).
FACT_KINDS = ("purchase", "plan", "electricity", "power", "rental", "tokens", "usage")
#: The unit of a fact's amount: one-off (a purchase, a setup fee), per hour, day, week, month or year (a plan, a
#: rental), per kWh, per million tokens (``mtok``), watts drawn.
FACT_UNITS = ("once", "hour", "day", "week", "month", "year", "kwh", "mtok", "watt")


@dataclass(frozen=True)
class PriceFact:
    """A price the notes state that is not a rental per hour of hardware (those are :class:`PriceRow`):
    what is priced (``subject``: "RTX 3090", "Paperspace Gradient Pro plan", "electricity"), its kind
    (:data:`FACT_KINDS`), the amount and currency as written, its unit (:data:`FACT_UNITS`), provider,
    date and evidence (note, line, the sentence or row, the amount as written)."""

    subject: str
    kind: str
    amount: float
    currency: str  # "USD", "EUR", ...; "W" for a power draw
    unit: str
    provider: str = ""
    as_of: str | None = None
    note: str = ""
    note_title: str = ""
    line: int = 0
    evidence: str = ""
    stated: str = ""
    section: str = ""
    url: str | None = None
    detail: str = ""  # what the amount is of, when the subject has several: "idle", "under load", "output", "for 2"

    @property
    def where(self) -> str:
        return f"{self.note}:{self.line}"

    @property
    def stated_at(self) -> tuple[int, int] | None:
        """Where the amount as written stands in the fact's evidence (case aside), or None when it does not."""
        at = self.evidence.lower().find(self.stated.lower()) if self.stated else -1
        return (at, at + len(self.stated)) if at >= 0 else None

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PriceFact:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class LeftOut:
    """A price statement that was not read into a row: where it is, its text, and why."""

    where: str
    text: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"where": self.where, "text": self.text, "reason": self.reason}


@functools.cache
def _row_fields() -> frozenset[str]:
    return frozenset(f.name for f in fields(PriceRow))


@dataclass
class PriceTable:
    """Every price row found in the notes and their articles, one message per malformed row of a
    price table (``problems``), the statements left out with their reason (``left_out``) and the
    prices that disagree for the same hardware, provider and pricing (``conflicts``, saying which is used)."""

    rows: list[PriceRow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    facts: list[PriceFact] = field(default_factory=list)  # purchases, plans, electricity, power draws

    def find(self, name: str) -> list[PriceRow]:
        """Rows whose hardware matches ``name`` forgivingly (see :func:`hardware_matches`)."""
        return [row for row in self.rows if row.named(name)]

    def hardware_names(self) -> list[str]:
        """Distinct hardware names in table order (for messages such as 'known hardware: ...')."""
        seen: dict[str, None] = {}
        for row in self.rows:
            seen.setdefault(row.hardware, None)
        return list(seen)

    def instance_names(self) -> list[str]:
        """Distinct cloud instance types the rows' prices were stated for ("g5.xlarge"), in table order."""
        return list(dict.fromkeys(row.instance for row in self.rows if row.instance))

    @property
    def notes(self) -> list[str]:
        """The notes (relative paths) the rows came from, in table order."""
        seen: dict[str, None] = {}
        for row in self.rows:
            seen.setdefault(row.note, None)
        return list(seen)

    def to_json(self) -> dict[str, Any]:
        """The table as a JSON-ready dict: rows and problems."""
        return {
            "rows": [r.to_json() for r in self.rows],
            "problems": list(self.problems),
            "left_out": [item.to_json() for item in self.left_out],
            "conflicts": list(self.conflicts),
            "facts": [fact.to_json() for fact in self.facts],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PriceTable:
        """The inverse of :meth:`to_json` (derived keys such as ``usd_per_v100_hour`` are recomputed)."""
        names = _row_fields()
        rows = [PriceRow(**{k: v for k, v in row.items() if k in names}) for row in data.get("rows", [])]
        left_out = [LeftOut(str(i.get("where")), str(i.get("text")), str(i.get("reason"))) for i in data.get("left_out", [])]
        return cls(
            rows=rows,
            problems=[str(p) for p in data.get("problems", [])],
            left_out=left_out,
            conflicts=[str(c) for c in data.get("conflicts", [])],
            facts=[PriceFact.from_json(f) for f in data.get("facts", []) if isinstance(f, Mapping)],
        )
