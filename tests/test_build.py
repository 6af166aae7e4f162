"""The index on disk: manifest, reuse of embeddings, verification on load."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hwqa import __version__
from hwqa.build.builder import build_index
from hwqa.engine import Engine
from hwqa.errors import IndexCorruptError, IndexMismatchError, IndexMissingError
from hwqa.index import reader as store
from hwqa.settings import Settings

from .conftest import write_note


def manifest_of(settings: Settings) -> dict[str, Any]:
    gen = store.current_generation_dir(settings.index)
    assert gen is not None
    manifest: dict[str, Any] = json.loads((gen / "manifest.json").read_text())
    return manifest


def test_manifest_records_what_built_the_index(settings: Settings) -> None:
    report = build_index(settings)
    m = manifest_of(settings)
    assert m["embedder"] == {"backend": "hash", "model": "hash-256", "dim": 256, "max_tokens": 256}
    assert m["chunking"] == {"max_tokens": settings.chunk_tokens, "overlap": settings.chunk_overlap}
    assert m["hwqa_version"] == __version__
    assert set(m["notes"]) == {"prices.md", "tpu.md", "hardware/cpu.md"}
    assert all(len(n["sha256"]) == 64 for n in m["notes"].values())
    assert m["notes"]["hardware/cpu.md"]["draft"] is True
    assert m["counts"]["chunks"] == report.chunks_total > 0
    gen = store.current_generation_dir(settings.index)
    assert gen is not None
    used = {p.name for p in gen.iterdir()} - {"manifest.json"}
    assert {f"{s['name']}{ext}" for s in m["segments"] for ext in (".npy", ".sqlite")} | {"prices.json"} == used
    for name in used:  # every file the generation uses has its checksum in the manifest
        assert m["files"][name]["sha256"] == store.sha256_file(gen / name)


def test_rebuild_with_nothing_changed_embeds_nothing(settings: Settings) -> None:
    first = build_index(settings)
    again = build_index(settings)
    assert first.chunks_embedded == first.chunks_total
    assert again.chunks_embedded == 0 and again.chunks_reused == first.chunks_total
    assert again.changed is False and again.generation == first.generation


def test_editing_one_note_embeds_only_its_changed_chunks(settings: Settings) -> None:
    first = build_index(settings)
    write_note(settings.notes, "tpu.md", (settings.notes / "tpu.md").read_text().replace("16 GB", "32 GB"))
    second = build_index(settings)
    assert second.chunks_embedded == 1
    assert second.chunks_reused == first.chunks_total - 1
    assert second.chunks_removed == 1
    engine = Engine(settings)
    texts = [c.text for c in engine.generation().all_chunks()]
    assert any("32 GB" in t for t in texts) and not any("16 GB of host" in t for t in texts)


def test_every_passage_carries_its_span_vectors_and_a_rebuild_reuses_them(settings: Settings) -> None:
    """The answerer compares the question with each candidate span: the build embeds them, once."""
    import numpy as np

    from hwqa.notes.spans import spans_of

    build_index(settings)
    first = Engine(settings).generation()
    before = {c.key: c.spans for c in first.chunks([c.id for c in first.all_chunks()]) if c.spans is not None}
    write_note(settings.notes, "tpu.md", (settings.notes / "tpu.md").read_text().replace("16 GB", "32 GB"))
    build_index(settings)
    gen = Engine(settings).generation()
    chunks = gen.chunks([c.id for c in gen.all_chunks()])  # every passage (ids are not 0..n-1 once a note changed)
    assert all(c.spans is not None and len(c.spans) == len(spans_of(c.text)) for c in chunks)
    kept = [c for c in chunks if c.key in before]
    assert len(kept) == len(chunks) - 1
    assert all(c.spans is not None and np.array_equal(c.spans, before[c.key]) for c in kept)


def test_deleting_a_note_removes_its_chunks(settings: Settings) -> None:
    build_index(settings)
    (settings.notes / "tpu.md").unlink()
    report = build_index(settings)
    assert report.chunks_embedded == 0 and report.chunks_removed > 0
    sources = {c.source for c in Engine(settings).generation().all_chunks()}
    assert sources == {"prices.md", "hardware/cpu.md"}


def test_changing_chunk_settings_forces_a_full_rebuild_and_says_why(settings: Settings) -> None:
    build_index(settings)
    report = build_index(settings.replace(chunk_tokens=100))
    assert report.chunks_reused == 0 and report.chunks_embedded == report.chunks_total
    assert report.full_rebuild is not None and "chunking" in report.full_rebuild


def test_no_index_says_to_run_hwqa_index(settings: Settings) -> None:
    with pytest.raises(IndexMissingError, match="run 'hwqa index'"):
        Engine.load(settings)


def test_an_index_built_with_another_model_is_refused_with_how_to_rebuild(settings: Settings) -> None:
    build_index(settings)
    gen = store.current_generation_dir(settings.index)
    assert gen is not None
    m = json.loads((gen / "manifest.json").read_text())
    m["embedder"]["model"] = "some-other-model"
    (gen / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexMismatchError, match="some-other-model.*rebuild"):
        Engine.load(settings)


@pytest.mark.parametrize("damage", ["truncate", "flip", "delete"])
def test_damaged_files_give_one_line_error(settings: Settings, damage: str) -> None:
    build_index(settings)
    gen = store.current_generation_dir(settings.index)
    assert gen is not None
    target = next(gen.glob("seg-*.sqlite"))
    data = target.read_bytes()
    if damage == "truncate":
        target.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        target.write_bytes(data[:100] + bytes([data[100] ^ 0xFF]) + data[101:])
    else:
        target.unlink()
    with pytest.raises(IndexCorruptError) as info:
        Engine.load(settings)
    assert "\n" not in str(info.value) and "hwqa index" in str(info.value)


def test_engine_picks_up_a_new_generation_without_restart(settings: Settings) -> None:
    build_index(settings)
    engine = Engine.load(settings)
    before = engine.generation().name
    write_note(settings.notes, "new.md", "# Liquid cooling\n\nImmersion cooling keeps dense racks of GPUs cool.")
    build_index(settings)
    after = engine.generation().name
    assert after != before
    answer = engine.ask("immersion cooling for GPU racks")
    assert answer.citations[0].source == "new.md"
