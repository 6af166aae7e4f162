"""The Gradio web chat: a thin adapter over :class:`hwqa.engine.Engine`.

``chat(message, history)`` is the function Gradio calls; it streams the answer and puts the
numbered sources under it. A user-facing error is shown in the conversation, in the same words
the CLI prints.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from .answer import Answer, render_sources, stream_text
from .engine import Engine, Message
from .errors import HwqaError
from .settings import Settings

EXAMPLES = [
    "How much does a TPU v3 cost per hour?",
    "TPU or GPU for my budget of $500?",
    "What hardware does a Google Colab TPU runtime have?",
    "When is a CPU the better choice?",
]


def format_answer(answer: Answer) -> str:
    """The chat message: the answer, then its sources."""
    if not answer.citations:
        return answer.text
    return f"{answer.text}\n\n**Sources**\n\n" + render_sources(answer).replace("\n", "  \n")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # Gradio 6 may send content parts
        return " ".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    if isinstance(content, dict):
        return str(content.get("text", ""))
    return str(content or "")


def make_chat(engine: Engine) -> Any:
    """The streaming chat function for ``gr.ChatInterface``."""

    def chat(message: str, history: Sequence[Message] | None) -> Iterator[str]:
        turns = [{"role": m.get("role", "user"), "content": _text(m.get("content"))} for m in (history or [])]
        try:
            for item in engine.stream(message, turns):
                if isinstance(item, Answer):
                    yield format_answer(item)
                else:
                    yield from stream_text(item)[:-1]
        except HwqaError as exc:
            yield f"⚠️ {exc}"

    return chat


def status_line(engine: Engine) -> str:
    try:
        s = engine.status()
    except HwqaError as exc:
        return f"⚠️ {exc}"
    links = s["links"]
    fetched = links.get("fetched", 0) + links.get("not-modified", 0) + links.get("from-cache", 0)
    return (
        f"Index: {s['notes']} notes, {s['chunks']} passages, {fetched} linked articles indexed "
        f"({links.get('failed', 0) + links.get('skipped', 0)} not fetched) · built {s['built_at']}"
    )


def build_app(engine: Engine) -> Any:
    import gradio as gr

    with gr.Blocks(title="hwqa") as demo:
        gr.Markdown("# hwqa — ask your ML hardware notes")
        status = gr.Markdown(status_line(engine))
        gr.ChatInterface(
            fn=make_chat(engine),
            examples=EXAMPLES,
            run_examples_on_click=True,
            cache_examples=False,
            chatbot=gr.Chatbot(height=520, render_markdown=True, label="hwqa"),
            textbox=gr.Textbox(placeholder="Ask about GPUs, TPUs, CPUs, prices…", scale=7),
        )
        refresh = lambda: status_line(engine)  # noqa: E731
        demo.load(refresh, outputs=status, api_name="status")
        # rebuilds show up without a reload
        gr.Timer(15).tick(refresh, outputs=status, api_visibility="private", show_progress="hidden")
    return demo


def launch(settings: Settings, *, engine: Engine | None = None, **kwargs: Any) -> None:
    engine = engine or Engine.load(settings)
    if settings.watch:
        import sys

        from .watch import start_watcher

        start_watcher(
            settings,
            engine.embedder,
            on_report=lambda r: print(f"hwqa: index rebuilt ({r.chunks_embedded} chunks embedded)", file=sys.stderr),
            on_error=lambda m: print(f"hwqa: rebuild failed: {m}", file=sys.stderr),
        )
    demo = build_app(engine)
    demo.queue().launch(server_name=settings.host, server_port=settings.port, **kwargs)
