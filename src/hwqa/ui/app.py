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
from fastapi.responses import PlainTextResponse

from ..engine import Engine
from ..errors import HwqaError
from ..settings import Settings
from . import panels, reports
from .chat import ChatController, full_answer, restore
from .filters import filter_choices, kept, search_filter
from .render import NOTE_ROUTE
from .security import Guard, check_bind, queue_full

QUEUE_SIZE = 64  # questions waiting at most; more get "queue full" at once instead of waiting forever
CONCURRENCY = 4  # answers computed at the same time
EXAMPLES = [
    "How much does a TPU v3 cost per hour?",
    "TPU or GPU for my budget of $500?",
    "What hardware does a Google Colab TPU runtime have?",
    "When is a CPU the better choice?",
]

CSS = """
.hwqa-chat .message-content table, .hwqa-chat .prose table { display: block; overflow-x: auto; max-width: 100%; }
.hwqa-chat .message-content th, .hwqa-chat .message-content td {
  word-break: normal !important; overflow-wrap: normal !important; hyphens: none; white-space: nowrap; }
.hwqa-chat .message-content { overflow-wrap: anywhere; }
.hwqa-chat details.hwqa-src { margin: 0.3em 0; border-left: 3px solid var(--color-accent, #f97316); padding-left: 0.5em; }
.hwqa-chat details.hwqa-src > summary { cursor: pointer; font-weight: 600; }
.hwqa-chat .hwqa-passage { max-height: 22em; overflow: auto; font-size: 0.92em; opacity: 0.9; }
.hwqa-table table td, .hwqa-table table th { word-break: normal !important; overflow-wrap: normal !important; }
.hwqa-chart { max-width: 900px; }
#hwqa-notice:empty { display: none; }
.hwqa-filters { gap: 0.5em; }
@media (max-width: 480px) { .hwqa-chat .message-content table { font-size: 0.85em; } }
"""

# Clicking a [n] marker opens its source; the theme button switches light/dark without a reload.
JS = """
() => {
  const openSource = (hash) => {
    if (!hash || !hash.startsWith('#hwqa-src-')) return;
    const el = document.getElementById(hash.slice(1));
    if (el && el.tagName === 'DETAILS') { el.open = true; el.scrollIntoView({block: 'nearest'}); }
  };
  document.addEventListener('click', (ev) => {
    const a = ev.target.closest && ev.target.closest('a[href^="#hwqa-src-"]');
    if (a) { ev.preventDefault(); openSource(a.getAttribute('href')); }
  }, true);
  window.hwqaToggleTheme = () => {
    const dark = !document.body.classList.contains('dark');
    document.body.classList.toggle('dark', dark);
    document.querySelector('gradio-app')?.classList.toggle('dark', dark);
    try { localStorage.setItem('hwqa-theme', dark ? 'dark' : 'light'); } catch (e) {}
  };
  try { if (localStorage.getItem('hwqa-theme') === 'dark') { document.body.classList.add('dark'); } } catch (e) {}
}
"""


def build_app(engine: Engine) -> Any:
    """The Blocks page: chat, prices and index tabs."""
    import gradio as gr
    from gradio import events

    chat = ChatController(engine, queue_full=lambda: queue_full(demo))
    providers, types = panels.price_choices(engine)
    choices = filter_choices(engine)
    with gr.Blocks(title="hwqa") as demo:
        with gr.Row():
            gr.Markdown("## hwqa — ask your ML hardware notes")
            theme = gr.Button("Light / dark", size="sm", scale=0, min_width=90, elem_id="hwqa-theme")
        saved = gr.BrowserState([], storage_key="hwqa-chat", secret="hwqa-chat-" + str(engine.settings.index.resolve()))
        with gr.Tabs():
            with gr.Tab("Chat", id="chat"):
                chatbot = gr.Chatbot(
                    height=560,
                    label="hwqa",
                    elem_classes=["hwqa-chat"],
                    elem_id="hwqa-chatbot",
                    sanitize_html=True,
                    render_markdown=True,
                    allow_tags=False,
                    latex_delimiters=[],
                    buttons=["copy", "copy_all"],
                    feedback_options=None,
                    group_consecutive_messages=False,
                    placeholder="Ask about GPUs, TPUs, CPUs and prices: answers cite your notes and the articles they link to.",
                )
                notice = gr.Markdown("", elem_id="hwqa-notice")
                with gr.Row():
                    box = gr.Textbox(
                        placeholder="Ask about GPUs, TPUs, CPUs, prices…",
                        show_label=False,
                        scale=8,
                        elem_id="hwqa-input",
                        submit_btn=False,
                        autofocus=True,
                    )
                    send = gr.Button("Send", variant="primary", scale=1, min_width=80, elem_id="hwqa-send")
                    stop = gr.Button("Stop", variant="stop", scale=1, min_width=80, elem_id="hwqa-stop")
                with gr.Row(elem_classes=["hwqa-filters"]):
                    f_tags = gr.Dropdown(
                        choices.tags,
                        value=[],
                        multiselect=True,
                        label="Only notes tagged",
                        info="Empty: search everything.",
                        elem_id="hwqa-filter-tags",
                        scale=1,
                    )
                    f_notes = gr.Dropdown(
                        choices.notes,
                        value=[],
                        multiselect=True,
                        label="Only these notes",
                        info="And the articles they link to.",
                        elem_id="hwqa-filter-notes",
                        scale=1,
                    )
                with gr.Row():
                    example_buttons = [gr.Button(q, size="sm", elem_classes=["hwqa-example"]) for q in EXAMPLES]
                    clear = gr.Button("Clear chat", size="sm", elem_id="hwqa-clear")
            with gr.Tab("Prices", id="prices"):
                gr.Markdown("The price table from your notes (as indexed). Filter it, and let the calculator compare options.")
                with gr.Row():
                    f_provider = gr.Dropdown(providers, multiselect=True, label="Provider", elem_id="hwqa-provider")
                    f_type = gr.Dropdown(types, multiselect=True, label="Type", elem_id="hwqa-type")
                prices = gr.Dataframe(
                    value=panels.filtered_prices(engine, [], []),
                    headers=reports.PRICE_COLUMNS,
                    interactive=False,
                    wrap=False,
                    elem_id="hwqa-prices",
                    elem_classes=["hwqa-table"],
                )
                gr.Markdown(lambda: panels.price_notes(engine), elem_id="hwqa-price-notes")  # conflicts, left out
                with gr.Row():
                    budget = gr.Number(label="Budget (USD)", minimum=0, elem_id="hwqa-budget")
                    hours = gr.Number(label="Hours", minimum=0, elem_id="hwqa-hours")
                    memory = gr.Number(label="Memory per device (GB)", minimum=0, elem_id="hwqa-memory")
                    devices = gr.Number(label="Devices", value=1, minimum=1, precision=0, elem_id="hwqa-devices")
                    preemptible = gr.Checkbox(label="Allow preemptible / spot", elem_id="hwqa-preemptible")
                compute = gr.Button("Calculate", variant="primary", elem_id="hwqa-calculate")
                calc_summary = gr.Markdown(elem_id="hwqa-calc-summary")
                calc_table = gr.Dataframe(
                    headers=panels.RESULT_COLUMNS["lookup"],
                    interactive=False,
                    wrap=False,
                    elem_id="hwqa-calc-table",
                    elem_classes=["hwqa-table"],
                )
                chart = gr.HTML(elem_id="hwqa-chart")
            with gr.Tab("Index", id="index"):
                summary = gr.Markdown(panels.index_summary(engine), elem_id="hwqa-index-summary")
                with gr.Row():
                    rebuild = gr.Button("Rebuild index", variant="primary", elem_id="hwqa-rebuild")
                    problems_only = gr.Checkbox(label="Only links that were not fetched", elem_id="hwqa-problems-only")
                rebuild_result = gr.Markdown(elem_id="hwqa-rebuild-result")
                gr.Markdown("### Linked articles")
                link_table = gr.Dataframe(
                    value=panels.link_rows(engine),
                    headers=panels.LINK_COLUMNS,
                    interactive=False,
                    wrap=False,
                    elem_id="hwqa-links",
                    elem_classes=["hwqa-table"],
                )
                gr.Markdown("### Notes left out or with problems")
                skipped = gr.Dataframe(
                    value=panels.skipped_rows(engine),
                    headers=["Note", "Reason"],
                    interactive=False,
                    wrap=False,
                    elem_id="hwqa-skipped",
                    elem_classes=["hwqa-table"],
                )

        # --- chat events ------------------------------------------------------------------
        def wire(trigger: Any) -> None:
            ev = trigger(
                chat.enqueue,
                [box, chatbot, f_tags, f_notes],
                [box, chatbot, notice],
                queue=False,
                trigger_mode="multiple",
                api_visibility="private",
                show_progress="hidden",
            )
            drained = ev.then(
                chat.drain,
                [chatbot],
                [chatbot],
                concurrency_limit=CONCURRENCY,
                concurrency_id="answers",
                api_visibility="private",
                show_progress="minimal",
                trigger_mode="multiple",
            )
            drains.append(drained)
            drained.then(chat.save, [chatbot], [saved, notice], queue=False, api_visibility="private", show_progress="hidden")

        drains: list[Any] = []
        wire(box.submit)
        wire(send.click)
        for button, question in zip(example_buttons, EXAMPLES, strict=True):
            ev = button.click(lambda q=question: q, None, [box], queue=False, api_visibility="private")
            wire(ev.then)
        stop.click(chat.stop, [chatbot, box], [chatbot, notice, box], cancels=drains, queue=False, api_visibility="private").then(
            restore, [chatbot], [saved], queue=False, api_visibility="private"
        )
        clear.click(chat.clear, None, [chatbot, saved, notice], cancels=drains, queue=False, api_visibility="private")
        theme.click(None, js="() => window.hwqaToggleTheme && window.hwqaToggleTheme()")
        demo.load(restore, [saved], [chatbot], queue=False, api_visibility="private")

        # --- prices -----------------------------------------------------------------------
        def refilter(p: list[str] | None, t: list[str] | None) -> Any:
            return panels.filtered_prices(engine, p or [], t or [])

        f_provider.change(refilter, [f_provider, f_type], [prices], api_visibility="private")
        f_type.change(refilter, [f_provider, f_type], [prices], api_visibility="private")

        def run_calc(p: Any, t: Any, b: Any, h: Any, m: Any, d: Any, pre: bool) -> tuple[Any, Any, str]:
            rows, columns, svg, text = panels.calculate(engine, p, t, b, h, m, d, pre)
            return gr.update(value=rows, headers=columns), svg, text

        calc_inputs = [f_provider, f_type, budget, hours, memory, devices, preemptible]
        compute.click(run_calc, calc_inputs, [calc_table, chart, calc_summary], api_name="calculate")
        budget.submit(run_calc, calc_inputs, [calc_table, chart, calc_summary], api_visibility="private")

        # --- index --------------------------------------------------------------------------
        def do_rebuild(only: bool, tags: Any, notes: Any, progress: Any = gr.Progress()) -> tuple[Any, ...]:  # noqa: B008
            def step(label: str, done: int, total: int) -> None:
                progress((done, total or None), desc=label)

            message = panels.rebuild(engine, step)
            new_providers, new_types = panels.price_choices(engine)
            new = filter_choices(engine)
            return (
                message,
                panels.index_summary(engine),
                panels.link_rows(engine, only),
                panels.skipped_rows(engine),
                panels.filtered_prices(engine, [], []),
                gr.update(choices=new_providers, value=[]),
                gr.update(choices=new_types, value=[]),
                gr.update(choices=new.tags, value=kept(tags, new.tags)),
                gr.update(choices=new.notes, value=kept(notes, new.notes)),
            )

        rebuild.click(
            do_rebuild,
            [problems_only, f_tags, f_notes],
            [rebuild_result, summary, link_table, skipped, prices, f_provider, f_type, f_tags, f_notes],
            concurrency_limit=1,
            api_name="rebuild",
        )
        problems_only.change(lambda only: panels.link_rows(engine, only), [problems_only], [link_table], api_visibility="private")

        def refresh_index(only: bool) -> tuple[str, Any, Any]:
            return panels.index_summary(engine), panels.link_rows(engine, only), panels.skipped_rows(engine)

        demo.load(refresh_index, [problems_only], [summary, link_table, skipped], queue=False, api_visibility="private")

        def refresh_filters() -> tuple[Any, Any]:  # an index rebuilt by `hwqa build` or the watcher
            new = filter_choices(engine)
            return gr.update(choices=new.tags), gr.update(choices=new.notes)

        demo.load(refresh_filters, None, [f_tags, f_notes], queue=False, api_visibility="private")

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
        events.api(lambda: panels.index_summary(engine), api_name="status", api_visibility="undocumented")
    demo.queue(max_size=QUEUE_SIZE, default_concurrency_limit=CONCURRENCY)
    return demo


def _note_route(app: Any, gradio_app_ref: Callable[[], Any], engine: Engine, auth: tuple[str, str] | None) -> None:
    """``/hwqa/note/<path>``: an indexed note as plain text (only notes in the index; nothing else)."""

    def note(rel: str, request: Request) -> PlainTextResponse:
        headers = {"Content-Security-Policy": "default-src 'none'", "X-Content-Type-Options": "nosniff"}
        if auth is not None:
            g = gradio_app_ref()
            token = request.cookies.get(f"access-token-{g.cookie_id}") or request.cookies.get(
                f"access-token-unsecure-{g.cookie_id}"
            )
            if g.tokens.get(token) is None:
                return PlainTextResponse("log in first", status_code=401, headers=headers)
        rel = unquote(rel)
        notes = engine.generation().manifest.get("notes") or {}
        root = engine.settings.notes.resolve()
        path = (root / rel).resolve()
        if rel not in notes or not path.is_relative_to(root) or not path.is_file():
            return PlainTextResponse("not an indexed note", status_code=404, headers=headers)
        return PlainTextResponse(path.read_text(encoding="utf-8", errors="replace"), headers=headers)

    app.add_api_route(NOTE_ROUTE + "{rel:path}", note, methods=["GET"])


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
        show_error=False,
        ssr_mode=False,
        pwa=False,
        mcp_server=False,
        enable_monitoring=False,
    )


def warm(engine: Engine) -> None:
    """Load the index and run the model once, so the first question is as quick as the next."""
    engine.generation()
    engine.embedder.embed(["warm up"])


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
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level=log_level, ws="none")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="hwqa-server", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise HwqaError(f"could not serve on {settings.host}:{settings.port}; is the port in use? try --port")
        time.sleep(0.05)
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return RunningServer(f"http://{host}:{settings.port}", server, thread)


def launch(settings: Settings, *, engine: Engine | None = None) -> None:
    """Run the web chat until interrupted (``hwqa serve``, ``python app.py``)."""
    check_bind(settings)
    print("hwqa: loading the model and the index …", file=sys.stderr, flush=True)
    engine = engine or Engine.load(settings)
    if settings.watch:
        from ..watch import start_watcher

        start_watcher(
            settings,
            engine.embedder,
            on_report=lambda r: print(f"hwqa: index rebuilt ({r.chunks_embedded} chunks embedded)", file=sys.stderr),
            on_error=lambda m: print(f"hwqa: rebuild failed: {m}", file=sys.stderr),
        )
    running = start(settings, engine)
    print(f"hwqa: ready at {running.url}/ (Ctrl-C to stop)", file=sys.stderr, flush=True)
    try:
        while running.thread.is_alive():
            running.thread.join(0.5)
    except KeyboardInterrupt:
        running.stop()
