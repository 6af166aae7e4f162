"""Decoding a body: Content-Encoding (capped while streaming), the content type and the charset."""

from __future__ import annotations

import codecs
import re
import zlib
from typing import Any

from .types import BadEncoding

__all__ = ["HTML_TYPES", "TEXT_TYPES", "Decoder", "decode_body", "parse_content_type"]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})


class Decoder:
    """Incremental Content-Encoding decoder whose output never exceeds a given limit."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._z: Any = None
        self._started = False

    def _new(self, first: bytes) -> Any:
        if self.encoding in ("gzip", "x-gzip"):
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        # "deflate" should be zlib-wrapped, but some servers send raw deflate.
        wrapped = len(first) >= 2 and first[0] & 0x0F == 8 and (first[0] * 256 + first[1]) % 31 == 0
        return zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)

    def feed(self, data: bytes, limit: int) -> bytes:
        if self.encoding in ("", "identity"):
            return data
        out = bytearray()
        while data and len(out) < limit:
            if self._z is None:
                self._z = self._new(data)
            try:
                out += self._z.decompress(data, limit - len(out))
            except zlib.error:
                raise BadEncoding(f"body is not valid {self.encoding} data") from None
            if self._z.unconsumed_tail:
                data = self._z.unconsumed_tail
            elif self._z.eof and self._z.unused_data:
                data = self._z.unused_data  # another gzip member follows
                self._z = None
            else:
                data = b""
        return bytes(out)


def parse_content_type(value: str | None) -> tuple[str | None, str | None]:
    """(mime type lower-case, charset) from a Content-Type header."""
    if not value:
        return None, None
    parts = value.split(";")
    mime = parts[0].strip().lower() or None
    charset = None
    for p in parts[1:]:
        key, _, val = p.partition("=")
        if key.strip().lower() == "charset":
            charset = val.strip().strip("\"'") or None
    return mime, charset


_META_CHARSET_RE = re.compile(rb"<meta[^>]+?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:\-]+)", re.I)
_WHATWG_ALIASES = {
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
}


def _codec(name: str | None) -> str | None:
    if not name:
        return None
    name = name.strip().lower()
    name = _WHATWG_ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode_body(data: bytes, mime: str | None, charset: str | None) -> str:
    """Decode a body: BOM, then the header charset, then ``<meta charset>``, then UTF-8.

    Undecodable bytes become U+FFFD rather than failing the page.
    """
    for bom, bom_enc in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom) :].decode(bom_enc, errors="replace")
    enc: str | None = _codec(charset)
    if enc is None and mime in HTML_TYPES:
        m = _META_CHARSET_RE.search(data[:8192])
        if m:
            enc = _codec(m.group(1).decode("ascii", "replace"))
            if enc and enc.startswith("utf-16"):
                enc = "utf-8"  # a meta tag cannot truthfully declare UTF-16
    return data.decode(enc or "utf-8", errors="replace")
