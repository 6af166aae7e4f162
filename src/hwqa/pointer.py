"""Reading the index's live pointer (``CURRENT``) without trusting it.

The pointer names the live generation. Whatever is found in its place (a FIFO, a symlink, a
device, megabytes of junk, bytes that are not UTF-8) is refused with one line, in bounded time: it
is opened non-blocking without following a symlink, must be a regular file, and at most
:data:`POINTER_MAX_BYTES` + 1 bytes are read.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from .errors import IndexCorruptError

__all__ = ["GEN_NAME", "POINTER_MAX_BYTES", "read_pointer"]

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
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IndexCorruptError(f"{pointer} is not a regular file (a FIFO or a device?); {hint}")
        return os.read(fd, POINTER_MAX_BYTES + 1)
    except OSError as exc:
        raise IndexCorruptError(f"cannot read {pointer} ({exc.strerror}); {hint}") from None
    finally:
        os.close(fd)
