"""Every sentence of a chat model's answer, checked against the passages it cites and the calculator.

A sentence's claim is what can be checked word for word:

- its **numbers with their units** ("$8.00 per hour", "16 GB", "8x"): the same value must be in
  the evidence with the same unit (a table cell may leave it to its column: ``8.00`` under
  ``usd_per_hour``); a number the claim gives without a unit matches the value with any;
- the **names** it gives: identifiers and versioned names ("TPU v3", "A100-SXM4-80GB", "sm_90")
  and capitalised names ("Colab", "NVIDIA"), found in the evidence as written (case and spacing
  aside);
- its **key words** (content words, lightly stemmed): at least half of them (rounded down) must be
  in the evidence, and one at least when the sentence has no number or name.

The evidence of a sentence is the passages it cites that hold part of its claim (a cited passage
holding none of its numbers and names, or too few of its words when it has neither, is dropped
from the sentence) and the calculator's result. A sentence whose evidence holds its whole claim is
``supported`` and keeps those citations; any other sentence that claims something is
``unsupported``: it loses its citations and is shown behind :data:`MARK`. A marker that names no
passage (``[7]`` of five) is dropped. Sentences with nothing to check ("Yes.") are ``none``.

The rules are general, not fitted: every number and every name must be found, and half the words.
The kept markers are renumbered ``1..m`` in order of first appearance, after the citations the
answer already has (the price notes of a calculation). Checking is sentence by
sentence, so a prefix of complete sentences gives a prefix of the result: answers are checked while
they stream (:meth:`Checker.check` with ``complete_only``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from ...notes.keywords import STOPWORDS, fold
from ..answer import Citation, Claim, make_citation
from ..base import Hit
from ..question import content_stems, parse_question

MARK = "⚠ Not in the cited notes: "
SUPPORTED, UNSUPPORTED, NOTHING = "supported", "unsupported", "none"

# [3]  [1, 2]  [1-3]  -- but not a Markdown link text like [1](http://...)
_MARKER = re.compile(r"\[(\s*\d+\s*(?:[,;\u2013-]\s*\d+\s*)*)\](?!\()")
# A sentence ends at . ! or ? (after closing quotes, brackets or emphasis), with the markers that follow it.
_END = re.compile(r"[.!?]+[\"')*_]*(?:[ \t]*\[\s*\d+(?:\s*[,;\u2013-]\s*\d+)*\s*\](?!\())*(?=\s|$)")
_NUMBER = re.compile(
    r"(?<![\w.\-/])(?P<cur>\$|US\$|€|£)?\s?(?P<value>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w.]*\d)"
    r"(?:\s?(?P<unit>%|[A-Za-z]+))?"
)
_UNITS = {
    "$": "usd",
    "us$": "usd",
    "usd": "usd",
    "dollar": "usd",
    "dollars": "usd",
    "€": "eur",
    "eur": "eur",
    "euro": "eur",
    "euros": "eur",
    "£": "gbp",
    "gbp": "gbp",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
    "gb": "gb",
    "gib": "gb",
    "gigabyte": "gb",
    "gigabytes": "gb",
    "tb": "tb",
    "tib": "tb",
    "terabyte": "tb",
    "terabytes": "tb",
    "mb": "mb",
    "mib": "mb",
    "megabyte": "mb",
    "megabytes": "mb",
    "%": "%",
    "percent": "%",
    "x": "x",
    "times": "x",
    "w": "w",
    "watt": "w",
    "watts": "w",
    "kw": "kw",
    "core": "core",
    "cores": "core",
    "gpu": "gpu",
    "gpus": "gpu",
    "tpu": "tpu",
    "tpus": "tpu",
    "chip": "chip",
    "chips": "chip",
    "device": "device",
    "devices": "device",
    "card": "card",
    "cards": "card",
    "ghz": "ghz",
    "mhz": "mhz",
    "nm": "nm",
    "tflops": "tflops",
    "gflops": "gflops",
    "pflops": "pflops",
    "token": "token",
    "tokens": "token",
    "bit": "bit",
    "bits": "bit",
}
_CAPITAL = re.compile(r"(?<![\w./-])([A-Z][A-Za-z]*[A-Z][A-Za-z]*s?|[A-Z][a-z]{2,})(?![\w/-])")


@dataclass(frozen=True)
class Number:
    value: float
    unit: str | None
    written: str
    in_table: bool = False  # a table cell: its unit is in the column's header


def numbers(text: str) -> list[Number]:
    """The numbers of ``text`` with their units (``$8.00/hr`` -> 8.0 usd; ``16 GB`` -> 16.0 gb)."""
    out = []
    for m in _NUMBER.finditer(text):
        value = float(m.group("value").replace(",", ""))
        word = (m.group("unit") or "").lower()
        unit = _UNITS.get((m.group("cur") or "").lower()) or _UNITS.get(word)
        written = m.group(0).strip() if word in _UNITS else (m.group("cur") or "") + m.group("value")
        line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        out.append(Number(value, unit, written, in_table=line.lstrip().startswith("|")))
    return out


def _has_number(evidence: Sequence[Number], claimed: Number) -> bool:
    """The same value, with the same unit; or the claim gives none; or the evidence is a table cell without one."""
    return any(
        abs(e.value - claimed.value) < 1e-9
        and (claimed.unit is None or e.unit == claimed.unit or (e.unit is None and e.in_table))
        for e in evidence
    )


def names(text: str) -> list[str]:
    """The names ``text`` gives: identifiers and versioned names, then capitalised words (each once)."""
    found = [t.written for t in parse_question(text).terms if any(c.isalpha() for c in t.written)]
    first = re.match(r"\W*(\w+)", text)
    for m in _CAPITAL.finditer(text):
        word = m.group(1)
        if word.lower() in STOPWORDS or any(fold(word) in fold(t) for t in found):
            continue
        if first is not None and m.start() == first.start(1) and word[1:].islower():
            continue  # the sentence's first word, capitalised only because it comes first
        found.append(word)
    return list(dict.fromkeys(found))


def _name_key(name: str) -> str:
    folded = fold(name)
    return folded[:-1] if name[:-1].isupper() and name.endswith("s") else folded  # "TPUs" -> "tpu"


def _name_in(name: str, folded: str, stems: frozenset[str]) -> bool:
    """Whether a source holds ``name``: as written (case and spacing aside), or, for a name joined to
    plain words ("V100-hours"), its named parts as written and its plain words among the source's."""
    if _name_key(name) in folded:
        return True
    parts = [p for p in re.split(r"[-_/\s]+", name) if p]
    named = [p for p in parts if not (p.isalpha() and p.islower())]
    plain = [p for p in parts if p.isalpha() and p.islower()]
    return (
        bool(named and plain)
        and all(_name_key(p) in folded for p in named)
        and all(w in stems for p in plain for w in content_stems(p))
    )


@dataclass
class _Source:
    """One thing a sentence may rest on: a passage (``n``, 1-based among the hits) or a tool's result."""

    label: str
    text: str
    n: int | None = None
    tool: str | None = None
    numbers: list[Number] = field(default_factory=list)
    folded: str = ""
    stems: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.numbers = numbers(self.text)
        self.folded = fold(self.text)
        self.stems = frozenset(content_stems(self.text))


@dataclass
class Checked:
    """An answer text after checking: shown text (markers renumbered, unsupported sentences marked)."""

    text: str
    citations: list[Citation]
    claims: list[Claim]

    @property
    def supported(self) -> int:
        return sum(1 for c in self.claims if c.verdict == SUPPORTED)


@dataclass
class _Sentence:
    text: str
    gap: str  # what follows it up to the next sentence (spaces, newlines)


def split(text: str) -> list[_Sentence]:
    """Sentences and list items of ``text`` with what separates them; joined back they give ``text``."""
    out: list[_Sentence] = []
    for line in re.split(r"(?<=\n)", text):
        body = line.rstrip("\n")
        newline = line[len(body) :]
        pos = 0
        ends = list(_END.finditer(body))
        for m in ends:
            gap_end = len(body) - len(body[m.end() :].lstrip(" \t"))
            out.append(_Sentence(body[pos : m.end()], body[m.end() : gap_end]))
            pos = gap_end
        if pos < len(body):
            out.append(_Sentence(body[pos:], ""))
        if out and newline:
            out[-1].gap += newline
        elif newline:
            out.append(_Sentence("", newline))
    return out


def complete_sentences(text: str) -> str:
    """The part of a growing text made of sentences that cannot grow any more."""
    parts = split(text)
    if not parts:
        return ""
    drop = 1
    if len(parts) > 1 and parts[-1].text.lstrip().startswith("["):
        drop = 2  # "costs $8. [" : the markers of the sentence before may still be coming
    return "".join(p.text + p.gap for p in parts[:-drop])


def _expand(spec: str) -> list[int]:
    """The passage numbers of one marker's inside: '1, 2' -> [1, 2]; '1-3' -> [1, 2, 3]."""
    refs: list[int] = []
    for part in re.split(r"[,;]", spec):
        bounds = [int(x) for x in re.findall(r"\d+", part)]
        if len(bounds) == 2 and bounds[0] <= bounds[1] and bounds[1] - bounds[0] <= 20:
            refs.extend(range(bounds[0], bounds[1] + 1))
        else:
            refs.extend(bounds)
    return refs


def _cited(sentence: str) -> list[int]:
    return list(dict.fromkeys(n for m in _MARKER.finditer(sentence) for n in _expand(m.group(1))))


class Checker:
    """Checks answer texts against one question's passages and tool results (see the module doc)."""

    def __init__(self, hits: Sequence[Hit], tools: Sequence[tuple[str, str]] = (), *, first: int = 1) -> None:
        self.hits = list(hits)
        self.passages = [_Source(f"[{i}]", h.chunk.text, n=i) for i, h in enumerate(self.hits, 1)]
        self.tools = [_Source(name, text, tool=name) for name, text in tools if text.strip()]
        self.first = first  # the number the first new citation gets

    def check(self, text: str, *, complete_only: bool = False) -> Checked:
        """``text`` checked sentence by sentence; with ``complete_only``, only its finished sentences."""
        if complete_only:
            text = complete_sentences(text)
        numbering: dict[int, int] = {}
        shown: list[str] = []
        claims: list[Claim] = []
        for part in split(text):
            if not part.text.strip():
                shown.append(part.gap)
                continue
            claim, kept = self._claim(part.text)
            for n in kept:
                numbering.setdefault(n, self.first + len(numbering))
            keep = set(kept) if claim.verdict == SUPPORTED else set()
            rewritten = _MARKER.sub(partial(_renumbered, keep=keep, numbering=numbering), part.text)
            rewritten = re.sub(r"[ \t]*\0", "", rewritten)
            lead = len(rewritten) - len(rewritten.lstrip())
            body = rewritten.strip()
            claim.sentence = body
            claim.citations = [numbering[n] for n in kept] if keep else []
            for ev in claim.evidence:
                if "n" in ev:
                    ev["n"] = numbering.get(ev["n"], ev["n"])
            if claim.verdict == UNSUPPORTED:
                body = MARK + body
            shown.append(rewritten[:lead] + body + part.gap)
            claims.append(claim)
        citations = [make_citation(new, self.hits[old - 1]) for old, new in sorted(numbering.items(), key=lambda kv: kv[1])]
        return Checked("".join(shown).rstrip(), citations, claims)

    def _claim(self, sentence: str) -> tuple[Claim, list[int]]:
        """The verdict on one sentence and the (old) passage numbers it keeps."""
        cited = _cited(sentence)
        invalid = [n for n in cited if not 1 <= n <= len(self.passages)]
        plain = _MARKER.sub(" ", sentence)
        claimed_numbers = numbers(plain)
        without_numbers = _NUMBER.sub(" ", plain)
        claimed_names = names(plain)
        name_stems = set(content_stems(" ".join(claimed_names)))
        number_words = {w for n in claimed_numbers for w in content_stems(n.written)}
        words = [w for w in dict.fromkeys(content_stems(without_numbers)) if w not in name_stems and w not in number_words]
        checkable = bool(claimed_numbers or claimed_names or len(words) >= 2)
        notes = [f"[{n}] names no passage" for n in invalid]
        if not checkable:
            return Claim(sentence, NOTHING, "nothing to check" + _also(notes)), []

        core = bool(claimed_numbers or claimed_names)

        def enough(stems: frozenset[str]) -> bool:
            """At least half of the key words (rounded down), and one at least if there is nothing else to check."""
            found = sum(1 for w in words if w in stems)
            return found >= len(words) // 2 and (core or found > 0)

        def holds(source: _Source) -> tuple[list[str], list[str], bool]:
            nums = [n.written for n in claimed_numbers if _has_number(source.numbers, n)]
            nams = [n for n in claimed_names if _name_in(n, source.folded, source.stems)]
            return nums, nams, enough(source.stems)

        kept: list[_Source] = []
        for n in cited:
            if n in invalid:
                continue
            source = self.passages[n - 1]
            nums, nams, words_ok = holds(source)
            if nums or nams or (not core and words_ok):
                kept.append(source)
            else:
                notes.append(f"[{n}] does not hold it")
        evidence_sources = kept + [t for t in self.tools if any(holds(t)[:2]) or (not core and holds(t)[2])]
        union = _Source("all", "\n".join(s.text for s in evidence_sources))
        missing = [n.written for n in claimed_numbers if not _has_number(union.numbers, n)]
        missing += [n for n in claimed_names if not _name_in(n, union.folded, union.stems)]
        evidence = []
        for s in evidence_sources:
            nums, nams, _ = holds(s)
            entry: dict[str, object] = {"n": s.n} if s.n is not None else {"tool": s.tool}
            entry["found"] = nums + nams
            evidence.append(entry)
        valid = [f"[{n}]" for n in cited if n not in invalid]
        if not evidence_sources and not valid:
            return Claim(sentence, UNSUPPORTED, "cites no passage" + _also(notes), missing=missing or words[:5]), []
        if missing or not evidence_sources:
            missing = missing or words[:5]
            listed = ", ".join(f"'{m}'" for m in missing[:4])
            where = " or ".join(valid) if valid else "what it cites"
            notes = [n for n in notes if not n.endswith("does not hold it")]
            return Claim(sentence, UNSUPPORTED, f"{listed} not found in {where}" + _also(notes), missing=missing), []
        if not enough(union.stems):
            absent = [w for w in words if w not in union.stems]
            reason = f"most of its words are not in what it cites ({', '.join(absent[:4])})"
            return Claim(sentence, UNSUPPORTED, reason + _also(notes), missing=absent), []
        where = ", ".join(f"[{s.n}]" if s.n is not None else f"the {s.tool} result" for s in evidence_sources)
        return Claim(sentence, SUPPORTED, f"found in {where}" + _also(notes), evidence=evidence), [
            s.n for s in kept if s.n is not None
        ]


def _also(notes: list[str]) -> str:
    return f"; {'; '.join(notes)}" if notes else ""


def _renumbered(marker: re.Match[str], *, keep: set[int], numbering: dict[int, int]) -> str:
    refs = list(dict.fromkeys(numbering[n] for n in _expand(marker.group(1)) if n in keep))
    return "".join(f"[{r}]" for r in refs) if refs else "\0"
