"""Make untrusted text safe to show: answers, source titles and passages, log lines.

Everything an answer says comes from notes, web articles or a chat model that may have obeyed
instructions hidden in them, so before an answer reaches the CLI, ``--json`` consumers or the web
chat, :func:`neutralise` rewrites its Markdown so that showing it loads nothing and links nowhere
unexpected:

- images never render: ``![alt](url)`` becomes ``(image: alt)``, or a plain link ``[image: alt](url)``
  when the URL's host is one of the answer's sources;
- raw HTML never renders: tags are removed (``<script>``, ``<style>``, ``<iframe>``, ``<svg>``,
  ``<template>``... with their content), comments dropped, and any ``<`` left that could start a tag
  is escaped as ``&lt;``;
- links keep working only to the hosts of the answer's sources (``http``/``https``); a link elsewhere
  becomes its text plus the address defanged (``http[:]//host[.]example/path``, which no Markdown
  renderer turns into a link), and ``javascript:``, ``data:`` and other schemes become plain text;
- bare addresses (which GitHub-flavoured Markdown auto-links) to other hosts are defanged too.

A cited passage is the notes' (or an article's) own text, quoted: ``open_links=True`` keeps its
http(s) links to any host with a plain host name (images still become plain links, and nothing
else above changes), so a reader can open the page a passage names; the web chat shows each such
link with the address itself as its text.

Nested constructs (``[![a](x.png)](http://outside/y)``) are rewritten until nothing changes.

:func:`redact` and :class:`RedactingFilter` keep API-key-shaped strings out of log records;
:func:`drop_hidden_html` removes elements marked hidden before text is shown to a chat model, and
:func:`schema_problems` checks a chat model's tool arguments against the tool's JSON schema.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .answer import Answer

__all__ = [
    "RedactingFilter",
    "allowed_hosts",
    "drop_hidden_html",
    "install_log_redaction",
    "neutralise",
    "neutralise_answer",
    "redact",
    "schema_problems",
]

_MAX_ROUNDS = 12

# HTML elements whose content must go with them (code, styles, frames, vector images, templates).
_DROP_WITH_CONTENT = re.compile(
    r"<\s*(script|style|template|iframe|frame|frameset|svg|math|noscript|object|embed|textarea|xmp|noembed|noframes|title|select|applet)"
    r"\b[^<>]*>.*?(?:<\s*/\s*\1\s*>|\Z)",
    re.I | re.S,
)
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_CDATA = re.compile(r"<!\[CDATA\[.*?(?:\]\]>|\Z)", re.S)
# A CommonMark autolink: <scheme:...> or <user@host>
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*)>")
_EMAIL_AUTOLINK = re.compile(r"<([A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9.-]+)>")
# Any tag, declaration or processing instruction that is closed on the same construct.
_TAG = re.compile(r"<\s*[/!?]?\s*[A-Za-z][^<>]*>|<\s*/\s*>")
# What is left that a renderer could still read as the start of a tag.
_TAG_START = re.compile(r"<(?=\s*[A-Za-z/!?])")

# [text](destination "title") with no brackets inside the text: the innermost link or image.
_DEST = r"(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)"
_TITLE = r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?"
_INLINE = re.compile(r"(!?)\[([^\[\]]*)\]\(\s*" + _DEST + _TITLE + r"\s*\)")
# [label]: destination -- a reference definition (what [text][label] and ![alt][label] point to)
# The destination may be on the next line ("[x]:" then "  http://..."), as CommonMark allows.
_REF_DEF = re.compile(
    r"^((?:[ \t]*(?:>|[-*+]|\d{1,9}[.)]))*[ \t]*)\[([^\[\]\n]+)\]:[ \t]*(?:\n[ \t]*)?(<[^<>\n]*>|\S+)[^\n]*$", re.M
)
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
# Anything left that a renderer could read as an image.
_IMAGE_START = re.compile(r"!(?=\[)")
# Bare addresses GitHub-flavoured Markdown auto-links: scheme://... and www....
# A kept link's placeholder (\x00N\x00) ends an address: what follows it is checked on its own.
_BARE_URL = re.compile(r"(?i)(?:https?|ftp)://[^\s<>\"'`()\[\]\x00]+|www\.[^\s<>\"'`()\[\]\x00]+")
# A link we keep: http(s), a plain host name, optional port, a path without anything odd.
_SAFE_URL = re.compile(r"(?i)https?://([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::\d{1,5})?(?:[/?#][^\s<>\"'`\\]*)?")

_SECRET = re.compile(
    r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,})"
)


def allowed_hosts(urls: Iterable[str | None]) -> frozenset[str]:
    """The lower-case host names of the http(s) URLs in ``urls`` (the answer's sources)."""
    hosts = set()
    for url in urls:
        if not url:
            continue
        match = _SAFE_URL.fullmatch(url.strip())
        if match:
            hosts.add(match.group(1).lower().rstrip("."))
    return frozenset(hosts)


class _AnyHost(frozenset[str]):
    """Every host name (a cited passage's links may point anywhere; their shape is still checked)."""

    def __contains__(self, item: object) -> bool:
        return True


ANY_HOST = _AnyHost()


def _safe_host(url: str, hosts: frozenset[str]) -> bool:
    match = _SAFE_URL.fullmatch(url)
    return bool(match) and match is not None and match.group(1).lower().rstrip(".") in hosts


_URL_ESCAPES = {"(": "%28", ")": "%29", "[": "%5B", "]": "%5D"}
_LABEL_ESCAPES = {**_URL_ESCAPES, "!": "%21", "*": "%2A", "_": "%5F", "~": "%7E"}


def _link_url(url: str, *, label: bool = False) -> str:
    """A kept URL with the characters Markdown could read as markup percent-encoded (more when shown as text)."""
    escapes = _LABEL_ESCAPES if label else _URL_ESCAPES
    return "".join(escapes.get(ch, ch) for ch in url)


def defang(url: str) -> str:
    """An address as text no renderer links: ``http[:]//host[.]example/path``."""
    url = url.replace("`", "%60").replace("<", "%3C").replace(">", "%3E").replace("[", "%5B").replace("]", "%5D")
    url = url.replace("(", "%28").replace(")", "%29")
    return url.replace("://", "[:]//").replace(".", "[.]")


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


class _Pass:
    """One neutralisation: kept links are set aside as placeholders so later rules cannot touch them."""

    def __init__(self, hosts: frozenset[str]) -> None:
        self.hosts = hosts
        self.kept: list[str] = []
        self.labels: list[str] = []

    def keep(self, markdown: str, label: str) -> str:
        self.kept.append(markdown)
        self.labels.append(label)
        return f"\x00{len(self.kept) - 1}\x00"

    def plain(self, text: str) -> str:
        """Placeholders inside ``text`` back to their label text (no link inside a link)."""
        return _PLACEHOLDER.sub(lambda m: self.labels[int(m.group(1))], text)

    def restore(self, text: str) -> str:
        for _ in range(_MAX_ROUNDS):
            if "\x00" not in text:
                break
            text = _PLACEHOLDER.sub(lambda m: self.kept[int(m.group(1))], text)
        return text.replace("\x00", "")

    def inline(self, match: re.Match[str]) -> str:
        bang, label, dest = match.group(1), self.plain(match.group(2)), match.group(3)
        if dest.startswith("<") and dest.endswith(">"):
            dest = dest[1:-1]
        dest = dest.strip()
        label = label.strip()
        if bang:
            alt = _one_line(label) or "no description"
            if _safe_host(dest, self.hosts):
                return self.keep(f"[image: {_final(alt, self.hosts)}]({_link_url(dest)})", f"(image: {alt})")
            return f"(image: {alt})"
        if _safe_host(dest, self.hosts):
            return self.keep(f"[{_final(label, self.hosts)}]({_link_url(dest)})", label)
        if re.match(r"(?i)\s*(?:https?|ftp)://", dest):
            return f"{label} ({defang(dest)})" if label else defang(dest)
        return label  # javascript:, data:, relative and fragment links: the text alone

    def autolink(self, match: re.Match[str]) -> str:
        url = match.group(1)
        if _safe_host(url, self.hosts):
            return self.keep(f"[{_link_url(url, label=True)}]({_link_url(url)})", url)
        if re.match(r"(?i)(?:https?|ftp)://", url):
            return defang(url)
        return url.replace(":", "[:]", 1)

    def ref_def(self, match: re.Match[str]) -> str:
        prefix, label, dest = match.group(1), match.group(2), match.group(3).strip("<>")
        if _safe_host(dest, self.hosts):
            return prefix + self.keep(f"[{_final(label, self.hosts)}]: {_link_url(dest)}", label)
        shown = defang(dest) if re.match(r"(?i)(?:https?|ftp)://", dest) else dest.replace(":", "[:]", 1)
        return f"{prefix}{label}: {shown}"

    def round(self, text: str) -> str:
        text = _COMMENT.sub("", text)
        text = _CDATA.sub("", text)
        text = _DROP_WITH_CONTENT.sub("", text)
        text = _AUTOLINK.sub(self.autolink, text)
        text = _EMAIL_AUTOLINK.sub(lambda m: m.group(1), text)
        text = _TAG.sub("", text)
        text = _INLINE.sub(self.inline, text)
        return _REF_DEF.sub(self.ref_def, text)


def _bare(match: re.Match[str], hosts: frozenset[str]) -> str:
    url = match.group(0)
    trail = ""
    while url and url[-1] in ".,;:!?)*_~":  # sentence punctuation is not part of the address
        trail = url[-1] + trail
        url = url[:-1]
    if not url:
        return match.group(0)
    if _safe_host(url if "://" in url else f"http://{url}", hosts):
        return url + trail
    return defang(url) + trail


def _final(text: str, hosts: frozenset[str]) -> str:
    """Whatever could still start a tag, an image or a link becomes literal; outside addresses are defanged."""
    text = _TAG_START.sub("&lt;", text)
    text = _IMAGE_START.sub("! ", text)
    text = re.sub(r"\]\s*\(", "] (", text)  # a link the rules above did not recognise (deep nesting)
    return _BARE_URL.sub(lambda m: _bare(m, hosts), text)


def neutralise(text: str, allowed_urls: Iterable[str | None] = (), *, open_links: bool = False) -> str:
    """``text`` with no live images, no raw HTML and links only to the hosts of ``allowed_urls``
    (``open_links``: to any host, for a cited passage)."""
    if not text:
        return text
    hosts = ANY_HOST if open_links else allowed_hosts(allowed_urls)
    work = _Pass(hosts)
    text = text.replace("\x00", "")
    for _ in range(_MAX_ROUNDS):
        new = work.round(text)
        if new == text:
            break
        text = new
    return work.restore(_final(text, hosts))


def _tool_sources(results: list[Any]) -> list[str]:
    """The ``source`` URLs inside tool results (the price rows the calculator used)."""
    found: list[str] = []
    stack: list[Any] = list(results)
    while stack and len(found) < 1000:
        item = stack.pop()
        if isinstance(item, Mapping):
            source = item.get("source")
            if isinstance(source, str) and source.startswith(("http://", "https://")):
                found.append(source)
            stack.extend(v for v in item.values() if isinstance(v, Mapping | list))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, Mapping | list))
    return found


def neutralise_answer(answer: Answer, also: Iterable[str] = ()) -> Answer:
    """The answer with its text and every citation's title, heading and text neutralised.

    Links in the answer's text, titles and headings may point only to the hosts of the answer's own
    sources: its citations' URLs and the ``source`` addresses of the price rows a tool result used
    (and ``also``: the chat model's own server, which a line saying why its answer is not shown names).
    A cited passage keeps the links its note or article holds (``open_links``).
    """
    urls = [c.url for c in answer.citations] + _tool_sources([t.result for t in answer.tool_calls]) + list(also)
    citations = [
        replace(
            c,
            title=neutralise(c.title, urls),
            heading=neutralise(c.heading, urls),
            text=neutralise(c.text, urls, open_links=True),
        )
        for c in answer.citations
    ]
    claims = [replace(c, sentence=neutralise(c.sentence, urls)) for c in answer.claims]
    return replace(answer, text=neutralise(answer.text, urls), citations=citations, claims=claims)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with API-key-shaped strings and the given secrets replaced by ``[redacted]``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return _SECRET.sub("[redacted]", text)


class RedactingFilter(logging.Filter):
    """A logging filter that removes secrets from a record's message and arguments."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: keep the raw pieces, still redacted
            message = f"{record.msg} {record.args}"
        record.msg = redact(message, self.secrets)
        record.args = None
        return True


def _hwqa_logger_names(root: str) -> list[str]:
    """The package logger and one per module (filters on a logger do not apply to its children)."""
    import pkgutil

    package = __import__(root)
    names = [root] + [f"{root}.{m.name}" for m in pkgutil.iter_modules(getattr(package, "__path__", []))]
    names += [n for n in logging.Logger.manager.loggerDict if n.startswith(root + ".")]
    return sorted(set(names))


def install_log_redaction(secrets: Iterable[str] = (), root: str = "hwqa") -> RedactingFilter:
    """Redact secrets from every record the ``hwqa`` loggers emit (idempotent: one shared filter)."""
    wanted = {s for s in secrets if s}
    shared: RedactingFilter | None = None
    for existing in logging.getLogger(root).filters:
        if isinstance(existing, RedactingFilter):
            shared = existing
    if shared is None:
        shared = RedactingFilter()
    shared.secrets = sorted(set(shared.secrets) | wanted)
    for name in _hwqa_logger_names(root):
        logger = logging.getLogger(name)
        if shared not in logger.filters:
            logger.addFilter(shared)
    return shared


# -- hidden HTML (for what is shown to a chat model) -------------------------------------------


_OPEN_TAG = re.compile(r"<\s*([A-Za-z][A-Za-z0-9]*)\b([^<>]*)>")
_HIDDEN_ATTR = re.compile(
    r"(?i)\bhidden\b|aria-hidden\s*=\s*[\"']?true|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])"
)


def drop_hidden_html(text: str) -> str:
    """``text`` without HTML elements marked hidden (``hidden``, ``aria-hidden``, ``display:none``...), content included."""
    if "<" not in text:
        return text
    out: list[str] = []
    pos = 0
    for match in _OPEN_TAG.finditer(text):
        if match.start() < pos or not _HIDDEN_ATTR.search(match.group(2)):
            continue
        out.append(text[pos : match.start()])
        close = re.compile(rf"<\s*/\s*{re.escape(match.group(1))}\s*>", re.I).search(text, match.end())
        pos = close.end() if close else len(text)
    out.append(text[pos:])
    return "".join(out)


# -- tool arguments ----------------------------------------------------------------------------


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
}


def schema_problems(schema: Mapping[str, Any], value: object, where: str = "arguments") -> list[str]:
    """What is wrong with ``value`` under the JSON-schema subset tools use (type, required, properties,
    additionalProperties, enum, minimum/maximum, exclusiveMinimum/Maximum, maxLength, items, min/maxItems)."""
    problems: list[str] = []
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _JSON_TYPES:
        ok = isinstance(value, _JSON_TYPES[kind]) and not (kind in ("number", "integer") and isinstance(value, bool))
        if kind == "number" and isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            ok = False
        if not ok:
            shown = json.dumps(value, default=str)
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            return [f"{where} must be a{'n' if kind[0] in 'aeiou' else ''} {kind}, not {shown}"]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where} must be one of {', '.join(map(str, schema['enum']))}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{where} must be at least {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{where} must be at most {schema['maximum']}")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            problems.append(f"{where} must be more than {schema['exclusiveMinimum']}")
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            problems.append(f"{where} must be less than {schema['exclusiveMaximum']}")
    if isinstance(value, str) and "maxLength" in schema and len(value) > schema["maxLength"]:
        problems.append(f"{where} must be at most {schema['maxLength']} characters")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            problems.append(f"{where} must have at least {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            problems.append(f"{where} must have at most {schema['maxItems']} items")
        items = schema.get("items")
        if isinstance(items, Mapping):
            for i, item in enumerate(value[:100]):
                problems += schema_problems(items, item, f"{where}[{i}]")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                problems.append(f"{key} is required")
        for key, item in value.items():
            if key in properties:
                problems += schema_problems(properties[key], item, str(key))
            elif schema.get("additionalProperties") is False:
                problems.append(f"unknown argument {str(key)[:40]!r}")
    return problems
