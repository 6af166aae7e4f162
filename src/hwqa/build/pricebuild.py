"""The price table of a new generation: kept when no price changed, merged again where one did.

A build hands over the facts of the notes it read (:func:`hwqa.prices.note_prices`) and the linked
pages' prices. When none of them states other prices than before, the live generation's table is
kept as it is. Otherwise only the groups of rows the changed prices belong to are merged again
(:func:`hwqa.prices.delta.merge_changed`): the other notes' rows of those groups are read from the
segments holding them, by their offer keys (:meth:`hwqa.index.segment.Segment.entries_for_keys`).
A full build, a stored table without a merge state, or a segment that does not index its notes'
keys (written by an older hwqa) merges every note's stored facts, as a full build does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import IndexCorruptError
from ..index import reader as store
from ..prices import Found
from ..prices.delta import STATE, index_entries, merge_all, merge_changed, state_of

__all__ = ["new_price_table"]

Facts = Mapping[str, Any]


def new_price_table(
    previous: store.Generation | None,
    records: Mapping[str, Mapping[str, Any]],
    facts: Mapping[str, Facts],
    removed: list[str],
    pages: list[Any],
    before: Mapping[str, Mapping[str, Any]],
) -> tuple[dict[str, Any] | None, list[str]]:
    """The price table to store (None: keep ``previous``'s) and its problems.

    ``previous``: the live generation a build that reads only what changed starts from (None for a
    full build); ``records``: every note's manifest record after this build (its ``seg`` names the
    segment holding its facts, for the notes not read); ``facts``: the facts of the notes read;
    ``removed``: the notes gone; ``pages``: the linked pages' prices now, in link order; ``before``:
    the previous generation's link records.
    """
    found = [Found.from_json(p) for p in pages]
    if previous is None:
        table, state = merge_all({rel: facts.get(rel, {}) for rel in records}, found)
        return {**table.to_json(), STATE: state}, list(table.problems)
    old_notes: Mapping[str, Mapping[str, Any]] = previous.manifest.get("notes", {})
    old = facts_of(previous, old_notes, [*facts, *removed])
    changed = {
        rel: (old.get(rel, {}), facts.get(rel, {})) for rel in [*facts, *removed] if old.get(rel, {}) != facts.get(rel, {})
    }
    old_pages = [r["prices"] for r in before.values() if r.get("prices")]
    if not changed and pages == old_pages:
        return None, list(previous.manifest.get("price_problems", []))

    def read(keys: set[str]) -> list[tuple[str, str]] | None:
        out: list[tuple[str, str]] = []
        for seg in previous.segments:
            entries = seg.entries_for_keys(keys)
            if entries is None:
                return None
            name = seg.entry.get("name")
            out.extend((rel, e) for rel, e in entries if rel not in facts and (records.get(rel) or {}).get("seg") == name)
        for rel, f in facts.items():  # read again, prices as before
            if rel not in changed:
                out.extend((rel, e) for key, e in index_entries(f).items() if key in keys)
        return out

    result = None
    try:
        stored = state_of(store.read_prices(previous.path)) if store.PRICES in previous.manifest.get("files", {}) else None
        if stored is not None:
            was = [Found.from_json(p) for p in old_pages] if pages != old_pages else None
            result = merge_changed(stored, changed, found, was, read)
    except (IndexCorruptError, KeyError, TypeError, ValueError):
        result = None  # a damaged table or merge state: the table is merged from every note again, and rewritten
    if result is None:  # no merge state, or a segment from before notes were indexed by key: every note's facts
        known: dict[str, Facts] = dict(facts_of(previous, old_notes, [rel for rel in records if rel not in facts]))
        known.update(facts)
        result = merge_all({rel: known.get(rel, {}) for rel in records}, found)
    table, state = result
    return {**table.to_json(), STATE: state}, list(table.problems)


def facts_of(previous: store.Generation, notes: Mapping[str, Mapping[str, Any]], rels: list[str]) -> dict[str, dict[str, Any]]:
    """The price facts the previous generation keeps for ``rels``, read from the segment holding each."""
    wanted: dict[str, list[str]] = {}
    for rel in rels:
        if rel in notes and notes[rel].get("seg"):
            wanted.setdefault(str(notes[rel]["seg"]), []).append(rel)
    out: dict[str, dict[str, Any]] = {}
    for seg in previous.segments:
        if seg.entry.get("name") in wanted:
            out.update(seg.note_prices(wanted[str(seg.entry["name"])]))
    return out
