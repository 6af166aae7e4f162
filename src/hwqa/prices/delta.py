"""The index's price table merged again only where a build changed it.

:func:`hwqa.prices.merge.merge_rows` compares a row only with rows of the same pricing kind, a
compatible provider and a matching hardware name (:func:`~hwqa.prices.merge.hardware_connected`;
the three are a row's :func:`~hwqa.prices.merge.offer_key`). The rows therefore fall into *groups*
(keys connected by chains of possible matches) that never affect one another: merging each group on its own, with its rows
in the order the whole table would see them, gives the same rows and conflicts as merging
everything. The merge state kept beside the table holds each group's keys, kept rows and
conflicts, each with its place in that order; a build that changed some notes merges again only
the groups their old and new rows are in, reading from the index only the other notes' rows of
those groups (:func:`merge_changed`), and assembles the table from every group. Speeds, statements
left out and problems, small lists kept per note, are recomputed over all of them each time.

The result is the table :func:`hwqa.prices.price_table_from` gives for the same notes and pages
(``tests/test_price_delta.py`` compares them over random edits).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import fields
from typing import Any

from .facts import NOT_STATED, Found
from .merge import (
    bounded_left_out,
    conflict_text,
    fill_speeds,
    hardware_connected,
    merge_offers,
    offer_key,
    order_key,
    resolve_speeds,
)
from .table import PriceRow, PriceTable

__all__ = ["STATE", "STATE_VERSION", "facts_keys", "index_entries", "merge_all", "merge_changed", "state_of"]

STATE = "merge"  # the key of the merge state in the stored price table (readers ignore it)
STATE_VERSION = 2  # 2: each note's price facts (purchases, plans, electricity) kept with it
_FIELDS = tuple(f.name for f in fields(PriceRow))
_NOT_STATED = NOT_STATED.casefold()

Facts = Mapping[str, Any]  # what one note adds to the price table (hwqa.prices.note_prices)
Pos = list[Any]  # a row's place in the merge's order: [rank, date, 0 note / 1 page, note path / page index, row index]
Placed = tuple[Pos, PriceRow]
# offer keys -> (note, its index entry for one of the keys) of every unchanged note with rows of them, or None
ReadRows = Callable[[set[str]], Iterable[tuple[str, str]] | None]


def facts_keys(facts: Facts) -> list[str]:
    """The offer keys of a note's rows."""
    return sorted({offer_key(row) for _, row in _note_rows("", facts)})


def index_entries(facts: Facts) -> dict[str, str]:
    """What the index keeps of a note's rows by offer key, so a merge of a group reads only its rows:
    key -> JSON of ``[[place, place, row index, field values], ...]`` (:func:`merge_changed`'s ``read``)."""
    out: dict[str, list[Any]] = {}
    for i, values in enumerate(facts.get("rows", [])):
        out.setdefault(offer_key(PriceRow(*values)), []).append([-1, 0, i, values])
    for i, values in enumerate(facts.get("found", {}).get("rows", [])):
        row = PriceRow(*values)
        out.setdefault(offer_key(row), []).append([*order_key(row), i, values])
    return {key: json.dumps(items, ensure_ascii=False) for key, items in out.items()}


def _note_rows(rel: str, facts: Facts) -> Iterator[Placed]:
    for i, values in enumerate(facts.get("rows", [])):
        yield [-1, 0, 0, rel, i], PriceRow(*values)  # explicit rows: before every other, in note order
    for i, values in enumerate(facts.get("found", {}).get("rows", [])):
        row = PriceRow(*values)
        yield [*order_key(row), 0, rel, i], row


def _indexed_rows(rel: str, text: str) -> Iterator[Placed]:
    for first, second, i, values in json.loads(text):
        yield [first, second, 0, rel, i], PriceRow(*values)


def _page_rows(articles: Sequence[Found]) -> Iterator[Placed]:
    for n, article in enumerate(articles):
        for i, row in enumerate(article.rows):
            yield [*order_key(row), 1, n, i], row


def _note_extras(facts: Facts) -> dict[str, Any]:
    found = facts.get("found", {})
    extras = {
        "problems": [str(p) for p in facts.get("problems", [])],
        "left_out": list(found.get("left_out", [])),
        "speeds": list(found.get("speeds", [])),
        "facts": list(found.get("facts", [])),
    }
    return {k: v for k, v in extras.items() if v}


def _groups(keys: Iterable[str]) -> list[list[str]]:
    """The keys split into groups of possible matches: keys of the same pricing kind, connected
    hardware names (:func:`~hwqa.prices.merge.hardware_connected`) and the same provider or one not
    stated are in one group, and so, in chains, are the keys connected to them. Each group sorted."""
    parent: dict[str, str] = {}

    def find(k: str) -> str:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    def union(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    by_pricing: dict[str, dict[str, dict[str, str]]] = {}  # pricing -> hardware -> provider -> key
    for key in sorted(set(keys)):
        parent[key] = key
        pricing, provider, hardware = key.split("\x1f", 2)
        by_pricing.setdefault(pricing, {}).setdefault(hardware, {})[provider] = key
    for by_hardware in by_pricing.values():
        names = list(by_hardware)
        for i, a in enumerate(names):
            for b in names[i:]:
                if hardware_connected(a, b):
                    for one, other in ((by_hardware[a], by_hardware[b]), (by_hardware[b], by_hardware[a])):
                        for provider, key in one.items():
                            for match in other.values() if provider == _NOT_STATED else [other.get(provider)]:
                                if match is not None:
                                    union(key, match)
    out: dict[str, list[str]] = {}
    for key in parent:
        out.setdefault(find(key), []).append(key)
    return list(out.values())


def _merge_group(keys: list[str], rows: list[Placed]) -> dict[str, Any]:
    """One group merged on its own: its kept rows and its conflicts, each with its place."""
    rows = sorted(rows, key=lambda placed: placed[0])
    pos = {id(row): p for p, row in rows}
    explicit = [row for p, row in rows if p[0] == -1]
    kept, rivals = merge_offers(explicit, [row for p, row in rows if p[0] != -1])
    return {
        "keys": keys,
        "rows": [[pos[id(row)], _values(row)] for row in kept],
        "conflicts": [[pos[id(others[0])], conflict_text(kept[k], others)] for k, others in rivals.items()],
    }


def _values(row: PriceRow) -> list[Any]:
    return [getattr(row, name) for name in _FIELDS]


def _merge_rows(rows: Iterable[Placed]) -> list[dict[str, Any]]:
    by_key: dict[str, list[Placed]] = {}
    for placed in rows:
        by_key.setdefault(offer_key(placed[1]), []).append(placed)
    return [_merge_group(keys, [p for k in keys for p in by_key[k]]) for keys in _groups(by_key)]


def merge_all(notes: Mapping[str, Facts], articles: Sequence[Found]) -> tuple[PriceTable, dict[str, Any]]:
    """The price table of every note's facts (by note path) and the linked pages', and its merge state."""
    rows = [placed for rel in sorted(notes) for placed in _note_rows(rel, notes[rel])]
    state = {
        "version": STATE_VERSION,
        "groups": _merge_rows([*rows, *_page_rows(articles)]),
        "notes": {rel: extras for rel in sorted(notes) if (extras := _note_extras(notes[rel]))},
    }
    return _assemble(state, articles), state


def state_of(prices: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The merge state kept in a stored price table, if it is one this code can update."""
    state = (prices or {}).get(STATE)
    return state if isinstance(state, dict) and state.get("version") == STATE_VERSION else None


def merge_changed(
    state: Mapping[str, Any],
    changed: Mapping[str, tuple[Facts, Facts]],
    articles: Sequence[Found],
    old_articles: Sequence[Found] | None,
    read: ReadRows,
) -> tuple[PriceTable, dict[str, Any]] | None:
    """The price table after the notes ``changed`` (path -> (old facts, new facts); ``{}`` for a
    note added or removed) and, when ``old_articles`` is given, the linked pages' prices changed
    from those to ``articles``; and its new merge state.

    Only the groups holding an old or new row of a change are merged again; ``read(keys)`` gives, for
    every note not in ``changed`` and every one of ``keys`` it has rows of, the note and its
    :func:`index_entries` text for that key; None when it cannot (then this returns None too, and
    the caller merges everything).
    """
    touched = {k for old, new in changed.values() for k in (*facts_keys(old), *facts_keys(new))}
    if old_articles is not None:
        touched |= {offer_key(row) for found in (*old_articles, *articles) for row in found.rows}
    groups: list[dict[str, Any]] = list(state.get("groups", []))
    known = {k for g in groups for k in g["keys"]}
    affected: set[str] = set()
    if touched:
        for keys in _groups(known | touched):
            if touched.intersection(keys):
                affected.update(keys)
    others = read(affected) if affected else ()
    if others is None:
        return None
    rows: list[Placed] = []
    for rel, text in others:
        if rel not in changed:
            rows.extend(_indexed_rows(rel, text))
    for rel, (_, new) in changed.items():
        rows.extend(p for p in _note_rows(rel, new) if offer_key(p[1]) in affected)
    rows.extend(p for p in _page_rows(articles) if offer_key(p[1]) in affected)
    kept = [g for g in groups if not affected.intersection(g["keys"])]
    notes = {rel: extras for rel, extras in state.get("notes", {}).items() if rel not in changed}
    notes.update((rel, extras) for rel, (_, new) in changed.items() if (extras := _note_extras(new)))
    new_state = {
        "version": STATE_VERSION,
        "groups": [*kept, *_merge_rows(rows)],
        "notes": dict(sorted(notes.items())),
    }
    return _assemble(new_state, articles), new_state


def _assemble(state: Mapping[str, Any], articles: Sequence[Found]) -> PriceTable:
    """The price table of a merge state: every group's rows and conflicts in their places."""
    groups = state.get("groups", [])
    placed = sorted((item for g in groups for item in g["rows"]), key=lambda item: item[0])
    merged = [PriceRow(*values) for _, values in placed]
    conflicts = [text for _, text in sorted((c for g in groups for c in g["conflicts"]), key=lambda item: item[0])]
    extras: Mapping[str, Mapping[str, Any]] = state.get("notes", {})
    notes = sorted(extras)
    problems = [str(p) for rel in notes for p in extras[rel].get("problems", [])]
    stated = Found.from_json(
        {
            "left_out": [item for rel in notes for item in extras[rel].get("left_out", [])],
            "speeds": [item for rel in notes for item in extras[rel].get("speeds", [])],
            "facts": [item for rel in notes for item in extras[rel].get("facts", [])],
        }
    )
    for article in articles:
        stated.left_out.extend(article.left_out)
        stated.speeds.extend(article.speeds)
        stated.facts.extend(article.facts)
    speeds, unresolved = resolve_speeds(merged, stated.speeds)
    return PriceTable(
        rows=fill_speeds(merged, speeds),
        problems=problems,
        left_out=bounded_left_out([*stated.left_out, *unresolved]),
        conflicts=conflicts,
        facts=stated.facts,
    )
