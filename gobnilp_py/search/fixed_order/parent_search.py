"""Best parent sets from data: Tian's depth-first branch and bound (UAI 2000), exact and ε forms.

Problem.  For a child ``X`` and a candidate set ``C`` of variables, find the
parent set ``W ⊆ C`` maximising the local score ``s(X, W)`` (natural log,
higher is better), or -- the ε form -- *every* ``W ⊆ C`` with
``s(X, W) >= best - ε``, each once.  Learning under a fixed variable order
(:mod:`.engine`) is this problem once per variable with ``C`` = its
predecessors; the ordering-based engines call it with other candidate sets.

Algorithm (Tian 2000, "A Branch-and-Bound Algorithm for MDL Learning Bayesian
Networks", ``DFBnB_K3``; derivations in our convention in ``docs/fixed-order.md``):

1. **Incumbent** by K3 (K2's greedy forward selection with the score itself):
   from ``∅`` add the candidate that raises the score most while it rises.
2. **Tree order**: candidates sorted by single-parent conditional entropy
   ``Ĥ(X | c)`` ascending (``LL(X | c)`` descending).  A search state is a set
   ``T``; its children add one candidate after ``T``'s last one in tree order,
   so every subset of ``C`` is one state.
3. **Depth-first search** from ``∅``.  At a state ``T`` with ``W`` = the
   candidates after its last element, the subtree of a child ``T ∪ {q}`` is
   every ``S`` with ``T ∪ {q} ⊆ S ⊆ T ∪ W``, and for penalised likelihoods
   (BIC: coefficient ``ln N / 2``; AIC: 1)

       s(X, S) = LL(X|S) - coef (r_X - 1) q_S  <=  LL(X|T ∪ W) - coef (r_X - 1) q_T r_q

   because the empirical log-likelihood never falls when parents are added
   (``LL(X|S) <= LL(X|T ∪ W)``) and ``q_S >= q_T r_q``.  This is Tian's
   eq. (12) with ``H -> -LL`` and the sign flipped.  The ceiling
   ``LL(X|T ∪ W)`` is counted once per state (one contingency table); a
   child's subtree is skipped when its bound cannot reach the incumbent (the
   optimum), or is more than ε below it (the ε form).  The parent's ceiling
   is a valid, weaker ceiling for every child (``T ∪ W ⊆ parent ∪ W_parent``),
   so a state whose children all fail it is left without counting its own.
4. **Depth bound** (BIC/AIC), in its corrected form: a set with ``d`` parents
   of arity >= 2 has ``q >= 2^d``; its score is at most ``-coef (r_X - 1) 2^d``
   and must reach ``s(X, ∅) - ε >= LL(X|∅) - coef (r_X - 1) - ε``, so

       d <= d_ε(X) = floor(log2(1 + (N Ĥ(X) + ε) / (coef (r_X - 1))))

   which for BIC is ``floor(log2(1 + 2 (N Ĥ(X) + ε) / ((r_X - 1) ln N)))``.
   The bound printed in the paper, ``floor(log2(2N / log2 N))`` (Theorem 1),
   drops the ``1 +`` and is wrong: the XOR data of ``docs/fixed-order.md``
   need 5 parents where it allows 4.

BDeu has no penalty term; two bounds valid for a set and all its supersets
hold and are used (both derived in ``docs/fixed-order.md``):
``BDeu(X, S) <= LL(X|S)`` (a marginal likelihood is an average of
likelihoods, never above their maximum), so Tian's ceiling ``LL(X|T ∪ W)``
applies unchanged; and ``BDeu(X, S) <= -cells(S) ln r_X`` with ``cells`` the
non-empty (configuration, state) cells, which never decrease when parents are
added (``docs/pruning.md``, rule ``bdeu_bound``).  There is no depth bound.

Counting.  Everything is a contingency table of the child against a parent
configuration id.  Ids are mixed-radix codes ``id(T ∪ {q}) = id(T) r_q + x_q``,
extended from the parent state's cached ids as the search descends and
compressed to dense ids when their range outgrows the number of rows.  The
ceilings combine a state's ids with precomputed ids of every tree-order
suffix (``id(T ∪ W) = id(T) m_W + id(W)``).  Identical rows (over the child
and ``C``) are merged and counted with weights when that shrinks the data.
This module counts for itself rather than through
:mod:`gobnilp_py.scoring.counts`: its access pattern is one child against
nested sets along a depth-first path plus a suffix ceiling per state, which
the level-wise, many-children batch counter is not built for (and the search
needs counts only, not a score table).

Floating point.  The ε form keeps a subtree unless its bound is more than
``ε + 1e-9 max(1, |best|)`` below the incumbent (strict, as in
:mod:`gobnilp_py.scoring.pruning`), so rounding can only keep more; the
optimum form prunes when the bound does not exceed the incumbent (Tian's
rule), which can only discard sets no better than a set already found.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import gammaln

from ...data.dataset import Dataset
from ...errors import ConfigError, DataError, ScoreError
from ...scoring.pruning import RTOL

__all__ = [
    "SEARCH_SCORES",
    "ParentSearch",
    "ParentSearchResult",
    "best_parent_set",
    "parent_count_bound",
]

_log = logging.getLogger(__name__)

#: Scores the data-backed search supports, by lower-case name.
SEARCH_SCORES = {"bic": "BIC", "aic": "AIC", "bdeu": "BDeu"}

#: Bound variants: ``"full"`` (Tian's per-state ceiling, eq. 12), ``"fixed"`` (one ceiling
#: ``LL(X|C)`` for every state, eq. 15), ``"suzuki"`` (no likelihood ceiling: ``LL <= 0``).
BOUNDS = ("full", "fixed", "suzuki")

#: A penalty that overflows a float is treated as this (the set is hopeless anyway).
_BIG_Q = 1e300


def parent_count_bound(n_entropy: float, child_arity: int, coef: float, epsilon: float = 0.0) -> int | None:
    """Most parents of arity >= 2 a set within ε of the best can have (penalised likelihoods).

    ``d_ε = floor(log2(1 + (N Ĥ(X) + ε) / (coef (r_X - 1))))``, computed in
    integers so that rounding cannot lower it: the largest ``d`` with
    ``coef (r_X - 1) (2^d - 1) <= N Ĥ(X) + ε`` (plus a relative 1e-9 slack).

    Parameters
    ----------
    n_entropy : float
        ``N Ĥ(X) = -LL(X|∅)`` in nats.
    child_arity : int
        Declared arity ``r_X``.
    coef : float
        Penalty per free parameter (BIC: ``ln N / 2``; AIC: 1).
    epsilon : float
        The gap (0 for the optimum).

    Returns
    -------
    int or None
        ``None`` when nothing bounds the count (``r_X = 1`` or ``coef = 0``:
        zero penalty).
    """
    if child_arity <= 1 or coef <= 0:
        return None
    room = float(n_entropy) + float(epsilon)
    room += RTOL * max(1.0, abs(room))
    step = coef * (child_arity - 1)
    d = 0
    while step * (2.0 ** (d + 1) - 1.0) <= room:
        d += 1
    return d


@dataclass(frozen=True)
class ParentSearchResult:
    """The answer of one parent-set search.

    Attributes
    ----------
    child : int
    candidates : tuple of int
        The candidate set searched (variable indices, as given, deduplicated).
    parents : tuple of int
        A best parent set found (sorted variable indices).
    score : float
        Its local score.
    sets : tuple of (parents, score)
        The ε form: every ``W ⊆ C`` with ``score >= best - ε - 1e-9 max(1, |best|)``,
        each once, sorted best first (ties: fewer parents, then lexicographic,
        as in :class:`~gobnilp_py.scoring.table.ScoreTable`).  The optimum
        form: only ``(parents, score)``.
    epsilon : float or None
        The gap of the ε form; ``None`` for the optimum form.
    complete : bool
        The search finished: ``score`` is the best over every subset of ``C``
        (within ``palim``) and ``sets`` is complete.
    reason : str or None
        Why it stopped early: ``"time_limit"`` or ``"max_sets"``.
    upper_bound : float
        A proven upper bound on the best score over ``C`` (equals ``score``
        when complete).
    stats : dict
        ``states`` (states scored by the search), ``ll_evaluations``
        (contingency tables counted, including K3 and the ceilings),
        ``ceilings``, ``pruned`` (subtrees cut), ``k3_score``, ``k3_optimal``,
        ``depth_bound``, ``max_depth`` (most parents of any state scored),
        ``rows`` (rows after merging duplicates), ``seconds``.
    """

    child: int
    candidates: tuple[int, ...]
    parents: tuple[int, ...]
    score: float
    sets: tuple[tuple[tuple[int, ...], float], ...]
    epsilon: float | None
    complete: bool
    reason: str | None
    upper_bound: float
    stats: dict[str, Any] = field(default_factory=dict)


class _Stop(Exception):
    """Raised inside the search when a limit is reached."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _compress(z: np.ndarray, m: int, rows: int) -> tuple[np.ndarray, int]:
    """Map codes ``0 <= z < m`` to dense ids of the observed codes, order preserved."""
    if m <= 64 * rows + 1024:
        present = np.zeros(m, dtype=bool)
        present[z] = True
        remap = np.cumsum(present) - 1
        return remap[z], int(remap[-1] + 1)
    uniq, inv = np.unique(z, return_inverse=True)
    return inv.reshape(-1).astype(np.int64, copy=False), int(uniq.size)


class _Child:
    """The data of one search, restricted to the child and its candidates (rows merged)."""

    def __init__(self, owner: "ParentSearch", child: int, cands: list[int]) -> None:
        data = owner.data
        cols = [*cands, child]
        codes = data.codes[:, cols]
        self.weights: np.ndarray | None = None
        if codes.shape[0] > 1:
            uniq, mult = np.unique(codes, axis=0, return_counts=True)
            if uniq.shape[0] < 0.6 * codes.shape[0]:
                codes = uniq
                self.weights = mult.astype(np.float64)
        self.rows = int(codes.shape[0])
        self.dense_limit = max(64, self.rows)
        self.x = np.ascontiguousarray(codes[:, -1])
        self.cols = [np.ascontiguousarray(codes[:, i]) for i in range(len(cands))]
        self.r = int(data.arities[child])


class ParentSearch:
    """Tian's branch and bound over parent sets, from data (one object per data set and score).

    Parameters
    ----------
    data : Dataset
    score : str
        ``"BIC"``, ``"AIC"`` or ``"BDeu"`` (case-insensitive).
    ess : float
        BDeu's equivalent sample size (> 0).

    Examples
    --------
    >>> import numpy as np
    >>> from gobnilp_py.data.dataset import Dataset
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500); b = (a + (rng.random(500) < 0.1)) % 2
    >>> ds = Dataset(("A", "B"), np.array([2, 2]), np.column_stack([a, b]))
    >>> ParentSearch(ds).search(1, [0]).parents
    (0,)
    """

    def __init__(self, data: Dataset, score: str = "BIC", *, ess: float = 1.0) -> None:
        if not isinstance(data, Dataset):
            raise DataError(f"parent search needs a Dataset, got {type(data).__name__}")
        if not isinstance(score, str) or score.lower() not in SEARCH_SCORES:
            raise ScoreError(f"the data-backed parent search supports the scores "
                             f"{', '.join(SEARCH_SCORES.values())}; got {score!r}")
        self.data = data
        self.score_name = SEARCH_SCORES[score.lower()]
        self.N = data.N
        self.arities = np.asarray(data.arities, dtype=np.int64)
        if self.score_name == "BDeu":
            ess = float(ess)
            if not (ess > 0 and math.isfinite(ess)):
                raise ScoreError(f"BDeu equivalent sample size must be a positive number, got {ess}")
        self.ess = float(ess)
        if self.score_name == "BIC":
            self.coef = 0.5 * math.log(self.N) if self.N > 0 else 0.0
        elif self.score_name == "AIC":
            self.coef = 1.0
        else:
            self.coef = 0.0
        c = np.arange(self.N + 1, dtype=np.float64)
        self._xlogx = np.zeros_like(c)
        self._xlogx[1:] = c[1:] * np.log(c[1:])

    # ------------------------------------------------------------------ counting
    def _table(self, ch: _Child, ids: np.ndarray, m: int) -> np.ndarray:
        """Integer counts ``N_jk`` (flat, ``m * r`` cells) of configuration ``ids`` against the child."""
        joint = ids * ch.r + ch.x if ch.r > 1 else ids
        if ch.weights is None:
            return np.bincount(joint, minlength=m * ch.r)
        return np.bincount(joint, weights=ch.weights, minlength=m * ch.r).astype(np.int64)

    def _ll(self, ch: _Child, cnt: np.ndarray, m: int) -> float:
        """Maximised log-likelihood from a flat table."""
        t = self._xlogx
        nj = cnt.reshape(m, ch.r).sum(axis=1) if ch.r > 1 else cnt
        return float(t[cnt].sum() - t[nj].sum())

    def _bdeu(self, ch: _Child, cnt: np.ndarray, m: int, q: float) -> float:
        """BDeu from a flat table (observed configurations and non-empty cells only)."""
        a_j = self.ess / q
        a_jk = a_j / ch.r
        nj = cnt.reshape(m, ch.r).sum(axis=1)
        nj = nj[nj > 0].astype(np.float64)
        cells = cnt[cnt > 0].astype(np.float64)
        return float(np.sum(gammaln(a_j) - gammaln(a_j + nj)) + np.sum(gammaln(a_jk + cells) - gammaln(a_jk)))

    def _penalty(self, r: int, q: float) -> float:
        return self.coef * (r - 1) * q

    def _evaluate(self, ch: _Child, ids: np.ndarray, m: int, q: float) -> tuple[float, float, int]:
        """``(score, LL, non-empty cells)`` of the configuration ``ids``."""
        cnt = self._table(ch, ids, m)
        ll = self._ll(ch, cnt, m)
        if self.score_name == "BDeu":
            return self._bdeu(ch, cnt, m, q), ll, int(np.count_nonzero(cnt))
        return ll - self._penalty(ch.r, q), ll, 0

    @staticmethod
    def _extend(ch: _Child, ids: np.ndarray, m: int, col: np.ndarray, r: int) -> tuple[np.ndarray, int]:
        if r <= 1:
            return ids, m
        z = ids * r + col
        m = m * r
        if m > ch.dense_limit:
            return _compress(z, m, ch.rows)
        return z, m

    def local_score(self, child: int, parents: Sequence[int]) -> float:
        """Score of one family straight from the data (for checks; the search never calls it)."""
        ps = sorted(int(p) for p in parents)
        ch = _Child(self, int(child), ps)
        ids, m = np.zeros(ch.rows, dtype=np.int64), 1
        q = 1.0
        for i, p in enumerate(ps):
            r = int(self.arities[p])
            ids, m = self._extend(ch, ids, m, ch.cols[i], r)
            q = min(q * r, _BIG_Q)
        return self._evaluate(ch, ids, m, q)[0]

    def depth_bound(self, child: int, epsilon: float = 0.0) -> int | None:
        """``d_ε(child)`` (:func:`parent_count_bound`) from the data; ``None`` for BDeu or ``r = 1``."""
        if self.score_name == "BDeu":
            return None
        ch = _Child(self, int(child), [])
        cnt = self._table(ch, np.zeros(ch.rows, dtype=np.int64), 1)
        return parent_count_bound(-self._ll(ch, cnt, 1), ch.r, self.coef, epsilon)

    # -------------------------------------------------------------------- search
    def search(self, child: int, candidates: Sequence[int], *, epsilon: float | None = None,
               palim: int | None = None, bound: str = "full", start: str = "k3",
               tree_order: str = "entropy", time_limit: float | None = None,
               deadline: float | None = None, max_sets: int | None = None,
               trace: Callable[[str, tuple[int, ...], Any], None] | None = None) -> ParentSearchResult:
        """The best parent set of ``child`` within ``candidates`` (or every set within ε of it).

        Parameters
        ----------
        child : int
            Variable index of the child.
        candidates : sequence of int
            Variable indices the parents are chosen from (``child`` itself and
            repeats are refused).
        epsilon : float or None
            ``None``: find one best set.  ``ε >= 0``: list every set with
            ``score >= best - ε`` (ties included at ε = 0).
        palim : int or None
            At most this many parents (all arities counted).
        bound : {"full", "fixed", "suzuki"}
            Likelihood ceiling: per state (Tian eq. 12), one for all states
            (eq. 15), or none (``LL <= 0``; Suzuki's bound).  All are exact;
            they differ in states visited and cost per state.
        start : {"k3", "empty"}
            Incumbent: K3's greedy set, or ``∅``.
        tree_order : {"entropy", "given"}
            Candidates by ``Ĥ(X|c)`` ascending (Tian eq. 14), or as given.
        time_limit : float or None
            Seconds for this search (``deadline``, a :func:`time.monotonic`
            instant, takes precedence when both are given).
        max_sets : int or None
            ε form: stop (incomplete) once more sets than this are within ε.
        trace : callable, optional
            Diagnostics and tests: called ``trace("score", S, score)`` for every
            state scored, and ``trace("bound", T ∪ {q}, (ub, ceiling_set))`` for
            every subtree bound used: ``ub`` bounds the score of every ``S`` with
            ``T ∪ {q} ⊆ S ⊆ ceiling_set`` (sorted variable tuples).

        Returns
        -------
        ParentSearchResult
        """
        t0 = time.monotonic()
        child = int(child)
        n = self.data.n
        if not 0 <= child < n:
            raise DataError(f"child index {child} out of range 0..{n - 1}")
        cands = [int(c) for c in candidates]
        bad = [c for c in cands if not 0 <= c < n or c == child]
        if bad:
            raise DataError(f"invalid candidate parent {bad[0]} for child {self.data.names[child]!r}")
        if len(set(cands)) != len(cands):
            raise DataError(f"candidate parents of {self.data.names[child]!r} repeat a variable")
        if epsilon is not None:
            epsilon = float(epsilon)
            if not (epsilon >= 0 and math.isfinite(epsilon)):
                raise ConfigError(f"epsilon must be a finite number >= 0, got {epsilon}")
        if palim is not None and (isinstance(palim, bool) or int(palim) != palim or palim < 0):
            raise ConfigError(f"palim must be a non-negative integer, got {palim!r}")
        if bound not in BOUNDS:
            raise ConfigError(f"bound must be one of {', '.join(BOUNDS)}, got {bound!r}")
        if start not in ("k3", "empty"):
            raise ConfigError(f"start must be 'k3' or 'empty', got {start!r}")
        if tree_order not in ("entropy", "given"):
            raise ConfigError(f"tree_order must be 'entropy' or 'given', got {tree_order!r}")
        if deadline is None and time_limit is not None:
            deadline = t0 + float(time_limit)
        run = _Run(self, child, cands, epsilon=epsilon, palim=None if palim is None else int(palim),
                   bound=bound, start=start, tree_order=tree_order, deadline=deadline, max_sets=max_sets,
                   trace=trace)
        res = run.execute()
        res.stats["seconds"] = time.monotonic() - t0
        return res


class _Run:
    """State of one search (kept off :class:`ParentSearch` so that it is reentrant)."""

    def __init__(self, ps: ParentSearch, child: int, cands: list[int], *, epsilon: float | None,
                 palim: int | None, bound: str, start: str, tree_order: str, deadline: float | None,
                 max_sets: int | None, trace: Callable[[str, tuple[int, ...], Any], None] | None) -> None:
        self.ps = ps
        self.child = child
        self.cands_given = tuple(cands)
        self.epsilon = epsilon
        self.palim = palim
        self.bound = bound
        self.start = start
        self.tree_order = tree_order
        self.deadline = deadline
        self.max_sets = max_sets
        self.trace = trace
        self.ch = _Child(ps, child, cands)
        self.stats: dict[str, Any] = {"states": 0, "ll_evaluations": 0, "ceilings": 0, "pruned": 0,
                                      "rows": self.ch.rows, "candidates": len(cands)}
        self.best_score = -math.inf
        self.best_set: tuple[int, ...] = ()
        self.listed: list[tuple[tuple[int, ...], float]] = []

    # --------------------------------------------------------------- helpers
    def _check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Stop("time_limit")

    def _eval(self, ids: np.ndarray, m: int, q: float) -> tuple[float, float, int]:
        self.stats["ll_evaluations"] += 1
        return self.ps._evaluate(self.ch, ids, m, q)

    def _ceiling_ll(self, ids: np.ndarray, m: int, k: int) -> float:
        """``LL(X | T ∪ tree[k:])`` for the state with configuration ``ids``."""
        sid, sm = self.suffix[k]
        if sm == 1:
            z, zm = ids, m
        elif m == 1:
            z, zm = sid, sm
        else:
            z, zm = ids * sm + sid, m * sm
            if zm > self.ch.dense_limit:
                z, zm = _compress(z, zm, self.ch.rows)
        self.stats["ll_evaluations"] += 1
        self.stats["ceilings"] += 1
        cnt = self.ps._table(self.ch, z, zm)
        return self.ps._ll(self.ch, cnt, zm)

    def _prunes(self, ub: float) -> bool:
        """True when a subtree whose scores are all ``<= ub`` can be skipped."""
        if self.epsilon is None:
            return ub <= self.best_score
        best = self.best_score
        return best - ub > self.epsilon + RTOL * max(1.0, abs(best))

    def _vars(self, state: Sequence[int]) -> tuple[int, ...]:
        return tuple(sorted(self.tree[p] for p in state))

    def _record(self, state: tuple[int, ...], score: float) -> None:
        """A scored state: update the incumbent and the ε list."""
        vs = self._vars(state)
        if self.trace is not None:
            self.trace("score", vs, score)
        if score > self.best_score or (score == self.best_score and (len(vs), vs) < (len(self.best_set), self.best_set)):
            self.best_score, self.best_set = score, vs
        if self.epsilon is not None and not self._prunes(score):
            self.listed.append((vs, score))
            if self.max_sets is not None and len(self.listed) > self.max_sets:
                # Drop what fell out of range before deciding that the list is too long.
                self._trim()
                if len(self.listed) > self.max_sets:
                    raise _Stop("max_sets")

    def _trim(self) -> None:
        self.listed = [(vs, s) for vs, s in self.listed if not self._prunes(s)]

    def _subtree_bound(self, ceiling: float, q_t: float, p: int, cells_t: int) -> float:
        """Upper bound on every ``S`` with ``T ∪ {tree[p]} ⊆ S ⊆`` the ceiling's set."""
        ps = self.ps
        if ps.score_name == "BDeu":
            cells = max(cells_t, self.cells1[p])
            cap = -cells * math.log(self.ch.r) if self.ch.r > 1 else 0.0
            return min(ceiling, cap)
        return ceiling - ps._penalty(self.ch.r, min(q_t * self.ar[p], _BIG_Q))

    # ------------------------------------------------------------------ main
    def execute(self) -> ParentSearchResult:
        ps, ch = self.ps, self.ch
        m_c = len(self.cands_given)
        ar_given = [int(ps.arities[c]) for c in self.cands_given]
        zeros = np.zeros(ch.rows, dtype=np.int64)
        reason: str | None = None
        # The empty set and every single parent (tree order, K3's first step).
        s0, ll0, cells0 = self._eval(zeros, 1, 1.0)
        singles = []
        for i in range(m_c):
            ids, m = ps._extend(ch, zeros, 1, ch.cols[i], ar_given[i])
            s, ll, cells = self._eval(ids, m, float(ar_given[i]))
            singles.append((s, ll, cells))
        if self.tree_order == "entropy":
            perm = sorted(range(m_c), key=lambda i: (-singles[i][1], self.cands_given[i]))
        else:
            perm = list(range(m_c))
        self.tree = [self.cands_given[i] for i in perm]
        self.ar = [ar_given[i] for i in perm]
        self.cols = [ch.cols[i] for i in perm]
        self.cells1 = [singles[i][2] for i in perm]
        eps0 = 0.0 if self.epsilon is None else self.epsilon
        self.depth = None
        if ps.score_name != "BDeu":
            self.depth = parent_count_bound(-ll0, ch.r, ps.coef, eps0)
        self.stats["depth_bound"] = self.depth
        self.stats["tree_order"] = list(self.tree)
        # Suffix ids: configuration of tree[k:] for every k (the ceilings' second half).
        self.suffix: list[tuple[np.ndarray, int]] = [(zeros, 1)] * (m_c + 1)
        if self.bound != "suzuki":
            ids, m = zeros, 1
            for k in range(m_c - 1, -1, -1):
                ids, m = ps._extend(ch, ids, m, self.cols[k], self.ar[k])
                self.suffix[k] = (ids, m)
        # The ceiling of the whole candidate set (the root's, and the "fixed" bound's).
        if self.bound == "suzuki":
            root_ceiling = 0.0
        else:
            root_ceiling = self._ceiling_ll(zeros, 1, 0) if m_c else ll0
        self.root_ceiling = root_ceiling
        # Incumbent.
        self.best_score, self.best_set = s0, ()
        k3 = s0
        try:
            if self.start == "k3" and m_c:
                k3 = self._k3(singles, perm, ar_given)
            self.stats["k3_score"] = k3
            self._dfs_root(s0, cells0, root_ceiling)
        except _Stop as stop:
            reason = stop.reason
        self.stats.setdefault("k3_score", k3)
        complete = reason is None
        # Did K3 find the optimum?  (None: K3 not run, or the search did not finish.)
        self.stats["k3_optimal"] = (bool(k3 >= self.best_score - RTOL * max(1.0, abs(self.best_score)))
                                    if complete and self.start == "k3" else None)
        self.stats["max_depth"] = self.stats.get("max_depth", 0)
        if complete:
            ub = self.best_score
        else:
            # Any S ⊆ C scores at most the root ceiling minus the least penalty of a non-empty set.
            if ps.score_name == "BDeu":
                cap = -cells0 * math.log(ch.r) if ch.r > 1 else 0.0
                ub = max(self.best_score, min(root_ceiling, cap))
            else:
                least = min(self.ar) if self.ar else 1
                ub = max(self.best_score, root_ceiling - ps._penalty(ch.r, float(least)))
        if self.epsilon is None:
            sets = ((self.best_set, self.best_score),)
        else:
            self._trim()
            if not any(vs == self.best_set for vs, _ in self.listed):
                # Stopped before the search reached the incumbent (K3's set): list it too.
                self.listed.append((self.best_set, self.best_score))
            sets = tuple(sorted(self.listed, key=lambda r: (-r[1], len(r[0]), r[0])))
        return ParentSearchResult(child=self.child, candidates=self.cands_given, parents=self.best_set,
                                  score=self.best_score, sets=sets, epsilon=self.epsilon, complete=complete,
                                  reason=reason, upper_bound=ub, stats=self.stats)

    def _k3(self, singles: list[tuple[float, float, int]], perm: list[int], ar_given: list[int]) -> float:
        """K3 (Bouckaert 1994; Tian's Figure 1): greedy forward selection; returns its score.

        Only the incumbent is taken from it; the depth-first search scores (and
        lists) every set again, so K3's sets within ε are listed like any other.
        """
        ps, ch = self.ps, self.ch
        inv = {i: p for p, i in enumerate(perm)}  # given position -> tree position
        chosen: list[int] = []  # given positions
        ids, m, q = np.zeros(ch.rows, dtype=np.int64), 1, 1.0
        cur = self.best_score
        nonunit = 0
        while len(chosen) < len(ar_given):
            if self.palim is not None and len(chosen) >= self.palim:
                break
            best_i, best_s, best_ids = -1, -math.inf, None
            for i in range(len(ar_given)):
                if i in chosen:
                    continue
                if self.depth is not None and ar_given[i] >= 2 and nonunit + 1 > self.depth:
                    continue
                if not chosen:
                    s = singles[i][0]
                    cand_ids = None
                else:
                    self._check_time()
                    cand_ids = ps._extend(ch, ids, m, ch.cols[i], ar_given[i])
                    s = self._eval(cand_ids[0], cand_ids[1], min(q * ar_given[i], _BIG_Q))[0]
                if s > best_s:
                    best_i, best_s, best_ids = i, s, cand_ids
            if best_i < 0 or not best_s > cur:
                break
            chosen.append(best_i)
            nonunit += ar_given[best_i] >= 2
            if best_ids is None:
                best_ids = ps._extend(ch, ids, m, ch.cols[best_i], ar_given[best_i])
            ids, m = best_ids
            q = min(q * ar_given[best_i], _BIG_Q)
            cur = best_s
            state = tuple(sorted(inv[i] for i in chosen))
            vs = self._vars(state)
            if cur > self.best_score:
                self.best_score, self.best_set = cur, vs
        return cur

    def _dfs_root(self, s0: float, cells0: int, root_ceiling: float) -> None:
        zeros = np.zeros(self.ch.rows, dtype=np.int64)
        self.stats["states"] += 1
        self.stats["max_depth"] = 0
        self._record((), s0)
        self._expand((), zeros, 1, 1.0, 0, -1, cells0, root_ceiling, root_ceiling)

    def _expand(self, state: tuple[int, ...], ids: np.ndarray, m: int, q_t: float, nonunit: int,
                last: int, cells_t: int, inherited: float, own: float | None) -> None:
        """Visit the children of a scored state (``own``: its ceiling when already known)."""
        m_c = len(self.tree)
        first = last + 1
        if first >= m_c:
            return
        if self.palim is not None and len(state) >= self.palim:
            return
        kids = []
        for p in range(first, m_c):
            if self.depth is not None and self.ar[p] >= 2 and nonunit + 1 > self.depth:
                continue
            kids.append(p)
        if not kids:
            return
        trace = self.trace
        if self.bound == "full" and own is None:
            # The parent's ceiling first: if it already rules every child out, do not count our own.
            cset = self._ceiling_set(state, self._parent_first(state)) if trace is not None else ()
            alive = []
            for p in kids:
                b = self._subtree_bound(inherited, q_t, p, cells_t)
                if trace is not None:
                    trace("bound", self._vars((*state, p)), (b, cset))
                if self._prunes(b):
                    self.stats["pruned"] += 1
                else:
                    alive.append(p)
            if not alive:
                return
            kids = alive
            own = self._ceiling_ll(ids, m, first)
        elif own is None:
            own = inherited
        cset = self._ceiling_set(state, first) if trace is not None else ()
        for p in kids:
            b = self._subtree_bound(own, q_t, p, cells_t)
            if trace is not None:
                trace("bound", self._vars((*state, p)), (b, cset))
            if self._prunes(b):
                self.stats["pruned"] += 1
                continue
            self._check_time()
            kid_ids, kid_m = self.ps._extend(self.ch, ids, m, self.cols[p], self.ar[p])
            q = min(q_t * self.ar[p], _BIG_Q)
            s, ll, cells = self._eval(kid_ids, kid_m, q)
            kid = (*state, p)
            self.stats["states"] += 1
            if len(kid) > self.stats["max_depth"]:
                self.stats["max_depth"] = len(kid)
            self._record(kid, s)
            # The kid's own ceiling is its LL when nothing follows it.
            kid_own = ll if p + 1 >= m_c else None
            self._expand(kid, kid_ids, kid_m, q, nonunit + (self.ar[p] >= 2), p, cells, own, kid_own)

    def _parent_first(self, state: tuple[int, ...]) -> int:
        """First tree position of the parent state's ceiling set (for tracing the inherited ceiling)."""
        if not state:
            return 0
        return (state[-2] + 1) if len(state) >= 2 else 0

    def _ceiling_set(self, state: tuple[int, ...], first: int) -> tuple[int, ...]:
        if self.bound == "suzuki":
            return tuple(sorted(self.tree))
        if self.bound == "fixed":
            return tuple(sorted(self.tree))
        return self._vars((*state, *range(first, len(self.tree))))


def best_parent_set(data: Dataset, child: int, candidates: Sequence[int], *, score: str = "BIC",
                    ess: float = 1.0, palim: int | None = None, epsilon: float | None = None,
                    time_limit: float | None = None, **options: Any) -> ParentSearchResult:
    """Best parent set of ``child`` within ``candidates`` from data (Tian's branch and bound).

    A convenience wrapper around :class:`ParentSearch` (build one of those to
    search many children of the same data).  ``options`` are passed to
    :meth:`ParentSearch.search` (``bound``, ``start``, ``tree_order``,
    ``max_sets``, ``deadline``, ``trace``).
    """
    return ParentSearch(data, score, ess=ess).search(child, candidates, epsilon=epsilon, palim=palim,
                                                     time_limit=time_limit, **options)
