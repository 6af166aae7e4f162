"""Can a few hundred questions teach the bundled model to judge spans? (docs/eval.md, third session).

Fine-tunes the bundled model on the training part's candidate pools, in one of two ways, and reports
top 1 / top 3 (answerable questions whose best-ranked candidate, or one of the best three, states an
expected fact) on one fold of the training part held out. The test part is never read.

- ``--mode cross``: a cross-encoder (question and span read together, mean-pooled, one linear output),
  trained with a listwise loss over each question's candidates; also reported added to the scorer.
- ``--mode question``: only the question side is trained (its top ``--layers`` layers); the spans keep
  the vectors the index stored, so the similarity of the shipped scorer is replaced by the tuned one.

Baselines in the same run: the question-to-span similarity alone, and the shipped scorer's features
refitted on the other folds (``hwqa.answer.scorer.fit_listwise``). Needs torch and transformers (the
torch extra, `make torch`, brings both) and the eval indexes (``hwqa eval`` builds them).

Usage: ``python eval/experiments/judge.py --mode cross --fold 0 --epochs 2 --lr 3e-5``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from hwqa.answer.scorer import FEATURES, fit_listwise
from hwqa.eval.fit import FOLDS, collect
from hwqa.eval.sets import load_question_set
from hwqa.index.embed import resolve_model
from hwqa.notes.spans import spans_of
from hwqa.settings import load_settings

REPO = Path(__file__).resolve().parents[2]


def pools(cache: Path) -> list[dict[str, Any]]:
    """Each answerable training question: its text, fold, candidates' texts, features, labels, span vectors."""
    sets = [load_question_set(f) for f in sorted((REPO / "eval").glob("*.yaml"))]
    out = []
    for a in collect(sets, load_settings(), cache, lambda m: print(m, file=sys.stderr)):
        if a.split != "train" or not a.question.covered or not len(a.y) or not a.hits:
            continue
        pool = a.engine.answerer.candidates(a.parsed, a.hits, next(iter(a.tools), None))[1]
        vectors = []
        for c in pool:
            stored, spans = c.hit.chunk.spans, spans_of(c.hit.chunk.text)
            k = next((i for i, s in enumerate(spans) if (s.position, s.text) == (c.span.position, c.span.text)), None)
            ok = stored is not None and k is not None and len(stored) == len(spans)
            vectors.append(np.asarray(stored[k], dtype=np.float32) if ok else np.zeros(a.hits[0].query.shape, np.float32))
        fold = int(hashlib.sha256(f"{a.set}/{a.question.group}".encode()).hexdigest(), 16) % FOLDS
        out.append(
            dict(
                question=a.question.question,
                fold=fold,
                texts=[c.span.text for c in pool],
                x=a.x,
                y=a.y > 0,
                svec=np.array(vectors),
            )
        )
    return out


# The columns of the features the shipped scorer chose.
SHIPPED = [
    FEATURES.index(f) for f in json.loads((REPO / "src/hwqa/answer/data/scorer.json").read_text(encoding="utf-8"))["features"]
]


def shipped(x: np.ndarray) -> np.ndarray:
    return x[:, SHIPPED]


def linear(learn: list[dict[str, Any]], column: str = "x") -> Any:
    """The shipped scorer's features, refitted on ``learn`` (standardised, ridge 0.01 as the fit chose)."""
    xs = np.vstack([shipped(r[column]) for r in learn])
    mean, scale = xs.mean(0), xs.std(0)
    scale[scale == 0] = 1
    w = fit_listwise([((shipped(r[column]) - mean) / scale, r["y"].astype(float)) for r in learn], l2=0.01)
    return lambda r: ((shipped(r[column]) - mean) / scale) @ w


def report(name: str, score: Any, held: list[dict[str, Any]]) -> None:
    top1 = top3 = 0
    for r in held:
        order = np.argsort(-score(r), kind="stable")
        top1 += int(r["y"][order[0]])
        top3 += int(r["y"][order[:3]].any())
    print(f"{name:48s} top 1 {top1:3d} / top 3 {top3:3d} of {len(held)}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["cross", "question"], required=True)
    ap.add_argument("--fold", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--layers", type=int, default=2, help="question mode: top layers trained")
    ap.add_argument("--cache", type=Path, default=REPO / ".eval-index")
    args = ap.parse_args()

    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(2)
    torch.manual_seed(0)
    random.seed(0)
    rows = pools(args.cache)
    learn = [r for r in rows if r["fold"] != args.fold]
    held = [r for r in rows if r["fold"] == args.fold]
    folder = resolve_model(load_settings().embed_model)[1]
    tok, bert = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder)

    def pooled(enc: Any) -> Any:
        out, mask = bert(**enc).last_hidden_state, enc["attention_mask"].unsqueeze(-1).float()
        return (out * mask).sum(1) / mask.sum(1)

    head = torch.nn.Linear(bert.config.hidden_size, 1)
    torch.nn.init.zeros_(head.weight)
    torch.nn.init.zeros_(head.bias)

    def cross(question: str, texts: list[str]) -> Any:
        enc = tok([question] * len(texts), texts, truncation="only_second", max_length=128, padding=True, return_tensors="pt")
        return head(pooled(enc)).squeeze(-1)

    def questions(qs: list[str]) -> Any:
        enc = tok(qs, truncation=True, max_length=64, padding=True, return_tensors="pt")
        return torch.nn.functional.normalize(pooled(enc), dim=-1)

    if args.mode == "cross":
        params = [*bert.parameters(), *head.parameters()]
    else:
        for p in bert.parameters():
            p.requires_grad = False
        params = [p for layer in bert.encoder.layer[-args.layers :] for p in layer.parameters()]
        for p in params:
            p.requires_grad = True
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = args.epochs * len(learn)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 50) * max(0.0, 1 - s / steps))
    started = time.time()
    for epoch in range(args.epochs):
        order = [r for r in learn if r["y"].any()]
        random.shuffle(order)
        bert.train()
        total = 0.0
        for r in order:
            if args.mode == "cross":
                keep = [i for i in range(len(r["texts"])) if r["y"][i]]
                rest = [i for i in range(len(r["texts"])) if not r["y"][i]]
                random.shuffle(rest)
                keep += rest[: max(0, 32 - len(keep))]
                s, y = cross(r["question"], [r["texts"][i] for i in keep]), torch.from_numpy(r["y"][keep])
            else:
                s, y = 20.0 * (torch.from_numpy(r["svec"]) @ questions([r["question"]])[0]), torch.from_numpy(r["y"])
            loss = torch.logsumexp(s, 0) - torch.logsumexp(s[y], 0)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / len(order):.3f}, {time.time() - started:.0f} s", file=sys.stderr, flush=True)

    bert.eval()
    base = linear(learn)
    report("the question-to-span similarity alone", lambda r: r["x"][:, FEATURES.index("sim")], held)
    report("the shipped scorer's features, refitted", base, held)
    with torch.no_grad():
        if args.mode == "cross":
            judged = {id(r): cross(r["question"], r["texts"]).numpy() for r in held}
            report("the cross-encoder", lambda r: judged[id(r)], held)
            for weight in (0.25, 0.5, 1.0, 2.0):

                def added(r: dict[str, Any], weight: float = weight) -> np.ndarray:
                    a, b = base(r), judged[id(r)]
                    return (a - a.mean()) / (a.std() + 1e-9) + weight * (b - b.mean()) / (b.std() + 1e-9)

                report(f"the scorer plus {weight} x the cross-encoder (z-scores)", added, held)
        else:
            for r in rows:
                r["tuned"] = r["x"].copy()
                r["tuned"][:, FEATURES.index("sim")] = r["svec"] @ questions([r["question"]])[0].numpy()
            tuned = linear(learn, "tuned")
            report("the tuned similarity alone", lambda r: r["tuned"][:, FEATURES.index("sim")], held)
            report("the scorer's features over the tuned similarity", tuned, held)
            report("(on the questions trained on) the similarity alone", lambda r: r["x"][:, FEATURES.index("sim")], learn)
            report("(on the questions trained on) the tuned similarity", lambda r: r["tuned"][:, FEATURES.index("sim")], learn)


if __name__ == "__main__":
    main()
