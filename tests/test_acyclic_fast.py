"""The bitmask acyclicity test of integral points agrees with the cycle finder (random graphs, up to 62 nodes)."""

from __future__ import annotations

import numpy as np
import pytest

from gobnilp_py.ilp import cluster as cl
from gobnilp_py.ilp.class_nogood import family_masks
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py.search.family_index import FamilyIndex


def _index(rng: np.random.Generator, n: int) -> FamilyIndex:
    fams = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        sets = {()}
        for _ in range(10):
            k = int(rng.integers(0, min(4, n - 1) + 1))
            sets.add(tuple(sorted(rng.choice(others, k, replace=False).tolist())))
        fams.append([(ps, -1.0) for ps in sets])
    return FamilyIndex.from_table(ScoreTable([f"v{i}" for i in range(n)], fams))


@pytest.mark.parametrize("n", [2, 3, 5, 9, 20, 62])
def test_chosen_acyclic_agrees_with_find_cycles(n):
    rng = np.random.default_rng(n)
    idx = _index(rng, n)
    masks = family_masks(idx)
    seen = {True: 0, False: 0}
    for trial in range(600):
        x = np.zeros(idx.F)
        order = rng.permutation(n)  # half the points follow an order (acyclic), half pick freely
        rank = np.empty(n, dtype=int)
        rank[order] = np.arange(n)
        follow = trial % 2 == 0
        for v in range(n):
            lo, hi = int(idx.start[v]), int(idx.start[v + 1])
            ok = [f for f in range(lo, hi) if not follow or all(rank[p] < rank[v] for p in idx.parents[f])]
            x[ok[int(rng.integers(0, len(ok)))]] = 1.0
            if rng.random() < 0.1:  # a second family on: parents are the union (as chosen_parents reads it)
                x[lo + int(rng.integers(0, hi - lo))] = 1.0
        x[rng.random(idx.F) < 0.02] = 0.3  # fractional noise below the 0.5 threshold
        fast = cl.chosen_acyclic(idx, masks, x)
        assert fast == (not cl.find_cycles(cl.chosen_parents(idx, x)))
        seen[fast] += 1
    assert seen[True] > 0 and (seen[False] > 0 or n == 2)
