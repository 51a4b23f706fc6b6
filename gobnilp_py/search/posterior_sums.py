"""Exact sums over every DAG a score table allows: the evidence and the arrow posteriors (Tian and He, UAI 2009).

With local weights ``b_v(P) = exp(score(v, P))`` for the families ``P`` of the
table (zero for the rest), a uniform prior over the DAGs the table allows
gives every DAG ``G`` the posterior ``prod_v b_v(Pa_v) / Z`` with

    ``Z = sum over DAGs G of prod_v b_v(Pa_v(G))``          (the evidence, up to the prior's constant).

Three subset recursions, each over the ``2^n`` node sets (``docs/posterior.md``):

1. **Local sums** ``alpha_v(W) = sum_{P subset of W} b_v(P)`` for every set
   ``W`` of the other nodes: a zeta transform, ``(n - 1) 2^(n-2)`` log-additions
   per node.
2. **Forward** (Robinson's recursion by sinks, as Tian and He use it): ``R(S)``,
   the weight of the DAGs on ``S``, from
   ``R(S) = sum_{T nonempty subset of S} (-1)^(|T|+1) R(S - T) prod_{t in T} alpha_t(S - T)``
   -- every DAG on ``S`` counted once by inclusion–exclusion over its sink
   sets.  ``Z = R(V)``.  ``3^n`` terms.
3. **Backward** (the adjoint of 2, Baur–Strassen): ``Q(W) = dZ/dR(W)``, the
   weight of every way to add the nodes outside ``W`` to a DAG on ``W``, and
   ``dZ/d alpha_t(W) >= 0``, the weight of the DAGs whose non-descendants of
   ``t`` are exactly ``W``.  Their superset sums are ``dZ/d b_t(P)``, so the
   mass of every family ``b_t(P) dZ/d b_t(P)`` -- and of every arrow
   ``u -> t``, the sum over the families of ``t`` holding ``u`` -- comes from
   one more ``3^n`` pass, for all ``n (n - 1)`` arrows at once (where Tian and
   He run one pass per child, ``n 3^n`` in all).

Past exact reach, the sum over orders (Koivisto and Sood, JMLR 2004),
``L(V) = sum over orders of prod_v alpha_v(predecessors of v)``, counts each DAG
once per linear extension (at least once), so ``L(V) >= Z``: the mass of a set
of DAGs relative to ``L(V)`` is a lower bound on its posterior mass.  It costs
``n 2^n`` and is also the scale of the forward sums (every term of ``R(S)`` is
at most ``R(S) <= L(S)``, and ``R(S) >= L(S) / |S|!``).

Numbers: every stored quantity is a natural log; each family's score is
shifted first by the score of its node's family in a good DAG (the product
over nodes takes one family per node, so the shift is exact, and the DAGs
that carry the posterior then weigh about ``exp(0)``: small logs); the
signed sums are formed in linear arithmetic relative to a scale known to
bound their terms, compensated (forward) or pairwise (backward).  Their
rounding error is amplified by the condition ``sum of |terms| / |sum|``; a
first-order bound on the error of ``log Z`` is computed from the two passes
(``docs/posterior.md``, "Error analysis").

Layering: this module reads a :class:`~gobnilp_py.scoring.table.ScoreTable`
and returns arrays; labels, constraints, data and credible sets are the
driver's (:mod:`gobnilp_py.solve.posterior`).

References
----------
J. Tian and R. He, "Computing posterior probabilities of structural features in Bayesian networks", UAI 2009.
M. Koivisto and K. Sood, "Exact Bayesian structure discovery in Bayesian networks", JMLR 5, 2004.
R. W. Robinson, "Counting unlabeled acyclic digraphs", 1977 (the recursion by sinks).
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._interrupt import held
from .._memory import format_bytes, memory_room
from ..errors import ScoreError
from ..scoring.table import ScoreTable
from . import _posterior_kernels as _k

__all__ = ["PosteriorSums", "posterior_sums", "estimate_memory", "DEFAULT_MEMORY_BUDGET", "MAX_EXACT_VARIABLES",
           "MAX_BOUND_VARIABLES", "UNIT_ROUNDOFF"]

#: Default memory budget (bytes) of the posterior arrays: 4 GiB.
DEFAULT_MEMORY_BUDGET = 4 * 2**30
#: Largest ``n`` for the exact DAG sums (``3^n`` terms: 3^26 is 2.5e12, days); memory usually decides first.
MAX_EXACT_VARIABLES = 26
#: Largest ``n`` for the sum over orders (``n 2^n``).
MAX_BOUND_VARIABLES = 30
#: Without numba the loops run as Python: these many variables at most (exact / bound).
MAX_EXACT_PYTHON, MAX_BOUND_PYTHON = 12, 16
#: Share of the memory still free (:func:`gobnilp_py._memory.memory_room`) the arrays may take.
ROOM_SHARE = 0.8
#: Unit roundoff of float64 (the error analysis is in units of it).
UNIT_ROUNDOFF = 2.0 ** -53
#: A value of the backward pass that comes out non-positive (true value zero, or cancellation) is taken
#: as zero when what it could carry is at most this fraction of the evidence (the total is reported).
DROP_SHARE = 1e-12
#: Terms one kernel call handles before the driver looks at the clock and at Ctrl-C (about 0.05-0.2 s).
_CHUNK_TERMS = 1 << 22


@dataclass
class PosteriorSums:
    """What :func:`posterior_sums` computed (logs are natural; weights are ``exp(score)``).

    Attributes
    ----------
    names : tuple of str
    kind : str
        ``"exact"`` (``log_z`` and the arrow masses are the exact sums),
        ``"order_bound"`` (only ``log_order_sum``, ``>= log_z``) or ``"none"``
        (neither could be computed).
    reason : str or None
        Why not exact: ``"memory"``, ``"size"``, ``"time_limit"``,
        ``"interrupted"``, ``"precision"`` (a signed sum lost every digit) or
        ``"requested"`` (``exact=False``); ``None`` when exact.
    log_z : float or None
        ``log sum_G prod_v exp(score(v, Pa_v(G)))`` over every DAG of the table.
    log_order_sum : float or None
        The sum over orders (Koivisto and Sood): ``>= log_z``, ``<= log_z + log n!``.
    arrow_log_mass : numpy.ndarray or None
        ``[u, v]``: log of the summed weight of the DAGs with ``u -> v`` (``-inf``: none).
    family_log_mass : list of numpy.ndarray or None
        Per node, in table order, the log of the summed weight of the DAGs in which it has that family.
    error_bound : float or None
        First-order bound on ``|computed log_z - log_z|`` (``docs/posterior.md``).
    check_error : float or None
        Largest ``|log sum_P P(Pa_v = P)|`` over nodes: ``n`` further computations
        of ``log_z`` through the backward pass, which must agree with it.
    stats : dict
        Timings, memory, conditions (``kappa_forward``, ``kappa_backward``).
    """

    names: tuple[str, ...]
    kind: str
    reason: str | None = None
    log_z: float | None = None
    log_order_sum: float | None = None
    arrow_log_mass: np.ndarray | None = None
    family_log_mass: list[np.ndarray] | None = None
    error_bound: float | None = None
    check_error: float | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        """True when the exact DAG sums were completed."""
        return self.kind == "exact"

    def arrow_probabilities(self) -> np.ndarray:
        """``[u, v]`` = P(u -> v) (exact sums only)."""
        if self.arrow_log_mass is None or self.log_z is None:
            raise ScoreError("arrow posteriors need the exact DAG sums, which were not computed"
                             + (f" ({self.reason})" if self.reason else ""))
        if not self.log_z > -math.inf:
            raise ScoreError("the score table allows no DAG: no posterior")
        return np.exp(self.arrow_log_mass - self.log_z)


def estimate_memory(n: int, n_families: int = 0, *, exact: bool = True) -> int:
    """Bytes the arrays need for ``n`` variables and ``n_families`` families (an upper estimate).

    Exact, the larger of its two phases, per set of nodes: forward, the local
    sums (``4n`` bytes: ``n x 2^(n-1)`` float64), the forward record (5 float64),
    the forward value, magnitudes and rounding (24), two lanes' work arrays for
    the largest set's terms (``2 x 26``: log terms, their magnitudes, masks,
    signs, owners) and the bit table (1); backward, the local sums and their
    adjoints (``8n``), the forward value, magnitudes and rounding, the backward
    value and magnitudes (40), two lanes' work arrays (``2 x 29``: log terms,
    masks, signs, terms, folds) and the bit table.  Per family, its mask,
    score and result (40 bytes, twice while the arrows are summed).
    Order bound: one ``n x 2^(n-1)`` table and the ``2^n`` order sums.
    """
    if n <= 0:
        return 1024
    full = 1 << n
    fam = 80 * n_families
    if not exact:
        return 8 * n * (full >> 1) + 8 * full + fam
    forward = 4 * n + 40 + 24 + 2 * 26 + 1
    backward = 8 * n + 40 + 2 * 29 + 1
    return max(forward, backward) * full + fam


def _node_arrays(table: ScoreTable) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Per node: parent bitmasks and scores (table order), and each node's best score (the shift)."""
    masks, scores = [], []
    best = np.empty(table.n)
    for v, fams in enumerate(table.families):
        sc = np.fromiter((s for _, s in fams), dtype=np.float64, count=len(fams))
        masks.append(np.fromiter((sum(1 << p for p in ps) for ps, _ in fams), dtype=np.int64, count=len(fams)))
        scores.append(sc)
        best[v] = sc.max()
    return masks, scores, best


def _shift(table: ScoreTable, best: np.ndarray, stats: dict[str, Any]) -> np.ndarray:
    """Per node, the score its family has in a good DAG (the sink heuristic's), else its best score.

    Any per-node constants are an exact shift (every DAG takes one family per
    node).  Shifted by a good DAG's families, the DAGs that carry the posterior
    weigh about ``exp(0)``, so the logs the sums work with are small where it
    matters and their rounding (``u |log|``) with them: on adult's first 11
    columns (BIC, parent limit 2) the nodes' best families together lie 7,006
    nats above any DAG, and shifting by a DAG took the bound on the rounding of
    ``log Z`` from 7.0e-10 to 1.6e-10, and wine's (BDeu) from 7.5e-11 to 1.8e-11,
    its measured error from 2.3e-13 to below one ulp (``docs/posterior.md``).
    The heuristic needs every node to have the empty parent set; without it
    the best scores serve.
    """
    if table.n == 0 or not all(any(not ps for ps, _ in fams) for fams in table.families):
        stats["shift"] = "best families"
        return best
    from ..scoring.heuristic import greedy_dag

    _total, parents = greedy_dag(table.families)
    look = [{ps: sc for ps, sc in fams} for fams in table.families]
    stats["shift"] = "sink heuristic DAG"
    return np.array([look[v][tuple(sorted(ps))] for v, ps in enumerate(parents)])


def _squeeze(masks: np.ndarray, v: int) -> np.ndarray:
    """``masks`` (bit ``v`` clear) as indices over the other nodes (see :func:`._posterior_kernels.squeeze`)."""
    return ((masks >> (v + 1)) << v) | (masks & ((1 << v) - 1))


def _logsumexp(x: np.ndarray) -> float:
    x = x[np.isfinite(x)]
    if x.size == 0:
        return -math.inf
    m = float(x.max())
    return m + math.log(float(np.sum(np.exp(x - m))))


class _Clock:
    """The deadline and the stop event, looked at between kernel calls."""

    def __init__(self, time_limit: float | None, stop: threading.Event | None) -> None:
        self.t0 = time.perf_counter()
        self.deadline = None if time_limit is None else self.t0 + time_limit
        self.stop = stop

    def why_stop(self) -> str | None:
        if self.stop is not None and self.stop.is_set():
            return "interrupted"
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return "time_limit"
        return None


def posterior_sums(table: ScoreTable, *, exact: bool | None = None, time_limit: float | None = None,
                   memory_budget: int | None = None, stop: threading.Event | None = None,
                   threads: int | None = None) -> PosteriorSums:
    """The exact evidence and arrow posteriors of ``table``, or the order-modular bound past exact reach.

    Parameters
    ----------
    table : ScoreTable
        Every DAG whose every family is in the table has prior weight 1 (filter
        the table by structural constraints first).
    exact : bool or None
        ``None`` (default): the exact sums when their memory fits the budget and
        ``n <= MAX_EXACT_VARIABLES``, else the bound; ``True``: the exact sums or
        a :class:`ScoreError`; ``False``: the bound only.
    time_limit : float, optional
        Seconds; looked at between kernel calls (a tenth of a second or so).  The
        sum over orders is computed first (``n 2^n``), so a run stopped in the
        exact passes still returns the bound (``reason="time_limit"``).
    memory_budget : int, optional
        Bytes (default :data:`DEFAULT_MEMORY_BUDGET`); the arrays are also held
        to :data:`ROOM_SHARE` of the memory the system has free.  Checked before
        anything is allocated.
    stop : threading.Event, optional
        Set (by a Ctrl-C handler) to stop between kernel calls: ``reason="interrupted"``.
    threads : int, optional
        1 or 2 threads for the two lanes of the exact passes (default: 2 when
        the machine has two cores).  The results are the same either way.

    Raises
    ------
    ScoreError
        ``exact=True`` and the exact arrays exceed the budget, or ``exact=False``
        and the bound's do; each message names the amount.

    Examples
    --------
    >>> t = ScoreTable(["A", "B"], [[((), -2.0), ((1,), -1.0)], [((), -3.0), ((0,), -3.5)]])
    >>> s = posterior_sums(t)
    >>> round(s.log_z, 6) == round(float(np.logaddexp.reduce([-5.0, -4.0, -5.5])), 6)
    True
    """
    clock = _Clock(time_limit, stop)
    threads = min(2, os.cpu_count() or 1) if threads is None else max(1, min(2, int(threads)))
    n = table.n
    names = tuple(table.names)
    budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else int(memory_budget)
    room = memory_room()
    cap = budget if room is None else min(budget, int(ROOM_SHARE * room))
    where = "the memory budget" if room is None or budget <= int(ROOM_SHARE * room) else "the memory free"
    est_exact = estimate_memory(n, len(table), exact=True)
    est_bound = estimate_memory(n, len(table), exact=False)
    max_exact = MAX_EXACT_VARIABLES if _k.AVAILABLE else MAX_EXACT_PYTHON
    max_bound = MAX_BOUND_VARIABLES if _k.AVAILABLE else MAX_BOUND_PYTHON
    stats: dict[str, Any] = {"memory_estimate_exact": est_exact, "memory_estimate_bound": est_bound,
                             "memory_cap": cap, "compiled": _k.AVAILABLE}
    hint = "" if _k.AVAILABLE else " (without numba; install gobnilp_py[fast])"
    if exact is True:
        if n > max_exact:
            raise ScoreError(f"the exact posterior sums handle at most {max_exact} variables{hint}; this table has {n}")
        if est_exact > cap:
            raise ScoreError(f"the exact posterior sums for n={n} need about {format_bytes(est_exact)}, over "
                             f"{where} of {format_bytes(cap)}")
    if exact is False:
        if n > max_bound:
            raise ScoreError(f"the sum over orders handles at most {max_bound} variables{hint}; this table has {n}")
        if est_bound > cap:
            raise ScoreError(f"the sum over orders for n={n} needs about {format_bytes(est_bound)}, over "
                             f"{where} of {format_bytes(cap)}")
    do_exact = exact is not False and n <= max_exact and est_exact <= cap
    if not do_exact:
        reason = "requested" if exact is False else ("size" if n > max_exact else "memory")
        if n > max_bound or est_bound > cap:
            stats["time_total"] = time.perf_counter() - clock.t0
            return PosteriorSums(names, "none", "size" if n > max_bound else "memory", stats=stats)
    else:
        reason = None
    if n == 0:
        return PosteriorSums(names, "exact", None, 0.0, 0.0, np.zeros((0, 0)), [], 0.0, 0.0, stats)

    masks, scores, base = _node_arrays(table)
    base = _shift(table, base, stats)
    shift = math.fsum(base.tolist())
    t0 = time.perf_counter()
    la = _local_sums(n, masks, scores, base, clock)
    stats["time_local_sums"] = time.perf_counter() - t0
    if la is None:
        stats["time_total"] = time.perf_counter() - clock.t0
        return PosteriorSums(names, "none", clock.why_stop(), stats=stats)
    t0 = time.perf_counter()
    lL = np.full(1 << n, -np.inf)
    lL[0] = 0.0
    S = 1
    while S < (1 << n):
        why = clock.why_stop()
        if why is not None:
            stats["time_total"] = time.perf_counter() - clock.t0
            return PosteriorSums(names, "none", why, stats=stats)
        with held():
            S = _k.order_sum_chunk(n, la, lL, S, _CHUNK_TERMS)
    stats["time_order_sum"] = time.perf_counter() - t0
    log_order = float(lL[-1]) + shift if lL[-1] > -np.inf else -math.inf
    if not do_exact:
        stats["time_total"] = time.perf_counter() - clock.t0
        return PosteriorSums(names, "order_bound", reason, log_order_sum=log_order, stats=stats)
    acc = np.zeros((1 << n, _k.FIELDS))      # the forward pass's per-set records, scaled by the order sums
    acc[:, _k.SCALE] = lL
    del lL
    out = _exact(n, la, acc, masks, scores, base, clock, stats, threads)
    if isinstance(out, str):  # stopped or failed: the bound stands
        stats["time_total"] = time.perf_counter() - clock.t0
        return PosteriorSums(names, "order_bound", out, log_order_sum=log_order, stats=stats)
    log_z, arrows, fam, err, check = out
    stats["time_total"] = time.perf_counter() - clock.t0
    if not log_z > -math.inf:
        return PosteriorSums(names, "exact", None, -math.inf, -math.inf, np.full((n, n), -np.inf),
                             [np.full(len(m), -np.inf) for m in masks], 0.0, 0.0, stats)
    total = log_z + shift
    err += UNIT_ROUNDOFF * (abs(shift) + abs(total))   # the shift's sum and its addition
    return PosteriorSums(names, "exact", None, total, log_order, arrows + shift, [f + shift for f in fam], err,
                         check, stats)


def _local_sums(n: int, masks: list[np.ndarray], scores: list[np.ndarray], base: np.ndarray,
                clock: _Clock) -> np.ndarray | None:
    """``la[v, squeeze(W, v)] = log alpha_v(W)`` with scores shifted by ``base[v]`` (``None`` when stopped)."""
    la = np.full((n, 1 << (n - 1)), -np.inf)
    for v in range(n):
        if clock.why_stop() is not None:
            return None
        la[v, _squeeze(masks[v], v)] = scores[v] - base[v]       # parent sets are distinct
        with held():
            _k.log_zeta_subsets(la[v], n - 1)
    return la


class _Lanes:
    """Two lanes of one kernel run side by side: lane 0 in this thread, lane 1 in a worker when there is a
    second core (the kernels release the GIL), else one after the other.  Same results either way
    (:func:`._posterior_kernels.owner`); each lane has its own work arrays (:meth:`arrays`)."""

    def __init__(self, n: int, threads: int) -> None:
        self.n = n
        self.work: list[dict[str, np.ndarray]] = [{}, {}]
        self.pool = None
        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="posterior-lane")

    def arrays(self, phase: str) -> None:
        """The work arrays of ``phase`` (``"forward"`` or ``"backward"``), those of the other phase freed."""
        n, size = self.n, max(1 << self.n, 8)
        for w in self.work:
            w.clear()
            w.update(part=np.empty(size), tmask=np.empty(size, dtype=np.int64), sgn=np.empty(size, dtype=np.int8),
                     cl=np.empty(n), cbit=np.empty(n, dtype=np.int64), cidx=np.empty(n, dtype=np.int64))
            if phase == "forward":
                w.update(em=np.empty(size), par=np.empty(size, dtype=np.int8), cl2=np.empty(n),
                         cbit2=np.empty(n, dtype=np.int64), cm2=np.empty(n, dtype=np.int8))
            else:
                w.update(h=np.empty(size), scratch=np.empty(max(size >> 1, 1)), marg=np.empty(n), dropped=np.zeros(1))

    def run(self, call: Any) -> tuple[int, int]:
        """``call(lane, work)`` for both lanes; their return values."""
        if self.pool is None:
            with held():
                return call(0, self.work[0]), call(1, self.work[1])
        fut = self.pool.submit(call, 1, self.work[1])
        try:
            with held():
                r0 = call(0, self.work[0])
        finally:
            r1 = fut.result()
        return r0, r1

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        self.work = [{}, {}]


def _exact(n: int, la: np.ndarray, acc: np.ndarray, masks: list[np.ndarray], scores: list[np.ndarray],
           base: np.ndarray, clock: _Clock, stats: dict[str, Any], threads: int
           ) -> str | tuple[float, np.ndarray, list[np.ndarray], float, float]:
    """The forward and backward passes and the arrow sums; a reason string when stopped."""
    lanes = _Lanes(n, threads)
    try:
        box = [acc]
        del acc
        return _passes(n, la, box, masks, scores, base, clock, stats, lanes)
    finally:
        lanes.close()


def _sets_per_call(n: int, k: int) -> int:
    """Sets of size ``k`` per kernel call: about :data:`_CHUNK_TERMS` terms (each has ``2^(n-k)``)."""
    return max(1, _CHUNK_TERMS >> (n - k))


def _passes(n: int, la: np.ndarray, box: list[np.ndarray], masks: list[np.ndarray], scores: list[np.ndarray],
            base: np.ndarray, clock: _Clock, stats: dict[str, Any], lanes: _Lanes
            ) -> str | tuple[float, np.ndarray, list[np.ndarray], float, float]:
    N = 1 << n
    full = N - 1
    tz = _k.trailing_zeros(n)
    acc = box.pop()                    # the only reference: freed when the forward pass is done
    lR = np.full(N, -np.inf)
    lR[0] = 0.0
    lAR = np.full(N, -np.inf)          # log A(S): the sum of the forward terms' magnitudes
    lAR[0] = 0.0
    lER = np.full(N, -np.inf)          # log E(S): their rounding, in units of u
    lanes.arrays("forward")
    t0 = time.perf_counter()
    for k in range(n + 1):
        if k:
            bad = _k.finish_level(n, acc, lR, lAR, lER, k)
            if bad >= 0:
                stats["precision_set"] = int(bad)
                return "precision"
        if k == n:
            break
        W, per = (1 << k) - 1, _sets_per_call(n, k)
        while W != -1:
            why = clock.why_stop()
            if why is not None:
                return why

            def forward(lane: int, w: dict[str, Any], W: int = W) -> int:
                return _k.forward_level(n, la, acc, lR, W, per, lane, tz, w["part"], w["em"], w["tmask"], w["sgn"],
                                        w["par"], w["cl"], w["cbit"], w["cidx"], w["cl2"], w["cbit2"], w["cm2"])

            W, _same = lanes.run(forward)
    stats["time_forward"] = time.perf_counter() - t0
    del acc
    if not lR[full] > -np.inf:         # the table allows no DAG: nothing to differentiate
        return (-math.inf, np.full((n, n), -np.inf), [np.full(len(m), -np.inf) for m in masks], 0.0, 0.0)
    lQ = np.empty(N)
    lAQ = np.empty(N)
    lQ[full] = lAQ[full] = 0.0
    lab = np.full((n, N >> 1), -np.inf)
    lanes.arrays("backward")
    lz_shifted = float(lR[full])
    t0 = time.perf_counter()
    for k in range(n - 1, -1, -1):
        W, per = (1 << k) - 1, _sets_per_call(n, k)
        while W != -1:
            why = clock.why_stop()
            if why is not None:
                return why

            def backward(lane: int, w: dict[str, Any], W: int = W) -> int:
                return _k.backward_level(n, la, lR, lQ, lAQ, lab, W, per, lane, tz, w["part"], w["tmask"], w["sgn"],
                                         w["h"], w["scratch"], w["cl"], w["cbit"], w["cidx"], w["marg"], lz_shifted,
                                         DROP_SHARE, w["dropped"])

            r0, r1 = lanes.run(backward)
            if r0 < -1 or r1 < -1:
                stats["precision_set"] = int(-min(r0, r1) - 2)
                return "precision"
            W = r0
    dropped = float(lanes.work[0]["dropped"][0] + lanes.work[1]["dropped"][0])
    lanes.work = [{}, {}]
    stats["time_backward"] = time.perf_counter() - t0
    stats["dropped_share"] = dropped
    log_z = float(lR[full])
    # the local sums' rounding, weighted by what each carries (dZ/d alpha_v(W) alpha_v(W) / Z): an entry
    # F made by n - 1 log-additions has its log wrong by at most u (n - 1)(|log F| + 2.4) (each partial
    # sum p <= F weighs p / F, and (p / F) |log p| <= |log F| + 1/e), plus the shift of its families' scores
    alpha_rounding = 0.0
    for v in range(n):
        lw = lab[v] + la[v]
        ok = np.isfinite(lw)
        alpha_rounding += float(np.sum(np.exp(lw[ok] - log_z) * (np.abs(la[v][ok]) + 2.4)))
    alpha_rounding *= n * UNIT_ROUNDOFF
    del la
    # ------------------------------------------------------------ families and arrows
    t0 = time.perf_counter()
    arrows = np.full((n, n), -np.inf)
    fam_mass: list[np.ndarray] = []
    check = 0.0
    for v in range(n):
        why = clock.why_stop()
        if why is not None:
            return why
        with held():
            _k.log_zeta_supersets(lab[v], n - 1)              # K_v(P) = dZ/d b_v(P), shifted
        lf = (scores[v] - base[v]) + lab[v, _squeeze(masks[v], v)]
        fam_mass.append(lf)
        if log_z > -math.inf:
            check = max(check, abs(_logsumexp(lf) - log_z))
        fin = np.isfinite(lf)
        if not fin.any():
            continue
        mx = float(lf[fin].max())
        e = np.where(fin, np.exp(np.where(fin, lf - mx, 0.0)), 0.0)
        for u in range(n):
            if u == v:
                continue
            sel = ((masks[v] >> u) & 1).astype(bool)
            tot = float(np.sum(e[sel]))
            if tot > 0.0:
                arrows[u, v] = mx + math.log(tot)
    stats["time_arrows"] = time.perf_counter() - t0
    del lab
    err = _error_bound(n, log_z, lR, lAR, lER, lQ, lAQ, alpha_rounding, stats)
    stats["backward_log_z_difference"] = float(abs(lQ[0] - log_z)) if log_z > -math.inf else 0.0
    return log_z, arrows, fam_mass, err, check


def _error_bound(n: int, log_z: float, lR: np.ndarray, lAR: np.ndarray, lER: np.ndarray, lQ: np.ndarray,
                 lAQ: np.ndarray, alpha_rounding: float, stats: dict[str, Any]) -> float:
    """First-order bound on the error of ``log Z`` (shifted); records the conditions in ``stats``.

    Linearised error propagation through the forward pass: the rounding
    committed in forming each ``R(S)`` -- at most ``u E(S)``, every term's
    magnitude times the rounding of its log, plus ``2u A(S)`` for the
    compensated sum (:func:`._posterior_kernels.finish_level`), plus storing its
    log -- reaches ``Z`` multiplied by ``dZ/dR(S) = Q(S)``; the rounding of each
    local sum reaches it through ``dZ/d alpha >= 0`` (``alpha_rounding``, the
    weighted total computed by the caller).  So
    ``|dZ| / Z <= alpha_rounding + u sum_S Q(S) (E(S) + (|log R(S)| + 2) R(S)) / Z``.
    ``kappa = sum_S Q(S) A(S) / Z`` (the amplification of the inclusion–exclusion)
    is recorded beside it.
    """
    u = UNIT_ROUNDOFF
    if not log_z > -math.inf:
        stats.update(kappa_forward=0.0, kappa_backward=0.0)
        return 0.0
    stats["kappa_forward"] = math.exp(_logsumexp(lQ[1:] + lAR[1:]) - log_z)
    stats["kappa_backward"] = math.exp(_logsumexp(lR[:-1] + lAQ[:-1]) - log_z)
    terms = math.exp(_logsumexp(lQ[1:] + lER[1:]) - log_z)
    w = lQ[1:] + lR[1:]
    ok = np.isfinite(w)
    store = float(np.sum(np.exp(w[ok] - log_z) * (np.abs(lR[1:][ok]) + 2.0)))
    return alpha_rounding + u * (terms + store)
