"""Answers from a chat model behind any OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio, OpenAI).

The model gets the retrieved passages numbered ``[1]..[k]`` and is told to answer only from them,
citing them as ``[n]``. It may call tools (the price calculator) for arithmetic: every call is run
here with the arguments parsed as JSON (never evaluated), and a bad call is answered with
``{"error": ...}`` so the model can correct itself. The final round is streamed as growing text.
Afterwards the ``[n]`` markers the model used become the answer's citations
(:func:`hwqa.answer.chat.prompt.renumber`).

Passages are untrusted: the prompt fences them and the answer is guarded (:mod:`hwqa.answer.chat.prompt`), and
the API key is redacted from answers and errors. Tool arguments are checked against the tool's JSON
schema (:func:`schema_problems`) before the tool runs.

The ``openai`` package is imported lazily: only this backend needs it.
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import DependencyMissingError, HwqaError, LLMError
from ..answer import Answer, final_answer
from ..base import Hit, Tool, ToolCall
from ..safety import install_log_redaction, redact, schema_problems
from .prompt import WITHHELD, build_messages, guard_output, new_boundary, renumber, renumber_text, strip_thinking

if TYPE_CHECKING:
    from ...settings import Settings
    from ..question import Question

INSTALL_HINT = "pip install 'openai>=1.40'"
NO_KEY = "no-key"  # local servers ignore the key, but the client insists on one

MAX_TOOL_CALLS_PER_ROUND = 8
MAX_TOOL_ARGUMENT_CHARS = 8_000
FINAL_PROMPT = "No more tool calls are available. Answer the question now from the passages and the tool results above."


@dataclass(frozen=True)
class Generated:
    """What the model finally wrote (guarded, its ``[n]`` markers as written) and the tool calls it made."""

    text: str
    calls: list[ToolCall]
    withheld: bool = False  # the text is :data:`hwqa.answer.chat.prompt.WITHHELD`: the model repeated its instructions


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class _Round:
    content: str = ""
    calls: list[_PendingCall] = field(default_factory=list)


def _openai() -> types.ModuleType:
    try:
        import openai
    except ImportError:
        raise DependencyMissingError(
            f"the 'openai' backend needs the openai package; install it with `{INSTALL_HINT}` or set HWQA_LLM_BACKEND=builtin"
        ) from None
    return openai


def _transport_errors() -> tuple[type[BaseException], ...]:
    """The HTTP libraries' network errors, which a broken stream may raise unwrapped."""
    found: list[type[BaseException]] = []
    for name in ("httpx", "httpx2"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        error = getattr(module, "TransportError", None)
        if isinstance(error, type) and issubclass(error, BaseException):
            found.append(error)
    return tuple(found)


class OpenAIAnswerer:
    """Answers with a chat model on an OpenAI-compatible server, citing the retrieved passages."""

    name = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout: float = 60.0,
        max_tool_rounds: int = 4,
        max_retries: int = 1,
        max_tokens: int | None = None,
        client: Any | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self.max_tool_rounds = max(0, max_tool_rounds)
        self.max_tokens = max_tokens  # a cap on each reply's length (None: the server's default)
        self._openai = _openai()
        self._transport_errors = _transport_errors()
        self.client: Any = client or self._openai.OpenAI(
            base_url=self.base_url, api_key=api_key or NO_KEY, timeout=timeout, max_retries=max_retries
        )
        self._secrets = [api_key] if api_key else []
        install_log_redaction(self._secrets)
        self._stream_with_tools = True  # cleared when the server rejects streaming together with tools
        self._tools_supported = True  # cleared when the server or model rejects tools altogether

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> OpenAIAnswerer:
        kwargs.setdefault("max_tokens", settings.llm_max_tokens or None)
        return cls(base_url=settings.llm_base_url, model=settings.llm_model, api_key=settings.llm_api_key, **kwargs)

    def answer(
        self, question: Question, hits: Sequence[Hit], history: Sequence[Mapping[str, Any]] = (), tools: Sequence[Tool] = ()
    ) -> Answer:
        """The final answer, without streaming."""
        return final_answer(self.stream(question, hits, history, tools))

    def stream(
        self,
        question: Question,
        hits: Sequence[Hit],
        history: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool] = (),
    ) -> Iterator[str | Answer]:
        """Yield the growing answer text as tokens arrive, then the final :class:`Answer`.

        Text a model writes before deciding to call a tool is streamed too; the next round's text
        then starts afresh, so a chat UI should show the latest string, not append.
        """
        n_hits = len(hits)
        for item in self.generate(question, hits, history, tools):
            if isinstance(item, Generated):
                if item.withheld:
                    yield Answer(item.text, [], item.calls, backend=self.name, covered=False)
                    return
                text, citations = renumber(item.text, hits)
                yield Answer(text, citations, item.calls, backend=self.name, covered=bool(citations))
            elif item:
                yield renumber_text(item, n_hits)[0]

    def generate(
        self,
        question: Question,
        hits: Sequence[Hit],
        history: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool] = (),
        *,
        context: str = "",
    ) -> Iterator[str | Generated]:
        """Yield the model's growing text as it wrote it (guarded, markers as sent), then :class:`Generated`.

        ``context`` is what hwqa worked out before asking (the calculator's result): it goes to the
        model with the passages. Raises :class:`LLMError` when the server fails or the answer is empty.
        """
        by_name = {t.name: t for t in tools}
        messages = build_messages(
            question.text,
            hits,
            history,
            with_tools=bool(tools) and self.max_tool_rounds > 0,
            boundary=new_boundary(),
            context=context,
        )
        calls: list[ToolCall] = []
        rounds = 0
        while True:
            offer = [t.spec() for t in tools] if rounds < self.max_tool_rounds and self._tools_supported else []
            if rounds and not offer and calls:
                messages.append({"role": "user", "content": FINAL_PROMPT})
            result = yield from self._round(messages, offer)
            if not (result.calls and offer):
                break
            rounds += 1
            messages.append(
                {
                    "role": "assistant",
                    "content": result.content,
                    "tool_calls": [
                        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                        for c in result.calls
                    ],
                }
            )
            for i, pending in enumerate(result.calls):
                if i >= MAX_TOOL_CALLS_PER_ROUND:
                    record = ToolCall(pending.name[:64], {}, {"error": f"at most {MAX_TOOL_CALLS_PER_ROUND} tool calls per turn"})
                else:
                    record = run_tool(by_name, pending.name, pending.arguments)
                calls.append(record)
                content = json.dumps(record.result, ensure_ascii=False, default=str)
                messages.append({"role": "tool", "tool_call_id": pending.id, "content": content})
        text = strip_thinking(result.content).strip()
        if not text:
            raise LLMError(
                f"the chat model '{self.model}' at {self.base_url} returned an empty answer; "
                "ask again, or pick another model with HWQA_LLM_MODEL"
            )
        text = guard_output(text, self._secrets)
        yield Generated(text, calls, withheld=text == WITHHELD)

    # -- one request ---------------------------------------------------------------------------

    def _round(self, messages: list[dict[str, Any]], offer: list[dict[str, Any]]) -> Generator[str, None, _Round]:
        """One request: streamed unless the server rejected streaming with tools before."""
        if offer and not self._stream_with_tools:
            return (yield from self._complete(messages, offer))
        try:
            response = self._create(messages, offer, stream=True)
        except self._openai.BadRequestError as exc:
            if not offer:
                raise self._error(exc) from None
            result = yield from self._complete(messages, offer)  # some servers cannot stream tool calls
            if self._tools_supported:
                self._stream_with_tools = False  # it worked without streaming: keep asking that way
            return result
        except self._openai.APIError as exc:
            raise self._error(exc) from None
        return (yield from self._consume(response, first_id=len(messages)))

    def _create(self, messages: list[dict[str, Any]], offer: list[dict[str, Any]], *, stream: bool) -> Any:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.max_tokens:
            kwargs["max_tokens"] = self.max_tokens
        if offer:
            kwargs["tools"] = offer
            kwargs["tool_choice"] = "auto"
        if stream:
            kwargs["stream"] = True
        return self.client.chat.completions.create(**kwargs)

    def _consume(self, response: Any, *, first_id: int) -> Generator[str, None, _Round]:
        """Read a streamed response: yield the growing text, assemble tool-call fragments by index."""
        result = _Round()
        by_index: dict[int, _PendingCall] = {}
        shown = ""
        try:
            for chunk in response:
                for choice in getattr(chunk, "choices", None) or []:
                    delta = choice.delta
                    if delta is None:
                        continue
                    if delta.content:
                        result.content += delta.content
                    for fragment in delta.tool_calls or []:
                        index = fragment.index if fragment.index is not None else len(by_index)
                        pending = by_index.setdefault(index, _PendingCall())
                        if fragment.id:
                            pending.id = fragment.id
                        function = fragment.function
                        if function is not None:
                            if function.name:
                                pending.name += function.name
                            if function.arguments:
                                pending.arguments += function.arguments
                if result.content and not by_index:
                    display = self._display(result.content)
                    if display and display != shown:
                        shown = display
                        yield display
        except (self._openai.APIConnectionError, *self._transport_errors) as exc:
            raise self._broken(exc) from None
        except self._openai.APIError as exc:
            raise self._error(exc) from None
        finally:
            close = getattr(response, "close", None)
            if callable(close):
                close()
        result.calls = [by_index[i] for i in sorted(by_index)]
        for i, pending in enumerate(result.calls):
            pending.id = pending.id or f"call_{first_id}_{i}"
        return result

    def _complete(self, messages: list[dict[str, Any]], offer: list[dict[str, Any]]) -> Generator[str, None, _Round]:
        """One request without streaming (the fallback for servers that cannot stream tool calls)."""
        try:
            response = self._create(messages, offer, stream=False)
        except self._openai.BadRequestError as exc:
            if offer and "tool" in _api_message(exc).lower():
                self._tools_supported = False  # the model or server does not do tools: answer without them
                return (yield from self._round(messages, []))
            raise self._error(exc) from None
        except self._openai.APIError as exc:
            raise self._error(exc) from None
        choices = getattr(response, "choices", None) or []
        if not choices:
            return _Round()
        message = choices[0].message
        result = _Round(content=message.content or "")
        for i, call in enumerate(message.tool_calls or []):
            function = getattr(call, "function", None)
            if function is not None:
                result.calls.append(
                    _PendingCall(call.id or f"call_{len(messages)}_{i}", function.name or "", function.arguments or "")
                )
        if result.content and not result.calls:
            display = self._display(result.content)
            if display:
                yield display
        return result

    def _display(self, content: str) -> str:
        """The text so far as it may be shown: thinking dropped, a prompt leak withheld, secrets redacted."""
        return guard_output(strip_thinking(content).lstrip(), self._secrets)

    def _broken(self, exc: BaseException) -> LLMError:
        return LLMError(redact(str(self._broken_error(exc)), self._secrets))

    def _broken_error(self, exc: BaseException) -> LLMError:
        """The stream stopped halfway: the server crashed, or the model stalled."""
        stalled = "timeout" in type(exc).__name__.lower() or isinstance(exc, self._openai.APITimeoutError)
        reason = f"no token for {self.timeout:g} s" if stalled else _reason(exc)
        return LLMError(
            f"the chat model at {self.base_url} stopped answering halfway ({reason}); check the server's log and ask again"
        )

    def _error(self, exc: BaseException) -> LLMError:
        """One line for people: what failed and what to do (never the API key, even if the server echoes it)."""
        return LLMError(redact(str(self._error_message(exc)), self._secrets))

    def _error_message(self, exc: BaseException) -> LLMError:
        openai = self._openai
        url = self.base_url
        if isinstance(exc, openai.APITimeoutError):
            reason = f"no answer within {self.timeout:g} s"
            return LLMError(
                f"could not reach the chat model at {url} ({reason}); start your server (e.g. `ollama serve`) "
                "or set HWQA_LLM_BASE_URL"
            )
        if isinstance(exc, (openai.APIConnectionError, *self._transport_errors)):
            return LLMError(
                f"could not reach the chat model at {url} ({_reason(exc)}); start your server (e.g. `ollama serve`) "
                "or set HWQA_LLM_BASE_URL"
            )
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            message = _api_message(exc)
            if status == 404:
                if "model" in message.lower():
                    return LLMError(
                        f"the server at {url} has no model '{self.model}'; pull it (e.g. `ollama pull {self.model}`) "
                        "or set HWQA_LLM_MODEL"
                    )
                return LLMError(
                    f"the server at {url} has no chat-completions endpoint (404: {message}); "
                    "check HWQA_LLM_BASE_URL (it usually ends in /v1, e.g. http://127.0.0.1:11434/v1)"
                )
            if status in (401, 403):
                return LLMError(
                    f"the server at {url} refused the API key ({status}: {message}); set HWQA_LLM_API_KEY to a key it accepts"
                )
            return LLMError(f"the chat model at {url} answered {status}: {message}; check the server's log and HWQA_LLM_MODEL")
        return LLMError(f"the chat model at {url} failed: {_first_line(str(exc)) or type(exc).__name__}; try again")


def _reason(exc: BaseException) -> str:
    """The innermost cause of a connection failure, short (e.g. 'connection refused')."""
    inner: BaseException = exc
    seen = 0
    while inner.__cause__ is not None and seen < 10:
        inner, seen = inner.__cause__, seen + 1
    text = _first_line(str(inner)) or _first_line(str(exc)) or type(inner).__name__
    if "refused" in text.lower():
        return "connection refused"
    text = re.sub(r"^\[Errno -?\d+\]\s*", "", text)
    return text[:120].rstrip(".")


def _api_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    message: object = None
    if isinstance(body, Mapping):
        message = body.get("message") or body.get("error") or body.get("detail")
    elif isinstance(body, str):
        message = body
    if not isinstance(message, str) or not message.strip():
        message = str(getattr(exc, "message", "") or exc)
    return _first_line(message)[:200] or "no details"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


# -- tools -------------------------------------------------------------------------------------


def run_tool(tools: Mapping[str, Tool], name: str, raw_arguments: str) -> ToolCall:
    """Run one call the model asked for; every failure becomes ``{"error": ...}`` for the model to read."""
    arguments: dict[str, Any]
    if len(raw_arguments) > MAX_TOOL_ARGUMENT_CHARS:
        return ToolCall(
            name, {"raw": raw_arguments[:200] + "…"}, {"error": f"arguments longer than {MAX_TOOL_ARGUMENT_CHARS} characters"}
        )
    try:
        parsed = json.loads(raw_arguments) if raw_arguments.strip() else {}
    except json.JSONDecodeError as exc:
        return ToolCall(name, {"raw": raw_arguments}, {"error": f"arguments are not valid JSON ({exc.msg}); send a JSON object"})
    if not isinstance(parsed, dict):
        return ToolCall(name, {"raw": raw_arguments}, {"error": "arguments must be a JSON object"})
    arguments = parsed
    tool = tools.get(name)
    if tool is None:
        available = ", ".join(sorted(tools)) or "none"
        shown = name if re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name) else "(invalid name)"
        return ToolCall(shown, arguments, {"error": f"unknown tool '{shown}'; available tools: {available}"})
    problems = schema_problems(tool.parameters, arguments)
    if problems:
        return ToolCall(name, arguments, {"error": "invalid arguments: " + "; ".join(problems[:5])})
    try:
        result = tool.run(arguments)
    except HwqaError as exc:
        result = {"error": str(exc)}
    except (TypeError, ValueError) as exc:  # a model's arguments are untrusted input
        result = {"error": f"invalid arguments: {exc}"}
    return ToolCall(name, arguments, result)
