"""The class nogood ``y + z <= n + |U| - 1`` on sparse random tables (hypothesis), and its LP strength.

``tests/test_class_nogood.py`` checks the nogood on the full table (every parent
set a candidate).  Here the table is a random subset of the parent sets, as
after pruning, so the families of the class that the table lacks are simply
absent from the row: the row must still be violated by exactly the DAGs of the
class among the DAGs the table can represent (brute force over every DAG on
up to 5 nodes), for both the int64 and the Python-int mask paths.  The
strength test pins the weights chosen in ``gobnilp_py/ilp/class_nogood.py``:
normalised so that a member violates the row by 1, no coefficient exceeds
``1 + (undirected parents of the family)``; the earlier ``|U| + 1`` weights
fail it on every class with an undirected edge.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py.equivalence.cpdag import class_key_from_masks, essential_masks
from gobnilp_py.ilp.class_nogood import class_nogood, family_masks
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py.search.family_index import FamilyIndex
from oracle_dags import all_dags_array

_DAGS = {n: all_dags_array(n) for n in (3, 4, 5)}


def _sparse_table(n: int, rng: np.random.Generator, keep: float, must: np.ndarray) -> ScoreTable:
    """Each node keeps the empty set, its family in ``must`` and each other parent set with probability ``keep``."""
    names = tuple(f"v{i}" for i in range(n))
    fams = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        want = int(must[v])
        row = []
        for r in range(n):
            for ps in itertools.combinations(others, r):
                mask = sum(1 << p for p in ps)
                if mask == 0 or mask == want or rng.random() < keep:
                    row.append((ps, -float(len(ps)) - rng.random()))
        row.sort(key=lambda t: -t[1])
        fams.append(row)
    return ScoreTable(names, fams)


def _row_values(index: FamilyIndex, masks, fams, coefs, dags: np.ndarray):
    """Left-hand side of the row for every DAG the table represents (others: None)."""
    pos = {(int(index.child[f]), int(m)): f for f, m in enumerate(masks)}
    coef = np.zeros(index.F)
    coef[np.asarray(fams, dtype=np.int64)] = coefs
    out = []
    for row in dags:
        try:
            out.append(sum(coef[pos[(v, int(row[v]))]] for v in range(len(row))))
        except KeyError:
            out.append(None)
    return out


@settings(max_examples=120, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from([3, 4, 5]), st.floats(0.0, 1.0), st.integers(0, 2**31 - 1), st.booleans())
def test_class_nogood_on_sparse_tables_excludes_exactly_the_class(n, keep, seed, vectorised):
    rng = np.random.default_rng(seed)
    dags = _DAGS[n]
    rep = dags[rng.integers(len(dags))]
    table = _sparse_table(n, rng, keep, rep)
    index = FamilyIndex.from_table(table)
    masks = family_masks(index)
    if not vectorised:
        masks = [int(m) for m in masks]
    key = class_key_from_masks([int(m) for m in rep])
    d, u = essential_masks(key)
    fams, coefs, rhs = class_nogood(index, masks, d, u)
    n_und = sum(bin(x).count("1") for x in u) // 2
    assert rhs == n + n_und - 1
    lhs = _row_values(index, masks, fams, coefs, dags)
    seen_rep = False
    for row, value in zip(dags, lhs):
        if value is None:
            continue  # not a network of this table
        same = class_key_from_masks([int(m) for m in row]) == key
        assert (value > rhs + 1e-9) == same
        if same:
            assert value == rhs + 1  # every member violates it by exactly 1
        seen_rep |= bool(np.array_equal(row, rep))
    assert seen_rep


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from([4, 5]), st.integers(0, 2**31 - 1))
def test_class_nogood_weights_are_small(n, seed):
    rng = np.random.default_rng(seed)
    dags = _DAGS[n]
    rep = dags[rng.integers(len(dags))]
    table = _sparse_table(n, rng, 1.0, rep)
    index = FamilyIndex.from_table(table)
    masks = family_masks(index)
    d, u = essential_masks(class_key_from_masks([int(m) for m in rep]))
    fams, coefs, rhs = class_nogood(index, masks, d, u)
    und_parents = np.bitwise_count((masks[fams] & np.asarray(u, dtype=np.int64)[index.child[fams]]))
    # a member violates the row by exactly 1 (previous test), so these are the weights per unit of violation
    assert np.array_equal(coefs, 1.0 + und_parents)
