"""Errors for people.

Every error hwqa raises on purpose derives from :class:`HwqaError`. Its message is one line that
says what went wrong and what to do next; the CLI prints it and exits 1, the web chat shows the
same text in the conversation.
"""

from __future__ import annotations


class HwqaError(Exception):
    """Root of every user-facing hwqa error (one-line message, actionable)."""


class ConfigError(HwqaError):
    """A setting is invalid (bad value in a flag, an HWQA_* variable or hwqa.toml)."""


class NotesError(HwqaError):
    """The notes folder is missing, empty or unreadable."""


class IndexMissingError(HwqaError):
    """No index has been built yet at the configured location."""


class IndexMismatchError(HwqaError):
    """The index was built with other settings (model, dimension, chunking) than configured."""


class IndexCorruptError(HwqaError):
    """The index files do not match their manifest (truncated, altered, missing)."""


class IndexWriteError(HwqaError):
    """The index could not be written: its disk is full, over quota or failing (the message says what to free)."""


class IndexLockedError(HwqaError):
    """Another build holds the index lock."""


class DependencyMissingError(HwqaError):
    """An optional dependency is needed for the chosen backend and is not installed."""


class FetchError(HwqaError):
    """A web article could not be fetched (the reason is in the message).

    ``reason`` is the one-line message; ``status`` is how the link is reported: "failed" (it
    could not be fetched; a cached copy is kept) or "skipped" (hwqa will not fetch it). The
    subclasses in :mod:`hwqa.fetch` name each reason.
    """

    status: str = "failed"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PriceTableError(HwqaError):
    """A price table row is malformed; the message names the note and line."""


class ToolArgumentError(HwqaError):
    """A tool (e.g. the price calculator) was called with invalid arguments."""


class LLMError(HwqaError):
    """The configured chat model could not be reached or answered badly."""
