"""Argument checks of the drivers: the package's one validation vocabulary (:mod:`gobnilp_py._validation`)."""

from __future__ import annotations

from typing import Any

from .._validation import check_bayes_factor_epsilon, check_max_networks, check_positive_int, check_time_limit

__all__ = ["check_time_limit", "check_k", "check_max_networks", "check_epsilon", "check_gap"]


def check_k(value: Any) -> int:
    """A positive integer number of networks."""
    return check_positive_int(value, "k")


def check_epsilon(bayes_factor: Any, epsilon: Any) -> float:
    """ε from exactly one of ``bayes_factor`` (ε = ln BF, BF >= 1) and ``epsilon`` (>= 0)."""
    return check_bayes_factor_epsilon(bayes_factor, epsilon, required=True)


def check_gap(value: Any) -> float | None:
    """A relative gap >= 0 (``None``: prove optimality)."""
    if value is None:
        return None
    from .._validation import check_gap as _gap

    return _gap(value)
