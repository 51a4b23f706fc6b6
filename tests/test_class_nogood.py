"""The class nogood excludes exactly the DAGs of its Markov equivalence class (every DAG on <= 5 nodes)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gobnilp_py.equivalence import cpdag
from gobnilp_py.equivalence.cpdag import class_key
from gobnilp_py.ilp.class_nogood import class_nogood, family_masks
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py.search.family_index import FamilyIndex
from oracle_dags import all_dags_array


def _full_index(n: int) -> tuple[FamilyIndex, tuple[str, ...]]:
    names = tuple(f"v{i}" for i in range(n))
    fams = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        fams.append([(ps, -float(len(ps))) for r in range(n) for ps in itertools.combinations(others, r)])
    return FamilyIndex.from_table(ScoreTable(names, fams)), names


def _parents_of(row: np.ndarray, names: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return {names[v]: tuple(names[p] for p in range(len(names)) if int(row[v]) >> p & 1) for v in range(len(names))}


def _cpdag_masks(cp, names) -> tuple[list[int], list[int]]:
    idx = {x: i for i, x in enumerate(names)}
    d = [0] * len(names)
    u = [0] * len(names)
    for a, b in cp.directed:
        d[idx[b]] |= 1 << idx[a]
    for e in cp.undirected:
        a, b = (idx[x] for x in e)
        u[a] |= 1 << b
        u[b] |= 1 << a
    return d, u


def _check(n: int, which: np.ndarray, vectorised: bool) -> None:
    index, names = _full_index(n)
    masks = family_masks(index)
    if not vectorised:
        masks = [int(m) for m in masks]
    dags = all_dags_array(n)
    keys = [class_key(names, _parents_of(row, names)) for row in dags]
    # position of (v, parent mask) among the flat families
    pos = {(int(index.child[f]), int(m)): f for f, m in enumerate(masks)}
    for i in which:
        cp = cpdag(names, _parents_of(dags[i], names))
        d, u = _cpdag_masks(cp, names)
        fams, coefs, rhs = class_nogood(index, masks, d, u)
        coef = np.zeros(index.F)
        coef[fams] = coefs
        lhs = np.array([sum(coef[pos[(v, int(row[v]))]] for v in range(n)) for row in dags])
        violated = lhs > rhs + 1e-9
        same = np.array([k == keys[i] for k in keys])
        assert np.array_equal(violated, same), (n, i)
        assert same.sum() == cp.count_dags()


@pytest.mark.parametrize("vectorised", [True, False])
def test_every_class_on_four_nodes(vectorised):
    _check(4, np.arange(len(all_dags_array(4))), vectorised)


@pytest.mark.slow
def test_random_classes_on_five_nodes():
    rng = np.random.default_rng(0)
    _check(5, rng.choice(len(all_dags_array(5)), size=12, replace=False), True)
