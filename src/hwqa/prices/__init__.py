"""Price tables in the notes and the calculator over them.

- :mod:`.table`: :class:`PriceRow`, :class:`PriceTable` and forgiving hardware-name matching;
- :mod:`.parse` (with :mod:`.pipe_tables`): the tables in notes tagged ``prices``, or the table
  the live index stored;
- :mod:`.question`: a question (and its follow-ups) as a :class:`CalcRequest`;
- :mod:`.request`, :mod:`.calculator`, :mod:`.result`: what to compute, computing it, what was found;
- :mod:`.render`: results and tables as Markdown;
- :mod:`.tool`: the calculator as a chat model's tool (JSON schema and argument checks) and
  :class:`~hwqa.prices.tool.PriceTool` (import it from there: it needs the answer and index stack).
"""

from __future__ import annotations

from .calculator import calculate, check_and_calculate
from .parse import load_price_table, stored_price_table
from .question import parse_price_question
from .render import render_price_result, render_price_table
from .request import CalcRequest, check_request
from .result import CalcResult
from .table import HARDWARE_TYPES, PriceRow, PriceTable

__all__ = [
    "HARDWARE_TYPES",
    "CalcRequest",
    "CalcResult",
    "PriceRow",
    "PriceTable",
    "calculate",
    "check_and_calculate",
    "check_request",
    "load_price_table",
    "parse_price_question",
    "render_price_result",
    "render_price_table",
    "stored_price_table",
]
