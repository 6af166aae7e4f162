"""Atomic, checked rebuilds: killed builds, queries during rebuilds, one builder at a time."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from hwqa.build.builder import build_index
from hwqa.build.lock import build_lock
from hwqa.engine import Engine
from hwqa.errors import IndexLockedError
from hwqa.index import reader as store
from hwqa.index.embed import HashEmbedder
from hwqa.settings import Settings, load_settings

from .conftest import write_note

CHILD = textwrap.dedent(
    """
    import os, signal, sys, threading
    from pathlib import Path
    from hwqa.build.builder import build_index
    from hwqa.settings import load_settings

    notes, index, stage, when = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    settings = load_settings(
        {"notes": notes, "index": index, "embed_backend": "hash", "fetch_links": False}, env={}, cwd=Path(index).parent
    )

    def progress(name, done, total):
        if stage == "write-after-ms" and name == "write" and done == 0:
            # a random moment inside the write phase: while the vectors or the docstore are written
            threading.Timer(when / 1000, os.kill, (os.getpid(), signal.SIGKILL)).start()
        elif name == stage and done == when:
            os.kill(os.getpid(), signal.SIGKILL)

    build_index(settings, progress=progress)
    """
)


def make_corpus(folder: Path, notes: int, edition: int) -> None:
    for i in range(notes):
        body = "\n\n".join(
            f"## Section {s}\n\nEdition {edition} of note {i}: the GPU number {i} in section {s} has {s * 8} GB of memory. "
            f"Its price is ${i}.{s}0 per hour in edition {edition}."
            for s in range(3)
        )
        write_note(folder, f"note-{i:03d}.md", f"---\ntitle: Note {i}\ntags: [gpu]\n---\n# Note {i}\n\n{body}\n")


def corpus_settings(tmp_path: Path, notes: int, edition: int = 1) -> Settings:
    folder = tmp_path / "notes"
    make_corpus(folder, notes, edition)
    return load_settings(
        {"notes": folder, "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False},
        env={},
        cwd=tmp_path,
    )


def assert_consistent(settings: Settings, editions: set[int]) -> str:
    """The live index loads, every text belongs to its vector, and it is one whole edition."""
    engine = Engine.load(settings)
    gen = engine.generation()
    chunks = gen.all_chunks()
    assert len(chunks) == gen.size > 0
    found = {int(m) for c in chunks for m in re.findall(r"Edition (\d+)", c.text)}
    assert len(found) == 1 and found <= editions, f"one whole edition expected, found {found}"
    vectors = gen.vectors_for_keys()
    emb = HashEmbedder()
    sample = chunks[:: max(1, len(chunks) // 20)]
    fresh = emb.embed([f"{c.title} — {c.heading}\n{c.text}" if c.heading else f"{c.title}\n{c.text}" for c in sample])
    for c, v in zip(sample, fresh, strict=True):
        assert np.allclose(vectors[c.key], v, atol=1e-5), "a chunk's text does not match its vector"
    return gen.name


def run_child(settings: Settings, stage: str, when: int) -> int:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(settings.notes), str(settings.index), stage, str(when)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc.returncode


@pytest.mark.parametrize(
    ("stage", "when", "switched"),
    [
        ("chunk", 1, False),  # lock taken, nothing written
        ("embed", 5, False),  # during embedding
        ("write", 0, False),  # before the vectors are written
        ("write", 1, False),  # vectors written, docstore not
        ("write", 2, False),  # docstore written, manifest not
        ("write", 3, False),  # generation complete, just before the switch
        ("write", 4, True),  # just after the switch
    ],
)
def test_a_killed_build_leaves_a_loadable_consistent_index(tmp_path: Path, stage: str, when: int, switched: bool) -> None:
    settings = corpus_settings(tmp_path, notes=12, edition=1)
    old = build_index(settings).generation
    make_corpus(settings.notes, 12, edition=2)
    assert run_child(settings, stage, when) == -9
    live = assert_consistent(settings, {1, 2})
    assert (live != old) is switched
    after = build_index(settings)  # the lock died with the process; leftovers do not get in the way
    assert_consistent(settings, {2})
    assert after.chunks_total == 36
    assert not list(settings.index.glob(".gen-*.partial"))


def test_builds_killed_at_random_moments_while_writing_never_break_the_index(tmp_path: Path) -> None:
    settings = corpus_settings(tmp_path, notes=600, edition=1)
    build_index(settings)
    rng = random.Random(7)
    outcomes = []
    for edition in range(2, 10):
        make_corpus(settings.notes, 600, edition)
        before = store.current_generation_dir(settings.index)
        code = run_child(settings, "write-after-ms", rng.randint(0, 120))
        live = assert_consistent(settings, set(range(1, edition + 1)))
        outcomes.append((code, before is not None and live != before.name))
    assert any(code == -9 and not switched for code, switched in outcomes), outcomes


def test_queries_during_rebuilds_never_mix_generations(tmp_path: Path) -> None:
    settings = corpus_settings(tmp_path, notes=40, edition=1)
    build_index(settings)
    engine = Engine.load(settings)
    done = 0
    errors: list[BaseException] = []
    seen: set[str] = set()

    def rebuild() -> None:
        try:
            for edition in range(2, 7):
                while done < (edition - 1) * 150:
                    time.sleep(0.001)
                make_corpus(settings.notes, 40, edition)
                build_index(settings, lock_wait=30)
        except BaseException as exc:
            errors.append(exc)

    builder = threading.Thread(target=rebuild)
    builder.start()
    deadline = time.monotonic() + 120
    i = 0
    # Query until 1000 are done and the builder has published every edition (a loaded machine builds slower).
    while (i < 1000 or builder.is_alive()) and time.monotonic() < deadline:
        i += 1
        try:
            answer = engine.ask(f"How much memory does GPU number {i % 40} have?")
        except BaseException as exc:
            errors.append(exc)
            break
        seen.add(engine.generation().name)
        marks = {m for c in answer.citations for m in re.findall(r"Edition (\d+)", c.text)}
        assert len(marks) == 1, f"query {i} mixed editions {marks}"
        done += 1
    builder.join(timeout=120)
    assert not errors, errors
    assert done >= 1000
    assert len(seen) >= 5, "the queries ran across the rebuilds"


def test_a_second_builder_is_told_who_holds_the_lock(settings: Settings) -> None:
    with build_lock(settings.index), pytest.raises(IndexLockedError, match=r"another build .*\(pid \d+ on "):
        build_index(settings, lock_wait=0)


def test_a_second_builder_can_wait_for_the_first(settings: Settings) -> None:
    messages: list[str] = []
    release = threading.Event()

    def hold() -> None:
        with build_lock(settings.index):
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    time.sleep(0.2)
    threading.Timer(0.5, release.set).start()
    report = build_index(settings, lock_wait=10, on_wait=messages.append)
    holder.join()
    assert report.chunks_total > 0
    assert messages and "waiting for another build" in messages[0]


@pytest.mark.parametrize("target", ["seg-*.npy", "seg-*.sqlite", "prices.json", "manifest.json"])
@pytest.mark.parametrize("damage", ["truncate", "flip", "delete"])
def test_damage_is_refused_then_rebuilt_and_kept_aside(settings: Settings, target: str, damage: str) -> None:
    build_index(settings)
    gen = store.current_generation_dir(settings.index)
    assert gen is not None
    path = next(gen.glob(target))
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 3])
    elif damage == "flip":
        pos = len(data) // 2
        path.write_bytes(data[:pos] + bytes([data[pos] ^ 0x55]) + data[pos + 1 :])
    else:
        path.unlink()
    with pytest.raises(Exception) as info:
        Engine.load(settings)
    message = str(info.value)
    assert "hwqa index" in message and "\n" not in message
    assert type(info.value).__module__ == "hwqa.errors", f"a bare {type(info.value).__name__}: {message}"
    report = build_index(settings)
    assert report.full_rebuild is not None and report.chunks_embedded == report.chunks_total
    kept = list(settings.index.glob(f"damaged-{gen.name}-*"))
    assert len(kept) == 1 and any(report.warnings)
    Engine.load(settings).ask("TPU v3 price")


def test_current_pointing_at_a_missing_generation(settings: Settings) -> None:
    build_index(settings)
    (settings.index / "CURRENT").write_text("gen-does-not-exist\n")
    with pytest.raises(Exception, match="missing.*hwqa index"):
        Engine.load(settings)
    build_index(settings)
    Engine.load(settings)


def test_another_embedding_model_forces_a_full_rebuild(settings: Settings) -> None:
    build_index(settings)
    report = build_index(settings, embedder=HashEmbedder(model="hash-128", dim=128))
    assert report.full_rebuild is not None and "model" in report.full_rebuild
    assert report.chunks_reused == 0
    manifest = json.loads((store.current_generation_dir(settings.index) / "manifest.json").read_text())  # type: ignore[operator]
    assert manifest["embedder"]["dim"] == 128


def test_a_renamed_note_reuses_its_embeddings(settings: Settings) -> None:
    first = build_index(settings)
    (settings.notes / "tpu.md").rename(settings.notes / "hardware" / "tensor-units.md")
    report = build_index(settings)
    assert report.chunks_embedded == 0 and report.chunks_reused == first.chunks_total
    sources = {c.source for c in Engine(settings).generation().all_chunks()}
    assert "hardware/tensor-units.md" in sources and "tpu.md" not in sources


def test_write_atomic_replaces_whole_files_and_a_failed_write_leaves_the_old_one(tmp_path: Path) -> None:
    from hwqa.index.atomic import write_atomic

    target = tmp_path / "cache" / "page.json"
    write_atomic(target, b"first")  # the folder is made as needed
    write_atomic(target, b"second")
    assert target.read_bytes() == b"second"
    with pytest.raises(TypeError):
        write_atomic(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["page.json"]  # no temporary file left behind
