"""Compaction: the live generation's segments merged into one new generation, after a build, never
inside one; a disk too full to merge leaves the index whole and answering, and says so."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ..errors import IndexWriteError
from ..index import reader as store
from ..index import writer
from ..index.atomic import disk_error
from ..prices import PRICES_READER
from ..prices.delta import index_entries
from ..settings import Settings
from .lock import build_lock

__all__ = ["CompactionError", "compact_index"]


class CompactionError(IndexWriteError):
    """Merging the segments of a live index failed for lack of disk: the index itself is whole and answers."""


def compact_index(
    settings: Settings, *, force: bool = False, lock_wait: float = 0.0, progress: Callable[[int], None] | None = None
) -> str | None:
    """Merge the live generation's segments when it needs it (:func:`hwqa.index.reader.needs_compaction`),
    or every segment with ``force``, as a new generation; returns what was merged (``"all"``,
    ``"small"``) or None. Runs after a build, never inside one."""
    with build_lock(settings.index, wait=lock_wait):
        gen_dir = store.current_generation_dir(settings.index)
        if gen_dir is None or not gen_dir.is_dir():
            return None
        gen = store.open_generation(gen_dir, verify=False, formats=store.READABLE_FORMATS)
        try:
            how = ("all" if len(gen.segments) > 1 or gen.deleted else None) if force else writer.needs_compaction(gen)
            if how is None or gen.manifest.get("format") != store.FORMAT:
                return None
            same_reader = gen.manifest.get("prices_reader") == PRICES_READER  # facts this code can file by key
            try:
                new = writer.compact(settings.index, gen, how, step=progress, note_index=index_entries if same_reader else None)
                store.switch_to(settings.index, new)
            except (OSError, sqlite3.Error, RuntimeError, IndexWriteError) as exc:
                # the index is whole and live: only the merge did not happen; say exactly that
                still = f"the index itself is built and answers (generation {gen.name}); only merging its segments waits"
                original = exc.__context__ if isinstance(exc, IndexWriteError) and exc.__context__ is not None else exc
                error = disk_error(original, settings.index, then="run 'hwqa index --compact'", still=still)
                if error is not None:
                    raise CompactionError(str(error)) from None
                if isinstance(exc, IndexWriteError):
                    raise CompactionError(str(exc).replace("the previous index still answers", still)) from None
                raise
        finally:
            gen.close()
        return how
