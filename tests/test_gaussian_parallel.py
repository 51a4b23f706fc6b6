"""Gaussian scoring on worker processes and on Dask: the same table as in-process, the time limit, the options.

The children's walks are independent, so where they run must not change the table (families,
scores, pruning counters) whatever ``n_jobs`` or the backend; ``PARALLEL_MIN_SECONDS`` is set to
0 here so that even small problems go to the workers (by default they stay in-process).
"""

from __future__ import annotations

import json
import time

import pytest

import gobnilp_py as gp
from gobnilp_py.cli import main
from gobnilp_py.errors import ScoreError
from gobnilp_py.examples.gaussian import random_linear_gaussian
from gobnilp_py.scoring import _gaussian_walk as GW
from gobnilp_py.scoring import gaussian as G
from gobnilp_py.scoring import gaussian_workers as W
from gobnilp_py.scoring.gaussian import gaussian_score_table


def _x(n: int = 9, rows: int = 400, seed: int = 5):  # type: ignore[no-untyped-def]
    return random_linear_gaussian(n, seed=seed).frame(rows, seed=seed + 1)


def _same(a, b) -> None:  # type: ignore[no-untyped-def]
    assert a.names == b.names and a.score_name == b.score_name
    assert a.families == b.families
    assert a.pruning == b.pruning
    assert a.meta["families_scored"] == b.meta["families_scored"] and a.meta["walks"] == b.meta["walks"]


@pytest.fixture
def always_send(monkeypatch):
    monkeypatch.setattr(W, "PARALLEL_MIN_SECONDS", 0.0)


@pytest.mark.parametrize("score", ["bic-g", "aic-g", "bge"])
def test_two_workers_give_the_in_process_table(score, always_send):
    x = _x()
    one = gaussian_score_table(x, score=score, bayes_factor=20, n_jobs=1)
    two = gaussian_score_table(x, score=score, bayes_factor=20, n_jobs=2)
    assert one.meta["n_jobs"] == 1 and two.meta["n_jobs"] == 2
    _same(one, two)
    # through score(): no refusal any more, and the same table
    _same(one, gp.score(x, score=score, bayes_factor=20, n_jobs=2))


def test_look_up_and_hash_walks_on_workers(always_send, monkeypatch):
    x = _x(8)
    monkeypatch.setattr(G, "TWO_PASS_MIN_FRACTION", None)
    _same(gaussian_score_table(x, bayes_factor=20, n_jobs=1), gaussian_score_table(x, bayes_factor=20, n_jobs=2))
    monkeypatch.setattr(G, "DENSE_MAX_BITS", 0)
    _same(gaussian_score_table(x, bayes_factor=20, n_jobs=1), gaussian_score_table(x, bayes_factor=20, n_jobs=2,
                                                                                    memory_limit=2**40))


def test_small_problems_stay_in_process():
    """Below PARALLEL_MIN_SECONDS of walking, no pool is started even with n_jobs=2."""
    t = gaussian_score_table(_x(6, 200), bayes_factor=20, n_jobs=2)
    assert t.meta["n_jobs"] == 1


def test_memory_limit_counts_the_workers(always_send, caplog):
    """A limit with no room for a worker's own memory beside its walk: walked in-process, and said."""
    x = _x(8)
    t = gaussian_score_table(x, bayes_factor=20, n_jobs=2, memory_limit=W.GAUSSIAN_WORKER_BYTES)
    assert t.meta["n_jobs"] == 1
    assert "leaves no room for Gaussian scoring worker processes" in caplog.text
    _same(t, gaussian_score_table(x, bayes_factor=20, n_jobs=1, memory_limit=W.GAUSSIAN_WORKER_BYTES))


def test_a_worker_that_cannot_start_is_a_one_line_error(always_send, monkeypatch):
    import concurrent.futures

    def refuse(self, *a, **k):  # type: ignore[no-untyped-def]
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(concurrent.futures.ProcessPoolExecutor, "submit", refuse)
    with pytest.raises(ScoreError, match="cannot start Gaussian scoring worker process") as info:
        gaussian_score_table(_x(), bayes_factor=20, n_jobs=2)
    assert "\n" not in str(info.value)


@pytest.fixture
def slow_walk(monkeypatch):
    real = GW.walk_child_dense

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        time.sleep(0.6)
        return real(*args, **kwargs)

    monkeypatch.setattr(GW, "walk_child_dense", slow)


def test_time_limit_on_workers_labels_the_table_incomplete(always_send, slow_walk):
    """8 children of 0.6 s on 2 workers outlast 1 s: those not started keep the empty set only."""
    x = _x(8)
    full = gaussian_score_table(x, bayes_factor=20, n_jobs=1)
    t = gaussian_score_table(x, bayes_factor=20, n_jobs=2, time_limit=1.0)
    inc = t.meta["incomplete"]
    assert inc["reason"] == "time_limit" and 2 <= inc["children_walked"] < 8
    assert t.guarantee.startswith("INCOMPLETE (time_limit)") and t.safe_epsilon is None
    for v, f, g in zip(t.names, t.families, full.families):
        if v in inc["truncated"]:
            assert len(f) == 1 and f[0][0] == ()
        else:
            assert f == g


def test_cli_and_config_take_n_jobs_and_backend_with_a_gaussian_score(tmp_path, capsys, always_send):
    p = tmp_path / "g.csv"
    _x(7, 300).to_csv(p, index=False)
    assert main(["score", str(p), "--score", "bge", "--bf", "20", "--n-jobs", "2", "-o", str(tmp_path / "a.jkl")]) == 0
    assert main(["score", str(p), "--score", "bge", "--bf", "20", "--backend", "serial",
                 "-o", str(tmp_path / "b.jkl")]) == 0

    def body(name):  # type: ignore[no-untyped-def]
        return [ln for ln in (tmp_path / name).read_text().splitlines() if not ln.startswith("#")]

    assert len(body("a.jkl")) > 7 and body("a.jkl") == body("b.jkl")
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[data]\npath = "{p}"\n[scoring]\nscore = "bic-g"\nn_jobs = 2\nbackend = "processes"\n'
                   f'[search]\njob = "learn"\n[output]\ndir = "{tmp_path / "out"}"\nwrite = ["json"]\n')
    assert main(["run", str(cfg)]) == 0
    capsys.readouterr()
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    ref = gp.learn(_x(7, 300), score="bic-g", n_jobs=1)
    assert res["config"]["scoring"]["n_jobs"] == 2 and res["inputs"]["data_kind"] == "continuous"
    assert abs(res["result"]["score"] - ref.score) <= 1e-9 * abs(ref.score)


@pytest.mark.slow
def test_dask_local_cluster_gives_the_in_process_table(tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (extra 'dask')")
    import dask

    x = _x()
    ref = gaussian_score_table(x, score="bge", bayes_factor=20, n_jobs=1)
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                     dashboard_address=None) as cluster:
        by_address = gp.score(x, score="bge", bayes_factor=20, backend="dask", scheduler=cluster.scheduler_address)
        with distributed.Client(cluster) as client:
            by_client = gaussian_score_table(x, score="bge", bayes_factor=20, backend="dask", scheduler=client)
    _same(ref, by_address)
    _same(ref, by_client)
    assert by_address.meta["backend"] == "dask"


def test_unreachable_dask_scheduler_is_a_one_line_error():
    pytest.importorskip("distributed")
    with pytest.raises(ScoreError, match="cannot reach the Dask scheduler") as info:
        gaussian_score_table(_x(5, 100), backend="dask", scheduler="tcp://127.0.0.1:1")
    assert "\n" not in str(info.value)
