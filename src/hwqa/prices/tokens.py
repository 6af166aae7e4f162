"""An API's price for a volume of tokens: "what would 300M embedding tokens cost", "10M tokens in and 2M back", "our
monthly output tokens" (the volumes the notes record), and "which API is cheapest for Llama 3 70B output?" (the
prices of the model asked about, cheapest first). Each volume at the one price per million tokens the question names,
of its direction (input, output) when it says one; none when no price, or several that differ, fit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .factmatch import CostAnswer, best_fit, fit_score, foreign_note, money_text, newest_of, of_kind, overlap, words_of
from .table import PriceFact, PriceTable
from .units import HOURS_PER_MONTH
from .words import PriceWords

__all__ = ["answer_tokens"]

_VOLUME = re.compile(
    r"(?<![\w.$])(?P<n>\d+(?:\.\d+)?)\s?(?P<scale>k|m|b|million|billion|thousand)?\s+(?:(?P<what>[a-z][\w.-]*)\s+)?tokens?\b"
)
_FLOW_VOLUME = re.compile(
    r"(?<![\w.$])(?P<n>\d+(?:\.\d+)?)\s?(?P<scale>k|m|b|million|billion|thousand)\s+(?:tokens?\s+)?(?P<what>in|out|back)\b"
)
_FLOW = {"in": "input", "out": "output", "back": "output", **{d: d for d in ("input", "output", "prompt", "completion")}}
_SCALE = {"": 1e-6, "k": 1e-3, "thousand": 1e-3, "m": 1.0, "million": 1.0, "b": 1e3, "billion": 1e3}
_CHEAPEST = re.compile(r"\b(?:cheapest|cheaper|lowest|least\s+expensive|compare\w*|which\s+(?:api|provider|one))\b")
_DIRECTION = re.compile(r"\b(input|output|prompt|completion)\b")
_MAX_PRICES = 4  # prices listed at most


def answer_tokens(words: PriceWords, text: str, table: PriceTable) -> CostAnswer | None:
    """The cost of a volume of tokens the question gives (or the notes record) at the API price the question names
    ("10M tokens in and 2M back"), or the prices of the model asked about, cheapest first; None otherwise."""
    prices = of_kind(table.facts, "tokens")
    if not prices:
        return None
    asked = words_of(text)
    flows = list(_FLOW_VOLUME.finditer(text))  # "10M tokens in and 2M back": the direction after the volume
    found = flows + [m for m in _VOLUME.finditer(text) if not any(m.start() < f.end() and f.start() < m.end() for f in flows)]
    volumes: list[tuple[float, str, PriceFact | None]] = [
        (float(m.group("n")) * _SCALE[(m.group("scale") or "").lower()], _FLOW.get((m.group("what") or "").lower(), ""), None)
        for m in sorted(found, key=lambda m: m.start())
    ]
    if not volumes and _CHEAPEST.search(text):  # "which API is cheapest for Llama 3 70B output?"
        return _token_prices(text, asked, prices)
    if "token" not in text and not ("api" in text and re.search(r"\b(?:our|my|monthly|usage|volume)\b", text)):
        return None
    if not volumes:  # "our monthly output tokens": the volumes the notes record, those the question names
        wanted = {d.group(1) for d in _DIRECTION.finditer(text)}
        usage = [f for f in of_kind(table.facts, "usage") if not wanted or f.detail in wanted]
        kinds = asked - words_of("tokens token input output prompt completion monthly api our")
        named = [f for f in usage if overlap(kinds, words_of(f.subject) - words_of("tokens input output"))]
        volumes = [(f.amount, f.detail, f) for f in (named or usage)]
    if not volumes:
        return None
    lines: list[str] = []
    used: list[PriceFact] = []
    total = 0.0
    currency = ""
    for millions, direction, noted in volumes:
        fitting = [f for f in prices if not direction or not f.detail or f.detail == direction]
        own = words_of(noted.subject) - words_of("tokens input output") if noted is not None else set()
        best = best_fit(asked | own, fitting, where_counts=True)  # "~300M embedding tokens": the embeddings' price
        if not best or len({(f.amount, f.currency) for f in best}) != 1:
            if noted is not None:
                continue  # a volume the notes record that no one price the question names fits: not this one's
            return None  # no price the question names, or several that differ: the passages answer
        price = newest_of(best)
        if currency and price.currency != currency:
            return None
        currency = price.currency
        cost = millions * price.amount
        total += cost
        used.extend(f for f in (price, noted) if f is not None and f not in used)
        where = f", {price.section}" if price.section else ""
        of = f"{direction} " if direction else ""
        lines.append(
            f"{millions:,g}M {of}tokens × {money_text(price.amount, price.currency)} per million "
            f"({price.subject}{' ' + price.detail if price.detail else ''}{where}) = {money_text(cost, price.currency)}"
        )
    if not lines:
        return None
    monthly = any(n is not None and n.unit == "month" for *_, n in volumes) or words.hours == HOURS_PER_MONTH
    per = " a month" if monthly else ""
    body = "; ".join(lines) + (f"; together **{money_text(total, currency)}**{per}." if len(lines) > 1 else "")
    if len(lines) == 1:
        body = f"{lines[0].rsplit(' = ', 1)[0]} = **{money_text(total, currency)}**{per}."
    return CostAnswer(body + foreign_note(currency), tuple(used))


def _token_prices(text: str, asked: set[str], prices: Sequence[PriceFact]) -> CostAnswer | None:
    """ "Which API is cheapest for Llama 3 70B output?": the prices of the model asked about, cheapest first."""
    wanted = {d.group(1) for d in _DIRECTION.finditer(text)}
    fitting = [f for f in prices if not wanted or not f.detail or f.detail in wanted]
    scored = [(fit_score(asked - {d[:5] for d in wanted}, f)[0], f) for f in fitting]
    best = max((score for score, _ in scored), default=0)
    top = sorted((f for score, f in scored if score == best), key=lambda f: f.amount)
    if best < 2 or len(top) < 2 or len({f.currency for f in top}) != 1:  # the model named, not one word of it
        return None
    lines = [
        f"{i}. {f.subject}{' ' + f.detail if f.detail else ''}{', ' + f.section if f.section else ''}: "
        f"{'**' if i == 1 else ''}{money_text(f.amount, f.currency)} per million tokens{'**' if i == 1 else ''}"
        for i, f in enumerate(top[:_MAX_PRICES], start=1)
    ]
    return CostAnswer("Cheapest first, as your notes price them:\n\n" + "\n".join(lines), tuple(top[:_MAX_PRICES]))
