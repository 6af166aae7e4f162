"""Price tables in the notes and the calculator over them.

- :mod:`.table`: :class:`PriceRow`, :class:`PriceTable` and forgiving hardware-name matching;
- :mod:`.parse` (with :mod:`.pipe_tables`): the tables in notes tagged ``prices``, or the table
  the live index stored;
- :mod:`.prose` (with :mod:`.names`, :mod:`.facts`, :mod:`.adhoc`): prices stated in sentences, list
  items and tables of any shape, in notes and linked articles, each with its evidence;
- :mod:`.merge`: one table from all of them, sources ranked, conflicts said;
- :mod:`.request`, :mod:`.calculator`, :mod:`.result`: what to compute, computing it, what was found;
- :mod:`.render`: results and tables as Markdown;
- :mod:`.words`: what a question says about money, time, devices and hardware; :mod:`.units`: hours in
  a day, week and month, the bounds of an amount.

Planning a parsed question into a :class:`CalcRequest` (:mod:`hwqa.answer.priceplan`) and the calculator
as a tool (:mod:`hwqa.answer.pricetool`) belong to answering.
"""

from __future__ import annotations

from .calculator import calculate, check_and_calculate
from .facts import Doc, Found, article_doc, note_doc
from .parse import linked_page_prices, load_price_table, note_prices, price_table_from, stored_price_table
from .prose import PRICES_READER, read_document
from .render import render_price_result, render_price_table
from .request import CalcRequest, check_request
from .result import CalcResult
from .table import HARDWARE_TYPES, LeftOut, PriceRow, PriceTable

__all__ = [
    "HARDWARE_TYPES",
    "PRICES_READER",
    "CalcRequest",
    "CalcResult",
    "Doc",
    "Found",
    "LeftOut",
    "PriceRow",
    "PriceTable",
    "article_doc",
    "calculate",
    "check_and_calculate",
    "check_request",
    "linked_page_prices",
    "load_price_table",
    "note_doc",
    "note_prices",
    "price_table_from",
    "read_document",
    "render_price_result",
    "render_price_table",
    "stored_price_table",
]
