"""Everything on a page that is not the article: recognised and removed before rendering.

Three passes over the parsed page, each guarded so that it cannot take the article with it:

1. Structure: scripts, styles, forms, frames, ``<nav>``, ``<aside>``, buttons, dialogs, ARIA
   landmarks that are not content (``navigation``, ``banner``, ``contentinfo``, ``search``,
   ``dialog`` ...), site headers and footers, and hidden text (see :mod:`hwqa.extract.hidden`);
   hidden text is counted.
2. Names: the chrome of documentation generators and blog platforms by their class/id names
   (mdBook, Sphinx and its themes, MkDocs Material, Docusaurus, GitBook, Hugo themes, Medium,
   WordPress: see :mod:`hwqa.extract.names`), then generic boilerplate names (sidebar, cookie,
   breadcrumbs, toc, comments ...). An ``id`` that is only the slug of the element's heading (Sphinx's
   ``<section id="related-work">``) is not a name. Generic names are trusted less: such an
   element holding most of the page's text stays unless it is mostly links or lies outside the
   page's ``<main>``.
3. Links that are chrome wherever they stand: heading permalinks (``¶``, ``#``), "Edit this page",
   "View page source", "Skip to content", and previous/next page blocks.

Zero-width and bidi control characters are then removed from the remaining text (and counted).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Literal

from bs4 import BeautifulSoup
from bs4.element import Comment, NavigableString, PageElement, PreformattedString, Tag

from .hidden import INVISIBLE_RE, HiddenRules
from .names import (
    BOILER_SUBSTRINGS,
    BOILER_TOKENS,
    CHROME_LINK_RE,
    CHROME_TEXT_RE,
    PAGER_RE,
    PERMALINK_TEXT,
    SURE_IDS,
    SURE_NAMES,
    SURE_SUBSTRINGS,
    WEAK_TOKENS,
)

HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
HEADING_SET = frozenset(HEADINGS)
PROTECTED = frozenset({"html", "body", "main", "article"})

_ALWAYS_DROP = frozenset(
    {
        "script", "style", "noscript", "template", "form", "svg", "iframe", "frame", "frameset", "object",
        "embed", "canvas", "nav", "aside", "button", "input", "select", "textarea", "dialog", "link", "meta",
        "head", "menu", "audio", "video", "map", "math", "search",
    }
)  # fmt: skip
# Dropped elements whose text is hidden text (counted), not chrome.
_HIDDEN_TAGS = frozenset({"noscript", "template"})
_DROP_ROLES = frozenset(
    {
        "navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog", "menu",
        "menubar", "toolbar", "tablist", "tooltip",
    }
)  # fmt: skip


def has_descendant(tag: Tag, names: frozenset[str]) -> bool:
    """Whether any element below ``tag`` has one of ``names`` (faster than ``Tag.find``)."""
    return any(isinstance(d, Tag) and d.name in names for d in tag.descendants)


def attr_text(tag: Tag, name: str) -> str:
    value = tag.get(name)
    if value is None:
        return ""
    return " ".join(value) if isinstance(value, list) else str(value)


def elements(root: Tag) -> list[Tag]:
    """Every element below ``root`` in document order (much faster than ``find_all(True)``)."""
    return [d for d in root.descendants if isinstance(d, Tag)]


def text_len(node: Tag) -> int:
    return len(" ".join(node.get_text(" ").split()))


def _link_text_len(node: Tag) -> int:
    return sum(len(" ".join(a.get_text(" ").split())) for a in node.find_all("a"))


def _tokens(value: str) -> list[str]:
    value = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", value)
    return [t for t in re.split(r"[^a-z0-9]+", value.lower()) if t]


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.strip().lower()).strip("-")


def _names(tag: Tag) -> list[str]:
    """The class names, id and data-testid of ``tag``; an id that merely names the element's
    heading (``<section id="related-work"><h2>Related work``) is left out."""
    names = attr_text(tag, "class").split()
    ident = attr_text(tag, "id").strip()
    if ident and tag.name not in HEADING_SET and tag.name != "section":
        near = _first_nodes(tag, 12)  # a section's heading comes first
        heading = next((d for d in near if isinstance(d, Tag) and d.name in HEADING_SET), None)
        if heading is None or _slug(ident) != _slug(heading.get_text(" ")):
            names.append(ident)
    testid = attr_text(tag, "data-testid").strip()
    if testid:
        names.append(testid)
    return names


def is_main_like(tag: Tag) -> bool:
    if tag.name == "main" or attr_text(tag, "role").strip().lower() == "main":
        return True
    # WordPress and others wrap each reader comment in an <article class="comment-body">.
    return tag.name == "article" and "comment" not in f"{attr_text(tag, 'class')} {attr_text(tag, 'id')}".lower()


def _main_ancestors(soup: BeautifulSoup) -> set[int]:
    """ids of every element that contains an outermost <main>, <article> or role=main element
    (the <article>s inside a <main> do not protect what lies between them and the <main>)."""
    found: set[int] = set()
    everything = elements(soup)
    mains = [t for t in everything if is_main_like(t)]
    # GitBook and HonKit put the page's text in <section class="markdown-section"> inside the
    # #book-search-results container (their search swaps it out): that container is no chrome.
    texts = [t for t in everything if "markdown-section" in attr_text(t, "class").split()]
    for m in [t for t in mains if not _inside_main(t)] + texts:
        for parent in m.parents:
            if id(parent) in found:
                break
            found.add(id(parent))
    return found


def _inside_main(tag: Tag) -> bool:
    return any(is_main_like(p) for p in tag.parents)


def _gone(tag: Tag) -> bool:
    # (Tag.decomposed would search the subtree for a <_decomposed> tag: O(n) per call.)
    return bool(vars(tag).get("_decomposed", False))


def _chrome_name(tag: Tag) -> Literal["sure", "strong", "weak"] | None:
    """How surely the element's names make it chrome."""
    names = _names(tag)
    if not names:
        return None
    ident = attr_text(tag, "id").strip()
    verdict, weak = _names_verdict(tuple(names), ident if ident in names else "")
    if verdict == "header":
        # <div id="header"> is a site header unless inside the article
        return "strong" if not _inside_main(tag) else ("weak" if weak else None)
    return verdict


@functools.lru_cache(maxsize=8192)
def _names_verdict(names: tuple[str, ...], ident: str) -> tuple[Literal["sure", "strong", "weak", "header"] | None, bool]:
    """The verdict on a set of class/id names (cached: thousands of elements share a class)."""
    normal = [n.lower().replace("_", "-") for n in names]
    if any(n in SURE_NAMES for n in normal) or ident.lower().replace("_", "-") in SURE_IDS:
        return "sure", False
    joined = " ".join(normal)
    if any(s in joined for s in SURE_SUBSTRINGS):
        return "sure", False
    if any(s in joined for s in BOILER_SUBSTRINGS):
        return "strong", False
    toks = set(_tokens(" ".join(names)))
    if toks & BOILER_TOKENS:
        return "strong", False
    weak = bool(toks & WEAK_TOKENS)
    if toks & {"header", "masthead", "topbar"}:
        return "header", weak
    return ("weak" if weak else None), weak


def _is_note_aside(tag: Tag) -> bool:
    """Footnotes and citations of the article (docutils writes ``<aside class="footnote">``)."""
    names = f"{attr_text(tag, 'class')} {attr_text(tag, 'role')}".lower()
    return any(k in names for k in ("footnote", "citation", "doc-endnote")) and _inside_main(tag)


def _hidden_has_text(tag: Tag) -> bool:
    """Whether a hidden element holds words (an icon or a "·" separator is not text)."""
    return any(isinstance(s, NavigableString) and not isinstance(s, Comment) and _WORD_RE.search(s) for s in tag.descendants)


_WORD_RE = re.compile(r"[^\W_]")


def clean(soup: BeautifulSoup) -> int:
    """Remove everything that is not article content, in place; return how many pieces of
    hidden text were dropped: hidden elements with text, ``<template>``/``<noscript>`` with
    text, HTML comments of three words or more, and zero-width/bidi control characters."""
    hidden_rules = HiddenRules(soup)
    hidden = 0
    for node in soup.find_all(string=lambda s: isinstance(s, PreformattedString)):
        if isinstance(node, Comment) and len(node.split()) >= 3:
            hidden += 1  # a comment holding words ("<!-- .site-header -->" marks markup, not text)
        node.extract()  # comments, doctype, CDATA, processing instructions
    body = soup.body or soup
    holders = _main_ancestors(soup)
    total = max(text_len(body), 1)

    def structural(t: Tag) -> bool:
        nonlocal hidden
        name = t.name
        if name in ("html", "body"):
            return False
        if name in _ALWAYS_DROP:
            if name == "head":
                return True
            if id(t) in holders or (name == "aside" and _is_note_aside(t)):
                return False
            if name in _HIDDEN_TAGS and _hidden_has_text(t):
                hidden += 1
            # Some sites wrap the whole page in one <form> (ASP.NET): that is content.
            return not (name == "form" and text_len(t) > 0.5 * total)
        if hidden_rules.is_hidden(t):
            if _hidden_has_text(t):
                hidden += 1
            return True
        if name in PROTECTED:
            return False
        if name == "label" and (t.find(["input", "select"]) is not None or (t.has_attr("for") and not _inside_main(t))):
            return True  # toggles of menus, search and themes (a tab's label inside the article stays)
        if attr_text(t, "role").strip().lower() in _DROP_ROLES:
            return id(t) not in holders
        if name == "footer":
            return id(t) not in holders
        if name == "header":
            # A site header goes; an article's own header (title, date) stays.
            return id(t) not in holders and not _inside_main(t)
        return False

    for tag in elements(soup):
        if not _gone(tag) and structural(tag):
            tag.decompose()

    _drop_named_chrome(soup, body)
    _drop_chrome_links(soup)
    _drop_code_labels(soup)
    for node in list(soup.find_all(string=INVISIBLE_RE)):
        text, n = INVISIBLE_RE.subn("", str(node))
        hidden += n
        node.replace_with(NavigableString(text))
    return hidden


def _drop_named_chrome(soup: BeautifulSoup, body: Tag) -> None:
    holders = _main_ancestors(soup)
    total = max(text_len(body), 1)
    has_main = any(is_main_like(t) and text_len(t) > 0 for t in elements(body))
    chosen: list[tuple[Tag, int, bool]] = []  # (element, text outside links, mostly links)
    sure: list[Tag] = []
    chosen_ids: set[int] = set()
    for tag in elements(soup):
        if tag.name in PROTECTED or is_main_like(tag) or id(tag) in holders:
            continue
        kind = _chrome_name(tag)
        if kind is None or any(id(p) in chosen_ids for p in tag.parents):
            continue
        if tag.name in HEADING_SET and kind != "sure":
            continue  # a heading's utility classes ("anchorWithStickyNavbar") are no verdict
        if kind == "sure" or (kind == "strong" and has_main and not _inside_main(tag)):
            sure.append(tag)
            chosen_ids.add(id(tag))
            continue
        size = text_len(tag)
        in_links = _link_text_len(tag)
        linky = in_links > 0.5 * size if size else True
        if kind == "weak":
            wanted = linky or (size - in_links < 200 and not has_descendant(tag, HEADING_SET))
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
    for tag in sure + [c[0] for c in chosen]:
        if not _gone(tag):
            tag.decompose()


def _plain(text: str) -> str:
    return " ".join(INVISIBLE_RE.sub("", text).split())


def _is_permalink(a: Tag) -> bool:
    href = attr_text(a, "href").strip()
    if not href.startswith("#"):
        return False
    text = _plain(a.get_text(" ")).lower()
    if text not in PERMALINK_TEXT:
        return False
    names = " ".join(_names(a)).lower()
    in_heading = a.find_parent(list(HEADINGS)) is not None
    return in_heading or any(k in names for k in ("anchor", "permalink", "headerlink", "hash-link"))


def _is_pager_link(a: Tag) -> bool:
    rel = attr_text(a, "rel").lower().split()
    if "prev" in rel or "next" in rel:
        return True
    # "Previous" in its own text node, the page title after it; "Next steps" is a title.
    first = next((str(t) for t in a.strings if _plain(str(t))), "")
    return len(_plain(a.get_text(" "))) <= 120 and bool(PAGER_RE.match(_plain(first)))


def _first_nodes(tag: Tag, limit: int) -> Iterator[PageElement]:
    """The first ``limit`` nodes below ``tag`` in document order (``Tag.descendants`` would
    first walk the whole subtree to find its end)."""
    stack: list[PageElement] = list(reversed(tag.contents))
    for _ in range(limit):
        if not stack:
            return
        node = stack.pop()
        yield node
        if isinstance(node, Tag):
            stack.extend(reversed(node.contents))


def _small(tag: Tag, max_nodes: int, max_chars: int) -> tuple[str, list[Tag]] | None:
    """The text and links of a small element without block children, or None for anything
    bigger (a bounded walk: these checks run on every element, and must stay linear)."""
    parts: list[str] = []
    links: list[Tag] = []
    size = 0
    for count, d in enumerate(_first_nodes(tag, max_nodes + 1)):
        if count >= max_nodes:
            return None
        if isinstance(d, Tag):
            if d.name in _SMALL_STOP:
                return None
            if d.name == "a":
                links.append(d)
        elif isinstance(d, NavigableString) and not isinstance(d, PreformattedString):
            parts.append(str(d))
            size += len(d)
            if size > max_chars:
                return None
    return _plain(" ".join(parts)), links


_SMALL_STOP = HEADING_SET | {"table", "ul", "ol", "pre", "p", "section", "article", "main", "blockquote"}


def _drop_chrome_links(soup: BeautifulSoup) -> None:
    """Permalinks, "edit this page" style links, page furniture ("Last updated ..."), and
    previous/next page blocks."""
    for a in soup.find_all("a"):
        if _gone(a):
            continue
        if _is_permalink(a) or CHROME_LINK_RE.match(_plain(a.get_text(" "))):
            a.decompose()
    holders = _main_ancestors(soup)
    for tag in elements(soup):
        if _gone(tag) or tag.name not in _PAGER_HOLDERS or id(tag) in holders or is_main_like(tag):
            continue
        small = _small(tag, 80, 600)
        if small is None:
            continue
        text, links = small
        if tag.name != "a" and len(text) <= 100 and CHROME_TEXT_RE.match(text):
            tag.decompose()
            continue
        if tag.name == "a":
            rel = attr_text(tag, "rel").lower().split()
            if "prev" in rel or "next" in rel:
                tag.decompose()
            continue
        if not 1 <= len(links) <= 4 or not all(_is_pager_link(a) for a in links):
            continue
        in_links = sum(len(_plain(a.get_text(" "))) for a in links)
        if len(text) - in_links <= 3:
            tag.decompose()


_PAGER_HOLDERS = frozenset({"div", "nav", "ul", "ol", "p", "section", "footer", "li", "a", "span", "small"})


def _drop_code_labels(soup: BeautifulSoup) -> None:
    """The language label beside a code block (``<div class="language-sh"><span>sh</span><pre>``)."""
    for pre in soup.find_all("pre"):
        parent = pre.parent
        if not isinstance(parent, Tag):
            continue
        langs = {c.split("-", 1)[1].lower() for c in attr_text(parent, "class").split() if c.startswith("language-")}
        for sib in list(parent.children):
            if isinstance(sib, Tag) and sib is not pre and sib.name in ("span", "div", "p") and sib.find("pre") is None:
                text = _plain(sib.get_text(" ")).lower()
                if text and (text in langs or text in ("copy", "copy code", "copied!")):
                    sib.decompose()


def _prose(node: Tag) -> int:
    return max(text_len(node) - _link_text_len(node), 0)


def main_root(soup: BeautifulSoup) -> Tag:
    """The element holding the article: <main>/role=main, else the <article>, else <body>.

    A short main element is still the article when the rest of the page holds no real prose
    (a page with one short paragraph must not fall back to indexing its chrome).
    """
    body = soup.body or soup
    body_len = max(text_len(body), 1)
    body_prose = _prose(body)
    found = elements(body)

    def enough(best: Tag, size: int) -> bool:
        if size >= 200 or size >= 0.25 * body_len:
            return True
        outside = body_prose - _prose(best)
        return size > 0 and outside < max(200, 2 * size)

    mains = [t for t in found if t.name != "article" and is_main_like(t)]
    if mains:
        best = max(mains, key=text_len)
        if enough(best, text_len(best)):
            return best
    articles = [a for a in found if a.name == "article" and a.find_parent("article") is None]
    if articles:
        best = max(articles, key=text_len)
        size = text_len(best)
        share = size / max(sum(text_len(a) for a in articles), 1)
        if (len(articles) == 1 or share >= 0.5) and enough(best, size):
            return best
    return body
