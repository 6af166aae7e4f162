"""Watch the notes folder and rebuild the index, debounced, when notes change.

Used by ``hwqa index --watch`` and, with the ``watch`` setting, by the web chat itself. The
embedding model stays loaded between rebuilds, and the changed paths go straight to the build
(the folder is not walked), so a rebuild after one edit costs little more than embedding that
note's changed chunks. Compaction, when the index needs it, runs after the new generation is live.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from .build import BuildReport, build_index, compact_index
from .embed import Embedder, make_embedder
from .errors import HwqaError
from .notes import NOTE_SUFFIXES
from .settings import Settings


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


def watch_and_rebuild(
    settings: Settings,
    *,
    on_report: Callable[[BuildReport], None],
    on_error: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
    embedder: Embedder | None = None,
) -> None:
    """Block, rebuilding after each burst of changes, until ``stop`` is set (or Ctrl-C)."""
    from watchfiles import watch

    if not settings.notes.is_dir():
        raise HwqaError(f"cannot watch {settings.notes}: it is not a folder; point HWQA_NOTES at your notes")
    embedder = embedder or make_embedder(settings)
    for changes in watch(
        settings.notes,
        watch_filter=note_filter(settings),
        debounce=settings.watch_debounce_ms,
        step=50,
        stop_event=stop,
        raise_interrupt=False,
    ):
        try:
            report = build_index(settings, embedder=embedder, lock_wait=600.0, paths=changed_notes(settings, changes))
            on_report(report)
            if report.compaction:  # after the new generation is live, never on its way
                compact_index(settings, lock_wait=600.0)
        except HwqaError as exc:  # a bad edit must not stop the watcher; say it and keep watching
            if on_error is not None:
                on_error(str(exc))


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
    settings: Settings, embedder: Embedder, on_report: Callable[[BuildReport], None], on_error: Callable[[str], None]
) -> threading.Event:
    """Run :func:`watch_and_rebuild` in a daemon thread; set the returned event to stop it."""
    stop = threading.Event()
    thread = threading.Thread(
        target=watch_and_rebuild,
        kwargs={"settings": settings, "on_report": on_report, "on_error": on_error, "stop": stop, "embedder": embedder},
        name="hwqa-watch",
        daemon=True,
    )
    thread.start()
    return stop
