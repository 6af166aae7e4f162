"""Broken and hostile notes: each one is indexed (with a warning naming it) or skipped with a reason.

None stops the build, hangs it, executes anything, or reads outside the notes folder, and memory
stays bounded. Loads that could hang or eat memory on a regression run in a child process with a
memory limit (RLIMIT_DATA) and a hang guard, so a failure is a failed test, not a stuck machine.

Each test records its figures (inputs tried, outcomes) with ``record_property`` and they are printed
in the terminal summary of the run (see :func:`figures`), whatever the ``-s`` setting.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hwqa.build.builder import build_index
from hwqa.cli import app
from hwqa.notes.note import YAML_MAX_DEPTH, NoteSkipped, load_notes, parse_note
from hwqa.settings import Settings, load_settings

from .conftest import REPO, write_note

MB = 1 << 20
CHILD_DATA_LIMIT = 1024 * MB  # the child is killed (MemoryError) long before an alias bomb gets anywhere
HANG_GUARD_S = 120  # not a speed assertion: only stops a regression from hanging the suite
TOO_DEEP = f"front matter is nested more than {YAML_MAX_DEPTH} levels deep"  # hwqa's words, whatever the YAML parser

# Nine levels of nine aliases: 9**9 (387 million) strings once expanded, in 700 bytes.
_BOMB_LEVELS = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(f"{c}: &{c} [{','.join('*' + p for _ in range(9))}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)),
    ]
)


def bomb(key: str) -> str:
    return f"---\n{_BOMB_LEVELS}\n{key}: *i\n---\n# Bomb\nThe body of a hostile note.\n"


_FIGURES: list[str] = []


@pytest.fixture(scope="module", autouse=True)
def figures(request: pytest.FixtureRequest) -> Iterator[None]:
    """Print every test's figures at the end of this module's run (in the log, with or without -s)."""
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or not _FIGURES:
        return
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        reporter.write_line("")
        reporter.write_sep("-", "hostile notes: figures")
        for line in _FIGURES:
            reporter.write_line(line)


def figure(record_property: Any, name: str, **values: Any) -> None:
    record_property(name, json.dumps(values, sort_keys=True))
    _FIGURES.append(f"{name}: " + ", ".join(f"{k}={v}" for k, v in values.items()))


_CHILD = r"""
import json, resource, sys, tracemalloc
from pathlib import Path
limit = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
from hwqa.notes.note import load_notes
tracemalloc.start()
kwargs = json.loads(sys.argv[2])
report = load_notes(Path(sys.argv[1]), **kwargs)
peak = tracemalloc.get_traced_memory()[1]
print(json.dumps({
    "notes": {n.rel: {"title": n.title, "tags": list(n.tags), "body": n.body[:200], "warnings": list(n.warnings)}
              for n in report.notes},
    "skipped": dict(report.skipped),
    "warnings": report.warnings,
    "peak_bytes": peak,
    "maxrss_kb": next((int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
                       if line.startswith("VmHWM:")), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss),
}))
"""


def load_in_child(folder: Path, **kwargs: Any) -> dict[str, Any]:
    """``load_notes(folder)`` in a child process with a memory limit and a hang guard."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(folder), json.dumps(kwargs), str(CHILD_DATA_LIMIT)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def hash_settings(tmp_path: Path, notes: Path, **extra: Any) -> Settings:
    return load_settings(
        {"notes": notes, "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False, **extra},
        env={},
        cwd=tmp_path,
    )


# --- 1. hostile YAML -------------------------------------------------------------------------------


def test_yaml_alias_bombs_are_skipped_by_name_in_bounded_memory(tmp_path: Path, record_property: Any) -> None:
    notes = tmp_path / "notes"
    write_note(notes, "bomb-tags.md", bomb("tags"))
    write_note(notes, "bomb-title.md", bomb("title"))
    write_note(notes, "bomb-aliases.md", bomb("aliases"))
    write_note(notes, "ok.md", "---\ntitle: Fine\ntags: [gpu]\n---\n# Fine\nA TPU v3 has 8 cores.\n")
    # benign aliases are still fine
    write_note(notes, "anchors.md", "---\nbase: &b [gpu, tpu]\ntags: *b\n---\nAnchors are allowed.\n")
    write_note(notes, "deep.md", "---\ntags: " + "[" * 8_000 + "]" * 8_000 + "\n---\n# Deep\nDeep body.\n")
    write_note(notes, "deep-block.md", "---\n" + "- " * 8_000 + "x\n---\n# Deep\nDeep block body.\n")
    write_note(notes, "huge.md", "---\ntags: [" + "a," * 40_000 + "]\n---\n# Huge\nHuge body.\n")
    write_note(notes, "self-ref.md", "---\ntags: &s [a, *s]\n---\n# Self\nA list that holds itself.\n")
    out = load_in_child(notes)
    assert "Deep body." in out["notes"]["deep.md"]["body"]
    assert "Deep block body." in out["notes"]["deep-block.md"]["body"]
    assert "Huge body." in out["notes"]["huge.md"]["body"]
    for name in ("deep.md", "deep-block.md"):
        assert f"{name}:2: {TOO_DEEP}; indexed the body only" in out["warnings"], (name, out["warnings"])
    assert any(w.startswith("huge.md:2: ") and "longer than" in w for w in out["warnings"]), out["warnings"]
    assert "refers to itself" in out["skipped"]["self-ref.md"]
    assert set(out["notes"]) == {"ok.md", "anchors.md", "deep.md", "deep-block.md", "huge.md"}
    assert out["notes"]["anchors.md"]["tags"] == ["gpu", "tpu"]
    for name in ("bomb-tags.md", "bomb-title.md", "bomb-aliases.md"):
        assert "alias" in out["skipped"][name] and "front matter" in out["skipped"][name]
        assert any(w.startswith(f"{name}: skipped") for w in out["warnings"])
    assert out["peak_bytes"] < 32 * MB
    figure(
        record_property,
        "hostile-yaml/alias-bomb-nesting-size",
        tried=9,
        skipped=4,
        indexed=5,
        peak_mb=round(out["peak_bytes"] / MB, 1),
        child_maxrss_mb=round(out["maxrss_kb"] / 1024, 1),
    )


def _loaders() -> list[Any]:
    """PyYAML's pure-Python safe loader, and its libyaml one where this PyYAML was built with it."""
    import yaml

    return [yaml.SafeLoader, *([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])]


def test_front_matter_guard_warns_the_same_with_the_pure_python_and_the_libyaml_parser(record_property: Any) -> None:
    anchor = "[" * 40 + "x" + "]" * 40
    # (front matter, line of the warning); the first six meet hwqa's own guards, measured before
    # (nesting) or beside (aliases) the parser; the last two a parser error, which hwqa words too
    notes = {
        "flow.md": ("tags: " + "[" * 5_000 + "]" * 5_000, 2),
        "block.md": ("- " * 5_000 + "x", 2),
        "mapping.md": ("".join(f"{' ' * i}k{i}:\n" for i in range(100)) + " " * 100 + "leaf", YAML_MAX_DEPTH + 2),
        "crlf.md": ("title: ok\r\ntags:\r\n" + "- " * 3_000 + "x\r", 4),
        "mixed.md": ("title: ok\nk:\n  - - - {a: [" + "[" * 70 + "]" * 70 + "]}", 4),
        "via-alias.md": (f"base: &d {anchor}\ntags: {'[' * 40}*d{']' * 40}", 3),
        "colon.md": ("title: ok\ntags: GPU: the guide", 3),
        "bracket.md": ("title: ok\ntags: [a, b\n", 5),
    }
    parser_errors = ("colon.md", "bracket.md")
    fine = {
        "scalar-text.md": "title: Deep text\nnote: |\n" + "".join(f"  {'  ' * i}- line {i}\n" for i in range(80)) + "tags: [gpu]",
        "quoted.md": "title: '[[[ not a list ]]]'\ntags: [gpu, tpu]",
        "anchors.md": "base: &b [gpu, tpu]\ntags: *b",
        "nested-ok.md": "tags:\n  - - - [a, {b: [c]}]\ntitle: Nested",
    }
    outcomes = []
    for loader in _loaders():
        seen: dict[str, Any] = {}
        for name, (front, _) in notes.items():
            note = parse_note(f"---\n{front}\n---\n# {name}\nThe body stays.\n", name, yaml_loader=loader)
            assert "The body stays." in note.body and note.tags == (), (loader, name)
            seen[name] = note.warnings
        for name, front in fine.items():
            note = parse_note(f"---\n{front}\n---\nbody\n", name, yaml_loader=loader)
            assert note.warnings == () and note.tags, (loader, name, note.warnings)
            seen[name] = note.tags
        for key in ("tags", "aliases"):
            with pytest.raises(NoteSkipped, match="alias"):
                parse_note(bomb(key), "bomb.md", yaml_loader=loader)
        with pytest.raises(NoteSkipped, match="refers to itself"):
            parse_note("---\ntags: &s [a, *s]\n---\nbody\n", "self.md", yaml_loader=loader)
        for name, (_, line) in notes.items():
            why = "broken front matter (" if name in parser_errors else f"{TOO_DEEP}; indexed the body only"
            assert len(seen[name]) == 1 and seen[name][0].startswith(f"{name}:{line}: {why}"), (loader, name, seen[name])
        outcomes.append(seen)
    # the guard's warnings are word for word the same; a parser's own error differs only after the line
    first = outcomes[0]
    for other in outcomes[1:]:
        for name in (*notes, *fine):
            if name in parser_errors:
                assert other[name][0].split(": ")[0] == first[name][0].split(": ")[0], (name, first[name], other[name])
            else:
                assert other[name] == first[name], (name, first[name], other[name])
    figure(record_property, "hostile-yaml/same-with-every-parser", parsers=len(outcomes), notes=len(notes) + len(fine) + 3)


def test_yaml_python_tags_execute_nothing(tmp_path: Path, record_property: Any) -> None:
    marker = tmp_path / "EXECUTED"
    notes = tmp_path / "notes"
    payloads = {
        "apply.md": f'!!python/object/apply:os.system ["touch {marker}"]',
        "new.md": f'!!python/object/new:subprocess.Popen [["touch", "{marker}"]]',
        "name.md": "!!python/name:os.system",
        "module.md": "!!python/module:os",
        "object.md": "!!python/object:hwqa.settings.Settings {}",
    }
    for name, payload in payloads.items():
        write_note(notes, name, f"---\ntitle: {payload}\n---\n# Hostile {name}\nThe body stays.\n")
    report = load_notes(notes)
    assert not marker.exists()
    assert sorted(n.rel for n in report.notes) == sorted(payloads)
    assert all("The body stays." in n.body for n in report.notes)
    for name in payloads:
        assert any(w.startswith(f"{name}:2: ") and "front matter" in w for w in report.warnings), report.warnings
    figure(
        record_property, "hostile-yaml/python-tags", tried=len(payloads), executed=0, indexed_body_with_warning=len(report.notes)
    )


# --- 2. invalid front matter: warnings at the right line -------------------------------------------


def test_invalid_front_matter_warns_at_the_exact_file_line(tmp_path: Path, record_property: Any) -> None:
    notes = tmp_path / "notes"
    cases = {
        "colon.md": ("---\ntitle: ok\ntags: GPU: the guide\n---\n# Colon\nbody colon\n", 3),
        "tab.md": ("---\ntitle: ok\n\ttags: [a]\n---\n# Tab\nbody tab\n", 3),
        "bracket.md": ("---\ntitle: ok\ndate: 2020\ntags: [a, b\n---\n# Bracket\nbody bracket\n", 5),
        "list.md": ("---\n- gpu\n- tpu\n---\n# List\nbody list\n", 2),
        "scalar.md": ("---\njust a sentence\n---\n# Scalar\nbody scalar\n", 2),
        "dupe.md": ("---\ntitle: First\ntags: [a]\ntitle: Second\n---\n# Dupe\nbody dupe\n", 4),
        "crlf.md": ("---\r\ntitle: ok\r\ntags: x: y\r\n---\r\n# Crlf\r\nbody crlf\r\n", 3),
    }
    for name, (text, _) in cases.items():
        (notes / name).parent.mkdir(parents=True, exist_ok=True)
        (notes / name).write_bytes(text.encode("utf-8"))
    report = load_notes(notes)
    by_rel = {n.rel: n for n in report.notes}
    assert set(by_rel) == set(cases)
    for name, (_, line) in cases.items():
        assert f"body {name.split('.')[0]}" in by_rel[name].body
        mine = [w for w in report.warnings if w.startswith(f"{name}:")]
        assert len(mine) == 1, (name, report.warnings)
        assert mine[0].startswith(f"{name}:{line}: "), (name, mine[0])
    assert "front matter must be a mapping" in next(w for w in report.warnings if w.startswith("list.md"))
    assert "front matter must be a mapping" in next(w for w in report.warnings if w.startswith("scalar.md"))
    assert "expected ',' or ']'" in next(w for w in report.warnings if w.startswith("bracket.md"))
    dupe = next(w for w in report.warnings if w.startswith("dupe.md"))
    assert "duplicate key 'title'" in dupe
    assert by_rel["dupe.md"].title == "Second"
    figure(
        record_property,
        "invalid-front-matter",
        tried=len(cases),
        indexed_body_with_warning=len(by_rel),
        warnings_at_exact_line=len(cases),
    )


def test_empty_and_unclosed_front_matter() -> None:
    empty = parse_note("---\n---\n# Title\nbody\n", "empty.md")
    assert empty.warnings == () and empty.body == "# Title\nbody\n" and empty.body_line == 3
    only = parse_note("---\n---", "only.md")
    assert only.warnings == () and only.body == ""
    unclosed = parse_note("---\ntitle: x\nbody without an end\n", "u.md")
    assert unclosed.warnings == ("u.md:1: front matter is not closed by '---'; read the file as body",)
    assert "body without an end" in unclosed.body
    rule = parse_note("--- a dash line, not front matter\ntext\n", "r.md")
    assert rule.warnings == ()


# --- 3. encodings, binaries, empty notes -----------------------------------------------------------


def test_encodings_and_binaries_are_indexed_or_skipped_with_a_precise_reason(tmp_path: Path, record_property: Any) -> None:
    notes = tmp_path / "notes"
    write_note(notes, "good.md", "# Good\ntext")
    (notes / "empty.md").write_bytes(b"")
    (notes / "late-nul.md").write_bytes(b"# Late NUL\n" + b"text line\n" * 2000 + b"\x00tail\n")
    (notes / "png.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    (notes / "latin1.md").write_bytes("# Caf\xe9\nline two\n".encode("latin-1"))
    (notes / "utf16le.md").write_bytes(codecs.BOM_UTF16_LE + "# UTF-16 LE\nTPU v4 pods.\n".encode("utf-16-le"))
    (notes / "utf16be.md").write_bytes(codecs.BOM_UTF16_BE + "# UTF-16 BE\nTPU v5 pods.\n".encode("utf-16-be"))
    (notes / "utf16-nobom.md").write_bytes("# No BOM\nplain text\n".encode("utf-16-le"))
    report = load_notes(notes)
    indexed = {n.rel: n for n in report.notes}
    skipped = dict(report.skipped)
    assert set(indexed) == {"good.md", "empty.md", "utf16le.md", "utf16be.md"}
    assert "TPU v4 pods." in indexed["utf16le.md"].body and indexed["utf16le.md"].title == "UTF-16 LE"
    assert "TPU v5 pods." in indexed["utf16be.md"].body
    assert any(w.startswith("utf16le.md: ") and "UTF-16" in w and "UTF-8" in w for w in report.warnings)
    assert "binary" in skipped["late-nul.md"] and "line 2002" in skipped["late-nul.md"]
    assert "binary" in skipped["png.md"] and "PNG" in skipped["png.md"]
    assert skipped["latin1.md"].startswith("not UTF-8") and "line 1" in skipped["latin1.md"]
    assert "0xE9" in skipped["latin1.md"] and "Latin-1" in skipped["latin1.md"]
    assert "UTF-16 without a byte-order mark" in skipped["utf16-nobom.md"]
    figure(record_property, "encodings-binaries", tried=8, indexed=len(indexed), skipped=len(skipped), utf16_with_bom_indexed=2)


def test_hidden_folders_are_not_indexed(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write_note(notes, "a.md", "# A\ntext")
    write_note(notes, ".git/COMMIT_EDITMSG.md", "# git")
    write_note(notes, ".obsidian/workspace.md", "# obsidian")
    write_note(notes, "sub/.trash/old.md", "# trash")
    report = load_notes(notes)
    assert [n.rel for n in report.notes] == ["a.md"]
    assert report.skipped == [] and report.warnings == []


# --- 4. symlinks, loops, FIFOs, devices, /proc -----------------------------------------------------


def _special_folder(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    write_note(outside, "secret.md", "# Secret\nOUTSIDE-CANARY-7731 must never be indexed.\n")
    write_note(outside, "folder/inner.md", "# Inner\nOUTSIDE-CANARY-7731 in a folder.\n")
    notes = tmp_path / "notes"
    write_note(notes, "real.md", "# Real\nA TPU v3 has 8 cores.\n")
    write_note(notes, "sub/target.md", "# Target\nAn inside link target.\n")
    links = {
        "to-outside.md": outside / "secret.md",
        "passwd.md": Path("/etc/passwd"),
        "proc-status.md": Path("/proc/self/status"),
        "proc-environ.md": Path("/proc/self/environ"),
        "dev-zero.md": Path("/dev/zero"),
        "loop-a.md": notes / "loop-b.md",
        "loop-b.md": notes / "loop-a.md",
        "self.md": notes / "self.md",
        "dangling.md": notes / "nothing-here.md",
        "inside.md": notes / "sub" / "target.md",
        "outside-folder": outside / "folder",
    }
    for name, target in links.items():
        (notes / name).symlink_to(target)
    os.mkfifo(notes / "fifo.md")
    return notes


def test_symlinks_fifos_devices_and_proc_links_never_read_outside_or_hang(tmp_path: Path, record_property: Any) -> None:
    notes = _special_folder(tmp_path)
    out = load_in_child(notes)
    assert set(out["notes"]) == {"real.md", "sub/target.md", "inside.md"}
    assert all("CANARY" not in n["body"] and "root:" not in n["body"] for n in out["notes"].values())
    skipped = out["skipped"]
    for name in ("to-outside.md", "passwd.md", "proc-status.md", "proc-environ.md"):
        assert "outside the notes folder" in skipped[name] and "follow_outside_symlinks" in skipped[name]
    assert "/etc/passwd" in skipped["passwd.md"]
    assert "loop" in skipped["loop-a.md"] and "loop" in skipped["loop-b.md"] and "loop" in skipped["self.md"]
    assert "FIFO" in skipped["fifo.md"]
    assert "broken symlink" in skipped["dangling.md"]
    assert "outside the notes folder" in skipped["dev-zero.md"]
    assert "symlinked folder" in skipped["outside-folder"]
    for name in skipped:
        assert any(w.startswith(f"{name}: skipped") for w in out["warnings"])
    figure(
        record_property,
        "symlinks-special-files",
        tried=13,
        indexed=len(out["notes"]),
        skipped=len(skipped),
        read_outside=0,
        child_maxrss_mb=round(out["maxrss_kb"] / 1024, 1),
    )


def test_following_outside_symlinks_is_a_setting_and_devices_stay_skipped(tmp_path: Path) -> None:
    notes = _special_folder(tmp_path)
    out = load_in_child(notes, follow_outside_symlinks=True)
    assert "OUTSIDE-CANARY-7731" in out["notes"]["to-outside.md"]["body"]
    assert "device" in out["skipped"]["dev-zero.md"]
    assert "FIFO" in out["skipped"]["fifo.md"]
    assert "loop" in out["skipped"]["self.md"]
    settings = hash_settings(tmp_path, notes)
    assert settings.follow_outside_symlinks is False
    assert "follow_outside_symlinks" in {name for name, _, _ in settings.describe()}


def test_a_build_over_special_files_indexes_nothing_from_outside(tmp_path: Path) -> None:
    notes = _special_folder(tmp_path)
    settings = hash_settings(tmp_path, notes)
    report = build_index(settings)
    skipped = {s["note"]: s["reason"] for s in report.notes_skipped}
    assert "to-outside.md" in skipped and "fifo.md" in skipped
    from hwqa.index.reader import open_current

    gen = open_current(settings.index)
    try:
        assert all("CANARY" not in c.text and "root:x:0" not in c.text for c in gen.all_chunks())
        assert {c.source for c in gen.all_chunks()} == {"real.md", "sub/target.md", "inside.md"}
    finally:
        gen.close()


# --- 5. size: one 5 MB line, 5,000 tiny notes -------------------------------------------------------


def test_a_5mb_single_line_note_gives_bounded_chunks_and_a_small_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record_property: Any
) -> None:
    notes = tmp_path / "notes"
    write_note(notes, "tpu.md", "# TPU\nA TPU v3 has 8 cores and costs $8.00 per hour.\n")
    blob = ("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo" * 150_000)[:5_000_000]
    (notes / "blob.md").write_text("# Blob\n" + blob + "\n", encoding="utf-8")
    settings = hash_settings(tmp_path, notes)
    report = build_index(settings)
    from hwqa.index.reader import open_current

    gen = open_current(settings.index)
    try:
        chunks = gen.all_chunks()
    finally:
        gen.close()
    max_tokens = gen.manifest["chunking"]["max_tokens"]
    longest = max(len(c.text) for c in chunks)
    assert longest <= 8 * max_tokens
    assert sum(len(c.text) for c in chunks if c.source == "blob.md") >= len(blob)  # nothing lost
    monkeypatch.chdir(tmp_path)
    for key in [k for k in os.environ if k.startswith("HWQA_")]:
        monkeypatch.delenv(key)
    for key, value in {"NOTES": notes, "INDEX": settings.index, "EMBED_BACKEND": "hash", "FETCH_LINKS": "false"}.items():
        monkeypatch.setenv(f"HWQA_{key}", str(value))
    result = CliRunner().invoke(app, ["ask", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", "--json"])
    assert result.exit_code == 0, result.output
    assert len(result.stdout) < 100_000
    figure(
        record_property,
        "one-5MB-line",
        note_bytes=len(blob),
        chunks=report.chunks_total,
        longest_chunk_chars=longest,
        char_bound=8 * max_tokens,
        ask_json_bytes=len(result.stdout),
    )


def test_5000_tiny_notes_all_indexed(tmp_path: Path, record_property: Any) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(5000):
        (notes / f"n{i:04d}.md").write_text(f"---\ntags: [t{i % 7}]\n---\nNote {i} about GPU {i}.\n", encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = build_index(hash_settings(tmp_path, notes))
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert report.notes_seen == 5000 and report.chunks_total == 5000
    assert report.notes_skipped == [] and report.warnings == []
    figure(
        record_property,
        "5000-tiny-notes",
        tried=5000,
        indexed=report.notes_seen,
        chunks=report.chunks_total,
        maxrss_mb=round(after / 1024, 1),
        maxrss_growth_mb=round((after - before) / 1024, 1),
        seconds=round(report.seconds, 1),
    )


def test_notes_over_the_size_cap_are_skipped_without_reading_them_whole(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write_note(notes, "small.md", "# Small\ntext")
    (notes / "big.md").write_bytes(b"# Big\n" + b"x" * 5000)
    report = load_notes(notes, max_bytes=4096)
    assert [n.rel for n in report.notes] == ["small.md"]
    assert "larger than 4,096 bytes" in dict(report.skipped)["big.md"]
    settings = hash_settings(tmp_path, notes, note_max_bytes=4096)
    assert {s["note"] for s in build_index(settings).notes_skipped} == {"big.md"}


def test_chunks_are_bounded_in_characters_whatever_the_tokenizer_says() -> None:
    from hwqa.notes.chunk import CHARS_PER_TOKEN, chunk_markdown

    def words(text: str) -> int:  # a tokenizer that sees a 1 MB word as one token
        return len(text.split())

    blob = "".join(chr(97 + i % 26) for i in range(1_000_000))
    text = f"# Blob\n\n{blob}\n\nA short sentence after it.\n\n## Next\n\nword " * 2
    chunks = chunk_markdown(text, kind="note", source="b.md", title="Blob", max_tokens=64, overlap=8, count_tokens=words)
    assert max(len(c.text) for c in chunks) <= CHARS_PER_TOKEN * 64
    assert sum(c.text.count("a") for c in chunks) >= 2 * blob.count("a")  # nothing lost
    assert any("A short sentence after it." in c.text for c in chunks)


_BUILD_CHILD = r"""
import json, resource, sys
from pathlib import Path
limit = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
from hwqa.build.builder import build_index
from hwqa.index.reader import open_current
from hwqa.settings import load_settings
settings = load_settings(
    {"notes": sys.argv[1], "index": sys.argv[2], "embed_backend": "hash", "fetch_links": False},
    env={}, cwd=Path(sys.argv[2]).parent,
)
report = build_index(settings).to_json()
gen = open_current(settings.index)
report["sources"] = sorted({c.source for c in gen.all_chunks()})
report["texts"] = [c.text for c in gen.all_chunks()]
report["indexed"] = sorted(gen.manifest["notes"])
# VmHWM is this process's own peak; ru_maxrss would include the pytest parent's pages from before exec.
hwm = [line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmHWM:")]
report["maxrss_kb"] = int(hwm[0].split()[1]) if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(report))
"""


def test_one_build_over_every_kind_of_broken_note_finishes_and_accounts_for_each(tmp_path: Path, record_property: Any) -> None:
    notes = _special_folder(tmp_path)
    write_note(notes, "yaml/bomb.md", bomb("tags"))
    write_note(notes, "yaml/python.md", '---\ntitle: !!python/object/apply:os.system ["true"]\n---\n# Py\nPython tag body.\n')
    write_note(notes, "yaml/colon.md", "---\ntitle: a: b\n---\n# Colon\nColon body.\n")
    write_note(notes, "yaml/list.md", "---\n- a\n---\n# List\nList body.\n")
    write_note(notes, "yaml/unclosed.md", "---\ntitle: x\n# Unclosed\nUnclosed body.\n")
    write_note(notes, "yaml/empty-fm.md", "---\n---\n# Empty front matter\nEmpty front matter body.\n")
    (notes / "bytes").mkdir()
    (notes / "bytes/empty.md").write_bytes(b"")
    (notes / "bytes/nul.md").write_bytes(b"# NUL\n" + b"x\n" * 5000 + b"\x00")
    (notes / "bytes/png.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (notes / "bytes/latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    (notes / "bytes/utf16.md").write_bytes(codecs.BOM_UTF16_LE + "# UTF-16\nUTF-16 body.\n".encode("utf-16-le"))
    (notes / "bytes/long-line.md").write_text("# Long\n" + "x" * 1_000_000 + "\n", encoding="utf-8")
    write_note(notes, ".git/HEAD.md", "# hidden git")
    write_note(notes, ".obsidian/app.md", "# hidden obsidian")
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, "-c", _BUILD_CHILD, str(notes), str(tmp_path / "index"), str(CHILD_DATA_LIMIT)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    skipped = {s["note"] for s in report["notes_skipped"]}
    tried = {p.relative_to(notes).as_posix() for p in notes.rglob("*") if not p.relative_to(notes).parts[0].startswith(".")}
    tried -= {"sub", "yaml", "bytes"}  # folders
    assert set(report["indexed"]) | skipped == tried  # every file accounted for, once
    assert not set(report["indexed"]) & skipped
    assert {"yaml/python.md", "yaml/colon.md", "yaml/list.md", "yaml/unclosed.md", "bytes/utf16.md"} <= set(report["indexed"])
    assert {"yaml/bomb.md", "bytes/nul.md", "bytes/png.md", "bytes/latin1.md", "fifo.md", "passwd.md"} <= skipped
    assert all("CANARY" not in t and "root:x:0" not in t for t in report["texts"])
    assert max(len(t) for t in report["texts"]) <= 8 * 200
    for body in ("Python tag body.", "Colon body.", "List body.", "Unclosed body.", "UTF-16 body."):
        assert any(body in t for t in report["texts"]), body
    assert report["maxrss_kb"] < 300 * 1024  # the whole child: Python, numpy, faiss, the build
    figure(
        record_property,
        "one-build-all-classes",
        tried=len(tried),
        indexed=len(report["indexed"]),
        skipped=len(skipped),
        warnings=len(report["warnings"]),
        chunks=report["chunks_total"],
        child_maxrss_mb=round(report["maxrss_kb"] / 1024, 1),
    )
