"""The Gradio page (chat, prices, index tabs) and the server that runs it, safely.

The server loads the model and the index and warms the model up *before* it listens, so a page
that loads is a page that answers. It binds 127.0.0.1 unless auth is configured
(``HWQA_AUTH=user:password``); it never makes a share link; the notes, index, cache and ``.env``
are not served by Gradio's file routes; the queue and concurrency are bounded; every asset the
page loads comes from the app itself.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from fastapi import Request
from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse, Response

from ..engine import Engine
from ..errors import HwqaError
from ..settings import Settings
from . import panels
from .assets import CSS, FONT_ROUTE, JS, font_file, theme
from .chat import ChatController, full_answer
from .filters import filter_choices, search_filter
from .noteview import CSP, note_page
from .render import NOTE_ROUTE
from .security import Guard, check_bind, check_port, port_in_use, queue_full

QUEUE_SIZE = 64  # questions waiting at most; more get "queue full" at once instead of waiting forever
CONCURRENCY = 4  # answers computed at the same time


def build_app(engine: Engine) -> Any:
    """The Blocks page: chat, prices and index tabs."""
    import gradio as gr
    from gradio import events

    from . import layout

    chat = ChatController(engine, queue_full=lambda: queue_full(demo))
    with gr.Blocks(title="hwqa", analytics_enabled=False) as demo:  # no usage reports, no version check
        with gr.Row(elem_classes=["hwqa-header"], equal_height=True):
            gr.Markdown("## hwqa — ask your ML hardware notes")
            theme = gr.Button("Light / dark", size="sm", scale=0, min_width=90, elem_id="hwqa-theme")
        gr.Markdown(loaded_line(engine), elem_id="hwqa-loaded")
        with gr.Tabs():
            with gr.Tab("Chat", id="chat"):
                chat_parts = layout.chat_tab(
                    engine, chat, CONCURRENCY, secret="hwqa-chat-" + str(engine.settings.index.resolve())
                )
            with gr.Tab("Prices", id="prices"):
                price_parts = layout.prices_tab(demo, engine)
            with gr.Tab("Index", id="index"):
                layout.index_tab(demo, engine, chat_parts, price_parts)
        theme.click(None, js="() => window.hwqaToggleTheme && window.hwqaToggleTheme()")
        demo.load(chat_parts["restore"], [chat_parts["store"]], chat_parts["swap"], queue=False, **layout.QUIET)

        def refresh_filters() -> tuple[Any, Any]:  # an index rebuilt by `hwqa build` or the watcher
            new = filter_choices(engine)
            return gr.update(choices=new.tags), gr.update(choices=new.notes)

        demo.load(refresh_filters, None, [chat_parts["f_tags"], chat_parts["f_notes"]], queue=False, **layout.QUIET)

        # --- API for scripts (gradio_client) ------------------------------------------------
        def answer(
            message: str,
            history: list[dict[str, Any]] | None = None,
            tags: list[str] | None = None,
            notes: list[str] | None = None,
        ) -> str:
            """Ask hwqa a question; returns the answer with its sources as Markdown.

            tags / notes: search only notes with one of these tags / these notes (path, file name,
            stem or title) and the articles they link to; empty searches everything.
            """
            return full_answer(engine, message, history, search_filter(tags, notes))

        events.api(answer, api_name="chat", concurrency_limit=CONCURRENCY, concurrency_id="answers")

        def status() -> str:
            """What the index holds, and whether the notes watcher had to be restarted (Markdown)."""
            return panels.index_summary(engine)

        events.api(status, api_name="status", api_visibility="undocumented")
    demo.queue(max_size=QUEUE_SIZE, default_concurrency_limit=CONCURRENCY)
    return demo


def loaded_line(engine: Engine) -> str:
    """Which notes folder and index the page answers from (under the title)."""
    from .render import safe_markdown

    settings = engine.settings
    return safe_markdown(f"Answering from the notes in {settings.notes.resolve()} · index {settings.index.resolve()}")


def _note_route(app: Any, gradio_app_ref: Callable[[], Any], engine: Engine, auth: tuple[str, str] | None) -> None:
    """``/hwqa/note/<path>?s=<section>&q=<cited text>``: an indexed note rendered as a page, the cited
    lines marked (only notes in the index; nothing else)."""

    def note(rel: str, request: Request, q: str = "", s: str = "") -> Response:
        headers = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
        if auth is not None:
            g = gradio_app_ref()
            token = request.cookies.get(f"access-token-{g.cookie_id}") or request.cookies.get(
                f"access-token-unsecure-{g.cookie_id}"
            )
            if g.tokens.get(token) is None:
                return PlainTextResponse("log in first", status_code=401, headers=headers)
        rel = unquote(rel)
        notes = engine.generation().manifest.get("notes") or {}
        missing = PlainTextResponse("not an indexed note", status_code=404, headers=headers)
        if rel not in notes:  # only names the index holds go near the file system (never a NUL, never '..')
            return missing
        root = engine.settings.notes.resolve()
        try:
            path = (root / rel).resolve()
            if not path.is_relative_to(root) or not path.is_file():
                return missing
            text = path.read_text(encoding="utf-8", errors="replace")
        except (OSError, ValueError):  # gone since the build, or a name the file system refuses
            return missing
        return HTMLResponse(note_page(text, rel, quote=q[:4000], section=s[:300]), headers=headers)

    app.add_api_route(NOTE_ROUTE + "{rel:path}", note, methods=["GET"])

    def font(name: str) -> Response:
        path = font_file(name)
        if path is None or not path.is_file():
            return PlainTextResponse("no such font", status_code=404)
        return FileResponse(path, media_type="font/woff2", headers={"Cache-Control": "public, max-age=604800"})

    app.add_api_route(FONT_ROUTE + "{name}", font, methods=["GET"])


def blocked_paths(settings: Settings) -> list[str]:
    cwd = Path.cwd()
    paths = [settings.notes, settings.index, settings.fetch_cache, cwd / ".env", cwd / "hwqa.toml"]
    return [str(p.resolve()) for p in paths]


def create_server_app(engine: Engine, settings: Settings) -> Any:
    """The ASGI app: the Gradio page at '/', plus the read-only note view."""
    import gradio as gr
    from fastapi import FastAPI
    from starlette.routing import Mount

    auth = check_bind(settings)
    demo = build_app(engine)
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    def gradio_app() -> Any:
        return next(r.app for r in app.routes if isinstance(r, Mount))

    _note_route(app, gradio_app, engine, auth)
    app.add_middleware(Guard, auth=auth)  # no uploads; logins exact and throttled
    return gr.mount_gradio_app(
        app,
        demo,
        path="/",
        auth=auth,
        blocked_paths=blocked_paths(settings),
        allowed_paths=[],
        footer_links=["api", "settings"],
        css=CSS,
        js=JS,
        theme=theme(),
        show_error=False,
        ssr_mode=False,
        pwa=False,
        mcp_server=False,
        enable_monitoring=False,
    )


def warm(engine: Engine) -> None:
    """Load what the first question needs, so it is as quick as the next; start a question reader."""
    from ..answer.budget import warm_workers

    warm_workers()  # answers run in worker threads, which read their question in a worker process
    engine.warm()


@dataclass
class RunningServer:
    url: str
    server: Any
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def start(settings: Settings, engine: Engine | None = None, *, log_level: str = "warning") -> RunningServer:
    """Load, warm up, then start serving in a background thread; returns once it accepts connections."""
    import uvicorn

    check_bind(settings)
    engine = engine or Engine.load(settings)
    warm(engine)
    app = create_server_app(engine, settings)
    # X-Forwarded-For is believed only from the proxies trusted_proxies names (uvicorn's default
    # believed it from 127.0.0.1: anyone could name another client per try and the throttle never held)
    trusted = [p.strip() for p in settings.trusted_proxies.split(",") if p.strip()]
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=log_level,
        ws="none",
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="hwqa-server", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise HwqaError(port_in_use(settings))
        time.sleep(0.05)
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return RunningServer(f"http://{host}:{settings.port}", server, thread)


def launch(settings: Settings, *, engine: Engine | None = None) -> None:
    """Run the web chat until interrupted (``hwqa serve``, ``python app.py``)."""
    check_bind(settings)
    check_port(settings)  # a busy port in one line, before the model loads
    print("hwqa: loading the model and the index …", file=sys.stderr, flush=True)
    engine = engine or Engine.load(settings)
    if settings.watch:
        from ..build.watch import WatchState, start_watcher

        state = WatchState()
        engine.notices.append(state.summary)  # the index tab says when the watcher stopped and was restarted
        start_watcher(
            settings,
            engine.embedder,
            on_report=lambda r: print(f"hwqa: index rebuilt ({r.chunks_embedded} chunks embedded)", file=sys.stderr),
            on_error=lambda m: print(f"hwqa: {m}", file=sys.stderr, flush=True),
            state=state,
        )
    running = start(settings, engine)
    print(f"hwqa: ready at {running.url}/ (Ctrl-C to stop)", file=sys.stderr, flush=True)
    try:
        while running.thread.is_alive():
            running.thread.join(0.5)
    except KeyboardInterrupt:
        running.stop()
