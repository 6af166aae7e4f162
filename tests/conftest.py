"""Shared fixtures: small notes folders written by the tests, and hash-embedder settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from hwqa.settings import Settings, load_settings

REPO = Path(__file__).resolve().parent.parent


def write_note(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


PRICES_NOTE = """
---
title: GPU prices
tags: [prices, cloud]
---
# GPU prices

An on-demand TPU v3 costs $8.00 per hour on Google Cloud.
A Tesla P100 costs $1.46 per hour on demand.

| hardware | provider | type | usd_per_hour | speed |
|---|---|---|---|---|
| P100 | GCP | gpu | 1.46 | 0.5 |
| TPU v3 | GCP | tpu | 8.00 | 8.0 |
"""

TPU_NOTE = """
---
title: TPU notes
tags: [tpu]
aliases: [Tensor Processing Unit]
date: 2021-12-21 11:30:28
draft: false
---
# TPU notes

## PyTorch on TPUs

PyTorch/XLA compiles PyTorch programs so they run on a TPU. It makes a TPU v3-8 usable like a GPU.

## Colab

The Colab TPU runtime had a TPU v3 with 8 cores and 16 GB of host RAM.
"""

CPU_NOTE = """
---
title: Choosing a CPU
tags: [cpu]
draft: true
---
CPUs are versatile and can address very large amounts of memory.
Choose a CPU for data cleaning and small models.
"""


def point_cli_at(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    """The `hwqa` commands run from ``settings.notes``' parent, reading this notes folder and index (hash embedder)."""
    point_cli_at_folder(monkeypatch, settings.notes, settings.index)


def point_cli_at_folder(monkeypatch: pytest.MonkeyPatch, notes: Path, index: Path | None = None) -> None:
    """The `hwqa` commands run from ``notes``' parent, reading that folder and ``index`` (default: ``index`` beside it),
    with the hash embedder and no link fetching."""
    monkeypatch.chdir(notes.parent)
    for key, value in {
        "HWQA_NOTES": str(notes),
        "HWQA_INDEX": str(index or notes.parent / "index"),
        "HWQA_EMBED_BACKEND": "hash",
        "HWQA_FETCH_LINKS": "false",
    }.items():
        monkeypatch.setenv(key, value)


def index_notes_once(factory: pytest.TempPathFactory, name: str, notes: dict[str, str]) -> Path:
    """A notes folder holding ``notes`` (file name -> text) and its hash index beside it, built by ``hwqa index``:
    for a module-scoped fixture whose tests each point the CLI at it (:func:`point_cli_at_folder`)."""
    from typer.testing import CliRunner

    from hwqa.cli import app

    folder = factory.mktemp(name) / "notes"
    for file, text in notes.items():
        write_note(folder, file, text)
    with pytest.MonkeyPatch.context() as patch:
        point_cli_at_folder(patch, folder)
        result = CliRunner().invoke(app, ["index"])
        assert result.exit_code == 0, result.output
    return folder


def cli_over(name: str, notes: dict[str, str]) -> Any:
    """A fixture pointing the `hwqa` commands at a folder of ``notes`` (file name -> text), indexed once per session
    (:func:`index_notes_once`), for a module whose tests each ask questions of it (:func:`ask_text`)."""
    built: dict[str, Path] = {}

    @pytest.fixture
    def fixture(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
        if name not in built:
            built[name] = index_notes_once(tmp_path_factory, name, notes)
        point_cli_at_folder(monkeypatch, built[name])
        return built[name]

    return fixture


def ask_text(question: str) -> str:
    """The answer text ``hwqa ask QUESTION`` gives, for a folder the CLI points at."""
    return str(ask_json(question)["answer"])


def ask_json(question: str) -> dict[str, Any]:
    """What ``hwqa ask QUESTION --json`` prints (answer, citations, covered, …), for a folder the CLI points at."""
    from typer.testing import CliRunner

    from hwqa.cli import app

    result = CliRunner().invoke(app, ["ask", question, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def prices_table(notes: Path, *flags: str) -> dict[str, Any]:
    """The price table ``hwqa prices --notes NOTES --json [FLAGS]`` prints (rows, facts, left out, problems)."""
    from typer.testing import CliRunner

    from hwqa.cli import app

    result = CliRunner().invoke(app, ["prices", "--notes", str(notes), *flags, "--json"])
    assert result.exit_code == 0, result.output
    table: dict[str, Any] = json.loads(result.stdout)["table"]
    return table


def run_hwqa(settings: Settings, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m hwqa.cli ARGS`` as a process of its own over ``settings``' notes and index (hash embedder,
    no other HWQA_ setting of this shell), with ``env`` on top; what it printed and its exit code."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("HWQA_")}
    environ |= {"HWQA_NOTES": str(settings.notes), "HWQA_INDEX": str(settings.index), "HWQA_EMBED_BACKEND": "hash"}
    environ |= env
    return subprocess.run(
        [sys.executable, "-m", "hwqa.cli", *args], env=environ, capture_output=True, text=True, timeout=timeout, check=False
    )


# Settings that let a build fetch the pages of a test's loopback site (tests/helpers_http.py), at once.
LOOPBACK_FETCH = {"fetch_links": True, "allow_private_hosts": True, "fetch_host_delay": 0.0, "fetch_timeout": 5.0}


def built_hash_index(tmp_path: Path, **extra: object) -> Settings:
    """Settings over ``tmp_path/notes`` (hash embedder, no link fetching), with the index built."""
    from hwqa.build.builder import build_index

    settings = load_settings(
        {"notes": tmp_path / "notes", "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False, **extra},
        env={},
        cwd=tmp_path,
    )
    build_index(settings)
    return settings


@pytest.fixture
def notes_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    write_note(folder, "prices.md", PRICES_NOTE)
    write_note(folder, "tpu.md", TPU_NOTE)
    write_note(folder, "hardware/cpu.md", CPU_NOTE)
    return folder


@pytest.fixture
def settings(tmp_path: Path, notes_dir: Path) -> Settings:
    """Settings over the small notes folder, with the deterministic hash embedder, no link fetching."""
    return load_settings(
        {"notes": notes_dir, "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False},
        env={},
        cwd=tmp_path,
    )


@pytest.fixture
def hash_env(monkeypatch: pytest.MonkeyPatch, settings: Settings, tmp_path: Path) -> Settings:
    """The same settings, but given to the CLI through HWQA_* variables."""
    monkeypatch.chdir(tmp_path)
    for key in list(__import__("os").environ):
        if key.startswith("HWQA_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HWQA_NOTES", str(settings.notes))
    monkeypatch.setenv("HWQA_INDEX", str(settings.index))
    monkeypatch.setenv("HWQA_EMBED_BACKEND", "hash")
    monkeypatch.setenv("HWQA_FETCH_LINKS", "false")
    return settings
