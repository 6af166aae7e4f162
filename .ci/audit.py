#!/usr/bin/env python3
"""Audit the installed Python environment for known vulnerabilities with pip-audit, honestly.

    python .ci/audit.py [--allow-unreachable] [--waivers audit-waivers.toml] [--input report.json [--installed-from list]]

Runs ``pip-audit`` over the environment of the Python that runs this script (the project's venv)
and reads its JSON report instead of trusting its summary line: pip-audit prints "No known
vulnerabilities found" even when it could not check a single package (its vulnerability service,
the PyPI JSON API or OSV, unreachable).

Every installed package must have been checked: a report that lists no package, skips one, or
leaves out a package installed in this environment is an audit not done, never a clean one. A
report given with ``--input`` is checked against this environment too, or against the package list
``--installed-from`` names (``pip freeze`` / ``uv pip freeze`` output of the environment it was
made in). A report that is not pip-audit's JSON (not JSON, not an object, ``vulns`` not a list …)
is one line and exit 2, never a traceback (which read as exit 1, "vulnerable").

Exit codes:
  0  every installed package was checked and none has a known vulnerability that is not waived
     (also: packages left unchecked with --allow-unreachable, after a loud AUDIT NOT DONE warning);
  1  a known vulnerability without a valid waiver, or an expired waiver;
  2  the audit could not be done, or was not done for every package (pip-audit missing, the
     vulnerability database unreachable, packages skipped or missing from the report).

Waivers live in ``audit-waivers.toml``: one ``[[waiver]]`` table per accepted vulnerability, with
``id`` (the advisory id or an alias), ``package``, ``reason`` and ``until`` (a date); an expired
waiver fails the audit, so every exception is looked at again.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
UNREACHABLE_SHARE = 0.5  # more packages than this unchecked: the database was not reachable
BANNER = "=" * 78


@dataclass(frozen=True)
class Waiver:
    id: str
    package: str
    reason: str
    until: dt.date


def load_waivers(path: Path) -> list[Waiver]:
    if not path.exists():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    waivers = []
    for i, entry in enumerate(data.get("waiver", []), 1):
        missing = [k for k in ("id", "package", "reason", "until") if not entry.get(k)]
        if missing:
            raise SystemExit(f"audit: waiver {i} in {path.name} lacks {', '.join(missing)}; every waiver needs all four")
        until = entry["until"]
        if isinstance(until, str):
            until = dt.date.fromisoformat(until)
        waivers.append(Waiver(str(entry["id"]), str(entry["package"]).lower(), str(entry["reason"]), until))
    return waivers


def run_pip_audit() -> tuple[dict[str, Any] | None, str]:
    """pip-audit's JSON report (None if it produced none) and its stderr."""
    command = [sys.executable, "-m", "pip_audit", "--format", "json", "--progress-spinner", "off", "--skip-editable"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    except subprocess.TimeoutExpired:
        return None, "pip-audit took longer than 15 minutes"
    if "No module named pip_audit" in done.stderr:
        return None, "pip-audit is not installed; run `make install` (it is in the dev extra)"
    try:
        return json.loads(done.stdout), done.stderr
    except json.JSONDecodeError:
        return None, done.stderr


def canonical(name: str) -> str:
    """A distribution name as PyPI compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_packages() -> set[str]:
    """The canonical names of the distributions installed in this interpreter's environment."""
    return {canonical(d.metadata["Name"]) for d in importlib.metadata.distributions() if d.metadata["Name"]}


def _first_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error" in line or "error" in line:
            return line[:300]
    return lines[-1][:300] if lines else "no output"


class BadReport(Exception):
    """The report is not pip-audit's JSON: the message says where."""


def check_report(report: object) -> dict[str, Any]:
    """``report`` if it has pip-audit's JSON shape, else :class:`BadReport` saying what is wrong."""
    if not isinstance(report, dict):
        raise BadReport(f"it is a JSON {type(report).__name__}, not an object with a 'dependencies' list")
    deps = report.get("dependencies")
    if not isinstance(deps, list):
        raise BadReport("its 'dependencies' is missing or not a list")
    for i, dep in enumerate(deps):
        if not isinstance(dep, dict) or not isinstance(dep.get("name"), str) or not dep["name"]:
            raise BadReport(f"dependency {i + 1} is not an object with a 'name'")
        if "skip_reason" in dep and not isinstance(dep["skip_reason"], str):
            raise BadReport(f"dependency {dep['name']}: 'skip_reason' is not text")
        if "skip_reason" not in dep and not isinstance(dep.get("vulns"), list):
            raise BadReport(f"dependency {dep['name']}: 'vulns' is missing or not a list")
        for vuln in dep.get("vulns") or []:
            if not isinstance(vuln, dict) or not isinstance(vuln.get("id"), str):
                raise BadReport(f"dependency {dep['name']}: a vulnerability without an 'id'")
            for key in ("aliases", "fix_versions"):
                if not isinstance(vuln.get(key, []), list) or not all(isinstance(x, str) for x in vuln.get(key, [])):
                    raise BadReport(f"dependency {dep['name']}: '{key}' of {vuln['id']} is not a list of text")
    return report


def read_installed(path: Path) -> set[str]:
    """Canonical package names from a ``pip freeze``-style list (``name==version``, ``name @ url``, comments)."""
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line)
        if match:
            names.add(canonical(match.group(0)))
    return names


def evaluate(
    report: dict[str, Any],
    waivers: list[Waiver],
    today: dt.date,
    *,
    allow_unreachable: bool,
    installed: set[str] | None = None,
) -> tuple[int, list[str]]:
    """The exit code and the lines to print for one pip-audit JSON report.

    ``installed``: the canonical names of every package that should have been checked (the
    environment pip-audit ran over); one the report does not list counts as not checked.
    """
    listed = report.get("dependencies", [])
    editable = {canonical(str(d.get("name", ""))) for d in listed if "editable" in str(d.get("skip_reason", ""))}
    deps = [d for d in listed if canonical(str(d.get("name", ""))) not in editable]  # this project itself
    skipped = [d for d in deps if d.get("skip_reason")]
    checked = [d for d in deps if not d.get("skip_reason")]
    reported = {canonical(str(d.get("name", ""))) for d in listed}
    missing = sorted((installed or set()) - reported - editable)
    lines: list[str] = []
    code = 0
    unchecked = len(skipped) + len(missing)
    if not checked or unchecked:
        total = len(deps) + len(missing)
        if not deps and not missing:
            why = "pip-audit's report lists no package at all"
        elif deps and len(skipped) > UNREACHABLE_SHARE * len(deps):
            why = "the vulnerability database could not be reached"
        else:
            why = "not every installed package was checked"
        lines += [
            BANNER,
            f"AUDIT NOT DONE: {why}; {unchecked} of {total} packages were NOT checked.",
        ]
        if skipped:
            reasons = sorted({str(d["skip_reason"]).split(":")[0] for d in skipped})
            lines.append(f"pip-audit said: {'; '.join(reasons)[:300]}")
            lines += [f"not checked: {d.get('name')}: {d.get('skip_reason')}" for d in skipped[:20]]
        if missing:
            lines.append(f"installed but missing from the report: {', '.join(missing[:20])}")
        lines += [
            "Nothing is known about vulnerabilities in the packages not checked. Run `make audit` where PyPI's JSON API "
            "(or OSV: PIP_AUDIT_VULNERABILITY_SERVICE=osv) is reachable.",
            BANNER,
        ]
        if not allow_unreachable:
            return 2, lines
    by_id = {(w.package, w.id) for w in waivers}
    used: set[tuple[str, str]] = set()
    for dep in checked:
        name = str(dep.get("name", "")).lower()
        for vuln in dep.get("vulns", []):
            ids = [vuln.get("id", ""), *vuln.get("aliases", [])]
            match = next(((name, i) for i in ids if (name, i) in by_id), None)
            fixes = ", ".join(vuln.get("fix_versions", [])) or "no fixed version yet"
            if match is None:
                code = 1
                lines.append(f"VULNERABLE: {name} {dep.get('version')} {ids[0]} (fixed in: {fixes})")
                continue
            used.add(match)
            waiver = next(w for w in waivers if (w.package, w.id) == match)
            if waiver.until < today:
                code = 1
                lines.append(f"EXPIRED WAIVER: {name} {ids[0]} was waived until {waiver.until}: {waiver.reason}")
            else:
                lines.append(f"waived until {waiver.until}: {name} {dep.get('version')} {ids[0]}: {waiver.reason}")
    for waiver in waivers:
        if (waiver.package, waiver.id) not in used:
            lines.append(f"note: waiver for {waiver.package} {waiver.id} matches nothing installed; remove it")
    vulnerable = sum(1 for d in checked if d.get("vulns"))
    if code == 0 and not checked:
        lines.append("audit: no package was checked (see above)")
    elif code == 0:
        lines.append(
            f"audit: {len(checked)} packages checked, no known vulnerability without a valid waiver"
            + (f" ({vulnerable} waived)" if vulnerable else "")
            + (f"; {unchecked} NOT checked (see above)" if unchecked else "")
        )
    else:
        lines.append(f"audit FAILED: {len(checked)} packages checked; fix the versions above or add a dated waiver")
    return code, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--allow-unreachable", action="store_true", help="exit 0 (with a loud warning) if the database is unreachable"
    )
    parser.add_argument("--waivers", type=Path, default=ROOT / "audit-waivers.toml")
    parser.add_argument("--input", type=Path, help="read this pip-audit JSON report instead of running pip-audit")
    parser.add_argument(
        "--installed-from",
        type=Path,
        help="with --input: the package list (pip freeze) of the environment the report is about (default: this one)",
    )
    parser.add_argument("--today", type=dt.date.fromisoformat, default=dt.date.today(), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    waivers = load_waivers(args.waivers)
    report: dict[str, Any] | None
    try:
        installed = read_installed(args.installed_from) if args.installed_from else installed_packages()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"AUDIT NOT DONE: cannot read the package list {args.installed_from} ({exc}); give a pip freeze list")
        return 2
    if args.input:
        stderr = ""
        try:
            report = check_report(json.loads(args.input.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            print(f"AUDIT NOT DONE: cannot read the report {args.input} ({exc}); give pip-audit's --format json output")
            return 2
        except json.JSONDecodeError as exc:
            print(f"AUDIT NOT DONE: the report {args.input} is not JSON ({exc}); give pip-audit's --format json output")
            return 2
        except BadReport as exc:
            print(f"AUDIT NOT DONE: the report {args.input} is not pip-audit's JSON report: {exc}")
            return 2
    else:
        report, stderr = run_pip_audit()
        if report is not None:
            try:
                report = check_report(report)
            except BadReport as exc:
                print(f"AUDIT NOT DONE: pip-audit's output is not the JSON report expected: {exc}")
                return 2
    if report is None:
        print(BANNER)
        print(f"AUDIT NOT DONE: pip-audit produced no report ({_first_error(stderr)}).")
        print(BANNER)
        unreachable = any(w in stderr for w in ("ConnectionError", "NameResolution", "Max retries", "timed out"))
        return 0 if (args.allow_unreachable and unreachable) else 2
    code, lines = evaluate(report, waivers, args.today, allow_unreachable=args.allow_unreachable, installed=installed)
    print("\n".join(lines))
    return code


if __name__ == "__main__":
    sys.exit(main())
