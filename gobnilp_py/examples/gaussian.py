"""Linear-Gaussian networks with known structure, and data sampled from them with a fixed seed.

For the tests, the documentation and the benchmarks of the Gaussian scores: the same seed gives
the same network and the same rows on every machine (numpy's ``default_rng``; the sampling is
a fixed sequence of vectorised draws).

A network is a DAG with, for every variable ``v``, ``v = b_v + Σ_{u ∈ Pa(v)} w_uv u + σ_v e``
with ``e ~ N(0, 1)``.  :func:`random_linear_gaussian` draws one: a random order of the
variables, each earlier variable a parent with the probability that gives the asked mean number
of parents (capped at ``max_parents``), weights of magnitude in ``weight`` with a random sign
(never near 0, so every arrow is detectable with enough rows), noise scales in ``noise``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["LinearGaussianNetwork", "random_linear_gaussian"]


@dataclass(frozen=True)
class LinearGaussianNetwork:
    """A linear-Gaussian Bayesian network.

    Attributes
    ----------
    names : tuple of str
        Variables, in the column order of sampled data.
    parents : mapping of str to tuple of str
        The true structure (parents sorted in column order).
    weights : mapping of (parent, child) to float
        The regression coefficient of each arrow.
    intercepts, noise_sd : mapping of str to float
        ``b_v`` and ``σ_v``.

    Examples
    --------
    >>> net = random_linear_gaussian(5, seed=1)
    >>> x = net.sample(100, seed=2)
    >>> x.shape, bool((x == net.sample(100, seed=2)).all())
    ((100, 5), True)
    """

    names: tuple[str, ...]
    parents: Mapping[str, tuple[str, ...]]
    weights: Mapping[tuple[str, str], float]
    intercepts: Mapping[str, float]
    noise_sd: Mapping[str, float]

    def topological_order(self) -> list[str]:
        """The variables, every parent before its children (ties in column order)."""
        done: list[str] = []
        left = list(self.names)
        while left:
            ready = [v for v in left if all(p in done for p in self.parents[v])]
            if not ready:
                raise ValueError("the parents form a cycle")
            done.extend(ready)
            left = [v for v in left if v not in ready]
        return done

    def n_edges(self) -> int:
        """Number of arrows."""
        return sum(len(p) for p in self.parents.values())

    def sample(self, n_rows: int, seed: int = 0) -> np.ndarray:
        """``n_rows`` rows drawn from the network: a float array ``(n_rows, n)`` in :attr:`names` order."""
        rng = np.random.default_rng(seed)
        col = {v: j for j, v in enumerate(self.names)}
        noise = rng.standard_normal((int(n_rows), len(self.names)))
        out = np.empty((int(n_rows), len(self.names)))
        for v in self.topological_order():
            x = self.intercepts[v] + self.noise_sd[v] * noise[:, col[v]]
            for u in self.parents[v]:
                x = x + self.weights[(u, v)] * out[:, col[u]]
            out[:, col[v]] = x
        return out

    def frame(self, n_rows: int, seed: int = 0):  # type: ignore[no-untyped-def]
        """:meth:`sample` as a pandas DataFrame with the variable names as columns."""
        import pandas as pd

        return pd.DataFrame(self.sample(n_rows, seed), columns=list(self.names))


def random_linear_gaussian(n: int, *, seed: int = 0, mean_parents: float = 1.5, max_parents: int | None = 3,
                           weight: tuple[float, float] = (0.5, 1.5), noise: tuple[float, float] = (0.5, 1.5),
                           prefix: str = "X") -> LinearGaussianNetwork:
    """A random linear-Gaussian network on ``n`` variables (names ``X1 … Xn``), fixed by ``seed``."""
    rng = np.random.default_rng(seed)
    names = tuple(f"{prefix}{i + 1}" for i in range(n))
    order = rng.permutation(n)
    parents: dict[str, tuple[str, ...]] = {}
    weights: dict[tuple[str, str], float] = {}
    for k, v in enumerate(order):
        earlier = order[:k]
        prob = min(1.0, 2.0 * mean_parents / max(1, n - 1))
        chosen = [int(u) for u in earlier if rng.random() < prob]
        if max_parents is not None and len(chosen) > max_parents:
            chosen = sorted(rng.choice(chosen, size=max_parents, replace=False).tolist())
        chosen.sort()
        parents[names[v]] = tuple(names[u] for u in chosen)
        for u in chosen:
            w = rng.uniform(*weight) * (1.0 if rng.random() < 0.5 else -1.0)
            weights[(names[u], names[v])] = float(w)
    intercepts = {v: float(rng.normal(0.0, 2.0)) for v in names}
    noise_sd = {v: float(rng.uniform(*noise)) for v in names}
    return LinearGaussianNetwork(names, {v: parents[v] for v in names}, weights, intercepts, noise_sd)
