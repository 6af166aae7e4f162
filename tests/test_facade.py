"""The library's facade: ``from hwqa import ...`` builds, answers and reports, and ``import hwqa`` stays cheap."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import hwqa
from hwqa import Answer, Citation, Engine, HwqaError, Settings, build_index, load_settings

from .conftest import REPO, write_note

FACADE = ["Engine", "build_index", "load_settings", "Settings", "Answer", "Citation", "HwqaError"]
HEAVY = ["torch", "sentence_transformers", "faiss", "gradio"]


def test_every_facade_name_is_exported_and_is_the_real_thing() -> None:
    from hwqa.answer.answer import Answer as RealAnswer
    from hwqa.build.builder import build_index as real_build_index
    from hwqa.engine import Engine as RealEngine
    from hwqa.settings import load_settings as real_load_settings

    assert set(FACADE) <= set(hwqa.__all__) and "__version__" in hwqa.__all__
    for name in hwqa.__all__:
        assert getattr(hwqa, name) is not None, name
        assert name in dir(hwqa), name
    assert (Engine, build_index, load_settings, Answer) == (RealEngine, real_build_index, real_load_settings, RealAnswer)
    assert issubclass(HwqaError, Exception) and isinstance(Citation, type) and isinstance(Settings, type)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = hwqa.nothing_here  # type: ignore[attr-defined]


def test_the_facade_builds_answers_and_reports_status_end_to_end(tmp_path: Path) -> None:
    notes = tmp_path / "my-notes"
    write_note(notes, "gpus.md", "---\ntitle: GPU memory\n---\n# GPU memory\n\nThe A100 has 80 GB of HBM2e memory.\n")
    write_note(notes, "tpus.md", "---\ntitle: TPU pods\n---\n# TPU pods\n\nA TPU v4 pod slice has 4096 chips.\n")
    settings = load_settings(
        {"notes": notes, "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False}, env={}, cwd=tmp_path
    )
    assert isinstance(settings, Settings)

    report = build_index(settings)
    assert report.notes_seen == 2 and report.chunks_embedded == report.chunks_total > 0 and report.changed

    engine = Engine.load(settings)
    answer = engine.ask("How much memory does the A100 have?")
    assert isinstance(answer, Answer) and "80 GB" in answer.text
    assert answer.citations and all(isinstance(c, Citation) for c in answer.citations)
    assert answer.citations[0].source == "gpus.md"

    status = engine.status()
    assert (status.notes, status.chunks, status.generation) == (2, report.chunks_total, report.generation)
    assert status.embedder["model"] == "hash-256" and status.backend == "builtin"
    assert (status.links.total, status.links.fetched) == (0, 0)
    data = status.to_json()
    assert json.loads(json.dumps(data)) == data  # plain JSON, as `hwqa status --json` prints it
    assert set(data["links"]) == {"fetched", "not_modified", "cached", "failed", "skipped"}

    with pytest.raises(HwqaError, match="question is empty"):
        engine.ask("  ")
    with pytest.raises(HwqaError, match="hwqa index"):
        Engine.load(settings.replace(index=tmp_path / "no-index"))


def _imported_after(code: str) -> list[str]:
    script = f"import sys\n{code}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
    )
    return result.stdout.split()


def test_import_hwqa_loads_no_model_index_or_web_library() -> None:
    assert _imported_after("import hwqa; hwqa.__version__") == []
    assert _imported_after("from hwqa import Engine, load_settings, Settings, Answer, Citation, HwqaError") == []
