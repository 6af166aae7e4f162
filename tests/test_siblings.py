"""A question about a sibling of something the notes cover ("the raspberry boom" where the notes have the Raspberry
Shake RS4D, "copilot enterprise" where they price Copilot Business) is turned away, naming both the thing asked about
and the one the notes cover, never answered with the covered thing's price. Questions about the covered thing in
other words (lower case, a typo, "the shake", a word the notes use elsewhere) are still answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ask_json, index_notes_once, point_cli_at_folder

QUAKES = """---
title: Backyard seismometer
date: 2025-03-02
---

# Backyard seismometer

## The unit

Bought a Raspberry Shake RS4D for $699 in March, it sits on the garage slab.
It picks up the small local earthquakes fine, the trucks on the road too.

## Data

The Shake streams to the station server over wifi, about 2 GB a month of data.
"""

CODE = """---
title: Code assistant
date: 2025-05-10
---

# Code assistant

## What we pay

* Copilot Business is $19/user/mo, that's what the team is on (14 devs).
* the enterprise tier of the self-hosted server needs a sales call.

## The box

* spare tower with an RTX 4090, serves the completion model at ~180 ms per completion.
"""


DUBBING = """---
title: Dubbing the channel
date: 2025-06-01
---

# Dubbing the channel

The Dubbing Studio of the voice service does the Spanish track, on the Creator plan at $22/mo.
"""


VOICES = """---
title: Voices for the narration
date: 2025-07-01
---

# Voices for the narration

* [ElevenLabs - Pricing](https://elevenlabs.io/pricing) - Starter $5/mo for 30k credits, Pro $99/mo for 500k credits.
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_notes_once(tmp_path_factory, "siblings", {"quakes.md": QUAKES, "code.md": CODE, "dubbing.md": DUBBING})


@pytest.mark.parametrize(
    ("question", "asked", "covered", "answered"),
    [
        (
            "how much was the raspberry boom",
            "raspberry boom",
            "Raspberry Shake RS4D",
            [
                ("how much was the raspberry shake", "$699"),
                ("how much did the raspbery shake cost", "$699"),  # a typo of the covered name
                ("does the shake pick up the small earthquakes", "small local earthquakes"),
            ],
        ),
        (
            "how much is copilot pro per seat",
            "copilot pro",
            "Copilot Business",
            [
                ("how much is copilot business per seat", "$19"),
                ("which tier of the self-hosted server needs a sales call", "sales call"),  # "enterprise" is a word they use
                ("dubbing every video on the creator plan, what does it cost a month", "$22"),  # "every": no name
            ],
        ),
    ],
)
def test_a_sibling_of_a_covered_thing_is_turned_away_naming_both_and_the_thing_itself_answered(
    built: Path, monkeypatch: pytest.MonkeyPatch, question: str, asked: str, covered: str, answered: list[tuple[str, str]]
) -> None:
    point_cli_at_folder(monkeypatch, built)
    data = ask_json(question)
    assert data["covered"] is False, data["answer"]
    assert f"don't mention “{asked}”" in data["answer"], data["answer"]
    assert f"They cover “{covered}”" in data["answer"], data["answer"]
    assert "$699" not in data["answer"] and "$19" not in data["answer"], data["answer"]
    for other, fact in answered:
        data = ask_json(other)
        assert data["covered"] is True and fact in data["answer"], (other, data["answer"])


@pytest.mark.parametrize(
    ("question", "named"),
    [
        # a name no passage holds, said with the words around it that name the same thing
        ("tok/s for a 70b on an m4 max macbook?", "m4 max macbook"),
        ("did the intel arc a770 work for the seismometer", "intel arc a770"),
    ],
)
def test_a_thing_the_notes_never_mention_is_named_as_the_question_writes_it(
    built: Path, monkeypatch: pytest.MonkeyPatch, question: str, named: str
) -> None:
    point_cli_at_folder(monkeypatch, built)
    data = ask_json(question)
    assert data["covered"] is False, data["answer"]
    assert f"“{named}”" in data["answer"] and "don't mention" in data["answer"], data["answer"]


def test_a_count_of_a_model_the_notes_name_is_not_a_missing_name(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # "1x4090": one of the RTX 4090 the note names, never "my notes don't mention 1x4090"
    point_cli_at_folder(monkeypatch, built)
    data = ask_json("how fast does the 1x4090 tower serve a completion")
    assert data["covered"] is True and "180 ms" in data["answer"], data["answer"]


def test_the_name_said_stops_at_a_verb_or_an_adverb() -> None:
    from hwqa.answer.retrieve import as_asked

    # the run of words naming the thing, never the clause around it
    assert as_asked("mareks 1060 keeps going OOM on demucs, whats the fix", ["OOM"]) == ["OOM"]
    assert as_asked("append only metrics log, created_at basically follows insert order", ["created_at"]) == ["created_at"]
    assert as_asked("tok/s for a 70b on an m4 max macbook?", ["m4"]) == ["m4 max macbook"]
    # "how many months before the 3060 pays for itself": the card, never "3060 pays"
    assert as_asked("how many months before the 3060 pays for itself vs renting", ["3060"]) == ["3060"]
    assert as_asked("how many gpu hours until the p920 beats renting the a100", ["p920"]) == ["p920"]


def test_a_plan_tier_no_passage_names_is_turned_away_and_the_tiers_priced_answered(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "the elevenlabs scale plan" over notes pricing its Starter and Pro plans (named with the site their link
    names): not covered, naming what was asked and what the notes price, never the Starter's $5."""
    point_cli_at_folder(monkeypatch, index_notes_once(tmp_path_factory, "tiers", {"voices.md": VOICES}))
    data = ask_json("what does the elevenlabs scale plan cost a month")
    assert data["covered"] is False, data["answer"]
    assert "don't mention “elevenlabs scale plan”" in data["answer"] and "“ElevenLabs Starter”" in data["answer"], data["answer"]
    assert "$5" not in data["answer"], data["answer"]
    for other, fact in [("what does the elevenlabs pro plan cost a month", "$99"), ("a year of elevenlabs starter?", "$60")]:
        data = ask_json(other)
        assert data["covered"] is True and fact in data["answer"], (other, data["answer"])


STEMS = """---
title: Stem separation for the band
date: 2025-07-02
---

# Stem separation for the band

## Paid apps

* [Moises - AI music app](https://moises.ai) - Premium is $3.99/mo if paid yearly, stems + chord detection.
* LALAL.AI - pay per minute packs, never bought one.
"""


def test_a_plan_tier_is_weighed_even_when_the_question_names_nothing_else(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "moises pro plan": the question names no other name the decision weighs ("moises" is a word of the notes, in
    lower case); the tier it asks about is then all it names, and the notes never price it: turned away, saying
    what they do price, never the Premium plan's $3.99 as its price."""
    folder = index_notes_once(tmp_path_factory, "stems", {"stems.md": STEMS})
    point_cli_at_folder(monkeypatch, folder)
    data = ask_json("moises pro plan cost per month?")
    assert data["covered"] is False, data["answer"]
    assert "“moises pro plan”" in data["answer"] and "Premium" in data["answer"], data["answer"]
    assert "$3.99" not in data["answer"], data["answer"]
    data = ask_json("moises premium cost per month?")
    assert data["covered"] is True and "$3.99" in data["answer"], data["answer"]
    # what the decision weighs: the tier is the one name asked, all of it missing
    from hwqa.answer.question import parse_question
    from hwqa.engine import Engine
    from hwqa.settings import load_settings

    where = {"notes": folder, "index": folder.parent / "index", "embed_backend": "hash", "fetch_links": False}
    engine = Engine.load(load_settings(where, env={}, cwd=folder.parent))
    gen = engine.generation()
    q = parse_question("moises pro plan cost per month?")
    weighed = engine.name_evidence(gen, q, engine.tools(gen, None, q.text), (), engine.hits(gen, q))
    assert weighed.missing == ("moises pro plan",) and weighed.missing_share == 1.0, weighed


PRINTERS = """---
title: Resin printers
date: 2025-08-01
---

# Resin printers

* 3x Elegoo Saturn 3 Ultra on the back shelf, bought them at $379 each in the spring sale.
* [GoPro HERO12 Black - GoPro](https://gopro.com/) - bought one for $349 to film the prints, rolling shutter is bad.
* a Hailo module would speed up the print check cam.
"""


def test_a_sibling_named_by_another_number_is_turned_away_and_the_covered_one_answered(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "the saturn 4 ultra" over notes that price the Saturn 3 Ultra, "the gopro hero 13" beside the HERO12: another
    model of the same line, turned away naming both (and any word no passage holds beside it); a count or a number of
    hours beside a name is no model ("3 days on the saturn"), and the covered model is still answered."""
    point_cli_at_folder(monkeypatch, index_notes_once(tmp_path_factory, "numbered", {"printers.md": PRINTERS}))
    for question, asked, covered in [
        ("how much is the saturn 4 ultra", "saturn 4 ultra", "Saturn 3 Ultra"),
        ("what did the gopro hero 13 cost", "gopro hero 13", "HERO12"),
    ]:
        data = ask_json(question)
        assert data["covered"] is False, data["answer"]
        assert f"“{asked}”" in data["answer"] and f"They cover “{covered}”" in data["answer"], data["answer"]
        assert "$379" not in data["answer"] and "$349" not in data["answer"], data["answer"]
    data = ask_json("price of the saturn 3 ultra?")
    assert data["covered"] is True and "$379" in data["answer"], data["answer"]
    # two things no passage holds, a sibling and a word no dictionary knows: both are named
    data = ask_json("did anyone price up the kneron chip for a saturn 5?")
    assert data["covered"] is False, data["answer"]
    assert "“saturn 5”" in data["answer"] and "kneron" in data["answer"], data["answer"]


KIOSK = """---
title: Kiosk parts
date: 2025-09-01
---

# Kiosk parts

* Jetson Orin Nano Super dev kit - $249
* the Orin Nano pulls ~11W on average running the detector.
"""


def test_a_list_item_that_prices_what_it_names_is_prose_its_names_have_siblings(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Jetson Orin Nano Super dev kit - $249" is mostly capitalised words but no title: it names and prices a thing,
    so "the jetson agx orin" and "the jetson orin nx" are siblings of it, turned away; "the orin nano actually pull" asks
    about the Nano itself (an adverb is no name)."""
    point_cli_at_folder(monkeypatch, index_notes_once(tmp_path_factory, "kiosk", {"kiosk.md": KIOSK}))
    data = ask_json("how much is the jetson agx orin dev kit")
    assert data["covered"] is False and "They cover “Jetson Orin Nano Super”" in data["answer"], data["answer"]
    assert "$249" not in data["answer"], data["answer"]
    data = ask_json("what does the orin nano actually pull on average")
    assert data["covered"] is True and "11W" in data["answer"], data["answer"]
    # a variant named by two letters ("orin nx") is a sibling too
    data = ask_json("price of the jetson orin nx")
    assert data["covered"] is False and "“jetson orin nx”" in data["answer"] and "$249" not in data["answer"], data["answer"]


STEMS_BOX = """---
title: Stem separation box
date: 2025-07-02
---

# Stem separation box

* Marek's old 1060 6GB runs out of memory with htdemucs_ft unless you pass `--segment 7`.
* the box sits under the desk and power comes from the desk strip.
"""


def test_an_acronym_a_passage_writes_out_is_no_missing_name(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "OOM" where the note says "runs out of memory": the same thing, answered; an acronym whose letters only open
    function words and others ("AP" of "and power") is still not in the notes."""
    point_cli_at_folder(monkeypatch, index_notes_once(tmp_path_factory, "acronyms", {"stems.md": STEMS_BOX}))
    data = ask_json("mareks 1060 keeps going OOM on demucs, whats the fix")
    assert data["covered"] is True and "--segment 7" in data["answer"], data["answer"]
    from hwqa.answer.retrieve import _spelled_out

    class Chunk:  # a retrieved passage's text is all the check reads
        def __init__(self, text: str) -> None:
            self.text = text

    class Found:
        def __init__(self, text: str) -> None:
            self.chunk = Chunk(text)

    assert not _spelled_out("AP", [Found("the box sits under the desk and power comes from the strip")])  # type: ignore[list-item]
    assert _spelled_out("AP", [Found("a UniFi access point on the roof")])  # type: ignore[list-item]
