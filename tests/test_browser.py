"""The web chat in a real headless Chromium: what a person sees and clicks.

Every test records every request the page makes; none may go to a host other than the app.
Screenshots go to tests/artifacts/ (git-ignored).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser_support import NARROW_CELLS_JS, App, browser_status, in_ci, launch_chromium, screenshot

sync_api, MISSING = browser_status()
if MISSING and not in_ci():
    pytest.skip(MISSING, allow_module_level=True)  # in CI (CI=true) they must run: the browser fixture fails instead

ANSWER = "#hwqa-chatbot .bot"


@pytest.fixture(scope="module")
def app(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    running = App(tmp_path_factory.mktemp("browser"))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if MISSING:
        pytest.fail(MISSING)
    with sync_api.sync_playwright() as p:
        b = launch_chromium(p)
        yield b
        b.close()


class Page:
    """A page of the app with every request it makes recorded (and outside ones blocked)."""

    def __init__(self, browser: Any, app: App, width: int = 1200, height: int = 900) -> None:
        self.app = app
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.requests: list[str] = []
        self.errors: list[str] = []
        app_origin = urlsplit(app.url).netloc

        def route(r: Any) -> None:
            self.requests.append(r.request.url)
            if urlsplit(r.request.url).netloc == app_origin:
                r.continue_()
            else:
                r.abort()

        self.context.route("**/*", route)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(app.url + "/")
        self.page.wait_for_selector("#hwqa-input textarea")
        self.page.wait_for_selector("#hwqa-chatbot")  # mounted after the box on a busy machine: ask() reads it

    def outside_requests(self) -> list[str]:
        origin = urlsplit(self.app.url).netloc
        return [u for u in self.requests if urlsplit(u).netloc != origin and not u.startswith(("data:", "blob:"))]

    def ask(self, question: str) -> Any:
        before = self.page.locator(ANSWER).count()
        self.page.fill("#hwqa-input textarea", question)
        self.page.press("#hwqa-input textarea", "Enter")
        self.wait_answers(before + 1)
        return self.page.locator(ANSWER).last

    def wait_answers(self, n: int) -> None:
        """Wait until ``n`` finished answers (no working placeholder left) are on the page."""
        self.page.wait_for_function(
            """(n) => { const bots = document.querySelectorAll('#hwqa-chatbot .bot');
                        const text = document.querySelector('#hwqa-chatbot').innerText;
                        const last = bots.length ? bots[bots.length - 1].innerText.trim() : '';
                        return bots.length >= n && !text.includes('Working…') && !last.endsWith('…'); }""",
            arg=n,
            timeout=60_000,
        )

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def page(browser: Any, app: App) -> Iterator[Page]:
    p = Page(browser, app)
    yield p
    assert p.outside_requests() == []
    assert p.errors == []
    p.close()


def test_question_streams_an_answer_with_sources_that_open(page: Page) -> None:
    pg = page.page
    assert pg.get_attribute("#hwqa-input textarea", "placeholder")
    answer = page.ask("What did the Colab TPU runtime have?")
    assert "TPU v3" in answer.inner_text()
    source = pg.locator("#hwqa-chatbot details.hwqa-src").first
    summary = source.locator("summary")
    assert re.match(r"\[1\] TPU notes › ", summary.inner_text())
    assert not source.locator(".hwqa-passage").is_visible()
    summary.click()
    assert source.locator(".hwqa-passage").is_visible()
    assert "Colab TPU runtime" in source.locator(".hwqa-passage").inner_text()
    link = source.locator("a.hwqa-src-link")
    assert link.get_attribute("href").startswith("/hwqa/note/tpu.md?")
    assert link.get_attribute("href").endswith("#hwqa-cited")
    # the link opens the note viewer (tested in test_browser_controls.py)
    note = pg.request.get(page.app.url + link.get_attribute("href"))
    assert note.status == 200 and "Colab TPU runtime" in note.text()
    # a [1] marker jumps to (and opens) its source
    pg.locator("#hwqa-chatbot .bot a[href^='#hwqa-src-']").first.click()
    # the placeholder stays and the box is ready for the next question
    assert pg.get_attribute("#hwqa-input textarea", "placeholder") == "Ask about GPUs, TPUs, CPUs, prices…"
    assert pg.input_value("#hwqa-input textarea") == ""
    assert pg.locator("#hwqa-input textarea").is_editable()
    screenshot(pg, "chat-source-open")


def test_empty_input_does_nothing_and_questions_typed_quickly_are_all_answered(page: Page) -> None:
    pg = page.page
    pg.press("#hwqa-input textarea", "Enter")
    pg.click("#hwqa-send")
    pg.fill("#hwqa-input textarea", "How much does a V100 cost per hour?")
    pg.click("#hwqa-send")
    pg.wait_for_selector("#hwqa-chatbot .user >> text=How much does a V100 cost per hour?")
    pg.fill("#hwqa-input textarea", "What is PyTorch/XLA?")  # typed and sent while the first is answered
    pg.press("#hwqa-input textarea", "Enter")
    page.wait_answers(2)
    pg.wait_for_function("() => document.querySelectorAll('#hwqa-chatbot .user').length === 2")
    # Under load the chat may re-render between two polls: wait for the first answer's price itself.
    pg.wait_for_function("() => document.querySelector('#hwqa-chatbot').innerText.includes('$2.48')", timeout=60_000)
    page.wait_answers(2)
    users = [u.inner_text() for u in pg.locator("#hwqa-chatbot .user").all()]
    assert users == ["How much does a V100 cost per hour?", "What is PyTorch/XLA?"]
    text = pg.inner_text("#hwqa-chatbot")
    assert "⚠️" not in text and "$2.48" in text, text
    pg.wait_for_selector("#hwqa-send", state="visible")  # Stop turns back into Send once nothing is answered
    assert not pg.locator("#hwqa-stop").is_visible()


def test_questions_typed_quickly_on_a_slow_page_keep_the_first_answer(page: Page) -> None:
    """A page slower than the server (its CPU throttled 4x) is still showing the first answer's
    stream when the second question is sent, though the server is done with it: the chat must not
    be rebuilt from that page's value (it lost the first answer: Q1, Q2, then only the second answer)."""
    pg = page.page
    page.context.new_cdp_session(pg).send("Emulation.setCPUThrottlingRate", {"rate": 4})
    pg.fill("#hwqa-input textarea", "How much does a V100 cost per hour?")
    pg.click("#hwqa-send")
    pg.wait_for_selector("#hwqa-chatbot .user >> text=How much does a V100 cost per hour?")
    pg.fill("#hwqa-input textarea", "What is PyTorch/XLA?")
    pg.press("#hwqa-input textarea", "Enter")
    page.wait_answers(2)
    pg.wait_for_function(  # the second answer is the last message, and nothing is being written
        """() => { const bots = document.querySelectorAll('#hwqa-chatbot .bot');
                   const text = document.querySelector('#hwqa-chatbot').innerText;
                   return bots.length && bots[bots.length - 1].innerText.startsWith('PyTorch/XLA compiles')
                          && !text.includes('Working…'); }""",
        timeout=60_000,
    )
    users = [u.inner_text() for u in pg.locator("#hwqa-chatbot .user").all()]
    assert users == ["How much does a V100 cost per hour?", "What is PyTorch/XLA?"]
    after_first_question = pg.inner_text("#hwqa-chatbot").split("How much does a V100 cost per hour?", 1)[1]
    first, second = after_first_question.split("What is PyTorch/XLA?", 1)
    assert "$2.48" in first, first  # the first answer, between the two questions
    assert "PyTorch/XLA compiles" in second, second


def test_budget_question_shows_the_calculator_step_with_full_table_and_distinct_exclusions(page: Page) -> None:
    pg = page.page
    page.ask("TPU or GPU for my budget of $500?")
    step = pg.locator("#hwqa-chatbot .thought-group").last
    assert "Price calculator — budget $500" in step.inner_text()
    step.locator(".title").first.click()
    pg.wait_for_function("() => document.querySelector('#hwqa-chatbot').innerText.includes('Left out, and why')")
    text = pg.inner_text("#hwqa-chatbot")
    assert "Computed:" in text and "budget_usd" in text
    assert "TPU v3-8 (GCP, preemptible)" in text  # not to be confused with the on-demand TPU v3-8
    assert "A100 40GB" in text and "Recommendation" in text
    screenshot(pg, "chat-calculator-answer")
    step.evaluate("el => el.scrollIntoView({block: 'start'})")  # the opened step itself
    screenshot(pg, "chat-calculator-step")


def test_conversation_survives_theme_switch_and_reload(page: Page) -> None:
    pg = page.page
    pg.get_by_role("button", name="What hardware does a Google Colab TPU runtime have?").click()  # an example asks itself
    page.wait_answers(1)
    assert pg.locator("#hwqa-chatbot .user").first.inner_text() == "What hardware does a Google Colab TPU runtime have?"
    page.ask("What is PyTorch/XLA?")
    pg.click("#hwqa-theme")
    pg.wait_for_function("() => document.body.classList.contains('dark')")
    assert "What is PyTorch/XLA?" in pg.inner_text("#hwqa-chatbot")
    screenshot(pg, "chat-dark")
    pg.reload()
    pg.wait_for_selector("#hwqa-chatbot .bot")
    assert "What is PyTorch/XLA?" in pg.inner_text("#hwqa-chatbot")
    assert pg.locator("#hwqa-chatbot details.hwqa-src").count() >= 1
    pg.click("#hwqa-clear")
    pg.wait_for_function("() => !document.querySelector('#hwqa-chatbot').innerText.includes('PyTorch/XLA')")
    pg.click("#hwqa-undo")  # Clear chat can be undone
    pg.wait_for_function("() => document.querySelector('#hwqa-chatbot').innerText.includes('PyTorch/XLA')")
    pg.click("#hwqa-clear")
    pg.wait_for_function("() => !document.querySelector('#hwqa-chatbot').innerText.includes('PyTorch/XLA')")
    pg.wait_for_timeout(500)  # the browser keeps the cleared conversation
    pg.reload()
    pg.wait_for_selector("#hwqa-input textarea")
    assert "PyTorch/XLA" not in pg.inner_text("#hwqa-chatbot")


def test_prices_tab_filters_calculates_and_charts(page: Page) -> None:
    pg = page.page
    pg.get_by_role("tab", name="Prices").click()
    table = pg.locator("#hwqa-prices")
    table.wait_for()
    text = table.inner_text()
    assert "TPU v3-8" in text and "prices.md:" in text and "possibly stale" in text
    pg.fill("#hwqa-budget input", "1000")
    pg.click("#hwqa-calculate")
    pg.wait_for_selector("#hwqa-chart svg rect")
    assert pg.locator("#hwqa-chart svg rect").count() >= 3
    assert "V100-hours" in pg.inner_text("#hwqa-calc-table")
    assert "Recommendation" in pg.inner_text("#hwqa-calc-summary")
    screenshot(pg, "prices-tab")


def test_index_tab_shows_notes_links_and_model(page: Page) -> None:
    pg = page.page
    pg.get_by_role("tab", name="Index").click()
    summary = pg.locator("#hwqa-index-summary")
    summary.wait_for()
    assert "3 notes" in summary.inner_text() and "hash-256" in summary.inner_text()
    links = pg.inner_text("#hwqa-links")
    assert "outside.invalid/zebra" in links and "skipped" in links and "Zebra accelerator" in links
    skipped = pg.inner_text("#hwqa-skipped")
    assert "broken.md" in skipped and "UTF-8" in skipped
    screenshot(pg, "index-tab")


def test_hostile_note_renders_as_text_and_loads_nothing(page: Page) -> None:
    pg = page.page
    page.ask("Tell me about the Zebra accelerator and its zebra stripes")
    for summary in pg.locator("#hwqa-chatbot details.hwqa-src summary").all():
        summary.click()
    chat = pg.locator("#hwqa-chatbot")
    text = chat.inner_text()
    # The engine strips raw HTML from answers and passages (hwqa.answer.safety); what is left shows as text.
    assert "Zebra" in text and "zebra stripes" in text.lower()
    for tag in ("img", "iframe", "script", "style", "form", "svg", "object", "embed"):
        assert chat.locator(f".message-content {tag}").count() == 0, tag
    links = chat.locator(".message-content a")
    assert all(not (a.get_attribute("href") or "").lower().startswith("javascript:") for a in links.all())
    blocked = chat.locator(".message-content a[href='#blocked-link']")
    if blocked.count():
        blocked.first.click()
    # The Markdown image of an outside host is not loaded: it is a link that shows its address (not followed here).
    assert "image: Zebra accelerator diagram" in text
    for a in chat.locator(".message-content a[href^='http://outside.invalid']").all():
        assert a.inner_text() == a.get_attribute("href") and a.get_attribute("target") == "_blank"
        assert "nofollow" in (a.get_attribute("rel") or "")
    assert pg.evaluate("() => window.__hwqa_pwned") is None
    screenshot(pg, "hostile-note")
    assert page.outside_requests() == []


def test_mobile_tables_scroll_inside_the_message(browser: Any, app: App) -> None:
    p = Page(browser, app, width=400, height=860)
    try:
        pg = p.page
        p.ask("TPU or GPU for my budget of $500?")
        pg.locator("#hwqa-chatbot .thought-group .title").last.click()
        pg.wait_for_function("() => document.querySelector('#hwqa-chatbot').innerText.includes('Left out, and why')")
        cells = "#hwqa-chatbot .message-content td, #hwqa-chatbot .message-content th"
        assert pg.locator(cells).count() > 10
        assert pg.evaluate(NARROW_CELLS_JS, cells) == []
        assert pg.evaluate("() => document.documentElement.scrollWidth") <= 400
        # the answer table's price, hours and V100-hours are in view without scrolling sideways
        answer = pg.locator(ANSWER).last
        for name in ("$/h", "Hours", "V100-h"):
            box = answer.locator("th", has_text=name).first.bounding_box()
            assert box is not None and box["x"] + box["width"] <= 400, (name, box)
        screenshot(pg, "mobile-400")
        assert p.outside_requests() == [] and p.errors == []
    finally:
        p.close()


def test_rebuild_from_the_index_tab_shows_without_restart(page: Page, app: App) -> None:
    pg = page.page
    (Path(app.notes) / "new.md").write_text(
        "---\ntags: [prices, habana]\n---\n# Gaudi\n\nThe Gaudi accelerator from Habana.\n\n"
        "| hardware | provider | type | usd_per_hour |\n|---|---|---|---|\n| Gaudi2 | Lambda | gpu | 1.99 |\n",
        encoding="utf-8",
    )
    pg.get_by_role("tab", name="Index").click()
    pg.click("#hwqa-rebuild")
    assert pg.locator("#hwqa-index-summary").is_visible()  # the page stays while the rebuild runs
    pg.wait_for_function("() => document.querySelector('#hwqa-rebuild-result').innerText.includes('Rebuilt')", timeout=60_000)
    assert re.search(r"Rebuilt at \d\d:\d\d:\d\d .*4 notes", pg.inner_text("#hwqa-rebuild-result"))  # what changed, and when
    assert "4 notes" in pg.inner_text("#hwqa-index-summary")
    pg.get_by_role("tab", name="Prices").click()
    pg.wait_for_selector("#hwqa-prices >> text=Gaudi2")  # the new price row, without a restart
    pg.get_by_role("tab", name="Chat").click()
    pg.click("#hwqa-filter-tags input")
    pg.get_by_role("option", name="habana", exact=True).wait_for()  # the new note's tag is a filter choice
    pg.keyboard.press("Escape")
    screenshot(pg, "index-rebuilt")


def test_slow_model_shows_working_keeps_the_box_usable_and_stops(browser: Any, tmp_path: Path) -> None:
    from tests.fake_openai import FakeOpenAI, text

    script = [text("A slow answer about TPUs.", delay=30)] + [text("PyTorch/XLA runs PyTorch on TPUs [1].")] * 4
    with FakeOpenAI(script) as fake:
        slow = App(tmp_path, llm_backend="openai", llm_base_url=fake.base_url, llm_timeout=60)
        p = Page(browser, slow)
        try:
            pg = p.page
            assert pg.locator("#hwqa-send").is_visible() and not pg.locator("#hwqa-stop").is_visible()
            pg.fill("#hwqa-input textarea", "What did the Colab TPU runtime have?")
            pg.press("#hwqa-input textarea", "Enter")
            pg.wait_for_selector("#hwqa-chatbot >> text=Working…")  # from the first moment
            pg.wait_for_selector("#hwqa-stop", state="visible")  # Send turns into Stop while the answer is written
            assert not pg.locator("#hwqa-send").is_visible()
            assert pg.locator("#hwqa-input textarea").is_editable()
            pg.fill("#hwqa-input textarea", "What is PyTorch/XLA?")  # typed while the model is busy
            pg.press("#hwqa-input textarea", "Enter")
            pg.wait_for_selector("#hwqa-notice >> text=queued")
            assert pg.input_value("#hwqa-input textarea") == ""
            screenshot(pg, "chat-working")
            pg.click("#hwqa-stop")
            pg.wait_for_selector("#hwqa-chatbot >> text=Stopped.")
            pg.wait_for_selector("#hwqa-send", state="visible")
            assert pg.input_value("#hwqa-input textarea") == "What is PyTorch/XLA?"  # not lost
            pg.press("#hwqa-input textarea", "Enter")
            p.wait_answers(2)
            assert "PyTorch/XLA runs PyTorch on TPUs" in pg.locator(ANSWER).last.inner_text()
            assert p.outside_requests() == []
        finally:
            p.close()
            slow.stop()


def test_tag_filter_limits_the_sources_and_its_choices_are_text(page: Page) -> None:
    pg = page.page
    question = "Which accelerator has zebra stripes, and what did the Colab TPU runtime have?"

    def sources(answer: Any) -> list[str]:
        return [s.inner_text() for s in answer.locator("details.hwqa-src summary").all()]

    everything = sources(page.ask(question))
    assert any("Zebra accelerator" in s for s in everything) and any("TPU notes" in s for s in everything)
    pg.click("#hwqa-filter-tags input")
    options = pg.get_by_role("option")
    options.first.wait_for()
    labels = [o.inner_text() for o in options.all()]
    assert "tpu" in labels and "hostile" in labels
    assert "<img src=x onerror=window.__hwqa_pwned='tag'>" in labels  # a note's tag, shown as text
    assert pg.locator("#hwqa-filter-tags img").count() == 0
    pg.get_by_role("option", name="tpu", exact=True).click()
    pg.keyboard.press("Escape")
    assert "tpu" in pg.inner_text("#hwqa-filter-tags")
    pg.click("#hwqa-filter-notes input")
    pg.get_by_role("option", name="Zebra accelerator", exact=True).wait_for()  # notes by title
    pg.keyboard.press("Escape")
    filtered = sources(page.ask(question))
    assert filtered and all("TPU notes" in s for s in filtered), filtered
    assert pg.evaluate("() => window.__hwqa_pwned") is None
    screenshot(pg, "chat-tag-filter")
