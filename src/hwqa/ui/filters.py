"""The chat tab's search filters: the tags and notes of the live index, and the Filter they make.

Choices are read from the live generation's note chunks (their front-matter tags, their paths
and titles) and remembered per generation, so a page load after a rebuild sees the new ones
without reading the docstore again for every visitor. They are note text: Gradio shows dropdown
choices as text, never as HTML.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..answer.retrieve import Filter
from ..engine import Engine


@dataclass(frozen=True)
class FilterChoices:
    tags: list[str]  # every tag of an indexed note, sorted case-insensitively
    notes: list[tuple[str, str]]  # (label shown, note path searched), by label


_cache: dict[str, FilterChoices] = {}
_cache_lock = threading.Lock()


def _read(engine: Engine) -> FilterChoices:
    tags: dict[str, str] = {}
    titles: dict[str, str] = {}
    for c in engine.generation().all_chunks():
        if c.kind != "note":
            continue
        titles.setdefault(c.source, c.title or c.source)
        for tag in c.meta.get("tags") or []:
            text = str(tag).strip()
            if text:
                tags.setdefault(text.casefold(), text)
    counts: dict[str, int] = {}
    for title in titles.values():
        counts[title] = counts.get(title, 0) + 1
    notes = [(title if counts[title] == 1 else f"{title} ({path})", path) for path, title in titles.items()]
    return FilterChoices(
        sorted(tags.values(), key=str.casefold),
        sorted(notes, key=lambda n: (n[0].casefold(), n[1])),
    )


def filter_choices(engine: Engine) -> FilterChoices:
    """The tags and notes a person can restrict the chat's search to, from the live index."""
    key = f"{engine.settings.index.resolve()}::{engine.generation().name}"
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None:
        return cached
    choices = _read(engine)
    with _cache_lock:
        if len(_cache) > 16:
            _cache.clear()
        _cache[key] = choices
    return choices


def _texts(values: Iterable[object] | str | None) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    return [str(v) for v in values if str(v).strip()]


def search_filter(tags: Iterable[object] | str | None = None, notes: Iterable[object] | str | None = None) -> Filter | None:
    """The Filter for the chosen tags and notes, or None when nothing is chosen (search everything)."""
    flt = Filter.of(_texts(tags), _texts(notes))
    return flt if flt else None


def kept(selected: Sequence[object] | None, choices: Sequence[str] | Sequence[tuple[str, str]]) -> list[str]:
    """The selected values that are still choices (after a rebuild)."""
    values = {c[1] if isinstance(c, tuple) else c for c in choices}
    return [str(v) for v in selected or [] if str(v) in values]
