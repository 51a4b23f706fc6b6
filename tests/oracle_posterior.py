"""Two independent oracles for the posterior sums of :mod:`gobnilp_py.search.posterior_sums`.

* :func:`brute_posterior` enumerates every DAG (``tests/oracle_dags.py``: 29,281
  on 5 nodes), keeps those whose families are all in the table (and that
  satisfy optional constraints), and sums their weights with ``math.fsum``
  after subtracting the largest log weight: the evidence, the arrow
  posteriors and the weight of any set of DAGs, with no recursion at all.
* :func:`decimal_log_z` runs the forward recursion by sinks alone, in
  ``decimal`` arithmetic with 40 digits, optionally with one node's families
  restricted to those holding a given parent: the mass of an arrow without the
  backward pass the engine uses for it.  For tables too big to enumerate
  (real data, 8 to 10 variables).
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from oracle_dags import all_dags

__all__ = ["BrutePosterior", "brute_posterior", "decimal_log_z", "dag_list"]


@lru_cache(maxsize=8)
def dag_list(n: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every DAG on ``n`` nodes (cached: the 29,281 of 5 nodes take a second to build)."""
    return tuple(all_dags(n))


class BrutePosterior:
    """The DAGs a table allows, their log weights, and sums over them (exact up to ``fsum`` rounding)."""

    def __init__(self, table, keep: Callable[[tuple[tuple[int, ...], ...]], bool] | None = None) -> None:
        n = table.n
        look = [{ps: sc for ps, sc in fams} for fams in table.families]
        self.n = n
        self.dags: list[tuple[tuple[int, ...], ...]] = []
        logs = []
        for dag in dag_list(n):
            try:
                w = math.fsum(look[v][ps] for v, ps in enumerate(dag))
            except KeyError:
                continue
            if keep is not None and not keep(dag):
                continue
            self.dags.append(dag)
            logs.append(w)
        self.logw = np.array(logs)
        if self.dags:
            self.top = float(self.logw.max())
            self.w = np.exp(self.logw - self.top)
            self.total = math.fsum(self.w.tolist())
            self.log_z = self.top + math.log(self.total)
        else:
            self.top, self.w, self.total, self.log_z = -math.inf, np.zeros(0), 0.0, -math.inf

    def arrows(self) -> np.ndarray:
        """``[u, v]`` = P(u -> v)."""
        acc = [[[] for _ in range(self.n)] for _ in range(self.n)]
        for wi, dag in zip(self.w.tolist(), self.dags):
            for v, ps in enumerate(dag):
                for u in ps:
                    acc[u][v].append(wi)
        return np.array([[math.fsum(acc[u][v]) / self.total for v in range(self.n)] for u in range(self.n)])

    def mass(self, dags: Sequence[tuple[tuple[int, ...], ...]]) -> float:
        """Posterior mass of a set of DAGs (each must be allowed)."""
        where = {d: i for i, d in enumerate(self.dags)}
        return math.fsum(float(self.w[where[d]]) for d in set(dags)) / self.total


def brute_posterior(table, keep=None) -> BrutePosterior:
    """See :class:`BrutePosterior`."""
    return BrutePosterior(table, keep)


def decimal_log_z(table, *, child: int | None = None, parent: int | None = None, digits: int = 40) -> float:
    """``log`` of the sum over DAGs, by the recursion by sinks in ``decimal`` arithmetic.

    With ``child`` and ``parent``: only the families of ``child`` that hold
    ``parent`` count, so the result is the log mass of the arrow ``parent -> child``.
    Cost: ``2^n`` local sums of up to ``2^(n-1)`` families and ``3^n`` terms (n <= 10).
    """
    ctx = decimal.Context(prec=digits)
    n = table.n
    best = max(sc for fams in table.families for _, sc in fams)
    beta = []
    for v, fams in enumerate(table.families):
        d = {}
        for ps, sc in fams:
            if v == child and parent not in ps:
                continue
            d[sum(1 << p for p in ps)] = ctx.exp(ctx.subtract(decimal.Decimal(sc), decimal.Decimal(best)))
        beta.append(d)
    full = (1 << n) - 1
    alpha = [[decimal.Decimal(0)] * (1 << n) for _ in range(n)]
    for v in range(n):
        for W in range(1 << n):
            if W >> v & 1:
                continue
            s = decimal.Decimal(0)
            for m, b in beta[v].items():
                if m & ~W == 0:
                    s = ctx.add(s, b)
            alpha[v][W] = s
    R = [decimal.Decimal(0)] * (1 << n)
    R[0] = decimal.Decimal(1)
    for S in range(1, 1 << n):
        total = decimal.Decimal(0)
        T = S
        while T:
            W = S ^ T
            term = R[W]
            k = 0
            for t in range(n):
                if T >> t & 1:
                    term = ctx.multiply(term, alpha[t][W])
                    k += 1
            total = ctx.add(total, term) if k % 2 else ctx.subtract(total, term)
            T = (T - 1) & S
        R[S] = total
    z = R[full]
    if z <= 0:
        return -math.inf
    return float(ctx.add(ctx.ln(z), ctx.multiply(decimal.Decimal(n), decimal.Decimal(best))))

