"""Parent-count bounds for the k best networks under BIC/AIC (Chen, Darwiche and Choi, IJAR 2018), corrected.

A *k-best parent limit* ``p`` for a child ``X`` says: no network scoring at
least as well as the k-th best network (ties with the k-th included) gives
``X`` more than ``p`` parents of arity >= 2.  Families above the limit can be
dropped from the score table before any k-best search, and the search's
answer (the k best networks and every network tied with the k-th) is
unchanged.  The bounds follow from ``N`` and the arities alone (the local
bound) or also from the best families of a BIC table (the global bound, a
search over variable orders).  Derivations, the corrections to the paper and
the counterexamples are in ``docs/kbest-bounds.md``; the essentials are below.

Convention (the package's): natural logs, higher is better,
``BIC(X, U) = LL(X|U) - c (r_X - 1) q_U`` with ``c = ln N / 2`` (AIC: ``c = 1``)
and ``q_U`` the product of the parents' declared arities.

**Subset lemma** (Chen et al. Theorem 5 and Lemma 1, in nats, with the count
made exact).  Let ``U`` have ``m`` parents of arity >= 2 and let ``U' ⊂ U``
keep ``j < m`` of them.  Then ``q_U - q_U' >= 2^m - 2^j`` (every dropped
parent has arity >= 2; parents of arity 1 change nothing and are not counted,
which Lemma 1 silently needs), and since ``LL(X|U) <= 0`` and
``LL(X|U') >= LL(X|∅) >= -N ln r_X``::

    BIC(X, U') - BIC(X, U) >= c (r_X - 1) (2^m - 2^j) - N ln r_X.

So ``U'`` is *strictly* better as soon as ``c (r_X - 1)(2^m - 2^j) > N ln r_X``;
this holds for all ``j < m`` once ``2^m > 2 N ln r_X / (c (r_X - 1))``, which
for a binary child and BIC is ``2^m > 4N / log2 N``: Corollary 1's
``d = floor(log2(4N / log2 N))``.

**Global lemma** (Theorem 6).  In a DAG ``G`` with family ``X U`` and a set
``Y`` of other nodes with families ``y V_y``, replacing ``U`` by such a ``U'``
and each ``V_y`` by any subset gives a sub-DAG (acyclic) that is strictly better
than ``G`` when ``c (r_X - 1)(2^m - 2^j) > N (ln r_X + sum_{y in Y} ln r_y)``:
each changed log-likelihood loses at most ``N ln r``, each dropped penalty is
a gain.  There are ``count(m; Y) * prod_y 2^|V_y|`` such sub-DAGs, where
``count(m; Y) = sum_{j < m, the inequality holds} C(m, j)``.

**From counts to limits.**  If every DAG that gives ``X`` a family ``U`` with
``m`` non-unit parents has ``k`` strictly better DAGs, none of them scores
``>=`` the k-th best score.  With ``Y = ∅`` (the local bound, Chen's
Corollary 1 with its extension ``d' = max(d, ceil(log2(k+1)) - 1)``) the count
is ``count(m; ∅)``; for a fixed variable order ``π`` (Algorithm 1) take ``G*``
= the best DAG consistent with ``π`` containing ``X U`` (every other node takes
its best family among its predecessors, BestScore), which is at least as good
as every DAG consistent with ``π`` containing ``X U``, and let ``Y`` be any
*suffix* of ``π`` (without ``X``), ``s = prod_y 2^|U*_y|``.  The limit for
``π`` is ``min over suffixes of b(Y, s)``, ``b(Y, s) = min{m : count(m; Y) s >= k} - 1``.
Every DAG is consistent with some order, so the maximum over all orders is a
limit (Algorithm 2).

**Forms.**  ``form="paper"`` uses Chen et al.'s corrected Corollary 2:
``count = 2^m - 1`` once ``2^m > (2 N ln 2 / c) α (|Y| + 1)`` with
``α = max(1, max_y log2 r_y / (r_X - 1))`` (bold **X** read as the child's
arity; floor, not ceiling).  ``form="tight"`` (the default) uses the
inequality above with the exact entropy caps ``ln r`` and the exact subset
count; it is never looser (``ln r <= (r - 1) ln 2`` and ``log2 r_y <= α (r_X - 1)``).

**Corrected Algorithm 2.**  As printed it returns ``d(Y_max)`` over *expanded*
states, never tests the root, and returns a value when an order runs out of
variables without terminating; :meth:`ParentBounds.chen_algorithm2`
implements the corrected version (root first, the maximum of ``d(Y')`` over
*terminating* children, ``None`` when a state with ``Z = ∅`` is reached) with
states merged by remaining set ``Z`` keeping the least ``s`` (the condition is
monotone in ``s``, and the least-``s`` prefix is a real order, so merging
loses nothing).  :meth:`ParentBounds.global_limit` answers the sharper
question "max over orders of min over suffixes" by a threshold search: for a
candidate ``t``, a layered search over ``Z`` looks for an order along which
no suffix certifies ``t``; the first ``t`` with none is the limit.

**Ties.**  Every inequality above is strict, with a margin: a condition
``lhs > N H`` is accepted only when ``lhs > N H (1 + BOUND_RTOL) + BOUND_RTOL``,
so the ``k`` sub-DAGs beat every network they are compared with by far more
than rounding or the package's 1e-9 same-score tolerance.  Hence no network
*tied* with the k-th best is ever cut.  BestScore ties (several best
families inside a candidate set) are broken towards the *largest* parent
set: any best family makes ``G*`` a best DAG for the order, and the largest
gives the most sub-DAGs.

**What holds for which score.**  The argument needs ``score = LL - c K`` with
``c > 0`` and ``LL`` the maximised log-likelihood: BIC (``c = ln N / 2``;
nothing for ``N = 1``) and AIC (``c = 1``).  It says nothing for BDeu (no
``H_max``-versus-penalty trade-off), which raises :class:`ScoreError`.  A
child of arity 1 scores 0 with every parent set, so it gets no limit
(``None``).  The global bound reads best families from a BIC/AIC table that
holds, for every candidate set, the best parent sets inside it: any table
made by :func:`gobnilp_py.score` (any ε >= 0, any ``palim``) does, and the
limits are then valid for the k best networks over every parent set (within
``palim``).  Structural constraints that forbid sub-DAGs (a required arrow)
void the argument for the nodes they involve.

References
----------
E. Y.-J. Chen, A. Darwiche and A. Choi, "On pruning with the MDL score",
International Journal of Approximate Reasoning 92 (2018) 363-375.
J. Tian, "A branch-and-bound algorithm for MDL learning Bayesian networks", UAI 2000.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError, ScoreError
from .table import ScoreTable

__all__ = [
    "BOUND_RTOL",
    "DEFAULT_MAX_STATES",
    "FORMS",
    "ParentLimit",
    "ParentBounds",
    "kbest_parent_limit",
    "kbest_parent_bounds",
    "local_limit",
    "penalty_coefficient",
    "limit_table",
    "count_limited_families",
    "table1_row",
    "table1",
    "format_table1",
]

_log = logging.getLogger(__name__)

#: Relative safety margin on every "strictly better" condition (see the module docstring).
BOUND_RTOL = 1e-6

#: Default cap on the number of states one layered search may generate; beyond it the
#: search gives up for that threshold (conservatively: the limit can only grow).
DEFAULT_MAX_STATES = 2_000_000

#: The two forms of the bounds: Chen et al.'s corrected closed forms, or the exact inequality.
FORMS = ("tight", "paper")

_MAX_M = 62  # parent counts considered; int64 masks and counts stay exact below 2^63
_LN2 = math.log(2.0)


# ---------------------------------------------------------------------- checks
def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ConfigError(f"k must be a positive integer, got {k!r}")
    if k >= 1 << 61:
        raise ConfigError(f"k must be below 2^61, got {k!r}")
    return int(k)


def _check_form(form: Any) -> str:
    if form not in FORMS:
        raise ConfigError(f"form must be one of {', '.join(repr(f) for f in FORMS)}, got {form!r}")
    return str(form)


def penalty_coefficient(score_name: str | None, N: int) -> float:
    """Penalty per free parameter ``c`` of a score the bounds hold for (BIC ``ln N / 2``, AIC 1).

    Raises :class:`ScoreError` for any other score: the bounds trade the
    entropy cap ``N ln r`` against a penalty ``c (r - 1) q``, which BDeu and
    user scores do not have.
    """
    name = (score_name or "").upper()
    if name == "BIC":
        return 0.5 * math.log(N) if N > 0 else 0.0
    if name == "AIC":
        return 1.0
    if name == "BDEU":
        raise ScoreError("k-best parent limits hold for BIC and AIC only: BDeu has no such bound "
                         "(use the certified gap of gobnilp_py.search.witnesses instead)")
    raise ScoreError(f"k-best parent limits hold for BIC and AIC only, not for score {score_name!r}")


# ------------------------------------------------------- the counting lemma
@dataclass(frozen=True)
class _Child:
    """Constants of one child: penalty per unit of ``q`` and the entropy caps.

    ``count(m, H, xp)`` is the number of proper subsets of any family with
    ``m`` non-unit parents that are certified strictly better than it (times
    the sub-DAG count of ``Y``, done by the caller) when the entropy cap of
    ``X`` and ``Y`` together is ``N * H`` nats; ``xp`` is the paper form's
    ``(2 N ln 2 / c) α (|Y| + 1)``.
    """

    N: int
    coef: float
    r: int
    form: str

    @property
    def A(self) -> float:
        return self.coef * (self.r - 1)

    def margin_B(self, H: np.ndarray | float) -> np.ndarray:
        nh = self.N * np.asarray(H, dtype=np.float64)
        return nh * (1.0 + BOUND_RTOL) + BOUND_RTOL

    def count(self, m: int, H: np.ndarray | float, xp: np.ndarray | float | None = None) -> np.ndarray:
        B = self.margin_B(H)
        A = self.A
        two_m = float(2 ** m)
        if self.form == "tight":
            cnt = np.zeros(B.shape, dtype=np.int64)
            for j in range(m):
                cnt += math.comb(m, j) * (A * (two_m - float(2 ** j)) > B)
            return cnt
        assert xp is not None
        ok = (two_m > np.asarray(xp, dtype=np.float64)) & (A * float(2 ** (m - 1)) > B)
        return np.where(ok, (1 << m) - 1, 0).astype(np.int64)

    def xp(self, ysize: np.ndarray | int, maxlog2: np.ndarray | float) -> np.ndarray:
        """Chen et al.'s ``(2N/c') α (|Y|+1)`` in our units: ``(2 N ln 2 / c) α (|Y| + 1)``."""
        alpha = np.maximum(1.0, np.asarray(maxlog2, dtype=np.float64) / (self.r - 1))
        return (2.0 * self.N * _LN2 / self.coef) * alpha * (np.asarray(ysize, dtype=np.float64) + 1.0)

    def d(self, H: np.ndarray, xp: np.ndarray | None = None) -> np.ndarray:
        """``d(Y)``: one less than the least ``m`` with a positive count (vectorised over ``H``)."""
        H = np.atleast_1d(np.asarray(H, dtype=np.float64))
        out = np.full(H.shape, _MAX_M, dtype=np.int64)
        todo = np.ones(H.shape, dtype=bool)
        for m in range(1, _MAX_M + 1):
            hit = todo & (self.count(m, H, xp) > 0)
            out[hit] = m - 1
            todo &= ~hit
            if not todo.any():
                break
        return out

    def count1(self, m: int, H: float, xp: float | None = None) -> int:
        """Scalar :meth:`count` (same arithmetic, plain floats)."""
        B = self.N * float(H) * (1.0 + BOUND_RTOL) + BOUND_RTOL
        A = self.A
        two_m = float(2 ** m)
        if self.form == "tight":
            return sum(math.comb(m, j) for j in range(m) if A * (two_m - float(2 ** j)) > B)
        assert xp is not None
        return (1 << m) - 1 if (two_m > xp and A * float(2 ** (m - 1)) > B) else 0

    def b(self, H: float, xp: float | None, s_exp: int, k: int) -> int:
        """``b(Y, s) = min{m : count(m; Y) * 2^s_exp >= k} - 1`` (capped at ``_MAX_M``)."""
        need = _need(k, s_exp)
        for m in range(1, _MAX_M + 1):
            if self.count1(m, H, xp) >= need:
                return m - 1
        return _MAX_M

    def d1(self, H: float, xp: float | None) -> int:
        """Scalar :meth:`d`."""
        for m in range(1, _MAX_M + 1):
            if self.count1(m, H, xp) > 0:
                return m - 1
        return _MAX_M


def _need(k: int, s_exp: int | np.ndarray) -> Any:
    """``ceil(k / 2^s_exp)``: the count a family needs when ``Y`` already gives ``2^s_exp`` sub-DAGs."""
    if isinstance(s_exp, np.ndarray):
        e = np.minimum(s_exp, 62).astype(np.int64)
        return (np.int64(k) + (np.int64(1) << e) - 1) >> e
    e = min(int(s_exp), 62)
    return (k + (1 << e) - 1) >> e


def local_limit(N: int, child_arity: int, k: int, *, coef: float | None = None, form: str = "tight") -> int | None:
    """The local k-best limit (Chen et al.'s Corollary 1 and its extension), from ``N`` and ``r_X`` alone.

    Parameters
    ----------
    N : int
        Number of data rows.
    child_arity : int
        Declared arity ``r_X`` of the child.
    k : int
        Number of best networks (>= 1).
    coef : float, optional
        Penalty per free parameter (default BIC's ``ln N / 2``; AIC: 1).
    form : {"tight", "paper"}
        ``"paper"``: ``max(d, ceil(log2(k + 1)) - 1)`` with
        ``d = floor(log2(2 N ln 2 / c))`` (BIC: ``floor(log2(4N / log2 N))``);
        ``"tight"``: the least ``m - 1`` with at least ``k`` certified
        better subsets (never larger).

    Returns
    -------
    int or None
        Most parents of arity >= 2 the child has in any network scoring at
        least the k-th best; ``None`` when there is no bound (child of arity
        1, or no penalty: BIC with ``N = 1``).
    """
    k = _check_k(k)
    form = _check_form(form)
    c = 0.5 * math.log(N) if coef is None else float(coef)
    if child_arity <= 1 or not c > 0 or N < 1:
        return None
    ch = _Child(int(N), c, int(child_arity), form)
    H = math.log(child_arity)
    xp = float(ch.xp(0, 0.0)) if form == "paper" else None
    return ch.b(H, xp, 0, k)


# ------------------------------------------------------------ best families
class _BestFamilies:
    """BestScore(z, Z'): the size of a best family of ``z`` with parents inside ``Z'``, from a table.

    Families are read in the table's stored order (best score first; equal
    scores are contiguous), so the best family inside ``Z'`` is the first one
    fitting; among equal scores the *largest* fitting set is reported (see the
    module docstring on ties).  Queries are vectorised over many candidate sets
    given as bitmasks of the variables to *avoid* (``V - Z'``).  A node with no
    family inside ``Z'`` reports 0 (no DAG exists for those orders; 0 only
    weakens the bound).
    """

    BLOCK = 64

    def __init__(self, table: ScoreTable) -> None:
        self.n = table.n
        if self.n > 62:
            raise ScoreError(f"the global k-best bound handles up to 62 variables, got {self.n}")
        self.masks: list[np.ndarray] = []
        self.sizes: list[np.ndarray] = []
        self.run_end: list[np.ndarray] = []
        for fams in table.families:
            masks = np.fromiter((sum(1 << p for p in ps) for ps, _ in fams), dtype=np.int64, count=len(fams))
            sizes = np.fromiter((len(ps) for ps, _ in fams), dtype=np.int64, count=len(fams))
            scores = np.fromiter((sc for _, sc in fams), dtype=np.float64, count=len(fams))
            # run_end[i]: one past the last family with the same score as family i
            new_run = np.ones(len(fams), dtype=bool)
            new_run[1:] = scores[1:] != scores[:-1]
            starts = np.flatnonzero(new_run)
            ends = np.append(starts[1:], len(fams))
            run_id = np.cumsum(new_run) - 1
            self.masks.append(masks)
            self.sizes.append(sizes)
            self.run_end.append(ends[run_id])
        self._cache: dict[tuple[int, int], int] = {}

    def size(self, z: int, avoid: np.ndarray) -> np.ndarray:
        """Largest size of a best family of ``z`` avoiding each mask of ``avoid``."""
        avoid = np.asarray(avoid, dtype=np.int64)
        masks, sizes, run_end = self.masks[z], self.sizes[z], self.run_end[z]
        F = masks.shape[0]
        first = np.full(avoid.shape[0], -1, dtype=np.int64)
        todo = np.arange(avoid.shape[0])
        for lo in range(0, F, self.BLOCK):
            if todo.size == 0:
                break
            hi = min(F, lo + self.BLOCK)
            fits = (avoid[todo, None] & masks[None, lo:hi]) == 0
            anyfit = fits.any(axis=1)
            first[todo[anyfit]] = lo + np.argmax(fits[anyfit], axis=1)
            todo = todo[~anyfit]
        out = np.zeros(avoid.shape[0], dtype=np.int64)
        found = first >= 0
        out[found] = sizes[first[found]]
        # ties: a longer set later in the same run of equal scores may also fit
        tied = np.flatnonzero(found & (run_end[np.maximum(first, 0)] - first > 1))
        for i in tied:
            f = int(first[i])
            seg = slice(f, int(run_end[f]))
            ok = (masks[seg] & avoid[i]) == 0
            out[i] = int(sizes[seg][ok].max())
        return out

    def size1(self, z: int, avoid: int) -> int:
        """Scalar :meth:`size`, cached (for the per-order algorithms)."""
        key = (z, int(avoid))
        got = self._cache.get(key)
        if got is None:
            got = int(self.size(z, np.array([avoid], dtype=np.int64))[0])
            self._cache[key] = got
        return got


# ------------------------------------------------------------------ results
@dataclass(frozen=True)
class ParentLimit:
    """The k-best parent limit of one child, with how it was obtained.

    Attributes
    ----------
    child : str
    limit : int or None
        Certified: no network scoring at least the k-th best (ties included)
        gives ``child`` more than ``limit`` parents of arity >= 2.  ``None``:
        no bound.
    local : int or None
        The local (Corollary 1) limit.
    global_ : int or None
        The global (order search) limit, ``None`` when not run or no bound.
    method, form : str
    states : int
        States generated by the order searches (0 for the local bound).
    truncated : bool
        True when ``depth`` or ``max_states`` cut a search short: ``limit`` is
        still certified, but a longer search might have found a smaller one.
    """

    child: str
    limit: int | None
    local: int | None
    global_: int | None = None
    method: str = "local"
    form: str = "tight"
    states: int = 0
    truncated: bool = False


# --------------------------------------------------------------- the engine
class ParentBounds:
    """Local and global k-best parent limits for the children of one BIC/AIC problem.

    Parameters
    ----------
    N : int
        Number of data rows.
    arities : sequence of int
        Declared arity of every variable (column order).
    names : sequence of str
    coef : float
        Penalty per free parameter (BIC ``ln N / 2``, AIC 1).
    table : ScoreTable, optional
        Needed for the global bounds (BestScore lookups); see the module
        docstring for which tables are valid.
    """

    def __init__(self, N: int, arities: Sequence[int], names: Sequence[str], coef: float,
                 table: ScoreTable | None = None) -> None:
        self.N = int(N)
        self.arities = np.asarray([int(a) for a in arities], dtype=np.int64)
        self.names = tuple(str(x) for x in names)
        self.n = len(self.names)
        if self.arities.shape[0] != self.n:
            raise ScoreError(f"{self.arities.shape[0]} arities for {self.n} variables")
        self.coef = float(coef)
        self.lnr = np.log(np.maximum(self.arities, 1).astype(np.float64))
        self.log2r = self.lnr / _LN2
        self._best = _BestFamilies(table) if table is not None else None
        self._b_cache: dict[tuple[str, int, int, int, int], int] = {}
        self._d_cache: dict[tuple[str, int, int], int] = {}
        if table is not None and table.n != self.n:
            raise ScoreError(f"table has {table.n} variables, expected {self.n}")

    # -- construction
    @classmethod
    def from_table(cls, table: ScoreTable) -> "ParentBounds":
        """From a BIC/AIC table that records ``N`` and the arities in ``meta`` (as :func:`score` does)."""
        N, arities = _table_n_arities(table)
        return cls(N, arities, table.names, penalty_coefficient(table.score_name, N), table)

    def _child(self, x: int, form: str) -> _Child | None:
        r = int(self.arities[x])
        if r <= 1 or not self.coef > 0 or self.N < 1:
            return None
        return _Child(self.N, self.coef, r, form)

    def _y_stats(self, x: int, ymask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Entropy-cap sum ``ln r_X + sum ln r_y``, |Y| and max log2 r_y for Y-masks (Y excludes x)."""
        ymask = np.asarray(ymask, dtype=np.int64)
        H = np.full(ymask.shape, float(self.lnr[x]))
        size = np.zeros(ymask.shape, dtype=np.int64)
        mx = np.zeros(ymask.shape)
        for v in range(self.n):
            if v == x:
                continue
            bit = ((ymask >> v) & 1).astype(bool)
            H = H + np.where(bit, self.lnr[v], 0.0)
            size += bit
            mx = np.where(bit, np.maximum(mx, self.log2r[v]), mx)
        return H, size, mx

    def _y_stats1(self, x: int, ymask: int) -> tuple[float, int, float]:
        """Scalar :meth:`_y_stats` (the same sum, in the same order)."""
        H = float(self.lnr[x])
        size, mx = 0, 0.0
        for v in range(self.n):
            if v != x and (ymask >> v) & 1:
                H = H + float(self.lnr[v])
                size += 1
                mx = max(mx, float(self.log2r[v]))
        return H, size, mx

    def _xp1(self, ch: _Child, size: int, mx: float) -> float | None:
        return float(ch.xp(size, mx)) if ch.form == "paper" else None

    def _counts(self, ch: _Child, x: int, ymask: np.ndarray, m: int) -> np.ndarray:
        H, size, mx = self._y_stats(x, ymask)
        xp = ch.xp(size, mx) if ch.form == "paper" else None
        return ch.count(m, H, xp)

    def _d(self, ch: _Child, x: int, ymask: np.ndarray) -> np.ndarray:
        H, size, mx = self._y_stats(x, ymask)
        xp = ch.xp(size, mx) if ch.form == "paper" else None
        return ch.d(H, xp)

    def _b1(self, ch: _Child, x: int, ymask: int, s_exp: int, k: int) -> int:
        key = (ch.form, x, ymask, min(s_exp, k.bit_length()), k)
        got = self._b_cache.get(key)
        if got is None:
            H, size, mx = self._y_stats1(x, ymask)
            got = self._b_cache[key] = ch.b(H, self._xp1(ch, size, mx), s_exp, k)
        return got

    def _d1(self, ch: _Child, x: int, ymask: int) -> int:
        key = (ch.form, x, ymask)
        got = self._d_cache.get(key)
        if got is None:
            H, size, mx = self._y_stats1(x, ymask)
            got = self._d_cache[key] = ch.d1(H, self._xp1(ch, size, mx))
        return got

    def _need_best(self) -> _BestFamilies:
        if self._best is None:
            raise ScoreError("the global k-best bound needs a score table (BestScore lookups); "
                             "pass the data or a table made by gobnilp_py.score")
        return self._best

    def _index(self, child: int | str) -> int:
        if isinstance(child, (int, np.integer)) and not isinstance(child, bool):
            if not 0 <= int(child) < self.n:
                raise ScoreError(f"no variable with index {child}")
            return int(child)
        try:
            return self.names.index(str(child))
        except ValueError:
            raise ScoreError(f"unknown variable {child!r}; known: {', '.join(self.names)}") from None

    # -- local
    def local(self, child: int | str, k: int, form: str = "tight") -> int | None:
        """Local limit of ``child`` (Corollary 1 and its extension); ``None`` for no bound."""
        x = self._index(child)
        k = _check_k(k)
        ch = self._child(x, _check_form(form))
        if ch is None:
            return None
        return self._b1(ch, x, 0, 0, k)

    # -- per order
    def chen_algorithm1(self, child: int | str, order: Sequence[int], k: int) -> int | None:
        """Chen et al.'s Algorithm 1 for one variable order, corrected (paper form).

        ``order`` lists variable indices first to last.  Tests Corollary 1 at
        ``Y = ∅`` first, then adds variables from the end of the order to
        ``Y`` (``s *= 2^|U*|``, ``U*`` a best family among the predecessors,
        the largest among ties) and returns ``d(Y)`` at the first ``Y`` with
        ``k <= s (2^(d(Y)+1) - 1)``; ``None`` when no suffix qualifies.
        """
        x, k, order = self._index(child), _check_k(k), self._check_order(order)
        ch = self._child(x, "paper")
        if ch is None:
            return None
        best = self._need_best()
        ymask, s_exp, placed = 0, 0, 0
        for i in range(self.n, -1, -1):
            if i < self.n:
                z = order[i]
                placed |= 1 << z
                if z != x:
                    ymask |= 1 << z
                    s_exp += best.size1(z, placed)
            d = self._d1(ch, x, ymask)
            if int(_need(k, s_exp)) <= (1 << min(d + 1, 62)) - 1:
                return d
        return None

    def order_limit(self, child: int | str, order: Sequence[int], k: int, form: str = "tight") -> int | None:
        """The limit one order certifies: min over suffixes ``Y`` (``∅`` included) of ``b(Y, s)``."""
        x, k, order = self._index(child), _check_k(k), self._check_order(order)
        ch = self._child(x, _check_form(form))
        if ch is None:
            return None
        best = self._need_best()
        ymask, s_exp, placed = 0, 0, 0
        out = self._b1(ch, x, 0, 0, k)
        for i in range(self.n - 1, -1, -1):
            z = order[i]
            placed |= 1 << z
            if z != x:
                ymask |= 1 << z
                s_exp += best.size1(z, placed)
            out = min(out, self._b1(ch, x, ymask, s_exp, k))
            if self._d1(ch, x, ymask) >= out:  # d only grows along the order: no later suffix does better
                break
        return out

    def _check_order(self, order: Sequence[int]) -> list[int]:
        o = [int(v) for v in order]
        if sorted(o) != list(range(self.n)):
            raise ScoreError(f"order must list each of the {self.n} variable indices once, got {order!r}")
        return o

    # -- over all orders
    def _expand(self, x: int, P: np.ndarray, E: np.ndarray, k: int) -> Iterable[tuple[int, np.ndarray, np.ndarray]]:
        """Children of a layer of states (placed set ``P``, exponent ``E``): one batch per added variable."""
        best = self._need_best()
        cap = k.bit_length()
        for z in range(self.n):
            sel = ((P >> z) & 1) == 0
            if not sel.any():
                continue
            P2 = P[sel] | (1 << z)
            if z == x:
                E2 = E[sel]
            else:
                E2 = np.minimum(E[sel] + best.size(z, P2), cap)
            yield z, P2, E2

    @staticmethod
    def _merge(P: np.ndarray, E: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Merge states with the same placed set, keeping the least exponent."""
        if P.size == 0:
            return P, E
        order = np.lexsort((E, P))
        P, E = P[order], E[order]
        keep = np.ones(P.size, dtype=bool)
        keep[1:] = P[1:] != P[:-1]
        return P[keep], E[keep]

    def chen_algorithm2(self, child: int | str, k: int, *, max_states: int | None = DEFAULT_MAX_STATES) -> int | None:
        """Chen et al.'s Algorithm 2, corrected (paper form): the maximum of Algorithm 1 over all orders.

        Tests Corollary 1 at the root; otherwise searches the suffixes layer
        by layer (states merged by remaining set, least ``s`` kept), records
        ``d(Y')`` of every *terminating* child, and returns their maximum, or
        ``None`` when some order uses up all variables without terminating
        (or the search would generate more than ``max_states`` states).
        """
        x, k = self._index(child), _check_k(k)
        ch = self._child(x, "paper")
        if ch is None:
            return None
        full = (1 << self.n) - 1
        xbit = 1 << x
        d0 = self._d1(ch, x, 0)
        if k <= (1 << min(d0 + 1, 62)) - 1:
            return d0
        P = np.array([0], dtype=np.int64)
        E = np.array([0], dtype=np.int64)
        worst = -1
        held = 1
        while P.size:
            nxt_P, nxt_E = [], []
            for _z, P2, E2 in self._expand(x, P, E, k):
                held += P2.size
                if max_states is not None and held > max_states:
                    return None
                d = self._d(ch, x, P2 & ~xbit)
                stop = _need(k, E2) <= (np.int64(1) << np.minimum(d + 1, 62)) - 1
                if stop.any():
                    worst = max(worst, int(d[stop].max()))
                go = ~stop
                if (P2[go] == full).any():
                    return None
                nxt_P.append(P2[go])
                nxt_E.append(E2[go])
            P, E = self._merge(np.concatenate(nxt_P), np.concatenate(nxt_E))
        return worst

    def _step(self, ch: _Child, x: int, k: int, m: int, P: np.ndarray, E: np.ndarray,
              budget: int | None = None) -> tuple[str, np.ndarray, np.ndarray, int]:
        """One layer of the threshold search: (status, next states, next exponents, states generated).

        Status ``"fail"``: some order fails, i.e. a suffix has ``count(m; Y) = 0``
        (``d(Y) >= m``: no longer suffix certifies ``m - 1`` either) or an order
        places every variable without a suffix with ``count(m; Y) s >= k``.
        ``"cut"``: more than ``budget`` states were generated.  Else ``"ok"``.
        """
        xbit = 1 << x
        full = (1 << self.n) - 1
        nxt_P, nxt_E = [], []
        generated = 0
        for _z, P2, E2 in self._expand(x, P, E, k):
            generated += P2.size
            if budget is not None and generated > budget:
                return "cut", P2[:0], E2[:0], generated
            cnt = self._counts(ch, x, P2 & ~xbit, m)
            if (cnt == 0).any():
                return "fail", P2[:0], E2[:0], generated
            go = cnt < _need(k, E2)
            if (P2[go] == full).any():
                return "fail", P2[:0], E2[:0], generated
            nxt_P.append(P2[go])
            nxt_E.append(E2[go])
        if not nxt_P:
            return "ok", P[:0], E[:0], generated
        P2, E2 = self._merge(np.concatenate(nxt_P), np.concatenate(nxt_E))
        return "ok", P2, E2, generated

    def _probe(self, ch: _Child, x: int, k: int, m: int, beam: int = 32) -> bool:
        """Look for a failing order cheaply: a beam of the states with the fewest sub-DAGs so far.

        A failure found here is a real order, so the threshold is not
        certified; finding none proves nothing (the full search follows).
        """
        P = np.array([0], dtype=np.int64)
        E = np.array([0], dtype=np.int64)
        while P.size:
            status, P, E, _ = self._step(ch, x, k, m, P, E)
            if status == "fail":
                return True
            if P.size > beam:
                keep = np.lexsort((P, E))[:beam]
                P, E = P[keep], E[keep]
        return False

    def _certifies(self, ch: _Child, x: int, k: int, t: int, depth: int | None,
                   max_states: int | None) -> tuple[bool, int, bool]:
        """Does every order have a suffix ``Y`` with ``count(t+1; Y) s >= k``?  (ok, states, truncated)."""
        m = t + 1
        root = int(self._counts(ch, x, np.array([0]), m)[0])
        if root == 0:
            return False, 0, False
        if root >= k:
            return True, 1, False
        if self._probe(ch, x, k, m):
            return False, 1, False
        P = np.array([0], dtype=np.int64)
        E = np.array([0], dtype=np.int64)
        held, layer = 1, 0
        while P.size:
            layer += 1
            if depth is not None and layer > depth:
                return False, held, True
            status, P, E, generated = self._step(ch, x, k, m, P, E,
                                                 None if max_states is None else max_states - held)
            held += generated
            if status == "fail":
                return False, held, False
            if status == "cut":
                return False, held, True
        return True, held, False

    def global_limit(self, child: int | str, k: int, form: str = "tight", *, depth: int | None = None,
                     max_states: int | None = DEFAULT_MAX_STATES) -> ParentLimit:
        """The global limit: max over all orders of :meth:`order_limit`, by threshold search.

        For ``t`` from ``d(∅)`` upwards, a layered search over remaining sets
        looks for an order none of whose suffixes certifies ``t``; the first
        ``t`` without one is returned, never above the local limit (``t`` =
        local is certified at the root).  ``depth`` caps the number of
        variables placed from the end of an order, ``max_states`` the states
        generated by one threshold's search; a search cut short counts as "not certified" (so the limit can
        only grow) and sets ``truncated``.
        """
        x, k, form = self._index(child), _check_k(k), _check_form(form)
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
            raise ConfigError(f"depth must be an integer >= 0 or None, got {depth!r}")
        ch = self._child(x, form)
        name = self.names[x]
        if ch is None:
            return ParentLimit(name, None, None, None, "global", form)
        self._need_best()
        loc = self._b1(ch, x, 0, 0, k)
        d0 = self._d1(ch, x, 0)
        states, truncated = 0, False
        for t in range(d0, loc):
            ok, held, cut = self._certifies(ch, x, k, t, depth, max_states)
            states += held
            truncated |= cut
            if ok:
                return ParentLimit(name, t, loc, t, "global", form, states, truncated)
        return ParentLimit(name, loc, loc, loc, "global", form, states, truncated)


# ----------------------------------------------------------- entry points
def _table_n_arities(table: ScoreTable) -> tuple[int, list[int]]:
    meta = table.meta or {}
    N = meta.get("N")
    ar = meta.get("arities")
    if N is None or ar is None:
        raise ScoreError("the table does not record N and the arities (a .jkl file does not): "
                         "pass the data, or a table made by gobnilp_py.score")
    if isinstance(ar, Mapping):
        try:
            arities = [int(ar[nm]) for nm in table.names]
        except KeyError as exc:
            raise ScoreError(f"the table's arities do not name variable {exc.args[0]!r}") from None
    else:
        arities = [int(a) for a in ar]  # type: ignore[union-attr]
    if len(arities) != table.n:
        raise ScoreError(f"the table records {len(arities)} arities for {table.n} variables")
    return int(N), arities


def _bounds_for(data_or_table: Any, method: str, score: str, palim: int | None) -> ParentBounds:
    if isinstance(data_or_table, ScoreTable):
        return ParentBounds.from_table(data_or_table)
    from ..data import Dataset, read_data

    ds = data_or_table if isinstance(data_or_table, Dataset) else read_data(data_or_table)
    if not isinstance(score, str):
        raise ScoreError(f"score must be a name ('BIC' or 'AIC') for k-best parent limits, got {score!r}")
    coef = penalty_coefficient(score, ds.N)
    table = None
    if method == "global":
        from .engine import score as score_table

        table = score_table(ds, score=score, palim=palim)
    return ParentBounds(ds.N, [int(a) for a in ds.arities], ds.names, coef, table)


def kbest_parent_bounds(data_or_table: Any, k: int, *, method: str = "local", depth: int | None = None,
                        form: str = "tight", score: str = "BIC", palim: int | None = None,
                        max_states: int | None = DEFAULT_MAX_STATES) -> dict[str, ParentLimit]:
    """Per-child k-best parent limits with their provenance (see :func:`kbest_parent_limit`)."""
    k = _check_k(k)
    form = _check_form(form)
    if method not in ("local", "global"):
        raise ConfigError(f"method must be 'local' or 'global', got {method!r}")
    pb = _bounds_for(data_or_table, method, score, palim)
    out: dict[str, ParentLimit] = {}
    for x, name in enumerate(pb.names):
        if method == "local":
            loc = pb.local(x, k, form)
            out[name] = ParentLimit(name, loc, loc, None, "local", form)
        else:
            out[name] = pb.global_limit(x, k, form, depth=depth, max_states=max_states)
    _log.info("k-best parent limits (k=%d, %s, %s): %s", k, method, form,
              {nm: pl.limit for nm, pl in out.items()})
    return out


def kbest_parent_limit(data_or_table: Any, k: int, *, method: str = "local", depth: int | None = None,
                       form: str = "tight", score: str = "BIC", palim: int | None = None,
                       max_states: int | None = DEFAULT_MAX_STATES) -> dict[str, int | None]:
    """Most parents of arity >= 2 each child has in any of the k best networks (BIC/AIC), certified.

    Every network scoring at least as well as the k-th best network, every
    network tied with the k-th included, respects the returned limits, so a
    table cut to them (:func:`limit_table`) gives every k-best method the same
    answer.

    Parameters
    ----------
    data_or_table : Dataset, anything :func:`gobnilp_py.read_data` accepts, or ScoreTable
        Data (the local bound needs only ``N`` and the arities; the global one
        scores a BIC/AIC table at ε = 0), or a BIC/AIC table made by
        :func:`gobnilp_py.score` (any ε, any ``palim``).
    k : int
        Number of best networks (>= 1).
    method : {"local", "global"}
        ``"local"``: Chen et al.'s Corollary 1 with its extension for large
        ``k``, from ``N`` and the child's arity.  ``"global"``: the maximum
        over all variable orders of the best suffix bound (corrected
        Corollary 2 / Algorithm 2), never above the local limit.
    depth : int, optional
        Global only: variables placed from the end of an order before the
        search gives up on a threshold (``None``: no cap).
    form : {"tight", "paper"}
        The exact inequality (default) or Chen et al.'s corrected closed forms.
    score : {"BIC", "AIC"}
        For data input.  BDeu (or any other score) raises :class:`ScoreError`:
        no such bound holds for it.
    palim : int, optional
        For data input with ``method="global"``: the parent limit of the problem.
    max_states : int, optional
        Global only: cap on the states of one layered search.

    Returns
    -------
    dict of str to int or None
        Per variable name, the most parents of arity >= 2 (parents of arity 1
        are not limited); ``None`` for no bound (a child of arity 1, or BIC
        with N = 1).  A value >= the number of other variables prunes nothing.

    Raises
    ------
    ScoreError
        A score other than BIC/AIC, or a table that does not record ``N`` and
        the arities.
    ConfigError
        ``k``, ``method``, ``form`` or ``depth`` out of range.
    """
    pls = kbest_parent_bounds(data_or_table, k, method=method, depth=depth, form=form, score=score,
                              palim=palim, max_states=max_states)
    return {nm: pl.limit for nm, pl in pls.items()}


# ------------------------------------------------------------------ tables
def _nonunit_count(ps: tuple[int, ...], arities: Sequence[int]) -> int:
    return sum(1 for p in ps if arities[p] >= 2)


def limit_table(table: ScoreTable, limits: Mapping[str, int | None], *, k: int | None = None) -> ScoreTable:
    """Copy of ``table`` without the families above the k-best parent limits.

    A family is dropped when it has more parents of arity >= 2 than its
    child's limit (``None``: keep all).  The result is safe for the k best
    networks (and every network tied with the k-th), *not* for an ε-set:
    its ``epsilon`` is ``None`` and ``meta["kbest_limits"]`` records ``k`` and
    the limits.  Every child keeps its empty parent set.
    """
    N_ar = _table_n_arities(table)
    arities = N_ar[1]
    fams = []
    pruning = {nm: dict(rules) for nm, rules in table.pruning.items()}
    for v, name in enumerate(table.names):
        lim = limits.get(name)
        if lim is None:
            fams.append(list(table.families[v]))
            continue
        kept = [(ps, sc) for ps, sc in table.families[v] if _nonunit_count(ps, arities) <= int(lim)]
        removed = len(table.families[v]) - len(kept)
        pruning.setdefault(name, {})["kbest_limit"] = pruning.get(name, {}).get("kbest_limit", 0) + removed
        fams.append(kept)
    meta = dict(table.meta)
    meta["kbest_limits"] = {"k": k, "limits": dict(limits), "table_epsilon": table.epsilon}
    return ScoreTable(table.names, fams, epsilon=None, score_name=table.score_name, pruning=pruning, meta=meta)


def count_limited_families(arities: Sequence[int], limits: Sequence[int | None]) -> int:
    """Number of (child, parent set) pairs of the full lattice within the per-child limits.

    Child ``v`` with limit ``p`` keeps ``sum_{i <= p} C(a, i) * 2^u`` sets,
    ``a`` (``u``) the other variables of arity >= 2 (of arity 1), which are not
    limited; ``None`` keeps all ``2^(n-1)``.
    """
    n = len(arities)
    total = 0
    for v in range(n):
        a = sum(1 for j in range(n) if j != v and arities[j] >= 2)
        u = n - 1 - a
        p = limits[v]
        if p is None or p >= a:
            total += 1 << (n - 1)
        else:
            total += sum(math.comb(a, i) for i in range(p + 1)) << u
    return total


#: Bytes per family in Chen et al.'s Table 1: a 64-bit parent bitset and a 64-bit score.
_BYTES_PER_FAMILY = 16
_GIB = float(1 << 30)


def table1_row(n: int, N: int, k: int, *, form: str = "paper", name: str = "") -> dict[str, Any]:
    """One row of Chen et al.'s Table 1 from ``n`` and ``N`` alone (all variables binary, BIC).

    ``p`` is the local limit (Corollary 1 with its extension), which is the
    paper's ``p`` for k = 10 and 100; its 1,000-best ``p`` came from
    Algorithm 2 on the data.  ``S`` and ``s`` are the full and pruned score
    lists in GiB at 16 bytes per family (footnote 9):
    ``S = 16 n 2^(n-1)``, ``s = 16 n sum_{i <= p} C(n-1, i)``.
    """
    p = local_limit(N, 2, k, form=form)
    assert p is not None
    full = n * (1 << (n - 1))
    pruned = n * sum(math.comb(n - 1, i) for i in range(min(p, n - 1) + 1))
    return {"name": name, "n": n, "N": N, "k": k, "p": p,
            "S_families": full, "s_families": pruned,
            "S_GiB": full * _BYTES_PER_FAMILY / _GIB, "s_GiB": pruned * _BYTES_PER_FAMILY / _GIB}


#: Chen et al.'s Table 1 datasets: name, n, N.
CHEN_TABLE1 = (("hepatitis", 20, 126), ("imports", 22, 205), ("parkinsons", 23, 195), ("sensors", 25, 5456),
               ("autos", 26, 159), ("horse", 28, 300), ("flag", 29, 194))


def table1(rows: Iterable[tuple[str, int, int]] = CHEN_TABLE1, ks: Sequence[int] = (10, 100, 1000), *,
           form: str = "paper") -> list[dict[str, Any]]:
    """Table 1 from ``(name, n, N)`` rows: per row, ``S`` and per ``k`` the limit ``p`` and ``s``."""
    out = []
    for name, n, N in rows:
        cells = [table1_row(n, N, k, form=form, name=name) for k in ks]
        out.append({"name": name, "n": n, "N": N, "S_GiB": cells[0]["S_GiB"],
                    "S_families": cells[0]["S_families"],
                    "k": {k: {"p": c["p"], "s_GiB": c["s_GiB"], "s_families": c["s_families"]}
                          for k, c in zip(ks, cells)}})
    return out


def format_table1(rows: Sequence[Mapping[str, Any]]) -> str:
    """Markdown rendering of :func:`table1` (GiB with two decimals, as the paper prints)."""
    if not rows:
        return ""
    ks = list(rows[0]["k"])
    head = "| data | n | N | S | " + " | ".join(f"{k}-best p | s" for k in ks) + " |"
    sep = "|---|---|---|---|" + "---|---|" * len(ks)
    lines = [head, sep]
    for r in rows:
        cells = " | ".join(f"{r['k'][k]['p']} | {r['k'][k]['s_GiB']:.2f}" for k in ks)
        lines.append(f"| {r['name']} | {r['n']} | {r['N']} | {r['S_GiB']:.2f} | {cells} |")
    return "\n".join(lines)
