"""One builder at a time: the index's ``build.lock``, held with ``flock``; who holds it, said in words."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import IndexLockedError

LOCK = "build.lock"

__all__ = ["LOCK", "build_lock"]


@contextmanager
def build_lock(index_dir: Path, *, wait: float = 0.0, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the index's build lock; wait up to ``wait`` seconds for another builder, then refuse."""
    index_dir.mkdir(parents=True, exist_ok=True)
    path = index_dir / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = lock_holder(path)
                if time.monotonic() >= deadline:
                    raise IndexLockedError(
                        f"another build of {index_dir} is running ({holder}); wait for it to finish and try again"
                    ) from None
                if on_wait and not told:
                    on_wait(f"waiting for another build of {index_dir} ({holder})")
                    told = True
                time.sleep(0.2)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def lock_holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text(encoding="utf-8") or "{}")
        since = time.strftime("%H:%M:%S", time.localtime(float(info["since"])))
        return f"pid {info['pid']} on {info['host']}, since {since}"
    except (OSError, ValueError, KeyError, TypeError):
        return "holder unknown"
