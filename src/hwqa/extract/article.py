"""The entry points: a fetched page (HTML or plain text) to an :class:`Article` in Markdown."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from bs4 import BeautifulSoup

from .boilerplate import clean, main_root
from .filter import HEADING_LINE_RE, filter_blocks, squash, trafilatura_markdown
from .hidden import strip_invisible
from .render import Renderer, collapse, signature_entries
from .titles import fragment_target, page_title, slugify

__all__ = ["EXTRACTOR_VERSION", "Article", "Extractor", "extract_article", "html_to_markdown"]

# Bumped whenever extraction changes what a page yields, so a build reads cached pages again
# instead of reusing the chunks an older extractor made of them.
# 3: GitBook/HonKit text inside #book-search-results kept; 5: definition lists (and Doxygen members)
# as terms and ": " definitions; 7: a function's text after its unmarked signature as an entry of it,
# a sentence going on after the prototype it introduces as one paragraph; 9: Doxygen code fragments as code blocks
EXTRACTOR_VERSION = 9

Extractor = Literal["html", "html+trafilatura", "text"]


@dataclass
class Article:
    """The main text of one page.

    ``markdown`` holds ``#`` headings, paragraphs, ``-`` list items and Markdown tables in reading
    order. ``preferred_heading`` is the text of the heading of the section the URL fragment names,
    when that section exists in ``markdown`` (``None`` otherwise). ``extractor`` says what produced
    the text: the BeautifulSoup renderer (``"html"``), that renderer with blocks chosen by
    trafilatura (``"html+trafilatura"``), or the plain-text path (``"text"``).
    """

    url: str
    title: str
    markdown: str
    preferred_heading: str | None = None
    extractor: Extractor = "html"
    hidden_dropped: int = 0  # hidden elements, comments and invisible characters left out


def _parse_html(text: str) -> BeautifulSoup:
    try:
        return BeautifulSoup(text, "lxml")
    except Exception:  # lxml missing: the stdlib parser is slower but fine
        return BeautifulSoup(text, "html.parser")


def html_to_markdown(html: str) -> str:
    """Clean ``html`` (boilerplate and hidden elements dropped) and render the main content."""
    soup = _parse_html(html)
    clean(soup)
    return "\n\n".join(signature_entries(Renderer().blocks(main_root(soup))))


def _plain_article(text: str, url: str, fragment: str | None) -> Article:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text, hidden = strip_invisible(text)
    lines = text.split("\n")
    title = url
    for i, line in enumerate(lines):
        if line.strip():
            if len(line.strip()) <= 120:
                title = collapse(line)
                del lines[i]
            break
    body = "\n".join("\\" + ln if ln.lstrip().startswith("#") else ln for ln in lines).strip()
    markdown = f"# {title}\n\n{body}" if body else f"# {title}"
    return Article(url=url, title=title, markdown=markdown, preferred_heading=None, extractor="text", hidden_dropped=hidden)


def _looks_like_html(text: str) -> bool:
    head = text[:2048].lstrip("\ufeff \t\r\n").lower()
    return head.startswith(("<!doctype html", "<html", "<head", "<body", "<!--")) or bool(
        re.match(r"<(?:div|p|h[1-6]|title|meta|table|article|main|section)[\s>]", head)
    )


def extract_article(text: str, content_type: str | None, url: str, fragment: str | None = None) -> Article:
    """Extract the article from a page body.

    ``content_type`` is the page's MIME type (parameters allowed); when it is missing the body is
    sniffed. ``fragment`` is the URL fragment the note linked to; the heading of that section, if
    it survives extraction, becomes ``preferred_heading``.
    """
    mime = (content_type or "").split(";")[0].strip().lower()
    if mime in ("text/plain", "text/markdown", "text/x-markdown") or (not mime and not _looks_like_html(text)):
        return _plain_article(text, url, fragment)

    soup = _parse_html(text)
    title = strip_invisible(page_title(soup, url))[0]
    target = fragment_target(soup, fragment) if fragment else None
    hidden = clean(soup)
    renderer = Renderer()
    root = main_root(soup)
    try:
        blocks = renderer.blocks(root)
    except RecursionError:  # absurdly deep markup: keep the words, lose the structure
        blocks = [collapse(p) for p in root.get_text("\n").split("\n\n") if p.strip()]
    extractor: Extractor = "html"

    if root.name == "body" or root is soup:
        # No <main>/<article>: let trafilatura (run on the already cleaned page, so removed
        # boilerplate cannot return) decide which of our blocks are content.
        reference = trafilatura_markdown(str(soup), url)
        if reference:
            kept = filter_blocks(blocks, reference)
            total = sum(len(squash(b)) for b in blocks)
            if kept and sum(len(squash(b)) for b in kept) >= 0.3 * total:
                blocks, extractor = kept, "html+trafilatura"
    blocks = signature_entries(blocks)  # (after the filter: trafilatura's text has no entries to compare with)
    markdown = "\n\n".join(blocks)

    preferred: str | None = None
    if fragment:
        present = {b.lstrip("#").strip() for b in blocks if HEADING_LINE_RE.match(b)}
        if target is not None and renderer.headings.get(id(target)) in present:
            preferred = renderer.headings[id(target)]
        else:
            wanted = unquote(fragment).lower()
            preferred = next((h for h in renderer.heading_order if h in present and slugify(h) == wanted), None)
    return Article(
        url=url, title=title, markdown=markdown, preferred_heading=preferred, extractor=extractor, hidden_dropped=hidden
    )
