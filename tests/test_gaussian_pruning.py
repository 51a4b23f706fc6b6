"""ε-safe pruning of the Gaussian scores: each bound holds, and the ε-set is the brute-force one.

Two kinds of check (derivations in docs/gaussian.md):

* the inequalities the rules rest on, checked exhaustively on every parent set of small random
  problems with the reference (direct Cholesky) scores: the ``ceiling`` bound over all supersets,
  the ``parent_count`` bound over all larger sets, and the ``gain`` bound on adding one parent;
* the end result: every network within ε of the optimum, found by the engines from the pruned
  table, equals brute force over all 29,281 DAGs of 5 variables scored from the unpruned table.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py import enumerate_networks
from gobnilp_py.data.continuous import as_continuous
from gobnilp_py.scoring import _gaussian_walk as W
from gobnilp_py.scoring import gaussian as G
from gobnilp_py.scoring.gaussian import gaussian_score_table
from gobnilp_py.scoring.gaussian_scores import GaussianScore
from gaussian_helpers import brute_force_set, collected, correlated_data

SCORES = ["bic-g", "aic-g", "bge"]


def _chol_logs(sc: GaussianScore, idx: list[int]) -> np.ndarray:
    """ln of the squared Cholesky pivots of M over idx (in that order)."""
    if not idx:
        return np.zeros(0)
    return 2.0 * np.log(np.diag(np.linalg.cholesky(sc.M[np.ix_(idx, idx)])))


def _hyper(draw_am, draw_extra, n):
    return {} if draw_am is None else {"alpha_mu": draw_am, "alpha_w": n + 1 + draw_extra}


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(2, 6), n_rows=st.integers(4, 300), seed=st.integers(0, 2**31 - 1),
       name=st.sampled_from(SCORES), limit_cut=st.integers(0, 3),
       am=st.sampled_from([None, 0.2, 3.0]), extra=st.sampled_from([0.3, 1.0, 20.0]))
def test_the_bounds_hold_on_every_parent_set(n, n_rows, seed, name, limit_cut, am, extra):
    rng = np.random.default_rng(seed)
    n_rows = max(n_rows, n + 2)
    x = correlated_data(rng, n, n_rows, scale=bool(seed % 2))
    kw = _hyper(am, extra, n) if name == "bge" else {}
    sc = GaussianScore(name, as_continuous(x), **kw)
    limit = max(0, n - 1 - limit_cut)
    b = sc.bounds(limit)
    lrC = b.ln_cond_all
    for y in range(n):
        cand = [v for v in range(n) if v != y]
        sets = [T for k in range(limit + 1) for T in itertools.combinations(cand, k)]
        s = {T: sc.local_score(y, T) for T in sets}
        tol = {T: 1e-9 * max(1.0, abs(v)) for T, v in s.items()}
        for X in sets:
            logs = _chol_logs(sc, list(X))
            ldet = float(sc.lnD[list(X)].sum() + logs.sum())
            ub = b.ceiling[y, len(X)] + sc.Cc * ldet
            for T in sets:
                if set(X) <= set(T):
                    assert s[T] <= ub + tol[T], ("ceiling", y, X, T, s[T], ub)
            for p0 in range(len(X) + 1):
                assert s[X] <= b.count_bound[y, p0] + tol[X], ("count", y, X, p0)
        for T in sets:
            for j in T:
                U = tuple(v for v in T if v != j)
                for k in range(len(U) + 1):
                    for Y in itertools.combinations(U, k):
                        lr_y = _chol_logs(sc, [*Y, y])[-1]
                        lr_j = _chol_logs(sc, [*Y, j])[-1]
                        gain = max(0.0, min(lr_y - lrC[y], lr_j - lrC[j]))
                        bound = -b.gain_cost[y, j] + b.gain_coef * gain
                        assert s[T] - s[U] <= bound + tol[T] + tol[U], ("gain", y, T, j, Y)
        if sc.Cc == 0.0 and limit == n - 1:
            # BIC-G/AIC-G: the ceiling is attained by the set of all other variables.
            full = tuple(cand)
            assert abs(s[full] - b.ceiling[y, n - 1]) <= 1e-9 * max(1.0, abs(s[full]))


problems = st.tuples(
    st.integers(7, 400),                    # rows
    st.floats(0.0, 8.0),                    # epsilon
    st.sampled_from(SCORES),
    st.sampled_from([None, "auto", 2]),     # palim
    st.integers(0, 2**31 - 1),              # seed
)


def _check_against_brute_force(x, name, eps, palim, **enum):
    full = gaussian_score_table(x, score=name, prune=False, palim=None if palim == "auto" else palim)
    expected = brute_force_set(full, eps)
    table = gaussian_score_table(x, score=name, epsilon=eps, palim=palim)
    assert len(table) <= len(full)
    cs = enumerate_networks(table, epsilon=eps, **enum)
    got = collected(cs)
    assert cs.complete and cs.reason is None
    assert set(got) == set(expected), (f"{len(got)} found vs {len(expected)} brute force; "
                                       f"missing {len(set(expected) - set(got))}, extra {len(set(got) - set(expected))}")
    for key, sc in expected.items():
        assert abs(got[key] - sc) <= 1e-9 * max(1.0, abs(sc))
    return table, full, cs


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems)
def test_epsilon_set_equals_brute_force_over_all_dags_of_five_variables(problem):
    n_rows, eps, name, palim, seed = problem
    rng = np.random.default_rng(seed)
    x = correlated_data(rng, 5, n_rows, density=float(rng.uniform(0.2, 0.8)), scale=bool(seed % 2))
    _check_against_brute_force(x, name, eps, palim)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems, st.sampled_from([("ilp", "dag"), ("ordergraph", "auto")]))
def test_epsilon_set_by_dag_and_by_order_graph_equals_brute_force(problem, how):
    n_rows, eps, name, palim, seed = problem
    rng = np.random.default_rng(seed)
    x = correlated_data(rng, 5, n_rows, scale=bool(seed % 2))
    method, by = how
    _check_against_brute_force(x, name, min(eps, 4.0), palim, method=method, by=by)


def test_pruning_fires_and_the_table_says_so():
    """Not a vacuous check: on sampled data every rule fires, the table records it and stays exact."""
    from gobnilp_py.examples.gaussian import random_linear_gaussian

    net = random_linear_gaussian(5, seed=10, mean_parents=1.0)
    x = net.sample(1000, seed=1)
    for name in SCORES:
        table, full, _ = _check_against_brute_force(x, name, 2.0, None)
        assert table.score_name == {"bic-g": "BIC-G", "aic-g": "AIC-G", "bge": "BGe"}[name]
        assert table.epsilon == 2.0 and table.meta["prune"] and table.meta["score_equivalent"]
        assert table.guarantee.startswith("epsilon-safe:") and table.safe_epsilon == 2.0
        assert full.guarantee.startswith("exact:") and full.safe_epsilon == float("inf")
        fired = {r: sum(counts[r] for counts in table.pruning.values()) for r in G.GAUSSIAN_RULES}
        if name != "aic-g":     # AIC's penalty is small: its tables are pruned by dominance mostly
            assert all(c > 0 for c in fired.values()), (name, fired)
        assert len(table) < len(full)


@pytest.mark.parametrize("name", SCORES)
def test_every_walk_store_and_the_interpreted_walk_give_the_same_table(name, monkeypatch):
    """Two-pass dense, look-ups over a dense array, look-ups over a hash table, compiled or not:
    the same families with the same scores (the two-pass walk scores some dominated sets the
    look-up walk never generates, so only its counters differ)."""
    rng = np.random.default_rng(3)
    x = correlated_data(rng, 8, 500)
    ref = gaussian_score_table(x, score=name, bayes_factor=20)
    assert set(ref.meta["walks"].values()) == {"two-pass"}

    def same(t, walk, counters=True):
        assert set(t.meta["walks"].values()) == {walk}
        assert [[ps for ps, _ in f] for f in t.families] == [[ps for ps, _ in f] for f in ref.families]
        for f, g in zip(t.families, ref.families):
            assert all(abs(a - b) <= 1e-12 * max(1.0, abs(b)) for (_, a), (_, b) in zip(f, g))
        return t

    monkeypatch.setattr(G, "TWO_PASS_MIN_FRACTION", None)
    lookup = same(gaussian_score_table(x, score=name, bayes_factor=20), "dense")
    assert lookup.meta["families_scored"] <= ref.meta["families_scored"]
    monkeypatch.setattr(G, "DENSE_MAX_BITS", 0)
    hashed = same(gaussian_score_table(x, score=name, bayes_factor=20), "hash")
    assert hashed.pruning == lookup.pruning and hashed.meta["families_scored"] == lookup.meta["families_scored"]
    if W.AVAILABLE:
        monkeypatch.setattr(W, "walk_child", W.walk_child.py_func)
        monkeypatch.setattr(W, "walk_child_dense", W.walk_child_dense.py_func)
        assert same(gaussian_score_table(x, score=name, bayes_factor=20), "hash").pruning == lookup.pruning
        monkeypatch.setattr(G, "DENSE_MAX_BITS", 26)
        assert same(gaussian_score_table(x, score=name, bayes_factor=20), "dense").pruning == lookup.pruning
        monkeypatch.setattr(G, "TWO_PASS_MIN_FRACTION", 0.25)
        assert same(gaussian_score_table(x, score=name, bayes_factor=20), "two-pass").pruning == ref.pruning


@pytest.mark.parametrize("walk", ["two-pass", "lookup"])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(problem=problems)
def test_both_walks_give_the_brute_force_epsilon_set(walk, problem):
    n_rows, eps, name, palim, seed = problem
    rng = np.random.default_rng(seed)
    x = correlated_data(rng, 5, n_rows, density=float(rng.uniform(0.2, 0.8)), scale=bool(seed % 2))
    old = G.TWO_PASS_MIN_FRACTION
    G.TWO_PASS_MIN_FRACTION = 0.0 if walk == "two-pass" else None
    try:
        table, _, _ = _check_against_brute_force(x, name, eps, palim)
    finally:
        G.TWO_PASS_MIN_FRACTION = old
    assert set(table.meta["walks"].values()) == ({"two-pass"} if walk == "two-pass" else {"dense"})


def test_unpruned_variables_keep_every_parent_set():
    x = correlated_data(np.random.default_rng(4), 6, 300)
    t = gaussian_score_table(x, score="bic-g", bayes_factor=3, unpruned=["2"])
    assert len(t.families[2]) == 2**5 and t.meta["unpruned"] == ["2"]
    assert "2" not in t.pruning or not any(t.pruning["2"].values())
    assert all(len(t.families[v]) < 2**5 for v in (0, 1, 3, 4, 5))


def test_palim_auto_is_the_parent_count_bound_and_safe():
    x = correlated_data(np.random.default_rng(5), 6, 200)
    t = gaussian_score_table(x, score="bge", bayes_factor=3, palim="auto")
    assert t.meta["palim"] == "auto" and t.meta["palim_auto"] == t.meta["max_parents"]
    assert all(len(ps) <= t.meta["palim_auto"][t.names[v]] for v, fams in enumerate(t.families) for ps, _ in fams)
    assert not t.is_unpruned and t.safe_epsilon == pytest.approx(np.log(3))
    # An unpruned variable (a structural constraint involves it) keeps its whole lattice.
    tight = min(t.names, key=lambda v: t.meta["max_parents"][v])
    assert t.meta["max_parents"][tight] < 5
    u = gaussian_score_table(x, score="bge", bayes_factor=3, palim="auto", unpruned=[tight])
    assert u.meta["palim_auto"][tight] == 5 and len(u.families[u.index(tight)]) == 2**5


def test_memory_limit_of_the_hash_table_is_a_one_line_error(monkeypatch):
    monkeypatch.setattr(G, "DENSE_MAX_BITS", 0)
    x = correlated_data(np.random.default_rng(6), 14, 300)
    with pytest.raises(G.ScoreError, match=r"parent sets of '\d+' reached need more than the memory limit") as info:
        gaussian_score_table(x, score="bic-g", prune=False, memory_limit=20_000)
    assert "\n" not in str(info.value)


CONFIGS = {"two-pass": (26, 0.25), "dense": (26, None), "hash": (0, None)}


def test_without_numba_the_same_tables(tmp_path, monkeypatch):
    """numba is optional: with it blocked, each walk runs as plain Python and gives the same table."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    x = correlated_data(np.random.default_rng(8), 6, 300)
    np.save(tmp_path / "x.npy", x)
    code = f"""
import sys, json, numpy as np
sys.modules["numba"] = None
from gobnilp_py.scoring import _gaussian_walk as W, gaussian as G
assert not W.AVAILABLE
x = np.load({str(tmp_path / "x.npy")!r})
out = {{}}
for name in ("bic-g", "bge"):
    for walk, (bits, frac) in {CONFIGS!r}.items():
        G.DENSE_MAX_BITS, G.TWO_PASS_MIN_FRACTION = bits, frac
        t = G.gaussian_score_table(x, score=name, bayes_factor=5)
        out[name + walk] = [t.families, t.pruning, t.meta["compiled"], t.meta["walks"]]
print(json.dumps(out))
"""
    root = Path(__file__).resolve().parents[1]
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert res.returncode == 0, res.stderr[-2000:]
    got = json.loads(res.stdout)
    for name in ("bic-g", "bge"):
        for walk, (bits, frac) in CONFIGS.items():
            monkeypatch.setattr(G, "DENSE_MAX_BITS", bits)
            monkeypatch.setattr(G, "TWO_PASS_MIN_FRACTION", frac)
            ref = gaussian_score_table(x, score=name, bayes_factor=5)
            families, pruning, compiled, walks = got[name + walk]
            assert compiled is False and set(walks.values()) == {walk} and pruning == ref.pruning
            fams = [[[list(ps), sc] for ps, sc in f] for f in ref.families]
            assert [[p for p, _ in f] for f in families] == [[p for p, _ in f] for f in fams]
            for a, b in zip(families, fams):
                assert all(abs(s1 - s2) <= 1e-12 * max(1.0, abs(s2)) for (_, s1), (_, s2) in zip(a, b))
