"""What a question says about money, time and hardware: the price part of the one parse.

:func:`read_price_words` reads, once per question and without any price table, what a price or
budget question states (US dollars only; other currencies give a warning instead of a budget):

- budgets: ``I have $500``, ``500 dollars``, ``$1.2k``, ``$1,200``, ``USD 300``, ``budget of 2k USD``,
  ``my budget is 800``; a price per hour (``$8/h``) is not a budget;
- purchase prices: ``buy one for $1500``, ``costs $1,500 to buy``;
- time: ``for 100 hours``, ``100 h``, ``2 days`` (24 h a day, or the hours a day given), ``a week``,
  ``per month`` (a month of use: 30 days, 720 h, :data:`hwqa.prices.units.HOURS_PER_MONTH`, or the hours a day
  given), ``8 hours a day``; job sizes ``300 V100-hours``; ``250 GPU-hours``, ``chip-hours``;
- devices: ``on 8 GPUs``, ``4 TPUs``, ``two GPUs`` (and the words before a name, read when the
  name is matched: ``8x A100``);
- memory floors: ``at least 32 GB``, ``≥ 40GB memory`` (host RAM is not a floor);
- ``spot`` / ``preemptible`` (unless negated), ``on-demand only``; type words (``TPU or GPU``);
- common accelerator names (``V100``, ``TPU v3``, ``RTX 3090``).

Money is read safely, in time linear in the question's length: only the first
:data:`MAX_READ_CHARS` characters are read, a number longer than :data:`MAX_NUMBER_CHARS` is not
read, and an amount that is negative, not finite, written with an exponent or outside the
calculator's bounds (:data:`hwqa.prices.units.MAX_BUDGET_USD`) is not used: :attr:`PriceWords.problems`
says why in one line, in the question's own words ("a budget must be between $0 and
$1,000,000,000, not -$5").

Each reading keeps where it stands in the question, so the price planner
(:mod:`hwqa.answer.priceplan`) can match the hardware names a price table knows in :attr:`PriceWords.rest`
and drop what falls inside such a name (the "80GB" of "A100 80GB" is a name, not a memory floor).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .units import HOURS_PER, MAX_BUDGET_USD, MAX_HOURS, MAX_PURCHASE_USD, money_words

__all__ = ["MAX_NUMBER_CHARS", "MAX_READ_CHARS", "PriceWords", "Reading", "count_of", "nights_only", "read_price_words"]

#: How much of a question is read for amounts, times and hardware (a question, not a document).
MAX_READ_CHARS = 4000
#: The longest number read ("1,000,000,000.00" is 16): a longer run of digits is refused, never read.
MAX_NUMBER_CHARS = 24

TYPE_WORDS = ("gpu", "tpu", "cpu")  # the hardware types of a price table (hwqa.prices.table.HARDWARE_TYPES)

_NUMBER_WORDS = "a an one single two dual three four quad five six seven eight nine ten eleven twelve sixteen twenty thirty-two"
WORD_NUMBERS = dict(
    zip([*_NUMBER_WORDS.split(), "sixty-four"], [1, 1, 1, 1, 2, 2, 3, 4, 4, *range(5, 13), 16, 20, 32, 64], strict=True)
)
# The count words of a regular expression, longest first ("fifteen" before "five"); never "a", "an" or "single":
# "buy an RTX 4090" counts nothing.
COUNT_WORDS = "|".join(sorted((w for w in WORD_NUMBERS if w not in ("a", "an", "single")), key=len, reverse=True))
WORDS = "|".join(sorted((re.escape(w) for w in WORD_NUMBERS), key=len, reverse=True))
LEAD = r"(?<![\w.,$])"
_NUM = r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?![\d]|[.,]\d)"
_MULT = r"(?:\s?(?P<mult>k|m|thousand|million|grand)\b)?"
_MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "grand": 1e3, "m": 1e6, "million": 1e6}

_MONEY_PATTERNS = [
    re.compile(rf"(?:us\s?)?\$\s?{_NUM}{_MULT}(?:\s?(?:usd|us\s+dollars?|dollars?))?"),
    re.compile(rf"\busd\s?{_NUM}{_MULT}"),
    re.compile(rf"{LEAD}{_NUM}{_MULT}\s?(?:usd|us\s+dollars?|dollars?|bucks?)\b"),
    re.compile(rf"{LEAD}{_NUM}{_MULT}\s?\$"),
    re.compile(
        rf"\bbudget\s*(?:is|of|:|=|at)?\s*(?:about|around|roughly|approximately|only|just|~)?\s*"
        rf"{LEAD}{_NUM}{_MULT}(?!\s*(?:%|gb|gib|h\b|hrs?\b|hours?|days?|gpus?|tpus?))"
    ),
]
_PER_HOUR_AFTER = re.compile(r"\s*(?:/\s*(?:h|hr|hour)\b|(?:per|an|a|each)\s+(?:h|hr|hour)\b|hourly\b)")
# A rate per a unit other than a period a budget is spent over ("$100 per month" is a monthly budget).
_PER_UNIT_AFTER = re.compile(
    r"\s*(?:/|per\s+)\s*(?:\d+[a-z]{0,2}\s+)?(?!(?:days?|weeks?|months?|mo|years?|yr)\b)[a-z][a-z0-9]*(?:-[a-z]+)?"
)
_OTHER_CURRENCY = re.compile(
    r"[€£¥₹]\s?\d|(?<![\d,.])\d[\d,.]*\s?(?:k\s?)?(?:€|£|\b(?:eur|euros?|gbp|pounds?|yen|jpy|inr|rupees?|cad|aud|chf)\b)"
    r"|\b(?:eur|gbp|chf|cad|aud|jpy|inr)\s?\d"
)
_LONG_NUMBER = re.compile(rf"(?<![\d,.])\d[\d,.]{{{MAX_NUMBER_CHARS},}}")
# An amount written in a way the calculator does not read: an exponent ("$1e400", "$10^30"), not a
# number ("$NaN", "$inf"), or negative ("-$5", "$-100", "-5 dollars"; a range "10-20 dollars" is not).
_EXPONENT_AFTER = re.compile(r"(?:e[+-]?\d|\s?(?:\^|\*\*)\s?[+-]?\d|\s?[x×]\s?10\s?(?:\^|\*\*))")
_NOT_A_NUMBER = re.compile(r"(?:us\s?)?\$\s?[-−]?\s?(?:nan|inf(?:inity)?)\b|\b(?:nan|inf(?:inity)?)\s?(?:usd|dollars?|bucks)\b")
_DIGITS = re.compile(r"[\d,.]*")
_MINUS_BEFORE = re.compile(r"(?:^|[^\w.,])[-−]\s?$")
_MINUS_AFTER_DOLLAR = re.compile(r"(?:us\s?)?\$\s?[-−]\s?(?=\d|\.\d)")
_COMMA_DECIMAL = re.compile(r"\$\s?\d+,\d{1,2}(?![\d,])")
_PURCHASE_BEFORE = re.compile(r"\b(?:buy|buying|bought|purchas\w*|own)\b")
_RENT = re.compile(r"\b(?:rent\w*|hir(?:e|ing)|leas(?:e|ing))\b")
_PURCHASE_AFTER = re.compile(r"\s*(?:to\s+(?:buy|purchase)|up\s?front|to\s+own)\b")
_BUDGET_AFTER = re.compile(r"\s*(?:budget|to\s+spend|in\s+total)\b")
_BUDGET_BEFORE = re.compile(r"\b(?:have|got|budget|spend|afford)\b")

_V100_HOURS = re.compile(
    rf"{LEAD}{_NUM}{_MULT}\s*(?:x\s*)?(?:nvidia\s+)?(?:tesla\s+)?v100[\s-]*(?:equivalent[\s-]*)?(?:hours?|hrs?|h)\b"
)
_V100_HOUR_UNIT = re.compile(r"\bv100[\s-]*(?:equivalent[\s-]*)?(?:hours?|hrs?|h)\b")
_DEVICE_HOURS = re.compile(rf"{LEAD}{_NUM}\s*(?P<kind>gpu|tpu|cpu|device|chip|accelerator)[\s-]*(?:hours?|hrs?|h)\b")
# Hours a day: "3h a day", "5h every night", "9 hrs each workday", "~4h nightly" (one day's use, however it is called).
_NIGHTS = re.compile(r"\bover\s?nights?\b|\bnight(?:ly|s)?\b|\bevenings?\b")  # use by night: hours a day unknown
_DAY_NAMES = r"(?:day|night|evening|morning|weekday|workday|work\s?day|school\s?day)"
_HOURS_PER_DAY = re.compile(rf"{LEAD}~?{_NUM}\s*(?:hours?|hrs?|h)\s*(?:(?:a|per|/|each|every)\s*{_DAY_NAMES}|nightly|daily)\b")
_HOURS = re.compile(rf"{LEAD}{_NUM}\s*-?\s*(?:hours?|hrs?|h)\b")
# Hours and minutes together: "1h 15m", "3h40m", "2 hrs 30 min".
_HOURS_MINUTES = re.compile(rf"{LEAD}(?P<h>\d{{1,4}})\s*(?:hours?|hrs?|h)\s*(?P<m>\d{{1,2}})\s*(?:minutes?|mins?|m)\b")
# A span of days, weeks, months or years ("for 4 days", "two weeks", "a full year"); nights, evenings and workdays
# count as days only with the hours a day the question gives ("5h every night for 2 weeks", "9 hrs a day for 22 workdays").
_SPANS = re.compile(
    rf"{LEAD}(?:{_NUM}|(?P<word>{WORDS}))\s*-?\s*(?:(?:full|whole|entire)\s+)?"
    r"(?P<unit>days?|nights?|evenings?|weekdays?|workdays?|work\s?days?|weeks?|months?|years?)\b(?!\s*(?:/|per|a)\s)"
)
_PER_SPAN = re.compile(r"(?:\b(?:per|a|an|each|every)\s+|/\s*)(?P<unit>day|week|month)\b")  # "per month": one month of use
_UNIT_HOURS = {unit: HOURS_PER[unit] for unit in ("day", "week", "month", "year")}  # a month is 30 days, as prices read from text
_DAY_LIKE = ("night", "evening", "weekday", "workday", "work day", "school day")
_DEVICES = re.compile(
    rf"{LEAD}(?P<n>\d+|{WORDS})\s*(?:x\s*|×\s*)?(?P<kind>gpus?|tpus?|cpus?|cards?|devices?|chips?|accelerators?|boards?)\b"
)
# A count of devices with a fraction: "2.5 GPUs", "1.5 V100s" (a name with a digit in it).
_FRACTIONAL_DEVICES = re.compile(
    r"(?<![\w.$])\d{1,6}\.\d{1,6}\s*(?:x\s*|×\s*)?(?:gpus?|tpus?|cpus?|cards?|devices?|chips?|accelerators?|boards?|"
    r"[a-z]{1,6}\d{2,4}[a-z]{0,3})\b"
)
_MEMORY = re.compile(
    rf"(?:(?:at\s+least|≥|>=|minimum(?:\s+of)?|min\.?|more\s+than|over|needs?|with|of)\s*)?"
    rf"{LEAD}{_NUM}\s*(?:gb|gib)\b(?:\s*\+)?"
)
_RAM_AFTER = re.compile(r"\s*(?:of\s+)?(?:system\s+|host\s+|cpu\s+)?ram\b")
_PREEMPTIBLE = re.compile(r"\b(?:spot|pre-?emptible|preemptable|interruptible)\b")
_NEGATION_BEFORE = re.compile(r"\b(?:no|not|without|avoid|never|non|don'?t|no\s+need\s+for)\b[\w\s-]{0,15}$")
_ON_DEMAND_ONLY = re.compile(r"\bon[\s-]?demand\s+only\b|\bonly\s+on[\s-]?demand\b")
_TYPE_WORDS = re.compile(r"\b(gpu|tpu|cpu)s?\b")
_COST_WORDS = re.compile(
    r"\b(?:cost\w*|price\w*|pricing|cheap\w*|expensive|afford\w*|budget\w*|spend\w*|rent\w*|hourly|dollars?|"
    r"usd|break[\s-]?even|buy(?:ing)?|purchas\w*|worth|money|per\s+(?:hour|hr)|value\s+for|best\s+value)\b|\$"
    # "how much" asks about money unless a quantity follows ("how much memory does an A100 have?")
    r"|\bhow\s+much\b(?!\s+(?:more\s+|less\s+)?(?:memory|ram|vram|hbm|storage|disk|power|energy|heat|time|data|"
    r"bandwidth|compute|faster|slower|quicker|gb|gib|tb)\b)"
)
_COMPARE_WORDS = re.compile(r"\b(?:vs\.?|versus|or|compare\w*|which|better|faster|how\s+long|what\s+about)\b")
_FOLLOW_UP = re.compile(r"^\s*(?:and|what\s+about|how\s+about|what\s+if|with|now|then|instead|same|also|ok|okay|but|plus)\b")
GENERIC_HARDWARE = re.compile(
    r"(?<![a-z0-9])(?:tpu[\s-]*v\d+[a-z]?(?:-\d+)?|rtx[\s-]*a?\d{4}(?:[\s-]*ti)?|[1-5]0[5-9]0(?:[\s-]*ti)?|[vpakth]\d{2,3}[a-z]?|"
    r"l40s?|l4|t4|mi\d{3}x?)(?=s?(?![a-z0-9]))"
)


@dataclass(frozen=True)
class Reading:
    """Something read at ``start:end`` of the question: a device count (``value`` the count, ``word`` its
    kind), a memory floor (``value`` in GB), a type word (``word``) or a hardware name (``word`` as written)."""

    start: int
    end: int
    value: float = 0.0
    word: str = ""

    def inside(self, spans: tuple[tuple[int, int], ...]) -> bool:
        return any(self.start < end and start < self.end for start, end in spans)


@dataclass(frozen=True)
class PriceWords:
    """What a question states about prices, budgets, time and hardware (see the module doc)."""

    text: str  # the question, lower-cased, spaces normalised
    original: str  # the question as written (same length as ``text`` when lower-casing keeps it)
    rest: str  # ``text`` with money and time masked: where hardware names are matched
    budget_usd: float | None = None
    purchase_usd: float | None = None
    hours: float | None = None
    hours_per_day: float | None = None
    v100_hours: float | None = None
    hour_types: tuple[str, ...] = ()  # "GPU-hours", "TPU-hours": the type the hours are of
    devices: tuple[Reading, ...] = ()  # "8 GPUs", "two cards"
    memory: tuple[Reading, ...] = ()  # "at least 32 GB"
    type_words: tuple[Reading, ...] = ()  # "TPU or GPU"
    hardware: tuple[Reading, ...] = ()  # common accelerator names, as written
    preemptible: bool | None = None  # spot/preemptible asked for (True) or refused (False)
    money: bool = False  # an amount of money (or an ambiguous one) is stated
    cost: bool = False  # words about cost ("price", "cheap", "how much")
    compare: bool = False  # words comparing ("or", "which", "vs")
    follow_up: bool = False  # starts like a follow-up ("and with $1000?")
    warnings: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()  # amounts and times not used, each said in one line ("a budget must be between ...")
    refused: bool = False  # an amount or a time was stated but refused (one of ``problems``)
    buying: tuple[int, ...] = ()  # where each "buy", "purchase" ends: the hardware after it is bought, not rented
    renting: tuple[int, ...] = ()  # where each "rent", "hire", "lease" ends

    def bought(self, at: int) -> bool:
        """Whether the hardware named at ``at`` is one to buy: the last buy or rent word before it is a buy word."""
        buy = max((b for b in self.buying if b <= at), default=-1)
        return buy > max((r for r in self.renting if r <= at), default=-1)

    @property
    def states(self) -> bool:
        """Whether the question states an amount, a time, a job size or a device count."""
        return bool(
            self.money
            or self.hours is not None
            or self.v100_hours is not None
            or self.purchase_usd is not None
            or self.refused
            or any(d.value > 1 for d in self.devices)
        )


class _Text:
    """The lowercased question, with spans masked once they have been understood (masks are applied
    together, so masking many spans costs one pass)."""

    def __init__(self, question: str) -> None:
        normalized = question.replace("\u00a0", " ").replace("\u2009", " ").replace("\u202f", " ")
        lowered = normalized.lower()
        self.original = normalized if len(lowered) == len(normalized) else lowered
        self.text = lowered

    def mask_all(self, spans: list[tuple[int, int]]) -> None:
        if not spans:
            return
        chars = list(self.text)
        for start, end in spans:
            chars[start:end] = " " * (end - start)
        self.text = "".join(chars)


def number_of(match: re.Match[str]) -> float:
    value = float(match.group("num").replace(",", ""))
    mult = match.groupdict().get("mult")
    return value * _MULTIPLIERS[mult] if mult else value


def count_of(token: str) -> int:
    """A device count as written: "8" or "eight"."""
    return int(token) if token.isdigit() else WORD_NUMBERS[token]


def _digits_at(text: str, at: int) -> str:
    """The digits (with their commas and points) written at ``at``, at most :data:`MAX_NUMBER_CHARS` of them."""
    found = _DIGITS.match(text, at, at + MAX_NUMBER_CHARS)
    return found.group(0) if found else ""


def _unreadable(t: _Text, problems: list[str]) -> tuple[bool, list[tuple[int, int]]]:
    """Numbers too long to read and amounts that are not numbers: masked, each said once in ``problems``."""
    spans: list[tuple[int, int]] = []
    long = _LONG_NUMBER.search(t.text)
    if long:
        problems.append(
            f"a number of {len(long.group(0)):,} characters is too long to read (at most {MAX_NUMBER_CHARS}); "
            "write amounts like $500 or $1.2k"
        )
        spans.extend(m.span() for m in _LONG_NUMBER.finditer(t.text))
    nan = _NOT_A_NUMBER.search(t.text)
    if nan:
        problems.append(f"{t.original[nan.start() : nan.end()].strip()!r} is not an amount of money; write one like $500")
        spans.extend(m.span() for m in _NOT_A_NUMBER.finditer(t.text))
    t.mask_all(spans)
    return bool(long or nan), spans


def _money(t: _Text, out: dict[str, float], problems: list[str]) -> tuple[bool, list[str]]:
    """Budgets and purchase prices (prices per hour are masked, not read); whether money was stated.
    Amounts the calculator cannot use are said in ``problems`` and not read."""
    matches: list[re.Match[str]] = []
    text = t.text
    for pattern in _MONEY_PATTERNS:
        matches.extend(pattern.finditer(text))
    matches.sort(key=lambda m: (m.start(), -(m.end() - m.start())))
    money: list[re.Match[str]] = []
    for m in matches:
        if money and m.start() < money[-1].end():
            continue
        money.append(m)
    stated = bool(money)
    masks: list[tuple[int, int]] = []
    prev_end = 0
    for m in money:
        written = t.original[m.start() : m.end()].strip()
        exponent = _EXPONENT_AFTER.match(text, m.end("num"))
        if exponent:
            end = exponent.end() + len(_digits_at(text, exponent.end()))
            problems.append(
                f"{t.original[m.start() : end].strip()!r} is written with an exponent; write the amount in digits, like $500"
            )
            masks.append((m.start(), end))
            prev_end = end
            continue
        value = number_of(m)
        per_hour = _PER_HOUR_AFTER.match(text, m.end()) or _PER_UNIT_AFTER.match(text, m.end())
        if per_hour:  # a rate ("$8/h", "$0.000306/sec", "$0.08/GB-month"): no budget (hwqa.prices.rates works it out)
            masks.append((m.start(), per_hour.end()))
            prev_end = m.end()
            continue
        before = text[max(prev_end, m.start() - 50) : m.start()]
        before = re.split(r"[.;!?]\s", before)[-1]  # only this sentence
        buy_at = [b.end() for b in _PURCHASE_BEFORE.finditer(before)]
        budget_at = [b.end() for b in _BUDGET_BEFORE.finditer(before)]
        if _BUDGET_AFTER.match(text, m.end()):
            budget_at.append(len(before) + 1)
        is_purchase = bool(_PURCHASE_AFTER.match(text, m.end())) or (
            bool(buy_at) and (not budget_at or buy_at[-1] > budget_at[-1])
        )
        key, what, bound = (
            ("purchase_usd", "a purchase price", MAX_PURCHASE_USD) if is_purchase else ("budget_usd", "a budget", MAX_BUDGET_USD)
        )
        negative = _MINUS_BEFORE.search(before) is not None
        if negative or value > bound:
            shown = f"-{written}" if negative and not written.startswith("-") else written
            problems.append(f"{what} must be between $0 and {money_words(bound)}, not {shown}")
        elif key not in out:
            out[key] = value
        masks.append((m.start(), m.end()))
        prev_end = m.end()
    for m in _MINUS_AFTER_DOLLAR.finditer(text):  # "$-100": the patterns above read no amount there
        stated = True
        number = _digits_at(text, m.end())
        written = t.original[m.start() : m.end()].strip() + number
        problems.append(f"a budget must be between $0 and {money_words(MAX_BUDGET_USD)}, not {written}")
        masks.append((m.start(), m.end() + len(number)))
    t.mask_all(masks)
    warnings: list[str] = []
    comma = _COMMA_DECIMAL.search(t.text)
    if comma:
        stated = True
        t.mask_all([comma.span()])
        warnings.append(f"{comma.group(0).strip()!r} is ambiguous; write dollar amounts like $1.46 or $1,460")
    other = _OTHER_CURRENCY.search(t.text)
    if other:
        stated = True
        t.mask_all([other.span()])
        warnings.append("prices and budgets are in US dollars only; give the amount in USD (e.g. $500)")
    return stated, warnings


def _time(t: _Text, out: dict[str, float], problems: list[str]) -> list[str]:
    """Hours, hours a day, days/weeks/months; the types of "GPU-hours". Each pattern reads the text
    as the ones before it left it (what they read is masked)."""
    hour_types: list[str] = []
    masks: list[tuple[int, int]] = []
    for m in _HOURS_PER_DAY.finditer(t.text):
        value = number_of(m)
        if 0 < value <= 24:
            out.setdefault("hours_per_day", value)
        masks.append(m.span())
    t.mask_all(masks)
    masks = []
    for m in _DEVICE_HOURS.finditer(t.text):
        _hours(number_of(m), m.group(0), out, problems)
        if m.group("kind") in TYPE_WORDS:
            hour_types.append(m.group("kind"))
        masks.append(m.span())
    t.mask_all(masks)
    masks = []
    for m in _HOURS_MINUTES.finditer(t.text):
        _hours(int(m.group("h")) + int(m.group("m")) / 60, m.group(0), out, problems)
        masks.append(m.span())
    t.mask_all(masks)
    masks = []
    for m in _HOURS.finditer(t.text):
        _hours(number_of(m), m.group(0), out, problems)
        masks.append(m.span())
    t.mask_all(masks)
    masks = []
    for m in _SPANS.finditer(t.text):
        count = count_of(m.group("word")) if m.group("word") else number_of(m)
        unit = re.sub(r"\s+", " ", m.group("unit")).rstrip("s")
        per_day = out.get("hours_per_day")
        if unit == "year" and "-" in m.group(0):
            continue  # "a 1-year reservation": the term of a commitment, no time of use
        if unit in _DAY_LIKE:
            if per_day is None:
                continue  # "every night (30 nights)": how long a night is, the question does not say
            unit = "day"
        unit_hours = _UNIT_HOURS[unit]
        if per_day is not None:
            unit_hours = unit_hours / 24 * per_day  # "8 hours a day for 5 days" is 40 hours
        _hours(count * unit_hours, m.group(0), out, problems)
        masks.append(m.span())
    t.mask_all(masks)
    masks = []
    for m in _PER_SPAN.finditer(t.text):
        per_day = out.get("hours_per_day")
        if per_day is None and _NIGHTS.search(t.text):
            break  # "overnight each month": how long a night is, the question does not say
        unit_hours = _UNIT_HOURS[m.group("unit")]
        out.setdefault("hours", unit_hours if per_day is None else unit_hours / 24 * per_day)
        masks.append(m.span())
    t.mask_all(masks)
    return hour_types


def _hours(value: float, written: str, out: dict[str, float], problems: list[str]) -> None:
    """A time asked about, kept when the calculator can use it, else said in ``problems``."""
    if "hours" in out or "hours_problem" in out:
        return
    if value <= 0:
        out["hours_problem"] = 1
        problems.append(f"{written.strip()} costs nothing; ask about more than 0 hours")
    elif value > MAX_HOURS:
        out["hours_problem"] = 1
        problems.append(f"a time must be at most {MAX_HOURS:,.0f} hours (about 114 years), not {written.strip()}")
    else:
        out["hours"] = value


def nights_only(words: PriceWords) -> bool:
    """Whether the question asks about use by night or by evening without saying how many hours one lasts
    ("the desktops overnight each month"): a month of it is not 720 hours."""
    return words.hours_per_day is None and _NIGHTS.search(words.text) is not None


def read_price_words(question: str) -> PriceWords:
    """What ``question`` states about prices (see the module doc); positions refer to :attr:`PriceWords.text`."""
    problems: list[str] = []
    cut = len(question) > MAX_READ_CHARS
    if cut:
        problems.append(
            f"the question is {len(question):,} characters long; only its first {MAX_READ_CHARS:,} were read "
            "for amounts, times and hardware"
        )
        question = question[:MAX_READ_CHARS]
    t = _Text(question)
    lowered = t.text
    found: dict[str, float] = {}
    refused, _ = _unreadable(t, problems)
    masks = []
    for m in _V100_HOURS.finditer(t.text):
        found.setdefault("v100_hours", number_of(m))
        masks.append(m.span())
    t.mask_all(masks)
    t.mask_all([m.span() for m in _V100_HOUR_UNIT.finditer(t.text)])  # "per V100-hour" is a unit, not the V100
    money, warnings = _money(t, found, problems)
    money = money or refused
    hour_types = _time(t, found, problems)
    rest = t.text

    hardware = tuple(
        Reading(m.start(), m.end(), word=t.original[m.start() : m.end()].strip()) for m in GENERIC_HARDWARE.finditer(rest)
    )
    for m in _FRACTIONAL_DEVICES.finditer(t.text):  # "2.5 V100s": never rounded to a count the question did not ask
        problems.append(f"a number of devices must be whole, not {t.original[m.start() : m.end()].strip()}")
    t.mask_all([m.span() for m in _FRACTIONAL_DEVICES.finditer(t.text)])
    devices = []
    for m in _DEVICES.finditer(t.text):
        devices.append(Reading(m.start(), m.end(), count_of(m.group("n")), m.group("kind").rstrip("s")))
    t.mask_all([(d.start, d.end) for d in devices])
    memory = []
    masks = []
    for m in _MEMORY.finditer(t.text):
        if not _RAM_AFTER.match(t.text, m.end()):  # host RAM is not device memory
            memory.append(Reading(m.start("num"), m.end(), number_of(m)))
        masks.append(m.span())
    t.mask_all(masks)
    preemptible: bool | None = False if _ON_DEMAND_ONLY.search(t.text) else None
    for m in _PREEMPTIBLE.finditer(t.text):
        preemptible = _NEGATION_BEFORE.search(t.text[max(0, m.start() - 30) : m.start()]) is None
        break
    type_words = tuple(Reading(m.start(), m.end(), word=m.group(1)) for m in _TYPE_WORDS.finditer(t.text))
    lower = question.lower()
    return PriceWords(
        text=lowered,
        original=t.original,
        rest=rest,
        budget_usd=found.get("budget_usd"),
        purchase_usd=found.get("purchase_usd"),
        hours=found.get("hours"),
        hours_per_day=found.get("hours_per_day"),
        v100_hours=found.get("v100_hours"),
        hour_types=tuple(hour_types),
        devices=tuple(devices),
        memory=tuple(memory),
        type_words=type_words,
        hardware=hardware,
        preemptible=preemptible,
        money=money,
        cost=_COST_WORDS.search(lower) is not None,
        compare=_COMPARE_WORDS.search(lower) is not None,
        follow_up=_FOLLOW_UP.match(lower) is not None,
        warnings=tuple(warnings),
        problems=tuple(problems),
        refused=len(problems) > cut,
        buying=tuple(m.end() for m in _PURCHASE_BEFORE.finditer(lowered)),
        renting=tuple(m.end() for m in _RENT.finditer(lowered)),
    )
