"""`make install` picks a Python a new user has, and `make torch` takes torch's CPU build from where it can.

Read from what make would run (`make -n`), so nothing is installed or downloaded: PyTorch's CPU index is
not reachable from here, and the test asserts the command, not the download.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import REPO

MAKE = shutil.which("make") or "make"
BROKEN = '#!/bin/sh\necho "pyenv: $(basename $0): command not found" >&2\nexit 127\n'  # as a pyenv shim of another version


def make(*args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHON", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    if path is not None:
        env["PATH"] = path
    return subprocess.run([MAKE, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def bin_dir(tmp_path: Path, **programs: str | Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    for name, what in programs.items():
        target = folder / name.replace("_", ".")
        if isinstance(what, Path):
            target.symlink_to(what)
        else:
            target.write_text(what)
            target.chmod(0o755)
    return folder


def test_without_a_supported_python_make_install_says_in_one_line_what_to_install(tmp_path: Path) -> None:
    folder = bin_dir(tmp_path, python3_13=BROKEN, python3_12=BROKEN, python3_11=BROKEN)
    proc = make("install", f"VENV={tmp_path / 'venv'}", path=f"{folder}:/usr/bin:/bin")
    assert proc.returncode != 0
    ours = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(ours) == 1, proc.stdout
    assert "hwqa needs CPython 3.11, 3.12 or 3.13" in ours[0] and "PYTHON=" in ours[0] and "install" in ours[0]
    assert not (tmp_path / "venv").exists()


def test_make_install_takes_the_newest_python_that_starts_or_the_one_named(tmp_path: Path) -> None:
    folder = bin_dir(tmp_path, python3_13=BROKEN, python3_12=Path(sys.executable), python3_11=Path(sys.executable))
    plan = make("-n", "install", f"VENV={tmp_path / 'venv'}", path=f"{folder}:/usr/bin:/bin").stdout
    assert f"py='{folder / 'python3.12'}'" in plan  # 3.13 does not start here: the newest that does
    named = make(
        "-n", "install", f"VENV={tmp_path / 'venv'}", "PYTHON=/opt/python3.13/bin/python3", path=f"{folder}:/usr/bin:/bin"
    )
    assert "py='/opt/python3.13/bin/python3'" in named.stdout


def test_an_old_or_missing_python_named_by_python_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = bin_dir(tmp_path, python3_10="#!/bin/sh\necho 3.10\n")  # answers any question as a Python 3.10 would
    for named, says in ((folder / "python3.10", "is Python 3.10"), (tmp_path / "missing" / "python3", "does not run")):
        proc = make("install", f"VENV={tmp_path / 'venv'}", f"PYTHON={named}")
        ours = [line for line in proc.stdout.splitlines() if line.strip()]
        assert proc.returncode != 0 and len(ours) == 1 and says in ours[0] and "PYTHON=" in ours[0], proc.stdout
    assert not (tmp_path / "venv").exists()


def torch_plan(wheels: Path | str) -> str:
    return make("-n", "torch", f"VENV={sys.prefix}", f"WHEELS={wheels}").stdout


def test_make_torch_without_the_wheel_folder_takes_torch_from_pytorchs_cpu_index() -> None:
    plan = torch_plan("/nonexistent")
    line = next(x for x in plan.splitlines() if "pip install" in x and "torch==" in x)
    assert "https://download.pytorch.org/whl/cpu" in line and "--torch-backend cpu" in line
    assert "--find-links" not in line and "/nonexistent" not in line
    pins = dict(p.split("==") for p in line.split() if "==" in p)
    locked = (REPO / "requirements" / "torch.txt").read_text(encoding="utf-8")
    assert pins["torch"] and f"torch=={pins['torch']}+cpu" in locked  # the locked version, on whatever build fits
    assert f"sentence-transformers=={pins['sentence-transformers']}" in locked


def test_make_torch_with_the_wheel_folder_installs_the_locked_cpu_wheel_with_its_hashes(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl").write_bytes(b"")
    plan = torch_plan(wheels)
    here = f"cp{sys.version_info[0]}{sys.version_info[1]}-{platform.machine()}"
    if here == "cp311-x86_64":  # the Python the lock's torch wheel is for
        assert f"--require-hashes --find-links {wheels} -r requirements/torch.txt" in plan
        assert "download.pytorch.org" not in plan
    else:
        assert "--torch-backend cpu" in plan and str(wheels) not in plan
