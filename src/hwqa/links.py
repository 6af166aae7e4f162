"""Find the links in a note.

A note's links are the sources hwqa fetches at index time. :func:`find_links` returns every
http(s) link a reader would see rendered as a link or URL: inline Markdown links
``[text](url "title")``, reference-style links ``[text][ref]`` with ``[ref]: url``, autolinks
``<https://…>`` and bare URLs. Links inside fenced or indented code blocks, inline code spans and
HTML comments are not links. :func:`find_all_urls` returns the same plus links with other schemes
(``file:``, ``ftp:``, …) so the fetcher can report them as skipped rather than silently drop them.

URLs are normalised (scheme and host lower-cased, default port dropped, empty path made ``/``) and
split from their fragment; the fragment names the section of the page the note points at.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = ["Link", "find_all_urls", "find_links", "normalize_url", "split_fragment"]

FETCHABLE_SCHEMES = frozenset({"http", "https"})
# Addresses rather than resources: never reported as links at all.
_IGNORED_SCHEMES = frozenset({"mailto", "tel", "sms", "data", "javascript"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}


@dataclass(frozen=True)
class Link:
    """One link in a note.

    ``url`` is the normalised absolute URL without its fragment; ``fragment`` is the fragment
    (``None`` if there is none); ``text`` is the link text (``''`` for autolinks and bare URLs);
    ``line`` is the 1-based line number within the Markdown text that was searched.
    """

    url: str
    fragment: str | None
    text: str
    line: int

    @property
    def scheme(self) -> str:
        """The URL scheme, lower-case (``'https'``, ``'file'``, …)."""
        return self.url.split(":", 1)[0].lower()


# --------------------------------------------------------------------------------------------
# URL normalisation


def split_fragment(url: str) -> tuple[str, str | None]:
    """Split ``url`` into (URL without fragment, fragment or ``None``)."""
    base, sep, frag = url.partition("#")
    return base, (frag if sep and frag else None)


def normalize_url(raw: str) -> tuple[str, str | None] | None:
    """Normalise an absolute URL; return ``(url_without_fragment, fragment)`` or ``None``.

    ``None`` means the string is not an absolute URL (a relative link such as ``other-note.md``).
    Scheme and host are lower-cased, a default port is dropped, an empty http(s) path becomes
    ``/`` and spaces are percent-encoded. A URL that cannot be parsed is returned as written
    (minus its fragment) so that the fetcher can report it rather than it vanishing.
    """
    raw = raw.strip()
    if raw.startswith("<") and raw.endswith(">"):
        raw = raw[1:-1].strip()
    m = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*):", raw)
    if not m or len(m.group(1)) < 2:  # no scheme, or a Windows drive letter like C:
        return None
    base, fragment = split_fragment(raw)
    if fragment is not None:
        fragment = unquote(fragment)
    scheme = m.group(1).lower()
    try:
        parts = urlsplit(base)
        if scheme in ("http", "https", "ftp", "ftps") and not parts.hostname:
            return scheme + base[len(scheme) :], fragment
        netloc = parts.netloc
        if parts.hostname is not None:
            host = parts.hostname.lower()
            if ":" in host:
                host = f"[{host}]"
            port = parts.port  # raises ValueError on a malformed port
            userinfo = netloc.rpartition("@")[0]
            netloc = (userinfo + "@" if userinfo else "") + host
            if port is not None and port != _DEFAULT_PORTS.get(scheme):
                netloc += f":{port}"
        path = parts.path.replace(" ", "%20")
        if scheme in FETCHABLE_SCHEMES and not path:
            path = "/"
        query = parts.query.replace(" ", "%20")
        return urlunsplit((scheme, netloc, path, query, "")), fragment
    except ValueError:
        return scheme + base[len(scheme) :], fragment


# --------------------------------------------------------------------------------------------
# Masking: code blocks, code spans and comments are blanked out (same length, newlines kept), so
# the link patterns never see them and offsets still map to the original lines.

_FENCE_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_LIST_ITEM_RE = re.compile(r"^[ ]{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_BLOCKQUOTE_RE = re.compile(r"^(?:[ ]{0,3}>[ ]?)+")
_BLOCK_START_RE = re.compile(r"^[ ]{0,3}(?:#{1,6}(?:[ \t]|$)|(?:[-*_][ \t]*){3,}$)")
_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def _indent_width(line: str) -> int:
    width = 0
    for ch in line:
        if ch == " ":
            width += 1
        elif ch == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def _mask_blocks(lines: list[str]) -> list[str]:
    """Blank fenced code blocks and indented code blocks (outside lists)."""
    out: list[str] = []
    fence: str | None = None  # the opening fence while inside a fenced block
    in_list = False
    prev_blank = True
    prev_code = False
    for line in lines:
        body = line.rstrip("\r\n")
        content = _BLOCKQUOTE_RE.sub("", body)
        if fence is not None:
            m = _FENCE_RE.match(content)
            if m and m.group("fence")[0] == fence[0] and len(m.group("fence")) >= len(fence) and not m.group("info").strip():
                fence = None
            out.append(_blank(line))
            prev_blank, prev_code = False, False
            continue
        m = _FENCE_RE.match(content)
        if m and not (m.group("fence")[0] == "`" and "`" in m.group("info")):
            fence = m.group("fence")
            if not m.group("indent"):
                in_list = False  # a fence at the margin ends any list
            out.append(_blank(line))
            prev_blank, prev_code = False, False
            continue
        if not content.strip():
            out.append(line)
            prev_blank = True
            continue
        indent = _indent_width(content)
        if indent >= 4 and not in_list and (prev_blank or prev_code):
            out.append(_blank(line))
            prev_blank, prev_code = False, True
            continue
        if indent < 4:
            if _LIST_ITEM_RE.match(content):
                in_list = True
            elif prev_blank or _BLOCK_START_RE.match(content):
                in_list = False
        out.append(line)
        prev_blank, prev_code = False, False
    return out


_BACKTICKS_RE = re.compile(r"`+")


def _mask_code_spans(text: str) -> str:
    """Blank inline code spans (backtick runs closed by a run of the same length)."""
    if "`" not in text:
        return text
    chars = list(text)
    i = 0
    n = len(text)
    while i < n:
        opening = _BACKTICKS_RE.search(text, i)
        if opening is None:
            break
        i, j = opening.span()
        if i > 0 and text[i - 1] == "\\":
            i += 1
            continue
        run = j - i
        # Look for a closing run of exactly `run` backticks within the same paragraph.
        para_end = text.find("\n\n", j)
        limit = n if para_end < 0 else para_end
        close = -1
        for m in re.finditer(r"`+", text[j:limit]):
            if len(m.group(0)) == run:
                close = j + m.start()
                break
        if close < 0:
            i = j
            continue
        end = close + run
        for k in range(i, end):
            if chars[k] != "\n":
                chars[k] = " "
        i = end
    return "".join(chars)


def _masked(markdown: str) -> str:
    text = "".join(_mask_blocks(markdown.splitlines(keepends=True)))
    text = _COMMENT_RE.sub(lambda m: _blank(m.group(0)), text)
    return _mask_code_spans(text)


# --------------------------------------------------------------------------------------------
# Link patterns

_REF_DEF_RE = re.compile(
    r"^[ ]{0,3}\[(?P<label>[^\]\n]+)\]:[ \t]*(?:<(?P<angle>[^>\n]*)>|(?P<dest>\S+))"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$",
    re.M,
)
_REF_USE_RE = re.compile(r"\[([^\]\n]*)\]")
_AUTOLINK_RE = re.compile(r"<(?P<url>[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_BARE_RE = re.compile(
    r"(?<![\w/@.+\-])(?P<url>(?:https?|ftps?|sftp|file|wss?)://[^\s<>\"`]*|file:/[^\s<>\"`]*)",
    re.I,
)
_TRAILING_PUNCT = ".,:;!?*_~'\""


def _label_key(label: str) -> str:
    return " ".join(label.split()).casefold()


def _clean_text(md: str) -> str:
    """Link text as a reader sees it: images become their alt text, markup is dropped."""
    md = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", md)
    md = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", md)
    md = re.sub(r"(\*\*|__|`+|\*|~~)", "", md)
    md = md.replace("\\[", "[").replace("\\]", "]")
    return " ".join(md.split())


def _trim_bare(url: str) -> str:
    """Trim trailing punctuation that ends a sentence rather than the URL."""
    while url:
        last = url[-1]
        unbalanced = (last == ")" and url.count(")") > url.count("(")) or (last == "]" and url.count("]") > url.count("["))
        if last in _TRAILING_PUNCT or unbalanced:
            url = url[:-1]
        else:
            break
    return url


def _match_bracket(text: str, start: int) -> int:
    """Index of the ``]`` matching the ``[`` at ``start``, or -1 (escapes respected)."""
    depth = 0
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return i
        elif ch == "\n" and i + 1 < n and text[i + 1] == "\n":
            return -1  # a link text does not span paragraphs
        i += 1
    return -1


def _parse_destination(text: str, start: int) -> tuple[str, int] | None:
    """Parse ``(dest "title")`` starting at the ``(`` at ``start``; return (dest, end)."""
    n = len(text)
    i = start + 1
    while i < n and text[i] in " \t\n":
        i += 1
    if i < n and text[i] == "<":
        close = text.find(">", i)
        if close < 0 or "\n" in text[i:close]:
            return None
        dest = text[i + 1 : close]
        i = close + 1
    else:
        depth = 0
        begin = i
        while i < n:
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch in " \t\n":
                break
            if ch == "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    break
                depth -= 1
            i += 1
        dest = text[begin:i]
    while i < n and text[i] in " \t\n":
        i += 1
    if i < n and text[i] in "\"'(":
        closer = ")" if text[i] == "(" else text[i]
        close = text.find(closer, i + 1)
        if close < 0:
            return None
        i = close + 1
        while i < n and text[i] in " \t\n":
            i += 1
    if i < n and text[i] == ")":
        return dest, i + 1
    return None


def find_all_urls(markdown: str) -> list[Link]:
    """Every absolute link in ``markdown`` whatever its scheme, in reading order.

    Relative links (to other notes or files) are not included, nor ``mailto:``/``tel:`` addresses.
    A reference-style link is reported where it is used; a definition nobody uses is reported at
    its own line. Each occurrence is reported; callers deduplicate by ``url``.
    """
    masked = _masked(markdown)
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", markdown)]

    def line_of(offset: int) -> int:
        return bisect.bisect_right(line_starts, offset)

    found: list[tuple[int, str, str]] = []  # (offset, raw url, text)
    work = list(masked)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if work[k] != "\n":
                work[k] = " "

    # 1. Reference definitions.
    definitions: dict[str, tuple[str, int, str]] = {}
    used_labels: set[str] = set()
    for m in _REF_DEF_RE.finditer(masked):
        label = m.group("label")
        if label.startswith("^"):
            continue  # footnote
        target = m.group("angle") if m.group("angle") is not None else m.group("dest")
        definitions.setdefault(_label_key(label), (target or "", m.start(), label.strip()))
        blank(m.start(), m.end())
    text = "".join(work)

    # 2. Inline links, images and reference links.
    spans: list[tuple[int, int]] = []
    i = 0
    n = len(text)
    while i < n:
        i = text.find("[", i)
        if i < 0:
            break
        slashes = 0
        while i - slashes > 0 and text[i - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2:  # an escaped bracket
            i += 1
            continue
        is_image = i > 0 and text[i - 1] == "!"
        close = _match_bracket(text, i)
        if close < 0:
            i += 1
            continue
        inner_orig = markdown[i + 1 : close]
        end = -1
        dest: str | None = None
        if close + 1 < n and text[close + 1] == "(":
            parsed = _parse_destination(text, close + 1)
            if parsed:
                dest, end = parsed
        if dest is None:
            # [text][label], [label][] or [label]
            use = _REF_USE_RE.match(text, close + 1)
            if use:
                label = use.group(1) or inner_orig
                end = use.end()
            else:
                label = inner_orig
                end = close + 1
            key = _label_key(label)
            if key in definitions and not label.startswith("^"):
                dest = definitions[key][0]
                used_labels.add(key)
            else:
                i += 1
                continue
        if not is_image:
            found.append((i, dest, _clean_text(inner_orig)))
        # Whatever sits inside the link text (badge images, say) is not a link of its own.
        spans.append((i - 1 if is_image else i, end))
        i = end
    for a, b in spans:
        blank(a, b)
    text = "".join(work)

    # Unused definitions are still links the note holds.
    for key, (target, offset, label) in definitions.items():
        if key not in used_labels:
            found.append((offset, target, label))

    # 3. Autolinks.
    for m in _AUTOLINK_RE.finditer(text):
        found.append((m.start(), m.group("url"), ""))
    text = _AUTOLINK_RE.sub(lambda m: _blank(m.group(0)), text)

    # 4. Bare URLs.
    for m in _BARE_RE.finditer(text):
        url = _trim_bare(m.group("url"))
        if re.fullmatch(r"[A-Za-z]+:/*", url):
            continue
        found.append((m.start(), url, ""))

    links: list[Link] = []
    for offset, raw, label_text in sorted(found, key=lambda t: t[0]):
        norm = normalize_url(raw)
        if norm is None:
            continue
        url, fragment = norm
        if url.split(":", 1)[0] in _IGNORED_SCHEMES:
            continue
        links.append(Link(url=url, fragment=fragment, text=label_text, line=line_of(offset)))
    return links


def find_links(markdown: str) -> list[Link]:
    """The http(s) links in ``markdown`` (see :func:`find_all_urls`), in reading order."""
    return [link for link in find_all_urls(markdown) if link.scheme in FETCHABLE_SCHEMES]
