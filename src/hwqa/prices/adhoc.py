"""Prices in tables of any shape: a note's own table without the ``prices`` tag, or a cloud
pricing page's table (``Machine type | GPUs | On-demand price (USD/hour) | Spot price``).

Columns are known by their header: a price column names money (price, cost, USD, $, rate) and
may name its pricing kind (on-demand, spot, preemptible, reserved/commitment) and its time unit
(per hour, /hr, hourly, per month, per chip-hour); other columns hold the hardware (the first cell
of a row with a hardware name), memory, provider, speed, date or a device count. A table with no
price column, or with no row naming hardware, is not a price table and is not read. A row of a
price table that can't be read (no hardware name, a price without a time unit) is left out with
its reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from .facts import MAX_PRICE_USD, Context, Found, clean, per_device_hour, rental_unit_problem
from .names import Mention, Money, find_date, find_hardware, find_money, find_pricing, find_providers
from .table import DEFAULT_PRICING, LeftOut, PriceFact

__all__ = ["read_table"]

# A money column: its header names a price, or a one-off payment ("upfront", "purchase", "paid", "MSRP").
_PRICE_HEADER = re.compile(
    r"price|cost|usd|\$|rate\b|hourly|monthly|per[\s_-]*(?:hour|month|h\b)|/\s*h|"
    r"up[\s-]?front|one[\s-]?(?:off|time)|purchase|\bpaid\b|\bbought\b|\bmsrp\b|\bretail\b",
    re.I,
)
_UNIT_IN_HEADER = re.compile(
    r"(?:(?P<word>hourly|monthly|daily)|(?:/\s*|(?<![a-z])per[\s_-]*)(?:(?P<qual>[a-z0-9]+)[\s_-])?"
    r"(?P<unit>hour|hr|h|month|mo|day)s?\b)",
    re.I,
)
_UNITS = {"hourly": "hour", "hour": "hour", "hr": "hour", "h": "hour", "monthly": "month", "month": "month", "mo": "month"}
_UNITS |= {"daily": "day", "day": "day"}
_ROLES = {
    "memory": re.compile(r"memory|vram|hbm|\bgb\b|gib", re.I),
    "provider": re.compile(r"provider|cloud|vendor|^(?:where|host|platform)$", re.I),  # "where": where it was rented
    "speed": re.compile(r"speed|v100\s*=\s*1", re.I),
    "date": re.compile(r"as[\s_-]*of|date|updated", re.I),
    "pricing": re.compile(r"^pricing$|billing|commitment type", re.I),
    "count": re.compile(r"^(?:#\s*)?(?:gpus|tpus|chips|accelerators|devices|count|gpu count|number of gpus)$", re.I),
    # how long a row's run took, in hours: its cost is then the run's total, not a price to buy the hardware
    "hours": re.compile(
        r"^(?:hrs?|hours?|h|duration|run\s*time|runtime|wall[\s_-]*(?:time|clock))(?:\s*\((?:h|hrs?|hours?)\))?$", re.I
    ),
}
_RENTED = re.compile(r"\b(?:rent\w*|hire\w*|leas\w*|cloud|on[\s-]?demand|spot|interruptible)\b", re.I)
_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:x|×|gb|gib)?\s*$", re.I)
_BARE_AMOUNT = re.compile(r"^\s*(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*$")
_EMPTY = frozenset({"", "-", "–", "—", "n/a", "na", "?", "none", "not available"})


_WORKED = re.compile(r"\d\s*[a-z/-]*\s*[x×*]\s*[~≈]?\s*[$€£]\s*\d|[$€£]\s*\d[\d.,]*\s*[a-z/]*\s*[x×*]\s*~?\d", re.I)


def _roles(header: Sequence[str]) -> dict[str, list[int]]:
    roles: dict[str, list[int]] = {"price": []}
    for idx, text in enumerate(header):
        if _PRICE_HEADER.search(text) and not _ROLES["memory"].search(text) and not re.search(r"v100", text, re.I):
            roles["price"].append(idx)
            continue
        for role, pattern in _ROLES.items():
            if pattern.search(text):
                roles.setdefault(role, []).append(idx)
                break
    return roles


def _number(cell: str) -> float | None:
    m = _NUMBER.match(cell)
    return float(m.group(1)) if m and float(m.group(1)) > 0 else None


def _hardware(cells: Sequence[str], header: Sequence[str], skip: set[int]) -> Mention | None:
    """The first hardware name of the row's (clean) cells, or of a cell under a header naming its family ('TPU' + 'v5e')."""
    for idx, text in enumerate(cells):
        if idx in skip:
            continue
        found = find_hardware(text)
        if found:
            return found[0]
        family = re.search(r"\b(tpu)\b", header[idx] if idx < len(header) else "", re.I)
        if family and re.fullmatch(r"v\d{1,2}[a-z]{0,2}(?:-\d+)?", text, re.I):
            named = find_hardware(f"TPU {text}")
            if named:
                return named[0]
    return None


def _bought_thing(cells: Sequence[str], mention: Mention) -> str:
    """What a row's one-off price buys: the hardware it names, or, when that name is only the bracketed make-up of
    another thing ("closet box (7820 + used 3090)"), that thing as the cell writes it."""
    for text in cells:
        found = find_hardware(text)
        if not found or found[0].name != mention.name:
            continue
        at = found[0].start
        inside = next((m for m in re.finditer(r"\(([^()]*)\)", text) if m.start() <= at < m.end()), None)
        return text.strip() if inside is not None and re.search(r"[A-Za-z]", text[: inside.start()]) else mention.name
    return mention.name


def _money(text: str, header: str) -> Money | None:
    """The price in a cell; a bare number counts when the header says the column is in US dollars."""
    found = find_money(text)
    if found:
        return found[0]
    bare = _BARE_AMOUNT.match(text)
    if bare and re.search(r"usd|\$|dollar", header, re.I):
        return Money(0, len(text), float(bare.group(1).replace(",", "")), text, "USD", None, None)
    return None


def _fact(
    ctx: Context,
    name: str,
    kind: str,
    money: Money,
    currency: str,
    unit: str,
    provider: str,
    line: int,
    raw: str,
    stated: str,
    date: str,
) -> PriceFact:
    """A purchase, or a rental in another currency, stated in one cell of a table row."""
    return PriceFact(
        name,
        kind,
        money.amount,
        currency,
        unit,
        provider=provider,
        as_of=find_date(date) or ctx.doc.as_of,
        note=ctx.doc.source,
        note_title=ctx.doc.title,
        line=line,
        evidence=raw,
        stated=stated,
        section=ctx.section,
        url=ctx.doc.url,
    )


def read_table(ctx: Context, header_line: int, header: Sequence[str], rows: Sequence[tuple[int, str, list[str]]]) -> Found:
    """The price rows of one table (header at ``header_line``; rows as (file line, raw line, cells))."""
    found = Found()
    heads = [clean(cell) for cell in header]
    roles = _roles(heads)
    if not roles["price"] or not rows:
        return found
    skip = set(roles["price"]) | {i for role in ("memory", "speed", "date", "hours") for i in roles.get(role, [])}
    named = []
    for line, raw, cells in rows:
        texts = [clean(cell) for cell in cells]
        named.append((line, raw, texts, _hardware(texts, heads, skip)))
    if not any(m is not None for *_, m in named):
        return found  # not a table of hardware prices
    # A price column whose header and cells name no time unit holds purchase prices (not rentals, not totals of a run).
    untimed = {
        idx
        for idx in roles["price"]
        if not _UNIT_IN_HEADER.search(heads[idx])
        and not any(m.unit for _, _, texts, _ in named if idx < len(texts) for m in find_money(texts[idx]))
    }
    for line, raw, texts, mention in named:
        where = ctx.where(line)

        def cell(role: str, texts: list[str] = texts) -> str:
            idx = roles.get(role, [None])[0]
            return texts[idx] if idx is not None and idx < len(texts) else ""

        if mention is None:
            found.left_out.append(LeftOut(where, raw, "no hardware name in the row"))
            continue
        count = mention.count
        stated_count = _number(cell("count"))
        if stated_count and stated_count == int(stated_count):
            count = int(stated_count)
        others = " ".join(c for i, c in enumerate(texts) if i not in roles["price"])
        providers = find_providers(cell("provider")) or find_providers(others)
        provider = providers[0][2] if providers else (cell("provider") or ctx.provider())
        row_kind = [k for k in find_pricing(cell("pricing") if roles.get("pricing") else others) if k[2] != "free"]
        for idx in roles["price"]:
            if idx >= len(texts) or texts[idx].lower() in _EMPTY or re.fullmatch(r"\$?0(?:\.0+)?", texts[idx].strip()):
                continue
            head = heads[idx]
            timed = idx not in untimed
            if _WORKED.search(texts[idx]):  # "~150 hrs x $0.44": a sum worked out in the cell, not a price stated
                found.left_out.append(LeftOut(where, raw, f"{head} {texts[idx]!r} is a sum worked out, not a price"))
                continue
            money = _money(texts[idx], head)
            if money is None:
                found.left_out.append(LeftOut(where, raw, f"{head} {texts[idx]!r} is not a price in US dollars"))
                continue
            if money.unit is None:
                unit = _UNIT_IN_HEADER.search(head)
                if unit:
                    word = (unit.group("word") or unit.group("unit")).lower()
                    money = Money(
                        money.start, money.end, money.amount, money.stated, money.currency, _UNITS[word], unit.group("qual")
                    )
            took = _number(cell("hours")) if roles.get("hours") else None
            if money.unit is None and not timed and took is not None:
                # a run log ("| gpu | hrs | cost |"): the run's cost over its hours is the rate it was rented at
                money = Money(money.start, money.end, money.amount / took, money.stated, money.currency, "hour", None)
                if money.currency != "USD" or rental_unit_problem(money) is not None:
                    found.left_out.append(LeftOut(where, raw, f"{head} {texts[idx]!r} over {took:g} h is not a rental price"))
                    continue
                usd, conversion = per_device_hour(money, count, "", head)
                run = f"{texts[idx]} for its {took:g} h run ÷ {took:g} h"
                found.rows.append(
                    ctx.row(
                        mention,
                        usd,
                        provider=provider,
                        pricing=(row_kind[0][2] if row_kind else None) or ctx.pricing() or DEFAULT_PRICING,
                        line=line,
                        origin="table",
                        evidence=raw,
                        stated=texts[idx],
                        conversion="; ".join(s for s in (run, conversion) if s),
                        as_of=find_date(cell("date")),
                        memory_gb=_number(cell("memory")),
                        speed=_number(cell("speed")),
                    )
                )
                continue
            # a column of hourly rentals and one-off prices ("| used RTX 3090 | $700 |" beside "| rent 4090 | $0.34/hr |"):
            # a cell with no time unit, in a row that says no renting, is what the card costs to buy
            mixed = timed and not _UNIT_IN_HEADER.search(head) and not _RENTED.search(raw)
            if money.unit is None and money.currency == "USD" and 0 < money.amount <= MAX_PRICE_USD and (not timed or mixed):
                # a price column with no time unit in its header or any of its cells: what each card costs to buy
                seller = providers[0][2] if providers else ""
                thing = _bought_thing(texts, mention)
                fact = _fact(ctx, thing, "purchase", money, "USD", "once", seller, line, raw, texts[idx], cell("date"))
                found.facts.append(fact)
                continue
            problem = rental_unit_problem(money)
            if money.currency != "USD" and money.unit is not None and rental_unit_problem(replace(money, currency="USD")) is None:
                # "€0.89/h": kept in its currency (no exchange rate is noted), never a dollar row
                found.facts.append(
                    _fact(
                        ctx,
                        mention.name,
                        "rental",
                        money,
                        money.currency,
                        money.unit,
                        provider,
                        line,
                        raw,
                        texts[idx],
                        cell("date"),
                    )
                )
                problem = f"{problem}: kept as written, in {money.currency}, with the other prices (no exchange rate is noted)"
            if problem is not None:
                found.left_out.append(LeftOut(where, raw, f"{head}: {problem}"))
                continue
            usd, conversion = per_device_hour(money, count, texts[idx][money.end :], head)  # "per GPU" after it
            kinds = [k for k in find_pricing(head) if k[2] != "free"]
            pricing = (kinds[0][2] if kinds else None) or (row_kind[0][2] if row_kind else None) or ctx.pricing()
            found.rows.append(
                ctx.row(
                    mention,
                    usd,
                    provider=provider,
                    pricing=pricing or DEFAULT_PRICING,
                    line=line,
                    origin="table",
                    evidence=raw,
                    stated=texts[idx],
                    conversion=conversion,
                    as_of=find_date(cell("date")),
                    memory_gb=_number(cell("memory")),
                    speed=_number(cell("speed")),
                )
            )
    return found
