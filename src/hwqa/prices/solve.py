"""A money question worked out by its units, when no sum of a known shape answers it.

Every quantity of the quoted passages and of the rest of their note is read with its units
(:mod:`hwqa.prices.quantities`): ``$0.02 / 1M tokens``, ``900M tokens``, ``$0.07/GB/mo``, ``150 GB``, ``~230W``,
``6 matches/wk x 1.5h``, ``26 week season``, ``$0.19/kWh``. The question says what it asks (money; how many hours,
months or of a thing; how long) and gives its own quantities ("for 3 months", "2 more parents", "per show", "a whole
season"). The answer is the product of the question's quantities and a few of the notes' (each once, multiplied or
divided) whose units cancel to what is asked: ``$0.07/GB/mo × 150 GB × 6 months = $63.00``.

Of the products whose units cancel, the one of the fewest quantities, the quote's before the rest of its note and
the lines sharing the question's words first, is the answer; when two such products give different sums, which is
meant is not said and none is given. An hour, a day and a month are linked (24 h a day, 30 days a month) only when
no quantity of the notes links them, and a product of one quantity is no sum.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..notes.spans import row_text
from .factmatch import ENERGY, STOP, CostAnswer, holds_name, money_text, overlap, total_text, words_of
from .passagesums import LINES, clause_of
from .plans import billed_as_asked
from .quantities import _MULT, Qty, Units, _key, quantities, unit_of

__all__ = ["asks_product", "counts_ignored", "solve"]

_MONEY_BASES = ("USD", "EUR", "GBP")
_MAX_FACTORS = 5
_STEPS = 20_000  # products tried at most, per unit asked: a note of many quantities stays quick
_HOW_MANY = re.compile(r"\bhow\s+many\s+(?:more\s+)?(?P<w>[a-z][\w-]*)")
_HOW_LONG = re.compile(r"\bhow\s+long\b")
_MONEY_ASKED = re.compile(
    r"\b(?:cost\w*|bill\w*|charg\w*|pay|paying|spend|spent|total|come\s+to|set\s+(?:me|us)\s+back|damage|price|ballpark|budget\s+for|"
    r"work(?:s|ed)?\s+out\s+(?:to|at))\b|"
    r"\bhow\s+much\b(?!\s+(?:memory|ram|vram|time|power|faster|slower|data|space|storage|disk))|\bwhat(?:'s|s|\s+is)\s+that\b"
)
# "per show", "a whole season", "each match", "for a month": one of a thing, the scope of the question
_ONE = re.compile(
    r"\b(?:per|each|every|one|a|an|the\s+whole|a\s+whole|a\s+full|the\s+full|an\s+entire|the\s+entire|whole|full|entire)\s+"
    r"(?:(?P<mult>thousand|million|billion)\s+)?(?P<w>[a-z][a-z-]*)"
)
# A question asking the price of one thing ("what does one ironwolf cost", "a single drive"): no count of pieces
_ONE_PIECE = re.compile(
    r"\b(?:one|a\s+single|apiece)\b(?!\s+(?:of\s+(?:the|them|those)\s+)?(?:more|extra|hours?|days?|weeks?|months?|years?|nights?)\b)"
)
_PIECES: Units = (("piece", 1),)
_PERIODIC = re.compile(r"\b(daily|weekly|monthly|yearly|annual)\b(?!\s+(?:plan|billing|subscription|pass))")
_ONE_TIME = re.compile(r"\b(?:a|per|each|every|one|the\s+whole|a\s+whole|a\s+full|for|over)\s+(?:day|week|month|year)s?\b")
# A rate per one of these with no count said is of one ("€0.90 per GPU-hour" for a run on a GPU)
_ONE_DEVICE = ("gpu", "node", "instance", "card", "device", "chip", "vm")
_ALL_DAY = re.compile(r"24\s*/\s*7|round\s+the\s+clock|around\s+the\s+clock|all\s+day\s+and\s+night|non-?stop")
_TIME_BASES = ("hour", "day", "month")
_DIRECTION = re.compile(r"[^.,;]{0,12}?\b(?P<d>in|input|prompt|out|output|completion)\b")
# A model the question names: letters and digits ("gex130", "a100") or a card's number ("5090")
_NAME = re.compile(r"(?<![\w$€£.,])(?:[a-z]+\d+[a-z\d]*|\d{3,4}[a-z]*)(?![\w,]|\.\d)")
_QUOTED, _IN_NOTE = 0.15, 0.3  # a quantity's cost: from the quote, from the rest of its note
_LINE = 0.6  # and each line the product draws on
_BILLING = 1.0  # more for a price billed otherwise than the question asks
_TOLD = 0.5  # less for one of two prices on a line that the question or the product's other lines speak of
_RELEVANCE = 0.5  # less, per word of the question the product's lines hold
_ASIDE = 0.3  # more, per line of the product that holds none of the question's words (another budget line's amount)


@dataclass(frozen=True)
class _Factor:
    qty: Qty
    cost: float
    line: str = ""  # where the notes write it ("" for the question's and for a link between times)


def _mul(units: dict[str, int], other: Units, power: int) -> dict[str, int]:
    out = dict(units)
    for base, p in other:
        out[base] = out.get(base, 0) + p * power
        if out[base] == 0:
            del out[base]
    return out


def _asked(text: str) -> list[tuple[dict[str, int], str, float]]:
    """What the question asks for, as base units, the words of its unit and how many base units one of it is (a minute
    is 1/60 of an hour): money (each currency, filled in later), hours, months, or a count of something."""
    many = _HOW_MANY.search(text)
    if many is not None:
        one = unit_of(many.group("w"))
        if one is None:
            return []
        money = [b for b in one[0] if b in _MONEY_BASES]  # "how many euros"
        return [({money[0]: 1}, money[0], 1.0)] if money else [(one[0], many.group("w"), one[1])]
    if _HOW_LONG.search(text):
        return [({"hour": 1}, "hours", 1.0), ({"month": 1}, "months", 1.0), ({"day": 1}, "days", 1.0)]
    if _MONEY_ASKED.search(text) or ENERGY.search(text):
        return [({base: 1}, base, 1.0) for base in _MONEY_BASES]
    return []


def asks_product(text: str) -> bool:
    """Whether a question asks for something :func:`solve` may work out (money, hours, months, a count)."""
    return bool(_asked(text.lower()))


def _given(text: str, denominators: set[str]) -> list[Qty]:
    """The question's quantities: those it writes, a time or a thing it asks of one ("a year", "per show", "the whole
    season", when the notes give something per show or per season)."""
    found = [q for q in quantities(text) if not q.money]
    spans = [(q.start, q.end) for q in found]
    periodic = _PERIODIC.search(text)  # "monthly training bill": a month of it
    if periodic is not None and not any(b in _TIME_BASES for q in found for b, _ in q.units) and not _ONE_TIME.search(text):
        units, factor = unit_of(periodic.group(1)) or ({"month": 1}, 1.0)  # a time word: always a unit
        found.append(Qty(factor, _key(units), periodic.group(0), periodic.start(), periodic.end()))
        spans.append((periodic.start(), periodic.end()))
    for m in _ONE.finditer(text):
        word = m.group("w")
        one = unit_of(word)
        if one is None or any(s <= m.start("w") < e for s, e in spans):
            continue
        units, factor = one
        base = next(iter(units))
        per = m.group(0).startswith("per ")  # "per billion tokens": asked per, whatever the notes give per
        if len(units) == 1 and units[base] == 1 and (base in _TIME_BASES or base in denominators or per):
            factor *= _MULT[m.group("mult")] if m.group("mult") else 1.0
            found.append(Qty(factor, ((base, 1),), m.group(0), m.start(), m.end()))
    return found


def counts_ignored(text: str, answer: str) -> list[str]:
    """The counts of things a question writes with a number ("2 more parents", "for 4 of them") that an ``answer``
    worked out some other way never mentions: it answered another question than the one asked."""
    out = []
    for q in _given(text.lower(), set()):
        if any(b in _MONEY_BASES or b in _TIME_BASES or b in ("kw", "gb") for b, _ in q.units):
            continue  # a length, a draw or a size: the facts' sums read those themselves
        number = re.match(r"[\d,.]+", q.written)
        if number is not None and not re.search(rf"(?<![\d.,]){re.escape(number.group(0))}(?![\d]|[.,]\d)", answer):
            out.append(q.written)
    return out


def _rows_said(text: str) -> str:
    """``text`` with each row of a pipe table said as its sentence ("g5.2xlarge: hw 1x A10G 24GB, $/hr 1.212, one fit
    14 min"), the way a quote says it."""
    out: list[str] = []
    header: list[str] | None = None
    text = re.sub(r"\|[ \t]+(?=\|)", "|\n", text)  # rows a passage joined on one line: "| … | | … |"
    text = re.sub(r"^([ \t]*\|.*\|)[ \t]+(?=[^|\n]+$)", "\\1\n", text, flags=re.M)  # the prose after the last row
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else None
        if cells is None:
            header = None
            out.append(line)
        elif header is None:
            header = cells
        elif not all(re.fullmatch(r":?-+:?", c) for c in cells if c):
            out.append(row_text(dict(zip(header, cells, strict=False))) + ".")
    return "\n".join(out)


def _factors(pieces: Sequence[tuple[str, str]], context: str) -> list[_Factor]:
    seen: set[tuple[str, float, Units]] = set()
    out: list[_Factor] = []
    sources = [(text, _QUOTED) for text, _ in pieces]
    if context:
        sources.append((_rows_said(context), _IN_NOTE))
    for text, cost in sources:
        for line in LINES.split(text):
            lower = line.lower()
            for q in quantities(lower):
                key = (q.written, round(q.value, 9), q.units)
                if key not in seen:  # the same quantity in the quote and the rest of its note: once
                    seen.add(key)
                    out.append(_Factor(q, cost, line.strip()))
            if _ALL_DAY.search(lower):
                out.append(_Factor(Qty(24.0, (("day", -1), ("hour", 1)), "24 h a day", 0, 0), cost, line.strip()))
    for device in _ONE_DEVICE:
        counted = {f.line for f in out if f.qty.units == ((device, 1),)}
        if any(f.line not in counted for f in out if f.qty.money and (device, -1) in f.qty.units):
            # one of a price per device none of its line counts; "4x RTX 4090 … $0.34/hr each" counts its own
            out.append(_Factor(Qty(1.0, ((device, 1),), f"1 {device}", 0, 0), 0.4))
    out.append(_Factor(Qty(24.0, (("day", -1), ("hour", 1)), "24 h a day", 0, 0), 1.5))
    out.append(_Factor(Qty(30.0, (("day", 1), ("month", -1)), "30 days a month", 0, 0), 2.0))
    return out


def _cost(chain: Sequence[tuple[_Factor, int]], asked: set[str], text: str) -> float:
    """Fewer quantities, from the quote, from fewer lines (a sentence's quantities go together), lines that share
    more of the question's words: cheaper."""
    said: set[str] = set()
    lines: set[str] = set()
    for f, _ in chain:
        said |= words_of(f.line.lower())
        if f.line:
            lines.add(f.line)
    billed = sum(_BILLING for f, _ in chain if f.qty.money and f.line and not _billed_as_asked(f, text))
    told = sum(
        _told(f, _compounds(f"{text} " + " ".join(g.line.lower() for g, _ in chain if g.line != f.line))) for f, _ in chain
    )
    aside = sum(1 for line in lines if not overlap(asked, words_of(line.lower())))
    relevance = _RELEVANCE * min(overlap(asked, said), 6)
    return sum(f.cost for f, _ in chain) + _LINE * len(lines) + _ASIDE * aside - relevance + billed - told


def _told(price: _Factor, context: set[str]) -> float:
    """Of two prices on one line, what the question or the product's other lines say of this one alone ("$0.19/kWh
    peak (noon to 8pm)" for matches "nearly all 5:30-8pm … all peak", not "$0.11/kWh off-peak"): a word of the stretch
    between it and the next price, or of its own clause when that holds no other price ("4090" of "RTX 4090 community
    cloud $0.69/hr, A100 80G secure cloud $1.89/hr"), that no other price's holds (a hyphened word whole: "off-peak").
    What they say of another price alone, and nothing of this one, counts against it ("March: 11 hrs of 4090" is no
    product of the A100's $1.89/hr); both, neither."""
    if not price.qty.money or not price.line:
        return 0.0
    lower = price.line.lower()
    starts = [q.start for q in quantities(lower) if q.money]
    if len(starts) < 2:
        return 0.0
    stretches = {a: _compounds(lower[a:b]) for a, b in zip(starts, [*starts[1:], len(lower)], strict=True)}
    # a list of things each with its price ("RTX 4090 … $0.69/hr, A100 … $1.89/hr"): each price's own clause, when each
    # clause holds one price and names something before it (not "X: $20/mo billed monthly, or $16/mo yearly")
    clauses = {a: clause_of(lower, a, a + 1) for a in starts}
    spans = {a: (lower.find(c), lower.find(c) + len(c)) for a, c in clauses.items()}
    if all(sum(1 for b in starts if spans[a][0] <= b < spans[a][1]) == 1 for a in starts) and all(
        _compounds(lower[spans[a][0] : a]) for a in starts
    ):
        stretches = {a: _compounds(c) for a, c in clauses.items()}
    own = stretches.get(price.qty.start, set())
    others = set().union(*(w for a, w in stretches.items() if a != price.qty.start))
    mine, theirs = bool((own - others) & context), bool((others - own) & context)
    return _TOLD if mine and not theirs else -_TOLD if theirs and not mine else 0.0


def _compounds(text: str) -> set[str]:
    return {w[:5] if len(w) > 5 and "-" not in w else w for w in re.findall(r"[a-z0-9+]+(?:-[a-z0-9+]+)*", text)} - STOP


def _billed_as_asked(price: _Factor, text: str) -> bool:
    """Whether a price is billed as the question asks, of the prices of its line ("$33 per seat per month billed
    monthly, or $23/seat/mo if you pay annually", asked "on the annual plan")."""
    lower = price.line.lower()
    prices = [q for q in quantities(lower) if q.money]
    at = next((i for i, q in enumerate(prices) if q.start == price.qty.start), None)
    return at is None or at in billed_as_asked(text, [clause_of(lower, q.start, q.end) for q in prices])


def _sound(chain: Sequence[tuple[_Factor, int]], asked: set[str], names: Sequence[str], scopes: set[Units]) -> bool:
    """A product of what the question may ask about: every model the question names ("5090", "gex130") is on a line of
    the product, at most one link between times, and what is
    divided by is a rate, a price or a power draw, or a length or count of what the question asks per ("$5,400 ÷ 5
    years" asked per month), never another bare length or count ("÷ 6h")."""
    lines = " ".join(f.line.lower() for f, _ in chain)
    if any(not holds_name(lines, name) for name in names):
        return False
    if sum(1 for f, _ in chain if not f.line) > 1:
        return False
    if len({_direction(f) for f, _ in chain} - {None}) > 1:
        return False  # the input tokens' price times the output tokens
    for f, sign in chain:
        plain = all(p > 0 for _, p in f.qty.units) and f.qty.units != (("kw", 1),)
        if sign < 0 and not f.qty.money and plain and not any(b in dict(f.qty.units) for u in scopes for b, _ in u):
            return False
    return True


def _named_price(chain: Sequence[tuple[_Factor, int]], asked: set[str], *, energy: bool) -> bool:
    """Whether every price of the product is quoted, on a line sharing a word with the question, or the price of a kWh
    for a question asking electricity (``energy``); else the product is another thing's: it may stand against a
    product, never be the answer."""
    return all(
        f.cost == _QUOTED or overlap(asked, words_of(f.line.lower())) or (energy and ("kw", -1) in f.qty.units)
        for f, _ in chain
        if f.qty.money and f.line
    )


def _money_fits(chain: Sequence[tuple[_Factor, int]], said: str) -> bool:
    """Money asked: one price, multiplied. Hours or a count asked: no price, or a sum of money over a price per (a
    budget over a rate), in one currency."""
    money = [(f.qty.money, sign) for f, sign in chain if f.qty.money]
    if said in _MONEY_BASES:
        return money == [(said, 1)]
    return not money or (len(money) == 2 and money[0][0] == money[1][0] and {s for _, s in money} == {1, -1})


def _search(
    residual: dict[str, int],
    pool: Sequence[_Factor],
    chosen: list[tuple[_Factor, int]],
    found: list[list[tuple[_Factor, int]]],
    budget: list[int],
) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        return
    if not residual:
        found.append(list(chosen))
        return
    if len(chosen) >= _MAX_FACTORS:
        return
    base = sorted(residual)[0]
    used = {id(f) for f, _ in chosen}
    for f in pool:
        if id(f) in used:
            continue
        power = next((p for b, p in f.qty.units if b == base), 0)
        if power == 0:
            continue
        sign = 1 if power * residual[base] > 0 else -1
        chosen.append((f, sign))
        _search(_mul(residual, f.qty.units, -sign), pool, chosen, found, budget)
        chosen.pop()


def _value(chain: Sequence[tuple[_Factor, int]]) -> float:
    value = 1.0
    for f, sign in chain:
        value = value * f.qty.value if sign > 0 else value / f.qty.value
    return value


def solve(
    text: str, pieces: Sequence[tuple[str, str]], context: str = "", *, difference: bool = False, money: bool = False
) -> CostAnswer | None:
    """The product of quantities the question asks for, worked over the quote (see the module doc), or None.
    ``difference``: the question compares two prices ("how much more is X than Y"): the same product at each, and
    what lies between them. ``money``: money is asked, whatever the words ("what does that add per year", a question
    the price facts answered)."""
    text = text.lower()
    money = money or bool(_ONE_TIME.search(text) or _PERIODIC.search(text))  # "descript for the editors for a year"
    targets = _asked(text) or ([({base: 1}, base, 1.0) for base in _MONEY_BASES] if money else [])
    if not targets or not pieces:
        return None
    asked = words_of(text)
    energy = ENERGY.search(text) is not None
    pool = _factors(pieces, context)
    denominators = {b for f in pool if f.line for b, p in f.qty.units if p < 0 and b not in _MONEY_BASES}
    given = [_Factor(q, 0.0) for q in _given(text, denominators)]
    spans = [(g.qty.start, g.qty.end) for g in given]
    scopes = {g.qty.units for g in given if _ONE.fullmatch(g.qty.written)}
    names = [m.group(0) for m in _NAME.finditer(text) if not any(a <= m.start() < b for a, b in spans)]
    one_asked = _ONE_PIECE.search(text) is not None
    best: list[tuple[float, float, list[tuple[_Factor, int]], str]] = []
    weak: list[tuple[float, float, list[tuple[_Factor, int]], str]] = []  # products of a price the question never names
    for units, said, scale in targets:
        residual = dict(units)
        for g in given:
            residual = _mul(residual, g.qty.units, -1)
        found: list[list[tuple[_Factor, int]]] = []
        _search(residual, pool, [], found, [_STEPS])
        for chain in found:
            if one_asked and any(f.line and f.qty.units == _PIECES and p > 0 for f, p in chain):
                continue  # "what does one ironwolf cost" over "$219 each, need 4": the price of one, no count of them
            whole = chain + [(g, 1) for g in given]
            if not _sound(chain, asked, [] if difference else names, scopes):  # compared: each option names its own
                continue
            noted = sum(1 for f, _ in chain if f.line)
            if not noted or not _money_fits(whole, said):
                continue
            value = _value(whole) / scale  # in the unit asked: "how many minutes" of a product in hours
            if said not in _MONEY_BASES and all(b in _TIME_BASES for f, _ in whole for b, _ in f.qty.units):
                continue  # "6 days ÷ 26 days a month": a length in other units, nothing worked out
            if value >= (0.01 if said in _MONEY_BASES else 0.1):
                (best if _named_price(chain, asked, energy=energy) else weak).append(
                    (_cost(chain, asked, text), value, whole, said)
                )
    if not best:
        return None
    best.sort(key=lambda b: b[0])
    if difference:
        return _compared(best, weak, asked, names)
    cost, value, chain, said = best[0]
    other = _other_direction(chain, pool) if said in _MONEY_BASES else None
    twin = {id(f) for f, _ in other} if other is not None else set()  # tokens out beside tokens in: no rival
    rivals = [
        b for b in best[1:] + weak if b[0] < cost + 0.25 and abs(b[1] - value) > 0.01 * value and {id(f) for f, _ in b[2]} != twin
    ]
    if rivals:
        return None  # two products as likely, two sums: which is meant is not said
    if sum(1 for f, _ in chain if f.line or f.qty.written[0].isdigit()) < 2:
        return None  # one noted quantity as asked ("$6.95/TB/mo", asked per TB a month): the quote says it, no sum
    if other is not None:  # tokens in and out, each at its own price: both products, added
        total = value + _value(other)
        first, second = _product(chain, value, said), _product(other, _value(other), said)
        said_all = f"{first}, plus {second}: **{money_text(total, said)}** in all"
        return CostAnswer(f"{said_all} (worked out from your notes: {_where([*chain, *other])}).", (), total=total)
    return CostAnswer(_written(chain, value, said), (), total=value)


def _direction(f: _Factor) -> str | None:
    """Whether a quantity is of what goes in ("$0.10/1M input tokens", "~1,300 tokens in") or out ("~200 tokens out")."""
    if not f.line:
        return None
    lower = f.line.lower()
    m = _DIRECTION.match(lower, f.qty.end) or _DIRECTION.search(f.qty.written)
    return None if m is None else ("in" if m.group("d") in ("in", "input", "prompt") else "out")


def _other_direction(chain: Sequence[tuple[_Factor, int]], pool: Sequence[_Factor]) -> list[tuple[_Factor, int]] | None:
    """The same product over the other direction's price and count, when the product prices one direction of
    something priced in and out per unit (an API's input and output tokens) and the notes give both."""
    swapped: list[tuple[_Factor, int]] = []
    changed = 0
    for f, sign in chain:
        way = _direction(f)
        if way is None:
            swapped.append((f, sign))
            continue
        twin = [g for g in pool if g.qty.units == f.qty.units and g is not f and _direction(g) not in (None, way)]
        if len(twin) != 1:
            return None
        swapped.append((twin[0], sign))
        changed += 1
    priced = any(f.qty.money and _direction(f) for f, _ in chain)
    return swapped if changed >= 2 and priced else None


def _compared(
    best: Sequence[tuple[float, float, list[tuple[_Factor, int]], str]],
    weak: Sequence[tuple[float, float, list[tuple[_Factor, int]], str]],
    asked: set[str],
    names: Sequence[str],
) -> CostAnswer | None:
    """The cheapest product and the same product at another price of the same units whose line names more of the
    question (the other option it compares; the only one when no other is priced alike; what each price's own line
    says of it its own), and their difference; none when no such price, or two as likely, are noted."""
    _, value, chain, said = best[0]
    if said not in _MONEY_BASES:
        return None
    price = next(f for f, _ in chain if f.qty.money)
    rest = {id(f) for f, _ in chain if f is not price and (not f.line or f.line != price.line)}
    named = words_of(price.line.lower())
    others = []
    for other_cost, other_value, other, _ in [*best[1:], *weak]:  # the other option's line may name it otherwise
        money = next(f for f, _ in other if f.qty.money)
        # the same product but for the price and what its own line says of it ("$/hr 1.212, one fit 14 min")
        off_line = {id(f) for f, _ in other if f is not money and (not f.line or f.line != money.line)}
        same = off_line == rest and money.qty.units == price.qty.units
        fit = overlap(asked - named, words_of(money.line.lower()))
        if same and money.line != price.line and abs(other_value - value) > 0.005:
            others.append((-fit, other_cost, other_value, other))
    others.sort(key=lambda o: (o[0], o[1]))
    if not others or (len(others) > 1 and others[1][0] == others[0][0]):
        return None  # no other option priced alike, or two that the question names alike
    _, _, other_value, other = others[0]
    lines = " ".join(f.line.lower() for f, _ in [*chain, *other])
    if any(not holds_name(lines, name) for name in names):
        return None  # a model the question compares is on neither option's lines
    (low, cheap), (high, dear) = sorted(((value, chain), (other_value, other)), key=lambda p: p[0])
    said_dear = _written(dear, high, said).rstrip(".")
    said_cheap = _written(cheap, low, said).rstrip(".")
    gap = money_text(high - low, said)
    return CostAnswer(f"{said_dear}, against {said_cheap}: the difference is **{gap}**.", (), total=high - low)


def _written(chain: Sequence[tuple[_Factor, int]], value: float, said: str, also: Sequence[tuple[_Factor, int]] = ()) -> str:
    """The product written out with its result, and the lines its quantities are from (``also``'s too)."""
    return f"{_product(chain, value, said)} (worked out from your notes: {_where([*chain, *also])})."


def _product(chain: Sequence[tuple[_Factor, int]], value: float, said: str) -> str:
    ordered = [p for p in chain if p[1] > 0] + [p for p in chain if p[1] < 0]  # "60 wh ÷ 4w", not "1 ÷ 4w × 60 wh"
    terms = " ".join(f"{'×' if sign > 0 else '÷'} {f.qty.written}" for f, sign in ordered)
    terms = terms[2:] if terms.startswith("×") else f"1 {terms}"
    if said in _MONEY_BASES:
        result = total_text(value, said) if value >= 100 else money_text(value, said)
    else:
        result = f"{value:,.1f} {said}"
    return f"{terms} = **{result}**"


def _where(chain: Sequence[tuple[_Factor, int]]) -> str:
    lines: list[str] = []
    for f, _ in chain:
        if f.line and f"“{f.line}”" not in lines:
            lines.append(f"“{f.line}”")
    return "; ".join(lines)
