"""Load notes: Markdown files with optional YAML front matter.

A note that cannot be decoded as UTF-8 (or looks binary) is reported and skipped; a note whose
front matter is broken is still loaded (body only) with a warning that names the file and line.

Hostile input costs bounded time and memory: front matter is parsed with PyYAML's safe loader
(no tags that build Python objects), is at most :data:`FM_MAX_CHARS` long, is nested at most
:data:`YAML_MAX_DEPTH` levels deep, and may expand to at most :data:`YAML_MAX_NODES` nodes once its
aliases are resolved (an alias bomb is skipped, not expanded). hwqa measures length and nesting
itself before any YAML parser sees the text, and aliases on the composed (unexpanded) node graph, so
its warnings are its own and the same with any PyYAML, with or without libyaml. Only regular files
are read, at most ``max_bytes`` of each; every path is resolved and a symlink whose target lies
outside the notes folder is skipped unless ``follow_outside_symlinks``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import re
import stat
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import HwqaError, NotesError
from .files import (
    BAD_NAME,
    NOTE_MAX_BYTES,
    NOTE_SUFFIXES,
    FileId,
    decode_note,
    iter_note_files,
    name_is_text,
    read_note_bytes,
    scan_ids,
    shown_name,
    stamp_of,
)
from .markdown import first_heading

__all__ = [
    "NOTE_MAX_BYTES",
    "NOTE_SUFFIXES",
    "LoadReport",
    "Note",
    "NoteSkipped",
    "decode_note",
    "iter_note_files",
    "load_notes",
    "parse_note",
    "read_note_bytes",
]

# The opening '---' line, then the shortest text up to a line that is exactly '---' or '...';
# the text may be empty ('---' right after '---').
_FM_RE = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n(.*?)(?<![^\n])(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_FM_OPEN_RE = re.compile(r"\A(?:\ufeff)?---[ \t]*(?:\r?\n|\Z)")
FM_MAX_CHARS = 16_384  # longer front matter is not parsed (the body is still indexed)
YAML_MAX_NODES = 10_000  # YAML nodes front matter may hold once aliases are expanded
YAML_MAX_DEPTH = 64  # nesting levels front matter may have
TITLE_MAX_CHARS = 300
LIST_MAX_ITEMS = 100  # tags / aliases kept per note


@dataclass(frozen=True)
class Note:
    """One note as hwqa sees it.

    ``rel`` is the POSIX path relative to the notes folder and is the note's identity (``source``).
    ``body`` is the Markdown after the front matter; ``body_line`` is the 1-based line number in the
    file where ``body`` starts, so ``body_line + i`` is the file line of the body's line ``i`` (0-based).
    """

    path: Path
    rel: str
    title: str
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    date: str | None
    draft: bool
    body: str
    body_line: int
    content_hash: str
    warnings: tuple[str, ...] = field(default=())
    as_of: str | None = None  # front matter ``as_of``: the date the note's prices were true


@dataclass
class LoadReport:
    """What loading a notes folder found: the notes, plus files skipped and warnings, for people."""

    notes: list[Note]
    skipped: list[tuple[str, str]]  # (relative path, reason)
    warnings: list[str]
    unchanged: list[str] = field(default_factory=list)  # notes not read: their stamp is the one ``known`` gave
    stamps: dict[str, list[int]] = field(default_factory=dict)  # every listed note file's stamp, by relative path


def _as_list(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")] if "," in value else [value.strip()]
        return tuple(p for p in parts if p)
    if isinstance(value, Iterable):
        return tuple(str(v).strip() for v in value if v is not None and str(v).strip())
    return (str(value),)


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in {"true", "yes", "1", "on"}
    return bool(value)


def _as_date(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat(sep=" ") if isinstance(value, _dt.datetime) else value.isoformat()
    return str(value)


def _yaml_error_line(exc: Exception) -> int | None:
    """0-based line of a YAML error within the front matter text, if PyYAML says where."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return int(mark.line) if mark is not None else None


class NoteSkipped(HwqaError):
    """A note that must not be indexed at all (e.g. hostile front matter); the message is the reason."""


class _Budget(Exception):
    """Front matter over the alias-expansion budget (hostile: the note is skipped)."""


class _TooDeep(ValueError):
    """Front matter nested deeper than :data:`YAML_MAX_DEPTH` (broken: the body is still indexed).

    ``line`` is the 0-based line of the front matter text where the nesting passed the limit.
    """

    def __init__(self, line: int) -> None:
        super().__init__(f"front matter is nested more than {YAML_MAX_DEPTH} levels deep")
        self.line = line


# A block entry ('- ' or '? ', after any anchors and tags): one more nesting level on the same line.
_ENTRY_RE = re.compile(r"(?:[&!]\S*[ \t]+)*[-?](?:[ \t\r]+|$)")
# A line that ends in a block scalar header ('|', '>-', '|2+' ...): the deeper lines after it are text.
_BLOCK_SCALAR_RE = re.compile(r"(?:^|[ \t])[|>][0-9+-]*[ \t\r]*(?:#.*)?$")


def _check_nesting(text: str) -> None:
    """Raise :class:`_TooDeep` if ``text`` nests deeper than :data:`YAML_MAX_DEPTH`, before any parser sees it.

    A level is an open indentation (block mappings and sequences), each further ``- ``/``? `` entry
    on a line (``- - - x``) and each open bracket (``[`` / ``{``, across lines). The count is made
    to err on the high side (brackets inside quotes and comments count too), so a parser meets no
    deeply nested input: libyaml stops at its own limit (since 0.2.6) with its own message and its C
    composer crashes far deeper; Python's composer recurses. One pass, linear in the text.
    """
    indents: list[int] = []  # columns of the open block levels
    flow = 0  # open brackets
    scalar_col: int | None = None  # inside a block scalar: lines indented deeper than this are text
    for lineno, line in enumerate(text.split("\n")):
        indent = len(line) - len(line.lstrip(" "))
        start = 0
        if flow == 0:
            if scalar_col is not None and (indent > scalar_col or not line.strip()):
                continue
            scalar_col = None
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            while indents and indents[-1] > indent:
                indents.pop()
            if not indents or indents[-1] < indent:
                indents.append(indent)
                if len(indents) > YAML_MAX_DEPTH:
                    raise _TooDeep(lineno)
            start = indent
            while (entry := _ENTRY_RE.match(line, start)) and entry.end() > start:
                start = entry.end()
                indents.append(start)
                if len(indents) > YAML_MAX_DEPTH:
                    raise _TooDeep(lineno)
        for ch in line[start:]:
            if ch in "[{":
                flow += 1
                if len(indents) + flow > YAML_MAX_DEPTH:
                    raise _TooDeep(lineno)
            elif ch in "]}":
                flow = max(0, flow - 1)
        if flow == 0 and _BLOCK_SCALAR_RE.search(line, start):
            scalar_col = start


def _check_nodes(root: Any, rel: str) -> list[str]:
    """Count ``root``'s nodes with aliases expanded (without expanding them); warn on duplicate keys.

    Raises :class:`_Budget` past :data:`YAML_MAX_NODES` expanded nodes or on a node that contains
    itself, and :class:`_TooDeep` past :data:`YAML_MAX_DEPTH` levels. Linear in the composed
    (unexpanded) graph: each node is sized once.
    """
    import yaml

    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    warnings: list[str] = []
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            kids = _children(node)
            sizes[key] = 1 + sum(sizes[id(k)] for k in kids)
            depths[key] = 1 + max((depths[id(k)] for k in kids), default=0)
            if sizes[key] > YAML_MAX_NODES:
                raise _Budget(f"more than {YAML_MAX_NODES:,} YAML nodes once its aliases are expanded")
            if depths[key] > YAML_MAX_DEPTH:
                raise _TooDeep(node.start_mark.line)
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise _Budget("an alias that refers to itself")
        on_path.add(key)
        stack.append((node, True))
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for k, _ in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value != "<<":
                    if k.value in seen:
                        name = k.value if len(k.value) <= 40 else k.value[:40] + "…"
                        warnings.append(
                            f"{rel}:{k.start_mark.line + 2}: duplicate key {name!r} in the front matter; the last value is used"
                        )
                    seen.add(k.value)
        for kid in _children(node):
            if id(kid) in on_path:
                raise _Budget("an alias that refers to itself")
            if id(kid) not in sizes:
                stack.append((kid, False))
    return warnings


def _children(node: Any) -> list[Any]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _load_front_matter(text: str, rel: str, yaml_loader: Any = None) -> tuple[Any, list[str]]:
    """Parse front matter text safely: (data, warnings). Raises :class:`NoteSkipped` for hostile YAML.

    Nesting is measured before parsing (:func:`_check_nesting`), aliases on the composed node graph
    before anything is constructed (:func:`_check_nodes`). ``yaml_loader`` is a PyYAML safe loader
    class; by default libyaml's ``CSafeLoader`` where PyYAML has it, else the pure-Python ``SafeLoader``.
    """
    import yaml

    _check_nesting(text)
    loader_class = yaml_loader or getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        try:
            warnings = _check_nodes(node, rel)
        except _Budget as exc:
            raise NoteSkipped(f"front matter has {exc} (a YAML alias bomb?); fix the front matter to index this note") from None
        return loader.construct_document(node), warnings
    finally:
        loader.dispose()


def _kind(value: Any) -> str:
    return "a list" if isinstance(value, list) else "text" if isinstance(value, str) else f"a {type(value).__name__}"


def _front_matter(text: str, rel: str, yaml_loader: Any = None) -> tuple[dict[str, Any], str, int, list[str]]:
    """(metadata, body, body_line, warnings) of a note's text. Never raises for bad front matter."""
    warnings: list[str] = []
    body = text.lstrip("\ufeff")
    match = _FM_RE.match(text)
    if not match:
        if _FM_OPEN_RE.match(text):
            warnings.append(f"{rel}:1: front matter is not closed by '---'; read the file as body")
        return {}, body, 1, warnings
    body = text[match.end() :]
    body_line = text[: match.end()].count("\n") + 1
    raw = match.group(1)
    if len(raw) > FM_MAX_CHARS:
        warnings.append(f"{rel}:2: front matter is longer than {FM_MAX_CHARS:,} characters; indexed the body only")
        return {}, body, body_line, warnings
    try:
        data, dupes = _load_front_matter(raw, rel, yaml_loader)
    except NoteSkipped:
        raise
    except _TooDeep as exc:
        warnings.append(f"{rel}:{exc.line + 2}: {exc}; indexed the body only")
        return {}, body, body_line, warnings
    except Exception as exc:  # yaml.YAMLError, RecursionError, ValueError from a constructor: keep the body, warn
        line = _yaml_error_line(exc)
        where = f"{rel}:{line + 2}" if line is not None else f"{rel}:2"  # +1 for 1-based, +1 for the opening '---'
        problem, context = getattr(exc, "problem", None), getattr(exc, "context", None)
        if problem:
            first = f"{problem} ({context})" if context else str(problem)
        else:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if len(first) > 200:
            first = first[:200] + "…"
        warnings.append(f"{where}: broken front matter ({first}); indexed the body only")
        return {}, body, body_line, warnings
    warnings.extend(dupes)
    if data is None:
        return {}, body, body_line, warnings
    if not isinstance(data, dict):
        warnings.append(f"{rel}:2: front matter must be a mapping (key: value lines), found {_kind(data)}; indexed the body only")
        return {}, body, body_line, warnings
    return data, body, body_line, warnings


def _bounded_list(values: tuple[str, ...], rel: str, key: str, warnings: list[str]) -> tuple[str, ...]:
    if len(values) > LIST_MAX_ITEMS:
        warnings.append(f"{rel}: kept the first {LIST_MAX_ITEMS} of {len(values)} {key}")
        values = values[:LIST_MAX_ITEMS]
    return tuple(v if len(v) <= TITLE_MAX_CHARS else v[:TITLE_MAX_CHARS] + "…" for v in values)


def parse_note(text: str, rel: str, path: Path | None = None, *, yaml_loader: Any = None) -> Note:
    """Parse one note's text. Never raises for bad front matter: it becomes a warning.

    The one exception is hostile front matter (an alias bomb): :class:`NoteSkipped`, whose message
    is the reason the note is not indexed. ``yaml_loader``: a PyYAML safe loader class (default:
    libyaml's where present); the guards and so the warnings are the same with either.
    """
    meta, body, body_line, warnings = _front_matter(text, rel, yaml_loader)
    title = str(meta.get("title") or "").strip()
    if not title:
        title = first_heading(body) or Path(rel).stem.replace("-", " ").replace("_", " ")
    if len(title) > TITLE_MAX_CHARS:
        title = title[:TITLE_MAX_CHARS] + "…"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Note(
        path=path if path is not None else Path(rel),
        rel=rel,
        title=title,
        tags=_bounded_list(_as_list(meta.get("tags")), rel, "tags", warnings),
        aliases=_bounded_list(_as_list(meta.get("aliases")), rel, "aliases", warnings),
        date=_as_date(meta.get("date")),
        draft=_as_bool(meta.get("draft", False)),
        body=body,
        body_line=body_line,
        content_hash=digest,
        warnings=tuple(warnings),
        as_of=_as_date(meta.get("as_of")),
    )


def _listed(notes_dir: Path, rels: Collection[str], stamps: dict[Path, tuple[int, int, int, int]]) -> dict[Path, FileId | None]:
    """The note files among ``rels`` that exist, as :func:`scan_ids` lists them (a symlink's identity is None)."""
    found: dict[Path, FileId | None] = {}
    for rel in rels:
        path = notes_dir / rel
        try:
            st = os.lstat(path)
        except OSError:
            continue  # gone: its chunks go with it
        if stat.S_ISLNK(st.st_mode):
            found[path] = None
        elif stat.S_ISREG(st.st_mode):
            found[path] = (st.st_dev, st.st_ino)
            stamps[path] = stamp_of(st)
    return found


def load_notes(
    notes_dir: Path,
    *,
    follow_outside_symlinks: bool = False,
    max_bytes: int = NOTE_MAX_BYTES,
    known: Mapping[str, Sequence[int]] | None = None,
    only: Collection[str] | None = None,
) -> LoadReport:
    """Read every note in ``notes_dir``. Raises :class:`NotesError` if the folder is missing or empty.

    ``known``: the stamps (size, mtime, ctime, inode) of notes as last indexed; a note file whose
    stamp is still that is not read again, only listed in ``unchanged``. ``only`` (with ``known``):
    the relative paths of the note files that may have changed (a watcher's events); the folder is
    not walked, every other known note is ``unchanged``, and one of ``only`` that is gone is left out.
    """
    notes_dir = Path(notes_dir)
    if not notes_dir.exists():
        raise NotesError(f"notes folder {notes_dir} does not exist; create it or point HWQA_NOTES (or --notes) at your notes")
    if not notes_dir.is_dir():
        raise NotesError(f"{notes_dir} is not a folder; point HWQA_NOTES (or --notes) at a folder of .md notes")
    root = notes_dir.resolve()
    notes: list[Note] = []
    skipped: list[tuple[str, str]] = []
    warnings: list[str] = []
    stamps: dict[Path, tuple[int, int, int, int]] = {}
    unchanged: list[str] = []
    if only is not None and known is not None:
        found, linked_dirs = _listed(notes_dir, only, stamps), list[Path]()
        unchanged = [rel for rel in known if rel not in only]
    else:
        found, linked_dirs = scan_ids(notes_dir, stamps)
    stamped: dict[str, list[int]] = {}
    key = lambda p: p.relative_to(notes_dir).parts  # noqa: E731
    for folder in sorted(linked_dirs, key=key):
        skipped.append((shown_name(folder.relative_to(notes_dir).as_posix()), "symlinked folder, not followed"))
    # every listed path is notes_dir / ...: its relative path is a slice (Path(".") / "a" is "a")
    cut = 0 if str(notes_dir) == "." else len(str(notes_dir).rstrip(os.sep)) + 1
    rels = {path: str(path)[cut:].replace(os.sep, "/") for path in found}
    for path in sorted(found, key=lambda p: rels[p].split("/")):
        rel = rels[path]
        if not name_is_text(rel):  # bytes that are not UTF-8 in its name (or its folder's): skipped, said with escapes
            skipped.append((shown_name(rel), BAD_NAME))
            continue
        if path in stamps:
            stamped[rel] = list(stamps[path])
            if known is not None and list(known.get(rel) or ()) == stamped[rel]:
                unchanged.append(rel)
                continue
        data = read_note_bytes(path, root, follow_outside_symlinks=follow_outside_symlinks, max_bytes=max_bytes, seen=found[path])
        if isinstance(data, str):
            skipped.append((rel, data))
            continue
        text, reason, warning = decode_note(data, rel)
        if text is None:
            skipped.append((rel, reason or "not a text note"))
            continue
        try:
            note = parse_note(text, rel, path)
        except NoteSkipped as exc:
            skipped.append((rel, str(exc)))
            continue
        if warning:
            warnings.append(warning)
        warnings.extend(note.warnings)
        notes.append(note)
    if not notes and not unchanged:
        detail = f" ({len(skipped)} file(s) skipped: {skipped[0][0]}: {skipped[0][1]})" if skipped else ""
        raise NotesError(f"no notes (.md files) found in {notes_dir}{detail}; add notes or point HWQA_NOTES at your notes folder")
    for rel, reason in skipped:
        warnings.append(f"{rel}: skipped: {reason}")
    return LoadReport(notes=notes, skipped=skipped, warnings=warnings, unchanged=unchanged, stamps=stamped)
