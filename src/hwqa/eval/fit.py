"""``hwqa eval --fit``: fit the span scorer (:mod:`hwqa.answer.scorer`) on the training questions only.

For every question of the sets, the engine's own walk (parse, retrieve, candidates) gives the
candidate spans and their features; a candidate is positive when, quoted, it states an expected
fact of the question. A logistic regression (Newton's method, no randomness) is fitted on the
candidates of the training part's covered questions; then, on the training part again, the
not-covered threshold (the best candidate's confidence) and the quoting margin. The test part is
only reported: figures with the fitted model, and with each feature left out (refitted without it).
Writes ``src/hwqa/answer/data/scorer.json`` and the report (``eval/fit-report.md``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..settings import Settings
from .evaluate import HIT_K, fact_found, first_rank, open_set
from .fitreport import render_report
from .sets import Question, QuestionSet, load_question_set

L2S = (0.001, 0.01, 0.1, 1.0)  # ridge on the standardised weights: chosen by cross-validation on the training part
FOLDS = 5  # cross-validation folds of the training part (a question and its rewordings in one fold)
MARGINS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
MAX_FALSE_NOT_COVERED = 0.02  # the threshold is the highest that keeps this share of covered training questions answered
# How much a name no passage holds lowers the "not covered" decision's confidence (logit units per share of the asked
# names missing): chosen on the training part with the threshold. 0 ignores the names; the largest acts as the old veto.
MISSING_WEIGHTS = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 60.0)
VETO = MISSING_WEIGHTS[-1]  # the features and the ridge are chosen under it: the ranker does not learn to rescue what a
# missing name turns away; the decision's own weight is fitted over them afterwards

Progress = Callable[[str], None]


@dataclass
class Asked:
    """One question as the engine walks it up to scoring: its candidates' features and labels."""

    set: str
    question: Question
    engine: Any
    x: np.ndarray
    y: np.ndarray
    rank: int | None  # of the first passage from an expected source, in the top HIT_K
    parsed: Any  # the question's one parse (hwqa.answer.question.Question)
    missing_share: float  # the share of the names it asks about that no passage holds (evidence for "not covered")
    hits: list[Any]  # what retrieval handed the answerer (kept: answering again with another model reuses it)
    tools: list[Any]

    def answer(self, model: Any) -> Any:
        """The engine's answer with ``model`` scoring the candidates (retrieval reused)."""
        self.engine.answerer.model = model
        return self.engine.answerer.answer(self.parsed, self.hits, (), self.tools)

    @property
    def split(self) -> str:
        return self.question.split


def _walk(engine: Any, text: str) -> tuple[Any, list[Any], list[Any], list[Any]]:
    """The engine's walk for ``text`` up to the scored candidates: (question with its name evidence, hits, tools, pool)."""
    from ..answer.question import parse_question

    gen = engine.generation()
    q = parse_question(text)
    hits = engine.hits(gen, q)
    tools = engine.tools(gen, question=text)
    q = engine.name_evidence(gen, q, tools, (), hits)
    _, pool = engine.answerer.candidates(q, hits, next(iter(tools), None))
    return q, hits, tools, pool


def collect(sets: Sequence[QuestionSet], base: Settings, cache: Path, progress: Progress) -> list[Asked]:
    """Build each set's index and walk every question (both parts: the test part is only reported)."""
    from ..answer.quotes import quote
    from ..answer.scorer import features
    from ..engine import Engine

    out: list[Asked] = []
    for qs in sets:
        with open_set(qs, base.replace(retriever="hybrid"), cache, progress) as opened:
            engine = Engine(opened.settings, embedder=opened.embedder)
        for question in qs.questions:
            q, hits, tools, pool = _walk(engine, question.question)
            x = features(q, pool)
            y = np.array([any(fact_found(quote(c, pool), alt) for alt in question.facts) for c in pool], dtype=float)
            rank = first_rank(hits[:HIT_K], question.sources) if question.covered else None
            out.append(Asked(qs.name, question, engine, x, y, rank, q, q.missing_share, hits, tools))
        progress(f"[{qs.name}] {len(qs.questions)} questions walked")
    return out


def _fold(a: Asked) -> int:
    """The cross-validation fold of a question: a question and its rewordings share one."""
    return int(hashlib.sha256(f"{a.set}/{a.question.group}".encode()).hexdigest(), 16) % FOLDS


def _training(asked: Sequence[Asked]) -> list[Asked]:
    return [a for a in asked if a.split == "train" and a.question.covered and len(a.y)]


def cross_validated(asked: Sequence[Asked], features: Sequence[str], l2: float, weight: float = 0.0) -> tuple[int, int]:
    """How many training questions the model gets right when fitted, and its not-covered threshold
    calibrated, on the other folds of the training part: an answerable question is right when it is
    answered and its top candidate states an expected fact (then: one of its top three does), an
    unanswerable one when it is turned away. Summed over the folds. ``weight``: the model's
    ``missing_weight``."""
    from ..answer.scorer import FEATURES

    cols = [FEATURES.index(f) for f in features]
    train = [a for a in asked if a.split == "train"]
    right1 = right3 = 0
    for k in range(FOLDS):
        learn = [a for a in train if _fold(a) != k]
        fitted = _training(learn)
        if not any(a.y.any() for a in fitted):
            continue
        model = replace(_model(fitted, cols, features, l2, 0.0, ""), missing_weight=weight)
        model = replace(model, threshold=calibrate(learn, _always(model)))
        for a in train:
            if _fold(a) != k:
                continue
            turned_away = declined(a, model)
            if not a.question.covered:
                right1 += turned_away
                right3 += turned_away
            elif not turned_away and len(a.y):
                top1, top3 = _tops(model.confidence(a.x), a.y)
                right1 += top1
                right3 += top3
    return right1, right3


def _tops(scores: np.ndarray, y: np.ndarray) -> tuple[int, int]:
    """Whether the highest-scored candidate states an expected fact, and whether one of the top three does."""
    order = np.argsort(-scores, kind="stable")
    return int(y[order[0]] > 0), int(y[order[:3]].any())


def _always(model: Any) -> Callable[[Asked], Any]:
    return lambda _: model


def choose_l2(asked: Sequence[Asked], features: Sequence[str]) -> float:
    """The ridge whose cross-validated figures on the training part are best (ties: the larger ridge)."""
    results = {l2: cross_validated(asked, features, l2, VETO) for l2 in L2S}
    return max(L2S, key=lambda l2: (*results[l2], l2))


def choose_missing_weight(
    asked: Sequence[Asked], features: Sequence[str], l2: float
) -> tuple[float, dict[float, tuple[int, int]]]:
    """How much a missing name lowers the decision (:data:`MISSING_WEIGHTS`): the weight whose
    cross-validated figures on the training part are best (ties: the smaller weight, the weaker rule)."""
    results = {w: cross_validated(asked, features, l2, w) for w in MISSING_WEIGHTS}
    return max(MISSING_WEIGHTS, key=lambda w: (*results[w], -w)), results


def choose_features(asked: Sequence[Asked], features: Sequence[str], l2: float) -> tuple[list[str], list[dict[str, Any]]]:
    """Backward elimination on the training part: while leaving one feature out does at least as well
    under cross-validation (:func:`cross_validated`, a missing name turning a question away: top one, then
    top three), the one whose loss costs
    least goes (ties: the later one). Returns the features kept and each step taken."""
    kept = list(features)
    best = cross_validated(asked, kept, l2, VETO)
    steps: list[dict[str, Any]] = [{"dropped": None, "cv": best}]
    while len(kept) > 1:
        trials = {f: cross_validated(asked, [g for g in kept if g != f], l2, VETO) for f in kept}
        drop = max(reversed(kept), key=lambda f: trials[f])
        if trials[drop] < best:
            break
        best = trials[drop]
        kept.remove(drop)
        steps.append({"dropped": drop, "cv": best})
    return kept, steps


def fit_model(
    asked: Sequence[Asked], features: Sequence[str], margin: float = 0.8, l2: float | None = None, weight: float = 0.0
) -> Any:
    """The logistic model over ``features``, fitted on the training part; its threshold calibrated there
    (with ``weight``, the model's ``missing_weight``)."""
    from ..answer.scorer import FEATURES

    train = _training(asked)
    cols = [FEATURES.index(f) for f in features]
    l2 = choose_l2(asked, features) if l2 is None else l2
    embedder = asked[0].engine.answerer.embedder if asked else ""
    model = replace(_model(train, cols, features, l2, margin, embedder), missing_weight=weight)
    # The threshold is calibrated on confidences the model had for questions it was not fitted on: each
    # training question scored by the model fitted on the other folds (in-sample ones are too sure).
    held_out = {}
    for k in range(FOLDS):
        learn = [a for a in train if _fold(a) != k]
        if any(a.y.any() for a in learn):
            fold_model = replace(_model(learn, cols, features, l2, margin, embedder), missing_weight=weight)
            held_out.update({id(a): fold_model for a in asked if a.split == "train" and _fold(a) == k})
    return replace(model, threshold=calibrate(asked, lambda a: held_out.get(id(a), model)))


def _model(learn: Sequence[Asked], cols: Sequence[int], features: Sequence[str], l2: float, margin: float, embedder: str) -> Any:
    """The model over ``features`` (columns ``cols``) fitted on ``learn``'s candidates; no threshold yet."""
    from ..answer.scorer import Model, fit_listwise, fit_logistic

    x = np.vstack([a.x[:, cols] for a in learn])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    y = np.concatenate([a.y for a in learn])
    # The weights rank one question's candidates against each other (what choosing a span needs) ...
    ends = np.cumsum([len(a.y) for a in learn])[:-1]
    w = fit_listwise(list(zip(np.split(z, ends), np.split(y, ends), strict=True)), l2=l2)
    # ... and one logistic curve over that score makes it a confidence (Platt scaling), for "not covered".
    (slope,), bias = fit_logistic((z @ w)[:, None], y, l2=0.0)
    weights = tuple(float(v) for v in slope * w)
    return Model(tuple(features), weights, bias, tuple(map(float, mean)), tuple(map(float, scale)), 0.0, margin, embedder)


def best_confidence(a: Asked, model: Any) -> float:
    return float(model.confidence(a.x).max()) if len(a.x) else 0.0


def answering(a: Asked, model: Any) -> float:
    """The "not covered" decision's confidence for ``a``: its best candidate's, lowered for missing names."""
    return float(model.answering(best_confidence(a, model), a.missing_share))


def declined(a: Asked, model: Any) -> bool:
    return not len(a.x) or answering(a, model) < model.threshold


def calibrate(asked: Sequence[Asked], model_for: Callable[[Asked], Any]) -> float:
    """The not-covered threshold, from the training part: as many unanswerable questions turned away as
    possible while at most MAX_FALSE_NOT_COVERED of the answerable ones are; midway in the gap it
    leaves. ``model_for`` gives the model scoring a question (its ``missing_weight`` included)."""
    train = [a for a in asked if a.split == "train"]
    covered_total = sum(1 for a in train if a.question.covered)
    scored = [(a, answering(a, model_for(a))) for a in train if len(a.x)]
    covered = sorted(c for a, c in scored if a.question.covered)
    if not covered:
        return 0.0
    allowed = max(0, min(len(covered) - 1, int(MAX_FALSE_NOT_COVERED * covered_total)))
    highest = covered[allowed]  # a threshold at or below it turns away at most `allowed` answerable ones
    below = [c for c in covered[:allowed] if c < highest] + [c for a, c in scored if not a.question.covered and c < highest]
    return (highest + max(below)) / 2 if below else highest / 2


def figures(asked: Sequence[Asked], model: Any, part: str) -> dict[str, Any]:
    """hit@5, fact recall, not covered and false not covered on one part, answering with ``model``."""
    chosen = [a for a in asked if part == "all" or a.split == part]
    found = facts = nc_right = nc_total = false_nc = covered = hits5 = 0
    per_question: dict[str, float] = {}
    worded = {True: [0, 0], False: [0, 0]}  # facts found / asked, for original questions and for rewordings
    per_set: dict[str, list[int]] = {}  # facts found, asked; not covered right, asked; false not covered, covered
    for a in chosen:
        answer = a.answer(model)
        tally = per_set.setdefault(a.set, [0, 0, 0, 0, 0, 0])
        if a.question.covered:
            covered += 1
            hits5 += a.rank is not None
            got = sum(1 for alt in a.question.facts if fact_found(answer.text, alt))
            found += got
            facts += len(a.question.facts)
            original = a.question.original is None
            worded[original][0] += got
            worded[original][1] += len(a.question.facts)
            tally[0] += got
            tally[1] += len(a.question.facts)
            tally[4] += not answer.covered
            tally[5] += 1
            false_nc += not answer.covered
            per_question[f"{a.set}/{a.question.id}"] = got / len(a.question.facts) if a.question.facts else 1.0
        else:
            nc_total += 1
            nc_right += not answer.covered
            tally[2] += not answer.covered
            tally[3] += 1
    return {
        "questions": len(chosen),
        "hit5": _ratio(hits5, covered),
        "fact_recall": _ratio(found, facts),
        "not_covered": _ratio(nc_right, nc_total),
        "false_not_covered": _ratio(false_nc, covered),
        "originals_facts": _ratio(*worded[True]),
        "rewordings_facts": _ratio(*worded[False]),
        "per_question": per_question,
        "per_set": {
            name: {"facts": _ratio(t[0], t[1]), "not_covered": _ratio(t[2], t[3]), "false_not_covered": _ratio(t[4], t[5])}
            for name, t in per_set.items()
        },
    }


def ranking(asked: Sequence[Asked], order_by: Callable[[Asked], np.ndarray], part: str) -> dict[str, Any]:
    """On one part's answerable questions with candidates: the share whose top candidate (then: one of the
    top three) states an expected fact, candidates ordered by ``order_by`` (highest first)."""
    chosen = [a for a in asked if a.split == part and a.question.covered and len(a.y)]
    top1 = top3 = 0
    for a in chosen:
        one, three = _tops(order_by(a), a.y)
        top1 += one
        top3 += three
    return {"questions": len(chosen), "top1": _ratio(top1, len(chosen)), "top3": _ratio(top3, len(chosen))}


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def run_fit(files: Sequence[Path], base: Settings, *, cache: Path, out: Path, report: Path, progress: Progress) -> dict[str, Any]:
    """Fit, choose the margin, calibrate, report; write the model to ``out`` and the report to ``report``."""
    from ..answer.scorer import FEATURES

    sets = [load_question_set(Path(f)) for f in files]
    asked = collect(sets, base, cache, progress)
    # The span features and the ridge are chosen as they always were (a missing name turning a question away);
    # the "not covered" decision over the best candidate (missing-name weight, threshold) is fitted on top of them.
    kept, steps = choose_features(asked, FEATURES, choose_l2(asked, FEATURES))
    progress(f"features kept by cross-validation: {', '.join(kept)}")
    l2 = choose_l2(asked, kept)
    weight, weights = choose_missing_weight(asked, kept, l2)
    fitted = fit_model(asked, kept, l2=l2, weight=weight)
    progress(f"ridge {l2}; missing-name weight {weight}; not-covered threshold {fitted.threshold:.4f}")
    scores = {}
    for margin in MARGINS:  # the margin: the training part's fact recall decides (ties: the larger)
        scores[margin] = figures(asked, replace(fitted, margin=margin), "train")["fact_recall"] or 0.0
        progress(f"margin {margin}: train fact recall {scores[margin]:.3f}")
    margin = max(MARGINS, key=lambda m: (scores[m], m))
    model = replace(fitted, margin=margin)
    result = {
        "model": model.to_json(),
        "l2": l2,
        "steps": steps,
        "train": figures(asked, model, "train"),
        "test": figures(asked, model, "test"),
    }
    ablations = {}
    for feature in FEATURES:  # each kept feature left out, each dropped one put back: the test part's figures
        changed = [f for f in kept if f != feature] if feature in kept else [f for f in FEATURES if f in kept or f == feature]
        ablations[feature] = {"test": figures(asked, fit_model(asked, changed, margin, l2, weight), "test")}
        progress(f"{'without' if feature in kept else 'with'} {feature}: test facts {ablations[feature]['test']['fact_recall']}")
    result["ablations"] = ablations
    sim = FEATURES.index("sim")
    result["ranking"] = {
        name: {part: ranking(asked, order_by, part) for part in ("train", "test")}
        for name, order_by in (
            ("the fitted model", lambda a: model.confidence(a.x)),
            ("the question-to-span similarity alone (nothing fitted)", lambda a: a.x[:, sim]),
        )
    }
    result["rules"] = rule_ablations(asked, model, progress)
    result["constants"] = constant_sensitivity(sets, base, cache, asked, model, progress)
    train_covered = [a for a in asked if a.split == "train" and a.question.covered]
    result["counts"] = {
        "train": sum(1 for a in asked if a.split == "train"),
        "test": sum(1 for a in asked if a.split == "test"),
        "candidates": sum(len(a.y) for a in train_covered),
        "positives": int(sum(a.y.sum() for a in train_covered)),
    }
    result["margins"], result["folds"] = scores, FOLDS
    result["missing_weights"] = {w: list(cv) for w, cv in weights.items()}
    out.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    report.write_text(render_report(result), encoding="utf-8")
    return result


def rules() -> dict[str, Callable[[], contextlib.AbstractContextManager[Any]]]:
    """The shape-aware rules left in the answer path, each with how to switch it off for a measurement."""
    import re
    from unittest import mock

    from ..answer import builtin, quotes, scorer

    never = re.compile(r"(?!)")
    return {
        "a sentence opening with 'It', 'This', ... is quoted with the one before": lambda: mock.patch.object(
            quotes, "_PRONOUN_START", never
        ),
        f"a definition, and a list item, is read whole while under {quotes.DEFINITION_WORDS} words": lambda: mock.patch.object(
            quotes, "DEFINITION_WORDS", 0
        ),
        f"a question in the notes is quoted with its answer ({quotes.FAQ_ANSWER_WORDS} words)": lambda: mock.patch.object(
            quotes, "FAQ_ANSWER_WORDS", 0
        ),
        "a lead-in ending in ':' brings its list": lambda: mock.patch.object(builtin, "introduced", lambda c, p: []),
        "a lead-in ending in ':' brings its table": lambda: mock.patch.object(builtin, "introduced_rows", lambda c, p: []),
        "a short code ('H', '!') counts as a name for the row keyed by it": lambda: mock.patch.object(
            scorer, "short_codes", lambda q: ()
        ),
        "superlatives read table columns and stated quantities": lambda: mock.patch.object(
            builtin, "superlative", lambda q, p, f: None
        ),
        "'X vs Y' quotes the best span naming each side": lambda: mock.patch.object(builtin, "_comparison", lambda q, p: None),
        "the best hits hand over their next chunk and the rest of a split table": lambda: mock.patch.object(
            builtin, "_following", lambda hits: []
        ),
        "a price superlative reads every row of the price table": lambda: mock.patch.object(
            builtin, "price_rows", lambda *args: []
        ),
        "a price answer quotes what the notes advise ('recommend', 'best', 'needs', ... and no price)": lambda: mock.patch.object(
            builtin, "_ADVICE", never
        ),
    }


def rule_ablations(asked: Sequence[Asked], model: Any, progress: Progress) -> dict[str, dict[str, Any]]:
    """Train and test figures with each rule switched off (the model unchanged)."""
    out = {}
    for name, switch_off in rules().items():
        with switch_off():
            out[name] = {k: figures(asked, model, k) for k in ("train", "test")}
        progress(f"without rule '{name}': test facts {out[name]['test']['fact_recall']}")
    return out


def constants() -> dict[str, tuple[Any, str, tuple[int, ...]]]:
    """The walk's hand-set constants (module, name, values measured: the first is the one in use)."""
    from .. import engine
    from ..answer import builtin, retrieve

    return {
        "passages whose spans are candidates (builtin.DEPTH)": (builtin, "DEPTH", (5, 3, 6)),
        "best hits whose next chunk is read too (engine.FOLLOWED)": (engine, "FOLLOWED", (3, 1, 5)),
        "chunks either side searched for the rest of a table (retrieve.TABLE_REACH)": (retrieve, "TABLE_REACH", (8, 4, 16)),
        "passages searched for a price answer's caveats (engine.CAVEAT_HITS)": (engine, "CAVEAT_HITS", (8, 4, 16)),
        "times top_k a superlative retrieves (engine.SUPERLATIVE_REACH)": (engine, "SUPERLATIVE_REACH", (3, 1, 2, 5)),
    }


def constant_sensitivity(
    sets: Sequence[QuestionSet], base: Settings, cache: Path, asked: Sequence[Asked], model: Any, progress: Progress
) -> dict[str, dict[int, dict[str, Any]]]:
    """Train and test figures with each constant of :func:`constants` at each value (the questions walked
    again; the model unchanged). The value in use should be the training part's best (ties: smaller)."""
    from unittest import mock

    out: dict[str, dict[int, dict[str, Any]]] = {}
    for name, (module, attr, values) in constants().items():
        out[name] = {}
        for value in values:
            if value == getattr(module, attr):  # the value in use: the questions as walked for the fit
                out[name][value] = {part: figures(asked, model, part) for part in ("train", "test")}
                continue
            with mock.patch.object(module, attr, value):
                walked = collect(sets, base, cache, lambda m: None)
                out[name][value] = {part: figures(walked, model, part) for part in ("train", "test")}
            progress(f"{attr} = {value}: train facts {out[name][value]['train']['fact_recall']}")
    return out


_RECALIBRATED = "## Not-covered threshold recalibrated"


def recalibrate(files: Sequence[Path], base: Settings, *, cache: Path, out: Path, report: Path, progress: Progress) -> float:
    """The shipped model's not-covered threshold calibrated again (:func:`calibrate`) on today's training part, its
    span weights, margin and missing-name weight kept: the decision follows training sets added since the fit (notes
    written by people who never read the code) without changing which span is quoted. Writes the model to ``out`` and
    a section of ``report`` (replacing the last one). Returns the new threshold."""
    from ..answer.scorer import Model

    model = Model.from_json(json.loads(out.read_text(encoding="utf-8")))
    asked = collect([load_question_set(Path(f)) for f in files], base, cache, progress)
    fitted = replace(model, threshold=calibrate(asked, lambda a: model))
    train, test = figures(asked, fitted, "train"), figures(asked, fitted, "test")
    out.write_text(json.dumps(fitted.to_json(), indent=1) + "\n", encoding="utf-8")

    def cells(f: dict[str, Any]) -> str:
        return " | ".join("-" if f[k] is None else f"{f[k]:.3f}" for k in ("fact_recall", "not_covered", "false_not_covered"))

    rows = f"| train | {cells(train)} |\n| test | {cells(test)} |"
    section = (
        f"{_RECALIBRATED}\n\n`hwqa eval --recalibrate`: the weights above kept, the threshold calibrated "
        f"again on the training part ({sum(1 for a in asked if a.split == 'train')} questions): {model.threshold:.4f} → "
        f"{fitted.threshold:.4f}.\n\n| part | facts | not covered | false not covered |\n|---|---:|---:|---:|\n{rows}\n"
    )
    kept = report.read_text(encoding="utf-8").split(_RECALIBRATED)[0].rstrip() if report.exists() else ""
    report.write_text(f"{kept}\n\n{section}", encoding="utf-8")
    return fitted.threshold
