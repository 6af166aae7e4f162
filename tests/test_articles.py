"""Linked web articles end to end: fetched from a loopback site, extracted, chunked, cited."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.build.builder import build_index
from hwqa.cli import app
from hwqa.engine import Engine
from hwqa.settings import Settings, load_settings

from .conftest import write_note
from .helpers_http import LoopbackSite, Reply

BOILERPLATE = """
<header class="site-header"><a href="/">NAVMARK Home</a> <a href="/about">NAVMARK About us</a></header>
<nav><ul><li><a href="/a">NAVMARK Articles</a></li><li><a href="/b">NAVMARK Pricing</a></li></ul></nav>
<div class="cookie-banner">COOKIEMARK We use cookies to improve your experience. Accept all?</div>
<aside class="sidebar">SIDEMARK Related posts: ten GPUs you must buy</aside>
"""
FOOTER = "<footer>FOOTMARK © 2026 Example Hardware Blog · Privacy · Terms</footer><script>var SCRIPTMARK=1;</script>"
MARKS = ("NAVMARK", "COOKIEMARK", "SIDEMARK", "FOOTMARK", "SCRIPTMARK")


def article(i: int) -> str:
    special = (
        "<h2>Zephyr-9 memory</h2><p>The Zephyr-9 accelerator carries 96 GB of stacked memory and a 3 TB/s bus.</p>"
        if i == 37
        else ""
    )
    return f"""<!doctype html><html><head><title>Hardware article {i}</title></head><body>{BOILERPLATE}
    <main><article><h1>Hardware article {i}</h1>
    <p>Article {i} compares training accelerators for deep learning workloads number {i}.</p>
    <h2>Throughput</h2><p>In test {i} the GPU processed {i * 10} images per second with mixed precision.</p>
    {special}
    <h2>Prices</h2><table><tr><th>Chip</th><th>USD per hour</th></tr><tr><td>Chip {i}</td><td>{i}.50</td></tr></table>
    </article></main>{FOOTER}</body></html>"""


@pytest.fixture
def site() -> Iterator[LoopbackSite]:
    routes = {f"/articles/{i}": Reply(body=article(i), headers={"ETag": f'"v{i}"'}) for i in range(55)}
    routes["/robots.txt"] = Reply(
        body="User-agent: *\nDisallow: /private/\n", content_type="text/plain", headers={"ETag": '"robots1"'}
    )
    with LoopbackSite(routes) as s:
        yield s


def site_settings(tmp_path: Path, site: LoopbackSite, **extra: object) -> Settings:
    notes = tmp_path / "notes"
    for n in range(5):
        links = "\n".join(f"* [Article {i}]({site.url(f'/articles/{i}')})" for i in range(n * 11, n * 11 + 11))
        write_note(notes, f"reading-{n}.md", f"---\ntitle: Reading list {n}\n---\n# Reading list {n}\n\n{links}\n")
    write_note(notes, "private.md", f"# Private\n\nSee [the secret]({site.url('/private/secret')}).\n")
    values = {
        "notes": notes,
        "index": tmp_path / "index",
        "embed_backend": "hash",
        "allow_private_hosts": True,
        "fetch_host_delay": 0.0,
        "fetch_timeout": 5.0,
        **extra,
    }
    return load_settings(values, env={}, cwd=tmp_path)


def test_every_page_of_a_55_page_site_is_indexed_without_boilerplate(tmp_path: Path, site: LoopbackSite) -> None:
    settings = site_settings(tmp_path, site)
    report = build_index(settings)
    by_status = report.link_counts()
    assert by_status.fetched == 55
    assert by_status.skipped == 1
    skipped = next(link for link in report.links if link.status == "skipped")
    assert skipped.url.endswith("/private/secret") and "robots.txt" in (skipped.reason or "")
    assert site.count("/private/secret") == 0
    chunks = Engine(settings).generation().all_chunks()
    articles = [c for c in chunks if c.kind == "article"]
    assert {c.source for c in articles} == {site.url(f"/articles/{i}") for i in range(55)}
    for c in chunks:
        for mark in MARKS:
            assert mark not in c.text, f"{mark} leaked into {c.source}"
    table = next(c for c in articles if c.source.endswith("/articles/3") and "Chip 3" in c.text)
    assert "| Chip 3 | 3.50 |" in table.text
    assert next(c for c in articles if c.source.endswith("/articles/12")).meta["linked_from"] == ["Reading list 1"]


def test_a_question_answered_only_by_one_article_cites_that_article_first(tmp_path: Path, site: LoopbackSite) -> None:
    settings = site_settings(tmp_path, site)
    build_index(settings)
    answer = Engine.load(settings).ask("How much stacked memory does the Zephyr-9 accelerator carry?")
    first = answer.citations[0]
    assert first.kind == "article" and first.url == site.url("/articles/37")
    assert first.linked_from == ["Reading list 3"] and "96 GB" in answer.text
    result = CliRunner().invoke(
        app,
        ["ask", "Zephyr-9 stacked memory", "--index", str(settings.index), "--notes", str(settings.notes)],
        env={"HWQA_EMBED_BACKEND": "hash"},
    )
    assert "article linked from Reading list 3" in result.stdout


def test_reindexing_unchanged_sends_only_conditional_requests_and_embeds_nothing(tmp_path: Path, site: LoopbackSite) -> None:
    settings = site_settings(tmp_path, site, fetch_max_age=0.0)
    first = build_index(settings)
    seen = len(site.requests)

    def not_modified(req):  # type: ignore[no-untyped-def]
        return Reply(304, b"") if req.headers.get("if-none-match") else Reply(500, b"unconditional")

    for path in list(site.routes):
        site.routes[path] = not_modified
    second = build_index(settings)
    again = site.requests[seen:]
    assert len(again) == 56  # 55 articles and robots.txt, nothing else
    assert all("if-none-match" in r.headers for r in again), [r.path for r in again if "if-none-match" not in r.headers]
    assert second.link_counts().not_modified == 55
    assert second.chunks_embedded == 0 and second.chunks_total == first.chunks_total
    assert second.changed is False


def test_a_failed_refresh_keeps_the_last_good_copy_in_the_index(tmp_path: Path, site: LoopbackSite) -> None:
    settings = site_settings(tmp_path, site, fetch_max_age=0.0)
    build_index(settings)
    site.routes["/articles/37"] = Reply(503, b"down", headers={"Retry-After": "0"})
    report = build_index(settings)
    link = next(link for link in report.links if link.url.endswith("/articles/37"))
    assert link.status == "failed" and "kept cached copy" in (link.reason or "")
    assert Engine.load(settings).ask("Zephyr-9 stacked memory").citations[0].url == site.url("/articles/37")


def test_offline_uses_the_cache_only(tmp_path: Path, site: LoopbackSite) -> None:
    settings = site_settings(tmp_path, site, fetch_max_age=0.0)
    build_index(settings)
    seen = len(site.requests)
    report = build_index(settings.replace(offline=True))
    assert len(site.requests) == seen
    assert report.link_counts().cached == 55 and report.chunks_embedded == 0


def test_unlinking_an_article_removes_it(tmp_path: Path, site: LoopbackSite) -> None:
    settings = site_settings(tmp_path, site)
    build_index(settings)
    (settings.notes / "reading-4.md").unlink()
    report = build_index(settings)
    sources = {c.source for c in Engine(settings).generation().all_chunks()}
    assert site.url("/articles/50") not in sources and site.url("/articles/10") in sources
    assert report.chunks_removed > 0 and report.chunks_embedded == 0


UNSAFE = [
    "http://127.0.0.1:{port}/x",
    "http://localhost:{port}/x",
    "http://[::1]:{port}/x",
    "http://0.0.0.0:{port}/x",
    "http://10.0.0.1/x",
    "http://172.16.0.1/x",
    "http://192.168.1.1/x",
    "http://169.254.169.254/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://100.100.100.200/x",
    "http://[::ffff:127.0.0.1]:{port}/x",
    "http://2130706433:{port}/x",
    "http://0x7f000001:{port}/x",
    "http://127.1:{port}/x",
    "file:///etc/passwd",
]


def test_unsafe_links_are_refused_and_their_note_is_still_indexed(tmp_path: Path, site: LoopbackSite) -> None:
    links = "\n".join(f"* <{u.format(port=site.port)}>" if u.startswith("http") else f"* [passwd]({u})" for u in UNSAFE)
    notes = tmp_path / "notes"
    write_note(notes, "risky.md", f"---\ntitle: Risky links\n---\n# Risky links\n\nThe Zephyr-9 is fast.\n\n{links}\n")
    settings = load_settings({"notes": notes, "index": tmp_path / "index", "embed_backend": "hash"}, env={}, cwd=tmp_path)
    result = CliRunner().invoke(
        app, ["index", "--json", "--notes", str(notes), "--index", str(settings.index)], env={"HWQA_EMBED_BACKEND": "hash"}
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["links"]["skipped"] == len(UNSAFE) and data["links"]["fetched"] == 0
    assert all(u["reason"] for u in data["links"]["urls"])
    assert site.connections == 0
    assert Engine.load(settings).ask("Zephyr-9").citations[0].source == "risky.md"


def test_an_index_cut_by_an_older_chunker_cuts_every_note_and_page_again(tmp_path: Path, site: LoopbackSite) -> None:
    """A new release that cuts documents differently must not keep the old cuts of unchanged notes and
    pages: the next build cuts them again (reusing every vector whose passage did not change)."""
    from hwqa.build.articles import KEPT
    from hwqa.index import reader as store
    from hwqa.notes.chunk import CHUNKER_VERSION

    write_note(tmp_path / "notes", "reading.md", f"# Reading\n\n* [Article 3]({site.url('/articles/3')})\n")
    values = {"notes": tmp_path / "notes", "index": tmp_path / "index", "embed_backend": "hash"}
    settings = load_settings({**values, "allow_private_hosts": True, "fetch_host_delay": 0.0}, env={}, cwd=tmp_path)
    first = build_index(settings)
    again = build_index(settings)
    assert again.notes_read == 0 and [link.status for link in again.links] == [KEPT]  # nothing changed: nothing read
    page_chunks = again.links[0].chunks
    gen = store.current_generation_dir(settings.index)
    assert gen is not None
    path = gen / store.MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8"))
    assert manifest["chunker"] == CHUNKER_VERSION
    assert {link["chunker"] for link in manifest["links"].values()} == {CHUNKER_VERSION}
    manifest["chunker"] = CHUNKER_VERSION - 1  # as an older release left it
    for link in manifest["links"].values():
        link["chunker"] = CHUNKER_VERSION - 1
        link["chunks"] = 0  # a page kept as it was would report this count; one cut again reports its new cut
    path.write_bytes(store.manifest_text(manifest))  # with its checksum, as a release writes it
    recut = build_index(settings)
    assert recut.notes_read == 1 and not recut.warnings  # read again, not thrown away as damaged
    assert recut.links[0].chunks == page_chunks > 0  # the page was cut again, not kept
    assert recut.chunks_embedded == 0 and recut.chunks_total == first.chunks_total  # same cuts: no vector computed again
    assert build_index(settings).notes_read == 0  # and the next build is incremental again
