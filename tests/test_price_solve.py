"""Money questions no sum of a known shape answers, worked out by their units over the quote and its note
(hwqa.prices.solve): a price per thing times how many the note counts, a storage price over a season, a battery's
hours, a purchase spread per month; and no sum where the product would be another thing's price or a lookup."""

from __future__ import annotations

from pathlib import Path

from .conftest import ask_json, cli_over
from .conftest import ask_text as ask

RADIO = """---
title: Community radio transcripts
date: 2026-06-01
---

# Community radio transcripts

## Speech to text

* [Speech-to-Text pricing - CloudVoice](https://example.com/pricing) - batch transcription is $0.006 / min, no minimum.
* the back catalogue is about 4,200 min of shows, all mono mp3.
* whisper on the old desktop did one show in ~40 min, too slow for the lot.

## Storage

* Wasabi bucket for the raw audio, $0.0069/GB/mo, the catalogue is 180 GB.
* we only keep it up during the 4 month archive project, then it goes to tape.

## Field recorder

* the interview recorder box runs off a 60 Wh power bank.
* pi + usb mic pull about 4W together while recording.

## Mixer

* bought the digital mixer for $1,440 in March.
* treasurer wants it written off straight line over 3 years.
"""

MICS = """---
title: Studio mics
date: 2026-06-01
---

# Studio mics

* Boreal mesh mics - ~$40 per mic + ~$300 for a base station, the vendor says 1 mic per room.
"""

RENDERS = """---
title: Render queue
date: 2026-06-01
---

# Render queue

* the render farm bills $0.50 per minute of GPU time.
* one preview render takes twenty minutes on their box, a final one eleven minutes more.
"""

radio = cli_over("radio", {"radio.md": RADIO})
renders = cli_over("renders", {"renders.md": RENDERS})
mics = cli_over("mics", {"mics.md": MICS})


def test_a_price_per_minute_times_the_minutes_the_note_counts(radio: Path) -> None:
    # $0.006 per minute × 4,200 minutes = $25.20
    answer = ask("what would cloudvoice charge to transcribe the whole back catalogue?")
    assert "**$25.20**" in answer, answer


def test_a_storage_price_per_gb_month_over_the_project_the_note_gives_the_length_of(radio: Path) -> None:
    # $0.0069/GB/mo × 180 GB × 4 months = $4.97
    answer = ask("what does the wasabi bucket cost us over the whole archive project?")
    assert "**$4.97**" in answer, answer


def test_a_price_for_its_own_thing_beside_a_price_per_unit_is_not_per_that_unit(mics: Path) -> None:
    # $40 per mic × 1 mic per room × 12 rooms = $480; "$300 for a base station" is never $300 per mic ($3,600)
    answer = ask("what would the boreal mics cost for all 12 rooms")
    assert "$40 per mic × 1 mic per room × 12 rooms = **$480**" in answer, answer


def test_a_battery_lasts_its_energy_over_the_draw(radio: Path) -> None:
    # 60 Wh ÷ 4 W = 15 hours
    answer = ask("how many hours can the field recorder run on the power bank?")
    assert "**15.0 hours**" in answer, answer


def test_a_purchase_written_off_over_years_asked_per_month(radio: Path) -> None:
    # $1,440 ÷ 36 months = $40 a month
    answer = ask("if the mixer is written off straight line, how much is that per month?")
    assert "**$40.00**" in answer, answer


def test_no_sum_over_another_things_price_or_of_a_lookup(radio: Path) -> None:
    answer = ask("what would the premium tier of cloudvoice cost per month?")
    assert "worked out from your notes" not in answer, answer
    answer = ask("whats wasabi charging per GB a month")
    assert "worked out from your notes" not in answer, answer
    assert "0.0069" in answer, answer


def test_a_model_the_question_names_is_on_a_line_of_the_product(radio: Path) -> None:
    data = ask_json("what would transcription of the catalogue on a rented 5090 cost?")
    assert "worked out from your notes" not in str(data["answer"]), data["answer"]


LAB = """---
title: Protein folding runs
date: 2026-06-02
---

# Protein folding runs

## Cluster

* the uni cluster bills its A40 partition at €0.75 per GPU-hour, charged to the group.
* one structure of the big complex takes ~9 h on an A40.

## Pretrain

* one node of 8x L40S, $1.10/hr per gpu on demand; the whole pretrain took about 30h.
* ~6B tokens went through it.

## Captions

* shows are 2 hrs with the break, 4 a week.
* CaptionCo live captions $0.020/min.
* Subtitly streaming $0.012/min, a bit laggy.
"""

lab = cli_over("lab", {"lab.md": LAB})


def test_a_rate_per_gpu_hour_with_no_count_is_for_one_gpu_asked_in_euros(lab: Path) -> None:
    # €0.75 per GPU-hour × 9 h × 1 GPU × 4 structures = €27
    answer = ask("4 structures of the big complex on the cluster's A40 partition, how many euros?")
    assert "**€27.00**" in answer, answer


def test_a_run_per_billion_tokens(lab: Path) -> None:
    # 8 GPUs × $1.10 × 30 h = $264 over 6B tokens: $44.00 per billion
    answer = ask("what did the pretrain work out to per billion tokens?")
    assert "**$44.00**" in answer, answer


def test_two_prices_over_the_same_product_and_their_difference(lab: Path) -> None:
    # per show of 2 h: CaptionCo 120 min × $0.020 = $2.40, Subtitly 120 min × $0.012 = $1.44: $0.96 more
    answer = ask("per show, how much more is captionco than subtitly?")
    assert "**$0.96**" in answer, answer


CHOIR = """---
title: Choir sheet music scanning
date: 2026-06-03
---

# Choir sheet music scanning

## Tool

* [ScoreCloud Team - ScoreCloud](https://example.com/sc) - $12 per seat per month billed monthly, or $9/seat/mo if you pay yearly.
* 3 of us scanning: me and two altos.
"""

choir = cli_over("choir", {"choir.md": CHOIR})


def test_a_count_the_plan_sum_left_out_is_multiplied_at_the_billing_asked(choir: Path) -> None:
    # 4 seats × $9/seat/mo (billed yearly) × 12 months = $432
    answer = ask("if 4 more volunteers join scorecloud, on yearly billing what does that add per year?")
    assert "**$432**" in answer or "**$432.00**" in answer, answer
    assert "$12" not in answer.split("\n\n")[0], answer  # never the price billed monthly


MARKET = """---
title: Market price tracker
date: 2026-06-05
---

# Market price tracker

## Reading the boards

* [Vision API pricing - CloudLLM](https://example.com/llm) - $0.20/1M input tokens, $0.80/1M output.
* one board photo is ~2,000 tokens in, the json back is ~500 tokens out.
"""

market = cli_over("market", {"market.md": MARKET})


def test_tokens_in_and_out_each_at_their_own_price(market: Path) -> None:
    # per photo: 2,000 × $0.20/1M + 500 × $0.80/1M = $0.0004 + $0.0004 = $0.0008; 1,000 photos: $0.80
    answer = ask("what would 1,000 photos cost on cloudllm?")
    assert "**$0.80** in all" in answer, answer


def test_a_question_asking_hours_with_no_money_word_gets_the_spans_second_look(radio: Path) -> None:
    # turned away by the confidence ("roughly", "hrs", "rig" are no word of the notes), worked out all the same
    answer = ask("roughly how many hrs would the interview rig survive off that 60 Wh brick?")
    assert "60 wh ÷ 4w = **15.0 hrs**" in answer, answer


POTTERY = """---
title: Pottery kiln camera
date: 2026-06-06
---

# Pottery kiln camera

## Tariff

* Studio is on time-of-use: $0.30/kWh peak (4pm to 9pm), $0.12/kWh off-peak the rest of the day.

## Box usage

* Crack detector box pulls ~150W while watching. Firings = ~3 firings/wk x 3h, 20 week term, always 5-8pm so peak.
"""

pottery = cli_over("pottery", {"pottery.md": POTTERY})


def test_an_energy_product_at_the_tariff_the_usage_line_speaks_of(pottery: Path) -> None:
    # 0.15 kW × 3 h a firing × 3 firings a week × 20 weeks = 27 kWh at the peak $0.30 = $8.10 (off-peak: $3.24)
    answer = ask("electricity for the crack detector over a term, roughly?")
    assert "**$8.10**" in answer, answer


RENDER = """---
title: Render queue
date: 2026-06-07
---

# Render queue

## Timings

| box | hw | $/hr | one render |
|---|---|---|---|
| c7i.4xlarge | 16 vCPU, 32GB | 0.714 | 2h30m |
| g6.xlarge | 1x L4 24GB | 0.805 | 20 min |

* we do ~40 renders a month for the shop.
"""

render = cli_over("render", {"render.md": RENDER})


def test_two_table_rows_compared_over_the_count_the_note_gives(render: Path) -> None:
    # c7i: $0.714 × 2.5 h × 40 = $71.40; g6: $0.805 × 1/3 h × 40 = $10.73; difference $60.67
    answer = ask("monthly render bill, cpu box vs the l4 one, at our usual number of renders?")
    assert "**$71.40**" in answer and "**$10.73**" in answer and "**$60.67**" in answer, answer


TRANSCRIPTS = """---
title: Radio transcript checking
date: 2026-06-08
---

# Radio transcript checking

## Checking

* Otter Business for the volunteers who check: $20/seat/mo billed monthly, or $16/seat/mo if we pay yearly. 5 volunteers.
"""

transcripts = cli_over("transcripts", {"transcripts.md": TRANSCRIPTS})


def test_a_period_asked_of_a_plan_with_no_money_word_is_its_cost(transcripts: Path) -> None:
    # 5 seats × $16/seat/mo (billed yearly) × 12 months = $960
    answer = ask("otter for all the volunteers for a year if we go annual?")
    assert "**$960**" in answer, answer


def test_a_count_written_as_a_word_any_sum_reads_is_no_crash(renders: Path) -> None:
    # "twenty minutes" and "eleven minutes" in the quote: the sum's count words once stopped the whole answer
    answer = ask("what does one preview render cost on the farm?")
    assert "twenty minutes" in answer, answer


SWEEPS = """---
title: Sweeps on rented cards
date: 2026-06-04
---

# Sweeps on rented cards

## Beam search sweep

* rented 3x A6000 on CloudCo at $0.45/hr each for the beam search sweep, the whole sweep ran 8 hrs.
* their H100 was $2.20/hr, overkill for this.

## Fine-tunes

* fine-tuned the tagger on CloudCo's L4 at $0.80/hr. did 5 runs, each about 1.5 hrs.

## Rack

* Arctic P12 fans at $8.50 each, bought 4 for the rack.

## Upscaling

* CloudCo A40 at $0.90/hr on demand, used it for the 6 hour upscale run in May.
"""

sweeps = cli_over("sweeps", {"sweeps.md": SWEEPS})


def test_a_rental_price_each_is_of_one_of_the_cards_its_line_counts(sweeps: Path) -> None:
    # 3 cards × $0.45 an hour each × 8 h = $10.80, not one card's $3.60, nor the H100's $2.20 × 8 h
    answer = ask("how much was the beam search sweep?")
    assert "**$10.80**" in answer, answer


def test_a_length_each_is_of_one_of_the_runs_counted_before_it(sweeps: Path) -> None:
    # 5 runs × 1.5 h a run × $0.80 an hour = $6.00
    answer = ask("what did the tagger fine-tunes come to all together?")
    assert "**$6.00**" in answer, answer
    # one of them: 1.5 h × $0.80, never all five
    answer = ask("what did one tagger fine-tune run cost?")
    assert "**$1.20**" in answer and "$6.00" not in answer, answer


def test_a_price_each_of_the_things_a_verb_counts(sweeps: Path) -> None:
    # 4 fans bought at $8.50 each = $34.00
    answer = ask("what did the rack fans cost altogether?")
    assert "**$34.00**" in answer, answer


def test_a_length_before_a_card_is_no_count_of_it(sweeps: Path) -> None:
    # "the 6 hour a40 run": 6 h × $0.90 = $5.40, never 6 A40s × 6 h = $32.40
    answer = ask("what did the 6 hour a40 run cost")
    assert "**$5.40**" in answer and "$32.40" not in answer, answer


RENTAL_LOG = """---
title: Cloud rentals
date: 2026-05-19
---

# Cloud rentals

## RunPod

RTX 4090 community cloud $0.69/hr, A100 80G secure cloud $1.89/hr.

## Log

March: 11 hrs of 4090 on RunPod (splats + LoRA). April: 6 hrs of A100 for the Flux LoRA tries.
"""

rental_log = cli_over("rental-log", {"rentals.md": RENTAL_LOG})


def test_of_two_prices_listed_name_first_the_one_whose_clause_names_the_logged_card(rental_log: Path) -> None:
    # "RTX 4090 … $0.69/hr, A100 … $1.89/hr": each price's clause names its card; the log's 11 hrs are of the 4090
    answer = ask("what did the march 4090 time on runpod come to")
    assert "**$7.59**" in answer and "$20.79" not in answer, answer
    answer = ask("what did the april a100 time on runpod come to")
    assert "**$11.34**" in answer, answer


FESTIVAL = """---
title: Festival sound budget
date: 2026-07-01
---

# Festival sound budget

## Split

| line | budget |
|---|---|
| speakers | $6,000 |
| captioning | $1,440 |
| stage crew | $2,250 |

## Notes

* Stage crew are freelancers at $45/hr.
* Captioning is outsourced at 8 cents a minute of audio.
"""

festival = cli_over("solve-festival", {"festival.md": FESTIVAL})


def test_a_budget_line_over_a_rate_is_the_line_the_question_names(festival: Path) -> None:
    # of the table's three amounts, the one whose row names what is asked: $1,440 ÷ $0.08/minute, never $6,000's
    answer = ask("how many minutes of captioning can we get out of the captioning money")
    assert "18,000" in answer and "75,000" not in answer, answer
