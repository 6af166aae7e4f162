"""A folder swapped for a symlink to an outside folder while builds run lets no outside byte in.

A thread exchanges ``notes/sub`` (a real folder) and ``notes/.swaplink`` (a symlink to a folder
outside the notes) with ``renameat2(RENAME_EXCHANGE)`` as fast as it can, for as long as a fixed
number of note loads and builds take; not one outside byte may reach a loaded note or the index.
"""

from __future__ import annotations

import ctypes
import errno
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hwqa.build.builder import build_index
from hwqa.engine import Engine
from hwqa.notes import files as notefiles
from hwqa.notes.note import load_notes
from hwqa.settings import load_settings

from .conftest import write_note

AT_FDCWD = -100
RENAME_EXCHANGE = 2
SECRET = "OUTSIDE-SECRET-7f3a"
LOAD_ROUNDS = 1000
BUILD_ROUNDS = 12


def _exchange(libc: ctypes.CDLL, a: Path, b: Path) -> int:
    result = libc.renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE)
    return 0 if result == 0 else ctypes.get_errno()


@pytest.fixture
def swapping(tmp_path: Path) -> Iterator[Path]:
    """The notes folder, with its subfolder swapped against a symlink out of it until the test ends."""
    notes = tmp_path / "notes"
    write_note(notes, "top.md", "# Top\n\nA note at the top of the folder.\n")
    for i in range(20):
        write_note(notes, f"sub/inside-{i}.md", f"# Inside {i}\n\nA note inside the subfolder, number {i}.\n")
    outside = tmp_path / "outside"
    for i in range(20):
        write_note(outside, f"inside-{i}.md", f"# Outside {i}\n\n{SECRET} number {i}: text from outside the notes.\n")
    (notes / ".swaplink").symlink_to(outside, target_is_directory=True)
    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "renameat2"):
        pytest.skip("this C library has no renameat2")
    code = _exchange(libc, notes / "sub", notes / ".swaplink")
    if code in (errno.ENOSYS, errno.EINVAL, errno.EPERM):
        pytest.skip(f"renameat2(RENAME_EXCHANGE) is not available here: {os.strerror(code)}")
    assert code == 0 and (notes / "sub").is_symlink()
    stop = threading.Event()
    swaps = [1]

    def swap() -> None:
        while not stop.is_set():
            if _exchange(libc, notes / "sub", notes / ".swaplink") == 0:
                swaps[0] += 1

    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    try:
        yield notes
    finally:
        stop.set()
        thread.join(timeout=10)
    assert swaps[0] > LOAD_ROUNDS, f"only {swaps[0]} swaps: the race was not exercised"


@pytest.mark.parametrize("openat2", [True, False], ids=["openat2", "one-component-at-a-time"])
def test_a_swapped_folder_lets_no_outside_text_in(
    swapping: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openat2: bool
) -> None:
    if openat2 and not notefiles._openat2_state["usable"]:
        pytest.skip("this kernel has no openat2; the fallback case covers it")
    monkeypatch.setitem(notefiles._openat2_state, "usable", openat2)  # the fallback where the kernel lacks it
    inside_seen = 0
    for _ in range(LOAD_ROUNDS):
        report = load_notes(swapping)
        leaked = [n.rel for n in report.notes if SECRET in n.body]
        assert not leaked, f"outside text loaded as {leaked}"
        inside_seen += sum(1 for n in report.notes if n.rel.startswith("sub/"))
    settings = load_settings(
        {"notes": swapping, "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False}, env={}, cwd=tmp_path
    )
    for _ in range(BUILD_ROUNDS):
        build_index(settings)
        texts = [c.text for c in Engine.load(settings).generation().all_chunks()]
        assert not [t for t in texts if SECRET in t], "outside text indexed"
    assert inside_seen > 0, "the real subfolder was never read: the test proves nothing"
