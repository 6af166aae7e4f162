"""The warm half of a measurement in a process of its own: ``python bench/warm.py NOTES INDEX PORT SPEC``.

Run with ``PYTHONPATH`` set to the revision measured (``bench/compare.py``), so two revisions can be
timed in one run. Loads the embedder once, as ``--watch`` and the web chat do, then times one-note
rebuilds (a price-table edit and a prose edit, each note's path handed to the build as the watcher
does, where the revision takes it) and warm retrieval. Prints one JSON object.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import LoopbackSite, edit_note, edit_prose


def main() -> None:
    notes, index, port, spec = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
    from hwqa import Engine, build_index, load_settings  # the facade: the same names in every revision timed

    try:
        from hwqa.index.embed import make_embedder
    except ImportError:  # a revision before the index package (1e01b05): embed was a module of its own
        from hwqa.embed import make_embedder  # type: ignore[no-redef]

    settings = load_settings(
        {"notes": notes, "index": index, "allow_private_hosts": True, "fetch_host_delay": 0.0, **spec.get("settings", {})},
        env={},
        cwd=index.parent,
    )
    embedder = make_embedder(settings)
    embedder.embed(["warm up"])
    site = LoopbackSite.__new__(LoopbackSite)
    site.port = port

    def rebuild(note: int) -> float:
        started = time.perf_counter()
        try:
            build_index(settings, embedder=embedder, paths=[f"note-{note:05d}.md"])
        except TypeError:  # a revision whose build does not take the watcher's paths
            build_index(settings, embedder=embedder)
        return time.perf_counter() - started

    build_index(settings, embedder=embedder)
    price, prose = [], []
    for r in range(spec["runs"]):
        edit_note(notes, spec["first"] + r, site, edit=100 + r, long_articles=spec.get("long_articles", 0))
        price.append(rebuild(spec["first"] + r))
        edit_prose(notes, spec["first"] + 50 + r, edit=100 + r)
        prose.append(rebuild(spec["first"] + 50 + r))
    engine = Engine(settings, embedder=embedder)
    engine.ask(spec["questions"][0])
    retrieve = [engine.ask(q).timings["retrieve"] for q in spec["questions"] * 2]
    print(
        json.dumps(
            {
                "warm_price_edit_s": statistics.median(price),
                "warm_prose_edit_s": statistics.median(prose),
                "retrieve_p50_s": statistics.median(retrieve),
            }
        )
    )


if __name__ == "__main__":
    main()
