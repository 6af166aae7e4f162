"""Tables for people from the live index's manifest: link health, notes left out, price rows.

No Gradio here: ``hwqa links`` uses these too.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from ..errors import IndexMissingError
from ..index import reader as store
from ..prices import PriceRow, PriceTable
from ..prices.render import evidence_label

if TYPE_CHECKING:
    from rich.console import Console

OUTCOMES = {"fetched": "fetched", "not-modified": "cached", "from-cache": "cached", "failed": "failed", "skipped": "skipped"}
PROBLEMS = ("failed", "skipped")


def live_manifest(index_dir: Path) -> dict[str, Any]:
    """The manifest of the live generation, without loading the model (one-line error if none)."""
    manifest = store.read_live_manifest(index_dir)
    if manifest is None:
        raise IndexMissingError(f"no index in {index_dir}; run 'hwqa index' first")
    return manifest


def links(manifest: Mapping[str, Any], *, failed_only: bool = False) -> list[dict[str, Any]]:
    """Every linked URL: its outcome (fetched, cached, failed, skipped), the reason, the notes linking to it."""
    out = []
    for url, info in (manifest.get("links") or {}).items():
        outcome = OUTCOMES.get(str(info.get("status")), str(info.get("status")))
        if failed_only and outcome not in PROBLEMS:
            continue
        out.append(
            {
                "url": url,
                "outcome": outcome,
                "status": info.get("status"),
                "reason": info.get("reason") or "",
                "linked_from": list(info.get("linked_from") or info.get("notes") or []),
                "chunks": int(info.get("chunks") or 0),
                **_retry(info),
            }
        )
    order = {"failed": 0, "skipped": 1, "cached": 2, "fetched": 3}
    return sorted(out, key=lambda r: (order.get(r["outcome"], 9), r["url"]))


def _retry(info: Mapping[str, Any]) -> dict[str, Any]:
    """When a link that failed is fetched again (a build before then keeps it as failed), and how
    many times in a row it failed; empty for a link that did not fail."""
    if info.get("status") != "failed" or not info.get("retry_at"):
        return {}
    at = float(info["retry_at"])
    return {
        "failures": int(info.get("failures") or 1),
        "retry_at": dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "retry_in_s": max(0, round(at - time.time())),
    }


def retry_text(link: Mapping[str, Any]) -> str:
    """'tried 2 times in a row; next try in 1 h 59 min (2026-11-27 11:02 UTC), or now with hwqa index --retry-links'."""
    if "retry_at" not in link:
        return ""
    left = int(link["retry_in_s"])
    if left <= 0:
        when = "at the next build"
    elif left >= 3600:
        when = f"in {left // 3600} h {left % 3600 // 60} min"
    else:
        when = f"in {max(1, left // 60)} min"
    times = "once" if link["failures"] == 1 else f"{link['failures']} times in a row"
    stamp = str(link["retry_at"]).replace("T", " ")[:16] + " UTC"
    return f"failed {times}; next try {when} ({stamp}), or now with 'hwqa index --retry-links'"


def links_by_note(manifest: Mapping[str, Any], *, failed_only: bool = False) -> list[dict[str, Any]]:
    """The link-health report per note: each note (by title) with its links and their outcomes."""
    notes: dict[str, list[dict[str, Any]]] = {}
    for link in links(manifest, failed_only=failed_only):
        for note in link["linked_from"] or ["(unknown note)"]:
            keys = ("url", "status", "outcome", "reason", "chunks", "failures", "retry_at", "retry_in_s")
            notes.setdefault(note, []).append({k: link[k] for k in keys if k in link})
    return [{"note": note, "links": items} for note, items in sorted(notes.items())]


def skipped_notes(manifest: Mapping[str, Any]) -> list[dict[str, str]]:
    """Notes that could not be read or parsed, with the reason, and other warnings about notes."""
    rows = [{"note": str(s.get("note")), "reason": str(s.get("reason"))} for s in manifest.get("notes_skipped") or []]
    skipped = {r["note"] for r in rows}
    for warning in manifest.get("note_warnings") or []:
        note, _, reason = str(warning).partition(": ")
        if note not in skipped:
            rows.append({"note": note, "reason": reason or str(warning)})
    for problem in (manifest.get("prices") or {}).get("problems") or []:
        rows.append({"note": str(problem).split(":", 1)[0], "reason": f"price table: {problem}"})
    return rows


def price_notes(table: PriceTable) -> str:
    """What the prices tab says under the table: conflicts between sources (and the price used), and
    the price statements left out with their reason (Markdown)."""
    parts = []
    if table.conflicts:
        parts.append("**Conflicting prices** (the first is used):\n" + "\n".join(f"- {c}" for c in table.conflicts))
    if table.left_out:
        items = "\n".join(f"- `{i.where}`: {i.reason}" for i in table.left_out[:50])
        more = f"\n- … and {len(table.left_out) - 50} more (`hwqa prices` lists them all)" if len(table.left_out) > 50 else ""
        parts.append(f"**Left out** ({len(table.left_out)} price statements not read):\n{items}{more}")
    return "\n\n".join(parts)


def parse_as_of(text: str | None) -> dt.date | None:
    """'2024-05-01', '2024-05' or '2024' as a date (the first day of the period), else None."""
    m = re.match(r"^\s*(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?", text or "")
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
    except ValueError:
        return None


def stale(as_of: str | None, today: dt.date | None = None) -> bool:
    """True when a price's 'as of' date is more than a year old."""
    when = parse_as_of(as_of)
    return when is not None and ((today or dt.date.today()) - when).days > 365


# The name and the figures first (as in the calculator's result), so a phone shows them without scrolling.
PRICE_COLUMNS = [
    "Hardware",
    "$/h",
    "$/V100-h",
    "Speed (V100=1)",
    "Provider",
    "Pricing",
    "Type",
    "Memory GB",
    "As of",
    "Note:line",
    "From",  # price table, or the table row / sentence / list item it was read from
]


def _num(value: float | None, money: bool = False) -> str:
    if value is None:
        return "–"
    return f"${value:,.2f}" if money else f"{value:g}"


def price_rows(
    rows: Iterable[PriceRow], *, providers: Iterable[str] = (), types: Iterable[str] = (), today: dt.date | None = None
) -> list[list[str]]:
    """The price table as rows of text, filtered by provider and type; old prices flagged."""
    wanted_p = {p.lower() for p in providers}
    wanted_t = {t.lower() for t in types}
    out = []
    for r in rows:
        if (wanted_p and r.provider.lower() not in wanted_p) or (wanted_t and r.type.lower() not in wanted_t):
            continue
        as_of = r.as_of or "–"
        if stale(r.as_of, today):
            as_of += " ⚠ possibly stale"
        out.append(
            [
                r.hardware,
                _num(r.usd_per_hour, True),
                _num(r.usd_per_v100_hour, True),
                _num(r.speed),
                r.provider,
                r.pricing,
                r.type,
                _num(r.memory_gb),
                as_of,
                f"{r.note}:{r.line}" if r.url is None else f"{r.url} § {r.section or r.note_title}",
                evidence_label(r),
            ]
        )
    return out


def plural(count: int, noun: str, many: str | None = None) -> str:
    """'1 note', '2 notes' ('1 passage', '3 passages'; ``many`` for irregular plurals)."""
    return f"{count} {noun if count == 1 else (many or noun + 's')}"


_HOST = re.compile(r"(?i)\b(?:[a-z0-9-]+\.)+[a-z]{2,}\b(?::\d+)?|\b\d{1,3}(?:\.\d{1,3}){3}\b")
_NO_NETWORK = re.compile(
    r"(?i)could not resolve|name resolution|name or service not known|network is unreachable|no route to host"
)


def reason_group(reason: str) -> str:
    """A link's reason without the host it names, so that the same trouble on many hosts counts once."""
    text = _HOST.sub("the host", reason or "no reason given")
    if _NO_NETWORK.search(text):
        return "no network (host names could not be resolved)"
    return text


def failure_totals(rows: Iterable[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """(reason, how many links) for the links that were not fetched, most common first."""
    totals: dict[str, int] = {}
    for r in rows:
        if r.get("outcome") in PROBLEMS:
            key = reason_group(str(r.get("reason") or ""))
            totals[key] = totals.get(key, 0) + 1
    return sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))


def link_health(manifest: Mapping[str, Any]) -> str:
    """One line first: how many links were not fetched, the main reason, and what answers can use."""
    rows = links(manifest)
    if not rows:
        return "Your notes link to no web pages: answers use your notes only."
    totals = failure_totals(rows)
    failed = sum(n for _, n in totals)
    usable = len(rows) - failed
    if not failed:
        return f"All {plural(len(rows), 'linked page')} were read: answers use your notes and the articles they link to."
    main = totals[0][0] if len(totals) == 1 else f"mostly {totals[0][0]}"
    if main.startswith("no network"):
        main = "no network"
    what = (
        "answers use your notes only"
        if not usable
        else f"answers use your notes and the {plural(usable, 'article')} that were read"
    )
    verb = "was" if failed == 1 else "were"
    return f"{plural(failed, 'link')} of {len(rows)} {verb} not fetched: {main} — {what}."


def print_build_summary(report: Any, out: Console) -> None:
    """Totals for people: notes, passages, links; the links not fetched are counted, not listed."""
    counts = report.link_counts()
    what = "unchanged" if not report.changed else f"generation {report.generation}"
    out.print(
        f"Indexed {plural(report.notes_seen, 'note')}: {plural(report.chunks_total, 'chunk')} "
        f"({report.chunks_embedded} embedded, {report.chunks_reused} reused, {report.chunks_removed} removed); "
        f"links: {counts.summary()}; {what}; {report.seconds:.1f} s"
    )
    totals = failure_totals({"outcome": link.status, "reason": link.reason} for link in report.links)
    if totals:
        reasons = "; ".join(f"{n} {escape(reason)}" for reason, n in totals[:3])
        more = f"; {plural(len(totals) - 3, 'other reason')}" if len(totals) > 3 else ""
        out.print(f"Not fetched: {reasons}{more}. See [bold]hwqa links --failed[/] for each link.")
    if report.full_rebuild and report.chunks_embedded:
        out.print(f"Full rebuild: {report.full_rebuild}.")
