"""Finding the links in a note: what a reader sees as a link is a source; code is not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hwqa.notes.links import Link, find_all_urls, find_links, normalize_url


def urls(markdown: str) -> list[str]:
    return [link.url for link in find_links(markdown)]


def test_inline_links_with_text_title_and_line() -> None:
    md = '# Notes\n\nSee [GPU guide](https://example.com/gpu "The guide") today.\n'
    assert find_links(md) == [Link("https://example.com/gpu", None, "GPU guide", 3)]


def test_fragment_is_split_off_and_kept() -> None:
    md = "* [EvalAI](https://github.com/Cloud-CV/EvalAI#platform-comparison)"
    (link,) = find_links(md)
    assert link.url == "https://github.com/Cloud-CV/EvalAI"
    assert link.fragment == "platform-comparison"


def test_autolinks_and_bare_urls_with_trailing_punctuation_trimmed() -> None:
    md = (
        "Autolink <https://auto.example/a>.\n"
        "Bare https://bare.example/path?q=1, then more.\n"
        "In parens (https://paren.example/x) and wiki https://en.wikipedia.org/wiki/TPU_(chip).\n"
        "End of sentence: https://end.example/page!\n"
    )
    assert urls(md) == [
        "https://auto.example/a",
        "https://bare.example/path?q=1",
        "https://paren.example/x",
        "https://en.wikipedia.org/wiki/TPU_(chip)",
        "https://end.example/page",
    ]
    assert all(link.text == "" for link in find_links(md))


def test_links_in_code_are_not_links() -> None:
    md = (
        "Real [one](https://real.example/1).\n"
        "Inline `https://inline.example/` and ``code with ` tick https://inline2.example/``.\n"
        "\n"
        "```bash\n"
        "curl https://fenced.example/\n"
        "[x](https://fenced-link.example/)\n"
        "```\n"
        "~~~\n"
        "https://tilde.example/\n"
        "~~~\n"
        "\n"
        "    https://indented.example/\n"
        "\n"
        "<!-- https://comment.example/ -->\n"
        "After https://after.example/\n"
    )
    assert urls(md) == ["https://real.example/1", "https://after.example/"]
    assert find_links(md)[-1].line == 15


def test_indented_lines_inside_lists_are_not_code() -> None:
    md = "- parent\n\n    [child](https://child.example/)\n"
    assert urls(md) == ["https://child.example/"]


def test_reference_style_links() -> None:
    md = (
        "Read [the guide][g] and [Intento] and [again][].\n"
        "\n"
        '[g]: https://guide.example/ "Guide"\n'
        "[intento]: <https://blog.inten.to/x>\n"
        "[again]: https://again.example/#part\n"
        "[unused]: https://unused.example/\n"
    )
    links = find_links(md)
    assert [(lk.url, lk.text, lk.line) for lk in links] == [
        ("https://guide.example/", "the guide", 1),
        ("https://blog.inten.to/x", "Intento", 1),
        ("https://again.example/", "again", 1),
        ("https://unused.example/", "unused", 6),
    ]
    assert links[2].fragment == "part"


def test_images_are_not_links_but_a_linked_badge_is() -> None:
    md = "![chip](https://img.example/chip.png)\n[![badge](https://img.example/b.svg)](https://target.example/)\n"
    assert find_links(md) == [Link("https://target.example/", None, "badge", 2)]


def test_non_http_schemes_are_reported_separately() -> None:
    md = (
        "[passwd](file:///etc/passwd) <ftp://ftp.example/pub> gopher? no. file:///tmp/x\n"
        "[mail](mailto:me@example.com) [note](other-note.md) [web](https://web.example/)\n"
    )
    assert [link.url for link in find_all_urls(md)] == [
        "file:///etc/passwd",
        "ftp://ftp.example/pub",
        "file:///tmp/x",
        "https://web.example/",
    ]
    assert urls(md) == ["https://web.example/"]


def test_urls_are_normalised() -> None:
    md = "[a](HTTPS://Example.COM:443) [b](http://Example.com:8080/Path?Q=1) <https://[::1]:80/x>"
    assert urls(md) == ["https://example.com/", "http://example.com:8080/Path?Q=1", "https://[::1]:80/x"]
    assert normalize_url("relative/path.md") is None
    assert normalize_url("<https://x.example/a b#Frag%201>") == ("https://x.example/a%20b", "Frag 1")


def test_escaped_brackets_are_not_links() -> None:
    assert urls(r"\[not a link\](https://x.example/)") == ["https://x.example/"]
    assert find_links(r"\[not\](https://x.example/)")[0].text == ""


OWNER_LINKS = """\
# Hardware for ML

* [Hardware for deep learning, part 3: GPU](https://blog.example.org/hardware-for-deep-learning-part-3-gpu-8906c1644664) - \
a long read on why GPUs won.
* Leaderboards compared: [EvalAI](https://github.com/Cloud-CV/EvalAI#platform-comparison) lists who hosts what.
* [Colab FAQ](https://research.google.com/colaboratory/faq.html) (what runtime you get), and
  [TPU pricing](https://cloud.google.com/tpu/pricing#pricing) in a sentence: $8.00/hr for a TPU v3.
"""


def test_links_in_a_note_in_the_owners_style() -> None:
    links = find_links(OWNER_LINKS)
    got = {link.url for link in links}
    assert "https://blog.example.org/hardware-for-deep-learning-part-3-gpu-8906c1644664" in got
    eval_ai = [lk for lk in links if lk.url == "https://github.com/Cloud-CV/EvalAI"]
    assert eval_ai and eval_ai[0].fragment == "platform-comparison"
    assert "https://cloud.google.com/tpu/pricing" in got and "https://research.google.com/colaboratory/faq.html" in got
    assert all(lk.url.startswith(("http://", "https://")) and "#" not in lk.url for lk in links)


PIECES = [
    "[",
    "]",
    "](",
    "(",
    ")",
    "https://x.example/a",
    "http://Y.example",
    "file:///x",
    "`",
    "``",
    "```\n",
    "~~~\n",
    "\n",
    "\n\n",
    "    ",
    "- ",
    "<",
    ">",
    "#frag",
    " ",
    "word",
    "!",
    "[r]: ",
    "[r]",
    "\\",
    '"t"',
    "<!--",
    "-->",
    ".",
    ",",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60).map("".join) | st.text(max_size=200))
def test_never_crashes_and_only_returns_http_links(text: str) -> None:
    lines = text.count("\n") + 1
    for link in find_links(text):
        assert link.url.split(":", 1)[0] in ("http", "https")
        assert "#" not in link.url
        assert 1 <= link.line <= lines
