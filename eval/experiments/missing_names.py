"""How much should a name that no passage holds weigh on "not covered"? Measured, not assumed.

Walks every question of the sets once (``hwqa.eval.fit.collect``), then, with the scorer's features held
at the shipped model's, compares the evidence a missing name gives the fitted decision:

- ``veto``: the old gate: any missing name or unknown word turns the question away;
- ``none``: the best candidate's confidence alone;
- ``names``: the share of the asked names and identifiers no passage holds, weighted by cross-validation;
- ``names+words``: the same share counting the lower-case words no dictionary knows.

Every weight and threshold is chosen on the training part (``hwqa.eval.fit``); the test part, blind sets
included, is only reported. Run: ``python eval/experiments/missing_names.py [--cache DIR]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from hwqa.eval import fit
from hwqa.eval.sets import load_question_set
from hwqa.settings import load_settings

HERE = Path(__file__).resolve().parent.parent
SHIPPED_FEATURES = ("sim", "rank", "overlap", "context", "name", "name_near", "type", "short")  # main 1e01b05's model


def share_of(q: Any, evidence: str) -> float:
    if evidence == "none":
        return 0.0
    if evidence == "veto":
        return 1.0 if (q.missing or q.unknown) else 0.0
    if evidence == "names":
        return q.missing_share
    if q.unknown:  # unknown words are asked about only when the question names nothing else: all of them count
        return 1.0
    return q.missing_share


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", default=".eval-index")
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    base = load_settings({}, env={}, cwd=Path.cwd())
    sets = [load_question_set(p) for p in sorted(HERE.glob("*.yaml"))]
    asked = fit.collect(sets, base, Path(args.cache), lambda m: print(m, file=sys.stderr))
    parsed = {id(a): a.parsed for a in asked}
    results = {}
    for evidence in ("veto", "none", "names", "names+words"):
        for a in asked:
            share = share_of(parsed[id(a)], evidence)
            a.missing_share = share
            a.parsed = replace(parsed[id(a)], missing_share=share)
        l2 = 0.01
        if evidence == "veto":
            weight, cv = 60.0, {}
        elif evidence == "none":
            weight, cv = 0.0, {}
        else:
            weight, cv = fit.choose_missing_weight(asked, SHIPPED_FEATURES, l2)
        model = fit.fit_model(asked, SHIPPED_FEATURES, margin=0.4, l2=l2, weight=weight)
        row = {
            "weight": weight,
            "cv": {str(w): list(v) for w, v in cv.items()},
            "threshold": model.threshold,
            "cv_right": list(fit.cross_validated(asked, SHIPPED_FEATURES, l2, weight)),
        }
        for part in ("train", "test"):
            f = fit.figures(asked, model, part)
            row[part] = {k: f[k] for k in ("fact_recall", "not_covered", "false_not_covered")} | {"per_set": f["per_set"]}
        results[evidence] = row
        print(evidence, json.dumps({k: row[k] for k in ("weight", "threshold", "cv_right")}), file=sys.stderr)
        print(" train", json.dumps(row["train"]), file=sys.stderr)
        print(" test ", json.dumps(row["test"]), file=sys.stderr)
    text = json.dumps(results, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)


if __name__ == "__main__":
    main()
