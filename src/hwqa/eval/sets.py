"""Question sets for ``hwqa eval``: the YAML files of ``eval/`` read into typed questions.

A set names its notes folders, an optional article site served on loopback during the run
(``{site}`` in the notes becomes its base URL), optional ``requires`` (a path and the Debian
package that provides it), and questions with the sources that hold each answer and the facts it
must state (format: ``eval/README.md``).

Every question records its split, ``train`` or ``test``, in the YAML. The test part is frozen: it is
reported, never used to choose a rule, a feature or a weight, and a question never changes part
(``eval/splits.lock`` records every assignment; ``eval/assign_splits.py`` assigns new questions).
A question's ``rewordings`` (the same facts, asked in other words) are questions of their own, with
ids ``<id>~1``, ``<id>~2``, …, and share the original's split. :func:`questions_of` iterates over one
part, for example the training questions a fitting script may learn from.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from ..errors import HwqaError


class EvalError(HwqaError):
    """A question file is missing, malformed, or needs something that is not installed."""


TRAIN, TEST = "train", "test"
SPLITS = (TRAIN, TEST)
TEST_SHARE = 0.4  # share of new questions assigned to the test part (each set must keep at least MIN_TEST_SHARE)
MIN_TEST_SHARE = 1 / 3
REWORDING_MARK = "~"


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    kind: str = "fact"
    sources: tuple[str, ...] = ()
    facts: tuple[tuple[str, ...], ...] = ()  # each fact: its accepted alternatives
    covered: bool = True
    missing: str | None = None
    split: str = TRAIN
    original: str | None = None  # for a rewording: the id of the question it rewords
    calculated: bool = False  # the facts are the price calculator's results, not text of the sources

    @property
    def group(self) -> str:
        """The original question's id: a question and its rewordings form one group (one split)."""
        return self.original or self.id


@dataclass(frozen=True)
class QuestionSet:
    name: str
    path: Path
    notes: tuple[Path, ...]  # merged in order into one notes folder (a later file of the same name wins)
    site: Path | None
    questions: tuple[Question, ...]
    requires_path: Path | None = None
    requires_debian: str | None = None

    def split(self, part: str) -> tuple[Question, ...]:
        """The questions of one part (``train``, ``test``; ``all`` for every question), rewordings included."""
        return self.questions if part == "all" else tuple(q for q in self.questions if q.split == part)


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
        if REWORDING_MARK in qid:
            raise EvalError(f"{where}: '{REWORDING_MARK}' is kept for rewordings' ids; rename the question")
        seen.add(qid)
        split = raw.get("split")
        if split is not None and split not in SPLITS:
            raise EvalError(f"{where}: split must be 'train' or 'test', not {split!r}")
        rewordings = raw.get("rewordings") or []
        if not isinstance(rewordings, list) or not all(isinstance(r, str) and r.strip() for r in rewordings):
            raise EvalError(f"{where}: 'rewordings' must be a list of questions (strings)")
        sources = [raw["sources"]] if isinstance(raw.get("sources"), str) else raw.get("sources") or []
        covered = bool(raw.get("covered", True))
        if covered and not sources:
            raise EvalError(f"{where}: a covered question needs 'sources' (or set covered: false)")
        kind = str(raw.get("kind", "fact" if covered else "not-covered"))
        missing = str(raw["missing"]) if raw.get("missing") else None
        facts = _facts(raw.get("facts"), where)
        calculated = bool(raw.get("calculated", False))
        q = Question(
            qid, str(raw["question"]), kind, tuple(map(str, sources)), facts, covered, missing, split or "", None, calculated
        )
        questions.append(q)
        for n, text in enumerate(rewordings, start=1):
            questions.append(replace(q, id=f"{qid}{REWORDING_MARK}{n}", question=text.strip(), original=qid))
    name = str(data.get("name") or path.stem)
    unassigned = [q for q in questions if not q.split]
    if unassigned:  # not recorded yet: the same deterministic rule eval/assign_splits.py records
        chosen = assign_splits(name, [q for q in questions if q.original is None], questions)
        questions = [q if q.split else replace(q, split=chosen[q.group]) for q in questions]
    return QuestionSet(
        name=name,
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
    for folder in (Path(__file__).resolve().parents[3] / "eval", Path.cwd() / "eval"):
        files = sorted(folder.glob("*.yaml"))
        if files:
            return files
    raise EvalError("no question files found in eval/; pass --questions FILE")


def _draw(set_name: str, qid: str) -> float:
    """A stable number in [0, 1) for a question: where it falls in the assignment order."""
    return int(hashlib.sha256(f"{set_name}/{qid}".encode()).hexdigest()[:12], 16) / 16**12


def assign_splits(set_name: str, originals: Sequence[Question], recorded: Iterable[Question] = ()) -> dict[str, str]:
    """The split of every original question: its recorded one, or one assigned now, deterministically.

    New questions are taken in a stable order (by kind, then by a hash of set and id) and every
    question that would leave the test share of the new ones under ``TEST_SHARE`` goes to test, so
    each kind (not-covered ones included) is split alike. Recorded splits never change; if the set's
    test part would still be under a third, more new questions go to test. Rewordings follow their
    original (``Question.group``).
    """
    known = {q.group: q.split for q in recorded if q.split}
    result = {q.id: known[q.id] for q in originals if q.id in known}
    new = sorted((q for q in originals if q.id not in known), key=lambda q: (q.kind, _draw(set_name, q.id)))
    taken = 0
    for i, q in enumerate(new):
        test = taken < TEST_SHARE * (i + 1) - 1e-9
        taken += test
        result[q.id] = TEST if test else TRAIN
    for q in sorted(new, key=lambda q: _draw(set_name, q.id)):
        if sum(1 for v in result.values() if v == TEST) >= MIN_TEST_SHARE * len(result):
            break
        result[q.id] = TEST
    return result


def questions_of(part: str = TRAIN, files: Sequence[Path] | None = None) -> Iterator[tuple[QuestionSet, Question]]:
    """Every question of one part (``train``, ``test`` or ``all``) of the given files (default: the shipped sets).

    A fitting script learns from ``questions_of("train")`` only; the test part is for reporting.
    """
    if part not in (*SPLITS, "all"):
        raise EvalError(f"unknown split '{part}'; use train, test or all")
    for path in files if files is not None else default_question_files():
        qs = load_question_set(Path(path))
        for q in qs.split(part):
            yield qs, q


LOCK_HEADER = (
    "# The frozen train/test split of eval/*.yaml: one line per question ever assigned, 'set id split'.\n"
    "# A question never changes part; eval/assign_splits.py assigns new questions and appends them here.\n"
)


def read_lock(path: Path) -> dict[tuple[str, str], str]:
    """``(set, id) -> split`` from a lock file (missing file: nothing recorded yet)."""
    if not path.exists():
        return {}
    lock: dict[tuple[str, str], str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 3 or fields[2] not in SPLITS:
            raise EvalError(f"{path}: line {n} is not 'set id train|test'; restore it from version control")
        lock[(fields[0], fields[1])] = fields[2]
    return lock


def record_splits(path: Path, lock_path: Path) -> dict[str, str]:
    """Write a ``split:`` line into ``path`` for each question without one, and append it to the lock.

    A question the lock knows gets its locked split back; a new one gets what :func:`assign_splits`
    gives it (what the loader assumes for unrecorded questions). A recorded split that differs from
    the lock is an error: nothing is written. Returns the newly recorded ``id -> split``.
    """
    qs = load_question_set(path)
    lock = read_lock(lock_path)
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    unrecorded = {str(item["id"]) for item in raw["questions"] if "split" not in item}
    originals = [q for q in qs.questions if q.original is None]
    moved = [q.id for q in originals if q.id not in unrecorded and lock.get((qs.name, q.id), q.split) != q.split]
    if moved:
        raise EvalError(f"{path}: question '{moved[0]}' changed part since {lock_path} recorded it; put its split back")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    new: dict[str, str] = {}
    for q in originals:
        if q.id not in unrecorded:
            continue
        split = lock.get((qs.name, q.id), q.split)
        for i, line in enumerate(lines):
            if line.strip() in (f"- id: {q.id}", f'- id: "{q.id}"', f"- id: '{q.id}'"):
                indent = line[: len(line) - len(line.lstrip())] + "  "
                lines.insert(i + 1, f"{indent}split: {split}\n")
                new[q.id] = split
                break
        else:
            raise EvalError(f"{path}: cannot find the line '- id: {q.id}'; add 'split: {split}' under it by hand")
    path.write_text("".join(lines), encoding="utf-8")
    added = [f"{qs.name} {q.id} {new[q.id]}\n" for q in originals if q.id in new and (qs.name, q.id) not in lock]
    if added:
        text = lock_path.read_text(encoding="utf-8") if lock_path.exists() else LOCK_HEADER
        lock_path.write_text(text + "".join(added), encoding="utf-8")
    return new
