"""Durable file writes: the index and the page cache replace files whole, never half-written.

A reader sees the old file or the new one. The temporary file is named ``.<name>.<random>.tmp``
beside its target, so what a killed writer leaves is recognisable litter
(:func:`hwqa.index.remove_litter` removes it from the index folder).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path


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
