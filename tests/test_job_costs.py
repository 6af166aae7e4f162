"""A job's cost on each card, at the length the notes give for that job there (issue 33: every money question answered
by the calculator): "is the a100 cheaper per finetune than the 4090", "5 retrains on the a10 rather than the 4090",
each card's rate times its own noted length, never a length per month (usage), and the rate for the hours a question
states, never a price to buy the card."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ask_json, cli_over, index_notes_once, point_cli_at_folder

FINETUNING = """---
title: Cloud finetuning for the ball tracker
date: 2026-05-02
---

# Cloud finetuning for the ball tracker

## Where

* [Vast.ai](https://vast.ai/) - RTX 4090 at ~$0.42/hr, the one I use most. Full finetune on our frames takes 11 hrs.
* [RunPod](https://www.runpod.io/) - A100 80G PCIe at $1.64/hr on community cloud. Same finetune ~5.5 hrs.
* we use ~40 GPU-hrs/mo on the A100 when the season is busy.
"""

RETRAINS = """---
title: Retraining the smoke detector
date: 2025-05-03
---

# Retraining the smoke detector

## Prices

* [RunPod pricing](https://www.runpod.io/pricing) - RTX 4090 on community cloud $0.34/hr
* [Lambda GPU Cloud pricing](https://lambdalabs.com/service/gpu-cloud) - A10 (24 GB) $0.75/hr

## Runs

* 4090 on runpod: same 100 epoch run in 5.5 hrs. Lambda A10: ~12 hrs, slower than I expected.
"""

BOXES = """---
title: Dual 3090 boxes
date: 2026-03-10
---

# Dual 3090 boxes

* [Vast.ai](https://vast.ai/) - 2x 3090 boxes from $0.38/hr for the whole box, host quality is a lottery.
* bought my own RTX 3090 used for $650 last year.
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_notes_once(tmp_path_factory, "jobs", {"finetuning.md": FINETUNING, "retrains.md": RETRAINS, "boxes.md": BOXES})


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "is the a100 cheaper per finetune than the 4090 or not",
            ["11 h × $0.42/h = **$4.62**", "5.5 h × $1.64/h = **$9.02**", "cheaper by **$4.40**"],
        ),
        (
            "doing the 5 retrains on lambda's a10 rather than the runpod 4090, how much extra",
            ["5 × 5.5 h × $0.34/h = **$9.35**", "5 × 12 h × $0.75/h = **$45.00**", "cheaper by **$35.65**"],
        ),
    ],
)
def test_a_job_is_costed_on_each_card_at_the_length_the_notes_give_for_it_there(
    built: Path, monkeypatch: pytest.MonkeyPatch, question: str, said: list[str]
) -> None:
    point_cli_at_folder(monkeypatch, built)
    data = ask_json(question)
    for part in said:
        assert part in data["answer"], data["answer"]
    assert "40 h" not in data["answer"], data["answer"]  # "~40 GPU-hrs/mo" is usage, not a finetune's length


def test_hours_of_one_of_a_rented_box_are_rented_never_the_price_to_buy_the_card(
    built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    point_cli_at_folder(monkeypatch, built)
    data = ask_json("price for a 20 hr job on one of the vast dual 3090 boxes?")
    assert "$7.60" in data["answer"] and "$650" not in data["answer"], data["answer"]


RUN_LOG = """---
title: Fine-tune run log (costs)
date: 2026-08-05
---

# Fine-tune run log (costs)

Only the runs that mattered, not every smoke test.

| date | run | where | gpu | hrs | cost |
|---|---|---|---|---|---|
| 2026-03-14 | dh-v1 | RunPod community | 1x 4090 | 6.5 | $2.21 |
| 2026-04-02 | dh-v2 | RunPod secure | 1x A100 80G | 9 | $14.76 |
| 2026-05-11 | dh-14b | Lambda | 1x H100 | 11 | $27.39 |
| 2026-06-20 | dh-v3 | our box | 2x 3090 | 14 | power only |
| 2026-08-05 | dh-v4 | Vast.ai | 2x 3090 | 8 | $3.04 |
"""


def test_what_a_run_log_table_came_to_is_the_sum_of_its_cost_column(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "what did all the runs cost altogether" over a table of runs: every amount of its cost column added (a cell
    without one said), never a rate times hours; the rates it implies are the calculator's ($14.76 over 9 h)."""
    point_cli_at_folder(monkeypatch, index_notes_once(tmp_path_factory, "runlog", {"runs.md": RUN_LOG}))
    data = ask_json("what did all our rented fine-tuning runs cost altogether")
    assert "$2.21 + $14.76 + $27.39 + $3.04 = **$47.40**" in data["answer"], data["answer"]
    assert "“power only”" in data["answer"], data["answer"]
    data = ask_json("what does an a100 cost per hour on runpod")
    assert "$1.64" in data["answer"], data["answer"]


SPEND_2025 = """---
title: Dues and the network fund
date: 2026-01-09
---

# Dues and the network fund

## What the network cost us in 2025

| item | 2025 | note |
|---|---|---|
| GPU server power | $223.56 | club room sub-meter |
| cloud bursts | $33.02 | Perseids + Geminids |
| Backblaze B2 | $129.60 | avg ~1.8 TB stored |
| SD cards, fans, misc | $64.25 | 2 dead SD cards |

* treasurer wants a line by line for the AGM in March.
"""


def test_a_table_whose_money_column_is_headed_by_a_year_is_added_up(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "| item | 2025 | note |": the column of amounts is the money column though its header names a year."""
    point_cli_at_folder(monkeypatch, index_notes_once(tmp_path_factory, "spend2025", {"fund.md": SPEND_2025}))
    data = ask_json("what did the network cost altogether for 2025")
    assert "$223.56 + $33.02 + $129.60 + $64.25 = **$450.43**" in data["answer"], data["answer"]
    assert "“2025” column" in data["answer"], data["answer"]


HEDGEHOGS = """---
title: Hedgehog cam training
date: 2026-07-01
---

# Hedgehog cam training

## Rentals

* [Vast.ai](https://vast.ai/) - RTX 4090 at $0.40/hr.
* [RunPod pricing](https://www.runpod.io/pricing) - H100 PCIe $2.39/hr.

## Runs

* Hedgehog detector fine-tune was ~9 hrs, that one went on the 4090.
* Same run on the H100 took 3 hrs, batch 64.
"""


hedgehogs = cli_over("hedgehogs", {"hedgehogs.md": HEDGEHOGS})


def test_a_job_named_first_and_each_card_s_own_length(hedgehogs: Path) -> None:
    # shorthand naming the job first, no "a"/"the"/"per" before it: 9 h × $0.40
    data = ask_json("hedgehog detector fine tune on the 4090, how much was that roughly")
    assert "9 h × $0.40/h = **$3.60**" in data["answer"], data["answer"]
    # "run" is written only beside the H100's length: the 4090 keeps its own (the fine-tune's), never none
    data = ask_json("what did one training run cost on the 4090 vs the h100")
    assert "9 h × $0.40/h = **$3.60**" in data["answer"] and "3 h × $2.39/h = **$7.17**" in data["answer"], data["answer"]
