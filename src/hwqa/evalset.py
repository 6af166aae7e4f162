"""Question sets for ``hwqa eval``: the YAML files of ``eval/`` read into typed questions.

A set names its notes folders, an optional article site served on loopback during the run
(``{site}`` in the notes becomes its base URL), optional ``requires`` (a path and the Debian
package that provides it), and questions with the sources that hold each answer and the facts it
must state (format: ``eval/README.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .errors import HwqaError


class EvalError(HwqaError):
    """A question file is missing, malformed, or needs something that is not installed."""


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    kind: str = "fact"
    sources: tuple[str, ...] = ()
    facts: tuple[tuple[str, ...], ...] = ()  # each fact: its accepted alternatives
    covered: bool = True
    missing: str | None = None


@dataclass(frozen=True)
class QuestionSet:
    name: str
    path: Path
    notes: tuple[Path, ...]  # merged in order into one notes folder (a later file of the same name wins)
    site: Path | None
    questions: tuple[Question, ...]
    requires_path: Path | None = None
    requires_debian: str | None = None


def _resolve(base: Path, value: str) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else (base / p).resolve()


def _facts(raw: Any, where: str) -> tuple[tuple[str, ...], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise EvalError(f"{where}: 'facts' must be a list of strings (or lists of alternatives)")
    facts = []
    for item in raw:
        alternatives = item if isinstance(item, list) else [item]
        if not alternatives or not all(isinstance(a, str | int | float) and str(a).strip() for a in alternatives):
            raise EvalError(f"{where}: each fact must be a non-empty string or a list of them, got {item!r}")
        facts.append(tuple(str(a) for a in alternatives))
    return tuple(facts)


def load_question_set(path: Path) -> QuestionSet:
    """Read and check one question file; errors name the file and the question."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EvalError(f"cannot read question file {path}: {exc.strerror or exc}; check the --questions path") from None
    except yaml.YAMLError as exc:
        raise EvalError(f"{path} is not valid YAML ({str(exc).splitlines()[0]}); fix it and run again") from None
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise EvalError(f"{path}: expected a mapping with a 'questions' list; see eval/questions.yaml for the format")
    base = path.parent
    notes = data["notes"] if isinstance(data.get("notes"), list) else [data.get("notes", "notes")]
    requires = data.get("requires") or {}
    if not isinstance(requires, dict):
        raise EvalError(f"{path}: 'requires' must be a mapping with 'path' and optionally 'debian'")
    questions: list[Question] = []
    seen: set[str] = set()
    for i, raw in enumerate(data["questions"], start=1):
        where = f"{path}: question {i}"
        if not isinstance(raw, dict) or not raw.get("id") or not raw.get("question"):
            raise EvalError(f"{where}: every question needs an 'id' and a 'question'")
        qid = str(raw["id"])
        where = f"{path}: question '{qid}'"
        if qid in seen:
            raise EvalError(f"{where}: the id is used twice; ids must be unique within a file")
        seen.add(qid)
        sources = [raw["sources"]] if isinstance(raw.get("sources"), str) else raw.get("sources") or []
        covered = bool(raw.get("covered", True))
        if covered and not sources:
            raise EvalError(f"{where}: a covered question needs 'sources' (or set covered: false)")
        kind = str(raw.get("kind", "fact" if covered else "not-covered"))
        missing = str(raw["missing"]) if raw.get("missing") else None
        facts = _facts(raw.get("facts"), where)
        questions.append(Question(qid, str(raw["question"]), kind, tuple(map(str, sources)), facts, covered, missing))
    return QuestionSet(
        name=str(data.get("name") or path.stem),
        path=path,
        notes=tuple(_resolve(base, str(n)) for n in notes),
        site=_resolve(base, str(data["site"])) if data.get("site") else None,
        questions=tuple(questions),
        requires_path=_resolve(base, str(requires["path"])) if requires.get("path") else None,
        requires_debian=str(requires["debian"]) if requires.get("debian") else None,
    )


def check_requires(qs: QuestionSet) -> None:
    """One line saying how to install what the set needs, if it is missing."""
    needed = [p for p in (qs.requires_path, *qs.notes, qs.site) if p is not None and not p.exists()]
    if not needed:
        return
    how = "check the paths in the question file"
    if qs.requires_debian:
        how = f"install it with 'apt-get install -y {qs.requires_debian}' (or run 'make eval')"
    raise EvalError(f"question set '{qs.name}' ({qs.path}) needs {needed[0]}, which is missing; {how}")


def default_question_files() -> list[Path]:
    """Every eval/*.yaml shipped beside the package (source checkout), else in the working directory."""
    for folder in (Path(__file__).resolve().parents[2] / "eval", Path.cwd() / "eval"):
        files = sorted(folder.glob("*.yaml"))
        if files:
            return files
    raise EvalError("no question files found in eval/; pass --questions FILE")
