"""The chat tab's functions: queue a question, stream answers, stop, clear, restore.

The text box is never disabled. A question sent while an answer streams is queued for this
browser session and asked when the answer is done (in order), so nothing typed is dropped.
Each question keeps the search filter (tags / notes) chosen when it was sent.
Each session keeps its pending questions here, keyed by Gradio's session hash.

Each session also keeps its conversation here, and every output that writes the chat is made
from it, never from the chatbot value the page sends: that value can be behind. Gradio queues an
answer's streamed updates for the page and runs the answer on at once, so the answer can be done
here (the session idle) while the page still shows an earlier update; a question sent then came
with that stale value, and building the chat from it dropped the finished answer. The page's
value is read only for a session this server has not seen yet (e.g. after a restart).
"""

from __future__ import annotations

import html
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from ..answer.answer import Answer, stream_text
from ..answer.chat.prompt import flatten_content
from ..answer.retrieve import Filter
from ..engine import Engine, Message
from ..errors import HwqaError
from . import conversations
from .filters import search_filter
from .render import answer_messages, plain_sources, render_answer, safe_markdown

log = logging.getLogger("hwqa.ui")

WORKING = "_Working… searching your notes._"
BUSY = "⏳ hwqa is busy answering other questions right now; try again in a moment (your question is still in the box)."
SENTENCE_PAUSE = 0.08  # seconds at least between two sentences appearing (an answer written at once is still read as written)
MAX_DRAFTS = 12
EMPTY = "Type a question in the box first, then press Enter or Send."
SOURCES_MARK = "\n\n**Sources**\n\n"
ChatHistory = list[dict[str, Any]]


@dataclass
class ChatSession:
    lock: threading.Lock = field(default_factory=threading.Lock)
    pending: list[tuple[str, Filter | None, bool]] = field(default_factory=list)  # question, its filter, spot prices too
    running: bool = False
    epoch: int = 0
    conversation: ChatHistory | None = None  # what the chat shows; None: not known yet, the page's value is taken


class Sessions:
    """Per-browser-session state, bounded (the oldest sessions are forgotten first)."""

    def __init__(self, capacity: int = 2000) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[str, ChatSession] = OrderedDict()
        self.capacity = capacity

    def get(self, key: str) -> ChatSession:
        with self._lock:
            session = self._items.get(key)
            if session is None:
                session = self._items[key] = ChatSession()
                while len(self._items) > self.capacity:
                    self._items.popitem(last=False)
            self._items.move_to_end(key)
            return session


def engine_history(history: Sequence[Message] | None) -> list[Message]:
    """Earlier turns as plain messages for the engine: no calculator steps, sources or placeholders."""
    turns: list[Message] = []
    for m in history or []:
        if not isinstance(m, dict) or (m.get("metadata") or {}).get("title"):
            continue
        text = flatten_content(m.get("content"))
        if text == WORKING:
            continue
        turns.append({"role": m.get("role", "user"), "content": text.split(SOURCES_MARK, 1)[0]})
    return turns


def answers_so_far(history: Sequence[Message]) -> int:
    return sum(1 for m in history if m.get("role") == "assistant" and not (m.get("metadata") or {}).get("title"))


def clean_history(history: Any) -> ChatHistory:
    """A stored or sent conversation, checked: role/content messages only, no placeholders."""
    out: ChatHistory = []
    for m in history if isinstance(history, list) else []:
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
            continue
        text = flatten_content(m.get("content"))
        if text == WORKING:
            continue
        item: dict[str, Any] = {"role": m["role"], "content": text}
        meta = m.get("metadata") or {}
        if isinstance(meta, dict) and meta.get("title"):
            item["metadata"] = {"title": str(meta["title"]), "status": "done"}
        out.append(item)
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z*“\"(])|(?<=\])\s+(?=[A-Z*“\"(])|\n\n+")


def sentence_prefixes(text: str) -> list[str]:
    """Growing prefixes of ``text``, one more sentence each (a table or list stays whole), then ``text``."""
    if "|" in text:  # a calculator table is shown whole, with what comes after it
        head = text.split("\n|", 1)[0]
        return [*sentence_prefixes(head)[:-1], text] if head != text else [text]
    cuts = [m.start() for m in _SENTENCE_END.finditer(text)]
    return [text[:c] for c in cuts[:MAX_DRAFTS]] + [text]


def ask_options(flt: Filter | None = None, spot: bool = False) -> dict[str, Any]:
    """Extra options for Engine.stream: the tag / note filter, when one is chosen; spot/preemptible prices."""
    return ({"flt": flt} if flt else {}) | ({"preemptible": True} if spot else {})


def answer_stream(
    engine: Engine, question: str, history: ChatHistory, flt: Filter | None = None, spot: bool = False
) -> Iterator[ChatHistory]:
    """Stream one answer into ``history`` (which ends with the question and a placeholder)."""
    turn = answers_so_far(history[:-1]) + 1
    shown = ""  # the sentences of the answer on the page so far
    last = 0.0

    def sentences(text: str) -> Iterator[ChatHistory]:
        """The complete sentences of ``text`` not shown yet, one more each time, a moment apart."""
        nonlocal shown, last
        if not text.startswith(shown):
            return
        for prefix in sentence_prefixes(text)[:-1]:
            if len(prefix) > len(shown):
                time.sleep(max(0.0, SENTENCE_PAUSE - (time.monotonic() - last)))
                history[-1] = {"role": "assistant", "content": safe_markdown(prefix) + " …"}
                shown, last = prefix, time.monotonic()
                yield list(history)

    try:
        for item in engine.stream(question, engine_history(history[:-2]), **ask_options(flt, spot)):
            if isinstance(item, Answer):  # its sentences not shown yet appear one by one, then the whole answer
                yield from sentences(item.text)
                if shown:  # the last sentence stays its moment too
                    time.sleep(max(0.0, SENTENCE_PAUSE - (time.monotonic() - last)))
                history[-1:] = answer_messages(item, turn)
                yield list(history)
            else:  # a draft (the builtin answer's text at once, or a model's text so far)
                yield from sentences(item)
    except HwqaError as exc:
        history[-1] = {"role": "assistant", "content": f"⚠️ {safe_markdown(str(exc))}"}
        yield list(history)
    except Exception as exc:  # shown in the conversation rather than as a broken page
        log.exception("answering failed")
        history[-1] = {
            "role": "assistant",
            "content": f"⚠️ unexpected error ({safe_markdown(type(exc).__name__)}); see the server log",
        }
        yield list(history)


class ChatController:
    """The functions the chat tab's events call."""

    def __init__(self, engine: Engine, queue_full: Callable[[], bool] = lambda: False) -> None:
        self.engine = engine
        self.sessions = Sessions()
        self.queue_full = queue_full  # the server's answer queue cannot take one more question

    def _session(self, request: Any) -> ChatSession:
        return self.sessions.get(str(getattr(request, "session_hash", None) or "default"))

    def enqueue(
        self, text: str, history: Any, tags: Any, notes: Any, spot: Any, request: gr.Request
    ) -> tuple[Any, Any, Any, Any, Any]:
        """Take a question from the box: show it at once with a working placeholder, or queue it;
        Send turns into Stop while answers are written.

        ``tags`` / ``notes``: the chat tab's filters (empty: search everything), and ``spot`` (count
        spot/preemptible prices), kept with the question.
        """
        question = (text or "").strip()
        if not question:  # said, not silently ignored
            return gr.skip(), gr.skip(), EMPTY, gr.skip(), gr.skip()
        session = self._session(request)
        asked = {"role": "user", "content": safe_markdown(question)}
        with session.lock:
            conversation = clean_history(_known(session, history))
            busy = session.running or bool(session.pending)
            if not busy and self.queue_full():  # said in the chat, not as a "Queue is full" toast
                session.conversation = _newest([*conversation, asked, {"role": "assistant", "content": BUSY}])
                return text, list(session.conversation), "", gr.skip(), gr.skip()
            session.pending.append((question, search_filter(tags, notes), bool(spot)))
            waiting = len(session.pending)
            if not busy:
                session.conversation = _newest([*conversation, asked, {"role": "assistant", "content": WORKING}])
                shown = list(session.conversation)
        if busy:  # the answer being written shows it when its turn comes
            waits = "1 question waits" if waiting == 1 else f"{waiting} questions wait"
            return gr.skip(), gr.skip(), f"Queued: {waits}, asked when the current answer is done.", gr.skip(), gr.skip()
        return gr.skip(), shown, "", gr.update(visible=False), gr.update(visible=True)  # the page emptied the box

    def regenerate(self, history: Any, tags: Any, notes: Any, spot: Any, request: gr.Request) -> tuple[Any, ...]:
        """Ask the last question again: its answer is replaced by a new one."""
        return self._ask_again(history, None, None, tags, notes, spot, request)

    def edit(self, history: Any, tags: Any, notes: Any, spot: Any, data: gr.EditData, request: gr.Request) -> tuple[Any, ...]:
        """A question edited in the chat: the conversation from it on is replaced by the new question's answer."""
        index = data.index if isinstance(data.index, int) else (data.index or [None])[0]
        return self._ask_again(history, index, str(data.value or ""), tags, notes, spot, request)

    def _ask_again(
        self, history: Any, index: int | None, text: str | None, tags: Any, notes: Any, spot: Any, request: gr.Request
    ) -> tuple[Any, ...]:
        session = self._session(request)
        with session.lock:
            conversation = clean_history(_known(session, history))
            if session.running or session.pending:
                return gr.skip(), gr.skip(), "Wait for the answer being written, or press Stop (Esc) first.", gr.skip(), gr.skip()
            asked = [i for i, m in enumerate(conversation) if m["role"] == "user" and (index is None or i <= index)]
            if not asked:
                return gr.skip(), gr.skip(), "There is no question to ask again yet.", gr.skip(), gr.skip()
            at = asked[-1]
            question = (text if text is not None else _as_typed(conversation[at]["content"])).strip()
            if not question:
                return gr.skip(), list(conversation), EMPTY, gr.skip(), gr.skip()
            kept = [*conversation[:at], {"role": "user", "content": safe_markdown(question)}]
            session.pending.append((question, search_filter(tags, notes), bool(spot)))
            session.conversation = _newest([*kept, {"role": "assistant", "content": WORKING}])
            shown = list(session.conversation)
        return gr.skip(), shown, "", gr.update(visible=False), gr.update(visible=True)

    def drain(self, history: Any, request: gr.Request) -> Iterator[Any]:
        """Answer this session's queued questions in order, streaming each.

        Every update is the session's conversation with the answer so far (``history``, the page's
        value, only for a session not known yet); after Stop, Clear chat, New chat or a switch
        (a new epoch) nothing more is written.
        """
        session = self._session(request)
        with session.lock:
            if session.running or not session.pending:
                yield gr.skip()
                return
            session.running = True
            epoch = session.epoch
            _known(session, history)
        try:
            while True:
                with session.lock:
                    if session.epoch != epoch or not session.pending:
                        if session.epoch == epoch:
                            session.running = False  # under the same lock as the check: no question slips by
                        break
                    question, flt, spot = session.pending.pop(0)
                    conversation = clean_history(session.conversation)
                    shown = safe_markdown(question)
                    last = conversation[-1] if conversation else {}
                    if not (last.get("role") == "user" and last.get("content") == shown):  # not shown when it was queued
                        conversation.append({"role": "user", "content": shown})
                    conversation.append({"role": "assistant", "content": WORKING})
                    session.conversation = asking = _newest(conversation)
                    shown_now = list(asking)
                yield shown_now
                for update in answer_stream(self.engine, question, list(asking), flt, spot):
                    with session.lock:
                        if session.epoch != epoch:
                            return
                        session.conversation = _newest(update)
                        shown_now = list(session.conversation)
                    yield shown_now
        finally:
            with session.lock:
                if session.epoch == epoch:
                    session.running = False

    def save(self, history: Any, saved: Any, request: gr.Request) -> tuple[Any, ...]:
        """Keep the conversation in the browser; say how many questions still wait; Stop turns back
        into Send once nothing is being answered."""
        session = self._session(request)
        with session.lock:
            waiting = len(session.pending)
            busy = session.running or waiting > 0
            kept = clean_history(_known(session, history))
        store = conversations.with_messages(conversations.load(saved), kept)
        notice = ("Queued: 1 question waits." if waiting == 1 else f"Queued: {waiting} questions wait.") if waiting else ""
        picker = gr.update(choices=conversations.choices(store), value=store["current"])
        return store, notice, picker, gr.update(visible=not busy), gr.update(visible=busy)

    def stop(self, history: Any, box: str, request: gr.Request) -> tuple[Any, ...]:
        """Stop the answer being written; questions still queued go back into the box, not lost."""
        session = self._session(request)
        with session.lock:
            session.epoch += 1
            waiting = [question for question, _, _ in session.pending]
            session.pending.clear()
            session.running = False
            shown = _known(session, history)
            conversation = clean_history(shown)
            if conversation and conversation[-1]["role"] == "user":
                conversation.append({"role": "assistant", "content": "_Stopped._"})
            elif conversation and flatten_content(shown[-1].get("content")).endswith(" …"):
                conversation[-1] = {**conversation[-1], "content": conversation[-1]["content"] + " _(stopped)_"}
            session.conversation = conversation
        buttons = (gr.update(visible=True), gr.update(visible=False))
        if not waiting:
            return conversation, "", gr.skip(), *buttons
        text = "\n".join([*waiting, box] if (box or "").strip() else waiting)
        return conversation, "Stopped; the questions that were waiting are back in the box.", text, *buttons

    def clear(self, request: gr.Request, shown: Any = None) -> None:
        """Forget this session's answer in progress and its waiting questions; the chat now shows
        ``shown`` (Clear chat: nothing; New chat, a switch or Undo clear: that conversation)."""
        session = self._session(request)
        with session.lock:
            session.epoch += 1
            session.pending.clear()
            session.running = False
            session.conversation = _newest(clean_history(shown))

    def conversation(self, history: Any, request: gr.Request) -> ChatHistory:
        """The conversation the chat shows (an answer being written, as far as it is), to keep."""
        session = self._session(request)
        with session.lock:
            return clean_history(_known(session, history))

    def restore(self, messages: Any, request: gr.Request) -> tuple[ChatHistory, bool]:
        """The page loaded with the conversation ``messages`` kept in the browser: it becomes this
        session's, unless a question was sent before the load got here; (what the chat shows, busy)."""
        session = self._session(request)
        with session.lock:
            busy = session.running or bool(session.pending)
            return list(_known(session, messages)), busy


def _as_typed(shown: Any) -> str:
    """A question as the person typed it, from the safe Markdown the chat shows."""
    return html.unescape(flatten_content(shown).replace("\\~", "~"))


def _known(session: ChatSession, history: Any) -> ChatHistory:
    """The session's conversation; the page's value (checked) when this server has not seen the
    session yet. Called with the session's lock held."""
    if session.conversation is None:
        session.conversation = _newest(clean_history(history))
    return session.conversation


def _newest(conversation: ChatHistory) -> ChatHistory:
    """The newest messages, as many as a stored conversation keeps (sessions are held in memory)."""
    return conversation[-conversations.MAX_MESSAGES :]


def make_chat(engine: Engine) -> Any:
    """A plain streaming chat function (message, history[, tags, notes]) -> Markdown, for scripts and tests.

    ``tags`` / ``notes`` restrict the search like the chat tab's filters (empty: search everything).
    """

    def chat(message: str, history: Sequence[Message] | None, tags: Any = None, notes: Any = None) -> Iterator[str]:
        try:
            for item in engine.stream(message, engine_history(history), **ask_options(search_filter(tags, notes))):
                if isinstance(item, Answer):
                    yield format_answer(item)
                else:
                    yield from (safe_markdown(p) for p in stream_text(item)[:-1])
        except HwqaError as exc:
            yield f"⚠️ {exc}"

    return chat


def format_answer(answer: Answer) -> str:
    """The answer and its numbered sources as one safe Markdown message (the API's answer)."""
    text = safe_markdown(answer.text)
    if not answer.citations:
        return text
    return f"{text}\n\n**Sources**\n\n{plain_sources(answer.citations)}"


def full_answer(engine: Engine, message: str, history: Sequence[Message] | None = None, flt: Filter | None = None) -> str:
    """One complete answer (the rich rendering), for the API endpoint."""
    try:
        return render_answer(engine.ask(message, engine_history(history), **ask_options(flt)), 1)
    except HwqaError as exc:
        return f"⚠️ {exc}"
