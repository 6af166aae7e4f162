"""How many of a priced thing a money question asks for, when the price is of one of them.

A note prices one thing ("renting an RTX A6000 at $0.79/hr", "each 3060 desktop pulls ~220W"); the question
asks for several, and says so in many ways:

- the count before the thing's name: "4 g5.xlarge", "2x A6000";
- a count of devices: "4 A6000 cards", "the 9 gpu desktops", "two boxes", "3 nodes";
- a count of the model the note prices, however it is written: "4 of the lambda a100s";
- a count of what the line says one of takes how long ("the 300 trial sweep" over "a trial takes ~6 min"; "our
  usual number of fits" over "~50 fits a month" in the note; the note's "36 films need drafts" over "roughly 20 min
  per film", unless the question asks of one film);
- a count the note gives, for "every …" or "all the …" ("every league game" and "22 league games this season");
- a count of people, when the note prices one each ("one cloud T4 box each", "$35/seat/mo"): "for 30 ppl",
  "me and carla", "both of us".

A note that prices the whole group the question counts ("the 8x 4090 box at $2.96/hr" and "the 8x 4090 box for
3 days") is not multiplied again: its price is already of all of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .table import hardware_matches
from .words import COUNT_WORDS, WORD_NUMBERS

__all__ = [
    "MODEL_NUMBER",
    "PAIR",
    "PEOPLE",
    "SINGULAR_MODEL",
    "asked_count",
    "each_unit",
    "people_asked",
    "priced_each",
    "runs_asked",
    "runs_done",
]

# The things a price is for one of (after hwqa.prices.rates' _noun: "boxes" and "machines" are "instance").
_DEVICES = frozenset(
    {
        "gpu", "card", "device", "chip", "accelerator", "board", "instance", "node", "desktop", "server", "rig", "pc",
        "workstation", "laptop", "kiosk", "camera", "pod", "worker", "replica", "runner", "tpu",
    }
)  # fmt: skip
PEOPLE = frozenset(
    {
        "seat", "ppl", "student", "attendee", "participant", "hire", "employee", "dev", "developer", "engineer",
        "candidate", "intern", "kid", "editor", "lawyer", "teacher", "volunteer", "translator",
    }
)  # fmt: skip
# A price of one per person: "one ... each", "$35/seat/mo", "per head".
_EACH = re.compile(r"\beach\b|\bapiece\b|(?:\bper\b|\ba\b|/)\s*(?:person|head|seat|user|student|attendee|participant|member)\b")
PAIR = re.compile(r"\b(?:both\s+of\s+us|the\s+two\s+of\s+us|me\s+(?:and|\+|&)\s+[a-z]+|[a-z]+\s+(?:and|\+|&)\s+me)\b")
MODEL_NUMBER = re.compile(r"[1-9]0[5-9]0")  # "the 4090 box", "3060 desktops": a card's number, not a count
_MOST = 10_000  # more of one thing than anyone rents or buys at once: a year, an id or a typo, not a count
_LENGTH = r"\d+(?:\.\d+)?\s*(?:h|hrs?|hours?|min|mins|minutes?|s|secs?|seconds?)"  # "1.5 hrs", "20 min", "~6 min"
_ONE_TAKES = re.compile(
    r"\b(?:a|one|each|per)\s+(?:[a-z0-9][a-z0-9-]*\s+)?(?P<u>(?!(?:takes?|took|runs|ran|was)\b)[a-z]{3,})\s+"
    rf"(?:on\s+(?:it|them|that|this|one)\s+)?(?:(?:takes?|took|is|was|runs?|ran|in)\s+)?(?:about\s+|~)?{_LENGTH}\b"
)
_TAKES_PER = re.compile(rf"{_LENGTH}\s*(?:per|/|a|each)\s*(?P<u>(?!(?:hour|day|week|month|year|night)s?\b)[a-z]{{3,}})\b")
# "2x RTX 4090 … each", "4 x A100 at … each": the line rents that many, its price is of one of them
_GROUP_EACH = re.compile(r"(?<![\w.$])(?P<n>\d{1,2})\s*x\s+(?P<what>(?:[a-z]+\s+)?[a-z]*\d+[a-z]*)\b")
_ONE_ASKED = re.compile(r"\b(?:one|a\s+single|per|each|a)\s+(?:gpu|card|device|node|instance|of\s+them)\b")
_USUAL = re.compile(r"\b(?:usual|normal|typical|regular)\s+(?:number|amount|count|load)\b")
# "every league game", "all the samples": a count the question leaves to the note ("whole" and "entire" are of one
# thing: "the whole backlog took 14 hrs").
_EVERY = re.compile(
    r"\b(?:every|each\s+of\s+(?:the|my|our)|all(?:\s+(?:of\s+)?(?:the|my|our|their|his|her))?)\s+((?:[a-z0-9'-]+\s*){1,3})"
)


def _whole_group(said: str, n: float) -> bool:
    """Whether the note's line prices a group of ``n`` as one ("8x 4090 box", "4 x A100 node")."""
    return re.search(rf"(?<![\w.$]){n:g}\s*(?:x|×)\s*(?:[a-z]+\s+)?[a-z]*\d", said) is not None


def each_unit(said: str) -> str | None:
    """What the line says one of takes how long ("a trial takes ~6 min", "one fit 14 min", "each render is ~2h",
    "roughly 20 min per film"): the thing a rate's time is counted in."""
    m = _ONE_TAKES.search(said.lower()) or _TAKES_PER.search(said.lower())
    return None if m is None else m.group("u")


# "did 5 runs, each about 1.5 hrs": how many of what a length is each of the line says were done
_RUNS_EACH = re.compile(
    rf"(?<![\w.$])(?P<n>\d{{1,3}}|{COUNT_WORDS})\s+(?P<w>[a-z]{{3,}}s)\b[^.;!?]{{0,20}}?\beach\s+(?:about\s+|around\s+|~)?{_LENGTH}\b"
)


def runs_done(said: str, asked: str) -> tuple[float, str] | None:
    """How many runs a line says were done at the length it gives each ("did 5 runs, each about 1.5 hrs": 5 runs), for
    a question ``asked`` about all of them (none for "what did one run cost", "each fine-tune")."""
    m = _RUNS_EACH.search(said.lower())
    if m is None or re.search(r"\b(?:one|each|per|single)\b", asked.lower()):
        return None
    n = float(m.group("n")) if m.group("n").isdigit() else float(WORD_NUMBERS[m.group("n")])
    return (n, f"{m.group('n')} {m.group('w')}") if 1 < n < _MOST else None


def runs_asked(text: str, pieces: Sequence[tuple[str, str]]) -> bool:
    """Whether a question counts what a quoted line says one of takes how long ("4 fine-tune runs" over "one fine-tune
    run takes 3.5 hrs", "10 retrains" over "one full retrain on it took 1.5 hrs")."""
    units = {u[:4] for piece, _ in pieces if (u := each_unit(piece)) is not None}
    counted = re.finditer(rf"(?<![\w.$/-])(?:\d{{1,4}}|{COUNT_WORDS})\s+(?:[a-z0-9][a-z0-9-]*\s+)?(?P<noun>[a-z]{{3,}})", text)
    return any(m.group("noun")[:4] in units for m in counted)


def people_asked(text: str) -> bool:
    """Whether a question counts people ("for 30 ppl", "me and carla"): a price of one each is then that many."""
    counted = re.finditer(rf"(?<![\w.$])(?:\d{{1,4}}|{COUNT_WORDS})\s+(?P<noun>[a-z]+)", text)
    return any(m.group("noun").rstrip("s") in PEOPLE for m in counted) or PAIR.search(text) is not None


def priced_each(said: str) -> bool:
    """Whether the note's line prices one per person or one each ("one T4 box each", "$35/seat/mo")."""
    return _EACH.search(said.lower()) is not None


SINGULAR_MODEL = re.compile(r"(?<=\d)s\b")  # "RTX A5000s": the A5000, counted


def asked_count(
    text: str, subject: str, said: str, counts: dict[str, float], noted: dict[str, float] | None = None
) -> tuple[float, str] | None:
    """How many of the thing ``said`` prices the question (``text``, its ``counts`` by noun) asks for: (count, what
    it counts), or None when it asks for one, or for a group the line already prices whole. "every league game",
    "all the samples": how many the note says there are (``noted``, its counts by noun)."""
    said = said.lower()
    found: tuple[float, str] | None = None
    every = _EVERY.search(text) if noted else None
    if every is not None and noted:
        for word in every.group(1).split():
            word = word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
            key = next((k for k in noted if len(word) >= 4 and k[:4] == word[:4]), None)
            if key is not None:
                found = (noted[key], key)
                break
    if found is None and subject:
        m = re.search(rf"(?<![\w.$])(?P<n>\d{{1,4}}|{COUNT_WORDS})\s*(?:x\s*)?{re.escape(subject.lower())}", text)
        if m is not None:
            n = m.group("n")
            found = (float(n) if n.isdigit() else float(WORD_NUMBERS[n]), subject)
    if found is None:
        # the device the line names first ("9 gpu desktops" over "each desktop pulls ~220W")
        devices = sorted(
            ((n, noun) for noun, n in counts.items() if noun in _DEVICES and not MODEL_NUMBER.fullmatch(f"{n:g}")),
            key=lambda d: d[1] not in said,
        )
        models = [  # a model's name has a digit: "4 of the lambda a100s", never "6 hrs on" the subject
            (n, noun.upper())
            for noun, n in counts.items()
            if re.search(r"\d", noun) and hardware_matches(noun, SINGULAR_MODEL.sub("", subject or said))
        ]
        found = next(iter(devices or models), None)
    if found is None and (unit := each_unit(said)) is not None:  # "the 300 trial sweep" over "a trial takes ~6 min"
        asked = [(n, noun) for noun, n in counts.items() if noun[:4] == unit[:4]]
        usual = [(n, noun) for noun, n in (noted or {}).items() if noun[:4] == unit[:4]]
        # the note's count of them, unless the question asks of one ("per film", "a film", "one film")
        one = re.search(rf"\b(?:per|a|an|one|each|single)\s+(?:[a-z0-9]+\s+)?{re.escape(unit[:4])}", text)
        found = next(iter(asked or ([] if one and not _USUAL.search(text) else usual)), None)
    if found is None and priced_each(said):
        people = [(n, noun) for noun, n in counts.items() if noun in PEOPLE]
        group = _GROUP_EACH.search(said)
        if people:
            found = people[0]
        elif PAIR.search(text):
            found = (2.0, "people")
        elif group is not None and not _ONE_ASKED.search(text):  # "renting 2x RTX 4090 … $0.38/hr each": the pair's
            n = float(group.group("n"))
            return (n, group.group("what").upper()) if 1 < n <= _MOST else None  # each of the group: never "whole"
    if found is None or not 1 < found[0] <= _MOST or _whole_group(said, found[0]) or MODEL_NUMBER.fullmatch(f"{found[0]:g}"):
        return None
    return found
