"""How the collecting search excludes what it found, and the cuts it reuses from the optimum search.

* ``NetworkCollector.nogood_mode = "cut"`` (default): the collector keeps the
  excluded networks (or classes) itself, tests every integral LP point against
  them and separates an excluded one again with its nogood row as an LP cut;
  ``"constraint"``: one SCIP linear constraint per nogood.  Both must give
  exactly the brute-force set, by class and by DAG.
* The optimum search hands its cluster cuts to the collecting search
  (``Solution.reuse`` -> ``epsilon_set(reuse=...)``); they hold for every DAG,
  so the collection must not change.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py import enumerate_networks, read_data, score
from gobnilp_py.equivalence.cpdag import class_key_from_masks
from gobnilp_py.ilp import collector as collector_mod
from gobnilp_py.ilp import engine as ilp_engine
from random_problems import random_data
from test_enumerate import assert_same, brute_force

DATA = Path(__file__).parent / "data"

problems = st.tuples(
    st.integers(2, 5),                      # n
    st.integers(15, 120),                   # rows
    st.floats(0.0, 8.0),                    # epsilon
    st.sampled_from(["BIC", "BDeu"]),
    st.sampled_from(["class", "dag"]),
    st.integers(0, 2**31 - 1),              # seed
)


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems)
def test_nogoods_as_linear_constraints_still_equal_brute_force(problem):
    n, n_rows, eps, score_name, by, seed = problem
    data = read_data(random_data(np.random.default_rng(seed), n, n_rows))
    expected = brute_force(score(data, score=score_name, prune=False), eps)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(collector_mod.NetworkCollector, "nogood_mode", "constraint")
        cs = enumerate_networks(data, epsilon=eps, score=score_name, method="ilp", by=by)
    assert_same(cs, expected)
    assert cs.stats["nogood_recuts"] == 0      # linear constraints never let an excluded point back


@pytest.mark.parametrize("class_branching", [False, True])
def test_excluded_classes_that_come_back_are_cut_again_and_never_recounted(monkeypatch, class_branching):
    # voting BF 20 by class: with SCIP's own branching the search meets excluded classes again (their rows
    # had left that LP); the published counts must still come out exactly.  The class-invariant branching
    # (the default) keeps each class in one subtree, and on this table no class comes back at all.
    from gobnilp_py.ilp import settings

    monkeypatch.setattr(settings, "CLASS_BRANCHING", class_branching)
    cs = enumerate_networks(read_data(DATA / "voting.csv", header=False), bayes_factor=20, method="ilp", by="class")
    if not class_branching:
        assert cs.stats["nogood_recuts"] > 0
    assert cs.stats["duplicates"] == 0
    assert (cs.n_networks_total, cs.n_classes_total) == (441, 33)


@settings(max_examples=30, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems)
def test_collection_seeded_with_the_optimum_searchs_cuts_is_unchanged(problem):
    n, n_rows, eps, score_name, by, seed = problem
    data = read_data(random_data(np.random.default_rng(seed), n + 1, n_rows))
    table = score(data, score=score_name, epsilon=eps)
    sol = ilp_engine.optimum(table)
    assert sol.status == "optimal"
    assert sol.reuse is not None
    kw = dict(opt=sol.score, epsilon=eps, by_class=by == "class")
    plain = ilp_engine.epsilon_set(table, **kw)
    seeded = ilp_engine.epsilon_set(table, reuse=sol.reuse, **kw)
    assert seeded.stats["cuts"]["seed"] <= len(sol.reuse)
    assert _found(table, seeded, by) == _found(table, plain, by)
    assert seeded.reason is None and plain.reason is None


def _found(table, col, by: str) -> list:
    """The networks found (by DAG) or their classes (by class: which member represents a class may differ)."""
    out = []
    for sc, pos in col.entries:
        masks = [sum(1 << p for p in table.families[v][k][0]) for v, k in enumerate(pos)]
        out.append((round(sc, 9), class_key_from_masks(masks) if by == "class" else tuple(masks)))
    return sorted(out, key=repr)


def test_enumerate_passes_the_optimum_searchs_cuts_to_the_collection():
    data = read_data(DATA / "wine.csv", header=False)
    cs = enumerate_networks(data, bayes_factor=3, method="ilp")
    assert cs.stats["cuts"]["seed"] > 0
    assert len(cs) == 308


def test_kbest_starts_from_the_optimum_searchs_cuts_and_lists_the_same_networks(monkeypatch):
    import importlib

    from gobnilp_py import kbest

    kbest_mod = importlib.import_module("gobnilp_py.solve.kbest")

    data = read_data(DATA / "wine.csv", header=False)
    seeded = kbest(data, k=30, method="ilp")
    assert seeded.stats["cuts"]["seed"] > 0
    monkeypatch.setattr(kbest_mod, "_takes_reuse", lambda m: False)
    plain = kbest(data, k=30, method="ilp")
    assert plain.stats["cuts"]["seed"] == 0
    assert [(n.key, round(n.score, 9)) for n in seeded] == [(n.key, round(n.score, 9)) for n in plain]
