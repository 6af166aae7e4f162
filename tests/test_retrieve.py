"""Hybrid retrieval: identifiers kept whole, BM25 + dense fused by RRF, filters, FTS in step with builds."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from hwqa.answer.question import parse_question
from hwqa.answer.retrieve import Filter, missing_terms, rrf
from hwqa.build.builder import build_index
from hwqa.cli import app
from hwqa.engine import Engine
from hwqa.notes.keywords import identifiers
from hwqa.settings import Settings

from .conftest import built_hash_index, write_note

runner = CliRunner()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How fast is the RTX 4090?", "rtx4090"),
        ("Order an A100-SXM4-80GB node", "a100sxm480gb"),
        ("compile for sm_90 only", "sm90"),
        ("the x86_64-unknown-linux-gnu target", "x8664unknownlinuxgnu"),
        ("pass --tpu-topology=2x2", "tputopology"),
        ("a TPU v5e slice", "v5e"),
        ("a TPU v5e slice", "tpuv5e"),
        ("new in Python 3.11", "python311"),
        ("use functools.lru_cache", "functoolslrucache"),
        ("use functools.lru_cache", "lrucache"),
    ],
)
def test_identifiers_are_kept_whole(text: str, expected: str) -> None:
    assert expected in identifiers(text)


def test_plain_words_are_not_identifiers() -> None:
    assert identifiers("Which GPU is cheaper to rent for training?") == []


@given(
    st.lists(st.lists(st.integers(min_value=0, max_value=30), max_size=12, unique=True), min_size=1, max_size=3),
)
def test_rrf_is_a_pure_function_of_the_rankings(rankings: list[list[int]]) -> None:
    fused = rrf(rankings)
    assert fused == rrf([list(r) for r in reversed(rankings)]), "the order of the lists does not matter"
    assert sorted(i for i, _ in fused) == sorted({i for r in rankings for i in r})
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)


@given(st.integers(min_value=2, max_value=20), st.randoms(use_true_random=False))
def test_rrf_breaks_ties_by_best_rank_then_id(n: int, rnd: random.Random) -> None:
    ids = list(range(100, 100 + n))
    rnd.shuffle(ids)
    # Two lists that are reverses of each other give every id the same fused score when n is odd in the middle,
    # and pairs with equal sums otherwise: the order must still be total and repeatable.
    fused = rrf([ids, list(reversed(ids))])
    assert fused == rrf([list(reversed(ids)), ids])
    for (a, sa), (b, sb) in itertools.pairwise(fused):
        if sa == sb:
            best_a = min(ids.index(a), n - 1 - ids.index(a))
            best_b = min(ids.index(b), n - 1 - ids.index(b))
            assert (best_a, a) < (best_b, b)


TARGETS_NOTE = """
---
title: Build targets
tags: [compilers]
---
# Build targets

## Linux

Our release binaries are built for the x86_64-unknown-linux-gnu target with the default linker.

## Other platforms

The macOS build uses aarch64-apple-darwin and needs Xcode 15.
"""

GPU_NOTE = """
---
title: CUDA architectures
tags: [gpu, nvidia]
aliases: [compute capability]
---
# CUDA architectures

## Hopper

Kernels for the H100 are compiled with sm_90, which enables thread block clusters.

## Ampere

Kernels for the A100 are compiled with sm_80; the RTX 3090 uses sm_86.
"""

TPU_FLAGS_NOTE = """
---
title: TPU pod flags
tags: [tpu]
---
# TPU pod flags

Pass --tpu-topology=2x2 to create a TPU v5e slice with four chips. A TPU v4 pod slice takes --accelerator-type instead.
"""


@pytest.fixture
def ident_settings(tmp_path: Path) -> Settings:
    notes = tmp_path / "notes"
    write_note(notes, "targets.md", TARGETS_NOTE)
    write_note(notes, "cuda.md", GPU_NOTE)
    write_note(notes, "tpu-flags.md", TPU_FLAGS_NOTE)
    settings = built_hash_index(tmp_path)
    return settings


@pytest.mark.parametrize(
    ("question", "source", "needle"),
    [
        ("Which target triple is x86_64-unknown-linux-gnu used for?", "targets.md", "x86_64-unknown-linux-gnu"),
        ("What does sm_90 enable?", "cuda.md", "sm_90"),
        ("What does --tpu-topology do?", "tpu-flags.md", "--tpu-topology"),
    ],
)
def test_keyword_search_matches_identifiers_exactly(ident_settings: Settings, question: str, source: str, needle: str) -> None:
    engine = Engine.load(ident_settings)
    for mode in ("keyword", "hybrid"):
        hits = engine.search(question, 3, retriever=mode)
        assert hits and hits[0].chunk.source == source, mode
        assert needle in hits[0].chunk.text


def test_hybrid_hits_carry_cosine_and_both_ranks(ident_settings: Settings) -> None:
    hits = Engine.load(ident_settings).search("What does sm_90 enable?", 3)
    top = hits[0]
    assert top.keyword_rank == 1
    assert top.dense_rank is not None
    assert -1.0 <= top.score <= 1.0


def test_missing_terms_name_what_the_index_never_mentions(ident_settings: Settings) -> None:
    engine = Engine.load(ident_settings)
    gen = engine.generation()
    assert missing_terms(gen, parse_question("What does sm_90 enable?")) == []
    assert missing_terms(gen, parse_question("Which flags does a TPU v5e slice need?")) == []
    assert missing_terms(gen, parse_question("What does sm_100 enable?")) == ["sm_100"]
    assert missing_terms(gen, parse_question("How much memory does the RTX 5090 have?")) == ["RTX 5090"]
    assert missing_terms(gen, parse_question("Does the Jetson Nano run CUDA?")) == ["Jetson", "Nano"]
    answer = engine.ask("How much memory does the RTX 5090 have?")
    assert not answer.covered
    assert "RTX 5090" in answer.text and "don't" in answer.text
    assert answer.citations, "the closest notes are listed"


def test_missing_terms_catch_lower_case_names(ident_settings: Settings) -> None:
    """A name written in lower case ("pytest", "tenstorrent") is still a name the notes must hold when it
    is all the question names."""
    engine = Engine.load(ident_settings)
    gen = engine.generation()
    assert missing_terms(gen, parse_question("How do I share a pytest fixture across a session?")) == ["pytest"]
    assert missing_terms(gen, parse_question("is tenstorrent any good for training?")) == ["tenstorrent"]
    # Dictionary words, inflected or not, are never names; words the notes hold are present.
    assert missing_terms(gen, parse_question("Which kernels are compiled for the cheapest Hopper cards?")) == []
    assert missing_terms(gen, parse_question("what does the linker produce for the release binaries?")) == []
    answer = engine.ask("How do I share a pytest fixture across a session?")
    assert not answer.covered and "pytest" in answer.text


@pytest.mark.parametrize(
    "question",
    [
        "Which runtime do H100 kernels need with sm_90?",  # "runtime": no dictionary word, yet no name either
        "Does the A100 use HBM2e or GDDR6X memory?",  # memory types the notes do not write
        "Is the H100 faster in fp16 or bf16?",  # number formats
        "How fast is FP8 on the H100 with HBM3?",
    ],
)
def test_ordinary_words_the_notes_phrase_differently_turn_nothing_away(ident_settings: Settings, question: str) -> None:
    engine = Engine.load(ident_settings)
    assert missing_terms(engine.generation(), parse_question(question)) == []
    answer = engine.ask(question)
    assert "don't mention" not in answer.text, answer.text
    assert answer.citations[0].source == "cuda.md"


def test_a_name_beside_an_ordinary_word_still_turns_the_question_away(ident_settings: Settings) -> None:
    gen = Engine.load(ident_settings).generation()
    assert missing_terms(gen, parse_question("Which runtime does the B200 need with fp8?")) == ["B200"]
    assert missing_terms(gen, parse_question("Does the Jetson use HBM?")) == ["Jetson"]


def _generation_of(tmp_path: Path, name: str, note: str) -> Any:
    """The live generation of an index of one note (hash embedder)."""
    write_note(tmp_path / "notes", name, note)
    return Engine.load(built_hash_index(tmp_path)).generation()


def test_a_versioned_name_counts_when_the_notes_shorten_it(tmp_path: Path) -> None:
    """ "Rivulet Serve 1.8" is covered by notes that say "Rivulet 1.8"; "Rivulet Serve 2.0" is not."""
    note = "---\ntitle: Rivulet Serve\n---\n# Rivulet\n\nRivulet 1.8 ships kernels for sm_80 and sm_90.\n"
    gen = _generation_of(tmp_path, "rivulet.md", note)
    assert missing_terms(gen, parse_question("Which cards does Rivulet Serve 1.8 support?")) == []
    assert missing_terms(gen, parse_question("Which cards does Rivulet Serve 2.0 support?")) == ["Serve 2.0"]


def test_a_slash_pair_counts_when_the_notes_hold_one_of_its_parts(tmp_path: Path) -> None:
    """ "nic/gpu" and "cuda/nvml" are two names each, not one coined word: a page that speaks of the NIC,
    or of CUDA, covers them; a pair neither part of which the notes hold is still missing."""
    note = (
        "---\ntitle: Topology\n---\n# Locality\n\nThe firmware reports the locality of each NIC. "
        "Probing CUDA devices at start-up is slow; keep the driver loaded.\n"
    )
    gen = _generation_of(tmp_path, "topology.md", note)
    assert missing_terms(gen, parse_question("firmware gets the locality of my nic/gpu wrong, fix?")) == []
    assert missing_terms(gen, parse_question("start-up is slow with cuda/nvml probing, fix?")) == []
    assert missing_terms(gen, parse_question("does the rocm/oneapi runtime report locality?")) == ["rocm/oneapi"]
    assert missing_terms(gen, parse_question("how many TB/s does the NIC move?")) == []  # a unit, not a pair


def test_a_short_name_counts_as_the_word_of_a_longer_one_but_a_joined_name_is_not_its_words(tmp_path: Path) -> None:
    """ "q4" is what the notes write as "Q4_K_M"; "PYTHON_GIL" is not "the Python GIL" of a sentence."""
    note = "---\ntitle: Quant\n---\n# Quant\n\n* 13B Q4_K_M file is 7.9GB.\n* The Python GIL is released for big hashes.\n"
    gen = _generation_of(tmp_path, "quant.md", note)
    assert missing_terms(gen, parse_question("size of the 13b model file at q4?")) == []
    assert missing_terms(gen, parse_question("can i turn off the gil by setting PYTHON_GIL?")) == ["PYTHON_GIL"]
    assert missing_terms(gen, parse_question("size of the 13b model file at q5?")) == ["q5"]


def test_filters_restrict_the_search_to_tags_and_notes(ident_settings: Settings) -> None:
    engine = Engine.load(ident_settings)
    question = "Which build flags and targets do I need?"
    assert {h.chunk.source for h in engine.search(question, 10, flt=Filter.of(tags=["tpu"]))} == {"tpu-flags.md"}
    assert {h.chunk.source for h in engine.search(question, 10, flt=Filter.of(notes=["Build targets"]))} == {"targets.md"}
    assert {h.chunk.source for h in engine.search(question, 10, flt=Filter.of(notes=["cuda"]))} == {"cuda.md"}
    assert engine.search(question, 10, flt=Filter.of(tags=["no-such-tag"])) == []
    answer = engine.ask("What does sm_90 enable?", flt=Filter.of(tags=["compilers"]))
    assert all(c.source == "targets.md" for c in answer.citations)


def test_cli_ask_takes_tag_and_note_filters(ident_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HWQA_EMBED_BACKEND", "hash")
    monkeypatch.setenv("HWQA_FETCH_LINKS", "false")
    base = ["--notes", str(ident_settings.notes), "--index", str(ident_settings.index), "--json"]
    result = runner.invoke(app, ["ask", "Which kernels are compiled for Hopper?", "--note", "cuda.md", *base])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {c["source"] for c in data["citations"]} == {"cuda.md"}
    result = runner.invoke(app, ["ask", "Which kernels are compiled for Hopper?", "--tag", "tpu", *base])
    assert {c["source"] for c in json.loads(result.stdout)["citations"]} <= {"tpu-flags.md"}


def _keyword_sources(settings: Settings, question: str) -> set[str]:
    return {h.chunk.source for h in Engine.load(settings).search(question, 10, retriever="keyword")}


def test_keyword_index_follows_edits_renames_and_deletes(ident_settings: Settings) -> None:
    notes = ident_settings.notes
    assert _keyword_sources(ident_settings, "aarch64-apple-darwin") == {"targets.md"}
    (notes / "targets.md").write_text(TARGETS_NOTE.replace("aarch64-apple-darwin", "riscv64gc-unknown-linux-gnu"))
    build_index(ident_settings)
    assert _keyword_sources(ident_settings, "aarch64-apple-darwin") == set()
    assert _keyword_sources(ident_settings, "riscv64gc-unknown-linux-gnu") == {"targets.md"}
    (notes / "targets.md").rename(notes / "triples.md")
    report = build_index(ident_settings)
    assert report.chunks_embedded == 0
    assert _keyword_sources(ident_settings, "riscv64gc-unknown-linux-gnu") == {"triples.md"}
    (notes / "triples.md").unlink()
    build_index(ident_settings)
    assert _keyword_sources(ident_settings, "riscv64gc-unknown-linux-gnu") == set()


def test_near_duplicate_passages_are_collapsed(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    text = "The Gaudi 3 accelerator has 128 GB of HBM2e memory and 64 tensor processor cores per chip."
    write_note(notes, "a.md", f"---\ntitle: Gaudi\n---\n# Gaudi\n\n{text}\n")
    write_note(notes, "b.md", f"---\ntitle: Reading\n---\n# Quoted from the vendor\n\n{text} (quoted)\n")
    settings = built_hash_index(tmp_path)
    hits = Engine.load(settings).search("How much memory does the Gaudi 3 have?", 5)
    assert len([h for h in hits if "128 GB" in h.chunk.text]) == 1


def test_a_chat_model_receives_the_hybrid_passages_numbered(ident_settings: Settings) -> None:
    from .fake_openai import FakeOpenAI, text

    with FakeOpenAI([text("Thread block clusters [1].")]) as fake:
        settings = ident_settings.replace(llm_backend="openai", llm_base_url=fake.base_url, llm_model="m")
        answer = Engine.load(settings).ask("What does sm_90 enable?")
        prompt = "\n".join(str(m.get("content", "")) for m in fake.requests[0]["messages"] if m["role"] == "user")
    assert answer.backend == "openai"
    first = prompt.index("[1]")
    assert "sm_90, which enables thread block clusters" in prompt[first:]
    assert prompt.index("sm_90, which enables") < prompt.index("[2]"), "the keyword hit is passage 1"
    assert answer.citations[0].source == "cuda.md"


OWNER_STYLE_NOTE = """
---
title: Machine learning hardware
tags: ["machine learning", "hardware"]
date: 2021-12-21 11:30:28
---
# Machine learning hardware

## TPU and GPU

* [PyTorch/XLA on TPUs](https://xla.example/pytorch) - lets PyTorch use a TPUv3-8 like a GPU, about as fast as 8 V100s.
* In Google Colab the GPU machines had an NVIDIA P100, a 2-core Xeon and 13GB RAM; the TPU ones a TPUv3 and 16GB RAM.
"""


def test_a_word_the_owners_note_never_uses_does_not_turn_the_question_away(tmp_path: Path) -> None:
    """The note says "GPU machines", the question "runtime": the note still answers it."""
    write_note(tmp_path / "notes", "hardware-for-machine-learning.md", OWNER_STYLE_NOTE)
    answer = Engine.load(built_hash_index(tmp_path)).ask("Which Colab runtime has a P100 and how much RAM?")
    assert answer.covered and "don't mention" not in answer.text, answer.text
    assert "13GB" in answer.text and answer.citations[0].source == "hardware-for-machine-learning.md"


def test_a_lower_case_word_before_a_number_is_prose_not_a_name(tmp_path: Path) -> None:
    """People write "like 07:30" or "over 40", not a model name: only real names can be missing."""
    write_note(
        tmp_path / "notes",
        "cluster.md",
        "# Night jobs\n\nThe scheduler starts the nightly training runs at 07:30 on the A100 nodes.\n",
    )
    engine = Engine.load(built_hash_index(tmp_path))
    answer = engine.ask("Something like 07:30 starts the nightly runs: on which nodes?")
    assert answer.covered and "don't mention" not in answer.text, answer.text
    assert "A100 nodes" in answer.text
    away = engine.ask("Do the nightly runs use the RTX 5090 nodes at 07:30?")
    assert not away.covered and "RTX 5090" in away.text  # a real name the notes lack still turns it away


def test_an_example_given_as_an_aside_is_not_required(tmp_path: Path) -> None:
    """ ", like a Tesla V100," illustrates the question; a note that never names that card still answers it."""
    write_note(
        tmp_path / "notes",
        "slurm.md",
        "# Asking for GPUs\n\nRequest a GPU type with --gres=gpu:TYPE:COUNT, for example --gres=gpu:a100:2 for two A100s.\n",
    )
    engine = Engine.load(built_hash_index(tmp_path))
    answer = engine.ask("How do I ask for a specific GPU type, like a Tesla V100, in my job?")
    assert answer.covered and "don't mention" not in answer.text, answer.text
    assert "--gres=gpu:TYPE:COUNT" in answer.text
    away = engine.ask("How do I ask for a Tesla V100 in my job?")  # named as the thing asked for, it is required
    assert not away.covered and "Tesla" in away.text


def test_a_flag_before_an_ordinary_word_is_not_a_flag_with_a_value(tmp_path: Path) -> None:
    """ "-I turn on": 'turn' is the question's verb, not the flag's value; "-X perf" keeps its value."""
    write_note(
        tmp_path / "notes",
        "python.md",
        "# Isolated mode\n\nThe -I option runs Python in isolated mode; it also implies -E, -P and -s.\n",
    )
    engine = Engine.load(built_hash_index(tmp_path))
    answer = engine.ask("What does python -I turn on besides isolation?")
    assert answer.covered and "don't mention" not in answer.text, answer.text
    assert "implies -E, -P and -s" in answer.text
    away = engine.ask("What does the -X perf option enable?")
    assert not away.covered and "-X perf" in away.text
