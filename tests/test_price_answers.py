"""Budget questions answered with numbers: the calculator in answers, the CLI and the LLM tool."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.build.builder import build_index
from hwqa.cli import app
from hwqa.engine import Engine
from hwqa.notes.note import load_notes
from hwqa.prices import load_price_table
from hwqa.settings import Settings, load_settings
from hwqa.ui import make_chat

from .conftest import REPO, write_note
from .fake_openai import FakeOpenAI, text, tool_calls

runner = CliRunner()


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The bundled notes, indexed with the hash embedder (the numbers do not depend on the model)."""
    monkeypatch.chdir(tmp_path)
    for key, value in {
        "HWQA_NOTES": str(REPO / "notes"),
        "HWQA_INDEX": str(tmp_path / "index"),
        "HWQA_EMBED_BACKEND": "hash",
        "HWQA_FETCH_LINKS": "false",
    }.items():
        monkeypatch.setenv(key, value)
    assert runner.invoke(app, ["index"]).exit_code == 0
    return load_settings()


def test_budget_question_calls_the_calculator_with_the_bundled_table(bundled: Settings) -> None:
    result = runner.invoke(app, ["ask", "TPU or GPU for my budget of $500?", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    call = next(c for c in data["tool_calls"] if c["name"] == "price_calculator")
    assert call["arguments"]["budget_usd"] == 500
    table = load_price_table(load_notes(REPO / "notes").notes)
    options = call["result"]["options"]
    assert len(options) >= 5
    for option in options:
        row = next(
            r
            for r in table.rows
            if r.hardware == option["hardware"] and r.provider == option["provider"] and r.pricing == option["pricing"]
        )
        assert math.isclose(option["hours"], 500 / row.usd_per_hour, rel_tol=1e-4)
    assert {o["type"] for o in options} == {"gpu", "tpu"}
    recommended = call["result"]["recommendation"]["hardware"]
    assert f"**Recommendation:** {recommended}" in data["answer"]
    price_note = data["citations"][0]
    assert price_note["source"] == "cloud-prices.md" and "[1]" in data["answer"]
    assert "line " in price_note["text"] and "$8.00/h" in price_note["text"]


def test_price_lookup_answers_with_the_price_and_cites_the_price_note_first(bundled: Settings) -> None:
    data = json.loads(runner.invoke(app, ["ask", "How much does a TPU v3 cost per hour?", "--json"]).stdout)
    assert "**TPU v3-8** on GCP costs **$8.00 per hour** (on-demand, as of 2021-12-21)" in data["answer"]
    assert "Recommendation" not in data["answer"]  # one price asked, one price told
    assert data["citations"][0]["source"] == "cloud-prices.md"
    assert data["tool_calls"][0]["arguments"] == {"hardware": "TPU v3"}


def test_questions_without_numbers_make_no_tool_call(bundled: Settings) -> None:
    data = json.loads(runner.invoke(app, ["ask", "What is PyTorch/XLA?", "--json"]).stdout)
    assert data["tool_calls"] == []
    for question in ("How much RAM did the Colab TPU runtime have?", "How much memory does an A100 have?"):
        data = json.loads(runner.invoke(app, ["ask", question, "--json"]).stdout)
        assert data["tool_calls"] == [], question
    data = json.loads(runner.invoke(app, ["ask", "What's the price of an A100?", "--json"]).stdout)
    assert data["tool_calls"][0]["arguments"] == {"hardware": "A100"}


def test_another_notes_folder_with_its_own_price_note_changes_the_numbers(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write_note(
        notes,
        "my-prices.md",
        """
        ---
        title: My rig prices
        tags: [prices]
        ---
        # My rig prices

        | Hardware | Provider | Type | USD per hour | Speed |
        |---|---|---|---|---|
        | RTX 4090 | LocalCloud | gpu | $0.50 | 1.6 |
        | TPU v5e | GCP | tpu | 1.25 | 2.5 |
        """,
    )
    write_note(notes, "tpu.md", "# TPUs\n\nTPUs need XLA-compatible code. GPUs are more versatile.\n")
    settings = load_settings(
        {"notes": notes, "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False}, env={}, cwd=tmp_path
    )
    build_index(settings)
    answer = Engine.load(settings).ask("TPU or GPU for my budget of $100?")
    result = answer.tool_calls[0].result
    hours = {o["hardware"]: o["hours"] for o in result["options"]}
    assert hours == {"RTX 4090": pytest.approx(200.0), "TPU v5e": pytest.approx(80.0)}
    assert result["recommendation"]["hardware"] == "RTX 4090"  # 320 V100-h against 200
    assert answer.citations[0].source == "my-prices.md"


def test_a_follow_up_reuses_the_previous_question(bundled: Settings) -> None:
    chat = make_chat(Engine.load(bundled))
    first = list(chat("TPU or GPU for my budget of $500?", []))[-1]
    history = [{"role": "user", "content": "TPU or GPU for my budget of $500?"}, {"role": "assistant", "content": first}]
    engine = Engine.load(bundled)
    answer = engine.ask("and with $1000?", history)
    assert answer.tool_calls[0].arguments["budget_usd"] == 1000
    assert answer.tool_calls[0].arguments.get("types") == ["gpu", "tpu"]
    assert "With $1,000" in answer.text or "$1000" in answer.text or "$1,000" in answer.text
    assert engine.ask("and with $1000?").tool_calls[0].arguments == {"budget_usd": 1000.0}


def test_malformed_price_rows_are_reported_by_note_and_line(settings: Settings) -> None:
    write_note(
        settings.notes,
        "bad-prices.md",
        """
        ---
        title: Bad prices
        tags: [prices]
        ---
        | hardware | provider | type | usd_per_hour |
        |---|---|---|---|
        | A100 | GCP | gpu | 1,46 |
        | T4 | GCP | gpu | 0.35 |
        """,
    )
    report = build_index(settings)
    assert any(p.startswith("bad-prices.md:7:") and "1,46" in p for p in report.price_problems)
    answer = Engine.load(settings).ask("What does a T4 cost per hour?")
    assert "$0.35 per hour" in answer.text
    assert "Left out, malformed price rows: bad-prices.md:7:" in answer.text
    result = runner.invoke(app, ["prices", "--notes", str(settings.notes), "--json"])
    data = json.loads(result.stdout)
    assert "T4" in {r["hardware"] for r in data["table"]["rows"]}
    assert "A100" not in {r["hardware"] for r in data["table"]["rows"] if r["note"] == "bad-prices.md"}
    assert any("bad-prices.md:7:" in p for p in data["table"]["problems"])


def test_prices_command_prints_table_and_calculations(bundled: Settings) -> None:
    table = runner.invoke(app, ["prices"])
    assert table.exit_code == 0 and "TPU v3-8" in table.stdout and "cloud-prices.md:" in table.stdout
    budget = runner.invoke(app, ["prices", "--budget", "500", "--memory", "32", "--json"])
    data = json.loads(budget.stdout)
    assert data["arguments"] == {"budget_usd": 500.0, "min_memory_gb": 32.0}
    assert all(o["memory_gb"] >= 32 for o in data["result"]["options"])
    bad = runner.invoke(app, ["prices", "--budget", "-5"])
    assert bad.exit_code == 1 and "a budget must be between $0 and $1,000,000,000, not -$5" in bad.stderr


def test_an_llm_backend_gets_the_calculator_as_a_tool(bundled: Settings) -> None:
    with FakeOpenAI() as fake:
        fake.script = [
            tool_calls(("price_calculator", '{"budget_usd": "500*2"}')),
            tool_calls(("price_calculator", {"budget_usd": 500, "types": ["gpu", "tpu"]})),
            text("With $500 the TPU v4-8 gives the most V100-hours [1]."),
        ]
        settings = bundled.replace(llm_backend="openai", llm_base_url=fake.base_url, llm_model="test", llm_timeout=10.0)
        answer = Engine.load(settings).ask("TPU or GPU for my budget of $500?")
    assert answer.backend == "openai" and answer.fallback is None
    tools = fake.requests[0]["tools"]
    assert tools[0]["function"]["name"] == "price_calculator"
    assert "budget_usd" in tools[0]["function"]["parameters"]["properties"]
    # hwqa planned and ran the calculator before asking; the model got its result with the passages
    planned, first, second = answer.tool_calls
    assert planned.arguments["budget_usd"] == 500 and planned.result["recommendation"]["hardware"] == "TPU v4-8"
    assert "price calculator's result" in fake.requests[0]["messages"][-1]["content"]
    assert "error" in first.result and "500*2" in first.result["error"]  # never evaluated
    tool_message = next(m for m in fake.requests[1]["messages"] if m["role"] == "tool")
    assert "error" in json.loads(tool_message["content"])
    assert second.result["recommendation"]["hardware"] == "TPU v4-8"
    # the calculator's table heads the answer, cited to the price note; then the model's checked sentence
    assert answer.text.startswith("With $500:\n\n| # | Hardware |") and answer.citations[0].source == "cloud-prices.md"
    assert "With $500 the TPU v4-8 gives the most V100-hours" in answer.text
    assert [c.verdict for c in answer.claims] == ["supported"]


def _ask_price(question: str) -> list[dict[str, object]]:
    """The price rows (hardware, provider, $/h) the calculator used for ``hwqa ask --json``."""
    data = json.loads(runner.invoke(app, ["ask", question, "--json"]).stdout)
    options = data["tool_calls"][0]["result"]["options"]
    return [{"hardware": o["hardware"], "provider": o["provider"], "usd_per_hour": o["usd_per_hour"]} for o in options]


def _prices(*flags: str) -> dict[str, float]:
    """Hardware -> $/h of the table ``hwqa prices --json`` prints."""
    result = runner.invoke(app, ["prices", *flags, "--json"])
    assert result.exit_code == 0, result.output
    return {r["hardware"]: r["usd_per_hour"] for r in json.loads(result.stdout)["table"]["rows"]}


def test_prices_and_ask_read_the_table_of_the_live_index(hash_env: Settings) -> None:
    assert runner.invoke(app, ["index"]).exit_code == 0
    assert _prices() == {"P100": 1.46, "TPU v3": 8.0}
    assert _ask_price("How much does a P100 cost per hour?") == [{"hardware": "P100", "provider": "GCP", "usd_per_hour": 1.46}]
    # The note changes, the index does not (yet): both still read the index's table; --notes reads the folder.
    note = hash_env.notes / "prices.md"
    note.write_text(note.read_text().replace("| P100 | GCP | gpu | 1.46 |", "| P100 | GCP | gpu | 2.10 |"))
    assert _prices() == {"P100": 1.46, "TPU v3": 8.0}
    assert _ask_price("How much does a P100 cost per hour?")[0]["usd_per_hour"] == 1.46
    assert _prices("--notes", str(hash_env.notes)) == {"P100": 2.10, "TPU v3": 8.0}
    budget = json.loads(runner.invoke(app, ["prices", "--budget", "21", "--hardware", "P100", "--json"]).stdout)
    assert budget["result"]["options"][0]["hours"] == pytest.approx(21 / 1.46, rel=1e-5)
    # After a rebuild both read the new price.
    assert runner.invoke(app, ["index"]).exit_code == 0
    assert _prices() == {"P100": 2.10, "TPU v3": 8.0}
    assert _ask_price("How much does a P100 cost per hour?")[0]["usd_per_hour"] == 2.10


def test_prices_without_an_index_says_to_build_one_or_read_the_notes(hash_env: Settings) -> None:
    result = runner.invoke(app, ["prices"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "run 'hwqa index'" in lines[0] and "--notes" in lines[0]
    assert _prices("--notes", str(hash_env.notes)) == {"P100": 1.46, "TPU v3": 8.0}
    other = hash_env.notes.parent / "other-notes"
    write_note(
        other,
        "rig.md",
        """
        ---
        tags: [prices]
        ---
        | hardware | provider | type | usd_per_hour |
        |---|---|---|---|
        | RTX 4090 | LocalCloud | gpu | $0.50 |
        """,
    )
    assert _prices("--notes", str(other)) == {"RTX 4090": 0.5}


def test_a_follow_up_says_what_it_reused_and_reuses_only_the_turn_it_follows(tmp_path: Path) -> None:
    from tests.browser_support import PRICES
    from tests.conftest import built_hash_index, write_note

    write_note(tmp_path / "notes", "prices.md", PRICES)
    engine = Engine.load(built_hash_index(tmp_path))

    def asked(*turns: str) -> str:
        history: list[dict[str, str]] = []
        for turn in turns[:-1]:
            history += [{"role": "user", "content": turn}, {"role": "assistant", "content": engine.ask(turn, history).text}]
        return engine.ask(turns[-1], history).text

    reused = asked("How much does a TPU v3 cost per hour?", "and with $1000?")
    assert reused.startswith("Using TPU v3 from your earlier question.")
    budget = asked("TPU or GPU for my budget of $500?", "and with 8 GPUs?")
    assert budget.startswith("Using the budget of $500 from your earlier question.")  # not the GPUs it names itself
    # a question in between that is not about prices: nothing is carried over from two turns back
    fresh = asked("How much does a TPU v3 cost per hour?", "Which accelerator has zebra stripes?", "and with $1000?")
    assert "earlier question" not in fresh and "A100 40GB" in fresh
    assert "earlier question" not in asked("TPU or GPU for my budget of $500?")
