"""The words people read (issue 36): a unit said once, one rounding in the Prices tab and the chat,
a filter of one note in the singular."""

from __future__ import annotations

from pathlib import Path

from hwqa.answer.retrieve import Filter
from hwqa.engine import Engine, describe_filter
from hwqa.prices import CalcRequest, check_and_calculate, render_price_result
from hwqa.prices.table import PriceRow, PriceTable
from hwqa.ui import panels
from tests.conftest import built_hash_index, write_note

INSTANCES = """
# GPU instances

| instance | gpu | usd_per_hour | memory_gb |
|---|---|---|---|
| g4dn.xlarge | T4 | 0.526 | 16 |
| p3.2xlarge | V100 | 3.06 | 16 |
| tiny.small | K80 | 0.35 | 12 |
"""


def test_a_table_row_says_its_price_unit_once(tmp_path: Path) -> None:
    write_note(tmp_path / "notes", "instances.md", INSTANCES)
    engine = Engine.load(built_hash_index(tmp_path))
    text = engine.ask("Which instance has the lowest usd per hour?").text
    assert "$0.35 per hour" in text, text
    assert "per hour $" not in text, text  # not "price per hour $0.35 per hour"


def test_the_prices_tab_rounds_hours_as_the_chat_does() -> None:
    row = PriceRow(hardware="Big GPU", provider="Cloud", type="gpu", usd_per_hour=12.88, speed=1.0)
    result = check_and_calculate(PriceTable(rows=[row]), CalcRequest(budget_usd=500.0))
    chat = render_price_result(result)
    tab = panels.result_rows(result.to_json())[0]
    hours, v100_hours = tab[3], tab[4]
    assert hours == "38.8" and f"| {hours} |" in chat.replace("|", " | ").replace("  ", " "), (tab, chat)
    assert v100_hours == "38.8"


def test_a_filter_of_one_note_says_it_links_not_they_link() -> None:
    assert describe_filter(Filter.of(notes=["tpu.md"])) == "the note “tpu.md” and the articles it links to"
    assert describe_filter(Filter.of(tags=["tpu"])).endswith("and the articles they link to")
