"""``hwqa eval``'s report for people: the train and test figures side by side, the rewordings' gap, the failures.

The figures come from :func:`hwqa.eval.evaluate.run_eval` (the JSON ``hwqa eval --json`` prints); each
cell of the tables reads ``train / test``, the training figure first.
"""

from __future__ import annotations

from typing import Any

from .sets import SPLITS

COLUMNS = (
    ("hit1", "hit@1"),
    ("hit5", "hit@5"),
    ("mrr", "MRR"),
    ("fact_recall", "facts"),
    ("not_covered_accuracy", "not covered"),
    ("missing_named", "term named"),
    ("false_not_covered", "false n.c."),
)
LLM_COLUMNS = (("supported", "sentences supported"), ("fell_back", "fell back"))  # chat-model runs only
WORDING_COLUMNS = (
    ("original", "facts, original"),
    ("reworded", "facts, reworded"),
    ("gap", "gap"),
    ("original_not_covered", "n.c., original"),
    ("reworded_not_covered", "n.c., reworded"),
)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if isinstance(value, float) and value > 1.0 else f"{value:.2f}"


def _parts(metrics: dict[str, Any], section: str = "splits") -> list[dict[str, Any]]:
    return [metrics[section][part] for part in SPLITS if part in metrics.get(section, {})]


def _pair(metrics: dict[str, Any], key: str, section: str = "splits") -> str:
    """``train / test`` for one figure (one value when the run covered one part)."""
    return " / ".join(_cell(part.get(key)) for part in _parts(metrics, section)) or _cell(metrics.get(key))


def _set_label(s: dict[str, Any]) -> str:
    parts = " / ".join(f"{n} {part}" for part, n in s.get("split", {}).items())
    return f"{s['name']} ({s['questions']}: {parts})" if parts else f"{s['name']} ({s['questions']})"


def _header(report: dict[str, Any]) -> str:
    return " / ".join(p for p in SPLITS if report.get("split", "all") in ("all", p))


def _columns(report: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The figures shown: a chat model's runs add the share of its sentences supported and of answers fallen back."""
    return COLUMNS + (LLM_COLUMNS if report.get("llm_backend", "builtin") != "builtin" else ())


def _answers(report: dict[str, Any]) -> str:
    return f"{report['llm_backend']}: {report['llm_model']}" if report.get("llm_model") else str(report["llm_backend"])


def _has_rewordings(report: dict[str, Any]) -> bool:
    return any(s.get("rewordings") for s in report["sets"])


def markdown_table(report: dict[str, Any]) -> str:
    """The summary as a Markdown table (the README's "Answer quality" section): each cell ``train / test``."""
    head = _header(report)
    columns = _columns(report)
    lines = ["| set | retriever | " + " | ".join(f"{label} ({head})" for _, label in columns) + " | p50 ms |"]
    lines.append("|---|---|" + "---:|" * (len(columns) + 1))
    for s in report["sets"]:
        for mode, m in s["retrievers"].items():
            cells = " | ".join(_pair(m, key) for key, _ in columns)
            lines.append(f"| {_set_label(s)} | {mode} | {cells} | {_cell(m['p50_ms'])} |")
    if _has_rewordings(report):
        lines += ["", "| set | retriever | " + " | ".join(f"{label} ({head})" for _, label in WORDING_COLUMNS) + " |"]
        lines.append("|---|---|" + "---:|" * len(WORDING_COLUMNS))
        for s in report["sets"]:
            for mode, m in s["retrievers"].items():
                cells = " | ".join(_pair(m, key, "wordings") for key, _ in WORDING_COLUMNS)
                lines.append(f"| {s['name']} | {mode} | {cells} |")
    return "\n".join(lines)


def render(report: dict[str, Any], console: Any, *, max_failures: int = 40) -> None:
    """The figures (train / test), the rewordings' gap, then the failures of the configured retriever (``--json`` has all)."""
    from rich.markup import escape
    from rich.table import Table

    emb = report["embedder"]
    model = emb["model"] if emb["backend"] == "sentence-transformers" else f"{emb['backend']} embedder"
    head = _header(report)
    table = Table(title=f"hwqa eval ({model}, {_answers(report)} answers), each cell {head}")
    columns = _columns(report)
    for label in ("set", "retriever"):
        table.add_column(label)
    for _, label in columns:
        table.add_column(label, justify="right")
    table.add_column("p50 ms", justify="right")
    for s in report["sets"]:
        for mode, m in s["retrievers"].items():
            table.add_row(_set_label(s), mode, *(_pair(m, key) for key, _ in columns), _cell(m["p50_ms"]))
    console.print(table)
    shown = report.get("failures_shown_for")
    if _has_rewordings(report):
        gaps = Table(title=f"original wording vs rewordings (fact recall, 'not covered' said), each cell {head}")
        for label in ("set", "retriever"):
            gaps.add_column(label)
        for _, label in WORDING_COLUMNS:
            gaps.add_column(label, justify="right")
        for s in report["sets"]:
            for mode, m in s["retrievers"].items():
                gaps.add_row(s["name"], mode, *(_pair(m, key, "wordings") for key, _ in WORDING_COLUMNS))
        console.print(gaps)
    for s in report["sets"]:
        for mode, m in s["retrievers"].items():
            if mode != shown:
                continue
            losses = m.get("reworded_losses", [])
            if losses:
                console.print(f"\n[bold]{escape(s['name'])} / {mode}: {len(losses)} questions lose points when reworded[/]")
                for loss in losses[:max_failures]:
                    worse = ", ".join(f"{qid} {v:.2f}" for qid, v in loss["rewordings"].items())
                    part = escape(f"[{loss['split']}]")
                    console.print(f"- {escape(loss['id'])} {part}: original {loss['original']:.2f}; {escape(worse)}")
            failures = m["failures"]
            if not failures:
                continue
            console.print(f"\n[bold]{escape(s['name'])} / {mode}: {len(failures)} questions with problems[/]")
            for f in failures[:max_failures]:
                got = f["got"]
                console.print(
                    f"- [bold]{escape(f['id'])}[/] {escape('[' + f.get('split', '') + ']')}: {escape('; '.join(f['problems']))}\n"
                    f"    {escape(f['question'])}\n"
                    f"    expected {escape(', '.join(f['expected']['sources']) or 'not covered')}; "
                    f"top {escape(str(got['top_source']))}; answer: {escape(got['answer'])}"
                )
            if len(failures) > max_failures:
                console.print(f"  … {len(failures) - max_failures} more ('hwqa eval --json' lists them all)")
    console.print(f"\n{report['seconds']:.0f} s")
