"""Turn a fetched page into the article a reader came for, as Markdown.

HTML is parsed with BeautifulSoup. Everything that is not the article is removed first: scripts,
styles, forms, frames, navigation, site headers and footers, sidebars, comments, cookie/consent
banners and other boilerplate recognised by tag, ARIA role or class/id, and hidden elements
(``hidden``, ``aria-hidden="true"``, ``display:none``, ``visibility:hidden``). The main content
(``<main>``, ``role="main"`` or the ``<article>``, when there is one) is then rendered in reading
order: ``#`` headings, paragraphs, ``-`` / ``1.`` list items, Markdown tables, fenced code and
``>`` quotes. On pages without ``<main>``/``<article>``, trafilatura (when installed) is run on
the same *cleaned* document, so removed boilerplate cannot come back, and only the blocks it also
judges to be content are kept: our rendering supplies the structure, trafilatura the judgement.

Plain-text pages become a single section titled by their first line (or their URL).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from bs4 import BeautifulSoup
from bs4.element import NavigableString, PageElement, PreformattedString, Tag

__all__ = ["Article", "extract_article", "html_to_markdown", "slugify"]

log = logging.getLogger(__name__)

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


# --------------------------------------------------------------------------------------------
# What counts as boilerplate

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_HEADING_SET = frozenset(_HEADINGS)
_ALWAYS_DROP = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "form",
        "svg",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "canvas",
        "nav",
        "aside",
        "button",
        "input",
        "select",
        "textarea",
        "dialog",
        "link",
        "meta",
        "head",
        "menu",
        "audio",
        "video",
        "map",
        "math",
    }
)
_DROP_ROLES = frozenset(
    {
        "navigation",
        "banner",
        "contentinfo",
        "complementary",
        "search",
        "dialog",
        "alertdialog",
        "menu",
        "menubar",
        "toolbar",
        "tablist",
        "tooltip",
    }
)
# Matched anywhere inside a class or id ("cookieNotice", "gdpr-overlay", "site-sidebar").
_BOILER_SUBSTRINGS = (
    "cookie",
    "consent",
    "gdpr",
    "newsletter",
    "subscribe",
    "breadcrumb",
    "sidebar",
    "advert",
    "sponsor",
    "paywall",
    "popup",
    "social",
    "skiplink",
    "skip-link",
    "signup",
    "sign-up",
    "screen-reader",
    "sr-only",
    "visually-hidden",
    "visuallyhidden",
    "pagination",
)
# Matched as whole words of a class or id ("share-buttons", "menu", "ad", "related posts").
# Whole words of a class or id that surely mean boilerplate ("related-posts", "comments").
_BOILER_TOKENS = frozenset(
    {
        "related",
        "comments",
        "comment",
        "footer",
        "masthead",
        "navbar",
        "nav",
        "toolbar",
        "disqus",
        "outbrain",
        "taboola",
        "sharer",
        "breadcrumbs",
    }
)
# Whole words that often mean boilerplate but also appear on content ("share-enabled",
# "hero-banner"): such an element goes only if it is mostly links, or short prose without a
# heading.
_WEAK_TOKENS = frozenset({"banner", "menu", "share", "sharing", "ad", "ads", "promo", "modal", "overlay", "widget", "tags"})
# Whole class names that hide an element (utility CSS).
_HIDING_CLASSES = frozenset({"hidden", "d-none", "is-hidden", "invisible", "hide", "print-only"})
_PROTECTED = frozenset({"html", "body", "main", "article"})
_HIDDEN_STYLE_RE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.I)
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
_LAYOUT_CELL = frozenset({"p", "ul", "ol", "table", "pre", "blockquote", *_HEADINGS})


def _has_descendant(tag: Tag, names: frozenset[str]) -> bool:
    """Whether any element below ``tag`` has one of ``names`` (faster than ``Tag.find``)."""
    return any(isinstance(d, Tag) and d.name in names for d in tag.descendants)


def _tokens(value: str) -> list[str]:
    value = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", value)
    return [t for t in re.split(r"[^a-z0-9]+", value.lower()) if t]


def _attr_text(tag: Tag, name: str) -> str:
    value = tag.get(name)
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(value)
    return str(value)


def _is_hidden(tag: Tag) -> bool:
    if tag.has_attr("hidden"):
        return True
    if _attr_text(tag, "aria-hidden").strip().lower() == "true":
        return True
    if tag.name == "input" and _attr_text(tag, "type").lower() == "hidden":
        return True
    classes = _attr_text(tag, "class").split()
    if any(c in _HIDING_CLASSES for c in classes) and not any(
        ":" in c and c.split(":")[-1] in ("block", "flex", "grid", "inline", "inline-block", "table", "d-block") for c in classes
    ):
        return True
    return bool(_HIDDEN_STYLE_RE.search(_attr_text(tag, "style")))


def _boilerplate_name(tag: Tag) -> Literal["strong", "weak"] | None:
    """How surely the element's class/id names it boilerplate: "strong", "weak" or not at all."""
    names = f"{_attr_text(tag, 'class')} {_attr_text(tag, 'id')}"
    if not names.strip():
        return None
    lowered = names.lower()
    if any(s in lowered for s in _BOILER_SUBSTRINGS):
        return "strong"
    toks = set(_tokens(names))
    if toks & _BOILER_TOKENS:
        return "strong"
    if toks & {"header", "masthead", "topbar"} and not _inside_main(tag):
        return "strong"  # <div id="header"> is a site header unless inside the article
    if toks & _WEAK_TOKENS:
        return "weak"
    return None


def _text_len(node: Tag) -> int:
    return len(" ".join(node.get_text(" ").split()))


def _link_text_len(node: Tag) -> int:
    return sum(len(" ".join(a.get_text(" ").split())) for a in node.find_all("a"))


def _elements(root: Tag) -> list[Tag]:
    """Every element below ``root`` in document order (much faster than ``find_all(True)``)."""
    return [d for d in root.descendants if isinstance(d, Tag)]


def _is_main_like(tag: Tag) -> bool:
    return tag.name in ("main", "article") or _attr_text(tag, "role").strip().lower() == "main"


def _main_ancestors(soup: BeautifulSoup) -> set[int]:
    """ids of every element that contains a <main>, <article> or role=main element."""
    mains = [t for t in _elements(soup) if _is_main_like(t)]
    found: set[int] = set()
    for m in mains:
        for parent in m.parents:
            if id(parent) in found:
                break
            found.add(id(parent))
    return found


def _inside_main(tag: Tag) -> bool:
    return any(_is_main_like(p) for p in tag.parents)


def _gone(tag: Tag) -> bool:
    # (Tag.decomposed would search the subtree for a <_decomposed> tag: O(n) per call.)
    return bool(vars(tag).get("_decomposed", False))


def _clean(soup: BeautifulSoup) -> None:
    """Remove everything that is not article content, in place.

    First by structure (tags, ARIA roles, hidden elements), then by class/id names. The name
    heuristics are guarded: an element holding more than half of the page's text is only dropped
    if it is mostly links, and if the heuristics together would remove more than half of the
    text, only the link-heavy candidates go (the names were evidently not boilerplate here).
    """
    for node in soup.find_all(string=lambda s: isinstance(s, PreformattedString)):
        node.extract()  # comments, doctype, CDATA, processing instructions
    body = soup.body or soup

    holders = _main_ancestors(soup)
    total = max(_text_len(body), 1)

    def structural(t: Tag) -> bool:
        name = t.name
        if name in _PROTECTED:
            return False
        if name in _ALWAYS_DROP:
            if name == "head":
                return True
            if id(t) in holders:
                return False
            # Some sites wrap the whole page in one <form> (ASP.NET): that is content.
            return not (name == "form" and _text_len(t) > 0.5 * total)
        if _is_hidden(t):
            return True
        if _attr_text(t, "role").strip().lower() in _DROP_ROLES:
            return id(t) not in holders
        if name == "footer":
            return id(t) not in holders
        if name == "header":
            # A site header goes; an article's own header (title, date) stays.
            return id(t) not in holders and not _inside_main(t)
        return False

    for tag in _elements(soup):
        if not _gone(tag) and structural(tag):
            tag.decompose()

    holders = _main_ancestors(soup)
    total = max(_text_len(body), 1)

    chosen: list[tuple[Tag, int, bool]] = []  # (element, text outside links, mostly links)
    chosen_ids: set[int] = set()
    for tag in _elements(soup):
        if tag.name in _PROTECTED or _is_main_like(tag) or id(tag) in holders:
            continue
        kind = _boilerplate_name(tag)
        if kind is None or any(id(p) in chosen_ids for p in tag.parents):
            continue
        size = _text_len(tag)
        in_links = _link_text_len(tag)
        linky = in_links > 0.5 * size if size else True
        if kind == "weak":
            wanted = linky or (size - in_links < 200 and not _has_descendant(tag, _HEADING_SET))
        else:
            wanted = size < 0.5 * total or linky
        if wanted:
            chosen.append((tag, max(size - in_links, 0), linky))
            chosen_ids.add(id(tag))
    # Boilerplate is mostly links; if these elements hold most of the page's prose, their
    # names misled us (e.g. every section is class="share-enabled"): keep all but the menus.
    prose = max(total - _link_text_len(body), 1)
    if sum(plain for _, plain, _ in chosen) > 0.5 * prose:
        chosen = [c for c in chosen if c[2]]
    for tag, _, _ in chosen:
        tag.decompose()


def _main_root(soup: BeautifulSoup) -> Tag:
    """The element holding the article: <main>/role=main, else the <article>, else <body>."""
    body = soup.body or soup
    body_len = max(_text_len(body), 1)
    elements = _elements(body)
    mains = [t for t in elements if t.name != "article" and _is_main_like(t)]
    if mains:
        best = max(mains, key=_text_len)
        size = _text_len(best)
        if size >= 200 or size >= 0.25 * body_len:
            return best
    articles = [a for a in elements if a.name == "article" and a.find_parent("article") is None]
    if articles:
        best = max(articles, key=_text_len)
        size = _text_len(best)
        share = size / max(sum(_text_len(a) for a in articles), 1)
        if (len(articles) == 1 or share >= 0.5) and (size >= 200 or size >= 0.25 * body_len):
            return best
    return body


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

    def _table(self, table: Tag, out: list[str]) -> None:
        rows = [tr for tr in table.find_all("tr") if _nearest_table(tr) is table]
        cells_by_row = [[c for c in tr.children if isinstance(c, Tag) and c.name in ("th", "td")] for tr in rows]
        cells_by_row = [r for r in cells_by_row if r]
        caption = next((c for c in table.children if isinstance(c, Tag) and c.name == "caption"), None)
        layout = any(_has_descendant(c, _LAYOUT_CELL) for row in cells_by_row for c in row)
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
                text = _collapse(self._inline(cell)).replace("|", "\\|")
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
# trafilatura (optional helper)


def _trafilatura_markdown(html: str, url: str) -> str | None:
    try:
        import trafilatura
    except Exception as exc:  # ImportError, or a broken optional dependency of trafilatura
        log.debug("trafilatura unavailable: %s", exc)
        return None
    try:
        result = trafilatura.extract(
            html,
            url=url,
            output_format="markdown",
            include_tables=True,
            include_comments=False,
            include_links=False,
            include_images=False,
            include_formatting=True,
            favor_recall=True,
        )
    except Exception as exc:
        log.debug("trafilatura failed on %s: %s", url, exc)
        return None
    return result if isinstance(result, str) and result.strip() else None


def _squash(text: str) -> str:
    """Letters and digits only, lower-case: compares text across different Markdown renderings."""
    return re.sub(r"[\W_]+", "", text.lower())


_HEADING_LINE_RE = re.compile(r"^#{1,6} ")
_TABLE_RULE_RE = re.compile(r"^\|(?: --- \|)+$")


def _block_units(block: str) -> list[str]:
    """The pieces of a block that must be found in the reference text for it to be kept."""
    lines = block.splitlines()
    if block.startswith("|"):
        cells = [c for ln in lines if not _TABLE_RULE_RE.match(ln) for c in re.split(r"(?<!\\)\|", ln)]
        return [c for c in (c.strip() for c in cells) if c]
    if re.match(r"^(?:-|\d+\.) ", block):
        return [re.sub(r"^\s*(?:-|\d+\.) ", "", ln) for ln in lines if ln.strip()]
    if block.startswith("```"):
        return ["\n".join(lines[1:-1])]
    return [re.sub(r"^(?:> ?)+", "", block, flags=re.M)]


def _filter_blocks(blocks: list[str], reference: str) -> list[str]:
    """Keep the blocks whose text trafilatura also judged to be content.

    Our rendering keeps the structure (headings, tables, lists); trafilatura is better at telling
    content from leftover chrome on pages without ``<main>``/``<article>``. A block is kept when
    most of its pieces occur in trafilatura's text; a heading is kept when the block after it is.
    """
    ref = _squash(reference)
    keep: list[bool] = []
    for block in blocks:
        if _HEADING_LINE_RE.match(block):
            keep.append(False)  # decided below
            continue
        units = [u for u in (_squash(u) for u in _block_units(block)) if u]
        found = sum(1 for u in units if u in ref)
        keep.append(bool(units) and found >= 0.5 * len(units))
    for i, block in enumerate(blocks):
        if _HEADING_LINE_RE.match(block):
            following = next((j for j in range(i + 1, len(blocks)) if not _HEADING_LINE_RE.match(blocks[j])), None)
            keep[i] = following is not None and keep[following]
    # The page's first heading is usually the title: trafilatura keeps it as metadata only.
    first = next((i for i, b in enumerate(blocks) if _HEADING_LINE_RE.match(b)), None)
    if first is not None and any(keep[first + 1 :]):
        keep[first] = True
    return [b for b, k in zip(blocks, keep, strict=True) if k]


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
    _clean(soup)
    return _Renderer().render(_main_root(soup))


def _plain_article(text: str, url: str, fragment: str | None) -> Article:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
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
    return Article(url=url, title=title, markdown=markdown, preferred_heading=None, extractor="text")


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
    title = _title(soup, url)
    target = _fragment_target(soup, fragment) if fragment else None
    _clean(soup)
    renderer = _Renderer()
    root = _main_root(soup)
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
    return Article(url=url, title=title, markdown=markdown, preferred_heading=preferred, extractor=extractor)
