"""What the web page shows, as safe Markdown: answers, their sources, the calculator's work.

Text from notes, articles and chat models is content, never markup: every ``<`` is escaped
before the Markdown reaches Gradio (so no ``<img>``, ``<iframe>``, ``<style>``, ``<form>``,
``<svg>`` or ``<script>`` from content reaches the page), Markdown images become plain links
(nothing is loaded from another host), and link targets other than http(s), mailto and
in-page anchors are neutralised. The only HTML on the page is what this module writes itself
(``<details>`` blocks for sources, anchors for ``[n]`` markers), with every value escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import quote

from ..answer import Answer, Citation, ToolCall
from ..prices import CalcResult, render_price_result
from ..prices.render import render_excluded

NOTE_ROUTE = "/hwqa/note/"  # read-only text view of an indexed note (see app.py)

_AUTOLINK = re.compile(r"<((?:https?|mailto):[^<>\s]+)>", re.IGNORECASE)
_IMAGE = re.compile(r"!\[")
_INLINE_TARGET = re.compile(r"\]\(\s*<?([^()\s>]*(?:\([^()\s]*\)[^()\s>]*)*)")
_REF_DEF = re.compile(r"^(\s{0,3}\[[^\]]+\]:\s*)<?(\S+?)>?(\s|$)", re.MULTILINE)
_CODE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?^ {0,3}\1[ \t]*$|(`+)[^`\n]+?\2(?!`)", re.MULTILINE | re.DOTALL)
_MARKER = re.compile(r"\[(\d+)\](?![(\[])")


def _safe_target(target: str) -> str:
    """``target`` if it is http(s), mailto, an anchor or relative; otherwise a dead in-page anchor."""
    cleaned = re.sub(r"[\x00-\x20]", "", html.unescape(target)).lower()
    scheme = re.match(r"^([a-z][a-z0-9+.-]*):", cleaned)
    if scheme is None or scheme.group(1) in ("http", "https", "mailto"):
        return target
    return "#blocked-link"


def _escape_prose(text: str) -> str:
    text = _AUTOLINK.sub(lambda m: f"[{m.group(1)}]({m.group(1)})", text)
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    text = _IMAGE.sub("[image: ", text)
    text = _INLINE_TARGET.sub(
        lambda m: m.group(0).replace(m.group(1), _safe_target(m.group(1)), 1) if m.group(1) else m.group(0), text
    )
    return _REF_DEF.sub(lambda m: f"{m.group(1)}{_safe_target(m.group(2))}{m.group(3)}", text)


def safe_markdown(text: str) -> str:
    """``text`` as Markdown that cannot put HTML on the page or load anything from another host.

    Code spans and fenced blocks are left as they are: the Markdown renderer shows them as text.
    """
    out = []
    pos = 0
    for m in _CODE.finditer(text or ""):
        out.append(_escape_prose(text[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_escape_prose((text or "")[pos:]))
    return "".join(out)


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


def anchor(turn: int, n: int) -> str:
    """The element id of source ``n`` under answer number ``turn``."""
    return f"hwqa-src-{turn}-{n}"


def link_markers(text: str, turn: int, numbers: set[int]) -> str:
    """``[n]`` markers that name a source become in-page links to it."""
    return _MARKER.sub(
        lambda m: f"[\\[{m.group(1)}\\]](#{anchor(turn, int(m.group(1)))})" if int(m.group(1)) in numbers else m.group(0),
        text,
    )


def source_href(citation: Citation) -> str | None:
    """Where a source opens: the article's URL, or the read-only view of the note."""
    if citation.url and re.match(r"^https?://", citation.url, re.IGNORECASE):
        return citation.url
    if citation.kind == "note" and citation.source:
        return NOTE_ROUTE + quote(citation.source)
    return None


def render_source(citation: Citation, turn: int) -> str:
    """One source as a collapsible block: '[n] title › heading', its link, and the cited passage."""
    href = source_href(citation)
    where = citation.url or citation.source
    link = (
        f'<a class="hwqa-src-link" href="{_attr(href)}" target="_blank" rel="noopener noreferrer">{html.escape(where)}</a>'
        if href
        else html.escape(where)
    )
    origin = ""
    if citation.kind == "article" and citation.linked_from:
        origin = f" · linked from {html.escape(', '.join(citation.linked_from[:3]))}"
    return (
        f'<details class="hwqa-src" id="{anchor(turn, citation.n)}">'
        f"<summary>[{citation.n}] {html.escape(citation.label())}</summary>\n\n"
        f'<p class="hwqa-src-where">{link}{origin}</p>\n\n'
        f'<div class="hwqa-passage">\n\n{safe_markdown(citation.text)}\n\n</div>\n\n</details>'
    )


def render_sources(answer: Answer, turn: int) -> str:
    if not answer.citations:
        return ""
    blocks = "\n\n".join(render_source(c, turn) for c in answer.citations)
    return f"**Sources**\n\n{blocks}"


def _calc_result(answer: Answer) -> Mapping[str, Any] | None:
    for call in answer.tool_calls:
        if isinstance(call.result, Mapping) and "options" in call.result:
            return call.result
    return None


def describe_excluded(result: Mapping[str, Any]) -> list[str]:
    """One line per excluded row, named with provider and pricing so it can't be mistaken for a kept row."""
    lines = []
    for e in result.get("excluded") or []:
        where = f"{e.get('note')}:{e.get('line')}" if e.get("note") else ""
        lines.append(
            f"{e.get('hardware')} ({e.get('provider')}, {e.get('pricing')}): {e.get('reason')}" + (f" — {where}" if where else "")
        )
    return lines


def _excluded_sentence(result: Mapping[str, Any]) -> str:
    names = [f"{e.get('hardware')} ({e.get('provider')}, {e.get('pricing')})" for e in result.get("excluded") or []]
    if not names:
        return ""
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    return f"Left out by your filters: {shown} (reasons in the calculator step above)."


def answer_text(answer: Answer) -> str:
    """The answer's own text, with the calculator's short 'Excluded' line and cut table made clear."""
    text = answer.text
    result = _calc_result(answer)
    if result is not None:
        old = render_excluded(CalcResult.from_json(result))
        if old and old in text:
            text = text.replace(old, "\n" + _excluded_sentence(result))
        text = re.sub(r"… and (\d+) more (options?)\.", r"… and \1 more \2: the calculator step above has the full table.", text)
    return text


_MODES = {
    "budget": "how many hours (and V100-hours) each option gives for the budget",
    "workload": "what the job costs and how long it takes on each option",
    "rent": "what each option costs for that many hours",
    "lookup": "the price per hour and per V100-hour of each option",
}


def _arguments(arguments: Mapping[str, Any]) -> str:
    shown = {k: v for k, v in arguments.items() if v not in (None, [], "", False) or k == "allow_preemptible"}
    return "\n".join(f"- `{html.escape(str(k))}`: {safe_markdown(str(v))}" for k, v in shown.items())


def calculator_title(call: ToolCall) -> str:
    result = call.result if isinstance(call.result, Mapping) else {}
    if "error" in result:
        return "Price calculator (could not answer)"
    mode = str(result.get("mode", ""))
    inputs: Mapping[str, Any] = result.get("inputs") or {}
    what = {
        "budget": f"budget ${inputs.get('budget_usd', 0):,.0f}: hours per option" if inputs.get("budget_usd") else "budget",
        "workload": "cost of the job per option",
        "rent": f"cost of {inputs.get('hours')} h per option",
        "lookup": "prices per option",
    }.get(mode, mode)
    return f"Price calculator — {what}"


def render_calculator_step(call: ToolCall) -> str:
    """The calculator's work for people: what was asked, the full table, the rows left out and why."""
    result: Mapping[str, Any] = call.result if isinstance(call.result, Mapping) else {}
    parts = [f"**Computed:** {_MODES.get(str(result.get('mode')), 'the price table')}, from the price table in your notes."]
    parts.append("**Arguments**\n\n" + (_arguments(call.arguments) or "- (none)"))
    if "error" in result:
        parts.append(f"**Error:** {safe_markdown(str(result['error']))}")
        return "\n\n".join(parts)
    full = replace(CalcResult.from_json(result), excluded=())  # listed below, one per line with provider and pricing
    parts.append("**Result (every option)**\n\n" + safe_markdown(render_price_result(full, max_rows=10_000)))
    excluded = describe_excluded(result)
    if excluded:
        parts.append("**Left out, and why**\n\n" + "\n".join(f"- {safe_markdown(line)}" for line in excluded))
    for note in result.get("notes") or []:
        parts.append(f"_{safe_markdown(str(note))}_")
    return "\n\n".join(parts)


def render_answer(answer: Answer, turn: int) -> str:
    """The answer message: the text with linked ``[n]`` markers, then the collapsible sources."""
    numbers = {c.n for c in answer.citations}
    body = link_markers(safe_markdown(answer_text(answer)), turn, numbers)
    sources = render_sources(answer, turn)
    return f"{body}\n\n{sources}" if sources else body


def answer_messages(answer: Answer, turn: int) -> list[dict[str, Any]]:
    """Chat messages for one answer: a collapsible step per tool call, then the answer itself."""
    messages: list[dict[str, Any]] = [
        {
            "role": "assistant",
            "content": render_calculator_step(call),
            "metadata": {"title": calculator_title(call), "status": "done"},
        }
        for call in answer.tool_calls
    ]
    messages.append({"role": "assistant", "content": render_answer(answer, turn)})
    return messages


def plain_sources(citations: Sequence[Citation]) -> str:
    """'[n] title › heading — where' lines, safe Markdown, for the API's plain answer."""
    lines = []
    for c in citations:
        where = c.url or c.source
        lines.append(f"[{c.n}] {c.label()} — {where}")
    return safe_markdown("\n".join(lines)).replace("\n", "  \n")
