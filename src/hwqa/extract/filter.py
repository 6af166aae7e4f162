"""Which rendered blocks are content, judged by trafilatura on pages without <main>/<article>.

Our rendering keeps the structure (headings, tables, lists); trafilatura (optional) is better at
telling content from leftover chrome on such pages. It is run on the already cleaned page, so
removed boilerplate cannot come back.
"""

from __future__ import annotations

import logging
import re

log = logging.getLogger(__name__)


def trafilatura_markdown(html: str, url: str) -> str | None:
    try:
        import trafilatura
    except Exception as exc:  # ImportError, or a broken optional dependency of trafilatura
        log.debug("trafilatura unavailable: %s", exc)
        return None
    try:
        result = trafilatura.extract(
            html,
            url=url,
            output_format="markdown",
            include_tables=True,
            include_comments=False,
            include_links=False,
            include_images=False,
            include_formatting=True,
            favor_recall=True,
        )
    except Exception as exc:
        log.debug("trafilatura failed on %s: %s", url, exc)
        return None
    return result if isinstance(result, str) and result.strip() else None


def squash(text: str) -> str:
    """Letters and digits only, lower-case: compares text across different Markdown renderings."""
    return re.sub(r"[\W_]+", "", text.lower())


HEADING_LINE_RE = re.compile(r"^#{1,6} ")
_TABLE_RULE_RE = re.compile(r"^\|(?: --- \|)+$")


def _block_units(block: str) -> list[str]:
    """The pieces of a block that must be found in the reference text for it to be kept."""
    lines = block.splitlines()
    if block.startswith("|"):
        cells = [c for ln in lines if not _TABLE_RULE_RE.match(ln) for c in re.split(r"(?<!\\)\|", ln)]
        return [c for c in (c.strip() for c in cells) if c]
    if re.match(r"^(?:-|\d+\.) ", block):
        return [re.sub(r"^\s*(?:-|\d+\.) ", "", ln) for ln in lines if ln.strip()]
    if block.startswith("```"):
        return ["\n".join(lines[1:-1])]
    return [re.sub(r"^(?:> ?)+", "", block, flags=re.M)]


def filter_blocks(blocks: list[str], reference: str) -> list[str]:
    """Keep the blocks whose text trafilatura also judged to be content.

    Our rendering keeps the structure (headings, tables, lists); trafilatura is better at telling
    content from leftover chrome on pages without ``<main>``/``<article>``. A block is kept when
    most of its pieces occur in trafilatura's text; a heading is kept when the block after it is.
    """
    ref = squash(reference)
    keep: list[bool] = []
    for block in blocks:
        if HEADING_LINE_RE.match(block):
            keep.append(False)  # decided below
            continue
        units = [u for u in (squash(u) for u in _block_units(block)) if u]
        found = sum(1 for u in units if u in ref)
        keep.append(bool(units) and found >= 0.5 * len(units))
    for i, block in enumerate(blocks):
        if HEADING_LINE_RE.match(block):
            following = next((j for j in range(i + 1, len(blocks)) if not HEADING_LINE_RE.match(blocks[j])), None)
            keep[i] = following is not None and keep[following]
    # The page's first heading is usually the title: trafilatura keeps it as metadata only.
    first = next((i for i, b in enumerate(blocks) if HEADING_LINE_RE.match(b)), None)
    if first is not None and any(keep[first + 1 :]):
        keep[first] = True
    return [b for b, k in zip(blocks, keep, strict=True) if k]
