"""A wall-clock limit on a CPU-bound step: the step is interrupted, not waited for.

Extracting and chunking a linked page is pure Python work over whatever a server sent (a 4 MB
page holds hundreds of thousands of elements), so a build charges it to the link's deadline:
:func:`time_limit` raises :class:`TimeLimitExceeded` inside the thread that runs the step once the
limit passes (``PyThreadState_SetAsyncExc``: delivered at the step's next bytecode, so a loop in
Python or in a library's Python callbacks stops within moments). It is raised again every
:data:`REPEAT_S` until the step has stopped, since a garbage-collector callback or a ``__del__``
that happens to be running at that moment swallows an exception. The limit is armed only while
the ``with`` block runs; leaving it disarms the watcher under a lock, so nothing is raised later.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["REPEAT_S", "TimeLimitExceeded", "time_limit"]

REPEAT_S = 0.05  # after the limit, the exception is raised again this often until the step stops


class TimeLimitExceeded(BaseException):
    """The step ran past its limit (a BaseException, so a library's ``except Exception`` cannot swallow it)."""


def _raise_in(thread_id: int) -> None:
    done = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(TimeLimitExceeded))
    if done > 1:  # more than one thread state touched: undo (documented CPython protocol)
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), None)


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`TimeLimitExceeded` in this thread if the block runs longer than ``seconds``.

    Catch it around the ``with`` statement, not inside the block: an exception raised while the
    block is being left is raised from the ``with`` statement itself.
    """
    if seconds <= 0:
        raise TimeLimitExceeded
    thread_id = threading.get_ident()
    lock = threading.Lock()
    done = threading.Event()

    def watch() -> None:
        if done.wait(seconds):
            return
        while True:
            with lock:
                if done.is_set():
                    return
                _raise_in(thread_id)
            if done.wait(REPEAT_S):
                return

    watcher = threading.Thread(target=watch, name="hwqa-time-limit", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        with lock:
            done.set()
