"""Read note files safely: which files are notes, their bytes, and their text.

Every path is resolved; a target outside the notes folder is refused unless
``follow_outside_symlinks``. Only regular files are opened (never a FIFO or a device), non-blocking
and without following a last-moment symlink, and at most ``max_bytes`` are read. Bytes become text
only if they are UTF-8 (or UTF-16 with a byte-order mark, read with a warning); anything else is
skipped with a precise reason (binary and its kind, the first bad byte and where it is).
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from pathlib import Path

NOTE_SUFFIXES = (".md", ".markdown")
NOTE_MAX_BYTES = 20_000_000  # default cap on one note file (settings: note_max_bytes)


_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x7fELF", "executable"),
)


def _binary_reason(data: bytes) -> str | None:
    """Why ``data`` is not a text note (magic bytes, or a NUL anywhere in it), or None."""
    for magic, what in _MAGIC:
        if data.startswith(magic):
            return f"binary file ({what}), not a text note"
    nul = data.find(b"\x00")
    if nul < 0:
        return None
    sample = data[:4096]
    if len(sample) >= 4 and (sample[1::2].count(0) > len(sample) // 4 or sample[0::2].count(0) > len(sample) // 4):
        return "not UTF-8 (looks like UTF-16 without a byte-order mark); save it as UTF-8 to index it"
    line = data[:nul].count(b"\n") + 1
    return f"binary file (a NUL byte at line {line}), not a text note"


def decode_note(data: bytes, rel: str) -> tuple[str | None, str | None, str | None]:
    """(text, skip reason, warning) for a note file's bytes: exactly one of text and reason is set."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return None, "not UTF-8 (UTF-32 with a byte-order mark); save it as UTF-8 to index it", None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            return None, "not UTF-8 (a UTF-16 byte-order mark, but not valid UTF-16); save it as UTF-8", None
        if "\x00" in text:
            return None, "binary file (UTF-16 with NUL characters), not a text note", None
        return text, None, f"{rel}: read as UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8"
    reason = _binary_reason(data)
    if reason:
        return None, reason, None
    try:
        return data.decode("utf-8"), None, None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return (
            None,
            (
                f"not UTF-8 (byte 0x{data[exc.start]:02X} at line {line}, column {column}; perhaps Latin-1 or "
                "Windows-1252); save it as UTF-8 to index it"
            ),
            None,
        )


def scan(notes_dir: Path) -> tuple[list[Path], list[Path]]:
    """(note files, symlinked folders) under ``notes_dir``; hidden entries skipped, links to folders not followed."""
    files: list[Path] = []
    linked_dirs: list[Path] = []
    for top, dirs, names in os.walk(notes_dir, followlinks=False):
        base = Path(top)
        kept = []
        for d in dirs:
            if d.startswith("."):
                continue
            if (base / d).is_symlink():
                linked_dirs.append(base / d)
            else:
                kept.append(d)
        dirs[:] = kept
        for name in names:
            if name.startswith(".") or Path(name).suffix.lower() not in NOTE_SUFFIXES:
                continue
            files.append(base / name)
    key = lambda p: p.relative_to(notes_dir).parts  # noqa: E731
    return sorted(files, key=key), sorted(linked_dirs, key=key)


def iter_note_files(notes_dir: Path) -> list[Path]:
    """Every Markdown file under ``notes_dir`` (recursively), skipping hidden folders, sorted."""
    return scan(notes_dir)[0]


_TYPES = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def _not_regular(mode: int) -> str:
    for test, what in _TYPES:
        if test(mode):
            return f"{what}, not a regular file"
    return "not a regular file"


def read_note_bytes(
    path: Path, root: Path, *, follow_outside_symlinks: bool = False, max_bytes: int = NOTE_MAX_BYTES
) -> bytes | str:
    """The bytes of one note file, or the reason it is not read.

    ``root`` is the resolved notes folder. The path is resolved first; a target outside ``root``
    is refused unless ``follow_outside_symlinks``. Only regular files are opened (a FIFO or a
    device never is), non-blocking, and at most ``max_bytes`` are read.
    """
    try:
        real = path.resolve(strict=True)
    except RuntimeError:  # Python 3.11 reports a symlink loop this way
        return "symlink loop"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop"
        if exc.errno == errno.ENOENT and path.is_symlink():
            return f"broken symlink (its target {os.readlink(path)} does not exist)"
        return f"cannot read: {exc.strerror or exc}"
    if not follow_outside_symlinks and not real.is_relative_to(root):
        return f"symlink to {real}, outside the notes folder; set follow_outside_symlinks to index it"
    try:
        st = os.stat(real)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode):
        return _not_regular(st.st_mode)
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            return "changed while it was being read; build again"
        parts: list[bytes] = []
        total = 0
        while total <= max_bytes:
            block = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not block:
                break
            parts.append(block)
            total += len(block)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    finally:
        os.close(fd)
    if total > max_bytes:
        return f"larger than {max_bytes:,} bytes (note_max_bytes); split it or raise the setting"
    return b"".join(parts)
