"""Which price facts a question is about, and money as an answer writes it: the helpers of :mod:`hwqa.prices.costs`.

A question is matched to the facts by the words they share (:func:`fit_score`: words of what is priced first,
then of where it is written: its section, note title, provider), a word of four letters or more also as the
start of a longer one ("colo" meets "Colocation"); hardware the question names is matched forgivingly
(:func:`named_in`: "4090s" names the RTX 4090). :class:`CostAnswer` is what a cost question comes to.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .table import PriceFact, hardware_matches
from .words import WORD_NUMBERS, PriceWords

__all__ = [
    "ENERGY",
    "GENERIC",
    "STOP",
    "CostAnswer",
    "best_fit",
    "count_word",
    "fit_score",
    "foreign_note",
    "holds_name",
    "is_model",
    "models_unpriced",
    "money_text",
    "named_in",
    "newest_of",
    "of_kind",
    "overlap",
    "purchases_named",
    "words_of",
]

_TOKENS = re.compile(r"[a-z0-9+]+")
_HARDWARE_TOKEN = re.compile(r"(?<![\w$])([a-z]{0,6}-?\d{1,4}[a-z]{0,3}?)(?:s)?(?![\w])")
STOP = frozenset(
    "the a an of for on in at to is my what how much cost costs would will does did do it our we i me us "
    "be by it's what's whats per hour hours year years month months monthly yearly annual first run running "
    "total and or with incl including price pay paying s more "
    # function words: "was" in a question and a note's line says nothing about which thing is meant
    "was were are been being has have had that this these those from as if so than then there their they them you your "
    "into about can could should just also which who when where why".split()
)
# A model's or chip's name: letters and digits together ("h200", "a10g", "v3"), not a quantity ("30h", "1g", "24gb").
_MODEL = re.compile(
    r"(?=[a-z0-9]*[a-z])(?=[a-z0-9]*\d)(?![\d.]+(?:h|hrs?|mins?|s|gb|tb|mb|g|k|m|x|w|kw|d|st|nd|rd|th|am|pm)$)[a-z0-9]+"
)
GENERIC = frozenset({"plan", "plans", "pro", "cloud", "gpu", "gpus", "card", "power", "the"})


@dataclass(frozen=True)
class CostAnswer:
    """What a cost question over the facts comes to: the answer in Markdown, and the facts it used."""

    text: str
    facts: tuple[PriceFact, ...]
    counted: bool = False  # the sum counts things the rate is per ("4 nodes", "2 slices"), not only time
    total: float | None = None  # the sum itself, when the answer is one sum
    saving: bool = False  # what one billing of a plan saves over the other (hwqa.prices.plansaving)


# A money question about electricity ("what does that cost in electricity", "the power bill"): energy, never a rental
ENERGY = re.compile(
    r"\b(?:electric\w*|energy|kwh|power\s+(?:cost|bill|money|spend)|in\s+power)\b|\bpower\b[^?]{0,40}\bcost|\bcost\b[^?]{0,40}\bpower\b"
)


def words_of(text: str) -> set[str]:
    """The words of ``text``, long ones cut to their first five letters ("colocating" meets "colocation")."""
    return {t[:5] if len(t) > 5 else t for t in _TOKENS.findall(text.lower()) if t not in STOP}


def overlap(asked: set[str], said: set[str]) -> int:
    """How many of the question's words a fact's words hold, a word of four letters or more also as its start ("colo"),
    or one of four letters or more as the question's word's start ("packs" holds "pack")."""
    return sum(
        1 for a in asked if a in said or (len(a) >= 4 and any(s.startswith(a) or (len(s) >= 4 and a.startswith(s)) for s in said))
    )


def fit_score(asked: set[str], fact: PriceFact) -> tuple[int, int]:
    """(words of what is priced, words of where it is: its section, note title, provider) the question shares."""
    own = words_of(f"{fact.subject} {fact.detail}")
    where = words_of(f"{fact.section} {fact.note_title} {fact.provider}") - own
    return overlap(asked, own), overlap(asked, where)


def count_word(token: str) -> float:
    return float(token) if token[0].isdigit() else float(WORD_NUMBERS[token])


def money_text(value: float, currency: str = "USD") -> str:
    mark = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency)
    # to the cent; a sum under half a cent to its first two digits ("$0.0042", never "$0.00")
    text = f"{value:,.2f}" if value == 0 or abs(value) >= 0.005 else f"{value:.{1 - math.floor(math.log10(abs(value)))}f}"
    return f"{mark}{text}" if mark else f"{text} {currency}"


def price_text(amount: float, currency: str) -> str:
    """A rate or an amount noted as written: whole ($250), cents ($0.95), or finer ($1.006, $0.000306) in full."""
    mark = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency)
    if amount == int(amount):
        text = f"{amount:,.0f}"
    elif round(amount, 2) == amount:
        text = f"{amount:,.2f}"
    else:
        text = f"{amount:.6g}"
    return f"{mark}{text}" if mark else f"{text} {currency}"


def total_text(value: float, currency: str) -> str:
    """A sum as the calculator writes money: to the cent ($38.00, $213.12, $1,792.80), as a person working it out by
    hand writes it (rounding sums of $100 or more to whole units made them disagree), whole from 100 up ($1,800)."""
    if value < 100 or round(value, 2) != round(value):
        return money_text(value, currency)
    mark = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency)
    return f"{mark}{value:,.0f}" if mark else f"{value:,.0f} {currency}"


def of_kind(facts: Sequence[PriceFact], *kinds: str) -> list[PriceFact]:
    return [f for f in facts if f.kind in kinds]


def newest_of(facts: Sequence[PriceFact]) -> PriceFact:
    return max(facts, key=lambda f: f.as_of or "")


def named_in(text: str, facts: Sequence[PriceFact]) -> list[PriceFact]:
    """The facts whose subject is hardware the question names ("4090s", "the P40", "two M40s")."""
    tokens = [m.group(1) for m in _HARDWARE_TOKEN.finditer(text) if any(c.isalpha() for c in m.group(1)) or len(m.group(1)) == 4]
    return [f for f in facts if any(hardware_matches(t, f.subject) for t in tokens)]


def foreign_note(currency: str) -> str:
    return "" if currency == "USD" else f" Kept in {currency} as your notes state it: they give no exchange rate."


def best_fit(asked: set[str], facts: Sequence[PriceFact], *, where_counts: bool) -> list[PriceFact]:
    """The facts the question's words fit best (what is priced first, then where), [] when none fits."""
    scored = [(fit_score(asked, f), f) for f in facts]
    if not scored:
        return []
    top = max(((own * 2 + (where if where_counts else 0)), own) for (own, where), _ in scored)
    if top[0] == 0:
        return []
    return [f for (own, where), f in scored if (own * 2 + (where if where_counts else 0), own) == top]


def is_model(word: str) -> bool:
    """Whether a word of a question (lower case) is a model's name ("h200", "mi300x", "v3"), not a quantity ("30h")."""
    return _MODEL.fullmatch(word) is not None


def holds_name(said: str, name: str) -> bool:
    """Whether ``said`` (lower case) names the model ``name``, spaces or hyphens between its parts allowed ("tpu v3")."""
    spaced = r"[\s_-]?".join(re.escape(c) for c in name)
    return re.search(rf"(?<![a-z0-9]){spaced}(?![0-9])", said) is not None


def models_unpriced(text: str, facts: Sequence[PriceFact]) -> list[str]:
    """The models a question names ("gex130", "u250s" as "u250") that none of the ``facts`` answering it names: the
    facts are another thing's price."""
    models = [re.sub(r"(?<=\d)s$", "", m) for m in re.findall(r"[a-z0-9]+", text) if is_model(m)]
    said = [f"{f.subject} {f.evidence}".lower() for f in facts]
    return [m for m in models if said and not any(holds_name(s, m) for s in said)]


# The word naming a plan's tier, right before "plan", "tier" … ("the elevenlabs scale plan"), never a determiner or a
# word of time or price ("the monthly plan", "their cheapest tier").
_TIER = re.compile(r"\b([a-z][a-z0-9+]*)\s+(?:plan|tier|subscription|membership|edition)\b")
_NO_TIER = frozenset(
    "the a an my our your their his her its this that which what whose same current old new paid free monthly yearly "
    "annual annually cheapest cheaper cheap priciest top basic base lowest highest entry".split()
)


def tiers_asked(text: str, unheard: Sequence[str]) -> list[str]:
    """The plan tiers a question names that no passage holds (``unheard``): "scale plan" in "what does the elevenlabs
    scale plan cost" over notes that price its Creator and Pro plans."""
    return [m.group(0) for m in _TIER.finditer(text) if m.group(1) not in _NO_TIER and m.group(1) in unheard]


def purchases_named(words: PriceWords, text: str, bought: Sequence[PriceFact], *, loose: bool = True) -> list[PriceFact]:
    """The purchases a question names: its hardware names, then (``loose``) the facts sharing most of its words,
    never one whose sentence lacks a model the question names ("a used H200" is no other card's price)."""
    named = [f for f in bought if any(hardware_matches(h.word, f.subject) for h in words.hardware)] or named_in(text, bought)
    models = [w for w in re.findall(r"[a-z0-9]+", text) if is_model(w)]  # "a used H200": never another card's price
    models += [re.sub(r"[\W_]+", "", h.word.lower()) for h in words.hardware]  # nor "the 3080s" a rig of 3070s
    if not named and loose:
        named = [
            f
            for f in best_fit(words_of(text) - GENERIC, bought, where_counts=False)
            if all(holds_name(f.evidence.lower(), m) for m in models)
        ]
    if len({f.subject.lower() for f in named}) > 1:  # "the RTX PRO 6000", not the RTX 6000: the one sharing most words
        asked = words_of(text)
        most = max(overlap(asked, words_of(f.subject)) for f in named)
        named = [f for f in named if overlap(asked, words_of(f.subject)) == most]
    return named


_SIZE = re.compile(r"(?<![\w.])(\d{1,4})\s?(?P<unit>gb|gib|gigs?|g|tb)\b", re.I)


def sizes_of(text: str) -> set[str]:
    """The memory or disk sizes ``text`` writes ("8 gig", "16GB", "2tb"), as "8 GB", "16 GB", "2 TB"."""
    return {f"{m.group(1)} {'TB' if m.group('unit').lower() == 'tb' else 'GB'}" for m in _SIZE.finditer(text)}


def other_size(question: str, facts: Sequence[PriceFact]) -> str | None:
    """What the facts used say of size when the question asks another ("the 8 gig 4060ti" over "RTX 4060 Ti 16GB
    $449"): the sizes they write, or None when they agree, or either writes none."""
    asked = sizes_of(question)
    said = set().union(*(sizes_of(f"{f.subject} {f.detail} {f.evidence}") for f in facts)) if facts else set()
    if not asked or not said or asked & said:
        return None
    return ", ".join(sorted(said))
