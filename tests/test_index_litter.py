"""A build killed during the CURRENT switch leaves litter that the next build removes.

The child below is SIGKILLed inside the switch: the new ``.CURRENT.*.tmp`` is written and fsynced
but not yet renamed over ``CURRENT``, so the generation it was about to publish is an orphan.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hwqa.build.builder import build_index
from hwqa.index import reader as store
from hwqa.settings import Settings, load_settings

from .conftest import write_note

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from hwqa.index import reader as store
    from hwqa.build.builder import build_index
    from hwqa.settings import load_settings

    real_replace = os.replace

    def replace(src, dst):
        if Path(dst).name == "CURRENT":
            os.kill(os.getpid(), signal.SIGKILL)  # killed mid-switch: the temporary file is complete
        return real_replace(src, dst)

    os.replace = replace  # the one os module: the switch in hwqa.index.atomic calls it
    settings = load_settings(
        {"notes": sys.argv[1], "index": sys.argv[2], "embed_backend": "hash", "fetch_links": False},
        env={}, cwd=Path(sys.argv[2]).parent,
    )
    build_index(settings)
    """
)


def settings_for(tmp_path: Path) -> Settings:
    return load_settings(
        {"notes": tmp_path / "notes", "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False},
        env={},
        cwd=tmp_path,
    )


def edition(settings: Settings, n: int) -> None:
    write_note(settings.notes, "gpu.md", f"# GPU\nEdition {n}: a V100 has 16 GB of memory.\n")


def killed_in_switch(settings: Settings) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(settings.notes), str(settings.index)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -9, done.stderr[-2000:]


def gens(settings: Settings) -> set[str]:
    return {p.name for p in settings.index.glob("gen-*") if p.is_dir()}


def test_next_build_removes_the_switch_litter_and_keeps_the_previously_live_generation(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    edition(settings, 1)
    first = build_index(settings).generation
    edition(settings, 2)
    killed_in_switch(settings)
    assert list(settings.index.glob(".CURRENT.*.tmp")), "the kill should leave the switch's temporary file"
    orphans = gens(settings) - {first}
    assert len(orphans) == 1  # complete, but never live
    assert (settings.index / "CURRENT").read_text().strip() == first

    edition(settings, 3)
    third = build_index(settings).generation
    assert gens(settings) == {third, first}  # the new live one and the one live before it; not the orphan
    assert not list(settings.index.glob(".*.tmp"))
    assert not list(settings.index.glob(".gen-*.partial"))


def test_an_unchanged_rebuild_also_removes_the_litter(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    edition(settings, 1)
    first = build_index(settings).generation
    edition(settings, 2)
    killed_in_switch(settings)
    edition(settings, 1)  # back to what is live: nothing to write, nothing to switch
    report = build_index(settings)
    assert report.changed is False and report.generation == first
    assert not list(settings.index.glob(".*.tmp"))


def test_remove_litter_leaves_generations_and_the_cache_alone(tmp_path: Path) -> None:
    index = tmp_path / "index"
    (index / "gen-20200101T000000-aaaaaa").mkdir(parents=True)
    (index / ".gen-20200101T000001-bbbbbb.partial").mkdir()
    (index / ".CURRENT.1234abcd.tmp").write_text("gen-x\n")
    (index / "cache").mkdir()
    (index / "cache" / ".page.5678.tmp").write_text("cached")
    removed = store.remove_litter(index)
    assert sorted(removed) == [".CURRENT.1234abcd.tmp", ".gen-20200101T000001-bbbbbb.partial"]
    assert (index / "gen-20200101T000000-aaaaaa").is_dir()
    assert (index / "cache" / ".page.5678.tmp").exists()
