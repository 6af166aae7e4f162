"""What the page is dressed in: its stylesheet, its script, its theme and the bundled font.

The font (DejaVu Sans Condensed, regular and bold, cut to the Latin, Greek, punctuation and
symbol ranges the page uses; licence in ``fonts/LICENSE``) is served by the app itself under
``/hwqa/font/``, so every glyph renders the same on every machine and nothing is loaded from
another host. It was cut with fontTools:
``pyftsubset DejaVuSansCondensed.ttf --unicodes=U+0020-007E,U+00A0-017F,... --flavor=woff2``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FONT_ROUTE = "/hwqa/font/"
FONT_DIR = Path(__file__).resolve().parent / "fonts"
FONTS = ("DejaVuSansCondensed.woff2", "DejaVuSansCondensed-Bold.woff2")
FONT_FAMILY = "hwqa Sans"

FONT_FACES = f"""
@font-face {{ font-family: "{FONT_FAMILY}"; src: url("{FONT_ROUTE}{FONTS[0]}") format("woff2");
  font-weight: 100 550; font-style: normal; font-display: swap; }}
@font-face {{ font-family: "{FONT_FAMILY}"; src: url("{FONT_ROUTE}{FONTS[1]}") format("woff2");
  font-weight: 551 900; font-style: normal; font-display: swap; }}
"""

CSS = (
    FONT_FACES
    + """
.hwqa-chat .message-content table, .hwqa-chat .prose table { display: block; overflow-x: auto; max-width: 100%; }
.hwqa-chat .message-content th, .hwqa-chat .message-content td {
  word-break: normal !important; overflow-wrap: normal !important; hyphens: none; white-space: nowrap; }
.hwqa-chat .message-content { overflow-wrap: anywhere; }
.hwqa-chat details.hwqa-src { margin: 0.3em 0; border-left: 3px solid var(--color-accent, #f97316); padding-left: 0.5em; }
.hwqa-chat details.hwqa-src > summary { cursor: pointer; font-weight: 600; }
.hwqa-chat .hwqa-passage { max-height: 22em; overflow: auto; font-size: 0.92em; opacity: 0.9; }
.hwqa-chat a.hwqa-ext { overflow-wrap: anywhere; }
/* Gradio 6 draws a table's body as rows of div.body-cell (a virtual table) under its header <table>. */
.hwqa-table * { font-family: "hwqa Sans", ui-sans-serif, system-ui, sans-serif !important; }
.hwqa-table th, .hwqa-table th *, .hwqa-table .body-cell, .hwqa-table .body-cell * {
  word-break: normal !important; overflow-wrap: normal !important; }
.hwqa-wrap th, .hwqa-wrap th *, .hwqa-wrap .body-cell, .hwqa-wrap .body-cell * {
  white-space: normal !important; overflow-wrap: break-word !important; text-overflow: clip !important; }
.hwqa-chart { max-width: 900px; }
#hwqa-chart { overflow-x: auto; }
#hwqa-chart svg { min-width: 600px; }
#hwqa-notice:empty, #hwqa-calc-error:empty { display: none; }
.hwqa-error { color: var(--error-text-color, #b91c1c); }
.hwqa-filters { gap: 0.5em; }
.hwqa-chatbar { align-items: center; gap: 0.5em; }
.hwqa-examples button { font-weight: normal; }
#hwqa-clear { margin-left: auto; border: 1px solid currentColor; color: var(--error-text-color, #b91c1c);
  background: transparent; }
/* One clear control: "Clear chat" (with Undo, saved). Gradio's own trash icon in the chat is not drawn. */
#hwqa-chatbot .icon-button-wrapper.top-panel, #hwqa-chatbot button[aria-label="Clear"] { display: none !important; }
#hwqa-link-health p { font-size: 1.05em; }
/* A wide answer table scrolls inside the message with a scrollbar you can see; its first column
   (the hardware) stays in view while the others scroll. */
.hwqa-chat .message-content table { scrollbar-width: thin; scrollbar-color: var(--border-color-primary, #999) transparent;
  padding-bottom: 4px; }
.hwqa-chat .message-content table::-webkit-scrollbar { height: 8px; }
.hwqa-chat .message-content table::-webkit-scrollbar-thumb { background: var(--border-color-primary, #999); border-radius: 4px; }
.hwqa-chat .message-content tr > :first-child { position: sticky; left: 0; z-index: 1;
  background: var(--background-fill-secondary, #f4f4f5) !important; box-shadow: 1px 0 0 var(--border-color-primary); }
.hwqa-chat .message-content tr > th:first-child { z-index: 2; }
#hwqa-loaded p { margin: 0; font-size: 0.85em; color: var(--body-text-color-subdued, #6b7280); overflow-wrap: anywhere; }
#hwqa-delete { border: 1px solid var(--border-color-primary); }
@media (max-width: 480px) {
  .hwqa-chat .message-content table { font-size: 0.85em; }
  .hwqa-chat .message-content th, .hwqa-chat .message-content td { padding: 0.3em 0.4em !important; }
  .hwqa-chat .message-wrap { padding-left: 0 !important; padding-right: 0 !important; }
  .hwqa-fields > * { min-width: 45% !important; }
  .hwqa-fields > .hwqa-wide, #hwqa-preemptible { min-width: 100% !important; }
}
"""
)

# Clicking a [n] marker opens its source; the theme button switches light/dark without a reload;
# links that open a new tab carry rel="noopener noreferrer nofollow" (Gradio's sanitizer writes its own rel).
JS = """
() => {
  const REL = 'noopener noreferrer nofollow';
  const setRel = (a) => { if (a.getAttribute('rel') !== REL) a.setAttribute('rel', REL); };
  const openSource = (hash) => {
    if (!hash || !hash.startsWith('#hwqa-src-')) return;
    const el = document.getElementById(hash.slice(1));
    if (el && el.tagName === 'DETAILS') { el.open = true; el.scrollIntoView({block: 'nearest'}); }
  };
  document.addEventListener('click', (ev) => {
    const a = ev.target.closest && ev.target.closest('a[href^="#hwqa-src-"]');
    if (a) { ev.preventDefault(); openSource(a.getAttribute('href')); return; }
    const out = ev.target.closest && ev.target.closest('a[target="_blank"]');
    if (out) setRel(out);
  }, true);
  // An icon-only button nested in another button (a calculator step's arrow) is hidden from screen
  // readers: the outer button, named by the step's title, opens and closes the step.
  const NESTED = '[role="button"] button:not([aria-hidden])';
  const quiet = (b) => {
    if (!b.textContent.trim() && !b.getAttribute('aria-label')) { b.setAttribute('aria-hidden', 'true'); b.tabIndex = -1; }
  };
  const fix = (node) => {
    if (node.nodeType !== 1) return;
    if (node.matches('a[target="_blank"]')) setRel(node);
    node.querySelectorAll('a[target="_blank"]').forEach(setRel);
    if (node.matches(NESTED)) quiet(node);
    node.querySelectorAll(NESTED).forEach(quiet);
  };
  new MutationObserver((changes) => changes.forEach((c) => {
    if (c.type === 'attributes') fix(c.target); else c.addedNodes.forEach(fix);
  })).observe(document.body, {childList: true, subtree: true, attributes: true, attributeFilter: ['rel']});
  fix(document.body);
  window.hwqaToggleTheme = () => {
    const dark = !document.body.classList.contains('dark');
    document.body.classList.toggle('dark', dark);
    document.querySelector('gradio-app')?.classList.toggle('dark', dark);
    try { localStorage.setItem('hwqa-theme', dark ? 'dark' : 'light'); } catch (e) {}
  };
  try { if (localStorage.getItem('hwqa-theme') === 'dark') { document.body.classList.add('dark'); } } catch (e) {}
  // Keys: ArrowUp in the empty box recalls the last question; Esc stops the answer being written.
  document.addEventListener('keydown', (ev) => {
    const box = ev.target && ev.target.closest && ev.target.closest('#hwqa-input textarea');
    if (box && ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing && box.value.trim()) {
      // The question is taken now, at the key press (the send queue, layout.TAKE_QUESTION, asks it):
      // the box is empty before another key lands, so a question typed right after is kept whole.
      (window.hwqaTaken = window.hwqaTaken || []).push(box.value);
      box.value = ''; box.dispatchEvent(new Event('input', {bubbles: true}));
    } else if (ev.key === 'ArrowUp' && box && !box.value && !ev.shiftKey && !ev.altKey && !ev.ctrlKey && !ev.metaKey) {
      const asked = document.querySelectorAll('#hwqa-chatbot .user');
      const last = asked.length ? asked[asked.length - 1].innerText.trim() : '';
      if (last) {
        ev.preventDefault();
        box.value = last; box.dispatchEvent(new Event('input', {bubbles: true}));
        box.setSelectionRange(last.length, last.length);
      }
    } else if (ev.key === 'Escape') {
      const stop = document.querySelector('#hwqa-stop');
      if (stop && stop.offsetParent !== null) { ev.preventDefault(); stop.click(); }
    }
  }, true);
  // The box gets the focus without scrolling the page: a phone opens at the title and the tabs.
  const focusBox = (tries) => {
    const box = document.querySelector('#hwqa-input textarea');
    if (box) { box.focus({preventScroll: true}); window.scrollTo(0, 0); }
    else if (tries > 0) setTimeout(() => focusBox(tries - 1), 100);
  };
  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
  focusBox(50);
}
"""


def theme() -> Any:
    """Gradio's default theme in the bundled font (never a font from another host)."""
    import gradio as gr

    return gr.themes.Default(font=[FONT_FAMILY, "ui-sans-serif", "system-ui", "sans-serif"])


def font_file(name: str) -> Path | None:
    """The bundled font file called ``name``, or None (only the listed files are served)."""
    return FONT_DIR / name if name in FONTS else None
