"""What reading a document for prices produces, and the steps sentences and tables share.

A :class:`Doc` is a note body or a linked article's Markdown; reading it (:mod:`hwqa.prices.prose`,
:mod:`hwqa.prices.adhoc`) gives :class:`Found`: price rows (each with its evidence), the statements
left out with their reason, and relative speeds stated in words (:class:`SpeedFact`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..notes.note import Note
from .names import DEVICE_WORDS, Mention, Money, find_hardware, find_pricing, find_providers, provider_of_host
from .table import DEFAULT_PRICING, LeftOut, PriceFact, PriceRow, PriceTable
from .units import HOURS_PER, MAX_BUDGET_USD, money_words

__all__ = ["Doc", "Found", "SpeedFact", "article_doc", "clean", "each_after", "is_calculation", "note_doc", "per_device_hour"]

# A heading "Lambda" (alone, "lambda" is a function too; capitalised in a heading it is the cloud)
_LAMBDA_HEADING = re.compile(r"(?<![\w.-])Lambda(?![\w-])")

NOT_STATED = "not stated"
#: The largest amount a price may state: no more than the largest budget the calculator works with.
MAX_PRICE_USD = MAX_BUDGET_USD
_LINK = re.compile(r"!?\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_EMPHASIS = re.compile(r"\*\*|__|`")
_SPACES = re.compile(r"\s+")
_EACH_AFTER = re.compile(r"\s*(?:each|apiece|per\s+(?:gpu|device|card|chip|accelerator))\b", re.IGNORECASE)
_OPERATOR_BEFORE = re.compile(r"(?:(?:^|[\s\d])[=×*−]|(?:^|\s)[+/])\s*$")  # not the "+" of a name ("DS923+ $600")
_OPERATOR_AFTER = re.compile(r"\s*[=/×*+−]")
_PER_THING_AFTER = re.compile(r"\s*per\s+\w[\w-]*", re.IGNORECASE)
_INSTANCE_WORDS = frozenset({"node", "instance", "vm", "machine", "server"})


def clean(text: str) -> str:
    """Markdown reduced to what a reader sees: link texts, no emphasis marks, single spaces."""
    if "[" in text or "<" in text:
        text = _AUTOLINK.sub(r"\1", _LINK.sub(r"\1", text))
    if "*" in text or "_" in text or "`" in text:
        text = _EMPHASIS.sub("", text)
    return _SPACES.sub(" ", text).strip() if "  " in text or "\n" in text or "\t" in text else text.strip()


@dataclass(frozen=True)
class Doc:
    """A text prices are read from: a note's body or a linked article's Markdown."""

    source: str  # the note's path, or the article's URL
    title: str
    body: str
    first_line: int  # file line of the body's first line
    as_of: str | None = None  # the date it was written (front matter as_of or date), if known
    provider: str | None = None  # the provider a pricing page belongs to (from its address), if known
    url: str | None = None


def note_doc(note: Note) -> Doc:
    """A note as a :class:`Doc`: its date is the front matter's ``as_of``, else its ``date`` (the day)."""
    when = note.as_of or note.date
    return Doc(note.rel, note.title, note.body, note.body_line, when.split(" ")[0] if when else None)


def article_doc(url: str, title: str, markdown: str) -> Doc:
    """A linked article as a :class:`Doc` (lines counted from 0, as its passages are; provider from its address)."""
    return Doc(url, title or url, markdown, 0, None, provider_of_host(urlsplit(url).hostname or ""), url)


@dataclass(frozen=True)
class SpeedFact:
    """A relative speed stated in words: ``subject`` is ``value`` × the ``ref`` (a V100 unless another
    reference is named: "about 2x an A100"), said at ``where`` in ``text``."""

    subject: str
    value: float
    where: str
    text: str
    ref: str = "V100"

    def to_json(self) -> dict[str, object]:
        return {"subject": self.subject, "value": self.value, "where": self.where, "text": self.text, "ref": self.ref}


@dataclass
class Found:
    """What one document holds: price rows, statements left out, speeds."""

    rows: list[PriceRow] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    speeds: list[SpeedFact] = field(default_factory=list)
    facts: list[PriceFact] = field(default_factory=list)  # purchases, plans, electricity, power draws

    def extend(self, other: Found) -> None:
        self.rows.extend(other.rows)
        self.left_out.extend(other.left_out)
        self.speeds.extend(other.speeds)
        self.facts.extend(other.facts)

    def to_json(self) -> dict[str, Any]:
        """What an article holds, as JSON (kept in the manifest so an unchanged page is not read again)."""
        return {
            "rows": [row.to_json() for row in self.rows],
            "left_out": [item.to_json() for item in self.left_out],
            "speeds": [speed.to_json() for speed in self.speeds],
            "facts": [fact.to_json() for fact in self.facts],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Found:
        table = PriceTable.from_json(
            {"rows": data.get("rows", []), "left_out": data.get("left_out", []), "facts": data.get("facts", [])}
        )
        speeds = [
            SpeedFact(str(s["subject"]), float(s["value"]), str(s["where"]), str(s["text"]), str(s.get("ref") or "V100"))
            for s in data.get("speeds", [])
        ]
        return cls(table.rows, table.left_out, speeds, table.facts)


def is_calculation(before: str, after: str) -> bool:
    """Whether an amount with ``before`` and ``after`` around it is part of a sum written out ("2 × $700 = $1,400")."""
    return bool(_OPERATOR_BEFORE.search(before) or _OPERATOR_AFTER.match(after))


def each_after(after: str) -> bool:
    """Whether the text after an amount says it is the price of one of several ("$95 each", "apiece", "per card")."""
    return bool(_EACH_AFTER.match(after))


def rental_unit_problem(money: Money, before: str = "", after: str = "") -> str | None:
    """Why ``money`` is not a price per unit of time of one device or machine (None when it is);
    ``before`` and ``after`` are the text around it (a calculation, "per GPU")."""
    if money.currency != "USD":
        return f"{money.stated} is not in US dollars"
    if money.unit == "kwh":
        return f"{money.stated} is a price of electricity, not of a device"
    if money.unit is None:
        if _OPERATOR_BEFORE.search(before) or _OPERATOR_AFTER.match(after):
            return f"{money.stated} is part of a calculation, not a price as stated"
        per = _PER_THING_AFTER.match(after)
        if per:
            return f"{money.stated} {per.group(0).strip()} has no time unit (per hour, per month)"
        return f"{money.stated} has no time unit (per hour, per month): a purchase price or a total, not a rental price"
    if not math.isfinite(money.amount):
        return f"{money.stated} is not a number"
    if money.amount <= 0:
        return f"{money.stated} is not above 0; a free offer has no price per hour to compare"
    if money.amount > MAX_PRICE_USD:
        return f"{money.stated} is more than {money_words(MAX_PRICE_USD)}, beyond any price the calculator compares"
    qual = _qualifier_words(money.qualifier)
    if qual and not qual <= DEVICE_WORDS:
        return f"{money.stated} is a price per {money.qualifier} {money.unit}, not per hour of a device"
    return None


def _qualifier_words(qualifier: str | None) -> set[str]:
    words = re.split(r"[\s-]+", (qualifier or "").lower())
    return {w.rstrip("s") if w not in ("gpus", "vms") else w[:-1] for w in words if w and w != "per"}


def per_device_hour(money: Money, count: int, after: str, header: str = "") -> tuple[float, str]:
    """Dollars per hour of one device for ``money`` said of ``count`` devices, and the conversion said
    in words ('' when none was needed). ``after`` is the text after the price ("each"), ``header``
    a table column's name ("price per GPU")."""
    assert money.unit is not None
    steps: list[str] = []
    hours = HOURS_PER[money.unit]
    value = money.amount / hours
    if money.unit != "hour":
        steps.append(f"per {money.unit} ÷ {hours:g} h" if hours > 1 else f"per {money.unit} × {1 / hours:g}")
    qual = _qualifier_words(money.qualifier)
    if "chip" in qual or "core" in qual:
        steps.append(f"per {'chip' if 'chip' in qual else 'core'}-hour: the price of one {'chip' if 'chip' in qual else 'core'}")
    each = bool(_EACH_AFTER.match(after)) or bool(re.search(r"per\s+(?:gpu|device|card|chip|accelerator)", header, re.I))
    per_device = bool(qual & (DEVICE_WORDS - _INSTANCE_WORDS))
    if count > 1 and not each and not per_device:
        value /= count
        steps.append(f"÷ {count} devices (the price is for {count})")
    return value, "; ".join(steps)


def one(items: list[tuple[int, int, str]]) -> str | None:
    """The value of ``items`` when they all say the same, else None."""
    values = {value for _, _, value in items}
    return values.pop() if len(values) == 1 else None


@dataclass
class Context:
    """Where a statement is: its document, section heading, and what the heading says."""

    doc: Doc
    section: str = ""
    lead: str = ""  # the paragraph ending in ":" that introduces the list being read ("Where I rented an A100:")
    item_provider: str | None = None  # the provider a list item's leading link points to ("[Lambda](https://lambdalabs.com)")
    item_name: str = ""  # a list item's own name ("Alveo U250" in "Alveo U250 - AMD - ..."), for its later sentences
    draw_subject: str = ""  # what the last power draw of this section was of ("Idles at 11W": the same thing's)
    counted: tuple[str, int] | None = None  # what the section's last sentence counted ("4x Elegoo Saturn 3 Ultra")

    def subject(self, kind: str) -> Mention | None:
        """What a statement naming no hardware is about: the one hardware named by the list's lead-in (for a
        list item), else by the section heading; None when they name none or several."""
        for text in (self.lead if kind == "list item" else "", self.section):
            names = find_hardware(text)
            if len({m.name.lower() for m in names}) == 1:
                return names[0]
            if names:
                return None
        return None

    def provider(self) -> str:
        return (
            one(find_providers(self.section))
            or ("Lambda" if _LAMBDA_HEADING.search(self.section) else None)  # "## Lambda": the cloud, capitalised
            or self.item_provider
            or self.doc.provider
            or one(find_providers(self.doc.title))
            or NOT_STATED
        )

    def pricing(self) -> str:
        return one([p for p in find_pricing(self.section) if p[2] != "free"]) or DEFAULT_PRICING

    def where(self, line: int) -> str:
        return f"{self.doc.source}:{line}"

    def row(
        self,
        mention: Mention,
        usd_per_hour: float,
        *,
        provider: str,
        pricing: str,
        line: int,
        origin: str,
        evidence: str,
        stated: str,
        conversion: str,
        as_of: str | None,
        memory_gb: float | None = None,
        speed: float | None = None,
    ) -> PriceRow:
        return PriceRow(
            hardware=mention.name,
            provider=provider,
            type=mention.type,
            usd_per_hour=usd_per_hour,
            speed=speed,
            memory_gb=mention.memory_gb if mention.memory_gb is not None else memory_gb,
            pricing=pricing,
            as_of=as_of or self.doc.as_of,
            source=self.doc.url,
            note=self.doc.source,
            note_title=self.doc.title,
            line=line,
            origin=origin,
            evidence=evidence,
            stated=stated,
            conversion=conversion,
            section=self.section,
            url=self.doc.url,
        )
