"""Watch the notes folder and rebuild the index, debounced, when notes change.

Used by ``hwqa index --watch`` and, with the ``watch`` setting, by the web chat itself. The
embedding model stays loaded between rebuilds, and the changed paths go straight to the build
(the folder is not walked), so a rebuild after one edit costs little more than embedding that
note's changed chunks. Compaction, when the index needs it, runs after the new generation is live.

The watcher survives anything the notes folder holds: ``watchfiles`` stops with an error on a file
name that is not UTF-8 (its Rust side cannot decode it), so when it stops it is started again
(after a short pause that grows while it keeps stopping), the folder is walked once so no edit of
that moment is lost, and ``on_error`` says what happened; :class:`WatchState` keeps it for the web chat.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import HwqaError
from ..index.embed import Embedder, make_embedder
from ..notes.note import NOTE_SUFFIXES
from ..settings import Settings
from .builder import BuildReport, build_index
from .compact import compact_index


def note_filter(settings: Settings) -> Callable[[object, str], bool]:
    """Only changes to notes count: Markdown files outside hidden folders and the index folder."""
    notes = settings.notes.resolve()
    index = settings.index.resolve()

    def accept(change: object, path: str) -> bool:
        p = Path(path)
        if p.is_relative_to(index):
            return False
        try:
            rel = p.relative_to(notes)
        except ValueError:
            return False
        if any(part.startswith(".") for part in rel.parts):
            return False
        # a deleted or renamed folder has no suffix; let it through so its notes are dropped
        return p.suffix.lower() in NOTE_SUFFIXES or not p.suffix

    return accept


RESTART_PAUSE_S = 1.0  # before the watcher is started again after it stopped; doubles while it keeps stopping
RESTART_MAX_PAUSE_S = 60.0


@dataclass
class WatchState:
    """What the watcher has been through, for people: how often it stopped and why, last."""

    restarts: int = 0
    last_stop: str = ""  # one line: why it stopped last
    last_stop_at: float = 0.0  # time.time() of that

    def summary(self) -> str:
        """One line for the web chat ('' while the watcher never stopped)."""
        if not self.restarts:
            return ""
        when = time.strftime("%H:%M:%S", time.localtime(self.last_stop_at))
        times = "once" if self.restarts == 1 else f"{self.restarts} times"
        return f"The notes watcher stopped {times} (last at {when}: {self.last_stop}) and was restarted; it watches again."


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def watch_and_rebuild(
    settings: Settings,
    *,
    on_report: Callable[[BuildReport], None],
    on_error: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
    embedder: Embedder | None = None,
    state: WatchState | None = None,
) -> None:
    """Block, rebuilding after each burst of changes, until ``stop`` is set (or Ctrl-C). The watcher
    is started again whenever it stops with an error (``on_error`` says so, ``state`` keeps it)."""
    from watchfiles import watch

    if not settings.notes.is_dir():
        raise HwqaError(f"cannot watch {settings.notes}: it is not a folder; point HWQA_NOTES at your notes")
    embedder = embedder or make_embedder(settings)
    state = state or WatchState()
    said = on_error or (lambda message: None)

    def rebuild(paths: list[str] | None) -> None:
        try:
            report = build_index(settings, embedder=embedder, lock_wait=600.0, paths=paths)
            on_report(report)
        except HwqaError as exc:  # a bad edit must not stop the watcher; say it and keep watching
            said(f"rebuild failed: {exc}")
            return
        if report.compaction:  # after the new generation is live, never on its way
            try:
                compact_index(settings, lock_wait=600.0)
            except HwqaError as exc:  # the rebuild stands; only the merge waits (the message says so)
                said(str(exc))

    pause = RESTART_PAUSE_S
    while True:
        try:
            for changes in watch(
                settings.notes,
                watch_filter=note_filter(settings),
                debounce=settings.watch_debounce_ms,
                step=50,
                stop_event=stop,
                raise_interrupt=False,
            ):
                rebuild(changed_notes(settings, changes))
                pause = RESTART_PAUSE_S
            return  # stopped on purpose (the stop event, or Ctrl-C)
        except Exception as exc:  # watchfiles itself stopped (a file name it cannot decode, a folder gone …)
            state.restarts += 1
            state.last_stop, state.last_stop_at = _one_line(exc), time.time()
            said(f"the notes watcher stopped ({state.last_stop}); restarting it and reading the whole notes folder")
        if stop is not None and stop.wait(pause):
            return
        if stop is None:
            time.sleep(pause)
        pause = min(pause * 2, RESTART_MAX_PAUSE_S)
        if settings.notes.is_dir():
            rebuild(None)  # an edit made while it was stopped is not lost: the folder is walked


def changed_notes(settings: Settings, changes: Iterable[tuple[object, str]]) -> list[str] | None:
    """The notes a burst of changes touched, relative to the notes folder; None when a folder changed
    (moved or deleted with its notes): then the build walks the folder."""
    roots = (settings.notes.resolve(), settings.notes.absolute())
    rels: list[str] = []
    for _change, path in changes:
        p = Path(path)
        rel = next((p.relative_to(root) for root in roots if p.is_relative_to(root)), None)
        if rel is None or p.suffix.lower() not in NOTE_SUFFIXES:
            return None
        rels.append(rel.as_posix())
    return rels


def start_watcher(
    settings: Settings,
    embedder: Embedder,
    on_report: Callable[[BuildReport], None],
    on_error: Callable[[str], None],
    state: WatchState | None = None,
) -> threading.Event:
    """Run :func:`watch_and_rebuild` in a daemon thread; set the returned event to stop it."""
    stop = threading.Event()
    thread = threading.Thread(
        target=watch_and_rebuild,
        kwargs={
            "settings": settings,
            "on_report": on_report,
            "on_error": on_error,
            "stop": stop,
            "embedder": embedder,
            "state": state,
        },
        name="hwqa-watch",
        daemon=True,
    )
    thread.start()
    return stop
