"""Limits shared by the SCIP-free engines: argument checks, memory sizes in words, peak memory.

One home for what the order-graph search, its collection and the best-parent
lookups each used to define for themselves, so that their messages and their
memory reports stay the same.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

from ..errors import ScoreError

try:  # Unix only
    import resource
except ImportError:  # pragma: no cover
    resource = None  # type: ignore[assignment]

__all__ = ["check_time_limit", "check_bytes", "peak_rss_bytes"]


def check_time_limit(time_limit: Any) -> float | None:
    """``None`` or a positive number of seconds (``ScoreError`` otherwise)."""
    if time_limit is None:
        return None
    try:
        t = float(time_limit)
    except (TypeError, ValueError):
        raise ScoreError(f"time_limit must be a positive number of seconds, got {time_limit!r}") from None
    if not t > 0:
        raise ScoreError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    return t


def check_bytes(value: Any, name: str, *, allow_zero: bool = False) -> int:
    """A (positive, or with ``allow_zero`` non-negative) integer number of bytes."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < (0 if allow_zero else 1):
        raise ScoreError(f"{name} must be a {'non-negative' if allow_zero else 'positive'} number of bytes, "
                         f"got {value!r}")
    return int(value)


def peak_rss_bytes() -> int | None:
    """This process's peak resident set size in bytes (``None`` where ``resource`` is missing)."""
    if resource is None:
        return None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


def stamp_end(stats: dict[str, Any], t_start: float) -> None:
    """Record a finished search's wall time since ``t_start`` and, where known, the process's peak memory."""
    stats["time_total"] = time.perf_counter() - t_start
    rss = peak_rss_bytes()
    if rss is not None:
        stats["maxrss_bytes"] = rss
