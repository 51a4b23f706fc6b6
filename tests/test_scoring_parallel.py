"""Parallel and Dask scoring give tables identical to serial scoring (same families, order, bits).

Levels are normally sent to workers only when they hold many parent sets;
these tests set the threshold to 0 so that every level goes through the pool.
"""

from __future__ import annotations

import numpy as np
import pytest

from gobnilp_py.data.dataset import Dataset
from gobnilp_py.errors import ScoreError
from gobnilp_py.scoring import parallel, pool, score


def _data(seed: int = 0, n: int = 8, rows: int = 300) -> Dataset:
    rng = np.random.default_rng(seed)
    cols = [rng.integers(0, 3, size=rows)]
    for j in range(1, n):
        src = cols[int(rng.integers(0, j))]
        cols.append(np.where(rng.random(rows) < 0.4, rng.integers(0, 2 + j % 2, size=rows), src % (2 + j % 2)))
    return Dataset([f"x{j}" for j in range(n)], [3] + [2 + j % 2 for j in range(1, n)], np.column_stack(cols))


def _same(a, b) -> None:
    assert a.names == b.names
    assert a.families == b.families          # same sets, same order, bit-identical floats
    assert a.pruning == b.pruning
    assert a.meta["families_scored_per_level"] == b.meta["families_scored_per_level"]


@pytest.fixture
def always_parallel(monkeypatch):
    monkeypatch.setattr(parallel, "PARALLEL_MIN_GROUPS", 0)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS", 0)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS_PER_GROUP", 0)


@pytest.mark.parametrize("kind", ["BIC", "BDeu", "K2"])
def test_process_pool_equals_serial(always_parallel, kind):
    ds = _data(1)
    serial = score(ds, score=kind, bayes_factor=20, n_jobs=1)
    par = score(ds, score=kind, bayes_factor=20, n_jobs=2)
    assert par.meta["n_jobs"] == 2
    _same(serial, par)


def test_process_pool_equals_serial_with_rows_merged_and_palim(always_parallel):
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2, size=(2000, 7))       # few distinct rows: counting merges them
    codes[:, 6] = codes[:, 0] ^ codes[:, 1]
    ds = Dataset([f"v{j}" for j in range(7)], [2] * 7, codes)
    for kw in ({"palim": 2}, {"palim": "auto"}, {"prune": False}):
        _same(score(ds, n_jobs=1, **kw), score(ds, n_jobs=2, **kw))


def test_unpicklable_score_with_spawned_workers_is_a_clear_error(monkeypatch):
    import multiprocessing as mp

    ds = _data(2, n=4, rows=50)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_GROUPS", 0)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS", 0)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS_PER_GROUP", 0)
    monkeypatch.setattr(mp, "get_all_start_methods", lambda: ["spawn"])
    with pytest.raises(ScoreError, match="cannot be sent to worker processes.*n_jobs=1"):
        score(ds, score=lambda c, p, counts: -float(len(p)), n_jobs=2)
    # in-process it works
    t = score(ds, score=lambda c, p, counts: -float(len(p)), n_jobs=1)
    assert len(t) == 4


def test_bad_parallel_settings():
    ds = _data(2, n=3, rows=20)
    for kw, frag in [({"n_jobs": 0}, "n_jobs"), ({"n_jobs": 1.5}, "n_jobs"), ({"backend": "mpi"}, "backend"),
                     ({"backend": "dask"}, "scheduler"), ({"scheduler": "tcp://x:1"}, "scheduler")]:
        with pytest.raises(ScoreError, match=frag) as exc:
            score(ds, **kw)
        assert "\n" not in str(exc.value)


def test_dask_local_cluster_equals_serial(always_parallel, tmp_path):
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (optional extra 'dask')")
    ds = _data(4)
    serial_bic = score(ds, score="BIC", bayes_factor=3, n_jobs=1)
    serial_bdeu = score(ds, score="BDeu", bayes_factor=3, n_jobs=1)
    import dask

    # dask's scratch folder (it outlives the cluster) in this test's folder, not the system's temporary one
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster:
        by_address = score(ds, score="BIC", bayes_factor=3, backend="dask", scheduler=cluster.scheduler_address)
        with distributed.Client(cluster) as client:
            by_client = score(ds, score="BDeu", bayes_factor=3, backend="dask", scheduler=client)
    _same(serial_bic, by_address)
    _same(serial_bdeu, by_client)
    assert by_address.meta["backend"] == "dask"


def test_default_n_jobs_scores_small_problems_in_process(monkeypatch):
    """Small levels never start the pool (its start-up would cost more than the level)."""
    def no_pool(self):
        raise AssertionError("the worker pool was started for a small problem")

    monkeypatch.setattr(pool.LevelScorer, "_open_pool", no_pool)
    ds = _data(4, n=9, rows=150)
    for kind in ("BIC", "BDeu"):
        t = score(ds, score=kind, bayes_factor=3)          # default n_jobs: every core
        _same(t, score(ds, score=kind, bayes_factor=3, n_jobs=1))


def test_pool_threshold_counts_rows_and_children(monkeypatch):
    """A level goes to the pool only above all three thresholds (sets, units, units per set)."""
    ds = _data(5, n=6, rows=100)
    from gobnilp_py.scoring.local_scores import make_score

    sc = make_score("BIC", ds)
    pay = parallel.Payload(data=ds, score=sc, want_ll=True, want_cells=False, want_ub=False, atom_weights=None)
    ls = pool.LevelScorer(pay, n_jobs=2)
    groups = [((0,), np.arange(1, 6, dtype=np.int64))] * 50          # 50 sets x 5 children
    units = 50 * 5 * ls.local.pc.rows                                  # x the rows counted
    monkeypatch.setattr(parallel, "PARALLEL_MIN_GROUPS", 50)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS", units)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS_PER_GROUP", units // 50)
    assert ls.worth_sending(groups)
    assert not ls.worth_sending(groups[:49])                           # too few sets
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS", units + 1)
    assert not ls.worth_sending(groups)                                # too little work
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS", units)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_UNITS_PER_GROUP", units // 50 + 1)
    assert not ls.worth_sending(groups)                                # too little work per set
    ls.close()
