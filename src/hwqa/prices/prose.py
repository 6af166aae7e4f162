"""Prices read from text: the sentences and list items of a note or article, and its tables.

A document is walked block by block (headings, paragraphs, list items, tables; code is skipped).
In each sentence, every amount of money followed by a time unit (``$1.46/hr``, ``$3.22 per
chip-hour``, ``$2,000 a month``) is paired with a hardware name of its clause (clauses end at ``;``,
brackets, "vs", ", which", ", while", ...), written before it or after it, several pairs to a clause:
the words joining a list's items (",", "and", "or") separate one pair from the next (see
:func:`_pair`); when the clause names none and the sentence names exactly one, that one. Provider
and pricing kind come from the clause (the one closest to the pair), else the sentence when it names
only one, else the section heading, else the page; the date from the sentence, else the note's
front matter. A price that can't be read this way is left out with its reason, never guessed. Purchases,
plans, API prices, electricity, power draws and token volumes are facts of their own (:mod:`hwqa.prices.prosefacts`).
Relative speeds ("equivalent to 8 V100", "about 2x an A100") are read as
:class:`~hwqa.prices.facts.SpeedFact` for the hardware named before them. Tables go to :mod:`hwqa.prices.adhoc`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import replace
from urllib.parse import urlsplit

from ..notes.markdown import code_lines, heading, is_delimiter_row, split_row
from .adhoc import read_table
from .facts import (
    Context,
    Doc,
    Found,
    SpeedFact,
    clean,
    each_after,
    one,
    per_device_hour,
    rental_unit_problem,
)
from .itemnames import counted_thing, item_name, refers_back
from .names import (
    Mention,
    Money,
    find_date,
    find_hardware,
    find_money,
    find_pricing,
    find_providers,
    find_speeds,
    find_tpu_versions,
    find_watts,
    is_instance,
    provider_of_host,
)
from .prosefacts import _purchase, clause_start, make_fact, per_amount_problem, read_fact, read_power, read_usage
from .roles import money_role
from .seats import per_seat
from .table import LeftOut, PriceFact

__all__ = ["PRICES_READER", "read_document"]

#: The version of how prices are read from text; an index built by another reads every note again.
PRICES_READER = (
    35  # 6: totals, refunds, budgets, sold prices and ratings left out; subjects that are things; 7: a list item's "one";
    # 8: "3,000" never split at its comma, an amount of time ("3,000 hr/yr renting") no thing; 9: "1,050W" is a draw;
    # 10: a monthly price is per 720 h (a month of 30 days), a yearly one per 8,760 h; 11: ", plus" starts a clause;
    # 12: "w/" is "with", never watts ("i5-6500 w/ Eigen"); 13: a table's "where" column names the provider;
    # 14: "interruptible" (Vast.ai's word) is spot; 15: a run log's cost over its hours is a rental rate; 16: "650 buck";
    # 17: "$14.99/mo or $149.99/yr" is one plan's two prices; 18: "$20/user/mo" is a plan's price per seat;
    # 19: a run log's rate said as "$2.21 for its 6.5 h run ÷ 6.5 h"; 20: a table mixing rentals and purchases;
    # 21: "lambda A10s" names the cloud; 22: "eleven" and "twenty" are counts; 23: "$33 per seat per month";
    # 24: "the 4090 was", "a 3090 with": a GeForce number before a word starting with w; 25: "X - got one for $420";
    # 26: "$0.40 in / $1.60 out" per million tokens, a grant line in quotes, "100 GB for €25" no count of "GB";
    # 27: "$500 minimum order", "$150 on the account" no price; "charges us" no name; 28: "will still sell for ~$500"
    # is a resale value, a table's "upfront" (purchase, paid, MSRP) column holds one-off prices; 29: "## Lambda" names
    # the provider of its section's prices; 30: a list item's own name may hold a version's dot ("Mercury Plus 2.0");
    # 31: "Bought them at $379 each": what the sentence before counted; 32: "another" no thing, "APC Back-UPS…" not "APC";
    # 33: "a $120 cap" is a limit, a table cell "~150 hrs x $0.44" a sum worked out; 34: "Got it used for £640" is the
    # item's own price on the line below it, "2 TB plan" keeps its size; 35: "600 g payload, ~$3,499" no count of 600
)

#: The longest sentence read for prices: a longer run of text without a sentence end is not prose a
#: price can be attributed in (its pairing of prices and names grows with their product), and is left out.
MAX_SENTENCE_CHARS = 2000
#: The most price statements (rows, facts and statements left out) read from one document: a page of more is
#: not a price list a person keeps, and the rest is left out with one reason, so reading stays bounded.
MAX_STATEMENTS = 1000
_FULL = "this document holds more than"

_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
# A sentence ends at ".", "!" or "?" and a space; people start the next one in lower case too ("on demand. inf2.48xlarge
# has 12 chips"), so any word may follow, but not after an abbreviation (_ABBREVIATION).
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]”’]*\s+(?=[\"'(\[“‘]?[A-Za-z0-9$*€£])")
_CLAUSE_BREAK = re.compile(
    r";|\(|\)|\s[–—]\s|\bvs\.?(?=\s)|\bversus\b|,\s*(?:which|so|but|while|whereas|and|or|plus|compared)\b|\b(?:while|whereas|but)\b",
    re.IGNORECASE,
)
# The words that join the items of a list: a price and a hardware name with one of these between them
# belong to different items ("$8.00/hr for a TPU v3 and $4.50/hr for a TPUv2").
_JOINERS = re.compile(r",|&|\b(?:and|or|plus|then)\b", re.IGNORECASE)
_ADJACENT = re.compile(r"\s*(?:[\w-]+\s*){0,2}")  # at most two words between a name and its bracket ("A100 GPU (")
_MEMORY = re.compile(r"(?<![\w.])(\d{1,3})\s?(?:gb|gib)\s+(?:of\s+)?(?:hbm\w*|memory|vram|gpu memory|device memory)", re.I)
_CHEAP_TEST = re.compile(
    r"[$€£¢]|\b(?:usd|dollars?|eur|bucks|tokens?)\b|v100|kwh|\d\s?(?:k?w|watts?|kilowatts?)\b", re.IGNORECASE
)
# _CHEAP_TEST's forms one at a time, for text in ASCII (where ignoring case is lower case): each a plain substring
# test, or a small pattern run only when a word it needs is there. The same answer, without trying the whole
# alternation at every character of every paragraph.
_MONEY_WORD = re.compile(r"\b(?:usd|dollars?|eur|bucks|tokens?)\b", re.IGNORECASE)
_WATT_FORM = re.compile(r"\d\s?(?:k?w|watts?|kilowatts?)\b", re.IGNORECASE)


def _may_state_prices(text: str) -> bool:
    """Whether ``text`` holds anything :data:`_CHEAP_TEST` looks for."""
    if not text.isascii():
        return _CHEAP_TEST.search(text) is not None
    if "$" in text:
        return True
    low = text.lower()
    if "v100" in low or "kwh" in low:
        return True
    if any(word in low for word in ("usd", "dollar", "eur", "buck", "token")) and _MONEY_WORD.search(text):
        return True
    return "w" in low and _WATT_FORM.search(text) is not None


_ABBREVIATION = re.compile(
    r"(?<![\w.])(?:i\.e|e\.g|approx|est|incl|excl|ca|vs|cf|resp|etc|no|nos|fig|avg|mr|mrs|dr|jr|inc|ltd|corp|dept|univ)\.$",
    re.IGNORECASE,
)
_SO_END = re.compile(r"\bso\s*$", re.IGNORECASE)  # a clause that sums up what came before it
_TPU_WORD = re.compile(r"\btpus?\b", re.IGNORECASE)
_ITEM_LINK = re.compile(r"\s*\[[^\]\n]{1,200}\]\(\s*<?(https?://[^)\s>]{1,500})")


def read_document(doc: Doc, *, tables: bool = True) -> Found:
    """Every price row, left-out statement and speed of ``doc`` (see the module docstring); with
    ``tables=False`` its tables are skipped (a note tagged prices: :mod:`hwqa.prices.parse` reads them)."""
    found = Found()
    lines = doc.body.split("\n")
    code = code_lines(lines)
    ctx = Context(doc)
    block: list[tuple[int, str]] = []
    kind = "sentence"
    indent = 0  # of the list item being read
    item_lead: int | None = None  # the indent of a list item ending in ":" whose sub-items it introduces

    def flush() -> None:
        nonlocal block, item_lead
        if block:
            last = block[-1][1].rstrip()
            if kind == "sentence":  # a paragraph ending in ":" introduces the list after it; any other ends it
                ctx.lead = clean(" ".join(part for _, part in block[-3:]))[-300:] if last.endswith(":") else ""
                item_lead = None
            _read_block(block, kind, ctx, found)
            if kind == "list item" and last.endswith(":"):  # "* A6000 48G:" introduces the items nested under it
                ctx.lead, item_lead = clean(" ".join(part for _, part in block))[-300:], indent
        block = []

    i = 0
    while i < len(lines):
        if found.left_out and found.left_out[-1].reason.startswith(_FULL):
            return found  # read as much as one document may hold (MAX_STATEMENTS)
        line = lines[i]
        if code[i]:
            flush()
            i += 1
            continue
        title = heading(line)
        if title:
            flush()
            ctx = Context(doc, clean(title[1]))
            i += 1
            continue
        if "|" in line and i + 1 < len(lines) and is_delimiter_row(lines[i + 1]):
            flush()
            j = i + 2
            while j < len(lines) and "|" in lines[j] and lines[j].strip() and not code[j]:
                j += 1
            room = MAX_STATEMENTS - _statements(found)
            if tables and _room(found, ctx, doc.first_line + i):
                rows = [(doc.first_line + k, lines[k].strip(), split_row(lines[k])) for k in range(i + 2, min(j, i + 2 + room))]
                found.extend(read_table(ctx, doc.first_line + i, split_row(line), rows))
                if j - (i + 2) > room:
                    _full(found, ctx, doc.first_line + i + 2 + room)
            i = j
            continue
        if not line.strip():
            flush()
        elif _LIST_ITEM.match(line):
            flush()
            kind = "list item"
            indent = len(line) - len(line.lstrip())
            if item_lead is not None and indent <= item_lead:  # out of the nested list an item introduced
                ctx.lead, item_lead = "", None
            block = [(doc.first_line + i, _LIST_ITEM.sub("", line, count=1))]
        else:
            if not block:
                kind = "sentence"
            block.append((doc.first_line + i, line.strip().lstrip("> ")))
        i += 1
    flush()
    return found


def _read_block(block: Sequence[tuple[int, str]], kind: str, ctx: Context, found: Found) -> None:
    text = "\n".join(part for _, part in block)
    if not _may_state_prices(text):
        return
    link = _ITEM_LINK.match(text) if kind == "list item" else None  # "[Lambda](https://lambdalabs.com/...) - ..."
    ctx.item_provider = provider_of_host(urlsplit(link.group(1)).hostname or "") if link else None
    ctx.item_name = item_name(clean(text[:300])) if kind == "list item" else ""
    starts: list[int] = []  # offset of each line in text
    at = 0
    for _, part in block:
        starts.append(at)
        at += len(part) + 1
    begin = 0
    # "i.e. $2.99 per GPU", "approx. $40": an abbreviation's full stop ends no sentence
    ends = _SENTENCE_END.finditer(text)
    pieces = [m.end() for m in ends if not _ABBREVIATION.search(text, max(0, m.start() - 8), m.start())] + [len(text)]
    for end in pieces:
        sentence = text[begin:end]
        if sentence.strip():
            offset = begin + len(sentence) - len(sentence.lstrip())
            line = block[bisect_right(starts, offset) - 1][0]
            if len(sentence) > MAX_SENTENCE_CHARS:
                if _may_state_prices(sentence):
                    found.left_out.append(
                        LeftOut(
                            ctx.where(line),
                            clean(sentence[:200]) + " …",
                            f"a sentence of {len(sentence):,} characters is too long to read prices from "
                            f"(at most {MAX_SENTENCE_CHARS:,}); end its sentences or start a new paragraph",
                        )
                    )
            elif _room(found, ctx, line):
                _read_sentence(clean(sentence), line, kind, ctx, found)
            else:
                return
        begin = end


def _room(found: Found, ctx: Context, line: int) -> bool:
    """Whether ``found`` may take more statements (see :data:`MAX_STATEMENTS`); the first time not, says so."""
    if _statements(found) < MAX_STATEMENTS:
        return True
    _full(found, ctx, line)
    return False


def _statements(found: Found) -> int:
    """How many price statements ``found`` holds: rows, facts (purchases, plans, draws, ...) and statements left out."""
    return len(found.rows) + len(found.facts) + len(found.left_out)


def _full(found: Found, ctx: Context, line: int) -> None:
    if not any(item.reason.startswith(_FULL) for item in found.left_out[-1:]):
        found.left_out.append(
            LeftOut(ctx.where(line), "", f"{_FULL} {MAX_STATEMENTS:,} price statements; the rest, from here on, were not read")
        )


def _clauses(sentence: str) -> tuple[list[int], dict[int, tuple[int, int]]]:
    """The clause number of each character: a new clause at each break; a bracketed aside is a clause of
    its own, and the text after it goes on with the clause before it. Also each aside's clause number →
    (where its bracket opens, the clause it stands in)."""
    ids = [0] * (len(sentence) + 1)
    asides: dict[int, tuple[int, int]] = {}
    current, stack, at = 0, [], 0
    for counter, m in enumerate(_CLAUSE_BREAK.finditer(sentence), start=1):
        ids[at : m.start()] = [current] * (m.start() - at)
        if m.group(0) == "(":
            stack.append(current)
            asides[counter] = (m.start(), current)
            current = counter
        elif m.group(0) == ")":
            current = stack.pop() if stack else counter
        else:
            current = counter
        ids[m.start() : m.end()] = [-1] * (m.end() - m.start())
        at = m.end()
    ids[at:] = [current] * (len(ids) - at)
    return ids, asides


def _read_sentence(sentence: str, line: int, kind: str, ctx: Context, found: Found) -> None:
    where = ctx.where(line)
    earlier, ctx.counted = ctx.counted, counted_thing(sentence)  # what the sentence before counted: "them" of this one
    mentions = find_hardware(sentence)
    if "v" in sentence and _TPU_WORD.search(" ".join((sentence, ctx.lead if kind == "list item" else "", ctx.section))):
        mentions = sorted([*mentions, *find_tpu_versions(sentence, mentions)], key=lambda m: m.start)  # "v5e" under "## TPU"
    speeds = find_speeds(sentence)
    for speed in speeds:  # the subject: the last hardware named before the phrase (never the V100, the unit itself)
        before = [m for m in mentions if m.end <= speed.start and "v100" not in m.name.lower() and m.name != speed.ref]
        if before:
            found.speeds.append(SpeedFact(before[-1].name, speed.value, where, sentence, speed.ref))
    money = find_money(sentence)
    watts = find_watts(sentence)
    if watts:
        read_power(sentence, watts, mentions, money, line, kind, ctx, found)
    if "token" in sentence.lower():
        read_usage(sentence, line, ctx, found)
    if not money:
        return
    # The reference of a speed ("8 V100") and names inside a price's unit ("per V100-hour") are not what is priced.
    priced = [
        m
        for m in mentions
        if not any(s.ref_start <= m.start < s.ref_end for s in speeds) and not any(p.start <= m.start < p.end for p in money)
    ]
    clauses = _clauses(sentence)
    clause_of = clauses[0]
    subject = None if priced else ctx.subject(kind)  # a list item's lead-in, or the heading, names what it prices
    rentals: list[Money] = []
    floor = 0  # where the text that may name the next amount starts: after the amount before it
    read: list[PriceFact] = []  # this sentence's facts ("$0.59/M input, $0.79/M output": the second is the first's model's)
    for item in money:  # electricity, plans and purchases are facts of their own, never rental rows
        per = per_amount_problem(item)
        begins = clause_start(clause_of, item.start)
        role = None if per else money_role(sentence, item.start, item.end, begins, floor, item.unit)
        # "2x P4 for $140 total": the price of both, which read_fact shares out; never "so 2x 3090s for 1.37k total"
        if (
            role is not None
            and role.startswith("a total")
            and not _SO_END.search(sentence, max(0, begins - 8), begins)
            and any(m.count > 1 and clause_of[m.start] == clause_of[item.start] and m.end <= item.start for m in priced)
        ):
            role = None
        if per is not None:  # "$0.09/GB", "$6/TB-month": said, never dropped
            found.left_out.append(LeftOut(where, sentence, per))
        elif role is not None:  # a total, a refund, a budget, a price the owner sold at: no price of a thing
            found.left_out.append(LeftOut(where, sentence, f"{item.stated} is {role}"))
        else:
            fact = read_fact(item, sentence, priced, clause_of, subject, line, kind, ctx, read, floor)
            if fact is None and item.unit is None and earlier and not priced and refers_back(sentence[begins : item.start]):
                each = each_after(sentence[item.end :])  # "Bought them at $379 each": one of them
                fact = _purchase(ctx, earlier[0], 1 if each else earlier[1], item, line, sentence)
            if isinstance(fact, str):
                found.left_out.append(LeftOut(where, sentence, fact))
            elif fact is not None:
                if fact.kind == "plan" and per_seat(item, sentence):  # "$20/user/mo": times the seats asked for
                    fact = replace(fact, detail="per seat")
                found.facts.append(fact)
                read.append(fact)
            elif item.unit == "mtok":
                found.left_out.append(LeftOut(where, sentence, f"{item.stated}: no model or service named before or after it"))
            else:
                rentals.append(item)
        floor = item.end
    prices: list[Money] = []
    for item in rentals:
        # another currency is kept as written (a fact of its own), so its other problems are what is said
        check = item if item.currency == "USD" or item.unit is None else replace(item, currency="USD")
        problem = rental_unit_problem(check, sentence[: item.start], sentence[item.end :])
        if problem is None:
            prices.append(item)
        elif priced or subject is not None:  # an amount of money near no hardware name is not a price statement at all
            found.left_out.append(LeftOut(where, sentence, problem))
    pairs = _pair(sentence, prices, priced, clauses)
    spans = {p: (min(p, m.start), max(next(q.end for q in prices if q.start == p), m.end)) for p, m in pairs.items()}
    if subject is not None:  # a price of the lead-in's or heading's hardware stands for itself in its clause
        spans.update((q.start, (q.start, q.end)) for q in prices if q.start not in spans)
    providers = find_providers(sentence)
    kinds = [k for k in find_pricing(sentence) if k[2] != "free"]
    for item in prices:
        mention = pairs.get(item.start) or subject
        if mention is None:
            if any(clause_of[m.start] == clause_of[item.start] for m in priced):
                reason = f"{item.stated}: every hardware name in its clause has a price of its own"
            else:
                reason = f"no hardware name in the same clause as {item.stated}"
            found.left_out.append(LeftOut(where, sentence, reason))
            continue
        instances = [m for m in priced if is_instance(m.name)]
        instance = instances[0] if len(instances) == 1 and not is_instance(mention.name) else None
        provider = _attribute(sentence, providers, clause_of, spans, item.start) or ctx.provider()
        pricing = _attribute(sentence, kinds, clause_of, spans, item.start) or ctx.pricing()
        if item.currency != "USD":  # "L4 at €0.75/hour": kept in its currency (no exchange rate is noted), not a dollar row
            detail = "" if pricing == "on-demand" else pricing
            found.facts.append(make_fact(ctx, mention.name, "rental", item, line, sentence, provider=provider, detail=detail))
            found.left_out.append(
                LeftOut(
                    where,
                    sentence,
                    f"{item.stated} is not in US dollars: kept as written, in {item.currency}, with the other prices "
                    "(no exchange rate is noted), not compared with dollar prices",
                )
            )
            continue
        usd, conversion = per_device_hour(item, mention.count, sentence[item.end :])
        memory = _MEMORY.search(sentence)
        row = ctx.row(
            mention,
            usd,
            provider=provider,
            pricing=pricing,
            line=line,
            origin=kind,
            evidence=sentence,
            stated=item.stated,
            conversion=conversion,
            as_of=find_date(sentence),
            memory_gb=float(memory.group(1)) if memory and len(priced) == 1 else None,
        )
        if instance is not None:  # "a g5.xlarge with one A10G for $1.006/hr": the card's price, stated for that instance
            row = replace(row, instance=instance.name, instance_devices=mention.count)
        found.rows.append(row)


def _attribute(
    sentence: str,
    items: Sequence[tuple[int, int, str]],
    clause_of: Sequence[int],
    spans: Mapping[int, tuple[int, int]],
    price: int,
) -> str | None:
    """The provider or pricing kind (``items``: start, end, value) of the pair whose price starts at
    ``price`` (``spans``: each pair's text, by its price's start).

    Within the pair's clause, a word standing between the clause's pairs goes with the pair it is
    closest to (fewest list joiners between them, then fewest characters: "$1.46/hr for a P100 on AWS
    and $8.00/hr for a TPU v3 on GCP"); one before or after all of them ("On AWS, ... and ...") goes
    with each. Failing that, the sentence's own value if every other word of its kind says the same
    and no other pair of the clause claims it."""
    clause = clause_of[price]
    start, end = spans[price]
    mates = {p: span for p, span in spans.items() if clause_of[p] == clause}
    first, last = min(a for a, _ in mates.values()), max(b for _, b in mates.values())

    def cost(item: tuple[int, int, str], span: tuple[int, int]) -> tuple[int, int]:
        gap = sentence[item[1] : span[0]] if item[1] <= span[0] else sentence[span[1] : item[0]]
        return len(_JOINERS.findall(gap)), max(item[0] - span[1], span[0] - item[1], 0)

    def owner(item: tuple[int, int, str]) -> int | None:
        if clause_of[item[0]] != clause or item[1] <= first or item[0] >= last:
            return None  # shared: outside the clause, or before or after all its pairs
        return min(mates, key=lambda p: cost(item, mates[p]))

    mine = [item for item in items if clause_of[item[0]] == clause and owner(item) in (None, price)]
    if mine:
        return min(mine, key=lambda item: cost(item, (start, end)))[2]
    return one([item for item in items if owner(item) is None])


def _pair(
    sentence: str,
    prices: Sequence[Money],
    mentions: Sequence[Mention],
    clauses: tuple[Sequence[int], Mapping[int, tuple[int, int]]],
) -> dict[int, Mention]:
    """Each price (by start) paired with a hardware name of its clause, each name used once.

    The price is written before its hardware ("$1.46/hr for a P100") or after it ("a P100 at $1.46/hr"),
    and a clause may hold several pairs ("$8.00/hr for a TPU v3 and $4.50/hr for a TPUv2"); the words that
    join a list's items (a comma, "and", "or", "&", "plus") separate one pair from the next, so the pair
    whose gap crosses fewest of them is taken first, then the closest. A price in a bracket right after a
    hardware name ("the TPU v3 ($8.00/hr)") is that name's, and a bracket holding only one hardware name
    right after a price ("$0.35/hr (a T4)") names its hardware; a price whose clause names no hardware
    otherwise gets the sentence's only hardware name, if it has one."""
    clause_of, asides = clauses
    options = []
    for p in prices:
        for m in mentions:
            if clause_of[p.start] == clause_of[m.start]:
                gap = sentence[m.end : p.start] if m.start < p.start else sentence[p.end : m.start]
                options.append((len(_JOINERS.findall(gap)), len(gap), p.start, m.start, m))
    options.sort(key=lambda o: o[:4])
    paired: dict[int, Mention] = {}
    used: set[int] = set()

    def take(price: Money, mention: Mention) -> None:
        paired[price.start] = mention
        used.add(mention.start)

    for _, _, start, _, mention in options:
        if start not in paired and mention.start not in used:
            paired[start] = mention
            used.add(mention.start)
    for p in prices:
        clause = clause_of[p.start]
        if p.start in paired or any(clause_of[m.start] == clause for m in mentions):
            continue
        if clause in asides:  # "the TPU v3 ($8.00/hr)"
            opens, outer = asides[clause]
            before = [m for m in mentions if clause_of[m.start] == outer and m.end <= opens]
            if before and before[-1].start not in used and _ADJACENT.fullmatch(sentence[before[-1].end : opens]):
                take(p, before[-1])
                continue
        after = _ADJACENT.match(sentence, p.end)
        if after and sentence.startswith("(", after.end()):  # "$0.35/hr (a T4 on GCP)"
            inside = clause_of[after.end() + 1]
            named = [m for m in mentions if clause_of[m.start] == inside]
            if len(named) == 1 and named[0].start not in used and not any(clause_of[q.start] == inside for q in prices):
                take(p, named[0])
                continue
    names = {m.name.lower() for m in mentions}
    for p in prices:
        clause = clause_of[p.start]
        if p.start not in paired and len(names) == 1 and not any(clause_of[m.start] == clause for m in mentions):
            paired[p.start] = mentions[0]
    return paired
