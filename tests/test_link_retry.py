"""Failed links are not fetched again on every build (issue 34, item 2).

Every ``make run`` waited 10-11 s, offline, for the same 52 dead links. A link that fails is now
remembered with its reason and fetched again after a pause that doubles (1, 2, 4 … hours), or at
once with ``hwqa index --retry-links``; ``hwqa links --failed`` says when.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from hwqa.build.builder import build_index
from hwqa.index import reader as store
from hwqa.settings import Settings, load_settings

from .conftest import run_hwqa, write_note
from .helpers_http import LoopbackSite, Reply


def cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    return run_hwqa(
        settings,
        *args,
        HWQA_ALLOW_PRIVATE_HOSTS="true",
        HWQA_FETCH_HOST_DELAY="0",
        NO_PROXY="127.0.0.1",
        no_proxy="127.0.0.1",
    )


def link_record(settings: Settings, url: str) -> dict[str, object]:
    gen_dir = store.current_generation_dir(settings.index)
    assert gen_dir is not None
    manifest = json.loads((gen_dir / "manifest.json").read_text(encoding="utf-8"))
    record: dict[str, object] = manifest["links"][url]
    return record


def test_a_failed_link_waits_out_a_growing_pause_unless_retried(tmp_path: Path) -> None:
    with LoopbackSite({"/gone": Reply(404, "<html><body>gone</body></html>")}) as site:
        url = site.url("/gone")
        write_note(tmp_path / "notes", "a.md", f"# A\n\nSee [the spec]({url}).\n\nA TPU v3 costs $8.00 per hour.\n")
        settings = load_settings(
            {
                "notes": tmp_path / "notes",
                "index": tmp_path / "index",
                "embed_backend": "hash",
                "allow_private_hosts": True,
                "fetch_host_delay": 0.0,
            },
            env={},
            cwd=tmp_path,
        )
        started = time.time()
        build_index(settings)
        assert site.count("/gone") == 1
        first = link_record(settings, url)
        assert first["status"] == "failed" and first["reason"] and first["failures"] == 1
        assert 3500 < float(str(first["retry_at"])) - started < 3700

        # the next builds (a new process, as make run starts one) do not try it again, and keep why it failed
        for _ in range(2):
            again = cli(settings, "index")
            assert again.returncode == 0, again.stderr
        assert site.count("/gone") == 1, "the failed link was fetched again before its pause ended"
        assert link_record(settings, url)["reason"] == first["reason"]

        shown = cli(settings, "links", "--failed")
        assert shown.returncode == 0, shown.stderr
        assert "failed once; next try in 59 min" in shown.stdout and "--retry-links" in shown.stdout, shown.stdout
        listed = json.loads(cli(settings, "links", "--failed", "--json").stdout)
        item = listed["notes"][0]["links"][0]
        assert item["failures"] == 1 and item["retry_at"].endswith("Z") and 3400 < item["retry_in_s"] <= 3600

        # --retry-links tries it at once; a second failure in a row doubles the pause
        retried = cli(settings, "index", "--retry-links")
        assert retried.returncode == 0, retried.stderr
        assert site.count("/gone") == 2
        second = link_record(settings, url)
        assert second["failures"] == 2 and 7100 < float(str(second["retry_at"])) - time.time() < 7300
