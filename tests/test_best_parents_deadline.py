"""The best-parent lookups respect a search's time limit and Ctrl-C (``BestParents(deadline=, stop=)``).

The dense lookups take seconds from about 24 variables (5.4 s at 25), and
they used to be built before the first time check: an order-graph search or
collection with a 10 s limit ran 14.7 s at 25 variables.  The build now checks
before each node, and the engines report ``time_limit`` / ``interrupted``.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest

from gobnilp_py import ScoreTable, enumerate_networks, learn
from gobnilp_py.search import best_parents as bpm
from gobnilp_py.search.order_graph.collect import order_graph_epsilon_set
from gobnilp_py.search.order_graph.frontier import order_graph_optimum

N_VARS = 12
NODE_SECONDS = 0.05


def _table() -> ScoreTable:
    rng = np.random.default_rng(0)
    fams = []
    for v in range(N_VARS):
        others = [u for u in range(N_VARS) if u != v]
        sets = {(): -10.0 - rng.random()}
        for _ in range(5):
            ps = tuple(sorted(rng.choice(others, size=2, replace=False).tolist()))
            sets[ps] = -8.0 - rng.random()
        fams.append(list(sets.items()))
    return ScoreTable([f"V{v}" for v in range(N_VARS)], fams)


@pytest.fixture
def slow_build(monkeypatch):
    """Each node's dense lookups take NODE_SECONDS; returns the list of nodes built."""
    built: list[int] = []
    real = bpm.BestParents._build_dense

    def slow(self, v):
        built.append(v)
        time.sleep(NODE_SECONDS)
        return real(self, v)

    monkeypatch.setattr(bpm.BestParents, "_build_dense", slow)
    return built


def test_the_build_stops_at_the_deadline_and_on_the_stop_event():
    t = _table()
    with pytest.raises(bpm.BuildStopped) as exc:
        bpm.BestParents(t, backend="dense", deadline=time.perf_counter() - 1.0)
    assert exc.value.args[0] == "time_limit"
    for backend in ("dense", "sparse"):
        stop = threading.Event()
        stop.set()
        with pytest.raises(bpm.BuildStopped) as exc:
            bpm.BestParents(t, backend=backend, stop=stop)
        assert exc.value.args[0] == "interrupted"
    assert bpm.BestParents(t, deadline=time.perf_counter() + 60).best_overall().size == N_VARS


def test_the_order_graph_search_stops_inside_the_build(slow_build):
    t = _table()
    r = order_graph_optimum(t, backend="dense", time_limit=0.2)     # the build alone takes 0.6 s
    assert r.status == "time_limit" and r.chosen is None and len(slow_build) < N_VARS
    assert r.upper_bound == pytest.approx(math.fsum(f[0][1] for f in t.families))
    assert "best-parent lookups" in r.reason


def test_the_order_graph_collection_stops_inside_the_build(slow_build):
    t = _table()
    r = order_graph_epsilon_set(t, 1.0, time_limit=0.2)
    assert r.status == "time_limit" and r.entries == [] and len(slow_build) < N_VARS


def test_the_drivers_label_it(slow_build):
    t = _table()
    net = learn(t, method="ordergraph", time_limit=0.2)
    assert net.status == "time_limit" and not math.isfinite(net.score)
    res = enumerate_networks(t, bayes_factor=3, method="ordergraph", time_limit=0.3)
    assert not res.complete
    slow_build.clear()
    assert learn(t, method="ordergraph").status == "optimal" and len(slow_build) == N_VARS
