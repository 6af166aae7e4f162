"""Several conversations kept in the browser: which one is shown, a list to switch, "new chat", undo.

The store is one JSON value kept in the browser's localStorage (Gradio's BrowserState, encrypted
with a key of the server's): ``{"current": id, "chats": [{"id", "title", "messages"}, ...]}``,
newest first. Older pages kept a bare list of messages: that becomes the first conversation.
"""

from __future__ import annotations

import uuid
from typing import Any

from ..answer.chat.prompt import flatten_content

FIRST = "c-first"  # the first conversation's id: the same however often an empty store is read
MAX_CHATS = 30  # the oldest conversations beyond this are forgotten
MAX_MESSAGES = 200  # per conversation, the newest kept
MAX_NAME = 80  # a conversation's name, as given by Rename
Store = dict[str, Any]
Messages = list[dict[str, Any]]


def _new_id() -> str:
    return "c-" + uuid.uuid4().hex[:10]


def title_of(messages: Messages) -> str:
    """The conversation's first question, shortened: how it is listed."""
    for m in messages:
        if m.get("role") == "user":
            text = " ".join(flatten_content(m.get("content")).split())
            return text if len(text) <= 60 else text[:57].rstrip() + "…"
    return "New chat"


def load(saved: Any) -> Store:
    """The store as saved, checked (anything else, or nothing, is one empty conversation)."""
    if isinstance(saved, list):  # the one conversation an older page kept
        chats = [{"id": FIRST, "messages": saved}] if saved else []
    elif isinstance(saved, dict) and isinstance(saved.get("chats"), list):
        chats = [c for c in saved["chats"] if isinstance(c, dict) and isinstance(c.get("id"), str)]
    else:
        chats = []
    out = []
    for c in chats[:MAX_CHATS]:
        messages = [m for m in c.get("messages") or [] if isinstance(m, dict)][-MAX_MESSAGES:]
        name = " ".join(str(c.get("name") or "").split())[:MAX_NAME]
        chat = {"id": c["id"][:40], "title": name or title_of(messages), "messages": messages}
        out.append(chat | ({"name": name} if name else {}))
    if not out:
        out = [{"id": FIRST, "title": "New chat", "messages": []}]
    ids = {c["id"] for c in out}
    current = saved.get("current") if isinstance(saved, dict) else None
    return {"current": current if current in ids else out[0]["id"], "chats": out}


def current(store: Store) -> dict[str, Any]:
    return next(c for c in store["chats"] if c["id"] == store["current"])


def choices(store: Store) -> list[tuple[str, str]]:
    """(title, id) of every conversation, newest first, for the list to switch between them."""
    return [(c["title"], c["id"]) for c in store["chats"]]


def with_messages(store: Any, messages: Messages) -> Store:
    """The store with the current conversation's messages replaced (it moves to the top of the list)."""
    store = load(store)
    chat = current(store)
    updated = {**chat, "messages": messages[-MAX_MESSAGES:], "title": chat.get("name") or title_of(messages)}
    rest = [c for c in store["chats"] if c["id"] != chat["id"]]
    return {"current": chat["id"], "chats": [updated, *rest][:MAX_CHATS]}


def new_chat(store: Store) -> Store:
    """A new empty conversation, shown (the current one is reused if it is still empty)."""
    store = load(store)
    if not current(store)["messages"]:
        return store
    fresh = {"id": _new_id(), "title": "New chat", "messages": []}
    return {"current": fresh["id"], "chats": [fresh, *store["chats"]][:MAX_CHATS]}


def switch(store: Store, chat_id: Any) -> Store:
    store = load(store)
    if any(c["id"] == chat_id for c in store["chats"]):
        store["current"] = chat_id
    return store


def rename(saved: Any, name: Any) -> Store:
    """The current conversation named ``name`` (an empty name: titled by its first question again)."""
    store = load(saved)
    chat = current(store)
    given = " ".join(str(name or "").split())[:MAX_NAME]
    chat.pop("name", None)
    if given:
        chat["name"] = given
    chat["title"] = given or title_of(chat["messages"])
    return store


def delete(store: Any) -> tuple[Store, dict[str, Any]]:
    """The store without its current conversation (the next one is shown), and the one deleted."""
    store = load(store)
    gone = current(store)
    rest = [c for c in store["chats"] if c["id"] != gone["id"]]
    return load({"chats": rest, "current": rest[0]["id"] if rest else None}), gone
