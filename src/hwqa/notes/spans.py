"""Candidate answer spans of a retrieved passage: sentences, list items and table rows.

A sentence keeps its neighbours, a list item its lead-in and a table row its header as
*context*: the context helps decide whether the span answers the question, the span itself is
what the answer quotes. Table rows also keep their cells by column, so the answerer can read a
table as data (superlatives, lookups).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .chunk import split_sentences
from .markdown import code_lines, is_delimiter_row, split_row, unquote

SPANS_VERSION = 3  # bump when spans_of cuts a passage differently: stored span vectors are then embedded again
_PROMPT = re.compile(r"^(?:\$|#|>>>|PS>|C:\\>)\s+")  # a shell or REPL prompt before a command
_FENCE_MARK = re.compile(r"^(?:`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
# Paired emphasis only: a lone "*" (a signature's "*, key=...", "2 * 3") is text.
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])\*(?=[^\s*,)])(.+?)(?<=[^\s*])\*(?![\w*])|`([^`]*)`")


def clean_markdown(text: str) -> str:
    """Plain sentence text: links become their text, emphasis and list markers go."""
    for _ in range(8):  # nested links and images ([![a](x.png)](url)) unwrap one level per pass
        unwrapped = _MD_LINK.sub(lambda m: m.group(1), text)
        if unwrapped == text:
            break
        text = unwrapped
    text = _AUTOLINK.sub(lambda m: m.group(1), text)
    text = _EMPHASIS.sub(lambda m: next(g for g in (m.group(2), m.group(3), m.group(4)) if g is not None), text)
    text = _LIST_ITEM.sub("", text)
    return re.sub(r"\s+", " ", text).strip()


@dataclass
class Span:
    """A piece of a passage that may answer a question."""

    text: str  # what the answer quotes
    kind: str  # sentence | item | row
    context: str = ""  # neighbours, lead-in or header: helps matching, not quoted
    position: int = 0  # order within the passage
    cells: dict[str, str] = field(default_factory=dict)  # table rows: column -> value
    list_id: int = -1  # items of one list share it, and the further sentences of an item
    lead: str = ""  # a list's lead-in line
    label: str = ""  # a paragraph's first sentence: the term line just above it, if any ("csv.QUOTE_ALL")
    subject: str = ""  # every sentence of a definition: its term line (the label of its first sentence)
    code: str = ""  # a lead-in's command: the first line of the code block right after it ("tsr devices")


def unit_of(column: str) -> tuple[str, str]:
    """(prefix, suffix) to show a cell of ``column`` with its unit: memory_gb 80 -> '80 GB'."""
    name = column.strip().lower().replace(" ", "_")
    if name.startswith("usd") or name in ("price", "cost") or name.endswith("_usd"):
        return "$", " per hour" if "hour" in name else ""
    for suffix, unit in (("_gb", " GB"), ("_tb", " TB"), ("_w", " W"), ("_watts", " W"), ("_hours", " hours")):
        if name.endswith(suffix):
            return "", unit
    return "", ""


def column_label(column: str) -> str:
    """A column name for people: 'memory_gb' -> 'memory', 'usd_per_hour' -> 'price per hour'."""
    name = column.strip().lower().replace(" ", "_")
    if name.startswith("usd_per_"):
        return "price per " + name[len("usd_per_") :].replace("_", " ")
    name = re.sub(r"_(gb|tb|w|watts|hours|usd)$", "", name)
    return name.replace("_", " ")


def cell_text(column: str, value: str) -> str:
    prefix, suffix = unit_of(column)
    clean = clean_markdown(value)
    if not clean or not re.fullmatch(r"[\d.,]+", clean):
        return clean
    return f"{prefix}{clean}{suffix}"


def row_text(cells: dict[str, str]) -> str:
    """A table row as a sentence: the first column, then 'column: value' for the others."""
    items = list(cells.items())
    if not items:
        return ""
    head = clean_markdown(items[0][1])
    rest = [cell_said(c, v) for c, v in items[1:] if clean_markdown(v)]
    return f"{head}: " + ", ".join(rest) if rest else head


def cell_said(column: str, value: str) -> str:
    """A cell with its column's name, the unit said once: 'memory 80 GB', 'price $0.35 per hour'
    (not 'price per hour $0.35 per hour')."""
    label, shown = column_label(column), cell_text(column, value)
    unit = unit_of(column)[1].strip()
    if unit and label.endswith(f" {unit}") and shown.endswith(unit):
        label = label.removesuffix(f" {unit}")
    return f"{label} {shown}"


def is_term(line: str) -> bool:
    """A short line that names something rather than says it: no closing punctuation, few words.

    A line that already says what it is ("Source code: Lib/json/tool.py") or a byline
    ("March 18, 2025 · 3 min") is not a term.
    """
    return len(line.split()) <= 12 and not line.endswith((".", ":", "!", "?", ";", ",")) and ": " not in line and "·" not in line


def spans_of(text: str) -> list[Span]:
    """Sentences, list items (with lead-in) and table rows (with header) of a passage's Markdown."""
    spans: list[Span] = []
    lines = text.splitlines()
    paragraph: list[str] = []
    last_prose = ""
    header: list[str] | None = None
    list_id = -1
    in_list = False
    code = code_lines(lines)
    item: list[str] = []

    term = ""  # the previous paragraph, if it was a term line (a definition list's <dt>, "--json-lines")
    defined = ""  # the term whose definition the paragraphs since it belong to

    def flush_paragraph() -> None:
        nonlocal paragraph, last_prose, term, defined
        if not paragraph:
            return
        sentences = [clean_markdown(s) for s in split_sentences(" ".join(x.strip() for x in paragraph))]
        sentences = [s for s in sentences if s]
        term_line = len(paragraph) == 1 and len(sentences) == 1 and is_term(sentences[0])
        defined = term or ("" if term_line else defined)
        for i, sentence in enumerate(sentences):
            around = " ".join(sentences[max(0, i - 1) : i] + sentences[i + 1 : i + 2])
            label = defined if i == 0 else ""
            spans.append(Span(sentence, "sentence", around, len(spans), label=label, subject=defined))
        last_prose = sentences[-1] if sentences else last_prose
        term = sentences[0] if term_line else ""
        paragraph = []

    def flush_item() -> None:
        nonlocal item
        if item:
            body = clean_markdown(" ".join(x.strip() for x in item))
            # An item of several sentences ("GPUs were P100s with 13 GB RAM. TPUs were TPUv3s with 16 GB.") is
            # the list's item by its first sentence; each further sentence is a span of its own, so a question
            # about one of them quotes that sentence, not the whole item.
            sentences = ([x for x in map(clean_markdown, split_sentences(body)) if x] or [body]) if body else []
            for k, sentence in enumerate(sentences):
                if k == 0:
                    spans.append(Span(sentence, "item", last_prose, len(spans), list_id=list_id, lead=last_prose))
                else:
                    around = " ".join(sentences[k - 1 : k] + sentences[k + 1 : k + 2])
                    spans.append(Span(sentence, "sentence", around, len(spans), list_id=list_id))
            item = []

    for i, raw in enumerate(lines):
        line = unquote(raw)  # a block quote is read as the text it quotes
        stripped = line.strip()
        if code[i]:  # code is not an answer's wording (see hwqa.notes.markdown for what is code) ...
            command = _PROMPT.sub("", stripped)
            if not command or _FENCE_MARK.match(stripped):
                continue
            # ... but "Check that the cards are visible:" is answered by the command right after it.
            if item and item[-1].rstrip().endswith(":"):  # a step of a list: the command joins the step
                item.append(f"`{command}`")
                continue
            flush_paragraph()
            lead = spans[-1] if spans and spans[-1].kind == "sentence" and spans[-1].text.endswith(":") else None
            if lead is not None and not lead.code:
                lead.code = command
            continue
        if stripped.startswith("|"):
            flush_paragraph()
            flush_item()
            in_list = False
            term = defined = ""
            cells = split_row(stripped)
            nxt = unquote(lines[i + 1]).strip() if i + 1 < len(lines) else ""
            if is_delimiter_row(stripped):
                continue
            if nxt.startswith("|") and not code[i + 1] and is_delimiter_row(nxt):
                header = cells
                continue
            if header and len(cells) == len(header):
                row = {h: c for h, c in zip(header, cells, strict=True)}
                spans.append(Span(row_text(row), "row", " ".join(header), len(spans), cells=row))
            continue
        header = None if not stripped else header
        if _LIST_ITEM.match(line):
            flush_paragraph()
            flush_item()
            term = defined = ""
            if not in_list:
                list_id += 1
                in_list = True
            item = [line]
            continue
        if not stripped:
            flush_paragraph()
            flush_item()
            continue
        if in_list and item and line.startswith((" ", "\t")):
            item.append(line)
            continue
        flush_item()
        in_list = False
        paragraph.append(line)
    flush_paragraph()
    flush_item()
    return spans


_WORD_RUN = re.compile(r"\w+")
_LOOKAHEAD = 12  # words a span's next word may be found after its previous one (markup, link targets, labels)


def locate(text: str, spans: list[Span]) -> list[tuple[int, int]]:
    """Where each of ``spans`` (``spans_of(text)``, in order) is in ``text``: a character range, found
    word by word (a row by its cells' words); (0, 0) for a span whose words were not found."""
    words = [(m.group().lower(), m.start(), m.end()) for m in _WORD_RUN.finditer(text)]
    cursor = 0
    out: list[tuple[int, int]] = []
    for span in spans:
        said = " ".join(clean_markdown(v) for v in span.cells.values()) if span.kind == "row" else span.text
        wanted = [w.lower() for w in _WORD_RUN.findall(said)]
        first = next(((i, k) for k, w in enumerate(wanted[:3]) for i in range(cursor, len(words)) if words[i][0] == w), None)
        if first is None:
            out.append((0, 0))
            continue
        at, k = first
        last = at
        for w in wanted[k + 1 :]:
            nxt = next((i for i in range(last + 1, min(len(words), last + 1 + _LOOKAHEAD)) if words[i][0] == w), None)
            if nxt is not None:
                last = nxt
        out.append((words[at][1], words[last][2]))
        cursor = last + 1
    return out
