"""A money question worked out from the passages its answer quotes.

The price table's facts are read sentence by sentence, so a factor a note jots in the next sentence or
item is lost to them ("rented an A100 40G on Lambda at $1.20/hr. Whole run took 7.5 hrs"; "NUC pulls
~11W at the wall, runs 24/7" with "$0.31/kWh" a line below). The answerer's quote is chosen for the
question and holds the neighbouring sentences of its entry, so when the facts answer nothing, the
product the question asks for is worked out over the quote (each piece with the note it is from):

- a rate times the quantities it is per (:func:`hwqa.prices.rates.rates_in`: per hour, per node-hour,
  per page, …), the rate the question states or the quote's, the duration and counts from the question,
  else from the quote when the question asks what something came to ("did … cost", "come to");
- energy: a draw in the quote (the one whose words match what the question says of the load: idle,
  busy) × hours (the question's, scaled by how many hours a day the quote says it runs, or the quote's
  run length) × the price of a kWh (the quote's, else the notes' for the same note, else the newest);
- a price each times how many the question wants ("$39.95 each" and "the three dongles");
- two quoted prices over the same quantities and their difference ("how much would spot have saved");
- break-even: a price paid once over a quoted rental rate, in the rate's time unit;
- what is left of a budget the passage names after the other prices it gives ("after the parts");
- what a whole setup came to: every price of the passage's lines, a price each times its line's count;
- a price per TB or GB: each quoted line of one price and one size, the price over the size.

What no factor cancels is left to the calculator and the passages, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .breakeven import asks_break_even, break_even, breaks_even
from .counts import asked_count, people_asked, priced_each
from .factmatch import ENERGY, CostAnswer, holds_name, is_model, money_text, of_kind, overlap, price_text, total_text, words_of
from .itemsums import asks_items, named_total
from .names import find_money, find_watts
from .passagesums import (
    ASKS,
    EACH,
    LINES,
    asks_left,
    asks_whole,
    budget_left,
    clause_of,
    clause_words,
    per_size,
    size_asked,
    whole_setup,
)
from .percent import asked_percent, percent_of, without_percent
from .rates import (
    _ALL_DAY,
    _COUNT,
    _LENGTHS,
    _TIME_WORDS,
    _TOTAL,
    PRODUCT,
    WHAT_IS_IT,
    Rate,
    _count_of,
    _counts,
    _named,
    _Noted,
    _noun,
    _pick_rate,
    _strip_rates,
    _worked,
    rates_in,
)
from .table import PriceTable
from .units import HOURS_PER
from .words import COUNT_WORDS, WORD_NUMBERS, PriceWords, nights_only, read_price_words

__all__ = [
    "asked_percent",
    "asks_difference",
    "asks_energy",
    "asks_every",
    "asks_items",
    "asks_sum",
    "asks_whole",
    "breaks_even",
    "work_quoted",
]

_RATE_ASKED = re.compile(r"\b(?:per|an|a|each)\s+(?:hour|hr|h|month|mo|day|year|gpu[\s-]?hour)\b|\bhourly\b|/\s*(?:hr|h|mo)\b")
_CENTS_KWH = re.compile(r"(?<![\w.,$£€])(\d{1,3}(?:\.\d+)?)\s?(?P<u>cents?|ct|c|¢|p|pence)\s?(?:/|per\s+|a\s+)?\s?kwh\b", re.I)
_IDLE = re.compile(r"\bidl\w*|\bsleep\w*|\bstandby\b|\bsuspend\w*")
_LOAD = re.compile(r"\b(?:load\w*|full\s+tilt|flat\s+out|max\w*|peak|train\w*|busy|stress\w*|render\w*|gaming|inference)\b")
_PERIOD = re.compile(
    r"\b(?:a|per|each|every|the)\s+(?P<u>month|year|week|day)\b|\b(?P<adv>monthly|yearly|annual(?:ly)?|weekly|daily)\b"
)
_WANTED = re.compile(
    rf"(?<![\w.$/-])(?P<n>\d{{1,3}}|{COUNT_WORDS})\s+(?:more\s+|extra\s+|new\s+|of\s+(?:the|those|these|them)\s+)?"
    r"(?P<noun>[a-z][\w-]*)"
)
_NOT_THINGS = frozenset({"hours", "hrs", "hour", "h", "days", "day", "weeks", "months", "years", "nights", "gb", "tb", "w", "x"})


def work_quoted(
    words: PriceWords,
    pieces: Sequence[tuple[str, str]],
    table: PriceTable | None,
    *,
    confident: bool = True,
    context: str = "",
) -> CostAnswer | None:
    """The sum a money question asks for, worked over the quoted ``pieces`` (text, note), or None (see the module doc).
    Not ``confident``: spans quoted without the answerer's confidence, whose rate may be another thing's; then no
    rate of theirs is multiplied by the question's own time or count (a rental, a price each). ``context``: the rest of
    the first quoted note, for a count the quote leaves out ("~1,300 pages" for a price per page)."""
    text = words.text
    if not pieces or words.budget_usd is not None or words.refused:
        return None
    asked = asked_percent(text)
    if asked is not None:  # "incl. their overhead": the rest of the question's sum, then the quote's percentage
        rest = read_price_words(without_percent(words.original, asked))
        return percent_of(asked, work_quoted(rest, pieces, table, confident=confident, context=context), pieces)
    if asks_break_even(text) and words.purchase_usd is None:
        return break_even(words, pieces, context)
    if asks_left(text):
        return budget_left(words, pieces)
    if asks_whole(words) and (setup := whole_setup(words, pieces)) is not None:
        return setup
    if asks_items(words) and (items := named_total(words, pieces)) is not None:
        return items
    if (unit := size_asked(text)) is not None and words.hours is None:
        return per_size(words, pieces, unit)
    if not (ASKS.search(text) or WHAT_IS_IT.search(text)):  # "keeping the scans on b2 for a year, what's that"
        return None
    if ENERGY.search(text):
        return _energy(words, pieces, table, context)
    stated = rates_in(text)
    if stated:  # the question's own rate: only a length or count the quote gives is wanted from it
        return _rental(words, pieces, stated[0])
    if _DIFFERENCE.search(text):
        return _difference(words, pieces)
    if _RATE_ASKED.search(text) and words.hours is None:
        return None  # "what's the A100 per hour": a lookup, the quote says it
    each = people_asked(text) and any(priced_each(piece) for piece, _ in pieces)  # "30 ppl" over "one T4 box each"
    if not confident and (words.hours is not None or _WANTED.search(text)) and not each:
        return None  # "4 of the 48gb cards for 12 hrs" over a quote of another card's rate: the calculator says so
    return _rental(words, pieces, None, context) or _each(words, pieces)


def asks_every(words: PriceWords, context: str) -> bool:
    """Whether a money question asks for every one of something the note counts ("every episode" and "36 episodes
    in the archive"): a count only the quote's note gives, so the quote's sum goes first."""
    return (
        ASKS.search(words.text) is not None and asked_count(words.text, "", "", {}, _note_counts(context, words.text)) is not None
    )


def asks_sum(text: str) -> bool:
    """Whether a question asks for anything :func:`work_quoted` works out (money, a break-even, what is left, a price
    per size): a question that does not is never worth its spans' second look."""
    return bool(ASKS.search(text) or asks_break_even(text) or asks_left(text) or size_asked(text))


def asks_energy(text: str) -> bool:
    """Whether a question asks what electricity costs ("power cost of the box for a month")."""
    return ENERGY.search(text) is not None


def asks_difference(text: str) -> bool:
    """Whether a question asks how much more, less or saved ("how much would spot have saved")."""
    return _DIFFERENCE.search(text) is not None


def _difference(words: PriceWords, pieces: Sequence[tuple[str, str]]) -> CostAnswer | None:
    """ "how much more on secure cloud than community", "what would spot have saved": the same quantities at the two
    rates of the quote whose clauses the question names (or its only two), the larger less the smaller."""
    text = words.text
    asked = words_of(text)
    held = next(((p, n) for p, n in pieces if len(rates_in(p.lower())) >= 2), None)
    if held is None:
        return None
    whole, note = held
    lower = whole.lower()
    rates = rates_in(lower)
    clauses = [clause_words(lower, r.start, r.end) for r in rates]
    ranked = sorted(range(len(rates)), key=lambda i: (-overlap(asked, clauses[i]), i))
    pair = ranked[:2] if len(rates) > 2 else [0, 1]
    if len(rates) > 2 and overlap(asked, clauses[pair[1]]) == 0:
        return None  # which two of several prices the question compares is not said
    a, b = (rates[i] for i in sorted(pair))
    if a.currency != b.currency:
        return None
    counts = _counts(_strip_rates(text, rates_in(text)))
    own = _own_counts(lower, rates)
    sums: list[tuple[float, str]] = []
    for rate in (a, b):
        line = _rate_lines(whole, rate.written)  # its own line's length, never the other rate's
        one = rates_in(line.lower())
        rate = next((r for r in one if r.written == rate.written), rate)
        worked = _worked(words, f"{text} total", rate, counts, _Noted(line, note, 0), "", own)
        if worked is None or worked.total is None:  # the length for both said once ("the whole run took about 20h")
            worked = _worked(words, f"{text} total", rate, counts, _Noted(whole, note, 0), "", own)
        if worked is None or worked.total is None:
            return None
        sums.append((worked.total, worked.text.replace(", as your notes price it", "").rstrip(".")))
    (low, cheap), (high, dear) = sorted(sums)
    if high == low:
        return None
    said = money_text(high - low, a.currency)
    return CostAnswer(f"{dear} against {cheap}: the difference is **{said}** (as the quote below prices them).", ())


def _rate_lines(whole: str, written: str) -> str:
    """The sentence of ``whole`` a rate is written in, with the sentences after it up to the next one with a rate ("$0.85/hr
    all in. a trial takes ~6 min on it.")."""
    lines = LINES.split(whole)
    at = next((i for i, ln in enumerate(lines) if written in ln.lower()), None)
    if at is None:
        return whole
    end = next((j for j in range(at + 1, len(lines)) if rates_in(lines[j].lower())), len(lines))
    return " ".join(lines[at:end])


_DIFFERENCE = re.compile(
    r"\bvs\.?\s|\bversus\b|"  # "what does it cost on the l4 box vs a 4090": both sums, and what lies between them
    r"\bhow\s+much\s+(?:more|less|cheaper|extra|dearer)\b|\bsav(?:e|ed|es|ing|ings)\b|\bdifference\b|"
    r"\bby\s+how\s+much\b|\bmore\s+expensive\b|\bcheaper\b[^?]*\bby\b"
)


def _own_counts(lower: str, rates: Sequence[Rate]) -> dict[str, float]:
    """The counts a quote gives; "8x H100" (a count of a model) is also a count of GPUs, for a rate per GPU."""
    own = _counts(_strip_rates(lower, rates))
    many = _GPUS.search(lower)
    if many is not None:
        own.setdefault("gpu", float(many.group(1)))
    return own


_GPUS = re.compile(r"(?<![\w.$])(\d{1,3})\s*x\s*(?:[a-z]+\s+)?[a-z]{1,3}\d{2,4}[a-z]{0,3}\b")


def _note_counts(context: str, asked: str) -> dict[str, float]:
    """The counts a note gives by noun ("~1,300 pages", "22 league games"); a noun counted with two numbers ("1,300
    pages of letters", "check 20 pages") counts the one whose line shares most words with the question (``asked``),
    none when that ties. "one episode takes …" is of one, no count; "3 seeds x 5 folds" is 15 folds."""
    seen: dict[str, dict[float, int]] = {}
    question = words_of(asked)
    for line in LINES.split(context.lower()):
        fit = overlap(question, words_of(line))
        line = _strip_rates(line, rates_in(line))
        for m in PRODUCT.finditer(line):  # "3 seeds x 5 folds": 15 folds in all
            fits = seen.setdefault(_noun(m.group("noun")), {})
            n = float(m.group("a")) * float(m.group("b"))
            fits[n] = max(fits.get(n, 0), fit)
        for m in _COUNT.finditer(PRODUCT.sub(lambda p: " " * len(p.group(0)), line)):
            n = _count_of(m.group("n"))
            for word in (m.group("adj"), m.group("noun")):
                if word and word not in _TIME_WORDS and not word[0].isdigit() and n != 1:
                    fits = seen.setdefault(_noun(word), {})
                    fits[n] = max(fits.get(n, 0), fit)
    out: dict[str, float] = {}
    for noun, fits in seen.items():
        ranked = sorted(fits.items(), key=lambda f: -f[1])
        if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
            out[noun] = ranked[0][0]
    return out


def _rental(words: PriceWords, pieces: Sequence[tuple[str, str]], stated: Rate | None, context: str = "") -> CostAnswer | None:
    text = words.text
    whole, asked = _named(text)
    counts = _counts(_strip_rates(text, rates_in(text)))
    in_note = _note_counts(context, text)  # the same for every piece: read once
    for piece, note in pieces:
        noted = _Noted(piece, note, 0)
        lower = piece.lower()
        rate = stated if stated is not None else _pick_rate(text, noted, counts, whole, asked)
        if rate is None:
            continue
        own = _own_counts(lower, rates_in(lower))
        own |= {k: n for k, n in in_note.items() if own.get(k, 1) == 1}  # "one episode" is no count
        if stated is not None:
            if words.hours is not None or not (_TOTAL.search(text) or _WHOLE.search(text)):
                return None
            length = _length_asked(text, piece)
            if length is None:
                continue
            longer = read_price_words(f"{words.original} for {length}")
            worked = _worked(longer, longer.text, rate, counts, None, "")
            if worked is not None:
                return CostAnswer(
                    worked.text.replace(
                        " (the rate your question gives)", f" (the rate your question gives; {length} as the quote below says)"
                    ),
                    (),
                    worked.counted,
                    worked.total,
                )
            continue
        else:
            worked = _worked(words, text, rate, counts, noted, "", own)
        if worked is not None:
            return CostAnswer(
                worked.text.replace("as your notes price it", "as the quote below says"), (), worked.counted, worked.total
            )
        if stated is None:
            return None  # the first piece with a rate decides: no factor from another thing's line
    return None


_WHOLE = re.compile(r"\b(?:worst|whole|full|all|entire)\b")


def _length_asked(text: str, piece: str) -> str | None:
    """The length the quote gives for what the question asks: its only one, else the one whose clause shares the
    most words with the question (none when two tie)."""
    found = list(_LENGTHS.finditer(piece.lower()))
    if len(found) == 1:
        return found[0].group(0).strip("~ ")
    asked = words_of(text)
    fits = sorted(((overlap(asked, clause_words(piece.lower(), m.start(), m.end())), m.group(0)) for m in found), reverse=True)
    if not fits or fits[0][0] == 0 or (len(fits) > 1 and fits[1][0] == fits[0][0]):
        return None
    return fits[0][1].strip("~ ")


_GEFORCE = re.compile(r"[1-5]0[5-9]0")


def _draw(text: str, pieces: Sequence[tuple[str, str]]) -> tuple[float, str, str] | None:
    """The draw the question asks about: (watts, its clause, its note)."""
    # "the a10g", "my 3070" (a GeForce number): never the draw of another card
    models = [w for w in re.findall(r"[a-z0-9]+", text) if is_model(w) or _GEFORCE.fullmatch(w)]
    found: list[tuple[float, str, str]] = []
    for piece, note in pieces:
        for line in LINES.split(piece):
            if not all(holds_name(line.lower(), m) for m in models):
                continue
            for at, end, watts in find_watts(line):
                clause = clause_of(line, at, end).strip()
                found.append((watts, clause, note))
        if found:
            break  # the best piece with a draw in it
    if not found:
        return None
    for asked in (_IDLE, _LOAD):
        if asked.search(text):
            fitting = [f for f in found if asked.search(f[1])]
            if fitting:
                return fitting[0]
    fitting = [f for f in found if not _IDLE.search(f[1])] or found
    asked_words = words_of(text)
    return max(fitting, key=lambda f: overlap(asked_words, words_of(f[1])))


def _kwh_price(pieces: Sequence[tuple[str, str]], note: str, table: PriceTable | None) -> tuple[float, str, str] | None:
    """The price of a kWh: (amount, currency, where): the quote's, else the notes' (the draw's note first)."""
    for piece, _ in pieces:
        for m in find_money(piece):
            if m.unit == "kwh" and m.amount > 0:
                return m.amount, m.currency, "the quote below"
        cents = _CENTS_KWH.search(piece)
        if cents is not None:  # "24.5p/kWh": pence, a British tariff
            return float(cents.group(1)) / 100, "GBP" if cents.group("u").lower() in ("p", "pence") else "USD", "the quote below"
    if table is None:
        return None
    prices = [f for f in of_kind(table.facts, "electricity") if f.unit == "kwh" and f.amount > 0]
    same = [f for f in prices if f.note == note]
    pick = same or prices
    if not pick or (not same and len({(f.amount, f.currency) for f in prices}) != 1):
        return None  # several prices in other notes: which one is the box's is not said
    fact = max(pick, key=lambda f: f.as_of or "")
    return fact.amount, fact.currency, f"your notes ({fact.note_title or fact.note})"


def _energy(
    words: PriceWords, pieces: Sequence[tuple[str, str]], table: PriceTable | None, context: str = ""
) -> CostAnswer | None:
    text = words.text
    draw = _draw(text, pieces)
    if draw is None or find_watts(text):
        return None
    watts, clause, note = draw
    whole = " ".join(p for p, _ in pieces)
    said = read_price_words(whole.lower())
    per_day = 24.0 if _ALL_DAY.search(whole.lower()) else said.hours_per_day
    hours = words.hours
    how = ""
    period = _PERIOD.search(text)
    bare = period is not None and period.group("u") in HOURS_PER and hours == HOURS_PER[period.group("u")]  # "a week"
    if (hours is None or bare) and (cycle := _duty_cycle(text, f"{whole}\n{context}")) is not None:
        # "overnight each month" over the quote or the rest of its note: "10.5 h a night … 22 nights a month"
        hours, how = cycle
    if per_day is None and hours is None and nights_only(words):
        return None  # "overnight each month": how long a night is, neither the question nor the quote says
    if not how and hours is not None and words.hours_per_day is None and per_day is not None and per_day < 24 and hours >= 24:
        how = f"{hours / 24:g} days × {per_day:g} h a day (as the quote says)"
        hours = hours / 24 * per_day
    if hours is None:
        period = _PERIOD.search(text)
        if period is not None and per_day is not None:
            unit = period.group("u") or {"monthly": "month", "yearly": "year", "annual": "year", "annually": "year"}.get(
                period.group("adv"), period.group("adv")[:-2] if period.group("adv") else "month"
            )
            days = HOURS_PER[unit] / 24
            hours = days * per_day
            how = f"{days:,.4g} days × {per_day:g} h a day (as the quote says)"
        elif _TOTAL.search(text) and said.hours is not None and said.hours_per_day is None:
            hours = said.hours
            how = f"{hours:g} h (as the quote says)"
    if hours is None:
        return None
    price = _kwh_price(pieces, note, table)
    if price is None:
        return None
    amount, currency, where = price
    many = asked_count(text, "", clause, _counts(text))  # "the 9 gpu desktops" over "each desktop pulls ~220W"
    draws = f"{many[0]:g} {many[1]}s × {watts:g} W" if many else f"{watts:g} W"
    kwh = watts * hours / 1000 * (many[0] if many else 1)
    cost = kwh * amount
    span = f" ({how})" if how else ""
    body = (
        f"Energy for {hours:,g} hours{span} at {watts:g} W (“{clause}”): {draws} × {hours:,g} h = {kwh:,.1f} kWh; "
        f"at {price_text(amount, currency)}/kWh that is **{total_text(cost, currency)}** (the kWh price: {where})."
    )
    return CostAnswer(body, ())


_DAYS_PER = re.compile(r"(?<![\w.$£€])(?P<n>\d{1,3})\s+(?:(?P<what>[a-z]+)\s+)?(?:a|per|each|every)\s+(?P<u>week|month|year)\b")


def _duty_cycle(text: str, context: str) -> tuple[float, str] | None:
    """The hours of use in the period a question asks for ("each month"), from the rest of the note when it says both
    how long a day or night of use is and how many of them the period holds ("10.5 h a night", "22 nights a month")."""
    period = _PERIOD.search(text)
    if period is None or not context:
        return None
    unit = period.group("u") or {"monthly": "month", "weekly": "week", "yearly": "year", "annual": "year"}.get(
        period.group("adv") or "", ""
    )
    lower = context.lower()
    found = {(float(m.group("n")), m.group("what") or "", m.start()) for m in _DAYS_PER.finditer(lower) if m.group("u") == unit}
    if len({n for n, _, _ in found}) != 1:
        return None  # none, or two different counts: which is meant is a guess
    n, what, at = min(found, key=lambda f: f[2])
    if what in _TIME_WORDS or what.isdigit():
        return None  # "3 hours a week" is a length, not a count of occasions
    lengths = [m.group(0) for m in _LENGTHS.finditer(_line_at(lower, at))]
    if len(lengths) == 1 and not what.startswith(("day", "night", "weekday", "weeknight", "evening")):
        # "shows are 3 hrs incl interval, 8 a week": the one length on the count's line is one occasion's
        one = read_price_words(lengths[0]).hours
        if one is not None and 0 < one <= 24:
            return n * one, f"{n:g} × {lengths[0].strip('~ ')}, as your note says"
    per_day = read_price_words(lower).hours_per_day
    if per_day is None or not 0 < per_day <= 24 or not what:
        return None
    return n * per_day, f"{n:g} × {per_day:g} h, as your note says"


def _line_at(text: str, at: int) -> str:
    """The sentence or list item of ``text`` holding position ``at``."""
    begin = max((m.end() for m in LINES.finditer(text, 0, at)), default=0)
    end = LINES.search(text, at)
    return text[begin : end.start() if end else len(text)]


def _each(words: PriceWords, pieces: Sequence[tuple[str, str]]) -> CostAnswer | None:
    """ "the three dongles" over "$39.95 each": how many the question wants times the price of one."""
    text = words.text
    wanted = [m for m in _WANTED.finditer(text) if m.group("noun") not in _NOT_THINGS]
    if len(wanted) != 1:
        return None
    n_text = wanted[0].group("n")
    n = float(n_text) if n_text.isdigit() else float(WORD_NUMBERS[n_text])
    if n < 2:
        return None
    piece = pieces[0][0]
    one_off = [m for m in find_money(piece) if m.unit is None and m.qualifier is None and m.amount > 0]
    each = [m for m in one_off if EACH.match(piece, m.end)]
    if len(each) != 1:
        return None
    m = each[0]
    thing = words_of(" ".join(text[wanted[0].start("noun") :].split()[:3]))
    if not overlap(thing, words_of(piece[max(0, m.start - 120) : m.start])):
        return None  # "26 tops" over "2x Camera Module 3 Wide at $35 each": not a count of what is priced
    total = n * m.amount
    body = f"{n:g} × {price_text(m.amount, m.currency)} each (as the quote below says) = **{money_text(total, m.currency)}**."
    return CostAnswer(body, ())
