"""The prices and index tabs: what they compute, separate from the Gradio layout."""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..engine import Engine, build_index, compact_index
from ..errors import HwqaError
from ..prices import CalcRequest, PriceTable, check_and_calculate
from ..prices.fmt import cell, number
from . import reports
from .render import describe_excluded, safe_markdown

# The figures come right after the name, so a phone shows them without scrolling sideways.
RESULT_COLUMNS = {
    "budget": ["#", "Hardware", "$/h", "Hours", "V100-hours", "Provider", "Pricing"],
    "workload": ["#", "Hardware", "$/h", "Cost", "Wall time (h)", "Provider", "Pricing"],
    "rent": ["#", "Hardware", "$/h", "Cost", "V100-hours", "Provider", "Pricing"],
    "lookup": ["#", "Hardware", "$/h", "$/V100-h", "Speed (V100=1)", "Provider", "Pricing"],
}
LINK_COLUMNS = ["URL", "Outcome", "Reason", "Linked from", "Passages"]


def price_table(engine: Engine) -> PriceTable:
    return engine.price_table(engine.generation())


def price_notes(engine: Engine) -> str:
    """Under the prices table: conflicting prices (and the one used) and the statements left out, with why."""
    try:
        return safe_markdown(reports.price_notes(price_table(engine)))
    except HwqaError as exc:
        return f"⚠️ {html.escape(str(exc))}"


def price_choices(engine: Engine) -> tuple[list[str], list[str]]:
    rows = price_table(engine).rows
    return sorted({r.provider for r in rows}), sorted({r.type for r in rows})


def filtered_prices(engine: Engine, providers: Sequence[str] | None, types: Sequence[str] | None) -> list[list[str]]:
    return reports.price_rows(price_table(engine).rows, providers=providers or (), types=types or ())


def _fmt(value: Any, money: bool = False) -> str:
    """A figure as the chat's answer table writes it (one rounding for both)."""
    return cell(None if value is None else float(value), money)


def result_rows(result: Mapping[str, Any]) -> list[list[str]]:
    mode = str(result.get("mode", "lookup"))
    rows = []
    for o in result.get("options") or []:
        base = [str(o.get("rank")), str(o.get("hardware")), _fmt(o.get("usd_per_hour"), True)]
        if mode == "budget":
            base += [_fmt(o.get("hours")), _fmt(o.get("v100_hours"))]
        elif mode == "workload":
            base += [_fmt(o.get("cost"), True), _fmt(o.get("wall_hours"))]
        elif mode == "rent":
            base += [_fmt(o.get("cost"), True), _fmt(o.get("v100_hours"))]
        else:
            base += [_fmt(o.get("usd_per_v100_hour"), True), _fmt(o.get("speed"))]
        rows.append([*base, str(o.get("provider")), str(o.get("pricing"))])
    return rows


def chart_values(result: Mapping[str, Any]) -> tuple[str, list[tuple[str, float]]]:
    """What the bar chart shows: V100-hours (or hours) for a budget, cost for a workload, $/V100-h otherwise."""
    mode = str(result.get("mode", "lookup"))
    options = list(result.get("options") or [])

    def label(o: Mapping[str, Any]) -> str:
        return f"{o.get('hardware')} ({o.get('provider')}, {o.get('pricing')})"

    def pick(key: str) -> list[tuple[str, float]]:
        return [(label(o), float(o[key])) for o in options if o.get(key) is not None]

    if mode == "budget":
        values = pick("v100_hours")
        return ("V100-hours for the budget", values) if values else ("Hours for the budget", pick("hours"))
    if mode in ("workload", "rent"):
        return "Cost in US dollars", pick("cost")
    values = pick("usd_per_v100_hour")
    return ("US dollars per V100-hour", values) if values else ("US dollars per hour", pick("usd_per_hour"))


def bar_chart_svg(title: str, values: Sequence[tuple[str, float]]) -> str:
    """A horizontal bar chart as inline SVG (drawn here: no scripts, no assets from anywhere)."""
    if not values:
        return '<p class="hwqa-chart-empty">No option to chart.</p>'
    bar, gap, left, width = 22, 8, 250, 560
    top = 30
    height = top + len(values) * (bar + gap) + 10
    biggest = max(v for _, v in values) or 1.0
    parts = [
        f'<svg class="hwqa-chart" role="img" aria-label="{html.escape(title)}" viewBox="0 0 {left + width + 90} {height}" '
        f'width="100%" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="0" y="18" font-size="14" font-weight="bold" fill="currentColor">{html.escape(title)}</text>',
    ]
    for i, (name, value) in enumerate(values):
        y = top + i * (bar + gap)
        w = max(1.0, width * value / biggest)
        label = html.escape(name[:40])
        parts.append(f'<text x="{left - 6}" y="{y + 16}" font-size="12" text-anchor="end" fill="currentColor">{label}</text>')
        parts.append(
            f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar}" fill="#f97316" rx="3">'
            f"<title>{html.escape(name)}: {number(value)}</title></rect>"
        )
        parts.append(f'<text x="{left + w + 6:.1f}" y="{y + 16}" font-size="12" fill="currentColor">{number(value)}</text>')
    parts.append("</svg>")
    return "".join(parts)


FIELDS = (("budget", "Budget"), ("hours", "Hours"), ("memory", "Memory per device"), ("devices", "Devices"))


def field_problem(budget: Any, hours: Any, memory: Any, devices: Any) -> str:
    """One line for the first calculator field that cannot be used, or '' when all can."""
    values = {"budget": budget, "hours": hours, "memory": memory, "devices": devices}
    for key, name in FIELDS:
        value = values[key]
        if value is None or value == "":
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            return f"⚠️ {name}: type a number (you typed {str(value)[:20]!r})."
        if number != number or number in (float("inf"), float("-inf")):
            return f"⚠️ {name}: type a finite number."
        if key == "devices" and (number < 1 or number != int(number)):
            return f"⚠️ Devices: type a whole number, 1 or more (you typed {number:g})."
        if number < 0:
            return f"⚠️ {name} can't be negative (you typed {number:g}); type 0 or more, or leave it empty."
    return ""


def calculator_request(
    budget: float | None, hours: float | None, memory: float | None, devices: float | None, preemptible: bool
) -> CalcRequest:
    """The request the prices tab's fields ask for (an empty or zero field is not given)."""
    return CalcRequest(
        budget_usd=float(budget) if budget else None,
        hours=float(hours) if hours else None,
        min_memory_gb=float(memory) if memory else None,
        devices=int(devices) if devices and int(devices) > 1 else 1,
        allow_preemptible=bool(preemptible),
    )


def calculate(
    engine: Engine,
    providers: Sequence[str] | None,
    types: Sequence[str] | None,
    budget: float | None,
    hours: float | None,
    memory: float | None,
    devices: float | None,
    preemptible: bool,
) -> tuple[list[list[str]], list[str], str, str]:
    """(result rows, their column names, the chart as SVG, a Markdown summary) for the prices tab."""
    table = price_table(engine)
    wanted_p = {p.lower() for p in providers or ()}
    wanted_t = {t.lower() for t in types or ()}
    rows = [
        r for r in table.rows if (not wanted_p or r.provider.lower() in wanted_p) and (not wanted_t or r.type.lower() in wanted_t)
    ]
    request = calculator_request(budget, hours, memory, devices, preemptible)
    try:
        result = check_and_calculate(PriceTable(rows=rows, problems=list(table.problems)), request).to_json()
    except HwqaError as exc:
        return [], RESULT_COLUMNS["lookup"], "", f"⚠️ {html.escape(str(exc))}"
    mode = str(result.get("mode"))
    title, values = chart_values(result)
    summary = []
    rec = result.get("recommendation")
    if rec:
        summary.append(
            f"**Recommendation:** {rec.get('hardware')} ({rec.get('provider')}, {rec.get('pricing')}) — {rec.get('reason')}."
        )
    else:
        summary.append("**No option fits** the filters; relax them.")
    excluded = describe_excluded(result)
    if excluded:
        summary.append("**Left out:**\n" + "\n".join(f"- {e}" for e in excluded))
    return (
        result_rows(result),
        RESULT_COLUMNS.get(mode, RESULT_COLUMNS["lookup"]),
        bar_chart_svg(title, values),
        safe_markdown("\n\n".join(summary)),
    )


def link_health(engine: Engine) -> str:
    """The index tab's first line: links not fetched, why, and what answers can use."""
    try:
        return f"**{safe_markdown(reports.link_health(engine.generation().manifest))}**"
    except HwqaError as exc:
        return f"⚠️ {html.escape(str(exc))}"


def reason_rows(engine: Engine) -> list[list[str]]:
    """(reason, how many links) for the links that were not fetched."""
    return [[reason, str(n)] for reason, n in reports.failure_totals(reports.links(engine.generation().manifest))]


def index_summary(engine: Engine) -> str:
    try:
        s = engine.status()
    except HwqaError as exc:
        return f"⚠️ {html.escape(str(exc))}"
    emb = s.embedder
    notices = "".join(f"\n\n⚠️ {html.escape(line)}" for line in (notice() for notice in engine.notices) if line)
    return (
        f"**{reports.plural(s.notes, 'note')}**, **{reports.plural(s.chunks, 'passage')}**, "
        f"{reports.plural(s.price_rows, 'price row')} · "
        f"model `{emb.get('model')}` ({emb.get('dim')} dims) · answers: {s.backend} · "
        f"last build {s.built_at} (generation `{s.generation}`) · links: {s.links.summary()}"
    ) + notices


def link_rows(engine: Engine, problems_only: bool = False) -> list[list[str]]:
    return [
        [
            r["url"],
            r["outcome"],
            "; ".join(filter(None, [r["reason"], reports.retry_text(r)])),
            ", ".join(r["linked_from"]),
            str(r["chunks"]),
        ]
        for r in reports.links(engine.generation().manifest, failed_only=problems_only)
    ]


def skipped_rows(engine: Engine) -> list[list[str]]:
    return [[r["note"], r["reason"]] for r in reports.skipped_notes(engine.generation().manifest)]


def rebuild(engine: Engine, progress: Callable[[str, int, int], None]) -> str:
    """Rebuild the index with the engine's own model; the next question uses the new generation."""
    labels = {"chunk": "Reading notes", "fetch": "Fetching links", "embed": "Embedding passages", "write": "Writing index"}
    try:
        report = build_index(
            engine.settings, embedder=engine.embedder, progress=lambda st, d, t: progress(labels.get(st, st), d, t)
        )
    except HwqaError as exc:
        return f"⚠️ Rebuild failed at {time.strftime('%H:%M:%S')}: {html.escape(str(exc))}"
    merge = ""
    if report.compaction:  # after the new generation is live, never on its way
        try:
            compact_index(engine.settings, lock_wait=600.0)
        except HwqaError as exc:  # the rebuild itself stands: said as what it is
            merge = f" ⚠️ {html.escape(str(exc))}"
    engine.generation()
    when = time.strftime("%H:%M:%S")
    if not report.changed:
        return f"✓ Checked at {when} ({report.seconds:.1f} s): nothing changed since the last build."
    changes = [f"{reports.plural(report.chunks_embedded, 'passage')} embedded", f"{report.chunks_reused} reused"]
    if report.chunks_removed:
        changes.append(f"{report.chunks_removed} removed")
    return (
        f"✓ Rebuilt at {when} in {report.seconds:.1f} s: {reports.plural(report.notes_seen, 'note')}, "
        f"{reports.plural(report.chunks_total, 'passage')} ({', '.join(changes)}); links: {report.link_counts().summary()}."
        + merge
    )
