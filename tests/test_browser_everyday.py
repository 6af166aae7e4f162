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
    "converts the TPUv3-8 hardware into a GPU so you can use it with PyTorch as a normal GPU. TPUv3-8 which is part of "
    "free access from Google Colab can give a computation power that is equivalent to 8 V100 Tesla GPU. "
    "[info is here](https://venturebeat.example/tpu-pytorch). TPUs are ~5x as expensive "
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
        from hwqa.build.builder import build_index
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


VISIBLE_CLEAR_ICONS = """() => [...document.querySelectorAll('#hwqa-chatbot button')]
    .filter((b) => /clear/i.test(b.getAttribute('aria-label') || b.title || '') && b.offsetParent !== null).length"""


def test_one_clear_control_with_undo_and_the_clear_kept_after_a_reload(page: Page) -> None:  # noqa: F811
    pg = page.page
    page.ask("What is PyTorch/XLA?")
    assert pg.evaluate(VISIBLE_CLEAR_ICONS) == 0  # Gradio's own trash icon is not there to clear without Undo
    pg.focus("#hwqa-clear")
    pg.keyboard.press("Tab")
    focused = pg.evaluate("() => (document.activeElement.getAttribute('aria-label') || document.activeElement.innerText || '')")
    assert "clear" not in focused.lower(), focused  # the next Tab stop is not a second clear
    pg.click("#hwqa-clear")
    pg.wait_for_function("() => !document.querySelector('#hwqa-chatbot').innerText.includes('PyTorch/XLA')")
    pg.click("#hwqa-undo")
    pg.wait_for_function("() => document.querySelector('#hwqa-chatbot').innerText.includes('PyTorch/XLA')")
    pg.click("#hwqa-clear")
    pg.wait_for_selector("#hwqa-undo", state="visible")
    pg.wait_for_timeout(500)
    pg.reload()
    pg.wait_for_selector("#hwqa-input textarea")
    pg.wait_for_timeout(1000)
    assert "PyTorch/XLA" not in pg.inner_text("#hwqa-chatbot")


def test_a_second_question_typed_within_100_ms_is_answered(page: Page) -> None:  # noqa: F811
    pg = page.page
    cdp = page.context.new_cdp_session(pg)
    cdp.send("Network.enable")  # a real network's round trip: the server's reply comes while the next question is typed
    cdp.send(
        "Network.emulateNetworkConditions", {"offline": False, "latency": 40, "downloadThroughput": -1, "uploadThroughput": -1}
    )
    first, second = "How much does a V100 cost per hour?", "What is PyTorch/XLA?"
    pg.fill("#hwqa-input textarea", first)
    pg.press("#hwqa-input textarea", "Enter")
    pg.keyboard.type(second, delay=4)  # typed and sent within about 100 ms
    pg.keyboard.press("Enter")
    page.wait_answers(2)
    pg.wait_for_function("() => document.querySelectorAll('#hwqa-chatbot .user').length === 2", timeout=30_000)
    page.wait_answers(2)
    users = [u.inner_text() for u in pg.locator("#hwqa-chatbot .user").all()]
    assert users == [first, second]
    assert "PyTorch/XLA compiles" in pg.locator(ANSWER).last.inner_text()


def test_the_builtin_answer_appears_sentence_by_sentence(owner_page: Page) -> None:
    pg = owner_page.page
    pg.evaluate(
        """() => { window.__drafts = [];
                   new MutationObserver(() => { const b = document.querySelectorAll('#hwqa-chatbot .bot');
                     const text = b.length ? b[b.length - 1].innerText : '';
                     const seen = window.__drafts;
                     if (!seen.length || seen[seen.length - 1][1] !== text) seen.push([performance.now(), text]); })
                   .observe(document.querySelector('#hwqa-chatbot'), {subtree: true, childList: true, characterData: true}); }"""
    )
    owner_page.ask("Can PyTorch run on a TPU?")
    seen = pg.evaluate("() => window.__drafts")
    drafts = [
        (text, seen[i + 1][0] - t)  # the draft, and how long it was on the page (ms)
        for i, (t, text) in enumerate(seen[:-1])
        if text.startswith("Turning TPU") and text.endswith("…")
    ]
    assert drafts, seen  # the first sentence before the whole answer, drawn on the page as its own state
    assert all(text.endswith("] …") for text, _ in drafts), drafts  # whole sentences, each with its source
    # How long each stays is the server's pause (tests/test_chat_order.py); a browser's clock under load is no measure


def test_a_quoted_link_text_keeps_its_link(owner_page: Page) -> None:
    answer = owner_page.ask("What computation power does the free Colab TPUv3-8 give?")
    assert "info is here (https://venturebeat.example/tpu-pytorch)" in answer.inner_text()
    link = answer.locator("a[href='https://venturebeat.example/tpu-pytorch']").first
    assert link.inner_text() == "https://venturebeat.example/tpu-pytorch"  # an outside link shows its address
    assert link.get_attribute("rel") == "noopener noreferrer nofollow" and link.get_attribute("target") == "_blank"


def test_the_page_says_which_notes_folder_and_index_it_answers_from(owner_page: Page) -> None:
    text = owner_page.page.inner_text("#hwqa-loaded")
    owner = owner_page.app
    assert str(owner.notes.resolve()) in text and str(owner.settings.index.resolve()) in text, text


def test_regenerate_edit_and_arrow_up_recall_the_last_question(owner_page: Page) -> None:
    pg = owner_page.page
    owner_page.ask("Can PyTorch run on a TPU?")
    pg.locator("#hwqa-input textarea").focus()
    pg.keyboard.press("ArrowUp")  # the last question, back in the empty box
    assert pg.input_value("#hwqa-input textarea") == "Can PyTorch run on a TPU?"
    pg.fill("#hwqa-input textarea", "")
    pg.locator("#hwqa-chatbot button[aria-label='Retry']").last.click()  # regenerate
    pg.wait_for_selector("#hwqa-chatbot >> text=Working…", timeout=10_000)
    owner_page.wait_answers(1)
    assert pg.locator("#hwqa-chatbot .user").count() == 1 and pg.locator(ANSWER).count() == 1
    assert "Turning TPU into GPU" in pg.locator(ANSWER).last.inner_text()
    user = pg.locator("#hwqa-chatbot .user").last
    user.hover()
    pg.locator("#hwqa-chatbot button[aria-label='Edit']").last.click()  # edit the question
    editor = pg.locator("#hwqa-chatbot textarea").last
    editor.fill("What did Colab GPUs have?")
    pg.locator("#hwqa-chatbot button[aria-label='Submit']").last.click()
    pg.wait_for_function(
        "() => document.querySelector('#hwqa-chatbot').innerText.includes('GPUs were NVIDIA P100')", timeout=30_000
    )
    owner_page.wait_answers(1)
    users = [u.inner_text() for u in pg.locator("#hwqa-chatbot .user").all()]
    assert users == ["What did Colab GPUs have?"]
    assert "Turning TPU into GPU" not in pg.inner_text("#hwqa-chatbot")
    screenshot(pg, "chat-edited")


def test_conversations_are_renamed_and_deleted_and_a_reload_keeps_both(owner_page: Page) -> None:
    pg = owner_page.page
    owner_page.ask("Can PyTorch run on a TPU?")
    pg.click("#hwqa-rename")
    pg.fill("#hwqa-rename-box textarea, #hwqa-rename-box input", "TPU and PyTorch")
    pg.click("#hwqa-save-name")
    pg.wait_for_function("() => document.querySelector('#hwqa-conversations input').value === 'TPU and PyTorch'")
    pg.click("#hwqa-new-chat")
    pg.wait_for_function("() => !document.querySelector('#hwqa-chatbot').innerText.includes('Can PyTorch')")
    owner_page.ask("What did Colab GPUs have?")
    pg.wait_for_timeout(500)
    pg.click("#hwqa-delete")
    pg.wait_for_selector("#hwqa-notice >> text=Deleted")
    pg.wait_for_function("() => document.querySelector('#hwqa-chatbot').innerText.includes('Can PyTorch')")
    pg.wait_for_timeout(500)
    pg.reload()
    pg.wait_for_selector("#hwqa-chatbot .bot")
    assert pg.input_value("#hwqa-conversations input") == "TPU and PyTorch"
    pg.click("#hwqa-conversations input")
    options = [o.inner_text() for o in pg.get_by_role("option").all()]
    assert any("TPU and PyTorch" in o for o in options) and not any("Colab GPUs" in o for o in options), options
    pg.keyboard.press("Escape")


def test_escape_stops_the_answer_being_written(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    from tests.fake_openai import FakeOpenAI, text

    with FakeOpenAI([text("A slow answer about TPUs.", delay=30)]) as fake:
        slow = App(tmp_path, llm_backend="openai", llm_base_url=fake.base_url, llm_timeout=60)
        p = Page(browser, slow)
        try:
            pg = p.page
            pg.fill("#hwqa-input textarea", "What did the Colab TPU runtime have?")
            pg.press("#hwqa-input textarea", "Enter")
            pg.wait_for_selector("#hwqa-stop", state="visible")
            pg.keyboard.press("Escape")
            pg.wait_for_selector("#hwqa-chatbot >> text=Stopped.", timeout=10_000)
            pg.wait_for_selector("#hwqa-send", state="visible")
            assert p.outside_requests() == []
        finally:
            p.close()
            slow.stop()


def test_an_empty_question_and_half_a_device_are_said_in_words(page: Page) -> None:  # noqa: F811
    pg = page.page
    pg.press("#hwqa-input textarea", "Enter")
    pg.wait_for_selector("#hwqa-notice >> text=Type a question")
    pg.get_by_role("tab", name="Prices").click()
    pg.fill("#hwqa-hours input", "10")
    pg.fill("#hwqa-devices input", "2.5")
    pg.click("#hwqa-calculate")
    pg.wait_for_function("() => document.querySelector('#hwqa-calc-error').innerText.includes('whole number')")
    assert "2.5" in pg.inner_text("#hwqa-calc-error")


def test_the_api_names_its_parameters_and_the_index_tab_shows_no_empty_table(owner_page: Page) -> None:
    pg = owner_page.page
    info = pg.request.get(owner_page.app.url + "/gradio_api/info").json()
    names = [p["parameter_name"] for p in info["named_endpoints"]["/calculate"]["parameters"]]
    assert names == ["providers", "hardware_types", "budget_usd", "hours", "min_memory_gb", "devices", "include_preemptible"]
    assert all(len(n) > 2 for e in info["named_endpoints"].values() for n in [p["parameter_name"] for p in e["parameters"]])
    pg.get_by_role("tab", name="Index").click()
    pg.wait_for_selector("#hwqa-none-skipped >> text=every note in the folder was read")
    assert not pg.locator("#hwqa-skipped").is_visible()  # no table of headers only


NARROW_TABLE_JS = """
() => {
  const tables = [...document.querySelectorAll('#hwqa-chatbot .bot .message-content table')];
  const table = tables[tables.length - 1];
  const heads = () => [...table.querySelectorAll('th')].map((th) => th.getBoundingClientRect());
  const box = table.getBoundingClientRect();
  table.scrollLeft = table.scrollWidth;
  const end = heads();
  const names = [...table.querySelectorAll('th')].map((th) => th.innerText.trim());
  return {
    names, scrolls: table.scrollWidth > table.clientWidth, bar: table.offsetHeight - table.clientHeight,
    lastInView: end[end.length - 1].right <= box.right + 1,
    firstInView: end[0].left >= box.left - 1 && end[0].left <= box.left + 40,
  };
}
"""


def test_at_400_px_every_answer_column_is_reachable_and_the_name_stays_in_view(browser: Any, app: App) -> None:  # noqa: F811
    p = Page(browser, app, width=400, height=860)
    try:
        pg = p.page
        for _ in range(3):  # the page opens at its title and tabs, not scrolled down to the box
            pg.reload()
            pg.wait_for_selector("#hwqa-input textarea")
            pg.wait_for_timeout(800)
            assert pg.evaluate("() => window.scrollY") == 0
            assert pg.evaluate("() => document.activeElement.closest('#hwqa-input') !== null")  # and ready to type
        p.ask("TPU or GPU for my budget of $500?")
        found = pg.evaluate(NARROW_TABLE_JS)
        assert found["names"][0] == "Hardware" and "Provider" in found["names"], found
        assert found["scrolls"] and found["bar"] > 0, found  # it scrolls, with a scrollbar to see
        assert found["lastInView"] and found["firstInView"], found  # scrolled to the end: last column whole, name still there
        screenshot(pg, "mobile-400-table-scrolled")
        assert p.outside_requests() == [] and p.errors == []
    finally:
        p.close()
