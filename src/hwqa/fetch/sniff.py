"""Is a body labelled as text really text? Magic numbers and a count of unprintable characters.

Servers mislabel files: a PDF, an image, an archive or plain random bytes sent as ``text/html``
used to be indexed as pages of garbage (1 MB of random bytes gave 1,890 chunks). The fetcher asks
:func:`binary_reason` about every body it would index; a non-``None`` answer skips the link with
that reason. :func:`looks_like_html_document` lets an HTML document served as ``text/plain`` be
extracted as HTML (its hidden text, scripts and navigation dropped) rather than indexed as markup.
:func:`sniff_content_type` guesses the type of a body sent without one (or with a generic one).
"""

from __future__ import annotations

import re

__all__ = ["BINARY_CHAR_SHARE", "binary_reason", "looks_like_html_document", "sniff_content_type"]

# (prefix, what it is). Checked on the first bytes of the decoded (Content-Encoding removed) body.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "a PDF document"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"PK\x05\x06", "a ZIP archive"),
    (b"\x1f\x8b", "gzip data"),
    (b"\xfd7zXZ\x00", "xz data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x28\xb5\x2f\xfd", "zstd data"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "an ELF executable"),
    (b"\x00asm", "WebAssembly"),
    (b"OggS", "Ogg audio or video"),
    (b"ID3", "MP3 audio"),
    (b"fLaC", "FLAC audio"),
    (b"\x1a\x45\xdf\xa3", "Matroska/WebM video"),
    (b"wOFF", "a web font"),
    (b"wOF2", "a web font"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an Office document"),
)
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")

BINARY_CHAR_SHARE = 0.10
"""A decoded body with more than this share of control characters (other than tab, newline,
carriage return and form feed) and undecodable bytes (U+FFFD) is binary, not text."""
_MIN_SUSPICIOUS = 16  # a few stray bad bytes in a short page do not make it binary

_SUSPICIOUS_RE = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f\ufffd]")
_HTML_DOC_RE = re.compile(r"\A(?:\ufeff)?\s*(?:<!--.*?-->\s*)*(?:<!doctype\s+html|<html[\s>])", re.I | re.S)


def _magic(head: bytes) -> str | None:
    if head.startswith(_BOMS):
        return None
    for prefix, what in _MAGIC:
        if head.startswith(prefix):
            return what
    if head[:4] == b"RIFF" and head[8:12] in (b"WEBP", b"WAVE", b"AVI "):
        return {b"WEBP": "a WebP image", b"WAVE": "WAV audio", b"AVI ": "AVI video"}[head[8:12]]
    if head[4:8] == b"ftyp":
        return "an MP4/QuickTime file"
    if head[:3] == b"BZh" and head[3:4].isdigit():
        return "bzip2 data"
    return None


def binary_reason(body: bytes | None, text: str, label: str) -> str | None:
    """Why a body labelled ``label`` is not text (a one-line reason), or ``None`` if it is text.

    ``body`` is the raw decoded body when there is one (its first bytes are checked against known
    file signatures); ``text`` is what it decoded to (its share of unprintable characters is
    counted over the whole text, so binary after the first kilobytes is caught too).
    """
    if body is not None:
        what = _magic(body[:64])
        if what is not None:
            return f"binary content ({what}) labelled {label}"
    elif text.startswith(("%PDF-", "\ufffdPNG", "GIF87a", "GIF89a")):
        return f"binary content labelled {label}"
    if not text:
        return None
    suspicious = len(text) - len(_SUSPICIOUS_RE.sub("", text))
    share = suspicious / len(text)
    if suspicious >= _MIN_SUSPICIOUS and share > BINARY_CHAR_SHARE:
        return f"binary content ({share:.0%} control or undecodable characters) labelled {label}"
    return None


def looks_like_html_document(text: str) -> bool:
    """True if ``text`` starts like an HTML document (a doctype or an ``<html>`` tag)."""
    return _HTML_DOC_RE.match(text[:4096]) is not None


# Content-type sniffing, for a body sent without a type or with a generic one
_SNIFF_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
    (b"OggS", "audio/ogg"),
    (b"ID3", "audio/mpeg"),
)
_HTML_SNIFF_RE = re.compile(
    rb"^\s*(?:<!doctype\s+html|<html|<head|<body|<title|<meta|<div|<p[\s>]|<h[1-6]|<!--|<table)",
    re.I,
)


def sniff_content_type(data: bytes) -> str:
    """Guess a content type from the first bytes (when the server sent none, or a generic one)."""
    head = data[:1024]
    for magic, mime in _SNIFF_MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    stripped = head.lstrip(b"\xef\xbb\xbf")
    if _HTML_SNIFF_RE.match(stripped):
        return "text/html"
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "application/octet-stream"
    return "text/plain"
