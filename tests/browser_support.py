"""Real headless Chromium for the browser tests: Debian's ``chromium`` driven by the ``playwright``
Python package (never Playwright's own browser download).

Outside CI a missing browser or package skips the tests with a message saying how to install
them; with ``CI=true`` they must run, so a missing one fails.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
INSTALL_HINT = "run 'make install' (it installs Debian's chromium and the playwright Python package)"


def chromium_path() -> str | None:
    return os.environ.get("HWQA_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def browser_status() -> tuple[Any, str | None]:
    """(the playwright sync API or None, what is missing and how to install it, or None)."""
    missing = []
    sync_api: Any = None
    try:
        from playwright import sync_api
    except ImportError:
        missing.append("the playwright Python package")
    if chromium_path() is None:
        missing.append("chromium")
    if missing:
        return sync_api, f"browser tests need {' and '.join(missing)}: {INSTALL_HINT}"
    return sync_api, None


def launch_chromium(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# Longest word of each table cell vs. the cell's content width, measured in the page.
NARROW_CELLS_JS = """
(selector) => {
  const bad = [];
  const probe = document.createElement('span');
  probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap;left:-9999px';
  document.body.appendChild(probe);
  for (const cell of document.querySelectorAll(selector)) {
    const cs = getComputedStyle(cell);
    probe.style.font = cs.font;
    probe.style.letterSpacing = cs.letterSpacing;
    let longest = 0, word = '';
    for (const w of cell.innerText.split(/\\s+/).filter(Boolean)) {
      probe.textContent = w;
      const width = probe.getBoundingClientRect().width;
      if (width > longest) { longest = width; word = w; }
    }
    const inner = cell.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    if (inner + 1 < longest) bad.push(`${word}: ${inner.toFixed(1)} < ${longest.toFixed(1)}`);
  }
  probe.remove();
  return bad;
}
"""


PRICES = """
---
title: Cloud prices
tags: [prices, cloud]
---
# Cloud prices

Prices I looked up for training jobs.

| hardware | provider | type | usd_per_hour | speed | memory_gb | pricing | as_of |
|---|---|---|---|---|---|---|---|
| TPU v3-8 | GCP | tpu | 8.00 | 8.0 | 128 | on-demand | 2026-10 |
| TPU v3-8 | GCP | tpu | 2.40 | 8.0 | 128 | preemptible | 2026-10 |
| V100 | GCP | gpu | 2.48 | 1.0 | 16 | on-demand | 2026-09 |
| P100 | GCP | gpu | 1.46 | 0.5 | 16 | on-demand | 2019-06 |
| A100 40GB | AWS | gpu | 4.10 | 3.0 | 40 | on-demand | 2026-08 |
| Xeon 32-core | AWS | cpu | 1.20 |  | 128 | on-demand | 2026-08 |
"""

HOSTILE = """
---
title: Zebra accelerator
tags: [hostile, "<img src=x onerror=window.__hwqa_pwned='tag'>"]
---
# Zebra accelerator

The Zebra accelerator is a made-up chip; the Zebra accelerator has zebra stripes.
<script>window.__hwqa_pwned = 'script'</script>
<img src="http://outside.invalid/leak.png"> <img src=x onerror="window.__hwqa_pwned='onerror'">
<iframe src="http://outside.invalid/frame"></iframe>
<svg onload="window.__hwqa_pwned='svg'"><image href="http://outside.invalid/svg.png"/></svg>
<style>body { background: url(http://outside.invalid/bg.png) }</style>
<form action="http://outside.invalid/post"><input name="q"></form>
Read [the Zebra accelerator page](javascript:window.__hwqa_pwned='js') about zebra stripes.
![Zebra accelerator diagram](http://outside.invalid/diagram.png)
See also <a href="javascript:window.__hwqa_pwned='a'">zebra</a> and the [Zebra article](http://outside.invalid/zebra).
"""


XLA_LINK = "https://github.com/pytorch/xla_tools/blob/main/README.md"  # a link written in a note (never followed)


def write_browser_notes(folder: Path) -> None:
    from tests.conftest import TPU_NOTE, write_note

    write_note(folder, "prices.md", PRICES)
    tpu = TPU_NOTE.replace(
        "usable like a GPU.", f"usable like a GPU. The XLA bridge for PyTorch is described at {XLA_LINK} in detail."
    )
    write_note(folder, "tpu.md", tpu)
    write_note(folder, "zebra.md", HOSTILE)
    (folder / "broken.md").write_bytes(b"# Broken\n\xff\xfe not UTF-8\n")


@contextlib.contextmanager
def serve_process(settings: Any, folder: Path, **env: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``hwqa serve`` as a real process over ``settings``' notes and index (hash embedder, no link
    fetching) on a free loopback port, with ``env`` added to its environment; yields its URL once the
    page answers, and the process. Its output goes to ``folder / "serve.log"``."""
    src = Path(__file__).resolve().parent.parent / "src"
    port = free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith("HWQA_")}
    environ.update(
        HWQA_NOTES=str(settings.notes),
        HWQA_INDEX=str(settings.index),
        HWQA_EMBED_BACKEND="hash",
        HWQA_FETCH_LINKS="false",
        PYTHONPATH=f"{src}{os.pathsep}{environ.get('PYTHONPATH', '')}",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    environ.update(env)
    log_path = folder / "serve.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hwqa.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=environ,
            cwd=folder,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}/"
        try:
            deadline = time.monotonic() + 120
            while True:
                if proc.poll() is not None:
                    raise AssertionError(f"hwqa serve exited: {log_path.read_text()[-2000:]}")
                try:
                    with urllib.request.urlopen(url, timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError("hwqa serve did not answer within 120 s")
                time.sleep(0.5)
            yield url, proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class App:
    """A running hwqa web chat over a small notes folder, on a free loopback port."""

    def __init__(self, root: Path, **overrides: Any) -> None:
        from hwqa.build.builder import build_index
        from hwqa.settings import load_settings
        from hwqa.ui.app import start

        self.notes = root / "notes"
        write_browser_notes(self.notes)
        (root / ".env").write_text("SECRET=do-not-serve\n", encoding="utf-8")
        self.settings = load_settings(
            {
                "notes": self.notes,
                "index": root / "index",
                "embed_backend": "hash",
                "fetch_links": False,
                "port": free_port(),
                **overrides,
            },
            env={},
            cwd=root,
        )
        build_index(self.settings)
        self.server = start(self.settings)
        self.url = self.server.url

    def stop(self) -> None:
        self.server.stop()
