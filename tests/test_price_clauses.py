"""A price and a hardware name in different clauses of one list item are not a row: ", plus" starts another clause
("a small VPS at $7.50/mo, plus the embedding run on a rented A10 (Lambda, $0.75/hr)" is the A10 at $0.75/hr, never
the VPS's monthly price said of the A10)."""

from __future__ import annotations

from pathlib import Path

from .conftest import prices_table, write_note

NOTE = """---
title: Shop recommendations
date: 2024-08-08
---

# Shop recommendations

* nightly retrain on a small VPS at $7.50/mo, plus the one-off embedding on a rented A10 (Lambda, $0.75/hr, ~3 h).
"""


def test_a_price_after_plus_is_not_said_of_the_thing_before_it(tmp_path: Path) -> None:
    write_note(tmp_path / "notes", "shop.md", NOTE)
    rows = [r for r in prices_table(tmp_path / "notes")["rows"] if r["hardware"] == "A10"]
    assert [round(r["usd_per_hour"], 2) for r in rows] == [0.75], rows
