"""The fit report (``eval/fit-report.md``): what ``hwqa eval --fit`` (:mod:`hwqa.eval.fit`) chose and measured."""

from __future__ import annotations

import math
from typing import Any

SIGNIFICANT = 0.05  # the sign test's level for changing a constant of the walk (a convention, not fitted)


def _row(name: str, f: dict[str, Any]) -> str:
    cells = [f.get(k) for k in ("fact_recall", "hit5", "not_covered", "false_not_covered", "originals_facts", "rewordings_facts")]
    return f"| {name} | " + " | ".join(_num(c) for c in cells) + " |"


def render_report(result: dict[str, Any]) -> str:
    """``eval/fit-report.md`` from what :func:`hwqa.eval.fit.run_fit` measured."""
    model = result["model"]
    margin, scores, folds = model["margin"], result["margins"], result["folds"]
    n_train, n_test, candidates, positives = (result["counts"][k] for k in ("train", "test", "candidates", "positives"))
    lines = [
        "# Span scorer fit (`hwqa eval --fit`)",
        "",
        f"Fitted on the training part only ({n_train} questions; {candidates} candidate spans of the covered ones,",
        f"{positives} of them stating an expected fact); the test part ({n_test} questions) is only reported.",
        "Regenerate with `hwqa eval --fit` (deterministic: gradient steps from zero, no sampling).",
        "",
        "| part | facts | hit@5 | not covered | false not covered | facts, original wording | facts, rewordings |",
        "|---|---:|---:|---:|---:|---:|---:|",
        _row("train", result["train"]),
        _row("test", result["test"]),
        "",
        "Per set, train / test: facts; not covered; false not covered.",
        "",
        "| set | facts | not covered | false not covered |",
        "|---|---:|---:|---:|",
        *(_set_row(name, result) for name in dict.fromkeys([*result["train"]["per_set"], *result["test"]["per_set"]])),
        "",
        f"Ridge {result['l2']} ({folds}-fold cross-validation on train). Not-covered threshold (best candidate's",
        f"confidence, calibrated on held-out folds of train): {model['threshold']:.4f}; quoting margin {margin}",
        "(train fact recall per margin: " + ", ".join(f"{m}: {s:.3f}" for m, s in scores.items()) + ").",
        "",
        "A name of the question that no passage holds is evidence, not a veto: it lowers the decision's confidence by",
        f"{model.get('missing_weight', 0.0)} (logit units per share of the asked names missing), the weight chosen with",
        "the threshold by the same cross-validation (training questions right, top 1 / top 3, per weight: "
        + ", ".join(f"{w}: {cv[0]} / {cv[1]}" for w, cv in result.get("missing_weights", {}).items())
        + ").",
        "",
        "## Weights (standardised features)",
        "",
        "| feature | weight | mean | scale |",
        "|---|---:|---:|---:|",
        *(
            f"| {f} | {w:+.3f} | {m:.3f} | {s:.3f} |"
            for f, w, m, s in zip(model["features"], model["weights"], model["mean"], model["scale"], strict=True)
        ),
        f"| (bias) | {model['bias']:+.3f} | | |",
        "",
        "## What the fitted model replaced",
        "",
        "The hand-set span score (about 17 weights) and its rules are gone: the context weight (0.35) and a",
        "name's words counting fully in a heading; a named term found (0.35) or near (0.85 of it); the sibling",
        "penalty (-0.25); the short-code row bonus (+0.35); the number, unit, version and list-item bonuses",
        "(+0.08, +0.12, +0.12, +0.08, -0.05); the 'which X' noun in the span (+0.04); a short sentence (-0.2) and",
        "a long one (-0.08); the passage's cosine (0.15) and rank (0.06); quoting further spans within 0.15 of",
        "the best. They are the features above, weighted by the fit, or nothing (the noun and length rules).",
        "'Not covered' no longer comes from a cosine floor (`min_score` 0.27, with an exception for a passage",
        "holding an asked name) nor from 'no quoted span shares a content word with the question': it is the",
        "threshold on the best candidate's confidence, calibrated above (`min_score` stays a user's floor, off).",
        "",
        "## Features chosen by cross-validation on train",
        "",
        f"Backward elimination: a feature goes while, under {folds}-fold cross-validation on train (model and threshold",
        "fitted on the other folds, a missing name turning a question away), the model without it gets at least as",
        "many training questions right: an answerable one answered with an expected fact in its top candidate (then:",
        "in its top three), an unanswerable one turned away. The not-covered decision's own missing-name weight is",
        "fitted over the features kept (above).",
        "",
        "| step | training questions right, top 1 / top 3 |",
        "|---|---:|",
        *(
            f"| {'all features' if st['dropped'] is None else 'without ' + st['dropped']} | {st['cv'][0]} / {st['cv'][1]} |"
            for st in result["steps"]
        ),
        "",
        "## Each feature switched (refitted; threshold recalibrated on train)",
        "",
        "A kept feature is left out, a dropped one put back; the test part is only reported, never chosen on.",
        "",
        "| feature | kept | test facts | test hit@5 | test not covered | test false n.c. |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for feature, fig in result["ablations"].items():
        t = fig["test"]
        cells = [t["fact_recall"], t["hit5"], t["not_covered"], t["false_not_covered"]]
        state = "yes (left out)" if feature in model["features"] else "no (put back)"
        lines.append(f"| {feature} | {state} | " + " | ".join(_num(c) for c in cells) + " |")
    lines += _ranking(result.get("ranking", {}))
    test, train = result["test"], result["train"]
    lines += [
        "",
        "## Each rule switched off (same model)",
        "",
        "A rule earns its place when the test part loses with it off (facts or not covered). 'At most two",
        "quotes from one passage' was removed this way (off: test facts +0.012, train +0.016).",
        "",
        "| rule | test facts with / without | test not covered with / without | train facts without | verdict |",
        "|---|---:|---:|---:|---|",
    ]
    for name, fig in result["rules"].items():
        t = fig["test"]
        worse_test = (t["fact_recall"] or 0) < (test["fact_recall"] or 0) or (t["not_covered"] or 0) < (test["not_covered"] or 0)
        worse_train = (fig["train"]["fact_recall"] or 0) < (train["fact_recall"] or 0)
        verdict = "kept" if worse_test else "kept: no test question needs it, train does" if worse_train else "no effect measured"
        lines.append(
            f"| {name} | {_num(test['fact_recall'])} / {_num(t['fact_recall'])} | {_num(test['not_covered'])} / "
            f"{_num(t['not_covered'])} | {_num(fig['train']['fact_recall'])} (with: {_num(train['fact_recall'])}) | "
            f"{verdict} |"
        )
    return "\n".join(lines + constants_table(result.get("constants", {}))) + "\n"


def sign_test(better: int, worse: int) -> float:
    """Two-sided sign test: the chance of a split at least this uneven between ``better`` and ``worse``
    questions if neither value were truly better (questions that do not change are left out)."""
    n = better + worse
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(better, worse) + 1)) / 2**n
    return float(min(1.0, 2 * tail))


def paired(candidate: dict[str, float], in_use: dict[str, float]) -> tuple[int, int]:
    """Training questions whose fact recall is higher / lower with ``candidate`` than with ``in_use``."""
    better = sum(1 for q, v in candidate.items() if v > in_use.get(q, 0.0))
    worse = sum(1 for q, v in candidate.items() if v < in_use.get(q, 0.0))
    return better, worse


def constants_table(measured: dict[str, dict[int, dict[str, Any]]]) -> list[str]:
    """The walk's constants at each value measured; the one in use is the first. It stays unless the
    training part prefers another beyond chance (a sign test over the training questions, p < SIGNIFICANT)."""
    lines = [
        "",
        "## The walk's constants, measured (same model, questions walked again)",
        "",
        "The value in use is marked. Another value replaces it only when the training part prefers it beyond",
        f"chance: more training questions gain facts than lose them, by a sign test with p < {SIGNIFICANT}",
        "(questions that do not change are left out). A difference of a few questions either way is noise, and",
        "choosing on it would fit the training part's noise. The test part is only reported.",
        "",
        "| constant | value | train facts | train not covered | test facts | test not covered | "
        "train questions better / worse | sign test p | verdict |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, by_value in measured.items():
        in_use = next(iter(by_value))
        base = by_value[in_use]["train"].get("per_question", {})
        for value, fig in by_value.items():
            tr, te = fig["train"], fig["test"]
            cells = [tr["fact_recall"], tr["not_covered"], te["fact_recall"], te["not_covered"]]
            shown = f"**{value}** (in use)" if value == in_use else str(value)
            if value == in_use:
                tail = "| | | in use |"
            else:
                better, worse = paired(tr.get("per_question", {}), base)
                p = sign_test(better, worse)
                verdict = f"better on train: use {value}" if p < SIGNIFICANT and better > worse else "not better beyond chance"
                tail = f"| {better} / {worse} | {p:.2f} | {verdict} |"
            lines.append(f"| {name} | {shown} | " + " | ".join(_num(c) for c in cells) + f" {tail}")
    return lines


def _ranking(measured: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    """Train against test for the fitted ranking and for one that fits nothing: overfitting, or a harder test part?"""
    if not measured:
        return []
    lines = [
        "",
        "## Train against test: the fit, or the questions?",
        "",
        "The share of answerable questions whose top candidate (top three) states an expected fact. The",
        "similarity alone is fitted on nothing, so the gap it shows between the parts is in the questions",
        "themselves; only what the fitted model adds to that gap is the fit's.",
        "",
        "| candidates ranked by | train top 1 / top 3 | test top 1 / top 3 | gap, top 1 / top 3 |",
        "|---|---:|---:|---:|",
    ]
    for name, parts in measured.items():
        tr, te = parts["train"], parts["test"]
        gaps = [(tr[k] or 0) - (te[k] or 0) for k in ("top1", "top3")]
        lines.append(
            f"| {name} | {_num(tr['top1'])} / {_num(tr['top3'])} | {_num(te['top1'])} / {_num(te['top3'])} | "
            f"{gaps[0]:.3f} / {gaps[1]:.3f} |"
        )
    return lines


def _set_row(name: str, result: dict[str, Any]) -> str:
    train, test = (result[part]["per_set"].get(name, {}) for part in ("train", "test"))
    cells = [f"{_num(train.get(k))} / {_num(test.get(k))}" for k in ("facts", "not_covered", "false_not_covered")]
    return f"| {name} | " + " | ".join(cells) + " |"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
