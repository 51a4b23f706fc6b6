"""Block scoring (many parent sets counted and scored together) against independent formulas.

The block path (``ParentConfigs.block_counts``, ``DirichletScore.block_scores``,
``PenalisedLL.block_scores``) replaced one numpy call chain per parent set.  Checked here:
its configuration ids equal the per-set ids exactly; its scores equal a direct
``gammaln`` / ``x ln x`` formula (no table, no shared code) and pgmpy's BDeu to 1e-9
relative, including counts above the lgamma table; the tables do not depend on the
block size; a subclass that changes the prior only through ``alpha_j`` is scored with
its own prior.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter

import numpy as np
import pytest
from scipy.special import gammaln

from gobnilp_py.data.dataset import Dataset
from gobnilp_py.scoring import local_scores, parallel, score
from gobnilp_py.scoring.counts import ParentConfigs
from gobnilp_py.scoring.local_scores import BDeu, make_score

RTOL = 1e-9


def _data(seed: int, n: int = 6, rows: int = 200, max_arity: int = 4) -> Dataset:
    rng = np.random.default_rng(seed)
    ar = rng.integers(1, max_arity + 1, size=n)
    cols = [rng.integers(0, a, size=rows) for a in ar]
    for j in range(1, n):                       # some dependence, so tables are not uniform
        if ar[j] > 1 and rng.random() < 0.6:
            src = cols[int(rng.integers(0, j))]
            cols[j] = np.where(rng.random(rows) < 0.7, src % ar[j], cols[j])
    return Dataset([f"x{j}" for j in range(n)], [int(a) for a in ar], np.column_stack(cols))


def _direct(codes: np.ndarray, arities: list[int], kind: str, child: int, parents: tuple[int, ...],
            ess: float = 1.0) -> float:
    """The textbook formula, straight from the rows (Counter, gammaln; shares no code with the package)."""
    N = codes.shape[0]
    r = arities[child]
    q = math.prod(arities[p] for p in parents)
    cells = Counter((tuple(row[list(parents)]), row[child]) for row in codes)
    nj = Counter(tuple(row[list(parents)]) for row in codes)
    if kind in ("BIC", "AIC"):
        ll = sum(c * math.log(c / nj[j]) for (j, _), c in cells.items())
        coef = 0.5 * math.log(N) if kind == "BIC" else 1.0
        return ll - coef * q * (r - 1)
    a = {"BDeu": ess / q, "K2": float(r), "BDs": ess / len(nj)}[kind]
    out = 0.0
    for j, n in nj.items():
        out += gammaln(a) - gammaln(a + n)
    for _, c in cells.items():
        out += gammaln(a / r + c) - gammaln(a / r)
    return float(out)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("kw", [{}, {"dense_limit": 3}, {"merge_rows": True}])
def test_block_ids_equal_per_set_ids(seed, kw, monkeypatch):
    ds = _data(seed, n=7, rows=int(np.random.default_rng(seed).integers(1, 250)))
    per_set, block = ParentConfigs(ds, **kw), ParentConfigs(ds, **kw)
    monkeypatch.setattr(ParentConfigs, "BLOCK_CODE_SLOTS", 1 + 97 * seed)   # many small merged compressions
    sets = [c for k in range(0, 6) for c in itertools.combinations(range(7), k)]
    np.random.default_rng(seed).shuffle(sets)
    Z, M = block._block_ids(sets)
    for x, z, m in zip(sets, Z, M):
        z1, m1 = per_set.ids(x)
        assert int(m) == m1 and np.array_equal(z, z1), x


@pytest.mark.parametrize("kind", ["BDeu", "K2", "BDs", "BIC", "AIC"])
@pytest.mark.parametrize("seed", range(4))
def test_block_scores_equal_direct_formula(kind, seed):
    rows = [30, 200, 1500, 3000][seed]          # 1500 and 3000 rows: counts above the lgamma table
    ds = _data(seed, n=5, rows=rows)
    if seed >= 2:   # the empty parent set's N_j = N is read from gammaln, not from the table (guard)
        assert ds.N > local_scores.LGAMMA_TABLE_MAX
    sc = make_score(kind, ds, ess=[1.0, 0.5, 10.0, 3.0][seed])
    ess = getattr(sc, "ess", 1.0)
    pc = ParentConfigs(ds)
    groups = [(x, np.array([v for v in range(5) if v not in x], dtype=np.int64))
              for k in range(0, 5) for x in itertools.combinations(range(5), k)]
    bc = pc.block_counts(groups)
    got = sc.block_scores(bc)[0]
    i = 0
    for x, ch in groups:
        for v in ch.tolist():
            want = _direct(ds.codes, list(ds.arities), kind, v, x, ess)
            assert got[i] == pytest.approx(want, rel=RTOL, abs=1e-9), (kind, v, x)
            i += 1
    # the one-set path (batch) and the per-family formula of the class agree too
    for x, ch in groups[:: 5]:
        b = sc.batch(pc.family_counts(x, ch)).scores
        for v, s in zip(ch.tolist(), b.tolist()):
            assert s == pytest.approx(sc.local_score(v, x, pc.family_counts(x, np.array([v])).table(0)),
                                      rel=RTOL, abs=1e-9)


def test_bdeu_equals_pgmpy_on_a_scored_table():
    pgmpy = pytest.importorskip("pgmpy.estimators")
    import pandas as pd

    ds = _data(11, n=6, rows=700)
    table = score(ds, score="BDeu", ess=2.0, bayes_factor=20, n_jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pg = pgmpy.BDeu(pd.DataFrame(ds.codes, columns=list(ds.names)), equivalent_sample_size=2.0)
        # pgmpy takes the states it sees in the data: compare only where every declared state occurs
        seen = [len(np.unique(ds.codes[:, j])) == ds.arities[j] for j in range(ds.n)]
        checked = 0
        idx = {nm: j for j, nm in enumerate(ds.names)}
        for fam in table:
            if seen[idx[fam.child]] and all(seen[idx[p]] for p in fam.parents):
                theirs = pg.local_score(fam.child, list(fam.parents))
                assert fam.score == pytest.approx(float(theirs), rel=RTOL, abs=1e-9)
                checked += 1
    assert checked >= 10


@pytest.mark.parametrize("block_sets", [1, 7, 256])
@pytest.mark.parametrize("kind", ["BDeu", "BIC"])
def test_tables_do_not_depend_on_the_block_size(kind, block_sets, monkeypatch):
    ds = _data(3, n=7, rows=400)
    ref = score(ds, score=kind, bayes_factor=3, n_jobs=1)
    monkeypatch.setattr(parallel, "BLOCK_SETS", block_sets)
    monkeypatch.setattr(parallel, "BLOCK_ROW_PAIRS", 1 if block_sets == 7 else parallel.BLOCK_ROW_PAIRS)
    got = score(ds, score=kind, bayes_factor=3, n_jobs=1)
    assert got.families == ref.families            # bit-identical
    assert got.pruning == ref.pruning


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kw", [{}, {"dense_limit": 3}, {"merge_rows": True}])
def test_block_cell_summaries_equal_per_cell_reductions(seed, kw):
    """Non-empty cells, states seen and per-set totals equal plain reductions over every cell."""
    rng = np.random.default_rng(100 + seed)
    ds = _data(seed, n=7, rows=int(rng.integers(1, 250)))
    pc = ParentConfigs(ds, **kw)
    sets = [c for k in range(0, 5) for c in itertools.combinations(range(7), k)]
    groups = []
    for x in sets:
        rest = [v for v in range(7) if v not in x]
        ch = np.array(sorted(rng.choice(rest, size=int(rng.integers(1, len(rest) + 1)), replace=False)),
                      dtype=np.int64)
        groups.append((x, ch))
    bc = pc.block_counts(groups)
    cell, pair, per_pair = bc.nonempty_cells()
    assert np.array_equal(cell, np.flatnonzero(bc.flat))
    assert np.array_equal(pair, np.repeat(np.arange(bc.n_pairs), bc.m * bc.r)[cell])
    assert np.array_equal(per_pair, [np.count_nonzero(bc.flat[bc.cell_off[p]:bc.cell_off[p + 1]])
                                     for p in range(bc.n_pairs)])
    nj_all, d_all = bc.config_totals()
    assert np.array_equal(bc.states_seen(), d_all)
    first, nj, off = bc.set_config_totals()
    assert np.array_equal(first, [sum(g[1].size for g in groups[:k]) for k in range(len(groups))])
    for k, p in enumerate(first.tolist()):
        assert np.array_equal(nj[off[k]:off[k + 1]], nj_all[bc.cfg_off[p]:bc.cfg_off[p + 1]])
        x, ch = groups[k]
        for i in range(ch.size):    # every child of a set sees the same configuration totals
            assert np.array_equal(nj_all[bc.cfg_off[p + i]:bc.cfg_off[p + i + 1]], nj[off[k]:off[k + 1]])


class _HalfPrior(BDeu):
    """A BDeu variant that changes only alpha_j (and the single-family helper): must not be scored as BDeu."""

    def alpha_j(self, fc):
        return np.full(fc.children.size, 0.5 * self.ess / float(fc.q))

    def _alpha_j_single(self, child, q, n_observed):
        return 0.5 * self.ess / float(q)


def test_subclass_changing_alpha_j_only_is_scored_with_its_own_prior():
    ds = _data(5, n=5, rows=300)
    sc, plain = _HalfPrior(ds, ess=2.0), BDeu(ds, ess=1.0)
    pc = ParentConfigs(ds)
    for x in [(), (0,), (1, 3), (0, 2, 4)]:
        ch = np.array([v for v in range(5) if v not in x], dtype=np.int64)
        got = sc.batch(pc.family_counts(x, ch)).scores
        same_as_bdeu1 = plain.batch(pc.family_counts(x, ch)).scores   # ess 2 halved = BDeu ess 1
        np.testing.assert_allclose(got, same_as_bdeu1, rtol=RTOL)
        for v, s in zip(ch.tolist(), got.tolist()):
            assert s == pytest.approx(_direct(ds.codes, list(ds.arities), "BDeu", v, x, 1.0), rel=RTOL)
    # and through the engine (block path with the generic alpha_j fallback)
    t1 = score(ds, score=sc, bayes_factor=3, n_jobs=1)
    t2 = score(ds, score="BDeu", ess=1.0, bayes_factor=3, n_jobs=1)
    assert [[p for p, _ in f] for f in t1.families] == [[p for p, _ in f] for f in t2.families]
