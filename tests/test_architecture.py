"""ARCHITECTURE.md matches the tree: the entries of src/hwqa are its packages in the order of the data
flow, none imports one listed after it, every module is named, every named module exists, and no
module imports more of hwqa than its row says (a newcomer can trust the map)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .conftest import REPO

SRC = REPO / "src"
PACKAGE = SRC / "hwqa"
ROW = re.compile(r"^\| `(src/hwqa/[\w/]+\.py)` \| (.+?) \| (.+?) \|$")
ENTRY = re.compile(r"^\| `(\w+/|\w+\.py)` \| (.+?) \| (.+?) \|$")  # a row of the package table


def modules_in_tree() -> set[str]:
    return {str(p.relative_to(REPO)) for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}


def rows() -> dict[str, set[str]]:
    """Module path -> the hwqa modules and packages it may import ('—' for none)."""
    out: dict[str, set[str]] = {}
    for line in (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            allowed = m.group(3).strip()
            out[m.group(1)] = set() if allowed == "—" else {a.strip() for a in allowed.split(",")}
    return out


def entries() -> list[tuple[str, set[str]]]:
    """The package table, in its order: ('notes', {'errors'}), ('engine', {...}), …"""
    out: list[tuple[str, set[str]]] = []
    for line in (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8").splitlines():
        m = ENTRY.match(line)
        if m and m.group(1) != "entry":
            allowed = m.group(3).strip()
            out.append(
                (m.group(1).rstrip("/").removesuffix(".py"), set() if allowed == "—" else {a.strip() for a in allowed.split(",")})
            )
    return out


def top_level(path: Path) -> str:
    """'fetch' for src/hwqa/fetch/cache.py, 'cli' for src/hwqa/cli.py."""
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")


def imports_of(path: Path) -> set[str]:
    """The other hwqa modules and packages ``path`` imports (relative imports, anywhere in the file)."""
    package = list(path.relative_to(PACKAGE).parts[:-1])
    own = top_level(path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        base = package[: len(package) - (node.level - 1)]
        parts = base + (node.module.split(".") if node.module else [])
        if not parts:  # "from . import x" at the top of the package
            parts = [node.names[0].name]
        target = "hwqa" if parts[0] == "__version__" else parts[0]
        if target != own:
            found.add(target)
    return found


def test_every_module_is_on_the_map_and_every_row_is_a_module() -> None:
    named, present = set(rows()), modules_in_tree()
    assert not present - named, f"add these modules to ARCHITECTURE.md: {sorted(present - named)}"
    assert not named - present, f"ARCHITECTURE.md names modules that do not exist: {sorted(named - present)}"


def test_no_module_imports_more_than_its_row_allows() -> None:
    allowed = rows()
    extra = {
        module: sorted(imports_of(REPO / module) - allowed[module])
        for module in sorted(allowed)
        if (REPO / module).exists() and imports_of(REPO / module) - allowed[module]
    }
    assert not extra, f"imports not in ARCHITECTURE.md's 'may import' column: {extra}"


def test_the_import_check_sees_imports() -> None:
    """The checker is not vacuous: it finds the imports a module really has."""
    assert imports_of(PACKAGE / "notes" / "chunk.py") == set()  # its sibling notes/markdown.py is its own package
    assert {"errors", "notes", "index"} <= imports_of(PACKAGE / "fetch" / "fetcher.py") | imports_of(
        PACKAGE / "fetch" / "cache.py"
    )
    assert "hwqa" in imports_of(PACKAGE / "settings.py")
    assert {"answer", "build"} <= imports_of(PACKAGE / "engine.py")


def test_src_hwqa_is_a_short_list_of_packages_in_the_order_of_the_table() -> None:
    """The folder is the map: at most 15 entries, each a row of the package table (the facade aside)."""
    present = sorted(p.name for p in PACKAGE.iterdir() if p.name != "__pycache__")
    assert len(present) <= 15, present
    named = {name for name, _ in entries()}
    assert {p.removesuffix(".py") for p in present} - named == {"__init__", "__main__"}
    assert named <= {p.removesuffix(".py") for p in present}


def test_no_package_imports_one_listed_after_it() -> None:
    """Each entry imports only entries above it in the table, and only those its row names."""
    order = entries()
    seen: set[str] = {"hwqa"}
    actual: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" not in path.parts and len(path.relative_to(PACKAGE).parts) > 0:
            actual.setdefault(top_level(path), set()).update(imports_of(path))
    problems = []
    for name, allowed in order:
        if allowed - seen:
            problems.append(f"{name}'s row allows entries listed after it: {sorted(allowed - seen)}")
        if actual.get(name, set()) - allowed:
            problems.append(f"{name} imports {sorted(actual[name] - allowed)}, not in its row")
        seen.add(name)
    assert not problems, problems


def test_no_module_imports_itself_through_others() -> None:
    """The modules form layers: no chain of imports (type-only ones included) leads back to where it
    started, so each module can be read, tested and replaced from the bottom up."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" not in path.parts:
            graph.setdefault(top_level(path), set()).update(imports_of(path) - {"hwqa"})
    cycles: list[list[str]] = []

    def walk(chain: list[str], done: set[str]) -> None:
        for target in sorted(graph.get(chain[-1], ())):
            if target in chain:
                cycles.append([*chain[chain.index(target) :], target])
            elif target not in done:
                done.add(target)
                walk([*chain, target], done)

    for module in sorted(graph):
        walk([module], set())
    assert not cycles, f"import cycles: {[' → '.join(c) for c in cycles[:5]]}"
    assert {"answer", "notes", "index", "build", "engine"} <= set(graph)


def test_every_module_is_at_most_500_lines() -> None:
    long = {
        str(p.relative_to(REPO)): n
        for p in PACKAGE.rglob("*.py")
        if "__pycache__" not in p.parts and (n := len(p.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert not long, f"split these along a seam they have: {long}"
