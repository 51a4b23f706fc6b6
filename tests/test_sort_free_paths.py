"""The walk's sort-free shortcuts give what the sorts and full computations they replace give.

Session 19 replaced, on small ranges, the sorts of the lattice walk by tables
(:func:`unique_inverse` with a bound, :func:`argsort_distinct`, :func:`lex_order`),
computed the pruning tolerance only where a margin exceeds ε (:func:`fires_array`),
and built ``LL(v | all others)`` from packed row codes.  Each is checked here against
the plain computation on random inputs, on both sides of its size thresholds.
"""
import numpy as np
import pytest

from gobnilp_py.data import Dataset
from gobnilp_py.scoring import atom_likelihoods, engine
from gobnilp_py.scoring import pruning as P
from gobnilp_py.scoring.counts import (DENSE_UNIQUE_RATIO, ParentConfigs, argsort_distinct, lex_order,
                                       unique_inverse)


@pytest.mark.parametrize("seed", range(12))
def test_unique_inverse_with_a_bound_matches_numpy_unique(seed):
    """Values and inverse as ``np.unique``, an occurrence as index, on both paths (table and sort)."""
    rng = np.random.default_rng(seed)
    bound = int(rng.choice([1, 7, 1 << 10, 1 << 14]))
    size = int(rng.choice([0, 1, 5, bound // DENSE_UNIQUE_RATIO + 1, 3 * bound + 2]))
    x = rng.integers(0, bound, size=size, dtype=np.int64)
    values, index, inverse = unique_inverse(x, bound)
    ref_values, ref_inverse = np.unique(x, return_inverse=True)
    assert np.array_equal(values, ref_values) and np.array_equal(inverse, ref_inverse.reshape(-1))
    assert np.array_equal(x[index], values)
    assert values.dtype == x.dtype and inverse.dtype == np.int64 and index.dtype == np.int64


@pytest.mark.parametrize("seed", range(12))
def test_argsort_distinct_is_argsort(seed):
    """Distinct keys: the table path and the sort give the one ascending order."""
    rng = np.random.default_rng(100 + seed)
    bound = int(rng.choice([1, 16, 1 << 12, 1 << 21]))
    size = int(min(bound, rng.choice([0, 1, 3, 200, 5000])))
    keys = rng.choice(bound, size=size, replace=False).astype(np.int64)
    assert np.array_equal(argsort_distinct(keys, bound), np.argsort(keys))


@pytest.mark.parametrize("k", [1, 2, 4, 9, 20])
def test_lex_order_is_lexsort(k):
    """Distinct sorted rows of elements below ``base``, packed or (k = 20, base 14: 14^20 > 2^62) not."""
    rng = np.random.default_rng(k)
    base = 14 if k < 14 else 40
    rows = np.array(sorted({tuple(sorted(rng.choice(base, size=k, replace=False).tolist())) for _ in range(300)}))
    rows = rows[rng.permutation(len(rows))].astype(np.int8)
    assert np.array_equal(lex_order(rows, base), np.lexsort(rows.T[::-1]))


def _fires_reference(margin, epsilon, *refs):
    """The rule before session 19: the tolerance computed for every element."""
    margin = np.asarray(margin, dtype=np.float64)
    scale = np.ones(np.broadcast_shapes(margin.shape, *(np.shape(r) for r in refs)))
    for r in refs:
        np.maximum(scale, np.abs(r), out=scale)
    scale *= P.RTOL
    scale += epsilon
    return margin > scale


@pytest.mark.parametrize("seed", range(20))
def test_fires_array_equals_the_full_tolerance(seed):
    """Few, many or no margins over ε; broadcast shapes; NaN and infinite values; margins placed
    exactly on ε + tolerance (must keep) and one ulp above it (must fire)."""
    rng = np.random.default_rng(seed)
    shape = [(50,), (40, 3), (1,), (0,)][seed % 4]
    eps = float(rng.choice([0.0, 1e-7, np.log(3.0), 5.0]))
    ref1 = rng.normal(0, 10.0 ** rng.integers(0, 5), size=shape)
    ref2 = rng.normal(0, 100.0, size=shape[:1] + (1,) * (len(shape) - 1))   # broadcasts along the rest
    sd = [0.5, 5.0, 1e-3][seed % 3]
    few = seed % 2 == 0            # few margins over ε (the tolerance per element) or many (all at once)
    margin = rng.normal(eps - (3 * sd if few else 0.0), sd, size=shape)
    if margin.size:
        edge = P.RTOL * np.maximum(np.maximum(1.0, np.abs(ref1)), np.abs(np.broadcast_to(ref2, shape))) + eps
        pick = rng.random(shape)
        at, above = (0.04, 0.08) if few else (0.2, 0.3)
        margin = np.where(pick < at, edge, margin)
        margin = np.where((pick >= at) & (pick < above), np.nextafter(edge, np.inf), margin)
        margin.flat[0] = np.nan
        if margin.size > 2:
            margin.flat[1] = np.inf
            ref1.flat[2] = np.nan
    got = P.fires_array(margin, eps, ref1, ref2)
    assert got.shape == np.broadcast_shapes(margin.shape, ref1.shape, ref2.shape)
    assert np.array_equal(got, _fires_reference(margin, eps, ref1, ref2))
    # a margin of a smaller shape than the references broadcasts too
    if len(shape) == 2:
        col = margin[:, :1]
        assert np.array_equal(P.fires_array(col, eps, ref1), _fires_reference(col, eps, ref1))


def _random_dataset(rng, n, rows, merged_rows):
    arities = rng.integers(1, 4, size=n)
    codes = np.column_stack([rng.integers(0, a, size=rows) for a in arities])
    if merged_rows:
        codes = codes[rng.integers(0, max(1, rows // 4), size=rows)]      # many repeated rows
    return Dataset([f"v{j}" for j in range(n)], [int(a) for a in arities], codes)


@pytest.mark.parametrize("seed", range(16))
def test_packed_ll_all_others_matches_the_per_child_build(seed):
    """``LL(v | all others)`` from packed codes: the per-child atoms' value to rounding, with merged
    (weighted) rows and variables of arity 1."""
    rng = np.random.default_rng(seed)
    ds = _random_dataset(rng, int(rng.integers(2, 12)), int(rng.integers(5, 300)), merged_rows=seed % 2 == 1)
    pc = ParentConfigs(ds)
    ar = [int(a) for a in ds.arities]
    packed = atom_likelihoods.ll_all_others_packed(pc)
    assert packed is not None
    per_child = atom_likelihoods.atom_likelihoods(pc, ar, tables=True)[0]
    assert np.allclose(packed, per_child, rtol=1e-13, atol=1e-12)
    assert np.array_equal(atom_likelihoods.atom_likelihoods(pc, ar, tables=False)[0], packed)


def test_packed_ll_all_others_declines_wide_and_long_data(monkeypatch):
    """Codes that would not fit in an int64, or more codes than PACKED_LLC_MAX_CODES: the per-child build."""
    rng = np.random.default_rng(0)
    wide = Dataset([f"v{j}" for j in range(70)], [2] * 70, rng.integers(0, 2, size=(20, 70)))
    assert atom_likelihoods.ll_all_others_packed(ParentConfigs(wide)) is None
    pc = ParentConfigs(_random_dataset(rng, 5, 100, merged_rows=False))
    assert atom_likelihoods.ll_all_others_packed(pc) is not None
    monkeypatch.setattr(atom_likelihoods, "PACKED_LLC_MAX_CODES", 5 * pc.rows - 1)
    assert atom_likelihoods.ll_all_others_packed(pc) is None
