"""A list item's own name: what its price is of when no hardware is named in its clause.

An owner's list item starts with a link's title, or a name, before " - " or ":" ("Hetzner GEX44 - RTX 4000,
€184/month", "[ElevenLabs - Pricing](…) - Starter $5/mo"). A part of the title that names a kind of page ("Pricing",
"Plans & Pricing", "Docs") is skipped for the next one, so a plan written "Pro $9/mo" after "Pricing - Hugging Face"
is Hugging Face's Pro plan. Hardware and money are never a name.

A sentence that prices what the one before it counted ("Back shelf: 4x Elegoo Saturn 3 Ultra … Bought them at $379
each") names it by a pronoun: :func:`counted_thing` reads the thing a sentence counts, :func:`refers_back` whether a
price's clause buys "them", "both" or "all four" of it.
"""

from __future__ import annotations

import re

from .names import find_hardware, find_money

__all__ = ["ITEM_NAME", "PLANS_END", "counted_thing", "item_name", "own_name", "refers_back", "with_own"]

# A name's characters: no sentence or clause mark, but a version's dot ("Mercury Plus 2.0 wash and cure")
_NAME_CHARS = r"(?:[^.;:()]|(?<=\d)\.(?=\d))"
ITEM_NAME = re.compile(rf"^\s*({_NAME_CHARS}{{2,60}}?)\s+[-–—:]\s")  # "Colab Pro - $9.99/mo": the item's own name
# the next part of a link title ("Pricing - Hugging Face - …")
_NEXT_NAME = re.compile(rf"\s*({_NAME_CHARS}{{2,60}}?)\s+[-–—:]\s")
# A link title's part that names a kind of page, not a thing: "Pricing", "Plans & Pricing", "Cloud Storage Pricing".
_PAGE_WORDS = re.compile(
    r"(?:[\w&]+\s+){0,2}?(?:pricing|prices|plans?(?:\s*(?:&|and)\s*pricing)?|docs?|documentation|console|home(?:page)?|"
    r"overview|billing|faq)",
    re.I,
)
PLANS_END = re.compile(r"\s+(?:plans?|pricing|tiers?)$", re.I)  # "Gradient plans": the offering's own name is "Gradient"


def own_name(sentence: str, kind: str) -> str:
    """A list item's own name, written before " - " or ":" ("Hetzner GEX44" in "Hetzner GEX44 - RTX 4000, €184/month"),
    when it is not hardware; '' otherwise (and for any ``kind`` but "list item")."""
    own = ITEM_NAME.match(sentence) if kind == "list item" else None
    name = own.group(1).strip() if own else ""
    while own is not None and _PAGE_WORDS.fullmatch(name):  # "Pricing - Hugging Face - Pro $9/mo": the site's name
        own = _NEXT_NAME.match(sentence, own.end())
        name = own.group(1).strip() if own else ""
    return "" if not name or find_hardware(name) or find_money(name) else name


def item_name(sentence: str) -> str:
    """A list item's own name, written before " - " or ":" at its start ("Alveo U250" in "Alveo U250 - AMD - ..."), when
    it is not hardware; '' otherwise. Its later sentences' "one" and "list price" are of it."""
    return own_name(sentence, "list item")


def with_own(name: str, own: str) -> str:
    """``name`` with the item's own name before it ("ElevenLabs Creator"); when one holds the other, the one that holds
    it ("APC Back-UPS Pro 1500VA" for "APC", the maker its link title ends with)."""
    if not own or own.lower() in name.lower():
        return name
    return own if name.lower() in own.lower() else f"{own} {name}"


# "4x Elegoo Saturn 3 Ultra", "3 Reolink RLC-810A": a count, then a capitalised name of up to six words
_COUNTED_THING = re.compile(r"(?<![\w.$€£/-])(\d{1,3})\s*[x×]?\s+([A-Z][\w.+-]*(?:\s+[A-Z0-9][\w.+-]*){0,5})")
# "Bought them at $379 each", "got both for $500", "they were $45 each": what the sentence before counted
_REFERS_BACK = re.compile(
    r"\b(?:bought|got|paid|picked\s+up|grabbed|ordered|snagged)\s+(?:them|both|those|these|all\s+(?:of\s+them|\w+))\b"
    r"|\b(?:they|those|these|both)\s+(?:were|cost|went\s+for|set\s+(?:me|us)\s+back)\b",
    re.I,
)


def counted_thing(sentence: str) -> tuple[str, int] | None:
    """The thing a sentence counts and names ("4x Elegoo Saturn 3 Ultra": 4 of "Elegoo Saturn 3 Ultra"), or None."""
    m = _COUNTED_THING.search(sentence)
    if m is None or find_money(m.group(0)) or not 1 < int(m.group(1)) <= 100:
        return None
    return m.group(2).strip(" .,"), int(m.group(1))


def refers_back(before: str) -> bool:
    """Whether a price's clause, up to the price (``before``), buys what the sentence before counted."""
    return _REFERS_BACK.search(before) is not None
