"""The renderer: cleaned HTML to Markdown blocks in reading order.

``#`` headings, paragraphs, ``-`` / ``1.`` list items, Markdown tables (layout tables are read as
ordinary content), fenced code, ``>`` quotes and definition lists. A definition list (``<dl>``:
man-page options, Sphinx members, configuration keys) is written as Pandoc writes one: each term
(``<dt>``) on its own line, each paragraph of its definition (``<dd>``) starting with ``: ``, its
lists, tables and code indented two spaces; a list nested in a definition is indented two spaces
too (never more: four spaces would make code of it). So an entry's extent stays visible to the
readers of the Markdown (:mod:`hwqa.notes.spans`, the chunker): what follows a term belongs to it until
the next term. A Doxygen member (``div.memitem``) is an entry too, its prototype the term, and so
is a function's text written without markup for it (:func:`signature_entries`: Texinfo's ``@example``
prototypes, hand-written references): a code block of declarations only, not introduced by a sentence
ending in ":", followed by a paragraph, is the term of the paragraphs after it. A table without a
header row whose rows are a few words then a description (an options table, Doxygen's parameters) is a
definition list too: read as a table, its first row would head the others (:func:`_term_table`). An
empty ``<dt>`` (man pages written by ``man2html`` put ``<DT><DD>`` between the paragraphs of one
definition) continues the entry before it. The renderer remembers which heading tags it wrote, so
a URL fragment's section can be found in its output.
"""

from __future__ import annotations

import re

from bs4.element import NavigableString, PageElement, PreformattedString, Tag

from .boilerplate import HEADINGS, attr_text, has_descendant

__all__ = ["Renderer", "collapse", "escape_para", "signature_entries"]


# # What the renderer treats as inline text and as blocks

_INLINE = frozenset(
    {
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "cite",
        "code",
        "data",
        "dfn",
        "em",
        "font",
        "i",
        "kbd",
        "label",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
        "del",
        "ins",
        "strike",
        "big",
        "wbr",
        "img",
        "picture",
        "source",
        "nobr",
        "acronym",
    }
)
_BLOCKISH = frozenset({"p", "div", "ul", "ol", "table", "pre", "blockquote", "section", "dl", *HEADINGS})
# A table whose cells hold headings or tables lays out a page; one whose cells hold a paragraph
# or a short list (Sphinx writes <td><p>..</p></td>) is data.
_LAYOUT_CELL = frozenset({"table", *HEADINGS})
_CELL_BLOCKS = frozenset({"p", "ul", "ol", "pre", "blockquote", "div", "dl"})


def collapse(text: str) -> str:
    """Runs of whitespace as one space, trimmed."""
    return " ".join(text.split())


def escape_para(text: str) -> str:
    return "\\" + text if text.startswith("#") else text


def _nearest_table(tag: Tag) -> Tag | None:
    parent = tag.parent
    while parent is not None and parent.name != "table":
        parent = parent.parent
    return parent


def _is_layout_cell(cell: Tag) -> bool:
    """A cell that holds a page section rather than a value: headings, nested tables, or a lot
    of text in several blocks."""
    if has_descendant(cell, _LAYOUT_CELL):
        return True
    blocks = [c for c in cell.children if isinstance(c, Tag) and c.name in _CELL_BLOCKS]
    return len(blocks) >= 3 or (len(blocks) >= 2 and len(collapse(cell.get_text(" "))) > 400)


_NOT_PARAGRAPH = re.compile(r"^(?:[-*+] |\d+[.)] |\||`{3,}|~{3,}|>|#{1,6} | )")  # a rendered block that is no paragraph


class Renderer:
    """Renders cleaned HTML to Markdown blocks, remembering which heading tags it wrote."""

    def __init__(self) -> None:
        self.headings: dict[int, str] = {}
        self.heading_order: list[str] = []
        self._dl_depth = 0

    def render(self, root: Tag) -> str:
        return "\n\n".join(self.blocks(root))

    def blocks(self, root: Tag) -> list[str]:
        """The Markdown blocks (heading, paragraph, list, table, code, quote) in reading order."""
        out: list[str] = []
        self._children(root, out)
        return [b for b in out if b.strip()]

    # -- inline

    def _inline(self, node: PageElement) -> str:
        if isinstance(node, PreformattedString):
            return ""
        if isinstance(node, NavigableString):
            return str(node)
        if not isinstance(node, Tag):
            return ""
        if node.name == "br":
            return " "
        if node.name in ("img", "picture", "source", "wbr"):
            return ""
        if node.name == "code":  # (<pre> is rendered as a block, never inline)
            text = collapse(node.get_text())
            return f"`{text}`" if text else ""
        return "".join(self._inline(c) for c in node.children)

    def _has_block(self, tag: Tag) -> bool:
        return has_descendant(tag, _BLOCKISH)

    # -- blocks

    def _children(self, node: Tag, out: list[str]) -> None:
        buf: list[str] = []

        def flush() -> None:
            text = collapse("".join(buf))
            buf.clear()
            if text:
                out.append(escape_para(text))

        for child in node.children:
            if isinstance(child, PreformattedString):
                continue
            if isinstance(child, NavigableString):
                buf.append(str(child))
                continue
            if not isinstance(child, Tag):
                continue
            if child.name in _INLINE and not self._has_block(child):
                buf.append(self._inline(child))
                continue
            flush()
            self._block(child, out)
        flush()

    def _block(self, tag: Tag, out: list[str]) -> None:
        name = tag.name
        if name in HEADINGS:
            text = collapse(self._inline(tag))
            if text:
                out.append("#" * int(name[1]) + " " + text)
                self.headings[id(tag)] = text
                self.heading_order.append(text)
        elif name in ("ul", "ol"):
            block = self._list(tag)
            if block:
                out.append(block)
        elif name == "table":
            self._table(tag, out)
        elif name == "pre":
            lang = ""
            code = tag.find("code")
            for cls in (attr_text(code, "class") if isinstance(code, Tag) else "").split() + attr_text(tag, "class").split():
                if cls.startswith(("language-", "lang-")):
                    lang = cls.split("-", 1)[1]
                    break
            _code_block(tag.get_text(), lang, out)
        elif name == "div" and "fragment" in attr_text(tag, "class").split():
            _code_block(_fragment_text(tag), "", out)
        elif name == "blockquote":
            inner: list[str] = []
            self._children(tag, inner)
            if inner:
                text = "\n\n".join(inner)
                out.append("\n".join("> " + ln if ln else ">" for ln in text.splitlines()))
        elif name == "hr":
            return
        elif name == "dl":
            self._definitions(tag, out)
        elif name == "div" and "memitem" in attr_text(tag, "class").split():
            self._member(tag, out)
        else:
            self._children(tag, out)

    def _list(self, tag: Tag, depth: int = 0) -> str:
        ordered = tag.name == "ol"
        try:
            number = int(attr_text(tag, "start") or 1)
        except ValueError:
            number = 1
        lines: list[str] = []
        items = [li for li in tag.children if isinstance(li, Tag) and li.name == "li"]
        if not items:  # malformed list: render whatever is inside as blocks
            blocks: list[str] = []
            self._children(tag, blocks)
            return "\n\n".join(blocks)
        for li in items:
            marker = f"{number}." if ordered else "-"
            number += 1
            parts: list[str] = []
            self._children(li, parts)
            if not parts:
                continue
            pad = " " * (len(marker) + 1)
            first, *rest = parts
            first_lines = first.splitlines()
            lines.append(f"{marker} {first_lines[0]}")
            lines.extend(pad + ln for ln in first_lines[1:])
            for part in rest:
                lines.extend(pad + ln if ln else "" for ln in part.splitlines())
        return "\n".join(lines)

    def _definitions(self, tag: Tag, out: list[str]) -> None:
        """A definition list as terms and ``: `` definitions (see the module docstring)."""
        pad = "  " if self._dl_depth else ""  # a nested list is indented once (deeper ones as much: never code)
        self._dl_depth += 1
        try:
            terms: list[str] = []
            for child in tag.children:
                if isinstance(child, NavigableString) and not isinstance(child, PreformattedString):
                    text = collapse(str(child))
                    if text:  # text loose in the list reads as a definition of the term before it
                        out.append(f"{pad}: {escape_para(text)}")
                    continue
                if not isinstance(child, Tag):
                    continue
                if child.name == "dt":
                    text = collapse(self._cell_text(child))
                    if text:
                        terms.append(escape_para(text))
                    continue
                if child.name == "div" and child.find(["dt", "dd"], recursive=False):
                    self._dl_depth -= 1  # (HTML allows a <div> around each entry: the same list)
                    try:
                        self._definitions(child, out)
                    finally:
                        self._dl_depth += 1
                    continue
                if child.name != "dd":
                    self._block(child, out)
                    continue
                self._definition(terms, child, out, pad)
                terms = []
            if terms:
                out.append("\n".join(pad + t for t in terms) + f"\n{pad}:")
        finally:
            self._dl_depth -= 1

    def _definition(self, terms: list[str], dd: Tag, out: list[str], pad: str) -> None:
        """One entry: its term lines, then its definition's blocks (``: `` paragraphs, the rest indented)."""
        blocks: list[str] = []
        self._children(dd, blocks)
        blocks = [b for b in blocks if b.strip()]
        if not blocks and terms:  # a term without a definition is still an entry
            blocks = [""]
        head = "\n".join(pad + t for t in terms)
        for i, block in enumerate(blocks):
            if block.startswith("  ") or block.startswith("#"):  # a nested list's entries, a heading
                text = block
            elif _NOT_PARAGRAPH.match(block):
                text = "\n".join(f"  {ln}" if ln else "" for ln in block.splitlines())  # (4 would be code)
            else:
                text = f"{pad}: {block}".rstrip()
            if head and i == 0:  # the term, right above its first paragraph (or an empty one)
                text = f"{head}\n{text}" if text.startswith(f"{pad}:") else f"{head}\n{pad}:\n\n{text}"
            out.append(text)

    def _member(self, item: Tag, out: list[str]) -> None:
        """A Doxygen member (``div.memitem``): its prototype is the term, its documentation the definition."""
        proto = item.find(class_="memproto")
        doc = item.find(class_="memdoc")
        if not isinstance(proto, Tag) or not isinstance(doc, Tag):
            self._children(item, out)
            return
        term = collapse(proto.get_text(" "))
        term = re.sub(r"\s*([(),])\s*", lambda m: {"(": "(", ")": ")", ",": ", "}[m.group(1)], term).strip()
        self._dl_depth += 1  # (a list inside the documentation is nested in the entry)
        try:
            self._definition([escape_para(term)] if term else [], doc, out, "")
        finally:
            self._dl_depth -= 1

    def _cell_text(self, cell: Tag) -> str:
        """One line for a data cell: its paragraphs and list items joined by spaces."""
        if not self._has_block(cell):
            return collapse(self._inline(cell))
        parts: list[str] = []
        self._children(cell, parts)
        lines = (ln for part in parts for ln in part.splitlines() if not ln.startswith("```"))
        return collapse(" ".join(re.sub(r"^\s*(?:-|\d+\.|>)\s+", "", ln) for ln in lines))

    def _table(self, table: Tag, out: list[str]) -> None:
        rows = [tr for tr in table.find_all("tr") if _nearest_table(tr) is table]
        cells_by_row = [[c for c in tr.children if isinstance(c, Tag) and c.name in ("th", "td")] for tr in rows]
        cells_by_row = [r for r in cells_by_row if r]
        caption = next((c for c in table.children if isinstance(c, Tag) and c.name == "caption"), None)
        layout = any(_is_layout_cell(c) for row in cells_by_row for c in row)
        layout = layout or (bool(cells_by_row) and max(len(r) for r in cells_by_row) == 1)
        if layout or not cells_by_row:
            self._children(table, out)  # a layout table: its cells are ordinary content
            return
        if isinstance(caption, Tag):
            text = collapse(self._inline(caption))
            if text:
                out.append(escape_para(text))
        grid: list[list[str]] = []
        for row in cells_by_row:
            values: list[str] = []
            for cell in row:
                text = self._cell_text(cell).replace("|", "\\|")
                values.append(text)
                try:
                    span = int(attr_text(cell, "colspan") or 1)
                except ValueError:
                    span = 1
                values.extend([""] * (min(span, 50) - 1))
            grid.append(values)
        width = max(len(r) for r in grid)
        grid = [r + [""] * (width - len(r)) for r in grid]
        if all(not v for r in grid for v in r):
            return
        if _term_table(table, grid):  # each row an entry: its short cells name it, its last cell says what it is
            pad = "  " if self._dl_depth else ""
            for r in grid:
                term, said = (x.replace("\\|", "|") for x in (" ".join(v for v in r[:-1] if v), r[-1]))
                out.append(f"{pad}{escape_para(term)}\n{pad}: {said}")
            return
        lines = ["| " + " | ".join(grid[0]) + " |", "|" + "|".join([" --- "] * width) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in grid[1:]]
        out.append("\n".join(lines))


def _code_block(text: str, lang: str, out: list[str]) -> None:
    """A fenced code block of ``text`` (nothing for blank text)."""
    text = text.strip("\n")
    if text.strip():
        fence = "````" if "```" in text else "```"
        out.append(f"{fence}{lang}\n{text}\n{fence}")


def _fragment_text(tag: Tag) -> str:
    """The code of a Doxygen fragment (``<div class="fragment"><div class="line">…``): one line per ``line``
    div, without the line numbers Doxygen may print in front of them."""
    lines = []
    for line in tag.find_all("div", class_="line"):
        for number in line.find_all("span", class_="lineno"):
            number.extract()
        lines.append(line.get_text().rstrip())
    return "\n".join(lines) if lines else tag.get_text()


def _term_table(table: Tag, grid: list[list[str]]) -> bool:
    """Whether a table is a list of terms and what they are, without a header row: an options table
    ("-l | long listing, with the depth of each queue"), Doxygen's parameters ("[in] | depth | how many jobs may
    wait"). Read as a table, its first row would be taken for the header of the others."""
    if table.find("th") is not None or table.find("thead") is not None or len(grid) < 2 or len(grid[0]) < 2:
        return False
    for row in grid:
        term, said = " ".join(v for v in row[:-1] if v), row[-1]
        if not term or len(term.split()) > 6 or len(said.split()) < 3 or not re.search(r"[a-z]{2}", said):
            return False
    return True


# # A function's text with its signature

_FENCED = re.compile(r"^(`{3,}|~{3,})[\w+-]*\n(.*)\n\1$", re.S)
_NOT_A_TYPE = frozenset(
    {"return", "if", "else", "for", "while", "switch", "case", "do", "goto", "sizeof", "new", "delete", "throw", "call"}
)
#: One declaration: a type (words, "*", "&", "::", "<…>"), the name, its parameters; a trailing qualifier.
_DECLARATION = re.compile(
    r"(?P<type>(?:[A-Za-z_][\w:]*(?:<[^<>]*>)?[\s*&]+)+)(?P<name>[A-Za-z_][\w:~]*)\s*"
    r"\((?P<params>[^()]*(?:\([^()]*\)[^()]*)*)\)(?:\s*(?:const|noexcept|override))?"
)
SIGNATURE_LINES = 3  # at most this many declarations make a term (a definition's term is at most three lines)


def declarations(code: str) -> list[str]:
    """The declarations a code block holds, one a line with its parameters on it ("extern void
    fftw_set_timelimit(double seconds)"), when it holds nothing else; else []. A call, an assignment,
    a statement or a body is no declaration."""
    text = collapse(code)
    if not text or len(text) > 600 or re.search(r"[={}\"'#]", text):
        return []
    out: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text + ";"):
        depth += (ch == "(") - (ch == ")")
        if ch == ";" and depth == 0:
            piece = text[start:i].strip()
            start = i + 1
            if not piece:
                continue
            m = _DECLARATION.fullmatch(piece)
            if m is None or set(m.group("type").replace("*", " ").replace("&", " ").split()) & _NOT_A_TYPE:
                return []
            out.append(re.sub(r"\s*([(),])\s*", lambda g: ", " if g.group(1) == "," else g.group(1), piece))
    return out if depth == 0 else []


def signature_entries(blocks: list[str]) -> list[str]:
    """Blocks where a function's text follows its signature with no markup saying so (a code block of
    declarations, then paragraphs) as an entry: the declarations its term lines, the paragraphs up to the
    next heading or code block its definition (``: `` paragraphs, lists and tables indented), as a
    ``<dl>`` is written. A code block that the paragraph before it introduces (ending in ":") or already
    speaks of (naming a function it declares) stays that paragraph's; when the sentence goes on after it
    in lower case ("This function:", the prototype, "deallocates the plan."), the three are one paragraph."""
    out: list[str] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        names = _declared(block)
        nxt = blocks[i + 1] if i + 1 < len(blocks) else ""
        # A paragraph right before that ends in ":" or names a declared function is what the code illustrates.
        said = out[-1] if out and _paragraph(out[-1]) else ""
        if names and said.rstrip().endswith(":") and _paragraph(nxt) and nxt[:1].islower():
            out[-1] = f"{said} " + ", ".join(f"`{d}`" for d in names) + f" {nxt}"
            i += 2
            continue
        lead_in = said.rstrip().endswith(":") or any(_name(d) in said for d in names)
        if not (names and len(names) <= SIGNATURE_LINES and not lead_in and _paragraph(nxt)):
            out.append(block)
            i += 1
            continue
        term = "\n".join(f"`{d}`" for d in names)
        i += 1
        first = True
        while i < len(blocks) and not blocks[i].startswith(("#", "```", "~~~")) and not _definition_block(blocks[i]):
            body = blocks[i]
            if body.rstrip().endswith(":") and i + 1 < len(blocks) and _declared(blocks[i + 1]):
                break  # the next signature's lead-in
            text = f": {body}" if _paragraph(body) else "\n".join(f"  {ln}" if ln else "" for ln in body.splitlines())
            out.append(f"{term}\n{text}" if first else text)
            first = False
            i += 1
    return out


def _declared(block: str) -> list[str]:
    m = _FENCED.match(block)
    return declarations(m.group(2)) if m else []


def _name(declaration: str) -> str:
    m = _DECLARATION.fullmatch(declaration)
    return m.group("name") if m else declaration


def _paragraph(block: str) -> bool:
    return bool(block.strip()) and not _NOT_PARAGRAPH.match(block) and not _definition_block(block)


def _definition_block(block: str) -> bool:
    """A block of a definition list (a term line and ``: `` definition, or a further ``: `` paragraph)."""
    return any(re.match(r"^ {0,3}:(?:\s|$)", ln) for ln in block.splitlines())
