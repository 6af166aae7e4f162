"""A question's length cap and time budget: one slow question never freezes the others.

Reading a question (:func:`hwqa.answer.question.parse_question`: its type, names and money words) is
regular expressions over text a user typed. A regular expression runs in C and holds the
interpreter lock while it runs, so in the web chat a thread stuck in one stopped every other
session and ``GET /`` with it (15.9 s while one 30,000-digit question was read). So:

- a question longer than ``question_max_chars`` is refused at once, with one line;
- in the main thread (``hwqa ask``, ``hwqa eval``) the parse runs under an alarm: the regular
  expression engine checks for signals as it runs, so the alarm stops it at the budget;
- in any other thread (the web chat's answers) the parse runs in a worker process: the thread
  that waits for it holds no lock, and a worker past the budget is killed (the next question gets
  a fresh one). Workers are started when first needed and kept (at most :data:`MAX_WORKERS`).

Either way a question past ``question_budget_s`` gets one line saying so, and the rest of the
answer reads only text of bounded length: the capped question and passages of one chunk each.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING

from ..errors import HwqaError

if TYPE_CHECKING:
    from .question import Question

__all__ = ["MAX_WORKERS", "QuestionTooLong", "QuestionTooSlow", "check_length", "read_question", "shutdown_workers"]

MAX_WORKERS = 4  # worker processes kept at most (the web chat answers 4 questions at a time)
START_TIMEOUT_S = 60.0  # a new worker must be ready in this long (it imports the question reader)
_HEADER = struct.Struct("!I")


class QuestionTooLong(HwqaError):
    """The question is longer than the ``question_max_chars`` setting."""


class QuestionTooSlow(HwqaError):
    """Reading the question took longer than the ``question_budget_s`` setting."""


def check_length(text: str, max_chars: int) -> None:
    """Refuse a question longer than ``max_chars`` characters, in one line."""
    if len(text) > max_chars:
        raise QuestionTooLong(
            f"the question is {len(text):,} characters long; hwqa reads questions of at most {max_chars:,} "
            "characters (question_max_chars): shorten it, or ask about one thing at a time"
        )


def too_slow(budget: float) -> QuestionTooSlow:
    return QuestionTooSlow(
        f"reading this question took over {budget:g} s (question_budget_s), so it was stopped; ask it in fewer, plainer words"
    )


def read_question(text: str, *, max_chars: int, budget: float) -> Question:
    """The parse of ``text`` within ``max_chars`` characters and ``budget`` seconds, or one line why not."""
    check_length(text, max_chars)
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        return _read_under_alarm(text, budget)
    return _POOL.read(text, budget)


# --- in the main thread: an alarm ------------------------------------------------------------


class _Alarm(BaseException):
    """Raised by the alarm's handler inside the parse (a BaseException: nothing swallows it)."""


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise _Alarm

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _read_under_alarm(text: str, budget: float) -> Question:
    from .question import parse_question

    try:
        with _alarm(budget):
            return parse_question(text)
    except _Alarm:
        raise too_slow(budget) from None


# --- elsewhere: worker processes --------------------------------------------------------------


def _send(stream: IO[bytes], obj: object) -> None:
    data = memoryview(_HEADER.pack(len(data := pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))) + data)
    while data:
        written = stream.write(data)
        data = data[written if written is not None else len(data) :]
    stream.flush()


def _exactly(stream: IO[bytes], size: int) -> bytes:
    data = b""
    while len(data) < size:
        more = stream.read(size - len(data))
        if not more:
            raise EOFError
        data += more
    return data


def _receive(stream: IO[bytes]) -> object:
    (size,) = _HEADER.unpack(_exactly(stream, _HEADER.size))
    return pickle.loads(_exactly(stream, size))


class _Worker:
    """One worker process: reads question texts from its stdin, writes their parses to its stdout."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from hwqa.answer.budget import worker_main; worker_main()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,  # unbuffered: select() on the pipe sees every byte not yet read
            start_new_session=True,  # Ctrl-C in a terminal stops the server, which stops its workers
        )
        self.ready = False

    def _wait(self, seconds: float) -> bool:
        assert self.proc.stdout is not None
        readable, _, _ = select.select([self.proc.stdout], [], [], max(0.0, seconds))
        return bool(readable)

    def read(self, text: str, budget: float) -> Question:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if not self.ready:  # its start-up is not charged to the question
            if not self._wait(START_TIMEOUT_S) or _receive(self.proc.stdout) != "ready":
                raise EOFError
            self.ready = True
        _send(self.proc.stdin, text)
        if not self._wait(budget):
            raise TimeoutError
        reply = _receive(self.proc.stdout)
        if not (isinstance(reply, tuple) and len(reply) == 2 and reply[0] in ("ok", "error")):
            raise EOFError
        if reply[0] == "error":
            raise HwqaError(f"this question could not be read ({reply[1]}); rephrase it")
        question: Question = reply[1]
        return question

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


class _Pool:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []

    def _take(self) -> _Worker:
        with self._lock:
            if self._idle:
                return self._idle.pop()
            worker = _Worker()
            self._all.append(worker)
            return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            if len(self._idle) < MAX_WORKERS:
                self._idle.append(worker)
                return
            self._all.remove(worker)
        worker.kill()

    def _drop(self, worker: _Worker) -> None:
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
        worker.kill()

    def read(self, text: str, budget: float) -> Question:
        for attempt in range(2):  # a worker that died is replaced once
            worker = self._take()
            try:
                question = worker.read(text, budget)
            except TimeoutError:
                self._drop(worker)
                raise too_slow(budget) from None
            except (EOFError, OSError, pickle.UnpicklingError, ValueError, TypeError):
                self._drop(worker)
                if attempt:
                    raise HwqaError("the question reader stopped unexpectedly; ask again, and see the server log") from None
                continue
            except BaseException:
                self._drop(worker)
                raise
            self._give_back(worker)
            return question
        raise AssertionError("unreachable")

    def warm(self) -> None:
        """Start one worker now (in the background), so the first question does not wait for it."""
        with self._lock:
            if not self._all:
                worker = _Worker()
                self._all.append(worker)
                self._idle.append(worker)

    def shutdown(self) -> None:
        with self._lock:
            workers, self._all, self._idle = self._all, [], []
        for worker in workers:
            worker.kill()


_POOL = _Pool()


def warm_workers() -> None:
    """Start a worker process ahead of the first question (the web chat does, before it listens)."""
    _POOL.warm()


def shutdown_workers() -> None:
    _POOL.shutdown()


def worker_main() -> None:
    """The worker process: parse each question text it is sent, until its stdin closes."""
    from .question import parse_question

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the answers' pipe
    parse_question("warm up")
    _send(stdout, "ready")
    while True:
        try:
            text = _receive(stdin)
        except EOFError:
            os._exit(0)
        try:
            reply: tuple[str, object] = ("ok", parse_question(str(text)))
        except Exception as exc:  # sent back as one line, never a traceback in the chat
            reply = ("error", type(exc).__name__)
        _send(stdout, reply)
