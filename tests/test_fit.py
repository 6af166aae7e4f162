"""`hwqa eval --fit`: the answer scorer is fitted on the training questions only, reproducibly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from hwqa.answer.scorer import FEATURES, Model
from hwqa.eval.fit import recalibrate, run_fit
from hwqa.eval.fitreport import constants_table, paired, sign_test
from hwqa.settings import load_settings

from .conftest import write_note

NOTE = """---
title: Lab machines
---
# Lab machines

The render box has two RTX 4090 cards with 24 GB each. It draws 900 W under load.

The old box keeps a single V100 with 16 GB of memory. Nobody uses it for training any more.

## Storage

Datasets live on a 40 TB NAS in the basement. Backups run every night at 2 am.
"""


def question_set(folder: Path, test_fact: str) -> Path:
    write_note(folder / "notes", "lab.md", NOTE)
    questions: list[dict[str, object]] = [
        {"id": "render-cards", "question": "Which cards are in the render box?", "sources": ["lab.md"], "facts": ["RTX 4090"]},
        {"id": "power", "question": "How much power does the render box draw?", "sources": ["lab.md"], "facts": ["900 W"]},
        {"id": "nas", "question": "How big is the NAS?", "sources": ["lab.md"], "facts": ["40 TB"]},
        {"id": "bread", "question": "How long should bread dough rise?", "covered": False},
        {
            "id": "v100-memory",
            "question": "How much memory does the old V100 have?",
            "split": "test",
            "sources": ["lab.md"],
            "facts": [test_fact],
        },
        {"id": "backups", "question": "When do backups run?", "split": "test", "sources": ["lab.md"], "facts": ["2 am"]},
    ]
    for q in questions:
        q.setdefault("split", "train")
    path = folder / "lab.yaml"
    path.write_text(yaml.safe_dump({"name": "lab", "notes": "notes", "questions": questions}, sort_keys=False), encoding="utf-8")
    return path


def fit(tmp_path: Path, name: str, test_fact: str) -> tuple[dict[str, object], str]:
    folder = tmp_path / name
    base = load_settings({"embed_backend": "hash", "fetch_links": False}, env={}, cwd=tmp_path)
    out, report = folder / "scorer.json", folder / "fit-report.md"
    run_fit([question_set(folder, test_fact)], base, cache=folder / "cache", out=out, report=report, progress=lambda m: None)
    return json.loads(out.read_text(encoding="utf-8")), report.read_text(encoding="utf-8")


def test_the_fit_is_reproducible_and_learns_nothing_from_the_test_part(tmp_path: Path) -> None:
    first, report = fit(tmp_path, "a", "16 GB")
    again, _ = fit(tmp_path, "b", "16 GB")
    other_test, _ = fit(tmp_path, "c", "a fact no passage states")
    assert first == again  # the same questions give the same weights, threshold and margin
    assert first == other_test  # what the test part expects never reaches a weight
    model = Model.from_json(first)
    assert model.features and set(model.features) <= set(FEATURES) and 0.0 < model.threshold < 1.0
    assert "| train |" in report and "| test |" in report and "Each rule switched off" in report
    assert "Features chosen by cross-validation on train" in report
    assert "the question-to-span similarity alone (nothing fitted)" in report  # the gap between the parts, apart from the fit


def test_recalibrating_keeps_the_weights_and_sets_the_threshold_from_the_training_part_only(tmp_path: Path) -> None:
    """After training sets are added, the not-covered threshold is calibrated again over them; which span is quoted
    (the weights, the margin) does not change, the test part's expectations reach nothing, and the report says it once."""
    fitted, _ = fit(tmp_path, "a", "16 GB")
    base = load_settings({"embed_backend": "hash", "fetch_links": False}, env={}, cwd=tmp_path)
    thresholds = []
    for name, test_fact in (("b", "16 GB"), ("c", "a fact no passage states")):
        folder = tmp_path / name
        out, report = folder / "scorer.json", folder / "fit-report.md"
        folder.mkdir()
        out.write_text(json.dumps({**fitted, "threshold": 0.9}), encoding="utf-8")  # a threshold from other sets
        report.write_text("# Span scorer fit\n", encoding="utf-8")
        files = [question_set(folder, test_fact)]
        for _ in range(2):  # run twice: one section, replaced
            thresholds.append(recalibrate(files, base, cache=folder / "cache", out=out, report=report, progress=lambda m: None))
        again = json.loads(out.read_text(encoding="utf-8"))
        assert {k: v for k, v in again.items() if k != "threshold"} == {k: v for k, v in fitted.items() if k != "threshold"}
        assert again["threshold"] == pytest.approx(thresholds[-1], abs=1e-6) and again["threshold"] != 0.9
        text = report.read_text(encoding="utf-8")
        assert text.startswith("# Span scorer fit") and text.count("## Not-covered threshold recalibrated") == 1, text
    assert len(set(thresholds)) == 1  # the same training part, whatever the test part expects: the same threshold


def test_a_constant_changes_only_when_train_prefers_another_beyond_chance() -> None:
    """Three training questions better and one worse is noise; twelve better and none worse is not."""
    assert sign_test(3, 1) > 0.5 and sign_test(0, 0) == 1.0
    assert sign_test(12, 0) < 0.001 and sign_test(12, 0) == sign_test(0, 12)
    assert paired({"q1": 1.0, "q2": 0.5, "q3": 0.0}, {"q1": 0.0, "q2": 0.5, "q3": 1.0}) == (1, 1)
    measured = {
        "DEPTH": {
            5: {
                "train": {"fact_recall": 0.8, "not_covered": 1.0, "per_question": {f"q{i}": 0.0 for i in range(12)}},
                "test": {"fact_recall": 0.7, "not_covered": 1.0},
            },
            6: {
                "train": {"fact_recall": 0.9, "not_covered": 1.0, "per_question": {f"q{i}": 1.0 for i in range(12)}},
                "test": {"fact_recall": 0.7, "not_covered": 1.0},
            },
            3: {
                "train": {"fact_recall": 0.81, "not_covered": 1.0, "per_question": {"q0": 1.0, "q1": 1.0}},
                "test": {"fact_recall": 0.7, "not_covered": 1.0},
            },
        }
    }
    table = "\n".join(constants_table(measured))
    assert "| 12 / 0 | 0.00 | better on train: use 6 |" in table
    assert "| 2 / 0 | 0.50 | not better beyond chance |" in table


def test_a_name_the_notes_lack_weighs_only_as_much_as_training_says(tmp_path: Path) -> None:
    """Questions written by someone else name places and things the notes never do ("the Zurich lab") and
    are answered all the same: fitted on such training questions, a missing name is no veto, and the
    answer says which name the notes never mention."""
    from hwqa.engine import Engine
    from hwqa.eval.fit import MISSING_WEIGHTS, collect
    from hwqa.eval.sets import load_question_set

    write_note(tmp_path / "notes", "lab.md", NOTE)
    questions: list[dict[str, object]] = [
        {"id": "cards", "question": "Which cards are in the Zurich render box?", "sources": ["lab.md"], "facts": ["RTX 4090"]},
        {
            "id": "power",
            "question": "How much power does the render box in Basel draw?",
            "sources": ["lab.md"],
            "facts": ["900 W"],
        },
        {"id": "nas", "question": "How big is the NAS at Acme?", "sources": ["lab.md"], "facts": ["40 TB"]},
        {"id": "backups", "question": "When do the Acme backups run?", "sources": ["lab.md"], "facts": ["2 am"]},
        {"id": "v100", "question": "How much memory does the V100 in Geneva have?", "sources": ["lab.md"], "facts": ["16 GB"]},
        {"id": "bread", "question": "How long should bread dough rise?", "covered": False},
    ]
    for q in questions:
        q["split"] = "train"
    path = tmp_path / "lab.yaml"
    path.write_text(yaml.safe_dump({"name": "lab", "notes": "notes", "questions": questions}, sort_keys=False), encoding="utf-8")
    base = load_settings({"embed_backend": "hash", "fetch_links": False}, env={}, cwd=tmp_path)
    out, report = tmp_path / "scorer.json", tmp_path / "fit-report.md"
    run_fit([path], base, cache=tmp_path / "cache", out=out, report=report, progress=lambda m: None)
    model = Model.from_json(json.loads(out.read_text(encoding="utf-8")))
    assert model.missing_weight < max(MISSING_WEIGHTS)
    assert "is evidence, not a veto" in report.read_text(encoding="utf-8")
    (asked,) = [a for a in collect([load_question_set(path)], base, tmp_path / "cache", lambda m: None) if a.question.id == "nas"]
    assert asked.parsed.missing == ("Acme",)
    answer = asked.answer(model)
    assert answer.covered and "40 TB" in answer.text
    assert answer.text.startswith("Your notes don't mention “Acme” by name")
    assert isinstance(asked.engine, Engine)
