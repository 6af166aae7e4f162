"""Turn a fetched page into the article a reader came for, as Markdown.

HTML is parsed with BeautifulSoup. Everything that is not the article is removed first: scripts,
styles, forms, frames, navigation, site headers and footers, sidebars, comments, cookie/consent
banners and other boilerplate recognised by tag, ARIA role or class/id, and hidden elements
(see :mod:`hwqa.extract_clean` and :mod:`hwqa.extract_hidden`, which count the hidden text
left out). The main content
(``<main>``, ``role="main"`` or the ``<article>``, when there is one) is then rendered in reading
order: ``#`` headings, paragraphs, ``-`` / ``1.`` list items, Markdown tables, fenced code and
``>`` quotes. On pages without ``<main>``/``<article>``, trafilatura (when installed) is run on
the same *cleaned* document, so removed boilerplate cannot come back, and only the blocks it also
judges to be content are kept: our rendering supplies the structure, trafilatura the judgement.

Plain-text pages become a single section titled by their first line (or their URL).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from bs4 import BeautifulSoup
from bs4.element import NavigableString, PageElement, PreformattedString, Tag

from .extract_clean import HEADINGS, PROTECTED, clean, main_root
from .extract_clean import attr_text as _attr_text
from .extract_clean import elements as _elements
from .extract_clean import has_descendant as _has_descendant
from .extract_filter import HEADING_LINE_RE as _HEADING_LINE_RE
from .extract_filter import filter_blocks as _filter_blocks
from .extract_filter import squash as _squash
from .extract_filter import trafilatura_markdown as _trafilatura_markdown
from .extract_hidden import strip_invisible

__all__ = ["EXTRACTOR_VERSION", "Article", "extract_article", "html_to_markdown", "slugify"]

# Bumped whenever extraction changes what a page yields, so a build reads cached pages again
# instead of reusing the chunks an older extractor made of them.
EXTRACTOR_VERSION = 3  # 3: GitBook/HonKit text inside #book-search-results kept

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


# --------------------------------------------------------------------------------------------
# What the renderer treats as inline text and as blocks

_HEADINGS = HEADINGS
_PROTECTED = PROTECTED
_INLINE = frozenset(
    {
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "cite",
        "code",
        "data",
        "dfn",
        "em",
        "font",
        "i",
        "kbd",
        "label",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
        "del",
        "ins",
        "strike",
        "big",
        "wbr",
        "img",
        "picture",
        "source",
        "nobr",
        "acronym",
    }
)
_BLOCKISH = frozenset({"p", "div", "ul", "ol", "table", "pre", "blockquote", "section", "dl", *_HEADINGS})
# A table whose cells hold headings or tables lays out a page; one whose cells hold a paragraph
# or a short list (Sphinx writes <td><p>..</p></td>) is data.
_LAYOUT_CELL = frozenset({"table", *_HEADINGS})
_CELL_BLOCKS = frozenset({"p", "ul", "ol", "pre", "blockquote", "div", "dl"})


# --------------------------------------------------------------------------------------------
# Rendering


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _escape_para(text: str) -> str:
    return "\\" + text if text.startswith("#") else text


def _nearest_table(tag: Tag) -> Tag | None:
    parent = tag.parent
    while parent is not None and parent.name != "table":
        parent = parent.parent
    return parent


def _is_layout_cell(cell: Tag) -> bool:
    """A cell that holds a page section rather than a value: headings, nested tables, or a lot
    of text in several blocks."""
    if _has_descendant(cell, _LAYOUT_CELL):
        return True
    blocks = [c for c in cell.children if isinstance(c, Tag) and c.name in _CELL_BLOCKS]
    return len(blocks) >= 3 or (len(blocks) >= 2 and len(_collapse(cell.get_text(" "))) > 400)


class _Renderer:
    """Renders cleaned HTML to Markdown blocks, remembering which heading tags it wrote."""

    def __init__(self) -> None:
        self.headings: dict[int, str] = {}
        self.heading_order: list[str] = []

    def render(self, root: Tag) -> str:
        return "\n\n".join(self.blocks(root))

    def blocks(self, root: Tag) -> list[str]:
        """The Markdown blocks (heading, paragraph, list, table, code, quote) in reading order."""
        out: list[str] = []
        self._children(root, out)
        return [b for b in out if b.strip()]

    # -- inline

    def _inline(self, node: PageElement) -> str:
        if isinstance(node, PreformattedString):
            return ""
        if isinstance(node, NavigableString):
            return str(node)
        if not isinstance(node, Tag):
            return ""
        if node.name == "br":
            return " "
        if node.name in ("img", "picture", "source", "wbr"):
            return ""
        if node.name == "code":  # (<pre> is rendered as a block, never inline)
            text = _collapse(node.get_text())
            return f"`{text}`" if text else ""
        return "".join(self._inline(c) for c in node.children)

    def _has_block(self, tag: Tag) -> bool:
        return _has_descendant(tag, _BLOCKISH)

    # -- blocks

    def _children(self, node: Tag, out: list[str]) -> None:
        buf: list[str] = []

        def flush() -> None:
            text = _collapse("".join(buf))
            buf.clear()
            if text:
                out.append(_escape_para(text))

        for child in node.children:
            if isinstance(child, PreformattedString):
                continue
            if isinstance(child, NavigableString):
                buf.append(str(child))
                continue
            if not isinstance(child, Tag):
                continue
            if child.name in _INLINE and not self._has_block(child):
                buf.append(self._inline(child))
                continue
            flush()
            self._block(child, out)
        flush()

    def _block(self, tag: Tag, out: list[str]) -> None:
        name = tag.name
        if name in _HEADINGS:
            text = _collapse(self._inline(tag))
            if text:
                out.append("#" * int(name[1]) + " " + text)
                self.headings[id(tag)] = text
                self.heading_order.append(text)
        elif name in ("ul", "ol"):
            block = self._list(tag)
            if block:
                out.append(block)
        elif name == "table":
            self._table(tag, out)
        elif name == "pre":
            text = tag.get_text().strip("\n")
            if text.strip():
                fence = "````" if "```" in text else "```"
                lang = ""
                code = tag.find("code")
                for cls in (_attr_text(code, "class") if isinstance(code, Tag) else "").split() + _attr_text(
                    tag, "class"
                ).split():
                    if cls.startswith(("language-", "lang-")):
                        lang = cls.split("-", 1)[1]
                        break
                out.append(f"{fence}{lang}\n{text}\n{fence}")
        elif name == "blockquote":
            inner: list[str] = []
            self._children(tag, inner)
            if inner:
                text = "\n\n".join(inner)
                out.append("\n".join("> " + ln if ln else ">" for ln in text.splitlines()))
        elif name == "hr":
            return
        else:
            self._children(tag, out)

    def _list(self, tag: Tag, depth: int = 0) -> str:
        ordered = tag.name == "ol"
        try:
            number = int(_attr_text(tag, "start") or 1)
        except ValueError:
            number = 1
        lines: list[str] = []
        items = [li for li in tag.children if isinstance(li, Tag) and li.name == "li"]
        if not items:  # malformed list: render whatever is inside as blocks
            blocks: list[str] = []
            self._children(tag, blocks)
            return "\n\n".join(blocks)
        for li in items:
            marker = f"{number}." if ordered else "-"
            number += 1
            parts: list[str] = []
            self._children(li, parts)
            if not parts:
                continue
            pad = " " * (len(marker) + 1)
            first, *rest = parts
            first_lines = first.splitlines()
            lines.append(f"{marker} {first_lines[0]}")
            lines.extend(pad + ln for ln in first_lines[1:])
            for part in rest:
                lines.extend(pad + ln if ln else "" for ln in part.splitlines())
        return "\n".join(lines)

    def _cell_text(self, cell: Tag) -> str:
        """One line for a data cell: its paragraphs and list items joined by spaces."""
        if not self._has_block(cell):
            return _collapse(self._inline(cell))
        parts: list[str] = []
        self._children(cell, parts)
        lines = (ln for part in parts for ln in part.splitlines() if not ln.startswith("```"))
        return _collapse(" ".join(re.sub(r"^\s*(?:-|\d+\.|>)\s+", "", ln) for ln in lines))

    def _table(self, table: Tag, out: list[str]) -> None:
        rows = [tr for tr in table.find_all("tr") if _nearest_table(tr) is table]
        cells_by_row = [[c for c in tr.children if isinstance(c, Tag) and c.name in ("th", "td")] for tr in rows]
        cells_by_row = [r for r in cells_by_row if r]
        caption = next((c for c in table.children if isinstance(c, Tag) and c.name == "caption"), None)
        layout = any(_is_layout_cell(c) for row in cells_by_row for c in row)
        layout = layout or (bool(cells_by_row) and max(len(r) for r in cells_by_row) == 1)
        if layout or not cells_by_row:
            self._children(table, out)  # a layout table: its cells are ordinary content
            return
        if isinstance(caption, Tag):
            text = _collapse(self._inline(caption))
            if text:
                out.append(_escape_para(text))
        grid: list[list[str]] = []
        for row in cells_by_row:
            values: list[str] = []
            for cell in row:
                text = self._cell_text(cell).replace("|", "\\|")
                values.append(text)
                try:
                    span = int(_attr_text(cell, "colspan") or 1)
                except ValueError:
                    span = 1
                values.extend([""] * (min(span, 50) - 1))
            grid.append(values)
        width = max(len(r) for r in grid)
        grid = [r + [""] * (width - len(r)) for r in grid]
        if all(not v for r in grid for v in r):
            return
        lines = ["| " + " | ".join(grid[0]) + " |", "|" + "|".join([" --- "] * width) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in grid[1:]]
        out.append("\n".join(lines))


# --------------------------------------------------------------------------------------------
# Titles and fragments


def slugify(text: str) -> str:
    """GitHub-style heading anchor: lower-case, punctuation dropped, spaces to hyphens."""
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _title(soup: BeautifulSoup, url: str) -> str:
    elements = _elements(soup)
    for tag in elements:
        if tag.name == "meta" and _attr_text(tag, "property").strip().lower() == "og:title":
            content = _collapse(_attr_text(tag, "content"))
            if content:
                return content
    for name in ("title", "h1"):
        for tag in elements:
            if tag.name == name and tag.find_parent("svg") is None:
                text = _collapse(tag.get_text(" "))
                if text:
                    return text
                break
    return url


def _fragment_target(soup: BeautifulSoup, fragment: str) -> Tag | None:
    """The heading tag of the section the fragment points at (before any cleaning)."""
    frag = unquote(fragment)
    target: Tag | None = None
    elements = _elements(soup)
    for candidate in (frag, f"user-content-{frag}", frag.lower()):
        target = next((t for t in elements if _attr_text(t, "id") == candidate), None) or next(
            (t for t in elements if _attr_text(t, "name") == candidate), None
        )
        if target is not None:
            break
    if target is None:
        return None
    if target.name in _HEADINGS:
        return target
    parent = target.find_parent(list(_HEADINGS))
    if isinstance(parent, Tag):
        return parent
    inner = target.find(list(_HEADINGS))
    if isinstance(inner, Tag):
        return inner
    if not target.get_text(strip=True):
        # An empty anchor. GitHub wraps it with its heading (<div><h2>..</h2><a id=..>);
        # older pages put it just before the heading.
        wrapper = target.parent
        if isinstance(wrapper, Tag) and wrapper.name not in _PROTECTED | {"section"}:
            heads = wrapper.find_all(list(_HEADINGS))
            if len(heads) == 1 and _collapse(wrapper.get_text(" ")) == _collapse(heads[0].get_text(" ")):
                return heads[0]
        nxt = target.find_next(list(_HEADINGS))
        return nxt if isinstance(nxt, Tag) else None
    prev_heading = target.find_previous(list(_HEADINGS))
    return prev_heading if isinstance(prev_heading, Tag) else None


# --------------------------------------------------------------------------------------------
# Public API


def _parse_html(text: str) -> BeautifulSoup:
    try:
        return BeautifulSoup(text, "lxml")
    except Exception:  # lxml missing: the stdlib parser is slower but fine
        return BeautifulSoup(text, "html.parser")


def html_to_markdown(html: str) -> str:
    """Clean ``html`` (boilerplate and hidden elements dropped) and render the main content."""
    soup = _parse_html(html)
    clean(soup)
    return _Renderer().render(main_root(soup))


def _plain_article(text: str, url: str, fragment: str | None) -> Article:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text, hidden = strip_invisible(text)
    lines = text.split("\n")
    title = url
    for i, line in enumerate(lines):
        if line.strip():
            if len(line.strip()) <= 120:
                title = _collapse(line)
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
    title = strip_invisible(_title(soup, url))[0]
    target = _fragment_target(soup, fragment) if fragment else None
    hidden = clean(soup)
    renderer = _Renderer()
    root = main_root(soup)
    try:
        blocks = renderer.blocks(root)
    except RecursionError:  # absurdly deep markup: keep the words, lose the structure
        blocks = [_collapse(p) for p in root.get_text("\n").split("\n\n") if p.strip()]
    extractor: Extractor = "html"

    if root.name == "body" or root is soup:
        # No <main>/<article>: let trafilatura (run on the already cleaned page, so removed
        # boilerplate cannot return) decide which of our blocks are content.
        reference = _trafilatura_markdown(str(soup), url)
        if reference:
            kept = _filter_blocks(blocks, reference)
            total = sum(len(_squash(b)) for b in blocks)
            if kept and sum(len(_squash(b)) for b in kept) >= 0.3 * total:
                blocks, extractor = kept, "html+trafilatura"
    markdown = "\n\n".join(blocks)

    preferred: str | None = None
    if fragment:
        present = {b.lstrip("#").strip() for b in blocks if _HEADING_LINE_RE.match(b)}
        if target is not None and renderer.headings.get(id(target)) in present:
            preferred = renderer.headings[id(target)]
        else:
            wanted = unquote(fragment).lower()
            preferred = next((h for h in renderer.heading_order if h in present and slugify(h) == wanted), None)
    return Article(
        url=url, title=title, markdown=markdown, preferred_heading=preferred, extractor=extractor, hidden_dropped=hidden
    )
