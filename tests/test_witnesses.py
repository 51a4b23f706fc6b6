"""The certified k-best gap (``gobnilp_py.search.witnesses``) against brute force.

The oracle scores every DAG a table allows on n <= 5 nodes (``oracle_dags``)
with ``math.fsum``, as the engines do.  Checked: the gap ``ε_k`` is never
smaller than ``OPT - s_(k)`` (the true gap of the k-th best network, so every
network tied with the k-th lies inside it too); the witnesses are distinct
DAGs of the table with the scores given, and exactly the best DAGs consistent
with a topological order of the optimum; the witness count is exact; and a
table scored for ``ε_k`` gives every k-best method the brute-force answer.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py import ConfigError, ScoreError, ScoreTable, kbest, read_data, score
from gobnilp_py.equivalence.cpdag import class_key
from gobnilp_py.search.witnesses import (
    certified_gap,
    count_witnesses,
    equivalent_networks,
    topological_orders,
    witnesses,
)
from oracle_dags import all_dags_array
from random_problems import random_data, random_table


def ranking(table: ScoreTable) -> list[tuple[tuple[int, ...], float]]:
    """Every DAG the table allows as (family positions, fsum score), best first."""
    n = table.n
    where = [{sum(1 << p for p in ps): i for i, (ps, _) in enumerate(fams)} for fams in table.families]
    out = []
    for row in all_dags_array(n):
        pos = []
        for v in range(n):
            i = where[v].get(int(row[v]))
            if i is None:
                break
            pos.append(i)
        else:
            out.append((tuple(pos), math.fsum(table.families[v][i][1] for v, i in enumerate(pos))))
    out.sort(key=lambda t: (-t[1], t[0]))
    return out


def consistent(table: ScoreTable, pos, order) -> bool:
    before = {v: set(order[:i]) for i, v in enumerate(order)}
    return all(set(table.families[v][c][0]) <= before[v] for v, c in enumerate(pos))


def witness_orders(table: ScoreTable, chosen, equivalent: int = 64) -> list[list[int]]:
    orders: list[list[int]] = []
    for net in equivalent_networks(table, chosen, max(1, equivalent)):
        for o in topological_orders(table, net):
            if o not in orders:
                orders.append(o)
    return orders


def check_case(table: ScoreTable, k: int, equivalent: int = 64) -> bool:
    """All properties for one table and k; returns whether a finite gap was certified."""
    truth = ranking(table)
    chosen, opt = truth[0]
    eps, n_wit = certified_gap(table, chosen, k, equivalent=equivalent)
    orders = witness_orders(table, chosen, equivalent)
    pool = [(pos, sc) for pos, sc in truth if any(consistent(table, pos, o) for o in orders)]
    assert math.isfinite(eps) == (len(pool) >= k)
    if len(pool) < k:
        assert n_wit == len(pool)
    else:
        assert k <= n_wit <= len(pool)
    if len(orders) == 1:
        assert n_wit == len(pool) == count_witnesses(table, chosen, orders)
    wit = witnesses(table, chosen, k, equivalent=equivalent)
    assert len(wit) == min(k, len(pool))
    assert len({pos for _, pos in wit}) == len(wit), "a witness is listed twice"
    allowed = dict(truth)
    for sc, pos in wit:
        assert allowed[pos] == sc  # a DAG of the table, with that exact score
    # the witnesses are the best DAGs consistent with one of the orders (scores entry by entry)
    assert [sc for sc, _ in wit] == [sc for _, sc in pool[:k]]
    if math.isfinite(eps):
        assert eps >= 0
        kth = truth[min(k, len(truth)) - 1][1]
        assert eps >= opt - kth, f"gap {eps} below the k-th best network's {opt - kth}"
        # every network scoring at least the k-th (ties included) lies within eps
        assert all(opt - sc <= eps for _, sc in truth if sc >= kth)
    if k == 1:
        assert eps == 0.0
    return math.isfinite(eps)


# ------------------------------------------------------------ random tables
@settings(max_examples=220, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(1, 5), st.integers(1, 80), st.booleans(), st.sampled_from([0, 1, 3, 64]),
       st.integers(0, 2 ** 31 - 1))
def test_gap_is_certified_on_random_tables(n, k, ties, equivalent, seed):
    check_case(random_table(np.random.default_rng(seed), n, ties=ties, empty=True), k, equivalent)


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 5), st.integers(10, 80), st.integers(1, 300), st.sampled_from(["BIC", "BDeu", "AIC"]),
       st.booleans(), st.integers(0, 2 ** 31 - 1))
def test_gap_is_certified_on_scored_tables(n, n_rows, k, name, prune, seed):
    data = read_data(random_data(np.random.default_rng(seed), n, n_rows))
    check_case(score(data, score=name, prune=prune), k)


def test_gaps_are_mostly_finite_and_sometimes_tight():
    rng = np.random.default_rng(8)
    finite = tight = 0
    for _ in range(60):
        table = random_table(rng, 4, ties=False, empty=True)
        truth = ranking(table)
        for k in (2, 5, 20):
            eps, _ = certified_gap(table, truth[0][0], k)
            finite += math.isfinite(eps)
            tight += math.isfinite(eps) and eps == pytest.approx(truth[0][1] - truth[k - 1][1], abs=1e-12)
    assert finite >= 150 and tight >= 20, (finite, tight)


@settings(max_examples=30, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 5), st.integers(10, 60), st.integers(0, 2 ** 31 - 1))
def test_equivalent_networks_are_the_class_of_the_optimum(n, n_rows, seed):
    # an unpruned BIC table holds every family, so covered edge reversals reach the whole class
    table = score(read_data(random_data(np.random.default_rng(seed), n, n_rows)), prune=False)
    truth = ranking(table)
    chosen, opt = truth[0]
    names = table.names

    def key(pos):
        return class_key(names, {names[v]: [names[p] for p in table.families[v][c][0]] for v, c in enumerate(pos)})

    members = {pos for pos, _ in truth if key(pos) == key(chosen)}
    got = equivalent_networks(table, chosen, 10 ** 6)
    assert got[0] == tuple(chosen) and len(set(got)) == len(got)
    assert set(got) == members
    assert all(abs(dict(truth)[pos] - opt) <= 1e-9 * abs(opt) for pos in got)  # BIC is score equivalent
    assert equivalent_networks(table, chosen, 1) == [tuple(chosen)]
    # so with the class's orders the gap of the k-th is rounding when the class has k members
    if len(members) >= 2:
        eps, _ = certified_gap(table, chosen, len(members))
        assert eps <= 1e-9 * abs(opt)


# ------------------------------------------------------------ k-best-safe
@settings(max_examples=20, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 5), st.integers(20, 120), st.integers(1, 40), st.sampled_from(["BIC", "BDeu"]),
       st.integers(0, 2 ** 31 - 1))
def test_table_scored_for_the_gap_gives_the_true_k_best(n, n_rows, k, name, seed):
    data = read_data(random_data(np.random.default_rng(seed), n, n_rows))
    full = ranking(score(data, score=name, prune=False))
    first = score(data, score=name)  # epsilon = 0: holds the optimum
    best = ranking(first)[0][0]
    eps, n_wit = certified_gap(first, best, k)
    if not math.isfinite(eps):
        assert n_wit < k
        return
    table = score(data, score=name, epsilon=eps)
    cs = kbest(table, k, method="dp")
    kth = full[min(k, len(full)) - 1][1]
    want = [sc for _, sc in full if sc >= kth - 1e-9 * max(1.0, abs(kth))]  # kbest keeps ties with the k-th
    assert len(cs) == len(want)
    assert np.allclose([net.score for net in cs.networks], want, rtol=1e-9, atol=0)


# ---------------------------------------------------------------- edges
def test_fewer_witnesses_than_k_gives_no_gap():
    table = ScoreTable(["A"], [[((), -1.0)]])
    assert certified_gap(table, (0,), 1) == (0.0, 1)
    assert certified_gap(table, (0,), 2) == (math.inf, 1)
    two = ScoreTable(["A", "B"], [[((), -1.0), ((1,), -2.0)], [((), -1.0), ((0,), -3.0)]])
    # orders A<B and B<A: witnesses {}, A<-B, B<-A (3 of the 3 DAGs)
    eps, n = certified_gap(two, at(two, (), ()), 3)
    assert n == 3 and eps == math.nextafter(2.0, math.inf)


def at(table: ScoreTable, *parents: tuple[int, ...]) -> tuple[int, ...]:
    """Family positions of the network giving node v the parent set ``parents[v]`` (tables sort families)."""
    return tuple(next(i for i, (ps, _) in enumerate(table.families[v]) if ps == p) for v, p in enumerate(parents))


def test_upper_bound_and_non_optimal_networks():
    table = ScoreTable(["A", "B"], [[((), -1.0), ((1,), -0.5)], [((), -1.0), ((0,), -3.0)]])
    # the empty network scores -2 but A<-B scores -1.5 and is consistent with the order B, A: not optimal
    with pytest.raises(ScoreError, match="is not optimal"):
        certified_gap(table, at(table, (), ()), 2)
    best = at(table, (1,), ())
    eps, _ = certified_gap(table, best, 2)
    assert eps == pytest.approx(0.5)
    eps_ub, _ = certified_gap(table, best, 2, upper_bound=-1.0)
    assert eps_ub == pytest.approx(1.0)
    with pytest.raises(ScoreError, match="below a network"):
        certified_gap(table, best, 2, upper_bound=-1.7)


def test_bad_inputs():
    table = ScoreTable(["A", "B"], [[((), -1.0), ((1,), -0.5)], [((), -1.0), ((0,), -3.0)]])
    with pytest.raises(ScoreError, match="directed cycle"):
        certified_gap(table, at(table, (1,), (0,)), 2)
    with pytest.raises(ScoreError, match="2 variables"):
        certified_gap(table, (0,), 2)
    with pytest.raises(ScoreError, match="not in the table"):
        certified_gap(table, (0, 5), 2)
    with pytest.raises(ConfigError, match="k must be a positive integer"):
        certified_gap(table, at(table, (1,), ()), 0)


def test_large_k_on_a_wide_table_is_fast_and_ordered():
    rng = np.random.default_rng(1)
    n = 12
    fams = []
    for v in range(n):
        rows = [((), -50.0)]
        for _ in range(30):
            ps = tuple(sorted(rng.choice([u for u in range(n) if u != v], size=int(rng.integers(1, 4)),
                                         replace=False).tolist()))
            if ps not in {r[0] for r in rows}:
                rows.append((ps, float(-50 - rng.exponential(3))))
        fams.append(rows)
    table = ScoreTable([f"V{i}" for i in range(n)], fams)
    chosen = tuple(0 for _ in range(n))  # the empty network is optimal: every other family is worse
    wit = witnesses(table, chosen, 5000)
    scores = [sc for sc, _ in wit]
    assert len(wit) == 5000 and scores == sorted(scores, reverse=True)
    assert len({pos for _, pos in wit}) == 5000
    eps, n_wit = certified_gap(table, chosen, 5000)
    assert eps == pytest.approx(scores[0] - scores[-1], abs=1e-9) and n_wit >= 5000
