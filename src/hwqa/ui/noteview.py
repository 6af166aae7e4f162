"""The note viewer: one indexed note as a web page, rendered from Markdown, the cited lines marked.

The page shows the note's body (never its front matter) rendered by markdown-it with raw HTML
off, so a note's ``<script>`` or ``<img>`` is shown as text. Images become links (nothing is
loaded), every link is an ``<a>`` that opens in a new tab without a referrer, and the response
carries a Content-Security-Policy that lets the page load nothing and run nothing.

The cited lines are found from what the answer quoted: a line of the note is cited when its
words appear, in order, in the cited passage (``q``), within the cited section (``s``) if there is
one. The first cited block gets ``id="hwqa-cited"``, which the link's ``#hwqa-cited`` scrolls to.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from ..notes import parse_note
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


def cited_lines(body: str, quote: str, section: str = "") -> set[int]:
    """The 0-based lines of ``body`` whose words appear, in order, in ``quote`` (in ``section``, if found)."""
    passage = " " + " ".join(_words(quote)) + " "
    if not passage.strip():
        return set()
    lines = body.splitlines()
    found = set()
    for wanted in (_section_lines(lines, section), range(len(lines))):
        for i in wanted:
            words = _words(lines[i])
            if len(words) >= _MIN_WORDS and f" {' '.join(words)} " in passage:
                found.add(i)
        if found:
            break
    return found


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
    first = True
    for token in tokens:
        if token.nesting != 1 or not token.map or not token.block:
            continue
        start, end = token.map
        container = token.type in ("list_item_open", "blockquote_open") and end - start > 1  # its lines are marked
        if token.type in _MARKED and not container and any(i in marked for i in range(start, end)):
            token.attrJoin("class", "hwqa-cited")
            if first:
                token.attrSet("id", "hwqa-cited")
                first = False
    body = md.renderer.render(tokens, md.options, env)
    title = html.escape(note.title or rel)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="referrer" content="no-referrer"><title>{title} — hwqa</title><style>{STYLE}</style></head>'
        f"<body><header><p>{title} · {html.escape(rel)} · from your notes</p></header><main>\n{body}</main></body></html>"
    )
