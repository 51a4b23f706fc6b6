"""kbest() from one certified gap: no rescoring loop, Chen limits on every method's table, honest labels.

Oracles: brute force over every DAG (``tests/oracle_dags.py``) of the unpruned
table, on small random problems (``tests/random_problems.py``) with few rows,
so that both the ε-pruning and Chen et al.'s k-best parent limits fire.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import gobnilp_py.scoring as scoring_pkg
from gobnilp_py import kbest, read_data, score
from gobnilp_py.equivalence.cpdag import class_key_from_masks
from oracle_dags import dag_scores
from random_problems import random_data

TOL = 1e-9


def _brute(full):
    """(parent-mask rows, scores) of every DAG of the unpruned table."""
    dags, scores = dag_scores(full)
    ok = np.isfinite(scores)
    return dags[ok], scores[ok]


def _expected_kbest(full, k):
    """Keys of the k best DAGs and every DAG tied with the k-th (brute force)."""
    dags, scores = _brute(full)
    order = np.argsort(-scores, kind="stable")
    opt = scores[order[0]]
    kth = scores[order[min(k, len(order)) - 1]]
    keep = np.flatnonzero(scores >= kth - TOL * max(1.0, abs(opt)))
    return {tuple(int(m) for m in dags[d]) for d in keep}, opt, kth


def _masks(net):
    idx = {x: i for i, x in enumerate(net.names)}
    return tuple(sum(1 << idx[p] for p in net.parents[v]) for v in net.names)


def _data(seed, n, rows):
    rng = np.random.default_rng(seed)
    return read_data(random_data(rng, n, rows))


# n = 5, few rows: the ε-pruning and the k-best parent limits both cut the table.
CASES = [(seed, k) for seed in (1, 2, 3) for k in (1, 4, 25)]


@pytest.mark.parametrize("method", ["ilp", "ordergraph", "dp"])
@pytest.mark.parametrize("seed,k", CASES)
def test_kbest_with_limits_equals_unpruned_and_brute_force(method, seed, k):
    data = _data(100 + seed, 5, 8)
    full = score(data, prune=False)
    want, opt, kth = _expected_kbest(full, k)
    limited = kbest(data, k, method=method)
    plain = kbest(full, k, method=method, parent_limits=None)
    assert limited.complete and plain.complete
    assert {_masks(n) for n in limited} == want
    assert {_masks(n) for n in plain} == want
    assert abs(limited.opt - opt) <= TOL * max(1.0, abs(opt))
    assert abs(limited.epsilon - (opt - kth)) <= 1e-7
    assert limited.stats["certified_epsilon"] >= opt - kth - 1e-9
    assert limited.stats["scoring_passes"] in (1, 2)
    assert limited.stats["equals_epsilon_set"] is True


@pytest.mark.parametrize("seed", [1, 2])
def test_resolve_with_limits_equals_brute_force(seed):
    data = _data(100 + seed, 4, 8)
    full = score(data, prune=False)
    want, _, _ = _expected_kbest(full, 6)
    cs = kbest(data, 6, method="resolve")
    assert cs.complete and {_masks(n) for n in cs} == want


def test_parent_limits_fire_on_small_n():
    # N = 6 rows: Chen's local bound allows few parents, so the unpruned table loses families.
    data = _data(7, 5, 6)
    full = score(data, prune=False)
    cs = kbest(full, 3, method="ordergraph")
    assert cs.stats["families_after_limits"] < cs.stats["families_before_limits"]
    want, _, _ = _expected_kbest(full, 3)
    assert {_masks(n) for n in cs} == want
    assert cs.stats["scoring_passes"] == 0


@pytest.mark.parametrize("k", [1, 5, 40, 400])
def test_single_certified_scoring_pass(monkeypatch, k):
    """At most two score() calls: ε ~ 0 for OPT, then once for ε_k (seeded with OPT); never a doubled gap."""
    calls = []
    real = scoring_pkg.score

    def spy(data, **kw):
        calls.append(dict(kw))
        return real(data, **kw)

    monkeypatch.setattr(scoring_pkg, "score", spy)
    data = _data(11, 5, 40)
    cs = kbest(data, k, method="ordergraph")
    assert cs.complete
    assert len(calls) == cs.stats["scoring_passes"] <= 2
    assert calls[0]["epsilon"] < 1e-3  # the cheapest exact table (zero up to rounding)
    eps_k = cs.stats["certified_epsilon"]
    if len(calls) == 2 and math.isinf(eps_k):
        # Fewer than k witnesses in the ε ~ 0 table (tiny problems): no gap certified, so unpruned.
        assert calls[1]["prune"] is False and cs.stats["witnesses"] < k
    elif len(calls) == 2:
        assert calls[1]["epsilon"] == pytest.approx(eps_k, abs=1e-5)
        assert calls[1]["lower_bound"] == cs.opt
        assert eps_k > calls[0]["epsilon"]
    else:
        assert eps_k + 2e-9 * max(1.0, abs(cs.opt)) <= calls[0]["epsilon"] + 1e-12
    if k == 1:
        assert len(calls) == 1 and eps_k == 0.0
    full = score(data, prune=False)
    want, _, _ = _expected_kbest(full, k)
    assert {_masks(n) for n in cs} == want


def test_unpruned_scoring_is_one_pass(monkeypatch):
    calls = []
    real = scoring_pkg.score
    monkeypatch.setattr(scoring_pkg, "score", lambda data, **kw: (calls.append(kw), real(data, **kw))[1])
    cs = kbest(_data(12, 4, 30), 20, method="dp", prune=False)
    assert len(calls) == 1 and cs.stats["scoring_passes"] == 1


def test_bdeu_notes_no_parent_bound():
    cs = kbest(_data(13, 4, 30), 5, score="BDeu", method="ordergraph")
    assert cs.stats["parent_limits"] is None
    assert any("no k-best parent limit applies to BDeu" in c for c in cs.caveats)
    assert any("certified gap epsilon_k=" in c for c in cs.caveats)


def test_labels_ties_false_not_epsilon_set():
    # Many ties (equivalent networks): with ties=False the list cuts through them and says so.
    data = _data(14, 4, 60)
    cs = kbest(data, 2, method="ilp", ties=False)
    full = score(data, prune=False)
    want, _, _ = _expected_kbest(full, 2)
    if len(want) > 2:
        assert cs.stats["equals_epsilon_set"] is False
        assert any(c.startswith("NOT the epsilon-set") for c in cs.caveats)
    else:
        assert cs.stats["equals_epsilon_set"] is True


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kbest_classes_from_certified_gap(seed):
    data = _data(200 + seed, 4, 40)
    full = score(data, prune=False)
    dags, scores = _brute(full)
    best: dict = {}
    for d, s in zip(dags, scores):
        key = class_key_from_masks([int(m) for m in d], validate=False)
        best[key] = max(best.get(key, -math.inf), float(s))
    ranked = sorted(best.values(), reverse=True)
    k = 3
    opt = ranked[0]
    kth = ranked[k - 1]
    want_classes = {key for key, s in best.items() if s >= kth - TOL * max(1.0, abs(opt))}
    cs = kbest(data, k, by="class", method="ilp")
    assert cs.complete
    got = {class_key_from_masks(list(_masks(n)), validate=False) for n in cs}
    assert got == want_classes
    assert math.isfinite(cs.stats["certified_epsilon"]) and cs.stats["certified_epsilon"] >= opt - kth - 1e-9
    assert cs.stats["parent_limits"] is None and "classes" in cs.stats["parent_limits_note"]


def test_initial_epsilon_is_refused_in_one_line():
    from gobnilp_py import ParameterError

    with pytest.raises(ParameterError, match="initial_epsilon is no longer taken"):
        kbest(_data(15, 3, 20), 2, initial_epsilon=1.0)


@pytest.mark.parametrize("method", ["ilp", "ordergraph"])
@pytest.mark.parametrize("kind", ["forbidden_arrows", "required_arrows"])
def test_kbest_under_constraints_equals_brute_force(method, kind):
    from gobnilp_py.constraints import StructuralConstraints

    data = _data(16, 4, 50)
    n = data.names
    cons = StructuralConstraints.from_dict({kind: [(n[2], n[3])]})
    full = score(data, prune=False)
    dags, scores = _brute(full)
    ok = np.array([cons.is_satisfied({full.names[v]: tuple(full.names[p] for p in range(4) if d[v] >> p & 1)
                                      for v in range(4)}) for d in dags])
    dags, scores = dags[ok], scores[ok]
    k = 8
    ranked = np.sort(scores)[::-1]
    kth = ranked[k - 1]
    want = {tuple(int(m) for m in d) for d, s in zip(dags, scores) if s >= kth - TOL * max(1.0, abs(ranked[0]))}
    cs = kbest(data, k, method=method, constraints=cons)
    assert cs.complete and {_masks(x) for x in cs} == want
    if kind == "required_arrows":
        assert "constraints" in cs.stats["parent_limits_note"]
