"""The index's live pointer (``CURRENT``): read without trusting it, switched atomically, pruned after.

The pointer names the live generation. Whatever is found in its place (a FIFO, a symlink, a
device, megabytes of junk, bytes that are not UTF-8) is refused with one line, in bounded time: it
is opened non-blocking without following a symlink, must be a regular file, and at most
:data:`POINTER_MAX_BYTES` + 1 bytes are read. A switch replaces it with one atomic rename, then
removes every generation but the new one and the one live before it, and the litter of killed
builds.
"""

from __future__ import annotations

import datetime as _dt
import errno
import os
import re
import shutil
import stat
from pathlib import Path

from ..errors import IndexCorruptError
from .atomic import disk_error, write_atomic

__all__ = [
    "CURRENT",
    "GEN_NAME",
    "POINTER_MAX_BYTES",
    "REBUILD_HINT",
    "clear_pointer",
    "current_generation_dir",
    "quarantine",
    "read_pointer",
    "remove_litter",
    "switch_to",
]

CURRENT = "CURRENT"
REBUILD_HINT = "run 'hwqa index' to rebuild it"

POINTER_MAX_BYTES = 256  # a CURRENT file longer than this is not a generation name
GEN_NAME = re.compile(r"gen-[0-9A-Za-z-]{1,64}")


def read_pointer(pointer: Path, hint: str) -> bytes | None:
    """The bytes of ``CURRENT`` (None when it does not exist): a regular file, never followed if a symlink.

    ``hint`` ends each error's line (what to do next).

    Opened non-blocking and without following a symlink, checked to be a regular file before a byte
    is read (a FIFO would block every command), and read up to :data:`POINTER_MAX_BYTES` + 1 bytes.
    """
    try:
        fd = os.open(pointer, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise IndexCorruptError(f"{pointer} is a symlink, not the index's own pointer file; {hint}") from None
        raise IndexCorruptError(f"cannot read {pointer} ({exc.strerror}); {hint}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise IndexCorruptError(f"{pointer} is {_kind(mode)}, not a regular file; {hint}")
        return os.read(fd, POINTER_MAX_BYTES + 1)
    except OSError as exc:
        raise IndexCorruptError(f"cannot read {pointer} ({exc.strerror}); {hint}") from None
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    """What a file that should be a regular file is, in words."""
    for test, what in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISLNK, "a symlink"),
    ):
        if test(mode):
            return what
    return "something else"


def clear_pointer(index_dir: Path) -> str | None:
    """Make room for a new ``CURRENT`` when what holds its place is no regular file: a folder is
    moved aside (``damaged-CURRENT-<time>``, never deleted), anything else but a regular file
    (FIFO, socket, device, symlink) is removed. Returns what was done, for the build's warnings."""
    pointer = index_dir / CURRENT
    try:
        mode = os.lstat(pointer).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
        target = index_dir / f"damaged-{CURRENT}-{stamp}"
        os.replace(pointer, target)
        return f"{pointer} was a folder, not the index's pointer file; it was moved aside to {target}"
    pointer.unlink()
    return f"{pointer} was {_kind(mode)}, not the index's pointer file; it was removed"


def current_generation_dir(index_dir: Path) -> Path | None:
    """The live generation's folder, or None when no index has been built.

    ``CURRENT`` is read as bytes (see :func:`read_pointer`) and must hold one ASCII generation
    name; that generation must be a real folder inside ``index_dir`` (a symlink is refused, wherever
    it points). Anything else is an :class:`IndexCorruptError` whose one line says to rebuild;
    ``hwqa index`` then builds afresh and replaces the pointer.
    """
    pointer = index_dir / CURRENT
    data = read_pointer(pointer, REBUILD_HINT)
    if data is None:
        return None
    name = data.strip(b" \t\r\n")
    if len(data) > POINTER_MAX_BYTES or not GEN_NAME.fullmatch(name.decode("ascii", "replace")):
        raise IndexCorruptError(f"{pointer} does not name a generation; {REBUILD_HINT}")
    gen_dir = index_dir / name.decode("ascii")
    try:
        mode = os.lstat(gen_dir).st_mode
    except FileNotFoundError:
        return gen_dir  # said by whoever opens it (a build may just have pruned it)
    except OSError as exc:
        raise IndexCorruptError(f"cannot read {gen_dir} ({exc.strerror}); {REBUILD_HINT}") from None
    if stat.S_ISLNK(mode):
        raise IndexCorruptError(f"index generation {gen_dir.name} is a symlink, not a folder of this index; {REBUILD_HINT}")
    return gen_dir


def quarantine(gen_dir: Path) -> Path:
    """Move a damaged generation aside (never delete it) and return where it went."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S")
    target = gen_dir.with_name(f"damaged-{gen_dir.name}-{stamp}")
    os.replace(gen_dir, target)
    return target


def remove_litter(index_dir: Path) -> list[str]:
    """Remove what a build killed mid-write or mid-switch left: ``.*.tmp`` files and ``.gen-*.partial`` folders.

    Only the top of the index folder is cleaned, under the build lock (readers never write there).
    Returns the names removed.
    """
    removed: list[str] = []
    if not index_dir.is_dir():
        return removed
    for tmp in index_dir.glob(".*.tmp"):
        if tmp.is_file() or tmp.is_symlink():
            tmp.unlink(missing_ok=True)
            removed.append(tmp.name)
    for partial in index_dir.glob(".gen-*.partial"):
        shutil.rmtree(partial, ignore_errors=True)
        removed.append(partial.name)
    return removed


def switch_to(index_dir: Path, gen_dir: Path, *, keep: int = 2) -> None:
    """Make ``gen_dir`` live in one atomic step, then prune old generations.

    What is kept is decided by what was live, not by name order: the new live generation and
    (with ``keep`` >= 2) the one that was live just before it, which readers may still hold open.
    A reader still opening an older one finds files gone and opens the new one
    (:func:`hwqa.index.reader.read_live`).
    Any other ``gen-*`` folder (older ones, and orphans of builds killed before their switch) is
    removed, as is the litter :func:`remove_litter` removes.
    """
    try:
        before = current_generation_dir(index_dir)
    except IndexCorruptError:
        before = None
    try:
        clear_pointer(index_dir)  # a folder (or FIFO, socket …) where CURRENT belongs cannot be renamed over
        write_atomic(index_dir / CURRENT, (gen_dir.name + "\n").encode("utf-8"))
    except BaseException as exc:
        try:
            now = current_generation_dir(index_dir)
        except IndexCorruptError:
            now = None
        if now is not None and now.name == gen_dir.name:  # renamed, then the folder's fsync failed: it is live
            live = f"the new index is live (generation {gen_dir.name}) but may not survive a crash"
            error = disk_error(exc, index_dir, still=live)
            if error is not None:
                raise error from None
            raise
        if before is None or before.name != gen_dir.name:
            shutil.rmtree(gen_dir, ignore_errors=True)  # never live: it only takes room
        error = disk_error(exc, index_dir)
        if error is not None:
            raise error from None
        raise
    kept = {gen_dir.name}
    if keep >= 2 and before is not None:
        kept.add(before.name)
    for old in index_dir.glob("gen-*"):
        if old.is_symlink():  # never a generation of this index (readers refuse it): the link goes, not its target
            old.unlink(missing_ok=True)
        elif old.is_dir() and old.name not in kept:
            shutil.rmtree(old, ignore_errors=True)
    remove_litter(index_dir)
