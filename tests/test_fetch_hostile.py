"""The fetcher against a hostile web, on loopback only (issue 11).

Each test prints one ``web hostile:`` line (inputs tried, outcomes) and records the same as a
JUnit property, so the figures can be quoted in the README's reliability section. Tests that
need a page to be fetched under the default address policy serve it from ``public.test``, a
name the test's resolver maps to 127.0.0.1 and that ``allow_hosts`` lets through; every other
internal address stays refused, as it is for a user.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from hwqa.build.builder import build_index
from hwqa.fetch import FetchConfig, Fetcher, FetchOutcome
from hwqa.settings import Settings

from .conftest import write_note
from .helpers_http import LoopbackSite, RawServer, Reply, SocketSpy

ARTICLE = "<html><head><title>TPU notes</title></head><body><p>TPU v3 costs $8.00/hr.</p></body></html>"
Record = Callable[[str, object], None]


def figure(record: Record, name: str, text: str) -> None:
    print(f"web hostile: {name}: {text}")
    record(f"web_{name}", text)


def loopback_config(**overrides: object) -> FetchConfig:
    values: dict[str, object] = dict(
        allow_private_hosts=True, per_host_delay_s=0.0, backoff_base_s=0.05, timeout_s=5.0, max_age_s=0.0
    )
    values.update(overrides)
    return FetchConfig(**values)  # type: ignore[arg-type]


def public_config(**overrides: object) -> FetchConfig:
    """The default address policy, except that the test's own site (public.test) is allowed."""
    values: dict[str, object] = dict(allow_hosts=("public.test",), per_host_delay_s=0.0, timeout_s=5.0, max_age_s=0.0)
    values.update(overrides)
    return FetchConfig(**values)  # type: ignore[arg-type]


def public_resolver(host: str, port: int) -> list[str]:
    if host == "public.test":
        return ["127.0.0.1"]
    raise socket.gaierror(socket.EAI_NONAME, "name not found")


# ---------------------------------------------------------------------------------------------
# Redirects and refreshes to places the policy refuses


def test_meta_refresh_to_an_internal_address_is_not_followed(tmp_path: Path, record_property: Record) -> None:
    with LoopbackSite({"/secret": Reply(body="<p>INTERNAL SECRET</p>")}) as internal:
        targets = [internal.url("/secret"), f"http://localhost:{internal.port}/secret", "http://169.254.169.254/"]
        pages = {
            f"/refresh{k}": Reply(
                body=f'<html><head><meta http-equiv="refresh" content="0; url={t}"></head><body><p>Moved.</p></body></html>'
            )
            for k, t in enumerate(targets)
        }
        with LoopbackSite(pages) as site:
            fetcher = Fetcher(tmp_path, public_config(), resolver=public_resolver)
            outcomes = fetcher.fetch_many([f"http://public.test:{site.port}{p}" for p in pages])
    assert [o.status for o in outcomes] == ["fetched"] * len(targets)
    assert all("INTERNAL SECRET" not in (o.text or "") for o in outcomes)
    assert internal.requests == [] and internal.connections == 0
    figure(record_property, "meta_refresh", f"{len(targets)} refresh targets, 0 requests to them")


def test_redirects_to_file_and_link_local_are_refused(tmp_path: Path, record_property: Record) -> None:
    targets = {
        "/to-file": "file:///etc/passwd",
        "/to-file-host": "file://localhost/etc/passwd",
        "/to-link-local": "http://169.254.10.1/",
        "/to-link-local-v6": "http://[fe80::1]/",
        "/to-mapped-link-local": "http://[::ffff:169.254.10.1]/",
        "/to-loopback": "http://127.0.0.1:9/",
    }
    routes = {path: Reply(302, b"", headers={"Location": target}) for path, target in targets.items()}
    with LoopbackSite(routes) as site:
        fetcher = Fetcher(tmp_path, public_config(), resolver=public_resolver)
        with SocketSpy().active() as spy:
            outcomes = fetcher.fetch_many([f"http://public.test:{site.port}{p}" for p in targets])
    assert [o.status for o in outcomes] == ["skipped"] * len(targets), [(o.url, o.reason) for o in outcomes]
    reasons = [o.reason or "" for o in outcomes]
    assert "scheme file: not allowed" in reasons[0] and "scheme file" in reasons[1]
    assert all("link-local" in r for r in reasons[2:5]) and "loopback" in reasons[5]
    assert {a[1] for a in spy.connects if isinstance(a, tuple)} <= {site.port}  # only the test site itself
    figure(record_property, "redirect_refused", f"{len(targets)} redirect targets (file://, link-local, loopback), all refused")


# ---------------------------------------------------------------------------------------------
# Encodings and bodies


def _gzip_n(data: bytes, times: int) -> bytes:
    for _ in range(times):
        data = gzip.compress(data)
    return data


def test_gzip_repeated_ten_times_is_refused(tmp_path: Path, record_property: Record) -> None:
    body = _gzip_n(b"<p>" + b"A" * 2_000_000 + b"</p>", 10)

    def ten_headers(conn: socket.socket, server: RawServer) -> None:
        server.read_head(conn)
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n" + b"Content-Encoding: gzip\r\n" * 10
        server.send(conn, head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)

    routes = {"/one-header": Reply(body=body, headers={"Content-Encoding": ", ".join(["gzip"] * 10)})}
    with LoopbackSite(routes) as site, RawServer(ten_headers) as raw:
        outcomes = Fetcher(tmp_path, loopback_config()).fetch_many([site.url("/one-header"), raw.url("/ten-headers")])
    for outcome in outcomes:
        assert outcome.status == "failed" and outcome.text is None, (outcome.url, outcome.status, outcome.reason)
        assert "content encoding" in (outcome.reason or "")
    figure(record_property, "gzip_x10", "2 forms (one header listing 10, 10 header lines): both refused, nothing indexed")


def _chunked_forever(total: int, extra_headers: bytes = b"") -> Callable[[socket.socket, RawServer], None]:
    block = b"<p>" + b"x" * 65_000 + b"</p>\n"

    def handler(conn: socket.socket, server: RawServer) -> None:
        server.read_head(conn)
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n"
        server.send(conn, head + extra_headers + b"\r\n")
        sent = 0
        while sent < total:
            server.send(conn, b"%x\r\n%s\r\n" % (len(block), block))
            sent += len(block)
        server.send(conn, b"0\r\n\r\n")

    return handler


def _identity_forever(total: int, declared: int) -> Callable[[socket.socket, RawServer], None]:
    block = b"<p>" + b"y" * 65_000 + b"</p>\n"

    def handler(conn: socket.socket, server: RawServer) -> None:
        server.read_head(conn)
        server.send(conn, b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % declared)
        sent = 0
        while sent < total:
            server.send(conn, block)
            sent += len(block)

    return handler


def test_endless_and_lying_bodies_are_capped_while_streaming(tmp_path: Path, record_property: Record) -> None:
    hundred_mb = 100 * 1024 * 1024
    cap = 5_000_000  # fetch_max_bytes' default
    servers = [
        RawServer(_chunked_forever(hundred_mb)),  # chunked, no Content-Length
        RawServer(_chunked_forever(hundred_mb, b"Content-Length: 1000\r\n")),  # chunked and a lying length
        RawServer(_identity_forever(hundred_mb, 1000)),  # says 1000 bytes, sends 100 MB
    ]
    for s in servers:
        s.__enter__()
    try:
        fetcher = Fetcher(tmp_path, loopback_config(max_bytes=cap, timeout_s=20))
        chunked, lying_chunked, lying = fetcher.fetch_many([s.url("/big") for s in servers])
    finally:
        for s in servers:
            s.__exit__()
    assert (chunked.status, chunked.reason) == ("failed", f"body over {cap} bytes")
    assert (lying_chunked.status, lying_chunked.reason) == ("failed", f"body over {cap} bytes")
    # A Content-Length is believed when it is smaller: the rest is never read.
    assert lying.status == "fetched" and lying.text is not None and len(lying.text) == 1000
    sent = [s.bytes_sent for s in servers]
    assert all(b < hundred_mb // 2 for b in sent), sent  # the client hung up long before the end
    shown = ", ".join(f"{b / 1e6:.1f} MB" for b in sent)
    figure(
        record_property,
        "endless_bodies",
        f"3 bodies of 100 MB; server got to send {shown}; capped at {cap / 1e6:g} MB or at the declared length",
    )


def test_a_server_that_accepts_and_never_answers_times_out(tmp_path: Path, record_property: Record) -> None:
    release = threading.Event()

    def silent(conn: socket.socket, server: RawServer) -> None:
        if server.read_head(conn).startswith(b"GET /robots.txt"):
            server.send(conn, b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            return
        release.wait(30)

    with RawServer(silent) as raw:
        try:
            by_attempt = Fetcher(tmp_path, loopback_config(timeout_s=0.5)).fetch(raw.url("/a"))
            by_deadline = Fetcher(tmp_path, loopback_config(timeout_s=30, link_deadline_s=0.5)).fetch(raw.url("/b"))
        finally:
            release.set()
    assert (by_attempt.status, by_attempt.reason) == ("failed", "timed out after 0.5 s")
    assert by_deadline.status == "failed" and by_deadline.reason == "link deadline of 0.5 s reached"
    figure(record_property, "silent_server", "2 fetches of a server that never answers: both failed at their limit")


def test_html_labelled_text_plain_is_extracted_as_html(tmp_path: Path, record_property: Record) -> None:
    html = (
        "<!DOCTYPE html><html><head><title>Chip</title></head><body><p>Visible words.</p><div hidden>HIDDEN</div></body></html>"
    )
    routes = {
        "/html-as-text": Reply(body=html, content_type="text/plain; charset=utf-8"),
        "/text": Reply(body="Plain notes about <b> tags and GPUs.", content_type="text/plain"),
    }
    with LoopbackSite(routes) as site:
        as_text, real_text = Fetcher(tmp_path, loopback_config()).fetch_many([site.url("/html-as-text"), site.url("/text")])
    assert as_text.status == "fetched" and as_text.content_type == "text/html"
    assert real_text.status == "fetched" and real_text.content_type == "text/plain"
    figure(record_property, "html_as_text", "an HTML document labelled text/plain is extracted as HTML; other text stays text")


def _binary_bodies() -> dict[str, bytes]:
    rng = random.Random(11)
    return {
        "random": rng.randbytes(1_000_000),
        "pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + rng.randbytes(200_000),
        "png": b"\x89PNG\r\n\x1a\n" + rng.randbytes(200_000),
        "jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF" + rng.randbytes(100_000),
        "gif": b"GIF89a" + rng.randbytes(50_000),
        "zip": b"PK\x03\x04" + rng.randbytes(50_000),
        "gzip": gzip.compress(rng.randbytes(50_000)),
        "elf": b"\x7fELF\x02\x01\x01" + rng.randbytes(50_000),
        "nul-late": b"<html><body><p>" + b"a" * 10_000 + b"\x00\x01\x02" * 5_000 + b"</p></body></html>",
    }


def test_binary_labelled_text_html_is_skipped(tmp_path: Path, record_property: Record) -> None:
    bodies = _binary_bodies()
    routes = {f"/{name}": Reply(body=body, content_type="text/html") for name, body in bodies.items()}
    routes["/fine"] = Reply(body=ARTICLE)
    routes["/utf16"] = Reply(body=b"\xff\xfe" + ARTICLE.encode("utf-16-le"), content_type="text/html")
    with LoopbackSite(routes) as site:
        outcomes = Fetcher(tmp_path, loopback_config(max_bytes=2_000_000)).fetch_many([site.url(p) for p in routes])
    by_name = {o.url.rsplit("/", 1)[1]: o for o in outcomes}
    for name in bodies:
        o = by_name[name]
        assert o.status == "skipped" and o.text is None, (name, o.status, o.reason)
        assert "labelled text/html" in (o.reason or ""), o.reason
    assert by_name["fine"].status == "fetched" and by_name["utf16"].status == "fetched"
    assert "TPU v3" in (by_name["utf16"].text or "")
    figure(record_property, "binary_as_html", f"{len(bodies)} binary bodies labelled text/html: all skipped; 2 pages fetched")


def test_binary_labelled_html_adds_no_chunks_to_the_index(tmp_path: Path, record_property: Record) -> None:
    bodies = _binary_bodies()
    routes = {f"/{name}": Reply(body=body, content_type="text/html") for name, body in bodies.items()}
    with LoopbackSite(routes) as site:
        links = "\n".join(f"* [{name}]({site.url('/' + name)})" for name in bodies)
        notes = tmp_path / "notes"
        write_note(notes, "links.md", f"# Links\n\n{links}\n")
        settings = Settings(
            notes=notes,
            index=tmp_path / "index",
            embed_backend="hash",
            allow_private_hosts=True,
            fetch_host_delay=0.0,
            fetch_timeout=5.0,
        )
        report = build_index(settings)
    assert {link.status for link in report.links} == {"skipped"}, [(link.url, link.reason) for link in report.links]
    assert all(link.chunks == 0 for link in report.links)
    figure(record_property, "binary_build", f"{len(bodies)} binary links in a note: 0 article chunks")


# ---------------------------------------------------------------------------------------------
# robots.txt


def test_a_two_megabyte_robots_txt_is_read_up_to_its_cap(tmp_path: Path, record_property: Record) -> None:
    padding = "".join(f"# comment line {k:07d} padding padding padding padding\n" for k in range(40_000))
    robots = "User-agent: *\nDisallow: /private/\n" + padding + "Disallow: /late/\n"
    assert len(robots) > 2_000_000
    routes = {
        "/robots.txt": Reply(body=robots, content_type="text/plain"),
        "/private/a": Reply(body=ARTICLE),
        "/late/a": Reply(body=ARTICLE),
    }
    with LoopbackSite(routes) as site:
        private, late = Fetcher(tmp_path, loopback_config()).fetch_many([site.url("/private/a"), site.url("/late/a")])
        robots_requests = site.count("/robots.txt")
    assert (private.status, private.reason) == ("skipped", "disallowed by robots.txt")
    assert late.status == "fetched"  # the rule past the first 500 KB is not read
    assert robots_requests == 1
    figure(record_property, "robots_2mb", "a 2.1 MB robots.txt: first 500 KB used (its rule applied, the rule after ignored)")


def test_a_cut_robots_txt_does_not_end_in_half_a_rule(tmp_path: Path) -> None:
    cap = 1000
    head = "User-agent: *\n"
    robots = head + "#" * (cap - len(head) - 1 - len("Disallow: /a")) + "\nDisallow: /abcdef\n"
    assert robots[:cap].endswith("\nDisallow: /a")  # the cap cuts the rule to "Disallow: /a"
    routes = {"/robots.txt": Reply(body=robots, content_type="text/plain"), "/a": Reply(body=ARTICLE)}
    with LoopbackSite(routes) as site:
        outcome = Fetcher(tmp_path, loopback_config(robots_max_bytes=cap)).fetch(site.url("/a"))
    assert outcome.status == "fetched"


def test_robots_txt_answering_503_disallows_the_site(tmp_path: Path, record_property: Record) -> None:
    routes = {"/robots.txt": Reply(503, b"busy", content_type="text/plain"), "/a": Reply(body=ARTICLE)}
    with LoopbackSite(routes) as site:
        outcome = Fetcher(tmp_path, loopback_config()).fetch(site.url("/a"))
        pages = [p for p in site.paths() if p != "/robots.txt"]
    assert outcome.status == "failed" and outcome.reason == "disallowed by robots.txt (robots.txt answered HTTP 503)"
    assert pages == []
    figure(record_property, "robots_503", "robots.txt 503: site treated as disallowed for this run, page not requested")


# ---------------------------------------------------------------------------------------------
# Proxies and credentials from the environment


def test_proxy_variables_and_netrc_are_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record_property: Record) -> None:
    def proxy_handler(conn: socket.socket, server: RawServer) -> None:
        server.read_head(conn)
        server.send(conn, b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<p>FROM THE PROXY</p>")

    home = tmp_path / "home"
    home.mkdir()
    with RawServer(proxy_handler) as proxy, LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(name, f"http://user:pass@127.0.0.1:{proxy.port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.setenv("HOME", str(home))
        netrc = home / ".netrc"
        netrc.write_text(
            "machine 127.0.0.1 login alice password s3cret\nmachine public.test login bob password hunter2\n"
            "default login carol password c4rol\n"
        )
        os.chmod(netrc, 0o600)
        plain = Fetcher(tmp_path / "a", loopback_config()).fetch(site.url("/a"))
        named = Fetcher(tmp_path / "b", public_config(), resolver=public_resolver).fetch(f"http://public.test:{site.port}/a")
        heads = [r.headers for r in site.requests]
    assert plain.status == "fetched" and named.status == "fetched"
    assert "FROM THE PROXY" not in (plain.text or "") + (named.text or "")
    assert proxy.connections == 0
    assert heads and all("authorization" not in h and "proxy-authorization" not in h for h in heads)
    figure(
        record_property,
        "proxy_netrc",
        f"{len(heads)} requests with 6 proxy variables and a .netrc set: 0 proxy connections, 0 Authorization headers",
    )


# ---------------------------------------------------------------------------------------------
# One link, one deadline


def test_retry_after_past_the_link_deadline_fails_at_once(tmp_path: Path, record_property: Record) -> None:
    routes = {"/busy": Reply(503, b"busy", headers={"Retry-After": "20"})}
    with LoopbackSite(routes) as site:
        outcome = Fetcher(tmp_path, loopback_config(link_deadline_s=5)).fetch(site.url("/busy"))
        tries = site.count("/busy")
    assert outcome.status == "failed"
    assert outcome.reason == "HTTP 503; server asked to retry after 20 s, past the link deadline of 5 s"
    assert tries == 1
    figure(record_property, "deadline_retry_after", "503 + Retry-After 20 s with a 5 s link deadline: 1 request, failed at once")


def test_a_chain_of_slow_robots_txt_stops_at_the_link_deadline(tmp_path: Path, record_property: Record) -> None:
    hops = 6
    sites = [LoopbackSite() for _ in range(hops)]
    for k, s in enumerate(sites):
        s.routes["/robots.txt"] = Reply(404, b"", content_type="text/plain", delay_s=0.6)
        if k + 1 < hops:
            s.routes["/p"] = Reply(302, b"", headers={"Location": f"http://127.0.0.1:{sites[k + 1].port}/p"})
        else:
            s.routes["/p"] = Reply(body=ARTICLE)
        s.__enter__()
    try:
        outcome = Fetcher(tmp_path, loopback_config(timeout_s=2, link_deadline_s=1.5)).fetch(sites[0].url("/p"))
        robots = [s.count("/robots.txt") for s in sites]
    finally:
        for s in sites:
            s.__exit__()
    assert outcome.status == "failed" and outcome.reason is not None and "link deadline of 1.5 s" in outcome.reason
    assert robots[-1] == 0 and sum(robots) < hops  # the chain was cut before its end
    figure(
        record_property,
        "deadline_robots_chain",
        f"redirect chain over {hops} hosts with slow robots.txt: "
        f"stopped after {sum(robots)} robots.txt fetches at the link deadline",
    )


def test_waiting_for_a_busy_host_is_not_charged_to_the_deadline(tmp_path: Path) -> None:
    routes = {f"/{k}": Reply(body=ARTICLE, delay_s=0.3) for k in range(6)}
    with LoopbackSite(routes) as site:
        fetcher = Fetcher(tmp_path, loopback_config(per_host_concurrency=1, link_deadline_s=1.0))
        outcomes = fetcher.fetch_many([site.url(f"/{k}") for k in range(6)])  # ~1.8 s in all, one at a time
    assert [o.status for o in outcomes] == ["fetched"] * 6


# ---------------------------------------------------------------------------------------------
# The address policy applies to cached pages too


def test_cached_pages_obey_the_current_address_policy(tmp_path: Path, record_property: Record) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        site.routes["/hop"] = Reply(302, b"", headers={"Location": site.url("/a")})
        allowed = Fetcher(tmp_path, loopback_config(max_age_s=3600), resolver=public_resolver)
        first = allowed.fetch_many([site.url("/a"), f"http://public.test:{site.port}/hop"])
        assert [o.status for o in first] == ["fetched", "fetched"]
        requests_after_first = len(site.requests)
        strict = Fetcher(tmp_path, FetchConfig(max_age_s=3600), resolver=public_resolver)
        fresh = strict.fetch(site.url("/a"))
        offline = strict.fetch(site.url("/a"), offline=True)
        # public.test is allowed now, but its cached copy came through a redirect to 127.0.0.1.
        named = Fetcher(tmp_path, public_config(max_age_s=3600), resolver=public_resolver)
        via_redirect = named.fetch(f"http://public.test:{site.port}/hop")
        via_redirect_offline = named.fetch(f"http://public.test:{site.port}/hop", offline=True)
        requests_after_second = len(site.requests)
    outcomes: list[FetchOutcome] = [fresh, offline, via_redirect, via_redirect_offline]
    for o in outcomes:
        assert o.status == "skipped" and o.text is None, (o.url, o.status, o.reason)
        assert "loopback" in (o.reason or "")
    assert requests_after_second == requests_after_first  # no request at all
    figure(record_property, "cache_policy", "4 cached pages from 127.0.0.1 (fresh, offline, via redirect x2): all refused")


def test_cached_pages_from_names_are_checked_by_their_addresses(tmp_path: Path) -> None:
    def intranet(host: str, port: int) -> list[str]:
        if host == "intra.test":
            return ["127.0.0.1"]
        raise socket.gaierror(socket.EAI_NONAME, "name not found")

    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        url = f"http://intra.test:{site.port}/a"
        assert Fetcher(tmp_path, loopback_config(max_age_s=3600), resolver=intranet).fetch(url).status == "fetched"
        strict = Fetcher(tmp_path, FetchConfig(max_age_s=3600), resolver=intranet)
        recorded = [strict.fetch(url), strict.fetch(url, offline=True)]
        # A copy cached by an older hwqa has no recorded addresses: the name is resolved again.
        (meta_path,) = [p for p in tmp_path.glob("*.json") if json.loads(p.read_text())["url"] == url]
        meta = json.loads(meta_path.read_text())
        assert meta["addresses"] == ["127.0.0.1"]
        del meta["addresses"]
        meta_path.write_text(json.dumps(meta))
        legacy = strict.fetch(url)
    for o in [*recorded, legacy]:
        assert o.status == "skipped" and o.reason == "refused: intra.test resolves to 127.0.0.1, a loopback address", o.reason


def test_a_default_rebuild_drops_articles_cached_from_private_hosts(tmp_path: Path, record_property: Record) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        notes = tmp_path / "notes"
        write_note(notes, "tpu.md", f"# TPU\n\nRead [the article]({site.url('/a')}).\n")
        base = Settings(notes=notes, index=tmp_path / "index", embed_backend="hash", fetch_host_delay=0.0, fetch_timeout=5.0)
        first = build_index(base.replace(allow_private_hosts=True))
        second = build_index(base)
        offline = build_index(base.replace(offline=True))
    assert first.links[0].status == "fetched" and first.links[0].chunks > 0
    for report in (second, offline):
        (link,) = report.links
        assert link.status == "skipped" and link.chunks == 0 and "loopback" in (link.reason or "")
    figure(
        record_property,
        "cache_policy_build",
        f"rebuild after allowing private hosts: {first.links[0].chunks} article chunks -> 0 (default and offline)",
    )


# ---------------------------------------------------------------------------------------------
# One host, many spellings


def test_host_spellings_share_robots_txt_and_politeness(tmp_path: Path, record_property: Record) -> None:
    spellings = ["127.0.0.1", "127.1", "0x7f.1", "2130706433", "0177.0.0.1", "0x7F000001", "127.000.000.001"]
    routes = {"/robots.txt": Reply(body="User-agent: *\nAllow: /\n", content_type="text/plain"), "/a": Reply(body=ARTICLE)}
    with LoopbackSite(routes) as site:
        fetcher = Fetcher(tmp_path, loopback_config())
        outcomes = fetcher.fetch_many([f"http://{h}:{site.port}/a" for h in spellings])
        robots = site.count("/robots.txt")
    assert [o.status for o in outcomes] == ["fetched"] * len(spellings), [o.reason for o in outcomes]
    assert robots == 1
    figure(record_property, "host_spellings", f"{len(spellings)} spellings of 127.0.0.1: {robots} robots.txt fetch")


def test_deadline_setting_is_passed_to_the_fetcher() -> None:
    settings = Settings(fetch_link_deadline=12.5)
    assert settings.fetch_link_deadline == 12.5
    assert Settings().fetch_link_deadline == 30.0
    assert dict((n, h) for n, _v, h in Settings().describe())["fetch_link_deadline"]
