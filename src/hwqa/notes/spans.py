"""Candidate answer spans of a retrieved passage: sentences, list items and table rows.

A sentence keeps its neighbours, a list item its lead-in and a table row its header as
*context*: the context helps decide whether the span answers the question, the span itself is
what the answer quotes. Table rows also keep their cells by column, so the answerer can read a
table as data (superlatives, lookups).

**Entries.** Reference text is made of entries, each a term and what it says of it: a definition
list as the extractor writes it (a term line, then paragraphs starting with ``: ``, their lists,
tables and code indented; see :mod:`hwqa.extract.render`), a man-page option, a Sphinx or Doxygen
member, a configuration key, an environment variable; in notes also a list item or a line of the
form ``TERM: description``, or a short line (``-t, --timeout SECONDS``) with an indented description
under it, as man pages print options; and each option of a program's ``--help`` text shown in a code block
("  -n, --count N    stop after N blocks", or the flags alone with the description indented under
them). Every span of an entry carries the entry's number and its term (``subject``), its
neighbours are taken from the entry only, and a quote (:mod:`hwqa.answer.quotes`) shows the term and
never runs into the next entry. An entry nested in another's definition has
the outer term too ("task (--acctg-freq=...)").

**Code.** Code is not an answer's wording, but the sentence that introduces it is answered by it: a sentence
ending in ":" or running straight into the code without closing ("… the value computed by") takes the code
block right after it as its ``code``: a short block whole, its statements joined; a longer one, or a shell
session's, its first command (a prototype until its parentheses close).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .chunk import split_sentences
from .codeblocks import FENCE_MARK, help_option_at, lead_line, runs_on, whole_block
from .markdown import code_lines, is_delimiter_row, split_row, unquote

SPANS_VERSION = 9  # bump when spans_of cuts a passage differently: stored span vectors are then embedded again
_PROMPT = re.compile(r"^(?:\$|#|>>>|PS>|C:\\>)\s+")  # a shell or REPL prompt before a command
_DEFINITION = re.compile(r"^( {0,3}):(?:[ \t]+(.*)|[ \t]*)$")  # ": text", a definition's paragraph (Pandoc's syntax)
_DESCRIBED = re.compile(r"^()\s+(.*)$")  # a man page's indented description (group 1: at the margin's level)
#: "TERM: description" in a list item or a line: a short name before the colon (or a dash), then what it is.
_KEYED = re.compile(r"^((?:`[^`]+`|[^\s:`][^:`]{0,58}?))(?::|\s[—–-])\s+(?=\S)")
_KEY_MAX_WORDS = 5
NESTED_OUTER = True
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
    entry: int = -1  # the entry (a term and its definition) the span belongs to; spans of one entry share it


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
    return (
        len(line.split()) <= 12
        and not line.endswith((".", ":", "!", "?", ";", ",", ".)", "!)", "?)"))  # (a sentence in brackets says)
        and ": " not in line
        and "·" not in line
    )


def keyed(text: str) -> str:
    """The name a ``TERM: description`` text starts with ("`HWQA_TIMEOUT`", "-v, --verbose"), or ""."""
    m = _KEYED.match(text)
    if m is None:
        return ""
    key = m.group(1).strip()
    if (
        len(key.split()) > _KEY_MAX_WORDS
        or re.search(r"[.!?]\s", key)
        or key.count("(") != key.count(")")
        or key.count("[") != key.count("]")
    ):
        return ""
    # A name, not the start of a sentence ("Turning TPU into GPU (mean: ..."): a few words, or code, a flag, an identifier.
    if len(key.split()) > 3 and not (key.startswith(("`", "-")) or re.search(r"[_$]|\b[A-Z0-9]{2,}_|\(\)", key)):
        return ""
    return clean_markdown(key)


def _term_lines(lines: list[str], code: list[bool]) -> list[bool]:
    """Which lines are the term of the definition (``: text``) that follows them: the paragraph right
    before a definition's first paragraph (a blank line between them allowed), when it is not itself
    a definition, a list, a table or a heading, and holds at most three lines."""
    terms = [False] * len(lines)
    for i, line in enumerate(lines):
        if code[i] or not _DEFINITION.match(line):
            continue
        j = i - 1
        loose = j >= 0 and not lines[j].strip()  # "term", a blank line, ": definition"
        if loose:
            j -= 1
        block: list[int] = []
        while j >= 0 and lines[j].strip() and not code[j] and not _DEFINITION.match(lines[j]):
            block.insert(0, j)
            j -= 1
        if not block or len(block) > 3 or (loose and (len(block) > 1 or len(lines[block[0]].split()) > 12)):
            continue
        if any(
            _DEFINITION.match(lines[k]) or _LIST_ITEM.match(lines[k]) or lines[k].lstrip().startswith(("|", "#", ">"))
            for k in block
        ):
            continue
        for k in block:
            terms[k] = True
    return terms


def _described(lines: list[str], code: list[bool], terms: list[bool]) -> list[bool]:
    """Which lines open a man-page style description: indented, right under a short term line at the
    margin ("-t, --timeout SECONDS" then "    How long to wait ..."). Marks the term lines in ``terms`` too."""
    opens = [False] * len(lines)
    for i in range(1, len(lines)):
        line, above = lines[i], lines[i - 1]
        if code[i] or code[i - 1] or not line.strip() or not line.startswith(("  ", "\t")) or _LIST_ITEM.match(line):
            continue
        if not above.strip() or above.startswith((" ", "\t")) or terms[i - 1] or _DEFINITION.match(above):
            continue
        if _LIST_ITEM.match(above) or above.lstrip().startswith(("|", "#", ">")) or (i > 1 and lines[i - 2].strip()):
            continue  # (the term is a paragraph of one line)
        if is_term(clean_markdown(above)) and (above.startswith("-") or len(above.split()) <= 4):
            terms[i - 1] = True
            opens[i] = True
    return opens


def _lead_of(lines: list[str], code: list[bool], at: int, last: Span | None) -> Span | None:
    """The sentence the code block starting at line ``at`` completes: the last sentence of the paragraph right
    above it when that sentence ends in ":" ("Check that the cards are visible:"), runs straight into the code
    without closing ("… should be greater than the value computed by") or is a term the code defines; else None."""
    if last is None or last.kind != "sentence" or last.code:
        return None
    j = lead_line(lines, code, at)
    if j is None or clean_markdown(lines[j]).split()[-1:] != last.text.split()[-1:]:
        return None  # (the sentence is not the one right above the code)
    if last.text.endswith(":"):
        return last
    if last.entry >= 0 and last.text == last.subject and any(x.strip() == ":" for x in lines[j + 1 : at]):
        return last  # a term whose definition is the code: "Cancel only array ID 4 of job array 1237"
    return last if runs_on(last.text) else None


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
    term_line = _term_lines(lines, code)
    described = _described(lines, code, term_line)
    item: list[str] = []
    block_start: int | None = None  # the first line of the code block being read
    block_prompted = False
    block_lead: Span | None = None  # the sentence the code block being read completes
    block_whole = False  # the block is short enough to be said whole

    term = ""  # the previous paragraph, if it was a term line (a definition list's <dt>, "--json-lines")
    defined = ""  # the term whose definition the paragraphs since it belong to
    entries = 0  # entries numbered so far
    open_entries: list[tuple[int, str, int]] = []  # (entry, its term, its indent level) from outermost
    pending: list[str] = []  # term lines waiting for their definition
    first_of_entry = False  # the next sentence opens its entry's definition

    def current() -> tuple[int, str]:
        return (open_entries[-1][0], open_entries[-1][1]) if open_entries else (-1, "")

    def close_entries(level: int = 0) -> None:
        while open_entries and open_entries[-1][2] >= level:
            open_entries.pop()

    def new_entry(subject: str, level: int) -> None:
        nonlocal entries
        close_entries(level)
        outer = open_entries[-1][1] if open_entries else ""
        if outer and subject and NESTED_OUTER:
            subject = f"{subject} ({outer})"  # a nested entry says which entry it is part of
        open_entries.append((entries, subject or outer, level))
        entries += 1

    def emit_sentences(sentences: list[str], entry: int, subject: str) -> None:
        nonlocal first_of_entry
        for i, sentence in enumerate(sentences):
            around = " ".join(sentences[max(0, i - 1) : i] + sentences[i + 1 : i + 2])
            label = subject if i == 0 and first_of_entry else ""
            spans.append(Span(sentence, "sentence", around, len(spans), label=label, subject=subject, entry=entry))
        first_of_entry = False

    def flush_paragraph() -> None:
        nonlocal paragraph, last_prose, term, defined
        if not paragraph:
            return
        entry, subject = current()
        if entry < 0 and len(paragraph) > 1 and all(keyed(x.strip()) for x in paragraph):
            # "KEY: what it is" on each line of a paragraph: each line is an entry of its own
            for line in paragraph:
                new_entry(keyed(line.strip()), 0)
                entry, subject = current()
                sentences = [x for x in map(clean_markdown, split_sentences(line.strip())) if x]
                emit_sentences(sentences, entry, subject)
                close_entries()
            last_prose = clean_markdown(paragraph[-1])
            term = defined = ""
            paragraph = []
            return
        sentences = [clean_markdown(s) for s in split_sentences(" ".join(x.strip() for x in paragraph))]
        sentences = [s for s in sentences if s]
        if entry >= 0:
            emit_sentences(sentences, entry, subject)
            last_prose = sentences[-1] if sentences else last_prose
            term = defined = ""
            paragraph = []
            return
        term_like = len(paragraph) == 1 and len(sentences) == 1 and is_term(sentences[0])
        defined = term or ("" if term_like else defined)
        for i, sentence in enumerate(sentences):
            around = " ".join(sentences[max(0, i - 1) : i] + sentences[i + 1 : i + 2])
            label = defined if i == 0 else ""
            spans.append(Span(sentence, "sentence", around, len(spans), label=label, subject=defined))
        last_prose = sentences[-1] if sentences else last_prose
        term = sentences[0] if term_like else ""
        paragraph = []

    help_option: list[str] = []  # an option of a --help text being read: its indent, its flags, its description
    help_indent = 0

    def flush_help() -> None:
        nonlocal first_of_entry
        if len(help_option) > 1:
            new_entry(help_option[0], 0)
            entry, subject = current()
            sentences = [x for x in map(clean_markdown, split_sentences(" ".join(help_option[1:]))) if x]
            first_of_entry = True
            emit_sentences(sentences, entry, subject)
            close_entries()
        help_option.clear()

    def flush_item() -> None:
        nonlocal item
        if item:
            body = clean_markdown(" ".join(x.strip() for x in item))
            entry, subject = current()
            key = keyed(_LIST_ITEM.sub("", " ".join(x.strip() for x in item)))
            if key:  # "- `HWQA_TIMEOUT`: seconds to wait. Default 30." is an entry: its sentences are about the key
                new_entry(key, 9)
                entry, subject = current()
            # An item of several sentences ("GPUs were P100s with 13 GB RAM. TPUs were TPUv3s with 16 GB.") is
            # the list's item by its first sentence; each further sentence is a span of its own, so a question
            # about one of them quotes that sentence, not the whole item.
            sentences = ([x for x in map(clean_markdown, split_sentences(body)) if x] or [body]) if body else []
            for k, sentence in enumerate(sentences):
                if k == 0:
                    spans.append(
                        Span(
                            sentence,
                            "item",
                            last_prose,
                            len(spans),
                            list_id=list_id,
                            lead=last_prose,
                            subject=subject,
                            entry=entry,
                        )
                    )
                else:
                    around = " ".join(sentences[k - 1 : k] + sentences[k + 1 : k + 2])
                    spans.append(Span(sentence, "sentence", around, len(spans), list_id=list_id, subject=subject, entry=entry))
            if key:
                close_entries(9)
            item = []

    for i, raw in enumerate(lines):
        line = unquote(raw)  # a block quote is read as the text it quotes
        stripped = line.strip()
        indented = line.startswith((" ", "\t"))
        if not code[i]:
            block_start = None
            flush_help()
        if code[i]:
            option = help_option_at(lines, code, i)
            if option is not None:
                flush_paragraph()
                flush_help()
                help_indent, flags, description = option
                help_option.extend([flags, description] if description else [flags])
                continue
            if help_option and stripped and len(line) - len(line.lstrip()) > help_indent + 2 and not stripped.startswith("-"):
                help_option.append(stripped)  # the option's description goes on
                continue
            flush_help()  # code is not an answer's wording (see hwqa.notes.markdown for what is code) ...
            command = _PROMPT.sub("", stripped)
            if not command or FENCE_MARK.match(stripped):
                continue
            # ... but "Check that the cards are visible:" is answered by the command right after it.
            if item and item[-1].rstrip().endswith(":"):  # a step of a list: the command joins the step
                item.append(f"`{command}`")
                continue
            flush_paragraph()
            if block_start is None:
                block_start = i
                block_prompted = stripped != command  # a session: "$ cmd", then its output
                block_lead = _lead_of(lines, code, i, spans[-1] if spans else None)
                block_whole = block_lead is not None and whole_block(lines, code, i)
            lead = block_lead
            if lead is None:
                continue
            if not lead.code:
                lead.code = command.removesuffix(";")
            elif lead.code.count("(") > lead.code.count(")"):
                lead.code = f"{lead.code} {command.removesuffix(';')}"  # a prototype over several lines is one declaration
            elif block_whole and not block_prompted:
                lead.code = f"{lead.code}; {command.removesuffix(';')}"  # a short block is said whole ("… computed by `a; b`")
            continue
        if term_line[i]:  # a term: its definition follows
            flush_paragraph()
            flush_item()
            in_list = False
            term = defined = ""
            if not pending:
                close_entries(1 if indented else 0)
            pending.append(clean_markdown(stripped))
            continue
        definition = _DEFINITION.match(line) or (_DESCRIBED.match(line) if described[i] else None)
        if definition:
            flush_paragraph()
            flush_item()
            in_list = False
            term = defined = ""
            level = 1 if definition.group(1) else 0
            if pending:
                new_entry("; ".join(p for p in pending if p), level)
                pending.clear()
                entry, subject = current()
                spans.append(Span(subject, "sentence", "", len(spans), subject=subject, entry=entry))
                first_of_entry = True
            else:  # a further paragraph: of the entry open at its level (a nested list before it has ended)
                close_entries(level + 1)
                if not open_entries:
                    new_entry("", level)
            rest = definition.group(2) or ""
            if rest.strip():
                paragraph.append(rest)
            continue
        if stripped and open_entries and not indented and not paragraph and not (item and in_list):
            close_entries()  # text at the margin after a blank line: the definition list has ended
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
                entry, subject = current()
                spans.append(Span(row_text(row), "row", " ".join(header), len(spans), cells=row, subject=subject, entry=entry))
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
    flush_help()
    for dangling in pending:  # the passage ends between a term and its definition
        spans.append(Span(dangling, "sentence", "", len(spans), subject=dangling))
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
