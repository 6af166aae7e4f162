"""Superlatives: "which GPU has the most memory?", "the cheapest Tessera Cloud instance".

Answered from the extreme row of a table column that holds the asked attribute (human headers
such as "Price per hour" too, only in the tables whose passage names what the question names),
weighed against the quantities the prose states in the same unit; a price superlative also reads
every on-demand row of the price table (spot and preemptible rows only when asked).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..notes.keywords import fold
from ..notes.spans import Span, cell_said, column_label, row_text, unit_of
from .base import Hit
from .pricetool import PriceTool
from .question import Question, content_stems, stem
from .quotes import Candidate, quote, span_idents

_SCALE = {"kw": 1000.0, "tb": 1000.0, "mb": 0.001}  # to the base unit of the family (W, GB)
_QUANTITY = re.compile(r"(?P<prefix>\$)?(?P<num>\d[\d,]*(?:\.\d+)?)\s?(?P<unit>[a-zA-Z%/]+)?")

# Column names that hold what a superlative asks about.
_ATTRIBUTE_COLUMNS: dict[str, tuple[str, ...]] = {
    "memory": ("memory", "memory_gb", "vram", "ram", "hbm"),
    "price": ("usd_per_hour", "price", "cost", "usd", "price_per_hour"),
    "expensive": ("usd_per_hour", "price", "cost"),
    "cheap": ("usd_per_hour", "price", "cost"),
    "speed": ("speed", "throughput", "tflops"),
    "power": ("power", "tdp", "watts", "power_w"),
    "year": ("year", "released", "release"),
}


def price_rows(price: PriceTool, q: Question, pool: Sequence[Candidate]) -> list[Candidate]:
    """Rows of the price table as candidates (on-demand ones unless the question asks for spot or preemptible)."""
    interruptible = q.price.preemptible is True
    have = {(c.span.cells.get("hardware"), c.span.cells.get("provider")) for c in pool if c.span.kind == "row"}
    out: list[Candidate] = []
    for row in price.table.rows:
        if (row.interruptible and not interruptible) or (row.hardware, row.provider) in have:
            continue
        section = price.section_at(row.note, row.line)
        if section is None:
            continue
        cells = {
            "hardware": row.hardware,
            "provider": row.provider,
            "type": row.type,
            "usd_per_hour": f"{row.usd_per_hour:g}",
            "pricing": row.pricing,
        }
        span = Span(row_text(cells), "row", " ".join(cells), 10_000 + row.line, cells=cells)
        out.append(Candidate(Hit(section, 1.0), len(pool), span))
    return out


def _quantities(span: Span, units: Sequence[str]) -> list[float]:
    out = []
    for m in _QUANTITY.finditer(span.text):
        unit = (m.group("unit") or "").lower()
        dollars = bool(m.group("prefix"))
        if units and not (unit in units or (dollars and "$" in units)):
            continue
        try:
            value = float(m.group("num").replace(",", ""))
        except ValueError:
            continue
        out.append(value * _SCALE.get(unit, 1.0))
    return out


def superlative(q: Question, pool: list[Candidate], floor: float) -> list[tuple[Candidate, str]] | None:
    """'Which GPU has the most memory?': the extreme row of a matching table column, or the extreme quantity
    stated by a prose span the scorer trusts (confidence ``floor`` or more)."""
    if q.superlative is None:
        return None
    columns = _ATTRIBUTE_COLUMNS.get(stem(q.attribute or ""), (q.attribute or "",))
    rows = [c for c in pool if c.span.kind == "row"]
    scored: list[tuple[float, Candidate, str]] = []
    for cand in rows:
        cells = cand.span.cells
        column = next((k for k in cells if _column_key(k) in columns or column_label(k) in columns), None)
        if column is None or not _row_matches_entity(q, cells):
            continue
        try:
            value = float(re.sub(r"[^\d.]", "", cells[column]) or "nan")
        except ValueError:
            continue
        if math.isnan(value):
            continue
        scored.append((value, cand, column))
    scored = _in_named_tables(q, scored)
    from_rows = [(v, c, _row_sentence(q, c, col)) for v, c, col in _dedupe_rows(scored)]
    if from_rows and not _comparable(q, [col for _, _, col in scored]):
        return _extremes(q, from_rows)
    stated = _stated(q, pool, floor) if q.units else []
    if not from_rows and not stated:
        return None
    return _extremes(q, from_rows + stated)  # a table and the prose may both state the quantity: the extreme of all


def _column_key(column: str) -> str:
    """A header as a column name: 'Price per hour' -> 'price_per_hour'."""
    return re.sub(r"\W+", "_", column.strip().lower()).strip("_")


def _in_named_tables(q: Question, scored: list[tuple[float, Candidate, str]]) -> list[tuple[float, Candidate, str]]:
    """'The cheapest Tessera Cloud instance': only the rows of tables whose passage names what the question names."""
    names = [fold(n) for n in (*q.names, *(t.written for t in q.terms))]
    if not names:
        return scored

    named: dict[int, bool] = {}  # per passage: a table's rows share it
    for _, cand, _ in scored:
        chunk = cand.hit.chunk
        if chunk.id not in named:
            where = _runs(f"{chunk.title} {chunk.heading} {chunk.text}")
            named[chunk.id] = all(n in where for n in names)
    kept = [s for s in scored if named[s[1].hit.chunk.id]]
    return kept or scored


def _runs(text: str, longest: int = 4) -> set[str]:
    """Folded runs of up to ``longest`` consecutive words ("Tessera Cloud" -> "tesseracloud")."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {"".join(words[i : i + n]) for i in range(len(words)) for n in range(1, longest + 1) if i + n <= len(words)}


def _comparable(q: Question, columns: Sequence[str]) -> bool:
    """Whether a table's column holds the quantity in the question's unit, so prose figures compare with it.

    Prices stay with the table: a price table is the authority, and prose prices are of other things
    (electricity per kWh, a whole workstation).
    """
    if not q.units or "$" in q.units:
        return False
    return all((unit_of(col)[1].strip().lower() or "?") in q.units for col in columns)


def _stated(q: Question, pool: Sequence[Candidate], floor: float) -> list[tuple[float, Candidate, str]]:
    """The extreme quantity in the question's unit that each prose span states."""
    found = [
        (max(vals) if q.superlative == "max" else min(vals), c)
        for c in pool
        if c.span.kind != "row" and (vals := _quantities(c.span, q.units))
    ]
    found = [
        (v, c)
        for v, c in found
        if c.score >= floor and (not q.entity or q.entity in set(content_stems(c.span.text)) or span_idents(c.span.text))
    ]
    return [(v, c, quote(c, pool)) for v, c in found]


def _dedupe_rows(scored: list[tuple[float, Candidate, str]]) -> list[tuple[float, Candidate, str]]:
    seen: set[str] = set()
    out = []
    for value, cand, column in scored:
        key = cand.span.text
        if key not in seen:
            seen.add(key)
            out.append((value, cand, column))
    return out


def _row_matches_entity(q: Question, cells: dict[str, str]) -> bool:
    """A row is in scope if the question's kind word (GPU, TPU, ...) is in it or the question names none."""
    kinds = {"gpu", "tpu", "cpu"}
    asked = {s for s in q.stems if s in kinds}
    if not asked:
        return True
    values = " ".join(cells.values()).lower()
    return any(re.search(rf"\b{k}\b", values) for k in asked)


def _row_sentence(q: Question, cand: Candidate, column: str) -> str:
    cells = cand.span.cells
    first_col, first = next(iter(cells.items()))
    others = [cell_said(k, v) for k, v in cells.items() if k not in (first_col, column) and v.strip()]
    extra = f" ({', '.join(others[:3])})" if others else ""
    said = cell_said(column, cells[column])
    return f"{first}{extra} costs {said.removeprefix('price ')}" if said.startswith("price $") else f"{first}{extra} has {said}"


def _extremes(q: Question, values: list[tuple[float, Candidate, str]]) -> list[tuple[Candidate, str]]:
    pick = max if q.superlative == "max" else min
    target = pick(v for v, _, _ in values)
    best = [(c, text) for v, c, text in values if v == target]
    best.sort(key=lambda ct: -ct[0].score)
    return best[:3]
