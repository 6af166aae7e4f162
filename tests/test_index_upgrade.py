"""An index written by the previous format (FORMAT 3: one FAISS file, one docstore, the price table
in a manifest without a checksum) is refused by queries with one line saying what to run, and
`hwqa index` turns it into the current format without embedding anything again."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from hwqa.cli import app
from hwqa.index import reader as store
from hwqa.index.segment import sha256_file
from hwqa.prices.delta import STATE

from .conftest import built_hash_index, point_cli_at, write_note


def as_format_3(index_dir: Path) -> Path:
    """The live (one-segment) generation rewritten the way FORMAT 3 laid a generation out; made live."""
    gen_dir = store.current_generation_dir(index_dir)
    assert gen_dir is not None
    manifest = store.read_manifest(gen_dir)
    (segment,) = manifest["segments"]
    old = index_dir / "gen-20250101T000000-0ld003"
    old.mkdir()
    import faiss

    matrix = np.load(gen_dir / f"{segment['name']}.npy")
    flat = faiss.IndexFlatIP(matrix.shape[1])
    flat.add(np.ascontiguousarray(matrix, dtype=np.float32))
    faiss.write_index(flat, str(old / store.VECTORS))
    shutil.copyfile(gen_dir / f"{segment['name']}.sqlite", old / store.DOCSTORE)
    db = sqlite3.connect(old / store.DOCSTORE)
    try:  # FORMAT 3's tables: chunks, their keyword rows, span vectors, and the generation's name
        db.execute("DROP TABLE notes")
        db.execute("DROP TABLE note_keys")
        db.execute("DELETE FROM info")
        db.execute("INSERT INTO info VALUES ('generation', ?)", (old.name,))
        db.commit()
    finally:
        db.close()
    prices = {k: v for k, v in manifest.pop("prices").items() if k != STATE}
    kept: dict[str, Any] = {
        k: v for k, v in manifest.items() if k not in ("segments", "deleted", "next_id", "files", "counts", "checked_at")
    }
    for record in kept["notes"].values():
        record.pop("seg", None)
        record.pop("stamp", None)
    kept.update(
        format=3,
        generation=old.name,
        prices=prices,
        counts={"chunks": segment["count"]},
        files={n: {"bytes": (old / n).stat().st_size, "sha256": sha256_file(old / n)} for n in (store.VECTORS, store.DOCSTORE)},
    )
    (old / store.MANIFEST).write_text(json.dumps(kept, indent=2, sort_keys=True), encoding="utf-8")
    (index_dir / "CURRENT").write_text(old.name + "\n", encoding="utf-8")
    shutil.rmtree(gen_dir)
    return old


@pytest.fixture
def old_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_note(tmp_path / "notes", "tpu.md", "# TPU\n\nA TPU v3 cost $8.00 per hour on GCP in 2025-01.\n\nIt has 16 GB of HBM.\n")
    write_note(tmp_path / "notes", "gpu.md", "# GPU\n\nAn A100 cost $3.67 per hour on AWS.\n\nIt has 40 GB of memory.\n")
    settings = built_hash_index(tmp_path)
    as_format_3(settings.index)
    point_cli_at(monkeypatch, settings)
    return settings.index


def test_a_question_to_an_index_of_the_previous_format_says_in_one_line_to_run_hwqa_index(old_index: Path) -> None:
    result = CliRunner().invoke(app, ["ask", "How much memory does the TPU v3 have?"])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert "another hwqa format" in lines[0] and "hwqa index" in lines[0]


def test_hwqa_index_upgrades_an_index_of_the_previous_format_reusing_its_vectors(old_index: Path) -> None:
    runner = CliRunner()
    built = runner.invoke(app, ["index", "--json"])
    assert built.exit_code == 0, built.output
    report = json.loads(built.output)
    assert report["chunks_embedded"] == 0 and report["chunks_reused"] == report["chunks_total"] > 0
    gen_dir = store.current_generation_dir(old_index)
    assert gen_dir is not None and store.read_manifest(gen_dir)["format"] == store.FORMAT
    asked = runner.invoke(app, ["ask", "What does a TPU v3 cost per hour?"])
    assert asked.exit_code == 0 and "$8.00" in asked.output and "tpu.md" in asked.output
    prices = runner.invoke(app, ["prices"])
    assert "8.00" in prices.output and "3.67" in prices.output
