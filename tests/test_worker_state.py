"""Worker state is per thread: two tasks running at once on one Dask worker process never share a scoring
context or an ASOBS search (``gobnilp_py._worker_state``).

Why: a ``LocalCluster(processes=False)`` runs its workers as threads of one process, and a Dask worker
runs ``nthreads`` tasks at once; one context shared by them let two chunks of a scoring level interleave
in its counting caches, and a Dask collection answered from a wrong score table (CI).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from gobnilp_py._worker_state import install_thread_state, thread_state


def _in_threads(fn, n: int = 2) -> list:
    """``fn()`` on ``n`` threads that are all inside it at once (a barrier before they return)."""
    barrier = threading.Barrier(n, timeout=30)
    out: list = [None] * n

    def run(i: int) -> None:
        out[i] = fn()
        barrier.wait()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_each_thread_builds_its_own_state_once_per_token():
    built = []

    def build():
        built.append(object())
        return built[-1]

    def two_calls():
        a = thread_state("job-1", build)
        assert thread_state("job-1", build) is a        # the same thread, the same job: built once
        return a

    a, b = _in_threads(two_calls)
    assert a is not b and len(built) == 2
    mine = thread_state("job-1", build)
    assert mine is not a and mine is not b
    assert thread_state("job-2", build) is not mine     # a new job replaces the thread's state
    install_thread_state("job-3", "given")
    assert thread_state("job-3", build) == "given"


def test_dask_scoring_chunks_on_two_threads_use_two_contexts(monkeypatch):
    """The defect's mechanism, made deterministic: two chunks of one payload inside the worker function at
    once (a barrier) must hold different contexts (with one shared, this fails)."""
    from gobnilp_py.data import Dataset
    from gobnilp_py.scoring import pool
    from gobnilp_py.scoring.local_scores import make_score
    from gobnilp_py.scoring.parallel import Payload

    data = Dataset(("a", "b"), np.array([2, 2]), np.array([[0, 1, 1, 0], [1, 1, 0, 0]]).T)
    payload = Payload(data, make_score("BIC", data), False, False, False, None, token="job")
    barrier = threading.Barrier(2, timeout=30)
    seen = []

    def fake_score_groups(ctx, groups, kernel, deadline):
        seen.append(ctx)
        barrier.wait()                      # both chunks are being scored now
        return ctx

    monkeypatch.setattr(pool, "score_groups", fake_score_groups)
    a, b = _in_threads(lambda: pool._run_chunk_dask(payload, [], False, None))
    assert len(seen) == 2 and a is not b and a.p is payload and b.p is payload


def test_dask_asobs_batches_on_two_threads_use_two_searches(monkeypatch):
    from gobnilp_py.search.asobs import workers
    from gobnilp_py.search.asobs._lists import FamilyLists
    from tests.random_problems import random_table

    fl = FamilyLists.from_table(random_table(np.random.default_rng(0), 4))
    barrier = threading.Barrier(2, timeout=30)

    def fake_run_batch(search, *args, **kw):
        barrier.wait()
        return search

    monkeypatch.setattr(workers, "run_batch", fake_run_batch)
    a, b = _in_threads(lambda: workers._batch_dask("job", fl, "numpy", 0, [0], (True, False), None))
    assert a is not b


@pytest.mark.parametrize("score_name", ["BIC", "BDeu"])
def test_scoring_on_a_threaded_cluster_is_the_serial_table(score_name, tmp_path):
    """Every level sent (the Dask path sends them all) to a cluster of 2 workers x 2 threads in one process,
    then the k best from that table (the CI failure's path): the serial table and answer, byte for byte."""
    distributed = pytest.importorskip("distributed")
    import dask

    from gobnilp_py import kbest, read_data, score
    from tests.datasets import dataset

    data = read_data(dataset("wine"), header=False)
    serial = score(data, score=score_name).to_jkl()
    best = [(n.score, str(n)) for n in kbest(data, 100, method="ordergraph", score=score_name).networks]
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=False,
                                     dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        for _ in range(3):
            assert score(data, score=score_name, backend="dask", scheduler=client).to_jkl() == serial
            on_dask = kbest(data, 100, method="ordergraph", score=score_name, backend="dask", scheduler=client)
            assert [(n.score, str(n)) for n in on_dask.networks] == best
