"""Agreement with GOBNILP's own BIC scores for wine (``tests/data/wine.BIC.3.jkl``).

The reference file is GOBNILP's score table for ``wine.csv`` (nodes named
0..13 in column order) pruned for Bayes factor 3 with its default parent
limit 3.  We check (1) our BIC of each of its families equals GOBNILP's to
1e-6, and (2) each family GOBNILP kept is either kept by us at BF 3 or
provably non-credible: a proper subset beats it by more than ln 3 (GOBNILP's
pruning is looser; it kept one such family, 0<-{4,13}, which {13} beats by
ln 3 + 1.0e-4).
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from datasets import dataset
from datasets import reference as reference_file
from gobnilp_py.data.dataset import Dataset
from gobnilp_py.scoring import BIC, ScoreTable, score


def load_wine() -> Dataset:
    DATA = dataset("wine")
    raw = np.loadtxt(DATA, delimiter=",", dtype=np.int64)
    if raw.ndim != 2 or raw.shape[1] != 14:
        pytest.skip(f"{DATA} is not the 14-column wine file")
    codes = np.empty_like(raw)
    arities = []
    for j in range(raw.shape[1]):
        uniq, inv = np.unique(raw[:, j], return_inverse=True)
        codes[:, j] = inv
        arities.append(len(uniq))
    return Dataset([str(j) for j in range(raw.shape[1])], arities, codes, source=str(DATA))


@pytest.fixture(scope="module")
def wine() -> Dataset:
    return load_wine()


@pytest.fixture(scope="module")
def reference() -> ScoreTable:
    return ScoreTable.from_jkl(reference_file("wine.BIC.3.jkl"))


@pytest.fixture(scope="module")
def ours(wine) -> ScoreTable:
    return score(wine, score="BIC", bayes_factor=3)


def test_every_reference_score_matches(wine, reference):
    bic = BIC(wine)
    worst = 0.0
    for fam in reference:
        child = wine.index(fam.child)
        parents = tuple(sorted(wine.index(p) for p in fam.parents))
        got = bic.compute(child, parents)
        worst = max(worst, abs(got - fam.score))
        assert got == pytest.approx(fam.score, abs=1e-6), (fam, got)
    assert len(reference) == 592
    assert worst < 1e-6


def test_reference_families_kept_or_provably_not_credible(wine, reference, ours):
    bic = BIC(wine)
    eps = math.log(3)
    missing = []
    for fam in reference:
        try:
            kept = ours.local_score(fam.child, fam.parents)
        except Exception:
            missing.append(fam)
            continue
        assert kept == pytest.approx(fam.score, abs=1e-6)
    for fam in missing:
        child = wine.index(fam.child)
        ps = tuple(sorted(wine.index(p) for p in fam.parents))
        s = bic.compute(child, ps)
        best_sub = max(bic.compute(child, sub) for k in range(len(ps)) for sub in combinations(ps, k))
        assert best_sub - s > eps + 1e-6, f"{fam} was pruned but no subset beats it by more than ln 3"
    # Report both sizes (the lead asked for them); ours is GOBNILP's minus the provably useless ones.
    print(f"GOBNILP kept {len(reference)} families at BF 3 (palim 3); we keep {len(ours)} "
          f"(no parent limit); {len(missing)} of GOBNILP's are provably non-credible")
    assert len(missing) <= 5
    ref_keys = {(f.child, f.parents) for f in reference}
    extra = [f for f in ours if (f.child, f.parents) not in ref_keys]
    # Sets GOBNILP lacks can only be ones beyond its parent limit of 3.
    assert all(len(f.parents) > 3 for f in extra), extra[:3]


def test_table_is_epsilon_safe_against_unpruned_subsets(wine, ours):
    """Every set we dropped at size <= 2 is beaten by one of its subsets by > ln 3 (spot check)."""
    bic = BIC(wine)
    eps = math.log(3)
    kept = {(f.child, f.parents) for f in ours}
    checked = 0
    for v in range(wine.n):
        others = [j for j in range(wine.n) if j != v]
        for k in (1, 2):
            for ps in combinations(others, k):
                if (str(v), tuple(str(p) for p in ps)) in kept:
                    continue
                s = bic.compute(v, ps)
                best = max(bic.compute(v, sub) for m in range(k) for sub in combinations(ps, m))
                assert best - s > eps, (v, ps)
                checked += 1
    assert checked > 500


# Optimal BIC scores of the shared files, checked independently (data README).
PUBLISHED_OPT = {
    "tic-tac-toe": -9396.375858,
    "wine": -1258.445909,
    "voting": -4642.631030,
    "zoo": -612.261239,
}


@pytest.mark.parametrize("name", sorted(PUBLISHED_OPT))
@pytest.mark.parametrize("bf", [1.0, 20.0])
def test_pruned_tables_reach_the_published_optimum(name, bf):
    """Exact DP over our pruned (no parent limit) table hits the published optimal BIC score."""
    from oracle_dp import optimal_dag

    path = dataset(name)
    from gobnilp_py.data import read_data

    ds = read_data(path, header=False)
    table = score(ds, score="BIC", bayes_factor=bf)
    opt, parents = optimal_dag(table)
    assert opt == pytest.approx(PUBLISHED_OPT[name], abs=2e-6)
    # The optimal DAG's families are in the table with their true scores.
    bic = BIC(ds)
    total = sum(bic.compute(v, ps) for v, ps in enumerate(parents))
    assert total == pytest.approx(opt, abs=1e-8)
