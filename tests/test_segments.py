"""An edit costs what it changes: generations share unchanged segments, unchanged notes are not
read, compaction merges segments, and readers only ever see one whole generation."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hwqa.answer.retrieve import retrieve
from hwqa.build.builder import build_index
from hwqa.build.compact import compact_index
from hwqa.build.watch import changed_notes
from hwqa.engine import Engine
from hwqa.index import reader as store
from hwqa.prices import stored_price_table
from hwqa.settings import Settings, load_settings

from .conftest import write_note


def corpus(tmp_path: Path, notes: int = 30) -> Settings:
    folder = tmp_path / "notes"
    for i in range(notes):
        write_note(
            folder,
            f"gpu-{i:02d}.md",
            f"# GPU note {i}\n\nThe accelerator number {i} has {8 * (i % 5 + 1)} GB of memory and runs "
            f"kernel family k{i}.\n\n## Cooling\n\nRack {i} is cooled by air at {20 + i % 7} degrees.\n",
        )
    write_note(
        folder,
        "prices.md",
        """
        ---
        title: GPU prices
        tags: [prices]
        ---
        # GPU prices

        | hardware | provider | type | usd_per_hour | speed |
        |---|---|---|---|---|
        | P100 | GCP | gpu | 1.46 | 0.5 |
        | TPU v3 | GCP | tpu | 8.00 | 8.0 |
        """,
    )
    return load_settings(
        {"notes": folder, "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False}, env={}, cwd=tmp_path
    )


def live(settings: Settings) -> tuple[Path, dict[str, Any]]:
    gen = store.current_generation_dir(settings.index)
    assert gen is not None
    return gen, json.loads((gen / "manifest.json").read_text())


def texts(settings: Settings) -> list[str]:
    gen = store.open_current(settings.index)
    try:
        return sorted(c.text for c in gen.all_chunks())
    finally:
        gen.close()


def span_vectors(settings: Settings) -> dict[str, Any]:
    """Each live chunk's span vectors, by chunk key (every chunk has them)."""
    gen = store.open_current(settings.index)
    try:
        chunks = gen.chunks([c.id for c in gen.all_chunks()])
        assert all(c.spans is not None for c in chunks)
        return {c.key: c.spans for c in chunks}
    finally:
        gen.close()


def test_a_one_note_edit_shares_every_unchanged_segment_and_adds_one_small_one(tmp_path: Path) -> None:
    settings = corpus(tmp_path)
    first = build_index(settings)
    old_dir, old = live(settings)
    write_note(settings.notes, "gpu-03.md", "# GPU note 3\n\nThe accelerator number 3 now has 96 GB of HBM3 memory.\n")
    report = build_index(settings)
    new_dir, new = live(settings)
    assert report.notes_read == 1 and report.chunks_embedded == 1
    assert [s["name"] for s in new["segments"]][:1] == [s["name"] for s in old["segments"]]
    assert len(new["segments"]) == 2 and new["segments"][1]["count"] == 1
    for name in (f"{old['segments'][0]['name']}.npy", f"{old['segments'][0]['name']}.sqlite"):
        assert (old_dir / name).stat().st_ino == (new_dir / name).stat().st_ino  # the same bytes, not a copy
    assert len(new["deleted"]) == 2  # the two chunks of the old version of the note
    assert report.chunks_total == first.chunks_total - 1
    found = texts(settings)
    assert any("96 GB of HBM3" in t for t in found) and not any("number 3 has" in t for t in found)
    assert len(span_vectors(settings)) == report.chunks_total  # the new chunk's spans beside the shared ones


def test_an_edited_note_ranks_as_it_would_in_a_fresh_index(tmp_path: Path) -> None:
    settings = corpus(tmp_path)
    build_index(settings)
    write_note(settings.notes, "gpu-07.md", "# GPU note 7\n\nLiquid immersion cooling keeps accelerator 7 at 30 degrees.\n")
    build_index(settings)
    fresh = settings.replace(index=tmp_path / "fresh")
    build_index(fresh)
    incremental, whole = store.open_current(settings.index), store.open_current(fresh.index)
    try:
        assert len(incremental.segments) == 2 and len(whole.segments) == 1
        for question in ("immersion cooling", "accelerator cooled by air", "kernel family k7 memory", "degrees"):
            a = [(incremental.chunks([i])[0].text, round(s, 6)) for i, s in incremental.keyword_search(question, 5)]
            b = [(whole.chunks([i])[0].text, round(s, 6)) for i, s in whole.keyword_search(question, 5)]
            assert [t for t, _ in a] == [t for t, _ in b], question
        engine = Engine(settings)
        hits = retrieve(engine.generation(), engine.embedder, "liquid immersion cooling", 3)
        assert hits[0].chunk.source == "gpu-07.md"
    finally:
        incremental.close()
        whole.close()


def test_unchanged_notes_are_not_read_until_a_full_check(tmp_path: Path) -> None:
    settings = corpus(tmp_path)
    build_index(settings)
    again = build_index(settings)
    assert again.notes_read == 0 and again.changed is False
    (settings.notes / "gpu-01.md").write_text((settings.notes / "gpu-01.md").read_text())  # saved, same text
    assert build_index(settings).notes_read == 1
    checked = build_index(settings, full_check=True)
    assert checked.notes_read == 31 and checked.chunks_embedded == 0


def test_a_change_that_keeps_size_and_mtime_is_still_seen(tmp_path: Path) -> None:
    settings = corpus(tmp_path)
    build_index(settings)
    path = settings.notes / "gpu-02.md"
    before = path.stat()
    path.write_text(path.read_text().replace("number 2 has", "number 2 hAs"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size, same mtime: the ctime still moved
    report = build_index(settings)
    assert report.notes_read == 1 and any("hAs" in t for t in texts(settings))


def test_the_watchers_paths_go_straight_to_the_build(tmp_path: Path) -> None:
    settings = corpus(tmp_path)
    build_index(settings)
    write_note(settings.notes, "new.md", "# Photonic interconnects\n\nOptical links join the racks.\n")
    (settings.notes / "gpu-04.md").unlink()
    report = build_index(settings, paths=["new.md", "gpu-04.md"])
    assert report.notes_read == 1 and report.notes_seen == 31
    sources = {c.source for c in Engine(settings).generation().all_chunks()}
    assert "new.md" in sources and "gpu-04.md" not in sources


def test_the_watcher_hands_note_paths_and_walks_the_folder_when_a_folder_moved(tmp_path: Path) -> None:
    settings = corpus(tmp_path, notes=2)
    notes = settings.notes.resolve()
    assert changed_notes(settings, [(1, str(notes / "a.md")), (2, str(notes / "sub" / "b.md"))]) == ["a.md", "sub/b.md"]
    assert changed_notes(settings, [(1, str(notes / "a.md")), (3, str(notes / "sub"))]) is None


def test_prices_of_unchanged_notes_stay_after_an_incremental_build(tmp_path: Path) -> None:
    settings = corpus(tmp_path)
    build_index(settings)
    write_note(settings.notes, "gpu-05.md", "# GPU note 5\n\nAn A100 costs $3.67 per hour on GCP.\n")
    build_index(settings)
    rows = {(r.hardware, r.usd_per_hour) for r in stored_price_table(settings.index).rows}
    assert {("P100", 1.46), ("TPU v3", 8.0), ("A100", 3.67)} <= rows
    write_note(settings.notes, "gpu-05.md", "# GPU note 5\n\nNo prices here any more.\n")
    build_index(settings)
    rows = {(r.hardware, r.usd_per_hour) for r in stored_price_table(settings.index).rows}
    assert {("P100", 1.46), ("TPU v3", 8.0)} <= rows and ("A100", 3.67) not in rows
    fresh = settings.replace(index=tmp_path / "fresh")
    build_index(fresh)
    assert stored_price_table(fresh.index).to_json() == stored_price_table(settings.index).to_json()


def test_compaction_merges_segments_into_an_index_the_size_of_a_fresh_one(tmp_path: Path) -> None:
    settings = corpus(tmp_path)
    build_index(settings)
    for edit in range(4):
        write_note(
            settings.notes, f"gpu-{edit:02d}.md", f"# GPU note {edit}\n\nEdition {edit}: a new text for this accelerator.\n"
        )
        build_index(settings)
    _, before = live(settings)
    assert len(before["segments"]) == 5 and before["deleted"]
    spans = span_vectors(settings)
    assert compact_index(settings, force=True) == "all"
    after_spans = span_vectors(settings)
    assert after_spans.keys() == spans.keys() and all(np.array_equal(after_spans[k], spans[k]) for k in spans)
    gen_dir, after = live(settings)
    assert len(after["segments"]) == 1 and after["deleted"] == [] and after["counts"]["chunks"] == before["counts"]["chunks"]
    fresh = settings.replace(index=tmp_path / "fresh")
    build_index(fresh)
    assert texts(settings) == texts(fresh)
    size = sum(p.stat().st_size for p in gen_dir.iterdir())
    fresh_dir, _ = live(fresh)
    assert size <= 1.2 * sum(p.stat().st_size for p in fresh_dir.iterdir())
    assert build_index(settings).changed is False  # the compacted generation is what the notes say
    Engine.load(settings).ask("TPU v3 price")


def test_compaction_runs_by_itself_when_deleted_rows_pass_a_fifth(tmp_path: Path) -> None:
    settings = corpus(tmp_path, notes=10)
    build_index(settings)
    assert compact_index(settings) is None
    for i in range(4):
        write_note(settings.notes, f"gpu-{i:02d}.md", f"# GPU note {i}\n\nRewritten {i}.\n")
    assert build_index(settings).compaction == "all"
    _, manifest = live(settings)
    assert manifest["counts"]["stored"] > 1.2 * manifest["counts"]["chunks"]
    assert compact_index(settings) == "all"
    _, manifest = live(settings)
    assert manifest["counts"]["stored"] == manifest["counts"]["chunks"]


READER = textwrap.dedent(
    """
    import re, sys
    from pathlib import Path
    from hwqa.index import reader as store

    index, rounds = Path(sys.argv[1]), int(sys.argv[2])
    seen = set()
    for _ in range(rounds):
        gen = store.open_current(index)
        try:
            editions = {int(m) for c in gen.all_chunks() for m in re.findall(r"Edition (\\d+)", c.text)}
        finally:
            gen.close()
        if len(editions) > 1:
            print("MIXED", sorted(editions)); sys.exit(1)
        seen |= editions
    print("OK", sorted(seen))
    """
)


def test_a_reader_never_sees_a_generation_mixing_segments_of_two_builds(tmp_path: Path) -> None:
    settings = corpus(tmp_path, notes=12)
    for name in ("a.md", "b.md"):
        write_note(settings.notes, name, f"# {name}\n\nEdition 0 of {name}.\n")
    build_index(settings)
    stop = threading.Event()

    def edit() -> None:
        edition = 0
        while not stop.is_set():
            edition += 1
            for name in ("a.md", "b.md"):  # one build sees both notes of an edition, or neither
                write_note(settings.notes, name, f"# {name}\n\nEdition {edition} of {name}.\n")
            build_index(settings, lock_wait=30, paths=["a.md", "b.md"])
            if edition % 5 == 0:
                compact_index(settings, lock_wait=30)

    writer = threading.Thread(target=edit)
    writer.start()
    try:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
        done = subprocess.run(
            [sys.executable, "-c", READER, str(settings.index), "150"], env=env, capture_output=True, text=True, timeout=300
        )
    finally:
        stop.set()
        writer.join()
    assert done.returncode == 0 and done.stdout.startswith("OK"), done.stdout + done.stderr[-2000:]
    assert len(json.loads(done.stdout.split(" ", 1)[1])) > 1, "the reader should have seen several editions"


class _BuildsTwiceWhenCompared(dict[str, Any]):
    """The embedder description a reader checks the manifest against, right after it read ``CURRENT`` and the
    manifest and before it opens a segment: the first comparison runs two builds, as another process could."""

    def __init__(self, described: dict[str, Any], rebuild: Any) -> None:
        super().__init__(described)
        self.rebuild = rebuild

    def get(self, key: str, default: Any = None) -> Any:
        if self.rebuild is not None:
            rebuild, self.rebuild = self.rebuild, None
            rebuild()
        return super().get(key, default)


def test_a_reader_whose_generation_is_pruned_while_it_opens_it_opens_the_live_one(tmp_path: Path) -> None:
    settings = corpus(tmp_path, notes=12)
    for name in ("a.md", "b.md"):
        write_note(settings.notes, name, f"# {name}\n\nEdition 0 of {name}.\n")
    build_index(settings)
    first, manifest = live(settings)

    def two_builds() -> None:  # the second switch prunes the generation the reader is opening
        for edition in (1, 2):
            for name in ("a.md", "b.md"):
                write_note(settings.notes, name, f"# {name}\n\nEdition {edition} of {name}.\n")
            build_index(settings, paths=["a.md", "b.md"])
        assert not first.exists()

    gen = store.open_current(settings.index, embedder=_BuildsTwiceWhenCompared(manifest["embedder"], two_builds))
    try:
        assert gen.path == live(settings)[0] and gen.path != first
        editions = {m for c in gen.all_chunks() for m in re.findall(r"Edition (\d+)", c.text)}
        assert editions == {"2"}
    finally:
        gen.close()


@pytest.mark.parametrize("when", [1, 2, 3])
def test_a_compaction_killed_at_any_step_leaves_the_index_answering(tmp_path: Path, when: int) -> None:
    settings = corpus(tmp_path, notes=12)
    build_index(settings)
    write_note(settings.notes, "gpu-01.md", "# GPU note 1\n\nEdition 2 of the first accelerator.\n")
    build_index(settings)
    before = texts(settings)
    child = textwrap.dedent(
        """
        import os, signal, sys
        from pathlib import Path
        from hwqa.build.compact import compact_index
        from hwqa.settings import load_settings

        settings = load_settings(
            {"notes": sys.argv[1], "index": sys.argv[2], "embed_backend": "hash", "fetch_links": False},
            env={},
            cwd=Path(sys.argv[2]).parent,
        )

        def step(n):
            if n == int(sys.argv[3]):
                os.kill(os.getpid(), signal.SIGKILL)

        compact_index(settings, force=True, progress=step)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    done = subprocess.run(
        [sys.executable, "-c", child, str(settings.notes), str(settings.index), str(when)],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == -9, done.stderr[-2000:]
    assert texts(settings) == before
    Engine.load(settings).ask("first accelerator")
    report = build_index(settings)
    assert report.chunks_total == len(before)
    assert not list(settings.index.glob(".gen-*.partial"))
    assert compact_index(settings, force=True) == "all" and texts(settings) == before
