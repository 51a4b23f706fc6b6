"""The order-graph optimum (frontier BFBnB) against brute force, the subset-DP oracle and its own spill path.

Oracles: every DAG on n <= 5 nodes (``oracle_dags``) scored from the table,
and the subset DP of ``oracle_dp`` (no shared code with the engine) for
n = 8..12.  Also: the lower-bound contract (an exact bound keeps the
optimum, an invalid one gives "no_solution"), the isPresent regression of
the notes (Appendix B.2), spill invariance, limits and refusals.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py import ScoreError, ScoreTable, read_data, score
from gobnilp_py.search.order_graph import frontier as og
from gobnilp_py.search.best_parents import BestParents
from gobnilp_py.search.order_graph.frontier import order_graph_optimum
from oracle_dags import all_dags_array
from oracle_dp import optimal_dag
from random_problems import random_data, random_table

HYP = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ------------------------------------------------------------------ helpers (also used by test_order_collect)


def data_table(rng: np.random.Generator, n: int, score_name: str, *, epsilon: float | None = None) -> ScoreTable:
    """A BIC/BDeu table of random dependent data: unpruned, or pruned safely for ``epsilon``."""
    data = read_data(random_data(rng, n, int(rng.integers(20, 200))))
    if epsilon is None:
        return score(data, score=score_name, prune=False)
    return score(data, score=score_name, epsilon=epsilon)


def all_networks(table: ScoreTable) -> list[tuple[float, tuple[int, ...]]]:
    """Every DAG the table allows as ``(fsum score, chosen)``, best first, ties by the tuple of parent tuples."""
    n = table.n
    dags = all_dags_array(n)
    pos = np.full((n, 1 << n), -1, dtype=np.int64)
    for v, fams in enumerate(table.families):
        for j, (ps, sc) in enumerate(fams):
            if sc > -math.inf:
                pos[v, sum(1 << p for p in ps)] = j
    chosen = np.stack([pos[v, dags[:, v]] for v in range(n)], axis=1) if n else np.zeros((1, 0), np.int64)
    ok = (chosen >= 0).all(axis=1)
    out = []
    for row in chosen[ok]:
        ch = tuple(int(c) for c in row)
        out.append((math.fsum(table.families[v][c][1] for v, c in enumerate(ch)), ch))
    out.sort(key=lambda e: (-e[0], tuple(table.families[v][c][0] for v, c in enumerate(e[1]))))
    return out


def shared_data(name: str) -> Path:
    """``shared/data/<name>.csv`` above this checkout (the main checkout or a worktree), else skip."""
    for up in Path(__file__).resolve().parents:
        path = up / "shared" / "data" / f"{name}.csv"
        if path.exists():
            return path
    pytest.skip("shared data not available")


def tolerance(opt: float) -> float:
    return 1e-9 * max(1.0, abs(opt))


def is_acyclic(table: ScoreTable, chosen: tuple[int, ...]) -> bool:
    parents = [set(table.families[v][c][0]) for v, c in enumerate(chosen)]
    done: set[int] = set()
    while len(done) < len(parents):
        ready = [v for v in range(len(parents)) if v not in done and parents[v] <= done]
        if not ready:
            return False
        done.update(ready)
    return True


def check_optimum(table: ScoreTable, truth_opt: float, **kw) -> og.OrderGraphResult:
    r = order_graph_optimum(table, **kw)
    if truth_opt == -math.inf:
        assert r.status == "no_solution" and r.chosen is None and r.score == -math.inf
        return r
    assert r.status == "optimal", r.reason
    assert is_acyclic(table, r.chosen)
    assert r.score == math.fsum(table.families[v][c][1] for v, c in enumerate(r.chosen))
    assert abs(r.score - truth_opt) <= tolerance(truth_opt)
    assert r.upper_bound == r.score
    return r


# ------------------------------------------------------------------ brute force, n <= 5
@settings(HYP, max_examples=120)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 5), ties=st.booleans(),
       density=st.sampled_from([0.1, 0.4, 0.8, 1.0]), empty=st.sampled_from([1.0, 0.7]))
def test_optimum_equals_brute_force_random_tables(seed, n, ties, density, empty) -> None:
    table = random_table(np.random.default_rng(seed), n, ties=ties, density=density, empty=empty)
    nets = all_networks(table)
    opt = nets[0][0] if nets else -math.inf
    check_optimum(table, opt)
    if nets:
        check_optimum(table, opt, lower_bound=opt)
        bad = order_graph_optimum(table, lower_bound=opt + 1.0)
        assert bad.status == "no_solution" and bad.chosen is None and bad.upper_bound == opt + 1.0


@settings(HYP, max_examples=100)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), score_name=st.sampled_from(["BIC", "BDeu"]))
def test_optimum_equals_brute_force_data_tables(seed, n, score_name) -> None:
    rng = np.random.default_rng(seed)
    table = data_table(rng, n, score_name)
    nets = all_networks(table)
    check_optimum(table, nets[0][0])
    check_optimum(table, nets[0][0], lower_bound=nets[0][0])
    check_optimum(table, nets[0][0], backend="sparse", dedup="sort")
    assert order_graph_optimum(table, lower_bound=nets[0][0] + 1.0).status == "no_solution"


# ------------------------------------------------------------------ subset-DP oracle, n = 8..12
@pytest.mark.parametrize("seed", range(12))
def test_optimum_equals_subset_dp(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    n = 8 + seed % 5
    table = random_table(rng, n, ties=seed % 3 == 0, density=float(rng.choice([0.02, 0.1, 0.3])),
                         empty=0.9 if seed % 4 == 0 else 1.0)
    opt, _ = optimal_dag(table)
    r = check_optimum(table, opt)
    if opt > -math.inf:
        check_optimum(table, opt, lower_bound=r.score)
        assert order_graph_optimum(table, lower_bound=opt + 1.0).status == "no_solution"


# ------------------------------------------------------------------ spill invariance
def layer_counts(r: og.OrderGraphResult) -> list[tuple[int, int, int, int]]:
    return [(d["layer"], d["generated"], d["kept"], d["unique"]) for d in r.stats["layers"]]


@pytest.mark.parametrize("seed", range(6))
def test_spill_invariance(seed: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(50 + seed)
    n = 7 + seed % 4
    table = random_table(rng, n, ties=seed % 2 == 0, density=0.15)
    opt, _ = optimal_dag(table)
    runs = {
        "dense": order_graph_optimum(table),
        "sort in RAM": order_graph_optimum(table, dedup="sort"),
        "all spilled": order_graph_optimum(table, spill_threshold=0, chunk_nodes=3, spill_dir=str(tmp_path)),
        "spilled, sparse": order_graph_optimum(table, spill_threshold=0, chunk_nodes=17, backend="sparse",
                                               spill_dir=str(tmp_path), lower_bound=opt),
        "unlimited, exact bound": order_graph_optimum(table, lower_bound=opt),
    }
    base = runs["dense"]
    assert base.status == "optimal" and abs(base.score - opt) <= tolerance(opt)
    assert all(d["mode"] == "dense" and not d["on_disk"] for d in base.stats["layers"])
    spilled = runs["all spilled"]
    assert all(d["mode"] == "sort" and d["on_disk"] for d in spilled.stats["layers"])
    assert sum(d["spilled_runs"] for d in spilled.stats["layers"]) > n  # several runs per layer, all on disk
    assert spilled.stats["spill_bytes_written"] > 0
    for name in ("sort in RAM", "all spilled"):
        r = runs[name]
        assert (r.status, r.score, r.chosen) == (base.status, base.score, base.chosen), name
        assert layer_counts(r) == layer_counts(base), name
    a, b = runs["spilled, sparse"], runs["unlimited, exact bound"]
    assert (a.score, a.chosen, layer_counts(a)) == (b.score, b.chosen, layer_counts(b))
    assert list(tmp_path.iterdir()) == []  # the private spill directories are removed


def test_spill_files_removed_on_time_limit(tmp_path: Path, monkeypatch) -> None:
    table = random_table(np.random.default_rng(3), 9, density=0.2)
    clock = _FakeClock(step=1.0)
    monkeypatch.setattr(og.time, "perf_counter", clock)
    r = order_graph_optimum(table, spill_threshold=0, chunk_nodes=2, spill_dir=str(tmp_path), time_limit=400,
                             incumbent_search=False)  # a strong start would finish before the clock runs out
    assert r.status == "time_limit"
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ isPresent regression (notes, Appendix B.2)
def _b2_random_scores(n: int, rng: random.Random) -> dict[tuple[int, int], float]:
    sc = {}
    for v in range(n):
        for m in range(1 << n):
            if not m >> v & 1:
                sc[v, m] = -rng.random() * 10 - 3.0 * bin(m).count("1")
    return sc


def _b2_bic_scores(n: int, rng: random.Random, N: int = 200) -> dict[tuple[int, int], float]:
    nr = np.random.default_rng(rng.randrange(10**9))
    order = list(range(n))
    nr.shuffle(order)
    D = np.zeros((N, n), dtype=int)
    for i, v in enumerate(order):
        pa = [u for u in order[:i] if nr.random() < 0.6]
        key = np.zeros(N, dtype=int)
        for u in pa:
            key = key * 2 + D[:, u]
        probs = nr.beta(0.5, 0.5, size=2 ** len(pa))
        D[:, v] = (nr.random(N) < probs[key]).astype(int)
    sc = {}
    for v in range(n):
        for m in range(1 << n):
            if m >> v & 1:
                continue
            pa = [u for u in range(n) if m >> u & 1]
            key = np.zeros(N, dtype=int)
            for u in pa:
                key = key * 2 + D[:, u]
            ll = 0.0
            for k in np.unique(key):
                sel = D[key == k, v]
                nk = len(sel)
                for c in (sel.sum(), nk - sel.sum()):
                    if c:
                        ll += c * math.log(c / nk)
            sc[v, m] = ll - 0.5 * math.log(N) * 2 ** len(pa)
    return sc


def _as_table(n: int, sc: dict[tuple[int, int], float]) -> ScoreTable:
    fams = [[(tuple(p for p in range(n) if m >> p & 1), s) for (w, m), s in sc.items() if w == v] for v in range(n)]
    return ScoreTable([f"X{i}" for i in range(n)], fams)


def _ispresent_search(table: ScoreTable, lb: float) -> float | None:
    """The seed's layered search with parent graphs built only over present order-graph nodes (unsound)."""
    n = table.n
    full = (1 << n) - 1
    sc = {(v, sum(1 << p for p in ps)): s for v, fams in enumerate(table.families) for ps, s in fams}
    best = [table.families[v][0][1] for v in range(n)]

    def h(m: int) -> float:
        return sum(best[v] for v in range(n) if not m >> v & 1)

    layer, present = {0: 0.0}, {0}
    pg = {v: {0: sc[v, 0]} for v in range(n)}
    for _ in range(n):
        nxt: dict[int, float] = {}
        for m, gv in layer.items():
            for v in range(n):
                if m >> v & 1:
                    continue
                s, m2 = gv + pg[v][m], m | 1 << v
                if s + h(m2) < lb - 1e-9:
                    continue
                present.add(m2)
                if s > nxt.get(m2, -math.inf):
                    nxt[m2] = s
        for v in range(n):
            new: dict[int, float] = {}
            for m, b in pg[v].items():
                for x in range(n):
                    if x == v or m >> x & 1 or (m | 1 << x) not in present:
                        continue
                    val = max(sc[v, m | 1 << x], b)
                    if val > new.get(m | 1 << x, -math.inf):
                        new[m | 1 << x] = val
            pg[v] = new
        layer = nxt
    return layer.get(full)


def test_ispresent_counterexample_three_nodes() -> None:
    """The 3-node case of docs/order-graph.md: isPresent loses the optimum -3, the engine keeps it."""
    table = ScoreTable(["0", "1", "2"], [
        [((), -7.0), ((1,), 0.0), ((2,), -6.0), ((1, 2), -1.0)],
        [((), -2.0), ((0,), -8.0), ((2,), -4.0), ((0, 2), 0.0)],
        [((), -5.0), ((0,), -1.0), ((1,), -8.0), ((0, 1), -4.0)],
    ])
    assert _ispresent_search(table, -3.0) is None
    r = order_graph_optimum(table, lower_bound=-3.0)
    assert r.status == "optimal" and r.score == -3.0
    assert [table.families[v][c][0] for v, c in enumerate(r.chosen)] == [(1,), (), (0,)]


def test_ispresent_regression_instances() -> None:
    """Appendix B.2's 300 random and 150 BIC instances (n = 5, seeds fixed): the engine returns OPT on all."""
    rng = random.Random(1)
    missed_by_ispresent = 0
    cases = [_b2_random_scores(5, rng) for _ in range(300)]
    cases += [_b2_bic_scores(5, rng) for _ in range(150)]
    for i, sc in enumerate(cases):
        table = _as_table(5, sc)
        opt, _ = optimal_dag(table)
        got = _ispresent_search(table, opt)
        if got is None or got < opt - 1e-6:
            missed_by_ispresent += 1
        check_optimum(table, opt, lower_bound=opt)
    assert missed_by_ispresent > 100  # the instances do exercise the flaw (notes: 193 + 51)


# ------------------------------------------------------------------ no network, limits, refusals
def test_no_network_in_table() -> None:
    two_cycle = ScoreTable(["A", "B"], [[((1,), -1.0)], [((0,), -1.0)]])
    r = order_graph_optimum(two_cycle)
    assert r.status == "no_solution" and r.chosen is None and "admits no network" in r.reason
    assert order_graph_optimum(ScoreTable([], [])).score == 0.0
    fine = ScoreTable(["A", "B"], [[((), -1.0)], [((), -1.0)]])
    r = order_graph_optimum(fine, lower_bound=math.inf)
    assert r.status == "no_solution" and r.upper_bound == math.inf and "lower bound" in r.reason
    assert order_graph_optimum(fine, lower_bound=-math.inf).score == -2.0


def test_heuristic_bound_is_a_network() -> None:
    from gobnilp_py.search.order_graph._greedy import greedy_dag

    for seed in range(20):
        table = random_table(np.random.default_rng(seed), 7, density=0.3)
        sc, chosen, order = greedy_dag(BestParents(table))
        assert is_acyclic(table, chosen) and sorted(order) == list(range(7))
        rank = {v: i for i, v in enumerate(order)}
        assert all(rank[p] < rank[v] for v, c in enumerate(chosen) for p in table.families[v][c][0])
        assert sc == math.fsum(table.families[v][c][1] for v, c in enumerate(chosen))
        r = order_graph_optimum(table, incumbent_search=True)
        h, a = r.stats["heuristic_score"], r.stats["asobs_score"]
        assert h <= r.score + tolerance(r.score) and a <= r.score + tolerance(r.score)
        assert r.lower_bound == max(h, a)
        assert r.stats["lower_bound_source"] == ("asobs" if a > h else "heuristic")
        plain = order_graph_optimum(table, incumbent_search=False)
        assert plain.lower_bound == h and plain.stats["lower_bound_source"] == "heuristic"
        assert plain.score == r.score and plain.chosen == r.chosen


class _FakeClock:
    """perf_counter stand-in that advances ``step`` seconds per call (deterministic time limits)."""

    def __init__(self, step: float) -> None:
        self.t = 0.0
        self.step = step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def test_time_limit_reports_bounds(monkeypatch) -> None:
    table = random_table(np.random.default_rng(11), 9, density=0.2)
    opt, _ = optimal_dag(table)
    monkeypatch.setattr(og.time, "perf_counter", _FakeClock(step=1.0))
    r = order_graph_optimum(table, time_limit=60)
    assert r.status == "time_limit" and "time limit" in r.reason
    assert r.upper_bound >= opt - tolerance(opt)
    assert r.chosen is not None and is_acyclic(table, r.chosen) and r.score <= opt + tolerance(opt)
    r = order_graph_optimum(table, time_limit=60, lower_bound=opt - 5)
    assert r.status == "time_limit" and r.chosen is None and r.upper_bound >= opt - tolerance(opt)


def test_memory_refusal_and_bad_arguments() -> None:
    table = random_table(np.random.default_rng(0), 6)
    with pytest.raises(ScoreError, match="over the memory budget"):
        order_graph_optimum(table, memory_budget=1000)
    for kw, msg in [({"time_limit": 0}, "time_limit"), ({"dedup": "hash"}, "dedup"),
                    ({"lower_bound": float("nan")}, "lower_bound"), ({"spill_threshold": -1}, "spill_threshold"),
                    ({"memory_budget": 0}, "memory_budget")]:
        with pytest.raises(ScoreError, match=msg):
            order_graph_optimum(table, **kw)
    big = ScoreTable([f"X{i}" for i in range(64)], [[((), -1.0)]] * 64)
    with pytest.raises(ScoreError, match="at most 63"):
        order_graph_optimum(big)


def test_progress_and_stats() -> None:
    table = random_table(np.random.default_rng(2), 6)
    calls = []
    r = order_graph_optimum(table, progress=lambda *a, **k: calls.append((a, k)))
    assert [a for a, _ in calls] == [("order graph", l, 6) for l in range(1, 7)]
    assert [k["nodes"] for _, k in calls] == [d["unique"] for d in r.stats["layers"]]
    for d in r.stats["layers"]:
        assert d["generated"] >= d["kept"] >= d["unique"]
    est = og.estimate_memory(table)
    assert est["fixed"] == est["best_parents"] + est["work"] + est["index"]
    assert BestParents.estimate_memory(table, "dense") == est["best_parents"]


@pytest.mark.slow
@pytest.mark.parametrize("name,opt", [("tic-tac-toe", -9396.375858), ("wine", -1258.445909),
                                      ("voting", -4642.631030), ("zoo", -612.261239)])
def test_shared_dataset_optima(name: str, opt: float) -> None:
    path = shared_data(name)
    table = score(read_data(path, header=False))
    r = order_graph_optimum(table)
    assert r.status == "optimal" and abs(r.score - opt) < 5e-7


# ------------------------------------------------------------------ the external-memory pieces alone
@settings(HYP, max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), runs=st.integers(1, 7), block=st.integers(1, 9),
       ram=st.sampled_from([0, 64, 10**9]))
def test_merge_runs_equals_one_sort(seed, runs, block, ram, tmp_path_factory) -> None:
    """k-way merge of reduced runs (RAM or disk, any block size) equals reducing everything at once."""
    from gobnilp_py.search.order_graph._spill import ColumnWriter, Columns, SpillDir, merge_runs, sort_reduce

    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(runs):
        size = int(rng.integers(0, 40))
        parts.append((rng.integers(0, 30, size).astype(np.uint64), rng.integers(-3, 0, size).astype(np.float64),
                      rng.integers(0, 5, size).astype(np.int8)))
    want = sort_reduce(*(np.concatenate([p[k] for p in parts]) for k in range(3)))
    with SpillDir(tmp_path_factory.mktemp("spill")) as spill:
        cols = []
        for i, p in enumerate(parts):
            c = Columns.in_ram(*sort_reduce(*p))
            cols.append(c.to_disk(spill, "run") if i % 2 else c)
        writer = ColumnWriter(spill, "out", ram)
        merge_runs(cols, writer, block)
        out = writer.finish()
        got = out.read(0, out.size)
        if ram == 10**9:
            assert not out.on_disk
        elif ram == 0 and out.size:
            assert out.on_disk
        for a, b in zip(got, want):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("n", [0, 1, 5, 11, 12, 13, 20, 24, 25, 40, 63])
def test_colex_rank_is_the_sorted_position(n: int) -> None:
    """Colex rank = position among the masks of the same popcount in numeric order; unrank inverts it."""
    from itertools import combinations

    from gobnilp_py.search.order_graph._colex import Colex

    cx = Colex(n)
    rng = np.random.default_rng(n)
    for k in range(n + 1):
        if math.comb(n, k) <= 5000:
            masks = np.array(sorted(sum(1 << b for b in c) for c in combinations(range(n), k)), dtype=np.uint64)
            assert np.array_equal(cx.rank(masks), np.arange(len(masks)))
            assert np.array_equal(cx.unrank(np.arange(len(masks)), k), masks)
        else:
            r = np.unique(rng.integers(0, math.comb(n, k), 500))
            m = cx.unrank(r, k)
            assert np.array_equal(cx.rank(m), r)
            assert all(bin(int(x)).count("1") == k for x in m) and all(int(a) < int(b) for a, b in zip(m, m[1:]))
