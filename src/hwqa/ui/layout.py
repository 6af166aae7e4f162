"""The page's three tabs, their components and events (app.py builds the page and serves it).

Every event hides Gradio's own progress overlay and status announcements: the chat shows its
"Working…" placeholder and a Stop button, a rebuild writes its progress in place, and a screen
reader hears the answer, not an untranslated status key.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

import gradio as gr

from ..engine import Engine
from . import conversations, panels, reports
from .chat import ChatController
from .filters import filter_choices, kept

QUIET: dict[str, Any] = {"api_visibility": "private", "show_progress": "hidden"}
# Runs in the page as Enter or Send is pressed, before the server hears of it: the question is the
# first one the page's script took at a key press (in order) (assets.JS empties the box then, so what is typed next
# is never wiped nor glued to it); a click on Send takes the box's text and empties it the same way.
TAKE_QUESTION = """(text, ...rest) => {
  const taken = (window.hwqaTaken || []).shift();
  if (taken) return [taken, ...rest];
  const box = document.querySelector('#hwqa-input textarea');
  if (box && (text || '').trim() && box.value === text) {
    box.value = ''; box.dispatchEvent(new Event('input', {bubbles: true}));
  }
  return [text, ...rest];
}"""
EXAMPLES = [
    "How much does a TPU v3 cost per hour?",
    "TPU or GPU for my budget of $500?",
    "What hardware does a Google Colab TPU runtime have?",
    "When is a CPU the better choice?",
]


def chat_tab(engine: Engine, chat: ChatController, concurrency: int, secret: str) -> dict[str, Any]:
    """The chat: conversations, the answer stream, the box with Send/Stop, filters, examples."""
    choices = filter_choices(engine)
    store = gr.BrowserState(None, storage_key="hwqa-chats", secret=secret)
    cleared = gr.State(None)  # the conversation Clear chat removed, until Undo or the next change
    with gr.Row(elem_classes=["hwqa-chatbar"], equal_height=True):
        picker = gr.Dropdown(
            choices=[],
            label="Conversation",
            show_label=False,
            elem_id="hwqa-conversations",
            scale=4,
            min_width=160,
            interactive=True,
        )
        new = gr.Button("New chat", size="sm", scale=0, min_width=90, elem_id="hwqa-new-chat")
        rename = gr.Button("Rename", size="sm", variant="secondary", scale=0, min_width=80, elem_id="hwqa-rename")
        delete = gr.Button("Delete chat", size="sm", variant="secondary", scale=0, min_width=90, elem_id="hwqa-delete")
        clear = gr.Button("Clear chat", size="sm", variant="secondary", scale=0, min_width=90, elem_id="hwqa-clear")
        undo = gr.Button("Undo", size="sm", variant="primary", scale=0, min_width=90, visible=False, elem_id="hwqa-undo")
    with gr.Row(visible=False, elem_id="hwqa-rename-row", equal_height=True) as rename_row:
        new_name = gr.Textbox(
            label="New name for this conversation",
            placeholder="A name for this conversation (empty: its first question)",
            show_label=False,
            scale=6,
            max_lines=1,
            elem_id="hwqa-rename-box",
        )
        save_name = gr.Button("Save name", size="sm", variant="primary", scale=0, min_width=100, elem_id="hwqa-save-name")
    chatbot = gr.Chatbot(
        height=520,
        label="Conversation with hwqa",
        show_label=False,
        elem_classes=["hwqa-chat"],
        elem_id="hwqa-chatbot",
        sanitize_html=True,
        render_markdown=True,
        allow_tags=False,
        latex_delimiters=[],
        buttons=["copy"],
        editable="user",  # a question can be edited: the conversation from it on is asked again
        feedback_options=None,
        group_consecutive_messages=False,
        placeholder="Ask about GPUs, TPUs, CPUs and prices: answers cite your notes and the articles they link to.",
    )
    notice = gr.Markdown("", elem_id="hwqa-notice")
    with gr.Row(equal_height=True):
        box = gr.Textbox(
            placeholder="Ask about GPUs, TPUs, CPUs, prices…",
            label="Your question",
            show_label=False,
            scale=8,
            elem_id="hwqa-input",
            submit_btn=False,
            autofocus=False,  # focused by the page's script without scrolling (a phone opens at the title)
        )
        send = gr.Button("Send", variant="primary", scale=1, min_width=80, elem_id="hwqa-send")
        stop = gr.Button("Stop", variant="stop", scale=1, min_width=80, visible=False, elem_id="hwqa-stop")
    with gr.Row(elem_classes=["hwqa-filters"]):
        f_tags = gr.Dropdown(
            choices.tags,
            value=[],
            multiselect=True,
            label="Only notes tagged",
            info="Empty: search everything.",
            elem_id="hwqa-filter-tags",
            scale=2,
        )
        f_notes = gr.Dropdown(
            choices.notes,
            value=[],
            multiselect=True,
            label="Only these notes",
            info="And the articles they link to.",
            elem_id="hwqa-filter-notes",
            scale=2,
        )
        spot = gr.Checkbox(
            label="Include spot/preemptible prices",
            info="Cheaper, but the machine can be taken back.",
            elem_id="hwqa-chat-preemptible",
            scale=1,
        )
    with gr.Row(elem_classes=["hwqa-examples"]):
        example_buttons = [gr.Button(q, size="sm", elem_classes=["hwqa-example"]) for q in EXAMPLES]

    drains: list[Any] = []

    def wire(trigger: Any, ask: Any = chat.enqueue, inputs: list[Any] | None = None, js: str | None = None) -> None:
        ev = trigger(
            ask,
            inputs or [box, chatbot, f_tags, f_notes, spot],
            [box, chatbot, notice, send, stop],
            queue=False,
            trigger_mode="multiple",
            js=js,
            **QUIET,
        )
        drained = ev.then(
            chat.drain,
            [chatbot],
            [chatbot],
            concurrency_limit=concurrency,
            concurrency_id="answers",
            trigger_mode="multiple",
            **QUIET,
        )
        drains.append(drained)
        drained.then(chat.save, [chatbot, store], [store, notice, picker, send, stop], queue=False, **QUIET)

    wire(box.submit, js=TAKE_QUESTION)  # the box is emptied at once, in the page: a question typed next is kept
    wire(send.click, js=TAKE_QUESTION)
    wire(chatbot.retry, chat.regenerate, [chatbot, f_tags, f_notes, spot])
    wire(chatbot.edit, chat.edit, [chatbot, f_tags, f_notes, spot])
    for button, question in zip(example_buttons, EXAMPLES, strict=True):
        ev = button.click(lambda q=question: q, None, [box], queue=False, **QUIET)
        wire(ev.then, js=TAKE_QUESTION)
    stop.click(chat.stop, [chatbot, box], [chatbot, notice, box, send, stop], cancels=drains, queue=False, **QUIET).then(
        chat.save, [chatbot, store], [store, notice, picker, send, stop], queue=False, **QUIET
    )

    def cleared_view(history: Any, saved: Any, request: gr.Request) -> tuple[Any, ...]:
        removed = chat.conversation(history, request) or None
        chat.clear(request)
        kept_store = conversations.with_messages(conversations.load(saved), [])
        return [], kept_store, "Chat cleared.", gr.update(visible=True), removed, _picker(kept_store), *_idle()

    after_clear = [chatbot, store, notice, undo, cleared, picker, send, stop]  # Clear chat and Undo write the same
    for clearing in (clear.click, chatbot.clear):  # Gradio's trash icon (not drawn) does what Clear chat does
        clearing(cleared_view, [chatbot, store], after_clear, cancels=drains, queue=False, **QUIET)

    def undo_clear(removed: Any, saved: Any, request: gr.Request) -> tuple[Any, ...]:
        messages = conversations.load({"chats": [{"id": "x", "messages": removed or []}]})["chats"][0]["messages"]
        chat.clear(request, messages)
        restored = conversations.with_messages(conversations.load(saved), messages)
        return messages, restored, "", gr.update(visible=False), None, _picker(restored), *_idle()

    undo.click(
        undo_clear,
        [cleared, store],
        after_clear,
        cancels=drains,
        queue=False,
        **QUIET,
    )

    def shown(s: conversations.Store, request: gr.Request) -> tuple[Any, ...]:
        """The store's current conversation, now this session's (whatever was being answered stops)."""
        messages = conversations.current(s)["messages"]
        chat.clear(request, messages)
        return messages, s, _picker(s), gr.update(visible=False), None, "", *_idle()

    def start_new(history: Any, saved: Any, request: gr.Request) -> tuple[Any, ...]:
        kept_chat = chat.conversation(history, request)  # an answer being written stays with the conversation it was asked in
        return shown(conversations.new_chat(conversations.with_messages(conversations.load(saved), kept_chat)), request)

    def pick(chat_id: Any, history: Any, saved: Any, request: gr.Request) -> tuple[Any, ...]:
        s = conversations.load(saved)
        if chat_id == s["current"]:
            return (gr.skip(),) * 8
        return shown(conversations.switch(conversations.with_messages(s, chat.conversation(history, request)), chat_id), request)

    def restore(saved: Any, request: gr.Request) -> tuple[Any, ...]:
        """The page loaded: the conversation kept in the browser is shown (and becomes this session's)."""
        s = conversations.load(saved)
        messages, busy = chat.restore(conversations.current(s)["messages"], request)
        buttons = (gr.update(visible=not busy), gr.update(visible=busy))
        return messages, s, _picker(s), gr.update(visible=False), None, "", *buttons

    swap = [chatbot, store, picker, undo, cleared, notice, send, stop]
    new.click(start_new, [chatbot, store], swap, cancels=drains, queue=False, **QUIET)

    def ask_name(saved: Any) -> tuple[Any, Any]:
        chat_now = conversations.current(conversations.load(saved))
        return gr.update(visible=True), gr.update(value=chat_now.get("name") or chat_now["title"])

    rename.click(ask_name, [store], [rename_row, new_name], queue=False, **QUIET).then(
        None, js="() => document.querySelector('#hwqa-rename-box textarea, #hwqa-rename-box input')?.select()"
    )

    def named(name: Any, history: Any, saved: Any, request: gr.Request) -> tuple[Any, ...]:
        s = conversations.rename(
            conversations.with_messages(conversations.load(saved), chat.conversation(history, request)), name
        )
        return s, _picker(s), gr.update(visible=False), f"Renamed: “{conversations.current(s)['title']}”."

    for naming in (save_name.click, new_name.submit):
        naming(named, [new_name, chatbot, store], [store, picker, rename_row, notice], queue=False, **QUIET)

    def deleted(history: Any, saved: Any, request: gr.Request) -> tuple[Any, ...]:
        s = conversations.with_messages(conversations.load(saved), chat.conversation(history, request))
        rest, gone = conversations.delete(s)
        shown_now = shown(rest, request)
        return (*shown_now[:5], f"Deleted “{gone['title']}”.", *shown_now[6:])

    delete.click(deleted, [chatbot, store], swap, cancels=drains, queue=False, **QUIET)
    picker.input(pick, [picker, chatbot, store], swap, cancels=drains, queue=False, **QUIET)
    return {
        "store": store,
        "chatbot": chatbot,
        "picker": picker,
        "undo": undo,
        "cleared": cleared,
        "notice": notice,
        "f_tags": f_tags,
        "f_notes": f_notes,
        "swap": swap,
        "restore": restore,
    }


def _idle() -> tuple[Any, Any]:
    """Send shown, Stop hidden: nothing is being answered (after Clear chat, New chat or a switch)."""
    return gr.update(visible=True), gr.update(visible=False)


def _picker(store: conversations.Store) -> Any:
    return gr.update(choices=conversations.choices(store), value=store["current"])


def prices_tab(demo: Any, engine: Engine) -> dict[str, Any]:
    """The price table, filtered, and the calculator: errors as one line under the fields."""
    providers, types = panels.price_choices(engine)
    gr.Markdown("The price table from your notes (as indexed). Filter it, and let the calculator compare options.")
    with gr.Row():
        f_provider = gr.Dropdown(providers, multiselect=True, label="Provider", elem_id="hwqa-provider")
        f_type = gr.Dropdown(types, multiselect=True, label="Type", elem_id="hwqa-type")
    prices = _table(
        "hwqa-prices", "Price table", value=panels.filtered_prices(engine, [], []), headers=reports.PRICE_COLUMNS, max_height=420
    )
    price_notes = gr.Markdown(panels.price_notes(engine), elem_id="hwqa-price-notes")  # conflicts, left out
    demo.load(lambda: panels.price_notes(engine), None, [price_notes], queue=False, **QUIET)  # after a rebuild
    with gr.Row(elem_classes=["hwqa-fields"]):
        budget = gr.Number(label="Budget (USD)", elem_id="hwqa-budget", min_width=120)
        hours = gr.Number(label="Hours", elem_id="hwqa-hours", min_width=120)
        memory = gr.Number(label="Memory per device (GB)", elem_id="hwqa-memory", min_width=120)
        devices = gr.Number(label="Devices", value=1, elem_id="hwqa-devices", min_width=120)  # 2.5 is refused, not rounded
        preemptible = gr.Checkbox(label="Include spot/preemptible prices", elem_id="hwqa-preemptible", min_width=120)
    calc_error = gr.Markdown("", elem_id="hwqa-calc-error", elem_classes=["hwqa-error"])
    compute = gr.Button("Calculate", variant="primary", elem_id="hwqa-calculate")
    calc_summary = gr.Markdown(elem_id="hwqa-calc-summary")
    calc_table = _table("hwqa-calc-table", "Calculator result", headers=panels.RESULT_COLUMNS["lookup"])
    chart = gr.HTML(elem_id="hwqa-chart")

    def refilter(p: list[str] | None, t: list[str] | None) -> Any:
        return panels.filtered_prices(engine, p or [], t or [])

    f_provider.change(refilter, [f_provider, f_type], [prices], **QUIET)
    f_type.change(refilter, [f_provider, f_type], [prices], **QUIET)

    def run_calc(
        providers: Any,
        hardware_types: Any,
        budget_usd: Any,
        hours: Any,
        min_memory_gb: Any,
        devices: Any,
        include_preemptible: bool,
    ) -> tuple[Any, ...]:
        """The calculator over the price table: hours for a budget, or the cost of hours, per option."""
        problem = panels.field_problem(budget_usd, hours, min_memory_gb, devices)
        if problem:  # nothing stale stays on screen next to the error
            return gr.update(value=[], headers=panels.RESULT_COLUMNS["lookup"]), "", "", problem
        rows, columns, svg, text = panels.calculate(
            engine, providers, hardware_types, budget_usd, hours, min_memory_gb, devices, include_preemptible
        )
        if text.startswith("⚠️"):
            return gr.update(value=[], headers=columns), "", "", text
        return gr.update(value=rows, headers=columns), svg, text, ""

    calc_inputs = [f_provider, f_type, budget, hours, memory, devices, preemptible]
    calc_outputs = [calc_table, chart, calc_summary, calc_error]
    compute.click(run_calc, calc_inputs, calc_outputs, api_name="calculate", show_progress="hidden")
    for field in (budget, hours, memory, devices):
        field.submit(run_calc, calc_inputs, calc_outputs, **QUIET)
    return {"prices": prices, "f_provider": f_provider, "f_type": f_type}


def index_tab(demo: Any, engine: Engine, chat_parts: dict[str, Any], price_parts: dict[str, Any]) -> None:
    """What the index holds: link health first, failures by reason, the links, notes left out; rebuild."""
    health = gr.Markdown(panels.link_health(engine), elem_id="hwqa-link-health")
    summary = gr.Markdown(panels.index_summary(engine), elem_id="hwqa-index-summary")
    with gr.Row():
        rebuild = gr.Button("Rebuild index", variant="primary", elem_id="hwqa-rebuild", scale=0, min_width=160)
        problems_only = gr.Checkbox(label="Only links that were not fetched", elem_id="hwqa-problems-only")
    rebuild_result = gr.Markdown(elem_id="hwqa-rebuild-result")
    gr.Markdown("### Links not fetched, by reason")
    by_reason = _table(
        "hwqa-reasons",
        "Links not fetched, by reason",
        value=panels.reason_rows(engine),
        headers=["Reason", "Links"],
        column_widths=["270px", "60px"],
    )
    gr.Markdown("### Linked articles")
    link_table = _table(
        "hwqa-links",
        "Linked articles",
        value=panels.link_rows(engine),
        headers=panels.LINK_COLUMNS,
        column_widths=["280px", "90px", "280px", "170px", "90px"],
        max_height=480,
    )
    gr.Markdown("### Notes left out or with problems")
    left_out = panels.skipped_rows(engine)
    none_left_out = gr.Markdown(NONE_LEFT_OUT, visible=not left_out, elem_id="hwqa-none-skipped")
    skipped = _table(
        "hwqa-skipped",
        "Notes left out or with problems",
        value=left_out,
        headers=["Note", "Reason"],
        column_widths=["200px", "420px"],
        visible=bool(left_out),
    )
    f_tags, f_notes = chat_parts["f_tags"], chat_parts["f_notes"]
    f_provider, f_type = price_parts["f_provider"], price_parts["f_type"]

    def do_rebuild(only_links_not_fetched: bool, kept_tag_filter: Any, kept_note_filter: Any) -> Iterator[tuple[Any, ...]]:
        """Rebuild the index from the notes folder, reporting progress; then every table of the page."""
        only, tags, notes = only_links_not_fetched, kept_tag_filter, kept_note_filter
        steps: queue.Queue[str | None] = queue.Queue()
        done: dict[str, str] = {}

        def work() -> None:
            try:
                done["message"] = panels.rebuild(engine, lambda label, n, total: steps.put(_step(label, n, total)))
            finally:
                steps.put(None)

        threading.Thread(target=work, name="hwqa-rebuild", daemon=True).start()
        skip = (gr.skip(),) * 11
        yield ("Rebuilding: reading notes…", *skip)
        last = 0.0
        while (step := steps.get()) is not None:
            if time.monotonic() - last > 0.2:
                last = time.monotonic()
                yield (f"Rebuilding: {step}", *skip)
        new_providers, new_types = panels.price_choices(engine)
        new = filter_choices(engine)
        yield (
            done.get("message", "⚠️ Rebuild failed; see the server log."),
            panels.link_health(engine),
            panels.index_summary(engine),
            panels.reason_rows(engine),
            panels.link_rows(engine, only),
            *_left_out(engine),
            panels.filtered_prices(engine, [], []),
            gr.update(choices=new_providers, value=[]),
            gr.update(choices=new_types, value=[]),
            gr.update(choices=new.tags, value=kept(tags, new.tags)),
            gr.update(choices=new.notes, value=kept(notes, new.notes)),
        )

    outputs = [rebuild_result, health, summary, by_reason, link_table, skipped, none_left_out, price_parts["prices"]]
    rebuild.click(
        do_rebuild,
        [problems_only, f_tags, f_notes],
        [*outputs, f_provider, f_type, f_tags, f_notes],
        concurrency_limit=1,
        api_name="rebuild",
        show_progress="hidden",
    )
    problems_only.change(lambda only: panels.link_rows(engine, only), [problems_only], [link_table], **QUIET)

    def refresh_index(only: bool) -> tuple[Any, ...]:
        return (
            panels.link_health(engine),
            panels.index_summary(engine),
            panels.reason_rows(engine),
            panels.link_rows(engine, only),
            *_left_out(engine),
        )

    refreshed = [health, summary, by_reason, link_table, skipped, none_left_out]
    demo.load(refresh_index, [problems_only], refreshed, queue=False, **QUIET)


NONE_LEFT_OUT = "None: every note in the folder was read."


def _left_out(engine: Engine) -> tuple[Any, Any]:
    """The table of notes left out, shown only when there is one; otherwise a line saying none was."""
    rows = panels.skipped_rows(engine)
    return gr.update(value=rows, visible=bool(rows)), gr.update(visible=not rows)


def _table(elem_id: str, label: str, **options: Any) -> Any:
    """A read-only table that wraps its cells (``label`` is for screen readers; the heading above shows it)."""
    return gr.Dataframe(
        interactive=False,
        wrap=True,
        label=label,
        show_label=False,
        elem_id=elem_id,
        elem_classes=["hwqa-table", "hwqa-wrap"],
        **options,
    )


def _step(label: str, done: int, total: int) -> str:
    return f"{label.lower()} ({done} of {total})" if total else f"{label.lower()}…"
