"""Chrome of documentation generators and blog platforms stays out of the index.

Each fixture in tests/fixtures/generators/ is shaped like the real HTML of one generator (its
class names, ids, hidden dialogs, <nav> placement). Every piece of chrome text in it carries
the word CHROME; the main text carries a few distinctive facts. The extracted article and every
chunk made from it must hold all the facts, in reading order, and no CHROME.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hwqa.build.builder import build_index
from hwqa.engine import Engine
from hwqa.extract import extract_article
from hwqa.notes.chunk import chunk_markdown
from hwqa.settings import load_settings

from .conftest import write_note
from .helpers_http import LoopbackSite, Reply

FIXTURES = Path(__file__).parent / "fixtures" / "generators"

# fixture -> the facts of its main text, in reading order (each a substring of the Markdown)
FACTS: dict[str, list[str]] = {
    "mdbook": [
        "# Memory hierarchies",
        "48 GB of HBM3 with a 2.4 TB/s memory bus",
        "## On-chip scratchpads",
        "256 KiB of scratchpad SRAM",
        "- Tiles exchange data over a 2D mesh at 64 bytes per cycle.",
        "- The L2 cache is 96 MiB and shared by all 128 tiles.",
        "## Bandwidth table",
        "| Scratchpad | 256 KiB per tile | 19 TB/s aggregate |",
        "| HBM3 | 48 GB | 2.4 TB/s |",
        "lumenctl mem --stats",
        "Firmware 3.1 halves the HBM3 refresh interval to 1.95 µs.",
    ],
    "sphinx_alabaster": [
        "# Choosing a host CPU",
        "a 32-core Zen 4 part keeps eight GPUs busy",
        "## Recommended options",
        "| CPU | Option |",
        "| EPYC 9354 | `--numa-pin=4` |",
        "| EPYC 9354P | `--numa-pin=1` |",
        "| Xeon 8480+ | `--numa-pin=2` |",
        "Set `TB_IO_THREADS=12` on machines with fewer than 16 cores.",
        "## Related work",
        "a 1.7x slowdown when the embedding lookups ran on a 16-core host",
        "Measured with 8 DataLoader workers on PyTorch 2.1.",  # a footnote (<aside class="footnote">)
        "Pin the data loader to n cores per accelerator.",
        "## Comments and feedback",
        "the 2.5 release will add ARM Neoverse V2 numbers",
    ],
    "sphinx_rtd": [
        "# TPU pods",
        "A v5e pod has 256 chips connected by a 2D torus",
        "## Slice shapes",
        "Pass `--tpu-topology=4x8` to reserve a 32-chip slice.",
        "1. Slices of 1 to 8 chips start in under 2 minutes.",
        "2. Full-pod reservations need 48 hours notice.",
        "podctl reserve --tpu-topology=4x8",
    ],
    "sphinx_furo": [
        "# Quantisation",
        "on the Orin AGX this gives 2.7x the FP16 throughput",
        "## Calibration",
        "Calibration needs 512 representative samples",
        "Depthwise convolutions lose 1.9 points of top-1 accuracy without QAT.",
    ],
    "sphinx_pydata": [
        "# Sparse kernels",
        "the Blocked-ELL SpMM reaches 410 TFLOP/s at 90% sparsity",
        "## Supported formats",
        "| Format | Minimum compute capability |",
        "| CSR | sm_70 |",
        "| Blocked-ELL | sm_80 |",
    ],
    "mkdocs_material": [
        "# Serving on a budget",
        "a 13B model on one L4 GPU (24 GB) at 38 tokens per second",
        "## KV cache sizing",
        "Each token of context costs 0.8 MB of KV cache",
        "Set `--kv-dtype=fp8` to halve the cache and fit 16k tokens.",
        "llmserve --model 13b-q4 --kv-dtype=fp8",
        "| L4 | 16k |",
        "| A10G | 12k |",
    ],
    "docusaurus": [
        "# Installing the driver",
        "supports Linux kernels 5.15 and newer and needs 1.2 GB of disk space",
        "## Requirements\n",
        "- An x86_64-unknown-linux-gnu or aarch64 host",
        "- PCIe Gen4 x8 or wider for the M.2 NPU module",
        "sudo apt install npu-driver-3.2",
        "signed with the 2048-bit MOK key",
    ],
    "gitbook": [
        "# Choosing a GPU for inference",
        "Which card to buy for serving models at the edge.",
        "the Jetson Orin NX 16GB reaches 22 tokens per second at 25 W",
        "## Power budget",
        "- Orin NX runs at 10, 15 or 25 W power modes.",
        "- The RTX 4000 SFF Ada draws 70 W from the slot alone.",
        "sudo nvpmodel -m 0",
    ],
    "hugo_docsy": [
        "# Cooling racks",
        "How much heat a rack of accelerators gives off",
        "dissipates about 82 kW",
        "## Liquid cooling",
        "Direct-to-chip loops remove roughly 75% of the heat",
        "| HGX H100 8-GPU | 10.2 |",
        "| GB200 NVL72 rack | 120 |",
    ],
    "hugo_papermod": [
        "# Renting TPUs for a week",
        "What a week of TPU v5e time cost us.",
        "a v5e-16 slice in us-west4",
        "## The bill\n",
        "The slice cost $1.20 per chip-hour on demand, so the week came to $3,225.60.",
        "1. Preemptible capacity would have cost $0.54 per chip-hour.",
        "2. Storage and egress added another $41.",
    ],
    "medium": [
        "# Why our inference bill dropped 60%",
        "## Moving a vision model from A100s to L4s",
        "served 3,100 requests per second on four A100 80GB instances at $16.40 per hour each",
        "Latency before and after the move",
        "## What changed",
        "twelve L4 instances at $0.81 per hour carried the same load with a p99 of 41 ms",
        "- Batch size went from 64 to 16 per GPU.",
        "- TensorRT 10 replaced ONNX Runtime.",
    ],
    "vitepress": [
        "# Flashing the firmware\n",
        "boots OpenSBI 1.4 from a 16 MB SPI NOR flash; a full flash takes 47 seconds over USB",
        "## Boot modes\n",
        "| 01 | microSD |",
        "| 10 | eMMC |",
        "vf2flash --port /dev/ttyUSB0",
        "Hold the BOOT button for 3 seconds to enter recovery mode.",
    ],
    "wordpress": [
        "# Building a quiet 4-GPU workstation",
        "February 9, 2024",
        "stay under 38 dBA at full load",
        "## Power",
        "a 1000 W Platinum PSU leaves enough headroom",
        "| RTX 4000 Ada (each) | 1,250 |",
        "| Threadripper 7960X | 1,499 |",
    ],
}
# Chrome words that must not survive on any page, whatever the fixture marks.
CHROME_WORDS = (
    "CHROME",
    "¶",
    "Keyboard shortcuts",
    "Edit this page",
    "Skip to",
    "On this page",
    "Back to top",
    "Copied",
    "Last updated",
    "Suggest Changes",
    "Edit",
    "\u200b",
)


def read(name: str) -> str:
    return (FIXTURES / f"{name}.html").read_text(encoding="utf-8")


def chunks_of(markdown: str, title: str, url: str) -> list[str]:
    chunks = chunk_markdown(
        markdown,
        kind="article",
        source=url,
        title=title,
        max_tokens=120,
        overlap=0,
        count_tokens=lambda text: len(text.split()),
        first_line=0,
        url=url,
    )
    return [f"{c.heading}\n{c.text}" for c in chunks]


@pytest.mark.parametrize("name", sorted(FACTS))
def test_generator_chrome_is_dropped_and_every_fact_kept_in_order(name: str) -> None:
    url = f"https://docs.example/{name}/page.html"
    article = extract_article(read(name), "text/html; charset=utf-8", url)
    md = article.markdown
    positions = [md.find(fact) for fact in FACTS[name]]
    missing = [fact for fact, pos in zip(FACTS[name], positions, strict=True) if pos < 0]
    assert not missing, f"{name}: facts lost: {missing}\n---\n{md}"
    assert positions == sorted(positions), f"{name}: facts out of reading order\n---\n{md}"
    for word in CHROME_WORDS:
        assert word not in md, f"{name}: chrome {word!r} survived\n---\n{md}"
    assert "CHROME" not in article.title
    for text in chunks_of(md, article.title, url):
        assert "CHROME" not in text


def test_headings_keep_their_text_but_lose_permalink_anchors() -> None:
    md = extract_article(read("sphinx_alabaster"), "text/html", "https://x/").markdown
    headings = re.findall(r"^#+ .*$", md, re.M)
    assert headings == ["# Choosing a host CPU", "## Recommended options", "## Related work", "## Comments and feedback"]


def test_code_blocks_lose_their_language_label_and_copy_button() -> None:
    md = extract_article(read("vitepress"), "text/html", "https://x/").markdown
    assert "```\nvf2flash --port /dev/ttyUSB0\n```" in md
    assert "\n\nsh\n\n" not in md and "Copy" not in md


def test_short_mdbook_page_indexes_its_paragraph_not_the_help_dialog() -> None:
    """One short paragraph in <main>, a keyboard-shortcuts help dialog and a menu bar outside:
    only the paragraph is the article (the dialog was once indexed as a section and cited)."""
    article = extract_article(read("mdbook_short"), "text/html", "https://docs.example/book/errata.html")
    assert article.markdown == "Errata: the Lumen-7 boost clock is 1.83 GHz, not 1.9 GHz."
    assert article.title == "Errata - The Accelerator Book"
    chunks = chunks_of(article.markdown, article.title, "https://docs.example/book/errata.html")
    assert len(chunks) == 1 and "Keyboard" not in chunks[0] and "Press" not in chunks[0]


def test_short_main_with_only_chrome_around_it_is_still_the_article() -> None:
    """An unknown site: chrome with names we don't know, and a short <main>. The text outside
    <main> is not prose (help lines under 200 characters), so <main> wins."""
    html = (
        "<body><div class='kb-help'><h2>Shortcuts</h2><p>Press ? for help</p><p>Press / to search</p></div>"
        "<main><p>The Z80 ran at 4 MHz.</p></main><div class='x'><a href='/a'>Home</a> <a href='/b'>Blog</a></div></body>"
    )
    assert extract_article(html, "text/html", "https://x/").markdown == "The Z80 ran at 4 MHz."


@pytest.mark.parametrize(
    "html",
    [
        # a section whose heading happens to be a chrome word keeps its id-derived name out of it
        '<main><h1>T</h1><section id="sidebar"><h2>Sidebar</h2><p>KEEP the sidebar of a rack holds 4 PDUs.</p></section></main>',
        '<main><h1>T</h1><div class="section" id="comments"><h2>Comments</h2><p>KEEP YAML notes use #.</p></div></main>',
        '<main><h1>T</h1><h2 id="navigation">Navigation</h2><p>KEEP GPS navigation chips draw 20 mW.</p></main>',
        # a link in prose that merely starts with "Next" is not a pager
        '<main><h1>T</h1><p>KEEP see <a href="/n">Next.js on GPUs</a> for details.</p></main>',
        '<main><h1>T</h1><p>KEEP this.</p><ul><li><a href="/n">Next steps: flashing</a></li></ul></main>',
        '<main><h1>T</h1><p>Intro.</p><p><a href="/g">Next generation KEEP GPUs</a></p></main>',
    ],
)
def test_content_named_like_chrome_is_kept(html: str) -> None:
    md = extract_article(html, "text/html", "https://x/").markdown
    assert "KEEP" in md, md


def test_tab_labels_inside_the_article_are_kept() -> None:
    """MkDocs Material and sphinx-design tabs: radio inputs, labels naming each tab, all panels."""
    html = (
        '<body><label class="md-header__button" for="__drawer">MENU</label><main><article><h1>Install</h1>'
        '<div class="tabbed-set" data-tabs="1:2"><input checked id="__tabbed_1_1" name="__tabbed_1" type="radio">'
        '<input id="__tabbed_1_2" name="__tabbed_1" type="radio"><div class="tabbed-labels">'
        '<label for="__tabbed_1_1">Linux</label><label for="__tabbed_1_2">Windows</label></div>'
        '<div class="tabbed-content"><div class="tabbed-block"><p>Run apt install npu-driver.</p></div>'
        '<div class="tabbed-block"><p>Run the NPU installer as administrator.</p></div></div></div></article></main></body>'
    )
    md = extract_article(html, "text/html", "https://x/").markdown
    assert "Linux" in md and "Windows" in md and "apt install npu-driver" in md and "as administrator" in md
    assert "MENU" not in md


def test_inactive_tab_panels_are_content_but_a_lone_hidden_panel_is_not() -> None:
    """Docusaurus renders the tabs a reader has not clicked with ``hidden``."""
    tabs = (
        '<main><h1>Install</h1><div class="tabs-container"><ul role="tablist" class="tabs">'
        '<li role="tab" aria-selected="true" class="tabs__item">npm</li><li role="tab" class="tabs__item">Yarn</li></ul>'
        '<div class="margin-top--md"><div role="tabpanel"><pre><code>npm install npu-sdk</code></pre></div>'
        '<div role="tabpanel" hidden=""><pre><code>yarn add npu-sdk</code></pre></div></div></div>'
        '<div role="tabpanel" hidden>SECRET not a tab of anything</div></main>'
    )
    article = extract_article(tabs, "text/html", "https://x/")
    assert "npm install npu-sdk" in article.markdown and "yarn add npu-sdk" in article.markdown
    assert "SECRET" not in article.markdown and article.hidden_dropped == 1


def test_a_site_of_generator_pages_is_indexed_without_chrome(tmp_path: Path) -> None:
    """End to end: every fixture served on loopback, linked from a note, built with the hash
    embedder. Every page yields chunks, no chunk holds chrome, and the short mdBook page is one
    chunk holding its paragraph only."""
    names = [*sorted(FACTS), "mdbook_short"]
    routes = {f"/{name}.html": Reply(body=read(name)) for name in names}
    with LoopbackSite(routes) as site:
        notes = tmp_path / "notes"
        links = "\n".join(f"* [{name}]({site.url(f'/{name}.html')})" for name in names)
        write_note(notes, "docs.md", f"# Documentation I read\n\n{links}\n")
        settings = load_settings(
            {
                "notes": notes,
                "index": tmp_path / "index",
                "embed_backend": "hash",
                "allow_private_hosts": True,
                "fetch_host_delay": 0.0,
            },
            env={},
            cwd=tmp_path,
        )
        report = build_index(settings)
    assert report.link_counts().fetched == len(names)
    chunks = [c for c in Engine(settings).generation().all_chunks() if c.kind == "article"]
    by_page = {name: [c for c in chunks if c.source.endswith(f"/{name}.html")] for name in names}
    assert all(by_page[name] for name in names), [name for name in names if not by_page[name]]
    for c in chunks:
        assert "CHROME" not in f"{c.title}\n{c.heading}\n{c.text}", c.source
    (short,) = by_page["mdbook_short"]
    assert short.text == "Errata: the Lumen-7 boost clock is 1.83 GHz, not 1.9 GHz."


PYTHON_DOCS = Path("/usr/share/doc/python3.11-doc/html/library")
PYTHON_DOCS_CHROME = (
    "Navigation",
    "Previous topic",
    "Next topic",
    "This Page",
    "Report a Bug",
    "Show Source",
    "Quick search",
    "Python Module Index",
    "Found a bug",
    "Last updated",
    "¶",
    "Theme Auto",
)


@pytest.mark.skipif(not PYTHON_DOCS.is_dir(), reason="Debian's python3.11-doc package is not installed")
def test_real_sphinx_pages_from_the_python_docs_keep_their_words_and_lose_their_chrome() -> None:
    """Third-party HTML no one here wrote (Sphinx with the Python docs theme): every 20th page of
    the library reference keeps at least 98% of the words of its role=main body, footnotes
    included, and none of the navigation, sidebar, search or footer."""
    from bs4 import BeautifulSoup

    pages = sorted(PYTHON_DOCS.glob("*.html"))[::20]
    assert len(pages) >= 12
    for page in pages:
        html = page.read_text(encoding="utf-8", errors="replace")
        md = extract_article(html, "text/html", f"file://{page}").markdown
        for word in PYTHON_DOCS_CHROME:
            assert word not in md, f"{page.name}: {word!r} survived"
        body = BeautifulSoup(html, "lxml").find(role="main")
        assert body is not None
        for permalink in body.select("a.headerlink"):
            permalink.decompose()
        words = re.findall(r"\w{4,}", body.get_text(" "))
        kept = set(re.findall(r"\w{4,}", md))
        lost = [w for w in words if w not in kept]
        assert len(lost) <= 0.02 * len(words), f"{page.name}: lost {lost[:12]}"


def test_honkit_text_inside_the_search_results_container_is_kept() -> None:
    html = """<html><head><title>Pricing · Cloud docs</title></head><body><div class="book">
    <div class="book-summary"><nav role="navigation"><ul class="summary">
    <li class="chapter active">CHROME menu</li></ul></nav></div>
    <div class="book-body"><div class="body-inner"><div class="page-wrapper" tabindex="-1" role="main">
    <div class="page-inner"><div id="book-search-results"><div class="search-noresults">
    <section class="normal markdown-section"><h1 id="pricing">Pricing</h1>
    <p>The t2l.small instance costs $0.85 per hour and is the cheapest one we rent.</p></section></div>
    <div class="search-results"><div class="has-results"><h1 class="search-results-title">CHROME results</h1></div></div>
    </div></div></div></div></div></div></body></html>"""
    article = extract_article(html, "text/html", "http://docs.example/pricing.html", None)
    assert "t2l.small instance costs $0.85 per hour" in article.markdown
    assert "CHROME" not in article.markdown
