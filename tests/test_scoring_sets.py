"""Counting per variable set (``ParentConfigs.set_block_counts``, ``DirichletScore.set_block_scores``).

The Dirichlet scores with a built-in prior count each parent set ``W`` and each family set
``W ∪ {c}`` once per block instead of one table per (parent set, child) pair, and build a
set's ids from a set built before (``ParentConfigs.set_ids``).  Checked here: the ids equal
the from-scratch ids exactly, whichever route built them; the scores equal the per-pair path
to 1e-12 relative and the textbook formula to 1e-9, with the same non-empty cells; tables are
the same with the path on and off, do not depend on its block size or on worker processes;
and the path is taken exactly where it applies.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from gobnilp_py.data import read_data
from gobnilp_py.data.dataset import Dataset
from gobnilp_py.scoring import parallel, score
from gobnilp_py.scoring.counts import ParentConfigs
from gobnilp_py.scoring.local_scores import BIC, BDeu, make_score

from test_scoring_blocks import _data, _direct

DATA = Path(__file__).resolve().parent / "data"


def _masks(E: np.ndarray) -> np.ndarray:
    bit = np.left_shift(np.int64(1), np.arange(64, dtype=np.int64))
    return bit[E].sum(axis=1) if E.shape[1] else np.zeros(E.shape[0], dtype=np.int64)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kw", [{}, {"dense_limit": 3}, {"merge_rows": True}])
@pytest.mark.parametrize("cache", [True, False])
def test_set_ids_equal_ids_built_from_scratch(seed, kw, cache, monkeypatch):
    """Level by level, in random chunks: read back, one step from a kept or given prefix, or from scratch."""
    rng = np.random.default_rng(seed)
    n = 7
    ds = _data(seed, n=n, rows=int(rng.integers(1, 250)))      # _data draws arity-1 columns too
    pc, ref = ParentConfigs(ds, **kw), ParentConfigs(ds, **kw)
    if not cache:
        monkeypatch.setattr(ParentConfigs, "SET_IDS_CACHE_BYTES", 0)
    for k in range(0, n):
        sets = [c for c in itertools.combinations(range(n), k) if rng.random() < 0.8]
        rng.shuffle(sets)
        cuts = sorted(rng.choice(np.arange(1, len(sets)), size=min(2, max(0, len(sets) - 1)), replace=False)) \
            if len(sets) > 1 else []
        for part in np.split(np.arange(len(sets)), cuts):
            W = np.array([sets[i] for i in part], dtype=np.int64).reshape(part.size, k)
            ZW, mW = pc.set_ids(W, _masks(W))
            Z0, m0 = ref._ids_of(W) if k else (np.zeros((part.size, ref.rows), dtype=np.int64),
                                                np.ones(part.size, dtype=np.int64))
            assert np.array_equal(ZW, Z0) and np.array_equal(mW, m0)
            # their families: every set one larger that contains one of them
            fam = sorted({tuple(sorted(w + (c,))) for w in map(tuple, W.tolist()) for c in range(n) if c not in w})
            F = np.array(fam, dtype=np.int64).reshape(len(fam), k + 1)
            ZF, mF = pc.set_ids(F, _masks(F), prefixes=(_masks(W), ZW, mW))
            Z1, m1 = ref._ids_of(F)
            assert np.array_equal(ZF, Z1) and np.array_equal(mF, m1)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kw,narrow", [({}, np.int16), ({"dense_limit": 3}, np.int16), ({"merge_rows": True}, np.int16),
                                       ({"dense_limit": 2**15}, np.int32)])
def test_narrow_block_ids_equal_the_int64_chain_and_int64_blocks(seed, kw, narrow):
    """Block ids are int16 where ``max(dense_limit, rows) * max arity < 2^15`` and int32 below 2^31:
    they equal the cached one-set-at-a-time ids (int64, :meth:`ParentConfigs.ids`), and a
    ParentConfigs whose bound forces int64 builds the same values.  ``dense_limit=2**15`` lets
    ranges grow past int16 before they are compressed, so the int32 steps are exercised too."""
    rng = np.random.default_rng(200 + seed)
    n = 6
    ds = _data(200 + seed, n=n, rows=int(rng.integers(1, 300)))
    pc = ParentConfigs(ds, **kw)
    assert pc.id_dtype == narrow
    wide = ParentConfigs(ds, **kw)
    wide.id_dtype = np.dtype(np.int64)          # as a bound past 2^31 would set it
    wide._X_ids, wide._ar_ids = wide.X, wide.arities
    for k in range(1, n + 1):
        sets = list(itertools.combinations(range(n), k))
        E = np.array(sets, dtype=np.int64)
        Z, m = pc.set_ids(E, _masks(E))
        Z64, m64 = wide.set_ids(E, _masks(E))
        assert Z.dtype == narrow and Z64.dtype == np.int64
        assert np.array_equal(Z, Z64) and np.array_equal(m, m64)
        for i, x in enumerate(sets):
            z1, m1 = pc.ids(x)
            assert z1.dtype == np.int64 and np.array_equal(Z[i], z1) and int(m[i]) == m1


def test_block_ids_widen_at_the_int16_and_int32_bounds():
    """The id dtype is the narrowest that holds ``max(dense_limit, rows) * max arity``."""
    ds = _data(1, n=4, rows=20)
    r = int(ParentConfigs(ds).arities.max())
    assert ParentConfigs(ds).id_dtype == np.int16
    assert ParentConfigs(ds, dense_limit=(2**15 - 1) // r).id_dtype == np.int16
    assert ParentConfigs(ds, dense_limit=(2**15 - 1) // r + 1).id_dtype == np.int32
    assert ParentConfigs(ds, dense_limit=2**31).id_dtype == np.int64


def _groups(rng: np.random.Generator, n: int, k: int) -> list[tuple[tuple[int, ...], np.ndarray]]:
    out = []
    for x in itertools.combinations(range(n), k):
        rest = [v for v in range(n) if v not in x]
        if rest:
            ch = np.array(sorted(rng.choice(rest, size=int(rng.integers(1, len(rest) + 1)), replace=False)),
                          dtype=np.int64)
            out.append((x, ch))
    return out


@pytest.mark.parametrize("kind", ["BDeu", "K2", "BDs"])
@pytest.mark.parametrize("seed", range(5))
def test_set_scores_equal_pair_scores_and_the_formula(kind, seed):
    rng = np.random.default_rng(50 + seed)
    rows = [1, 40, 300, 1500, 700][seed]               # 1500: counts above the lgamma table
    ds = _data(seed, n=6, rows=rows)
    sc = make_score(kind, ds, ess=[1.0, 0.5, 10.0, 3.0, 1.0][seed])
    ess = getattr(sc, "ess", 1.0)
    pc_sets, pc_pairs = ParentConfigs(ds, merge_rows=seed == 4), ParentConfigs(ds, merge_rows=seed == 4)
    for k in range(0, 6):
        groups = _groups(rng, 6, k)
        E = np.array([x for x, _ in groups], dtype=np.int64).reshape(len(groups), k)
        per_set = np.array([ch.size for _, ch in groups], dtype=np.int64)
        got, cells = sc.set_block_scores(pc_sets.set_block_counts(E, per_set, np.concatenate([ch for _, ch in groups])))
        bc = pc_pairs.block_counts(groups)
        want = sc.block_scores(bc, states=False)[0]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        assert np.array_equal(cells, bc.cells_per_pair())
        i = 0
        for x, ch in groups:
            for v in ch.tolist():
                if (i + seed) % 7 == 0:
                    assert got[i] == pytest.approx(_direct(ds.codes, list(ds.arities), kind, v, x, ess),
                                                   rel=1e-9, abs=1e-9)
                i += 1


def _tables_equal(a, b, exact: bool) -> None:
    assert a.names == b.names
    for fa, fb in zip(a.families, b.families):
        da, db = dict(fa), dict(fb)
        assert set(da) == set(db)
        for key, val in da.items():
            if exact:
                assert db[key] == val
            else:
                assert db[key] == pytest.approx(val, rel=1e-12, abs=1e-12)
    assert a.pruning == b.pruning
    assert a.meta["families_scored"] == b.meta["families_scored"]


def _determined(seed: int, n: int = 7, rows: int = 80) -> Dataset:
    """Random data in which every variable is a function of the others (every atom pure)."""
    rng = np.random.default_rng(seed)
    ar = rng.integers(2, 5, size=n)
    codes = np.column_stack([rng.integers(0, a, size=rows) for a in ar])
    keep = []
    seen: list[set] = [set() for _ in range(n)]
    for i, row in enumerate(codes.tolist()):
        proj = [tuple(row[:v] + row[v + 1:]) for v in range(n)]
        if all(p not in s for p, s in zip(proj, seen)):
            keep.append(i)
            for p, s in zip(proj, seen):
                s.add(p)
    return Dataset([f"x{j}" for j in range(n)], [int(a) for a in ar], codes[keep])


def _datasets() -> list[Dataset]:
    out = [_determined(s, rows=r) for s, r in [(1, 40), (2, 150), (3, 400)]]
    ttt = DATA / "tic-tac-toe.csv"
    if ttt.is_file():
        out.append(read_data(ttt, header=False))
    return out


@pytest.mark.parametrize("kind", ["BDeu", "K2", "BDs"])
@pytest.mark.parametrize("i", range(4))
def test_tables_equal_with_set_counting_on_and_off(kind, i, monkeypatch):
    sets = _datasets()
    if i >= len(sets):
        pytest.skip("tests/data/tic-tac-toe.csv is missing")
    ds = sets[i]
    if ds.N != 958:
        monkeypatch.setattr(parallel, "SET_COUNTING_MIN_ROWS", 1)     # tic-tac-toe passes the real threshold
    used = []
    real = parallel._score_groups_sets
    monkeypatch.setattr(parallel, "_score_groups_sets", lambda ctx, g: used.append(1) or real(ctx, g))
    on = score(ds, score=kind, bayes_factor=20, n_jobs=1)
    n_on = len(used)
    assert n_on > 0
    monkeypatch.setattr(parallel, "SET_COUNTING", False)
    off = score(ds, score=kind, bayes_factor=20, n_jobs=1)
    assert len(used) == n_on                       # off means off
    _tables_equal(on, off, exact=False)


@pytest.mark.parametrize("block", [1, 5000])
def test_tables_do_not_depend_on_the_set_block_size_workers_or_pruning(block, monkeypatch):
    ds = _determined(5, rows=120)
    monkeypatch.setattr(parallel, "SET_COUNTING_MIN_ROWS", 1)
    ref = score(ds, score="BDeu", bayes_factor=3, n_jobs=1)
    monkeypatch.setattr(parallel, "SET_BLOCK_ROW_PAIRS", block)
    _tables_equal(score(ds, score="BDeu", bayes_factor=3, n_jobs=1), ref, exact=True)
    _tables_equal(score(ds, score="BDeu", bayes_factor=3, n_jobs=2), ref, exact=True)
    full = dict((f.child, {}) for f in ref)
    for f in score(ds, score="BDeu", prune=False, n_jobs=1):      # the same families, the same bits
        full[f.child][f.parents] = f.score
    for f in ref:
        assert full[f.child][f.parents] == f.score


class _OwnBlocks(BDeu):
    """A BDeu whose block arithmetic is its own: must never be replaced by the per-set path."""

    def block_scores(self, bc, *, states=True):
        s, a, d = super().block_scores(bc, states=states)
        return s + 0.0, a, d


class _OwnPenalty(BIC):
    """A BIC whose block arithmetic is its own: must never be replaced by the per-set path."""

    def block_scores(self, bc):
        s, ll = super().block_scores(bc)
        return s + 0.0, ll


def test_when_a_run_counts_per_set(monkeypatch):
    ds = _data(3, n=6, rows=200)
    yes = np.ones(6, dtype=bool)
    assert parallel.counts_by_sets(make_score("BDeu", ds), 6, 512, yes)
    assert parallel.counts_by_sets(make_score("K2", ds), 62, 10**6, np.ones(62, dtype=bool))
    assert not parallel.counts_by_sets(make_score("BDeu", ds), 6, 511, yes)        # few rows: per pair pays
    assert not parallel.counts_by_sets(make_score("BDeu", ds), 63, 10**6, np.ones(63, dtype=bool))
    some = yes.copy()
    some[2] = False
    assert not parallel.counts_by_sets(make_score("BDeu", ds), 6, 10**6, some)     # a child needs its tables
    assert not parallel.counts_by_sets(_OwnBlocks(ds), 6, 10**6, yes)
    # penalised LL: always (the data's atoms are not read), unless the score has its own arithmetic
    for kind in ("BIC", "AIC"):
        assert parallel.counts_by_sets(make_score(kind, ds), 6, 1, None)
        assert parallel.counts_by_sets(make_score(kind, ds), 62, 1, None)
        assert not parallel.counts_by_sets(make_score(kind, ds), 63, 10**6, None)
    assert not parallel.counts_by_sets(_OwnPenalty(ds), 6, 10**6, None)
    assert not parallel.set_counting_reads_atoms(make_score("BIC", ds))
    assert parallel.set_counting_reads_atoms(make_score("BDeu", ds))
    with pytest.raises(ValueError, match="determined"):
        parallel.counts_by_sets(make_score("BDeu", ds), 6, 10**6, None)
    monkeypatch.setattr(parallel, "SET_COUNTING", False)
    assert not parallel.counts_by_sets(make_score("BDeu", ds), 6, 10**6, yes)
    assert not parallel.counts_by_sets(make_score("BIC", ds), 6, 10**6, None)


def test_several_sizes_in_one_call_equal_separate_calls():
    """Parent sets of several sizes in one call: each pair's values as when scored alone."""
    ds = _determined(4, n=6, rows=150)
    sc = make_score("BDeu", ds)
    ctx = parallel._Context(parallel.Payload(data=ds, score=sc, want_ll=False, want_cells=True, want_ub=False,
                                             atom_weights=None, by_sets=True))
    groups = [((), np.arange(6)), ((0,), np.array([1, 2, 5])), ((1, 3), np.array([0, 2, 4])), ((2,), np.array([4]))]
    got = parallel._score_groups_blocks(ctx, groups)
    i = 0
    for x, ch in groups:
        for v in ch.tolist():
            alone = parallel._score_groups_blocks(ctx, [(x, np.array([v]))])
            assert got.scores[i] == alone.scores[0] and got.cells[i] == alone.cells[0]
            assert got.scores[i] == pytest.approx(_direct(ds.codes, list(ds.arities), "BDeu", v, x), rel=1e-9)
            i += 1


# --- penalised log-likelihoods: LL(c | W) = F(W ∪ {c}) - F(W) -----------------------------------------

@pytest.mark.parametrize("kind", ["BIC", "AIC"])
@pytest.mark.parametrize("seed", range(5))
def test_penalised_set_scores_equal_pair_scores_and_the_formula(kind, seed):
    rng = np.random.default_rng(70 + seed)
    rows = [1, 40, 300, 1500, 700][seed]
    ds = _data(seed, n=6, rows=rows)
    sc = make_score(kind, ds)
    pc_sets, pc_pairs = ParentConfigs(ds, merge_rows=seed == 4), ParentConfigs(ds, merge_rows=seed == 4)
    for k in range(0, 6):
        groups = _groups(rng, 6, k)
        E = np.array([x for x, _ in groups], dtype=np.int64).reshape(len(groups), k)
        per_set = np.array([ch.size for _, ch in groups], dtype=np.int64)
        sb = pc_sets.set_block_counts(E, per_set, np.concatenate([ch for _, ch in groups]))
        got, ll = sc.set_block_scores(sb)
        bc = pc_pairs.block_counts(groups)
        want, want_ll = sc.block_scores(bc)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(ll, want_ll, rtol=1e-12, atol=1e-10)
        assert np.array_equal(sb.family_cells(), bc.cells_per_pair())
        i = 0
        for x, ch in groups:
            for v in ch.tolist():
                if (i + seed) % 5 == 0:
                    assert got[i] == pytest.approx(_direct(ds.codes, list(ds.arities), kind, v, x),
                                                   rel=1e-9, abs=1e-9)
                i += 1


def _random_and_shipped() -> list[Dataset]:
    out = [_data(s, n=7, rows=r) for s, r in [(21, 30), (22, 200), (23, 900)]]
    out += [read_data(DATA / f"{name}.csv", header=False) for name in ("wine", "zoo")
            if (DATA / f"{name}.csv").is_file()]
    return out


@pytest.mark.parametrize("i", range(5))
def test_penalised_tables_equal_with_set_counting_on_and_off(i, monkeypatch):
    sets = _random_and_shipped()
    if i >= len(sets):
        pytest.skip("tests/data/wine.csv or zoo.csv is missing")
    ds = sets[i]
    used = []
    real = parallel._score_groups_sets
    monkeypatch.setattr(parallel, "_score_groups_sets", lambda ctx, g: used.append(1) or real(ctx, g))
    on = score(ds, score="BIC", bayes_factor=20, n_jobs=1)
    assert used
    n_on = len(used)
    monkeypatch.setattr(parallel, "SET_COUNTING", False)
    off = score(ds, score="BIC", bayes_factor=20, n_jobs=1)
    assert len(used) == n_on
    _tables_equal(on, off, exact=False)


@pytest.mark.parametrize("block", [1, 5000])
def test_penalised_tables_do_not_depend_on_the_block_size_workers_or_pruning(block, monkeypatch):
    ds = _data(31, n=7, rows=150)
    ref = score(ds, score="BIC", bayes_factor=3, n_jobs=1)
    monkeypatch.setattr(parallel, "SET_BLOCK_ROW_PAIRS", block)
    _tables_equal(score(ds, score="BIC", bayes_factor=3, n_jobs=1), ref, exact=True)
    _tables_equal(score(ds, score="BIC", bayes_factor=3, n_jobs=2), ref, exact=True)
    full = dict((f.child, {}) for f in ref)
    for f in score(ds, score="BIC", prune=False, n_jobs=1):
        full[f.child][f.parents] = f.score
    for f in ref:
        assert full[f.child][f.parents] == f.score


@pytest.mark.parametrize("i", range(5))
def test_parent_set_f_read_back_from_the_previous_level_is_bit_identical(i, monkeypatch):
    """A level's parent sets take F from the previous level's family sets (``_Context.known_f``)
    instead of being counted, where that level scored them: the same tables to the last bit as
    counting them all (cache off), in one process and with two workers; the read-back finds
    some sets at every level after the first and most of them overall."""
    sets = _random_and_shipped()
    if i >= len(sets):
        pytest.skip("tests/data/wine.csv or zoo.csv is missing")
    ds = sets[i]
    asked = []
    real = parallel._Context.known_f
    def spy(self, size, masks):
        got = real(self, size, masks)
        asked.append(0.0 if got is None else float(got[1].mean()))
        return got

    monkeypatch.setattr(parallel._Context, "known_f", spy)
    on = score(ds, score="BIC", bayes_factor=20, n_jobs=1)
    assert asked and min(asked) > 0 and sum(asked) > 0.5 * len(asked)
    _tables_equal(score(ds, score="BIC", bayes_factor=20, n_jobs=2), on, exact=True)
    monkeypatch.setattr(parallel, "F_CACHE_BYTES", 0)
    asked.clear()
    off = score(ds, score="BIC", bayes_factor=20, n_jobs=1)
    assert asked and not any(asked)
    _tables_equal(off, on, exact=True)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kw", [{}, {"dense_limit": 3}, {"merge_rows": True}])
def test_others_ids_equal_the_cached_chain(seed, kw):
    """The ids of "every variable but v", built for all v at once, equal ``ids`` of each such set."""
    from gobnilp_py.scoring.atom_bounds import others_ids

    ds = _data(40 + seed, n=6, rows=int(np.random.default_rng(seed).integers(1, 300)))
    Z, M = others_ids(ParentConfigs(ds, **kw))
    ref = ParentConfigs(ds, **kw)
    for v in range(6):
        z, m = ref.ids(tuple(j for j in range(6) if j != v))
        assert np.array_equal(Z[v], z) and int(M[v]) == m


def test_the_tile_cache_is_bounded_in_bytes(monkeypatch):
    """Tiled row multiplicities are cached up to TILE_CACHE_BYTES, whatever the number of sizes asked."""
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2, size=(400, 4))
    pc = ParentConfigs(Dataset([f"v{j}" for j in range(4)], [2] * 4, codes), merge_rows=True)
    assert pc.weights is not None
    monkeypatch.setattr(ParentConfigs, "TILE_CACHE_BYTES", 10 * pc.weights.nbytes)
    for k in range(1, 40):
        t = pc._tiled(k)
        assert np.array_equal(t, np.tile(pc.weights, k))
        assert sum(x.nbytes for x in pc._tiles.values()) <= 10 * pc.weights.nbytes


@pytest.mark.parametrize("seed", range(8))
def test_unique_inverse_matches_numpy_unique(seed):
    """Sorted distinct values and inverse as ``np.unique``; the index names an occurrence of each."""
    from gobnilp_py.scoring.counts import unique_inverse

    rng = np.random.default_rng(seed)
    x = rng.integers(0, [1, 5, 1 << 14, 1 << 40][seed % 4], size=int(rng.integers(0, 3000)), dtype=np.int64)
    values, index, inverse = unique_inverse(x)
    ref_values, ref_inverse = np.unique(x, return_inverse=True)
    assert np.array_equal(values, ref_values) and np.array_equal(inverse, ref_inverse.reshape(-1))
    assert np.array_equal(x[index], values) and inverse.dtype == np.int64


@pytest.mark.parametrize("k", range(0, 6))
def test_insert_sorted_puts_the_child_in_order(k):
    """The family sets' elements: each sorted parent set with its child inserted in place."""
    from gobnilp_py.scoring.counts import _insert_sorted

    rng = np.random.default_rng(k)
    rows, cs = [], []
    for _ in range(300):
        x = sorted(rng.choice(12, size=k + 1, replace=False).tolist())
        cs.append(x.pop(int(rng.integers(0, k + 1))))
        rows.append(x)
    E, c = np.array(rows, dtype=np.int64).reshape(300, k), np.array(cs, dtype=np.int64)
    assert np.array_equal(_insert_sorted(E, c), np.sort(np.concatenate([E, c[:, None]], axis=1), axis=1))


@pytest.mark.parametrize("seed", range(6))
def test_unique_rows_equal_numpy_unique_over_rows(seed):
    """Packed-key distinct rows (ParentConfigs' row merging) against ``np.unique(axis=0)``, with
    arity-1 columns, no rows, and arities too wide to pack (numpy's own path)."""
    from gobnilp_py.scoring.counts import _unique_rows

    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(1, 8))
        N = int(rng.integers(0, 80))
        ar = rng.integers(1, 5, size=n) if seed < 5 else np.full(n + 30, 7)
        codes = np.column_stack([rng.integers(0, a, size=N) for a in ar]).astype(np.int8)
        got, mult = _unique_rows(codes, ar)
        ref, ref_mult = np.unique(codes, axis=0, return_counts=True)
        assert got.dtype == ref.dtype and np.array_equal(got, ref) and np.array_equal(mult, ref_mult)
