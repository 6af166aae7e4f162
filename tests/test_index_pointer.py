"""A damaged ``CURRENT`` (the index pointer) is one line of error, never a traceback or a hang.

Each form a pointer can be damaged in (bytes that are not a name, a FIFO, a symlink, a generation
that is a symlink out of the index) makes ``ask``, ``status`` and ``index`` say one line, and the
next ``hwqa index`` builds afresh and answers again.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.cli import app
from hwqa.index import reader as store
from hwqa.settings import Settings

runner = CliRunner()


def _live(settings: Settings) -> Path:
    gen = store.current_generation_dir(settings.index)
    assert gen is not None
    return gen


def _not_utf8(settings: Settings) -> None:
    (settings.index / "CURRENT").write_bytes(b"gen-\xff\n")


def _huge(settings: Settings) -> None:
    (settings.index / "CURRENT").write_bytes(b"gen-" + b"a" * 5_000_000)


def _symlink(settings: Settings) -> None:
    # a pointer that is a symlink to a file naming the real generation: still not the index's own file
    elsewhere = settings.index.parent / "pointer-elsewhere"
    elsewhere.write_text(_live(settings).name + "\n")
    (settings.index / "CURRENT").unlink()
    (settings.index / "CURRENT").symlink_to(elsewhere)


def _symlinked_generation(settings: Settings) -> None:
    # the live generation replaced by a symlink to a copy outside the index folder
    gen = _live(settings)
    outside = settings.index.parent / "outside-copy"
    shutil.copytree(gen, outside)
    shutil.rmtree(gen)
    gen.symlink_to(outside, target_is_directory=True)


def _folder(settings: Settings) -> None:
    # rm index/CURRENT; mkdir index/CURRENT: the build embedded everything, then died (IsADirectoryError)
    (settings.index / "CURRENT").unlink()
    (settings.index / "CURRENT").mkdir()
    (settings.index / "CURRENT" / "kept.txt").write_text("whatever was put here is moved aside, not deleted\n")


def _socket(settings: Settings) -> None:
    (settings.index / "CURRENT").unlink()
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(settings.index / "CURRENT"))


def _symlink_to_folder(settings: Settings) -> None:
    live = _live(settings)
    (settings.index / "CURRENT").unlink()
    (settings.index / "CURRENT").symlink_to(live, target_is_directory=True)


DAMAGE: dict[str, Callable[[Settings], None]] = {
    "not-utf8": _not_utf8,
    "huge": _huge,
    "symlink": _symlink,
    "symlinked-generation": _symlinked_generation,
    "folder": _folder,
    "socket": _socket,
    "symlink-to-folder": _symlink_to_folder,
}


def _one_line_error(result: object, what: str) -> str:
    exit_code = getattr(result, "exit_code", None)
    stderr = str(getattr(result, "stderr", ""))
    assert exit_code == 1, f"{what}: exit {exit_code}: {getattr(result, 'output', '')}{getattr(result, 'exception', '')!r}"
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "hwqa index" in lines[0], f"{what}: {stderr}"
    return lines[0]


@pytest.mark.parametrize("form", list(DAMAGE))
def test_a_damaged_pointer_is_one_line_and_the_next_index_recovers(hash_env: Settings, form: str) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    DAMAGE[form](hash_env)
    for command in (["ask", "How much does a TPU v3 cost per hour?"], ["status"]):
        _one_line_error(runner.invoke(app, command), f"{form}: {command[0]}")
    result = runner.invoke(app, ["index"])
    assert result.exit_code == 0, f"{form}: {result.output}{result.exception!r}"
    assert (hash_env.index / "CURRENT").is_file() and not (hash_env.index / "CURRENT").is_symlink()
    if form == "folder":
        assert [p.name for p in hash_env.index.glob("damaged-CURRENT-*/kept.txt")] == ["kept.txt"]
    assert not any(p.is_symlink() for p in hash_env.index.glob("gen-*")), "the symlink out of the index is dropped"
    answer = runner.invoke(app, ["ask", "How much does a TPU v3 cost per hour?"])
    assert answer.exit_code == 0 and "8.00" in answer.stdout
    assert runner.invoke(app, ["status"]).exit_code == 0


def test_a_fifo_pointer_does_not_hang_any_command(hash_env: Settings) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    (hash_env.index / "CURRENT").unlink()
    os.mkfifo(hash_env.index / "CURRENT")
    env = {k: v for k, v in os.environ.items()}
    hwqa = [sys.executable, "-m", "hwqa"]
    for command in (["status"], ["ask", "How much does a TPU v3 cost per hour?"]):
        done = subprocess.run([*hwqa, *command], env=env, capture_output=True, text=True, timeout=60, check=False)
        _one_line_error(type("R", (), {"exit_code": done.returncode, "stderr": done.stderr})(), command[0])
        assert "not a regular file" in done.stderr
    done = subprocess.run([*hwqa, "index"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert (hash_env.index / "CURRENT").is_file()
    done = subprocess.run(
        [*hwqa, "ask", "How much does a TPU v3 cost per hour?"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0 and "8.00" in done.stdout, done.stderr
