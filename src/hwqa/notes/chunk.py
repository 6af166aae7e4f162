"""Heading-aware chunking of Markdown (notes, and articles extracted to Markdown).

A chunk never spans two sections. It carries its document title and heading path, which are
part of the text that gets embedded, and it is bounded in tokens of the embedding model; a
section too long for one chunk is split at paragraph, then sentence, then word boundaries, with
overlap between consecutive pieces.

A table is chunked by rows under its header: every chunk that holds rows of a table starts with
the table's header and delimiter rows. So that the header leaves room for rows, a table is cut to
a documented width first (:func:`narrow_tables`): it keeps its first columns, as many as fit with
their header and delimiter rows in a third of a chunk's token budget (at most
:data:`TABLE_MAX_COLUMNS`), the cut marked by a last ``…`` column; header cells longer than
:data:`HEADER_CELL_MAX_CHARS` are cut too, and a row never has more cells than its header. A
table of any width then costs chunks in proportion to its rows, not to rows × columns.

A definition list's entry (a term line, then paragraphs starting with ``: ``, as the extractor
writes ``<dt>``/``<dd>``) keeps its term the same way: a piece that starts inside an entry gets the
term line again (and the outer term of a nested entry), so its sentences still say what they are
about (:func:`entry_terms`, :func:`pack`).

Chunks are bounded in characters too: a text counts as at least one token per
:data:`CHARS_PER_TOKEN` characters, so a "word" with no whitespace (a base64 blob, a 5 MB line)
is cut into slices of at most ``CHARS_PER_TOKEN * max_tokens`` characters whatever the tokenizer
says, and a huge text is never handed to the tokenizer at all.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .markdown import code_lines, heading, is_delimiter_row, iter_code, unquote

CHUNKER_VERSION = 5  # bump when the chunker cuts a document differently: every note and page is cut again

TokenCounter = Callable[[str], int]

CHARS_PER_TOKEN = 8  # a chunk of max_tokens tokens holds at most CHARS_PER_TOKEN * max_tokens characters
HEADING_MAX_CHARS = 200  # one heading's text in a chunk's heading path
TABLE_HEADER_SHARE = 3  # a table's header and delimiter rows take at most 1/3 of a chunk's token budget
TABLE_MAX_COLUMNS = 64  # columns a table keeps at most; the rest are cut, marked by a last '…' column
HEADER_CELL_MAX_CHARS = 80  # one header cell's text, cut with '…' past this

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9$*])")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
_DEFINITION = re.compile(r"^( {0,3}):(?:[ \t]|$)")  # a definition's paragraph (see hwqa.notes.spans)
ENTRY_TERM_SHARE = 4  # the terms repeated at a piece's start take at most 1/4 of a chunk's token budget


@dataclass(frozen=True)
class Chunk:
    """A bounded piece of one section of one document, ready to embed."""

    kind: str  # "note" or "article"
    source: str  # note path relative to the notes folder, or the article URL
    title: str
    heading: str  # heading path, e.g. "TPU vs GPU > Prices"; "" before the first heading
    text: str
    line: int  # 1-based line in the source where the section starts (notes); 0 for articles
    ordinal: int  # position of the chunk within its document
    url: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def embed_text(self) -> str:
        """What is embedded: title and heading path give the passage its context."""
        head = self.title if not self.heading else f"{self.title} — {self.heading}"
        return f"{head}\n{self.text}"

    @property
    def key(self) -> str:
        """Content hash of the embedded text: equal keys can share one embedding."""
        return hashlib.sha256(self.embed_text.encode("utf-8")).hexdigest()


@dataclass
class Section:
    heading_path: tuple[str, ...]
    line: int
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip()


def split_sections(markdown: str, first_line: int = 1) -> list[Section]:
    """Split Markdown into sections at ATX headings (``#`` lines outside code, see :mod:`hwqa.notes.markdown`)."""
    sections = [Section((), first_line)]
    stack: list[tuple[int, str]] = []
    lines = markdown.splitlines()
    for i, (line, code) in enumerate(zip(lines, iter_code(lines), strict=True)):
        found = None if code else heading(line)
        if found:
            level, title = found
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            sections.append(Section(tuple(t for _, t in stack), first_line + i))
        else:
            sections[-1].lines.append(line)
    return [s for s in sections if s.text]


def _blocks(text: str) -> list[str]:
    """Paragraphs, list items and table rows: the units a section is packed from."""
    blocks: list[str] = []
    current: list[str] = []
    lines = text.splitlines()
    for line, code in zip(lines, iter_code(lines), strict=True):
        if code:  # a code block stays whole: its lines are not list items or table rows
            current.append(line)
            continue
        if not unquote(line).strip():  # a blank line, or a block quote's empty line, ends a block
            if current:
                blocks.append("\n".join(current))
                current = []
        elif _LIST_ITEM.match(line) or line.lstrip().startswith("|"):
            if current:
                blocks.append("\n".join(current))
            current = [line]
            if line.lstrip().startswith("|"):
                blocks.append(line)
                current = []
        else:
            current.append(line)
    if current:
        blocks.append("\n".join(current))
    return [b.strip("\n") for b in blocks if b.strip()]


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph (a light rule: end punctuation followed by a capital or digit)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _split_long_word(word: str, budget: int, count: TokenCounter) -> list[str]:
    """A single 'word' over budget (a hash, a base64 blob): cut it into character slices."""
    if count(word) <= budget:
        return [word]
    size = max(1, len(word) * budget // max(count(word), 1))
    while size > 1 and count(word[:size]) > budget:
        size //= 2
    return [word[i : i + size] for i in range(0, len(word), size)]


def _word_windows(text: str, budget: int, overlap: int, count: TokenCounter) -> list[str]:
    words = [part for word in text.split() for part in _split_long_word(word, budget, count)]
    pieces: list[str] = []
    start = 0
    while start < len(words):
        end = start + 1
        while end < len(words) and count(" ".join(words[start : end + 1])) <= budget:
            end += 1
        pieces.append(" ".join(words[start:end]))
        if end >= len(words):
            break
        back = end
        while back > start + 1 and count(" ".join(words[back - 1 : end])) <= overlap:
            back -= 1
        start = max(back, start + 1) if overlap > 0 else end
    return pieces


def _units(text: str, budget: int, overlap: int, count: TokenCounter) -> list[str]:
    units: list[str] = []
    for block in _blocks(text):
        if count(block) <= budget:
            units.append(block)
            continue
        for sentence in split_sentences(block):
            if count(sentence) <= budget:
                units.append(sentence)
            else:
                units.extend(_word_windows(sentence, budget, overlap, count))
    return units


def join_units(units: list[str]) -> str:
    """Units back into Markdown: a blank line between paragraphs, none inside a table or a list."""
    out = ""
    for i, unit in enumerate(units):
        if i:
            prev = units[i - 1].lstrip()
            tight = (prev.startswith("|") and unit.lstrip().startswith("|")) or (
                _LIST_ITEM.match(prev) is not None and _LIST_ITEM.match(unit) is not None
            )
            out += "\n" if tight else "\n\n"
        out += unit
    return out


def pack(text: str, budget: int, overlap: int, count: TokenCounter, terms: dict[int, str] | None = None) -> list[str]:
    """Greedily pack a section's units into pieces of at most ``budget`` tokens, with overlap.

    ``terms`` (:func:`entry_terms` of ``text``): a piece starting inside a definition list's entry
    begins with the entry's term lines, counted in its budget (a term longer than a quarter of the
    budget is not repeated).
    """
    if count(text) <= budget:
        return [text]
    units = _units(text, budget, overlap, count)
    heads = _unit_terms(text, units, terms, budget // ENTRY_TERM_SHARE, count) if terms else [""] * len(units)

    def piece(indices: list[int]) -> str:
        return with_term(heads[indices[0]], join_units([units[k] for k in indices]))

    pieces: list[str] = []
    current: list[int] = []
    for i in range(len(units)):
        if heads[i] and count(piece([i])) > budget:
            heads[i] = ""  # no room for the term before this unit
        if current and count(piece([*current, i])) > budget:
            pieces.append(piece(current))
            carry: list[int] = []
            for prev in reversed(current):
                if count(piece([prev, *carry, i])) > budget or count(join_units([units[k] for k in [prev, *carry]])) > overlap:
                    break
                carry.insert(0, prev)
            current = [*carry, i]
        else:
            current.append(i)
    if current:
        pieces.append(piece(current))
    return pieces


def _unit_terms(text: str, units: list[str], terms: dict[int, str], limit: int, count: TokenCounter) -> list[str]:
    """The term lines a piece starting at each of ``units`` repeats ("" outside an entry, or too long)."""
    out: list[str] = []
    at = 0
    for unit in units:
        found = text.find(unit[:80], at)
        if found < 0:
            out.append("")
            continue
        at = found
        term = terms.get(text.count("\n", 0, found), "")
        if term and count(term) + 2 > limit:
            term = short_term(term)  # a long signature by its name
        out.append(term if term and not unit.startswith(term) and count(term) + 2 <= limit else "")
    return out


def short_term(term: str) -> str:
    """Term lines without their parameter lists: ``shutil.make_archive(base_name, format[, …])`` is
    repeated as ``shutil.make_archive(…)``."""
    return "\n".join(re.sub(r"\(.*", "(…)", line) if "(" in line else line for line in term.splitlines())


def with_term(term: str, piece: str) -> str:
    """``piece`` after its entry's term lines: a definition's paragraph as it is, an indented list, table
    or code after an empty definition line, the rest of a paragraph as a definition."""
    if not term:
        return piece
    first = piece.split("\n", 1)[0]
    if _DEFINITION.match(first):
        return f"{term}\n{piece}"
    if first.startswith((" ", "\t")):
        return f"{term}\n:\n{piece}"
    return f"{term}\n: {piece}"


def char_bounded(count: TokenCounter, max_tokens: int) -> TokenCounter:
    """``count``, but never less than one token per :data:`CHARS_PER_TOKEN` characters.

    A text longer than ``CHARS_PER_TOKEN * max_tokens`` characters is over any budget, so its
    length alone answers and the tokenizer is not run on it (bounded time on multi-megabyte lines).
    """

    def bounded(text: str) -> int:
        by_chars = -(-len(text) // CHARS_PER_TOKEN)
        if by_chars > max_tokens:
            return by_chars
        return max(count(text), by_chars)

    return bounded


def _short(heading: str) -> str:
    return heading if len(heading) <= HEADING_MAX_CHARS else heading[:HEADING_MAX_CHARS] + "…"


def chunk_markdown(
    markdown: str,
    *,
    kind: str,
    source: str,
    title: str,
    max_tokens: int,
    overlap: int,
    count_tokens: TokenCounter,
    first_line: int = 1,
    url: str | None = None,
    meta: dict[str, Any] | None = None,
    section_meta: Callable[[tuple[str, ...]], dict[str, Any]] | None = None,
) -> list[Chunk]:
    """Chunk one document. ``max_tokens`` bounds the embedded text (title + heading + body).

    Every chunk's text is at most ``CHARS_PER_TOKEN * max_tokens`` characters long.
    """
    chunks: list[Chunk] = []
    count_tokens = char_bounded(count_tokens, max_tokens)
    for section in split_sections(markdown, first_line):
        path = section.heading_path
        if path and path[0].casefold() == title.casefold():
            path = path[1:]  # the document's own H1 repeats its title
        heading = " > ".join(_short(h) for h in path)
        probe = Chunk(kind, source, title, heading, "", section.line, 0)
        budget = max(16, max_tokens - count_tokens(probe.embed_text) - 2)
        extra = section_meta(section.heading_path) if section_meta else {}
        text = narrow_tables(section.text, budget, count_tokens)
        if count_tokens(text) > budget:  # split: a piece starting mid-table gets the header again, mid-entry its term
            budget = max(16, budget - table_header_cost(text, count_tokens))
            pieces = with_table_headers(text, pack(text, budget, overlap, count_tokens, entry_terms(text)))
        else:
            pieces = [text]
        for piece in pieces:
            chunks.append(Chunk(kind, source, title, heading, piece, section.line, len(chunks), url, {**(meta or {}), **extra}))
    return chunks


def _table_headers(section: str) -> tuple[list[str], dict[str, str]]:
    """The header (header and separator lines) of every table in ``section``, and each row line -> its header."""
    heads: list[str] = []
    rows: dict[str, str] = {}
    lines = section.splitlines()
    code = code_lines(lines)
    current: str | None = None
    for i, line in enumerate(lines):
        if code[i] or not line.lstrip().startswith("|"):
            current = None
        elif i + 1 < len(lines) and not code[i + 1] and is_delimiter_row(lines[i + 1]):
            current = f"{line}\n{lines[i + 1]}"
            heads.append(current)
        elif current is not None and not is_delimiter_row(line):
            rows.setdefault(line, current)
    return heads, rows


def table_header_cost(section: str, count: TokenCounter) -> int:
    """Tokens of the longest table header (header and separator rows) in ``section``; 0 without a table."""
    if "|" not in section:
        return 0
    return max((count(h) + 1 for h in _table_headers(section)[0]), default=0)


def with_table_headers(section: str, pieces: list[str]) -> list[str]:
    """Pieces of a split table keep its header: a piece starting mid-table gets the header rows again.

    A table row means little without its column names, for the embedding and for an answer that
    reads the row as data.
    """
    if len(pieces) < 2 or "|" not in section:
        return pieces
    headers = _table_headers(section)[1]
    out = []
    for piece in pieces:
        first = next((ln for ln in piece.splitlines() if ln.lstrip().startswith("|")), None)
        header = headers.get(first) if first is not None else None
        out.append(piece.replace(first, f"{header}\n{first}", 1) if header and first and header not in piece else piece)
    return out


def entry_terms(section: str) -> dict[int, str]:
    """Each line of ``section`` inside a definition list's entry -> the entry's term lines (the outer
    entry's too, for a nested one), as a piece starting there would repeat them."""
    lines = section.splitlines()
    if not any(_DEFINITION.match(ln) for ln in lines):
        return {}
    code = code_lines(lines)
    out: dict[int, str] = {}
    open_terms: list[tuple[int, str]] = []  # (level, term lines)
    block: list[int] = []  # the lines since the last definition line or blank line: maybe a term
    para = False  # in a definition's paragraph
    for i, line in enumerate(lines):
        if code[i]:
            if open_terms:
                out[i] = _prefix(open_terms)
            continue
        m = _DEFINITION.match(line)
        if m:
            level = 1 if m.group(1) else 0
            if not block:  # a further paragraph of the entry open at its level: a nested list before it has ended
                open_terms = [t for t in open_terms if t[0] <= level]
            elif len(block) <= 3:  # the lines right before it are its term
                open_terms = [t for t in open_terms if t[0] < level]
                for k in block:  # a piece starting at a nested term repeats the outer ones
                    if open_terms:
                        out[k] = _prefix(open_terms)
                    else:
                        out.pop(k, None)
                open_terms.append((level, "\n".join(lines[k] for k in block)))
            block = []
            para = True
        elif not line.strip():
            block, para = [], False
            continue
        elif not para and not block and not line.startswith((" ", "\t")):
            open_terms = []  # text at the margin after a blank line: the list has ended (or a term starts)
            block = [i]
        else:
            block.append(i)
        if open_terms:
            out[i] = _prefix(open_terms)
    return out


def _prefix(open_terms: list[tuple[int, str]]) -> str:
    """The term lines (outer, then nested) a piece starting inside these entries begins with."""
    return "\n:\n".join(t for _, t in open_terms)


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> list[str]:
    """A table row's cells as written (escaped pipes kept, outer pipes dropped)."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return _CELL_SPLIT.split(body)


def _cut_row(cells: list[str], keep: int, *, delimiter: bool = False, cell_chars: int | None = None) -> str:
    """A row of the first ``keep`` cells, a last ``…`` (``---`` in a delimiter row) when some were cut."""
    kept = [c.strip() for c in cells[:keep]]
    if cell_chars is not None:
        kept = [c if len(c) <= cell_chars else c[:cell_chars].rstrip("\\") + "…" for c in kept]
    if len(cells) > keep:
        kept.append("---" if delimiter else "…")
    return "| " + " | ".join(kept) + " |"


def _columns_kept(header: list[str], delimiter: list[str], limit: int, count: TokenCounter) -> int:
    """How many columns fit: header and delimiter rows of that many cells within ``limit`` tokens (at least 1)."""

    def cost(k: int) -> int:
        return count(_cut_row(header, k, cell_chars=HEADER_CELL_MAX_CHARS)) + count(_cut_row(delimiter, k, delimiter=True))

    low, high = 1, min(len(header), TABLE_MAX_COLUMNS)
    while low < high:  # the largest k with cost(k) <= limit; cost grows with k
        mid = (low + high + 1) // 2
        if cost(mid) <= limit:
            low = mid
        else:
            high = mid - 1
    return low


def narrow_tables(section: str, budget: int, count: TokenCounter) -> str:
    """``section`` with every table cut to the width a chunk of ``budget`` tokens can hold with its header.

    A table whose header and delimiter rows fit in ``budget // TABLE_HEADER_SHARE`` tokens (and
    that has at most :data:`TABLE_MAX_COLUMNS` columns and short header cells) is left as it is,
    except that a row is cut to as many cells as its header has. A wider one keeps its first
    columns, as many as fit, with a last ``…`` column saying that more were cut.
    """
    if "|" not in section:
        return section
    lines = section.splitlines()
    code = code_lines(lines)
    limit = max(8, budget // TABLE_HEADER_SHARE)
    keep: int | None = None  # cells kept per row in the current table
    changed = False
    for i, line in enumerate(lines):
        if code[i] or not line.lstrip().startswith("|"):
            keep = None
            continue
        if i + 1 < len(lines) and not code[i + 1] and is_delimiter_row(lines[i + 1]):
            header, delimiter = _cells(line), _cells(lines[i + 1])
            fits = (
                len(header) <= TABLE_MAX_COLUMNS
                and max(len(c.strip()) for c in header) <= HEADER_CELL_MAX_CHARS
                and count(line) + count(lines[i + 1]) <= limit
            )
            keep = len(header) if fits else _columns_kept(header, delimiter, limit, count)
            if not fits:
                lines[i] = _cut_row(header, keep, cell_chars=HEADER_CELL_MAX_CHARS)
                lines[i + 1] = _cut_row(delimiter, keep, delimiter=True)
                changed = True
            continue
        if keep is None or is_delimiter_row(line):
            continue
        cells = _cells(line)
        if len(cells) > keep:
            lines[i] = _cut_row(cells, keep)
            changed = True
    return "\n".join(lines) if changed else section
