"""Code blocks in reference text, read as the text around them uses them.

A code block is not an answer's wording, but a sentence can end in one: "Check that the cards are
visible:" or "… should be at least the value computed by" goes on in the block right after it
(:func:`lead_line` finds the line such a sentence ends on, :func:`runs_on` whether a sentence stops
mid-way), and a short block (:func:`whole_block`) is said whole with it. A program's ``--help`` text
shown in a block is a list of entries, one option each (:func:`help_option_at`). :mod:`hwqa.notes.spans`
uses all four.
"""

from __future__ import annotations

import re

FENCE_MARK = re.compile(r"^(?:`{3,}|~{3,})")
_EMPTY_DEFINITION = re.compile(r"^ {0,3}:\s*$")  # ":" alone: a definition whose text is the code under it
_DEFINITION = re.compile(r"^ {0,3}:(?:[ \t]|$)")
CODE_BLOCK_LINES = 4  # a code block of at most this many lines (and CODE_BLOCK_CHARS) is said whole after its lead-in
CODE_BLOCK_CHARS = 240
_RUN_ON = re.compile(r"[a-z][\w-]*$")  # a sentence stopped mid-way ("… the value computed by"): its end is a lower-case word

#: A line of a program's ``--help`` or a man page's options in a code block: the option (a flag, its aliases
#: and its argument), two spaces or more, what it does ("  -n, --count=N    stop after N blocks"); or the
#: option alone, its description on the lines under it, indented deeper.
_OPTION = r"-{1,2}[A-Za-z0-9?][^\s,]*(?: [A-Z<\[{][^\s,]*)?"  # "-n COUNT", "--follow[={name|descriptor}]"
_PROSE = re.compile(r"[A-Za-z]+\s+[a-z]{2,}")  # a description says something in words (not a table's "A   D   D")
_HELP_OPTION = re.compile(rf"^(\s*)({_OPTION}(?:,\s*{_OPTION})*)(?:\s{{2,}}([A-Za-z(`'\"].*))?\s*$")


def lead_line(lines: list[str], code: list[bool], at: int) -> int | None:
    """The line of prose right above the code block starting at line ``at`` (past the blank line, the fence and
    an empty definition between them); None when code, a heading, a table row or a definition is there."""
    j = at - 1
    while j >= 0 and (
        not lines[j].strip() or _EMPTY_DEFINITION.match(lines[j]) or (code[j] and FENCE_MARK.match(lines[j].strip()))
    ):
        j -= 1
    if j < 0 or code[j] or lines[j].lstrip().startswith(("#", "|")) or _DEFINITION.match(lines[j]):
        return None
    return j


def runs_on(sentence: str) -> bool:
    """Whether a sentence stops without closing, in the middle of what it says ("… the value computed by")."""
    return len(sentence.split()) >= 5 and _RUN_ON.search(sentence) is not None


def whole_block(lines: list[str], code: list[bool], start: int) -> bool:
    """Whether the code block starting at ``start`` is short enough to be quoted whole."""
    body: list[str] = []
    for k in range(start, len(lines)):
        if not code[k]:
            break
        if lines[k].strip() and not FENCE_MARK.match(lines[k].strip()):
            body.append(lines[k].strip())
    return len(body) <= CODE_BLOCK_LINES and sum(map(len, body)) <= CODE_BLOCK_CHARS


def help_option_at(lines: list[str], code: list[bool], i: int) -> tuple[int, str, str] | None:
    """The option of a ``--help`` text that code line ``i`` starts: (its indent, its flags, its description on
    that line or ""), when the line describes it in words or the line under it is indented deeper; else None."""
    line = lines[i]
    if not line.strip().startswith("-"):
        return None
    option = _HELP_OPTION.match(line)
    if option is None:
        return None
    described = option.group(3) if option.group(3) and _PROSE.search(option.group(3)) else ""
    below = lines[i + 1] if i + 1 < len(lines) and code[i + 1] else ""
    if not described and len(below) - len(below.lstrip()) <= len(option.group(1)) + 2:
        return None
    return len(option.group(1)), option.group(2), described
