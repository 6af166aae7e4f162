"""hwqa: a chat assistant over your notes about machine-learning hardware."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
