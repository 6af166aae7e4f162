"""Prices read from text: the sentences and list items of a note or article, and its tables.

A document is walked block by block (headings, paragraphs, list items, tables; code is skipped).
In each sentence, every amount of money followed by a time unit (``$1.46/hr``, ``$3.22 per
chip-hour``, ``$2,000 a month``) is paired with the nearest hardware name of its clause (clauses end
at ``;``, brackets, "vs", ", which", ", while", ...); when the clause names none and the sentence
names exactly one, that one. Provider and pricing kind come from the clause, else the sentence when
it names only one, else the section heading, else the page; the date from the sentence, else the
note's front matter. A price that can't be read this way is left out with its reason, never guessed.
Relative speeds ("equivalent to 8 V100") are read as :class:`~hwqa.prices.facts.SpeedFact` for the
hardware named before them. Tables go to :mod:`hwqa.prices.adhoc`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..markdown import code_lines, heading, is_delimiter_row, split_row
from .adhoc import read_table
from .facts import Context, Doc, Found, SpeedFact, clean, nearest, one, per_device_hour, rental_unit_problem
from .names import Mention, Money, find_date, find_hardware, find_money, find_pricing, find_providers, find_speeds
from .table import LeftOut

__all__ = ["read_document"]

_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]”’]*\s+(?=[\"'(\[“‘]?[A-Z0-9$*])")
_CLAUSE_BREAK = re.compile(
    r";|\(|\)|\s[–—]\s|\bvs\.?(?=\s)|\bversus\b|,\s*(?:which|so|but|while|whereas|and|or|compared)\b|\b(?:while|whereas|but)\b",
    re.IGNORECASE,
)
_MEMORY = re.compile(r"(?<![\w.])(\d{1,3})\s?(?:gb|gib)\s+(?:of\s+)?(?:hbm\w*|memory|vram|gpu memory|device memory)", re.I)
_CHEAP_TEST = re.compile(r"[$€£]|\b(?:usd|dollars?|eur)\b|v100", re.IGNORECASE)


def read_document(doc: Doc, *, tables: bool = True) -> Found:
    """Every price row, left-out statement and speed of ``doc`` (see the module docstring); with
    ``tables=False`` its tables are skipped (a note tagged prices: :mod:`hwqa.prices.parse` reads them)."""
    found = Found()
    lines = doc.body.split("\n")
    code = code_lines(lines)
    ctx = Context(doc)
    block: list[tuple[int, str]] = []
    kind = "sentence"

    def flush() -> None:
        nonlocal block
        if block:
            _read_block(block, kind, ctx, found)
        block = []

    i = 0
    while i < len(lines):
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
            rows: list[tuple[int, str, list[str]]] = []
            j = i + 2
            while j < len(lines) and "|" in lines[j] and lines[j].strip() and not code[j]:
                rows.append((doc.first_line + j, lines[j].strip(), split_row(lines[j])))
                j += 1
            if tables:
                found.extend(read_table(ctx, doc.first_line + i, split_row(line), rows))
            i = j
            continue
        if not line.strip():
            flush()
        elif _LIST_ITEM.match(line):
            flush()
            kind = "list item"
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
    if not _CHEAP_TEST.search(text):
        return
    starts: list[int] = []  # offset of each line in text
    at = 0
    for _, part in block:
        starts.append(at)
        at += len(part) + 1
    begin = 0
    pieces = [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    for end in pieces:
        sentence = text[begin:end]
        if sentence.strip():
            offset = begin + len(sentence) - len(sentence.lstrip())
            line = block[max(k for k, s in enumerate(starts) if s <= offset)][0]
            _read_sentence(clean(sentence), line, kind, ctx, found)
        begin = end


def _clauses(sentence: str) -> list[int]:
    """The clause number of each character: a new clause at each break; a bracketed aside is a clause of
    its own, and the text after it goes on with the clause before it."""
    ids = [0] * (len(sentence) + 1)
    current, stack, at = 0, [], 0
    for counter, m in enumerate(_CLAUSE_BREAK.finditer(sentence), start=1):
        ids[at : m.start()] = [current] * (m.start() - at)
        if m.group(0) == "(":
            stack.append(current)
            current = counter
        elif m.group(0) == ")":
            current = stack.pop() if stack else counter
        else:
            current = counter
        ids[m.start() : m.end()] = [-1] * (m.end() - m.start())
        at = m.end()
    ids[at:] = [current] * (len(ids) - at)
    return ids


def _read_sentence(sentence: str, line: int, kind: str, ctx: Context, found: Found) -> None:
    where = ctx.where(line)
    mentions = find_hardware(sentence)
    speeds = find_speeds(sentence)
    for speed in speeds:
        before = [m for m in mentions if m.end <= speed.ref_start and "v100" not in m.name.lower()]
        if before:
            found.speeds.append(SpeedFact(before[-1].name, speed.value, where, sentence))
    money = find_money(sentence)
    if not money:
        return
    # The reference of a speed ("8 V100") and names inside a price's unit ("per V100-hour") are not what is priced.
    priced = [
        m
        for m in mentions
        if not any(s.ref_start <= m.start < s.ref_end for s in speeds) and not any(p.start <= m.start < p.end for p in money)
    ]
    clause_of = _clauses(sentence)
    prices: list[Money] = []
    for item in money:
        problem = rental_unit_problem(item, sentence[: item.start], sentence[item.end :])
        if problem is None:
            prices.append(item)
        elif priced:  # an amount of money near no hardware name is not a price statement at all
            found.left_out.append(LeftOut(where, sentence, problem))
    pairs = _pair(prices, priced, clause_of)
    for item in prices:
        mention = pairs.get(item.start)
        if mention is None:
            found.left_out.append(LeftOut(where, sentence, f"no hardware name in the same clause as {item.stated}"))
            continue
        clause = clause_of[item.start]
        in_clause = [(a, b, v) for a, b, v in find_providers(sentence) if clause_of[a] == clause]
        provider = nearest(in_clause, item.start, item.end) or one(find_providers(sentence)) or ctx.provider()
        kinds = [k for k in find_pricing(sentence) if k[2] != "free"]
        pricing = nearest([k for k in kinds if clause_of[k[0]] == clause], item.start, item.end)
        usd, conversion = per_device_hour(item, mention.count, sentence[item.end :])
        memory = _MEMORY.search(sentence)
        found.rows.append(
            ctx.row(
                mention,
                usd,
                provider=provider,
                pricing=pricing or one(kinds) or ctx.pricing(),
                line=line,
                origin=kind,
                evidence=sentence,
                stated=item.stated,
                conversion=conversion,
                as_of=find_date(sentence),
                memory_gb=float(memory.group(1)) if memory and len(priced) == 1 else None,
            )
        )


def _pair(prices: Sequence[Money], mentions: Sequence[Mention], clause_of: Sequence[int]) -> dict[int, Mention]:
    """Each price (by start) paired with the nearest hardware name of its clause, each name used once;
    a price whose clause names no hardware gets the sentence's only hardware name, if it has one."""
    options = []
    for p in prices:
        for m in mentions:
            if clause_of[p.start] == clause_of[m.start]:
                options.append((max(m.start - p.end, p.start - m.end, 0), p.start, m))
    options.sort(key=lambda o: (o[0], o[1], o[2].start))
    paired: dict[int, Mention] = {}
    used: set[int] = set()
    for _, start, mention in options:
        if start not in paired and mention.start not in used:
            paired[start] = mention
            used.add(mention.start)
    names = {m.name.lower() for m in mentions}
    for p in prices:
        clause = clause_of[p.start]
        if p.start not in paired and len(names) == 1 and not any(clause_of[m.start] == clause for m in mentions):
            paired[p.start] = mentions[0]
    return paired
