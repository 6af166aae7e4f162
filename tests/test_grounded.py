"""A chat model's answers through the engine: calculator first, claims checked, the notes' words as fallback.

The scripted server (tests/fake_openai.py) plays the model, so each case is exact; the same
behaviours against a real model and server are in tests/test_llm_real.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from typer.testing import CliRunner

from hwqa.answer.answer import Answer
from hwqa.answer.chat.claims import MARK
from hwqa.build.builder import build_index
from hwqa.cli import app
from hwqa.engine import Engine
from hwqa.settings import Settings
from hwqa.ui.chat import make_chat
from hwqa.ui.render import render_answer

from .fake_openai import FakeOpenAI, Reply, error, text

runner = CliRunner()
COLAB = "What did the Colab TPU runtime have?"
BUDGET = "TPU or GPU for my budget of $100?"


def passage_number(body: dict[str, Any], words: str) -> int:
    """The number the model was given for the passage holding ``words``."""
    user = body["messages"][-1]["content"]
    for m in re.finditer(r"<<<PASSAGE \w+ \[(\d+)\]>>>\n(.*?)<<<END", user, re.S):
        if words in m.group(2):
            return int(m.group(1))
    raise AssertionError(f"no passage holds {words!r}")


def citing(template: str, words: str) -> Callable[[dict[str, Any]], Reply]:
    """A reply whose ``{n}`` is the number of the passage holding ``words``."""
    return lambda body: text(template.format(n=passage_number(body, words)), pieces=12)


@pytest.fixture
def model(settings: Settings) -> Any:
    build_index(settings)
    with FakeOpenAI() as fake:
        yield fake, settings.replace(llm_backend="openai", llm_base_url=fake.base_url, llm_model="m", llm_timeout=5.0)


def ask(settings: Settings, question: str) -> tuple[list[str], Answer]:
    items = list(Engine.load(settings).stream(question))
    assert isinstance(items[-1], Answer)
    return [i for i in items[:-1] if isinstance(i, str)], items[-1]


def use_the_fake_model(monkeypatch: pytest.MonkeyPatch, settings: Settings, base_url: str) -> None:
    """The environment the CLI and the chat read: these notes and index, answered by the fake model at ``base_url``."""
    for key, value in {
        "HWQA_NOTES": settings.notes,
        "HWQA_INDEX": settings.index,
        "HWQA_EMBED_BACKEND": "hash",
        "HWQA_LLM_BACKEND": "openai",
        "HWQA_LLM_BASE_URL": base_url,
        "HWQA_LLM_MODEL": "m",
    }.items():
        monkeypatch.setenv(key, str(value))


def test_supported_sentences_are_shown_cited_and_unsupported_ones_marked(model: Any) -> None:
    fake, settings = model
    reply = "The Colab TPU runtime had a TPU v3 with 8 cores [{n}]. It also had 64 GB of GPU memory [{n}]."
    fake.script = [citing(reply, "Colab")]
    streamed, answer = ask(settings, COLAB)

    assert answer.backend == "openai" and answer.fallback is None and answer.covered
    assert answer.text == f"The Colab TPU runtime had a TPU v3 with 8 cores [1]. {MARK}It also had 64 GB of GPU memory."
    assert [c.title for c in answer.citations] == ["TPU notes"]
    supported, invented = answer.claims
    assert supported.verdict == "supported" and supported.citations == [1] and supported.evidence[0]["n"] == 1
    assert invented.verdict == "unsupported" and invented.citations == [] and "64 GB" in invented.missing
    # while streaming, nothing is shown before a sentence is checked, and every shown text is checked
    assert streamed[0] == "The Colab TPU runtime had a TPU v3 with 8 cores [1]."
    assert all(answer.text.startswith(s) for s in streamed)
    # the web chat shows the mark in bold
    assert "**⚠ Not in the cited notes:** It also had 64 GB of GPU memory." in render_answer(answer, 1)


def test_json_lists_each_sentence_with_its_verdict_and_evidence(model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake, settings = model
    fake.script = [citing("The Colab runtime had 8 cores [{n}]. It ran on Mars [9].", "Colab")]
    use_the_fake_model(monkeypatch, settings, fake.base_url)
    data = json.loads(runner.invoke(app, ["ask", COLAB, "--json"]).stdout)
    assert {"answer", "citations", "tool_calls", "backend", "covered", "timings"} <= set(data), "the old keys stay"
    assert data["fallback"] is None
    assert [(c["sentence"], c["verdict"], c["citations"]) for c in data["claims"]] == [
        ("The Colab runtime had 8 cores [1].", "supported", [1]),
        ("It ran on Mars.", "unsupported", []),
    ]
    assert data["claims"][0]["evidence"] == [{"n": 1, "found": ["8 cores", "Colab"]}]
    assert "[9] names no passage" in data["claims"][1]["reason"]
    assert "[9]" not in data["answer"], "an invented citation never reaches the user"


def test_an_answer_with_no_supported_claim_is_replaced_by_the_notes_words(model: Any) -> None:
    fake, settings = model
    fake.script = [text("Colab gives you a TPU v3 for $15 per hour since 2024. See Fireworks Cloud.", pieces=10)]
    streamed, answer = ask(settings, COLAB)

    assert answer.fallback == "none of its sentences was found in the passages it cites"
    line, notes = answer.text.split("\n\n", 1)
    assert line == (
        "_The chat model's answer is not shown (none of its sentences was found in the passages it cites); "
        "here is what your notes say._"
    )
    assert "8 cores" in notes and "[1]" in notes and answer.citations[0].title == "TPU notes"
    assert answer.backend == "builtin" and answer.covered
    assert [c.verdict for c in answer.claims] == ["unsupported", "unsupported"] and not any(c.shown for c in answer.claims)
    assert streamed == [answer.text], "none of the model's text was shown"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (error(500, {"error": {"message": "CUDA out of memory"}}), "answered 500: CUDA out of memory"),
        (text("late", delay=3.0), "no answer within 0.5 s"),
        (Reply(content="The Colab TPU runtime had a TPU v3 with 8 cores [1]. More.", pieces=30, cut=True), "answering halfway"),
    ],
    ids=["server error", "timeout", "stream broken off"],
)
def test_a_failing_model_gives_the_notes_words_with_one_line_why(model: Any, reply: Reply, reason: str) -> None:
    fake, settings = model
    fake.script = [reply, reply]  # the client tries twice
    _, answer = ask(settings.replace(llm_timeout=0.5), COLAB)
    line, notes = answer.text.split("\n\n", 1)
    assert line.startswith("_The chat model's answer is not shown (the chat model failed: ") and reason in line
    assert "8 cores" in notes and answer.citations and answer.fallback and reason in answer.fallback


def test_a_broken_stream_in_the_cli_and_the_chat(model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake, settings = model
    cut = Reply(content="The Colab TPU runtime had a TPU v3 with 8 cores [1]. It also had", pieces=30, cut=True)
    fake.script = [cut, cut]
    use_the_fake_model(monkeypatch, settings, fake.base_url)
    result = runner.invoke(app, ["ask", COLAB])
    assert result.exit_code == 0, result.output
    first, *rest = result.stdout.splitlines()
    assert "stopped answering halfway" in first and "here is what your notes say" in first
    assert "8 cores" in "\n".join(rest) and "Sources" in result.stdout

    shown = list(make_chat(Engine.load(settings))(COLAB, []))
    assert "stopped answering halfway" in shown[-1] and "8 cores" in shown[-1]


def test_a_price_question_shows_the_calculator_whatever_the_model_says(model: Any) -> None:
    fake, settings = model
    fake.script = [
        text("A TPU costs $15 per watt; buy 2 GPU units at Google Colab."),
        citing("A TPU v3 costs $8.00 per hour on Google Cloud [{n}].", "$8.00"),
    ]
    _, invented = ask(settings, BUDGET)
    _, supported = ask(settings, BUDGET)
    for answer in (invented, supported):
        call = answer.tool_calls[0]
        assert call.name == "price_calculator" and call.arguments["budget_usd"] == 100
        assert "P100" in answer.text and "68.5" in answer.text, "the calculator's hours for $100 on a P100"
    assert invented.fallback and supported.fallback is None
    assert supported.text.startswith("With $100:") and supported.citations[0].source == "prices.md"
    assert "A TPU v3 costs $8.00 per hour on Google Cloud [" in supported.text
    sent = fake.requests[0]["messages"][-1]["content"]
    assert "price calculator's result" in sent and "68.5" in sent, "the model was given the calculation"
