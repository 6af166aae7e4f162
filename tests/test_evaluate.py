"""``hwqa eval``: metrics, the loopback site, the JSON report, and the honesty of the shipped question sets."""

from __future__ import annotations

import json
import re
import textwrap
import urllib.request
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from rich.console import Console
from typer.testing import CliRunner

from hwqa.answer.answer import Answer
from hwqa.answer.base import Hit
from hwqa.cli import app
from hwqa.eval.evaluate import (
    SplitTallies,
    _Tally,
    fact_found,
    first_rank,
    normalise,
    run_eval,
    score_question,
    serve_site,
)
from hwqa.eval.report import markdown_table, render
from hwqa.eval.sets import EvalError, Question, load_question_set
from hwqa.index.reader import StoredChunk
from hwqa.settings import Settings, load_settings

REPO = Path(__file__).resolve().parent.parent
runner = CliRunner()

PAGE = """<!DOCTYPE html><html><head><title>Frobnitz compiler guide</title></head><body>
<nav class="sidebar"><ul><li><a href="/">Home</a></li><li><a href="/docs/">Docs</a></li></ul></nav>
<main><article>
<h1>Frobnitz compiler guide</h1>
<p>The frobnitz compiler turns quantum spreadsheets into bytecode for the Wibble virtual machine.
It reads one spreadsheet at a time and writes the bytecode next to it.</p>
<h2>Flags</h2>
<p>The flag --warp-factor sets how aggressively the frobnitz compiler unrolls loops; its default value is 9.
Higher values make larger bytecode that runs faster on the Wibble virtual machine.</p>
</article></main>
<footer>Copyright 2025 Frobnitz authors</footer>
</body></html>
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture
def tiny_set(tmp_path: Path) -> Path:
    """A question file over two notes, a reading-list note and one site page."""
    root = tmp_path / "set"
    write(
        root / "notes" / "zorblax.md",
        """
        ---
        title: Zorblax accelerators
        tags: [hardware]
        ---
        # Zorblax accelerators

        ## Memory

        The Zorblax Z9 accelerator has 77 GB of memory, the most of any Zorblax card.
        """,
    )
    write(
        root / "notes" / "quibble.md",
        """
        ---
        title: Quibble boards
        ---
        # Quibble boards

        The Quibble Q2 single-board computer costs $31 and runs from a USB power bank.
        """,
    )
    write(
        root / "notes" / "reading.md",
        """
        ---
        title: Reading list
        ---
        # Reading list

        * [A compiler guide]({site}/docs/guide.html) - worth a read.
        """,
    )
    (root / "site" / "docs").mkdir(parents=True)
    (root / "site" / "docs" / "guide.html").write_text(PAGE, encoding="utf-8")
    return write(
        root / "questions.yaml",
        """
        name: tiny
        notes: notes
        site: site
        questions:
          - id: z9-memory
            split: train
            question: "How much memory does the Zorblax Z9 have?"
            sources: [zorblax.md]
            facts: [["77 GB", "77GB"]]
            rewordings: ["Zorblax Z9: how many gigabytes can it hold?"]
          - id: warp-factor
            split: test
            question: "What does the --warp-factor flag of the frobnitz compiler do?"
            sources: [docs/guide.html]
            facts: ["unrolls loops"]
            rewordings: ["Explain the frobnitz option --warp-factor."]
          - id: nc-mongolia
            split: test
            question: "What is the capital of Mongolia?"
            covered: false
            missing: Mongolia
        """,
    )


@pytest.fixture
def hash_settings(tmp_path: Path) -> Settings:
    return load_settings({"embed_backend": "hash"}, env={}, cwd=tmp_path)


@pytest.fixture
def hash_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The CLI with the hash embedder and no other HWQA_* settings; returns the eval cache folder."""
    monkeypatch.chdir(tmp_path)
    for key in list(__import__("os").environ):
        if key.startswith("HWQA_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HWQA_EMBED_BACKEND", "hash")
    return tmp_path / "eval-cache"


def chunk(source: str, kind: str = "note", url: str | None = None, text: str = "text") -> StoredChunk:
    return StoredChunk(0, source, kind, source, "title", "", url, 1, 0, text, {})


def hit(source: str, kind: str = "note", url: str | None = None) -> Hit:
    return Hit(chunk(source, kind, url), score=0.5)


# --------------------------------------------------------------------------------------------
# Metrics


def test_rank_is_the_first_hit_whose_source_matches_notes_and_site_pages() -> None:
    hits = [
        hit("other.md"),
        hit("http://127.0.0.1:1234/docs/guide.html", "article", "http://127.0.0.1:1234/docs/guide.html"),
        hit("zorblax.md"),
    ]
    assert first_rank(hits, ["zorblax.md"]) == 3
    assert first_rank(hits, ["docs/guide.html"]) == 2
    assert first_rank(hits, ["other.md", "zorblax.md"]) == 1
    assert first_rank(hits, ["missing.md"]) is None
    folder = [hit("http://127.0.0.1:1/guide/", "article", "http://127.0.0.1:1/guide/")]
    assert first_rank(folder, ["guide/"]) == first_rank(folder, ["guide/index.html"]) == 1


def test_retrieval_metrics_hit_at_1_hit_at_5_and_mrr() -> None:
    tally = _Tally()
    q = Question("q", "question?", sources=("a.md",), facts=(("x",),))
    answer = Answer("x")
    score_question(q, [hit("a.md"), hit("b.md")], answer, 0.01, tally)  # rank 1
    score_question(q, [hit("b.md"), hit("a.md")], answer, 0.02, tally)  # rank 2
    score_question(q, [hit("b.md")] * 5 + [hit("a.md")], answer, 0.03, tally)  # rank 6: outside the top 5
    m = tally.summary()
    assert m["hit1"] == pytest.approx(1 / 3, abs=1e-4)
    assert m["hit5"] == pytest.approx(2 / 3, abs=1e-4)
    assert m["mrr"] == pytest.approx((1 + 0.5) / 3, abs=1e-4)
    assert m["p50_ms"] == pytest.approx(20.0)
    problems = [f["problems"] for f in m["failures"]]
    assert problems == [["source at rank 2"], ["source not in the top 5"]]


def test_fact_matching_accepts_alternatives_and_ignores_emphasis_case_and_spacing() -> None:
    text = "The **A100   80GB** costs `$5.12` per hour [1]."
    assert fact_found(text, ["80 GB", "80GB"])
    assert fact_found(text, ["a100 80gb"])
    assert fact_found(text, ["$5.12"])
    assert not fact_found(text, ["40 GB"])
    assert normalise("  `sm_90`\n**x86_64**  ") == "sm_90 x86_64"


def test_fact_recall_counts_each_fact_and_reports_the_missing_ones() -> None:
    tally = _Tally()
    q = Question("prices", "?", sources=("a.md",), facts=(("4.10",), ("5.12", "5,12"), ("12.29",)))
    score_question(q, [hit("a.md")], Answer("A100 40GB: $4.10; A100 80GB: *5.12*."), 0.0, tally)
    m = tally.summary()
    assert m["fact_recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert m["failures"][0]["problems"] == ["facts missing: 12.29"]


def test_not_covered_answered_as_covered_counts_as_wrong() -> None:
    tally = _Tally()
    nc = Question("nc", "How much memory does the RTX 5090 have?", covered=False, missing="RTX 5090")
    score_question(nc, [hit("gpus.md")], Answer("The RTX 4090 has 24 GB.", covered=True), 0.0, tally)
    score_question(nc, [hit("gpus.md")], Answer("My notes don't mention the RTX 5090.", covered=False), 0.0, tally)
    score_question(nc, [hit("gpus.md")], Answer("My notes don't cover that.", covered=False), 0.0, tally)
    m = tally.summary()
    assert m["not_covered_accuracy"] == pytest.approx(2 / 3, abs=1e-4)
    assert m["missing_named"] == pytest.approx(1 / 3, abs=1e-4)
    assert m["hit1"] is None and m["fact_recall"] is None  # no covered questions: no retrieval figures
    first, last = m["failures"]
    assert first["problems"] == ["answered as if covered"] and first["got"]["covered"] is True
    assert "did not name the missing term 'RTX 5090'" in last["problems"]


def test_a_covered_question_answered_not_covered_is_a_false_not_covered() -> None:
    tally = _Tally()
    q = Question("q", "?", sources=("a.md",), facts=(("80 GB",),))
    score_question(q, [hit("a.md")], Answer("My notes don't cover that question.", covered=False), 0.0, tally)
    score_question(q, [hit("a.md")], Answer("It has 80 GB.", covered=True), 0.0, tally)
    m = tally.summary()
    assert m["false_not_covered"] == 0.5
    assert "said not covered" in m["failures"][0]["problems"]
    assert m["failures"][0]["got"]["answer"].startswith("My notes don't cover")


def test_train_and_test_are_scored_apart_and_rewordings_against_their_original() -> None:
    tallies = SplitTallies()
    train = Question("vram", "Which GPU has the most memory?", sources=("a.md",), facts=(("80 GB",), ("A100",)), split="train")
    reworded = Question(
        "vram~1", "Which card has the most VRAM?", sources=("a.md",), facts=train.facts, split="train", original="vram"
    )
    test = Question("t4", "What does a T4 cost?", sources=("b.md",), facts=(("0.35",),), split="test")
    nc = Question("nc", "How much memory does the RTX 5090 have?", covered=False, split="test")
    tallies.add(train, [hit("a.md")], Answer("The A100 has 80 GB."), 0.01)
    tallies.add(reworded, [hit("b.md"), hit("a.md")], Answer("The A100 is fast."), None)
    tallies.add(test, [hit("c.md")], Answer("The T4 is small."), 0.02)
    tallies.add(nc, [hit("a.md")], Answer("My notes don't mention the RTX 5090.", covered=False), 0.03)
    m = tallies.summary()
    assert m["fact_recall"] == pytest.approx(3 / 5, abs=1e-4)  # every question
    train_m, test_m = m["splits"]["train"], m["splits"]["test"]
    assert (train_m["questions"], test_m["questions"]) == (2, 2)
    assert train_m["fact_recall"] == 0.75 and train_m["hit1"] == 0.5 and train_m["mrr"] == 0.75
    assert test_m["fact_recall"] == 0.0 and test_m["hit5"] == 0.0 and test_m["not_covered_accuracy"] == 1.0
    assert "failures" not in train_m  # listed once, at the top, each with its part
    assert {f["id"]: f["split"] for f in m["failures"]} == {"vram~1": "train", "t4": "test"}
    wordings = m["wordings"]["train"]
    assert (wordings["original"], wordings["reworded"], wordings["gap"]) == (1.0, 0.5, 0.5)
    assert wordings["original_questions"] == 1 and wordings["reworded_questions"] == 1
    assert m["wordings"]["test"]["reworded"] is None and m["wordings"]["test"]["gap"] is None
    assert m["reworded_losses"] == [{"id": "vram", "split": "train", "original": 1.0, "rewordings": {"vram~1": 0.5}}]

    report = {
        "sets": [
            {"name": "demo", "questions": 4, "split": {"train": 2, "test": 2}, "rewordings": 1, "retrievers": {"hybrid": m}}
        ],
        "split": "all",
        "embedder": {"backend": "hash", "model": "-"},
        "llm_backend": "builtin",
        "failures_shown_for": "hybrid",
        "seconds": 1.0,
    }
    console = Console(record=True, width=250)
    render(report, console)
    text = console.export_text()
    assert "each cell train / test" in text and "demo (4: 2 train / 2 test)" in text
    assert "0.75 / 0.00" in text  # facts: train / test
    assert "1.00 / 0.00" in text and "0.50 / -" in text  # facts of the original wordings and of the rewordings (none on test)
    assert "vram [train]: original 1.00; vram~1 0.50" in text
    assert "t4 [test]: source not in the top 5; facts missing: 0.35" in text
    table = markdown_table(report).splitlines()
    assert table[2].startswith("| demo (4: 2 train / 2 test) | hybrid | 0.50 / 0.00 | 1.00 / 0.00 | 0.75 / 0.00 | 0.75 / 0.00 |")


# --------------------------------------------------------------------------------------------
# Running a set


def test_the_site_is_served_on_loopback(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.html").write_text(PAGE, encoding="utf-8")
    with serve_site(tmp_path) as base:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", base)
        with urllib.request.urlopen(f"{base}/docs/guide.html", timeout=5) as response:
            assert b"--warp-factor" in response.read()


def test_a_run_serves_the_site_substitutes_it_and_finds_notes_and_pages(
    tiny_set: Path, hash_settings: Settings, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    messages: list[str] = []
    report = run_eval([tiny_set], hash_settings, ["keyword", "hybrid"], cache=cache, progress=messages.append)
    (result,) = report["sets"]
    assert result["name"] == "tiny" and result["questions"] == 5 and result["rewordings"] == 2
    assert result["covered"] == 4 and result["not_covered"] == 1
    assert result["split"] == {"train": 2, "test": 3}
    assert set(result["retrievers"]) == {"keyword", "hybrid"}
    keyword = result["retrievers"]["keyword"]
    assert keyword["hit1"] == 1.0  # the note and the served page are each found first
    assert not [f for f in keyword["failures"] if any("rank" in p or "top" in p for p in f["problems"])]
    reading = next(cache.rglob("notes/reading.md")).read_text(encoding="utf-8")
    assert "{site}" not in reading and re.search(r"\(http://127\.0\.0\.1:\d+/docs/guide\.html\)", reading)
    assert any("building the index" in m for m in messages)

    again = run_eval([tiny_set], hash_settings, ["keyword"], cache=cache)  # the same site URL: nothing re-embedded
    assert again["sets"][0]["retrievers"]["keyword"]["hit1"] == 1.0
    assert next(cache.rglob("notes/reading.md")).read_text(encoding="utf-8") == reading


def test_eval_json_has_the_documented_shape(tiny_set: Path, hash_cli: Path) -> None:
    result = runner.invoke(app, ["eval", "--questions", str(tiny_set), "--json", "--cache", str(hash_cli)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    (s,) = data["sets"]
    assert s["name"] == "tiny" and s["questions"] == 5
    assert list(s["retrievers"]) == ["dense", "keyword", "hybrid"]
    for metrics in s["retrievers"].values():
        assert set(metrics["splits"]) == {"train", "test"} and set(metrics["wordings"]) == {"train", "test"}
        assert metrics["splits"]["train"]["questions"] == 2 and metrics["splits"]["test"]["questions"] == 3
        assert set(metrics["splits"]["test"]) >= {
            "hit1",
            "hit5",
            "mrr",
            "fact_recall",
            "not_covered_accuracy",
            "false_not_covered",
        }
        assert set(metrics["wordings"]["test"]) >= {"original", "reworded", "gap"}
        assert set(metrics) >= {
            "hit1",
            "hit5",
            "mrr",
            "fact_recall",
            "not_covered_accuracy",
            "false_not_covered",
            "p50_ms",
            "failures",
        }
        for failure in metrics["failures"]:
            assert set(failure) >= {"id", "split", "problems", "expected", "got"}
            assert set(failure["got"]) >= {"top_source", "answer", "covered", "rank"}
            assert len(failure["got"]["answer"]) <= 200


def test_split_test_asks_only_the_test_questions(tiny_set: Path, hash_cli: Path) -> None:
    result = runner.invoke(
        app,
        ["eval", "--questions", str(tiny_set), "--split", "test", "--retriever", "keyword", "--json", "--cache", str(hash_cli)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    (s,) = data["sets"]
    assert data["split"] == "test" and s["questions"] == 3 and s["split"] == {"test": 3}
    keyword = s["retrievers"]["keyword"]
    assert list(keyword["splits"]) == ["test"] and keyword["splits"]["test"]["questions"] == 3
    assert all(f["split"] == "test" for f in keyword["failures"])
    table = runner.invoke(
        app,
        [
            "eval",
            "--questions",
            str(tiny_set),
            "--split",
            "train",
            "--retriever",
            "keyword",
            "--markdown",
            "--cache",
            str(hash_cli),
        ],
    )
    assert table.exit_code == 0, table.output
    assert table.stdout.splitlines()[2].startswith("| tiny (2: 2 train) | keyword | 1.00 |")
    bad = runner.invoke(app, ["eval", "--questions", str(tiny_set), "--split", "dev", "--cache", str(hash_cli)])
    assert bad.exit_code == 1 and "unknown split 'dev'" in bad.stderr


def test_eval_prints_a_table_for_people(tiny_set: Path, hash_cli: Path) -> None:
    result = runner.invoke(app, ["eval", "--questions", str(tiny_set), "--retriever", "keyword", "--cache", str(hash_cli)])
    assert result.exit_code == 0, result.output
    assert "hit@1" in result.stdout and "keyword" in result.stdout and "tiny" in result.stdout
    table = runner.invoke(
        app, ["eval", "--questions", str(tiny_set), "--retriever", "keyword", "--markdown", "--cache", str(hash_cli)]
    )
    assert table.exit_code == 0, table.output
    lines = table.stdout.strip().splitlines()
    assert lines[0].startswith("| set | retriever | hit@1 (train / test) | hit@5 (train / test) |")
    assert lines[2].startswith("| tiny (5: 2 train / 3 test) | keyword | 1.00 / 1.00 |")
    assert any(line.startswith("| set | retriever | facts, original (train / test) |") for line in lines)


def test_a_missing_requirement_is_one_line_saying_how_to_install(tmp_path: Path, hash_cli: Path) -> None:
    questions = write(
        tmp_path / "docs.yaml",
        f"""
        name: docs
        notes: {tmp_path}
        requires:
          path: {tmp_path / "no-such-docs"}
          debian: python3.11-doc
        questions:
          - id: q
            question: "What does os.walk do?"
            sources: [library/os.html]
        """,
    )
    result = runner.invoke(app, ["eval", "--questions", str(questions), "--cache", str(hash_cli)])
    assert result.exit_code == 1
    assert len(result.stderr.strip().splitlines()) == 1
    assert "apt-get install -y python3.11-doc" in result.stderr and "no-such-docs" in result.stderr


def test_an_unknown_retriever_or_a_bad_file_is_a_one_line_error(tiny_set: Path, hash_cli: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "--questions", str(tiny_set), "--retriever", "fuzzy", "--cache", str(hash_cli)])
    assert result.exit_code == 1 and "unknown retriever 'fuzzy'" in result.stderr
    dup = write(
        tmp_path / "dup.yaml",
        """
        questions:
          - {id: a, question: "x?", sources: [a.md]}
          - {id: a, question: "y?", sources: [a.md]}
        """,
    )
    with pytest.raises(EvalError, match="'a'.*used twice"):
        load_question_set(dup)


# --------------------------------------------------------------------------------------------
# The shipped question sets stay honest


def _source_text(qs: object, source: str) -> str:
    from hwqa.eval.sets import QuestionSet

    assert isinstance(qs, QuestionSet)
    for folder in qs.notes:
        if (folder / source).is_file():
            return (folder / source).read_text(encoding="utf-8")
    if qs.site is not None:
        page = qs.site / (source + "index.html" if source.endswith("/") else source)
        if page.is_file():  # with a space between elements, and as drawn: inline spans joined ("--nworkers 2")
            soup = BeautifulSoup(page.read_bytes(), "lxml")
            return soup.get_text(" ") + "\n" + soup.get_text("")
    raise AssertionError(f"{qs.name}: source {source} is neither a note nor a site page")


SHIPPED = sorted((REPO / "eval").glob("*.yaml"))


def test_the_shipped_set_has_enough_varied_questions() -> None:
    qs = load_question_set(REPO / "eval" / "questions.yaml")  # the loader rejects duplicate ids
    assert len(qs.questions) >= 80
    assert len({q.id for q in qs.questions}) == len(qs.questions)
    assert sum(1 for q in qs.questions if not q.covered) >= 12
    kinds = {q.kind for q in qs.questions}
    assert kinds >= {"paraphrase", "identifier", "number", "table-lookup", "superlative", "comparison", "list"}
    assert qs.site is not None and len(list(qs.site.rglob("*.html"))) >= 8


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_every_fact_is_stated_in_its_sources(path: Path) -> None:
    qs = load_question_set(path)
    if qs.requires_path is not None and not qs.requires_path.exists():
        pytest.skip(f"{qs.requires_path} is not installed (make eval installs it)")
    wrong = []
    texts_of: dict[str, str] = {}
    for q in qs.questions:
        if q.original is not None or q.calculated:  # a rewording has its original's facts; a result is computed
            continue
        texts = [texts_of.setdefault(s, normalise(_source_text(qs, s))) for s in q.sources]
        for alternatives in q.facts:
            if not any(normalise(a) in t for a in alternatives for t in texts):
                wrong.append(f"{q.id}: {alternatives}")
    assert not wrong, f"facts not found in their sources: {wrong}"


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_not_covered_questions_name_terms_found_nowhere_in_the_corpus(path: Path) -> None:
    """The corpus is the notes and the site pages they link to ({site}/page), as the eval indexes them."""
    qs = load_question_set(path)
    if qs.requires_path is not None and not qs.requires_path.exists():
        pytest.skip(f"{qs.requires_path} is not installed (make eval installs it)")
    notes = [p.read_text(encoding="utf-8") for folder in qs.notes for p in folder.rglob("*.md")]
    corpus = " ".join(normalise(text) for text in notes)
    if qs.site is not None:
        linked = {
            m + ("index.html" if m.endswith("/") else "") for text in notes for m in re.findall(r"\{site\}/([^)\s]+)", text)
        }
        pages = [qs.site / page for page in sorted(linked)]
        assert pages and all(page.is_file() for page in pages), f"{qs.name}: a linked page is missing"
        corpus += " ".join(normalise(BeautifulSoup(page.read_bytes(), "lxml").get_text(" ")) for page in pages)
    present = [
        q.id
        for q in qs.questions
        if not q.covered and q.missing and re.search(rf"(?<![\w-]){re.escape(normalise(q.missing))}(?![\w-])", corpus)
    ]
    assert not present, f"'missing' terms that the corpus does mention: {present}"


def test_shared_embeddings_give_the_same_vectors_and_embed_each_text_once() -> None:
    from hwqa.eval.evaluate import SharedEmbeddings
    from hwqa.index.embed import HashEmbedder

    class Counting(HashEmbedder):
        calls: list[int] = []  # noqa: RUF012

        def embed(self, texts, progress=None):  # type: ignore[no-untyped-def]
            self.calls.append(len(texts))
            return super().embed(texts, progress)

    inner = Counting()
    shared = SharedEmbeddings(inner)
    texts = ["The T4 draws 70 W.", "The L4 draws 72 W.", "The T4 draws 70 W."]
    first = shared.embed(texts)
    assert (first == HashEmbedder().embed(texts)).all()
    assert (shared.embed(texts[:2]) == first[:2]).all()
    assert inner.calls == [2]  # two distinct texts, embedded once
    shared.clear()
    shared.embed(texts[:1])
    assert inner.calls == [2, 1]
    assert shared.describe() == inner.describe() and shared.dim == inner.dim


def test_eval_with_a_chat_model_reports_supported_sentences_and_fallbacks(
    tiny_set: Path, hash_cli: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from .fake_openai import FakeOpenAI, Reply, text

    def first(body: dict[str, object]) -> Reply:  # one supported sentence (citing the guide) and one invented
        user = str(body["messages"][-1]["content"])  # type: ignore[index]
        n = next(m.group(1) for m in re.finditer(r"\[(\d+)\] Frobnitz compiler guide", user))
        return text(f"The --warp-factor flag sets how aggressively the frobnitz compiler unrolls loops [{n}]. It costs $9 [{n}].")

    with FakeOpenAI([first, text("It flies to Mars.")]) as fake:
        monkeypatch.setenv("HWQA_LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("HWQA_LLM_MODEL", "tiny-model")
        args = ["eval", "--questions", str(tiny_set), "--backend", "openai", "--split", "test", "--sample", "2"]
        result = runner.invoke(app, [*args, "--cache", str(hash_cli), "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
    (s,) = data["sets"]
    assert data["llm_backend"] == "openai" and data["llm_model"] == "tiny-model"
    assert s["questions"] == 2 and s["sampled_from"] == 3, "2 of the 3 test questions (rewordings included)"
    (metrics,) = s["retrievers"].values()  # one retriever: a chat model takes seconds an answer
    assert metrics["supported"] == 0.3333, "1 of 3 checked sentences was found in what it cites"
    assert metrics["fell_back"] == 0.5, "the second answer was replaced by the notes' own words"
