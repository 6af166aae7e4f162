"""hwqa: a chat assistant over your notes about machine-learning hardware.

The library's facade::

    from hwqa import Engine, build_index, load_settings

    settings = load_settings({"notes": "notes", "index": "index"})
    build_index(settings)
    answer = Engine.load(settings).ask("TPU or GPU for my budget of $500?")

The names are imported when first used, so ``import hwqa`` (and ``hwqa --version``) stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .answer.answer import Answer, Citation
    from .build.builder import BuildReport, build_index
    from .engine import Engine
    from .errors import HwqaError
    from .index.status import IndexStatus, LinkCounts
    from .settings import Settings, load_settings

_WHERE = {  # public name -> the module that defines it
    "Answer": "answer.answer",
    "BuildReport": "build.builder",
    "Citation": "answer.answer",
    "Engine": "engine",
    "HwqaError": "errors",
    "IndexStatus": "index.status",
    "LinkCounts": "index.status",
    "Settings": "settings",
    "build_index": "build.builder",
    "load_settings": "settings",
}

__all__ = [
    "Answer",
    "BuildReport",
    "Citation",
    "Engine",
    "HwqaError",
    "IndexStatus",
    "LinkCounts",
    "Settings",
    "__version__",
    "build_index",
    "load_settings",
]


if not TYPE_CHECKING:  # type checkers see the imports above, so a misspelt name is still an error

    def __getattr__(name: str) -> Any:
        """Import a public name from its module the first time it is asked for."""
        module = _WHERE.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(import_module(f".{module}", __name__), name)
        globals()[name] = value  # the next lookup is a plain attribute
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
