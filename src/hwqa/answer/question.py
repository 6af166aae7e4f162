"""What a question asks: its type, the unit or attribute it wants, the things it names, and what it
says about prices (budget, hours, devices, hardware: :mod:`hwqa.prices.words`).

The builtin answerer uses this to prefer the span that states the asked-for fact ("how many" wants
a number, "which version" a version, "which GPU has the most memory" the row with the largest
memory) over spans that only mention the topic, and to notice names the index never mentions.
"""

from __future__ import annotations

import functools
import math
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from importlib import resources

from ..notes.keywords import STOPWORDS, fold, identifiers, is_identifier
from ..prices.words import MAX_READ_CHARS, PriceWords, read_price_words

# Units a quantity question may ask for, by the words that ask for them.
_UNIT_WORDS: dict[str, tuple[str, ...]] = {
    "memory": ("gb", "gib", "tb", "mb"),
    "vram": ("gb", "gib"),
    "ram": ("gb", "gib", "tb"),
    "storage": ("gb", "tb"),
    "power": ("w", "watt", "watts", "kw"),
    "watts": ("w", "watt", "watts"),
    "cost": ("$", "usd"),
    "price": ("$", "usd"),
    "expensive": ("$", "usd"),
    "cheap": ("$", "usd"),
    "cheapest": ("$", "usd"),
    "cores": ("core", "cores"),
    "chips": ("chip", "chips"),
    "hours": ("hour", "hours", "h"),
    "bandwidth": ("gb/s", "tb/s"),
    "bytes": ("byte", "bytes"),
    "parameters": ("parameter", "parameters", "billion", "million"),
}
_SUPERLATIVE = re.compile(
    r"\b(?P<word>most|least|largest|biggest|smallest|highest|lowest|fastest|slowest|cheapest|priciest|"
    r"(?:most|least)\s+expensive|newest|oldest|latest|earliest|maximum|minimum|max|min)\b"
)
_MAX_WORDS = {
    "most",
    "largest",
    "biggest",
    "highest",
    "fastest",
    "priciest",
    "most expensive",
    "newest",
    "latest",
    "maximum",
    "max",
}
_COMPARE = re.compile(r"\b(?:vs\.?|versus|compared?\s+(?:to|with)|or|better|difference between)\b")
_QUANTITY = re.compile(
    r"^\s*(?:how\s+(?:many|much|long|big|large|fast|old)|what\s+(?:is|was|are)\s+the\s+(?:number|size|"
    r"price|cost|default|maximum|minimum|limit|amount))\b"
)
_VERSION = re.compile(
    r"\b(?:which|what)\s+(?:python\s+)?(?:version|release)s?\b|\bsince\s+when\b|\bwhen\s+was\b.*\badded\b|"
    r"\bin\s+which\s+version\b|\badded\s+in\b"
)
# A question asking for an environment variable ("which env var", "through an environment variable")
_VARIABLE = re.compile(r"\benv(?:ironment)?[ .-]?var(?:iable)?s?\b|\benvvars?\b")
# A question asking for a command-line flag ("what flag", "which two flags", "the configure switch"); never a flag's
# value ("the flag values from the ranks"), nor a network switch
_FLAG = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}flags?\b|"
    r"\b(?:configure|command[ -]line|cli|compiler|build)\s+(?:options?|switch(?:es)?|flags?)\b"
)
_WHICH = re.compile(r"^\s*(?:which|what)\s+(?P<noun>[a-z][\w-]*)")
_YESNO = re.compile(r"^\s*(?:is|are|does|do|can|could|should|will|has|have|was|were)\b")
_LIST = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}(?:are|were)\b|\blist\b|\bwhat\s+kinds?\b|\btypes?\s+of\b|"
    r"\bwhich\s+\w+s\b"
)
_CAPITAL_WORD = re.compile(r"(?<![\w./-])([A-Z][a-zA-Z]{2,}|[A-Z]{2,}[a-z]*)(?![\w/-])")
_TOKEN = re.compile(r"[a-z0-9]+")


def stem(word: str) -> str:
    """A light stem, so 'cards' meets 'card', 'TPUs' 'TPU' and 'supported' 'supports'."""
    for suffix in ("ing", "ed", "es", "s"):
        shortest = 3 if suffix == "s" else 4  # letters left: 'tpus' -> 'tpu', but 'need' stays
        if len(word) >= len(suffix) + shortest and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> list[str]:
    """The question's own words of three letters or more that are not stopwords, once each, in order."""
    return list(dict.fromkeys(w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in STOPWORDS))


def content_stems(text: str) -> list[str]:
    """Stemmed content words of ``text`` (stopwords dropped), in order, with repeats."""
    return [stem(w) for w in _TOKEN.findall(text.lower()) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


@dataclass(frozen=True)
class Term:
    """A thing the question names exactly, that a passage must hold for it to be answerable."""

    written: str  # as the question writes it: "RTX 5090", "sm_90", "-X perf"
    folded: str  # as the idents column holds it (hwqa.notes.keywords.fold)
    parts: tuple[str, ...] = ()  # a name and its version ("Rivulet", "1.8"), a flag and its value
    qualifiers: tuple[str, ...] = ()  # capitalised words before a versioned name ("Rivulet" in "Rivulet Serve 1.8")

    @property
    def spaced(self) -> bool:
        """Written as several words: the same words in a row count as the term."""
        return " " in self.written or "-" in self.written.lstrip("-")

    @property
    def versioned(self) -> bool:
        """A name followed by a version number: the name near the version counts as the term."""
        return len(self.parts) == 2 and any(c.isdigit() for c in self.parts[1]) and self.parts[0][:1].isalpha()


@dataclass(frozen=True)
class Question:
    """A parsed question."""

    text: str
    stems: tuple[str, ...]
    identifiers: tuple[str, ...]  # folded, see hwqa.notes.keywords
    names: tuple[str, ...]  # capitalised names as written ("Jetson", "Kubernetes")
    wants: str  # variable | flag | number | version | list | yesno | entity | any
    units: tuple[str, ...] = ()  # units a number should carry ("gb"), if the question says
    superlative: str | None = None  # "max" or "min"
    attribute: str | None = None  # the word the superlative is about ("memory", "price", "power")
    entity: str | None = None  # the noun of "which X" ("gpu", "chip", "option")
    comparison: bool = False
    terms: tuple[Term, ...] = field(default=())  # distinctive terms: what a passage must name
    coined: tuple[str, ...] = ()  # lower-case words no dictionary knows ("pytest"): names too
    keys: tuple[str, ...] = ()  # short codes a table row may be keyed by: 'H', "!", `%j`
    price: PriceWords = field(default_factory=lambda: read_price_words(""))  # budget, hours, devices, hardware
    # Set by the engine against the index (hwqa.answer.retrieve.name_evidence), not by the parse: the names asked
    # about that no passage holds, and the share of the asked names they are (evidence for the fitted "not
    # covered" decision and the caveat of an answer, never a reason on their own to turn a question away);
    # the words no dictionary knows that no passage holds, named when the question is not covered; and,
    # when it names nothing missing, its other words no passage holds ("temperature"), said as a fact.
    missing: tuple[str, ...] = ()
    missing_share: float = 0.0
    unknown: tuple[str, ...] = ()
    unheard: tuple[str, ...] = ()
    covering: tuple[str, ...] = ()  # the names the passages write where a missing sibling would be ("Raspberry Shake")

    @property
    def absent(self) -> tuple[str, ...]:
        """What a not-covered answer names as missing: the missing names, then the unknown words none of them holds
        ("pi 5" and "hailo" of "the hailo ai hat for a pi 5")."""
        named = " ".join(self.missing).lower()
        return (*self.missing, *(w for w in self.unknown if w.lower() not in named))


def parse_question(text: str) -> Question:
    """The one parse of a question: the engine reads it once and hands it to retrieval, the "not
    covered" check, the answerer and the price planner. Only the first
    :data:`~hwqa.prices.words.MAX_READ_CHARS` characters are read (a question, not a document: the
    price part says so when more was written), so a parse takes time linear in that, never more."""
    full, text = text, text[:MAX_READ_CHARS]
    lower = text.lower().strip()
    stems = tuple(dict.fromkeys(content_stems(text)))
    idents = tuple(identifiers(text))
    asides = _aside_spans(text)  # examples given in passing: their names are not required
    names = tuple(_names(text, asides))
    superlative: str | None = None
    attribute: str | None = None
    m = _SUPERLATIVE.search(lower)
    if m:
        word = re.sub(r"\s+", " ", m.group("word"))
        superlative = "max" if word in _MAX_WORDS else "min"
        if word in ("cheapest", "priciest", "most expensive", "least expensive"):
            attribute = "price"
        elif word in ("fastest", "slowest"):
            attribute = "speed"
        elif word in ("newest", "oldest", "latest", "earliest"):
            attribute = "year"
        else:
            after = [w for w in _TOKEN.findall(lower[m.end() :]) if w not in STOPWORDS]
            attribute = after[0] if after else None
    units: tuple[str, ...] = ()
    for word in _TOKEN.findall(lower):
        if word in _UNIT_WORDS:
            units = _UNIT_WORDS[word]
            break
    if attribute in _UNIT_WORDS:
        units = _UNIT_WORDS[attribute]
    wants = "any"
    if _VARIABLE.search(lower):
        wants = "variable"
    elif _FLAG.search(lower):
        wants = "flag"
    elif _VERSION.search(lower):
        wants = "version"
    elif _QUANTITY.search(lower) or superlative:
        wants = "number"
    elif _YESNO.match(lower):
        wants = "yesno"
    elif _LIST.search(lower):
        wants = "list"
    elif _WHICH.match(lower):
        wants = "entity"
    which = _WHICH.match(lower)
    entity = stem(which.group("noun")) if which and which.group("noun") not in STOPWORDS else None
    return Question(
        text=full,
        stems=stems,
        identifiers=idents,
        names=names,
        wants=wants,
        units=units,
        superlative=superlative,
        attribute=attribute,
        entity=entity,
        comparison=bool(_COMPARE.search(lower)) and len(idents) + len(names) >= 2,
        terms=tuple(_distinctive(text, asides)),
        coined=tuple(_coined(text)),
        keys=tuple(_keys(text)),
        price=read_price_words(full),
    )


# Kinds of thing, not names of one: number formats ("fp16", "BF16", "int8"), memory types ("HBM2e",
# "GDDR6X", "LPDDR5", "SRAM") and rates ("TB/s", "tok/s", "$/hr"). Passages write them in other ways
# ("half precision", "high-bandwidth memory", "terabytes a second"), so a question is never turned away
# for one a passage lacks.
_KIND = re.compile(
    r"(?:fp|bf|tf|int|uint|float|bfloat|e\dm)\d{1,3}|(?:hbm|gddr|lpddr|ddr)\d?[a-z]?|[sdv]?ram|vram|ecc|nvlink|pcie\d?"
    r"|[a-z$€£]{1,6}/(?:s|sec|h|hr|hour|min|day|wk|week|mo|month|yr|year)",
    re.I,
)


def is_kind(word: str) -> bool:
    """Whether ``word`` names a kind of thing (a number format, a memory type), not one thing."""
    return _KIND.fullmatch(word.replace(" ", "").replace("-", "")) is not None


def _keys(text: str) -> list[str]:
    """Short codes the question names: quoted ('!', "%j", `H`), a lone capital letter ("character H"), a
    one-letter flag ("-l") or a format code ("%G").

    Too short to be identifiers, they still name one row of a table keyed by such codes (format
    characters, directives, flags).
    """
    out = [m.group(2) for m in re.finditer(r"(['\"`])([^'\"`\s]{1,3})\1", text)]
    out += [m.group(1) for m in re.finditer(r"(?<=\w )([B-HJ-Z])(?=[\s?.,!])", text)]
    out += [m.group(1) for m in re.finditer(r"(?<![\w%-])(-[A-Za-z0-9]|%[A-Za-z])(?=[\s?.,!;:)]|$)", text)]  # "-l", "%G"
    return list(dict.fromkeys(out))


@functools.cache
def _dictionary() -> frozenset[str]:
    """Common English words (see data/words.txt): a question word outside it is probably a name."""
    text = resources.files("hwqa.answer").joinpath("data/words.txt").read_text(encoding="utf-8")
    return frozenset(w for w in text.split() if not w.startswith("#"))


# Endings to take off (and what to put back) before looking a word up: "cheapest" -> "cheap".
_INFLECTIONS = (
    ("s", ""),
    ("es", ""),
    ("ed", ""),
    ("ed", "e"),
    ("ing", ""),
    ("ing", "e"),
    ("er", ""),
    ("ers", ""),
    ("ly", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("est", ""),
    ("iest", "y"),
    ("ier", "y"),
)


def known(word: str) -> bool:
    """Whether ``word`` (lower case) is a common English word or an inflection of one ("going", "cheapest")."""
    words = _dictionary()
    if word in words or stem(word) in words:
        return True
    return any(word.endswith(suffix) and word[: -len(suffix)] + repl in words for suffix, repl in _INFLECTIONS)


def _coined(text: str) -> list[str]:
    """Lower-case words of four or more letters that no dictionary knows: "pytest", "tenstorrent".

    Written in lower case they are not caught as capitalised names, yet they name a thing just the
    same; a passage must hold them for the question to be answerable.
    """
    out: list[str] = []
    for m in re.finditer(r"(?<![\w.\-/])([a-z]{4,})(?![\w.\-/])", text):
        word = m.group(1)
        if word not in STOPWORDS and not known(word):
            out.append(word)
    return list(dict.fromkeys(out))


def _names(text: str, asides: list[tuple[int, int]]) -> list[str]:
    """Capitalised words that are not the question's first word nor in an aside: product and project names."""
    out: list[str] = []
    first = re.match(r"\W*(\w+)", text)  # \W holds every space: "\s*\W*" would backtrack over a long run
    first_word = first.group(1) if first else ""
    for m in _CAPITAL_WORD.finditer(text):
        word = m.group(1)
        if word == first_word and m.start() <= text.find(first_word):
            continue
        if word.lower() in STOPWORDS or is_identifier(word) or _inside(m.start(), asides):
            continue
        out.append(word)
    return list(dict.fromkeys(out))


_NUMBER_WORD = re.compile(r"^\d+(?:\.\d+)?-[a-z]+$", re.I)  # "8-card", "1-year": a quantity, not a name
# An example set off as an aside (", like a Tesla V100," / "(e.g. the H100)"): it illustrates what is asked
# and is not itself required; the aside runs to the next comma, closing parenthesis or the question's end.
_ASIDE = re.compile(r"(?:,|\()\s*(?:like|such\s+as|e\.\s?g\.,?|for\s+(?:example|instance),?|say)\s+[^,;()?!]*", re.I)
_FLAG_VALUE = re.compile(r"(?<![\w-])-([A-Za-z])\s+([a-z][\w.-]*)")  # "-X perf", "-m venv": a short flag and its value
_EXTENSION = re.compile(r"(?<![\w/])\.([a-z][a-z0-9]{1,9})\b")  # ".xlsx", ".safetensors": a file type


_MONEY_BEFORE = re.compile(r"[$€£]\s?~?$")
_SHORT_COUNT = re.compile(r"\d+(?:\.\d+)?[kKmM]")  # "10M", "1.2k": a volume written short ("70B" is a model's size)
_FLOW_AFTER = re.compile(r"\s+(?:tokens?|in|out|back|input|output)\b", re.I)
_UNIT_AFTER = re.compile(r"\s?(?:gb|gib|tb|mb|h|hrs?|hours?|mins?|minutes?|secs?|seconds?|days?|weeks?|months?|years?)\b", re.I)


def _aside_spans(text: str) -> list[tuple[int, int]]:
    """Where the question gives an example as an aside (see ``_ASIDE``): names there are not required."""
    return [m.span() for m in _ASIDE.finditer(text)]


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``position`` falls in one of ``spans`` (in order, not overlapping, as a regex finds them)."""
    at = bisect_right(spans, (position, math.inf)) - 1
    return at >= 0 and spans[at][0] <= position < spans[at][1]


def _prose(word: str) -> bool:
    return word.islower() and known(word)


def _distinctive(text: str, asides: list[tuple[int, int]]) -> list[Term]:
    """The terms a passage must hold for the question to be answerable.

    A word with a version after it ("RTX 5090", "TPU v5e") counts as one term; so does an
    identifier on its own ("A100-SXM4-80GB", "sm_90", "--tpu-topology", "copy.replace"), a short
    flag with its value ("-X perf") and a file extension (".xlsx"). Hyphenated words ("one-year")
    and quantities ("8-card") are not names.
    """
    out: list[Term] = []
    for m in _FLAG_VALUE.finditer(text):
        if m.group(2).lower() in STOPWORDS or known(m.group(2).lower()):
            continue  # "-O and -OO", "-I turn on": a flag next to an ordinary word, not a flag with its value
        out.append(Term(f"-{m.group(1)} {m.group(2)}", fold(m.group(1) + m.group(2)), (f"-{m.group(1)}", m.group(2))))
    for m in _EXTENSION.finditer(text):
        out.append(Term(f".{m.group(1)}", fold(m.group(1))))
    raw = list(re.finditer(r"--?[A-Za-z0-9][\w.\-+/]*[A-Za-z0-9]|[A-Za-z0-9][\w.\-+/]*[A-Za-z0-9+]", text))
    used: set[int] = set()
    # What a token must not repeat: the last word of each term of several words, each extension without its dot.
    ends = {t.written.rsplit(" ", 1)[-1] for t in out if " " in t.written} | {t.written[1:] for t in out if t.written[:1] == "."}
    for i, m in enumerate(raw):
        token = m.group(0).rstrip(".")
        if _inside(m.start(), asides):
            continue
        if i in used or token in ends:
            continue
        # A word in lower case that the dictionary knows, before a number, is prose ("like 07:30", "over 40"), not a name.
        if i + 1 < len(raw) and token.isalpha() and len(token) >= 2 and token.lower() not in STOPWORDS and not _prose(token):
            nxt = raw[i + 1].group(0).rstrip(".")
            gap = text[m.end() : raw[i + 1].start()]
            if gap.strip() == "" and re.fullmatch(r"v?\d[\w.]*|[a-z]?\d+[a-z]?", nxt, re.I) and any(c.isdigit() for c in nxt):
                before = re.findall(r"([A-Z][\w-]*)\s+$", text[max(0, m.start() - 200) : m.start()])
                out.append(Term(f"{token} {nxt}", fold(token + nxt), (token, nxt), tuple(before)))
                ends.add(nxt)
                used.add(i + 1)
                continue
        if not is_identifier(token) or _NUMBER_WORD.match(token):
            continue
        if (
            _MONEY_BEFORE.search(text, 0, m.start())
            or (_SHORT_COUNT.fullmatch(token) and _FLOW_AFTER.match(text, m.end()))
            or (re.fullmatch(r"[\d.,]+", token) and _UNIT_AFTER.match(text, m.end()))
        ):
            continue  # "$0.68/hr", "4.5 GB": an amount or a rate the calculator reads, never a name the notes must hold
        core = token.lstrip("-")
        if re.fullmatch(r"[A-Za-z]+(?:-[A-Za-z]+)+", core) and not token.startswith("-"):
            continue  # a hyphenated word such as "one-year" or "open-source"
        out.append(Term(token, fold(token)))
    return out
