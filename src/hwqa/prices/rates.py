"""A cost as a rate times the quantities it is per: ``4 nodes × 10 h × $0.95/node-hour = $38.00``.

A rate is money per one or more units, as people write it: ``$0.68/hr``, ``$0.95/node-hr``, ``$0.08/GB-month``,
``$50/seat/month``, ``$0.40/hr per 1g slice``, ``$0.000306/sec`` (:func:`rates_in`). Its units are a time
(second to year) and at most one thing counted (a node, a seat, a GB, a slice, an instance). A question's
quantities cancel them: a duration for the time ("for 30 hours", "~20 min", "24/7 for a 30 day month", "3h a day
for 20 days", "for a year") and a count for the thing ("4 nodes", "2 mig slices", "4.5 GB", "the 3 of us");
a rate per hour of a thing the question names with a count ("4 g5.xlarge") is per one of it.

The rate is the one the question states, or else the one the notes state for what it names: an instance type,
a card, a provider's offer, a nickname the note gives it ("the big box"). Notes are read sentence by sentence
(every sentence a price was read from, or left out of the table, with its file and line): the sentence that
names the thing, and in it the rate of the clause that says what the question asks ("spot" or "on demand"), or
whose counted thing the question counts. A count the question does not give may come from the sentence ("$50 per
seat, we're 3 people"), and so may the length of what the notes describe when the question asks its total ("what
did the render come to" over "$0.52/hr, the whole render took about 6.5 hrs"; "did 5 runs, each about 1.5 hrs": 5 of
them). What no quantity cancels is said plainly, never guessed."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .counts import PAIR as _PAIR
from .counts import asked_count, each_unit, runs_done
from .factmatch import ENERGY, CostAnswer, holds_name, is_model, overlap, price_text, total_text, words_of
from .plans import billed_as_asked, per_thing_noted, runs_in_period, seats_noted
from .table import PriceFact, PriceTable
from .units import HOURS_PER, HOURS_PER_MONTH, hours_said
from .words import COUNT_WORDS, WORD_NUMBERS, PriceWords, read_price_words

__all__ = ["Rate", "answer_rate", "rates_in"]

_TIME_WORDS = {
    "s": "second", "sec": "second", "secs": "second", "second": "second", "seconds": "second",
    "min": "minute", "mins": "minute", "minute": "minute", "minutes": "minute",
    "h": "hour", "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour", "hourly": "hour",
    "day": "day", "days": "day", "daily": "day", "wk": "week", "week": "week", "weeks": "week", "weekly": "week",
    "mo": "month", "mon": "month", "month": "month", "months": "month", "monthly": "month", "month to month": "month",
    "yr": "year", "year": "year", "years": "year", "yearly": "year", "annually": "year", "annual": "year",
}  # fmt: skip
# Things a rate may be per that are no count a question gives here: tokens and energy have their own sums.
_NOT_COUNTED = frozenset({"m", "mtok", "million", "1m", "kwh", "k", "the", "a", "an", "each", "unit", "use", "usage"})
# Words for the same counted thing.
_SAME = {
    "gig": "gb", "gigs": "gb", "gigabyte": "gb", "gigabytes": "gb", "gib": "gb",
    "terabyte": "tb", "terabytes": "tb", "tib": "tb", "cam": "camera", "cams": "camera", "img": "image", "imgs": "image",
    "user": "seat", "users": "seat", "people": "seat", "person": "seat", "member": "seat", "members": "seat", "us": "seat",
    "machine": "instance", "machines": "instance", "box": "instance", "boxes": "instance", "vm": "instance", "vms": "instance",
}  # fmt: skip
_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP"}
_UNIT_WORD = r"[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)?"
_TIMES = r"(?:hours?|hrs?|days?|weeks?|months?|mo|years?|yr|minutes?|mins?|seconds?|secs?)\b"
_ADVERB = r"(?:hourly|monthly|yearly|daily|weekly|month[\s-]to[\s-]month)\b"
# After the amount, its units: "/node-hr", " per 1g slice", "/seat/month", " a month", " monthly", " per finished minute".
_UNIT_PART = re.compile(
    rf"\s*(?:(?<=\s)(?:an?|per\s+[a-z]+)\s+(?P<t>{_TIMES})(?!\s+ago\b)|"
    rf"(?:/|\bper\b)\s*(?:\d+[a-z]{{0,2}}\s+)?(?P<w>{_UNIT_WORD})|\s(?P<adv>{_ADVERB}))"
)
_AMOUNT = re.compile(r"(?P<cur>[$€£])\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?![\d.,]\d)")
_NUM = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"  # "2,400" as well as "2400"
# A count and what it counts: "4 nodes", "2 of the MIG slices", "8x V100" (never "1g slice": a profile's name).
_COUNT = re.compile(
    rf"(?<![\w.,$/-])(?P<n>{_NUM}|{COUNT_WORDS})(?:\s+|\s*x\s+)(?:of\s+(?:the|those|these|our|my)\s+)?"
    r"(?:(?!(?:hours?|hrs?|h|minutes?|mins?|days?|weeks?)\b)(?P<adj>[a-z][\w.-]*)\s+)?(?P<noun>[a-z][\w.-]*)"
)  # "the 11 hour a100 run": a length, never 11 A100s
PRODUCT = re.compile(r"(?<![\w.,$/-])(?P<a>\d{1,4})\s+[a-z][\w-]*\s*[x×]\s*(?P<b>\d{1,4})\s+(?P<noun>[a-z][\w-]*)")
_SIZE = re.compile(rf"(?<![\w.$/-])(?P<n>{_NUM})(?P<u>gb|tb)\b")
_OF_US = re.compile(
    rf"\b(?:the\s+)?(?P<n>\d{{1,3}}|{COUNT_WORDS})\s+of\s+us\b|\bwe(?:'re|\s+are)\s+(?P<m>\d{{1,3}}|{COUNT_WORDS})\b"
)
_SHORT_TIME = re.compile(rf"(?<![\w.])(?P<n>{_NUM})\s*(?P<u>min|mins|minutes?|secs?|seconds?|(?<![1-5]0[5-9]0)(?<!16[56]0)s)\b")
_WHOLE = r"(?:(?:whole|full|entire|complete)\s+)?"  # "a whole year", "the full month": one of it
_PERIOD = re.compile(
    rf"(?<![\w.])(?P<n>{_NUM}|{COUNT_WORDS}|a|an|one)\s*-?\s*{_WHOLE}(?P<u>years?|yrs?|months?)\b(?!\s*(?:/|per|a)\s)"
)
_PER_PERIOD = re.compile(
    rf"\b(?:per|a|each|every|this|next|one|the|all)\s+{_WHOLE}(?P<u>month|year)\b|\b(?P<adv>monthly|yearly|annually)\b"
)
_MONEY = r"\$\s?(?P<{}>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_USED = re.compile(
    rf"\b(?:used|spent|burn(?:ed|t)|usage\s+(?:was|of|came\s+to))\s+(?:about\s+|~)?{_MONEY.format('n')}|"
    rf"{_MONEY.format('m')}\s+(?:of|in)\s+(?:usage|compute|credits?)"
)
_INCLUDED = re.compile(
    rf"[^.;]{{0,30}}?\b(?:incl\w*\.?|with)\s+~?{_MONEY.format('n')}\s+(?:of\s+)?(?:[\w-]+\s+){{0,2}}?(?:credits?|compute|usage)"
)
_TOKENS = re.compile(r"\s*(?:(?:input|output|prompt|completion)\s+)?tokens?\b")
_TOKENS_PER = re.compile(r"\b\d*\s?(?:m|k|million|thousand)\b")
_ALL_DAY = re.compile(r"24\s*/\s*7|round\s+the\s+clock|all\s+the\s+time|nonstop|non-stop")
_DAYS = re.compile(rf"(?<![\w.])(?P<n>{_NUM})\s*-?\s*day\b")
_ASKS = re.compile(
    r"\b(?:cost\w*|bill\w*|charg\w*|pay|total|spend|come\s+to|run\s+(?:me|us)|set\s+(?:me|us)\s+back)\b|"
    r"\bhow\s+much\b(?!\s+(?:memory|ram|vram|time|power|faster|slower))|=\s*\?"
)
# "..., what's that?", "what's 100 GB of block storage for 6 months": money asked in shorthand, of what the question gives
WHAT_IS_IT = re.compile(
    r"\bwhat(?:'s|s|\s+is|\s+would\s+be|\s+are)\s+(?:that|it|this|the\s+(?:bill|damage|total)\b|"
    rf"(?:{_NUM}|an?|one|two|three|four|five|six|ten)\s)"
)
# The total of something the notes describe, its rate and its length both jotted ("what did the render come to",
# "what did the batch end up costing"): the length may come from the note's sentence.
_TOTAL = re.compile(
    r"\b(?:c[oa]me\s+to|total|end(?:ed)?\s+up\s+cost\w*|set\s+(?:me|us)\s+back|all\s+in|in\s+all|"
    r"did\b[^?]{0,60}\bcost|was\s+the\s+(?:bill|cost|damage))\b"
)
_QUALIFIERS = ("spot", "preemptible", "interruptible", "on demand", "on-demand", "reserved", "committed", "1yr", "3yr")
_INSTANCE = re.compile(r"\b[a-z]+\d+[a-z]*\.\d*[a-z]+\b|\b[a-z]\d-[a-z]+-\d+[a-z]\b")
_CLAUSE_BREAK = re.compile(r";|,|\(|\)|\s[-–—]\s|\bvs\.?(?=\s)|\bversus\b|\bwhile\b|\bbut\b|\.\s")
_NICKNAME = re.compile(r"[\"“'‘]([^\"”'’]{2,40})[\"”'’]")
_GENERIC = frozenset(words_of("gpu gpus card box cost bill run runs rent would that this there total price rate on demand spot"))


@dataclass(frozen=True)
class Rate:
    """Money per a time and at most one counted thing, as written (``$0.95/node-hr``: 0.95 USD per node per hour)."""

    amount: float
    currency: str
    time: str | None  # second, minute, hour, day, week, month, year
    per: str | None  # the thing counted: "node", "seat", "gb", "slice"
    written: str
    start: int = 0
    end: int = 0

    @property
    def unit(self) -> str:
        parts = [p for p in (self.per if self.per not in ("gb", "tb") else self.per.upper(), self.time) if p]
        return "-".join(parts)


def _noun(word: str) -> str:
    word = word.lower().strip(".")
    word = _SAME.get(word, word)
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return _SAME.get(word, word)


def rates_in(text: str) -> list[Rate]:
    """The rates ``text`` states, in order (see the module doc); a price with no unit is no rate, nor a price per
    million tokens or per kWh (the token and energy sums are :mod:`hwqa.prices.costs`')."""
    found: list[Rate] = []
    for m in _AMOUNT.finditer(text):
        time: str | None = None
        per: str | None = None
        other = False
        end = m.end()
        while (part := _UNIT_PART.match(text, end)) is not None:
            end = part.end()
            for word in (part.group("w") or part.group("t") or part.group("adv")).replace("-to-", " to ").split("-"):
                if word in _TIME_WORDS:
                    time = time or _TIME_WORDS[word]
                elif word in _NOT_COUNTED or _TOKENS_PER.fullmatch(word):
                    other = True
                elif per is None:
                    per = _noun(word)
        if other or per == "token" or (time is None and per is None) or _TOKENS.match(text, end):
            continue
        amount = float(m.group("num").replace(",", ""))
        found.append(Rate(amount, _CURRENCY[m.group("cur")], time, per, text[m.start() : end].strip(), m.start(), end))
    return found


def _count_of(token: str) -> float:
    return float(token.replace(",", "")) if token[0].isdigit() else float(WORD_NUMBERS[token])


def _counts(text: str) -> dict[str, float]:
    """The counts a text gives, by the thing counted ("4 nodes", "2 mig slices", "4.5 GB", "3 seeds x 5 folds": 15)."""
    out: dict[str, float] = {}
    for m in PRODUCT.finditer(text):  # "3 seeds x 5 folds": 15 folds in all
        out[_noun(m.group("noun"))] = float(m.group("a")) * float(m.group("b"))
    for m in _COUNT.finditer(PRODUCT.sub(lambda p: " " * len(p.group(0)), text)):
        n = _count_of(m.group("n"))
        whole = m.group("noun") in _TIME_WORDS  # "2900 gpu hours": gpu-hours, as many hours of one gpu
        for word in (m.group("adj"), m.group("noun")):
            if word and word not in _TIME_WORDS and not word[0].isdigit():
                out.setdefault(_noun(word), 1.0 if whole else n)
    for m in _SIZE.finditer(text):  # "4.5GB", written together
        out.setdefault(m.group("u"), _count_of(m.group("n")))
    for m in _OF_US.finditer(text):
        out.setdefault("seat", _count_of(m.group("n") or m.group("m")))
    if "tb" in out and "gb" not in out:
        out["gb"] = out["tb"] * 1000
    return out


def _duration(words: PriceWords, text: str, time: str) -> tuple[float, str] | None:
    """How many of ``time`` the question asks about, and how it said it; None when it gives no duration."""
    if time in ("month", "year"):
        period = _PERIOD.search(text)
        if period is not None:
            n = 1.0 if period.group("n") in ("a", "an", "one") else _count_of(period.group("n"))
            months = n * (12 if period.group("u").startswith("y") else 1)
            count = months if time == "month" else months / 12
            return count, f"{count:g} {time}{'s' if count != 1 else ''}"
        per = _PER_PERIOD.search(text)
        if per is not None and not (words.hours is not None and _DAYS.search(text)):
            year = (per.group("u") or per.group("adv") or "").startswith(("y", "a"))
            count = 12.0 if time == "month" and year else 1 / 12 if time == "year" and not year else 1.0
            return count, f"{count:g} {time}{'s' if count != 1 else ''}"
    hours = words.hours
    if hours is None:
        short = _SHORT_TIME.search(text)
        if short is not None:
            unit = "minute" if short.group("u").startswith("m") else "second"
            hours = _count_of(short.group("n")) * HOURS_PER[unit]
    if hours is None and _ALL_DAY.search(text):
        hours = HOURS_PER_MONTH  # round the clock, no period named: a month of it
    if hours is None:
        return None
    n = hours / HOURS_PER[time]
    return n, hours_said(hours) if time == "hour" else f"{hours_said(hours)} ({n:,.6g} {time}s)"


def _noted_duration(said: str, time: str, thing: str = "") -> tuple[float, str] | None:
    """How long the note's own sentence says the priced thing ran ("the whole render took about 6.5 hrs", "a run takes
    ~20 min there"), in ``time`` units, when it says one length only; of several, the one of the sentence naming the
    ``thing`` the question asks a price per ("a full marathon takes about 9 hrs")."""
    lower = said.lower()
    if thing and len(_LENGTHS.findall(lower)) > 1:
        lower = next((s for s in re.split(r"(?<=[.!?])\s+|\s\*\s", lower) if thing[:4] in s), lower)
    rest = _strip_rates(lower, rates_in(lower))
    span = _duration(read_price_words(rest), rest, time)
    if span is None or len(_LENGTHS.findall(rest)) != 1:
        return None
    return span[0], f"{span[1]} (as your note says)"


_LENGTHS = re.compile(
    rf"(?<![\w.$/])~?(?:\d{{1,4}}\s*(?:h|hrs?|hours?)\s*\d{{1,2}}\s*(?:m|mins?|minutes?)\b|"
    rf"{_NUM}\s*-?\s*(?:h|hrs?|hours?|min|mins|minutes?|secs?|seconds?|days?)\b)"
)


@dataclass(frozen=True)
class _Noted:
    """A sentence of the notes with a price in it, and where it is."""

    text: str
    note: str
    line: int
    note_title: str = ""
    section: str = ""
    url: str | None = None
    as_of: str | None = None
    provider: str = ""


def _sentences(table: PriceTable) -> list[_Noted]:
    """Every sentence or row a price was read from, or left out of the table, once, with where it is."""
    seen: dict[tuple[str, int, str], _Noted] = {}
    for row in table.rows:
        if row.evidence:
            key = (row.note, row.line, row.evidence)
            noted = _Noted(row.evidence, row.note, row.line, row.note_title, row.section, row.url, row.as_of, row.provider)
            seen.setdefault(key, noted)
    for fact in table.facts:
        if fact.evidence and fact.currency not in ("W",):
            key = (fact.note, fact.line, fact.evidence)
            seen.setdefault(key, _Noted(fact.evidence, fact.note, fact.line, fact.note_title, fact.section, fact.url, fact.as_of))
    for item in table.left_out:
        note, _, line = item.where.rpartition(":")
        if note and line.isdigit():
            seen.setdefault((note, int(line), item.text), _Noted(item.text, note, int(line)))
    return list(seen.values())


def _named(text: str) -> tuple[list[str], set[str]]:
    """What a question names: instance types (matched whole), and its other words (no number, time or word like "cost")."""
    whole = [m.group(0) for m in _INSTANCE.finditer(text)]
    asked = {w for w in words_of(_INSTANCE.sub(" ", text)) - _GENERIC if not w.isdigit() and w not in _TIME_WORDS}
    return whole, asked


def _sentence_fit(whole: Sequence[str], asked: set[str], noted: _Noted) -> int:
    """How well a sentence names what the question asks about: the instance types it names whole (10 each), else
    the question's words it holds (a word of a nickname it gives in quotes, or with a digit in it, 2; others 1).
    0 when the question names a model or instance ("H200", "g6.xlarge") the sentence does not."""
    said = noted.text.lower()
    if whole:
        return 10 * sum(1 for w in whole if re.search(rf"(?<![\w.-]){re.escape(w)}(?![\w-]|\.\w)", said))
    if not all(holds_name(said, a) for a in asked if is_model(a)):
        return 0
    own = words_of(said)
    nick = words_of(" ".join(_NICKNAME.findall(said)))
    return sum(
        2 if a in nick or any(c.isdigit() for c in a) else 1
        for a in asked
        if a in own or (len(a) >= 4 and any(s.startswith(a) for s in own))
    )


def _clause(said: str, rate: Rate) -> str:
    """The clause of ``said`` that holds ``rate``: between the separators around it (";", ",", brackets, "vs")."""
    start = max((m.end() for m in _CLAUSE_BREAK.finditer(said, 0, rate.start)), default=0)
    after = _CLAUSE_BREAK.search(said, rate.end)
    return said[start : after.start() if after else len(said)]


def _pick_rate(text: str, noted: _Noted, counts: dict[str, float], whole: Sequence[str], asked: set[str]) -> Rate | None:
    """The rate of ``noted`` that the question asks about: the one whose clause holds its qualifier ("spot"; none
    when no clause does), else one per a thing it counts, else the one whose clause names what it names (the
    first of those); a spot price only when asked for."""
    said = noted.text.lower()
    rates = rates_in(said)
    if not rates:
        return None
    clauses = {r.start: _clause(said, r) for r in rates}
    wanted = [q for q in _QUALIFIERS if q in text]
    if wanted:
        rates = [r for r in rates if any(q in clauses[r.start] for q in wanted)]
        if not rates:
            return None  # "on spot": the sentence names no spot price
    else:
        rates = [r for r in rates if not any(q in clauses[r.start] for q in _QUALIFIERS[:3])] or rates
    rates = [r for r in rates if r.per is not None and r.per in counts] or rates
    billed = billed_as_asked(text, [clauses[r.start] for r in rates])  # "if we go annual": the yearly-billed rate
    rates = [rates[i] for i in billed]

    def fit(rate: Rate) -> int:
        clause = clauses[rate.start]
        return 10 * sum(1 for w in whole if w in clause) + overlap(asked, words_of(clause))

    return max(rates, key=lambda r: (fit(r), -r.start))


def _fact_of(noted: _Noted, rate: Rate, subject: str) -> PriceFact:
    return PriceFact(
        subject=subject,
        kind="rental",
        amount=rate.amount,
        currency=rate.currency,
        unit=rate.time or "once",
        provider=noted.provider,
        as_of=noted.as_of,
        note=noted.note,
        note_title=noted.note_title,
        line=noted.line,
        evidence=noted.text,
        stated=rate.written,
        section=noted.section,
        url=noted.url,
    )


def answer_rate(words: PriceWords, table: PriceTable | None) -> CostAnswer | None:
    """A money question worked out as a rate times the quantities it is per (see the module doc), or None when the
    question states no rate and names nothing the notes give a rate for with a duration or count."""
    text = words.text
    stated = rates_in(text)
    if not (_ASKS.search(text) or WHAT_IS_IT.search(text) or (stated and re.search(r"\bwhat(?:'s|s|\s+is)\b", text))):
        return None
    if ENERGY.search(text) and not stated:
        return None  # "what does that cost in electricity": a draw and a tariff, never a rental's rate
    used = _USED.search(text)
    if used is not None and table is not None:
        return _with_usage(text, float((used.group("n") or used.group("m")).replace(",", "")), table)
    if words.budget_usd is not None and not stated:
        return None
    counts = _counts(_strip_rates(text, stated))
    if stated:
        return _worked(words, text, stated[0], counts, None, "")
    if table is None or words.v100_hours is not None or words.budget_usd is not None or (words.compare and " or " in text):
        return None
    whole, asked = _named(text)
    if not whole and not asked:
        return None
    fits = ((_sentence_fit(whole, asked, n), i, n) for i, n in enumerate(_sentences(table)))
    scored = sorted(fits, key=lambda s: (-s[0], s[1]))
    if not scored or scored[0][0] < (10 if whole else 2):
        return None
    best = [n for score, _, n in scored if score == scored[0][0]]
    picked = [(n, r) for n in best if (r := _pick_rate(text, n, counts, whole, asked)) is not None]
    if len({(r.amount, r.unit) for _, r in picked}) != 1:
        return None  # none, or several rates that differ: the calculator or the passages answer
    noted, rate = picked[0]
    own = _counts(noted.text.lower())
    clause = words_of(_clause(noted.text.lower(), rate))
    named = list(whole) or [
        words.original[h.start : h.end].strip() for h in words.hardware if words_of(h.word) <= clause
    ]  # "TPU v3", as the question writes it, when the rate's clause names it
    subject = named[0] if named else _subject(noted.text, asked, rate)
    return _worked(words, text, rate, counts, noted, subject, own)


def _with_usage(text: str, used: float, table: PriceTable) -> CostAnswer | None:
    """ "We used $180 of compute on the Teams plan": a monthly plan that includes some usage, plus what was used past it."""
    whole, asked = _named(text)
    plans: list[tuple[int, _Noted, Rate, float]] = []
    for noted in _sentences(table):
        for rate in rates_in(noted.text.lower()):
            credit = _INCLUDED.match(noted.text.lower(), rate.end) if rate.time == "month" and rate.per is None else None
            if credit is not None:
                amount = float(credit.group("n").replace(",", ""))
                plans.append((_sentence_fit(whole, asked, noted), noted, rate, amount))
    best = max((p[0] for p in plans), default=0)
    top = [p for p in plans if p[0] == best]
    if best == 0 or len(top) != 1:
        return None
    _, noted, rate, included = top[0]
    over = max(0.0, used - included)
    subject = _subject(noted.text, asked, rate) or "the plan"
    plan, spent, free = (price_text(x, rate.currency) for x in (rate.amount, used, included))
    if over > 0:
        sum_text = f"{plan} + ({spent} used − {free} included) = **{total_text(rate.amount + over, rate.currency)}**"
    else:
        sum_text = f"**{plan}**: the {spent} used is within the {free} the plan includes"
    body = f"{subject}, {plan}/month with {free} of usage included: {sum_text} for the month, as your notes price it."
    return CostAnswer(body, (_fact_of(noted, rate, subject),), True)


def _strip_rates(text: str, rates: Sequence[Rate]) -> str:
    for r in sorted(rates, key=lambda r: -r.start):
        text = text[: r.start] + " " * (r.end - r.start) + text[r.end :]
    return text


def _subject(sentence: str, asked: set[str], rate: Rate) -> str:
    """What a noted rate is for, in words: the nickname the question used, else the sentence's words before its price."""
    nick = [n for n in _NICKNAME.findall(sentence) if words_of(n) & asked]
    if nick:
        return f"the {nick[0]}"
    head = re.split(r"\s[-–—]\s|:|\(|,", sentence[: rate.start])[0]
    head = re.sub(r"\s+(?:is|at|for|costs?|runs?|bills?|charges?|was|=)?\s*~?$", "", head.strip()).strip()
    return head[:60] if head and len(head.split()) <= 8 else ""


def _of(n: float, per: str) -> str:
    """ "4 nodes", "4.5 GB", "1 seat", "1,300 pages"."""
    plural = n != 1 and not per.endswith("s") and per not in ("ppl", "people", "staff")
    return f"{n:,g} {per.upper()}" if per in ("gb", "tb") else f"{n:,g} {per}{'s' if plural else ''}"


def _worked(
    words: PriceWords,
    text: str,
    rate: Rate,
    counts: dict[str, float],
    noted: _Noted | None,
    subject: str,
    own: dict[str, float] | None = None,
) -> CostAnswer | None:
    """The sum of ``rate`` times the question's quantities, in the open; what cannot be cancelled said plainly
    (for a rate the question states) or left to the calculator and the passages (for a noted one: a lookup)."""
    factors: list[str] = []
    total = rate.amount
    missing: list[str] = []
    from_note = ""
    if rate.per is not None:
        n = counts.get(rate.per)
        if n is None and rate.per == "seat" and _PAIR.search(text):
            n = 2.0  # "me and carla", "both of us"
        if n is None and own:
            n = own.get(rate.per)
            from_note = "" if n is None else f" ({_of(n, rate.per)}, as your note says)"
        if n is None and own and rate.per == "seat" and (seats := seats_noted(text, noted.text if noted else "", own)):
            n, from_note = seats[0], f" ({_of(seats[0], seats[1])}, as your note says)"
        if n is None:
            missing.append(f"how many {rate.per.upper() if rate.per in ('gb', 'tb') else rate.per + 's'}")
        else:
            total *= n
            factors.append(_of(n, rate.per))
    elif noted is not None and (many := asked_count(text, subject, noted.text, counts, own)) is not None:
        total *= many[0]
        factors.append(_of(many[0], many[1]) if many[1].islower() and many[1] != subject else f"{many[0]:g} {many[1]}")
    counted = bool(factors)
    if rate.time is not None:
        span = _duration(words, text, rate.time)
        said = noted.text if noted is not None else ""
        if noted is not None and (runs := runs_in_period(text)) and (one := _noted_duration(said, rate.time)):
            span = runs[0] * one[0], f"{runs[1]} × {one[1]}"  # "retrain every quarter … a year": 4 × the run's 6 hrs
        asks_noted = _TOTAL.search(text) or per_thing_noted(text, said, _TIME_WORDS) or (counted and each_unit(said) is not None)
        if span is None and noted is not None and asks_noted and rate.time in ("second", "minute", "hour", "day"):
            span = _noted_duration(noted.text, rate.time, each_unit(said) or "")
            if span is not None and (done := runs_done(said, text)) is not None:  # "did 5 runs, each about 1.5 hrs"
                span = done[0] * span[0], f"{done[1]} × {span[1]}"
        if span is None:
            missing.append("for how long")
        else:
            total *= span[0]
            factors.append(span[1])
    if missing:
        if noted is not None:
            return None  # a lookup: the calculator or the passages say the price
        example = f"{rate.written} for 10 hours" if rate.time else f"{rate.written} for 3 {rate.per}s"
        return CostAnswer(f"To work out {rate.written} I need {' and '.join(missing)}; ask again with it (e.g. “{example}”).", ())
    if not factors:
        return None
    price = f"{price_text(rate.amount, rate.currency)}/{rate.unit}"
    where = f" for {subject}" if subject else ""
    source = " (the rate your question gives)" if noted is None else f"{where}, as your notes price it{from_note}"
    body = f"{' × '.join([*factors, price])} = **{total_text(total, rate.currency)}**{source}."
    if noted is not None and noted.as_of:
        body += f" (Noted {noted.as_of}.)"
    facts = (_fact_of(noted, rate, subject or rate.written),) if noted is not None else ()
    foreign = "" if rate.currency == "USD" else f" Kept in {rate.currency} as stated: no exchange rate is given."
    return CostAnswer(body + foreign, facts, counted, total)
