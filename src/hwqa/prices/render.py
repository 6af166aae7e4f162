"""The calculator's results and the price table as Markdown, for answers, ``hwqa prices`` and the web page."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .fmt import cell, money, number
from .request import CalcRequest
from .result import CalcResult, PriceOption
from .table import HARDWARE_TYPES, OTHER_TYPE, PriceFact, PriceRow, PriceTable, round_figures

__all__ = [
    "render_excluded",
    "render_no_prices",
    "render_not_priced",
    "render_price_result",
    "render_price_table",
    "render_unpriced",
]


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _figure(value: float | None, as_money: bool = False) -> str:
    """A computed figure as the result's JSON gives it (six significant figures), so an answer and
    the web page's calculator step (shown from that JSON) write the same digits."""
    return cell(round_figures(value), as_money)


def render_price_result(result: CalcResult, max_rows: int = 12) -> str:
    """A compact Markdown table of ``result`` plus one recommendation line.

    The name, its price per hour, then the figures of the mode: budget → hours and V100-hours;
    workload → cost and wall time; rent → cost and V100-hours; lookup → dollars per V100-hour and
    speed; a break-even column when a purchase price was given; then the provider, and the pricing
    kind when options mix them.
    """
    mode = result.mode
    request = result.request
    options = result.options
    if mode == "lookup" and len(options) == 1:  # "how much does X cost?": one sentence, no table
        only = options[0]
        even = ""
        if request.purchase_usd is not None and only.break_even_hours is not None:  # "buy it or rent it?"
            days = (
                f" (about {only.break_even_days:,.0f} days at {request.hours_per_day:g} h a day)" if only.break_even_days else ""
            )
            even = (
                f"Buying for {cell(request.purchase_usd, as_money=True)} costs the same as renting it for "
                f"**{only.break_even_hours:,.0f} hours**{days}; use it longer than that and buying is cheaper."
            )
        parts = (_describe_price(only), even, render_excluded(result), _render_problems(result))
        return "\n".join(line for line in parts if line)
    show_pricing = len({o.row.pricing for o in options}) > 1
    show_break_even = request.purchase_usd is not None

    # The figures come right after the name (as on the Prices tab), so a narrow screen shows them first.
    headers = ["#", "Hardware", "$/h"]
    if mode == "budget":
        headers += ["Hours", "V100-h"]
    elif mode == "workload":
        headers += ["Cost", "Wall time (h)"]
    elif mode == "rent":
        headers += ["Cost", "V100-h"]
    else:
        headers += ["$/V100-h", "Speed (V100=1)"]
    if show_break_even:
        headers += ["Break-even (h)"]
    headers += ["Provider"] + (["Pricing"] if show_pricing else [])

    lines: list[str] = []
    intro = _describe_request(request)
    if intro:
        lines.append(intro)
        lines.append("")
    if options:  # no empty table when nothing fits: the line below says why
        lines.append("| " + " | ".join(headers) + " |")
        lines.append("|" + "|".join("---" for _ in headers) + "|")
    for option in options[:max_rows]:
        row = option.row
        cells = [
            str(option.rank),
            _md_escape(row.hardware) + (" (ref)" if option.is_reference else ""),
            cell(row.usd_per_hour, as_money=True),
        ]
        if mode == "budget":
            cells += [_figure(option.hours), _figure(option.v100_hours)]
        elif mode == "workload":
            cells += [_figure(option.cost, as_money=True), _figure(option.wall_hours)]
        elif mode == "rent":
            cells += [_figure(option.cost, as_money=True), _figure(option.v100_hours)]
        else:
            cells += [_figure(option.usd_per_v100_hour, as_money=True), "–" if row.speed is None else f"{row.speed:g}"]
        if show_break_even:
            cells.append(_figure(option.break_even_hours))
        cells.append(_md_escape(row.provider))
        if show_pricing:
            cells.append(row.pricing)
        lines.append("| " + " | ".join(cells) + " |")
    if len(options) > max_rows:
        more = len(options) - max_rows
        lines.append(f"\n… and {more} more option{'' if more == 1 else 's'}.")
    if request.devices > 1:
        lines.append(f"\n$/h is per device; figures are for {request.devices} devices together.")
    recommendation = result.recommendation
    lines.append("")
    if recommendation:
        lines.append(f"**Recommendation:** {recommendation.hardware} ({recommendation.provider}) — {recommendation.reason}.")
    else:
        lines.append(_no_fit(result))
    lines.extend(line for line in (render_excluded(result), _render_problems(result)) if line)
    return "\n".join(lines)


_OVER_BUDGET = re.compile(r"costs \$([\d,]+(?:\.\d+)?) for this, over the")


def _no_fit(result: CalcResult) -> str:
    """Why no option is left, in the terms the question set: a budget too small for the time asked (with
    what the cheapest option costs and how long the budget lasts on it), else the filters it set."""
    request = result.request
    over = [(float(m.group(1).replace(",", "")), e) for e in result.excluded if (m := _OVER_BUDGET.search(e.reason))]
    if request.budget_usd is not None and request.hours and over:
        cost, cheapest = min(over, key=lambda item: item[0])
        lasts = request.budget_usd / (cost / request.hours)
        return (
            f"**Nothing fits {cell(request.budget_usd, as_money=True)} for {request.hours:,g} h:** the cheapest, "
            f"{_md_escape(cheapest.hardware)} ({_md_escape(cheapest.provider)}), costs {cell(cost, as_money=True)} for that; "
            f"{cell(request.budget_usd, as_money=True)} runs it for {lasts:,.0f} h."
        )
    asked = _filters(request)
    if asked:
        return f"**No option fits** what you asked ({', '.join(asked)}); relax it to see more."
    return "**No option fits.**"


def _filters(request: CalcRequest) -> list[str]:
    """What a request narrows the options by: types, memory, providers, hardware compared, a budget."""
    return [
        name
        for name, on in (
            ("types", set(request.types) != set(HARDWARE_TYPES)),
            ("memory", request.min_memory_gb is not None),
            ("providers", bool(request.providers)),
            ("hardware", bool(request.compare)),
            ("budget", request.budget_usd is not None),
        )
        if on
    ]


def render_not_priced(request: CalcRequest, asked: str = "") -> str:
    """'Your notes give no price for the A100 80GB on RunPod.': what a request whose row filters (types, memory,
    providers) leave no option asked for; "" for a request without such a filter. A question (``asked``) that writes
    the provider before the hardware ("runpod h100 hourly?") has it said so: "the RunPod H100"."""
    if not {"types", "memory", "providers"} & set(_filters(request)):
        return ""
    what = request.hardware or " or ".join(request.compare) or "option"
    where = f" on {' or '.join(request.providers)}" if request.providers else ""
    if len(request.providers) == 1 and request.hardware:
        before = rf"(?<![\w-]){re.escape(request.providers[0])}\s+(?:the\s+|an?\s+)?{re.escape(request.hardware)}(?![\w-])"
        if re.search(before, asked, re.I):
            what, where = f"{request.providers[0]} {what}", ""
    memory = f" with {request.min_memory_gb:g} GB or more" if request.min_memory_gb is not None else ""
    return f"Your notes give no price for {'an' if what == 'option' else 'the'} {what}{where}{memory}."


def _render_problems(result: CalcResult) -> str:
    """The malformed price rows that were left out, by note and line, so a person can fix them."""
    problems = result.problems
    if not problems:
        return ""
    more = f" (and {len(problems) - 3} more; `hwqa prices` lists them)" if len(problems) > 3 else ""
    return f"Left out, malformed price rows: {'; '.join(problems[:3])}{more}."


def _describe_price(option: PriceOption) -> str:
    """One option's price as a sentence: hardware, provider, $/h, pricing, date, $/V100-hour."""
    row = option.row
    when = f", as of {row.as_of}" if row.as_of else ""
    text = (
        f"**{_md_escape(row.hardware)}** on {_md_escape(row.provider)} costs "
        f"**{cell(row.usd_per_hour, as_money=True)} per hour** ({row.pricing}{when})."
    )
    if row.speed is not None and option.usd_per_v100_hour is not None:
        text += (
            f" At {row.speed:g}× the speed of a V100 that is {_figure(option.usd_per_v100_hour, as_money=True)} per V100-hour."
        )
    return text


def render_excluded(result: CalcResult) -> str:
    """'Excluded: <options>: <reason>; …' for the options the filters left out, or ''."""
    if not result.excluded:
        return ""
    by_reason: dict[str, list[str]] = {}
    for e in result.excluded:
        by_reason.setdefault(e.reason, []).append(f"{e.hardware} ({e.provider})")
    parts = []
    for reason, names in list(by_reason.items())[:4]:
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        parts.append(f"{shown}: {reason}")
    others = len(by_reason) - 4
    more = f"; and {others} other reason{'' if others == 1 else 's'}" if others > 0 else ""
    return f"Excluded: {'; '.join(parts)}{more}."


def _describe_request(request: CalcRequest) -> str:
    on = f" on {request.devices} devices" if request.devices > 1 else ""
    mode = request.mode
    if mode == "budget" and request.budget_usd is not None:
        return f"With {money(request.budget_usd)}{on}:"
    if mode == "workload":
        if request.v100_hours is not None:
            return f"For a job of {number(request.v100_hours)} V100-hours{on}:"
        return f"For a job that takes {number(request.hours or 0)} h on {request.hardware}{on}:"
    if mode == "rent" and request.hours is not None:
        return f"For {number(request.hours)} h of use{on}:"
    return ""


def _article(name: str) -> str:
    """'an H100', 'a TPU v5e', 'an MI300X': the article as the name is read aloud."""
    first = name[:1]
    acronym = len(name) > 1 and (name[1].isupper() or name[1].isdigit())
    vowel_sound = first.upper() in "AEIO" or (acronym and first.upper() in "FHLMNRSX")
    return f"{'an' if vowel_sound else 'a'} {name}" if first.isalpha() else f"the {name}"


def _names(names: Iterable[str], conjunction: str = "or") -> str:
    items = list(names)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def render_unpriced(unpriced: Iterable[str], table: PriceTable, limit: int = 10) -> str:
    """'Your notes give no hourly price for an H100; they price P100, V100, TPU v3 (…).'"""
    names = table.hardware_names()
    priced = _names(names[:limit], "and") + (f" and {len(names) - limit} more" if len(names) > limit else "")
    return f"Your notes give no hourly price for {_names(_article(n) for n in unpriced)}; they price {priced}."


def _asked(request: CalcRequest, unpriced: Iterable[str]) -> str:
    """What a price question asked, for a sentence: 'what a budget of $100 buys'."""
    on = f" on {request.devices} devices" if request.devices > 1 else ""
    hardware = [*([request.hardware] if request.hardware else []), *request.compare, *unpriced]
    which = f" on {_names(list(dict.fromkeys(hardware)))}" if hardware else ""
    if request.budget_usd is not None:
        return f"what a budget of {money(request.budget_usd)} buys{which}{on}"
    if request.v100_hours is not None:
        return f"what a job of {number(request.v100_hours)} V100-hours costs{which}{on}"
    if request.hours is not None:
        return f"what {number(request.hours)} hours cost{which}{on}"
    if request.purchase_usd is not None:
        return f"whether buying for {money(request.purchase_usd)} beats renting"
    return f"the price per hour{which}" if which else "prices"


def render_no_prices(request: CalcRequest, unpriced: Iterable[str] = ()) -> str:
    """The answer's first words when the notes hold no prices at all: what was asked, and how to add prices."""
    return (
        f"Your notes hold no prices (no price table, and no price in a sentence, a list or a linked page), "
        f"so I can't work out {_asked(request, unpriced)}. Write the prices you pay into a note "
        "(for example “a P100 costs $1.46/hr on GCP”) and rebuild the index."
    )


def evidence_label(row: PriceRow) -> str:
    """What a row was read from, for people: ``price table``, ``sentence: "…$1.46/hr…"`` (with its conversion)."""
    if row.origin == "price table" or not row.evidence:
        return row.origin
    text = row.evidence if len(row.evidence) <= 160 else row.evidence[:157] + "…"
    extra = f" ({row.conversion})" if row.conversion else ""
    speed = f"; speed from {row.speed_from.split(': ', 1)[0]}" if row.speed_from else ""
    return f"{row.origin}: “{text}”{extra}{speed}"


def render_price_table(
    table: PriceTable,
    *,
    types: Iterable[str] | None = None,
    show_problems: bool = True,
) -> str:
    """The whole price table as Markdown (for ``hwqa prices``), optionally only some types, with
    the problems found listed after it."""
    wanted = {t.lower() for t in types} if types is not None else {*HARDWARE_TYPES, OTHER_TYPE}
    rows = [r for r in table.rows if r.type in wanted]
    headers = ["Hardware", "$/h", "$/V100-h", "Speed", "Provider", "Pricing", "Type", "Memory GB", "As of", "Note", "From"]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        lines.append(
            "| "
            + " | ".join(
                [
                    _md_escape(r.hardware),
                    money(r.usd_per_hour),
                    cell(r.usd_per_v100_hour, as_money=True),
                    "–" if r.speed is None else f"{r.speed:g}",
                    _md_escape(r.provider),
                    r.pricing,
                    r.type,
                    "–" if r.memory_gb is None else f"{r.memory_gb:g}",
                    _md_escape(r.as_of or "–"),
                    _md_escape(f"{r.note}:{r.line}" if r.url is None else f"{r.url} § {r.section or r.note_title}"),
                    _md_escape(evidence_label(r)),
                ]
            )
            + " |"
        )
    if not rows:
        lines.append("")
        lines.append(
            "No price rows found; write prices in your notes (a sentence such as 'an A100 costs $3.67/hr on GCP', "
            "or a note tagged `prices` with a table of hardware, provider, type, usd_per_hour)."
        )
    if table.facts:
        lines.append("")
        lines.append(f"Purchases, plans and power ({len(table.facts)}):")
        lines.extend(f"- {_md_escape(f'{f.subject}: {fact_amount(f)} ({f.kind}), {f.where}')}" for f in table.facts)
    if table.conflicts:
        lines.append("")
        lines.append(f"Conflicts ({len(table.conflicts)}):")
        lines.extend(f"- {_md_escape(c)}" for c in table.conflicts)
    if table.left_out:
        lines.append("")
        lines.append(f"Left out ({len(table.left_out)}):")
        lines.extend(f"- {_md_escape(f'{i.where}: {i.reason}')}" for i in table.left_out)
    if show_problems and table.problems:
        lines.append("")
        lines.append(f"Problems ({len(table.problems)}):")
        lines.extend(f"- {p}" for p in table.problems)
    return "\n".join(lines)


_CURRENCY_MARKS = {"USD": "$", "EUR": "€", "GBP": "£"}
_PER = {"month": "/month", "year": "/year", "kwh": "/kWh", "once": "", "mtok": " per million tokens"}


def fact_amount(fact: PriceFact) -> str:
    """A fact's amount as written for people: ``$650``, ``$9.99/month``, ``$0.15/kWh``, ``350 W``, ``40M tokens/month``,
    with what it is of when the subject has several (``9 W idle``)."""
    detail = f" {fact.detail}" if fact.detail else ""
    if fact.kind == "power":
        return f"{fact.amount:g} W{detail}"
    if fact.kind == "usage":
        return f"{fact.amount:g}M tokens/{fact.unit}{detail}"
    mark = _CURRENCY_MARKS.get(fact.currency)
    value = f"{fact.amount:,.2f}" if fact.amount != int(fact.amount) or fact.amount < 100 else f"{fact.amount:,.0f}"
    amount = f"{mark}{value}" if mark else f"{value} {fact.currency}"
    kept = " (kept in its currency: no exchange rate)" if fact.currency not in ("USD", "W", "Mtok") else ""
    return amount + _PER.get(fact.unit, f"/{fact.unit}") + detail + kept
