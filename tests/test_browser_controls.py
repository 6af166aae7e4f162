"""The web chat in real headless Chromium, continued: sources you can open, the note viewer,
several conversations, errors as text, the index tab, the bundled font and English names.

Same rules as test_browser.py: every request the page makes is recorded, none may go to another
host, and no link to another host is followed. Screenshots go to tests/artifacts/ (git-ignored).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser_support import NARROW_CELLS_JS, XLA_LINK, App, in_ci, screenshot
from tests.test_browser import MISSING, Page, app, browser, page  # noqa: F401  (fixtures)

if MISSING and not in_ci():
    pytest.skip(MISSING, allow_module_level=True)


def open_sources(pg: Any) -> None:
    for summary in pg.locator("#hwqa-chatbot details.hwqa-src summary").all():
        summary.click()


def test_a_link_in_a_cited_passage_is_a_real_link_showing_its_address(page: Page) -> None:  # noqa: F811
    pg = page.page
    page.ask("What is PyTorch/XLA and where is the XLA bridge described?")
    open_sources(pg)
    link = pg.locator(f"#hwqa-chatbot .hwqa-passage a[href='{XLA_LINK}']").first
    link.wait_for()
    assert link.inner_text() == XLA_LINK  # exactly the address the note holds
    assert link.get_attribute("target") == "_blank"
    assert link.get_attribute("rel") == "noopener noreferrer nofollow"
    assert "github.com" in (link.get_attribute("title") or "")
    assert "[:]" not in pg.locator("#hwqa-chatbot .hwqa-passage").first.inner_text()  # not defanged
    screenshot(pg, "chat-passage-link")


def test_the_note_viewer_shows_the_cited_lines_highlighted_without_front_matter(page: Page) -> None:  # noqa: F811
    pg = page.page
    page.ask("What did the Colab TPU runtime have?")
    href = pg.locator("#hwqa-chatbot a.hwqa-src-link").first.get_attribute("href")
    assert href and href.startswith("/hwqa/note/tpu.md?")
    viewer = page.context.new_page()
    viewer.goto(page.app.url + href)
    cited = viewer.locator("#hwqa-cited")
    cited.wait_for()
    assert "Colab TPU runtime had a TPU v3 with 8 cores" in cited.inner_text()
    assert "hwqa-cited" in (cited.get_attribute("class") or "")
    assert viewer.evaluate("() => location.hash") == "#hwqa-cited"  # scrolled to it
    assert viewer.evaluate("() => getComputedStyle(document.querySelector('#hwqa-cited')).backgroundColor") not in (
        "rgba(0, 0, 0, 0)",
        "transparent",
    )
    text = viewer.inner_text("body")
    assert "aliases:" not in text and "draft: false" not in text and "---" not in text  # no front matter
    assert viewer.locator("h2", has_text="Colab").count() == 1  # rendered Markdown, not the raw text
    viewer.evaluate("() => document.fonts.ready")
    assert viewer.evaluate("() => getComputedStyle(document.body).fontFamily").startswith('"hwqa Sans"')
    assert viewer.evaluate("() => [...document.fonts].some((f) => f.family.includes('hwqa Sans') && f.status === 'loaded')")
    screenshot(viewer, "note-viewer")
    viewer.close()


def test_the_hostile_note_in_the_viewer_runs_and_loads_nothing(page: Page) -> None:  # noqa: F811
    viewer = page.context.new_page()
    viewer.goto(page.app.url + "/hwqa/note/zebra.md?q=zebra%20stripes")
    viewer.wait_for_selector("main")
    for tag in ("img", "iframe", "script", "svg", "form", "object", "embed"):
        assert viewer.locator(f"main {tag}").count() == 0, tag
    assert viewer.evaluate("() => window.__hwqa_pwned") is None
    for a in viewer.locator("main a").all():
        href = a.get_attribute("href") or ""
        assert not href.lower().startswith("javascript:"), href
        if href.startswith("http"):
            assert a.get_attribute("rel") == "noopener noreferrer nofollow"
    viewer.close()


def test_a_second_conversation_is_kept_after_a_reload(page: Page) -> None:  # noqa: F811
    pg = page.page
    page.ask("What is PyTorch/XLA?")
    pg.click("#hwqa-new-chat")
    pg.wait_for_function("() => !document.querySelector('#hwqa-chatbot').innerText.includes('PyTorch/XLA')")
    page.ask("How much does a V100 cost per hour?")
    pg.wait_for_selector("#hwqa-send", state="visible")
    pg.wait_for_timeout(500)
    pg.reload()
    pg.wait_for_selector("#hwqa-chatbot .bot")
    shown = pg.inner_text("#hwqa-chatbot")  # the second conversation: its question, not the first one's
    assert "How much does a V100 cost per hour?" in shown and "What is PyTorch/XLA?" not in shown
    pg.click("#hwqa-conversations input")
    pg.get_by_role("option", name="What is PyTorch/XLA?").click()
    pg.wait_for_function(
        "() => !document.querySelector('#hwqa-chatbot').innerText.includes('How much does a V100 cost per hour?')"
    )
    assert "What is PyTorch/XLA?" in pg.inner_text("#hwqa-chatbot")
    screenshot(pg, "chat-conversations")


def test_a_negative_budget_is_one_line_under_the_fields_and_clears_the_old_result(
    page: Page,  # noqa: F811
    capfd: pytest.CaptureFixture[str],
) -> None:
    pg = page.page
    pg.get_by_role("tab", name="Prices").click()
    pg.fill("#hwqa-budget input", "1000")
    pg.click("#hwqa-calculate")
    pg.wait_for_selector("#hwqa-chart svg rect")
    pg.fill("#hwqa-budget input", "-5")
    pg.click("#hwqa-calculate")
    error = pg.locator("#hwqa-calc-error")
    error.wait_for(state="visible")
    pg.wait_for_function("() => document.querySelector('#hwqa-calc-error').innerText.includes('negative')")
    assert error.inner_text().strip() == "⚠️ Budget can't be negative (you typed -5); type 0 or more, or leave it empty."
    assert pg.locator("#hwqa-chart svg").count() == 0  # no stale chart
    assert "Recommendation" not in pg.inner_text("#hwqa-calc-summary")
    assert "TPU v3-8" not in pg.inner_text("#hwqa-calc-table")
    assert pg.locator(".toast-body, .error").count() == 0  # no pop-up, no red badges
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err
    screenshot(pg, "prices-error")


def test_the_index_tab_says_first_why_links_failed_and_every_column_reads(browser: Any, app: App) -> None:  # noqa: F811
    p = Page(browser, app, width=400, height=860)
    try:
        pg = p.page
        pg.get_by_role("tab", name="Index").click()
        health = pg.locator("#hwqa-link-health")
        health.wait_for()
        # Gradio shows its timer ("0.4s") in the box while the tab's data loads: wait until the text is there.
        pg.wait_for_function(
            "() => /^\\d+ links of \\d+ were not fetched/.test(document.querySelector('#hwqa-link-health').innerText.trim())"
        )
        assert re.match(r"\d+ links of \d+ were not fetched: fetching links is turned off", health.inner_text().strip())
        assert "answers use your notes only" in health.inner_text()
        assert "fetching links is turned off" in pg.inner_text("#hwqa-reasons")
        # Gradio 6 draws table bodies as div.body-cell; the first column holds URLs, which may break anywhere
        cells = "#hwqa-links .body-cell:not(:first-child), #hwqa-links th, #hwqa-reasons .body-cell, #hwqa-skipped th"
        assert pg.locator("#hwqa-links .body-cell").count() > 10
        assert pg.evaluate(NARROW_CELLS_JS, cells) == []  # no word cut inside a column
        assert pg.evaluate("() => document.documentElement.scrollWidth") <= 400  # the tab scrolls, never cut
        assert p.outside_requests() == [] and p.errors == []
    finally:
        p.close()


# Every distinct character on the page, measured in the bundled font with two different fallbacks:
# the same width both ways means the bundled font drew it.
GLYPHS_JS = """
async () => {
  await document.fonts.ready;
  await Promise.all(['400', '700'].map((w) => document.fonts.load(`${w} 16px "hwqa Sans"`)));
  const text = document.body.innerText + [...document.querySelectorAll('input, textarea')].map((e) => e.placeholder).join('');
  const emoji = /\\p{Extended_Pictographic}|\\uFE0F/u;  // drawn by the system's emoji font
  const chars = [...new Set([...text])].filter((c) => c.trim() && c.codePointAt(0) > 32 && !emoji.test(c));
  const ctx = document.createElement('canvas').getContext('2d');
  const missing = [];
  for (const weight of ['400', '700']) {
    for (const c of chars) {
      ctx.font = `${weight} 40px "hwqa Sans", monospace`; const a = ctx.measureText(c).width;
      ctx.font = `${weight} 40px "hwqa Sans", serif`; const b = ctx.measureText(c).width;
      if (Math.abs(a - b) > 0.01) missing.push(`${weight}:${c}`);
    }
  }
  const root = document.querySelector('.gradio-container') || document.body;
  const other = [];  // text drawn in another font (code is the theme's monospace, on purpose)
  for (const el of root.querySelectorAll('*')) {
    if (el.closest('code, pre, kbd, samp, svg') || el.offsetParent === null) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const font = getComputedStyle(el).fontFamily;
    const text = el.textContent.trim().slice(0, 30);
    if (own && !font.startsWith('"hwqa Sans"')) other.push(`${el.tagName} in ${font.slice(0, 20)}: ${text}`);
  }
  return {missing, other: other.slice(0, 10), family: getComputedStyle(root).fontFamily, count: chars.length};
}
"""


def test_the_bundled_font_draws_every_character_and_every_control_has_an_english_name(page: Page) -> None:  # noqa: F811
    pg = page.page
    page.ask("TPU or GPU for my budget of $500?")
    seen = 0
    for tab in ("Chat", "Prices", "Index"):
        pg.get_by_role("tab", name=tab).click()
        if tab == "Prices":
            pg.fill("#hwqa-budget input", "500")
            pg.click("#hwqa-calculate")
            pg.wait_for_selector("#hwqa-chart svg rect")
        pg.wait_for_timeout(300)
        found = pg.evaluate(GLYPHS_JS)
        assert found["family"].startswith('"hwqa Sans"'), found["family"]
        assert found["missing"] == [], (tab, found["missing"])
        assert found["other"] == [], (tab, found["other"])
        seen += found["count"]
        tree = pg.locator("body").aria_snapshot()
        assert not re.search(r"\b(common|chatbot|dataframe|upload|checkbox)\.[a-z_]+\b", tree), tree  # no i18n keys
        unnamed = re.findall(r"^\s*- (button|textbox|combobox|checkbox|tab)(?: \[[^\]]*\])?:?\s*$", tree, re.MULTILINE)
        assert unnamed == [], (tab, tree)
        assert "common.complete" not in pg.evaluate("() => document.body.textContent")
    assert seen > 60
    assert any("/hwqa/font/DejaVuSansCondensed" in u for u in page.requests)  # served by the app itself


@pytest.mark.parametrize("width", [1280, 400])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshots_of_every_tab(browser: Any, app: App, width: int, theme: str) -> None:  # noqa: F811
    p = Page(browser, app, width=width, height=900)
    try:
        pg = p.page
        if theme == "dark":
            pg.click("#hwqa-theme")
            pg.wait_for_function("() => document.body.classList.contains('dark')")
        p.ask("TPU or GPU for my budget of $500?")
        open_sources(pg)
        screenshot(pg, f"tab-chat-{width}-{theme}")
        pg.get_by_role("tab", name="Prices").click()
        pg.fill("#hwqa-budget input", "500")
        pg.click("#hwqa-calculate")
        pg.wait_for_selector("#hwqa-chart svg rect")
        screenshot(pg, f"tab-prices-{width}-{theme}")
        pg.get_by_role("tab", name="Index").click()
        pg.locator("#hwqa-link-health").wait_for()
        screenshot(pg, f"tab-index-{width}-{theme}")
        assert pg.evaluate("() => document.documentElement.scrollWidth") <= width
        assert p.outside_requests() == [] and p.errors == []
    finally:
        p.close()


def test_a_filtered_question_its_notes_dont_cover_names_the_filter(page: Page) -> None:  # noqa: F811
    pg = page.page
    pg.click("#hwqa-filter-tags input")
    pg.get_by_role("option", name="tpu", exact=True).click()
    pg.keyboard.press("Escape")
    answer = page.ask("Which accelerator has zebra stripes?")
    text = answer.inner_text()
    assert "I searched only the notes tagged “tpu”" in text and "(your filter)" in text, text
    assert "don't cover" in text
    screenshot(pg, "chat-filter-not-covered")


def test_the_spot_control_brings_preemptible_prices_in(page: Page) -> None:  # noqa: F811
    pg = page.page
    first = page.ask("TPU or GPU for my budget of $500?").inner_text()
    assert "Left out by your filters" not in first  # no filter was set
    assert "Not counted: TPU v3-8 (GCP, preemptible)" in first
    pg.locator("#hwqa-chat-preemptible input[type=checkbox]").check()
    second = page.ask("TPU or GPU for my budget of $500?").inner_text()
    assert "Not counted" not in second and "preemptible" in second


def test_a_follow_up_says_what_it_reused(page: Page) -> None:  # noqa: F811
    page.ask("How much does a TPU v3 cost per hour?")
    text = page.ask("and with $1000?").inner_text()
    assert text.startswith("Using TPU v3 from your earlier question."), text
