"""One price table from every source, ranked: what answers use when several sources price the same thing.

Rows of the explicit price tables (notes tagged ``prices``) are all kept. Every other row (another
table, a sentence, a list item, in a note or a linked article) is compared with the rows kept so
far, best source first: an explicit table, then any other table, then sentences and list items;
within each, the newest date first. A row for the same hardware (one name matching the other:
"TPU v3" and "TPU v3-8"), the same pricing kind and the same provider (or one whose provider is not
stated) is the same offer: it adds nothing when its price agrees, and is listed as a conflict,
with the price used, when it does not. Speeds stated in words fill the rows that have none; one
stated against other hardware than a V100 is converted through that hardware's own speed, when the
notes give it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

from .facts import NOT_STATED, SpeedFact
from .table import LeftOut, PriceRow, hardware_matches

__all__ = [
    "MAX_LEFT_OUT",
    "conflict_text",
    "fill_speeds",
    "hardware_connected",
    "merge_offers",
    "merge_rows",
    "offer_key",
    "order_key",
    "resolve_speeds",
]

MAX_LEFT_OUT = 500  # statements left out kept in a generation's manifest (the count says how many more)
MAX_RIVALS = 5  # disagreeing prices named per conflict (the count says how many more)
_RANK = {"price table": 0, "table": 1, "list item": 2, "sentence": 2}


_V100 = re.compile(r"(?:tesla\s+)?v100\w*(?:\s.*)?", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _date_key(as_of: str | None) -> str:
    m = re.match(r"\s*(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?", as_of or "")
    if not m:
        return ""
    return f"{m.group(1)}-{int(m.group(2) or 0):02d}-{int(m.group(3) or 0):02d}"


@lru_cache(maxsize=65536)
def _same_hardware(a: str, b: str) -> bool:
    """One name matches the other ("TPU v3" and "TPU v3-8", "A100" and "A100 40GB")."""
    return hardware_matches(a, b) or hardware_matches(b, a)


def _agrees(a: PriceRow, b: PriceRow) -> bool:
    return abs(a.usd_per_hour - b.usd_per_hour) <= max(0.005, 0.01 * max(a.usd_per_hour, b.usd_per_hour))


def describe_source(row: PriceRow) -> str:
    """``$8.00/h in notes.md:12 (sentence, 2021-12-21)``: a row's price, where it is, what kind of source."""
    where = f"{row.note}:{row.line}" if row.url is None else f"{row.url} § {row.section or row.note_title}"
    when = f", {row.as_of}" if row.as_of else ""
    stated = f" (stated {row.stated}; {row.conversion})" if row.conversion else ""
    return f"${row.usd_per_hour:.2f}/h{stated} in {where} ({row.origin}{when})"


def offer_key(row: PriceRow) -> str:
    """The pricing kind, provider (casefolded) and hardware a row offers, as one string: rows whose
    keys no chain of possible matches connects (:func:`hardware_connected`) never affect each other's merge."""
    return f"{row.pricing}\x1f{row.provider.casefold()}\x1f{row.hardware}"


def order_key(row: PriceRow) -> tuple[int, int]:
    """Where :func:`merge_rows` ranks a row that is not from an explicit table: best source first, newest first."""
    date = _date_key(row.as_of)
    return _RANK.get(row.origin, 3), -1 - int(date.replace("-", "")) if date else 0


def merge_offers(explicit: Sequence[PriceRow], found: Iterable[PriceRow]) -> tuple[list[PriceRow], dict[int, list[PriceRow]]]:
    """The rows answers use (explicit rows first, then the others not already priced, by
    :func:`order_key`, stable) and, by index of a kept row, the rows whose price disagrees with it."""
    kept: list[PriceRow] = []
    # pricing kind -> provider (casefolded) -> hardware name -> indexes of the kept rows
    offers: dict[str, dict[str, dict[str, list[int]]]] = {}

    def keep(row: PriceRow) -> None:
        offers.setdefault(row.pricing, {}).setdefault(row.provider.casefold(), {}).setdefault(row.hardware, []).append(len(kept))
        kept.append(row)

    def same_offers(row: PriceRow) -> list[int]:
        providers = offers.get(row.pricing, {})
        mine = row.provider.casefold()
        wanted = providers.keys() if row.provider == NOT_STATED else [mine, NOT_STATED.casefold()]
        hits: list[int] = []
        for provider in wanted:
            for hardware, indexes in providers.get(provider, {}).items():
                if hardware == row.hardware or _same_hardware(hardware, row.hardware):
                    hits.extend(indexes)
        return sorted(hits)

    for row in explicit:
        keep(row)
    rivals: dict[int, list[PriceRow]] = {}
    for row in sorted(found, key=order_key):
        matches = same_offers(row)
        if not matches:
            keep(row)
            continue
        used = next((k for k in matches if _agrees(kept[k], row)), matches[0])
        if not _agrees(kept[used], row):
            rivals.setdefault(used, []).append(row)
    return kept, rivals


def conflict_text(row: PriceRow, others: Sequence[PriceRow]) -> str:
    """One conflict: the price used and those that disagree with it (at most :data:`MAX_RIVALS`, then how many more)."""
    provider = "" if row.provider == NOT_STATED else f"{row.provider}, "
    more = f"; and {len(others) - MAX_RIVALS} more" if len(others) > MAX_RIVALS else ""
    return (
        f"{row.hardware} ({provider}{row.pricing}): {describe_source(row)} is used; "
        + "; ".join(f"not {describe_source(o)}" for o in others[:MAX_RIVALS])
        + more
    )


def merge_rows(explicit: Sequence[PriceRow], found: Iterable[PriceRow]) -> tuple[list[PriceRow], list[str]]:
    """The rows answers use (explicit rows first, then the others not already priced) and the conflicts."""
    kept, rivals = merge_offers(explicit, found)
    return kept, [conflict_text(kept[k], others) for k, others in rivals.items()]


def hardware_connected(a: str, b: str) -> bool:
    """Whether rows of hardware ``a`` and ``b`` can be the same offer (:func:`merge_rows` compares
    them when their pricing kind is the same and their providers are, or one is not stated)."""
    return a == b or _same_hardware(a, b)


def _is_v100(name: str) -> bool:
    return _V100.fullmatch(name.strip()) is not None


def resolve_speeds(rows: Sequence[PriceRow], speeds: Sequence[SpeedFact]) -> tuple[list[SpeedFact], list[LeftOut]]:
    """Every speed relative to a V100: those stated so, and those stated against other hardware
    ("about 2x an A100") converted when the notes give that hardware's own V100 speed (a row's speed
    column, an explicit table's first, or another statement, in chains); the others are left out, saying why."""
    known = [s for s in speeds if _is_v100(s.ref)]
    pending = [s for s in speeds if not _is_v100(s.ref)]

    def base_of(ref: str) -> tuple[float, str] | None:
        for row in sorted(rows, key=lambda r: _RANK.get(r.origin, 3)):
            if row.speed is not None and _same_hardware(row.hardware, ref):
                return row.speed, f"{row.note}:{row.line}" if row.url is None else row.url
        fact = next((k for k in known if _same_hardware(k.subject, ref)), None)
        return (fact.value, fact.where) if fact else None

    progress = True
    while pending and progress:
        progress = False
        for fact in list(pending):
            base = base_of(fact.ref)
            if base is not None:
                value, where = base
                how = f"{fact.where} ({fact.value:g} × the {fact.ref}, itself {value:g} V100 in {where})"
                known.append(SpeedFact(fact.subject, fact.value * value, how, fact.text))
                pending.remove(fact)
                progress = True
    left_out = [
        LeftOut(
            fact.where,
            fact.text,
            f"the {fact.subject}'s speed is stated as {fact.value:g} × the {fact.ref}, "
            f"and the notes give no speed of the {fact.ref} against a V100",
        )
        for fact in pending
    ]
    return known, left_out


def fill_speeds(rows: Sequence[PriceRow], speeds: Sequence[SpeedFact]) -> list[PriceRow]:
    """Rows without a speed get one stated in words for their hardware (from their own note first);
    ``speeds`` are relative to a V100 (see :func:`resolve_speeds`)."""
    out = []
    for row in rows:
        if row.speed is None:
            fitting = [s for s in speeds if _is_v100(s.ref) and _same_hardware(s.subject, row.hardware)]
            fitting.sort(key=lambda s: not s.where.startswith(f"{row.note}:"))
            if fitting:
                fact = fitting[0]
                row = replace(row, speed=fact.value, speed_from=f"{fact.where}: {fact.text}")
        out.append(row)
    return out


def bounded_left_out(items: Iterable[LeftOut]) -> list[LeftOut]:
    """The statements left out, each once, at most :data:`MAX_LEFT_OUT` of them (then one line saying how many more)."""
    seen: dict[tuple[str, str], LeftOut] = {}
    for item in items:
        seen.setdefault((item.where, item.reason), item)
    out = list(seen.values())
    if len(out) > MAX_LEFT_OUT:
        more = len(out) - MAX_LEFT_OUT
        out = [*out[:MAX_LEFT_OUT], LeftOut("", "", f"and {more} more statements left out")]
    return out
