"""Shared helpers of the Gaussian-score tests: data, brute force over every DAG, Markov-class keys.

Independent of the scorer under test: the brute force reads only an unpruned table's local
scores (checked against pgmpy and against direct formulas elsewhere), and the class key is the
Verma-Pearl criterion (skeleton plus unshielded colliders) computed here from the parent sets.
"""

from __future__ import annotations

import numpy as np

from gobnilp_py import ScoreTable
from oracle_dags import dag_scores

__all__ = ["correlated_data", "dag_scores", "brute_force_set", "class_keys", "collected"]


def correlated_data(rng: np.random.Generator, n: int, n_rows: int, *, density: float = 0.5,
                    scale: bool = True) -> np.ndarray:
    """Rows of a random linear-Gaussian model (random weights, random column order, scales and offsets)."""
    W = np.triu(rng.normal(size=(n, n)) * (rng.random((n, n)) < density), 1)
    E = rng.normal(size=(n_rows, n)) * rng.uniform(0.3, 2.0, size=n)
    X = E @ np.linalg.inv(np.eye(n) - W)
    if scale:
        X = X * rng.uniform(0.1, 10.0, size=n) + rng.uniform(-50.0, 50.0, size=n)
    return np.ascontiguousarray(X[:, rng.permutation(n)])




def brute_force_set(full: ScoreTable, eps: float) -> dict[tuple[tuple[int, ...], ...], float]:
    """Every DAG with score >= OPT - eps (the boundary widened by 1e-9 relative, as the engines do)."""
    n = full.n
    dags, scores = dag_scores(full)
    opt = scores.max()
    keep = np.flatnonzero(scores >= opt - eps - 1e-9 * max(1.0, abs(opt)))
    return {tuple(tuple(p for p in range(n) if dags[d, v] >> p & 1) for v in range(n)): float(scores[d])
            for d in keep}


def class_keys(dags: np.ndarray) -> list[tuple[frozenset, frozenset]]:
    """Markov equivalence class of each DAG (rows of parent bitmasks): (skeleton, unshielded colliders)."""
    n = dags.shape[1]
    out = []
    for row in dags.tolist():
        adj = [0] * n
        for v in range(n):
            adj[v] |= row[v]
            for p in range(n):
                if row[v] >> p & 1:
                    adj[p] |= 1 << v
        skel = frozenset((p, v) if p < v else (v, p) for v in range(n) for p in range(n) if row[v] >> p & 1)
        coll = frozenset((a, c, b) for c in range(n) for a in range(n) for b in range(a + 1, n)
                         if row[c] >> a & 1 and row[c] >> b & 1 and not adj[a] >> b & 1)
        out.append((skel, coll))
    return out


def collected(cs) -> dict[tuple[tuple[int, ...], ...], float]:  # type: ignore[no-untyped-def]
    """The networks of a CredibleSet keyed by parent tuples (duplicates are an error)."""
    out: dict[tuple[tuple[int, ...], ...], float] = {}
    for net in cs.networks:
        assert net.key not in out, "duplicate network in the collection"
        out[net.key] = net.score
    return out
