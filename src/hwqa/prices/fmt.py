"""How the price calculator writes money and other figures for people (reasons, notes, tables)."""

from __future__ import annotations

__all__ = ["cell", "money", "number"]


def money(value: float) -> str:
    """``$1,234`` from 100 dollars up, ``$12.50`` below."""
    if value >= 100:
        return f"${value:,.0f}"
    return f"${value:,.2f}"


def number(value: float) -> str:
    """Hours and V100-hours with as many digits as a person reads: ``1,234``, ``12.5``, ``0.25``, ``0.012``."""
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2g}" if value < 0.1 else f"{value:.2f}"


def cell(value: float | None, as_money: bool = False) -> str:
    """A table cell: the figure, or ``–`` when it cannot be computed."""
    if value is None:
        return "–"
    return money(value) if as_money else number(value)
