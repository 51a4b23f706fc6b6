"""The checks every scorer (discrete and Gaussian) makes of its common options, in one place.

Why: :func:`gobnilp_py.scoring.engine.score` and
:func:`gobnilp_py.scoring.gaussian.gaussian_score_table` take the same parent limit, memory limit and
time limit; checked twice, the two drifted in wording and in what a time limit may be.  Each check is
the shared vocabulary's (:mod:`gobnilp_py._validation`), raised as the scorer's :class:`ScoreError`.
"""

from __future__ import annotations

from typing import Any

from .._budget import Budget
from .._validation import check_memory_limit, check_palim, check_time_limit
from ..errors import ParameterError, ScoreError

__all__ = ["check_scoring_limits"]


def check_scoring_limits(palim: Any, memory_limit: Any, time_limit: Any,
                         start: float) -> tuple[int | str | None, int | None, Budget]:
    """``(palim, memory_limit, budget)`` checked: one-line :class:`ScoreError` naming the keyword.

    ``time_limit`` may be seconds, ``None`` or a :class:`Budget` (a command's clock, started at reading);
    seconds start counting at ``start`` (``time.perf_counter()`` when the scorer was called).
    """
    try:
        palim = check_palim(palim, "palim")
        memory_limit = check_memory_limit(memory_limit, "memory_limit")
        if not isinstance(time_limit, Budget):
            time_limit = check_time_limit(time_limit, "time_limit")
    except ParameterError as exc:
        raise ScoreError(str(exc)) from None
    return palim, memory_limit, Budget.of(time_limit, start=start)
