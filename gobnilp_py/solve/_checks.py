"""Argument checks shared by the drivers (one wording, one exception family)."""

from __future__ import annotations

import math
from typing import Any

from ..errors import ConfigError

__all__ = ["check_time_limit", "check_k", "check_max_networks", "check_epsilon", "check_gap"]


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name} must be a number, got {value!r}")
    return float(value)


def check_time_limit(value: Any) -> float | None:
    """Seconds > 0, or ``None`` for no limit."""
    if value is None:
        return None
    t = _number("time_limit", value)
    if not t > 0 or math.isnan(t):
        raise ConfigError(f"time_limit must be a number of seconds > 0, got {value!r}")
    return t


def check_k(value: Any) -> int:
    """A positive integer number of networks."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"k must be a positive integer, got {value!r}")
    return int(value)


def check_max_networks(value: Any) -> int | None:
    """A positive integer cap, or ``None`` for no cap."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"max_networks must be an integer >= 1 (or None for no cap), got {value!r}")
    return int(value)


def check_epsilon(bayes_factor: Any, epsilon: Any) -> float:
    """ε from exactly one of ``bayes_factor`` (ε = ln BF, BF >= 1) and ``epsilon`` (>= 0)."""
    if bayes_factor is None and epsilon is None:
        raise ConfigError("give a bayes_factor (>= 1) or an epsilon (>= 0)")
    if bayes_factor is not None and epsilon is not None:
        raise ConfigError("give either bayes_factor or epsilon, not both (epsilon = ln bayes_factor)")
    if bayes_factor is not None:
        bf = _number("bayes_factor", bayes_factor)
        if not (bf >= 1.0) or math.isinf(bf):
            raise ConfigError(f"bayes_factor must be a finite number >= 1, got {bayes_factor!r}")
        return math.log(bf)
    eps = _number("epsilon", epsilon)
    if not (eps >= 0.0) or math.isinf(eps):
        raise ConfigError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    return eps


def check_gap(value: Any) -> float | None:
    """A relative gap >= 0 (``None``: prove optimality)."""
    if value is None:
        return None
    g = _number("gap", value)
    if not (g >= 0) or math.isinf(g):
        raise ConfigError(f"gap must be a finite number >= 0, got {value!r}")
    return g
