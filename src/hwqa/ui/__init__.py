"""The Gradio web chat: a thin adapter over :class:`hwqa.engine.Engine`.

``render`` turns answers into safe Markdown, ``chat`` holds the chat tab's functions, ``panels``
the prices and index tabs, ``reports`` the manifest tables (shared with ``hwqa links``), and
``app`` the page and the server. Gradio is imported only when a page is built.
"""

from __future__ import annotations

from typing import Any


def make_chat(engine: Any) -> Any:
    from .chat import make_chat as _make

    return _make(engine)


def format_answer(answer: Any) -> str:
    from .chat import format_answer as _format

    return _format(answer)


def build_app(engine: Any) -> Any:
    from .app import build_app as _build

    return _build(engine)


def launch(settings: Any, *, engine: Any = None) -> None:
    from .app import launch as _launch

    _launch(settings, engine=engine)


def status_line(engine: Any) -> str:
    from .panels import index_summary

    return index_summary(engine)


__all__ = ["build_app", "format_answer", "launch", "make_chat", "status_line"]
