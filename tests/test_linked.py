"""A note's link line leads retrieval to the page it links: a question worded like the one-liner of a
reading list gets the linked page's passage quoted and cited, not only the one-liner."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hwqa.answer.retrieve import Filter
from hwqa.engine import Engine

from .conftest import LOOPBACK_FETCH, built_hash_index, write_note
from .helpers_http import LoopbackSite, Reply


def _page(title: str, sections: list[tuple[str, str]]) -> str:
    body = "".join(f"<h2>{heading}</h2>\n<p>{text}</p>\n" for heading, text in sections)
    return f"<!doctype html><html><head><title>{title}</title></head><body><main><h1>{title}</h1>\n{body}</main></body></html>"


# A long page, cut into many chunks: the answer is in one section, in words of its own.
FILLER = [
    (
        f"Collection {i}",
        f"A saved collection number {i} restores a set of loaded packages in one command; collections live in "
        f"the home directory and can be named after a project, a compiler or a cluster partition {i}.",
    )
    for i in range(1, 9)
]
STICKY_PAGE = _page(
    "Sticky Modules - Lmod docs",
    [
        *FILLER[:4],
        (
            "Marking a modulefile",
            'Give the modulefile the property add_property("lmod","sticky"); Lmod then keeps it loaded, and only '
            "module --force purge unloads it.",
        ),
        *FILLER[4:],
    ],
)
SPIDER_PAGE = _page(
    "Module spider - Lmod docs",
    [("Searching", "The spider command lists every version of every package the site provides, with a short description.")],
)
NOTE = """# Lmod reading list

Pages I keep open when the cluster's environment misbehaves.

- [Sticky Modules - Lmod docs]({sticky}) - the module that wont go away w/ purge
- [Module spider - Lmod docs]({spider}) - finding every version of a module the site has
"""


@pytest.fixture(scope="module")
def site() -> Iterator[LoopbackSite]:
    routes = {
        "/lmod/240_sticky_modules.html": Reply(body=STICKY_PAGE),
        "/lmod/spider.html": Reply(body=SPIDER_PAGE),
        "/robots.txt": Reply(body="User-agent: *\nAllow: /\n", content_type="text/plain"),
    }
    with LoopbackSite(routes) as s:
        yield s


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, site: LoopbackSite) -> Engine:
    tmp = tmp_path_factory.mktemp("linked")
    note = NOTE.format(sticky=site.url("/lmod/240_sticky_modules.html"), spider=site.url("/lmod/spider.html"))
    write_note(tmp / "notes", "lmod.md", note)
    write_note(tmp / "notes", "gpus.md", "# GPUs\n\nThe lab's A100 nodes run CUDA 12.\n")
    return Engine.load(built_hash_index(tmp, **LOOPBACK_FETCH, chunk_tokens=60, chunk_overlap=0, min_score=0.0))


QUESTION = "Which module won't go away with purge, and how do I make one?"


def test_the_linked_page_s_passage_is_quoted_and_cited_with_the_note_s_line(engine: Engine) -> None:
    answer = engine.ask(QUESTION)
    assert 'add_property("lmod","sticky")' in answer.text, answer.text
    cited = [c.url for c in answer.citations]
    assert any(url and url.endswith("/lmod/240_sticky_modules.html") for url in cited), answer.citations


def test_only_the_line_that_matches_is_followed_and_the_note_stays(engine: Engine) -> None:
    """Two links in one passage: the sticky page's answering section joins the hits first, the note's
    passage right after it (the other link's page is not followed); the list keeps its cap."""
    hits = engine.search(QUESTION, 4)
    assert len(hits) == 4
    assert "add_property" in hits[0].chunk.text, [h.chunk.text[:60] for h in hits]
    assert hits[1].chunk.kind == "note" and "wont go away" in hits[1].chunk.text
    followed = [h for h in hits if h.pointer]
    assert followed and all(h.chunk.url and h.chunk.url.endswith("/240_sticky_modules.html") for h in followed), hits
    assert "wont go away" in followed[0].pointer


def test_a_filter_on_the_note_still_follows_its_link(engine: Engine) -> None:
    answer = engine.ask(QUESTION, flt=Filter.of(notes=["lmod.md"]))
    assert 'add_property("lmod","sticky")' in answer.text, answer.text


# The line names a section of a long page by its #fragment; that section shares no word with the question.
FRAGMENT_PAGE = _page(
    "Lmod properties",
    [
        *FILLER[:3],
        ("Staying loaded", 'Give the modulefile add_property("lmod","sticky"): Lmod keeps it through all but a forced reset.'),
        *FILLER[3:6],
    ],
)


def test_a_link_s_fragment_names_the_section_that_joins(tmp_path: Path) -> None:
    with LoopbackSite({"/lmod/properties.html": Reply(body=FRAGMENT_PAGE)}) as s:
        url = s.url("/lmod/properties.html") + "#staying-loaded"
        note = f"# Lmod\n\n- [Lmod properties]({url}) - the module that wont go away w/ purge\n"
        write_note(tmp_path / "notes", "lmod.md", note)
        settings = built_hash_index(tmp_path, **LOOPBACK_FETCH, chunk_tokens=60, chunk_overlap=0, min_score=0.0)
    hits = Engine.load(settings).search("Which module won't go away with purge?", 3)
    assert 'add_property("lmod","sticky")' in hits[0].chunk.text, [h.chunk.text[:60] for h in hits]
    assert "wont go away" in hits[0].pointer
