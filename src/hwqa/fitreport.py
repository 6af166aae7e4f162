"""The fit report (``eval/fit-report.md``): what ``hwqa eval --fit`` (:mod:`hwqa.fit`) chose and measured."""

from __future__ import annotations

from typing import Any


def _row(name: str, f: dict[str, Any]) -> str:
    cells = [f.get(k) for k in ("fact_recall", "hit5", "not_covered", "false_not_covered", "originals_facts", "rewordings_facts")]
    return f"| {name} | " + " | ".join(_num(c) for c in cells) + " |"


def render_report(result: dict[str, Any]) -> str:
    """``eval/fit-report.md`` from what :func:`hwqa.fit.run_fit` measured."""
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
        "fitted on the other folds), the model without it gets at least as many training questions right: an",
        "answerable one answered with an expected fact in its top candidate (then: in its top three), an",
        "unanswerable one turned away.",
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
    return "\n".join(lines + _constants(result.get("constants", {}))) + "\n"


def _constants(measured: dict[str, dict[int, dict[str, Any]]]) -> list[str]:
    """The walk's hand-set constants at each value measured; the one in use is the first."""
    lines = [
        "",
        "## The walk's constants, measured (same model, questions walked again)",
        "",
        "The value in use is marked; 'best on train' marks the value the training part prefers (ties: the",
        "smaller). The values in use were hand-set before this table existed; where the training part prefers",
        "another, the difference is a few training questions. The test part is only reported.",
        "",
        "| constant | value | train facts | train not covered | test facts | test not covered | best on train |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, by_value in measured.items():
        in_use = next(iter(by_value))
        best = max(by_value, key=lambda v: ((by_value[v]["train"]["fact_recall"] or 0), -v))
        for value, fig in by_value.items():
            tr, te = fig["train"], fig["test"]
            cells = [tr["fact_recall"], tr["not_covered"], te["fact_recall"], te["not_covered"]]
            shown = f"**{value}** (in use)" if value == in_use else str(value)
            lines.append(f"| {name} | {shown} | " + " | ".join(_num(c) for c in cells) + f" | {'yes' if value == best else ''} |")
    return lines


def _set_row(name: str, result: dict[str, Any]) -> str:
    train, test = (result[part]["per_set"].get(name, {}) for part in ("train", "test"))
    cells = [f"{_num(train.get(k))} / {_num(test.get(k))}" for k in ("facts", "not_covered", "false_not_covered")]
    return f"| {name} | " + " | ".join(cells) + " |"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
