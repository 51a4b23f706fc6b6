"""ASOBS restarts on worker processes and on Dask: the same network for any number of workers (fixed
order count, no time limit), the same refusals through the API, the CLI and a settings file, and the
approximate label everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gobnilp_py import ConfigError, ParameterError, learn
from gobnilp_py.cli import main
from gobnilp_py.search.asobs import engine as asobs_engine
from gobnilp_py.search.asobs.engine import asobs_search
from gobnilp_py.search.asobs.restarts import Tally, restart_order, run_batch
from gobnilp_py.search.asobs.obs import OrderSearch
from test_obs import sparse_table

ORDERS = 60


@pytest.fixture(scope="module")
def table():
    return sparse_table(np.random.default_rng(11), 40)


@pytest.fixture
def workers_at_once(monkeypatch):
    """Start the workers at once (by default they start after 0.5 s in-process, which this small table
    never needs), so that the tests run the pool and the cluster and not only the in-process loop."""
    monkeypatch.setattr(asobs_engine, "WORKER_START_SECONDS", 0.0)


def _key(run):
    return run.score, run.chosen, run.best_order_index


def test_restart_orders_and_the_tally_do_not_depend_on_grouping(table) -> None:
    assert np.array_equal(restart_order(3, 7, 40), restart_order(3, 7, 40))
    assert not np.array_equal(restart_order(3, 7, 40), restart_order(3, 8, 40))
    search = OrderSearch(table)
    whole = run_batch(search, 5, range(12))
    parts = [run_batch(search, 5, idx) for idx in ([7, 8, 9, 10, 11], [0, 1, 2], [3, 4, 5, 6])]
    for order in (parts, parts[::-1]):
        merged = Tally()
        for p in order:
            merged.merge(p)
        assert (merged.best_score, merged.best_index, merged.done) == (whole.best_score, whole.best_index, 12)
        assert np.array_equal(merged.best_choice, whole.best_choice)


def test_tie_goes_to_the_lowest_restart() -> None:
    t = Tally()
    t.offer(-5.0, 4, np.array([1]))
    t.offer(-5.0, 2, np.array([2]))
    t.offer(-5.0, 3, np.array([3]))
    assert t.best_index == 2 and t.best_choice.tolist() == [2]


def test_same_network_on_one_or_two_worker_processes(table, workers_at_once) -> None:
    one = asobs_search(table, n_orders=ORDERS, seed=4, n_jobs=1)
    two = asobs_search(table, n_orders=ORDERS, seed=4, n_jobs=2)
    assert one.stats["workers"] == 0 and two.stats["workers"] == 2     # the pool did run
    assert two.orders == ORDERS and two.stats["approximate"] is True
    assert _key(one) == _key(two)


def test_same_network_on_a_dask_local_cluster(table, workers_at_once, tmp_path) -> None:
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (extra 'dask')")
    import dask

    one = asobs_search(table, n_orders=ORDERS, seed=4, n_jobs=1)
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                     dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        on_dask = asobs_search(table, n_orders=ORDERS, seed=4, backend="dask", scheduler=client)
        via_learn = learn(table, method="asobs", n_orders=ORDERS, seed=4, backend="dask", scheduler=client)
    assert on_dask.stats["workers_backend"] == "dask" and on_dask.stats["workers"] == 2
    assert _key(one) == _key(on_dask)
    assert via_learn.approximate and via_learn.score == one.score


def test_time_limit_is_global_and_the_result_approximate(table, workers_at_once) -> None:
    run = asobs_search(table, time_limit=0.6, seed=1, n_jobs=2)
    assert run.stopped_by == "time" and run.orders >= 1 and run.time < 5.0
    assert run.stats["approximate"] is True


def test_learn_from_a_table_same_network_and_labelled_approximate(table, workers_at_once) -> None:
    a = learn(table, method="asobs", n_orders=ORDERS, seed=2, n_jobs=1)
    b = learn(table, method="asobs", n_orders=ORDERS, seed=2, n_jobs=2)
    c = learn(table, method="asobs", n_orders=ORDERS, seed=2, backend="serial")
    assert (a.score, sorted(a.edges)) == (b.score, sorted(b.edges)) == (c.score, sorted(c.edges))
    assert b.stats["workers"] == 2 and c.stats["workers"] == 0
    assert b.approximate and b.guarantee.startswith("APPROXIMATE")


@pytest.mark.parametrize("kw, word", [({"n_jobs": 0}, "n_jobs"), ({"n_jobs": "two"}, "n_jobs"),
                                      ({"n_jobs": True}, "n_jobs"), ({"backend": "serial", "n_jobs": 2}, "n_jobs"),
                                      ({"backend": "gpu"}, "backend"), ({"scheduler": "tcp://h:1"}, "scheduler"),
                                      ({"backend": "dask"}, "scheduler")])
def test_api_refusals_in_one_line(table, kw, word) -> None:
    with pytest.raises(ParameterError, match=word) as info:
        learn(table, method="asobs", n_orders=2, **kw)
    assert "\n" not in str(info.value)


def test_engine_refusals(table) -> None:
    with pytest.raises(ConfigError, match="n_jobs"):
        asobs_search(table, n_orders=1, n_jobs=0)
    with pytest.raises(ConfigError, match="kernels"):
        asobs_search(table, n_orders=1, kernels="gpu")


def test_an_exact_method_still_refuses_workers_with_a_table(table) -> None:
    with pytest.raises(ParameterError, match="n_jobs"):
        learn(table, method="ilp", n_jobs=2)


def test_cli_jkl_with_workers(table, tmp_path: Path, capsys, workers_at_once) -> None:
    jkl = tmp_path / "t.jkl"
    table.to_jkl(jkl)
    outs = []
    for jobs in ("1", "2"):
        code = main(["learn", str(jkl), "--method", "asobs", "--n-orders", str(ORDERS), "--seed", "3",
                     "--n-jobs", jobs, "--json"])
        out, _ = capsys.readouterr()
        assert code == 0
        outs.append(json.loads(out))
    assert outs[0]["approximate"] is True and outs[1]["stats"]["workers"] == 2
    assert outs[0]["score"] == outs[1]["score"] and outs[0]["edges"] == outs[1]["edges"]
    for args, flag in ((["--method", "asobs", "--n-jobs", "0"], "--n-jobs"),
                       (["--method", "ilp", "--n-jobs", "2"], "--n-jobs")):
        code = main(["learn", str(jkl), *args])
        _, err = capsys.readouterr()
        assert code != 0 and flag in err and len(err.strip().splitlines()) == 1


def test_settings_file_with_workers(table, tmp_path: Path, capsys) -> None:
    jkl = tmp_path / "t.jkl"
    table.to_jkl(jkl)
    cfg = tmp_path / "a.toml"
    cfg.write_text(f'[data]\npath = "{jkl}"\n[search]\njob = "learn"\nmethod = "asobs"\nn_orders = {ORDERS}\n'
                   f'[scoring]\nn_jobs = 2\n[output]\ndir = "{tmp_path / "out"}"\n')
    assert main(["run", str(cfg)]) == 0
    capsys.readouterr()
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    assert res["approximate"] is True and res["result"]["stats"]["workers"] in (0, 2)  # 0: done in-process
    assert res["result"]["score"] == learn(table, method="asobs", n_orders=ORDERS, n_jobs=1).score
    for bad, word in (("n_jobs = 0", "n_jobs"), ('backend = "serial"\nn_jobs = 2', "n_jobs")):
        cfg.write_text(cfg.read_text().split("[scoring]")[0] + f"[scoring]\n{bad}\n[output]\ndir = "
                       f'"{tmp_path / "out"}"\n')
        assert main(["run", str(cfg), "--force"]) != 0
        _, err = capsys.readouterr()
        assert word in err and len(err.strip().splitlines()) == 1


def test_ctrl_c_ends_the_workers(table, workers_at_once) -> None:
    """One Ctrl-C stops the whole search: the parent raises and no worker process is left running."""
    import multiprocessing as mp
    import os
    import signal
    import threading
    import time

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    before = set(mp.active_children())
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    t0 = time.perf_counter()
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            asobs_search(table, time_limit=30, seed=0, n_jobs=2)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old)
    assert time.perf_counter() - t0 < 10
    assert [p for p in mp.active_children() if p not in before] == []


def test_a_kernels_first_call_holds_signals_and_later_calls_do_not(table, monkeypatch) -> None:
    """The compile of a numba kernel (its first call in a process) runs with Ctrl-C / SIGTERM held.

    A signal landing inside numba's compile broke it: the call raised ``RuntimeError: no compiled
    object yet`` instead of the interrupt, and so did every later call (CI, cold cache).  Checked here
    deterministically: the first call of each kernel enters :func:`gobnilp_py._interrupt.held`, the
    second does not, and the answers are those of the numpy kernels.
    """
    import contextlib

    from gobnilp_py.search.asobs import _numba as kernels_module

    if not kernels_module.AVAILABLE:
        pytest.skip("numba is not installed")
    entered: list[int] = []

    @contextlib.contextmanager
    def recording_held():
        entered.append(1)
        yield

    monkeypatch.setattr(kernels_module, "held", recording_held)
    monkeypatch.setattr(kernels_module, "_COMPILED", set())
    fast = OrderSearch(table, backend="numba")
    slow = OrderSearch(table, backend="numpy")
    order = np.arange(table.n, dtype=np.int64)
    pos = fast.inverse(order)
    first = fast.kern.obs_choice(pos)
    assert entered == [1]
    second = fast.kern.obs_choice(pos)
    assert entered == [1]
    assert np.array_equal(first, second) and np.array_equal(first, slow.kern.obs_choice(slow.inverse(order)))
