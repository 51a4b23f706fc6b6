"""Class-level ε-BNSL under a time limit: the whole call keeps the limit, and a cut result says what it holds.

The members of a class are listed and turned into networks after the search;
on a class with many members that is most of the work, so it must stop at the
deadline too (it once ran 15 s past a 60 s limit on hailfinder100), and what it
did list must be labelled: the classes found are complete, the totals exact,
every network scoring >= the threshold listed, best first.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest

from gobnilp_py import enumerate_networks, read_data
from gobnilp_py.scoring.table import ScoreTable
from gobnilp_py.solve.collect import LISTING_RESERVE, LISTING_RESERVE_MAX, listing_reserve

from random_problems import random_data

#: Seconds a call may run past its time limit (one batch of networks built after the last look at the
#: deadline, plus the noise of a shared machine); documented in docs/enumeration.md.
SLACK = 0.5


def _complete_graph_table(k: int) -> ScoreTable:
    """Every parent set of every node scores its size: the complete DAGs (k! members of one class) are best.

    The score depends only on the family sizes, and every complete DAG has one
    family of each size 0..k-1, so all k! members tie; any other DAG misses an
    arrow and scores at least 1 less.  Declared BIC so that it collects by class.
    """
    fams = []
    for i in range(k):
        others = [j for j in range(k) if j != i]
        fams.append([(ps, -10.0 + len(ps)) for r in range(k) for ps in itertools.combinations(others, r)])
    # every parent set is there: an unpruned table (a table of unknown pruning would label results UNKNOWN:)
    return ScoreTable([f"X{i}" for i in range(k)], fams, score_name="BIC", meta={"prune": False})


@pytest.fixture(scope="module")
def big_class() -> ScoreTable:
    # 362,880 members: building them all takes several seconds on any machine we know of (8 nodes,
    # 40,320 members, once finished inside the 1 s limit on a fast one, and the cut went untested)
    return _complete_graph_table(9)


def test_the_whole_call_keeps_the_time_limit_when_listing_members(big_class):
    limit = 1.0
    t0 = time.perf_counter()
    cs = enumerate_networks(big_class, epsilon=0.5, method="ilp", by="class", max_networks=None, time_limit=limit)
    elapsed = time.perf_counter() - t0
    assert elapsed < limit + SLACK, f"took {elapsed:.2f} s with time_limit={limit}"
    assert not cs.complete and cs.reason == "time_limit"
    # the class search finished: the totals are exact although the listing was cut
    assert cs.n_networks_total == math.factorial(9) and cs.n_classes_total == 1
    assert 0 < len(cs) < cs.n_networks_total
    assert f"{len(cs)} of the {math.factorial(9)} such networks are listed" in cs.guarantee
    assert "in 1 equivalence class, all found and counted" in cs.guarantee
    assert cs.guarantee.startswith("INCOMPLETE (time_limit)")
    # every listed network is a distinct complete DAG, best first, ties in key order
    assert len({n.key for n in cs.networks}) == len(cs)
    assert all(n.n_edges == 36 and n.score == pytest.approx(cs.opt) for n in cs.networks)
    assert [(-n.score, n.key) for n in cs.networks] == sorted((-n.score, n.key) for n in cs.networks)
    # the threshold is certified: all members tie, some are missing, so it must lie above their score
    assert cs.threshold is not None and cs.threshold > cs.opt


def test_a_limit_that_is_not_reached_changes_nothing():
    table = _complete_graph_table(4)  # 24 members
    free = enumerate_networks(table, epsilon=0.5, method="ilp", by="class", max_networks=None)
    timed = enumerate_networks(table, epsilon=0.5, method="ilp", by="class", max_networks=None, time_limit=60)
    assert free.complete and timed.complete and len(free) == 24 == free.n_networks_total
    assert [n.key for n in free.networks] == [n.key for n in timed.networks]
    assert [n.key for n in free.networks] == sorted(n.key for n in free.networks)  # all tie: key order


@pytest.mark.parametrize("cut", ["members", "networks"])
def test_a_listing_cut_by_the_deadline_is_a_certified_best_first_prefix(cut, monkeypatch):
    """Cut at the deadline in either stage, every credible network scoring >= the threshold is listed."""
    import gobnilp_py.solve.collect as col

    rng = np.random.default_rng(11)
    data = read_data(random_data(rng, 5, 40))
    eps = 4.0
    full = enumerate_networks(data, epsilon=eps, method="ilp", by="class", max_networks=None)
    assert full.complete and len(full) > 20
    # the deadline passes after a few listed members (or networks built): a fake clock, so the test is exact
    calls = {"n": 0}
    real = time.perf_counter
    where = "gobnilp_py.solve.classes" if cut == "members" else "gobnilp_py.solve.collect"

    class Clock:
        @staticmethod
        def perf_counter() -> float:
            import inspect

            caller = inspect.currentframe().f_back.f_globals.get("__name__")
            if caller == where and inspect.currentframe().f_back.f_code.co_name in (
                    "_expand_one", "_networks_best_first"):
                calls["n"] += 1
                if calls["n"] > 1:
                    return real() + 1e6
            return real()

        def __getattr__(self, name):
            return getattr(time, name)

    monkeypatch.setattr(col, "_DEADLINE_EVERY", 4)
    monkeypatch.setattr("gobnilp_py.solve.classes._DEADLINE_EVERY", 4)
    monkeypatch.setattr(f"{where}.time", Clock())
    part = enumerate_networks(data, epsilon=eps, method="ilp", by="class", max_networks=None, time_limit=1e5)
    assert not part.complete and part.reason == "time_limit"
    assert 0 < len(part) < len(full)
    assert part.n_networks_total == len(full) and part.n_classes_total == full.n_classes_total
    assert part.threshold is not None
    listed = {n.key for n in part.networks}
    assert all(n.key in listed for n in full.networks if n.score >= part.threshold)
    assert any(n.key not in listed for n in full.networks)
    assert [(-n.score, n.key) for n in part.networks] == sorted((-n.score, n.key) for n in part.networks)
    assert listed <= {n.key for n in full.networks}
    assert full.networks[0].key in listed  # the optimum is always kept


def test_totals_are_unknown_when_the_class_search_stopped_at_the_cap():
    """The collector stops at max_networks classes: the classes found are then not all, nor their total."""
    rng = np.random.default_rng(3)
    data = read_data(random_data(rng, 5, 40))
    eps = 6.0
    full = enumerate_networks(data, epsilon=eps, method="ilp", by="class", max_networks=None)
    assert full.complete and full.n_classes_total > 3
    cut = enumerate_networks(data, epsilon=eps, method="ilp", by="class", max_networks=3)
    assert not cut.complete and cut.reason == "max_networks" and len(cut) == 3
    assert cut.n_networks_total is None and cut.n_classes_total is None and cut.classes is None
    assert "such networks are listed" not in cut.guarantee
    assert cut.averages_over == "the listed networks"


def test_the_search_leaves_time_to_list(monkeypatch):
    """Under a time limit the class search gets the remaining time less a reserve for listing."""
    import gobnilp_py.ilp.engine as en

    seen = {}
    real = en.epsilon_set

    def spy(*args, **kwargs):
        seen["time_limit"] = kwargs["time_limit"]
        return real(*args, **kwargs)

    monkeypatch.setattr(en, "epsilon_set", spy)
    rng = np.random.default_rng(5)
    data = read_data(random_data(rng, 4, 60))
    enumerate_networks(data, epsilon=3.0, time_limit=1000, method="ilp", by="class")
    reserve = listing_reserve(1000, 150_000)
    assert LISTING_RESERVE_MAX <= reserve <= LISTING_RESERVE * 1000
    assert 1000 - reserve - 5 < seen["time_limit"] <= 1000 - reserve
    # the reserve follows the cap: small caps keep the floor, no cap keeps the share
    assert listing_reserve(1000, 10) == LISTING_RESERVE_MAX
    assert listing_reserve(1000, None) == LISTING_RESERVE * 1000
    assert listing_reserve(10, 150_000) == LISTING_RESERVE * 10


def test_the_search_stops_in_time_to_list_every_class_it_found(monkeypatch):
    """Each class found takes listing time from the search (``LISTING_SECONDS_PER_CLASS``).

    With an allowance so large that 64 classes use up the whole limit, the search stops at
    the collector's first budget check (every 64 classes) with reason ``"time_limit"``; every
    class it found is then listed, and the threshold still holds against the complete run.
    """
    import gobnilp_py.solve.collect as co

    rng = np.random.default_rng(2)
    data = read_data(random_data(rng, 6, 60))
    eps = 8.0
    full = enumerate_networks(data, epsilon=eps, method="ilp", by="class", max_networks=None)
    assert full.complete and full.n_classes_total > 128
    monkeypatch.setattr(co, "LISTING_SECONDS_PER_CLASS", 100.0 / 64)
    part = enumerate_networks(data, epsilon=eps, method="ilp", by="class", max_networks=None, time_limit=120)
    assert not part.complete and part.reason == "time_limit"
    assert part.stats["stopped_for_listing"] and part.stats["found"] == 64
    # every class found was expanded and its members listed; all of them are credible networks
    assert part.stats["classes"] == 64
    listed = {n.key for n in part.networks}
    assert listed <= {n.key for n in full.networks}
    assert part.threshold is not None
    assert all(n.key in listed for n in full.networks if n.score >= part.threshold)
    assert [n.score for n in part.networks] == sorted((n.score for n in part.networks), reverse=True)


@pytest.mark.parametrize("method", ["auto", "ilp"])
def test_a_limit_used_up_by_scoring_gives_a_labelled_empty_result(method):
    """Scoring can use the whole limit; the search is then not started (it once failed on a negative limit)."""
    rng = np.random.default_rng(4)
    data = read_data(random_data(rng, 5, 200))
    cs = enumerate_networks(data, bayes_factor=20, time_limit=1e-6, method=method)
    assert not cs.complete and cs.reason == "time_limit" and len(cs) == 0
    assert cs.guarantee.startswith("INCOMPLETE (time_limit)")


def test_by_class_under_auto_picks_a_method_that_collects_classes():
    """The order graph collects DAGs only; by="class" with method="auto" goes to the ILP, and agrees."""
    rng = np.random.default_rng(6)
    data = read_data(random_data(rng, 5, 60))
    by_class = enumerate_networks(data, bayes_factor=20, by="class")
    by_dag = enumerate_networks(data, bayes_factor=20)  # auto: the order graph, DAG by DAG
    assert by_class.stats["method"] == "ilp" and by_class.stats["by"] == "class"
    assert by_dag.stats["method"] == "ordergraph"
    assert by_class.complete and by_dag.complete
    assert sorted(n.key for n in by_class.networks) == sorted(n.key for n in by_dag.networks)


def test_after_an_interrupt_listing_leaves_time_to_build_the_networks(big_class, monkeypatch):
    """A Ctrl-C / SIGTERM in a class search gives a short grace; listing members must not take all of it.

    The allowance per class is made larger than the grace (as 9,519 classes against 2 s were on
    lung-cancer), and the one class found has 362,880 members, so listing alone could fill the grace.
    Before the fix listing took the whole grace and the answer held the optimum alone.
    """
    import signal

    import gobnilp_py.solve.collect as co
    from gobnilp_py._interrupt import clear_last_signal
    from gobnilp_py.ilp.collector import NetworkCollector

    monkeypatch.setattr(co, "INTERRUPT_GRACE", 1.0)
    monkeypatch.setattr(co, "LISTING_SECONDS_PER_CLASS", 10.0)
    sent = []
    remember = NetworkCollector._remember

    def remember_then_signal(self, *args, **kwargs):
        remember(self, *args, **kwargs)
        if self.classes and not sent:  # the first class recorded: the user's kill, inside the search
            sent.append(len(self.classes))
            signal.raise_signal(signal.SIGTERM)

    monkeypatch.setattr(NetworkCollector, "_remember", remember_then_signal)
    try:
        cs = enumerate_networks(big_class, epsilon=0.5, method="ilp", by="class", max_networks=None)
    finally:
        clear_last_signal()
    assert sent and not cs.complete and cs.reason == "interrupted"
    assert len(cs) > 1000, f"only {len(cs)} network(s) built after the interrupt"
    assert [n.score for n in cs.networks] == sorted((n.score for n in cs.networks), reverse=True)
    assert len({n.key for n in cs.networks}) == len(cs)


@pytest.mark.parametrize("n_classes, max_networks", [(0, None), (5, None), (10_000, None), (10_000, 150_000),
                                                    (10_000, 10), (100, 0)])
def test_the_listing_split_always_leaves_building_its_share(n_classes, max_networks):
    from gobnilp_py.solve.collect import (BUILD_MIN_SHARE, BUILD_SECONDS_PER_NETWORK, LISTING_SECONDS_PER_CLASS,
                                          LISTING_SHARE, _listing_split)

    assert _listing_split(5.0, None, n_classes, max_networks) is None
    for left in (0.0, 2.0, 30.0, 300.0):
        end = _listing_split(5.0, 5.0 + left, n_classes, max_networks)
        build = BUILD_MIN_SHARE * left
        if max_networks is not None:
            build = min(build, BUILD_SECONDS_PER_NETWORK * max_networks)
        per_class = min(left, LISTING_SECONDS_PER_CLASS * n_classes)
        assert 5.0 <= end <= 5.0 + left - build + 1e-12
        # below the cap the split is the classes' allowance and a share of the rest, as before
        assert end == pytest.approx(5.0 + min(per_class + LISTING_SHARE * (left - per_class), left - build))
