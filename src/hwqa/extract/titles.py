"""Titles and fragments: a page's title, and the heading a URL fragment points at."""

from __future__ import annotations

import re
from urllib.parse import unquote

from bs4 import BeautifulSoup
from bs4.element import Tag

from .boilerplate import HEADINGS, PROTECTED, attr_text, elements
from .render import collapse

__all__ = ["fragment_target", "page_title", "slugify"]


def slugify(text: str) -> str:
    """GitHub-style heading anchor: lower-case, punctuation dropped, spaces to hyphens."""
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def page_title(soup: BeautifulSoup, url: str) -> str:
    """The page's title: ``og:title``, then ``<title>``, then the first ``<h1>``, else the URL."""
    tags = elements(soup)
    for tag in tags:
        if tag.name == "meta" and attr_text(tag, "property").strip().lower() == "og:title":
            content = collapse(attr_text(tag, "content"))
            if content:
                return content
    for name in ("title", "h1"):
        for tag in tags:
            if tag.name == name and tag.find_parent("svg") is None:
                text = collapse(tag.get_text(" "))
                if text:
                    return text
                break
    return url


def fragment_target(soup: BeautifulSoup, fragment: str) -> Tag | None:
    """The heading tag of the section the fragment points at (before any cleaning)."""
    frag = unquote(fragment)
    target: Tag | None = None
    tags = elements(soup)
    for candidate in (frag, f"user-content-{frag}", frag.lower()):
        target = next((t for t in tags if attr_text(t, "id") == candidate), None) or next(
            (t for t in tags if attr_text(t, "name") == candidate), None
        )
        if target is not None:
            break
    if target is None:
        return None
    if target.name in HEADINGS:
        return target
    parent = target.find_parent(list(HEADINGS))
    if isinstance(parent, Tag):
        return parent
    inner = target.find(list(HEADINGS))
    if isinstance(inner, Tag):
        return inner
    if not target.get_text(strip=True):
        # An empty anchor. GitHub wraps it with its heading (<div><h2>..</h2><a id=..>);
        # older pages put it just before the heading.
        wrapper = target.parent
        if isinstance(wrapper, Tag) and wrapper.name not in PROTECTED | {"section"}:
            heads = wrapper.find_all(list(HEADINGS))
            if len(heads) == 1 and collapse(wrapper.get_text(" ")) == collapse(heads[0].get_text(" ")):
                return heads[0]
        nxt = target.find_next(list(HEADINGS))
        return nxt if isinstance(nxt, Tag) else None
    prev_heading = target.find_previous(list(HEADINGS))
    return prev_heading if isinstance(prev_heading, Tag) else None
