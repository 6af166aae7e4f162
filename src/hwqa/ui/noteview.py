"""The note viewer: one indexed note as a web page, rendered from Markdown, the cited lines marked.

The page shows the note's body (never its front matter) rendered by markdown-it with raw HTML
off, so a note's ``<script>`` or ``<img>`` is shown as text. Images become links (nothing is
loaded), every link is an ``<a>`` that opens in a new tab without a referrer, and the response
carries a Content-Security-Policy that lets the page load nothing and run nothing.

The cited lines are found from what the answer quoted (``q``: its quotes, or the passage,
pieces apart by blank lines): each piece's offsets in the note's source are found word by word,
within the cited section (``s``) first, and the innermost block on those lines (a list item's
paragraph, a table row, a paragraph, a heading) is marked, whatever kind of block it is. The
first one gets ``id="hwqa-cited"``, which the link's ``#hwqa-cited`` scrolls to.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any
from urllib.parse import urlsplit

from ..notes.note import parse_note
from .assets import FONT_FACES

CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; font-src 'self'; img-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'self'"
)
REL = "noopener noreferrer nofollow"
_WORDS = re.compile(r"[^\W_]+", re.UNICODE)
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_MARKED = ("paragraph_open", "tr_open", "list_item_open", "heading_open", "blockquote_open")
_MIN_WORDS = 2  # a line of one word ("Notes", "|---|") is not evidence of a citation
_MAX_PIECES = 12
_MAX_PIECE_WORDS = 400

STYLE = (
    FONT_FACES
    + """
:root { color-scheme: light dark; --mark: #fff3c4; --fg: #1f2328; --bg: #fff; --muted: #59636e; --line: #d1d9e0; }
@media (prefers-color-scheme: dark) {
  :root { --mark: #4d3f00; --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; } }
body { font: 16px/1.55 "hwqa Sans", ui-sans-serif, sans-serif; color: var(--fg); background: var(--bg);
       max-width: 52rem; margin: 0 auto; padding: 1rem; overflow-wrap: anywhere; }
header { color: var(--muted); font-size: 0.9em; border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
.hwqa-cited { background: var(--mark); outline: 2px solid var(--mark); border-radius: 2px; }
table { border-collapse: collapse; display: block; overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid var(--line); padding: 0.25em 0.5em; white-space: nowrap; }
pre { overflow-x: auto; padding: 0.5em; border: 1px solid var(--line); }
code { font-family: "Liberation Mono", monospace; }
.hwqa-domain { color: var(--muted); font-size: 0.85em; }
"""
)


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORDS.findall(text)]


def _section_lines(lines: Sequence[str], section: str) -> range:
    """The lines under the heading named ``section`` (up to the next heading of its level or higher)."""
    wanted = _words(section)
    if not wanted:
        return range(len(lines))
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m and _words(m.group(2)) == wanted:
            level = len(m.group(1))
            end = len(lines)
            for j in range(i + 1, len(lines)):
                n = _HEADING.match(lines[j])
                if n and len(n.group(1)) <= level:
                    end = j
                    break
            return range(i, end)
    return range(len(lines))


def cited_offsets(body: str, quotes: Sequence[str], section: str = "") -> list[tuple[int, int]]:
    """Where each quoted piece stands in ``body``: (start, end) character offsets, found word by word.

    Each piece (a quoted span, or a passage's paragraph) is aligned with the note's words, within
    the cited section first: runs of at least four words in a row (fewer for a shorter piece) that
    the piece and the note share, in order, are its offsets. A piece with no such run (a table row
    quoted as "column: value") is the line of the section holding most of its words.
    """
    words = [(m.group().casefold(), m.start(), m.end()) for m in _WORDS.finditer(body)]
    lines = body.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    scope = _section_lines([ln.rstrip("\r\n") for ln in lines], section) if section else range(len(lines))
    ranges = [(starts[scope.start], starts[scope.stop]), (0, len(body))] if len(scope) < len(lines) else [(0, len(body))]
    found: list[tuple[int, int]] = []
    for piece in quotes[:_MAX_PIECES]:
        want = _words(piece)[:_MAX_PIECE_WORDS]
        if not want:
            continue
        least = min(4, len(want))
        for lo, hi in ranges:
            here = [w for w in words if lo <= w[1] < hi]
            blocks = SequenceMatcher(None, want, [w[0] for w in here], autojunk=False).get_matching_blocks()
            runs = [(here[b.b][1], here[b.b + b.size - 1][2]) for b in blocks if b.size >= least]
            if runs:
                found += runs
                break
        else:
            best = _best_line(lines, starts, scope, set(want))
            if best is not None:
                found.append(best)
    return found


def _best_line(lines: Sequence[str], starts: Sequence[int], scope: range, want: set[str]) -> tuple[int, int] | None:
    """The line of ``scope`` holding most of ``want`` (at least half of it), as offsets."""
    best, share = None, 0.5
    for i in scope:
        have = set(_words(lines[i]))
        if len(have) >= _MIN_WORDS and len(want & have) / len(want) >= share:
            best, share = i, len(want & have) / len(want) + 1e-9
    return None if best is None else (starts[best], starts[best] + len(lines[best]))


def cited_lines(body: str, quote: str, section: str = "") -> set[int]:
    """The 0-based lines of ``body`` the quoted pieces of ``quote`` (split at blank lines) stand on."""
    pieces = [p for p in re.split(r"\n\s*\n", quote) if p.strip()]
    marked: set[int] = set()
    for start, end in cited_offsets(body, pieces, section):
        first = body.count("\n", 0, start)
        marked.update(range(first, first + body.count("\n", start, end) + 1))
    return marked


def _domain(url: str) -> str:
    return (urlsplit(url).hostname or "").removeprefix("www.")


_BARE_URL = re.compile(r"(?i)\bhttps?://[^\s<>\"'`]+[^\s<>\"'`.,;:!?)\]]")


def _link_bare_urls(state: Any) -> None:
    """Bare addresses in text become links whose text is the address itself."""
    from markdown_it.token import Token

    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        out: list[Any] = []
        depth = 0
        for child in block.children:
            depth += 1 if child.type == "link_open" else -1 if child.type == "link_close" else 0
            if child.type != "text" or depth or not _BARE_URL.search(child.content):
                out.append(child)
                continue
            pos = 0
            for m in _BARE_URL.finditer(child.content):
                out.append(_text(Token, child.content[pos : m.start()]))
                link = Token("link_open", "a", 1)
                link.attrSet("href", m.group(0))
                out += [link, _text(Token, m.group(0)), Token("link_close", "a", -1)]
                pos = m.end()
            out.append(_text(Token, child.content[pos:]))
        block.children = out


def _text(token_class: Any, content: str) -> Any:
    token = token_class("text", "", 0)
    token.content = content
    return token


def _renderer() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")

    def link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        href = str(token.attrGet("href") or "")
        if re.match(r"(?i)^https?://", href):
            token.attrSet("target", "_blank")
            token.attrSet("rel", REL)
            token.attrSet("title", f"{_domain(href)} (opens in a new tab)")
        elif not href.startswith("#"):
            token.attrSet("href", "#")  # relative or other schemes: nowhere
        return str(self.renderToken(tokens, idx, options, env))

    def image(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = html.escape(token.content or "image")
        if re.match(r"(?i)^https?://", src):
            return (
                f'<a href="{html.escape(src, quote=True)}" target="_blank" rel="{REL}">image: {alt}</a> '
                f'<span class="hwqa-domain">({html.escape(_domain(src))})</span>'
            )
        return f"(image: {alt})"

    def link_close(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        opener = next((t for t in reversed(tokens[:idx]) if t.type == "link_open"), None)
        href = str(opener.attrGet("href") or "") if opener is not None else ""
        shown = "".join(t.content for t in tokens[tokens.index(opener) + 1 : idx]) if opener is not None else ""
        domain = f' <span class="hwqa-domain">({html.escape(_domain(href))})</span>' if _domain(href) and shown != href else ""
        return "</a>" + domain

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("link_close", link_close)
    md.core.ruler.push("hwqa_bare_urls", _link_bare_urls)
    md.add_render_rule("image", image)
    return md


def note_page(text: str, rel: str, quote: str = "", section: str = "") -> str:
    """The note ``rel`` (its file ``text``) as a standalone HTML page, the cited lines marked."""
    note = parse_note(text, rel)
    md = _renderer()
    env: dict[str, Any] = {}
    tokens = md.parse(note.body, env)
    marked = cited_lines(note.body, quote, section) if quote else set()
    innermost: dict[int, int] = {}  # cited line -> the index of the smallest block holding it
    for k, token in enumerate(tokens):
        if token.type not in _MARKED or not token.map or not token.block or token.hidden:
            continue  # a tight list's paragraphs are not drawn: their item is marked
        start, end = token.map
        for i in marked.intersection(range(start, end)):
            held = innermost.get(i)
            if held is None or end - start <= tokens[held].map[1] - tokens[held].map[0]:
                innermost[i] = k
    first = True
    for k in sorted(set(innermost.values())):
        tokens[k].attrJoin("class", "hwqa-cited")
        if first:
            tokens[k].attrSet("id", "hwqa-cited")
            first = False
    body = md.renderer.render(tokens, md.options, env)
    title = html.escape(note.title or rel)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="referrer" content="no-referrer"><title>{title} — hwqa</title><style>{STYLE}</style></head>'
        f"<body><header><p>{title} · {html.escape(rel)} · from your notes</p></header><main>\n{body}</main></body></html>"
    )
