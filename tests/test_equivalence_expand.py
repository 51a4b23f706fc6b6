"""Members of equivalence classes inside a score table (:func:`gobnilp_py.solve.classes.expand_classes`).

The expected members are computed independently: every DAG on the nodes
(``oracle_dags``) whose class key is the representative's, whose families are
all in the table and whose score reaches the limit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gobnilp_py import ScoreTable
from gobnilp_py.equivalence import class_key
from gobnilp_py.solve.classes import expand_classes
from oracle_dags import all_dags


def brute_members(table: ScoreTable, chosen, limit: float) -> dict[tuple, float]:
    """Members (as tuples of parent tuples) of the representative's class that are in the table and >= limit."""
    names = table.names
    rep = {names[v]: tuple(names[p] for p in table.families[v][c][0]) for v, c in enumerate(chosen)}
    key = class_key(names, rep)
    look = [{ps: sc for ps, sc in fams} for fams in table.families]
    out = {}
    for dag in all_dags(table.n):
        if class_key(names, {names[v]: tuple(names[p] for p in ps) for v, ps in enumerate(dag)}) != key:
            continue
        if any(ps not in look[v] for v, ps in enumerate(dag)):
            continue
        sc = math.fsum(look[v][ps] for v, ps in enumerate(dag))
        if sc >= limit:
            out[dag] = sc
    return out


def got_members(table: ScoreTable, expansion) -> dict[tuple, float]:
    return {tuple(table.families[v][c][0] for v, c in enumerate(ch)): sc for sc, ch in expansion.entries}


def _pos(table: ScoreTable, parents) -> tuple[int, ...]:
    return tuple(next(j for j, (ps, _) in enumerate(table.families[v]) if ps == tuple(parents[v]))
                 for v in range(table.n))


def test_a_member_missing_from_the_table_is_not_listed_even_if_the_table_was_claimed_complete():
    # a - b: members a -> b and b -> a; the table has no family {b} for a, so only a -> b is a network
    table = ScoreTable(["a", "b"], [[((), -1.0)], [((), -1.0), ((0,), -0.5)]])
    rep = _pos(table, [(), (0,)])
    for claimed in (True, False):
        e = expand_classes(table, [(-1.5, rep)], limit=-10.0, max_networks=None, all_representable=claimed)
        assert got_members(table, e) == brute_members(table, rep, -10.0) == {((), (0,)): -1.5}
        assert e.n_networks_total == 1 and e.classes[0].n_members == 1
        assert e.stats.get("classes_missing_members", 0) == int(claimed)


def test_a_class_that_is_not_score_equivalent_is_filtered_member_by_member():
    # declared score-equivalent, but b -> a scores 4 less than a -> b: only a -> b reaches the limit
    table = ScoreTable(["a", "b"], [[((), -1.0), ((1,), -5.0)], [((), -1.0), ((0,), -0.5)]])
    rep = _pos(table, [(), (0,)])
    e = expand_classes(table, [(-1.5, rep)], limit=-3.0, max_networks=None, all_representable=False)
    assert got_members(table, e) == brute_members(table, rep, -3.0) == {((), (0,)): -1.5}
    assert e.classes[0].n_members == 1 and e.stats["classes_filtered_by_score"] == 1
    assert e.classes[0].arrow_counts == {("a", "b"): 1}


@pytest.mark.parametrize("seed", range(12))
def test_members_inside_a_random_table_equal_brute_force(seed):
    """Score-equivalent random tables on 5 nodes (scores from a random 'edge weight' function), some families dropped."""
    rng = np.random.default_rng(seed)
    n = 5
    # a score-equivalent score: a weight per skeleton edge, the same in both directions (w symmetric),
    # so a DAG's score is a function of its skeleton, which all members of a class share
    w = rng.normal(0, 1, (n, n))
    w = w + w.T
    fams = []
    from itertools import combinations

    for v in range(n):
        others = [u for u in range(n) if u != v]
        rows = [((), 0.0)]
        for size in (1, 2):
            for ps in combinations(others, size):
                if rng.random() < 0.8:
                    rows.append((ps, float(sum(w[v, p] for p in ps))))
        fams.append(rows)
    table = ScoreTable([f"x{i}" for i in range(n)], fams, score_name="BIC")
    # representative: a random DAG of the table (greedy on a random order)
    order = rng.permutation(n)
    chosen = []
    placed: set[int] = set()
    par = {}
    for v in order:
        opts = [j for j, (ps, _) in enumerate(table.families[v]) if set(ps) <= placed]
        j = opts[int(rng.integers(0, len(opts)))]
        par[v] = j
        placed.add(int(v))
    chosen = tuple(par[v] for v in range(n))
    rep_score = math.fsum(table.families[v][c][1] for v, c in enumerate(chosen))
    limit = rep_score - 1e-9
    want = brute_members(table, chosen, limit)
    # some families are dropped from the table, so it does not hold every member: all_representable=False
    e = expand_classes(table, [(rep_score, chosen)], limit=limit, max_networks=None, all_representable=False)
    got = got_members(table, e)
    assert got.keys() == want.keys()
    assert all(got[d] == pytest.approx(want[d], rel=1e-12) for d in want)
    assert e.n_networks_total == len(want)
    # cut at a cap: a prefix is listed, the count still covers every member
    cap = max(1, len(want) // 2)
    e2 = expand_classes(table, [(rep_score, chosen)], limit=limit, max_networks=cap, all_representable=False)
    assert len(e2.entries) == min(cap, len(want)) and e2.n_networks_total == len(want)
    assert set(got_members(table, e2)) <= set(want)


@pytest.mark.parametrize("seed", range(20))
def test_the_quick_whole_class_test_is_sound(seed):
    """``_table_holds_class`` says True only when every member's families are in the table (brute force),
    and says True for a table of exactly the members' families (the families it asks for all occur)."""
    from gobnilp_py.equivalence import cpdag_from_masks
    from gobnilp_py.solve.classes import _table_holds_class

    rng = np.random.default_rng(1000 + seed)
    n = 6
    order = rng.permutation(n)
    masks = [0] * n
    for i, v in enumerate(order):
        for u in order[:i]:
            if rng.random() < 0.6:
                masks[v] |= 1 << int(u)
    cp = cpdag_from_masks([f"x{i}" for i in range(n)], masks)
    members = list(cp.extensions().members())
    need = [{m[v] for m in members} for v in range(n)]
    exact = [{f: (0, 0.0) for f in need[v]} for v in range(n)]
    assert _table_holds_class(cp, exact)
    # drop one needed family of a random node: the test must say False
    v = int(rng.integers(0, n))
    gone = sorted(need[v])[int(rng.integers(0, len(need[v])))]
    fewer = [dict(d) for d in exact]
    del fewer[v][gone]
    assert not _table_holds_class(cp, fewer)
