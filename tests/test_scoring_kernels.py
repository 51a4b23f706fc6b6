"""The compiled counting-and-scoring kernel (``scoring/_kernels_numba.py``) against the numpy path.

Both paths compute, per (parent set, child) pair, the score, the log-likelihood
(penalised scores), the non-empty cells and the ``ml_ceiling`` bound.  Checked
here on hypothesis-generated data (arities 1-4, 1-300 rows, merged rows with
multiplicities and plain rows, small ``dense_limit`` and parent sets up to size
8 so that codes are compressed, every built-in score): values within 1e-12
relative (the kernel module's docstring says why not "bit-identical" as a
promise, although they are bit-identical on the project's machine), cells
equal, the same NaN/inf conventions.  Whole ``score()`` tables with the kernel
forced on and off have the same families and scores within the tolerance.  The
choice of path is tested without numba too (the kernel-specific tests are
skipped then).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py.data import read_data
from gobnilp_py.data.dataset import Dataset
from gobnilp_py.scoring import parallel, score
from gobnilp_py.scoring.counts import ParentConfigs
from gobnilp_py.scoring.atom_likelihoods import atom_likelihoods as _atom_likelihoods
from gobnilp_py.scoring.local_scores import BDeu, make_score

RTOL = 1e-12
SCORES = ["BIC", "AIC", "BDeu", "K2", "BDs"]
HAVE_NUMBA = parallel.kernel_available()
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed (optional extra 'fast')")
DATA = Path(__file__).resolve().parent / "data"


def _close(a: np.ndarray, b: np.ndarray) -> None:
    """Equal to 1e-12 relative (same infinities and NaNs)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.array_equal(np.isinf(a) & (a > 0), np.isinf(b) & (b > 0))
    fin = np.isfinite(a) & np.isfinite(b)
    assert np.array_equal(np.isfinite(a), np.isfinite(b))
    scale = np.maximum(np.maximum(np.abs(a[fin]), np.abs(b[fin])), 1e-300)
    bad = np.abs(a[fin] - b[fin]) > RTOL * scale
    assert not bad.any(), (a[fin][bad][:5], b[fin][bad][:5])


def _kernel_matches_numpy(ctx, groups):
    """Score ``groups`` by both paths: values equal to 1e-12 relative, cells exactly; returns (kernel, numpy)."""
    ref = parallel.score_groups(ctx, groups, False)
    got = parallel.score_groups(ctx, groups, True)
    _close(got.scores, ref.scores)
    _close(got.ll, ref.ll)
    _close(got.ub, ref.ub)
    assert np.array_equal(got.cells, ref.cells)
    return got, ref


@st.composite
def problems(draw):
    n = draw(st.integers(2, 10))
    rows = draw(st.integers(1, 300))
    ar = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    distinct = draw(st.sampled_from([None, 1, 3, 12]))       # few distinct rows: merged with weights
    cols = [rng.integers(0, a, size=rows) for a in ar]
    codes = np.column_stack(cols).astype(np.int64)
    if distinct is not None:
        codes = codes[rng.integers(0, min(distinct, rows), size=rows)]
    ds = Dataset([f"x{j}" for j in range(n)], ar, codes)
    kind = draw(st.sampled_from(SCORES))
    ess = draw(st.sampled_from([1.0, 0.3, 7.0]))
    merge = draw(st.sampled_from([None, True, False]))
    dense = draw(st.sampled_from([None, None, 1, 5, 40]))
    # parent sets in lexicographic order (as the lattice walk gives them), sizes up to 8
    n_sets = draw(st.integers(1, 25))
    sets = set()
    for _ in range(n_sets):
        k = int(rng.integers(0, min(n - 1, 8) + 1))
        sets.add(tuple(sorted(rng.choice(n, size=k, replace=False).tolist())))
    groups = []
    for x in sorted(sets):
        others = [v for v in range(n) if v not in x]
        pick = rng.random(len(others)) < 0.7
        ch = np.array([v for v, keep in zip(others, pick) if keep], dtype=np.int64)
        groups.append((x, ch))
    want = draw(st.sampled_from(["none", "cells", "ub"]))
    return ds, kind, ess, merge, dense, groups, want


def _context(ds, kind, ess, merge, dense, want):
    sc = make_score(kind, ds, ess=ess)
    pc = ParentConfigs(ds, dense_limit=dense, merge_rows=merge)
    atom_w = mixed = ubc = None
    if want == "ub":
        llc, atom_w, mixed = _atom_likelihoods(pc, [int(a) for a in ds.arities])
        ubc = llc < -1e-9
    pay = parallel.Payload(data=ds, score=sc, want_ll=kind in ("BIC", "AIC"), want_cells=want != "none",
                           want_ub=want == "ub", atom_weights=atom_w, ub_children=ubc, atom_mixed=mixed)
    ctx = parallel._Context(pay)
    ctx.pc = pc                     # the counting under test (merged rows, small dense_limit)
    return ctx


@needs_numba
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_kernel_equals_numpy_path(prob):
    ds, kind, ess, merge, dense, groups, want = prob
    ctx = _context(ds, kind, ess, merge, dense, want)
    got, ref = _kernel_matches_numpy(ctx, groups)
    assert got.cells.dtype == ref.cells.dtype


@needs_numba
@pytest.mark.parametrize("kind", SCORES)
def test_kernel_with_counts_above_the_lgamma_table_and_big_q(kind):
    """N > LGAMMA_TABLE_MAX (Dirichlet terms from lgamma) and an 8-parent set with q = 4**8 (compressed ids)."""
    rng = np.random.default_rng(7)
    n, rows = 10, 3000
    ar = [4] * 8 + [2, 3]
    codes = np.column_stack([rng.integers(0, a, size=rows) for a in ar])
    codes[:, 8] = (codes[:, 0] + codes[:, 1]) % 2
    ds = Dataset([f"v{j}" for j in range(n)], ar, codes)
    ctx = _context(ds, kind, 2.0, None, None, "ub" if kind in ("BDeu", "K2", "BDs") else "none")
    groups = [((), np.arange(n, dtype=np.int64)), ((0,), np.arange(1, n, dtype=np.int64)),
              ((0, 1), np.arange(2, n, dtype=np.int64)),
              (tuple(range(8)), np.array([8, 9], dtype=np.int64))]
    _kernel_matches_numpy(ctx, groups)


def _datasets() -> list[Path]:
    names = ["wine.csv", "zoo.csv", "tic-tac-toe.csv", "iris.csv"]
    found = [DATA / f for f in names if (DATA / f).is_file()]
    if not found:
        asia = Path(__file__).resolve().parents[1] / "gobnilp_py" / "examples" / "asia.csv"
        found = [asia] if asia.is_file() else []
    return found


def _same_tables(a, b) -> None:
    assert a.names == b.names
    for fa, fb in zip(a.families, b.families):
        da, db = dict(fa), dict(fb)
        assert set(da) == set(db)
        _close(np.array([da[k] for k in da]), np.array([db[k] for k in da]))


@needs_numba
@pytest.mark.parametrize("path", _datasets(), ids=lambda p: p.stem)
@pytest.mark.parametrize("kind", ["BIC", "BDeu", "BDs"])
def test_score_table_equal_with_kernel_on_and_off(path, kind, monkeypatch):
    ds = read_data(path, header=path.name == "asia.csv")
    kw = dict(score=kind, bayes_factor=20, n_jobs=1, palim=3)
    monkeypatch.setattr(parallel, "KERNEL", "numpy")
    off = score(ds, **kw)
    monkeypatch.setattr(parallel, "KERNEL", "numba")
    on = score(ds, **kw)
    _same_tables(on, off)
    assert on.meta["families_scored"] == off.meta["families_scored"]
    assert on.pruning == off.pruning


@needs_numba
def test_kernel_in_worker_processes_equals_serial(monkeypatch):
    """Workers get the level's decision with the chunk: pool tables equal serial ones bit for bit."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN_GROUPS", 0)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS", 0)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS_PER_GROUP", 0)
    monkeypatch.setattr(parallel, "KERNEL", "auto")
    monkeypatch.setattr(parallel, "KERNEL_MIN_UNITS", 20_000)     # some levels numpy, later ones kernel
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, size=(300, 7))
    codes[:, 6] = (codes[:, 0] + codes[:, 1]) % 3
    ds = Dataset([f"v{j}" for j in range(7)], [3] * 7, codes)
    for kind in ("BIC", "BDeu"):
        serial = score(ds, score=kind, bayes_factor=20, n_jobs=1)
        par = score(ds, score=kind, bayes_factor=20, n_jobs=2)
        assert serial.families == par.families
        assert serial.pruning == par.pruning


def test_path_choice(monkeypatch):
    """numpy when forced or when the score is not a built-in one; auto switches at the threshold."""
    ds = Dataset(["a", "b", "c"], [2, 2, 2], np.array([[0, 1, 0], [1, 1, 0], [0, 0, 1]]))
    groups = [((0,), np.array([1, 2])), ((1,), np.array([0, 2]))]
    bic = make_score("BIC", ds)
    monkeypatch.setattr(parallel, "KERNEL", "numpy")
    assert not parallel.use_kernel(bic, groups, 3)
    monkeypatch.setattr(parallel, "KERNEL", "numba")
    assert parallel.use_kernel(bic, groups, 3) == HAVE_NUMBA
    assert not parallel.use_kernel(bic, [], 3)

    class HalfPrior(BDeu):                    # own prior: never the kernel
        def alpha_j(self, fc):
            return np.full(fc.children.size, 0.5 * self.ess / float(fc.q))

    assert not parallel.use_kernel(HalfPrior(ds), groups, 3)
    assert not parallel.use_kernel(make_score(lambda c, p, counts: 0.0, ds), groups, 3)
    monkeypatch.setattr(parallel, "KERNEL", "auto")
    monkeypatch.setattr(parallel, "KERNEL_MIN_UNITS", 12)     # 4 pairs x 3 rows = 12 units
    assert parallel.use_kernel(bic, groups, 3) == HAVE_NUMBA
    assert not parallel.use_kernel(bic, groups[:1], 3)
    assert parallel.use_kernel(bic, groups[:1], 3, units_before=6) == HAVE_NUMBA


def test_numpy_path_without_numba(monkeypatch):
    """With numba reported missing, "numba" mode falls back to numpy and tables are unchanged."""
    ds = read_data(_datasets()[0], header=_datasets()[0].name == "asia.csv")
    monkeypatch.setattr(parallel, "KERNEL", "numpy")
    ref = score(ds, score="BDeu", bayes_factor=20, n_jobs=1, palim=2)
    monkeypatch.setattr(parallel, "_KERNEL_AVAILABLE", [False])
    monkeypatch.setattr(parallel, "KERNEL", "numba")
    assert not parallel.use_kernel(make_score("BIC", ds), [((0,), np.array([1]))], ds.N)
    got = score(ds, score="BDeu", bayes_factor=20, n_jobs=1, palim=2)
    assert got.families == ref.families


@needs_numba
def test_big_lattice_level_all_pairs():
    """Every set of sizes 0-4 of 8 variables for every other child, weighted rows: a level-sized group list."""
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2, size=(500, 8))
    codes[:, 7] = codes[:, 0] & codes[:, 1]
    ds = Dataset([f"v{j}" for j in range(8)], [2, 2, 3, 2, 4, 2, 2, 2], codes % np.array([2, 2, 3, 2, 4, 2, 2, 2]))
    groups = [(x, np.array([v for v in range(8) if v not in x], dtype=np.int64))
              for k in range(5) for x in itertools.combinations(range(8), k)]
    for kind in SCORES:
        ctx = _context(ds, kind, 1.0, True, None, "ub")
        _kernel_matches_numpy(ctx, groups)
