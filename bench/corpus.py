"""Generated benchmark corpora and the loopback site their links point to.

Every note has front matter, a heading, a short paragraph, a section with a small price/spec
table and a link to an article on a loopback site. Notes are kept small (about two chunks of
50-90 tokens each) so that 10,000 of them build within the benchmark's time budget on a 2-core
machine; FLOPs are counted from each chunk's real token count, so the roofline fraction is
honest for any chunk size.
"""

from __future__ import annotations

import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ARTICLES = 40
HARDWARE = ["V100", "A100", "H100", "T4", "L4", "P100", "TPU v2", "TPU v3", "TPU v4", "TPU v5e", "MI250", "Gaudi2"]
PROVIDERS = ["GCP", "AWS", "Azure", "Lambda", "CoreWeave", "OCI"]
WORDS = (
    "accelerator memory bandwidth tensor cores HBM training inference batch throughput latency precision fp16 bf16 "
    "int8 cluster node interconnect NVLink PCIe rack cooling power price preemptible on-demand reserved region zone "
    "quota driver CUDA XLA compiler kernel sharding pipeline checkpoint dataset epoch optimizer gradient activation "
    "transformer convolution benchmark MLPerf"
).split()


def article_html(n: int) -> str:
    rng = random.Random(1000 + n)
    paragraphs = "".join(f"<p>{' '.join(rng.choices(WORDS, k=40)).capitalize()} (article {n}, part {p}).</p>" for p in range(3))
    return (
        f"<html><head><title>Hardware article {n}</title></head><body><nav>menu</nav><article>"
        f"<h1>Hardware article {n}</h1>{paragraphs}</article><footer>footer</footer></body></html>"
    )


def long_article_html(n: int, sections: int) -> str:
    """A long page: ``sections`` sections of one paragraph each (about one chunk per section)."""
    rng = random.Random(5000 + n)
    body = "".join(
        f"<h2>Part {s} of long article {n}</h2><p>{' '.join(rng.choices(WORDS, k=45)).capitalize()} (long {n}, part {s}).</p>"
        for s in range(sections)
    )
    head = f"<html><head><title>Long article {n}</title></head>"
    return f"{head}<body><article><h1>Long article {n}</h1>{body}</article></body></html>"


class LoopbackSite:
    """A threaded HTTP server on 127.0.0.1 serving ``/article/<n>`` (and ``/long/<n>``, long pages
    of ``long_sections`` sections); a context manager."""

    long_sections = 200

    def __enter__(self) -> LoopbackSite:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                try:
                    n = int(self.path.rstrip("/").rsplit("/", 1)[-1])
                except ValueError:
                    n = -1
                long = self.path.startswith("/long/")
                if n < 0 or (not long and n >= ARTICLES):
                    self.send_error(404)
                    return
                body = (long_article_html(n, site.long_sections) if long else article_html(n)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def url(self, n: int) -> str:
        return f"http://127.0.0.1:{self.port}/article/{n}"


def note_text(i: int, site: LoopbackSite, edit: int = 0) -> str:
    rng = random.Random(i * 7919 + edit)
    hw = rng.sample(HARDWARE, 3)
    rows = "\n".join(
        f"| {h} | {rng.choice(PROVIDERS)} | {rng.randint(50, 900) / 100:.2f} | {rng.choice([16, 24, 32, 40, 80])} |" for h in hw
    )
    intro = " ".join(rng.choices(WORDS, k=rng.randint(14, 22)))
    detail = " ".join(rng.choices(WORDS, k=rng.randint(10, 16)))
    extra = f" Edited {edit}." if edit else ""
    return (
        f"---\ntitle: Hardware note {i}\ntags: [bench, {hw[0].lower().replace(' ', '-')}]\ndate: 2026-01-{1 + i % 28:02d}\n---\n"
        f"# Hardware note {i}\n\nNote {i} compares {hw[0]} with {hw[1]}: {intro}.{extra}\n\n"
        f"## Prices seen for note {i}\n\n{detail.capitalize()}.\n\n"
        f"| hardware | provider | usd_per_hour | memory_gb |\n|---|---|---|---|\n{rows}\n\n"
        f"Background: [article {i % ARTICLES}]({site.url(i % ARTICLES)})\n"
    )


def make_corpus(folder: Path, notes: int, site: LoopbackSite, long_articles: int = 0) -> None:
    """``notes`` notes; the first ``long_articles`` of them also link one long page each."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(notes):
        (folder / f"note-{i:05d}.md").write_text(note_text(i, site) + long_link(i, site, long_articles), encoding="utf-8")


def long_link(i: int, site: LoopbackSite, long_articles: int) -> str:
    return f"Reading: [long article {i}](http://127.0.0.1:{site.port}/long/{i})\n" if i < long_articles else ""


def edit_note(folder: Path, i: int, site: LoopbackSite, edit: int, long_articles: int = 0) -> None:
    """Rewrite note ``i`` as edition ``edit``: new words, a new price table (the price table is merged again)."""
    (folder / f"note-{i:05d}.md").write_text(note_text(i, site, edit) + long_link(i, site, long_articles), encoding="utf-8")


def edit_prose(folder: Path, i: int, edit: int) -> None:
    """Add a sentence to note ``i``'s first paragraph: a prose edit, its prices untouched."""
    path = folder / f"note-{i:05d}.md"
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition("\n\n## ")
    path.write_text(
        f"{head.rstrip()} Prose edit {edit}.\n\n## {rest}" if sep else text + f"\nProse edit {edit}.\n", encoding="utf-8"
    )
