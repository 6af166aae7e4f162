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

from .markdown import blank, mask_code

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
_MAX_LABEL = 999  # CommonMark: a link label holds at most 999 characters


def _label_key(label: str) -> str:
    return " ".join(label.split()).casefold()


def _clean_text(md: str) -> str:
    """Link text as a reader sees it: images become their alt text, markup is dropped."""
    # Character classes exclude both brackets and both parentheses, so each match attempt stops
    # at the next one and cleaning stays linear.
    md = re.sub(r"!\[([^\[\]]*)\]\([^()]*\)", r"\1", md)
    md = re.sub(r"\[([^\[\]]*)\]\([^()]*\)", r"\1", md)
    md = re.sub(r"(\*\*|__|`+|\*|~~)", "", md)
    md = md.replace("\\[", "[").replace("\\]", "]")
    return " ".join(md.split())


def _trim_bare(url: str) -> str:
    """Trim trailing punctuation that ends a sentence rather than the URL."""
    counts = {ch: url.count(ch) for ch in "()[]"}  # counted once: trimming stays linear
    end = len(url)
    while end:
        last = url[end - 1]
        unbalanced = (last == ")" and counts[")"] > counts["("]) or (last == "]" and counts["]"] > counts["["])
        if last in _TRAILING_PUNCT or unbalanced:
            end -= 1
            if last in counts:
                counts[last] -= 1
        else:
            break
    return url[:end]


_BRACKET_TOKEN_RE = re.compile(r"\\.|[\[\]]|\n(?=\n)", re.S)
_DEST_TOKEN_RE = re.compile(r"\\.|[ \t\n()]", re.S)


def _bracket_pairs(text: str) -> dict[int, int]:
    """Each unescaped ``[`` mapped to its matching ``]`` (link text does not span paragraphs).

    One pass over the brackets with a stack, so scanning stays linear however many ``[`` a
    note holds (matching each one by a scan of its own was quadratic).
    """
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in _BRACKET_TOKEN_RE.finditer(text):
        token = m.group()
        if token == "[":
            stack.append(m.start())
        elif token == "]":
            if stack:
                pairs[stack.pop()] = m.start()
        elif token == "\n":
            stack.clear()
    return pairs


class _Destinations:
    """Parses ``(dest "title")`` after link texts, each lookup in constant or logarithmic time.

    Where an unparenthesised destination ends (the first whitespace, or the first ``)`` that
    closes nothing) is worked out for every candidate in one pass over the text; closing quotes,
    ``>`` and newlines are found by bisection in lists of their positions; whitespace skips are
    remembered. A note full of unclosed ``[a](x`` therefore costs linear time, not quadratic.
    """

    def __init__(self, text: str, starts: list[int]) -> None:
        self.text = text
        self.n = len(text)
        self._skip: dict[int, int] = {}
        self._positions: dict[str, list[int]] = {}
        self.ends = self._plain_ends(sorted(set(starts)))

    def skip_ws(self, i: int) -> int:
        if i >= self.n or self.text[i] not in " \t\n":
            return i
        known = self._skip.get(i)
        if known is None:
            j = i
            while j < self.n and self.text[j] in " \t\n":
                j += 1
            known = self._skip[i] = j
        return known

    def find(self, ch: str, start: int) -> int:
        """First index of ``ch`` at or after ``start``, or -1."""
        positions = self._positions.get(ch)
        if positions is None:
            positions = self._positions[ch] = [m.start() for m in re.finditer(re.escape(ch), self.text)]
        k = bisect.bisect_left(positions, start)
        return positions[k] if k < len(positions) else -1

    def _plain_ends(self, starts: list[int]) -> dict[int, int]:
        ends: dict[int, int] = {}
        pending: dict[int, list[int]] = {}
        depth = 0
        k = 0
        for m in _DEST_TOKEN_RE.finditer(self.text):
            pos = m.start()
            while k < len(starts) and starts[k] <= pos:
                pending.setdefault(depth, []).append(starts[k])
                k += 1
            token = m.group()
            if token in " \t\n":
                for waiting in pending.values():
                    for b in waiting:
                        ends[b] = pos
                pending.clear()
            elif token == "(":
                depth += 1
            elif token == ")":
                for b in pending.pop(depth, []):
                    ends[b] = pos
                depth -= 1
        for waiting in pending.values():
            for b in waiting:
                ends[b] = self.n
        for b in starts[k:]:
            ends[b] = self.n
        return ends

    def parse(self, start: int) -> tuple[str, int] | None:
        """Parse ``(dest "title")`` starting at the ``(`` at ``start``; return (dest, end)."""
        text, n = self.text, self.n
        i = self.skip_ws(start + 1)
        if i < n and text[i] == "<":
            close = self.find(">", i)
            if close < 0:
                return None
            newline = self.find("\n", i)
            if 0 <= newline < close:
                return None
            begin, stop = i + 1, close
            i = close + 1
        else:
            begin = i
            stop = i = self.ends.get(i, i)
        i = self.skip_ws(i)
        if i < n and text[i] in "\"'(":
            close = self.find(")" if text[i] == "(" else text[i], i + 1)
            if close < 0:
                return None
            i = self.skip_ws(close + 1)
        if i < n and text[i] == ")":
            return text[begin:stop], i + 1
        return None


def find_all_urls(markdown: str) -> list[Link]:
    """Every absolute link in ``markdown`` whatever its scheme, in reading order.

    Relative links (to other notes or files) are not included, nor ``mailto:``/``tel:`` addresses.
    A reference-style link is reported where it is used; a definition nobody uses is reported at
    its own line. Each occurrence is reported; callers deduplicate by ``url``.
    """
    masked = mask_code(markdown)
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", markdown)]

    def line_of(offset: int) -> int:
        return bisect.bisect_right(line_starts, offset)

    found: list[tuple[int, str, str]] = []  # (offset, raw url, text)
    work = list(masked)

    def erase(a: int, b: int) -> None:
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
        erase(m.start(), m.end())
    text = "".join(work)

    # 2. Inline links, images and reference links.
    pairs = _bracket_pairs(text)
    n = len(text)
    dest_starts = []
    for close in pairs.values():
        if close + 1 < n and text[close + 1] == "(":
            b = close + 2
            while b < n and text[b] in " \t\n":
                b += 1
            dest_starts.append(b)
    destinations = _Destinations(text, dest_starts)
    spans: list[tuple[int, int]] = []
    i = 0
    for opening in sorted(pairs):
        if opening < i:
            continue  # inside a link already found
        i = opening
        close = pairs[i]
        is_image = i > 0 and text[i - 1] == "!"
        end = -1
        dest: str | None = None
        if close + 1 < n and text[close + 1] == "(":
            parsed = destinations.parse(close + 1)
            if parsed:
                dest, end = parsed
        if dest is None:
            if not definitions:
                continue
            # [text][label], [label][] or [label]
            use = _REF_USE_RE.match(text, close + 1)
            if use and use.group(1):
                label = use.group(1)
                end = use.end()
            else:
                if close - i - 1 > _MAX_LABEL:
                    continue
                label = markdown[i + 1 : close]
                end = use.end() if use else close + 1
            if len(label) > _MAX_LABEL:
                continue
            key = _label_key(label)
            if key in definitions and not label.startswith("^"):
                dest = definitions[key][0]
                used_labels.add(key)
            else:
                continue
        if not is_image:
            found.append((i, dest, _clean_text(markdown[i + 1 : close])))
        # Whatever sits inside the link text (badge images, say) is not a link of its own.
        spans.append((i - 1 if is_image else i, end))
        i = end
    for a, b in spans:
        erase(a, b)
    text = "".join(work)

    # Unused definitions are still links the note holds.
    for key, (target, offset, label) in definitions.items():
        if key not in used_labels:
            found.append((offset, target, label))

    # 3. Autolinks.
    for m in _AUTOLINK_RE.finditer(text):
        found.append((m.start(), m.group("url"), ""))
    text = _AUTOLINK_RE.sub(lambda m: blank(m.group(0)), text)

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
