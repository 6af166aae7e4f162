"""Words and identifiers for keyword (BM25) search.

SQLite's FTS5 tokenizer splits on punctuation, so "A100-SXM4-80GB", "sm_90",
"x86_64-unknown-linux-gnu" and "--tpu-topology" would only match as loose parts. Identifiers are
therefore indexed twice: as words in the text columns, and whole in an ``idents`` column, folded
to lower-case letters and digits ("a100sxm480gb", "sm90", "tputopology"). A word followed by a
number or a version ("RTX 4090", "TPU v3", "Python 3.11") is also kept joined ("rtx4090"), so the
question and the passage match however each spells the space.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# The function words of NLTK's English stopword list that the set below does not already hold
# ("up" in "start up", "only", "such"): they say nothing about what a passage is about.
_MORE_FUNCTION_WORDS = (
    "above after again against am because been before being below both but doing don down during each few further "
    "having he her here hers herself him himself his itself myself nor now off once only ours ourselves out over own "
    "same she such theirs themselves they those through too under until up while yours yourself yourselves"
)
STOPWORDS = frozenset(_MORE_FUNCTION_WORDS.split()) | frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "could",
        "do",
        "does",
        "did",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "vs",
        "versus",
        "about",
        "much",
        "many",
        "per",
        "any",
        "some",
        "get",
        "tell",
        "whats",
        "s",
        "t",
        "also",
        "not",
        "no",
        "all",
        "one",
        "use",
        "used",
        "using",
        "need",
        "want",
        "know",
        "give",
        "say",
        "says",
        "said",
        "notes",
        "note",
        "between",
        "most",
        "more",
        "less",
        "least",
        "best",
        "whom",
        "whose",
        "other",
        "very",
        "just",
    }
)

# A run of letters/digits joined by - _ . / + (not at the ends), or a --flag.
_RAW = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9_.\-+/]*[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9_.\-+/]*[A-Za-z0-9+]|[A-Za-z0-9]")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
DOTTED = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+$")  # a dotted name (module.function), not a version
_VERSIONISH = re.compile(r"^(?:v?\d[\w.]*|[a-z]?\d+[a-z]?)$", re.I)


def fold(token: str) -> str:
    """An identifier folded for exact matching: lower-case letters and digits only."""
    return re.sub(r"[\W_]+", "", token.lower())


def is_identifier(token: str) -> bool:
    """A token that names a thing exactly: it mixes letters and digits, or joins parts with - _ . /, or is a flag."""
    core = token.lstrip("-")
    if len(core) < 2:
        return False
    if token.startswith("-") and any(c.isalpha() for c in core):
        return True
    has_digit = any(c.isdigit() for c in core)
    has_alpha = any(c.isalpha() for c in core)
    if has_digit and has_alpha:
        return True
    if "_" in core:
        return True
    if has_alpha and re.search(r"[A-Za-z0-9][.\-/+][A-Za-z0-9]", core):
        return True
    return has_digit and bool(re.search(r"\d[.]\d", core))  # a version such as 3.11


def identifiers(text: str) -> list[str]:
    """Folded identifiers in ``text``, each once, in order of appearance (see the module docstring)."""
    out: dict[str, None] = {}
    raw = [m.group(0) for m in _RAW.finditer(text)]
    for i, token in enumerate(raw):
        token = token.rstrip(".")
        if is_identifier(token):
            out.setdefault(fold(token), None)
            if DOTTED.match(token):  # functools.lru_cache is also found as lru_cache
                out.setdefault(fold(token.rsplit(".", 1)[1]), None)
        if i + 1 < len(raw):
            nxt = raw[i + 1].rstrip(".")
            if token.isalpha() and len(token) >= 2 and _VERSIONISH.match(nxt) and any(c.isdigit() for c in nxt):
                out.setdefault(fold(token + nxt), None)
    out.pop("", None)
    return list(out)


def words(text: str) -> list[str]:
    """Lower-cased content words of ``text`` (stopwords dropped), each once, in order."""
    out: dict[str, None] = {}
    for w in _WORD.findall(text.lower()):
        if w not in STOPWORDS and (len(w) > 1 or w.isdigit()):
            out.setdefault(w, None)
    return list(out)


def idents_column(parts: Iterable[str]) -> str:
    """The text stored in the FTS ``idents`` column for a passage."""
    seen: dict[str, None] = {}
    for part in parts:
        for ident in identifiers(part):
            seen.setdefault(ident, None)
    return " ".join(seen)


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def fts_terms(question: str) -> list[str]:
    """The FTS5 phrases of a question: each content word (any column) and each identifier (``idents``)."""
    terms = [_quote(w) for w in words(question)]
    terms += [f"idents : {_quote(i)}" for i in identifiers(question)]
    return terms


def fts_query(question: str) -> str | None:
    """An FTS5 MATCH expression: any content word in any column, or any identifier in ``idents``."""
    terms = fts_terms(question)
    return " OR ".join(terms) if terms else None
