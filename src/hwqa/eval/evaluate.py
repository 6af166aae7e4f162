"""``hwqa eval``: run question sets and measure retrieval and answers, per retriever.

A question set is a YAML file (format: ``eval/README.md``): notes folders, an optional article site
served on loopback during the run (``{site}`` in the notes becomes its base URL), optional
``requires``, and questions with the sources that hold each answer and the facts it must state.
Each set's notes are copied into a stable folder under the cache (``.eval-index/<set>/``) and
indexed there, so a re-run reuses the embeddings. Per retriever: hit@1, hit@5 and MRR (top 5),
fact recall, "not covered" said (and the missing term named), covered questions wrongly answered
"not covered", the median latency (see :class:`SharedEmbeddings`), and the failures; each figure
over all questions and over the train and test parts apart (``splits``), and the fact recall of
the original wordings against their rewordings, per part (``wordings``).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import statistics
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..settings import Settings
from .sets import SPLITS, EvalError, Question, QuestionSet, check_requires, load_question_set

RETRIEVERS = ("dense", "keyword", "hybrid")
HIT_K = 5
ANSWER_PREVIEW = 200
_EMPHASIS = re.compile(r"\*+|`+")
_SPACE = re.compile(r"\s+")

Progress = Callable[[str], None]


def normalise(text: str) -> str:
    """Case-folded, without Markdown emphasis or backticks, whitespace collapsed."""
    return _SPACE.sub(" ", _EMPHASIS.sub("", text.replace("\u00a0", " "))).strip().casefold()


def fact_found(answer_text: str, alternatives: Sequence[str]) -> bool:
    text = normalise(answer_text)
    return any(normalise(a) in text for a in alternatives)


def source_of(kind: str, source: str, url: str | None = None) -> str:
    """A hit's source in question-file terms: the note path, or the article URL's path without the leading '/'."""
    if kind == "note":
        return source
    path = urlsplit(url or source).path.lstrip("/")
    return path + "index.html" if path == "" or path.endswith("/") else path


def source_matches(kind: str, source: str, url: str | None, expected: Sequence[str]) -> bool:
    got = source_of(kind, source, url)
    wanted = {e.lstrip("/") + ("index.html" if e.endswith("/") else "") for e in expected}
    return got in wanted


def first_rank(hits: Sequence[Any], expected: Sequence[str]) -> int | None:
    """1-based rank of the first hit whose source is one of ``expected``."""
    for rank, hit in enumerate(hits, start=1):
        if source_matches(hit.chunk.kind, hit.chunk.source, hit.chunk.url, expected):
            return rank
    return None


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve_site(folder: Path, port: int = 0) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (``port``, or any free port if it is taken); yield the base URL."""
    handler = partial(_QuietHandler, directory=str(folder))
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError:
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="hwqa-eval-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def preferred_port(name: str) -> int:
    """A stable port per set, so the notes (and the fetched articles' URLs) are the same on every run."""
    return 20000 + int(hashlib.sha256(name.encode()).hexdigest(), 16) % 20000


def prepare_notes(sources: Sequence[Path], dest: Path, site_url: str | None) -> None:
    """Mirror ``sources`` into ``dest`` with ``{site}`` substituted; unchanged files are not rewritten."""
    files: dict[Path, Path] = {}
    for source in sources:
        files.update((p.relative_to(source), p) for p in sorted(source.rglob("*")) if p.is_file())
    wanted = set(files)
    for rel, path in files.items():
        target = dest / rel
        data = path.read_bytes()
        if site_url is not None and path.suffix.lower() in {".md", ".markdown"}:
            data = data.replace(b"{site}", site_url.encode())
        if not target.exists() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    for path in sorted(dest.rglob("*"), reverse=True):
        if path.is_file() and path.relative_to(dest) not in wanted:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


@dataclass
class _Tally:
    ranks: list[int | None] = field(default_factory=list)
    facts_found: int = 0
    facts_asked: int = 0
    nc_right: int = 0  # not-covered questions answered "not covered"
    nc_total: int = 0
    nc_named: int = 0  # ... naming the missing term
    nc_with_term: int = 0
    false_nc: int = 0
    covered_total: int = 0
    latencies: list[float] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    sentences_checked: int = 0  # a chat model's sentences that claim something (shown or not)
    sentences_supported: int = 0  # ... found in the passages they cite or the calculator's result
    answers: int = 0
    fell_back: int = 0  # answers where the model's text was replaced by the notes' own words

    @property
    def count(self) -> int:
        """How many questions were scored."""
        return self.covered_total + self.nc_total

    def summary(self) -> dict[str, Any]:
        found = [r for r in self.ranks if r is not None]
        n = len(self.ranks)
        return {
            "hit1": _ratio(sum(1 for r in found if r == 1), n),
            "hit5": _ratio(sum(1 for r in found if r <= HIT_K), n),
            "mrr": _ratio(sum(1.0 / r for r in found), n),
            "fact_recall": _ratio(self.facts_found, self.facts_asked),
            "not_covered_accuracy": _ratio(self.nc_right, self.nc_total),
            "missing_named": _ratio(self.nc_named, self.nc_with_term),
            "false_not_covered": _ratio(self.false_nc, self.covered_total),
            "supported": _ratio(self.sentences_supported, self.sentences_checked),
            "fell_back": _ratio(self.fell_back, self.answers) if self.sentences_checked or self.fell_back else None,
            "p50_ms": round(statistics.median(self.latencies) * 1000, 1) if self.latencies else None,
            "latency_samples": len(self.latencies),
            "failures": self.failures,
        }


def _ratio(num: float, den: int) -> float | None:
    return round(num / den, 4) if den else None


def score_question(q: Question, hits: Sequence[Any], answer: Any, seconds: float | None, tally: _Tally) -> None:
    """Add one question's retrieval and answer to ``tally`` (``seconds``: its latency, if it counts); record failures."""
    tally.answers += 1
    tally.fell_back += 1 if getattr(answer, "fallback", None) else 0
    checked = [c for c in getattr(answer, "claims", []) if c.verdict != "none"]
    tally.sentences_checked += len(checked)
    tally.sentences_supported += sum(1 for c in checked if c.verdict == "supported")
    problems: list[str] = []
    if seconds is not None:
        tally.latencies.append(seconds)
    rank: int | None = None
    missing_facts: list[str] = []
    if q.covered:
        rank = first_rank(hits[:HIT_K], q.sources)
        tally.ranks.append(rank)
        tally.covered_total += 1
        if rank is None:
            problems.append(f"source not in the top {HIT_K}")
        elif rank > 1:
            problems.append(f"source at rank {rank}")
        for alternatives in q.facts:
            tally.facts_asked += 1
            if fact_found(answer.text, alternatives):
                tally.facts_found += 1
            else:
                missing_facts.append(" | ".join(alternatives))
        if missing_facts:
            problems.append("facts missing: " + "; ".join(missing_facts))
        if not answer.covered:
            tally.false_nc += 1
            problems.append("said not covered")
    else:
        tally.nc_total += 1
        if not answer.covered:
            tally.nc_right += 1
        else:
            problems.append("answered as if covered")
        if q.missing:
            tally.nc_with_term += 1
            if not answer.covered and fact_found(answer.text, [q.missing]):
                tally.nc_named += 1
            elif not answer.covered:
                problems.append(f"did not name the missing term '{q.missing}'")
    if problems:
        expected = {"sources": list(q.sources), "facts": [list(f) for f in q.facts], "covered": q.covered}
        text = _SPACE.sub(" ", answer.text).strip()[:ANSWER_PREVIEW]
        top = source_of(hits[0].chunk.kind, hits[0].chunk.source, hits[0].chunk.url) if hits else None
        got = {"rank": rank, "top_source": top, "covered": bool(answer.covered), "answer": text}
        tally.failures.append(
            {
                "id": q.id,
                "question": q.question,
                "kind": q.kind,
                "split": q.split,
                "problems": problems,
                "expected": expected,
                "got": got,
            }
        )


class SplitTallies:
    """One retriever's tallies: over all questions, per part (train, test), and per part and wording.

    A question's answer counts in ``all``, in its part, and in its part's ``original`` or
    ``reworded`` tally; :meth:`summary` is the whole report for the retriever (``--json``).
    """

    def __init__(self) -> None:
        self.tallies: dict[str, _Tally] = {}
        self.scores: dict[str, dict[str, float]] = {}  # group (original id) -> question id -> its score

    def _tally(self, key: str) -> _Tally:
        return self.tallies.setdefault(key, _Tally())

    def add(self, q: Question, hits: Sequence[Any], answer: Any, seconds: float | None) -> None:
        wording = "reworded" if q.original else "original"
        for key in ("all", q.split, f"{q.split}/{wording}"):
            score_question(q, hits, answer, seconds, self._tally(key))
        if q.covered:
            asked = len(q.facts)
            found = sum(1 for alternatives in q.facts if fact_found(answer.text, alternatives))
            share = found / asked if asked else float(bool(answer.covered))
        else:
            share = float(not answer.covered)
        self.scores.setdefault(f"{q.split}\t{q.group}", {})[q.id] = share

    def summary(self) -> dict[str, Any]:
        result = self._tally("all").summary()
        result["splits"] = {}
        for part in SPLITS:
            if part in self.tallies:
                figures = self.tallies[part].summary()
                del figures["failures"]
                figures["questions"] = self.tallies[part].count
                result["splits"][part] = figures
        result["wordings"] = {part: self._wordings(part) for part in SPLITS if part in self.tallies}
        result["reworded_losses"] = self._losses()
        return result

    def _wordings(self, part: str) -> dict[str, Any]:
        figures: dict[str, Any] = {}
        for wording in ("original", "reworded"):
            tally = self.tallies.get(f"{part}/{wording}")
            summary = tally.summary() if tally else {}
            figures[wording] = summary.get("fact_recall")
            figures[f"{wording}_not_covered"] = summary.get("not_covered_accuracy")
            figures[f"{wording}_questions"] = tally.count if tally else 0
        before, after = figures["original"], figures["reworded"]
        figures["gap"] = round(before - after, 4) if before is not None and after is not None else None
        return figures

    def _losses(self) -> list[dict[str, Any]]:
        """Each question whose rewordings score below its original wording: the per-question gap."""
        losses = []
        for key, scores in self.scores.items():
            part, group = key.split("\t")
            if group not in scores:
                continue
            rewordings = {qid: round(v, 4) for qid, v in scores.items() if qid != group}
            if any(v < scores[group] for v in rewordings.values()):
                losses.append({"id": group, "split": part, "original": round(scores[group], 4), "rewordings": rewordings})
        return losses


class SharedEmbeddings:
    """An embedder that remembers the vectors it made since :meth:`clear`.

    The retrievers compared on one question mostly retrieve the same passages, so the answerer
    would embed the same candidate sentences three times. The run clears this before each
    question: the first answer to a question costs what a user's question costs (its latency is
    the one measured), the other retrievers reuse its vectors.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._memo: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:  # backend, model, dim, max_tokens, count_tokens, describe, ...
        return getattr(self.inner, name)

    def clear(self) -> None:
        self._memo.clear()

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Any:
        import numpy as np

        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            self._memo.update(zip(missing, self.inner.embed(missing), strict=True))
        if progress is not None:
            for _ in texts:
                progress(1)
        if not texts:
            return np.zeros((0, self.inner.dim), dtype=np.float32)
        return np.ascontiguousarray(np.stack([self._memo[t] for t in texts]), dtype=np.float32)


def set_settings(base: Settings, qs: QuestionSet, cache: Path) -> Settings:
    """Settings for one set: its prepared notes and index under ``cache``, loopback fetching allowed."""
    backend = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{base.embed_backend}-{base.embed_model}").strip("-")
    folder = cache / re.sub(r"[^A-Za-z0-9._-]+", "-", qs.name) / backend
    return base.replace(
        notes=folder / "notes",
        index=folder / "index",
        fetch_links=True,  # the set defines its corpus: its site pages are part of it
        offline=False,
        allow_private_hosts=True,
        fetch_host_delay=0.0,
    )


@dataclass
class OpenSet:
    """A question set ready to ask: its settings (notes copy and index under the cache), the shared
    embedder, and the build report. Made by :func:`open_set`; a fitting script uses it as the run does."""

    questions: QuestionSet
    settings: Settings
    embedder: SharedEmbeddings
    report: Any
    build_seconds: float


@contextlib.contextmanager
def open_set(qs: QuestionSet, base: Settings, cache: Path, progress: Progress = lambda message: None) -> Iterator[OpenSet]:
    """Serve the set's site, copy its notes and build its index (reusing the cache); yield it ready to ask."""
    from ..build.builder import build_index
    from ..index.embed import make_embedder

    check_requires(qs)
    settings = set_settings(base, qs, cache)
    site = serve_site(qs.site, preferred_port(qs.name)) if qs.site else contextlib.nullcontext(None)
    with site as site_url:
        prepare_notes(qs.notes, settings.notes, site_url)
        progress(f"[{qs.name}] building the index in {settings.index} …")
        embedder = make_embedder(settings)
        started = time.perf_counter()
        report = build_index(settings, embedder=embedder)
        build_s = time.perf_counter() - started
        progress(
            f"[{qs.name}] {report.chunks_total} passages ({report.chunks_embedded} embedded), "
            f"links: {report.link_counts().summary()}; {build_s:.1f} s"
        )
        shared = SharedEmbeddings(embedder)
        shared.inner.embed(["warm up"])  # load the model now, not inside the first timed answer
        yield OpenSet(qs, settings, shared, report, build_s)


def sample_questions(questions: Sequence[Question], size: int | None) -> list[Question]:
    """``size`` questions spread evenly over ``questions``, always the same ones (all of them without a size)."""
    if not size or size >= len(questions):
        return list(questions)
    return [questions[i * len(questions) // size] for i in range(size)]


def run_set(
    qs: QuestionSet,
    base: Settings,
    retrievers: Sequence[str],
    cache: Path,
    progress: Progress,
    split: str = "all",
    sample: int | None = None,
) -> dict[str, Any]:
    """Build the set's index and score every question of ``split`` (or ``sample`` of them) with every retriever."""
    from ..engine import Engine

    questions = sample_questions(qs.split(split), sample)
    with open_set(qs, base, cache, progress) as opened:
        shared = opened.embedder
        engines = {mode: Engine(opened.settings.replace(retriever=mode), embedder=shared) for mode in retrievers}
        tallies = {mode: SplitTallies() for mode in retrievers}
        k = max(HIT_K, opened.settings.top_k)
        for i, q in enumerate(questions):
            shared.clear()  # the first retriever asked pays what a user's question costs
            turn = i % len(retrievers)  # ... and which retriever goes first rotates, so latencies compare
            for j, mode in enumerate([*retrievers[turn:], *retrievers[:turn]]):
                t0 = time.perf_counter()
                answer = engines[mode].ask(q.question)
                seconds = time.perf_counter() - t0
                hits = engines[mode].search(q.question, k, retriever=mode)
                tallies[mode].add(q, hits, answer, seconds if j == 0 else None)
            if (i + 1) % 10 == 0 or i + 1 == len(questions) or base.llm_backend != "builtin":
                progress(f"[{qs.name}] {i + 1}/{len(questions)} questions")
        results = {mode: tallies[mode].summary() for mode in retrievers}
    covered = sum(1 for q in questions if q.covered)
    return {
        "name": qs.name,
        "file": str(qs.path),
        "questions": len(questions),
        "sampled_from": len(qs.split(split)) if len(questions) < len(qs.split(split)) else None,
        "covered": covered,
        "not_covered": len(questions) - covered,
        "split": {part: len(qs.split(part)) for part in SPLITS if split in ("all", part)},
        "rewordings": sum(1 for q in questions if q.original),
        "passages": opened.report.chunks_total,
        "build_seconds": round(opened.build_seconds, 2),
        "retrievers": results,
    }


def run_eval(
    files: Sequence[Path],
    base: Settings,
    retrievers: Sequence[str] = RETRIEVERS,
    *,
    cache: Path = Path(".eval-index"),
    progress: Progress = lambda message: None,
    split: str = "all",
    sample: int | None = None,
) -> dict[str, Any]:
    """Run every question file (the questions of ``split``: train, test or all; ``sample`` of them, spread
    evenly, if given); the JSON report ``hwqa eval --json`` prints."""
    bad = [r for r in retrievers if r not in RETRIEVERS]
    if bad:
        raise EvalError(f"unknown retriever '{bad[0]}'; use one of: {', '.join(RETRIEVERS)} or all")
    if split not in (*SPLITS, "all"):
        raise EvalError(f"unknown split '{split}'; use train, test or all")
    sets = [load_question_set(Path(f)) for f in files]
    for qs in sets:
        check_requires(qs)  # fail before spending minutes on the other sets
    started = time.perf_counter()
    report = [run_set(qs, base, retrievers, cache, progress, split, sample) for qs in sets]
    return {
        "sets": report,
        "split": split,
        "embedder": {"backend": base.embed_backend, "model": base.embed_model},
        "llm_backend": base.llm_backend,
        "llm_model": base.llm_model if base.llm_backend != "builtin" else None,
        "failures_shown_for": base.retriever if base.retriever in retrievers else retrievers[-1],
        "seconds": round(time.perf_counter() - started, 1),
    }
