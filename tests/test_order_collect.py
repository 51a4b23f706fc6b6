"""The order-graph ε-set and k-best against brute force over all DAGs, ties included, and their certificates.

The oracle lists every DAG on n <= 5 nodes the table allows (``oracle_dags``),
scored with :func:`math.fsum`.  The ε-set must equal every DAG with score
``>= OPT - ε - tol`` and the k-best the k best plus every DAG within ``tol``
of the k-th (``tol = 1e-9 * max(1, |OPT|)``), entry by entry (score, families,
order).  Runs cut short must keep their promise: every network scoring at
least ``threshold`` is listed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py import ScoreError, ScoreTable, read_data, score
from gobnilp_py.search.order_graph import collect as oc
from gobnilp_py.search.order_graph.collect import order_graph_epsilon_set, order_graph_kbest, subset_dp
from gobnilp_py.search.best_parents import BestParents
from oracle_dp import best_subset_scores
from test_order_graph import HYP, all_networks, data_table, random_table, shared_data, tolerance


def expected_epsilon(nets, eps):
    if not nets:
        return []
    limit = nets[0][0] - eps - tolerance(nets[0][0])
    return [e for e in nets if e[0] >= limit]


def expected_kbest(nets, k):
    if not nets:
        return []
    kth = nets[min(k, len(nets)) - 1][0]
    return [e for e in nets if e[0] >= kth - tolerance(nets[0][0])]


def keyed(table: ScoreTable, entries):
    """Entries as (score, parent tuples): comparable across tables with different family lists."""
    return [(s, tuple(table.families[v][c][0] for v, c in enumerate(ch))) for s, ch in entries]


# ------------------------------------------------------------------ brute force
@settings(HYP, max_examples=120)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 5), ties=st.booleans(),
       density=st.sampled_from([0.1, 0.4, 0.8, 1.0]), empty=st.sampled_from([1.0, 0.7]),
       eps=st.sampled_from([0.0, 0.3, 1.0, 3.0, 8.0, 30.0]), k=st.integers(1, 40))
def test_random_tables_equal_brute_force(seed, n, ties, density, empty, eps, k) -> None:
    table = random_table(np.random.default_rng(seed), n, ties=ties, density=density, empty=empty)
    nets = all_networks(table)
    r = order_graph_epsilon_set(table, eps)
    if not nets:
        assert r.status == "no_solution" and r.complete and r.entries == [] and r.optimum == -math.inf
    else:
        assert r.status == "complete" and r.reason is None
        assert r.entries == expected_epsilon(nets, eps)
        assert r.optimum == nets[0][0] and r.tolerance == tolerance(nets[0][0])
        assert r.threshold == nets[0][0] - eps - r.tolerance
    kb = order_graph_kbest(table, k)
    assert kb.entries == expected_kbest(nets, k)
    assert kb.complete


@settings(HYP, max_examples=100)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), score_name=st.sampled_from(["BIC", "BDeu"]),
       eps=st.floats(0.0, 6.0), pruned=st.booleans(), k=st.integers(1, 60))
def test_data_tables_equal_brute_force(seed, n, score_name, eps, pruned, k) -> None:
    """BIC/BDeu from random data; with ``pruned`` the table is pruned for ε and must still give the whole ε-set."""
    rng = np.random.default_rng(seed)
    state = rng.bit_generator.state
    full = data_table(rng, n, score_name)
    nets = all_networks(full)
    if pruned:
        rng.bit_generator.state = state
        table = data_table(rng, n, score_name, epsilon=eps)
    else:
        table = full
    r = order_graph_epsilon_set(table, eps)
    assert r.status == "complete"
    assert keyed(table, r.entries) == keyed(full, expected_epsilon(nets, eps))
    kb = order_graph_kbest(full, k)
    assert kb.entries == expected_kbest(nets, k)


def test_subset_dp_equals_oracle() -> None:
    for seed in range(8):
        table = random_table(np.random.default_rng(seed), 7, density=0.2, empty=0.8)
        want, _ = best_subset_scores(table)
        for backend in ("dense", "sparse"):
            got = subset_dp(BestParents(table, backend=backend))
            assert np.array_equal(got, want)


def test_each_network_once_with_all_ties() -> None:
    """Every family scores 0: all 543 DAGs on 4 nodes tie; each listed exactly once."""
    n = 4
    fams = [[(tuple(u for u in range(n) if u != v and m >> u & 1), 0.0) for m in range(1 << n) if not m >> v & 1]
            for v in range(n)]
    table = ScoreTable([f"V{i}" for i in range(n)], fams)
    r = order_graph_epsilon_set(table, 0.0)
    assert len(r.entries) == 543 and len({c for _, c in r.entries}) == 543
    kb = order_graph_kbest(table, 1)
    assert len(kb.entries) == 543  # all tied with the first
    capped = order_graph_kbest(table, 1, max_networks=10)
    assert capped.status == "max_networks" and len(capped.entries) == 10


# ------------------------------------------------------------------ cut-short runs keep their certificate
def certificate_holds(r, full_entries) -> None:
    listed = set(r.entries)
    assert listed <= set(full_entries)
    for e in full_entries:
        if e[0] >= r.threshold:
            assert e in listed
    assert r.entries == sorted(r.entries, key=lambda e: full_entries.index(e))


def test_max_networks_lists_the_best() -> None:
    table = random_table(np.random.default_rng(4), 5, ties=True, density=0.8)
    nets = all_networks(table)
    full = order_graph_epsilon_set(table, 6.0, max_networks=None)
    assert full.entries == expected_epsilon(nets, 6.0) and len(full.entries) > 50
    for cap in (1, 7, 50):
        r = order_graph_epsilon_set(table, 6.0, max_networks=cap)
        assert r.status == "max_networks" and r.reason == "max_networks" and not r.complete
        assert len(r.entries) == cap
        certificate_holds(r, full.entries)
        assert [s for s, _ in r.entries] == [s for s, _ in full.entries[:cap]]


class _FakeClock:
    def __init__(self, step: float) -> None:
        self.t, self.step = 0.0, step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def test_time_limit_certificate(monkeypatch) -> None:
    table = random_table(np.random.default_rng(8), 5, ties=True, density=1.0)
    full = order_graph_epsilon_set(table, 5.0, max_networks=None)
    fullk = order_graph_kbest(table, 300)
    statuses = set()
    for limit in range(20, 80, 3):
        monkeypatch.setattr(oc.time, "perf_counter", _FakeClock(step=1.0))
        r = order_graph_epsilon_set(table, 5.0, max_networks=None, time_limit=limit)
        statuses.add(r.status)
        if r.status == "time_limit":
            assert r.reason == "time_limit"
            if r.entries:
                assert r.optimum == full.optimum and r.entries[0] == full.entries[0]
                certificate_holds(r, full.entries)
        else:
            assert r.entries == full.entries
        monkeypatch.setattr(oc.time, "perf_counter", _FakeClock(step=1.0))
        rk = order_graph_kbest(table, 300, time_limit=limit)
        if rk.status == "time_limit" and rk.entries:
            certificate_holds(rk, fullk.entries)
    assert "time_limit" in statuses and "complete" in statuses


def test_memory_limit_and_refusal() -> None:
    table = random_table(np.random.default_rng(8), 5, ties=True, density=1.0)
    full = order_graph_epsilon_set(table, 5.0, max_networks=None)
    fixed = oc.estimate_memory(table)["fixed"]
    r = order_graph_epsilon_set(table, 5.0, max_networks=None, memory_budget=fixed + 30 * oc.STATE_BYTES)
    assert r.status == "memory_limit" and not r.complete
    certificate_holds(r, full.entries)
    with pytest.raises(ScoreError, match="over the memory budget"):
        order_graph_epsilon_set(table, 1.0, memory_budget=64)


def test_no_network_and_bad_arguments() -> None:
    two_cycle = ScoreTable(["A", "B"], [[((1,), -1.0)], [((0,), -1.0)]])
    for r in (order_graph_epsilon_set(two_cycle, 3.0), order_graph_kbest(two_cycle, 3)):
        assert r.status == "no_solution" and r.complete and r.entries == []
    table = random_table(np.random.default_rng(0), 3)
    for call, msg in [(lambda: order_graph_epsilon_set(table, -1.0), "epsilon"),
                      (lambda: order_graph_epsilon_set(table, math.inf), "epsilon"),
                      (lambda: order_graph_epsilon_set(table, 1.0, max_networks=0), "max_networks"),
                      (lambda: order_graph_epsilon_set(table, 1.0, time_limit=-2), "time_limit"),
                      (lambda: order_graph_kbest(table, 0), "k must"),
                      (lambda: order_graph_kbest(table, True), "k must")]:
        with pytest.raises(ScoreError, match=msg):
            call()
    empty = order_graph_epsilon_set(ScoreTable([], []), 1.0)
    assert empty.entries == [(0.0, ())] and empty.status == "complete"


def test_progress_is_called() -> None:
    table = random_table(np.random.default_rng(8), 5, ties=True, density=1.0)
    calls = []
    order_graph_epsilon_set(table, 6.0, max_networks=None, progress=lambda *a, **k: calls.append((a, k)))
    assert calls and all(a[0] == "collecting" and "bound" in k for a, k in calls)


# ------------------------------------------------------------------ published counts (Liao et al. 2019, checked)
@pytest.mark.slow
@pytest.mark.parametrize("name,counts", [("tic-tac-toe", (192, 192, 544)), ("wine", (308, 3449, 26153)),
                                         ("voting", (27, 441, 2222)), ("zoo", (49, 1111, 21679))])
def test_shared_dataset_counts(name: str, counts: tuple[int, int, int]) -> None:
    data = read_data(shared_data(name), header=False)
    for bf, want in zip((3, 20, 150), counts):
        eps = math.log(bf)
        r = order_graph_epsilon_set(score(data, epsilon=eps), eps)
        assert r.status == "complete" and len(r.entries) == want, (name, bf)


def test_stop_event_interrupts_the_collection_and_keeps_a_certificate():
    """A set stop event (what Ctrl-C does through the driver) ends the run as ``"interrupted"``, not complete."""
    import threading

    from gobnilp_py.search.order_graph.collect import order_graph_epsilon_set, order_graph_kbest
    from gobnilp_py.search.order_graph.frontier import order_graph_optimum

    rng = np.random.default_rng(3)
    table = ScoreTable([f"X{i}" for i in range(5)],
                       [[((), float(-rng.uniform(5, 10)))] + [((p,), float(-rng.uniform(5, 10))) for p in range(5) if p != v]
                        for v in range(5)])
    stop = threading.Event()
    stop.set()
    for r in (order_graph_epsilon_set(table, 50.0, stop=stop), order_graph_kbest(table, 10, stop=stop)):
        assert r.status == "interrupted" and not r.complete
    g = order_graph_optimum(table, stop=stop)
    assert g.status == "interrupted" and "interrupted" in g.reason


@pytest.mark.parametrize("bits", [0, 1, 0b1011, (1 << 4096) - 1, (1 << 4097) | 5, (1 << 70000) | (1 << 9000) | 3],
                         ids=["0", "1", "small", "4096-ones", "just-big", "huge-sparse"])
def test_set_bits_lowest_first_for_small_and_huge_bitsets(bits: int) -> None:
    got = []
    for off, piece in oc._pieces(bits):
        assert 0 < piece < 1 << oc._BIG_BITSET
        got += [off + i for i in range(piece.bit_length()) if piece >> i & 1]
    assert got == [j for j in range(bits.bit_length()) if bits >> j & 1]


def _tied_table(n: int) -> ScoreTable:
    """Node 0 has every parent set, all tied (a constant column's); the others only the empty set."""
    fams = [[(tuple(p for p in range(1, n) if m >> (p - 1) & 1), -1.0) for m in range(1 << (n - 1))]]
    fams += [[((), -2.0)] for _ in range(1, n)]
    return ScoreTable([f"X{i}" for i in range(n)], fams)


@pytest.mark.parametrize("why", ["interrupted", "memory_limit", "time_limit"])
def test_a_limit_stops_the_search_inside_one_huge_expansion(why: str, monkeypatch) -> None:
    """One expansion can push millions of children (every tied parent set of a constant column): the
    limits are checked inside it too, and the expanded state goes back on the heap, so the certificate
    still covers every network not listed."""
    import threading

    table = _tied_table(9)                        # node 0: 256 tied families
    full = order_graph_epsilon_set(table, 0.5)
    assert full.status == "complete" and len(full.entries) == 256
    assert full.stats["states_expanded"] > 256   # so a check between expansions would come at the 256th
    monkeypatch.setattr(oc, "_CHECK_CHILDREN", 7)
    monkeypatch.setattr(oc, "_BIG_BITSET", 16)          # node 0's 256 families take the piecewise walk
    real = oc._BestFirst._limit_reached

    def limited(self, open_states):               # the limit is reached at the first check
        if why == "interrupted":
            self.stop = threading.Event()
            self.stop.set()
        elif why == "memory_limit":
            self.max_states = 0
        else:
            self.deadline = 0.0
        return real(self, open_states)

    monkeypatch.setattr(oc._BestFirst, "_limit_reached", limited)
    r = order_graph_epsilon_set(table, 0.5)
    assert r.status == why and not r.complete
    assert r.stats["states_expanded"] < 256      # stopped inside an expansion, not between them
    # the promise, every network scoring at least the threshold is listed: all 256 tie at OPT and
    # some are missing, so the threshold must lie above OPT
    assert len(r.entries) < 256 and r.threshold > full.entries[0][0]


def test_the_open_states_fit_in_the_memory_the_machine_has_left(monkeypatch) -> None:
    """Whatever memory_budget allows, the open states stop at a share of the free memory, certified."""
    table = _tied_table(9)
    full = order_graph_epsilon_set(table, 0.5)
    monkeypatch.setattr(oc, "memory_room", lambda: 100 * oc.STATE_BYTES)   # room for 80 open states
    r = order_graph_epsilon_set(table, 0.5, memory_budget=2**40)
    assert r.status == "memory_limit" and len(r.entries) < len(full.entries)
    assert r.threshold > full.entries[0][0]         # all tie at OPT, some missing: nothing beyond certified
    monkeypatch.setattr(oc, "memory_room", lambda: None)                   # unknown room: the budget decides
    assert order_graph_epsilon_set(table, 0.5).status == "complete"


# ------------------------------------------------------------------ lookups reused from the optimum search
def test_the_collection_reuses_the_optimum_searchs_lookups_of_the_same_table() -> None:
    """The optimum search hands its best-parent lookups on; a collection of that very table uses them
    (same entries as building its own), a collection of another table builds its own."""
    from gobnilp_py.search.order_graph.frontier import order_graph_optimum

    rng = np.random.default_rng(12)
    table = random_table(rng, 6, ties=True)
    r = order_graph_optimum(table)
    assert r.status == "optimal" and isinstance(r.best_parents, BestParents) and r.best_parents.table is table
    fresh = order_graph_epsilon_set(table, 2.0)
    again = order_graph_epsilon_set(table, 2.0, best_parents=r.best_parents)
    assert again.stats["best_parents_reused"] and not fresh.stats["best_parents_reused"]
    assert again.entries == fresh.entries and again.status == fresh.status == "complete"
    k_fresh, k_again = order_graph_kbest(table, 5), order_graph_kbest(table, 5, best_parents=r.best_parents)
    assert k_again.stats["best_parents_reused"] and k_again.entries == k_fresh.entries
    other = random_table(np.random.default_rng(13), 6)
    assert not order_graph_epsilon_set(other, 2.0, best_parents=r.best_parents).stats["best_parents_reused"]


def test_the_drivers_pass_the_lookups_on_only_for_the_same_table() -> None:
    from gobnilp_py import enumerate_networks, kbest
    from gobnilp_py.search.results import Solution
    from gobnilp_py.solve.results import take_reuse

    table = random_table(np.random.default_rng(14), 6)
    cs = enumerate_networks(table, bayes_factor=20, method="ordergraph")
    assert cs.complete and cs.stats["best_parents_reused"]
    ks = kbest(table, 4, method="ordergraph")
    assert ks.complete and ks.stats["best_parents_reused"]
    bp = BestParents(table)
    sol = Solution("optimal", 0.0, None, reuse=bp)
    assert take_reuse(sol, table) == {"reuse": bp} and sol.reuse is None
    sol.reuse = bp
    assert take_reuse(sol, random_table(np.random.default_rng(15), 6)) == {} and sol.reuse is None
    cuts = [(frozenset({0, 1}), 1)]                     # the ILP's cluster cuts hold for any table
    sol.reuse = cuts
    assert take_reuse(sol, table) == {"reuse": cuts}
