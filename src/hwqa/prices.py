"""Price tables in the notes: the rows the price calculator (:mod:`hwqa.calc`) works on.

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
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from .notes import Note
from .spans import split_row

__all__ = [
    "HARDWARE_TYPES",
    "OPTIONAL_COLUMNS",
    "PRICES_TAG",
    "REQUIRED_COLUMNS",
    "PriceRow",
    "PriceTable",
    "hardware_key",
    "hardware_matches",
    "load_price_table",
    "normalize_column",
    "parse_price_note",
    "parse_usd_per_hour",
]

PRICES_TAG = "prices"
HARDWARE_TYPES: tuple[str, ...] = ("gpu", "tpu", "cpu")
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
    note: str = ""
    note_title: str = ""
    line: int = 0

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
        }


_NOISE_WORDS = frozenset({"nvidia", "tesla", "google", "cloud", "geforce", "the", "a", "an"})
_GENERIC_WORDS = frozenset({"gpu", "gpus", "card", "cards", "accelerator", "chip", "chips"})


def _hardware_tokens(name: str) -> list[str]:
    tokens = [t for t in re.findall(r"[a-z0-9]+", name.lower()) if t not in _NOISE_WORDS]
    specific = [t for t in tokens if t not in _GENERIC_WORDS]
    return specific if specific else tokens


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


@dataclass
class PriceTable:
    """Every valid price row found in the notes, and one message per problem found."""

    rows: list[PriceRow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def find(self, name: str) -> list[PriceRow]:
        """Rows whose hardware matches ``name`` forgivingly (see :func:`hardware_matches`)."""
        return [row for row in self.rows if hardware_matches(name, row.hardware)]

    def hardware_names(self) -> list[str]:
        """Distinct hardware names in table order (for messages such as 'known hardware: ...')."""
        seen: dict[str, None] = {}
        for row in self.rows:
            seen.setdefault(row.hardware, None)
        return list(seen)

    @property
    def notes(self) -> list[str]:
        """The notes (relative paths) the rows came from, in table order."""
        seen: dict[str, None] = {}
        for row in self.rows:
            seen.setdefault(row.note, None)
        return list(seen)

    def to_json(self) -> dict[str, Any]:
        """The table as a JSON-ready dict: rows and problems."""
        return {"rows": [r.to_json() for r in self.rows], "problems": list(self.problems)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PriceTable:
        """The inverse of :meth:`to_json` (derived keys such as ``usd_per_v100_hour`` are recomputed)."""
        names = {f.name for f in fields(PriceRow)}
        rows = [PriceRow(**{k: v for k, v in row.items() if k in names}) for row in data.get("rows", [])]
        return cls(rows=rows, problems=[str(p) for p in data.get("problems", [])])


# ---------------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------------

_DELIM_CELL_RE = re.compile(r"^\s*:?-+:?\s*$")
_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
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


def _is_delimiter_row(line: str) -> bool:
    if "-" not in line:
        return False
    cells = split_row(line)
    return bool(cells) and all(_DELIM_CELL_RE.match(c) for c in cells)


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


@dataclass
class _Table:
    header_index: int
    header: list[str]
    rows: list[tuple[int, list[str]]]  # (body line index, cells)


def _find_tables(lines: Sequence[str]) -> tuple[list[_Table], list[tuple[int, str]]]:
    """Pipe tables in ``lines`` (outside fenced code), plus (line index, message) table problems."""
    tables: list[_Table] = []
    problems: list[tuple[int, str]] = []
    fence: str | None = None
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        fence_match = _FENCE_RE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
            i += 1
            continue
        if fence_match:
            fence = fence_match.group(1)
            i += 1
            continue
        if "|" in line and not line.lstrip().startswith(">") and i + 1 < n and _is_delimiter_row(lines[i + 1]):
            header = split_row(line)
            delim = split_row(lines[i + 1])
            if len(header) != len(delim):
                problems.append(
                    (
                        i,
                        f"table header has {len(header)} columns but the separator row below it has {len(delim)}; "
                        "make them match",
                    )
                )
            body: list[tuple[int, list[str]]] = []
            j = i + 2
            while j < n and lines[j].strip() and "|" in lines[j] and not _FENCE_RE.match(lines[j]):
                body.append((j, split_row(lines[j])))
                j += 1
            if len(header) == len(delim):
                tables.append(_Table(header_index=i, header=header, rows=body))
            i = j
            continue
        if line.lstrip().startswith("|") and line.rstrip().endswith("|") and line.count("|") >= 3:
            # Looks like a table row that is not under a header + separator row.
            prev_is_row = i > 0 and lines[i - 1].lstrip().startswith("|")
            if not prev_is_row:
                problems.append((i, "lines look like a table but have no separator row (|---|---|) under the header; add one"))
        i += 1
    return tables, problems


def _table_columns(table: _Table) -> tuple[dict[str, int], list[str], list[str]]:
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
    cells: list[str], columns: Mapping[str, int], header_len: int, note: Note, line: int
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
    tables, table_problems = _find_tables(lines)
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
            row, issues = _parse_row(cells, columns, len(table.header), note, line)
            if row is not None:
                rows.append(row)
            else:
                problems.append(f"{note.rel}:{line}: {'; '.join(issues)}; fix the row to include it")
    return rows, problems


def load_price_table(notes: Iterable[Note]) -> PriceTable:
    """Every price table in the notes tagged ``prices`` (case-insensitive), in note order.

    Malformed rows are left out and reported in ``problems`` with note and file line.
    """
    table = PriceTable()
    for note in notes:
        rows, problems = parse_price_note(note)
        table.rows.extend(rows)
        table.problems.extend(problems)
    return table
