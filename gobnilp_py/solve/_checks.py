"""Argument checks of the drivers: the package's one validation vocabulary (:mod:`gobnilp_py._validation`)."""

from __future__ import annotations

import math
from typing import Any

from .._budget import Budget
from ..errors import ScoreError
from .._validation import check_bayes_factor_epsilon, check_max_networks, check_positive_int, check_time_limit
from .methods import check_by, check_method_name as check_method

__all__ = ["check_time_limit", "check_budget", "check_k", "check_max_networks", "check_epsilon", "check_gap",
           "check_method", "check_by", "check_lower_bound_held"]


def check_budget(time_limit: Any, start: float | None = None) -> Budget:
    """A driver's ``time_limit``: a :class:`~gobnilp_py._budget.Budget` started by the caller (its clock then
    covers what the caller did first, e.g. reading), or seconds (checked; a budget starting at ``start``)."""
    if isinstance(time_limit, Budget):
        return time_limit
    return Budget(check_time_limit(time_limit), start=start)


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


def check_lower_bound_held(table: Any, sol: Any) -> None:
    """Refuse a result whose search proved the user's ``lower_bound`` impossible.

    Scoring's global gap rule drops a family ``(v, W)`` when
    ``best(v) - s(v, W) > ε + UB - LB`` (``docs/pruning.md``); that is safe only
    when ``LB`` is at most the optimum of the problem searched.  A given ``LB``
    above it (a score pasted from other data or another score) prunes families
    of credible networks, and the search cannot notice by itself.  It can be
    told afterwards, and both ways: with ``LB <= OPT`` the pruned table keeps the
    optimum, so the search finds ``OPT >= LB``; with ``LB > OPT`` every network
    of the pruned table scores at most ``OPT < LB``.  So a proven optimum (or,
    for a search cut short, its dual bound) of ``sol`` below ``LB`` by more than the scoring
    tolerance means the table is unsafe, and the result would silently miss
    networks: an error, before anything is written.  Bounds found by scoring
    itself (``lower_bound="auto"``) are scores of real networks and need no check.
    """
    meta = getattr(table, "meta", {}) or {}
    lb = meta.get("lower_bound")
    optimum_at_most = sol.score if sol.status == "optimal" else sol.dual_bound
    if meta.get("lower_bound_source") != "given" or lb is None or optimum_at_most is None:
        return
    if not math.isfinite(optimum_at_most):
        return
    from ..scoring.pruning import tolerance

    if optimum_at_most < float(lb) - tolerance(float(lb), optimum_at_most):
        raise ScoreError(f"lower_bound {float(lb):.6f} exceeds the optimum {optimum_at_most:.6f} of this problem: "
                         "scoring pruned with a bound no network reaches, so networks within the gap may be "
                         "missing; give a lower_bound <= the optimum, or 'auto'")
