"""ε-BNSL collection and k-best, checked against brute force over every DAG.

The oracle scores every DAG on n <= 5 nodes from an *unpruned* score table
(every parent set), so it is independent of pruning, of the ILP and of the
collector; the local scores themselves are checked against a direct
implementation of the formulas in ``test_local_scores.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py import (
    ParameterError,
    ScoreError,
    ScoreTable,
    StructuralConstraints,
    enumerate_networks,
    kbest,
    read_data,
    score,
)
from random_problems import random_data
from oracle_dags import dag_scores

TOL = 1e-8


def brute_force(full: ScoreTable, eps: float, cons: StructuralConstraints | None = None
                ) -> dict[tuple[tuple[int, ...], ...], float]:
    """Every DAG within eps of the optimum (over DAGs satisfying cons), keyed by parent tuples."""
    n = full.n
    dags, scores = dag_scores(full)
    ok = np.isfinite(scores)
    if cons is not None:
        for d in np.flatnonzero(ok):
            parents = {full.names[v]: tuple(full.names[p] for p in range(n) if dags[d, v] >> p & 1) for v in range(n)}
            ok[d] = cons.is_satisfied(parents)
    if not ok.any():
        return {}
    opt = scores[ok].max()
    keep = np.flatnonzero(ok & (scores >= opt - eps - 1e-9 * max(1.0, abs(opt))))
    out = {}
    for d in keep:
        key = tuple(tuple(p for p in range(n) if dags[d, v] >> p & 1) for v in range(n))
        out[key] = float(scores[d])
    return out


def collected(cs) -> dict[tuple[tuple[int, ...], ...], float]:
    out = {}
    for net in cs.networks:
        assert net.key not in out, "duplicate network in the collection"
        out[net.key] = net.score
    return out


def assert_same(cs, expected):
    got = collected(cs)
    assert set(got) == set(expected), (f"{len(got)} collected vs {len(expected)} brute force; "
                                       f"missing {len(set(expected) - set(got))}, extra {len(set(got) - set(expected))}")
    for key, sc in expected.items():
        assert abs(got[key] - sc) <= TOL * max(1.0, abs(sc))
    assert cs.complete and cs.reason is None


problems = st.tuples(
    st.integers(2, 5),                      # n
    st.integers(15, 120),                   # rows
    st.floats(0.0, 8.0),                    # epsilon
    st.sampled_from(["BIC", "BDeu"]),
    st.booleans(),                          # prune
    st.integers(0, 2**31 - 1),              # seed
)


@settings(max_examples=200, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems)
def test_class_level_enumeration_equals_brute_force(problem):
    n, n_rows, eps, score_name, prune, seed = problem
    rng = np.random.default_rng(seed)
    data = read_data(random_data(rng, n, n_rows))
    full = score(data, score=score_name, prune=False)
    expected = brute_force(full, eps)
    cs = enumerate_networks(data, epsilon=eps, score=score_name, prune=prune, method="ilp", by="class")
    assert cs.stats["by"] == "class"
    assert_same(cs, expected)
    assert cs.n_networks_total == len(expected)
    assert cs.n_classes_total == len({c.key for c in cs.mecs()})
    assert abs(cs.opt - max(expected.values())) <= TOL * max(1.0, abs(cs.opt))
    # best first, ties in canonical order
    order = [(-net.score, net.key) for net in cs.networks]
    assert order == sorted(order)


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems)
def test_dag_level_enumeration_equals_brute_force(problem):
    n, n_rows, eps, score_name, prune, seed = problem
    rng = np.random.default_rng(seed)
    data = read_data(random_data(rng, n, n_rows))
    expected = brute_force(score(data, score=score_name, prune=False), eps)
    cs = enumerate_networks(data, epsilon=eps, score=score_name, prune=prune, method="ilp", by="dag")
    assert cs.stats["by"] == "dag"
    assert_same(cs, expected)


def test_ties_at_the_boundary_are_kept():
    # Two variables: 3 DAGs. Scores chosen so that A->B is exactly eps below the optimum.
    t = ScoreTable(["A", "B"], [[((), -10.0), ((1,), -12.0)], [((), -10.0), ((0,), -11.5)]], epsilon=10.0)
    cs = enumerate_networks(t, epsilon=1.5, method="ilp")
    keys = {net.key for net in cs.networks}
    assert keys == {((), ()), ((), (0,))}
    cs = enumerate_networks(t, epsilon=2.0, method="ilp")
    assert len(cs) == 3


CONSTRAINT_CASES = [
    dict(forbidden_arrows=[("0", "1")]),
    dict(required_arrows=[("1", "0")]),
    dict(tiers=[["0", "1"], ["2", "3"]]),
    dict(max_parents=1),
    dict(max_parents_per_variable={"2": 1}),
    dict(required_adjacencies=[("0", "2")]),
    dict(forbidden_adjacencies=[("1", "2")]),
    dict(max_edges=2),
    dict(min_edges=4),
    dict(required_immoralities=[("0", "2", "1")]),
    dict(forbidden_immoralities=[("0", "2", "1")]),
]


@pytest.mark.parametrize("by", ["class", "dag"])
@pytest.mark.parametrize("case", range(len(CONSTRAINT_CASES)))
@pytest.mark.parametrize("seed", range(4))
def test_enumeration_with_constraints_equals_brute_force(case, seed, by):
    rng = np.random.default_rng(1000 + seed)
    data = read_data(random_data(rng, 4, 60))
    cons = StructuralConstraints(**CONSTRAINT_CASES[case])
    eps = float(rng.uniform(0, 6))
    score_name = "BIC" if seed % 2 else "BDeu"
    full = score(data, score=score_name, prune=False)
    expected = brute_force(full, eps, cons)
    cs = enumerate_networks(data, epsilon=eps, constraints=cons, method="ilp", by=by, score=score_name)
    if cs.infeasible:
        assert expected == {}
        return
    assert_same(cs, expected)
    assert cs.n_networks_total == len(expected)
    for net in cs.networks:
        assert cons.is_satisfied(net)


@pytest.mark.parametrize("seed", range(6))
def test_class_level_counts_and_averages_cover_the_whole_set_past_the_cap(seed):
    """Cut at the network cap, a class-level collection still counts and averages over every credible network."""
    rng = np.random.default_rng(77 + seed)
    data = read_data(random_data(rng, 5, 40))
    eps = 4.0
    full = enumerate_networks(data, epsilon=eps, method="ilp", by="dag", max_networks=None)
    assert full.complete and len(full) > 6
    palim = 2 if seed % 2 else None  # a parent limit forces the counting-by-listing path
    if palim is not None:
        full = enumerate_networks(data, epsilon=eps, method="ilp", by="dag", max_networks=None, palim=palim)
    cap = max(1, len(full) // 3)
    cut = enumerate_networks(data, epsilon=eps, method="ilp", by="class", max_networks=cap, palim=palim)
    assert not cut.complete and cut.reason == "max_networks" and len(cut) == cap
    assert cut.n_networks_total == len(full) and cut.n_classes_total == full.n_mecs
    assert cut.averages_over == "all credible networks"
    assert np.allclose(cut.edge_probabilities().to_numpy(), full.edge_probabilities().to_numpy(), atol=1e-12)
    assert np.allclose(cut.arrow_probabilities().to_numpy(), full.arrow_probabilities().to_numpy(), atol=1e-12)
    # best first: the listed networks are the best ones
    assert cut.networks[-1].score >= full.networks[cap - 1].score - 1e-9 * abs(full.opt)


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 4), st.integers(20, 100), st.integers(1, 40), st.sampled_from(["BIC", "BDeu"]),
       st.integers(0, 2**31 - 1))
def test_kbest_equals_top_of_brute_force_ranking(n, n_rows, k, score_name, seed):
    rng = np.random.default_rng(seed)
    data = read_data(random_data(rng, n, n_rows))
    full = score(data, score=score_name, prune=False)
    ranking = sorted(brute_force(full, math.inf).items(), key=lambda t: (-t[1], t[0]))
    cs = kbest(data, k, score=score_name, method="ilp")
    kth = ranking[min(k, len(ranking)) - 1][1]
    want = [r for r in ranking if r[1] >= kth - 1e-9 * max(1.0, abs(kth))]  # the k best and every tie of the k-th
    assert len(cs) == len(want)
    got = [(net.key, net.score) for net in cs.networks]
    # same scores in the same order; ties resolved canonically (by key) on both sides
    for (gk, gs), (wk, ws) in zip(got, want):
        assert abs(gs - ws) <= TOL * max(1.0, abs(ws))
    tie_free = [w for w in want if sum(abs(w[1] - x[1]) <= 1e-9 * max(1, abs(x[1])) for x in ranking) == 1]
    got_keys = {g[0] for g in got}
    for wk, _ in tie_free:
        assert wk in got_keys
    assert cs.complete


def test_kbest_on_table_is_deterministic():
    rng = np.random.default_rng(7)
    data = read_data(random_data(rng, 4, 80))
    t = score(data, prune=False)
    a = kbest(t, 12, method="ilp")
    b = kbest(t, 12, method="ilp")
    assert [n.key for n in a] == [n.key for n in b]


def test_network_cap_gives_incomplete_result():
    rng = np.random.default_rng(3)
    data = read_data(random_data(rng, 4, 30))
    full = enumerate_networks(data, epsilon=6.0, method="ilp")
    assert len(full) > 5
    capped = enumerate_networks(data, epsilon=6.0, max_networks=5, method="ilp")
    assert not capped.complete and capped.reason == "max_networks"
    assert len(capped) <= 5
    assert {n.key for n in capped} <= {n.key for n in full}


def test_time_limit_in_collection_keeps_the_optimum(monkeypatch):
    """A collection cut short still reports every network found, phase 1's optimum included."""
    import gobnilp_py.ilp.engine as en

    real = en._collect

    def hurried(*args, **kwargs):
        kwargs["time_limit"] = 1e-9  # SCIP stops at once: nothing collected
        return real(*args, **kwargs)

    monkeypatch.setattr(en, "_collect", hurried)
    rng = np.random.default_rng(5)
    data = read_data(random_data(rng, 4, 60))
    cs = enumerate_networks(data, epsilon=3.0, time_limit=100, method="ilp")
    assert not cs.complete and cs.reason == "time_limit"
    assert len(cs) >= 1 and cs.networks[0].score == pytest.approx(cs.opt)


def test_bad_settings():
    data = read_data(np.array([[0, 1], [1, 0], [1, 1]]))
    with pytest.raises(ParameterError, match="either bayes_factor or epsilon"):
        enumerate_networks(data, bayes_factor=3, epsilon=1, method="ilp")
    with pytest.raises(ParameterError, match="bayes_factor must be a number >= 1"):
        enumerate_networks(data, bayes_factor=0.5, method="ilp")
    with pytest.raises(ParameterError, match="give a bayes_factor"):
        enumerate_networks(data, method="ilp")
    with pytest.raises(ParameterError, match="max_networks must be an integer >= 1"):
        enumerate_networks(data, bayes_factor=3, max_networks=0, method="ilp")
    with pytest.raises(ParameterError, match="k must be an integer >= 1"):
        kbest(data, 0, method="ilp")
    t = score(read_data(random_data(np.random.default_rng(1), 5, 200)), epsilon=0.5)
    assert not t.is_unpruned  # (an unpruned table is safe for every gap and would be accepted)
    with pytest.raises(ScoreError, match="pruned for epsilon=0.5"):
        enumerate_networks(t, epsilon=2.0, method="ilp")


def test_model_averaging_and_classes():
    rng = np.random.default_rng(11)
    data = read_data(random_data(rng, 4, 50))
    cs = enumerate_networks(data, bayes_factor=20, method="ilp")
    ep = cs.edge_probabilities()
    assert ((ep.values >= -1e-12) & (ep.values <= 1 + 1e-12)).all()
    assert np.allclose(ep.values, ep.values.T)
    assert sum(c.size for c in cs.mecs()) == len(cs)
    df = cs.to_dataframe()
    assert list(df["rank"]) == list(range(1, len(cs) + 1))
    d = cs.to_dict()
    assert d["n_networks"] == len(cs) and d["complete"] is True and d["n_mecs"] == cs.n_mecs


@pytest.mark.parametrize("cons_kwargs", [
    dict(required_arrows=[("2", "0")]),
    dict(required_adjacencies=[("1", "3")]),
    dict(forbidden_immoralities=[("0", "2", "1")]),
    dict(required_immoralities=[("0", "3", "1")]),
])
@pytest.mark.parametrize("seed", range(6))
def test_constraint_aware_pruning_is_exact_and_still_prunes(cons_kwargs, seed):
    """Only the variables a constraint involves lose pruning; the result still equals brute force."""
    rng = np.random.default_rng(50 + seed)
    data = read_data(random_data(rng, 5, 80))
    cons = StructuralConstraints(**cons_kwargs)
    eps = float(rng.uniform(0, 5))
    full = score(data, prune=False)
    expected = brute_force(full, eps, cons)
    cs = enumerate_networks(data, epsilon=eps, constraints=cons, method="ilp")
    assert_same(cs, expected)
    unpruned = cons.unprunable(data.names)
    partial = score(data, epsilon=eps, unpruned=sorted(unpruned))
    for v in data.names:
        if v in unpruned:
            assert len(partial.parent_sets(v)) == len(full.parent_sets(v))


# ------------------------------------------------------- collection speed-ups stay exact
def test_network_cap_records_exactly_the_cap():
    rng = np.random.default_rng(3)
    data = read_data(random_data(rng, 4, 30))
    for cap in (1, 5, 9):
        capped = enumerate_networks(data, epsilon=6.0, max_networks=cap, method="ilp")
        assert not capped.complete and capped.reason == "max_networks"
        assert len(capped) == cap


@pytest.mark.parametrize("seed", range(3))
def test_user_params_override_collection_settings_and_stay_exact(seed):
    # Heuristics back on, best-bound node selection, conflict analysis on: the answer must not change.
    rng = np.random.default_rng(900 + seed)
    data = read_data(random_data(rng, 5, 80))
    full = score(data, prune=False)
    expected = brute_force(full, 4.0)
    params = {"heuristics/rounding/freq": 1, "nodeselection/dfs/stdpriority": 0, "conflict/enable": True}
    cs = enumerate_networks(data, epsilon=4.0, params=params, method="ilp")
    assert_same(cs, expected)


def test_progress_hook_reports_scoring_levels_and_collection():
    calls = []

    def hook(phase, done, total=None, **info):
        calls.append((phase, done, total, info))

    rng = np.random.default_rng(21)
    data = read_data(random_data(rng, 5, 200))
    cs = enumerate_networks(data, epsilon=4.0, progress=hook, method="ilp")
    levels = [c for c in calls if c[0] == "scoring"]
    assert levels and [c[1] for c in levels] == list(range(1, len(levels) + 1))
    assert all("families" in c[3] for c in levels)
    collecting = [c for c in calls if c[0] == "collecting"]
    assert collecting, "the collector reports at least once"
    assert collecting[0][2] == 150_000 and "bound" in collecting[0][3] and "elapsed" in collecting[0][3]
    assert all(0 <= c[1] <= cs.stats["found"] for c in collecting)


def test_bundled_example_matches_independent_dp_kbest():
    """The README's main job (Asia, BDeu, palim 3, two forbidden arrows, BF 20) against Tian et al.'s DP."""
    from gobnilp_py import example_path
    from gobnilp_py import kbest

    data = read_data(example_path("asia"))
    cons = StructuralConstraints(forbidden_arrows=[("dysp", "asia"), ("xray", "asia")])
    eps = math.log(20)
    table = score(data, score="BDeu", palim=3, epsilon=eps)
    cs = enumerate_networks(table, epsilon=eps, constraints=cons, method="ilp")
    ranked = kbest(cons.filter_table(table), len(cs) + 50, method="dp", ties=False)
    opt = ranked.networks[0].score
    within = {n.key for n in ranked.networks if n.score >= opt - eps - 1e-9 * abs(opt)}
    assert len(ranked) == len(cs) + 50  # the DP list reaches past the boundary
    assert cs.complete and {n.key for n in cs.networks} == within


@pytest.mark.parametrize("by", ["class", "dag"])
@pytest.mark.parametrize("nodes", [1, 5, 30])
def test_threshold_of_a_cut_short_collection_is_certified(by, nodes):
    """A collection stopped early lists every credible network scoring >= its threshold (checked on the full set)."""
    rng = np.random.default_rng(2024)
    data = read_data(random_data(rng, 5, 50))
    eps = 5.0
    full = enumerate_networks(data, epsilon=eps, method="ilp", by="dag", max_networks=None)
    assert full.complete
    part = enumerate_networks(data, epsilon=eps, method="ilp", by=by, max_networks=None,
                              params={"limits/nodes": nodes})
    if part.complete:
        assert {n.key for n in part.networks} == {n.key for n in full.networks}
        return
    assert part.reason == "node_limit"
    assert part.threshold is not None
    if part.threshold > part.opt:  # an empty guarantee is said plainly, not as a number above OPT
        assert "nothing is certified beyond the networks listed" in part.guarantee
    else:
        assert "is listed" in part.guarantee
    listed = {n.key for n in part.networks}
    assert all(n.key in listed for n in full.networks if n.score >= part.threshold)
    assert [n.score for n in part.networks] == sorted((n.score for n in part.networks), reverse=True)


def test_a_threshold_above_opt_is_worded_as_no_guarantee():
    from gobnilp_py.solve.credible import CredibleSet

    cs = CredibleSet(-10.0, 1.0, False, "time_limit", [], kind="bayes_factor", threshold=-9.5)
    assert "nothing is certified beyond the networks listed" in cs.guarantee and "-9.5" not in cs.guarantee
    cs = CredibleSet(-10.0, 1.0, False, "time_limit", [], kind="bayes_factor", threshold=-10.5)
    assert "every such network scoring >= -10.500000 is listed" in cs.guarantee
