"""Solving: ``learn()`` (one optimal network), the sink heuristic and solve counters."""

from __future__ import annotations

from typing import Any

__all__ = ["learn", "SolveStats"]

from .stats import SolveStats


def __getattr__(name: str) -> Any:
    if name == "learn":
        from .learn import learn

        return learn
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
