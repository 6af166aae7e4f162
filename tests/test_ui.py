"""The web chat's function, called directly as Gradio would call it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from hwqa.build.builder import build_index
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
    # the note viewer serves indexed notes as a page that loads and runs nothing, and nothing else
    with urlopen(f"{served.url}/hwqa/note/prices.md", timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/html")
        assert "default-src 'none'" in response.headers["Content-Security-Policy"]
        assert "script-src" not in response.headers["Content-Security-Policy"]
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


# --- the note viewer, conversations, calculator fields, link health ----------------------------


def test_note_viewer_renders_the_body_without_front_matter_and_marks_the_cited_lines() -> None:
    from hwqa.ui.noteview import note_page

    note = (
        "---\ntitle: TPU notes\ntags: [tpu, secret-tag]\n---\n# TPU notes\n\n## Colab\n\n"
        "The Colab TPU runtime had a TPU v3-8.\nIt had 8 cores.\n\nUnrelated words here.\n\n"
        "See https://github.com/pytorch/xla and ![d](http://outside.invalid/d.png) <script>alert(1)</script>\n"
    )
    page = note_page(note, "tpu.md", quote="The Colab TPU runtime had a TPU v3-8. It had 8 cores.", section="Colab")
    assert "secret-tag" not in page and "tags:" not in page  # no front matter
    assert '<p class="hwqa-cited" id="hwqa-cited">The Colab TPU runtime' in page
    assert page.count('class="hwqa-cited"') == 1  # the one cited paragraph, not the unrelated one
    assert '<a href="https://github.com/pytorch/xla" target="_blank" rel="noopener noreferrer nofollow"' in page
    assert ">https://github.com/pytorch/xla</a>" in page
    assert "<img" not in page and "<script" not in page and "&lt;script&gt;" in page
    assert ">image: d</a>" in page


def test_conversations_are_kept_switched_and_started_new() -> None:
    from hwqa.ui import conversations as conv

    store = conv.load(None)
    first = conv.with_messages(store, [{"role": "user", "content": "TPU or GPU for $500?"}])
    assert conv.choices(first) == [("TPU or GPU for $500?", first["current"])]
    second = conv.new_chat(first)
    assert second["current"] != first["current"] and conv.current(second)["messages"] == []
    assert conv.new_chat(second) == second  # an empty conversation is reused
    second = conv.with_messages(second, [{"role": "user", "content": "What is XLA?"}])
    back = conv.switch(second, first["current"])
    assert conv.current(back)["title"] == "TPU or GPU for $500?"
    assert [title for title, _ in conv.choices(back)] == ["What is XLA?", "TPU or GPU for $500?"]
    assert conv.load([{"role": "user", "content": "old page"}])["chats"][0]["title"] == "old page"  # older pages' one chat
    assert conv.load({"chats": "junk"})["chats"][0]["messages"] == []


def test_calculator_fields_are_checked_one_line_each() -> None:
    from hwqa.ui.panels import field_problem

    assert field_problem(-5, None, None, 1) == "⚠️ Budget can't be negative (you typed -5); type 0 or more, or leave it empty."
    assert "Devices" in field_problem(None, None, None, 0.5)
    assert "finite" in field_problem(float("nan"), None, None, 1)
    assert field_problem(500, 0, None, 1) == ""


def test_failed_links_are_grouped_by_reason_without_their_hosts() -> None:
    manifest = {
        "links": {
            f"https://host{i}.example.org/p": {"status": "failed", "reason": f"could not resolve host{i}.example.org"}
            for i in range(52)
        }
    }
    assert reports.failure_totals(reports.links(manifest)) == [("no network (host names could not be resolved)", 52)]
    assert reports.link_health(manifest) == "52 links of 52 were not fetched: no network — answers use your notes only."
    assert reports.plural(1, "note") == "1 note" and reports.plural(2, "passage") == "2 passages"


def test_answer_tables_lead_with_the_name_then_price_hours_and_v100_hours() -> None:
    from hwqa.ui.render import useful_columns_first

    table = (
        "| # | Hardware | Provider | Pricing | $/h | Hours | V100-h |\n|---|---|---|---|---|---|---|\n"
        "| 1 | TPU v3 | GCP | on-demand | $8.00 | 62.5 | 500 |"
    )
    out = useful_columns_first(table).splitlines()
    assert out[0] == "| Hardware | $/h | Hours | V100-h | Provider | Pricing |"  # the name first: it stays in view (sticky)
    assert out[2] == "| TPU v3 | $8.00 | 62.5 | 500 | GCP | on-demand |"


def test_a_cited_passage_shows_every_address_as_a_link_to_itself() -> None:
    from hwqa.ui.render import passage_markdown

    out = passage_markdown("See [the repo](https://github.com/pytorch/xla_tools) and https://example.org/a*b. `https://code/`")
    assert 'the repo (<a class="hwqa-ext" href="https://github.com/pytorch/xla_tools"' in out
    assert 'rel="noopener noreferrer nofollow"' in out and 'target="_blank"' in out
    assert ">https://github.com/pytorch/xla&#95;tools</a>" in out  # the address itself, shown as written
    assert ">https://example.org/a&#42;b</a>." in out
    assert "`https://code/`" in out  # code stays code


def test_the_spot_control_counts_preemptible_prices_and_unset_filters_are_not_blamed(tmp_path: Path) -> None:
    from tests.browser_support import PRICES
    from tests.conftest import write_note

    write_note(tmp_path / "notes", "prices.md", PRICES)
    engine = Engine.load(built_hash_index(tmp_path))
    question = "TPU or GPU for my budget of $500?"

    def pricings(answer: Any) -> set[str]:
        return {o["pricing"] for o in answer.tool_calls[0].result["options"]}

    default = engine.ask(question)
    assert "preemptible" not in pricings(default)
    shown = answer_messages(default, 1)[-1]["content"]
    assert "Left out by your filters" not in shown  # the person set no filter
    assert "Not counted: TPU v3-8 (GCP, preemptible)" in shown and "Include spot/preemptible prices" in shown
    assert "preemptible" in pricings(engine.ask(question, preemptible=True))
    memory = answer_messages(engine.ask("TPU or GPU for my budget of $500 with at least 64 GB of memory?"), 1)[-1]["content"]
    assert "Left out by your filters: V100 (GCP, on-demand)" in memory  # a filter the person did set


def test_a_filtered_question_the_notes_dont_cover_names_the_filter(settings: Settings) -> None:
    from hwqa.answer.retrieve import Filter
    from hwqa.engine import describe_filter

    build_index(settings)
    engine = Engine.load(settings)
    answer = engine.ask("Which accelerator has zebra stripes?", flt=Filter.of(["tpu"], []))
    assert not answer.covered
    assert answer.text.startswith("I searched only the notes tagged “tpu” and the articles they link to (your filter). ")
    assert "your filter" not in engine.ask("Which accelerator has zebra stripes?").text  # no filter, nothing to name
    assert describe_filter(Filter.of(["a", "b"], ["x.md"])) == (
        "the notes tagged “a” or “b” and the note “x.md” and the articles they link to"
    )


def test_an_empty_store_always_reads_as_the_same_conversation() -> None:
    from hwqa.ui import conversations as conv

    # the page load and an answer's save may both read the store before the browser kept it:
    # they must agree on which conversation is shown, or switching would stop the answer
    assert conv.load(None)["current"] == conv.load(None)["current"] == conv.with_messages(None, [])["current"]


def test_after_the_warm_up_a_first_question_loads_nothing_more(settings: Settings) -> None:
    """The web chat warms the engine before it says ready, so the first question pays no import or
    load that the next one does not (it paid FAISS's import, 0.1-0.3 s). Run in a new interpreter:
    this process has imported everything already."""
    import json
    import subprocess
    import sys

    build_index(settings)
    script = f"""
import json, sys
from hwqa.settings import load_settings
from hwqa.engine import Engine
from hwqa.ui.app import warm
engine = Engine.load(load_settings({{"notes": {str(settings.notes)!r}, "index": {str(settings.index)!r},
    "embed_backend": "hash", "fetch_links": False}}, env={{}}))
warm(engine)
before = set(sys.modules)
for q in ["How much does a TPU v3 cost per hour?", "TPU or GPU for my budget of $500?", "Which is the cheapest?"]:
    engine.ask(q)
print(json.dumps(sorted(set(sys.modules) - before)))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
