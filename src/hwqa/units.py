"""Hours in each unit of time a price or a question names: one table for the prices read from text
(``$540 per month`` is $540 ÷ 730 h) and for the questions asked (*"what does it cost per month?"*
is 730 hours of use), so a monthly price read from a note and a month asked about agree.

A month is 730 hours: a year's 8,760 hours over 12, as cloud price lists count a month of use.
"""

from __future__ import annotations

__all__ = ["HOURS_PER", "HOURS_PER_MONTH"]

HOURS_PER_MONTH = 730.0
#: Hours in each time unit a price may be stated per, or a question may ask about.
HOURS_PER = {"hour": 1.0, "minute": 1 / 60, "second": 1 / 3600, "day": 24.0, "week": 168.0, "month": HOURS_PER_MONTH}
