"""Every fetch setting is a hwqa setting: set like any other, it changes what the fetcher does."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.build.builder import BuildReport, build_index
from hwqa.cli import app
from hwqa.errors import ConfigError, FetchError, HwqaError
from hwqa.fetch import FetchConfig, FetchStatus, InvalidAddress, RefusedAddress, parse_ip_literal
from hwqa.settings import Settings, load_settings

from .conftest import write_note
from .helpers_http import LoopbackSite, Reply, Route

ARTICLE = "<html><head><title>TPU notes</title></head><body><p>TPU v3 costs $8.00/hr.</p></body></html>"
README = Path(__file__).resolve().parents[1] / "README.md"

# The settings that used to be reachable only by building a FetchConfig in code.
NEW_SETTINGS = {
    "fetch_user_agent": "acme-notes-bot/2.0",
    "fetch_allow_hosts": "wiki.corp,.corp.example",
    "fetch_allow_networks": "10.20.0.0/16,192.168.7.0/24",
    "fetch_max_redirects": 2,
    "fetch_host_concurrency": 3,
    "fetch_max_crawl_delay": 4.5,
    "fetch_retries": 1,
    "fetch_backoff": 0.25,
    "fetch_max_retry_after": 12.0,
    "fetch_workers": 5,
    "fetch_robots_max_bytes": 12_345,
}


def build(tmp_path: Path, site: LoopbackSite, path: str, env: dict[str, str]) -> BuildReport:
    """Index one note linking to ``path`` on the loopback site, with settings from ``env``."""
    notes = tmp_path / "notes"
    write_note(notes, "tpu.md", f"# TPU\n\nSee [the article]({site.url(path)}).\n")
    base = {
        "HWQA_NOTES": str(notes),
        "HWQA_INDEX": str(tmp_path / "index"),
        "HWQA_EMBED_BACKEND": "hash",
        "HWQA_ALLOW_PRIVATE_HOSTS": "true",
        "HWQA_FETCH_HOST_DELAY": "0",
        "HWQA_FETCH_TIMEOUT": "5",
        "HWQA_FETCH_BACKOFF": "0",
    }
    return build_index(load_settings(env={**base, **env}, cwd=tmp_path))


def test_max_page_size_setting_fails_a_bigger_page(tmp_path: Path) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        small = build(tmp_path / "small", site, "/a", {"HWQA_FETCH_MAX_BYTES": "40"})
        default = build(tmp_path / "default", site, "/a", {})
    assert [(link.status, link.reason) for link in small.links] == [("failed", "body over 40 bytes")]
    assert [link.status for link in default.links] == ["fetched"]
    assert small.links[0].status is FetchStatus.FAILED  # typed as the enum, shown as the same string
    assert '"status": "failed"' in json.dumps(small.to_json())


def test_redirect_limit_setting_from_the_config_file(tmp_path: Path) -> None:
    routes: dict[str, Route] = {"/old": Reply(status=301, headers={"Location": "/new"}), "/new": Reply(body=ARTICLE)}
    (tmp_path / "strict").mkdir()
    (tmp_path / "strict" / "hwqa.toml").write_text("[hwqa]\nfetch_max_redirects = 0\n")
    with LoopbackSite(routes) as site:
        strict = build(tmp_path / "strict", site, "/old", {})
        default = build(tmp_path / "default", site, "/old", {})
    assert [(link.status, link.reason) for link in strict.links] == [("failed", "too many redirects (more than 0)")]
    assert [link.status for link in default.links] == ["fetched"]


def test_retries_setting_decides_how_often_a_failing_site_is_asked(tmp_path: Path) -> None:
    with LoopbackSite({"/busy": Reply(status=503, body="busy")}) as site:
        none = build(tmp_path / "none", site, "/busy", {"HWQA_FETCH_RETRIES": "0"})
        asked_once = site.count("/busy")
        two = build(tmp_path / "two", site, "/busy", {"HWQA_FETCH_RETRIES": "2"})
        asked_three_times = site.count("/busy") - asked_once
    assert [(link.status, link.reason) for link in none.links] == [("failed", "HTTP 503")]
    assert [(link.status, link.reason) for link in two.links] == [("failed", "HTTP 503 after 3 attempts")]
    assert (asked_once, asked_three_times) == (1, 3)


def test_user_agent_setting_is_what_the_site_sees(tmp_path: Path) -> None:
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        build(tmp_path, site, "/a", {"HWQA_FETCH_USER_AGENT": "acme-notes-bot/2.0"})
    agents = {r.headers.get("user-agent") for r in site.requests}
    assert agents == {"acme-notes-bot/2.0"}, agents


@pytest.mark.parametrize("how", ["env", "toml list"])
def test_allowed_network_lets_a_loopback_site_in_without_allowing_every_private_host(tmp_path: Path, how: str) -> None:
    if how == "toml list":
        (tmp_path / "allowed").mkdir()
        (tmp_path / "allowed" / "hwqa.toml").write_text('[hwqa]\nfetch_allow_networks = ["10.0.0.0/8", "127.0.0.0/8"]\n')
        env = {}
    else:
        env = {"HWQA_FETCH_ALLOW_NETWORKS": "10.0.0.0/8, 127.0.0.0/8"}
    with LoopbackSite({"/a": Reply(body=ARTICLE)}) as site:
        allowed = build(tmp_path / "allowed", site, "/a", {**env, "HWQA_ALLOW_PRIVATE_HOSTS": "false"})
        refused = build(tmp_path / "refused", site, "/a", {"HWQA_ALLOW_PRIVATE_HOSTS": "false"})
    assert [link.status for link in allowed.links] == ["fetched"], [link.reason for link in allowed.links]
    assert [(link.status, link.reason) for link in refused.links] == [("skipped", "refused: 127.0.0.1 is a loopback address")]


def test_every_fetch_setting_reaches_the_fetcher() -> None:
    settings = Settings().replace(
        **NEW_SETTINGS,
        allow_private_hosts=True,
        fetch_max_bytes=1234,
        fetch_timeout=3.0,
        fetch_max_age=60.0,
        fetch_host_delay=0.5,
        fetch_link_deadline=9.0,
    )
    config = FetchConfig.from_settings(settings)
    assert config == FetchConfig(
        user_agent="acme-notes-bot/2.0",
        allow_private_hosts=True,
        allow_hosts=("wiki.corp", ".corp.example"),
        allow_networks=("10.20.0.0/16", "192.168.7.0/24"),
        max_bytes=1234,
        timeout_s=3.0,
        max_redirects=2,
        max_age_s=60.0,
        per_host_concurrency=3,
        per_host_delay_s=0.5,
        max_crawl_delay_s=4.5,
        retries=1,
        backoff_base_s=0.25,
        max_retry_after_s=12.0,
        max_workers=5,
        robots_max_bytes=12_345,
        link_deadline_s=9.0,
    )
    unset = [f.name for f in dataclasses.fields(FetchConfig) if getattr(config, f.name) == getattr(FetchConfig(), f.name)]
    assert unset == []  # no fetch setting is left that users cannot set
    assert FetchConfig.from_settings(Settings()) == FetchConfig()  # the same defaults as before


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HWQA_FETCH_ALLOW_NETWORKS": "10.0.0.0/8,intranet"}, "fetch_allow_networks must list networks"),
        ({"HWQA_FETCH_WORKERS": "0"}, "fetch_host_concurrency and fetch_workers must be positive"),
        ({"HWQA_FETCH_RETRIES": "-1"}, "fetch_max_redirects and fetch_retries must be 0 or more"),
        ({"HWQA_FETCH_ROBOTS_MAX_BYTES": "0"}, "fetch_robots_max_bytes must be positive"),
        ({"HWQA_FETCH_BACKOFF": "-0.5"}, "fetch_max_crawl_delay, fetch_backoff and fetch_max_retry_after must be 0"),
    ],
)
def test_bad_fetch_settings_are_one_line_errors(tmp_path: Path, env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)) as info:
        load_settings(env=env, cwd=tmp_path)
    assert "\n" not in str(info.value)


def test_new_fetch_settings_are_in_hwqa_config_and_the_readme() -> None:
    shown = CliRunner().invoke(app, ["config"]).output
    table = README.read_text(encoding="utf-8")
    for name in NEW_SETTINGS:
        assert f"{name} = " in shown and f"HWQA_{name.upper()}" in shown, name
        assert re.search(rf"^\|[^|\n]*\b{name}\b", table, re.M), f"{name} missing from the README's table"


def test_an_invalid_address_is_a_public_fetch_error() -> None:
    with pytest.raises(InvalidAddress, match=r"^refused: 1\.2\.3\.4\.5 is not a valid address$") as info:
        parse_ip_literal("1.2.3.4.5")
    assert isinstance(info.value, RefusedAddress) and isinstance(info.value, FetchError)
    assert isinstance(info.value, HwqaError)  # the CLI shows it as a one-line message
    assert info.value.status == FetchStatus.SKIPPED
    assert str(info.value.status) == "skipped"
