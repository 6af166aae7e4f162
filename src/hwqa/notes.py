"""Load notes: Markdown files with optional YAML front matter.

A note that cannot be decoded as UTF-8 (or looks binary) is reported and skipped; a note whose
front matter is broken is still loaded (body only) with a warning that names the file and line.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import NotesError

NOTE_SUFFIXES = (".md", ".markdown")
_FM_RE = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_HEADING_RE = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


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


@dataclass
class LoadReport:
    """What loading a notes folder found: the notes, plus files skipped and warnings, for people."""

    notes: list[Note]
    skipped: list[tuple[str, str]]  # (relative path, reason)
    warnings: list[str]


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
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return int(mark.line) + 1 if mark is not None else None


def parse_note(text: str, rel: str, path: Path | None = None) -> Note:
    """Parse one note's text. Never raises for bad front matter: it becomes a warning."""
    import yaml  # python-frontmatter's YAML backend; imported here to keep start-up light

    warnings: list[str] = []
    meta: dict[str, Any] = {}
    body = text.lstrip("\ufeff")
    body_line = 1
    match = _FM_RE.match(text)
    if match:
        body = text[match.end():]
        body_line = text[: match.end()].count("\n") + 1
        try:
            import frontmatter

            loaded = frontmatter.loads(text)
            meta = dict(loaded.metadata)
        except Exception as exc:  # yaml.YAMLError and friends: keep the body, warn
            line = _yaml_error_line(exc)
            where = f"{rel}:{line + 1}" if line is not None else rel  # +1: the opening '---'
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            warnings.append(f"{where}: broken front matter ({first}); indexed the body only")
            meta = {}
        else:
            if not isinstance(meta, dict):
                warnings.append(f"{rel}:2: front matter is not a mapping; indexed the body only")
                meta = {}
        del yaml
    elif text.startswith("---"):
        warnings.append(f"{rel}:1: front matter is not closed by '---'; read the file as body")

    title = str(meta.get("title") or "").strip()
    if not title:
        heading = _HEADING_RE.search(body)
        title = heading.group(1).strip() if heading else Path(rel).stem.replace("-", " ").replace("_", " ")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Note(
        path=path if path is not None else Path(rel),
        rel=rel,
        title=title,
        tags=_as_list(meta.get("tags")),
        aliases=_as_list(meta.get("aliases")),
        date=_as_date(meta.get("date")),
        draft=_as_bool(meta.get("draft", False)),
        body=body,
        body_line=body_line,
        content_hash=digest,
        warnings=tuple(warnings),
    )


def _looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


def iter_note_files(notes_dir: Path) -> list[Path]:
    """Every Markdown file under ``notes_dir`` (recursively), skipping hidden folders, sorted."""
    files: list[Path] = []
    for p in sorted(notes_dir.rglob("*")):
        rel_parts = p.relative_to(notes_dir).parts
        if any(part.startswith(".") for part in rel_parts):
            continue
        if p.is_file() and p.suffix.lower() in NOTE_SUFFIXES:
            files.append(p)
    return files


def load_notes(notes_dir: Path) -> LoadReport:
    """Read every note in ``notes_dir``. Raises :class:`NotesError` if the folder is missing or empty."""
    notes_dir = Path(notes_dir)
    if not notes_dir.exists():
        raise NotesError(
            f"notes folder {notes_dir} does not exist; create it or point HWQA_NOTES (or --notes) at your notes"
        )
    if not notes_dir.is_dir():
        raise NotesError(f"{notes_dir} is not a folder; point HWQA_NOTES (or --notes) at a folder of .md notes")
    notes: list[Note] = []
    skipped: list[tuple[str, str]] = []
    warnings: list[str] = []
    for path in iter_note_files(notes_dir):
        rel = path.relative_to(notes_dir).as_posix()
        try:
            data = path.read_bytes()
        except OSError as exc:
            skipped.append((rel, f"cannot read: {exc.strerror or exc}"))
            continue
        if _looks_binary(data):
            skipped.append((rel, "binary file, not a text note"))
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            skipped.append((rel, f"not UTF-8 (bad byte at line {line}); save it as UTF-8 to index it"))
            continue
        note = parse_note(text, rel, path)
        warnings.extend(note.warnings)
        notes.append(note)
    if not notes:
        detail = f" ({len(skipped)} file(s) skipped: {skipped[0][0]}: {skipped[0][1]})" if skipped else ""
        raise NotesError(
            f"no notes (.md files) found in {notes_dir}{detail}; add notes or point HWQA_NOTES at your notes folder"
        )
    for rel, reason in skipped:
        warnings.append(f"{rel}: skipped: {reason}")
    return LoadReport(notes=notes, skipped=skipped, warnings=warnings)
