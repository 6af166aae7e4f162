"""Read note files safely: which files are notes, their bytes, and their text.

Every path is resolved; a target outside the notes folder is refused unless
``follow_outside_symlinks``. Only regular files are opened (never a FIFO or a device), non-blocking
and without following a last-moment symlink, and at most ``max_bytes`` are read. Bytes become text
only if they are UTF-8 (or UTF-16 with a byte-order mark, read with a warning); anything else is
skipped with a precise reason (binary and its kind, the first bad byte and where it is).

A folder swapped for a symlink while a build runs cannot let an outside file in. The walk opens
every folder relative to its parent's descriptor with ``O_NOFOLLOW | O_DIRECTORY`` and checks its
device and inode against the listing; a note inside the folder is opened beneath the notes folder's
descriptor with ``openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`` where the kernel has it (else one
``O_NOFOLLOW`` component at a time), and the file opened must be the one the walk listed.
"""

from __future__ import annotations

import codecs
import ctypes
import errno
import os
import stat
import sys
from collections.abc import Iterator
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


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | os.O_NOFOLLOW
FileId = tuple[int, int]  # (device, inode) of a file as the walk listed it


BAD_NAME = "its name is not valid UTF-8 (shown with \\x escapes); rename it to index it"


def shown_name(name: str) -> str:
    """A file name for people: bytes that are not UTF-8 (kept as surrogates by Python) as ``\\xNN``."""
    return os.fsencode(name).decode("utf-8", "backslashreplace") if _undecodable(name) else name


def _undecodable(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def name_is_text(name: str) -> bool:
    """Whether a file name (or path) is valid UTF-8, so it can be stored, shown and looked up as text."""
    return not _undecodable(name)


def _is_note(name: str) -> bool:
    return os.path.splitext(name)[1].lower() in NOTE_SUFFIXES


Stamp = tuple[int, int, int, int]  # (size, mtime_ns, ctime_ns, inode) of a note file as the walk listed it


def stamp_of(st: os.stat_result) -> Stamp:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _listing(
    fd: int, base: Path, files: dict[Path, FileId | None], linked_dirs: list[Path], stamps: dict[Path, Stamp] | None = None
) -> list[tuple[str, FileId]]:
    """One folder's entries (through its descriptor): notes into ``files`` (and their :data:`Stamp`
    into ``stamps``), symlinked folders into ``linked_dirs``; returns the subfolders to descend
    into, with the identity the listing saw."""
    subdirs: list[tuple[str, FileId]] = []
    with os.scandir(fd) as entries:
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # gone since the listing
            if stat.S_ISDIR(st.st_mode):
                subdirs.append((name, (st.st_dev, st.st_ino)))
            elif stat.S_ISLNK(st.st_mode):
                try:
                    to_dir = stat.S_ISDIR(os.stat(name, dir_fd=fd).st_mode)
                except (OSError, ValueError):
                    to_dir = False  # broken or a loop: said when the note is read
                if to_dir:
                    linked_dirs.append(base / name)
                elif _is_note(name):
                    files[base / name] = None  # a symlinked note: read_note_bytes resolves it
            elif _is_note(name):
                path = base / name
                files[path] = (st.st_dev, st.st_ino)
                if stamps is not None and stat.S_ISREG(st.st_mode):
                    stamps[path] = stamp_of(st)
    return subdirs


def scan_ids(notes_dir: Path, stamps: dict[Path, Stamp] | None = None) -> tuple[dict[Path, FileId | None], list[Path]]:
    """Every note file under ``notes_dir`` with the (device, inode) the walk saw (None for a symlink),
    and the symlinked folders; hidden entries skipped, symlinks to folders never followed.

    Each folder is opened relative to its parent's descriptor with ``O_NOFOLLOW | O_DIRECTORY`` and
    must be the folder the listing saw (device and inode), so a folder swapped for a symlink while
    the walk runs is not entered; at most one descriptor per level is open.
    """
    files: dict[Path, FileId | None] = {}
    linked_dirs: list[Path] = []
    top = os.open(notes_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    stack: list[tuple[int, Path, Iterator[tuple[str, FileId]]]] = []
    try:
        stack.append((top, notes_dir, iter(_listing(top, notes_dir, files, linked_dirs, stamps))))
        while stack:
            fd, base, pending = stack[-1]
            step = next(pending, None)
            if step is None:
                os.close(fd)
                stack.pop()
                continue
            name, seen = step
            try:
                sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                continue  # replaced by a symlink (ELOOP, ENOTDIR) or removed since the listing
            st = os.fstat(sub)
            if (st.st_dev, st.st_ino) != seen:
                os.close(sub)
                continue
            try:
                subdirs = _listing(sub, base / name, files, linked_dirs, stamps)
            except OSError:
                os.close(sub)
                continue
            stack.append((sub, base / name, iter(subdirs)))
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    return files, linked_dirs


def scan(notes_dir: Path) -> tuple[list[Path], list[Path]]:
    """(note files, symlinked folders) under ``notes_dir``, sorted; see :func:`scan_ids`."""
    files, linked_dirs = scan_ids(notes_dir)
    key = lambda p: p.relative_to(notes_dir).parts  # noqa: E731
    return sorted(files, key=key), sorted(linked_dirs, key=key)


# openat2(2) (Linux 5.6+): resolve a relative path beneath a folder descriptor, refusing any symlink
# and any escape ('..', absolute links, mount crossings are refused too by RESOLVE_BENEATH).
_SYS_OPENAT2 = 437  # the same number on every architecture Linux added it to (x86-64, arm64, ...)
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


_openat2_state: dict[str, bool] = {"usable": sys.platform == "linux"}


def _openat2(dir_fd: int, rel: str, flags: int) -> int | None:
    """The descriptor openat2 gives, or None where the kernel (or a sandbox) does not offer it."""
    if not _openat2_state["usable"]:
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        how = _OpenHow(flags, 0, _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS)
        fd = libc.syscall(
            ctypes.c_long(_SYS_OPENAT2), ctypes.c_int(dir_fd), ctypes.c_char_p(os.fsencode(rel)),
            ctypes.byref(how), ctypes.c_size_t(ctypes.sizeof(how)),
        )  # fmt: skip
    except (OSError, AttributeError):
        _openat2_state["usable"] = False
        return None
    if fd >= 0:
        return int(fd)
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EPERM):  # an older kernel, or a seccomp filter that refuses it
        _openat2_state["usable"] = False
        return None
    raise OSError(code, os.strerror(code), rel)


def open_beneath(root: Path, rel: Path) -> int:
    """A read-only, non-blocking descriptor of the file ``rel`` beneath the folder ``root``, following
    no symlink at any level (``OSError`` ``ELOOP``/``ENOTDIR``/``EXDEV`` when something on the way
    is one)."""
    top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fd = _openat2(top, rel.as_posix(), _FILE_FLAGS)
        if fd is not None:
            return fd
        current = top
        try:
            for part in rel.parts[:-1]:
                nxt = os.open(part, _DIR_FLAGS, dir_fd=current)
                if current != top:
                    os.close(current)
                current = nxt
            return os.open(rel.name, _FILE_FLAGS, dir_fd=current)
        finally:
            if current != top:
                os.close(current)
    finally:
        os.close(top)


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
    path: Path,
    root: Path,
    *,
    follow_outside_symlinks: bool = False,
    max_bytes: int = NOTE_MAX_BYTES,
    seen: FileId | None = None,
) -> bytes | str:
    """The bytes of one note file, or the reason it is not read.

    ``root`` is the resolved notes folder. The path is resolved first; a target outside ``root``
    is refused unless ``follow_outside_symlinks``. A target inside ``root`` is opened beneath it
    with no symlink followed at any level (:func:`open_beneath`), so a folder swapped for a symlink
    since the walk is refused, and it must be the file the walk listed (``seen``: its device and
    inode). Only regular files are opened (a FIFO or a device never is), non-blocking, and at most
    ``max_bytes`` are read.
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
    inside = real.is_relative_to(root)
    if not follow_outside_symlinks and not inside:
        return f"symlink to {real}, outside the notes folder; set follow_outside_symlinks to index it"
    try:
        st = os.stat(real)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode):
        return _not_regular(st.st_mode)
    try:
        fd = open_beneath(root, real.relative_to(root)) if inside else os.open(real, _FILE_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EXDEV, errno.ENOENT):
            return "changed while it was being read (a folder on its path was moved or replaced); build again"
        return f"cannot read: {exc.strerror or exc}"
    try:
        now = os.fstat(fd)
        expected = seen or (st.st_dev, st.st_ino)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != expected:
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
