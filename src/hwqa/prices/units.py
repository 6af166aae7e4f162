"""Hours in each unit of time a price or a question names: one table for the prices read from text
(``$540 per month`` is $540 ÷ 720 h) and for the questions asked (*"what does it cost per month?"*
is 720 hours of use), so a monthly price read from a note and a month asked about agree.

A month is 30 days (720 hours) and a year 365 days (8,760 hours), as people work a month or a year of
use out by hand ("3h a day for a month" is 90 hours; a box on 24/7 for a month is 720 hours). A plan
priced per month over a year is still 12 months of it: periods of a plan are counted, not converted
through hours (:mod:`hwqa.prices.rates`).
"""

from __future__ import annotations

__all__ = ["HOURS_PER", "HOURS_PER_MONTH", "MAX_BUDGET_USD", "MAX_HOURS", "MAX_PURCHASE_USD", "hours_said", "money_words"]

HOURS_PER_MONTH = 720.0  # 30 days
#: Hours in each time unit a price may be stated per, or a question may ask about.
HOURS_PER = {
    "hour": 1.0,
    "minute": 1 / 60,
    "second": 1 / 3600,
    "day": 24.0,
    "week": 168.0,
    "month": HOURS_PER_MONTH,
    "year": 365 * 24.0,
}

# The bounds of what the calculator works with, shared by the question's reading (hwqa.prices.words) and
# the request's check (hwqa.prices.request), so both say the same thing in the same words.
MAX_BUDGET_USD = 1e9
MAX_PURCHASE_USD = 1e9
MAX_HOURS = 1e6


def money_words(value: float) -> str:
    """An amount of US dollars as a person writes it: ``$1,000,000,000``, ``$1.46``, ``-$5``."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    return f"{sign}${value:,.0f}" if value == int(value) and value < 1e18 else f"{sign}${value:,.2f}"


def hours_said(hours: float) -> str:
    """A duration as a sum writes it: "30 h", "20 min", "45 s"."""
    if hours < 1:
        minutes = hours * 60
        return f"{minutes:g} min" if minutes >= 1 else f"{hours * 3600:g} s"
    return f"{hours:,g} h"
