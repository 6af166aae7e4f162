"""The learned span scorer: a handful of features of a candidate span, one logistic model over them.

A candidate (a span of a retrieved passage, see :mod:`hwqa.notes.spans` and :mod:`hwqa.answer.quotes`) is
described by :data:`FEATURES`:

- ``sim``: the cosine of the question and the span, both embedded by the index's model (the span
  read in its passage, at build time: see :meth:`hwqa.index.light.LightModel.encode_pieces`); ``sim_gap``
  the same minus the best span's in the pool;
- ``passage`` and ``rank``: how well the span's passage was retrieved (cosine, 1 / (1 + rank));
- ``overlap``: the question's content words in what the span says (a row: with its header; a
  lead-in: with the list or table it introduces), weighted by how rare they are among the candidates;
  ``context``: those found only around it (neighbours, lead-in, heading, title);
- ``name``: the share of the names the question asks about ("RTX 4090", "sm_90", a quoted code)
  that the span holds; ``name_near``: held only around it (heading, title, definition term);
  ``sibling``: the span names another of the same family ("RTX 3090") and none of the asked ones;
- ``type``: whether the span is what the question wants: a number (in the asked unit), a version, a
  list item (+1), or lacks it (-1);
- ``short``: a sentence of fewer than four words.

The model's confidence is ``sigmoid(w . standardised(x) + b)``. The weights, the standardisation,
the not-covered threshold and the quoting margin are data (``data/scorer.json``), fitted by
``hwqa eval --fit`` (:mod:`hwqa.eval.fit`) on the training questions only.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from ..notes.keywords import fold
from ..notes.spans import Span, clean_markdown
from .question import Question, content_stems
from .quotes import Candidate, introduced, introduced_rows, span_idents

FEATURES = (
    "sim",
    "sim_gap",
    "passage",
    "rank",
    "overlap",
    "context",
    "name",
    "name_near",
    "sibling",
    "type",
    "short",
)
_NUMBER = re.compile(r"(?<![\w.])\$?\d[\d,]*(?:\.\d+)?(?:\s?(?:%|[a-zA-Z/]+))?")
_VARIABLE_NAME = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")  # an environment variable: MPICH_CC, HWLOC_XMLFILE
_FLAG_WRITTEN = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")  # a command-line flag: -show, --enable-avx512, -O
_VERSIONISH = re.compile(r"\b(?:version|v?\d+\.\d+(?:\.\d+)?)\b", re.I)


@dataclass(frozen=True)
class Model:
    """A fitted scorer: logistic weights over standardised features, and the two decisions built on it."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float  # the best candidate's confidence below which the notes do not cover the question
    margin: float  # a further span is quoted when its confidence is at least margin x the best one's
    embedder: str = ""  # "backend:model" whose similarities the threshold was calibrated on
    # How much a name of the question that no passage holds lowers the best confidence (logit units per
    # share of the asked names missing), fitted with the threshold on the training part: evidence, no veto.
    missing_weight: float = 0.0

    def answering(self, best: float, missing_share: float) -> float:
        """The "not covered" decision's confidence: the best candidate's, lowered by the share of the
        question's names that no passage holds."""
        logit = math.log(max(best, 1e-12) / max(1.0 - best, 1e-12)) - self.missing_weight * missing_share
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))

    def declines(self, best: float, missing_share: float) -> bool:
        """Whether no candidate answers: the decision's confidence is under the calibrated threshold."""
        return self.answering(best, missing_share) < self.threshold

    def confidence(self, x: np.ndarray) -> np.ndarray:
        """Confidence in [0, 1] that each row's span states what the question asks."""
        cols = [FEATURES.index(f) for f in self.features]
        z = (x[:, cols] - np.asarray(self.mean)) / np.asarray(self.scale)
        logits = z @ np.asarray(self.weights) + self.bias
        confidence: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(logits, -30.0, 30.0)))
        return confidence

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "weights": [round(w, 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "mean": [round(m, 6) for m in self.mean],
            "scale": [round(s, 6) for s in self.scale],
            "threshold": round(self.threshold, 6),
            "margin": round(self.margin, 6),
            "embedder": self.embedder,
            "missing_weight": round(self.missing_weight, 6),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Model:
        return cls(
            tuple(data["features"]),
            tuple(float(w) for w in data["weights"]),
            float(data["bias"]),
            tuple(float(m) for m in data["mean"]),
            tuple(float(s) for s in data["scale"]),
            float(data["threshold"]),
            float(data["margin"]),
            str(data.get("embedder", "")),
            float(data.get("missing_weight", 0.0)),
        )


@functools.cache
def load_model() -> Model:
    """The fitted scorer shipped in the package (``data/scorer.json``)."""
    text = resources.files("hwqa.answer").joinpath("data/scorer.json").read_text(encoding="utf-8")
    return Model.from_json(json.loads(text))


def span_similarities(hit_query: Any, vectors: Any, count: int, fallback: float) -> list[float]:
    """The question's cosine with each of a passage's ``count`` spans; ``fallback`` (the passage's own)
    when the index holds no span vectors for it or they do not match its spans."""
    if hit_query is None or vectors is None or len(vectors) != count or count == 0:
        return [fallback] * count
    return [float(s) for s in (vectors @ hit_query)]


def features(q: Question, pool: Sequence[Candidate]) -> np.ndarray:
    """One row of :data:`FEATURES` per candidate of ``pool``."""
    n = len(pool)
    x = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if not n:
        return x
    said = [_said(c, pool) for c in pool]
    stems_of = [set(content_stems(text)) for text in said]
    context_of = [
        set(content_stems(f"{c.span.context} {c.span.subject} {c.hit.chunk.heading} {c.hit.chunk.title}")) for c in pool
    ]
    idf = {w: math.log(1 + n / (1 + sum(1 for s in stems_of if w in s))) for w in q.stems}
    total = sum(idf.values()) or 1.0
    terms = [t.folded for t in q.terms]
    families = {_family(t) for t in terms if _family(t)}
    unit_re = _unit_pattern(q.units)
    best_sim = max(c.sim for c in pool)
    keys = short_codes(q)
    for i, (cand, stems, context) in enumerate(zip(pool, stems_of, context_of, strict=True)):
        span = cand.span
        x[i, 0] = cand.sim
        x[i, 1] = cand.sim - best_sim
        x[i, 2] = cand.hit.score
        x[i, 3] = 1.0 / (1 + cand.rank)
        x[i, 4] = sum(idf[w] for w in q.stems if w in stems) / total
        x[i, 5] = sum(idf[w] for w in q.stems if w not in stems and w in context) / total
        if terms or keys:
            folded = fold(span.text)
            mine = span_idents(span.text)
            found = sum(1 for t in terms if t in mine or t in folded)
            keyed = bool(keys) and (
                (span.kind == "row" and clean_markdown(next(iter(span.cells.values()), "")) in keys)
                or any(k in keys for k in _entry_keys(span))  # an entry whose term is the code ("-l", "%G (-o, --format=…)")
            )
            around = fold(f"{span.context} {span.subject} {cand.hit.chunk.heading} {cand.hit.chunk.title}")
            near = sum(1 for t in terms if not (t in mine or t in folded) and t in around)
            asked = len(terms) + (1 if keys else 0)
            x[i, 6] = (found + keyed) / asked
            x[i, 7] = near / asked
            x[i, 8] = float(not found and any(_family(m) in families and m not in terms for m in mine))
        leads = span.kind == "sentence" and said[i] != span.text  # a lead-in: its list or table is what it says
        x[i, 9] = _type_match(q, said[i], span.kind == "item" or leads, unit_re)
        x[i, 10] = float(span.kind == "sentence" and len(span.text.split()) < 4)
    return x


def _entry_keys(span: Span) -> list[str]:
    """The short codes an entry's term is written as ("-a, --all" -> -a, --all; "%G (-o, …)" -> %G)."""
    if span.entry < 0 or not span.subject:
        return []
    return [k.strip("`") for k in re.split(r",\s*|\s+", span.subject.split(" (")[0]) if 0 < len(k.strip("`")) <= 3]


def short_codes(q: Question) -> tuple[str, ...]:
    """The short codes the question names ('H', "!"): a table row keyed by one holds a name it asks about."""
    return q.keys


def _said(cand: Candidate, pool: Sequence[Candidate]) -> str:
    """What a candidate says: a row its header too, a lead-in the list or table it introduces."""
    span = cand.span
    if span.kind == "row":
        return f"{span.text} {span.context}"
    follows = introduced(cand, pool) or introduced_rows(cand, pool)
    return " ".join([span.text, *(c.span.text for c in follows)])


def _type_match(q: Question, said: str, listed: bool, unit_re: re.Pattern[str] | None) -> float:
    if q.wants == "number":
        if unit_re is not None and unit_re.search(said):
            return 1.0
        return 0.5 if _NUMBER.search(said) else -1.0
    if q.wants == "variable":
        return 1.0 if _VARIABLE_NAME.search(said) else -1.0
    if q.wants == "flag":
        return 1.0 if _FLAG_WRITTEN.search(said) else -1.0
    if q.wants == "version":
        return 1.0 if _VERSIONISH.search(said) else -1.0
    if q.wants == "list":
        return 1.0 if listed else 0.0
    return 0.0


def _family(ident: str) -> str:
    """'rtx4090' -> 'rtx', 'a100' -> 'a', 'tpuv5e' -> 'tpuv': the letters before the first digit."""
    m = re.match(r"[a-z]*", ident)
    return m.group(0) if m else ""


def _unit_pattern(units: Sequence[str]) -> re.Pattern[str] | None:
    if not units:
        return None
    alternatives = "|".join(re.escape(u) for u in units if u != "$")
    parts = []
    if alternatives:
        parts.append(rf"\d\s?(?:{alternatives})\b")
    if "$" in units:
        parts.append(r"\$\s?\d")
    return re.compile("|".join(parts), re.I)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iterations: int = 50) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2-regularised logistic regression (Newton's method: deterministic)."""
    n, d = x.shape
    a = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0  # the bias is not shrunk
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ w, -30, 30)))
        grad = a.T @ (p - y) + reg * w
        hess = (a * (p * (1 - p))[:, None]).T @ a + np.diag(reg) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return w[:-1], float(w[-1])


def fit_listwise(
    groups: Sequence[tuple[np.ndarray, np.ndarray]], l2: float, iterations: int = 400, rate: float = 0.5
) -> np.ndarray:
    """Weights ranking each question's candidates: a softmax over one question's candidates, fitted so the
    ones that state an expected fact take the mass (gradient ascent from zero: deterministic)."""
    used = [(x, y) for x, y in groups if y.any()]
    if not used:
        return np.zeros(groups[0][0].shape[1] if groups else 0)
    x = np.vstack([g for g, _ in used])
    y = np.concatenate([t for _, t in used]).astype(np.float64)
    group = np.repeat(np.arange(len(used)), [len(t) for _, t in used])
    n = len(used)
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        s = x @ w
        top = np.full(n, -np.inf)
        np.maximum.at(top, group, s)
        e = np.exp(s - top[group])
        p = e / np.bincount(group, e, n)[group]
        target = p * y
        target /= np.bincount(group, target, n)[group]
        w = w + rate * (-l2 * w + x.T @ (target - p) / n)
    return w
