"""Questions sent quickly in the web chat, with the chat tab's functions called the way Gradio calls them.

The browser sends its chatbot value with every event, and it may be behind the server: the answer
stream's last updates are still on their way (Gradio queues each update for the page and runs the
answer on at once) when the next question is sent. Nothing the page sends may then replace an
answer the server has finished.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hwqa.answer.chat.prompt import flatten_content
from hwqa.engine import Engine
from hwqa.ui.chat import WORKING, ChatController
from tests.browser_support import write_browser_notes
from tests.conftest import built_hash_index

FIRST = "How much does a V100 cost per hour?"
SECOND = "What is PyTorch/XLA?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    root = tmp_path_factory.mktemp("chat-order")
    write_browser_notes(root / "notes")
    return Engine.load(built_hash_index(root))


class Browser:
    """The page's chatbot value: each output that writes the chatbot replaces it, skips leave it."""

    def __init__(self) -> None:
        self.chat: list[dict[str, Any]] = []

    def apply(self, output: Any) -> None:
        if isinstance(output, list):
            self.chat = output


def chatbot_of(outputs: Any) -> Any:
    """The chatbot output of an event with several outputs (enqueue: box, chatbot, …)."""
    return outputs[1]


def shown_turns(chat: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(role, text) of each message a person reads, calculator steps left out."""
    return [(m["role"], flatten_content(m["content"])) for m in chat if not (m.get("metadata") or {}).get("title")]


def check_both_answered(chat: list[dict[str, Any]]) -> None:
    turns = shown_turns(chat)
    assert [t for r, t in turns if r == "user"] == [FIRST, SECOND], turns
    assert [r for r, _ in turns] == ["user", "assistant", "user", "assistant"], turns
    assert "$2.48" in turns[1][1], turns  # the first answer, the V100's price, is kept
    assert "PyTorch/XLA" in turns[3][1] and all(WORKING not in t for _, t in turns), turns


def steps(generator: Iterator[Any], n: int) -> list[Any]:
    out = []
    for _ in range(n):
        try:
            out.append(next(generator))
        except StopIteration:
            break
    return out


def first_answer_length(engine: Engine) -> int:
    chat = ChatController(engine)
    request: Any = SimpleNamespace(session_hash="count")
    return len(list(chat.drain(chatbot_of(chat.enqueue(FIRST, [], [], [], False, request)), request)))


@pytest.mark.parametrize("server_done", [True, False], ids=["first-answer-done", "first-answer-streaming"])
def test_a_question_sent_before_the_page_has_the_whole_first_answer_keeps_that_answer(engine: Engine, server_done: bool) -> None:
    """At every point of the first answer's stream the page may have reached when the second
    question is sent: both answers are shown in the end, in order, the first one not overwritten."""
    total = first_answer_length(engine)
    assert total >= 2  # the placeholder, then the answer
    for seen in range(total + 1):
        chat = ChatController(engine)
        request: Any = SimpleNamespace(session_hash=f"browser-{seen}")
        page = Browser()
        page.apply(chatbot_of(chat.enqueue(FIRST, page.chat, [], [], False, request)))
        first = chat.drain(page.chat, request)  # the .then after the first question
        produced = steps(first, total + 1 if server_done else seen)
        assert len(produced) == (total if server_done else seen)
        for output in produced[:seen]:  # what reached the page before the second question was sent
            page.apply(output)
        page.apply(chatbot_of(chat.enqueue(SECOND, page.chat, [], [], False, request)))
        second = chat.drain(page.chat, request)  # the .then after the second question
        if server_done:
            for output in produced[seen:]:  # the first answer's last updates arrive late
                page.apply(output)
            for output in second:
                page.apply(output)
        else:
            for output in second:  # the first drain is still answering: this one does nothing
                page.apply(output)
            for output in first:  # the first drain answers the rest, the queued second question too
                page.apply(output)
        check_both_answered(page.chat)
        store, *_ = chat.save(page.chat, None, request)
        check_both_answered(store["chats"][0]["messages"])


def test_a_stale_page_value_does_not_reach_the_saved_conversation(engine: Engine) -> None:
    """save() after the second answer, with the chatbot value a page had before the first answer
    arrived: the browser keeps the whole conversation."""
    chat = ChatController(engine)
    request: Any = SimpleNamespace(session_hash="stale-save")
    early = chatbot_of(chat.enqueue(FIRST, [], [], [], False, request))
    *_, answered = chat.drain(early, request)
    later = chatbot_of(chat.enqueue(SECOND, answered, [], [], False, request))
    *_, done = chat.drain(later, request)
    check_both_answered(done)
    store, *_ = chat.save(early, None, request)
    check_both_answered(store["chats"][0]["messages"])


def test_stop_marks_the_answer_being_written_and_the_next_question_follows_it(engine: Engine, tmp_path: Path) -> None:
    chat = ChatController(engine)
    request: Any = SimpleNamespace(session_hash="stop")
    early = chatbot_of(chat.enqueue(FIRST, [], [], [], False, request))
    answering = chat.drain(early, request)
    assert next(answering)[-1]["content"] == WORKING
    chat.enqueue(SECOND, early, [], [], False, request)  # queued
    stopped, notice, box, *_ = chat.stop(early, "", request)
    assert [flatten_content(m["content"]) for m in stopped] == [FIRST, "_Stopped._"]
    assert box == SECOND and "back in the box" in notice
    assert list(answering) == []  # the stopped drain writes nothing more
    shown = chatbot_of(chat.enqueue(SECOND, stopped, [], [], False, request))
    *_, done = chat.drain(shown, request)
    assert [t for r, t in shown_turns(done) if r == "user"] == [FIRST, SECOND]
    assert shown_turns(done)[1] == ("assistant", "_Stopped._")


def test_the_page_load_and_clear_chat_set_what_the_session_shows(engine: Engine) -> None:
    """The load's restore is the session's conversation unless a question got here first; after
    Clear chat a question starts an empty chat even if the page still sends the old one."""
    chat = ChatController(engine)
    request: Any = SimpleNamespace(session_hash="load-late")
    asked = chatbot_of(chat.enqueue(FIRST, [], [], [], False, request))
    restored, busy = chat.restore([{"role": "user", "content": "an older question"}], request)  # the load came late
    assert restored == asked and busy
    *_, answered = chat.drain(asked, request)
    chat.clear(request)
    shown = chatbot_of(chat.enqueue(SECOND, answered, [], [], False, request))  # the page still shows the old chat
    assert [flatten_content(m["content"]) for m in shown] == [SECOND, WORKING]

    fresh: Any = SimpleNamespace(session_hash="load-first")
    kept = [{"role": "user", "content": FIRST}, {"role": "assistant", "content": "kept"}]
    assert chat.restore(kept, fresh) == (kept, False)
    shown = chatbot_of(chat.enqueue(SECOND, [], [], [], False, fresh))  # a page that has not applied the load yet
    assert [flatten_content(m["content"]) for m in shown] == [FIRST, "kept", SECOND, WORKING]


def test_each_sentence_of_an_answer_written_at_once_stays_its_moment_before_the_next(engine: Engine) -> None:
    """The builtin answer is written at once; the chat shows it sentence by sentence, each on the page at least
    SENTENCE_PAUSE before the next (a lower bound the server's pause guarantees, however loaded the machine)."""
    import time

    from hwqa.ui.chat import SENTENCE_PAUSE, answer_stream

    history: Any = [{"role": "user", "content": SECOND}, {"role": "assistant", "content": WORKING}]
    seen: list[tuple[float, str]] = []
    for chat in answer_stream(engine, SECOND, history):
        text = flatten_content(chat[-1]["content"]) if chat[-1]["role"] == "assistant" else ""
        if not seen or seen[-1][1] != text:
            seen.append((time.monotonic(), text))
    drafts = [i for i, (_, text) in enumerate(seen[:-1]) if text.endswith(" …")]
    assert drafts and all(seen[i][1].endswith("] …") for i in drafts), seen  # whole sentences, each cited
    gaps = [seen[i + 1][0] - seen[i][0] for i in drafts]  # how long each draft stayed before the next text
    assert min(gaps) >= SENTENCE_PAUSE * 0.99, gaps
