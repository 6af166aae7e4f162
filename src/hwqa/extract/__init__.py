"""Turn a fetched page into the article a reader came for, as Markdown.

HTML is parsed with BeautifulSoup. Everything that is not the article is removed first: scripts,
styles, forms, frames, navigation, site headers and footers, sidebars, comments, cookie/consent
banners and other boilerplate recognised by tag, ARIA role or class/id, and hidden elements
(see :mod:`hwqa.extract.boilerplate` and :mod:`hwqa.extract.hidden`, which count the hidden text
left out). The main content
(``<main>``, ``role="main"`` or the ``<article>``, when there is one) is then rendered in reading
order: ``#`` headings, paragraphs, ``-`` / ``1.`` list items, Markdown tables, fenced code and
``>`` quotes. On pages without ``<main>``/``<article>``, trafilatura (when installed) is run on
the same *cleaned* document, so removed boilerplate cannot come back, and only the blocks it also
judges to be content are kept: our rendering supplies the structure, trafilatura the judgement.

Plain-text pages become a single section titled by their first line (or their URL).

Modules: ``article`` (the entry points), ``boilerplate`` (what is not the article) with ``names``
(the class/id names of site chrome) and ``hidden`` (hidden-text rules), ``render`` (HTML to
Markdown blocks), ``titles`` (titles and URL fragments), ``filter`` (trafilatura's judgement).
"""

from __future__ import annotations

from .article import EXTRACTOR_VERSION, Article, extract_article, html_to_markdown
from .titles import slugify

__all__ = ["EXTRACTOR_VERSION", "Article", "extract_article", "html_to_markdown", "slugify"]
