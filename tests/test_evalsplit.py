"""The frozen train/test split of ``hwqa eval``: recorded once, never moved, rewordings with their original."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from hwqa.eval.sets import (
    MIN_TEST_SHARE,
    TEST,
    TRAIN,
    EvalError,
    Question,
    assign_splits,
    load_question_set,
    questions_of,
    read_lock,
    record_splits,
)

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted((REPO / "eval").glob("*.yaml"))
LOCK = REPO / "eval" / "splits.lock"
BLIND = "blind-"  # sets written by helpers who never read the code (../shared/blind-sets.md): all test


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def question_file(path: Path, entries: list[dict[str, object]], name: str = "demo") -> Path:
    path.write_text(yaml.safe_dump({"name": name, "notes": ".", "questions": entries}, sort_keys=False), encoding="utf-8")
    return path


def entry(qid: str, split: str | None = None, **extra: object) -> dict[str, object]:
    e: dict[str, object] = {"id": qid}
    if split:
        e["split"] = split
    e.update({"question": f"What about {qid}?", "sources": ["a.md"], "facts": ["x"]}, **extra)
    return e


# --------------------------------------------------------------------------------------------
# The shipped sets


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_every_shipped_question_records_the_split_the_lock_froze(path: Path) -> None:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    unrecorded = [item["id"] for item in raw["questions"] if item.get("split") not in (TRAIN, TEST)]
    assert not unrecorded, f"questions without a split (run 'python eval/assign_splits.py {path.name}'): {unrecorded}"
    qs = load_question_set(path)
    lock = read_lock(LOCK)
    moved = [q.id for q in qs.questions if lock.get((qs.name, q.group)) != q.split]
    assert not moved, f"questions whose split is not the one eval/splits.lock froze (a question never moves): {moved}"


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_at_least_a_third_of_every_shipped_set_is_test_with_covered_and_not_covered_questions(path: Path) -> None:
    qs = load_question_set(path)
    test = qs.split(TEST)
    assert len(test) >= MIN_TEST_SHARE * len(qs.questions)
    assert len({q.group for q in test}) >= MIN_TEST_SHARE * len({q.group for q in qs.questions})
    assert any(q.covered for q in test) and any(not q.covered for q in test)
    if not qs.name.startswith(BLIND):
        assert any(not q.covered for q in qs.split(TRAIN))  # "not covered" can be calibrated on training questions


@pytest.mark.parametrize("path", [p for p in SHIPPED if p.name.startswith(BLIND)], ids=lambda p: p.name)
def test_a_blind_set_is_frozen_whole_into_the_test_part(path: Path) -> None:
    # A set written by someone who never read hwqa's code is evidence only while nothing is fitted on it.
    qs = load_question_set(path)
    assert qs.questions and all(q.split == TEST for q in qs.questions)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_rewordings_follow_their_original(path: Path) -> None:
    qs = load_question_set(path)
    by_id = {q.id: q for q in qs.questions}
    for q in qs.questions:
        if q.original is not None:
            original = by_id[q.original]
            assert (q.split, q.facts, q.sources, q.covered) == (
                original.split,
                original.facts,
                original.sources,
                original.covered,
            )
            assert q.question != original.question


# --------------------------------------------------------------------------------------------
# The rules


def test_rewordings_are_questions_of_their_own_with_the_original_facts_and_split(tmp_path: Path) -> None:
    path = question_file(
        tmp_path / "q.yaml",
        [
            entry("vram", TEST, rewordings=["Which card has the most VRAM?", "Name the GPU with the biggest memory."]),
            entry("other", TRAIN),
        ],
    )
    qs = load_question_set(path)
    ids = [q.id for q in qs.questions]
    assert ids == ["vram", "vram~1", "vram~2", "other"]
    first, second = qs.questions[1:3]
    assert first.question == "Which card has the most VRAM?" and first.original == "vram" and first.group == "vram"
    assert first.split == second.split == TEST and first.facts == (("x",),) and first.sources == ("a.md",)
    assert [q.id for q in qs.split(TEST)] == ["vram", "vram~1", "vram~2"]
    assert [q.id for q in qs.split(TRAIN)] == ["other"]


def test_a_bad_split_or_a_reserved_id_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(EvalError, match="'q'.*split must be 'train' or 'test'"):
        load_question_set(question_file(tmp_path / "a.yaml", [entry("q", "holdout")]))
    with pytest.raises(EvalError, match="'q~1'.*kept for rewordings"):
        load_question_set(question_file(tmp_path / "b.yaml", [entry("q~1", TRAIN)]))
    with pytest.raises(EvalError, match="'rewordings' must be a list"):
        load_question_set(question_file(tmp_path / "c.yaml", [entry("q", TRAIN, rewordings="Which one?")]))


def test_assignment_is_deterministic_keeps_recorded_splits_and_a_third_in_test() -> None:
    recorded = [Question(f"old-{i}", "?", split=TRAIN) for i in range(10)]
    new = [Question(f"new-{i}", "?", kind="fact" if i % 2 else "not-covered", split="") for i in range(8)]
    splits = assign_splits("demo", [*recorded, *new], recorded)
    assert all(splits[q.id] == TRAIN for q in recorded)  # recorded questions never move
    assert sum(v == TEST for v in splits.values()) >= MIN_TEST_SHARE * len(splits)
    assert splits == assign_splits("demo", [*recorded, *new], recorded)
    fresh = [Question(f"q-{i}", "?", kind=("fact", "list", "not-covered")[i % 3], split="") for i in range(60)]
    spread = assign_splits("demo", fresh)
    assert 0.36 <= sum(v == TEST for v in spread.values()) / 60 <= 0.44
    for kind in ("fact", "list", "not-covered"):  # each kind is split alike
        mine = [q.id for q in fresh if q.kind == kind]
        assert 0.25 <= sum(spread[i] == TEST for i in mine) / len(mine) <= 0.55


def test_recording_writes_split_lines_and_the_lock_and_never_moves_a_question(tmp_path: Path) -> None:
    lock = tmp_path / "splits.lock"
    path = question_file(tmp_path / "q.yaml", [entry(f"q{i}") for i in range(9)])
    new = record_splits(path, lock)
    assert len(new) == 9 and sum(v == TEST for v in new.values()) >= 3
    qs = load_question_set(path)
    assert {q.id: q.split for q in qs.questions} == new
    assert read_lock(lock) == {("demo", qid): split for qid, split in new.items()}
    # Questions added later get a split; the first nine keep theirs, in the file and in the lock.
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["questions"] += [entry(f"later{i}", rewordings=[f"And later{i}?"]) for i in range(6)]
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    later = record_splits(path, lock)
    assert set(later) == {f"later{i}" for i in range(6)}
    qs = load_question_set(path)
    assert {q.id: q.split for q in qs.questions if q.id in new} == new
    assert all(q.split == later[q.group] for q in qs.questions if q.original)
    assert len({q.group for q in qs.split(TEST)}) >= MIN_TEST_SHARE * 15
    assert record_splits(path, lock) == {}  # nothing new: nothing written
    # Moving a recorded question to the other part is refused; the file is left as it was.
    text = path.read_text(encoding="utf-8")
    moved_from = new["q0"]
    path.write_text(
        text.replace(f"- id: q0\n  split: {moved_from}", f"- id: q0\n  split: {TEST if moved_from == TRAIN else TRAIN}")
    )
    with pytest.raises(EvalError, match="'q0' changed part"):
        record_splits(path, lock)


def test_questions_of_one_part_are_what_a_fitting_script_learns_from(tmp_path: Path) -> None:
    path = question_file(tmp_path / "q.yaml", [entry("a", TRAIN, rewordings=["A?"]), entry("b", TEST), entry("c", TRAIN)])
    train = [(qs.name, q.id) for qs, q in questions_of(TRAIN, [path])]
    assert train == [("demo", "a"), ("demo", "a~1"), ("demo", "c")]
    assert [q.id for _, q in questions_of(TEST, [path])] == ["b"]
    assert len(list(questions_of("all", [path]))) == 4
    with pytest.raises(EvalError, match="unknown split 'dev'"):
        list(questions_of("dev", [path]))


def test_every_question_of_the_first_two_sets_has_two_rewordings() -> None:
    for name in ("questions.yaml", "python-docs.yaml"):
        qs = load_question_set(REPO / "eval" / name)
        originals = [q for q in qs.questions if q.original is None]
        counts = {q.id: sum(1 for r in qs.questions if r.original == q.id) for q in originals}
        assert not [qid for qid, n in counts.items() if n < 2], f"{name}: questions with fewer than two rewordings"


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_a_reworded_not_covered_question_still_names_what_is_missing(path: Path) -> None:
    qs = load_question_set(path)
    by_id = {q.id: q for q in qs.questions}
    lost = [
        q.id
        for q in qs.questions
        if q.original and not q.covered and (m := by_id[q.original].missing) and m.casefold() not in q.question.casefold()
    ]
    assert not lost, f"rewordings that no longer name the missing term (term named could not be scored): {lost}"


def test_a_calculated_question_and_its_rewordings_say_their_facts_are_computed(tmp_path: Path) -> None:
    path = question_file(
        tmp_path / "q.yaml", [entry("budget", TEST, calculated=True, rewordings=["With $100?"]), entry("plain", TRAIN)]
    )
    qs = load_question_set(path)
    assert [q.calculated for q in qs.questions] == [True, True, False]
