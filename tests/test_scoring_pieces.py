"""The lattice walk builds each level in pieces (``lattice_walk.PIECE_PAIRS``); the pieces must not matter.

A level is generated, counted and scored piece by piece -- ranges of the largest
parent ``j`` and, inside one ``j``, ranges of the largest element of the subset
``Y`` -- so that memory is bounded by the previous level plus one piece.  Every
rule sees the same subsets and the same previous level whatever the pieces, so
the table, every rule counter and the per-level counts must be identical to a
walk with one piece per level; here tiny budgets force many pieces, including
the split of a single ``j`` by ranges of ``max Y``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py import read_data
from gobnilp_py.data.dataset import Dataset
from gobnilp_py.scoring import engine, lattice_generate, lattice_level, lattice_walk, score

from random_problems import random_data


@st.composite
def wide_problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 10))
    n_rows = int(rng.integers(5, 120))
    arities = [int(a) for a in rng.choice([1, 2, 3], size=n, p=[0.08, 0.6, 0.32])]
    codes = np.column_stack([rng.integers(0, r, size=n_rows) for r in arities])
    for j in range(1, n):      # some dependence, so that rules fire at different levels
        if arities[j] > 1 and rng.random() < 0.5:
            src = int(rng.integers(0, j))
            keep = rng.random(n_rows) < 0.8
            codes[:, j] = np.where(keep, codes[:, src] % arities[j], codes[:, j])
    ds = Dataset([f"V{j}" for j in range(n)], arities, codes)
    kind = str(rng.choice(["BIC", "BDeu", "AIC"]))
    eps = float(rng.choice([0.0, 1.0, 3.0]))
    palim = [None, None, "auto", 2][int(rng.integers(0, 4))]
    budget = int(rng.choice([1, 2, 3, 7, 40]))
    return ds, kind, eps, palim, budget


@settings(max_examples=60, derandomize=True, deadline=None, database=None)
@given(wide_problems())
def test_pieces_do_not_change_the_table(problem):
    ds, kind, eps, palim, budget = problem
    one = score(ds, score=kind, epsilon=eps, palim=palim, n_jobs=1)
    saved = lattice_walk.PIECE_PAIRS
    lattice_walk.PIECE_PAIRS = budget
    try:
        many = score(ds, score=kind, epsilon=eps, palim=palim, n_jobs=1)
    finally:
        lattice_walk.PIECE_PAIRS = saved
    assert many.families == one.families
    assert many.pruning == one.pruning
    assert many.meta["families_scored_per_level"] == one.meta["families_scored_per_level"]


def test_a_single_parent_is_split_by_the_subsets_largest_element(monkeypatch):
    """With a budget of 2 pairs, the candidates with largest parent j are split by max(Y)."""
    rng = np.random.default_rng(7)
    ds = Dataset([f"V{j}" for j in range(7)], [2] * 7, rng.integers(0, 2, size=(30, 7)))
    one = score(ds, score="BIC", palim=3, prune=False, n_jobs=1)
    planned: list[list[lattice_walk._Piece]] = []
    real = lattice_walk._plan_pieces

    def spy(*args):
        out = real(*args)
        planned.append(out)
        return out

    monkeypatch.setattr(lattice_walk, "PIECE_PAIRS", 2)
    monkeypatch.setattr(lattice_walk, "_plan_pieces", spy)
    many = score(ds, score="BIC", palim=3, prune=False, n_jobs=1)
    assert many.families == one.families
    # level 3: some piece covers one j and a proper range of max(Y) (ylo > 0)
    assert any(p.j1 == p.j0 + 1 and p.ylo > 0 for p in planned[2])
    # pieces of a level are in increasing mask order and cover each j once
    for level in planned:
        js = [j for p in level for j in range(p.j0, p.j1) if p.ylo == 0]
        assert js == sorted(js)


def test_the_last_level_is_not_stored_when_no_child_can_grow(monkeypatch):
    """palim = 2 on binary data: level 2 is scored, never kept as a level (no level 3 exists)."""
    rng = np.random.default_rng(3)
    ds = Dataset([f"V{j}" for j in range(6)], [2] * 6, rng.integers(0, 2, size=(50, 6)))
    built_sizes: list[int] = []
    real = lattice_walk._finish_piece

    def spy(run, grouped, built):
        built_sizes.append(-1 if built is None else grouped.elems.shape[1])
        return real(run, grouped, built)

    monkeypatch.setattr(lattice_walk, "_finish_piece", spy)
    t = score(ds, score="BIC", palim=2, prune=False, n_jobs=1)
    assert t.meta["families_scored_per_level"] == [6, 30, 60]
    assert built_sizes == [1, -1]


def test_a_walk_stopped_by_the_parent_count_cap_is_not_unpruned():
    """Sets whose supersets the cap excludes are counted, so the table is not taken as unpruned.

    Regression: once the walk stopped generating supersets beyond the cap, a tiny
    problem could end with every counter at zero; ``is_unpruned`` then called
    the ε = 0 table safe for every gap and ``kbest`` missed the 2nd best network.
    """
    ds = read_data(random_data(np.random.default_rng(2), 2, 21))   # the case hypothesis found
    t = score(ds, score="BIC", n_jobs=1)
    assert [len(f) for f in t.families] == [1, 1]          # only the empty sets survive
    assert sum(c["parent_count"] for c in t.pruning.values()) > 0
    assert not t.is_unpruned and t.safe_epsilon == 0.0
    # palim="auto" depends on ε: even unpruned, the table is safe for its own ε only
    auto = score(ds, score="BIC", palim="auto", prune=False, bayes_factor=3, n_jobs=1)
    assert not auto.is_unpruned and auto.safe_epsilon == pytest.approx(np.log(3))


@pytest.mark.parametrize("kind", ["BIC", "BDeu"])
def test_pieces_scored_on_workers_while_the_next_is_generated_equal_the_serial_walk(monkeypatch, kind):
    """Pipelined pieces: piece i is scored on the pool while piece i + 1 is generated.

    Tiny pieces, every piece sent to two worker processes (as arrays,
    ``FlatGroups``), both scoring kernels where numba is installed: the table,
    every counter and the per-level counts equal the serial one-piece walk.
    """
    from gobnilp_py.scoring import parallel

    rng = np.random.default_rng(11)
    ds = Dataset([f"V{j}" for j in range(7)], [2, 3, 2, 2, 3, 2, 2], rng.integers(0, 2, size=(80, 7)))
    serial = score(ds, score=kind, bayes_factor=3, n_jobs=1)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_GROUPS", 0)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS", 0)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS_PER_GROUP", 0)
    monkeypatch.setattr(lattice_walk, "PIECE_PAIRS", 5)
    for mode in ("numpy", "numba"):
        monkeypatch.setattr(parallel, "KERNEL", mode)
        piped = score(ds, score=kind, bayes_factor=3, n_jobs=2)
        if mode == "numba" and kind == "BIC" and parallel.kernel_available():
            # the numpy path sums BIC's LL per variable set, the kernel per pair: equal to rounding
            assert _same_to_rounding(piped.families, serial.families)
        else:
            assert piped.families == serial.families
        assert piped.pruning == serial.pruning
        assert piped.meta["families_scored_per_level"] == serial.meta["families_scored_per_level"]


def _same_to_rounding(a, b, rel=1e-12):
    """Same parent sets in the same order, scores equal to ``rel``."""
    return all(len(fa) == len(fb) and all(pa == pb and sa == pytest.approx(sb, rel=rel, abs=1e-12)
                                          for (pa, sa), (pb, sb) in zip(fa, fb)) for fa, fb in zip(a, b)) and len(a) == len(b)


@settings(max_examples=25, derandomize=True, deadline=None, database=None)
@given(wide_problems())
def test_generating_row_by_row_does_not_change_the_table(problem):
    """The numpy generation treats every child of a piece in one call; one row per call gives the same
    table, counters and per-level counts (every rule reads its own child's parameters)."""
    ds, kind, eps, palim, _ = problem
    many = score(ds, score=kind, epsilon=eps, palim=palim, n_jobs=1)
    saved = lattice_generate.GEN_CHUNK_BYTES
    lattice_generate.GEN_CHUNK_BYTES = 1
    try:
        single = score(ds, score=kind, epsilon=eps, palim=palim, n_jobs=1)
    finally:
        lattice_generate.GEN_CHUNK_BYTES = saved
    assert single.families == many.families
    assert single.pruning == many.pruning
    assert single.meta["families_scored_per_level"] == many.meta["families_scored_per_level"]


@pytest.mark.parametrize("n,dense", [(12, True), (12, False), (20, False), (57, False), (58, False), (62, False)])
def test_level_keys_find_every_child_and_mask(n, dense):
    """Look-ups of (child, mask) in a level held child by child: the dense table (rows stored plus
    one, 0 empty), combined int64 keys up to 57 variables, one binary search per child beyond; all
    against a dictionary.  A dense table is empty again after ``clear``."""
    rng = np.random.default_rng(n)
    top = np.int64(1) << np.int64(n)
    per_child = [np.unique(rng.integers(0, top, size=int(rng.integers(0, 30)), dtype=np.int64)) for _ in range(n)]
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([m.size for m in per_child], out=off[1:])
    masks = np.concatenate(per_child)
    f = np.zeros(masks.size)
    cat = lattice_level._Level(masks, np.zeros((masks.size, 0), dtype=np.int8), f, f, f,
                        np.zeros(masks.size, dtype=np.int8), np.zeros(masks.size, dtype=np.int32), f)
    table = lattice_level._LevelKeys.dense_table(n) if dense else None
    assert (table is not None) == dense
    keys = lattice_level._LevelKeys(cat, off, n, table)
    assert (keys.keys is not None) == (n <= 57)
    where = {(c, int(m)): int(off[c]) + i for c in range(n) for i, m in enumerate(per_child[c].tolist())}
    present = list(where)
    qc, qm = [], []
    for _ in range(400):
        if present and rng.random() < 0.5:
            c, m = present[int(rng.integers(0, len(present)))]
        else:
            c, m = int(rng.integers(0, n)), int(rng.integers(0, top, dtype=np.int64))
        qc.append(c)
        qm.append(m)
    child = np.array(qc, dtype=np.int64).reshape(20, 20)
    mq = np.array(qm, dtype=np.int64).reshape(20, 20)
    pos, hit = keys.find(child, mq)
    for c, m, p, h in zip(child.ravel().tolist(), mq.ravel().tolist(), pos.ravel().tolist(), hit.ravel().tolist()):
        assert h == ((c, m) in where)
        if h:
            assert p == where[(c, m)]
    if dense:
        keys.clear()
        assert not table.any()


def test_the_numpy_walk_beyond_57_variables_equals_the_reference_walk():
    """60 variables (no combined keys: one binary search per child) on a few rows, where the
    dominance, penalty and entropy rules all fire at parent-set size 2."""
    rng = np.random.default_rng(5)
    ds = Dataset([f"V{j}" for j in range(60)], [2] * 60, rng.integers(0, 2, size=(12, 60)))
    fast = score(ds, score="BIC", bayes_factor=1, palim=2, n_jobs=1)
    saved = engine.VECTORISE_MAX_N
    engine.VECTORISE_MAX_N = None
    try:
        slow = score(ds, score="BIC", bayes_factor=1, palim=2, n_jobs=1)
    finally:
        engine.VECTORISE_MAX_N = saved
    assert fast.families == slow.families
    assert fast.pruning == slow.pruning
    assert fast.meta["families_scored_per_level"] == slow.meta["families_scored_per_level"]
    fired = {r: sum(c[r] for c in fast.pruning.values()) for r in ("dominated", "penalty_bound", "entropy")}
    assert all(fired.values()), fired


def test_a_walk_hands_back_its_dense_table_empty_and_the_next_walk_reuses_it(monkeypatch):
    """The dense (child, mask) table is kept between walks only when every slot is empty (0) again,
    including when the walk stops early because a level comes out empty; a reused table gives the
    tables of fresh ones."""
    monkeypatch.setattr(lattice_level._LevelKeys, "_spare", [])
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2, size=(50, 9))
    codes[:, 1] = codes[:, 0]
    ds = Dataset([f"V{j}" for j in range(9)], [2] * 9, codes)
    first = score(ds, score="BIC", bayes_factor=3, n_jobs=1)
    assert first.meta["families_scored_per_level"][-1] > 0
    (table,) = lattice_level._LevelKeys._spare
    assert table.size == 9 << 9 and not table.any()
    seen = []
    real = lattice_level._LevelKeys.dense_table
    monkeypatch.setattr(lattice_level._LevelKeys, "dense_table", staticmethod(lambda n: seen.append(1) or real(n)))
    again = score(ds, score="BIC", bayes_factor=3, n_jobs=1)
    assert seen and lattice_level._LevelKeys._spare[0] is table and not table.any()
    assert again.families == first.families and again.pruning == first.pruning
    # a walk that stops because the bound rules remove every candidate of a level (found by search;
    # it leaves a dirty table when the level's slots are not cleared before that stop)
    rng = np.random.default_rng(6)
    rng.integers(3, 9), rng.integers(3, 40)          # the search's draws of n and N (5, 22)
    early = Dataset([f"V{j}" for j in range(5)], [2] * 5, rng.integers(0, 2, size=(22, 5)))
    score(early, score="BIC", bayes_factor=20, n_jobs=1)
    assert not lattice_level._LevelKeys._spare[0].any()


def test_the_dense_table_widens_to_int32_for_a_level_of_32767_rows_or_more(monkeypatch):
    """int16 slots hold small levels; a stored level of 48,048 rows (16 binary variables, every set
    of 5 parents) moves the walk to an int32 table, which is the one kept, and the table equals a
    walk on int32 slots throughout."""
    rng = np.random.default_rng(11)
    ds = Dataset([f"V{j}" for j in range(16)], [2] * 16, rng.integers(0, 2, size=(40, 16)))
    assert lattice_level._LevelKeys.fit(np.zeros(16 << 16, dtype=np.int16), 32766).dtype == np.int16
    assert lattice_level._LevelKeys.fit(np.zeros(16 << 16, dtype=np.int16), 32767).dtype == np.int32
    monkeypatch.setattr(lattice_level._LevelKeys, "_spare", [])
    wide = score(ds, score="BIC", palim=6, prune=False, n_jobs=1)
    assert wide.meta["families_scored_per_level"][5] == 16 * 3003
    (kept,) = lattice_level._LevelKeys._spare
    assert kept.dtype == np.int32 and not kept.any()
    monkeypatch.setattr(lattice_level._LevelKeys, "_spare", [])
    monkeypatch.setattr(lattice_level._LevelKeys, "dense_table", staticmethod(lambda n: np.zeros(n << n, dtype=np.int32)))
    ref = score(ds, score="BIC", palim=6, prune=False, n_jobs=1)
    assert wide.families == ref.families
