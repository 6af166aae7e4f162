"""The web chat's function, called directly as Gradio would call it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from hwqa.build import build_index
from hwqa.engine import Engine
from hwqa.settings import Settings
from hwqa.ui import build_app, make_chat, status_line


def test_chat_streams_growing_text_then_the_answer_with_sources(settings: Settings) -> None:
    build_index(settings)
    chat = make_chat(Engine.load(settings))
    outputs = list(chat("How much does a TPU v3 cost per hour?", []))
    assert len(outputs) > 1
    assert all(len(a) <= len(b) for a, b in itertools.pairwise(outputs))
    final = outputs[-1]
    assert "8.00" in final and "**Sources**" in final and "[1] GPU prices" in final


def test_chat_accepts_gradio_message_history(settings: Settings) -> None:
    build_index(settings)
    chat = make_chat(Engine.load(settings))
    history = [
        {"role": "user", "content": "What is PyTorch/XLA?"},
        {"role": "assistant", "content": [{"type": "text", "text": "It runs PyTorch on TPUs."}]},
    ]
    final = list(chat("What did the Colab TPU runtime have?", history))[-1]
    assert "TPU v3" in final


def test_errors_are_shown_in_the_conversation(settings: Settings) -> None:
    build_index(settings)
    chat = make_chat(Engine.load(settings))
    assert list(chat("   ", [])) == ["⚠️ the question is empty; type a question about your hardware notes"]


def test_app_builds_with_examples_and_status(settings: Settings) -> None:
    build_index(settings)
    engine = Engine.load(settings)
    assert "3 notes" in status_line(engine)
    demo = build_app(engine)
    assert demo is not None


# --- the rendering layer: content is text and Markdown only ---------------------------------

from pathlib import Path  # noqa: E402
from urllib.error import HTTPError  # noqa: E402
from urllib.request import urlopen  # noqa: E402

import pytest  # noqa: E402

from hwqa.errors import ConfigError  # noqa: E402
from hwqa.ui import reports  # noqa: E402
from hwqa.ui.render import answer_messages, safe_markdown  # noqa: E402
from hwqa.ui.security import check_bind  # noqa: E402
from tests.browser_support import App, write_browser_notes  # noqa: E402
from tests.conftest import built_hash_index  # noqa: E402


def test_safe_markdown_leaves_no_html_and_loads_nothing() -> None:
    hostile = (
        '<script>x()</script> <img src="http://evil.invalid/a.png"> <iframe src=x></iframe> <svg onload=x()></svg> '
        "<style>b{}</style> <form action=y></form> ![pic](http://evil.invalid/p.png) [go](javascript:alert(1)) "
        "[ok](https://example.org/a_(b)) <https://example.org/auto>"
    )
    out = safe_markdown(hostile)
    assert "<" not in out.replace("&lt;", "")
    assert "![" not in out and "[image: pic](http://evil.invalid/p.png)" in out
    assert "javascript:" not in out and "[go](#blocked-link)" in out
    assert "[ok](https://example.org/a_(b))" in out
    assert "[https://example.org/auto](https://example.org/auto)" in out
    assert safe_markdown("`a < b`\n```\n<b>\n```") == "`a < b`\n```\n<b>\n```"  # code is shown as code


def test_calculator_step_lists_every_option_and_names_excluded_rows_with_pricing(tmp_path: Path) -> None:
    write_browser_notes(tmp_path / "notes")
    answer = Engine.load(built_hash_index(tmp_path)).ask("TPU or GPU for my budget of $500?")
    step, final = answer_messages(answer, 1)
    assert step["metadata"] == {"title": "Price calculator — budget $500: hours per option", "status": "done"}
    assert "budget_usd" in step["content"] and "P100" in step["content"] and "other types not compared" in step["content"]
    assert "TPU v3-8 (GCP, preemptible): preemptible" in step["content"]
    assert "TPU v3-8 (GCP, preemptible)" in final["content"] and "Excluded: TPU v3-8 (GCP):" not in final["content"]
    assert '<details class="hwqa-src" id="hwqa-src-1-1">' in final["content"]
    assert "[\\[1\\]](#hwqa-src-1-1)" in final["content"]


def test_old_prices_are_flagged_as_possibly_stale() -> None:
    import datetime as dt

    today = dt.date(2026, 11, 22)
    assert reports.stale("2019-06", today) and reports.stale("2025-10-01", today)
    assert not reports.stale("2026-01", today) and not reports.stale(None, today) and not reports.stale("soon", today)


def test_serving_beyond_loopback_needs_a_login(settings: Settings) -> None:
    with pytest.raises(ConfigError, match="HWQA_AUTH"):
        check_bind(settings.replace(host="0.0.0.0"))
    assert check_bind(settings.replace(host="0.0.0.0", auth="me:secret")) == ("me", "secret")
    assert check_bind(settings) is None
    with pytest.raises(ConfigError, match="user:password"):
        check_bind(settings.replace(auth="nopassword"))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    running = App(tmp_path_factory.mktemp("served"))
    yield running
    running.stop()


def _status(url: str) -> int:
    try:
        with urlopen(url, timeout=30) as response:
            return int(response.status)
    except HTTPError as exc:
        return int(exc.code)


def test_notes_index_cache_and_env_are_not_served(served: App) -> None:
    root = served.notes.parent
    secrets = [served.notes / "prices.md", served.settings.index / "CURRENT", root / ".env", Path.cwd() / "pyproject.toml"]
    for path in secrets:
        for route in ("/file=", "/gradio_api/file="):
            assert _status(f"{served.url}{route}{path.resolve()}") in (403, 404), (route, path)
    # the note view serves indexed notes as plain text, and nothing else
    with urlopen(f"{served.url}/hwqa/note/prices.md", timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        assert "default-src 'none'" in response.headers["Content-Security-Policy"]
    for bad in ("..%2F.env", "%2E%2E/.env", "broken.md", "nope.md"):
        assert _status(f"{served.url}/hwqa/note/{bad}") == 404, bad


def test_twenty_chat_requests_at_once_all_complete(served: App) -> None:
    from gradio_client import Client

    client = Client(served.url + "/", verbose=False)
    questions = [f"How much does a V100 cost per hour? ({i})" for i in range(10)]
    questions += [f"TPU or GPU for my budget of ${100 * (i + 1)}?" for i in range(10)]
    jobs = [client.submit(q, None, api_name="/chat") for q in questions]
    answers = [job.result(timeout=180) for job in jobs]
    assert len(answers) == 20
    assert all("⚠️" not in a and "hwqa-src-1-1" in a for a in answers)
    assert "$2.48" in answers[0] and "$500" in answers[14]


def test_with_a_login_the_page_and_the_notes_need_it(tmp_path: Path) -> None:
    app = App(tmp_path, auth="me:secret")
    try:
        assert _status(f"{app.url}/hwqa/note/prices.md") == 401
        assert _status(f"{app.url}/config") == 401  # the page shows the login form only
        assert _status(f"{app.url}/gradio_api/info") in (401, 403)
    finally:
        app.stop()


# --- the chat tab's tag / note filters ---------------------------------------------------------


def test_chat_with_a_tag_filter_cites_only_notes_with_that_tag(settings: Settings) -> None:
    build_index(settings)
    chat = make_chat(Engine.load(settings))
    question = "What runs on a TPU v3?"
    unfiltered = list(chat(question, []))[-1].split("**Sources**")[1]
    assert "GPU prices" in unfiltered and "TPU notes" in unfiltered
    final = list(chat(question, [], ["tpu"], []))[-1]
    sources = final.split("**Sources**")[1]
    assert "TPU notes" in sources and "GPU prices" not in sources
    by_note = list(chat(question, [], [], ["prices.md"]))[-1].split("**Sources**")[1]
    assert "GPU prices" in by_note and "TPU notes" not in by_note


def test_filter_choices_are_the_tags_and_notes_of_the_live_index(settings: Settings) -> None:
    from hwqa.ui.filters import filter_choices, kept, search_filter

    build_index(settings)
    engine = Engine.load(settings)
    choices = filter_choices(engine)
    assert {"prices", "cloud", "tpu"} <= set(choices.tags)
    assert ("TPU notes", "tpu.md") in choices.notes and ("GPU prices", "prices.md") in choices.notes
    assert search_filter([], []) is None and search_filter(None, None) is None
    assert kept(["tpu", "gone"], choices.tags) == ["tpu"]
    assert kept(["tpu.md", "gone.md"], choices.notes) == ["tpu.md"]
    # a rebuild with a new tagged note shows up without a restart
    (settings.notes / "gaudi.md").write_text("---\ntags: [habana]\n---\n# Gaudi\n\nThe Gaudi accelerator.\n", encoding="utf-8")
    build_index(settings)
    assert "habana" in filter_choices(engine).tags


def test_chat_api_takes_tag_and_note_filters(served: App) -> None:
    from gradio_client import Client

    client = Client(served.url + "/", verbose=False)
    question = "Which accelerator has zebra stripes, and what did the Colab TPU runtime have?"
    everything = client.predict(question, None, None, None, api_name="/chat")
    assert "Zebra accelerator" in everything and "TPU notes" in everything
    tagged = client.predict(question, None, ["tpu"], None, api_name="/chat")
    assert "TPU notes" in tagged and "Zebra" not in tagged
    named = client.predict(question, None, None, ["zebra.md"], api_name="/chat")
    assert "Zebra accelerator" in named and "TPU notes" not in named
