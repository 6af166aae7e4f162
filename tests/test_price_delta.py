"""A price edit costs what it changes, and the price table after it is the one a fresh build gives:
``hwqa prices``, the calculator's answers and the problems said are those of a full rebuild."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.build.builder import build_index
from hwqa.cli import app
from hwqa.index import reader as store
from hwqa.index import writer
from hwqa.notes.note import load_notes
from hwqa.prices import linked_page_prices, load_price_table, render_price_table, stored_price_table
from hwqa.settings import Settings, load_settings

from .conftest import point_cli_at, write_note
from .helpers_http import LoopbackSite, Reply

HARDWARE = ["A100", "A100 40GB", "A100 80GB", "H100", "V100", "P100", "T4", "L4", "TPU v3", "TPU v3-8", "TPU v4"]
PROVIDERS = ["GCP", "AWS", "Azure", "Lambda"]


def settings_for(tmp_path: Path, index: str = "index") -> Settings:
    return load_settings(
        {"notes": tmp_path / "notes", "index": tmp_path / index, "embed_backend": "hash", "fetch_links": False},
        env={},
        cwd=tmp_path,
    )


def note_text(rng: random.Random, n: int) -> str:
    """A note as a person writes them: some prose prices, maybe an untagged table, sometimes a price
    note with its own table (and a malformed row), speeds in words, statements that cannot be read."""
    hw = rng.sample(HARDWARE, 3)
    lines = [f"# Hardware note {n}", ""]
    for h in hw[:2]:
        price = rng.choice([1.46, 2.48, 3.67, 4.1, rng.randint(20, 900) / 100])
        where = rng.choice([f" on {rng.choice(PROVIDERS)}", ""])  # no provider: "not stated", the same offer as any
        kind = rng.choice(["", " preemptible", " spot"])
        lines.append(f"In 2024-{rng.randint(1, 12):02d} a{kind} {h} cost ${price:.2f} per hour{where}.")
    if rng.random() < 0.3:
        lines.append(f"The {rng.choice(hw)} is about {rng.choice([2, 3])}x a {rng.choice(['A100', 'V100', 'H100'])} in my runs.")
    if rng.random() < 0.3:
        lines.append("A mystery box costs €0.69/h, and the whole cluster cost $3,000.")
    lines.append("")
    if rng.random() < 0.5:
        lines += ["| hardware | provider | usd_per_hour |", "|---|---|---|"]
        lines += [f"| {h} | {rng.choice(PROVIDERS)} | {rng.randint(50, 900) / 100:.2f} |" for h in rng.sample(HARDWARE, 2)]
    if rng.random() < 0.25:
        head = f"---\ntitle: Price list {n}\ntags: [prices]\ndate: 2025-0{rng.randint(1, 9)}-01\n---\n"
        rows = [f"| {h} | {rng.choice(PROVIDERS)} | gpu | {rng.randint(50, 900) / 100:.2f} |" for h in rng.sample(HARDWARE, 2)]
        if rng.random() < 0.3:
            rows.append("| V100 | GCP | gpu | 1,46 |")  # a malformed row: a problem the table reports
        table = "\n".join(["| hardware | provider | type | usd_per_hour |", "|---|---|---|---|", *rows])
        return head + "\n".join(lines) + "\n\n" + table + "\n"
    return "\n".join(lines) + "\n"


def stored(settings: Settings) -> dict[str, object]:
    return stored_price_table(settings.index).to_json()


def fresh_table(tmp_path: Path, name: str) -> dict[str, object]:
    fresh = settings_for(tmp_path, name)
    build_index(fresh)
    return stored(fresh)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_price_table_after_random_edits_is_the_one_a_fresh_build_gives(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    folder = tmp_path / "notes"
    names = [f"n{i:02d}.md" for i in range(24)]
    for i, name in enumerate(names):
        write_note(folder, name, note_text(rng, i))
    settings = settings_for(tmp_path)
    build_index(settings)
    for step in range(8):
        touched = []
        for _ in range(rng.randint(1, 3)):
            action = rng.random()
            if action < 0.65 or len(names) < 10:  # an edit
                name = rng.choice(names)
                write_note(folder, name, note_text(rng, 100 + step))
            elif action < 0.85:  # a new note
                name = f"new-{step}-{rng.randint(0, 999)}.md"
                names.append(name)
                write_note(folder, name, note_text(rng, 200 + step))
            else:  # a note deleted
                name = names.pop(rng.randrange(len(names)))
                (folder / name).unlink()
            touched.append(name)
        report = build_index(settings, paths=touched if step % 2 else None)  # the watcher's paths, or a walk
        assert report.full_rebuild is None
        expected = fresh_table(tmp_path, f"fresh-{step}")
        assert stored(settings) == expected, f"seed {seed}, step {step}"
        assert expected == load_price_table(load_notes(folder).notes).to_json()  # what `hwqa prices --notes` reads
        assert report.price_problems == expected["problems"]


def test_an_edited_price_shows_in_hwqa_prices_and_a_removed_notes_prices_are_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    for i in range(12):
        write_note(
            folder, f"gpu-{i:02d}.md", f"# GPU {i}\n\nAn A100 cost ${2 + i / 10:.2f} per hour on GCP in 2024-0{1 + i % 9}.\n"
        )
    write_note(folder, "tpu.md", "# TPU\n\nA TPU v3 cost $8.00 per hour on GCP in 2025-01.\n")
    settings = settings_for(tmp_path)
    build_index(settings)
    runner = CliRunner()
    point_cli_at(monkeypatch, settings)
    before = runner.invoke(app, ["prices"])
    assert before.exit_code == 0 and "8.00" in before.output

    write_note(folder, "tpu.md", "# TPU\n\nA TPU v3 cost $5.25 per hour on GCP in 2025-02.\n")
    build_index(settings, paths=["tpu.md"])
    after = runner.invoke(app, ["prices"])
    assert "5.25" in after.output and "8.00" not in after.output

    (folder / "tpu.md").unlink()
    build_index(settings, paths=["tpu.md"])
    gone = runner.invoke(app, ["prices"])
    assert "TPU v3" not in gone.output and "A100" in gone.output
    assert render_price_table(stored_price_table(settings.index)) == render_price_table(
        stored_price_table(build_and_get(tmp_path, "fresh"))
    )


def built_random_notes(tmp_path: Path, rng: random.Random, count: int) -> Settings:
    """``count`` notes with random price statements (n0.md, n1.md, ...) under ``tmp_path/notes``, indexed."""
    for i in range(count):
        write_note(tmp_path / "notes", f"n{i}.md", note_text(rng, i))
    settings = settings_for(tmp_path)
    build_index(settings)
    return settings


def build_and_get(tmp_path: Path, name: str) -> Path:
    fresh = settings_for(tmp_path, name)
    build_index(fresh)
    return fresh.index


def test_an_index_whose_segments_do_not_index_prices_by_key_still_gets_the_right_table(tmp_path: Path) -> None:
    """A generation written by an older hwqa (no key index in its segments, no merge state) is
    merged in full, once; the table is the fresh build's."""
    rng = random.Random(7)
    settings = built_random_notes(tmp_path, rng, 10)
    folder = settings.notes
    gen = store.open_current(settings.index)
    try:  # the same chunks and facts, written the way an older hwqa wrote them
        old = writer.compact(settings.index, gen, "all")
    finally:
        gen.close()
    store.switch_to(settings.index, old)
    write_note(folder, "n3.md", note_text(rng, 50))
    build_index(settings, paths=["n3.md"])
    assert stored(settings) == fresh_table(tmp_path, "fresh-a")
    write_note(folder, "n4.md", note_text(rng, 51))
    build_index(settings, paths=["n4.md"])
    assert stored(settings) == fresh_table(tmp_path, "fresh-b")


def test_a_price_table_damaged_on_disk_is_merged_again_by_the_next_price_edit(tmp_path: Path) -> None:
    """A price file whose bytes rotted but whose size and mtime did not change (a build trusts those)
    is not read as a merge state: the next build merges every note's prices and writes it again."""
    rng = random.Random(11)
    settings = built_random_notes(tmp_path, rng, 8)
    folder = settings.notes
    gen_dir = store.current_generation_dir(settings.index)
    assert gen_dir is not None
    path = gen_dir / store.PRICES
    stat = path.stat()
    path.write_bytes(b"x" * stat.st_size)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    write_note(folder, "n2.md", note_text(rng, 40))
    build_index(settings, paths=["n2.md"])
    assert stored(settings) == fresh_table(tmp_path, "fresh")


def page(body: str) -> str:
    return f"<html><head><title>Prices</title></head><body><article><h1>GPU prices</h1><p>{body}</p></article></body></html>"


def test_prices_of_linked_pages_that_change_are_merged_as_a_fresh_build_merges_them(tmp_path: Path) -> None:
    pages = {
        "/a": "An H100 costs $2.49 per hour on Lambda. A TPU v3 costs $8.00 per hour on GCP.",
        "/b": "An A100 costs $1.10 per hour.",
    }
    with LoopbackSite({p: (lambda seen: Reply(body=page(pages[seen.path]))) for p in pages}) as site:
        folder = tmp_path / "notes"
        write_note(folder, "h100.md", "# H100\n\nAn H100 cost $2.99 per hour on Lambda in 2024-05.\n")
        write_note(folder, "a100.md", "# A100\n\nAn A100 cost $1.80 per hour on GCP in 2024-06.\n")
        write_note(folder, "tpu.md", "# TPU\n\nA TPU v3-8 cost $7.50 per hour on GCP in 2023-01.\n")
        write_note(folder, "reading.md", f"# Reading\n\n* [Lambda]({site.url('/a')})\n* [Cheap]({site.url('/b')})\n")

        def at(index: str) -> Settings:
            values = {"notes": folder, "index": tmp_path / index, "embed_backend": "hash", "allow_private_hosts": True}
            return load_settings({**values, "fetch_host_delay": 0.0, "fetch_max_age": 0}, env={}, cwd=tmp_path)

        settings = at("index")
        build_index(settings)
        steps = [
            ("/a", "An H100 costs $2.19 per hour on Lambda. A TPU v3 costs $8.00 per hour on GCP.", "a100.md", None),
            ("/b", "An A100 costs $1.10 per hour. A T4 costs $0.35 per hour on GCP.", "h100.md", None),
            ("/a", "A TPU v3 costs $6.00 per hour on GCP.", "reading.md", f"# Reading\n\n* [Lambda]({site.url('/a')})\n"),
        ]
        for n, (path, body, note, text) in enumerate(steps):
            pages[path] = body
            write_note(folder, note, text or (folder / note).read_text(encoding="utf-8") + f"\nEdit {n}.\n")
            build_index(settings, paths=[note])
            fresh = at(f"fresh-{n}")
            build_index(fresh)
            assert stored(settings) == stored(fresh), f"step {n}"
            notes = load_notes(folder).notes
            found, unread = linked_page_prices(notes, settings.index)
            assert not unread and stored(settings) == load_price_table(notes, found).to_json()
            t4 = [r for r in stored_price_table(settings.index).rows if r.hardware == "T4"]
            assert [r.url for r in t4] == ([site.url("/b")] if n == 1 else [])  # a page's price, gone when unlinked
        conflicts = stored(settings)["conflicts"]  # the page's $6.00 for the TPU v3 disagrees with the note's $7.50
        assert isinstance(conflicts, list) and any("$6.00/h in " + site.url("/a") in c for c in conflicts), conflicts
