"""The dependency audit (.ci/audit.py) reads pip-audit's JSON, not its summary line."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def audit_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hwqa_ci_audit", ROOT / ".ci" / "audit.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


AUDIT = audit_module()
OFFLINE = {
    "dependencies": [
        {"name": n, "skip_reason": f"Dependency not found on PyPI and could not be audited: {n} (1.0)"}
        for n in ("gradio", "urllib3", "requests", "starlette", "numpy")
    ]
    + [{"name": "hwqa", "skip_reason": "distribution marked as editable"}],
    "fixes": [],
}
VULNERABLE = {
    "dependencies": [
        {
            "name": "starlette",
            "version": "0.40.0",
            "vulns": [{"id": "GHSA-86qp-5c8j-p5mr", "aliases": ["CVE-2026-48710", "PYSEC-2026-161"], "fix_versions": ["1.0.1"]}],
        },
        {"name": "gradio", "version": "6.31.0", "vulns": []},
    ],
    "fixes": [],
}
CLEAN = {"dependencies": [{"name": "gradio", "version": "6.31.0", "vulns": []}], "fixes": []}


def run(tmp_path: Path, report: dict[str, Any], *args: str, waivers: str = "", today: str = "2026-11-22") -> int:
    """The audit over ``report``, about an environment holding exactly the packages it lists."""
    (tmp_path / "report.json").write_text(json.dumps(report))
    (tmp_path / "waivers.toml").write_text(waivers)
    names = [str(d["name"]) for d in report.get("dependencies", []) if "editable" not in str(d.get("skip_reason", ""))]
    (tmp_path / "installed.txt").write_text("".join(f"{n}==1.0\n" for n in names))
    code: int = AUDIT.main(
        [
            "--input",
            str(tmp_path / "report.json"),
            "--installed-from",
            str(tmp_path / "installed.txt"),
            "--waivers",
            str(tmp_path / "waivers.toml"),
            "--today",
            today,
            *args,
        ]
    )
    return code


def test_unreachable_database_is_said_loudly_never_as_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, OFFLINE) == 2
    out = capsys.readouterr().out
    assert "AUDIT NOT DONE" in out and "5 of 5 packages were NOT checked" in out
    assert "No known vulnerabilities" not in out and "no known vulnerability" not in out
    # CI without internet: still loud, but not a failure of the code
    assert run(tmp_path, OFFLINE, "--allow-unreachable") == 0
    assert "AUDIT NOT DONE" in capsys.readouterr().out


def test_a_known_vulnerability_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, VULNERABLE) == 1
    out = capsys.readouterr().out
    assert "VULNERABLE: starlette 0.40.0 GHSA-86qp-5c8j-p5mr (fixed in: 1.0.1)" in out and "audit FAILED" in out


def test_a_dated_waiver_accepts_it_until_it_expires(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    waiver = '[[waiver]]\nid = "CVE-2026-48710"\npackage = "starlette"\nreason = "no Host-based routing"\nuntil = 2026-12-31\n'
    assert run(tmp_path, VULNERABLE, waivers=waiver) == 0
    assert "waived until 2026-12-31" in capsys.readouterr().out
    assert run(tmp_path, VULNERABLE, waivers=waiver, today="2027-01-01") == 1
    assert "EXPIRED WAIVER" in capsys.readouterr().out


def test_clean_environment_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, CLEAN) == 0
    assert "1 packages checked" in capsys.readouterr().out


def test_the_repository_waiver_file_is_valid() -> None:
    for waiver in AUDIT.load_waivers(ROOT / "audit-waivers.toml"):
        assert waiver.reason and waiver.until >= dt.date(2026, 1, 1)


def _deps(names: list[str], skipped: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    return {
        "dependencies": [
            {"name": n, "skip_reason": f"Dependency not found on PyPI and could not be audited: {n} (1.0)"}
            if n in skipped
            else {"name": n, "version": "1.0", "vulns": []}
            for n in names
        ],
        "fixes": [],
    }


def test_a_report_that_checked_nothing_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, {"dependencies": [], "fixes": []}) == 2
    out = capsys.readouterr().out
    assert "AUDIT NOT DONE" in out and "lists no package" in out and "no known vulnerability" not in out
    # only the project itself (editable, never audited) is as empty
    assert run(tmp_path, {"dependencies": [{"name": "hwqa", "skip_reason": "distribution marked as editable"}]}) == 2
    assert "no known vulnerability" not in capsys.readouterr().out


def test_a_report_with_some_packages_skipped_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = [f"pkg{i}" for i in range(11)]
    assert run(tmp_path, _deps(names, skipped={f"pkg{i}" for i in range(5)})) == 2
    out = capsys.readouterr().out
    assert "AUDIT NOT DONE: not every installed package was checked; 5 of 11 packages were NOT checked" in out
    assert "not checked: pkg0:" in out and "no known vulnerability" not in out
    assert run(tmp_path, _deps(names, skipped={"pkg3"})) == 2  # even one
    assert "1 of 11" in capsys.readouterr().out


def test_installed_packages_missing_from_the_report_fail() -> None:
    code, lines = AUDIT.evaluate(
        _deps(["gradio", "numpy"]), [], dt.date(2026, 11, 22), allow_unreachable=False, installed={"gradio", "numpy", "urllib3"}
    )
    assert code == 2 and "installed but missing from the report: urllib3" in lines
    code, lines = AUDIT.evaluate(
        _deps(["Gradio", "NumPy"]), [], dt.date(2026, 11, 22), allow_unreachable=False, installed={"gradio", "numpy"}
    )
    assert code == 0, lines


def test_allow_unreachable_still_reports_vulnerabilities_in_what_was_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = {"dependencies": [*VULNERABLE["dependencies"], *OFFLINE["dependencies"][:1]], "fixes": []}
    assert run(tmp_path, report, "--allow-unreachable") == 1
    out = capsys.readouterr().out
    assert "AUDIT NOT DONE" in out and "VULNERABLE: starlette" in out


def test_this_environment_is_known_to_the_audit() -> None:
    installed = AUDIT.installed_packages()
    assert {"pytest", "numpy", "gradio"} <= installed


def _audit(*args: str) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, str(ROOT / ".ci" / "audit.py"), *args], capture_output=True, text=True, timeout=120)
    return done.returncode, (done.stdout + done.stderr).strip().splitlines()


def test_a_given_report_is_checked_against_the_installed_packages(tmp_path: Path) -> None:
    """Issue 35, finding 7: a report naming 1 of the 123 installed packages passed ("1 packages checked")."""
    (tmp_path / "r.json").write_text(json.dumps(CLEAN))
    code, lines = _audit("--input", str(tmp_path / "r.json"), "--waivers", str(tmp_path / "none.toml"))
    assert code == 2, lines
    assert any("AUDIT NOT DONE" in line and "not every installed package was checked" in line for line in lines), lines
    assert any(line.startswith("installed but missing from the report:") for line in lines), lines


@pytest.mark.parametrize(
    "text",
    ["[]", '{"dependencies": [{"name": "gradio", "version": "6.31.0", "vulns": null}]}', "not json {", '"text"', "{}", ""],
)
def test_a_malformed_report_is_one_line_and_exit_2(tmp_path: Path, text: str) -> None:
    (tmp_path / "r.json").write_text(text)
    code, lines = _audit("--input", str(tmp_path / "r.json"), "--waivers", str(tmp_path / "none.toml"))
    assert code == 2, lines
    assert len(lines) == 1 and lines[0].startswith("AUDIT NOT DONE:") and "Traceback" not in lines[0], lines
