"""Durable file writes: the index and the page cache replace files whole, never half-written.

A write that fails for lack of disk (full, over quota, failing) is told as one line that names
the folder and what to free (:func:`disk_error`).

A reader sees the old file or the new one. The temporary file is named ``.<name>.<random>.tmp``
beside its target, so what a killed writer leaves is recognisable litter
(:func:`hwqa.index.reader.remove_litter` removes it from the index folder).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import sqlite3
from pathlib import Path

from ..errors import IndexWriteError


def fsync_dir(path: Path) -> None:
    """Make a rename or a new entry in the folder ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file beside it, fsync and rename (creating the folder if needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fh = open(tmp, "xb")  # noqa: SIM115  (created with the umask's permissions, like the file it replaces)
    try:
        with fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


_DISK_ERRNOS = {
    errno.ENOSPC: "its disk is full",
    errno.EDQUOT: "its disk quota is used up",
    errno.EIO: "its disk failed to write",
}
_DISK_MESSAGES = (  # how SQLite and FAISS say the same errors
    ("disk is full", errno.ENOSPC),
    ("no space left", errno.ENOSPC),
    ("quota exceeded", errno.EDQUOT),
    ("disk i/o error", errno.EIO),
    ("input/output error", errno.EIO),
)


def disk_error(
    exc: BaseException,
    folder: Path,
    need_bytes: int = 0,
    *,
    then: str = "run 'hwqa index' again",
    still: str = "the previous index still answers",
) -> IndexWriteError | None:
    """The one-line error for a write into ``folder`` that failed for lack of disk (ENOSPC, EDQUOT, EIO), else None.

    ``then`` is what to run once there is room, ``still`` what answers meanwhile (the message's end).

    Recognises the ``OSError`` itself and the way SQLite (``database or disk is full``, ``disk I/O
    error``) and FAISS (``write error ... No space left on device``) report it. ``need_bytes``, when
    known, is about what the write needed; the message says how much to free.
    """
    code = exc.errno if isinstance(exc, OSError) else None
    if code not in _DISK_ERRNOS and isinstance(exc, (sqlite3.Error, RuntimeError)):
        text = str(exc).lower()
        code = next((c for words, c in _DISK_MESSAGES if words in text), None)
    if code not in _DISK_ERRNOS:
        return None
    try:
        free = shutil.disk_usage(folder if folder.exists() else folder.parent).free
    except OSError:
        free = None
    room = f" ({free / 1e6:,.1f} MB free)" if free is not None else ""
    amount = f"at least {max(1.0, need_bytes / 1e6):,.0f} MB" if need_bytes else "some space"
    if code == errno.EIO:
        todo = f"check that disk (dmesg) or point HWQA_INDEX at another one, then {then}"
    else:
        todo = (
            f"free {amount} on that disk (old files; damaged-gen-* folders in {folder} can go) "
            f"or point HWQA_INDEX at a disk with room, then {then}"
        )
    return IndexWriteError(f"cannot write the index in {folder}: {_DISK_ERRNOS[code]}{room}; {todo}; {still}")
