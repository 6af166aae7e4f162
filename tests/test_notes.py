from __future__ import annotations

from pathlib import Path

import pytest

from hwqa.errors import NotesError
from hwqa.notes.note import load_notes, parse_note

from .conftest import write_note


def test_front_matter_fields_become_typed_values(notes_dir: Path) -> None:
    report = load_notes(notes_dir)
    notes = {n.rel: n for n in report.notes}
    assert sorted(notes) == ["hardware/cpu.md", "prices.md", "tpu.md"]
    tpu = notes["tpu.md"]
    assert tpu.title == "TPU notes"
    assert tpu.tags == ("tpu",)
    assert tpu.aliases == ("Tensor Processing Unit",)
    assert tpu.date == "2021-12-21 11:30:28"
    assert tpu.draft is False
    assert tpu.body.lstrip().startswith("# TPU notes")
    assert notes["hardware/cpu.md"].draft is True
    assert report.warnings == [] and report.skipped == []


def test_body_line_points_at_the_file_line() -> None:
    text = "---\ntitle: X\ntags: [a]\n---\nfirst body line\n"
    note = parse_note(text, "x.md")
    assert note.body_line == 5
    assert note.body.splitlines()[0] == "first body line"


def test_title_falls_back_to_first_heading_then_file_name() -> None:
    assert parse_note("intro\n\n## The heading\ntext", "a.md").title == "The heading"
    assert parse_note("no heading at all", "gpu-buying_guide.md").title == "gpu buying guide"


def test_tags_and_aliases_given_as_strings_become_lists() -> None:
    note = parse_note("---\ntags: gpu, tpu\naliases: Solo\n---\nbody", "a.md")
    assert note.tags == ("gpu", "tpu")
    assert note.aliases == ("Solo",)


def test_broken_front_matter_keeps_the_body_and_warns_with_file_and_line(tmp_path: Path) -> None:
    write_note(tmp_path, "ok.md", "---\ntitle: fine\n---\nfine body")
    write_note(tmp_path, "broken.md", "---\ntitle: [unclosed\ntags: x\n---\n# Broken note\nThe body survives.\n")
    report = load_notes(tmp_path)
    broken = next(n for n in report.notes if n.rel == "broken.md")
    assert "The body survives." in broken.body
    assert broken.title == "Broken note"
    assert len(report.warnings) == 1
    assert report.warnings[0].startswith("broken.md:") and "front matter" in report.warnings[0]
    line = int(report.warnings[0].split(":")[1])
    assert 2 <= line <= 4  # within the front matter block


def test_non_utf8_and_binary_files_are_reported_and_skipped(tmp_path: Path) -> None:
    write_note(tmp_path, "good.md", "# Good\ntext")
    (tmp_path / "latin1.md").write_bytes("# Caf\xe9\nline two\n".encode("latin-1"))
    (tmp_path / "blob.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    report = load_notes(tmp_path)
    assert [n.rel for n in report.notes] == ["good.md"]
    reasons = dict(report.skipped)
    assert "UTF-8" in reasons["latin1.md"] and "line 1" in reasons["latin1.md"]
    assert "binary" in reasons["blob.md"]
    assert any(w.startswith("latin1.md: skipped") for w in report.warnings)


def test_missing_or_empty_notes_folder_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(NotesError, match="does not exist.*HWQA_NOTES"):
        load_notes(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(NotesError, match="no notes"):
        load_notes(tmp_path / "empty")


def test_hidden_folders_and_other_files_are_not_notes(tmp_path: Path) -> None:
    write_note(tmp_path, "a.md", "# A\ntext")
    write_note(tmp_path, ".obsidian/workspace.md", "# hidden")
    write_note(tmp_path, "image.txt", "not a note")
    assert [n.rel for n in load_notes(tmp_path).notes] == ["a.md"]
