"""The CLI through its runner: exit codes, JSON contracts, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from hwqa.cli import app
from hwqa.settings import Settings

from .helpers_http import LoopbackSite, Reply

runner = CliRunner()


def test_index_json_summarises_the_run(hash_env: Settings) -> None:
    result = runner.invoke(app, ["index", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["notes_seen"] == 3
    assert data["chunks_total"] == data["chunks_embedded"] > 0
    assert data["chunks_reused"] == 0
    assert set(data["links"]) >= {"fetched", "cached", "failed", "skipped", "urls"}
    assert data["seconds"] >= 0
    again = json.loads(runner.invoke(app, ["index", "--json"]).stdout)
    assert again["chunks_embedded"] == 0 and again["chunks_reused"] == data["chunks_total"]


def test_index_prints_a_summary_for_people(hash_env: Settings) -> None:
    result = runner.invoke(app, ["index"])
    assert result.exit_code == 0
    assert "Indexed 3 notes" in result.stdout


def test_ask_json_has_the_documented_shape(hash_env: Settings) -> None:
    runner.invoke(app, ["index"])
    result = runner.invoke(app, ["ask", "How much does a TPU v3 cost per hour?", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) >= {"answer", "citations", "tool_calls", "backend", "timings"}
    assert data["backend"] == "builtin"
    assert "8.00" in data["answer"] and "[1]" in data["answer"]
    first = data["citations"][0]
    assert set(first) >= {"n", "title", "source", "url", "heading", "text", "score"}
    assert first["n"] == 1 and first["source"] == "prices.md"


def test_ask_for_people_lists_numbered_sources(hash_env: Settings) -> None:
    runner.invoke(app, ["index"])
    result = runner.invoke(app, ["ask", "How much does a TPU v3 cost per hour?"])
    assert result.exit_code == 0
    assert "Sources" in result.stdout and "[1] GPU prices" in result.stdout


def test_ask_without_an_index_is_one_line_and_exit_1(hash_env: Settings) -> None:
    result = runner.invoke(app, ["ask", "anything"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "run 'hwqa index'" in lines[0]


def test_missing_notes_folder_is_a_clear_error(hash_env: Settings, tmp_path: Path) -> None:
    result = runner.invoke(app, ["index", "--notes", str(tmp_path / "missing")])
    assert result.exit_code == 1
    assert "does not exist" in result.stderr and "HWQA_NOTES" in result.stderr


def test_empty_question_is_a_clear_error(hash_env: Settings) -> None:
    runner.invoke(app, ["index"])
    result = runner.invoke(app, ["ask", "   "])
    assert result.exit_code == 1 and "question is empty" in result.stderr


def test_usage_errors_exit_2(hash_env: Settings) -> None:
    assert runner.invoke(app, ["ask"]).exit_code == 2
    assert runner.invoke(app, ["index", "--no-such-flag"]).exit_code == 2


def test_bad_setting_in_environment_is_exit_1(hash_env: Settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HWQA_TOP_K", "lots")
    result = runner.invoke(app, ["ask", "x"])
    assert result.exit_code == 1 and "top_k" in result.stderr


def test_config_lists_every_setting_with_its_variable(hash_env: Settings) -> None:
    result = runner.invoke(app, ["config"])
    assert result.exit_code == 0
    assert "HWQA_NOTES" in result.stdout and "HWQA_EMBED_MODEL" in result.stdout


def test_status_shows_what_the_index_holds(hash_env: Settings) -> None:
    assert runner.invoke(app, ["status"]).exit_code == 1  # no index yet: the one-line error
    runner.invoke(app, ["index"])
    data = json.loads(runner.invoke(app, ["status", "--json"]).stdout)
    assert data["notes"] == 3 and data["chunks"] > 0 and data["price_rows"] == 2
    assert data["embedder"]["model"] == "hash-256" and data["backend"] == "builtin"
    text = runner.invoke(app, ["status"]).stdout
    assert "3 notes" in text and "2 price rows" in text


def _links_env(hash_env: Settings) -> None:
    (hash_env.notes / "links.md").write_text(
        "# Reading\n\nSee [an article](https://example.org/a) and <https://example.org/b>.\n", encoding="utf-8"
    )
    assert runner.invoke(app, ["index"]).exit_code == 0


def test_links_reports_every_link_per_note(hash_env: Settings) -> None:
    _links_env(hash_env)
    result = runner.invoke(app, ["links", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    [note] = [n for n in data["notes"] if n["note"] == "Reading"]
    assert {link["url"] for link in note["links"]} == {"https://example.org/a", "https://example.org/b"}
    assert all(link["outcome"] == "skipped" and "fetch_links" in link["reason"] for link in note["links"])
    assert data["counts"]["skipped"] == 2
    text = runner.invoke(app, ["links", "--failed"]).stdout
    assert "Reading" in text and "skipped  https://example.org/a" in text and "2 skipped" in text


LINK_COUNT_KEYS = {"fetched", "not_modified", "cached", "failed", "skipped"}


def test_every_json_output_counts_links_with_the_same_keys(hash_env: Settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    page = "<html><head><title>V100</title></head><body><article><p>The V100 has 32 GB of HBM2.</p></article></body></html>"
    with LoopbackSite({"/ok": Reply(200, page)}) as site:
        (hash_env.notes / "links.md").write_text(
            f"# Reading\n\nSee [one]({site.url('/ok')}), [two]({site.url('/gone')}) and [three](ftp://example.org/x).\n",
            encoding="utf-8",
        )
        for key, value in {"FETCH_LINKS": "true", "ALLOW_PRIVATE_HOSTS": "true", "FETCH_HOST_DELAY": "0"}.items():
            monkeypatch.setenv(f"HWQA_{key}", value)
        built = json.loads(runner.invoke(app, ["index", "--json"]).stdout)["links"]
    counts = {k: v for k, v in built.items() if k in LINK_COUNT_KEYS}
    assert counts == {"fetched": 1, "not_modified": 0, "cached": 0, "failed": 1, "skipped": 1}
    assert {u["status"] for u in built["urls"]} == {"fetched", "failed", "skipped"}  # per-URL values unchanged
    status = json.loads(runner.invoke(app, ["status", "--json"]).stdout)["links"]
    listed = json.loads(runner.invoke(app, ["links", "--json"]).stdout)["counts"]
    assert status == listed == counts
    assert "links: 1 fetched, 0 cached, 1 failed, 1 skipped" in runner.invoke(app, ["status"]).stdout
    monkeypatch.setenv("HWQA_OFFLINE", "true")  # the page again, from the cache
    again = json.loads(runner.invoke(app, ["index", "--json"]).stdout)["links"]
    assert {k: v for k, v in again.items() if k in LINK_COUNT_KEYS} == {
        "fetched": 0,
        "not_modified": 0,
        "cached": 1,
        "failed": 0,
        "skipped": 2,
    }
    assert {u["status"] for u in again["urls"]} == {"from-cache", "skipped"}


def test_links_without_an_index_is_one_line_and_exit_1(hash_env: Settings) -> None:
    result = runner.invoke(app, ["links"])
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1 and "hwqa index" in result.stderr


def test_ask_piped_prints_plain_text(hash_env: Settings) -> None:
    runner.invoke(app, ["index"])
    result = runner.invoke(app, ["ask", "How much does a TPU v3 cost per hour?"])
    assert result.exit_code == 0
    assert "\x1b[" not in result.stdout and result.stdout.count("8.00") >= 1
    assert result.stdout.index("8.00") < result.stdout.index("Sources")


def test_serve_on_a_public_address_without_login_is_refused(hash_env: Settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "HWQA_AUTH" in lines[0]


def test_python_dash_m_hwqa_works(hash_env: Settings) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "hwqa", "--version"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("hwqa ")


def test_config_hides_the_web_login(hash_env: Settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HWQA_AUTH", "me:s3cret-pw")
    result = runner.invoke(app, ["config"])
    assert result.exit_code == 0 and "HWQA_AUTH" in result.stdout and "s3cret-pw" not in result.stdout
