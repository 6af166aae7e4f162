"""A full disk during a build: one line naming the index folder and what to free, no partial
generation left on it, and the previous generation still answers.

The full disk is real: a 2 MB tmpfs mounted for the test (root only; skipped with the reason
elsewhere) and unmounted after it.
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.build.builder import build_index
from hwqa.cli import app
from hwqa.engine import Engine
from hwqa.errors import IndexWriteError
from hwqa.index import reader as store
from hwqa.index.atomic import disk_error
from hwqa.settings import Settings, load_settings

from .conftest import run_hwqa, write_note


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB filesystem of its own, unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small-disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m,mode=0755", "hwqa-test", str(mount)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


def _big_note(folder: Path) -> None:
    rng = random.Random(7)
    words = [f"w{rng.randrange(10**6)}" for _ in range(5000)]
    paragraphs = [" ".join(rng.choice(words) for _ in range(60)) + "." for _ in range(6000)]
    write_note(folder, "big.md", "# Big\n\n" + "\n\n".join(paragraphs))  # about 3 MB of text: over the disk


def test_a_full_disk_is_one_line_and_the_previous_index_still_answers(
    small_disk: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = load_settings(
        {"notes": settings.notes, "index": small_disk / "index", "embed_backend": "hash", "fetch_links": False},
        env={},
        cwd=tmp_path,
    )
    first = build_index(settings)
    _big_note(settings.notes)
    with pytest.raises(IndexWriteError) as info:
        build_index(settings)
    message = str(info.value)
    assert "\n" not in message and str(settings.index) in message and "disk is full" in message
    assert "free at least" in message and "MB" in message
    assert not list(settings.index.glob(".gen-*.partial")), "the partial generation stays on the full disk"
    assert [p.name for p in settings.index.glob("gen-*")] == [first.generation]
    answer = Engine.load(settings).ask("How much does a TPU v3 cost per hour?")
    assert "8.00" in answer.text

    # the CLI says the same in one line on stderr, exit 1
    monkeypatch.chdir(tmp_path)
    for key in [k for k in os.environ if k.startswith("HWQA_")]:
        monkeypatch.delenv(key)
    for key, value in {"NOTES": settings.notes, "INDEX": settings.index, "EMBED_BACKEND": "hash", "FETCH_LINKS": "false"}.items():
        monkeypatch.setenv(f"HWQA_{key}", str(value))
    result = CliRunner().invoke(app, ["index"])
    last = result.stderr.strip().splitlines()[-1]  # after the "Indexing ... into ..." line
    assert result.exit_code == 1 and "Traceback" not in result.stderr, result.output
    assert "disk is full" in last and str(settings.index) in last and result.stderr.count("disk is full") == 1
    assert not list(settings.index.glob(".gen-*.partial"))

    # once there is room (the big note gone), the next build succeeds
    (settings.notes / "big.md").unlink()
    assert CliRunner().invoke(app, ["index"]).exit_code == 0


@pytest.mark.parametrize(
    ("exc", "said"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), "disk is full"),
        (OSError(errno.EDQUOT, "Disk quota exceeded"), "quota is used up"),
        (OSError(errno.EIO, "Input/output error"), "failed to write"),
        (sqlite3.OperationalError("database or disk is full"), "disk is full"),
        (RuntimeError("Error: 'ret == (n)' failed: write error in x.faiss: 1 != 2 (No space left on device)"), "disk is full"),
    ],
)
def test_each_disk_error_is_told_as_one_line(tmp_path: Path, exc: BaseException, said: str) -> None:
    error = disk_error(exc, tmp_path / "index", 5_000_000)
    assert error is not None and said in str(error) and str(tmp_path / "index") in str(error) and "\n" not in str(error)


def test_other_errors_are_not_called_a_full_disk(tmp_path: Path) -> None:
    assert disk_error(OSError(errno.EACCES, "Permission denied"), tmp_path) is None
    assert disk_error(sqlite3.OperationalError("no such table: chunks"), tmp_path) is None


def _mount(folder: Path, size: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    folder.mkdir()
    command = ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "hwqa-test", str(folder)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")


def _version(folder: Path, seed: int) -> None:
    rng = random.Random(seed)
    words = [f"v{seed}w{rng.randrange(10**6)}" for _ in range(3000)]
    paragraphs = [" ".join(rng.choice(words) for _ in range(40)) + "." for _ in range(700)]
    write_note(folder, "big.md", "# Big\n\n" + "\n\n".join(paragraphs))


def test_a_disk_that_fills_after_the_switch_says_the_new_index_is_live(settings: Settings, tmp_path: Path) -> None:
    """With room for the build but not for the merge of segments after it, 'hwqa index' printed
    "Indexed … generation gen-X", then "… the previous index still answers", exit 1, while
    CURRENT already named gen-X. Now the build stands and the merge's failure is said as that."""
    disk = tmp_path / "disk"
    _mount(disk, "48m")
    try:
        settings = load_settings(
            {"notes": settings.notes, "index": disk / "index", "embed_backend": "hash", "fetch_links": False},
            env={},
            cwd=tmp_path,
        )
        _version(settings.notes, 1)
        build_index(settings)
        _version(settings.notes, 2)
        before = shutil.disk_usage(disk).free
        second = build_index(settings)  # a delta: every chunk of big.md again, so merging is due
        assert second.compaction == "all"
        delta = before - shutil.disk_usage(disk).free
        _version(settings.notes, 3)
        filler = shutil.disk_usage(disk).free - int(delta * 1.5)
        with (disk / "filler").open("wb") as fh:
            fh.truncate(0)
            fh.write(b"\0" * max(0, filler))
        done = run_hwqa(settings, "index", timeout=300, HWQA_FETCH_LINKS="false")
        live = store.current_generation_dir(settings.index)
        assert live is not None and live.name != second.generation, done.stderr
        assert f"generation {live.name}" in done.stdout, done.stdout
        assert "previous index still answers" not in done.stderr, done.stderr
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        warning = [line for line in done.stderr.splitlines() if "disk is full" in line]
        assert len(warning) == 1 and "answers (generation" in warning[0] and "hwqa index --compact" in warning[0], done.stderr
        assert not list(settings.index.glob(".gen-*.partial"))
        assert Engine.load(settings).generation().name == live.name
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True, check=False)
