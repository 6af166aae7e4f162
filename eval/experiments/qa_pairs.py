"""A judge learned from question-answer pairs nobody here wrote (issue 32, item 3; docs/eval.md).

Debian's documentation on this machine holds thousands of pairs: FAQ pages (a question heading, or a
``<dt>`` that asks, and the answer after it), HTML references (a ``<dt>`` term and its ``<dd>``) and man
pages (an option and its description, with the command's name). Each pair comes with distractors from
the same page: the neighbouring entries, which is the confusion the builtin answerer makes (quoting the
entry next to the asked one).

The pairs are embedded the way an index embeds a passage (:func:`hwqa.index.embed.embed_with_pieces`): a few
neighbouring entries make one passage, each answer a piece read in it; the question is embedded alone.
A question's candidates are the entries within ``REACH`` of it on its page. The judge is a diagonal
bilinear head over the bundled model's vectors, ``judge(q, s) = sum_i (1 + w_i) q_i s_i`` (``w = 0`` is
the cosine), trained listwise (a softmax over one question's candidates, the true answer taking the mass)
on some packages and tested on OTHER packages (the package of a page, ``-doc``/``-common`` and the like
folded, so a project's man pages and HTML stay on one side).

Nothing of the eval sets is read: the packages they use (python3.11-doc, slurm-wlm-doc, sqlite3-doc) are
left out (every python, slurm and sqlite package), and so are the notes in ``eval/``. Run as
``python eval/experiments/qa_pairs.py ...`` with the repository's venv; the corpus, the head and the
figures go to ``$QA_PAIRS_CACHE`` (``/tmp/qa-pairs``). Packages read besides what a ``make install``
machine has: ``apt-get install debian-faq ffmpeg-doc git-doc libcurl4-doc bash-doc zsh-doc libjson-c-doc``.

Usage (``corpus`` renders and embeds, under 15k spans; ``train`` fits on one side and reports top 1 on the
other; ``write`` fits the head on every package; ``measure`` runs the scorer's fit without and with the head's
score as a feature ``judge``, the test part only reported; see docs/eval.md for what each said)::

    python eval/experiments/qa_pairs.py corpus
    python eval/experiments/qa_pairs.py train --l2 0 0.0003 0.001 0.01 [--balance] [--rank 16] [--kinds faq]
    python eval/experiments/qa_pairs.py write --l2 0.001
    python eval/experiments/qa_pairs.py measure
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("QA_PAIRS_CACHE", "/tmp/qa-pairs"))
DOC = Path("/usr/share/doc")
MAN = Path("/usr/share/man")
EXCLUDED = ("python", "slurm", "sqlite")  # what the eval sets are made of (any of their versions), never read here
PER_GROUP = 500  # entries at most from one package (a large reference must not be the corpus)
TOTAL = 15_000  # spans embedded at most
REACH = 5  # a question's candidates: the entries up to this many before and after it on its page
PASSAGE_TOKENS = 200  # a passage's budget, as hwqa's chunk_tokens
ANSWER_WORDS = 40
TEST_SHARE = 3  # of 10: packages whose hash falls there are the test side
MAN_PAGES = 300  # man pages rendered (a deterministic sample of man1 and man8)
PER_PAGE = 40  # entries at most from one reference or man page

_HEAD = {"h1", "h2", "h3", "h4", "h5", "h6"}
_BODY = {"p", "pre", "li", "dd", "blockquote"}
_NUMBERING = re.compile(r"^\s*(?:Q[:.]\s*|\(?\d+(?:\.\d+)*[.:)]?\s+)")
_SPACE = re.compile(r"\s+")


@dataclass
class Entry:
    key: str  # the question's subject: a FAQ question, a term, an option
    text: str  # the answer
    question: str = ""


@dataclass
class Page:
    group: str  # the package (folded)
    kind: str  # faq | ref | man
    title: str
    entries: list[Entry]


def group_of(package: str) -> str:
    """A package folded to its project: 'zsh-common' and 'zsh-doc' -> 'zsh', 'libxslt1-dev' -> 'libxslt'."""
    name = re.sub(r"-(doc|common|dev|data|base|utils|tools|bin|html|manual)$", "", package)
    name = re.sub(r"-(doc|common|dev|data|base|utils|tools|bin|html)$", "", name)
    return re.sub(r"[\d.]+$", "", name) or package


def excluded(group: str) -> bool:
    return group.startswith(EXCLUDED)


def _text(el: Any) -> str:
    return _SPACE.sub(" ", el.text_content()).strip()


def _blocks(root: Any) -> list[tuple[str, str]]:
    """The page as (kind, text) in reading order: headings 'h', terms 'dt', everything else 'p'."""
    out: list[tuple[str, str]] = []

    def walk(el: Any) -> None:
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag in ("script", "style", "nav", "head"):
                continue
            if tag in _HEAD:
                out.append(("h", _text(child)))
            elif tag == "dt":
                out.append(("dt", _text(child)))
            elif tag in _BODY:
                out.append(("p", _text(child)))
            elif tag:
                walk(child)

    walk(root)
    return [(k, t) for k, t in out if t]


def _shorten(text: str, words: int = ANSWER_WORDS) -> str:
    """The first sentences of ``text`` up to about ``words`` words."""
    parts = text.split()
    if len(parts) <= words:
        return text
    cut = " ".join(parts[:words])
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    return cut[: end + 1] if end > len(cut) // 2 else cut


_TOC = re.compile(r"^\s*\d+(?:\.\d+)+\.?\s")  # an answer that is a table of contents
_WORD = re.compile(r"^[A-Za-z][a-z'’]*[,;:]?$")


def _asks(question: str) -> bool:
    """A question in words: 3 to 30 of them, most of them words, ending in '?'."""
    words = question.split()
    return (
        question.endswith("?")
        and 3 <= len(words) <= 30
        and question[:1].isalpha()
        and sum(1 for w in words if _WORD.match(w.rstrip("?"))) >= 0.6 * len(words)
    )


def text_faqs(path: Path, group: str) -> list[Page]:
    """A plain-text FAQ: a line that asks (after a blank line, numbering allowed), the paragraphs after it."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    lines = raw.decode("utf-8", "replace").splitlines()
    entries: list[Entry] = []
    i = 0
    while i < len(lines):
        line = _NUMBERING.sub("", lines[i].strip().lstrip("*-#").strip())
        if _asks(line) and (i == 0 or not lines[i - 1].strip()):
            j, body = i + 1, []
            while j < len(lines):
                nxt = _NUMBERING.sub("", lines[j].strip().lstrip("*-#").strip())
                if _asks(nxt) and not lines[j - 1].strip():
                    break
                body.append(lines[j].strip())
                j += 1
            answer = _shorten(" ".join(b for b in body if b and not set(b) <= set("-=*_ ")))
            if len(answer.split()) >= 6:
                entries.append(Entry(line, answer, line))
            i = j
        else:
            i += 1
    return [Page(group, "faq", path.name, entries)] if len(entries) >= 3 else []


def html_pages(path: Path, group: str) -> list[Page]:
    """A FAQ page's questions with their answers, and a reference's terms with their definitions."""
    import lxml.html

    try:
        root = lxml.html.fromstring(path.read_bytes())
    except (ValueError, lxml.etree.ParserError):
        return []
    title_el = root.find(".//title")
    title = _text(title_el) if title_el is not None else path.stem
    blocks = _blocks(root)
    faq: list[Entry] = []
    ref: list[Entry] = []
    i = 0
    while i < len(blocks):
        kind, text = blocks[i]
        j = i + 1
        body = []
        while j < len(blocks) and blocks[j][0] == "p":
            body.append(blocks[j][1])
            j += 1
        answer = _shorten(" ".join(body))
        question = _NUMBERING.sub("", text[: text.rfind("?") + 1]).strip()
        if kind in ("h", "dt") and _asks(question) and len(answer.split()) >= 6 and not _TOC.match(answer):
            faq.append(Entry(question, answer, question))
        elif kind == "dt" and len(text.split()) <= 10 and len(answer.split()) >= 4 and body:
            ref.append(Entry(text, answer))
        i = j
    out = []
    if len(faq) >= 3:
        out.append(Page(group, "faq", title, faq))
    if len(ref) >= 3:
        out.append(Page(group, "ref", title, ref))
    return out


def faq_and_ref_pages() -> list[Page]:
    pages: list[Page] = []
    for folder in sorted(p for p in DOC.iterdir() if p.is_dir()):
        group = group_of(folder.name)
        if excluded(group) or excluded(folder.name):
            continue
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.stat().st_size > 3_000_000:
                continue
            if path.suffix in (".html", ".htm"):
                pages += html_pages(path, group)
            elif "faq" in path.name.lower() and path.suffix in ("", ".gz", ".txt"):
                pages += text_faqs(path, group)
    return dedupe(pages)


def dedupe(pages: list[Page]) -> list[Page]:
    """One copy of an entry (a FAQ in two languages' file names, a reference in one page and in 'all')."""
    seen: set[tuple[str, str]] = set()
    out = []
    for page in pages:
        page.entries = [e for e in page.entries if not ((e.key, e.text) in seen or seen.add((e.key, e.text)))]  # type: ignore[func-returns-value]
        if len(page.entries) >= 3:
            out.append(page)
    return out


_OPTION = re.compile(r"^ {7}(-{1,2}[A-Za-z0-9?][^\s,]*(?:,? ?-{1,2}[A-Za-z0-9][^\s,]*)*[^ ]*(?: [^ ]+)??)(?: {2,}(\S.*))?$")


def man_page(path: Path, group: str) -> Page | None:
    """A man page's options, each with its description (the command's name kept for the question)."""
    env = {**os.environ, "MANWIDTH": "100", "MAN_KEEP_FORMATTING": "0"}
    try:
        rendered = subprocess.run(
            ["man", "--no-hyphenation", "--no-justification", "-l", str(path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=20,
        ).stdout
    except (subprocess.TimeoutExpired, OSError):
        return None
    text = re.sub(r".\x08", "", rendered)
    command = path.name.split(".")[0]
    entries: list[Entry] = []
    term: str | None = None
    desc: list[str] = []

    def close() -> None:
        if term is not None and len(" ".join(desc).split()) >= 4:
            entries.append(Entry(term, _shorten(" ".join(desc))))

    for line in text.splitlines():
        m = _OPTION.match(line)
        if m:
            close()
            term, desc = m.group(1).strip(), [m.group(2)] if m.group(2) else []
        elif term is not None and line.startswith(" " * 11) and line.strip():
            desc.append(line.strip())
        elif term is not None and ((line.strip() and not line.startswith(" ")) or (not line.strip() and desc)):
            close()  # a section heading, or the blank line after a description
            term, desc = None, []
    close()
    # one entry per option name
    seen: set[str] = set()
    unique = [e for e in entries if not (e.key in seen or seen.add(e.key))]  # type: ignore[func-returns-value]
    return Page(group, "man", command, unique) if len(unique) >= 3 else None


def man_pages() -> list[Page]:
    # gcloud's 16,000 generated pages would be the corpus; LLVM's pages were an eval set once
    files = sorted(p for sec in ("man1", "man8") for p in (MAN / sec).glob("*.gz") if not p.name.startswith(("gcloud", "llvm")))
    files = sorted(files, key=lambda p: hashlib.sha256(p.name.encode()).hexdigest())[: MAN_PAGES * 2]
    owners = _owners(files)
    pages = []
    for path in files:
        package = owners.get(str(path), path.name.split(".")[0])
        group = group_of(package)
        if excluded(group) or excluded(package):
            continue
        page = man_page(path, group)
        if page is not None:
            pages.append(page)
        if len(pages) >= MAN_PAGES:
            break
    return pages


def _owners(files: list[Path]) -> dict[str, str]:
    """Each file's Debian package (dpkg -S, in batches)."""
    out: dict[str, str] = {}
    for s in range(0, len(files), 200):
        run = subprocess.run(["dpkg", "-S", *map(str, files[s : s + 200])], capture_output=True, text=True)
        for line in run.stdout.splitlines():
            package, _, path = line.partition(": ")
            out[path.strip()] = package.split(",")[0].split(":")[0].strip()
    return out


_TEMPLATES = {
    "ref": ("What does {t} do?", "What is {t} for?", "What is {t} in {title}?", "Explain {t}."),
    "man": ("What does {cmd} {t} do?", "What is the {t} option of {cmd} for?", "In {cmd}, what does {t} do?"),
}


def _name(term: str) -> str:
    """The option a question names: the long one of '-a, --all' (its argument left out)."""
    options = re.findall(r"--?[A-Za-z0-9][\w-]*", term)
    longs = [o for o in options if o.startswith("--")]
    return (longs or options or [term])[0]


def questions(page: Page) -> None:
    for e in page.entries:
        if page.kind == "faq":
            continue
        pick = int(hashlib.sha256(f"{page.title}/{e.key}".encode()).hexdigest(), 16)
        templates = _TEMPLATES[page.kind]
        t = templates[pick % len(templates)]
        e.question = t.format(t=_name(e.key) if page.kind == "man" else e.key, cmd=page.title, title=page.title)


def is_test(group: str) -> bool:
    return int(hashlib.sha256(group.encode()).hexdigest(), 16) % 10 < TEST_SHARE


def corpus() -> None:
    """Render the pages, cut them into passages, embed; write CACHE/corpus.npz and CACHE/corpus.json."""
    from hwqa.index.embed import embed_with_pieces, make_embedder
    from hwqa.settings import load_settings

    pages = faq_and_ref_pages() + man_pages()
    for p in pages:
        if p.kind != "faq":
            p.entries = p.entries[:PER_PAGE]
        questions(p)
    # cap each package, whole pages at a time, pages in a fixed pseudo-random order (FAQ pages first)
    per_group: Counter[str] = Counter()
    kept: list[Page] = []
    order = sorted(pages, key=lambda p: (p.kind != "faq", hashlib.sha256(f"{p.group}/{p.title}".encode()).hexdigest()))
    for p in order:
        if per_group[p.group] >= PER_GROUP:
            continue
        p.entries = p.entries[: PER_GROUP - per_group[p.group]]
        per_group[p.group] += len(p.entries)
        kept.append(p)
    while sum(len(p.entries) for p in kept) > TOTAL:
        biggest = max(per_group, key=lambda g: per_group[g])
        drop = next(p for p in reversed(kept) if p.group == biggest)
        kept.remove(drop)
        per_group[biggest] -= len(drop.entries)
    settings = load_settings()
    embedder = make_embedder(settings)
    texts, pieces, where = [], [], []  # where: (page, entry) of each piece
    for pi, page in enumerate(kept):
        i = 0
        while i < len(page.entries):
            text, ranges, owners = f"{page.title}\n\n", [], []
            while i < len(page.entries):
                e = page.entries[i]
                block = e.text if page.kind == "faq" else f"{e.key}\n{e.text}"
                trial = text + block + "\n\n"
                if ranges and embedder.count_tokens(trial) > PASSAGE_TOKENS:
                    break
                start = len(text) + (0 if page.kind == "faq" else len(e.key) + 1)
                ranges.append((start, start + len(e.text)))
                owners.append((pi, i))
                text = trial
                i += 1
            texts.append(text.strip())
            pieces.append(ranges)
            where += owners
    print(f"{len(kept)} pages, {len(where)} entries, {len(texts)} passages; embedding …", file=sys.stderr)
    _, parts = embed_with_pieces(embedder, texts, pieces)
    spans = np.vstack([p for p in parts if len(p)])
    qtext = [kept[pi].entries[i].question for pi, i in where]
    qvec = embedder.embed(qtext)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(CACHE / "corpus.npz", spans=spans.astype(np.float32), questions=qvec.astype(np.float32))
    meta = [
        {
            "group": kept[pi].group,
            "kind": kept[pi].kind,
            "page": pi,
            "pos": i,
            "question": kept[pi].entries[i].question,
            "answer": kept[pi].entries[i].text,
            "key": kept[pi].entries[i].key,
        }
        for pi, i in where
    ]
    (CACHE / "corpus.json").write_text(json.dumps(meta), encoding="utf-8")
    kinds = Counter((m["kind"], is_test(m["group"])) for m in meta)
    print(json.dumps({f"{k}/{'test' if t else 'train'}": n for (k, t), n in sorted(kinds.items())}), file=sys.stderr)


def load() -> tuple[list[dict[str, Any]], np.ndarray, np.ndarray, list[tuple[int, np.ndarray, int]]]:
    """The corpus and its listwise groups: (the question's row, its candidates' rows, the true one's index)."""
    data = np.load(CACHE / "corpus.npz")
    meta = json.loads((CACHE / "corpus.json").read_text(encoding="utf-8"))
    by_page: dict[int, list[int]] = defaultdict(list)
    for row, m in enumerate(meta):
        by_page[m["page"]].append(row)
    groups = []
    for rows in by_page.values():
        for k, row in enumerate(rows):
            lo, hi = max(0, k - REACH), min(len(rows), k + REACH + 1)
            cands = rows[lo:hi]
            answers = {meta[r]["answer"] for r in cands}
            if len(cands) >= 3 and len(answers) == len(cands):
                groups.append((row, np.array(cands), k - lo))
    return meta, data["questions"], data["spans"], groups


def scores(w: np.ndarray, q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The judge: sum_i (1 + w_i) q_i s_i."""
    return s @ (q * (1.0 + w))


def _arrays(qv: np.ndarray, sv: np.ndarray, groups: list[tuple[int, np.ndarray, int]]) -> tuple[np.ndarray, ...]:
    """Padded arrays of the groups: questions (n, d), candidates (n, width, d), mask, the true index."""
    d = qv.shape[1]
    qs = np.stack([qv[g[0]] for g in groups]).astype(np.float32)
    width = max(len(g[1]) for g in groups)
    cand = np.zeros((len(groups), width, d), dtype=np.float32)
    mask = np.zeros((len(groups), width), dtype=bool)
    for n, (_, rows, _) in enumerate(groups):
        cand[n, : len(rows)] = sv[rows]
        mask[n, : len(rows)] = True
    return qs, cand, mask, np.array([g[2] for g in groups])


def train_head(
    qv: np.ndarray,
    sv: np.ndarray,
    groups: list[tuple[int, np.ndarray, int]],
    l2: float,
    epochs: int = 300,
    rate: float = 0.05,
    rank: int = 0,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """The head fitted listwise (Adam, full batch, deterministic): ``w`` of the diagonal part, a temperature,
    and, when ``rank`` > 0, a low-rank part ``A``, ``B`` (score += (A q) . (B s)). ``weights``: per question."""
    qs, cand, mask, truth = _arrays(qv, sv, groups)
    n, _, d = cand.shape
    rng = np.random.default_rng(0)
    params = {
        "w": np.zeros(d),
        "t": np.array([np.log(20.0)]),
        "A": rng.normal(0, 0.01, (rank, d)),
        "B": rng.normal(0, 0.01, (rank, d)),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    weight = np.ones(n) if weights is None else weights * n / weights.sum()
    target = np.zeros((n, cand.shape[1]), dtype=np.float32)
    target[np.arange(n), truth] = 1.0
    for step in range(1, epochs + 1):
        w, tau = params["w"], float(np.exp(params["t"][0]))
        qw = (qs * (1.0 + w)).astype(np.float32)
        raw = np.einsum("nkd,nd->nk", cand, qw)
        if rank:
            aq = qs @ params["A"].T  # (n, r)
            bs = cand @ params["B"].T  # (n, k, r)
            raw = raw + np.einsum("nr,nkr->nk", aq, bs)
        logits = np.where(mask, tau * raw, -1e9)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        diff = (p - target) * mask * weight[:, None] / n  # d loss / d logit
        grads = {
            "w": tau * (np.einsum("nk,nkd->nd", diff, cand) * qs).sum(axis=0) + l2 * w,
            "t": np.array([float((diff * raw).sum()) * tau]),
            "A": np.zeros_like(params["A"]),
            "B": np.zeros_like(params["B"]),
        }
        if rank:
            grads["A"] = tau * np.einsum("nk,nkr->nr", diff, bs).T @ qs + l2 * params["A"]
            grads["B"] = tau * aq.T @ np.einsum("nk,nkd->nd", diff, cand) + l2 * params["B"]
        for k in params:
            m[k] = 0.9 * m[k] + 0.1 * grads[k]
            v2[k] = 0.999 * v2[k] + 0.001 * grads[k] ** 2
            params[k] = params[k] - rate * (m[k] / (1 - 0.9**step)) / (np.sqrt(v2[k] / (1 - 0.999**step)) + 1e-8)
    return params["w"], float(np.exp(params["t"][0])), params["A"], params["B"]


def head_scores(head: tuple[np.ndarray, float, np.ndarray, np.ndarray], q: np.ndarray, s: np.ndarray) -> np.ndarray:
    w, _, a, b = head
    out = scores(w, q, s)
    if len(a):
        out = out + (s @ b.T) @ (a @ q)
    return out


def top1(head: Any, qv: np.ndarray, sv: np.ndarray, groups: list[tuple[int, np.ndarray, int]]) -> float:
    if isinstance(head, np.ndarray):
        head = (head, 1.0, np.zeros((0, len(head))), np.zeros((0, len(head))))
    right = sum(int(np.argmax(head_scores(head, qv[q], sv[rows])) == k) for q, rows, k in groups)
    return round(right / len(groups), 4) if groups else float("nan")


def train(args: argparse.Namespace) -> None:
    meta, qv, sv, groups = load()
    train_g = [g for g in groups if not is_test(meta[g[0]]["group"]) and meta[g[0]]["kind"] in args.kinds]
    test_g = [g for g in groups if is_test(meta[g[0]]["group"])]
    zero = np.zeros(qv.shape[1])
    print(
        f"train {len(train_g)} questions ({len({meta[g[0]]['group'] for g in train_g})} packages), "
        f"test {len(test_g)} ({len({meta[g[0]]['group'] for g in test_g})} packages)"
    )
    weights = None
    if args.balance:  # each kind of pair weighs the same in the loss
        count = Counter(meta[g[0]]["kind"] for g in train_g)
        weights = np.array([1.0 / count[meta[g[0]]["kind"]] for g in train_g])
    for l2 in args.l2:
        head = train_head(qv, sv, train_g, l2, epochs=args.epochs, rank=args.rank, weights=weights)
        row: dict[str, Any] = {
            "l2": l2,
            "rank": args.rank,
            "tau": round(head[1], 2),
            "train": top1(head, qv, sv, train_g),
            "test": top1(head, qv, sv, test_g),
        }
        for kind in ("faq", "ref", "man"):
            sub = [g for g in test_g if meta[g[0]]["kind"] == kind]
            row[f"test {kind} (n={len(sub)})"] = (top1(zero, qv, sv, sub), top1(head, qv, sv, sub))
        print(json.dumps(row), flush=True)
    print(json.dumps({"cosine": {"train": top1(zero, qv, sv, train_g), "test": top1(zero, qv, sv, test_g)}}))


def write(args: argparse.Namespace) -> None:
    """Train the head on every package (both sides) at ``--l2``: CACHE/judge.json, what ``measure`` adds."""
    _, qv, sv, groups = load()
    w = train_head(qv, sv, groups, args.l2[0], epochs=args.epochs)[0]
    doc = {"questions": len(groups), "l2": args.l2[0], "scale": [round(float(1.0 + x), 5) for x in w]}
    (CACHE / "judge.json").write_text(json.dumps(doc) + "\n", encoding="utf-8")
    print(f"wrote {CACHE / 'judge.json'}")


def judge_feature(scale: np.ndarray) -> Any:
    """``hwqa.answer.scorer.features`` with one more column, ``judge``: each candidate's span vector (read in its
    passage, as the index stored it) against the question's vector weighted by ``scale``; the candidate's
    own similarity when the index holds no span vectors for its passage (as ``sim`` falls back)."""
    from hwqa.answer import scorer
    from hwqa.notes.spans import spans_of

    plain = scorer.features
    cut: dict[str, list[tuple[int, str]]] = {}  # a passage's spans, by its text (chunk ids repeat across indexes)

    def judged(cand: Any) -> float:
        hit = cand.hit
        vectors, query = hit.chunk.spans, hit.query
        if vectors is None or query is None or getattr(query, "shape", None) != scale.shape:
            return float(cand.sim)
        spans = cut.setdefault(hit.chunk.text, [(sp.position, sp.text) for sp in spans_of(hit.chunk.text)])
        if len(spans) != len(vectors) or (cand.span.position, cand.span.text) not in spans:
            return float(cand.sim)
        return float(np.asarray(vectors[spans.index((cand.span.position, cand.span.text))]) @ (query * scale))

    def features(q: Any, pool: Any) -> np.ndarray:
        x = plain(q, pool)  # already as wide as the patched FEATURES, its last column left at zero
        if len(pool):
            x[:, scorer.FEATURES.index("judge")] = [judged(c) for c in pool]
        return x

    return features


def measure(args: argparse.Namespace) -> None:
    """The scorer's fit (features chosen by CV on train, ridge, threshold, margin: :mod:`hwqa.eval.fit`), without
    and with the candidate feature ``judge`` (patched in: ``hwqa.answer.scorer`` does not ship it); the test part
    only reported. Needs CACHE/judge.json (``write``) and the eval indexes (``hwqa eval`` builds them)."""
    from hwqa.answer import builtin, scorer
    from hwqa.eval import fit
    from hwqa.eval.sets import default_question_files, load_question_set
    from hwqa.settings import load_settings

    scale = np.asarray(json.loads((CACHE / "judge.json").read_text(encoding="utf-8"))["scale"], dtype=np.float32)
    plain_features = scorer.FEATURES
    scorer.FEATURES = (*plain_features, "judge")
    scorer.features = builtin.features = judge_feature(scale)
    sets = [load_question_set(Path(f)) for f in default_question_files()]
    asked = fit.collect(sets, load_settings(), REPO / ".eval-index", lambda m: print(m, file=sys.stderr))
    out: dict[str, Any] = {}
    for name, features in (("without judge", list(plain_features)), ("with judge", list(scorer.FEATURES))):
        kept, steps = fit.choose_features(asked, features, fit.choose_l2(asked, features))
        l2 = fit.choose_l2(asked, kept)
        extra: dict[str, Any] = {}
        if hasattr(fit, "choose_missing_weight"):  # the fit of later mains: a missing name weighs in the decision
            extra["weight"] = fit.choose_missing_weight(asked, kept, l2)[0]
        model = fit.fit_model(asked, kept, l2=l2, **extra)
        best = max(fit.MARGINS, key=lambda m: (fit.figures(asked, fit.replace(model, margin=m), "train")["fact_recall"] or 0, m))
        model = fit.replace(model, margin=best)
        row: dict[str, Any] = {"kept": kept, "cv": steps[-1]["cv"], "l2": l2, "margin": best, **extra}
        for part in ("train", "test"):
            f = fit.figures(asked, model, part)
            row[part] = {k: f[k] for k in ("fact_recall", "not_covered", "false_not_covered", "rewordings_facts")}
            row[f"{part} sets"] = f["per_set"]
        out[name] = row
        print(json.dumps({name: row}), flush=True)
    j, s = scorer.FEATURES.index("judge"), scorer.FEATURES.index("sim")
    out["ranking"] = {
        n: {p: fit.ranking(asked, (lambda a, c=c: a.x[:, c]), p) for p in ("train", "test")}
        for n, c in (("sim", s), ("judge", j))
    }
    print(json.dumps({"ranking": out["ranking"]}))
    (CACHE / "measure.json").write_text(json.dumps(out, indent=1), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=("corpus", "train", "write", "measure"))
    parser.add_argument("--l2", type=float, nargs="*", default=[0.0, 0.001, 0.01, 0.1])
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--rank", type=int, default=0, help="a low-rank bilinear part besides the diagonal")
    parser.add_argument("--balance", action="store_true", help="each kind of pair weighs the same")
    parser.add_argument("--kinds", nargs="*", default=["faq", "ref", "man"], help="the kinds of pairs trained on")
    args = parser.parse_args()
    if args.step == "corpus":
        corpus()
    elif args.step == "train":
        train(args)
    elif args.step == "write":
        write(args)
    else:
        measure(args)


if __name__ == "__main__":
    main()
