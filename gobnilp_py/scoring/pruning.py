"""ε-safe pruning rules for candidate parent sets (derivations in ``docs/pruning.md``).

Every rule removes a parent set ``X`` of a child ``v`` only when *every* DAG
in which ``v`` has parents ``X`` scores strictly below ``OPT - ε``: it
exhibits a proper subset ``W`` of ``X`` with ``s(W) > s(X) + ε``, and
swapping ``X`` for ``W`` in such a DAG keeps it acyclic and raises its score by
more than ε.  Some rules (the *bound* rules) prove this for ``X`` and all its
supersets at once from quantities known before ``X`` is scored, so neither
``X`` nor any superset is ever counted.

Floating point: a rule fires only when its margin exceeds ε by
:func:`tolerance` (``RTOL * max(1, |reference score|)``), so rounding in the
computed scores can only make pruning more cautious, never drop a credible
family.  When in doubt, keep.

All rules work in GOBNILP's convention: natural log, higher is better.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import ScoreError

__all__ = [
    "RTOL",
    "resolve_epsilon",
    "RULES",
    "tolerance",
    "fires",
    "fires_array",
    "dominated",
    "penalty_bound",
    "entropy_bound",
    "cell_bound",
    "ll_ceiling",
    "user_bound",
    "global_gap",
    "max_nonunit_parents",
    "published_parent_bound",
    "RULE_INFO",
    "BOUND_RULES",
]

#: Relative tolerance added to ε before any rule fires.
RTOL = 1e-9

#: Rule names in the order the engine tries them, as used in ``ScoreTable.pruning`` counters.
#: Bound rules (before counting; a set and all its supersets), then ``dominated`` (after
#: scoring), then ``global_gap`` (after the walk, when a lower bound is given).
RULES = ("parent_count", "penalty_bound", "ll_ceiling", "entropy", "cell_bound", "ml_ceiling",
         "user_bound", "dominated", "global_gap")

#: The rules that exclude a set and all its supersets before the set is counted.
BOUND_RULES = ("parent_count", "penalty_bound", "ll_ceiling", "entropy", "cell_bound", "ml_ceiling",
               "user_bound")

#: What each rule needs from the score, checked when a score declares it.
#: ``penalised``: a :class:`~gobnilp_py.scoring.local_scores.PenalisedLL` (``LL - coef q (r-1)``);
#: ``dirichlet``: a :class:`~gobnilp_py.scoring.local_scores.DirichletScore` (marginal
#: likelihood with a symmetric Dirichlet prior per configuration); ``any``: every
#: decomposable score.
RULE_INFO: dict[str, str] = {
    "parent_count": "penalised",
    "penalty_bound": "penalised",
    "ll_ceiling": "penalised",
    "entropy": "penalised",
    "cell_bound": "dirichlet",
    "ml_ceiling": "dirichlet",
    "user_bound": "any",
    "dominated": "any",
    "global_gap": "any",
}


def tolerance(*refs: float) -> float:
    """Safety margin added to ε: ``RTOL * max(1, |refs|...)``.

    Scores of a few thousand nats carry rounding errors around 1e-12; the
    tolerance is three orders of magnitude above that and far below any
    meaningful ε (ln 1.0000001 ~ 1e-7).
    """
    return RTOL * max(1.0, *(abs(r) for r in refs))


def fires(margin: float, epsilon: float, *refs: float) -> bool:
    """True when ``margin > ε + tolerance(refs)`` (strict: ties and the boundary keep)."""
    return margin > epsilon + tolerance(*refs)


def fires_array(margin: np.ndarray, epsilon: float, *refs: np.ndarray) -> np.ndarray:
    """Element-wise :func:`fires` (same arithmetic, for the vectorised lattice walk).

    Built in place in one scale array: ``max`` is exact in any order and IEEE products and sums
    are commutative, so ``(scale * RTOL) + epsilon`` is ``epsilon + RTOL * scale`` bit for bit.

    Why the first pass: the tolerance is never negative and rounding is monotone, so
    ``epsilon + tolerance >= epsilon`` in floating point too, and only elements whose margin
    exceeds ε can fire.  Few do (a rule fires on a few percent of a level's candidates), so the
    tolerance is computed for those alone, with the same arithmetic element by element.
    """
    margin = np.asarray(margin, dtype=np.float64)
    shape = np.broadcast_shapes(margin.shape, *(np.shape(r) for r in refs))
    out = (margin if margin.shape == shape else np.broadcast_to(margin, shape)) > epsilon
    idx = np.flatnonzero(out)
    if idx.size == 0:
        return out
    if 4 * idx.size > out.size:            # most may fire: the whole array at once
        scale = np.ones(shape)
        for r in refs:
            np.maximum(scale, np.abs(r), out=scale)
        scale *= RTOL
        scale += epsilon
        return np.greater(margin, scale, out=out)
    scale = np.ones(idx.size)
    for r in refs:
        np.maximum(scale, np.abs(_flat_at(r, shape, idx)), out=scale)
    scale *= RTOL
    scale += epsilon
    out.ravel()[idx] = _flat_at(margin, shape, idx) > scale
    return out


def _flat_at(a: np.ndarray | float, shape: tuple[int, ...], idx: np.ndarray) -> np.ndarray:
    """Elements ``idx`` (flat, C order) of ``a`` broadcast to ``shape``."""
    a = np.asarray(a, dtype=np.float64)
    if a.shape == shape:
        return a.ravel()[idx]
    return np.broadcast_to(a, shape)[np.unravel_index(idx, shape)]


def dominated(score: float, best_subset: float, epsilon: float) -> bool:
    """Rule ``dominated`` (any decomposable score): some proper subset beats ``X`` by more than ε.

    ``best_subset`` is the best score of any proper subset of ``X`` (scored or
    itself dominated -- the exchange argument needs only its score).
    """
    return fires(best_subset - score, epsilon, best_subset, score)


def penalty_bound(penalty: float, best_subset: float, epsilon: float) -> bool:
    """Rule ``penalty_bound`` (BIC/AIC): ``s(T) <= -penalty(T) <= -penalty(X)`` for every ``T ⊇ X``.

    Prunes ``X`` and every superset when ``best_subset - (-penalty) > ε``.
    """
    return fires(best_subset + penalty, epsilon, best_subset, penalty)


def entropy_bound(penalty_step: float, n_entropy: float, epsilon: float, ref: float) -> bool:
    """Rule ``entropy`` (BIC/AIC): adding ``j`` to any ``U ⊇ Y`` gains at most ``n_entropy`` in LL.

    Parameters
    ----------
    penalty_step : float
        ``coef * (r_v - 1) * q(Y) * (r_j - 1)``: the least penalty increase of
        adding ``j`` to any ``U ⊇ Y``.
    n_entropy : float
        ``N * min(H(v | Y), H(j | Y))`` (= ``min(-LL(v|Y), -LL(j|Y))``), an
        upper bound on ``N * I(v; j | U)`` for every ``U ⊇ Y``.
    ref : float
        Magnitude of the scores involved, for the tolerance.

    Prunes ``Y + {j}`` and all its supersets when ``penalty_step - n_entropy > ε``.
    """
    return fires(penalty_step - n_entropy, epsilon, ref, penalty_step)


def cell_bound(n_cells: int, child_arity: int, best_subset: float, epsilon: float) -> bool:
    """Rule ``cell_bound`` (BDeu, K2, BDs): ``s(T) <= -(#cells with N_jk > 0 of T) * ln r_v``.

    Each observed (configuration, state) cell contributes a predictive factor
    at most ``1/r`` (the first time that state is seen in that configuration).
    ``n_cells`` may be the count of any subset of ``X`` (cells only split when
    parents are added), so the bound holds for ``X`` and all its supersets.
    It implies the looser ``-(#observed configurations) * ln r_v``.
    """
    ub = -float(n_cells) * math.log(child_arity) if child_arity > 1 else 0.0
    return fires(best_subset - ub, epsilon, best_subset, ub)


def ll_ceiling(ll_all: float, penalty: float, best_subset: float, epsilon: float) -> bool:
    """Rule ``ll_ceiling`` (BIC, AIC; Tian 2000): ``s(T) <= LL(v | C) - pen(X)`` for ``X ⊆ T ⊆ C``.

    ``C`` is every other variable, so ``LL(v|T) <= LL(v|C) <= 0``; with
    ``pen(T) >= pen(X)`` this is :func:`penalty_bound` with 0 replaced by ``LL(v|C)``.
    """
    ub = ll_all - penalty
    return fires(best_subset - ub, epsilon, best_subset, ub)


def user_bound(ub: float, best_subset: float, epsilon: float) -> bool:
    """Rule ``user_bound``: a user score's ``upper_bound(child, X)`` (valid for all supersets)."""
    if math.isnan(ub) or ub == math.inf:
        return False
    return fires(best_subset - ub, epsilon, best_subset, ub)


def global_gap(best_v: float, score: float, epsilon: float, gap: float, *refs: float) -> bool:
    """Rule ``global_gap``: ``best(v) - s(v, W) > ε + (UB - LB)`` drops family ``(v, W)``.

    ``UB = Σ_u best(u)`` bounds every DAG from above and ``LB`` is the score of
    some DAG, so ``OPT >= LB``; a DAG using ``(v, W)`` scores at most
    ``s(v, W) + UB - best(v)``, which is then ``< LB - ε <= OPT - ε``.
    """
    return fires(best_v - score, epsilon + gap, best_v, score, *refs)


def published_parent_bound(n_rows: int) -> int:
    """The published ``⌊log2(2N / log2 N)⌋`` (Tian 2000, Thm 1): **off by one, never used to prune**.

    Kept so that the regression test can show it is wrong (XOR data, N = 106).
    """
    return int(math.floor(math.log2(2 * n_rows / math.log2(n_rows))))


def max_nonunit_parents(coef: float, child_arity: int, other_arities: Sequence[int],
                        empty_score: float, epsilon: float, ll_all: float = 0.0) -> int | None:
    """Rule ``parent_count`` (BIC/AIC): most parents of arity >= 2 a kept set can have.

    A set with ``k`` parents of arity >= 2 has ``q`` at least the product of
    the ``k`` smallest such arities, so its penalty exceeds
    ``s(∅) + ε`` (and the penalty bound, whose best subset is at least
    ``s(∅)``, prunes it and all supersets) once that product is large enough.
    Parents of arity 1 do not grow ``q`` and are not counted.  Returns
    ``None`` when there is no bound (child of arity 1: zero penalty).

    With ``ll_all = LL(v | all other variables)`` (<= 0; the ``ll_ceiling``
    rule) the set is excluded once ``s(∅) + pen - ll_all > ε``.  With binary
    parents and ``ll_all = 0`` the result is
    ``d_ε = ⌊log2(1 + 2(N Ĥ(v) + ε) / ((r_v - 1) ln N))⌋`` for BIC.
    """
    if child_arity <= 1 or coef <= 0:
        return None
    ar = sorted(int(a) for a in other_arities if a >= 2)
    q = 1.0
    for k, a in enumerate(ar):
        q *= a
        pen = coef * (child_arity - 1) * q
        if fires(empty_score + pen - ll_all, epsilon, empty_score, pen):
            return k  # k+1 such parents are too many
    return len(ar)


def resolve_epsilon(bayes_factor: float | None, epsilon: float | None) -> float:
    """ε from at most one of a Bayes factor (ε = ln BF, BF >= 1) or ε itself (>= 0); default 0."""
    if bayes_factor is not None and epsilon is not None:
        raise ScoreError("give either bayes_factor or epsilon, not both")
    if bayes_factor is not None:
        try:
            bf = float(bayes_factor)
        except (TypeError, ValueError):
            raise ScoreError(f"bayes_factor must be a number >= 1, got {bayes_factor!r}") from None
        if not (bf >= 1.0) or math.isinf(bf):
            raise ScoreError(f"bayes_factor must be a finite number >= 1, got {bayes_factor!r}")
        return math.log(bf)
    if epsilon is not None:
        try:
            eps = float(epsilon)
        except (TypeError, ValueError):
            raise ScoreError(f"epsilon must be a number >= 0, got {epsilon!r}") from None
        if not (eps >= 0.0) or math.isinf(eps):
            raise ScoreError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
        return eps
    return 0.0
