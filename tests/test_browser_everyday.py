"""The chat a person keeps using, in real headless Chromium (issue 36): text from notes drawn as
written, quotes found in the owner's own note, one clear control with Undo, questions never
dropped, the controls people expect of a chat, and narrow screens.

Same rules as test_browser.py: every request the page makes is recorded, none may go to another
host. Screenshots go to tests/artifacts/ (git-ignored).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import App, free_port, in_ci, screenshot
from tests.conftest import write_note
from tests.test_browser import ANSWER, MISSING, Page, app, browser, page  # noqa: F401  (fixtures)

if MISSING and not in_ci():
    pytest.skip(MISSING, allow_module_level=True)

READING = "\n".join(
    f"* [Reading list entry {i}: notes on accelerators, part {i}](https://blog.example.invalid/part-{i})" for i in range(1, 41)
)
TPU_GPU = (
    "* Turning TPU into GPU (mean: it compiles Pytorch to work on a TPU). [PyTorchXLA](https://github.com/pytorch/xla) "
    "converts the TPUv3-8 hardware into a GPU so you can use it with PyTorch as a normal GPU. TPUs are ~5x as expensive "
    "as GPUs ($1.46/hr for a Nvidia Tesla P100 GPU vs $8.00/hr for a Google TPU v3 vs $4.50/hr for the TPUv2 with "
    "“on-demand” access on GCP). Spot TPUs cost ~$2.40/hr, 3~4x less.\n"
    "* We recommend CPUs for their versatility and for their large memory capacity. In Google Colab, CPU types vary "
    "according to variability (Intel Xeon, Intel Skylake, Intel Broadwell, or Intel Haswell CPUs). GPUs were NVIDIA "
    "P100 with Intel Xeon 2GHz (2 core) CPU and 13GB RAM."
)
FREE_TPU = (
    "* [TensorFlow Research Cloud](https://www.tensorflow.org/tfrc) - Free TPU : Accelerate your cutting-edge "
    "machine learning research with free Cloud TPUs."
)
# A note written the way the owner writes: front matter, one long bullet per thought, links inline.
OWNER = f"""
---
aliases: [Hardware for ML]
title: Hardware for ML
tags: ["machine learning", "hardware"]
date: 2021-12-21 11:30:28
draft: false
---

# Hardware for ML

## Reading

{READING}

## TPU - GPU

{TPU_GPU}

## Free TPU

{FREE_TPU}
"""


class OwnerApp(App):
    """The web chat over the owner's note alone."""

    def __init__(self, root: Path) -> None:
        from hwqa.build import build_index
        from hwqa.settings import load_settings
        from hwqa.ui.app import start

        self.notes = root / "notes"
        write_note(self.notes, "hardware-for-ml.md", OWNER)
        self.settings = load_settings(
            {"notes": self.notes, "index": root / "index", "embed_backend": "hash", "fetch_links": False, "port": free_port()},
            env={},
            cwd=root,
        )
        build_index(self.settings)
        self.server = start(self.settings)
        self.url = self.server.url


@pytest.fixture(scope="module")
def owner(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OwnerApp]:  # noqa: F811
    running = OwnerApp(tmp_path_factory.mktemp("owner"))
    yield running
    running.stop()


@pytest.fixture
def owner_page(browser: Any, owner: OwnerApp) -> Iterator[Page]:  # noqa: F811
    p = Page(browser, owner)
    yield p
    assert p.outside_requests() == [] and p.errors == []
    p.close()


def test_a_single_tilde_from_a_note_is_drawn_as_written_never_struck_through(owner_page: Page) -> None:
    pg = owner_page.page
    answer = owner_page.ask("How expensive are TPUs compared to GPUs?")
    text = answer.inner_text()
    assert "TPUs are ~5x as expensive as GPUs" in text and "~$2.40/hr, 3~4x less" in text, text
    assert pg.locator("#hwqa-chatbot s, #hwqa-chatbot del, #hwqa-chatbot strike").count() == 0
    screenshot(pg, "chat-tilde")


@pytest.mark.parametrize(
    ("question", "cited"),
    [
        ("What did Colab GPUs have?", "GPUs were NVIDIA P100 with Intel Xeon 2GHz"),
        ("Can PyTorch run on a TPU?", "Turning TPU into GPU"),
    ],
)
def test_the_note_viewer_opens_the_owners_note_at_the_cited_list_item(owner_page: Page, question: str, cited: str) -> None:
    pg = owner_page.page
    owner_page.ask(question)
    href = pg.locator("#hwqa-chatbot a.hwqa-src-link").first.get_attribute("href")
    assert href and href.startswith("/hwqa/note/hardware-for-ml.md?")
    viewer = owner_page.context.new_page()
    viewer.goto(owner_page.app.url + href)
    first = viewer.locator("#hwqa-cited")
    first.wait_for()
    marked = viewer.locator(".hwqa-cited")
    texts = [m.inner_text() for m in marked.all()]
    assert any(cited in t for t in texts), texts
    assert viewer.locator("li.hwqa-cited").count() == marked.count()  # the items, not a heading
    box = viewer.evaluate(
        "() => { const r = document.querySelector('#hwqa-cited').getBoundingClientRect(); return [r.top, innerHeight, scrollY]; }"
    )
    assert box[2] > 0 and 0 <= box[0] < box[1], box  # scrolled down to the item, which is in view
    screenshot(viewer, "note-viewer-owner")
    viewer.close()
