"""Decomposable local scores (natural log, higher is better) and their registry.

Built in: ``BIC``, ``AIC`` (penalised log-likelihoods) and ``BDeu`` (Bayesian
Dirichlet, likelihood-equivalent uniform prior).  Users plug in their own
decomposable score by subclassing :class:`LocalScore` (override
:meth:`LocalScore.local_score`, optionally :meth:`LocalScore.upper_bound`) or
by passing a plain function, which :class:`CallableScore` wraps.  Names map
to classes in one place, :data:`SCORES`; :func:`make_score` resolves a name,
class, instance or callable.

Why batches: scoring is dominated by counting, and one parent set's
configuration ids serve every child at once (see
:meth:`~gobnilp_py.scoring.counts.ParentConfigs.family_counts`), so every
score works on a :class:`~gobnilp_py.scoring.counts.FamilyCounts` holding
many children.
"""

from __future__ import annotations

import inspect
import math
from abc import ABC
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.special import gammaln

from ..data.dataset import Dataset
from ..errors import ScoreError
from .counts import FamilyCounts, ParentConfigs, xlogx_table

__all__ = [
    "BatchScores",
    "LocalScore",
    "PenalisedLL",
    "BIC",
    "AIC",
    "BDeu",
    "CallableScore",
    "SCORES",
    "register_score",
    "make_score",
]


@dataclass(frozen=True)
class BatchScores:
    """Local scores of one parent set for several children.

    ``ll`` (the maximised log-likelihood) is filled by penalised-likelihood
    scores only; pruning uses it for the entropy rule.
    """

    scores: np.ndarray
    ll: np.ndarray | None = None


class LocalScore(ABC):
    """A decomposable local score: ``score(child, parents)`` from the data.

    Subclass and override :meth:`local_score` (one family from its counts);
    built-in scores override :meth:`batch` instead for speed.  A score may
    also give :meth:`upper_bound`, which pruning uses to skip whole families
    of supersets.

    Parameters
    ----------
    data : Dataset
        The data the score is computed from.
    """

    #: Name used in the registry and in reports.
    name: ClassVar[str] = "custom"

    def __init__(self, data: Dataset) -> None:
        self.data = data
        self.N = data.N
        self.arities = np.asarray(data.arities, dtype=np.int64)

    def local_score(self, child: int, parents: tuple[int, ...], counts: np.ndarray) -> float:
        """Score of ``child`` with parent set ``parents``.

        Parameters
        ----------
        child : int
            Index of the child variable.
        parents : tuple of int
            Sorted indices of the parents.
        counts : numpy.ndarray of int64, shape (number of observed parent configurations, r_child)
            ``counts[j, k]``: rows with parent configuration ``j`` and child state ``k``.
        """
        raise NotImplementedError(f"score {self.name!r} must override local_score or batch")

    def upper_bound(self, child: int, parents: tuple[int, ...]) -> float:
        """An upper bound on the score of ``child`` with ``parents`` *or any superset of it*.

        Must be valid for every superset: pruning drops the set and all its
        supersets when this bound is more than epsilon below a subset's
        score.  The default ``+inf`` never prunes.
        """
        return math.inf

    def batch(self, fc: FamilyCounts) -> BatchScores:
        """Scores of ``fc.parents`` for every child in ``fc.children``."""
        out = np.empty(fc.children.size)
        for i, c in enumerate(fc.children):
            out[i] = float(self.local_score(int(c), fc.parents, fc.table(i)))
        return BatchScores(out)

    def compute(self, child: int, parents: tuple[int, ...]) -> float:
        """Score one family straight from the data (convenience, not the fast path)."""
        parents = tuple(sorted(int(p) for p in parents))
        fc = ParentConfigs(self.data).family_counts(parents, np.array([child]))
        return float(self.batch(fc).scores[0])

    def describe(self) -> dict[str, object]:
        """Parameters worth recording with a score table."""
        return {"score": self.name}


class PenalisedLL(LocalScore):
    """``LL(v | W) - coef * q * (r - 1)`` with ``q`` the declared number of parent configurations.

    ``LL = sum_jk N_jk ln(N_jk / N_j)`` over observed configurations.  Counts
    are at most N, so ``c ln c`` comes from a lookup table.
    """

    name: ClassVar[str] = "penalised-LL"

    def __init__(self, data: Dataset) -> None:
        super().__init__(data)
        self._xlogx = xlogx_table(self.N)

    @property
    def coef(self) -> float:
        """Penalty per free parameter."""
        raise NotImplementedError

    def penalty(self, child: int, parents: tuple[int, ...]) -> float:
        """``coef * q * (r_child - 1)``, with ``q`` the product of declared parent arities."""
        q = 1
        for p in parents:
            q *= int(self.arities[p])
        return self.coef * float(q) * float(self.arities[child] - 1)

    def log_likelihood(self, fc: FamilyCounts) -> np.ndarray:
        """Maximised log-likelihood of each child in ``fc``."""
        t = self._xlogx
        per_cell = t[fc.flat]
        if fc.children.size:
            cell_sums = np.add.reduceat(per_cell, fc.offsets[:-1])
            # reduceat returns the element itself for empty segments; none are empty (m*r >= 1).
        else:
            cell_sums = np.empty(0)
        return cell_sums - float(t[fc.config_counts].sum())

    def batch(self, fc: FamilyCounts) -> BatchScores:
        ll = self.log_likelihood(fc)
        pen = self.coef * float(fc.q) * (fc.child_arities - 1).astype(np.float64)
        return BatchScores(ll - pen, ll)

    def local_score(self, child: int, parents: tuple[int, ...], counts: np.ndarray) -> float:
        counts = np.asarray(counts, dtype=np.int64)
        nj = counts.sum(axis=1)
        ll = float(self._xlogx[counts].sum() - self._xlogx[nj].sum())
        return ll - self.penalty(child, parents)


class BIC(PenalisedLL):
    """Bayesian information criterion, ``LL - (ln N / 2) q (r - 1)`` (GOBNILP's sign)."""

    name: ClassVar[str] = "BIC"

    @property
    def coef(self) -> float:
        return 0.5 * math.log(self.N) if self.N > 0 else 0.0


class AIC(PenalisedLL):
    """Akaike information criterion, ``LL - q (r - 1)``."""

    name: ClassVar[str] = "AIC"

    @property
    def coef(self) -> float:
        return 1.0


class BDeu(LocalScore):
    """BDeu with equivalent sample size ``ess`` (alpha).

    ``sum_j [lnG(a/q) - lnG(a/q + N_j) + sum_k (lnG(a/(q r) + N_jk) - lnG(a/(q r)))]``
    over observed configurations ``j`` (unobserved ones contribute exactly 0;
    so do cells with ``N_jk = 0``, which are therefore skipped).

    Parameters
    ----------
    data : Dataset
    ess : float
        Equivalent sample size, > 0.
    """

    name: ClassVar[str] = "BDeu"

    def __init__(self, data: Dataset, ess: float = 1.0) -> None:
        super().__init__(data)
        ess = float(ess)
        if not (ess > 0 and math.isfinite(ess)):
            raise ScoreError(f"BDeu equivalent sample size must be a positive number, got {ess}")
        self.ess = ess

    def describe(self) -> dict[str, object]:
        return {"score": self.name, "ess": self.ess}

    def batch(self, fc: FamilyCounts) -> BatchScores:
        q = float(fc.q)
        a_j = self.ess / q
        nj = fc.config_counts.astype(np.float64)
        common = float(np.sum(gammaln(a_j) - gammaln(a_j + nj)))
        seg = np.repeat(np.arange(fc.children.size), np.diff(fc.offsets))
        nz = fc.flat > 0
        cells = fc.flat[nz].astype(np.float64)
        owner = seg[nz]
        a_jk = a_j / fc.child_arities.astype(np.float64)
        a = a_jk[owner]
        per_child = np.bincount(owner, weights=gammaln(a + cells) - gammaln(a),
                                minlength=fc.children.size)
        return BatchScores(common + per_child)

    def local_score(self, child: int, parents: tuple[int, ...], counts: np.ndarray) -> float:
        counts = np.asarray(counts, dtype=np.float64)
        q = 1
        for p in parents:
            q *= int(self.arities[p])
        a_j = self.ess / float(q)
        a_jk = a_j / float(self.arities[child])
        nj = counts.sum(axis=1)
        nj = nj[nj > 0]
        cells = counts[counts > 0]
        return float(np.sum(gammaln(a_j) - gammaln(a_j + nj))
                     + np.sum(gammaln(a_jk + cells) - gammaln(a_jk)))


class CallableScore(LocalScore):
    """Wrap a user function ``fn(child, parents, counts) -> float`` as a :class:`LocalScore`.

    Parameters
    ----------
    data : Dataset
    fn : callable
        ``fn(child: int, parents: tuple[int, ...], counts: ndarray) -> float``,
        with ``counts`` as in :meth:`LocalScore.local_score`.  It must be
        decomposable and higher-is-better.
    upper_bound : callable, optional
        ``upper_bound(child, parents) -> float``, valid for ``parents`` and
        every superset (see :meth:`LocalScore.upper_bound`).
    name : str, optional
        Name for reports (default: the function's name).
    """

    def __init__(self, data: Dataset, fn: Callable[[int, tuple[int, ...], np.ndarray], float],
                 upper_bound: Callable[[int, tuple[int, ...]], float] | None = None,
                 name: str | None = None) -> None:
        super().__init__(data)
        if not callable(fn):
            raise ScoreError(f"custom score {fn!r} is not callable")
        self._fn = fn
        self._ub = upper_bound
        self.name = name or getattr(fn, "__name__", "custom")  # type: ignore[misc]

    def local_score(self, child: int, parents: tuple[int, ...], counts: np.ndarray) -> float:
        return float(self._fn(child, parents, counts))

    def upper_bound(self, child: int, parents: tuple[int, ...]) -> float:
        if self._ub is None:
            return math.inf
        return float(self._ub(child, parents))


#: Registry of score names (case-insensitive lookup) to classes.
SCORES: dict[str, type[LocalScore]] = {"BIC": BIC, "AIC": AIC, "BDeu": BDeu}


def register_score(cls: type[LocalScore], name: str | None = None) -> type[LocalScore]:
    """Add a :class:`LocalScore` subclass to :data:`SCORES` (usable as a decorator)."""
    if not (isinstance(cls, type) and issubclass(cls, LocalScore)):
        raise ScoreError(f"{cls!r} is not a LocalScore subclass")
    SCORES[name or cls.name] = cls
    return cls


def make_score(spec: str | LocalScore | type[LocalScore] | Callable[..., float],
               data: Dataset, ess: float = 1.0) -> LocalScore:
    """Resolve a score given by name, class, instance or plain function.

    ``ess`` is passed to scores that take it (BDeu).  An unknown name raises
    a :class:`ScoreError` listing the valid ones.
    """
    if isinstance(spec, LocalScore):
        return spec
    if isinstance(spec, str):
        lookup = {k.lower(): v for k, v in SCORES.items()}
        cls = lookup.get(spec.lower())
        if cls is None:
            raise ScoreError(f"unknown score {spec!r}; valid: {', '.join(SCORES)}")
        spec = cls
    if isinstance(spec, type) and issubclass(spec, LocalScore):
        if "ess" in inspect.signature(spec).parameters:
            return spec(data, ess=ess)  # type: ignore[call-arg]
        return spec(data)
    if callable(spec):
        return CallableScore(data, spec)
    raise ScoreError(f"score must be a name ({', '.join(SCORES)}), a LocalScore or a function, got {spec!r}")
