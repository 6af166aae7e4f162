"""Every quantity a line states, with its units: ``$0.07/GB/mo`` is 0.07 USD per GB per month, ``~6 matches/wk``
6 matches per 7 days, ``pulls ~230W`` 0.23 kW, ``900M tokens`` 9e8 tokens, ``one photo is ~1,300 tokens`` 1,300 tokens
per photo, ``55p/hr`` 0.55 GBP per hour.

Units are reduced to a few bases, each a dimension of its own: money in its currency (never converted), hours,
days, months (a week is 7 days and a year 12 months; an hour, a day and a month are not converted into each other
here, as "a day" of use is rarely 24 hours: :mod:`hwqa.prices.solve` links them only when nothing else does),
kilowatts (a watt-hour is a kW × h / 1000), gigabytes, and whatever else is counted, by its noun ("seat", "token",
"match", "photo"); people of any kind count as seats. A number that is part of a name ("gex44", "a100", "4090 rig"),
a date or a time of day, a percentage, a range and a speed are no quantity.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .rates import _TIME_WORDS, _noun
from .words import WORD_NUMBERS

__all__ = ["Qty", "Units", "quantities", "unit_of"]

Units = tuple[tuple[str, int], ...]  # sorted (base, power) pairs, no zero powers

_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP", "usd": "USD", "dollar": "USD", "dollars": "USD", "buck": "USD"}
_CURRENCY |= {"bucks": "USD", "eur": "EUR", "euro": "EUR", "euros": "EUR", "gbp": "GBP", "quid": "GBP", "pound": "GBP"}
_CURRENCY |= {"pounds": "GBP"}
_SUBUNIT = {"p": "GBP", "pence": "GBP", "c": "USD", "ct": "USD", "cent": "USD", "cents": "USD", "¢": "USD"}
_MULT = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9}
_TIME_BASE = {"second": ("hour", 1 / 3600), "minute": ("hour", 1 / 60), "hour": ("hour", 1.0), "day": ("day", 1.0)}
_TIME_BASE |= {"week": ("day", 7.0), "month": ("month", 1.0), "year": ("month", 12.0)}
_PHYSICAL = {
    "w": ({"kw": 1}, 1e-3), "watt": ({"kw": 1}, 1e-3), "watts": ({"kw": 1}, 1e-3), "kw": ({"kw": 1}, 1.0),
    "wh": ({"kw": 1, "hour": 1}, 1e-3), "kwh": ({"kw": 1, "hour": 1}, 1.0),
    "gb": ({"gb": 1}, 1.0), "gig": ({"gb": 1}, 1.0), "gigs": ({"gb": 1}, 1.0), "gib": ({"gb": 1}, 1.0),
    "tb": ({"gb": 1}, 1e3), "tib": ({"gb": 1}, 1e3), "mb": ({"gb": 1}, 1e-3),
}  # fmt: skip
_PEOPLE = frozenset(
    "seat seats user users people person persons member members us editor editors staff employee employees dev devs "
    "developer developers kid kids student students player players parent parents volunteer volunteers engineer "
    "engineers teacher teachers".split()
)
# Words after a number that make it no quantity of anything a sum multiplies.
_NOT_UNITS = frozenset(
    "am pm fps x % percent v ah mah mp bit bits core cores nm mm cm km m2 km2 st nd rd th ms deg c f ohm db hz ghz mhz "
    "k b bn".split()
)
_FILLER = frozenset("of the a an and or to in on at for with from by is are was it its this that my our".split())
_ADJ = r"(?:more|extra|new|spare|other|used|big|small|younger|older|full|whole|of\s+(?:the|those|these|our|my)|of(?=\s+us\b))"
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_QTY = re.compile(
    rf"(?<![\w.,/:#-])(?P<cur>[$€£])?\s?(?P<num>{_NUM})(?![\d:]|[.,]\d|-\d)"
    r"(?:\s?(?P<mult>k|mm|m|bn|b|thousand|million|billion)(?![a-z]))?"
    rf"(?:\s?(?:{_ADJ}\s+)?(?P<unit>[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)?|€|¢|%))?"
)
_COUNT_WORD = "two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty"
_WORD_QTY = re.compile(rf"\b(?P<w>{_COUNT_WORD})\s+(?:{_ADJ}\s+)?(?P<unit>[a-z][a-z-]*)")
_PER = re.compile(
    rf"\s*(?:/|\bper\b|\ba\b|\ban\b|\bevery\b|\beach\b)\s*(?:(?P<n>{_NUM})\s?(?P<mult>k|m|million|thousand)?\s*)?"
    r"(?:(?:input|output|prompt|completion)\s+)?(?P<unit>[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)?)"
)
_SPAN_OF = re.compile(
    r"\s+(?:of\s+(?:the|a|each|every)\s+)?(?P<w>season|term|semester|project|run|job|trip|tour|campaign|contract|lease|batch)\b"
)
_MODEL_AFTER = re.compile(r"\s*(?:[a-z]+\s+)?[a-z]{0,4}\d{2,4}")
_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)")
_TIMES_SIGN = re.compile(r"\s*[x×*]\s*")
_BASES = frozenset({"USD", "EUR", "GBP", "hour", "day", "month", "kw", "gb"})
_ADVERB = re.compile(r"\s*(?P<adv>hourly|daily|weekly|monthly|yearly|annually)\b")
# "one photo is ~1,300 tokens", "each fold takes ~26 h": the quantity is per one of the thing before it
# "one fold of 3d_fullres takes ~26 h", "one board photo is ~2,000 tokens": per one of the noun before "of" or the verb
_ONE_OF = re.compile(
    r"\b(?:one|each|every|per|a\s+single)\s+(?:[a-z][\w-]*\s+){0,2}?(?!(?:about|around|roughly|approx)\b)(?P<w>[a-z][a-z-]*)(?:\s+of(?:\s+[\w-]+){1,4}?)?\s+"
    r"(?:(?:is|are|was|takes?|took|uses?|used|needs?|runs?|ran|comes?\s+to|came\s+to|=)\s*|[:,]?\s*)"
    r"(?:about\s+|around\s+|roughly\s+|~\s*)?$"
)
_H_M = re.compile(r"(?<![\w.])(\d{1,3})\s?h\s?(\d{1,2})\s?m(?:in)?\b")
# A table row read as "header value" pairs: "$/hr 1.212" is 1.212 dollars an hour
_HEADED = re.compile(rf"(?P<cur>[$€£])\s*/\s*(?P<unit>[a-z]+)\s+(?P<num>{_NUM})(?![\d.,]\d|\s*[$€£%])")


# "shows are 3 hrs", "matches take ~1.5h": the quantity is per one of them
_THEY_ARE = re.compile(r"\b(?P<w>[a-z]{3,}s)\s+(?:are|take|run|last)\s+(?:about\s+|around\s+|roughly\s+|~\s*)?$")


@dataclass(frozen=True)
class Qty:
    """A quantity as a line states it: ``value`` in the base units ``units``, written ``written`` at ``start``."""

    value: float
    units: Units
    written: str
    start: int
    end: int

    @property
    def money(self) -> str | None:
        return next((b for b, p in self.units if b in ("USD", "EUR", "GBP") and p == 1), None)


def _mul(into: dict[str, int], units: dict[str, int], power: int) -> None:
    for base, p in units.items():
        into[base] = into.get(base, 0) + p * power
        if into[base] == 0:
            del into[base]


def unit_of(word: str) -> tuple[dict[str, int], float] | None:
    """The base units and factor of a unit word ("mo" → month 1, "hrs" → hour 1, "tb" → gb 1000, "editors" → seat 1),
    or None for a word that is no unit of anything counted ("fps", "pm", "of")."""
    word = word.lower().strip(".")
    if word in _TIME_WORDS:
        base, factor = _TIME_BASE[_TIME_WORDS[word]]
        return {base: 1}, factor
    if word in _PHYSICAL:
        physical, scale = _PHYSICAL[word]
        return dict(physical), scale
    if word in _CURRENCY:
        return {_CURRENCY[word]: 1}, 1.0
    if word in _NOT_UNITS or word in _FILLER or len(word) < 2 or word[0].isdigit():
        return None
    if word in _PEOPLE:
        return {"seat": 1}, 1.0
    if word in ("tok", "toks"):  # "$0.15 per 1M input tok"
        return {"token": 1}, 1.0
    if "-" in word:  # "gpu-hour", "node-hr": both
        units: dict[str, int] = {}
        factor = 1.0
        for part in word.split("-"):
            one = unit_of(part)
            if one is None:
                return None
            _mul(units, one[0], 1)
            factor *= one[1]
        return units, factor
    return {_stem(word): 1}, 1.0


def _stem(word: str) -> str:
    """One noun for its singular and plural ("matches", "match"; "batteries", "battery")."""
    word = _noun(word)
    if word in ("card", "pod"):  # "$0.69/hr per pod" over "4x RTX 4090": per one of the cards
        return "gpu"
    if word.endswith(("che", "she", "sse", "xe")) and len(word) > 4:
        return word[:-1]
    if word.endswith("ie") and len(word) > 4:
        return word[:-2] + "y"
    return word


def quantities(text: str) -> Iterator[Qty]:
    """The quantities of ``text`` (lower case), in order (see the module doc)."""
    found = list(_read(text))
    yield from _each(text, found)


def _read(text: str) -> Iterator[Qty]:
    last = 0
    before: Qty | None = None
    for m in _QTY.finditer(text):
        if m.start() < last:
            continue  # "1M tokens" of "$0.02 / 1M tokens": part of the rate before it
        q = _one(text, m)
        if q is None:
            continue
        if before is not None and _TIMES_SIGN.fullmatch(text, before.end, q.start) and not any(p < 0 for _, p in q.units):
            counted = [b for b, p in before.units if p > 0 and b not in _BASES]
            if len(counted) == 1:  # "6 matches/wk x 1.5h": the hours of one match
                units = dict(q.units)
                _mul(units, {counted[0]: 1}, -1)
                q = Qty(q.value, _key(units), q.written, q.start, q.end)
        if before is not None and q.units == (("out", 1),) and not _SENTENCE_END.search(text, before.end, q.start):
            q = Qty(q.value, before.units, q.written, q.start, q.end)  # "~6k tokens in, ~1.5k out": tokens out
        if (
            before is not None
            and _per_one_of(before, q)
            and not _SENTENCE_END.search(text, before.end, q.start)
            and not _FOR_ITS_OWN.match(text, q.end)  # "$55 per sensor + ~$2,200 for a border gateway": the gateway's
        ):
            # "one photo is ~1,300 tokens in, the json back is ~200 tokens out": the second is per photo too
            units = dict(q.units)
            _mul(units, {b: p for b, p in before.units if p < 0}, 1)
            q = Qty(q.value, _key(units), q.written, q.start, q.end)
        last = q.end
        before = q
        yield q
    for m in _HEADED.finditer(text):
        one = unit_of(m.group("unit"))
        if one is not None and not any(b in ("USD", "EUR", "GBP") for b in one[0]):
            units = {_CURRENCY[m.group("cur")]: 1}
            _mul(units, one[0], -1)
            yield Qty(float(m.group("num").replace(",", "")) / one[1], _key(units), m.group(0), m.start(), m.end())
    for m in _WORD_QTY.finditer(text):
        one = unit_of(m.group("unit"))
        if one is not None and "USD" not in one[0]:
            units, factor = one
            yield Qty(WORD_NUMBERS[m.group("w")] * factor, _key(units), m.group(0), m.start(), m.end())


# "$0.34/hr each", "$229 each", "$28 a pop": a price of one of the things its sentence counts
_EACH_AFTER = re.compile(r"\s*(?:each|apiece|a\s+piece|a\s+pop|ea\.?|per\s+(?:unit|piece|item))(?![\w-])")
# "4 runs, each about 2.5 hrs": a quantity of one of the things counted just before it
_EACH_BEFORE = re.compile(r"\beach\s+(?:(?:about|around|roughly|approx\.?|~)\s*)?$")
# How many a sentence says were bought or are had when no counted noun says it: "bought 3 for the front intake",
# "2x WD Red", "x2"
_COUNT_SAID = re.compile(
    rf"\b(?:bought|got|have|had|ordered|grabbed|need|needs|picked\s+up)\s+(?P<n>\d{{1,3}}|{_COUNT_WORD})"
    r"(?=\s*(?:[,.;:()]|$|(?:for|at|off|from|on|in|last|this)\b|of\s+(?:them|those|these)\b))"
    r"|(?<![\w.,$€£])(?P<x>\d{1,3})\s?x(?=\s+[a-z])(?!\s+(?:faster|slower|the|more|less|cheaper|as|speed|perf)\b)"
    r"|(?<![\w.])x\s?(?P<y>\d{1,2})(?![\w.])"
)
_CLAUSE_END = re.compile(r"[.;!?](?:\s|$)|\n")


def _counted(q: Qty) -> str | None:
    """The noun a quantity counts ("4x" cards, "4 runs"), or None for a price, length, size or rate."""
    if len(q.units) == 1 and q.units[0][1] == 1 and q.units[0][0] not in _BASES:
        return q.units[0][0]
    return None


def _each(text: str, found: list[Qty]) -> list[Qty]:
    """``found`` with a quantity "each" of something per one of the thing its sentence counts: "4x RTX 4090 … at
    $0.34/hr each" is $0.34 per hour per card, "did 4 runs, each about 2.5 hrs" 2.5 hours per run; a count only a verb
    or a sign says ("bought 3", "2x WD Red") is read as that many pieces when a price is of each of them."""
    out = list(found)
    said_counts: dict[int, Qty] = {}  # a count only a verb or a sign says, once however many prices are each of it
    for i, q in enumerate(found):
        after = q.money is not None and _EACH_AFTER.match(text, q.end) is not None
        before = q.money is None and _EACH_BEFORE.search(text, max(0, q.start - 20), q.start) is not None
        if not (after or before) or any(p < 0 and b not in _BASES for b, p in q.units):
            continue  # no "each", or already per a thing ("$55 per sensor each")
        start = max((m.end() for m in _CLAUSE_END.finditer(text, 0, q.start)), default=0)
        end = m.start() if (m := _CLAUSE_END.search(text, q.end)) is not None else len(text)
        counts = [c for c in found if c is not q and start <= c.start and c.end <= end and _counted(c)]
        earlier = [c for c in counts if c.end <= q.start]
        count = earlier[-1] if earlier else (None if before or not counts else counts[0])
        if count is None and after:
            said = [m for m in _COUNT_SAID.finditer(text, start, end) if not any(c.start <= m.start() < c.end for c in found)]
            if len(said) != 1:
                continue  # nothing counted, or two counts: of which each is not said
            m = said[0]
            if m.start() not in said_counts:
                number = m.group("n") or m.group("x") or m.group("y")
                n = float(WORD_NUMBERS[number]) if number in WORD_NUMBERS else float(number)
                said_counts[m.start()] = Qty(n, (("piece", 1),), m.group(0), m.start(), m.end())
            count = said_counts[m.start()]
        if count is None:
            continue
        units = dict(q.units)
        _mul(units, {_counted(count) or "piece": 1}, -1)
        out[i] = Qty(q.value, _key(units), q.written, q.start, q.end)
    return sorted([*out, *said_counts.values()], key=lambda c: c.start)


_FOR_ITS_OWN = re.compile(r"\s*for\s+(?:a|an|the|one|each|every|its|their)\s+[a-z]")


def _per_one_of(before: Qty, q: Qty) -> bool:
    """Whether ``before`` is a quantity per one of something and ``q`` the same quantity with no "per" of its own."""
    ups = tuple((b, p) for b, p in before.units if p > 0)
    per = [b for b, p in before.units if p < 0]
    return len(per) == 1 and per[0] not in _BASES and q.units == ups


def _key(units: dict[str, int]) -> Units:
    return tuple(sorted((b, p) for b, p in units.items() if p))


def _one(text: str, m: re.Match[str]) -> Qty | None:
    value = float(m.group("num").replace(",", ""))
    units: dict[str, int] = {}
    mult, unit = m.group("mult"), m.group("unit")
    if m.group("cur"):
        units[_CURRENCY[m.group("cur")]] = 1
    if mult:
        if mult in ("m", "b") and not m.group("cur") and unit is None:
            return None  # "5m": metres or minutes, not millions
        value *= _MULT[mult]
    end = m.end()
    if not m.group("cur") and (hm := _H_M.match(text, m.start())) is not None:  # "3h10m": 3 hours 10 minutes
        value, units, unit, end = int(hm.group(1)) + int(hm.group(2)) / 60, {"hour": 1}, None, hm.end()
    if unit == "s" and m.start("unit") == m.end("num"):
        return None  # "3090s": cards, not seconds
    if unit is not None:
        if unit in _SUBUNIT and not m.group("cur"):
            units[_SUBUNIT[unit]] = 1
            value /= 100
        elif unit == "€" or (unit in _CURRENCY and not m.group("cur")):
            units[_CURRENCY.get(unit, "EUR")] = 1
        else:
            one = unit_of(unit)
            if unit == "x" and _MODEL_AFTER.match(text, m.end()):  # "8x H100", "2x 3090s": that many cards
                one = ({"gpu": 1}, 1.0)
            if one is None:
                if unit in _NOT_UNITS or unit == "%":
                    return None
                end = m.start("unit")  # "$35 for the lens": a price, its next word no unit
            else:
                if units and not ("-" in unit or unit in _PHYSICAL or unit in _TIME_WORDS):
                    end = m.start("unit")  # "$89 lenses": a price and what it buys, no product of the two
                else:
                    _mul(units, one[0], 1)
                    value *= one[1]
    if not units:
        return None  # a bare number counts nothing ("4090", "2026": a name or a year)
    whole = "," not in m.group("num") and "." not in m.group("num")
    if value >= 1000 and whole and not m.group("cur") and not mult and set(units) - {"hour", "day", "month", "kw", "gb"}:
        return None  # "4090 rig": a model's number
    while (per := _PER.match(text, end)) is not None:
        word = per.group("unit")
        one = unit_of("tokens" if word in ("input", "output", "prompt", "completion") else word)  # "$0.40/1M output"
        if one is None:
            break
        n = float(per.group("n").replace(",", "")) if per.group("n") else 1.0
        if per.group("mult"):
            n *= _MULT[per.group("mult")]
        _mul(units, one[0], -1)
        value /= n * one[1]
        end = per.end()
    if (adv := _ADVERB.match(text, end)) is not None:
        base, factor = _TIME_BASE[_TIME_WORDS[adv.group("adv")]]
        _mul(units, {base: 1}, -1)
        value /= factor
        end = adv.end()
    lead = _ONE_OF.search(text, max(0, m.start() - 60), m.start()) or _THEY_ARE.search(text, max(0, m.start() - 40), m.start())
    if lead is not None:
        one = unit_of(lead.group("w"))
        if one is not None and not any(p < 0 for p in units.values()) and _key(one[0]) != _key(units):
            _mul(units, one[0], -1)
            value /= one[1]
    if not units:
        return None
    if len(units) == 1 and units.get(next(iter(units))) == 1 and next(iter(units)) in ("hour", "day", "month"):
        span = _SPAN_OF.match(text, end)  # "6 month season", "5 months of the season": how long one season is
        if span is not None and unit_of(span.group("w")) is not None and span.group("w") not in _TIME_WORDS:
            _mul(units, unit_of(span.group("w"))[0], -1)  # type: ignore[index]
            end = span.end()
    return Qty(value, _key(units), text[m.start() : end].strip(), m.start(), end)
