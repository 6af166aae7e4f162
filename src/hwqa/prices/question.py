"""Recognise price and budget questions, and turn them into price-calculator requests.

``parse_price_question("TPU or GPU for my budget of $500?")`` gives a
:class:`~hwqa.prices.request.CalcRequest` with ``budget_usd=500`` and ``types=("gpu", "tpu")``.
A question that is not about prices or budgets (``"What is PyTorch/XLA?"``) gives None.

What is recognised (US dollars only; other currencies give a warning instead of a budget):

- budgets: ``I have $500``, ``500 dollars``, ``$1.2k``, ``$1,200``, ``USD 300``, ``budget of 2k USD``,
  ``my budget is 800``; a price per hour (``$8/h``) is not a budget;
- purchase prices: ``buy one for $1500``, ``costs $1,500 to buy``;
- time: ``for 100 hours``, ``100 h``, ``2 days`` (24 h a day, or the hours a day given), ``a week``,
  ``8 hours a day``; job sizes ``300 V100-hours``;
- devices: ``on 8 GPUs``, ``4 TPUs``, ``8x A100``, ``two GPUs``;
- memory floors: ``at least 32 GB``, ``≥ 40GB memory``;
- ``spot`` / ``preemptible`` (unless negated), hardware names found in the price table (``V100``,
  ``TPU v3``), and type words (``TPU or GPU`` → both).

A lookup (``How much does a TPU v3 cost per hour?``) is a request with hardware and no budget,
hours or job size: its ``mode`` is ``"lookup"`` and the calculator lists that hardware's rows
with their price per hour and per V100-hour.

A follow-up (``and with $1000?``, ``what about 8 GPUs?``) given the ``previous`` request keeps
the previous request and replaces what the follow-up states.
"""

from __future__ import annotations

import re
from dataclasses import fields as dataclass_fields
from typing import Any

from .request import CalcRequest
from .table import HARDWARE_TYPES, PriceTable

__all__ = ["find_hardware_mentions", "parse_price_question", "price_question_warnings"]

_WORD_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "single": 1,
    "two": 2,
    "dual": 2,
    "three": 3,
    "four": 4,
    "quad": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "sixteen": 16,
    "thirty-two": 32,
    "sixty-four": 64,
}
_WORDS = "|".join(sorted((re.escape(w) for w in _WORD_NUMBERS), key=len, reverse=True))
_LEAD = r"(?<![\w.,$])"
_NUM = r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?![\d]|[.,]\d)"
_MULT = r"(?:\s?(?P<mult>k|m|thousand|million|grand)\b)?"
_MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "grand": 1e3, "m": 1e6, "million": 1e6}

_MONEY_PATTERNS = [
    re.compile(rf"(?:us\s?)?\$\s?{_NUM}{_MULT}(?:\s?(?:usd|us\s+dollars?|dollars?))?"),
    re.compile(rf"\busd\s?{_NUM}{_MULT}"),
    re.compile(rf"{_LEAD}{_NUM}{_MULT}\s?(?:usd|us\s+dollars?|dollars?|bucks)\b"),
    re.compile(rf"{_LEAD}{_NUM}{_MULT}\s?\$"),
    re.compile(
        rf"\bbudget\s*(?:is|of|:|=|at)?\s*(?:about|around|roughly|approximately|only|just|~)?\s*"
        rf"{_LEAD}{_NUM}{_MULT}(?!\s*(?:%|gb|gib|h\b|hrs?\b|hours?|days?|gpus?|tpus?))"
    ),
]
_PER_HOUR_AFTER = re.compile(r"\s*(?:/\s*(?:h|hr|hour)\b|(?:per|an|a|each)\s+(?:h|hr|hour)\b|hourly\b)")
_OTHER_CURRENCY = re.compile(
    r"[€£¥₹]\s?\d|\d[\d,.]*\s?(?:k\s?)?(?:€|£|\b(?:eur|euros?|gbp|pounds?|yen|jpy|inr|rupees?|cad|aud|chf)\b)"
    r"|\b(?:eur|gbp|chf|cad|aud|jpy|inr)\s?\d"
)
_COMMA_DECIMAL = re.compile(r"\$\s?\d+,\d{1,2}(?![\d,])")
_PURCHASE_BEFORE = re.compile(r"\b(?:buy|buying|bought|purchas\w*|own)\b")
_PURCHASE_AFTER = re.compile(r"\s*(?:to\s+(?:buy|purchase)|up\s?front|to\s+own)\b")
_BUDGET_AFTER = re.compile(r"\s*(?:budget|to\s+spend|in\s+total)\b")
_BUDGET_BEFORE = re.compile(r"\b(?:have|got|budget|spend|afford)\b")

_V100_HOURS = re.compile(
    rf"{_LEAD}{_NUM}{_MULT}\s*(?:x\s*)?(?:nvidia\s+)?(?:tesla\s+)?v100[\s-]*(?:equivalent[\s-]*)?(?:hours?|hrs?|h)\b"
)
_V100_HOUR_UNIT = re.compile(r"\bv100[\s-]*(?:equivalent[\s-]*)?(?:hours?|hrs?|h)\b")
_DEVICE_HOURS = re.compile(rf"{_LEAD}{_NUM}\s*(?P<kind>gpu|tpu|cpu|device|chip|accelerator)[\s-]*(?:hours?|hrs?|h)\b")
_HOURS_PER_DAY = re.compile(rf"{_LEAD}{_NUM}\s*(?:hours?|hrs?|h)\s*(?:a|per|/|each|every)\s*day\b")
_HOURS = re.compile(rf"{_LEAD}{_NUM}\s*-?\s*(?:hours?|hrs?|h)\b")
_SPANS = re.compile(rf"{_LEAD}(?:{_NUM}|(?P<word>{_WORDS}))\s*-?\s*(?P<unit>days?|weeks?|months?)\b(?!\s*(?:/|per|a)\s)")
_UNIT_HOURS = {"day": 24.0, "week": 168.0, "month": 720.0}
_DEVICES = re.compile(
    rf"{_LEAD}(?P<n>\d+|{_WORDS})\s*(?:x\s*|×\s*)?(?P<kind>gpus?|tpus?|cpus?|cards?|devices?|chips?|accelerators?|boards?)\b"
)
_DEVICES_BEFORE_X = re.compile(rf"{_LEAD}(?P<n>\d+|{_WORDS})\s*(?:x|×|\*)\s*$")
_DEVICES_BEFORE = re.compile(rf"{_LEAD}(?P<n>\d+|{_WORDS})\s+$")
_MEMORY = re.compile(
    rf"(?:(?:at\s+least|≥|>=|minimum(?:\s+of)?|min\.?|more\s+than|over|needs?|with|of)\s*)?"
    rf"{_LEAD}{_NUM}\s*(?:gb|gib)\b(?:\s*\+)?"
)
_RAM_AFTER = re.compile(r"\s*(?:of\s+)?(?:system\s+|host\s+|cpu\s+)?ram\b")
_PREEMPTIBLE = re.compile(r"\b(?:spot|pre-?emptible|preemptable|interruptible)\b")
_NEGATION_BEFORE = re.compile(r"\b(?:no|not|without|avoid|never|non|don'?t|no\s+need\s+for)\b[\w\s-]{0,15}$")
_ON_DEMAND_ONLY = re.compile(r"\bon[\s-]?demand\s+only\b|\bonly\s+on[\s-]?demand\b")
_TYPE_WORDS = re.compile(r"\b(gpu|tpu|cpu)s?\b")
_COST_WORDS = re.compile(
    r"\b(?:cost\w*|price\w*|pricing|cheap\w*|expensive|afford\w*|budget\w*|spend\w*|rent\w*|hourly|dollars?|"
    r"usd|break[\s-]?even|buy(?:ing)?|purchas\w*|worth|money|per\s+hour|value\s+for|best\s+value)\b|\$"
    # "how much" asks about money unless a quantity follows ("how much memory does an A100 have?")
    r"|\bhow\s+much\b(?!\s+(?:more\s+|less\s+)?(?:memory|ram|vram|hbm|storage|disk|power|energy|heat|time|data|"
    r"bandwidth|compute|faster|slower|quicker|gb|gib|tb)\b)"
)
_COMPARE_WORDS = re.compile(r"\b(?:vs\.?|versus|or|compare\w*|which|better|faster|how\s+long|what\s+about)\b")
_FOLLOW_UP = re.compile(r"^\s*(?:and|what\s+about|how\s+about|what\s+if|with|now|then|instead|same|also|ok|okay|but|plus)\b")
_NOISE = frozenset({"nvidia", "tesla", "google", "cloud", "geforce"})
_GENERIC_HARDWARE = re.compile(
    r"(?<![a-z0-9])(?:tpu[\s-]*v\d+[a-z]?(?:-\d+)?|rtx[\s-]*a?\d{4}(?:[\s-]*ti)?|[vpakth]\d{2,3}[a-z]?|"
    r"l40s?|l4|t4|mi\d{3}x?)(?![a-z0-9])"
)


# ---------------------------------------------------------------------------------------------


class _Text:
    """The lowercased question, with spans masked once they have been understood."""

    def __init__(self, question: str) -> None:
        normalized = question.replace("\u00a0", " ").replace("\u2009", " ").replace("\u202f", " ")
        lowered = normalized.lower()
        self.original = normalized if len(lowered) == len(normalized) else lowered
        self.text = lowered

    def mask(self, start: int, end: int) -> None:
        self.text = self.text[:start] + " " * (end - start) + self.text[end:]


def _number(match: re.Match[str]) -> float:
    value = float(match.group("num").replace(",", ""))
    mult = match.groupdict().get("mult")
    return value * _MULTIPLIERS[mult] if mult else value


def _count(token: str) -> int:
    return int(token) if token.isdigit() else _WORD_NUMBERS[token]


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
    return list(patterns.values())


def _mentions(text: str, original: str, table: PriceTable | None) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    if table is not None:
        for regex, display in _hardware_patterns(table):
            found.extend((m.start(), m.end(), display) for m in regex.finditer(text))
    else:
        found.extend((m.start(), m.end(), original[m.start() : m.end()].strip()) for m in _GENERIC_HARDWARE.finditer(text))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    chosen: list[tuple[int, int, str]] = []
    for start, end, display in found:
        if chosen and start < chosen[-1][1]:
            continue
        chosen.append((start, end, display))
    return chosen


def find_hardware_mentions(question: str, table: PriceTable | None = None) -> list[tuple[int, int, str]]:
    """Hardware named in ``question`` as (start, end, name) in order, longest match first.

    With a table, only hardware in the table is found, named as the table spells it
    (``"tesla p100"`` → ``"P100"``, ``"TPUv3"`` → ``"TPU v3"``); without one, common accelerator
    names are recognised and returned as written.
    """
    text = _Text(question)
    return _mentions(text.text, text.original, table)


def _hardware_type(name: str, table: PriceTable | None) -> str:
    if table is not None:
        rows = table.find(name)
        if rows:
            return rows[0].type
    return "tpu" if "tpu" in name.lower() else "gpu"


def _extract(question: str, table: PriceTable | None) -> tuple[dict[str, Any], dict[str, bool]]:
    """Fields the question states (only those), and signals used to decide if it asks about prices."""
    t = _Text(question)
    fields: dict[str, Any] = {}
    signals = {"money": False, "devices": False}
    warnings: list[str] = []

    for m in _V100_HOURS.finditer(t.text):
        fields.setdefault("v100_hours", _number(m))
        t.mask(m.start(), m.end())
    for m in _V100_HOUR_UNIT.finditer(t.text):  # "per V100-hour" is a unit, not the V100
        t.mask(m.start(), m.end())

    # Money: prices per hour are not budgets; amounts near 'buy' are purchase prices.
    matches: list[re.Match[str]] = []
    for pattern in _MONEY_PATTERNS:
        matches.extend(pattern.finditer(t.text))
    matches.sort(key=lambda m: (m.start(), -(m.end() - m.start())))
    money: list[re.Match[str]] = []
    for m in matches:
        if money and m.start() < money[-1].end():
            continue
        money.append(m)
    prev_end = 0
    for m in money:
        signals["money"] = True
        value = _number(m)
        after = t.text[m.end() :]
        per_hour = _PER_HOUR_AFTER.match(after)
        if per_hour:
            t.mask(m.start(), m.end() + per_hour.end())
            prev_end = m.end()
            continue
        before = t.text[max(prev_end, m.start() - 50) : m.start()]
        before = re.split(r"[.;!?]\s", before)[-1]  # only this sentence
        buy_at = [b.end() for b in _PURCHASE_BEFORE.finditer(before)]
        budget_at = [b.end() for b in _BUDGET_BEFORE.finditer(before)]
        if _BUDGET_AFTER.match(after):
            budget_at.append(len(before) + 1)
        is_purchase = bool(_PURCHASE_AFTER.match(after)) or (bool(buy_at) and (not budget_at or buy_at[-1] > budget_at[-1]))
        if is_purchase:
            fields.setdefault("purchase_usd", value)
        else:
            fields.setdefault("budget_usd", value)
        t.mask(m.start(), m.end())
        prev_end = m.end()
    comma = _COMMA_DECIMAL.search(t.text)
    if comma:
        signals["money"] = True
        t.mask(comma.start(), comma.end())
        warnings.append(f"{comma.group(0).strip()!r} is ambiguous; write dollar amounts like $1.46 or $1,460")
    other = _OTHER_CURRENCY.search(t.text)
    if other:
        signals["money"] = True
        t.mask(other.start(), other.end())
        warnings.append("prices and budgets are in US dollars only; give the amount in USD (e.g. $500)")

    for m in _HOURS_PER_DAY.finditer(t.text):
        value = _number(m)
        if 0 < value <= 24:
            fields.setdefault("hours_per_day", value)
        t.mask(m.start(), m.end())

    for m in _DEVICE_HOURS.finditer(t.text):
        fields.setdefault("hours", _number(m))
        if m.group("kind") in HARDWARE_TYPES:
            fields.setdefault("_type_words", []).append(m.group("kind"))
        t.mask(m.start(), m.end())
    for m in _HOURS.finditer(t.text):
        fields.setdefault("hours", _number(m))
        t.mask(m.start(), m.end())
    for m in _SPANS.finditer(t.text):
        count = _count(m.group("word")) if m.group("word") else _number(m)
        unit = m.group("unit").rstrip("s")
        unit_hours = _UNIT_HOURS[unit]
        per_day = fields.get("hours_per_day")
        if per_day is not None:
            unit_hours = unit_hours / 24 * per_day  # "8 hours a day for 5 days" is 40 hours
        fields.setdefault("hours", count * unit_hours)
        t.mask(m.start(), m.end())

    # Hardware names (and counts written right before them: "8x A100", "4 V100s").
    hardware: list[str] = []
    for start, end, name in _mentions(t.text, t.original, table):
        before = t.text[:start]
        dev = _DEVICES_BEFORE_X.search(before) or _DEVICES_BEFORE.search(before)
        if dev is not None:
            n = _count(dev.group("n"))
            if (dev.re is _DEVICES_BEFORE_X or n <= 64) and n > 1 and fields.get("devices", 1) == 1:
                fields["devices"] = n
                signals["devices"] = True
            t.mask(dev.start(), dev.end())
        t.mask(start, end)
        if name.lower() not in {h.lower() for h in hardware}:
            hardware.append(name)
    if hardware:
        fields["names"] = tuple(hardware)

    for m in _DEVICES.finditer(t.text):
        n = _count(m.group("n"))
        kind = m.group("kind").rstrip("s")
        if kind in HARDWARE_TYPES:
            fields.setdefault("_type_words", []).append(kind)
        if n > 1 and fields.get("devices", 1) == 1:
            fields["devices"] = n
            signals["devices"] = True
        t.mask(m.start(), m.end())

    for m in _MEMORY.finditer(t.text):
        if not _RAM_AFTER.match(t.text[m.end() :]):  # host RAM is not device memory
            fields.setdefault("min_memory_gb", _number(m))
        t.mask(m.start(), m.end())

    if _ON_DEMAND_ONLY.search(t.text):
        fields["allow_preemptible"] = False
    for m in _PREEMPTIBLE.finditer(t.text):
        negated = _NEGATION_BEFORE.search(t.text[max(0, m.start() - 30) : m.start()]) is not None
        fields["allow_preemptible"] = not negated
        break

    type_words = list(fields.pop("_type_words", []))
    type_words.extend(m.group(1) for m in _TYPE_WORDS.finditer(t.text))
    if type_words:
        types = tuple(k for k in HARDWARE_TYPES if k in type_words)
        is_workload = "hours" in fields and "v100_hours" not in fields and bool(hardware)
        hw_types = {_hardware_type(h, table) for h in hardware}
        if hardware and not is_workload and not set(types) <= hw_types:
            # "TPU v3 vs a GPU": compare every option of those kinds, not only the named hardware.
            types = tuple(k for k in HARDWARE_TYPES if k in set(types) | hw_types)
            del fields["names"]
        fields["types"] = types

    providers = _providers(t.original, table)
    if providers:
        fields["providers"] = providers
    if warnings:
        fields["warnings"] = tuple(warnings)
    signals["cost"] = _COST_WORDS.search(question.lower()) is not None
    signals["compare"] = _COMPARE_WORDS.search(question.lower()) is not None
    signals["subject"] = bool(hardware) or bool(type_words)
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
    stated = {k: v for k, v in fields.items() if k not in ("names", "warnings")}
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


def parse_price_question(
    question: str, table: PriceTable | None = None, previous: CalcRequest | None = None
) -> CalcRequest | None:
    """The :class:`CalcRequest` a question asks for, or None when it is not a price or budget question.

    ``table`` lets hardware names be recognised as the price table spells them; ``previous`` is
    the last price request of the conversation, which a follow-up (``"and with $1000?"``) reuses
    with what it states replaced. A follow-up without ``previous`` and without numbers is None.
    """
    if not question or not question.strip():
        return None
    fields, signals = _extract(question, table)
    stated = {k: v for k, v in fields.items() if k != "warnings"}
    follow_up = _FOLLOW_UP.match(question.lower()) is not None
    short = len(question.split()) <= 4
    if previous is not None and stated and (follow_up or short):
        return _merge(previous, fields)
    if previous is None and follow_up and not re.search(r"\d", question):
        return None
    if not _is_price_question(fields, signals):
        return None
    return _request(fields)


def price_question_warnings(question: str, table: PriceTable | None = None) -> tuple[str, ...]:
    """What a person should know about how ``question`` was read: only US dollars are understood,
    and a decimal comma in a dollar amount is ambiguous."""
    warnings: tuple[str, ...] = _extract(question, table)[0].get("warnings", ())
    return warnings
