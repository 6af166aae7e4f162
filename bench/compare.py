"""Another revision measured in the same run (``--ref main``), and the 100,000-chunk scale runs.

Everything here runs in new processes (``bench/warm.py`` for the warm half), so the code of any
revision can be timed beside the working tree's: ``git archive REF src`` is unpacked into the
work folder and put on ``PYTHONPATH``. A revision's index is its own folder; both read the same
notes. Each one-note rebuild is timed twice: a price-table edit (the note rewritten, its price
table with it, so the price table is merged again) and a prose edit (a sentence added).
"""

from __future__ import annotations

import io
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corpus import LoopbackSite, edit_note, edit_prose

REPO = Path(__file__).resolve().parent.parent

Child = Callable[[list[str], dict[str, str], str], tuple[float, float, str]]


def ref_src(ref: str, work: Path) -> Path:
    """The ``src`` folder of revision ``ref``, unpacked under ``work``."""
    data = subprocess.run(["git", "-C", str(REPO), "archive", ref, "src"], capture_output=True, check=True).stdout
    out = work / f"ref-{ref.replace('/', '_')}"
    shutil.rmtree(out, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(out, filter="data")
    return out / "src"


def measure(
    child: Child,
    env: Callable[..., dict[str, str]],
    src: Path,
    notes: Path,
    index: Path,
    site: LoopbackSite,
    *,
    runs: int,
    first: int,
    questions: list[str],
    extra: dict[str, str] | None = None,
    long_articles: int = 0,
    label: str,
) -> dict[str, Any]:
    """Full build, one-note rebuilds (new process and warm) and warm retrieval of the code in ``src``."""
    hwqa = [sys.executable, "-m", "hwqa.cli", "index", "--json"]
    base = {**env(notes, index, **(extra or {})), "PYTHONPATH": str(src)}
    shutil.rmtree(index, ignore_errors=True)
    full, _, out = child(hwqa, base, f"{label} full build")
    chunks = json.loads(out)["chunks_total"]
    price, prose = [], []
    for r in range(runs):
        edit_note(notes, first + r, site, edit=1 + r, long_articles=long_articles)
        price.append(child(hwqa, base, f"{label} one-note rebuild (price edit)")[0])
        edit_prose(notes, first + 50 + r, edit=1 + r)
        prose.append(child(hwqa, base, f"{label} one-note rebuild (prose edit)")[0])
    settings = {k.removeprefix("HWQA_").lower(): v for k, v in (extra or {}).items()}
    spec = {"runs": runs, "first": first + 200, "questions": questions, "long_articles": long_articles, "settings": settings}
    warm_cmd = [sys.executable, str(REPO / "bench" / "warm.py"), str(notes), str(index), str(site.port), json.dumps(spec)]
    _, _, text = child(warm_cmd, base, "")
    warm = json.loads(text)
    return {
        "chunks": chunks,
        "full_build_s": full,
        "new_process_price_edit_s": statistics.median(price),
        "new_process_prose_edit_s": statistics.median(prose),
        **warm,
    }


def scale_runs(
    child: Child,
    env: Callable[..., dict[str, str]],
    work: Path,
    site: LoopbackSite,
    trees: dict[str, Path],
    *,
    notes: int,
    chunks: int,
    runs: int,
    questions: list[str],
    log: Callable[[str], None],
) -> dict[str, Any]:
    """One-note rebuilds at ``notes`` notes and at about ``chunks`` chunks (the same notes, plus long
    pages they link to), for every tree, with the hash embedder (the model's cost is the same at
    any size; building 10^5 chunks with it takes half an hour here)."""
    from corpus import make_corpus

    extra = {"HWQA_EMBED_BACKEND": "hash"}
    per_note = 2
    longs = max(0, (chunks - per_note * notes) // (site.long_sections + 1))
    out: dict[str, Any] = {"embedder": "hash", "note_count": notes, "long_articles": longs, "corpora": {}}
    for name, folder_longs in (("notes", 0), ("chunks", longs)):
        folder = work / f"scale-{name}"
        shutil.rmtree(folder, ignore_errors=True)
        make_corpus(folder, notes, site, long_articles=folder_longs)
        for k, (tree, src) in enumerate(trees.items()):  # each tree edits notes of its own: an edit done
            # again by the next tree would rewrite the same text, which costs nothing to index
            result = measure(
                child,
                env,
                src,
                folder,
                work / f"scale-{name}-{tree}",
                site,
                runs=runs,
                first=min(1000, notes - 260 * len(trees)) + 260 * k,
                questions=questions,
                extra=extra,
                long_articles=folder_longs,
                label=f"scale {name} {tree}",
            )
            out["corpora"].setdefault(name, {})[tree] = result
            log(f"scale {name} ({result['chunks']} chunks), {tree}: {result}")
    return out
