"""Table cells shared by the benchmark scripts (one formatting rule for every table)."""

from __future__ import annotations

import math
from typing import Any


def cell(x: Any, digits: int = 2) -> str:
    """A Markdown table cell: ``-`` for missing or non-finite, fixed decimals for floats, commas for ints."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)
