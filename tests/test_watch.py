"""The watcher rebuilds when notes are added, edited, renamed and deleted."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from hwqa.build.builder import BuildReport, build_index
from hwqa.build.watch import start_watcher
from hwqa.engine import Engine
from hwqa.index.embed import HashEmbedder
from hwqa.settings import Settings

from .conftest import write_note


def wait_for(check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("the watcher did not rebuild in time")


def sources(engine: Engine) -> set[str]:
    return {c.source for c in engine.generation().all_chunks()}


def test_watched_folder_follows_add_edit_rename_delete(settings: Settings) -> None:
    settings = settings.replace(watch_debounce_ms=100)
    build_index(settings)
    engine = Engine.load(settings)
    reports: list[BuildReport] = []
    errors: list[str] = []
    stop = start_watcher(settings, HashEmbedder(), reports.append, errors.append)
    try:
        time.sleep(0.3)
        write_note(settings.notes, "new.md", "---\ntitle: Cooling\n---\n# Cooling\n\nImmersion cooling for GPU racks.\n")
        wait_for(lambda: "new.md" in sources(engine))

        write_note(settings.notes, "new.md", "---\ntitle: Cooling\n---\n# Cooling\n\nLiquid cold plates for GPU racks.\n")
        wait_for(lambda: any("cold plates" in c.text for c in engine.generation().all_chunks()))

        (settings.notes / "new.md").rename(settings.notes / "cooling.md")
        wait_for(lambda: "cooling.md" in sources(engine) and "new.md" not in sources(engine))
        # The build that published the rename (not a late report of the edit before it) embedded nothing.
        renamed = engine.generation().name
        wait_for(lambda: any(r.generation == renamed for r in reports))
        assert next(r for r in reports if r.generation == renamed).chunks_embedded == 0, "a rename reuses the embeddings"

        (settings.notes / "cooling.md").unlink()
        wait_for(lambda: "cooling.md" not in sources(engine))
        assert engine.ask("cold plates for racks").citations[0].source != "cooling.md"
    finally:
        stop.set()
    assert errors == []


def test_files_that_are_not_notes_do_not_trigger_rebuilds(settings: Settings, tmp_path: Path) -> None:
    settings = settings.replace(watch_debounce_ms=100)
    build_index(settings)
    reports: list[BuildReport] = []
    stop = start_watcher(settings, HashEmbedder(), reports.append, lambda m: None)
    try:
        time.sleep(0.3)
        (settings.notes / "scratch.txt").write_text("not a note")
        (settings.notes / ".obsidian").mkdir()
        (settings.notes / ".obsidian" / "workspace.md").write_text("# hidden")
        time.sleep(1.0)
        assert reports == []
        write_note(settings.notes, "real.md", "# Real\n\nA real note about TPUs.")
        wait_for(lambda: len(reports) == 1)
    finally:
        stop.set()
