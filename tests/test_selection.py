"""Independence selection (Scanagatta et al. 2015, §3): BIC*, its error bound, and the selected lists.

Oracles: empirical entropies computed here from ``np.unique`` counts (for
Theorem 1 and Corollary 1), and the exact pruned table of
``gobnilp_py.score(data, palim=d)`` (for the unlimited-budget list).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py import ScoreError, score
from gobnilp_py.data.dataset import Dataset
from gobnilp_py.scoring import BIC, ParentConfigs
from gobnilp_py.scoring.selection import bic_star, independence_selection, select_parents
from random_problems import random_data

REL = 1e-9


def _dataset(codes: np.ndarray) -> Dataset:
    codes = np.asarray(codes, dtype=np.int64)
    ar = np.maximum(codes.max(axis=0) + 1, 1)
    return Dataset(tuple(f"x{i}" for i in range(codes.shape[1])), ar, codes)


def _entropy(codes: np.ndarray, cols: list[int]) -> float:
    """Empirical entropy (nats) of the joint of ``cols``."""
    if not cols:
        return 0.0
    _, counts = np.unique(codes[:, cols], axis=0, return_counts=True)
    p = counts / codes.shape[0]
    return float(-(p * np.log(p)).sum())


def _ll_and_score(ds: Dataset, child: int, parents: tuple[int, ...]) -> tuple[float, float]:
    sc = BIC(ds)
    res = sc.batch(ParentConfigs(ds).family_counts(tuple(sorted(parents)), np.array([child])))
    return float(res.ll[0]), float(res.scores[0])


@st.composite
def theorem_cases(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(3, 6))
    N = draw(st.sampled_from([50, 200, 1000, 5000]))
    codes = random_data(rng, n, N)
    child = draw(st.integers(0, n - 1))
    others = [j for j in range(n) if j != child]
    perm = rng.permutation(others).tolist()
    k1 = draw(st.integers(1, len(others) - 1))
    k2 = draw(st.integers(1, len(others) - k1))
    return codes, child, tuple(sorted(perm[:k1])), tuple(sorted(perm[k1:k1 + k2]))


@settings(max_examples=60, deadline=None)
@given(theorem_cases())
def test_theorem1_and_corollary1(case):
    """BIC = BIC* + N·ii(Π₁;Π₂;X) to 1e-9; |BIC − BIC*| ≤ N·min(H(X), H(Π₁), H(Π₂)); the paper's inter form."""
    codes, x, p1, p2 = case
    ds = _dataset(codes)
    N = ds.N
    ll1, s1 = _ll_and_score(ds, x, p1)
    ll2, s2 = _ll_and_score(ds, x, p2)
    ll0, s0 = _ll_and_score(ds, x, ())
    _, s12 = _ll_and_score(ds, x, p1 + p2)
    sc = BIC(ds)
    pen = sc.penalty(x, p1 + p2)
    star = bic_star(ll1, ll2, ll0, pen)
    # interaction information ii(A;B;C) = I(A;B|C) - I(A;B), A = Π₁, B = Π₂, C = X, from entropies
    H = lambda cols: _entropy(codes, cols)  # noqa: E731
    a, b, c = list(p1), list(p2), [x]
    i_ab = H(a) + H(b) - H(a + b)
    i_ab_c = H(a + c) + H(b + c) - H(a + b + c) - H(c)
    ii = i_ab_c - i_ab
    scale = max(1.0, abs(s12))
    assert s12 == pytest.approx(star + N * ii, rel=REL, abs=REL * scale)
    bound = N * min(H(c), H(a), H(b))
    assert abs(s12 - star) <= bound + REL * scale
    # the paper's equation (1): BIC(Π₁) + BIC(Π₂) + inter, inter = coef (r-1)(q1 + q2 - q1 q2 - 1) - BIC(∅)
    r = int(ds.arities[x])
    q1 = math.prod(int(ds.arities[p]) for p in p1)
    q2 = math.prod(int(ds.arities[p]) for p in p2)
    inter = sc.coef * (r - 1) * (q1 + q2 - q1 * q2 - 1) - s0
    assert star == pytest.approx(s1 + s2 + inter, rel=REL, abs=REL * scale)


@st.composite
def small_data(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, 6))
    N = draw(st.integers(20, 300))
    codes = random_data(rng, n, N)
    if ((codes.max(axis=0) + 1) < 2).any():  # constant columns: IS drops constant parents (see its docstring)
        codes[0, :] = 1
    return codes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_data(), st.sampled_from([1, 2, 3, None]))
def test_unlimited_budget_equals_exact_pruned_table(codes, d):
    """With every variable a candidate, no caps and in-degree d, IS keeps exactly score(data, palim=d)."""
    ds = _dataset(codes)
    exact = score(ds, palim=d)
    table = independence_selection(ds, palim=d, candidate_limit=None,
                                   max_evaluations=10**9, n_jobs=1)
    assert table.meta["approximate"] is True
    assert table.meta["variables_exhausted"] == ds.n
    for v in range(ds.n):
        want, got = dict(exact.families[v]), dict(table.families[v])
        assert got.keys() == want.keys()
        for ps, s in want.items():
            assert got[ps] == pytest.approx(s, rel=REL, abs=REL)


def _kept_invariants(ds: Dataset, table) -> None:
    """∅ kept; every kept score is the exact BIC; no kept set has a kept subset scoring at least as well."""
    sc = BIC(ds)
    for v, fams in enumerate(table.families):
        sets = dict(fams)
        assert () in sets
        for ps, s in fams:
            assert s == pytest.approx(sc.compute(v, ps), rel=REL, abs=REL)
            for other, s2 in fams:
                if set(other) < set(ps):
                    assert s2 < s + REL * max(1.0, abs(s))


def test_budgeted_selection_is_deterministic_and_anytime():
    """Same budget, same table (in one process or several); a larger budget never loses a variable's best score."""
    rng = np.random.default_rng(7)
    codes = random_data(rng, 34, 300)
    ds = _dataset(codes)
    kw = dict(max_evaluations=80, candidate_limit=12)
    a = independence_selection(ds, n_jobs=1, **kw)
    b = independence_selection(ds, n_jobs=2, **kw)
    assert a.families == b.families
    assert a.meta["workers"] == 1 and b.meta["workers"] == 2
    assert all(r["explored"] <= 80 for r in a.meta["selection"].values())
    assert a.epsilon is None and a.meta["method"] == "independence selection"
    _kept_invariants(ds, a)
    c = independence_selection(ds, n_jobs=1, max_evaluations=200, candidate_limit=12)
    for v in range(ds.n):
        assert c.families[v][0][1] >= a.families[v][0][1] - 1e-12


def test_candidate_limit_and_time_budget():
    """Candidates are the best single parents; a time budget stops the search and says so."""
    rng = np.random.default_rng(3)
    ds = _dataset(random_data(rng, 8, 400))
    res = select_parents(ds, 0, candidate_limit=2, max_evaluations=10**6)
    sc = BIC(ds)
    singles = sorted(((sc.compute(0, (j,)), j) for j in range(1, 8)), key=lambda t: (-t[0], t[1]))
    allowed = {singles[0][1], singles[1][1]}
    assert res.candidates == 2 and res.exhausted
    for ps, _ in res.families:
        assert len(ps) <= 1 or set(ps) <= allowed
    tiny = select_parents(ds, 0, time_budget=1e-9)
    assert tiny.stopped_by == "time" and tiny.families[0][0] == ()


def test_bad_settings_are_one_line_errors():
    ds = _dataset(random_data(np.random.default_rng(0), 3, 50))
    with pytest.raises(ScoreError, match="penalised"):
        independence_selection(ds, score="BDeu", n_jobs=1)
    with pytest.raises(ScoreError, match="time_limit"):
        independence_selection(ds, time_limit=-1)
    with pytest.raises(ScoreError, match="max_evaluations"):
        independence_selection(ds, max_evaluations=0)
    with pytest.raises(ScoreError, match="n_jobs"):
        independence_selection(ds, n_jobs=0)
    with pytest.raises(ScoreError, match="not both"):
        independence_selection(ds, time_limit=1, time_per_variable=1)


def test_selection_on_a_dask_cluster_is_the_local_table(tmp_path, monkeypatch):
    """``backend="dask"``: every variable a task of the cluster (2 workers x 2 threads in one process, so
    two variables share a worker process at once), the same table as in one process; the budget is spread
    over the cluster's 4 task slots; a learn from data with ``backend="dask"`` selects there too."""
    distributed = pytest.importorskip("distributed")
    import dask

    from gobnilp_py import learn
    from gobnilp_py.scoring import selection

    on_cluster: list[int] = []
    real = selection._select_on_dask
    monkeypatch.setattr(selection, "_select_on_dask",
                        lambda client, ds, *a: on_cluster.append(ds.n) or real(client, ds, *a))
    ds = _dataset(random_data(np.random.default_rng(11), 12, 300))
    kw = dict(max_evaluations=60, candidate_limit=8)
    local = independence_selection(ds, n_jobs=1, **kw)
    seen: list[tuple[int, int]] = []
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=False,
                                     dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        on_dask = independence_selection(ds, backend="dask", scheduler=client,
                                         progress=lambda _what, i, n: seen.append((i, n)), **kw)
        timed = independence_selection(ds, backend="dask", scheduler=client, time_limit=1.2, candidate_limit=8)
        net = learn(ds, method="asobs", n_orders=4, seed=1, max_evaluations=60, candidate_limit=8,
                    backend="dask", scheduler=client)
    assert on_dask.families == local.families
    assert on_dask.meta["backend"] == "dask" and on_dask.meta["workers"] == 4
    assert seen == [(i, 12) for i in range(1, 13)]
    assert timed.meta["time_per_variable"] == pytest.approx(1.2 * 4 / 12)
    assert net.approximate and on_cluster == [12, 12, 12]     # the two calls above, then learn's selection


@pytest.mark.parametrize("kw, word", [({"backend": "dask"}, "scheduler"), ({"scheduler": "tcp://h:1"}, "scheduler"),
                                      ({"backend": "gpu"}, "backend")])
def test_selection_backend_refusals_in_one_line(kw, word):
    ds = _dataset(random_data(np.random.default_rng(0), 3, 50))
    with pytest.raises(ScoreError, match=word) as info:
        independence_selection(ds, **kw)
    assert "\n" not in str(info.value)
