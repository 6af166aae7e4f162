"""Hidden text in a page: what a reader of the rendered page never sees, so it is never indexed.

An element is hidden by the ``hidden`` attribute (except ``hidden="until-found"``, which the
browser's find-in-page reveals, and the inactive panels of a set of tabs),
``aria-hidden="true"``, utility classes (``hidden``, ``d-none``),
or an inline style: ``display:none``, ``visibility:hidden``, ``opacity:0``, a zero (or < 2 px)
font size, transparent text, a zero-sized box that clips its overflow, the screen-reader "clip"
pattern, or positioning far off-screen (``left:-9999px``, ``text-indent:-9999px``,
``translateX(-9999px)``). ``<style>`` rules of the page that hide a plain ``.class`` or ``#id``
count too. Zero-width and bidirectional control characters are removed from the text.

Properties a child can override (font size, visibility, colour) hide an element only when no
descendant sets them back.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from bs4.element import Tag

__all__ = ["INVISIBLE_RE", "HiddenRules", "strip_invisible"]

# Zero-width characters and bidi controls: U+200B-U+200F, U+202A-U+202E, U+2060-U+2064,
# U+2066-U+2069 and U+FEFF (a BOM inside the text is a zero-width no-break space).
INVISIBLE_RE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")

# Whole class names that hide an element (utility CSS).
_HIDING_CLASSES = frozenset({"hidden", "d-none", "is-hidden", "invisible", "hide", "print-only", "hidden-xs-up"})
_SHOWN_AT = ("block", "flex", "grid", "inline", "inline-block", "table", "d-block")
# Tailwind "hidden md:block" and Bootstrap "d-none d-lg-block" show the element on wider screens.
_BREAKPOINT_SHOWN_RE = re.compile(r"^d-(?:sm|md|lg|xl|xxl)-(?:block|flex|inline|inline-block|inline-flex|table|grid)$")
_LENGTH_RE = re.compile(r"^([-+]?\d*\.?\d+)\s*(px|pt|pc|em|rem|ex|ch|%|vw|vh|vmin|vmax|cm|mm|in|q)?$")
_PX = {
    "px": 1.0,
    "pt": 1.333,
    "pc": 16.0,
    "em": 16.0,
    "rem": 16.0,
    "ex": 8.0,
    "ch": 8.0,
    "%": 0.16,
    "vw": 12.8,
    "vh": 8.0,
    "vmin": 8.0,
    "vmax": 12.8,
    "cm": 37.8,
    "mm": 3.78,
    "in": 96.0,
    "q": 0.945,
}
_FONT_KEYWORDS_HIDDEN = frozenset({"0", "0px"})
_OFFSCREEN_PX = 500.0  # further than this beyond the top/left edge is off-screen
_FAR_PX = 5000.0  # further than this to the right/bottom is off-screen too
_SIMPLE_SELECTOR_RE = re.compile(r"^(?:[a-z][a-z0-9]*)?([.#])([A-Za-z_][\w-]*)$")


def strip_invisible(text: str) -> tuple[str, int]:
    """``text`` without zero-width and bidi control characters, and how many were removed."""
    cleaned, n = INVISIBLE_RE.subn("", text)
    return cleaned, n


def _attr(tag: Tag, name: str) -> str:
    value = tag.get(name)
    if value is None:
        return ""
    return " ".join(value) if isinstance(value, list) else str(value)


def declarations(style: str) -> dict[str, str]:
    """``prop: value`` pairs of an inline style (lower-case, ``!important`` dropped; last wins)."""
    out: dict[str, str] = {}
    for part in style.split(";"):
        if ":" in part:
            prop, value = part.split(":", 1)
            out[prop.strip().lower()] = value.replace("!important", "").strip().lower()
    return out


def _px(value: str) -> float | None:
    """A CSS length in (approximate) pixels, or None when it is not a plain length."""
    m = _LENGTH_RE.match(value.strip())
    if not m:
        return None
    number = float(m.group(1))
    return number * _PX[m.group(2) or "px"] if m.group(2) or number == 0 else None


def _tiny_font(value: str) -> bool:
    if value in _FONT_KEYWORDS_HIDDEN:
        return True
    size = _px(value)
    return size is not None and size < 2.0


def _visible_font(value: str) -> bool:
    size = _px(value)
    return size is None or size >= 2.0  # keywords (medium, larger) and calc() are visible


def _offscreen(d: dict[str, str]) -> bool:
    positioned = d.get("position", "") in ("absolute", "fixed", "relative", "sticky")
    for prop in ("left", "top", "right", "bottom"):
        size = _px(d.get(prop, "x"))
        if positioned and size is not None and (size <= -_OFFSCREEN_PX or (prop in ("left", "top") and size >= _FAR_PX)):
            return True
    for prop in ("margin-left", "margin-top", "text-indent"):
        size = _px(d.get(prop, "x"))
        if size is not None and size <= -_OFFSCREEN_PX:
            return True
    transform = d.get("transform", "")
    if re.search(r"scale[xy]?\(\s*0(?:\.0+)?\s*[,)]", transform):
        return True
    for number in re.findall(r"translate(?:[xy]|3d)?\(([^)]*)\)", transform):
        for part in number.split(","):
            size = _px(part)
            if size is not None and size <= -_OFFSCREEN_PX:
                return True
    return False


def _clipped(d: dict[str, str]) -> bool:
    clip = d.get("clip", "").replace(",", " ")
    if d.get("position", "") in ("absolute", "fixed") and re.match(r"rect\(\s*(?:0|1px)(?:\s*(?:px)?\s+(?:0|1px)){3}", clip):
        return True
    if re.match(r"inset\(\s*(?:50|100)%", d.get("clip-path", "")):
        return True
    overflow = d.get("overflow", "") in ("hidden", "clip") or d.get("overflow-y", "") in ("hidden", "clip")
    if overflow:
        for prop in ("height", "max-height", "width", "max-width"):
            size = _px(d.get(prop, "x"))
            if size is not None and size <= 1.0:
                return True
    return False


def style_hides(d: dict[str, str]) -> str | None:
    """Why this style hides its element: ``"final"`` (nothing inside can show), ``"font"``,
    ``"visibility"`` or ``"color"`` (a descendant may set it back), or None."""
    if d.get("display") == "none" or d.get("content-visibility") == "hidden":
        return "final"
    opacity = d.get("opacity")
    if opacity is not None:
        try:
            if float(opacity.rstrip("%")) <= 0.01:
                return "final"
        except ValueError:
            pass
    if _offscreen(d) or _clipped(d):
        return "final"
    if d.get("visibility") in ("hidden", "collapse"):
        return "visibility"
    if "font-size" in d and _tiny_font(d["font-size"]):
        return "font"
    if d.get("color") == "transparent" or re.match(r"rgba\([^)]*,\s*0(?:\.0+)?\s*\)$", d.get("color", "")):
        return "color"
    return None


def _tab_panels(soup: BeautifulSoup) -> set[int]:
    """ids of the inactive panels of sets of tabs (Docusaurus renders them ``hidden``): a reader
    opens one with a click, like a ``<details>``, so it is content. Found before any cleaning."""
    found: set[int] = set()

    def role(node: object) -> str:
        return _attr(node, "role").strip().lower() if isinstance(node, Tag) else ""

    for panel in (d for d in soup.descendants if role(d) == "tabpanel"):
        assert isinstance(panel, Tag)
        # The tab list is a sibling of the panel or of the panel's wrapper.
        for holder in (panel.parent, panel.parent.parent if panel.parent is not None else None):
            if isinstance(holder, Tag) and any(role(c) in ("tablist", "tab") for c in holder.children):
                found.add(id(panel))
                break
    return found


class HiddenRules:
    """Decides whether an element of one page is hidden (inline style, attributes, the page's
    own ``<style>`` rules for a plain ``.class`` or ``#id``)."""

    def __init__(self, soup: BeautifulSoup) -> None:
        self.classes: dict[str, dict[str, str]] = {}
        self.ids: dict[str, dict[str, str]] = {}
        self._shown: set[str] = set()
        self.tabs = _tab_panels(soup)
        for style in soup.find_all("style"):
            self._read_css(style.get_text())

    def _read_css(self, css: str) -> None:
        css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
        i, n = 0, len(css)
        while i < n:
            opening = css.find("{", i)
            if opening < 0:
                break
            depth, j = 1, opening + 1
            while j < n and depth:
                if css[j] == "{":
                    depth += 1
                elif css[j] == "}":
                    depth -= 1
                j += 1
            selectors, body, i = css[i:opening].rsplit(";", 1)[-1].strip(), css[opening + 1 : j - 1], j
            # Only top-level rules: one inside @media (print, a narrow screen) does not hide the
            # text from a reader of the page as served.
            if selectors.startswith("@") or "{" in body:
                continue
            decl = declarations(body)
            shows = decl.get("display", "none") != "none" or decl.get("visibility") == "visible"
            for sel in selectors.split(","):
                m = _SIMPLE_SELECTOR_RE.match(sel.strip())
                if m:
                    table = self.classes if m.group(1) == "." else self.ids
                    table.setdefault(m.group(2), {}).update(decl)
                elif shows:  # ".tab.active{display:block}": a state can show what ".tab" hides
                    self._shown.update(re.findall(r"[.#]([A-Za-z_][\w-]*)", sel))
        for name in self._shown:
            self.classes.pop(name, None)
            self.ids.pop(name, None)

    def _styles(self, tag: Tag) -> dict[str, str]:
        merged: dict[str, str] = {}
        for cls in _attr(tag, "class").split():
            merged.update(self.classes.get(cls, {}))
        ident = _attr(tag, "id").strip()
        if ident:
            merged.update(self.ids.get(ident, {}))
        inline = _attr(tag, "style")
        if inline:
            merged.update(declarations(inline))
        return merged

    def is_hidden(self, tag: Tag) -> bool:
        if tag.has_attr("hidden") and _attr(tag, "hidden").strip().lower() != "until-found" and id(tag) not in self.tabs:
            return True
        if _attr(tag, "aria-hidden").strip().lower() == "true":
            return True
        if tag.name == "input" and _attr(tag, "type").lower() == "hidden":
            return True
        classes = _attr(tag, "class").split()
        if any(c in _HIDING_CLASSES for c in classes) and not any(
            (":" in c and c.split(":")[-1] in _SHOWN_AT) or _BREAKPOINT_SHOWN_RE.match(c) for c in classes
        ):
            return True
        if not (self.classes or self.ids or tag.has_attr("style")):
            return False
        styles = self._styles(tag)
        if not styles:
            return False
        why = style_hides(styles)
        if why is None or why == "final":
            return why == "final"
        return not self._set_back(tag, why)

    def _set_back(self, tag: Tag, why: str) -> bool:
        """Whether a descendant makes the text visible again (``font-size:16px`` inside a
        ``font-size:0`` row of inline blocks, ``visibility:visible`` inside a hidden box)."""
        for d in tag.descendants:
            if not isinstance(d, Tag) or not (d.has_attr("style") or d.has_attr("class") or d.has_attr("id")):
                continue
            styles = self._styles(d)
            if why == "font" and "font-size" in styles and _visible_font(styles["font-size"]):
                return True
            if why == "visibility" and styles.get("visibility") == "visible":
                return True
            if why == "color" and "color" in styles and style_hides({"color": styles["color"]}) is None:
                return True
        return False
