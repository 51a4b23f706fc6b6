"""The ε-collection split into disjoint parts and run on Dask (``backend="dask"``, issue 42).

* the split itself (no Dask): on small random tables the parts are disjoint and their union is exactly
  the serial ε-set, for any number of parts (hypothesis); by class, on adjacencies, the parts' classes
  are disjoint and their union is the serial class set;
* the merge: a part cut short or lost labels the result incomplete with a threshold that holds;
* on a LocalCluster of 2 workers: the answer on every dataset of the published-figure tests
  (``test_published_counts.py``) gives the same bytes in every output file as the serial run (the
  ``stats``, timings and counters that differ between any two runs, set aside);
* a worker killed mid-run: the answer is complete (its part run again) or labelled incomplete with a
  threshold that holds.
"""

from __future__ import annotations

import functools
import math
import os
import signal
import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from datasets import dataset
from random_problems import random_data, random_table
from gobnilp_py import enumerate_networks, kbest, read_data, score
from gobnilp_py.output import writers
from gobnilp_py.solve.split import LOST_REASON, PartResult, merge_parts, plan_split, run_part

distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (extra 'dask')")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """Two single-threaded workers in this process (the whole path: scatter, submit, gather, merge)."""
    import dask

    with dask.config.set({"temporary-directory": str(tmp_path_factory.mktemp("dask"))}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                     dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


@functools.cache
def _table(name: str, score_name: str, bf: float):
    return score(read_data(dataset(name), header=False), score=score_name, ess=1.0, bayes_factor=bf)


def _outputs(cs) -> dict[str, str]:
    """Every text file the command line writes for a collection (``stats`` set aside: see the module doc)."""
    stats, cs.stats = cs.stats, {}
    try:
        return {"summary.json": writers.collection_json(cs), "networks.csv": writers.networks_csv(cs),
                "networks.txt": writers.gobnilp_text(cs), "modelstrings.txt": writers.modelstrings(cs),
                "arc_strength.csv": writers.arc_strength_csv(cs), "best_adjacency.csv": writers.adjacency_csv(cs)}
    finally:
        cs.stats = stats


# (file, score, BF, method): every dataset of test_published_counts.py, the ILP on the BF 3 rows
PUBLISHED = [
    ("tic-tac-toe", "BIC", 3, "ordergraph"), ("wine", "BIC", 3, "ordergraph"), ("voting", "BIC", 3, "ordergraph"),
    ("zoo", "BIC", 3, "ordergraph"), ("tic-tac-toe", "BIC", 150, "ordergraph"), ("wine", "BIC", 20, "ordergraph"),
    ("voting", "BIC", 20, "ordergraph"), ("tic-tac-toe", "BDeu", 20, "ordergraph"),
    ("tic-tac-toe", "BIC", 3, "ilp"), ("wine", "BIC", 3, "ilp"), ("voting", "BIC", 3, "ilp"),
    pytest.param("zoo", "BIC", 3, "ilp", marks=pytest.mark.slow),     # 23 s: by DAG, the ILP meets 49 networks
]


@pytest.mark.parametrize("name, score_name, bf, method", PUBLISHED)
def test_dask_outputs_are_the_serial_bytes(client, name, score_name, bf, method):
    table = _table(name, score_name, bf)
    serial = enumerate_networks(table, bayes_factor=bf, method=method, by="dag")
    # by "auto" is "dag" for the order graph; the ILP's "auto" collects by class, in-process (tested below)
    on_dask = enumerate_networks(table, bayes_factor=bf, method=method, by="dag" if method == "ilp" else "auto",
                                 backend="dask", scheduler=client)
    assert serial.complete and on_dask.complete
    assert on_dask.stats["collection_backend"] == "dask" and on_dask.stats["by"] == "dag"
    assert on_dask.stats["parts"] >= 2 and on_dask.stats["parts_lost"] == 0
    assert len(on_dask) == len(serial) > 0
    assert _outputs(on_dask) == _outputs(serial)


def test_dask_from_data_scores_on_the_same_cluster(client):
    data = read_data(dataset("wine"), header=False)
    serial = enumerate_networks(data, bayes_factor=3, method="ordergraph")
    on_dask = enumerate_networks(data, bayes_factor=3, method="ordergraph", backend="dask", scheduler=client)
    assert _outputs(on_dask) == _outputs(serial)


# (file, BF): collections by class (the ILP), split on adjacencies
BY_CLASS = [("wine", 3), ("tic-tac-toe", 3), ("voting", 20), ("wine", 20),
            pytest.param("zoo", 3, marks=pytest.mark.slow)]


@pytest.mark.parametrize("name, bf", BY_CLASS)
def test_by_class_on_dask_is_split_and_the_serial_bytes(client, name, bf, monkeypatch):
    """A class collection split on adjacencies (every class in one part): the serial answer, byte for byte,
    whichever member each part met first (the driver reports every class from a canonical member).  The
    probe is cut at 3 classes (these collections hold fewer than its default 100: it would be the answer)."""
    pytest.importorskip("pyscipopt")
    from gobnilp_py.solve import dask_collect

    monkeypatch.setattr(dask_collect, "PROBE_CLASSES", 3)
    table = _table(name, "BIC", bf)
    serial = enumerate_networks(table, bayes_factor=bf, method="ilp", by="class")
    on_dask = enumerate_networks(table, bayes_factor=bf, method="ilp", by="auto", backend="dask", scheduler=client)
    assert serial.complete and on_dask.complete
    assert on_dask.stats["by"] == "class" and on_dask.stats["collection_backend"] == "dask"
    assert on_dask.stats["parts"] >= 2 and on_dask.stats["split"].startswith("adjacency of")
    assert (on_dask.n_networks_total, on_dask.n_classes_total) == (serial.n_networks_total, serial.n_classes_total)
    assert _outputs(on_dask) == _outputs(serial)


@pytest.mark.parametrize("probe_classes, max_networks", [(200, None), (100, 5), (100, None), (3, 5)])
def test_by_class_probe_that_finishes_is_the_serial_answer(client, monkeypatch, probe_classes, max_networks):
    """wine BF 20 (101 classes): a probe that finds every class, or meets the caller's own class cap, is the
    serial search itself; its answer is returned, byte for byte, with no part run.  A probe cut by its own
    cap (100 < 101 classes; 3 < the caller's 5): the split runs, complete, or cut at the caller's cap."""
    pytest.importorskip("pyscipopt")
    from gobnilp_py.solve import dask_collect

    monkeypatch.setattr(dask_collect, "PROBE_CLASSES", probe_classes)
    table = _table("wine", "BIC", 20)
    serial = enumerate_networks(table, bayes_factor=20, method="ilp", by="class", max_networks=max_networks)
    on_dask = enumerate_networks(table, bayes_factor=20, method="ilp", by="class", backend="dask", scheduler=client,
                                 max_networks=max_networks)
    assert on_dask.stats["collection_backend"] == "dask"
    finished = (max_networks is not None and max_networks <= probe_classes) or probe_classes > 101
    if finished:
        assert on_dask.stats["split"] == "none (the probe search finished)"
        assert _outputs(on_dask) == _outputs(serial)
    else:
        assert on_dask.stats["parts"] >= 2 and on_dask.stats["split"].startswith("adjacency of")
    if max_networks is None:
        assert on_dask.complete and _outputs(on_dask) == _outputs(serial)
    else:
        assert not on_dask.complete and on_dask.reason == "max_networks"


def test_by_class_time_limit_is_global_on_dask(client):
    """A deadline that cannot be met by class (wine BF 150: about 13 s serially): the call returns near it,
    labelled with a threshold that holds (the probe and the parts share the one deadline)."""
    pytest.importorskip("pyscipopt")
    table = _table("wine", "BIC", 150)
    full = enumerate_networks(table, bayes_factor=150, method="ordergraph", max_networks=None)   # the same set
    t0 = time.perf_counter()
    cut = enumerate_networks(table, bayes_factor=150, method="ilp", by="class", time_limit=3.0, backend="dask",
                             scheduler=client, max_networks=None)
    elapsed = time.perf_counter() - t0
    assert elapsed < 3.0 + 8.0, elapsed
    assert not cut.complete and cut.stats["collection_backend"] == "dask"
    _check_labelled(cut, full)


def _class_keys(table, entries):
    from gobnilp_py.equivalence.cpdag import class_key_from_masks

    return [class_key_from_masks([sum(1 << p for p in table.families[v][c][0]) for v, c in enumerate(chosen)],
                                 validate=False) for _, chosen in entries]


def _assert_class_parts_cover(table, parts, opt, eps, want):
    """Run every class part: each class of ``want`` (sorted class keys) in exactly one part, none outside,
    and the merge complete and by class."""
    results = {p.index: run_part(table, p, method="ilp", opt=opt, epsilon=eps, max_networks=None,
                                 deadline=None, options={}) for p in parts}
    got = []
    for r in results.values():
        assert r.reason is None
        got.extend(_class_keys(table, r.entries))
    assert len(got) == len(set(got))                  # no class in two parts
    assert sorted(got) == want
    merged = merge_parts(parts, results, {}, opt=opt, epsilon=eps, max_networks=None)
    assert merged.by_class and merged.reason is None


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 5), eps=st.floats(0.5, 8.0), n_parts=st.integers(1, 8))
def test_class_split_parts_are_disjoint_and_cover_the_serial_classes(seed, n, eps, n_parts):
    """Random data, BIC (score-equivalent): each class of the serial class collection is found in exactly one
    part of the adjacency split, and no part finds a class outside it; the merged collection is by class."""
    pytest.importorskip("pyscipopt")
    from gobnilp_py.solve.split import plan_class_split

    rng = np.random.default_rng(seed)
    table = score(read_data(random_data(rng, n, int(rng.integers(30, 120)))), prune=False)
    serial = enumerate_networks(table, epsilon=eps, method="ilp", by="class")
    want = sorted(_class_keys(table, [(0.0, ch) for ch in (_positions(table, net) for net in serial.networks)]))
    want = sorted(set(want))
    parts = plan_class_split(table, serial.opt - eps - serial.tolerance, n_parts)
    assert len({p.adjacency for p in parts}) == len(parts)
    _assert_class_parts_cover(table, parts, serial.opt, eps, want)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 5), eps=st.floats(0.5, 8.0), n_parts=st.integers(1, 8),
       data=st.data())
def test_probe_tree_parts_are_disjoint_and_cover_the_serial_classes(seed, n, eps, n_parts, data):
    """The tree of adjacencies grown on a probe (any classes: here a random draw of the serial ones, and of
    networks outside the ε-set too): each class of the serial class collection is found in exactly one part,
    no part finds a class outside it, and the merge is complete and by class."""
    pytest.importorskip("pyscipopt")
    from gobnilp_py.solve.split import plan_class_split

    rng = np.random.default_rng(seed)
    table = score(read_data(random_data(rng, n, int(rng.integers(30, 120)))), prune=False)
    serial = enumerate_networks(table, epsilon=eps, method="ilp", by="class", max_networks=None)
    members = [_positions(table, net) for net in serial.networks]
    pool = members + [_random_dag_positions(table, rng) for _ in range(4)]
    probe = data.draw(st.lists(st.sampled_from(pool), min_size=2, max_size=12))
    want = sorted(set(_class_keys(table, [(0.0, ch) for ch in members])))
    parts = plan_class_split(table, serial.opt - eps - serial.tolerance, n_parts, probe=probe)
    assert 1 <= len(parts) <= max(1, n_parts) and len({p.adjacency for p in parts}) == len(parts)
    _assert_class_parts_cover(table, parts, serial.opt, eps, want)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 7), n_parts=st.integers(1, 20), n_probe=st.integers(2, 40))
def test_probe_tree_leaves_partition_every_skeleton(seed, n, n_parts, n_probe):
    """Without a search: on random tables and random probes, every acyclic choice of rows (a network) meets
    the sides of exactly one leaf of the tree (the leaves are disjoint and cover every skeleton), the leaves
    are at most ``n_parts`` and heaviest first, and their probe counts add up to the probe."""
    from gobnilp_py.solve.split import _probe_tree

    rng = np.random.default_rng(seed)
    table = random_table(rng, n)
    probe = [_random_dag_positions(table, rng) for _ in range(n_probe)]
    leaves = _probe_tree(table, probe, n_parts)
    assert 1 <= len(leaves) <= n_parts
    assert sum(w for _, w in leaves) == n_probe
    assert [w for _, w in leaves] == sorted((w for _, w in leaves), reverse=True)
    for sides, _ in leaves:
        assert len({(a, b) for a, b, _ in sides}) == len(sides)       # a pair at most once on a path
    for chosen in probe + [_random_dag_positions(table, rng) for _ in range(20)]:
        adjacent = set()
        for v, j in enumerate(chosen):
            adjacent |= {frozenset((v, u)) for u in table.families[v][j][0]}
        hits = [sides for sides, _ in leaves if all((frozenset((a, b)) in adjacent) == adj for a, b, adj in sides)]
        assert len(hits) == 1


def _random_dag_positions(table, rng):
    """Row positions of a random network of ``table``: a random order, each variable's first row (in a
    random draw of its rows) whose parents come before it (the empty set is always a row of the tables here)."""
    order = list(rng.permutation(table.n))
    rank = {v: i for i, v in enumerate(order)}
    out = []
    for v, rows in enumerate(table.families):
        ok = [j for j, (ps, _) in enumerate(rows) if all(rank[p] < rank[v] for p in ps)]
        out.append(int(rng.choice(ok)))
    return tuple(out)


def _positions(table, net):
    where = [{tuple(ps): k for k, (ps, _) in enumerate(fams)} for fams in table.families]
    return tuple(where[v][tuple(sorted(table.index(p) for p in net.parents[name]))]
                 for v, name in enumerate(table.names))


def test_time_limit_is_global_on_dask(client):
    """A deadline that cannot be met: the call returns near it, labelled with a threshold that holds."""
    table = _table("wine", "BIC", 20)
    full = enumerate_networks(table, bayes_factor=20, method="ordergraph")    # the same set, faster
    t0 = time.perf_counter()
    cut = enumerate_networks(table, bayes_factor=20, method="ilp", by="dag", time_limit=2.0, backend="dask",
                             scheduler=client)
    elapsed = time.perf_counter() - t0
    assert elapsed < 2.0 + 8.0, elapsed
    _check_labelled(cut, full)


def _check_labelled(cut, full) -> None:
    """``cut`` is ``full`` or an incomplete prefix: every member of ``full`` scoring >= its threshold is listed."""
    listed = {n.key for n in cut}
    assert listed <= {n.key for n in full}
    if cut.complete:
        assert [n.key for n in cut] == [n.key for n in full]
        return
    assert cut.reason is not None and cut.threshold is not None
    assert all(n.key in listed for n in full if n.score >= cut.threshold)


# ---------------------------------------------------------------------- the split, without Dask
def _serial_set(table, eps, method):
    cs = enumerate_networks(table, epsilon=eps, method=method, by="dag", max_networks=None)
    return cs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), eps=st.floats(0.0, 6.0), n_parts=st.integers(1, 6),
       ties=st.booleans(), split=st.sampled_from(["root", "rows"]), open_per_part=st.sampled_from([1, 2, 64]))
def test_split_union_is_the_serial_set(seed, n, eps, n_parts, ties, split, open_per_part):
    """Both splits (the order graph's search tree, any engine's parent sets of one variable) on the order graph:
    disjoint parts whose union is the serial set.  ``open_per_part`` moves where the tree split ends its shared
    prefix (64: these small searches never leave it, and the parts deal its networks in turn)."""
    from gobnilp_py.search.order_graph import collect as og

    table = random_table(np.random.default_rng(seed), n, ties=ties, density=0.5)
    serial = _serial_set(table, eps, "ordergraph")
    opt = serial.opt
    floor = opt - eps - serial.tolerance
    parts = plan_split(table, floor, n_parts, "ordergraph" if split == "root" else "ilp")
    assert 1 <= len(parts) <= n_parts
    v = parts[0].var
    seen = [j for p in parts for j in p.rows]
    assert len(seen) == len(set(seen))            # every row of v in at most one part
    got = []
    results = {}
    old = og.SPLIT_OPEN_PER_PART
    og.SPLIT_OPEN_PER_PART = open_per_part
    try:
        for p in parts:
            r = run_part(table, p, method="ordergraph", opt=opt, epsilon=eps, max_networks=None, deadline=None,
                         options={})
            assert r.reason is None
            if p.root is None:
                assert all(chosen[v] in p.rows for _, chosen in r.entries)     # the part's networks are its own
            got.extend(chosen for _, chosen in r.entries)
            results[p.index] = r
    finally:
        og.SPLIT_OPEN_PER_PART = old
    assert len(got) == len(set(got))                # disjoint
    fams = table.families
    keys = {tuple(fams[u][c][0] for u, c in enumerate(ch)) for ch in got}
    assert keys == {n.key for n in serial}          # the union is the whole set
    col = merge_parts(parts, results, {}, opt=opt, epsilon=eps, max_networks=None)
    assert col.reason is None and len(col.entries) == len(serial)


def test_the_tree_split_searches_no_state_twice():
    """Past the shared prefix the parts' states are the serial search's: on wine at BF 20 the parts expand
    the serial count plus at most the prefix once more per part (the row split expanded 1.9x at 2 parts)."""
    table = _table("wine", "BIC", 20)
    serial = enumerate_networks(table, bayes_factor=20, method="ordergraph")
    eps = math.log(20)
    parts = plan_split(table, serial.opt - eps - serial.tolerance, 4, "ordergraph")
    res = [run_part(table, p, method="ordergraph", opt=serial.opt, epsilon=eps, max_networks=None, deadline=None,
                    options={}) for p in parts]
    expanded = sum(r.stats["states_expanded"] for r in res)
    assert serial.stats["states_expanded"] <= expanded <= serial.stats["states_expanded"] * 1.01
    assert sorted(len(r.entries) for r in res)[0] > 0    # every part has work


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 4), eps=st.floats(0.0, 4.0), n_parts=st.integers(2, 4))
def test_split_union_with_the_ilp(seed, n, eps, n_parts):
    pytest.importorskip("pyscipopt")
    table = random_table(np.random.default_rng(seed), n, density=0.5)
    serial = _serial_set(table, eps, "ordergraph")
    parts = plan_split(table, serial.opt - eps - serial.tolerance, n_parts)
    got = []
    for p in parts:
        r = run_part(table, p, method="ilp", opt=serial.opt, epsilon=eps, max_networks=None, deadline=None,
                     options={})
        assert r.reason is None
        got.extend(chosen for _, chosen in r.entries)
    fams = table.families
    assert len(got) == len(set(got))
    assert {tuple(fams[u][c][0] for u, c in enumerate(ch)) for ch in got} == {n.key for n in serial}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), eps=st.floats(0.5, 6.0), lose=st.integers(0, 5),
       cap=st.one_of(st.none(), st.integers(1, 30)), method=st.sampled_from(["ordergraph", "ilp"]))
def test_a_lost_or_cut_part_leaves_a_threshold_that_holds(seed, eps, lose, cap, method):
    """Merging without one part (lost with its worker) or with a network cap: incomplete, certified."""
    table = random_table(np.random.default_rng(seed), 5, density=0.5)
    serial = _serial_set(table, eps, "ordergraph")
    opt = serial.opt
    parts = plan_split(table, opt - eps - serial.tolerance, 3, method)     # the tree split, or the row split
    results = {p.index: run_part(table, p, method="ordergraph", opt=opt, epsilon=eps, max_networks=cap,
                                 deadline=None, options={}) for p in parts}
    lost = {lose: LOST_REASON} if lose < len(parts) else {}
    for i in lost:
        del results[i]
    col = merge_parts(parts, results, lost, opt=opt, epsilon=eps, max_networks=cap)
    fams = table.families
    listed = {tuple(fams[u][c][0] for u, c in enumerate(ch)) for _, ch in col.entries}
    members = {n.key: n.score for n in serial}
    assert listed <= set(members)
    if col.reason is None:
        assert listed == set(members)
    else:
        assert col.threshold is not None
        assert all(k in listed for k, sc in members.items() if sc >= col.threshold)
        if lost:
            assert col.reason == LOST_REASON
    if cap is not None:
        assert len(col.entries) <= cap


def test_merge_order_does_not_depend_on_which_part_came_back_first():
    table = random_table(np.random.default_rng(7), 5, density=0.6)
    eps = 5.0
    serial = _serial_set(table, eps, "ordergraph")
    parts = plan_split(table, serial.opt - eps - serial.tolerance, 4)
    res = [run_part(table, p, method="ordergraph", opt=serial.opt, epsilon=eps, max_networks=None, deadline=None,
                    options={}) for p in parts]
    one = merge_parts(parts, {r.index: r for r in res}, {}, opt=serial.opt, epsilon=eps, max_networks=None)
    two = merge_parts(parts, {r.index: r for r in reversed(res)}, {}, opt=serial.opt, epsilon=eps,
                      max_networks=None)
    assert one.entries == two.entries


def test_a_part_past_the_deadline_is_cut_not_run():
    table = random_table(np.random.default_rng(3), 4)
    part = plan_split(table, -math.inf, 2)[0]
    r = run_part(table, part, method="ordergraph", opt=0.0, epsilon=1.0, max_networks=None,
                 deadline=time.time() - 1, options={})
    assert isinstance(r, PartResult) and r.reason == "time_limit" and r.entries == []


# ---------------------------------------------------------------------- a worker killed mid-run
@pytest.mark.slow
@pytest.mark.parametrize("allowed_failures", [3, 0])
def test_a_worker_killed_mid_run(tmp_path, allowed_failures):
    """Worker processes (a nanny each): one worker kills itself the moment it starts a part (a worker plugin,
    once: a marker file), so the part is certainly running when its worker dies -- a timer could fire after
    every part had ended.  With the scheduler's default ``allowed-failures`` the part runs again (complete,
    the serial answer); with 0 the part is lost and the answer is labelled incomplete (``worker_lost``) with
    a threshold that holds."""
    import dask
    from distributed.diagnostics.plugin import WorkerPlugin

    class DieOnTheFirstPart(WorkerPlugin):   # local: cloudpickle sends it by value to the workers
        def __init__(self, marker: str):
            self.marker = marker

        def transition(self, key, start, finish, **kwargs):
            if finish != "executing" or not str(key).startswith("gobnilp-part-"):
                return
            try:
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:      # a worker has died already: the rest run on
                return
            os.kill(os.getpid(), signal.SIGKILL)

    table = _table("wine", "BIC", 20)
    full = enumerate_networks(table, bayes_factor=20, method="ordergraph")    # the same set, faster
    marker = tmp_path / "killed"
    with dask.config.set({"temporary-directory": str(tmp_path),
                          "distributed.scheduler.allowed-failures": allowed_failures}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        c.register_plugin(DieOnTheFirstPart(str(marker)))
        cs = enumerate_networks(table, bayes_factor=20, method="ilp", by="dag", backend="dask", scheduler=c)
    assert marker.exists()
    _check_labelled(cs, full)
    if allowed_failures > 0:
        assert cs.complete and [n.score for n in cs] == [n.score for n in full]
    else:  # the part running on the killed worker is lost for good
        assert not cs.complete and cs.reason == LOST_REASON and cs.stats["parts_lost"] >= 1


# ---------------------------------------------------------------------- the command line
def test_cli_enumerate_on_dask_writes_the_serial_files(client, tmp_path, capsys):
    """``gobnilp-py enumerate --backend dask --scheduler ADDRESS -o DIR``: every file the serial run writes, the
    same bytes (``summary.json`` compared without its ``stats``); the stdout lines the same too."""
    import json

    from gobnilp_py.cli import main

    csv = dataset("wine")
    runs = {}
    for name, extra in (("serial", []), ("dask", ["--backend", "dask", "--scheduler", client.scheduler.address])):
        out = tmp_path / name
        code = main(["enumerate", str(csv), "--no-header", "--bf", "20", "--method", "ordergraph", "-o", str(out),
                     *extra])
        stdout = capsys.readouterr().out
        assert code == 0, stdout
        runs[name] = (out, stdout)
    (a, out_a), (b, out_b) = runs["serial"], runs["dask"]
    assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir())
    for p in sorted(a.iterdir()):
        if p.suffix == ".png":   # pictures: drawn from the same networks (their bytes carry renderer metadata)
            continue
        if p.name == ".gobnilp-run":    # the folder's record: which files, and when it was written
            ra, rb = json.loads(p.read_text()), json.loads((b / p.name).read_text())
            assert {**ra, "time": None} == {**rb, "time": None}
        elif p.name in ("summary.json", "result.json"):
            da, db = json.loads(p.read_text()), json.loads((b / p.name).read_text())
            assert db.pop("stats")["collection_backend"] == "dask"
            da.pop("stats")
            assert da == db, p.name
        else:
            assert p.read_bytes() == (b / p.name).read_bytes(), p.name
    assert [ln for ln in out_a.splitlines() if "s)" not in ln] == [ln for ln in out_b.splitlines() if "s)" not in ln]


# ---------------------------------------------------------------------- k best
@pytest.mark.parametrize("name, score_name, method, k", [
    ("tic-tac-toe", "BDeu", "ordergraph", 10), ("wine", "BIC", "ordergraph", 100), ("voting", "BIC", "ordergraph", 10),
    pytest.param("voting", "BDeu", "ordergraph", 100, marks=pytest.mark.slow),     # 38 s: two scoring passes
    ("zoo", "BIC", "ordergraph", 10), ("tic-tac-toe", "BDeu", "ilp", 10), ("wine", "BIC", "ilp", 7)])
def test_dask_kbest_outputs_are_the_serial_bytes(client, name, score_name, method, k):
    data = read_data(dataset(name), header=False)
    serial = kbest(data, k, method=method, score=score_name)
    on_dask = kbest(data, k, method=method, score=score_name, backend="dask", scheduler=client)
    assert serial.complete and on_dask.complete and on_dask.stats["parts"] >= 2
    assert _outputs(on_dask) == _outputs(serial)


@pytest.mark.parametrize("name, score_name, k", [("wine", "BIC", 5), ("tic-tac-toe", "BIC", 4), ("voting", "BDeu", 3)])
def test_dask_kbest_by_class_is_split_and_the_serial_bytes(client, name, score_name, k):
    """The k best classes, split on adjacencies over the cluster: the serial answer, byte for byte."""
    pytest.importorskip("pyscipopt")
    data = read_data(dataset(name), header=False)
    serial = kbest(data, k, method="ilp", score=score_name, by="class")
    on_dask = kbest(data, k, method="ilp", score=score_name, by="class", backend="dask", scheduler=client)
    assert serial.complete and on_dask.complete
    assert on_dask.stats["collection_backend"] == "dask" and on_dask.stats["split"].startswith("adjacency of")
    assert on_dask.stats["parts"] >= 2
    assert _outputs(on_dask) == _outputs(serial)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 5), k=st.integers(1, 12), n_parts=st.integers(2, 8),
       gap=st.sampled_from([None, 6.0]))
def test_class_split_kbest_is_the_serial_class_kbest(seed, n, k, n_parts, gap):
    """Random data, BIC: the parts' k-best class lists merged by top_k are the serial k best classes and
    their ties (no gap known, or the classes within a gap wide enough to hold them)."""
    pytest.importorskip("pyscipopt")
    from gobnilp_py.ilp import engine as ie
    from gobnilp_py.solve.split import plan_class_split, top_k

    rng = np.random.default_rng(seed)
    table = score(read_data(random_data(rng, n, int(rng.integers(30, 120)))), prune=False)
    serial = ie.kbest(table, k=k, by_class=True)
    opt = max(sc for sc, _ in serial.entries)
    eps = math.inf
    if gap is not None:
        kth = sorted((sc for sc, _ in serial.entries), reverse=True)[min(k, len(serial.entries)) - 1]
        eps = opt - kth + gap
    parts = plan_class_split(table, opt - eps - 1e-9 * max(1.0, abs(opt)), n_parts)
    results = {p.index: run_part(table, p, method="ilp", opt=opt, epsilon=eps, max_networks=None, deadline=None,
                                 options={}, k=k) for p in parts}
    col = top_k(merge_parts(parts, results, {}, opt=opt, epsilon=eps, max_networks=None), k, opt)
    assert col.reason is None and col.by_class
    got = _class_keys(table, col.entries)
    assert len(got) == len(set(got))
    assert sorted(got) == sorted(_class_keys(table, serial.entries))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), k=st.integers(1, 40), n_parts=st.integers(2, 5),
       ties=st.booleans(), split=st.sampled_from(["root", "rows"]), open_per_part=st.sampled_from([1, 3, 64]))
def test_split_kbest_is_the_serial_kbest(seed, n, k, n_parts, ties, split, open_per_part):
    """The parts' k-best lists (no gap known: ε = inf) merged by top_k hold the serial k best and their ties."""
    from gobnilp_py.search.order_graph import collect as og
    from gobnilp_py.search.order_graph import engine as oge
    from gobnilp_py.solve.split import top_k

    table = random_table(np.random.default_rng(seed), n, ties=ties, density=0.5)
    serial = oge.kbest(table, k=k)
    opt = max(sc for sc, _ in serial.entries)
    parts = plan_split(table, -math.inf, n_parts, "ordergraph" if split == "root" else "ilp")
    old = og.SPLIT_OPEN_PER_PART
    og.SPLIT_OPEN_PER_PART = open_per_part
    try:
        results = {p.index: run_part(table, p, method="ordergraph", opt=opt, epsilon=math.inf, max_networks=None,
                                     deadline=None, options={}, k=k) for p in parts}
    finally:
        og.SPLIT_OPEN_PER_PART = old
    col = top_k(merge_parts(parts, results, {}, opt=opt, epsilon=math.inf, max_networks=None), k, opt)
    assert col.reason is None
    assert sorted(col.entries) == sorted(serial.entries)


# ---------------------------------------------------------------------- the default cluster
@pytest.mark.slow
def test_default_is_a_local_cluster_of_worker_processes(tmp_path):
    """``backend="dask"`` without ``scheduler``: a LocalCluster of worker processes, one per usable core,
    started for the call and closed after it; data scored there too; the serial answer."""
    import dask

    from gobnilp_py.scoring.pool import usable_cores

    data = read_data(dataset("voting"), header=False)
    serial = enumerate_networks(data, bayes_factor=20, method="ordergraph")
    with dask.config.set({"temporary-directory": str(tmp_path)}):
        on_dask = enumerate_networks(data, bayes_factor=20, method="ordergraph", backend="dask")
    assert on_dask.stats["workers"] == usable_cores() and on_dask.stats["collection_backend"] == "dask"
    assert _outputs(on_dask) == _outputs(serial)


def test_ctrl_c_cancels_the_parts_and_labels_the_answer(client):
    """SIGINT while the parts run: the call returns at once, labelled interrupted, with a threshold that holds."""
    pytest.importorskip("pyscipopt")
    from gobnilp_py._interrupt import clear_last_signal, last_signal

    table = _table("wine", "BIC", 20)
    full = enumerate_networks(table, bayes_factor=20, method="ordergraph")    # the same set, faster
    sent: list[float] = []

    def interrupt_soon(*args, **info):
        if info.get("stage") == "collection" and not sent:
            sent.append(time.perf_counter())
            threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()

    clear_last_signal()
    cs = enumerate_networks(table, bayes_factor=20, method="ilp", by="dag", backend="dask", scheduler=client,
                            progress=interrupt_soon)
    back = time.perf_counter() - sent[0]
    assert last_signal() == signal.SIGINT
    clear_last_signal()
    assert not cs.complete and cs.reason == "interrupted"
    assert back < 0.3 + 2.5, back          # the ILP parts take seconds: the call did not wait for them
    _check_labelled(cs, full)
