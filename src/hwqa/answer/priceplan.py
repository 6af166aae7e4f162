"""Plan a price question into a price-calculator request.

The question was read once (:func:`hwqa.answer.question.parse_question`, its price part
:class:`~hwqa.prices.words.PriceWords`); planning adds what only the price table knows: the hardware
names it spells (``"tesla p100"`` → ``"P100"``, ``"TPUv3"`` → ``"TPU v3"``, with the count written
before a name: ``"8x A100"``), its providers (``"on Google Cloud"`` → ``"GCP"``), and whether the
question asks about prices at all. ``plan_price_request(parse_question("TPU or GPU for my budget of
$500?"), table)`` gives a :class:`~hwqa.prices.request.CalcRequest` with ``budget_usd=500`` and
``types=("gpu", "tpu")``; a question that is not about prices or budgets (``"What is PyTorch/XLA?"``)
gives None.

A lookup (``How much does a TPU v3 cost per hour?``) is a request with hardware and no budget,
hours or job size: its ``mode`` is ``"lookup"`` and the calculator lists that hardware's rows
with their price per hour and per V100-hour.

A follow-up (``and with $1000?``, ``what about 8 GPUs?``) given the ``previous`` request keeps
the previous request and replaces what the follow-up states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from typing import Any

from ..prices.request import CalcRequest
from ..prices.table import HARDWARE_TYPES, PriceTable, hardware_matches
from ..prices.words import LEAD, WORDS, PriceWords, Reading, count_of
from .question import Question, is_kind

__all__ = ["PricePlan", "find_hardware_mentions", "plan_price_question", "plan_price_request", "resolve_reference"]

_DEVICES_BEFORE_X = re.compile(rf"{LEAD}(?P<n>\d+|{WORDS})\s*(?:x|×|\*)\s*$")
_DEVICES_BEFORE = re.compile(rf"{LEAD}(?P<n>\d+|{WORDS})\s+$")
_PAIR_BEFORE = re.compile(r"\bpair\s+of\s+(?:the\s+|my\s+|our\s+)?$")
_PAIR_AFTER = re.compile(r"s?\s+pair\b")
_RENT_TOO = re.compile(r"\b(?:rent\w*|hir(?:e|ing)|break[\s-]?even|cloud)\b")
_PLURAL_MODEL = re.compile(r"[A-Za-z]{1,3}\d{2,4}s")
_YEAR = re.compile(r"(?:199\d|20[0-3]\d)")  # "geminids 2025": ends in a year, never a card (an RTX 2080 is past it)
_CLOCK = re.compile(r"\d{1,2}(?::\d\d)?\s?(?:am|pm)", re.I)
_MULTIPLE = re.compile(r"\d+(?:\.\d+)?\s?[x×]", re.IGNORECASE)
_NOISE = frozenset({"nvidia", "tesla", "google", "cloud", "geforce"})


# ---------------------------------------------------------------------------------------------


def _hardware_patterns(table: PriceTable) -> list[tuple[re.Pattern[str], str]]:
    patterns: dict[str, tuple[re.Pattern[str], str]] = {}
    for name in table.hardware_names():
        tokens = [m for m in re.finditer(r"[A-Za-z0-9]+", name) if m.group(0).lower() not in _NOISE]
        sequences: list[list[re.Match[str]]] = []
        for k in range(1, len(tokens) + 1):
            prefix = tokens[:k]
            if any(ch.isdigit() for t in prefix for ch in t.group(0)):
                sequences.append(prefix)
        for tok in tokens[1:]:
            text = tok.group(0)
            memory_like = re.fullmatch(r"\d+(?:gb|gib|tb)", text.lower()) is not None
            if any(ch.isdigit() for ch in text) and len(text) >= 3 and not memory_like:
                sequences.append([tok])
        for seq in sequences:
            display = name[seq[0].start() : seq[-1].end()]  # as the table spells it: "TPU v3", "A100 80GB"
            parts: list[str] = []
            for tok in seq:
                mem = re.fullmatch(r"(\d+)(gb|gib|tb)", tok.group(0).lower())
                parts.extend([mem.group(1), mem.group(2)] if mem else [tok.group(0).lower()])
            body = r"[\s_-]*".join(re.escape(p) for p in parts)
            regex = re.compile(rf"(?<![a-z0-9])(?:{body})s?(?![a-z0-9])")
            patterns.setdefault(display.lower(), (regex, display))
    for name in table.instance_names():  # a cloud instance type, whole: "g5.xlarge", "a2-highgpu-1g"
        body = r"[\s_.-]*".join(re.escape(t.lower()) for t in re.findall(r"[A-Za-z0-9]+", name))
        patterns.setdefault(name.lower(), (re.compile(rf"(?<![a-z0-9])(?:{body})(?![a-z0-9])"), name))
    return list(patterns.values())


def _mentions(words: PriceWords, table: PriceTable | None) -> list[Reading]:
    """Hardware named in the question, in order, longest match first: as the table spells it, or
    (without a table) the common accelerator names the parse found."""
    if table is None:
        return list(words.hardware)
    found: list[tuple[int, int, str]] = []
    for regex, display in _hardware_patterns(table):
        found.extend((m.start(), m.end(), display) for m in regex.finditer(words.rest))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    chosen: list[Reading] = []
    for start, end, display in found:
        if chosen and start < chosen[-1].end:
            continue
        chosen.append(Reading(start, end, word=display))
    return chosen


def find_hardware_mentions(question: Question, table: PriceTable | None = None) -> list[tuple[int, int, str]]:
    """Hardware named in ``question`` as (start, end, name) in order, longest match first.

    With a table, only hardware in the table is found, named as the table spells it
    (``"tesla p100"`` → ``"P100"``, ``"TPUv3"`` → ``"TPU v3"``); without one, common accelerator
    names are recognised and returned as written.
    """
    return [(m.start, m.end, m.word) for m in _mentions(question.price, table)]


def _unpriced(question: Question, named_at: tuple[tuple[int, int], ...], table: PriceTable | None) -> tuple[str, ...]:
    """Hardware the question names that ``table`` has no price for: the common accelerator names the
    parse found and the model names it holds as terms ("RTX 5090", "MI300X", "Pebble Edge N3"), except
    those read as money, time or a job size ("V100-hours"), those the table prices, number formats
    ("fp16") and hardware to buy rather than rent ("buying an RTX 3090 beat renting a V100")."""
    words = question.price
    found = [(r.start, r.end, r.word) for r in words.hardware]
    for term in question.terms:
        if not any(c.isdigit() for c in term.written) or term.written.startswith(("-", ".")):
            continue
        if is_kind(term.written) or "." in term.written or "_" in term.written:
            continue  # a number format or memory type, a version, a code name: not hardware with a price
        if _MULTIPLE.fullmatch(term.written) or _YEAR.fullmatch(term.written.split()[-1]) or _CLOCK.fullmatch(term.written):
            continue  # "5x the price": how many times; "geminids 2025": a year; "9pm": a time; not hardware
        at = words.text.find(term.written.lower())
        if at < 0 or not words.rest[at : at + len(term.written)].strip():
            continue
        found.append((at, at + len(term.written), " ".join([*term.qualifiers, term.written])))
    out: list[str] = []
    taken = list(named_at)
    for start, end, name in sorted(found, key=lambda f: (f[0], -(f[1] - f[0]))):
        if any(start < e and s < end for s, e in taken) or words.bought(start):
            continue
        if _PLURAL_MODEL.fullmatch(name):
            name = name[:-1]  # "V100s": several of the V100
        if table is not None and table.find(name):
            continue
        taken.append((start, end))
        out.append(name)
    return tuple(dict.fromkeys(out))


def _hardware_type(name: str, table: PriceTable | None) -> str:
    if table is not None:
        rows = table.find(name)
        if rows:
            return rows[0].type
    return "tpu" if "tpu" in name.lower() else "gpu"


def _extract(question: Question, table: PriceTable | None) -> tuple[dict[str, Any], dict[str, bool]]:
    """Fields the question states (only those), and signals used to decide if it asks about prices.

    ``fields["unpriced"]`` holds the hardware it names that the table has no price for (with a table).
    """
    words = question.price
    fields: dict[str, Any] = {}
    for key in ("v100_hours", "budget_usd", "purchase_usd", "hours_per_day", "hours"):
        if getattr(words, key) is not None:
            fields[key] = getattr(words, key)
    signals = {"money": words.money, "devices": False}

    # Hardware names (and counts written right before them: "8x A100", "4 V100s").
    text = words.rest
    taken: list[tuple[int, int]] = []
    hardware: list[str] = []
    for mention in _mentions(words, table):
        before = text[: mention.start]
        dev = _DEVICES_BEFORE_X.search(before) or _DEVICES_BEFORE.search(before)
        if dev is not None:
            n = count_of(dev.group("n"))
            if (dev.re is _DEVICES_BEFORE_X or n <= 64) and n > 1 and fields.get("devices", 1) == 1:
                fields["devices"] = n
                signals["devices"] = True
            taken.append((dev.start(), dev.end()))
            text = text[: dev.start()] + " " * (dev.end() - dev.start()) + text[dev.end() :]
        elif fields.get("devices", 1) == 1 and (_PAIR_BEFORE.search(before) or _PAIR_AFTER.match(text, mention.end)):
            fields["devices"] = 2  # "a pair of 3090s", "the a100 pair"
            signals["devices"] = True
        taken.append((mention.start, mention.end))
        text = text[: mention.start] + " " * (mention.end - mention.start) + text[mention.end :]
        held = {r.instance_devices for r in (table.find(mention.word) if table is not None else []) if r.instance == mention.word}
        if len(held) == 1 and (n := held.pop()) > 1 and fields.get("devices", 1) == 1:
            fields["devices"] = n  # "30 hours on a p4d.24xlarge": all the cards the instance holds
            signals["devices"] = True
        if mention.word.lower() not in {h.lower() for h in hardware}:
            hardware.append(mention.word)
    if hardware:
        fields["names"] = tuple(hardware)
    names_at = tuple(taken)
    if "purchase_usd" not in fields and table is not None and words.buying and _RENT_TOO.search(words.text):
        # "buy an RTX 4090 or rent one?": buying at the price the notes record for it, against renting it
        bought = [
            f
            for f in table.facts
            if f.kind == "purchase" and f.currency == "USD" and any(hardware_matches(h, f.subject) for h in hardware)
        ]
        if len({f.amount for f in bought}) == 1:
            fields["purchase_usd"] = bought[0].amount

    type_words = list(words.hour_types)
    for said in words.devices:
        if said.inside(names_at):
            continue
        if said.word in HARDWARE_TYPES:
            type_words.append(said.word)
        if said.value > 1 and fields.get("devices", 1) == 1:
            fields["devices"] = int(said.value)
            signals["devices"] = True
    memory = [m for m in words.memory if not m.inside(names_at)]
    if memory:
        fields["min_memory_gb"] = memory[0].value
    if words.preemptible is not None:
        fields["allow_preemptible"] = words.preemptible

    type_words.extend(w.word for w in words.type_words if not w.inside(names_at))
    if type_words:
        types = tuple(k for k in HARDWARE_TYPES if k in type_words)
        is_workload = "hours" in fields and "v100_hours" not in fields and bool(hardware)
        hw_types = {_hardware_type(h, table) for h in hardware}
        if hardware and not is_workload and not set(types) <= hw_types:
            # "TPU v3 vs a GPU": compare every option of those kinds, not only the named hardware.
            types = tuple(k for k in HARDWARE_TYPES if k in set(types) | hw_types)
            del fields["names"]
        fields["types"] = types

    providers = _providers(words.original, table)
    if providers:
        fields["providers"] = providers
    signals["cost"] = words.cost
    signals["compare"] = words.compare
    unpriced = _unpriced(question, names_at, table) if table is not None else ()
    if unpriced:
        fields["unpriced"] = unpriced
    signals["subject"] = bool(hardware) or bool(type_words) or bool(unpriced)
    return fields, signals


# Other names people use for the providers a price table usually spells as its short name.
_PROVIDER_ALIASES = {
    "gcp": ("google cloud", "google cloud platform", "gcp"),
    "aws": ("amazon web services", "amazon", "aws", "ec2"),
    "azure": ("microsoft azure", "azure"),
}


def _providers(question: str, table: PriceTable | None) -> tuple[str, ...]:
    """Providers of the price table the question names ("on AWS", "Google Cloud"), in table spelling."""
    if table is None:
        return ()
    text = question.casefold()
    found: list[str] = []
    for provider in dict.fromkeys(row.provider for row in table.rows):
        names = {provider.casefold(), *_PROVIDER_ALIASES.get(provider.casefold(), ())}
        if any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) for name in names):
            found.append(provider)
    return tuple(found)


def _is_price_question(fields: dict[str, Any], signals: dict[str, bool]) -> bool:
    if signals["money"] or "v100_hours" in fields or "purchase_usd" in fields:
        return True
    if signals["cost"] and signals["subject"]:
        return True
    stated = "hours" in fields or signals["devices"] or "min_memory_gb" in fields
    return stated and signals["subject"] and (signals["cost"] or signals["compare"])


def _request(fields: dict[str, Any]) -> CalcRequest:
    """The request the stated ``fields`` ask for.

    With hours and hardware, the first hardware named is the one the hours refer to and, when
    several are named, ``compare`` limits the options to them; otherwise one name becomes
    ``hardware`` and several become ``compare``. Hours per day matter only for a purchase's
    break-even; types not stated mean every type.
    """
    stated = {k: v for k, v in fields.items() if k not in ("names", "unpriced")}
    if stated.get("v100_hours") is not None:
        stated["hours"] = None
    if stated.get("purchase_usd") is None:
        stated.pop("hours_per_day", None)
    if not stated.get("types"):
        stated.pop("types", None)
    names: tuple[str, ...] = fields.get("names", ())
    if names and stated.get("v100_hours") is None and stated.get("hours") is not None:
        stated["hardware"] = names[0]
        stated["compare"] = names if len(names) > 1 else ()
    elif len(names) == 1:
        stated["hardware"] = names[0]
    elif names:
        stated["compare"] = names
    return CalcRequest(**stated)


def _fields(request: CalcRequest) -> dict[str, Any]:
    """:func:`_request`'s inverse: a request as stated fields, its hardware and compare as names."""
    data = {f.name: getattr(request, f.name) for f in dataclass_fields(request) if f.name not in ("hardware", "compare")}
    data["names"] = tuple(dict.fromkeys(([request.hardware] if request.hardware else []) + list(request.compare)))
    return data


def _merge(previous: CalcRequest, fields: dict[str, Any]) -> CalcRequest:
    changes = _fields(previous) | fields
    if "hours" in fields and "v100_hours" not in fields:
        changes["v100_hours"] = None
    if "v100_hours" in fields and "hours" not in fields:
        changes["hours"] = None
    return _request(changes)


@dataclass(frozen=True)
class PricePlan:
    """What a price question asks: the calculator request, and the hardware it names that the price
    table has no price for (to be said, never silently dropped)."""

    request: CalcRequest
    unpriced: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()  # amounts or times the question states that the calculator cannot use, in its words


def plan_price_question(
    question: Question, table: PriceTable | None = None, previous: CalcRequest | None = None
) -> PricePlan | None:
    """The :class:`PricePlan` a question asks for, or None when it is not a price or budget question.

    ``table`` lets hardware names be recognised as the price table spells them (and the names it has
    no price for be told apart); ``previous`` is the last price request of the conversation, which a
    follow-up (``"and with $1000?"``) reuses with what it states replaced. A follow-up without
    ``previous`` and without numbers is None.
    """
    if not question.text.strip():
        return None
    words = question.price
    fields, signals = _extract(question, table)
    unpriced: tuple[str, ...] = fields.pop("unpriced", ())
    short = len(question.text.split()) <= 4
    problems = words.problems if words.refused else ()
    if previous is not None and fields and (words.follow_up or short):
        return PricePlan(_merge(previous, fields), unpriced, problems)
    if previous is None and words.follow_up and not re.search(r"\d", question.text):
        return None
    if not (_is_price_question(fields, signals) or problems):
        return None
    return PricePlan(_request(fields), unpriced, problems)


def plan_price_request(
    question: Question, table: PriceTable | None = None, previous: CalcRequest | None = None
) -> CalcRequest | None:
    """The :class:`CalcRequest` a question asks for, or None when it is not a price or budget question
    (see :func:`plan_price_question`)."""
    plan = plan_price_question(question, table, previous)
    return None if plan is None else plan.request


_PRONOUN = re.compile(r"\b(?:it|its|that\s+one|this\s+one|that\s+card|this\s+card|that\s+instance)\b", re.IGNORECASE)
_MAX_FOLLOW_UP_WORDS = 10


def resolve_reference(question: Question, previous: Question | None, table: PriceTable | None) -> tuple[str, str]:
    """A short follow-up that points back with "it" ("how much memory does it have?") and names no
    hardware, rewritten with the hardware the question before named (a cloud instance type as the card
    its price was stated for), and what was taken, in words; ``(question.text, "")`` when nothing is."""
    text = question.text
    pronoun = _PRONOUN.search(text)
    if previous is None or pronoun is None or len(text.split()) > _MAX_FOLLOW_UP_WORDS:
        return text, ""
    if _mentions(question.price, table) or question.price.hardware:
        return text, ""
    named = [m.word for m in _mentions(previous.price, table)] or [m.word for m in previous.price.hardware]
    if not named:
        return text, ""
    name = named[0]
    rows = [r for r in table.find(name) if r.instance and r.instance.lower() == name.lower()] if table is not None else []
    card = rows[0].hardware if rows else name
    said = f"the {card} of the {name}" if card != name else f"the {name}"
    possessive = pronoun.group(0).lower() == "its"
    rewritten = text[: pronoun.start()] + (f"the {card}'s" if possessive else f"the {card}") + text[pronoun.end() :]
    return rewritten, f"Taking “{pronoun.group(0)}” to mean {said}, from your earlier question."
