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
from urllib.parse import quote, urlencode, urlsplit

from ..answer.answer import Answer, Citation
from ..answer.base import ToolCall
from ..answer.chat.claims import MARK
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


# The one Markdown setting for text from notes, articles and answers: a lone "~" ("~5x as expensive")
# is a tilde, never strikethrough (GFM renderers, Gradio's among them, strike "~a~"). Addresses keep theirs.
_LONE_TILDE = re.compile(r"((?:https?|mailto):[^\s<>()\[\]]*)|(?<![~\\])~(?!~)", re.IGNORECASE)


def literal_tildes(text: str) -> str:
    """``text`` with every lone ``~`` escaped (``\\~``), so Markdown shows it as written."""
    return _LONE_TILDE.sub(lambda m: m.group(1) or "\\~", text)


def _escape_prose(text: str) -> str:
    text = literal_tildes(text)
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


REL = "noopener noreferrer nofollow"
# In a cited passage: [text](url), ![alt](url) (already a plain link, see hwqa.answer.safety), <url>, a bare url.
_PASSAGE_LINK = re.compile(
    r"(!?)\[([^\[\]\n]*)\]\((https?://[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)\)|<(https?://[^\s<>]+)>"
    r"|(https?://[^\s<>\"'`\[\]\x00]*[^\s<>\"'`\[\]\x00.,;:!?)*_~])",
    re.IGNORECASE,
)
_TEXT_ESCAPES = {c: f"&#{ord(c)};" for c in "*_~`[]()!\\<>&\"'|"}


def external_link(url: str, *, from_markdown: bool = False) -> str:
    """An ``<a>`` to ``url`` whose text is exactly ``url``; it opens in a new tab, with no referrer.

    ``from_markdown``: the address of a Markdown link, whose brackets hwqa.answer.safety percent-encoded.
    """
    if from_markdown:
        url = url.replace("%28", "(").replace("%29", ")").replace("%5B", "[").replace("%5D", "]")
    domain = (urlsplit(url).hostname or "").removeprefix("www.")
    text = "".join(_TEXT_ESCAPES.get(ch, ch) for ch in url)  # entities: the Markdown renderer shows them as they are
    return f'<a class="hwqa-ext" href="{_attr(url)}" target="_blank" rel="{REL}" title="{_attr(domain)}, in a new tab">{text}</a>'


def _passage_prose(text: str) -> str:
    links: list[str] = []

    def keep(m: re.Match[str]) -> str:
        label, url = m.group(2), m.group(3) or m.group(4) or m.group(5)
        link = external_link(url, from_markdown=m.group(3) is not None)
        if m.group(3) is not None and label.strip() and label.strip() != url:
            link = f"{label.strip()}\x00 ({link})"  # the label stays Markdown text; escaped below
        links.append(link)
        return f"\x01{len(links) - 1}\x01"

    marked = _PASSAGE_LINK.sub(keep, text.replace("\x00", "").replace("\x01", ""))
    escaped = _escape_prose(marked)

    def restore(m: re.Match[str]) -> str:
        label, sep, anchor = links[int(m.group(1))].rpartition("\x00")
        return (_escape_prose(label) + anchor) if sep else anchor

    return re.sub(r"\x01(\d+)\x01", restore, escaped)


def passage_markdown(text: str) -> str:
    """A cited passage as safe Markdown whose every http(s) address is a real link showing the address."""
    out = []
    pos = 0
    for m in _CODE.finditer(text or ""):
        out.append(_passage_prose(text[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_passage_prose((text or "")[pos:]))
    return "".join(out)


def anchor(turn: int, n: int) -> str:
    """The element id of source ``n`` under answer number ``turn``."""
    return f"hwqa-src-{turn}-{n}"


def link_markers(text: str, turn: int, numbers: set[int]) -> str:
    """``[n]`` markers that name a source become in-page links to it."""
    return _MARKER.sub(
        lambda m: f"[\\[{m.group(1)}\\]](#{anchor(turn, int(m.group(1)))})" if int(m.group(1)) in numbers else m.group(0),
        text,
    )


_QUOTED = re.compile(r"(.+?)\s\[(\d+)\](?=[\s.,;]|$)", re.S)  # a quote of the answer and its marker
_LEAD = re.compile(r"^\s*(?:\*\*[^*\n]{1,40}:\*\*|[^\n]{0,40}:\s*$)\s*", re.M)  # "**From your notes:**"


def quotes_by_source(text: str) -> dict[int, list[str]]:
    """What the answer ``text`` says with each marker: source n -> the pieces quoted from it."""
    out: dict[int, list[str]] = {}
    for m in _QUOTED.finditer(text or ""):
        piece = _LEAD.sub("", _MARKER.sub("", m.group(1))).strip(" .\n")
        if len(piece.split()) >= 2:
            out.setdefault(int(m.group(2)), []).append(piece)
    return out


def source_href(citation: Citation, quoted: Sequence[str] = ()) -> str | None:
    """Where a source opens: the article's URL, or the note viewer at the cited lines (what the
    answer ``quoted`` from it, else the whole passage)."""
    if citation.url and re.match(r"^https?://", citation.url, re.IGNORECASE):
        return citation.url
    if citation.kind == "note" and citation.source:
        section = citation.heading.split("›")[-1].strip()
        pieces = "\n\n".join(" ".join(p.split()) for p in quoted) if quoted else citation.text
        cited = urlencode({"s": section, "q": pieces[:1500]})
        return f"{NOTE_ROUTE}{quote(citation.source)}?{cited}#hwqa-cited"
    return None


def render_source(citation: Citation, turn: int, quoted: Sequence[str] = ()) -> str:
    """One source as a collapsible block: '[n] title › heading', its link, and the cited passage."""
    href = source_href(citation, quoted)
    where = citation.url or citation.source
    link = (
        f'<a class="hwqa-src-link" href="{_attr(href)}" target="_blank" rel="{REL}">{html.escape(where)}</a>'
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
        f'<div class="hwqa-passage">\n\n{passage_markdown(citation.text)}\n\n</div>\n\n</details>'
    )


def render_sources(answer: Answer, turn: int) -> str:
    if not answer.citations:
        return ""
    quoted = quotes_by_source(answer.text)
    blocks = "\n\n".join(render_source(c, turn, quoted.get(c.n, ())) for c in answer.citations)
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


def _by_default(e: Mapping[str, Any]) -> bool:
    """Left out by the calculator's own rule (spot/preemptible or reserved prices), not by a filter the person set."""
    return str(e.get("reason", "")).startswith(f"{e.get('pricing')} pricing")


def _names(entries: Sequence[Mapping[str, Any]]) -> str:
    names = [f"{e.get('hardware')} ({e.get('provider')}, {e.get('pricing')})" for e in entries]
    return ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")


def _excluded_sentence(result: Mapping[str, Any]) -> str:
    excluded = list(result.get("excluded") or [])
    if not excluded:
        return ""
    filtered = [e for e in excluded if not _by_default(e)]
    default = [e for e in excluded if _by_default(e)]
    lines = []
    if filtered:
        lines.append(f"Left out by your filters: {_names(filtered)} (reasons in the calculator step above).")
    spot = [e for e in default if "interrupted" in str(e.get("reason"))]
    if spot:
        lines.append(
            f"Not counted: {_names(spot)}, since spot/preemptible machines can be taken back; "
            "tick “Include spot/preemptible prices” to compare them."
        )
    other = [e for e in default if e not in spot]
    if other:
        lines.append(f"Not counted: {_names(other)}, since those prices need a commitment.")
    return "\n\n".join(lines)


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
    parts.append(
        "**Result (every option)**\n\n" + useful_columns_first(safe_markdown(render_price_result(full, max_rows=10_000)))
    )
    excluded = describe_excluded(result)
    if excluded:
        parts.append("**Left out, and why**\n\n" + "\n".join(f"- {safe_markdown(line)}" for line in excluded))
    for note in result.get("notes") or []:
        parts.append(f"_{safe_markdown(str(note))}_")
    return "\n\n".join(parts)


# The columns a narrow screen must show first: what an option costs and what it gives.
USEFUL = ("$/h", "cost", "hours", "v100-h", "v100-hours", "$/v100-h", "wall time (h)", "break-even (h)")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def useful_columns_first(markdown: str) -> str:
    """Pipe tables with the name column first and its figures (price, hours, V100-h) right after it,
    so a phone shows them without scrolling (the name stays in view: a sticky column); the other
    columns follow in their order, the rank ("#") left out."""
    lines = markdown.split("\n")
    i = 0
    while i + 1 < len(lines):
        header, rule = lines[i].strip(), lines[i + 1].strip()
        if not (header.startswith("|") and re.fullmatch(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?", rule)):
            i += 1
            continue
        names = _cells(header)
        useful = [k for k, name in enumerate(names) if name.lower() in USEFUL]
        anchor = next((k for k, name in enumerate(names) if name.lower() == "hardware"), None)
        end = i + 2
        while end < len(lines) and lines[end].strip().startswith("|"):
            end += 1
        if useful and anchor is not None:  # the rank ("#") goes: the rows are in rank order, and the name leads
            order = [k for k in range(anchor + 1) if k not in useful and names[k] != "#"] + useful
            order += [k for k in range(len(names)) if k not in order and names[k] != "#"]
            for j in [i, *range(i + 2, end)]:
                cells = _cells(lines[j])
                if len(cells) == len(names):
                    lines[j] = "| " + " | ".join(cells[k] for k in order) + " |"
                else:  # a row of another shape keeps its cells, fitted to the columns shown
                    lines[j] = "| " + " | ".join((cells + [""] * len(order))[: len(order)]) + " |"
            lines[i + 1] = "|" + "|".join("---" for _ in order) + "|"
        i = end
    return "\n".join(lines)


def mark_unsupported(markdown: str) -> str:
    """A chat model's sentences that its citations do not support stand out: their mark in bold."""
    return markdown.replace(MARK, f"**{MARK.strip()}** ")


_NOTE_LINK = re.compile(r"(?<!!)\[([^\[\]\n]{3,80})\]\((https?://[^\s()<>]+)\)")


def relink(text: str, citations: Sequence[Citation]) -> str:
    """A quote keeps the links its words had in the note: "[info is here](url)" was quoted as "info
    is here"; each such link text of a cited passage, found in the answer, is followed by its address
    again (once), as a link that shows the address, like every outside link on the page."""
    for c in citations:
        for m in _NOTE_LINK.finditer(c.text or ""):
            label, url = m.group(1).strip(), m.group(2)
            if len(label.split()) < 2 or url in text:
                continue
            at = re.search(rf"(?<![\[\w]){re.escape(label)}(?![\]\w])", text)
            if at:
                text = f"{text[: at.end()]} (<{url}>){text[at.end() :]}"
    return text


def render_answer(answer: Answer, turn: int) -> str:
    """The answer message: the text with linked ``[n]`` markers (unsupported sentences marked), then the sources."""
    numbers = {c.n for c in answer.citations}
    text = relink(answer_text(answer), answer.citations)
    body = mark_unsupported(link_markers(useful_columns_first(safe_markdown(text)), turn, numbers))
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
