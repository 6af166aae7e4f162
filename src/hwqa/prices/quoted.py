"""A money question worked out from the passages its answer quotes.

The price table's facts are read sentence by sentence, so a factor a note jots in the next sentence or
item is lost to them ("rented an A100 40G on Lambda at $1.20/hr. Whole run took 7.5 hrs"; "NUC pulls
~11W at the wall, runs 24/7" with "$0.31/kWh" a line below). The answerer's quote is chosen for the
question and holds the neighbouring sentences of its entry, so when the facts answer nothing, the
product the question asks for is worked out over the quote (each piece with the note it is from):

- a rate times the quantities it is per (:func:`hwqa.prices.rates.rates_in`: per hour, per node-hour,
  per page, …), the rate the question states or the quote's, the duration and counts from the question,
  else from the quote when the question asks what something came to ("did … cost", "come to");
- energy: a draw in the quote × the hours of use × the price of a kWh (:mod:`hwqa.prices.energy`);
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
from .energy import energy_sum
from .factmatch import ENERGY, CostAnswer, count_word, money_text, overlap, price_text, words_of
from .itemsums import asks_items, named_total
from .names import Money, find_money
from .passagesums import (
    ASKS,
    EACH,
    LINES,
    asks_left,
    asks_whole,
    budget_left,
    clause_words,
    line_at,
    per_size,
    size_asked,
    whole_setup,
)
from .payback import rent_payback
from .percent import asked_percent, percent_of, without_percent
from .rates import (
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
from .words import COUNT_WORDS, WORD_NUMBERS, PriceWords, read_price_words

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
        renting = rent_payback(words, table, context) if table is not None else None
        return renting or break_even(words, pieces, context)
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
        return energy_sum(words, pieces, table, context)
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


def _each(words: PriceWords, pieces: Sequence[tuple[str, str]]) -> CostAnswer | None:
    """ "the three dongles" over "$39.95 each": how many the question wants times the price of one."""
    text = words.text
    wanted = [m for m in _WANTED.finditer(text) if m.group("noun") not in _NOT_THINGS]
    if len(wanted) > 1:
        return None
    piece = pieces[0][0]
    one_off = [m for m in find_money(piece) if m.unit is None and m.qualifier is None and m.amount > 0]
    each = [m for m in one_off if EACH.match(piece, m.end)]
    if len(each) > 1:  # a list of things priced each: the one whose line the question names
        each = _named_line(text, piece, each)
    if len(each) != 1:
        return None
    m = each[0]
    thing = words_of(" ".join(text[wanted[0].start("noun") :].split()[:3])) if wanted else set()
    if not overlap(thing, words_of(piece[max(0, m.start - 120) : m.start])):
        # "26 tops" over "2x Camera Module 3 Wide at $35 each": not a count of what is priced; "what do the drives for
        # the raid 10 come to" over "$159.99 each, need 4 for the RAID 10": the count the line gives
        return _each_noted(text, piece, m)
    n_text = wanted[0].group("n")
    n = float(n_text) if n_text.isdigit() else float(WORD_NUMBERS[n_text])
    if n < 2:
        return None
    total = n * m.amount
    body = f"{n:g} × {price_text(m.amount, m.currency)} each (as the quote below says) = **{money_text(total, m.currency)}**."
    return CostAnswer(body, ())


# How many of a thing priced each its own line says are wanted or were got: "need 4", "would need two", "bought 3"
_NOTED_N = re.compile(
    rf"\b(?:need(?:s|ed)?|bought|got|have|ordered|ordering|buying|getting|want)\s+(?:at\s+least\s+|another\s+)?"
    rf"(?P<n>\d{{1,3}}|{COUNT_WORDS})\b(?!\s*(?:%|x\b|hrs?\b|hours?\b|days?\b|weeks?\b|months?\b|years?\b|gb\b|tb\b))"
)
_ONE_ASKED = re.compile(r"\b(?:one|a\s+single|each|apiece|per\s+(?:unit|piece|one))\b|\b(?:an?)\s+(?!few\b)\w+\s*\??$")


def _named_line(text: str, piece: str, prices: Sequence[Money]) -> list[Money]:
    """Of several prices each in a quote, the one whose line shares the most of the question's words ("the drives for
    the raid" over "… $219 each, need 4 for the RAID 10" and "… $32.95 each, bought three for the case"), if one does."""
    asked = words_of(text)
    shared = [overlap(asked, words_of(line_at(piece, m.start))) for m in prices]
    best = max(shared)
    return [m for m, n in zip(prices, shared, strict=True) if n == best] if best else []


def _each_noted(text: str, piece: str, m: Money) -> CostAnswer | None:
    """A total asked of a thing its quoted line prices each and counts in the same line, the question giving no count
    of its own: the line's count × the price ("$189 each, need 4 more before spring": 4 × $189)."""
    if _ONE_ASKED.search(text) or not ASKS.search(text):
        return None  # "what's one of the drives": the price of one, as quoted
    line = line_at(piece, m.start)
    counts = {count_word(c.group("n")) for c in _NOTED_N.finditer(line.lower())}
    if len(counts) != 1 or not overlap(words_of(text), words_of(line.replace(m.stated, " "))):
        return None
    n = counts.pop()
    if not 2 <= n <= 999:
        return None
    total = n * m.amount
    said = f"{n:g} × {price_text(m.amount, m.currency)} each (the count and the price the quote below gives)"
    return CostAnswer(f"{said} = **{money_text(total, m.currency)}**.", ())
