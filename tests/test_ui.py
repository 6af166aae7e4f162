"""The web chat's function, called directly as Gradio would call it."""

from __future__ import annotations

import itertools

from hwqa.build import build_index
from hwqa.engine import Engine
from hwqa.settings import Settings
from hwqa.ui import build_app, make_chat, status_line


def test_chat_streams_growing_text_then_the_answer_with_sources(settings: Settings) -> None:
    build_index(settings)
    chat = make_chat(Engine.load(settings))
    outputs = list(chat("How much does a TPU v3 cost per hour?", []))
    assert len(outputs) > 1
    assert all(len(a) <= len(b) for a, b in itertools.pairwise(outputs))
    final = outputs[-1]
    assert "8.00" in final and "**Sources**" in final and "[1] GPU prices" in final


def test_chat_accepts_gradio_message_history(settings: Settings) -> None:
    build_index(settings)
    chat = make_chat(Engine.load(settings))
    history = [
        {"role": "user", "content": "What is PyTorch/XLA?"},
        {"role": "assistant", "content": [{"type": "text", "text": "It runs PyTorch on TPUs."}]},
    ]
    final = list(chat("What did the Colab TPU runtime have?", history))[-1]
    assert "TPU v3" in final


def test_errors_are_shown_in_the_conversation(settings: Settings) -> None:
    build_index(settings)
    chat = make_chat(Engine.load(settings))
    assert list(chat("   ", [])) == ["⚠️ the question is empty; type a question about your hardware notes"]


def test_app_builds_with_examples_and_status(settings: Settings) -> None:
    build_index(settings)
    engine = Engine.load(settings)
    assert "3 notes" in status_line(engine)
    demo = build_app(engine)
    assert demo is not None
