"""Decomposable local scores (natural log, higher is better) and their registry.

Built in: ``BIC``, ``AIC`` (penalised log-likelihoods), ``BDeu`` (Bayesian
Dirichlet, likelihood-equivalent uniform prior), ``K2`` (Cooper & Herskovits
1992: every Dirichlet parameter 1) and ``BDs`` (Scutari 2016, "An
empirical-Bayes score for discrete Bayesian networks": BDeu's prior spread over
the *observed* parent configurations only).  Users plug in their own
decomposable score by subclassing :class:`LocalScore` (override
:meth:`LocalScore.local_score`, optionally :meth:`LocalScore.upper_bound`) or
by passing a plain function, which :class:`CallableScore` wraps.

**One registry.**  Names, aliases (pgmpy's ``"bic-d"``, ``"bdeu"``, ``"k2"``,
``"bds"``, ``"aic-d"`` ...) and default parameters live in :data:`SCORES` /
:data:`SCORE_ALIASES` and are read through :func:`score_names`,
:func:`resolve_score_name` and :func:`make_score`; the config and the CLI
should read them from here rather than keep their own lists.

**Rules declared by the score.**  Each score class declares, in its own class
body, the pruning rules that are proven for it (:attr:`LocalScore.pruning_rules`,
derivations in ``docs/pruning.md``) and whether it is score-equivalent
(:attr:`LocalScore.score_equivalent`).  Neither is inherited: a subclass that
does not redeclare them gets only the rule valid for every decomposable score
(``dominated``, plus ``user_bound`` when it defines :meth:`LocalScore.upper_bound`)
and ``score_equivalent = False``.  So subclassing ``BIC`` to change its
penalty can never silently switch on BIC's bounds.

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

from .._validation import check_choice
from ..data.dataset import Dataset
from ..errors import ScoreError
from .gaussian_scores import GAUSSIAN_SCORES
from .counts import BlockCounts, FamilyCounts, ParentConfigs, SetBlockCounts, ranges, segment_ids, xlogx_table

__all__ = [
    "BatchScores",
    "LocalScore",
    "PenalisedLL",
    "BIC",
    "AIC",
    "BDeu",
    "K2",
    "BDs",
    "DirichletScore",
    "CallableScore",
    "SCORES",
    "SCORE_ALIASES",
    "check_score_name",
    "register_score",
    "make_score",
    "score_names",
    "resolve_score_name",
    "gaussian_score_names",
    "is_gaussian_score",
    "all_score_names",
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

    #: Pruning rules proven for this score (names from :data:`gobnilp_py.scoring.pruning.RULES`),
    #: declared in the class body.  Not inherited: see the module docstring.
    pruning_rules: ClassVar[tuple[str, ...]] = ("dominated",)

    #: True when Markov-equivalent DAGs always get the same total score (engines that search
    #: equivalence classes rely on it).  Not inherited.
    score_equivalent: ClassVar[bool] = False

    #: Default values of the score's parameters (for the config and CLI).
    defaults: ClassVar[dict[str, object]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        # Declarations about soundness are per class: a subclass may change the formula.
        if "pruning_rules" not in cls.__dict__:
            cls.pruning_rules = ("dominated",)
        if "score_equivalent" not in cls.__dict__:
            cls.score_equivalent = False

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

    def batch_many(self, fcs: list[FamilyCounts]) -> list[BatchScores]:
        """:meth:`batch` for several parent sets (built-in scores merge them into one numpy call)."""
        return [self.batch(fc) for fc in fcs]


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


    def batch_many(self, fcs: list[FamilyCounts]) -> list[BatchScores]:
        if len(fcs) <= 1:
            return [self.batch(fc) for fc in fcs]
        t = self._xlogx
        flat = np.concatenate([fc.flat for fc in fcs])
        starts = np.concatenate([fc.offsets[:-1] + o for fc, o in zip(fcs, _cum([fc.flat.size for fc in fcs]))])
        cell_sums = np.add.reduceat(t[flat], starts)
        out = []
        i = 0
        for fc in fcs:
            k = fc.children.size
            ll = cell_sums[i:i + k] - float(t[fc.config_counts].sum())
            i += k
            pen = self.coef * float(fc.q) * (fc.child_arities - 1).astype(np.float64)
            out.append(BatchScores(ll - pen, ll))
        return out


    def block_scores(self, bc: BlockCounts) -> tuple[np.ndarray, np.ndarray]:
        """Scores and log-likelihoods of every pair of a block (few numpy calls for the whole block).

        ``LL = Σ_j (Σ_k N_jk ln N_jk - N_j ln N_j)`` with every term read from
        the ``c ln c`` table; empty cells and unobserved configurations add 0.
        Summed per configuration first (states in order), then over the
        configurations in order, both sequentially (``bincount``): each
        configuration's term is <= 0, so nothing cancels, and the order is the
        one the compiled kernel (:mod:`._kernels_numba`) uses, which therefore
        gives the same bits.  Mathematically tied families (a parent that adds
        no information) come out exactly tied.
        """
        t = self._xlogx
        P = bc.n_pairs
        if P == 0:
            return np.empty(0), np.empty(0)
        nj, _ = bc.config_totals()
        n_cfg = int(bc.cfg_off[-1])
        cell_cfg = np.repeat(np.arange(n_cfg, dtype=np.int64), np.repeat(bc.r, bc.m))
        per_cfg = np.bincount(cell_cfg, weights=t[bc.flat], minlength=n_cfg) - t[nj]
        ll = np.bincount(np.repeat(np.arange(P, dtype=np.int64), bc.m), weights=per_cfg, minlength=P)
        qf = np.array([float(q) for q in bc.q], dtype=np.float64)[bc.pair_set]
        pen = self.coef * qf * (bc.r - 1).astype(np.float64)
        return ll - pen, ll


    def set_sums(self, sb: SetBlockCounts, known: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``F`` of the block's parent sets and of its family sets (:meth:`set_block_scores`).

        ``known``: the parent sets' ``F`` the caller has already, for the sets
        ``sb`` did not count (``sb.counted``).  A level's parent sets are mostly
        the previous level's family sets, and ``F`` depends on the set alone
        (summed in its configuration order), so a value kept from there is the
        one recounting would give, bit for bit.
        """
        t = self._xlogx
        counted = _sums_per_set(t[sb.set_counts], sb.set_off)
        if sb.counted is None:
            f_set = counted
        else:
            assert known is not None
            f_set = known.copy()
            f_set[sb.counted] = counted
        return f_set, _sums_per_set(t[sb.family_counts], sb.family_off)

    def set_block_scores(self, sb: SetBlockCounts,
                         sums: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Scores and log-likelihoods of every pair of a block counted per variable set
        (``sums``: :meth:`set_sums` of the block, when the caller computed them).

        Why: ``LL(c | W) = F(W ∪ {c}) - F(W)`` with ``F(S) = Σ_j N_j ln N_j``
        over the configurations of the variable set ``S``, so each parent set
        and each family set is summed once, however many pairs share it (up to
        ``k + 1`` per family set of a level).  ``F`` is summed sequentially in
        the set's configuration order (``bincount``), so a value depends only
        on its set, never on the rest of the block.  Against
        :meth:`block_scores` (per pair, per configuration, no cancellation) the
        difference of two sums of up to ``N ln N`` loses a little: the two
        agree to ~1e-13 absolute on N = 10^4 rows, far inside
        :data:`~gobnilp_py.scoring.pruning.RTOL`.

        Returns
        -------
        scores, ll : ndarray, shape (P,)
        """
        P = sb.n_pairs
        if P == 0:
            return np.empty(0), np.empty(0)
        f_set, f_fam = self.set_sums(sb) if sums is None else sums
        ll = f_fam[sb.family] - f_set[sb.pair_set]
        qf = sb.q_float[sb.pair_set]
        pen = self.coef * qf * (sb.r - 1).astype(np.float64)
        return ll - pen, ll


def _sums_per_set(values: np.ndarray, off: np.ndarray) -> np.ndarray:
    """``values[off[b]:off[b + 1]].sum()`` for every ``b``, each summed sequentially in order."""
    return np.bincount(segment_ids(off), weights=values, minlength=off.size - 1)


class BIC(PenalisedLL):
    """Bayesian information criterion, ``LL - (ln N / 2) q (r - 1)`` (GOBNILP's sign)."""

    name: ClassVar[str] = "BIC"
    pruning_rules: ClassVar[tuple[str, ...]] = (
        "parent_count", "penalty_bound", "ll_ceiling", "entropy", "dominated")
    score_equivalent: ClassVar[bool] = True

    @property
    def coef(self) -> float:
        return 0.5 * math.log(self.N) if self.N > 0 else 0.0


class AIC(PenalisedLL):
    """Akaike information criterion, ``LL - q (r - 1)``."""

    name: ClassVar[str] = "AIC"
    pruning_rules: ClassVar[tuple[str, ...]] = (
        "parent_count", "penalty_bound", "ll_ceiling", "entropy", "dominated")
    score_equivalent: ClassVar[bool] = True

    @property
    def coef(self) -> float:
        return 1.0


class DirichletScore(LocalScore):
    """Log marginal likelihood with a symmetric Dirichlet prior per parent configuration.

    For each *observed* parent configuration ``j`` with counts ``N_jk`` the
    term is ``lnG(a_j) - lnG(a_j + N_j) + sum_k [lnG(a_j/r + N_jk) - lnG(a_j/r)]``
    (cells with ``N_jk = 0`` contribute 0 and are skipped; unobserved
    configurations contribute exactly 0).  Subclasses choose ``a_j`` through
    :meth:`alpha_j`, the one thing BDeu, K2 and BDs differ in.

    Every such score is a marginal likelihood under a proper prior, so it is
    at most the maximised log-likelihood, and each observed (configuration,
    state) cell costs at least ``ln r``: the ``cell_bound`` and ``ml_ceiling``
    rules of ``docs/pruning.md`` hold for all of them.
    """

    name: ClassVar[str] = "dirichlet"

    def alpha_j(self, fc: FamilyCounts) -> np.ndarray:
        """Prior mass ``a_j`` of each observed configuration, one value per child of ``fc``.

        The ``ml_ceiling`` rule relies on ``a_j`` never growing when parents are
        added (BDeu ``ess/q``, BDs ``ess/q~``, K2 ``r``): a subclass that breaks
        this must not declare ``ml_ceiling``.
        """
        raise NotImplementedError

    def _alpha_j_single(self, child: int, q: int, n_observed: int) -> float:
        """``a_j`` for one family (used by :meth:`local_score`)."""
        raise NotImplementedError

    def pair_alpha(self, bc: BlockCounts, n_observed: np.ndarray) -> np.ndarray | None:
        """``a_j`` of every (parent set, child) pair of a block, vectorised; ``None``: not provided.

        ``n_observed`` is each pair's number of observed configurations.  Must
        equal :meth:`alpha_j` pair by pair.  A class that overrides
        :meth:`alpha_j` without overriding this method is scored through
        :meth:`alpha_j` (one call per parent set), so an inherited vectorised
        form can never disagree with a subclass's own prior.
        """
        return None

    def batch(self, fc: FamilyCounts) -> BatchScores:
        return self.batch_many([fc])[0]

    def batch_many(self, fcs: list[FamilyCounts]) -> list[BatchScores]:
        """Scores of several parent sets in a few numpy calls over all their cells (see :meth:`block_scores`)."""
        if not fcs:
            return []
        scores = self.block_scores(_block_from_family_counts(fcs), states=False)[0]
        out, i = [], 0
        for fc in fcs:
            k = fc.children.size
            out.append(BatchScores(scores[i:i + k].copy()))
            i += k
        return out

    def block_scores(self, bc: BlockCounts, *,
                     states: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Scores of every pair of a block, with each pair's ``a_j`` and states seen per configuration.

        Why: on wide or short data a parent set has few cells, and numpy calls
        per set cost more than the arithmetic, so every cell of every pair of
        the block is handled by the same few calls.  The terms
        ``lnG(a + n) - lnG(a)`` come from a per-process cache of cumulated logs
        ``Σ_{i<n} ln(a + i)`` (one row per distinct ``a``, counts up to
        :data:`LGAMMA_TABLE_MAX`) and from ``gammaln`` above that; both agree
        to ~1e-13 relative, and a cell's value depends only on its own ``a``
        and ``n`` (never on the rest of the block), so the scores do not depend
        on how parent sets are grouped into blocks or workers.  Unobserved
        configurations and empty cells read ``n = 0`` and add exactly 0, so
        only the non-empty cells and observed configurations are visited.  The
        configuration terms depend on the parent set and ``a_j`` alone (not on
        the child), so they are summed once per run of pairs sharing both (for
        BDeu, once per parent set), in the same order as pair by pair.

        Returns
        -------
        scores : ndarray, shape (P,)
        alpha : ndarray, shape (P,)
            Prior mass ``a_j`` per configuration of each pair.
        states_seen : ndarray of int, shape (cfg_off[-1],), or None
            Child states seen in each (pair, configuration id); ``None`` unless ``states``.
        """
        P = bc.n_pairs
        if P == 0:
            return np.empty(0), np.empty(0), np.zeros(0, dtype=np.int64)
        cell, pair_nz, _ = bc.nonempty_cells()
        first, nj, off = bc.set_config_totals()
        is_first = np.zeros(P, dtype=bool)
        is_first[first] = True
        set_of = np.cumsum(is_first) - 1                 # the k-th set of the block, per pair
        nz_cfg = np.flatnonzero(nj)
        nz_start = np.searchsorted(nz_cfg, off)          # set k's observed ids: nz_cfg[nz_start[k]:nz_start[k+1]]
        n_obs = np.diff(nz_start)
        a = self._block_alpha(bc, n_obs[set_of], nj, off, first)
        rf = bc.r.astype(np.float64)
        lg = _lgamma_cache()
        rows = lg.rows(np.concatenate([a, a / rf]))
        rows_cfg, rows_cell = rows[:P], rows[P:]
        cell_sum = np.bincount(pair_nz, weights=lg.ratio(rows_cell[pair_nz], bc.flat[cell]), minlength=P)
        run = is_first.copy()                            # runs of pairs with the same set and a_j
        run[1:] |= rows_cfg[1:] != rows_cfg[:-1]
        run_first = np.flatnonzero(run)
        lens = n_obs[set_of[run_first]]
        ends = np.cumsum(lens)
        idx = np.arange(int(ends[-1]), dtype=np.int64)
        idx += np.repeat(nz_start[set_of[run_first]] - (ends - lens), lens)
        run_of = np.repeat(np.arange(run_first.size, dtype=np.int64), lens)
        run_sum = np.bincount(run_of, weights=lg.ratio(rows_cfg[run_first][run_of], nj[nz_cfg[idx]]),
                              minlength=run_first.size)
        cfg_sum = run_sum[np.cumsum(run) - 1]
        return cell_sum - cfg_sum, a, (bc.states_seen() if states else None)

    def set_block_scores(self, sb: SetBlockCounts) -> tuple[np.ndarray, np.ndarray]:
        """Scores and non-empty cells of every pair of a block counted per variable set.

        Why: the cell term ``Σ_jk lnG(a_jk + N_jk) - lnG(a_jk)`` of a pair
        ``(W, c)`` runs over the observed configurations of ``W ∪ {c}`` and
        reads nothing else but ``a_jk``, so it is summed once per distinct
        (family set, ``a_jk``) -- the pairs of a level share family sets -- and
        the configuration term once per (parent set, ``a_j``).  The terms are
        those of :meth:`block_scores` (same cache, same ``a_j`` and ``a_j / r``)
        summed in the family set's configuration order instead of the pair's
        cell order, so values agree to rounding (~1e-15 relative), and a
        value depends only on its set, never on the rest of the block.  Only
        for priors whose ``pair_alpha`` reads ``q``, ``pair_set`` and ``r``.

        Returns
        -------
        scores : ndarray, shape (P,)
        cells : ndarray of int64, shape (P,)
            Non-empty cells of each pair (observed configurations of its family set).
        """
        P = sb.n_pairs
        if P == 0:
            return np.empty(0), np.zeros(0, dtype=np.int64)
        nz_set = np.flatnonzero(sb.set_counts)
        set_start = np.searchsorted(nz_set, sb.set_off)
        nz_fam = np.flatnonzero(sb.family_counts)
        fam_start = np.searchsorted(nz_fam, sb.family_off)
        a = self.pair_alpha(sb, np.diff(set_start)[sb.pair_set])  # type: ignore[arg-type]
        assert a is not None
        a = np.asarray(a, dtype=np.float64)
        lg = _lgamma_cache()
        rows = lg.rows(np.concatenate([a, a / sb.r.astype(np.float64)]))
        cell = _terms_per_set(lg, sb.family, rows[P:], nz_fam, fam_start, sb.family_counts)
        cfg = _terms_per_set(lg, sb.pair_set, rows[:P], nz_set, set_start, sb.set_counts)
        return cell - cfg, np.diff(fam_start)[sb.family]

    def _block_alpha(self, bc: BlockCounts, n_obs: np.ndarray, nj: np.ndarray, off: np.ndarray,
                     first: np.ndarray) -> np.ndarray:
        """``a_j`` of every pair; ``nj``/``off``/``first`` as :meth:`BlockCounts.set_config_totals` gives them."""
        a = self.pair_alpha(bc, n_obs) if _vectorised_alpha(type(self)) else None
        if a is not None:
            return np.asarray(a, dtype=np.float64)
        # Generic path: the class's own alpha_j, one FamilyCounts per parent set.
        a = np.empty(bc.n_pairs)
        ends = np.r_[first[1:], bc.n_pairs]
        for k, (p0, p1) in enumerate(zip(first.tolist(), ends.tolist())):
            b = int(bc.pair_set[p0])
            njs = nj[off[k]:off[k + 1]]
            fc = FamilyCounts(parents=bc.sets[b], children=bc.children[p0:p1], child_arities=bc.r[p0:p1],
                              q=bc.q[b], config_counts=njs[njs > 0],
                              flat=bc.flat[bc.cell_off[p0]:bc.cell_off[p1]],
                              offsets=bc.cell_off[p0:p1 + 1] - bc.cell_off[p0], m=int(bc.m[p0]))
            a[p0:p1] = np.asarray(self.alpha_j(fc), dtype=np.float64)
        return a

    def local_score(self, child: int, parents: tuple[int, ...], counts: np.ndarray) -> float:
        counts = np.asarray(counts, dtype=np.float64)
        q = 1
        for p in parents:
            q *= int(self.arities[p])
        nj = counts.sum(axis=1)
        nj = nj[nj > 0]
        a_j = self._alpha_j_single(child, q, int(nj.size))
        a_jk = a_j / float(self.arities[child])
        cells = counts[counts > 0]
        from scipy.special import gammaln  # about 0.2 s to import: only when it is used

        return float(np.sum(gammaln(a_j) - gammaln(a_j + nj))
                     + np.sum(gammaln(a_jk + cells) - gammaln(a_jk)))


class BDeu(DirichletScore):
    """BDeu with equivalent sample size ``ess`` (alpha): ``a_j = ess / q``.

    ``sum_j [lnG(a/q) - lnG(a/q + N_j) + sum_k (lnG(a/(q r) + N_jk) - lnG(a/(q r)))]``
    over observed configurations ``j`` (unobserved ones contribute exactly 0;
    so do cells with ``N_jk = 0``, which are therefore skipped).
    Score-equivalent (Heckerman, Geiger & Chickering 1995).

    Parameters
    ----------
    data : Dataset
    ess : float
        Equivalent sample size, > 0.
    """

    name: ClassVar[str] = "BDeu"
    pruning_rules: ClassVar[tuple[str, ...]] = ("cell_bound", "ml_ceiling", "dominated")
    score_equivalent: ClassVar[bool] = True
    defaults: ClassVar[dict[str, object]] = {"ess": 1.0}

    def __init__(self, data: Dataset, ess: float = 1.0) -> None:
        super().__init__(data)
        ess = float(ess)
        if not (ess > 0 and math.isfinite(ess)):
            raise ScoreError(f"{self.name} equivalent sample size must be a positive number, got {ess}")
        self.ess = ess

    def describe(self) -> dict[str, object]:
        return {"score": self.name, "ess": self.ess}

    def alpha_j(self, fc: FamilyCounts) -> np.ndarray:
        return np.full(fc.children.size, self.ess / float(fc.q))

    def pair_alpha(self, bc: BlockCounts, n_observed: np.ndarray) -> np.ndarray | None:
        per_set = np.array([self.ess / float(q) for q in bc.q], dtype=np.float64)
        return per_set[bc.pair_set]

    def _alpha_j_single(self, child: int, q: int, n_observed: int) -> float:
        return self.ess / float(q)


class K2(DirichletScore):
    """K2 (Cooper & Herskovits 1992): every Dirichlet parameter is 1, so ``a_j = r``.

    ``sum_j [lnG(r) - lnG(r + N_j) + sum_k lnG(1 + N_jk)]``.  Not score-equivalent.
    """

    name: ClassVar[str] = "K2"
    pruning_rules: ClassVar[tuple[str, ...]] = ("cell_bound", "ml_ceiling", "dominated")
    score_equivalent: ClassVar[bool] = False

    def alpha_j(self, fc: FamilyCounts) -> np.ndarray:
        return fc.child_arities.astype(np.float64)

    def pair_alpha(self, bc: BlockCounts, n_observed: np.ndarray) -> np.ndarray | None:
        return bc.r.astype(np.float64)

    def _alpha_j_single(self, child: int, q: int, n_observed: int) -> float:
        return float(self.arities[child])


class BDs(BDeu):
    """BDs (Scutari 2016): BDeu's ``ess`` spread over the *observed* configurations only.

    ``a_j = ess / q~`` with ``q~`` the number of parent configurations seen in
    the data (``a_jk = a_j / r``); unobserved configurations get no prior mass
    (and contribute 0, as in BDeu).  Not score-equivalent.  pgmpy's ``BDs``
    uses ``ess / (q r)`` for the cells, which is Scutari's value only when
    every configuration is observed.
    """

    name: ClassVar[str] = "BDs"
    pruning_rules: ClassVar[tuple[str, ...]] = ("cell_bound", "ml_ceiling", "dominated")
    score_equivalent: ClassVar[bool] = False
    defaults: ClassVar[dict[str, object]] = {"ess": 1.0}

    def alpha_j(self, fc: FamilyCounts) -> np.ndarray:
        return np.full(fc.children.size, self.ess / float(max(fc.n_configs, 1)))

    def pair_alpha(self, bc: BlockCounts, n_observed: np.ndarray) -> np.ndarray | None:
        return self.ess / np.maximum(n_observed, 1).astype(np.float64)

    def _alpha_j_single(self, child: int, q: int, n_observed: int) -> float:
        return self.ess / float(max(n_observed, 1))


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


#: Registry of canonical score names to classes (case-insensitive lookup through
#: :func:`resolve_score_name`).  The config and the CLI should list :func:`score_names`.
SCORES: dict[str, type[LocalScore]] = {"BIC": BIC, "AIC": AIC, "BDeu": BDeu, "K2": K2, "BDs": BDs}

#: Other accepted spellings (lower case) -> canonical name: pgmpy's ``structure_score``
#: names (``"bic-d"``, ``"aic-d"``, ``"bdeu"``, ``"k2"``, ``"bds"``) and its former
#: ``*score`` names.
SCORE_ALIASES: dict[str, str] = {
    "bic-d": "BIC", "bicscore": "BIC",
    "aic-d": "AIC", "aicscore": "AIC",
    "bdeuscore": "BDeu",
    "k2score": "K2",
    "bdsscore": "BDs",
}


def score_names() -> tuple[str, ...]:
    """Canonical names of the registered scores for discrete data, in registration order."""
    return tuple(SCORES)


def gaussian_score_names() -> tuple[str, ...]:
    """The scores for continuous data, as users write them (``"bic-g"``, ``"aic-g"``, ``"bge"``; any case).

    They are no :class:`LocalScore` (they are computed from a covariance matrix, not from counts,
    by :func:`gobnilp_py.scoring.gaussian.gaussian_score_table`), but they are names of the same
    registry: :func:`check_score_name` accepts them and :func:`gobnilp_py.score` dispatches on them.
    """
    return tuple(GAUSSIAN_SCORES)


def all_score_names() -> tuple[str, ...]:
    """Every score name a user may give: the discrete scores, then the Gaussian ones (for help texts)."""
    return score_names() + gaussian_score_names()


def is_gaussian_score(spec: object) -> bool:
    """True when ``spec`` names a Gaussian score (any case, canonical spelling included)."""
    return isinstance(spec, str) and spec.strip().lower() in GAUSSIAN_SCORES


def check_score_name(value: object, name: str | None = "score") -> str:
    """A registered score (any case, or an alias) -> its canonical name; the check the API, config and CLI share.

    Gaussian names give theirs (``"BIC-G"``, ``"AIC-G"``, ``"BGe"``).  Unlike
    :func:`resolve_score_name` (a :class:`ScoreError` for the scorer) this raises the
    :class:`~gobnilp_py.errors.ParameterError` of the validation vocabulary, naming the parameter.
    """
    names = score_names()
    if isinstance(value, str):
        key = value.strip().lower()
        for canon in names:
            if canon.lower() == key:
                return canon
        if SCORE_ALIASES.get(key) in names:
            return SCORE_ALIASES[key]
        if key in GAUSSIAN_SCORES:
            return GAUSSIAN_SCORES[key]
    return check_choice(value, name, all_score_names(), fold=True)


def resolve_score_name(name: str) -> str:
    """Canonical registry name of ``name`` (any case, or an alias); one-line :class:`ScoreError` if unknown."""
    key = str(name).strip().lower()
    for canon in SCORES:
        if canon.lower() == key:
            return canon
    canon = SCORE_ALIASES.get(key)
    if canon is not None and canon in SCORES:
        return canon
    if key in GAUSSIAN_SCORES:
        return GAUSSIAN_SCORES[key]
    raise ScoreError(f"unknown score {name!r}; valid: {', '.join(all_score_names())} "
                     f"(aliases: {', '.join(sorted(SCORE_ALIASES))})")


def register_score(cls: type[LocalScore], name: str | None = None,
                   aliases: tuple[str, ...] = ()) -> type[LocalScore]:
    """Add a :class:`LocalScore` subclass to :data:`SCORES` (usable as a decorator)."""
    if not (isinstance(cls, type) and issubclass(cls, LocalScore)):
        raise ScoreError(f"{cls!r} is not a LocalScore subclass")
    canon = name or cls.name
    SCORES[canon] = cls
    for a in aliases:
        SCORE_ALIASES[str(a).lower()] = canon
    return cls


def make_score(spec: str | LocalScore | type[LocalScore] | Callable[..., float],
               data: Dataset, ess: float = 1.0) -> LocalScore:
    """Resolve a score given by name, class, instance or plain function.

    ``ess`` is passed to scores that take it (BDeu, BDs).  An unknown name raises
    a :class:`ScoreError` listing the valid ones.
    """
    if isinstance(spec, LocalScore):
        return spec
    if isinstance(spec, str):
        canon = resolve_score_name(spec)
        if canon not in SCORES:
            raise ScoreError(f"score {spec!r} is for continuous data (a covariance matrix, not counts): "
                             "score it with gobnilp_py.score(data, score=...), not as a LocalScore")
        spec = SCORES[canon]
    if isinstance(spec, type) and issubclass(spec, LocalScore):
        if "ess" in inspect.signature(spec).parameters:
            return spec(data, ess=ess)  # type: ignore[call-arg]
        return spec(data)
    if callable(spec):
        return CallableScore(data, spec)
    raise ScoreError(f"score must be a name ({', '.join(SCORES)}), a LocalScore or a function, got {spec!r}")


#: Counts up to this read ``lnG(a + n) - lnG(a)`` from the cached tables; larger ones use ``gammaln``.
LGAMMA_TABLE_MAX = 512

#: Rows (distinct ``a``) the per-process table may hold before it is rebuilt from empty.
LGAMMA_TABLE_ROWS = 4096


class _LgammaCache:
    """``lnG(a + n) - lnG(a)`` for many ``(a, n)``: cumulated logs for small ``n``, ``gammaln`` above.

    Row ``i`` holds ``Σ_{t<n} ln(a_i + t)`` for ``n = 0 .. K``, built once per
    distinct ``a`` with a sequential ``cumsum`` of that row alone, so a value
    depends only on ``(a, n)``: which rows exist, their order and any rebuild
    never change a result.
    """

    K = LGAMMA_TABLE_MAX

    def __init__(self) -> None:
        self._index: dict[float, int] = {}
        self._tab = np.zeros((64, self.K + 1))
        self._alpha = np.zeros(64)
        self._n = 0

    def rows(self, a: np.ndarray) -> np.ndarray:
        """Row of each value of ``a`` (adding rows for new values).  Valid until the next call."""
        u, inv = np.unique(a, return_inverse=True)
        if self._n + u.size > LGAMMA_TABLE_ROWS:
            self._index.clear()
            self._n = 0
        out = np.empty(u.size, dtype=np.int64)
        idx = self._index
        for i, x in enumerate(u.tolist()):
            r = idx.get(x)
            if r is None:
                r = idx[x] = self._add(x)
            out[i] = r
        return out[inv.reshape(-1)]

    def _add(self, x: float) -> int:
        if self._n == self._tab.shape[0]:
            cap = 2 * self._n
            tab = np.zeros((cap, self.K + 1))
            tab[:self._n] = self._tab[:self._n]
            alpha = np.zeros(cap)
            alpha[:self._n] = self._alpha[:self._n]
            self._tab, self._alpha = tab, alpha
        r = self._n
        row = self._tab[r]
        row[0] = 0.0
        np.cumsum(np.log(x + np.arange(self.K, dtype=np.float64)), out=row[1:])
        self._alpha[r] = x
        self._n += 1
        return r

    def ratio(self, rows: np.ndarray, n: np.ndarray) -> np.ndarray:
        """``lnG(a + n) - lnG(a)`` with ``a`` given by ``rows`` (from :meth:`rows`); ``n`` integer >= 0."""
        K = self.K
        big = n > K
        flat = self._tab.reshape(-1)
        if not big.any():
            return flat.take(rows * (K + 1) + n)
        out = flat.take(rows * (K + 1) + np.minimum(n, K))
        i = np.flatnonzero(big)
        a = self._alpha[rows[i]]
        nb = n[i].astype(np.float64)
        from scipy.special import gammaln

        out[i] = gammaln(a + nb) - gammaln(a)
        return out


_LGAMMA: list[_LgammaCache] = []


def _lgamma_cache() -> _LgammaCache:
    """The per-process table (created on first use; worker processes build their own)."""
    if not _LGAMMA:
        _LGAMMA.append(_LgammaCache())
    return _LGAMMA[0]


def _terms_per_set(lg: _LgammaCache, owner: np.ndarray, row: np.ndarray, nz: np.ndarray, start: np.ndarray,
                   counts: np.ndarray) -> np.ndarray:
    """Per pair, ``Σ lnG(a + n) - lnG(a)`` over the observed configurations of its set ``owner``.

    ``a`` is given by the pair's lgamma-table ``row``; set ``s``'s observed
    counts are ``counts[nz[start[s]:start[s + 1]]]``.  Summed once per distinct
    ``(owner, row)``, sequentially in configuration order (``bincount``).
    """
    width = int(row.max()) + 1
    uk, inv = np.unique(owner * width + row, return_inverse=True)
    ko = uk // width
    lens = start[ko + 1] - start[ko]
    idx = ranges(start[ko], lens)
    of = np.repeat(np.arange(uk.size, dtype=np.int64), lens)
    sums = np.bincount(of, weights=lg.ratio((uk - ko * width)[of], counts[nz[idx]]), minlength=uk.size)
    return sums[inv.reshape(-1)]


def _vectorised_alpha(cls: type) -> bool:
    """True when the class that defines ``alpha_j`` for ``cls`` also defines ``pair_alpha``."""
    for k in cls.__mro__:
        if "alpha_j" in k.__dict__:
            return "pair_alpha" in k.__dict__
    return False


def _block_from_family_counts(fcs: list[FamilyCounts]) -> BlockCounts:
    """A :class:`BlockCounts` over already counted parent sets (no row ids: scoring only)."""
    sizes = np.array([fc.children.size for fc in fcs], dtype=np.int64)
    pair_set = np.repeat(np.arange(len(fcs), dtype=np.int64), sizes)
    children = np.concatenate([fc.children for fc in fcs]).astype(np.int64, copy=False)
    r = np.concatenate([fc.child_arities for fc in fcs]).astype(np.int64, copy=False)
    m = np.array([fc.m for fc in fcs], dtype=np.int64)[pair_set]
    flat = np.concatenate([fc.flat for fc in fcs])
    cell_off = np.zeros(children.size + 1, dtype=np.int64)
    np.cumsum(m * r, out=cell_off[1:])
    cfg_off = np.zeros(children.size + 1, dtype=np.int64)
    np.cumsum(m, out=cfg_off[1:])
    return BlockCounts(sets=[fc.parents for fc in fcs], q=[fc.q for fc in fcs], pair_set=pair_set,
                       children=children, r=r, m=m, flat=flat, cell_off=cell_off, cfg_off=cfg_off,
                       Z=np.zeros((0, 0), dtype=np.int64))


def _cum(sizes: list[int]) -> list[int]:
    """Exclusive prefix sums of ``sizes``."""
    out, t = [], 0
    for x in sizes:
        out.append(t)
        t += x
    return out
