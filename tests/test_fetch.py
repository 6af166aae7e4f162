"""The fetcher against real loopback HTTP servers: safety, caps, politeness, cache, offline."""

from __future__ import annotations

import email.utils
import itertools
import json
import socket
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwqa import __version__
from hwqa.errors import ConfigError
from hwqa.fetch import FetchConfig, Fetcher, FetchOutcome, FetchStatus, InvalidAddress, parse_ip_literal

from .helpers_http import LoopbackSite, Reply, SeenRequest, SocketSpy

ARTICLE = "<html><head><title>TPU notes</title></head><body><p>TPU v3 costs $8.00/hr.</p></body></html>"


def loopback_config(**overrides: object) -> FetchConfig:
    """Fast settings for tests against a loopback server (private hosts allowed)."""
    values: dict[str, object] = dict(
        allow_private_hosts=True,
        per_host_delay_s=0.0,
        backoff_base_s=0.05,
        timeout_s=5.0,
        max_age_s=0.0,
    )
    values.update(overrides)
    return FetchConfig(**values)  # type: ignore[arg-type]


def page_paths(site: LoopbackSite) -> list[str]:
    return [p for p in site.paths() if p != "/robots.txt"]


# ---------------------------------------------------------------------------------------------
# Plain success, cache layout


def test_fetches_a_page_names_itself_and_caches_json_plus_body(tmp_path: Path) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        fetcher = Fetcher(tmp_path, loopback_config())
        outcome = fetcher.fetch(site.url("/a") + "#section")
    assert outcome.status == "fetched"
    assert outcome.url == site.url("/a")  # fragment dropped
    assert outcome.text == ARTICLE
    assert outcome.content_type == "text/html"
    assert outcome.final_url == site.url("/a")
    page_request = next(r for r in site.requests if r.path == "/a")
    assert page_request.headers["user-agent"].startswith(f"hwqa/{__version__}")
    metas = list(tmp_path.glob("*.json"))
    bodies = list(tmp_path.glob("*.body"))
    assert len(metas) == 1 and len(bodies) == 1
    meta = json.loads(metas[0].read_text())
    assert meta["url"] == site.url("/a") and meta["content_type"] == "text/html"
    assert bodies[0].read_text() == ARTICLE
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temp files
    summary = outcome.to_json()
    assert summary["status"] == "fetched" and summary["chars"] == len(ARTICLE)
    json.dumps(summary)


def test_fetch_many_keeps_order_and_fetches_duplicates_once(tmp_path: Path) -> None:
    routes = {"/a": Reply(body="<p>A</p>"), "/b": Reply(body="<p>B</p>")}
    seen: list[str] = []
    with LoopbackSite(routes) as site:
        fetcher = Fetcher(tmp_path, loopback_config())
        urls = [site.url("/b"), site.url("/a"), site.url("/b#x"), "ftp://example.org/file"]
        outcomes = fetcher.fetch_many(urls, progress=lambda o: seen.append(o.url))
    assert [o.url for o in outcomes] == [site.url("/b"), site.url("/a"), site.url("/b"), "ftp://example.org/file"]
    assert [o.text for o in outcomes[:3]] == ["<p>B</p>", "<p>A</p>", "<p>B</p>"]
    assert outcomes[3].status == "skipped" and "scheme ftp" in (outcomes[3].reason or "")
    assert site.count("/b") == 1
    assert sorted(seen) == sorted({site.url("/a"), site.url("/b"), "ftp://example.org/file"})


def test_charset_from_header_meta_and_utf8_fallback(tmp_path: Path) -> None:
    routes = {
        "/latin": Reply(body="<p>café</p>".encode("latin-1"), content_type="text/html; charset=ISO-8859-1"),
        "/meta": Reply(
            body='<html><head><meta charset="windows-1252"></head><p>naïve €</p>'.encode("cp1252"), content_type="text/html"
        ),
        "/broken": Reply(body=b"<p>ok \xff\xfe bytes</p>", content_type="text/html"),
    }
    with LoopbackSite(routes) as site:
        fetcher = Fetcher(tmp_path, loopback_config())
        latin, meta, broken = fetcher.fetch_many([site.url("/latin"), site.url("/meta"), site.url("/broken")])
    assert latin.text == "<p>café</p>"
    assert meta.text is not None and "naïve €" in meta.text
    assert broken.status == "fetched" and broken.text == "<p>ok \ufffd\ufffd bytes</p>"


# ---------------------------------------------------------------------------------------------
# Redirects and HTTP errors


def test_redirects_are_followed(tmp_path: Path) -> None:
    routes: dict[str, object] = {
        "/old": Reply(301, headers={"Location": "/older"}),
        "/older": Reply(302, headers={"Location": "/new"}),
        "/new": Reply(body=ARTICLE),
    }
    with LoopbackSite(routes) as site:  # type: ignore[arg-type]
        outcome = Fetcher(tmp_path, loopback_config()).fetch(site.url("/old"))
    assert outcome.status == "fetched"
    assert outcome.final_url == site.url("/new")
    assert outcome.text == ARTICLE


def test_more_than_five_redirects_fail(tmp_path: Path) -> None:
    routes = {f"/r{i}": Reply(302, headers={"Location": f"/r{i + 1}"}) for i in range(10)}
    with LoopbackSite(dict(routes)) as site:
        outcome = Fetcher(tmp_path, loopback_config()).fetch(site.url("/r0"))
    assert outcome.status == "failed"
    assert outcome.reason == "too many redirects (more than 5)"
    assert page_paths(site) == [f"/r{i}" for i in range(6)]  # the first + 5 followed


def test_404_fails_without_retry(tmp_path: Path) -> None:
    with LoopbackSite() as site:
        outcome = Fetcher(tmp_path, loopback_config(retries=3)).fetch(site.url("/missing"))
    assert outcome.status == "failed" and outcome.reason == "HTTP 404"
    assert site.count("/missing") == 1
    assert outcome.text is None


def test_500_then_200_is_retried(tmp_path: Path) -> None:
    answers = iter([Reply(500, b"oops"), Reply(body=ARTICLE)])
    with LoopbackSite({"/flaky": lambda req: next(answers)}) as site:
        outcome = Fetcher(tmp_path, loopback_config()).fetch(site.url("/flaky"))
    assert outcome.status == "fetched" and outcome.text == ARTICLE
    assert site.count("/flaky") == 2


def test_persistent_503_gives_up_after_the_retries(tmp_path: Path) -> None:
    with LoopbackSite({"/down": Reply(503, b"down")}) as site:
        outcome = Fetcher(tmp_path, loopback_config(retries=2)).fetch(site.url("/down"))
    assert outcome.status == "failed" and outcome.reason == "HTTP 503 after 3 attempts"
    assert site.count("/down") == 3


def test_429_with_retry_after_waits_then_succeeds(tmp_path: Path) -> None:
    answers = iter([Reply(429, b"slow down", headers={"Retry-After": "1"}), Reply(body=ARTICLE)])
    with LoopbackSite({"/busy": lambda req: next(answers)}) as site:
        outcome = Fetcher(tmp_path, loopback_config()).fetch(site.url("/busy"))
    assert outcome.status == "fetched"
    first, second = [r for r in site.requests if r.path == "/busy"]
    assert second.at - first.at >= 0.95


def test_retry_after_http_date_is_honoured(tmp_path: Path) -> None:
    def answer(req: SeenRequest) -> Reply:
        if len([1 for r in site.requests if r.path == "/busy"]) == 1:
            when = email.utils.formatdate(time.time() + 2, usegmt=True)
            return Reply(503, b"", headers={"Retry-After": when})
        return Reply(body=ARTICLE)

    with LoopbackSite({"/busy": answer}) as site:
        outcome = Fetcher(tmp_path, loopback_config()).fetch(site.url("/busy"))
    assert outcome.status == "fetched"
    first, second = [r for r in site.requests if r.path == "/busy"]
    assert second.at - first.at >= 0.9  # HTTP dates have 1 s resolution


def test_retry_after_beyond_the_cap_fails_at_once(tmp_path: Path) -> None:
    with LoopbackSite({"/busy": Reply(429, b"", headers={"Retry-After": "3600"})}) as site:
        started = time.monotonic()
        outcome = Fetcher(tmp_path, loopback_config(max_retry_after_s=5)).fetch(site.url("/busy"))
    assert time.monotonic() - started < 2
    assert outcome.status == "failed"
    assert outcome.reason == "HTTP 429; server asked to retry after 3600 s (over the 5 s limit)"
    assert site.count("/busy") == 1


# ---------------------------------------------------------------------------------------------
# Caps: time, size, content type


def test_slow_drip_is_cut_off_by_the_total_time_limit(tmp_path: Path) -> None:
    drip = Reply(body=b"<p>" + b"x" * 1000 + b"</p>", drip_s=0.05)  # would take 50 s
    with LoopbackSite({"/drip": drip}) as site:
        started = time.monotonic()
        outcome = Fetcher(tmp_path, loopback_config(timeout_s=1)).fetch(site.url("/drip"))
        elapsed = time.monotonic() - started
    assert outcome.status == "failed" and outcome.reason == "timed out after 1 s"
    assert elapsed < 3


def test_a_server_that_never_answers_times_out(tmp_path: Path) -> None:
    with LoopbackSite({"/stall": Reply(body=ARTICLE, delay_s=4)}) as site:
        started = time.monotonic()
        outcome = Fetcher(tmp_path, loopback_config(timeout_s=0.5)).fetch(site.url("/stall"))
        elapsed = time.monotonic() - started
    assert outcome.status == "failed" and outcome.reason == "timed out after 0.5 s"
    assert elapsed < 2


def _gzip_bomb(decompressed_size: int) -> bytes:
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\0" * (1 << 20)
    parts = [comp.compress(block) for _ in range(decompressed_size >> 20)]
    parts.append(comp.flush())
    return b"".join(parts)


def test_gzip_bomb_is_stopped_at_the_decoded_cap(tmp_path: Path) -> None:
    bomb = _gzip_bomb(64 << 20)  # 64 MiB of zeros in about 64 KB
    assert len(bomb) < 200_000
    reply = Reply(body=bomb, headers={"Content-Encoding": "gzip"})
    with LoopbackSite({"/bomb": reply}) as site:
        fetcher = Fetcher(tmp_path, loopback_config(max_bytes=1_000_000))
        tracemalloc.start()
        started = time.monotonic()
        try:
            outcome = fetcher.fetch(site.url("/bomb"))
            elapsed = time.monotonic() - started
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert outcome.status == "failed" and outcome.reason == "body over 1000000 bytes"
    assert peak < 16_000_000, f"peak traced memory {peak} bytes"
    assert elapsed < 5
    assert not list(tmp_path.glob("*.body"))


def test_gzip_page_under_the_cap_is_decoded(tmp_path: Path) -> None:
    body = zlib.compress(
        ARTICLE.encode(),
        9,
    )  # zlib-wrapped "deflate"
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    gz = comp.compress(ARTICLE.encode()) + comp.flush()
    routes = {
        "/gz": Reply(body=gz, headers={"Content-Encoding": "gzip"}),
        "/deflate": Reply(body=body, headers={"Content-Encoding": "deflate"}),
    }
    with LoopbackSite(routes) as site:
        gz_out, defl_out = Fetcher(tmp_path, loopback_config()).fetch_many([site.url("/gz"), site.url("/deflate")])
    assert gz_out.text == ARTICLE and defl_out.text == ARTICLE


def test_oversize_page_fails_with_or_without_content_length(tmp_path: Path) -> None:
    big = b"<p>" + b"a" * 300_000 + b"</p>"
    routes = {
        "/declared": Reply(body=big),
        "/undeclared": Reply(body=big, content_length=False),
        "/fits": Reply(body=b"<p>" + b"a" * 90_000 + b"</p>"),
    }
    with LoopbackSite(routes) as site:
        outcomes = Fetcher(tmp_path, loopback_config(max_bytes=100_000)).fetch_many(
            [site.url("/declared"), site.url("/undeclared"), site.url("/fits")]
        )
    assert [(o.status, o.reason) for o in outcomes] == [
        ("failed", "body over 100000 bytes"),
        ("failed", "body over 100000 bytes"),
        ("fetched", None),
    ]


def test_pdf_and_image_are_skipped_with_a_reason(tmp_path: Path) -> None:
    routes = {
        "/paper.pdf": Reply(body=b"%PDF-1.7 ...", content_type="application/pdf"),
        "/chip.png": Reply(body=b"\x89PNG\r\n\x1a\n....", content_type="image/png"),
        "/unlabelled": Reply(body=b"%PDF-1.4 binary", content_type=None),
        "/unlabelled-html": Reply(body=b"<!DOCTYPE html><p>hello</p>", content_type=None),
        "/plain": Reply(body="GPU prices\nV100 2.48", content_type="text/plain"),
    }
    with LoopbackSite(routes) as site:
        pdf, png, sniffed_pdf, sniffed_html, plain = Fetcher(tmp_path, loopback_config()).fetch_many(
            [site.url(p) for p in routes]
        )
    assert (pdf.status, pdf.reason) == ("skipped", "content type application/pdf is not HTML or text")
    assert (png.status, png.reason) == ("skipped", "content type image/png is not HTML or text")
    assert sniffed_pdf.status == "skipped"
    assert sniffed_pdf.reason == "content type application/pdf (sniffed) is not HTML or text"
    assert sniffed_html.status == "fetched" and sniffed_html.content_type == "text/html"
    assert plain.status == "fetched" and plain.content_type == "text/plain"
    assert pdf.text is None and png.text is None


# ---------------------------------------------------------------------------------------------
# robots.txt


def test_robots_txt_disallowing_a_path_is_respected(tmp_path: Path) -> None:
    robots = "User-agent: *\nDisallow: /private/\n"
    routes = {
        "/robots.txt": Reply(body=robots, content_type="text/plain"),
        "/private/page": Reply(body=ARTICLE),
        "/public": Reply(body=ARTICLE),
    }
    with LoopbackSite(routes) as site:
        private, public = Fetcher(tmp_path, loopback_config()).fetch_many([site.url("/private/page"), site.url("/public")])
    assert private.status == "skipped" and private.reason == "disallowed by robots.txt"
    assert public.status == "fetched"
    assert site.count("/private/page") == 0
    assert site.count("/robots.txt") == 1  # cached per host for the run


def test_robots_txt_naming_hwqa_is_respected(tmp_path: Path) -> None:
    robots = "User-agent: hwqa\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
    routes = {"/robots.txt": Reply(body=robots, content_type="text/plain"), "/a": Reply(body=ARTICLE)}
    with LoopbackSite(routes) as site:
        outcome = Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
    assert outcome.status == "skipped" and site.count("/a") == 0


def test_robots_404_means_allowed(tmp_path: Path) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:  # no robots.txt route: 404
        outcome = Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
    assert outcome.status == "fetched"
    assert site.paths() == ["/robots.txt", "/a"]


def test_robots_500_means_disallowed(tmp_path: Path) -> None:
    routes = {"/robots.txt": Reply(500, b"broken"), "/a": Reply(body=ARTICLE), "/b": Reply(body=ARTICLE)}
    with LoopbackSite(routes) as site:
        outcomes = Fetcher(tmp_path, loopback_config()).fetch_many([site.url("/a"), site.url("/b")])
    for outcome in outcomes:
        assert outcome.status == "failed"
        assert outcome.reason == "disallowed by robots.txt (robots.txt answered HTTP 500)"
    assert page_paths(site) == []
    assert site.count("/robots.txt") == 1


# ---------------------------------------------------------------------------------------------
# Cache, conditional requests, offline


def test_refetch_sends_conditional_request_and_304_keeps_text(tmp_path: Path) -> None:
    etag = '"v1"'
    modified = "Tue, 01 Jun 2021 10:00:00 GMT"

    def answer(req: SeenRequest) -> Reply:
        if req.headers.get("if-none-match") == etag:
            return Reply(304, b"", content_type=None, content_length=False)
        return Reply(body=ARTICLE, headers={"ETag": etag, "Last-Modified": modified})

    with LoopbackSite({"/a": answer}) as site:
        first = Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
        second = Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
    assert first.status == "fetched"
    assert second.status == "not-modified" and second.text == ARTICLE
    again = [r for r in site.requests if r.path == "/a"][1]
    assert again.headers["if-none-match"] == etag
    assert again.headers["if-modified-since"] == modified


def test_fresh_cache_is_used_without_any_request(tmp_path: Path) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
        before = len(site.requests)
        outcome = Fetcher(tmp_path, loopback_config(max_age_s=3600)).fetch(site.url("/a"))
        assert len(site.requests) == before
    assert outcome.status == "from-cache" and outcome.text == ARTICLE


def test_offline_uses_only_the_cache(tmp_path: Path) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE), "/b": Reply(body=ARTICLE)}) as site:
        Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
        before = site.connections
        cached, missing = Fetcher(tmp_path, loopback_config()).fetch_many([site.url("/a"), site.url("/b")], offline=True)
        assert site.connections == before
    assert cached.status == "from-cache" and cached.text == ARTICLE
    assert missing.status == "skipped" and missing.reason == "offline and not in cache"


def test_failed_refresh_keeps_the_last_good_copy(tmp_path: Path) -> None:
    answers = iter([Reply(body=ARTICLE), Reply(500, b"down")])
    with LoopbackSite({"/a": lambda req: next(answers)}) as site:
        Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
        outcome = Fetcher(tmp_path, loopback_config(retries=0)).fetch(site.url("/a"))
    assert outcome.status == "failed"
    assert outcome.reason == "HTTP 500; kept cached copy"
    assert outcome.text == ARTICLE


def test_damaged_cache_is_ignored(tmp_path: Path) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
        for body in tmp_path.glob("*.body"):
            body.write_text("tampered")
        outcome = Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"), offline=True)
    assert outcome.status == "skipped" and outcome.reason == "offline and not in cache"


# ---------------------------------------------------------------------------------------------
# Politeness: concurrency and delay per host


def test_at_most_two_requests_in_flight_per_host(tmp_path: Path) -> None:
    routes = {f"/p{i}": Reply(body=ARTICLE, delay_s=0.3) for i in range(6)}
    with LoopbackSite(dict(routes)) as site:
        outcomes = Fetcher(tmp_path, loopback_config(max_workers=8)).fetch_many([site.url(p) for p in routes])
    assert all(o.status == "fetched" for o in outcomes)
    assert site.max_in_flight == 2


def test_delay_between_requests_to_one_host(tmp_path: Path) -> None:
    routes = {f"/p{i}": Reply(body=ARTICLE) for i in range(3)}
    with LoopbackSite(dict(routes)) as site:
        Fetcher(tmp_path, loopback_config(per_host_delay_s=0.3)).fetch_many([site.url(p) for p in routes])
    starts = sorted(r.at for r in site.requests)
    assert len(starts) == 4  # robots.txt + 3 pages
    # 0.3 s apart, as the server saw them arrive: one late arrival under load shortens the gap after it
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert all(g >= 0.15 for g in gaps) and starts[-1] - starts[0] >= 0.75, gaps


# ---------------------------------------------------------------------------------------------
# Safety: refused with zero connections


def refused_urls(port: int) -> list[str]:
    return [
        f"http://127.0.0.1:{port}/",
        f"http://localhost:{port}/",
        f"http://[::1]:{port}/",
        f"http://0.0.0.0:{port}/",
        f"http://10.0.0.1:{port}/",
        f"http://172.16.0.1:{port}/",
        f"http://192.168.1.1:{port}/",
        "http://169.254.169.254/latest/meta-data/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://100.100.100.200/latest/meta-data/",
        f"http://[::ffff:127.0.0.1]:{port}/",
        f"http://2130706433:{port}/",
        f"http://0x7f000001:{port}/",
        f"http://127.1:{port}/",
        f"http://0177.0.0.1:{port}/",
        f"http://100.64.0.1:{port}/",
        f"http://[64:ff9b::7f00:1]:{port}/",
        "http://[fd00:ec2::254]/",
        "http://224.0.0.1/",
        "file:///etc/passwd",
    ]


def test_refused_targets_make_zero_connections(tmp_path: Path) -> None:
    with LoopbackSite({"/": Reply(body=ARTICLE)}) as site:
        fetcher = Fetcher(tmp_path, FetchConfig())  # the default: private hosts refused
        urls = refused_urls(site.port)
        with SocketSpy(forbid_dns=True).active() as spy:
            outcomes = fetcher.fetch_many(urls)
        assert site.connections == 0
    assert spy.connects == []
    assert spy.dns_lookups == []
    for url, outcome in zip(urls, outcomes, strict=True):
        assert outcome.status == "skipped", url
        reason = outcome.reason or ""
        assert reason.startswith("refused:") or reason.startswith("scheme file"), (url, reason)
        assert outcome.text is None


def test_refusal_reasons_are_readable(tmp_path: Path) -> None:
    fetcher = Fetcher(tmp_path)
    reasons = {
        u: fetcher.fetch(u).reason
        for u in [
            "http://10.0.0.1/",
            "http://2130706433/",
            "http://[::ffff:127.0.0.1]/",
            "http://metadata.google.internal/",
            "file:///etc/passwd",
            "http://localhost/",
        ]
    }
    assert reasons == {
        "http://10.0.0.1/": "refused: 10.0.0.1 is a private address",
        "http://2130706433/": "refused: 2130706433 (127.0.0.1) is a loopback address",
        "http://[::ffff:127.0.0.1]/": "refused: [::ffff:127.0.0.1] is a loopback address (IPv4-mapped form of 127.0.0.1)",
        "http://metadata.google.internal/": "refused: metadata.google.internal is a cloud metadata host",
        "file:///etc/passwd": "scheme file: not allowed (only http and https)",
        "http://localhost/": "refused: localhost is a loopback host name",
    }


def _redirect_targets(port: int) -> list[str]:
    return [u.rstrip("/") + "/secret" if u.startswith("http") else u for u in refused_urls(port)]


@pytest.fixture(scope="module")
def redirect_site() -> LoopbackSite:  # type: ignore[misc]
    with LoopbackSite() as site:
        for i, target in enumerate(_redirect_targets(site.port)):
            site.routes[f"/go{i}"] = Reply(302, headers={"Location": target})
        site.routes["/secret"] = Reply(body="<p>SECRET</p>")
        yield site


def test_redirects_to_refused_targets_make_no_connection(tmp_path: Path, redirect_site: LoopbackSite) -> None:
    """First hop allowed via allow_hosts (a public-looking name pinned to loopback); every
    redirect to a refused target is stopped before any connection or DNS lookup is made."""
    site = redirect_site
    calls: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        if host == "articles.example":
            return ["127.0.0.1"]
        raise OSError(f"no such host {host}")

    config = FetchConfig(allow_hosts=("articles.example",), per_host_delay_s=0.0, timeout_s=5.0)
    fetcher = Fetcher(tmp_path, config, resolver=resolver)
    targets = _redirect_targets(site.port)
    urls = [f"http://articles.example:{site.port}/go{i}" for i in range(len(targets))]
    with SocketSpy(forbid_dns=True).active() as spy:
        outcomes = fetcher.fetch_many(urls)
    for target, outcome in zip(targets, outcomes, strict=True):
        assert outcome.status == "skipped", (target, outcome)
        reason = outcome.reason or ""
        assert reason.startswith("redirected to "), reason
        assert "refused:" in reason or "scheme file" in reason, reason
    assert site.count("/secret") == 0
    assert set(calls) == {"articles.example"}
    # Every connection went to the one checked address, one per request the site saw.
    assert set(spy.connects) == {("127.0.0.1", site.port)}
    assert len(spy.connects) == len(site.requests) == site.connections


def test_every_resolved_address_is_checked(tmp_path: Path) -> None:
    def resolver(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.0.0.1"]  # one public, one private: refuse

    fetcher = Fetcher(tmp_path, resolver=resolver)
    with SocketSpy().active() as spy:
        outcome = fetcher.fetch("http://mixed.example/")
    assert outcome.status == "skipped"
    assert outcome.reason == "refused: mixed.example resolves to 10.0.0.1, a private address"
    assert spy.connects == []


def test_connection_goes_to_the_checked_address_without_a_second_lookup(tmp_path: Path) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        lookups: list[str] = []

        def resolver(host: str, port: int) -> list[str]:
            lookups.append(host)
            return ["127.0.0.1"]

        config = loopback_config(allow_private_hosts=False, allow_hosts=("pinned.example",))
        fetcher = Fetcher(tmp_path, config, resolver=resolver)
        with SocketSpy(forbid_dns=True).active() as spy:
            outcome = fetcher.fetch(f"http://pinned.example:{site.port}/a")
    assert outcome.status == "fetched" and outcome.text == ARTICLE
    assert set(spy.connects) == {("127.0.0.1", site.port)}
    # The server saw the real host name (Host header), although we connected to an address.
    assert {r.headers["host"] for r in site.requests} == {f"pinned.example:{site.port}"}
    assert lookups == ["pinned.example", "pinned.example"]  # robots.txt hop + page hop


def test_allow_networks_permits_only_those_networks(tmp_path: Path) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        allowed = Fetcher(tmp_path, loopback_config(allow_private_hosts=False, allow_networks=("127.0.0.0/8",))).fetch(
            site.url("/a")
        )
        other = Fetcher(tmp_path, loopback_config(allow_private_hosts=False, allow_networks=("10.0.0.0/8",))).fetch(
            site.url("/a")
        )
    assert allowed.status == "fetched"
    assert other.status == "skipped" and (other.reason or "").startswith("refused:")


def test_metadata_stays_refused_even_when_private_hosts_are_allowed(tmp_path: Path) -> None:
    fetcher = Fetcher(tmp_path, loopback_config())
    with SocketSpy(forbid_dns=True).active() as spy:
        outcomes = fetcher.fetch_many(["http://169.254.169.254/", "http://metadata.google.internal/", "http://[fd00:ec2::254]/"])
    assert [o.status for o in outcomes] == ["skipped"] * 3
    assert spy.connects == []


def test_unreachable_robots_txt_fails_the_page_and_keeps_the_cached_copy(tmp_path: Path) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
    # The site is gone now (its port is closed): robots.txt cannot be read.
    outcome = Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
    assert outcome.status == "failed"
    assert outcome.reason == ("disallowed by robots.txt (robots.txt unreachable: connection refused); kept cached copy")
    assert outcome.text == ARTICLE


def test_https_speaks_tls_to_the_checked_address(tmp_path: Path) -> None:
    # A plain-HTTP loopback server cannot complete a TLS handshake: the fetch fails cleanly
    # with a TLS reason (robots.txt is the first request, so it is named).
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        outcome = Fetcher(tmp_path, loopback_config(timeout_s=2)).fetch(f"https://127.0.0.1:{site.port}/a")
    assert outcome.status == "failed"
    assert outcome.reason is not None and "TLS" in outcome.reason, outcome.reason


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("::1", "::1"),
        ("example.com", None),
        ("1234.ca", None),
    ],
)
def test_odd_ipv4_spellings_are_parsed_like_the_c_library(host: str, expected: str | None) -> None:
    parsed = parse_ip_literal(host)
    assert (None if parsed is None else str(parsed)) == expected


def test_invalid_settings_are_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="max_bytes"):
        Fetcher(tmp_path, FetchConfig(max_bytes=0))
    with pytest.raises(ConfigError, match="allow_networks"):
        Fetcher(tmp_path, FetchConfig(allow_networks=("not-a-network",)))


def test_outcome_json_has_no_body(tmp_path: Path) -> None:
    outcome = FetchOutcome("http://x/", FetchStatus.FAILED, "HTTP 404", None, None, None)
    assert outcome.to_json() == {
        "url": "http://x/",
        "status": "failed",
        "reason": "HTTP 404",
        "final_url": None,
        "content_type": None,
        "http_status": None,
        "chars": None,
    }


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="0123456789abcdefxX.", min_size=1, max_size=20))
def test_ip_parsing_agrees_with_inet_aton(host: str) -> None:
    """Whatever the C library would read as an IPv4 address, the safety check reads the same."""
    try:
        expected: str | None = socket.inet_ntoa(socket.inet_aton(host))
    except OSError:
        expected = None
    try:
        parsed = parse_ip_literal(host)
    except InvalidAddress:  # refused as an invalid address: only acceptable if the C library agrees
        assert expected is None, host
        return
    if expected is not None:
        assert str(parsed) == expected, host
