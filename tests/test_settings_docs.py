"""Every setting is documented where people look: the README's configuration table and ``hwqa config``."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.cli import app
from hwqa.settings import Settings

from .conftest import REPO

SETTINGS = [f.name for f in fields(Settings)]


def readme_table_settings(readme: str) -> list[str]:
    """The setting names in the first column of the table under '## Configuration' ('a / b' rows name two)."""
    section = readme.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # past the header and its rule
    names: list[str] = []
    for row in rows:
        first = row.strip("|").split("|", 1)[0]
        names += [name.strip().strip("`") for name in first.split("/")]
    return names


def test_the_readme_configuration_table_lists_every_setting() -> None:
    documented = readme_table_settings((REPO / "README.md").read_text(encoding="utf-8"))
    missing = [name for name in SETTINGS if name not in documented]
    assert not missing, f"settings missing from the README's configuration table: {missing}"
    unknown = [name for name in documented if name not in SETTINGS]
    assert not unknown, f"the README's configuration table names settings that do not exist: {unknown}"
    assert len(documented) == len(set(documented)), "a setting is listed twice"


def test_hwqa_config_prints_every_setting_its_variable_and_its_help(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no hwqa.toml
    for key in [k for k in __import__("os").environ if k.startswith("HWQA_")]:
        monkeypatch.delenv(key)
    result = CliRunner().invoke(app, ["config"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    shown = {m.group(1): i for i, line in enumerate(lines) if (m := re.match(r"^(\w+) = .*\(HWQA_(\w+)\)$", line))}
    assert sorted(shown) == sorted(SETTINGS), "hwqa config must list exactly the settings"
    helps = {f.name: " ".join(str(f.metadata["help"]).split()) for f in fields(Settings)}
    for name, at in shown.items():
        assert f"(HWQA_{name.upper()})" in lines[at], name
        assert lines[at + 1].strip() == helps[name], name
