"""Price tables in the notes: parse them into :class:`~hwqa.prices.table.PriceTable` rows.

A price table is a Markdown pipe table in a note whose front-matter ``tags`` include ``prices``
(any case). Column names are matched ignoring case, spaces, underscores and hyphens, so
``usd_per_hour``, ``USD per hour`` and ``usd-per-hour`` are the same column.

Required columns: ``hardware``, ``provider``, ``type`` (gpu/tpu/cpu), ``usd_per_hour``
(``$1.46``, ``1.46`` or ``1.46 USD``; ``1,46`` is an error). Optional: ``speed`` (relative
training throughput, NVIDIA V100 = 1.0), ``memory_gb`` (per device), ``pricing`` (on-demand,
preemptible, spot, reserved, ...; default on-demand), ``as_of`` and ``source`` (a URL or a
Markdown link). Other columns are ignored.

A malformed row is never guessed: it is left out and reported in :attr:`PriceTable.problems` as
``"<note>:<file line>: <what is wrong>; fix the row to include it"``.

:func:`load_price_table` reads the notes; :func:`stored_price_table` reads the table the live
index generation stored when it was built (what ``hwqa ask`` answers from).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..errors import IndexMissingError
from ..index.reader import read_live_manifest
from ..notes.links import find_all_urls
from ..notes.note import Note
from .facts import MAX_PRICE_USD, Found, note_doc
from .merge import bounded_left_out, fill_speeds, merge_rows, resolve_speeds
from .pipe_tables import PipeTable, find_tables
from .prose import read_document
from .table import (
    DEFAULT_PRICING,
    HARDWARE_TYPES,
    OPTIONAL_COLUMNS,
    PRICES_TAG,
    REQUIRED_COLUMNS,
    PriceRow,
    PriceTable,
)
from .units import money_words

__all__ = [
    "linked_page_prices",
    "load_price_table",
    "normalize_column",
    "parse_price_note",
    "parse_usd_per_hour",
    "stored_price_table",
]

_LINK_RE = re.compile(r"^\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)$")
_ANGLE_URL_RE = re.compile(r"^<(https?://[^>\s]+)>$")
_PLAIN_NUMBER = r"(?:\d+(?:\.\d+)?|\.\d+)"
_USD_RE = re.compile(rf"^(?:us)?\$?\s*({_PLAIN_NUMBER})\s*(?:usd|us\$)?\s*(?:/\s*(?:h|hr|hour))?$", re.IGNORECASE)
_SPEED_RE = re.compile(rf"^({_PLAIN_NUMBER})\s*[x×]?$", re.IGNORECASE)
_MEMORY_RE = re.compile(rf"^({_PLAIN_NUMBER})\s*(?:gb|gib)?$", re.IGNORECASE)
_PRICING_ALIASES = {
    "ondemand": "on-demand",
    "on-demand": "on-demand",
    "pre-emptible": "preemptible",
    "preemptable": "preemptible",
    "spot-vm": "spot",
    "spot-instance": "spot",
}
_COLUMN_KEYS = {name.replace("_", ""): name for name in REQUIRED_COLUMNS + OPTIONAL_COLUMNS}


def normalize_column(header: str) -> str:
    """A header cell reduced for matching: lowercase, without spaces, ``_``, ``-`` or emphasis.

    ``"USD per hour"``, ``"usd_per_hour"`` and ``"Usd-Per-Hour"`` all give ``"usdperhour"``.
    """
    return re.sub(r"[\s_\-*`]+", "", header).lower()


def _strip_emphasis(text: str) -> str:
    text = text.strip()
    changed = True
    while changed and len(text) >= 2:
        changed = False
        for mark in ("**", "__", "`", "*", "_"):
            if len(text) > 2 * len(mark) and text.startswith(mark) and text.endswith(mark):
                text = text[len(mark) : -len(mark)].strip()
                changed = True
    return text


def _source_url(cell: str) -> str | None:
    text = cell.strip()
    if not text:
        return None
    link = _LINK_RE.match(text)
    if link:
        return link.group(2)
    angle = _ANGLE_URL_RE.match(text)
    if angle:
        return angle.group(1)
    return text


def parse_usd_per_hour(cell: str) -> float:
    """Parse a ``usd_per_hour`` cell: ``$1.46``, ``1.46``, ``1.46 USD`` (optionally ``/h``).

    Raises ``ValueError`` whose message says what is wrong (comma decimal, negative, empty,
    zero, not finite, not US dollars).
    """
    text = _strip_emphasis(cell)
    if not text:
        raise ValueError("usd_per_hour is empty")
    if "," in text:
        raise ValueError(f"usd_per_hour {text!r} has a comma; write the price with a decimal point, like 1.46")
    if re.search(r"(?:^|[\s$])-\s*\$?\d", text) or text.startswith("-"):
        raise ValueError(f"usd_per_hour {text!r} is negative; a price must be above 0")
    if re.search(r"\b(?:inf|infinity|nan)\b", text, re.IGNORECASE):
        raise ValueError(f"usd_per_hour {text!r} is not a finite number")
    match = _USD_RE.match(text)
    if not match:
        raise ValueError(f"usd_per_hour {text!r} is not a price in US dollars (write it like $1.46 or 1.46)")
    value = float(match.group(1))
    if not math.isfinite(value):
        raise ValueError(f"usd_per_hour {text!r} is not a finite number")
    if value <= 0:
        raise ValueError(f"usd_per_hour {text!r} is 0; a price must be above 0")
    if value > MAX_PRICE_USD:
        raise ValueError(f"usd_per_hour {text!r} is more than {money_words(MAX_PRICE_USD)}; check the price")
    return value


def _parse_positive(cell: str, column: str, pattern: re.Pattern[str], example: str) -> float | None:
    text = _strip_emphasis(cell)
    if not text or text in {"-", "—", "–", "?", "n/a", "N/A"}:
        return None
    if "," in text:
        raise ValueError(f"{column} {text!r} has a comma; write it with a decimal point, like {example}")
    match = pattern.match(text)
    if not match:
        raise ValueError(f"{column} {text!r} is not a positive number (like {example})")
    value = float(match.group(1))
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{column} {text!r} must be a number above 0 (like {example})")
    return value


def _parse_pricing(cell: str) -> str:
    text = _strip_emphasis(cell).lower()
    if not text:
        return DEFAULT_PRICING
    kind = re.sub(r"[\s_]+", "-", text)
    kind = _PRICING_ALIASES.get(kind, kind)
    if not re.fullmatch(r"[a-z][a-z0-9-]*", kind):
        raise ValueError(f"pricing {text!r} is not a pricing kind (on-demand, preemptible, spot, reserved, ...)")
    return kind


def _table_columns(table: PipeTable) -> tuple[dict[str, int], list[str], list[str]]:
    """Map canonical column → cell index; return (columns, missing required, duplicate names)."""
    columns: dict[str, int] = {}
    duplicates: list[str] = []
    for idx, cell in enumerate(table.header):
        canonical = _COLUMN_KEYS.get(normalize_column(cell))
        if canonical is None:
            continue
        if canonical in columns:
            duplicates.append(canonical)
        else:
            columns[canonical] = idx
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    return columns, missing, duplicates


def _parse_row(
    cells: list[str], columns: Mapping[str, int], header_len: int, note: Note, line: int, raw: str = ""
) -> tuple[PriceRow | None, list[str]]:
    if len(cells) != header_len:
        return None, [f"row has {len(cells)} cells but the header has {header_len} (a missing or extra |)"]

    def cell(name: str) -> str:
        idx = columns.get(name)
        return cells[idx] if idx is not None else ""

    issues: list[str] = []
    hardware = _strip_emphasis(cell("hardware"))
    if not hardware:
        issues.append("hardware is empty")
    provider = _strip_emphasis(cell("provider"))
    if not provider:
        issues.append("provider is empty")
    hw_type = _strip_emphasis(cell("type")).lower()
    if hw_type not in HARDWARE_TYPES:
        issues.append(f"type {hw_type!r} is not one of gpu, tpu, cpu" if hw_type else "type is empty (gpu, tpu or cpu)")
    price: float | None = None
    try:
        price = parse_usd_per_hour(cell("usd_per_hour"))
    except ValueError as exc:
        issues.append(str(exc))
    speed: float | None = None
    memory: float | None = None
    pricing = DEFAULT_PRICING
    try:
        speed = _parse_positive(cell("speed"), "speed", _SPEED_RE, "8 or 0.5")
    except ValueError as exc:
        issues.append(str(exc))
    try:
        memory = _parse_positive(cell("memory_gb"), "memory_gb", _MEMORY_RE, "16 or 80")
    except ValueError as exc:
        issues.append(str(exc))
    try:
        pricing = _parse_pricing(cell("pricing"))
    except ValueError as exc:
        issues.append(str(exc))
    if issues or price is None:
        return None, issues
    as_of = _strip_emphasis(cell("as_of")) or None
    return (
        PriceRow(
            hardware=hardware,
            provider=provider,
            type=hw_type,
            usd_per_hour=price,
            speed=speed,
            memory_gb=memory,
            pricing=pricing,
            as_of=as_of,
            source=_source_url(cell("source")),
            note=note.rel,
            note_title=note.title,
            line=line,
            evidence=raw,
            stated=_strip_emphasis(cell("usd_per_hour")),
        ),
        [],
    )


def _is_price_note(note: Note) -> bool:
    return any(tag.strip().lower() == PRICES_TAG for tag in note.tags)


def parse_price_note(note: Note) -> tuple[list[PriceRow], list[str]]:
    """Rows and problems of one note's price tables (nothing if the note is not tagged ``prices``)."""
    if not _is_price_note(note):
        return [], []
    lines = [ln.rstrip("\r") for ln in note.body.split("\n")]
    tables, table_problems = find_tables(lines)
    rows: list[PriceRow] = []
    problems: list[str] = [f"{note.rel}:{note.body_line + i}: {msg}" for i, msg in table_problems]
    for table in tables:
        header_line = note.body_line + table.header_index
        columns, missing, duplicates = _table_columns(table)
        if missing or duplicates:
            parts = []
            if missing:
                parts.append(f"price table is missing the column(s) {', '.join(missing)}")
            if duplicates:
                parts.append(f"price table has the column(s) {', '.join(duplicates)} more than once")
            problems.append(
                f"{note.rel}:{header_line}: {'; '.join(parts)}; fix the header "
                f"(required: {', '.join(REQUIRED_COLUMNS)}) or move the table to a note not tagged prices"
            )
            continue
        for index, cells in table.rows:
            line = note.body_line + index
            row, issues = _parse_row(cells, columns, len(table.header), note, line, lines[index].strip())
            if row is not None:
                rows.append(row)
            else:
                problems.append(f"{note.rel}:{line}: {'; '.join(issues)}; fix the row to include it")
    return rows, problems


ROW_FIELDS = tuple(f.name for f in fields(PriceRow))  # the order a stored row's values are in

_READ: dict[tuple[str, str], Found] = {}  # (note path, content hash) -> what it states; a watcher's rebuilds reread only edits
_READ_MAX = 50_000


def _read_note(note: Note) -> Found:
    key = (note.rel, note.content_hash)
    found = _READ.get(key)
    if found is None:
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        found = _READ[key] = read_document(note_doc(note), tables=not _is_price_note(note))
    return found


def _row_values(row: PriceRow) -> list[Any]:
    """A row as the values of its fields, in order (half the bytes of its JSON object, read back faster)."""
    return [getattr(row, name) for name in ROW_FIELDS]


def note_prices(note: Note) -> dict[str, Any]:
    """What one note adds to the price table, as JSON (``{}`` for nothing): its price-table rows and
    their problems, and what its text states (rows as lists of field values, :data:`ROW_FIELDS`).
    Kept per note in the index, so a build reads only the notes that changed (:func:`price_table_from`
    merges them)."""
    rows, problems = parse_price_note(note)
    found = _read_note(note)
    if not (rows or problems or found.rows or found.left_out or found.speeds or found.facts):
        return {}
    stated = found.to_json()
    stated["rows"] = [_row_values(r) for r in found.rows]
    return {"rows": [_row_values(r) for r in rows], "problems": list(problems), "found": stated}


def price_table_from(notes: Iterable[Mapping[str, Any]], articles: Iterable[Found] = ()) -> PriceTable:
    """The price table of notes given by :func:`note_prices` (in note order) and of linked articles."""
    explicit: list[PriceRow] = []
    problems: list[str] = []
    rows: list[PriceRow] = []
    rest: dict[str, list[Any]] = {"left_out": [], "speeds": [], "facts": []}
    for facts in notes:
        if facts:
            explicit.extend(PriceRow(*values) for values in facts.get("rows", []))
            problems.extend(str(p) for p in facts.get("problems", []))
            stated = facts.get("found", {})
            rows.extend(PriceRow(*values) for values in stated.get("rows", []))
            for key, items in rest.items():
                items.extend(stated.get(key, []))
    table = PriceTable(rows=explicit, problems=problems)
    found = Found.from_json(rest)
    found.rows = rows
    for article in articles:
        found.extend(article)
    merged, table.conflicts = merge_rows(table.rows, found.rows)
    speeds, unresolved = resolve_speeds(merged, found.speeds)
    table.rows = fill_speeds(merged, speeds)
    table.left_out = bounded_left_out([*found.left_out, *unresolved])
    table.facts = found.facts
    return table


def load_price_table(notes: Iterable[Note], articles: Iterable[Found] = ()) -> PriceTable:
    """Every price the notes state, ranked into one table (see :mod:`hwqa.prices.merge`): the tables
    of the notes tagged ``prices`` (case-insensitive), then the prices read from every note's
    sentences, list items and other tables, and from the linked articles (``articles``: what
    :func:`~hwqa.prices.prose.read_document` found in each).

    Malformed rows of a price table are left out and reported in ``problems`` with note and file
    line; statements that can't be read with confidence are listed in ``left_out`` with the reason.
    """
    return price_table_from([note_prices(note) for note in notes], articles)


def stored_price_table(index_dir: Path) -> PriceTable:
    """The price table the live index generation in ``index_dir`` was built with (what answers use).

    Raises :class:`IndexMissingError` when no index has been built there.
    """
    manifest = read_live_manifest(index_dir)
    if manifest is None:
        raise IndexMissingError(
            f"no index found at {index_dir}/; run 'hwqa index' to build it, or give --notes DIR to read a notes folder"
        )
    prices: Mapping[str, object] = manifest.get("prices") or {}
    return PriceTable.from_json(prices)


def linked_page_prices(notes: Iterable[Note], index_dir: Path) -> tuple[list[Found], list[str]]:
    """What the pages ``notes`` link to state of prices, as the live index in ``index_dir`` last read
    them (no page is fetched), and the linked addresses that index knows nothing of (a link added
    since it was built, or no index at all): their prices are left out until ``hwqa index`` reads them.
    """
    urls = list(dict.fromkeys(link.url for note in notes for link in find_all_urls(note.body)))
    manifest = read_live_manifest(index_dir) if urls else None
    links: Mapping[str, Mapping[str, object]] = (manifest.get("links") or {}) if manifest is not None else {}
    found: list[Found] = []
    unread: list[str] = []
    for url in urls:
        record = links.get(url)
        if record is None:
            unread.append(url)
            continue
        prices = record.get("prices")
        if isinstance(prices, Mapping):
            found.append(Found.from_json(prices))
    return found, unread


def unread_pages(urls: list[str], notes: Path, index: Path) -> str:
    """One line: which linked pages' prices ``hwqa prices --notes`` leaves out, and how to include them."""
    named = ", ".join(urls[:3]) + (f" and {len(urls) - 3} more" if len(urls) > 3 else "")
    pages, them = ("1 page", "it") if len(urls) == 1 else (f"{len(urls)} pages", "them")
    return (
        f"the prices of {pages} these notes link to are left out ({named}): the index at {index} has not read "
        f"{them}; run 'hwqa index --notes {notes} --index {index}' to include {them}"
    )
