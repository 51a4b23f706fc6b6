"""The k best Markov equivalence classes (``kbest(..., by="class")``) equal brute force over all DAGs."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py import kbest, read_data, score
from gobnilp_py.equivalence.cpdag import class_key
from oracle_dags import all_dags_array
from random_problems import random_data


def brute_force_classes(table):
    """Every class of the table's DAGs: key -> (score, number of member DAGs)."""
    n = table.n
    names = table.names
    where = [{sum(1 << p for p in ps): sc for ps, sc in fams} for fams in table.families]
    out: dict = {}
    for row in all_dags_array(n):
        parts = [where[v].get(int(row[v])) for v in range(n)]
        if any(p is None for p in parts):
            continue
        parents = {names[v]: tuple(names[p] for p in range(n) if int(row[v]) >> p & 1) for v in range(n)}
        key = class_key(names, parents)
        sc = math.fsum(parts)
        best, count = out.get(key, (-math.inf, 0))
        out[key] = (max(best, sc), count + 1)
    return out


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 5), st.integers(20, 100), st.integers(1, 8), st.sampled_from(["BIC", "BDeu"]),
       st.integers(0, 2**31 - 1))
def test_kbest_classes_equal_brute_force(n, n_rows, k, score_name, seed):
    data = read_data(random_data(np.random.default_rng(seed), n, n_rows))
    table = score(data, score=score_name, prune=False)
    classes = sorted(brute_force_classes(table).items(), key=lambda t: -t[1][0])
    opt = classes[0][1][0]
    tol = 1e-9 * max(1.0, abs(opt))
    kth = classes[min(k, len(classes)) - 1][1][0]
    want = {key: v for key, v in classes if v[0] >= kth - tol}  # the k best and every class tied with the k-th
    cs = kbest(table, k, by="class", method="ilp")
    assert cs.complete and cs.n_classes_total == len(want)
    got = {c.cpdag.key: (c.score, c.n_members) for c in cs.classes}
    assert set(got) == set(want)
    for key, (sc, members) in got.items():
        assert abs(sc - want[key][0]) <= tol and members == want[key][1]
    assert len(cs) == sum(m for _, m in want.values()) == cs.n_networks_total
    assert "equivalence classes" in cs.guarantee
