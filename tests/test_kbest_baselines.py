"""The exact k-best methods agree with each other and with brute force.

Methods (``gobnilp_py.kbest(..., method=...)``): dynamic programming over the
subset lattice (``"dp"``), GOBNILP 1.6-style repeated solves with nogoods
(``"resolve"``) and the package's one-search ILP k-best (``"ilp"``).  The oracle scores
every DAG on n <= 5 nodes (``oracle_dags``) from an unpruned table, so it
shares no code with any of them.

Ties: the score sequences must agree entry by entry; the *sets* of networks
must agree whenever the k-th score is not tied with the (k+1)-th (when it is,
which tied networks make the cut is each method's choice).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py import ParameterError, ScoreError, ScoreTable, kbest, read_data, score
from gobnilp_py.search.subset_dp.engine import estimate_memory
from random_problems import random_data, random_table
from oracle_dags import all_dags_array

TOL = 1e-8


def kbest_dp(data_or_table, k, trace_memory=None, **kw):
    opts = {"trace_memory": trace_memory} if trace_memory else None
    return kbest(data_or_table, k, method="dp", engine_options=opts, **kw)


def kbest_resolve(data_or_table, k, **kw):
    return kbest(data_or_table, k, method="resolve", **kw)


def kbest_search(data_or_table, k, **kw):
    return kbest(data_or_table, k, method="ilp", **kw)


kbest_dp_table = kbest_dp
METHODS = {"dp": kbest_dp, "resolve": kbest_resolve, "search": kbest_search}
from datasets import dataset  # noqa: E402


# ----------------------------------------------------------------- oracles


def ranking(table: ScoreTable) -> list[tuple[tuple[tuple[int, ...], ...], float]]:
    """Every DAG the table allows with its score (math.fsum), in canonical order (score desc, key)."""
    n = table.n
    dags = all_dags_array(n)
    where = [{sum(1 << p for p in ps): sc for ps, sc in fams} for fams in table.families]
    out = []
    for row in dags:
        parts = []
        for v in range(n):
            sc = where[v].get(int(row[v]))
            if sc is None:
                break
            parts.append(sc)
        else:
            key = tuple(tuple(p for p in range(n) if row[v] >> p & 1) for v in range(n))
            out.append((key, math.fsum(parts)))
    out.sort(key=lambda t: (-t[1], t[0]))
    return out


def same(a: float, b: float) -> bool:
    return abs(a - b) <= TOL * max(1.0, abs(b))


def with_ties(truth, k: int):
    """The k best of ``truth`` and every network tied with the k-th (what ``kbest`` returns by default)."""
    if len(truth) <= k:
        return list(truth)
    kth = truth[k - 1][1]
    return [t for t in truth if t[1] >= kth - TOL * max(1.0, abs(kth))]


def check_against(cs, truth, k: int, ties: bool = True) -> None:
    """``cs`` holds the k best of ``truth`` (and every network tied with the k-th unless ``ties`` is off)."""
    want = with_ties(truth, k) if ties else truth[:k]
    assert cs.kind == "kbest" and cs.complete and cs.reason is None
    assert len(cs) == len(want), f"{len(cs)} networks, expected {len(want)}"
    got = [(net.key, net.score) for net in cs.networks]
    assert len({g[0] for g in got}) == len(got), "a network is listed twice"
    for (gk, gs), (wk, ws) in zip(got, want):
        assert same(gs, ws), f"score {gs} where brute force has {ws}"
    order = [(-s, key) for key, s in got]
    assert order == sorted(order), "not in canonical order (score desc, then key)"
    allowed = {key: s for key, s in truth}
    for key, s in got:  # every listed network exists with that score
        assert key in allowed and same(s, allowed[key])
    tied_at_cut = len(truth) > k and same(truth[k - 1][1], truth[k][1])
    if ties or not tied_at_cut:
        assert {g[0] for g in got} == {w[0] for w in want}
    if want:
        assert same(cs.opt, want[0][1]) and same(cs.epsilon, want[0][1] - want[-1][1])


def check_methods_agree(results: dict, k: int) -> None:
    names = list(results)
    base = results[names[0]]
    for name in names[1:]:
        other = results[name]
        assert len(other) == len(base), f"{name}: {len(other)} networks, {names[0]}: {len(base)}"
        for a, b in zip(base.networks, other.networks):
            assert same(a.score, b.score), f"{name} and {names[0]} disagree on scores"


# ------------------------------------------------------- random problems
@settings(max_examples=120, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(1, 5), st.integers(1, 60), st.booleans(), st.integers(0, 2**31 - 1))
def test_dp_equals_brute_force_on_random_tables(n, k, ties, seed):
    table = random_table(np.random.default_rng(seed), n, ties=ties, empty=True)
    check_against(kbest_dp(table, k), ranking(table), k)
    check_against(kbest_dp(table, k, ties=False), ranking(table), k, ties=False)


@settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 5), st.integers(15, 120), st.integers(1, 40), st.sampled_from(["BIC", "BDeu"]),
       st.booleans(), st.integers(0, 2**31 - 1))
def test_dp_equals_brute_force_from_data(n, n_rows, k, score_name, prune, seed):
    data = read_data(random_data(np.random.default_rng(seed), n, n_rows))
    truth = ranking(score(data, score=score_name, prune=False))
    check_against(kbest_dp(data, k, score=score_name, prune=prune), truth, k)


@settings(max_examples=20, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 5), st.integers(20, 100), st.integers(1, 12), st.sampled_from(["BIC", "BDeu"]),
       st.integers(0, 2**31 - 1))
def test_three_methods_agree_with_brute_force_from_data(n, n_rows, k, score_name, seed):
    data = read_data(random_data(np.random.default_rng(seed), n, n_rows))
    truth = ranking(score(data, score=score_name, prune=False))
    results = {name: fn(data, k, score=score_name) for name, fn in METHODS.items()}
    for cs in results.values():
        check_against(cs, truth, k)
    check_methods_agree(results, k)


@settings(max_examples=15, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 5), st.integers(1, 10), st.booleans(), st.integers(0, 2**31 - 1))
def test_three_methods_agree_with_brute_force_on_tables(n, k, ties, seed):
    table = random_table(np.random.default_rng(seed), n, ties=ties, empty=True)
    truth = ranking(table)
    results = {name: fn(table, k) for name, fn in METHODS.items()}
    for cs in results.values():
        check_against(cs, truth, k)
    check_methods_agree(results, k)


# -------------------------------------------------------------- edge cases
def test_k_larger_than_the_number_of_dags():
    rng = np.random.default_rng(5)
    table = random_table(rng, 3, ties=False, empty=True)
    truth = ranking(table)
    assert len(truth) <= 25
    for name, fn in METHODS.items():
        cs = fn(table, 100)
        assert len(cs) == len(truth), name
        check_against(cs, truth, 100)


def test_all_25_dags_on_three_nodes_from_an_unpruned_table():
    data = read_data(random_data(np.random.default_rng(11), 3, 50))
    table = score(data, prune=False)
    cs = kbest_dp(table, 1000)
    assert len(cs) == 25 and len({n.key for n in cs}) == 25


def test_ties_everywhere_give_canonical_order_and_deterministic_choice():
    # every family scores 0: all 25 DAGs on three nodes tie
    fams = [[((), 0.0), ((1,), 0.0), ((2,), 0.0), ((1, 2), 0.0)],
            [((), 0.0), ((0,), 0.0), ((2,), 0.0), ((0, 2), 0.0)],
            [((), 0.0), ((0,), 0.0), ((1,), 0.0), ((0, 1), 0.0)]]
    table = ScoreTable(["A", "B", "C"], fams)
    for name, fn in METHODS.items():
        assert len(fn(table, 7)) == 25, name  # every DAG ties with the 7th: all are returned
        a = fn(table, 7, ties=False)
        assert len(a) == 7 and all(net.score == 0.0 for net in a), name
        assert [n.key for n in a] == sorted(n.key for n in a), name
    a, b = kbest_dp(table, 7, ties=False), kbest_dp(table, 7, ties=False)
    assert [n.key for n in a] == [n.key for n in b]


def test_dp_result_is_deterministic_and_reports_memory_and_time():
    rng = np.random.default_rng(2)
    table = random_table(rng, 5, ties=True, empty=True)
    a, b = kbest_dp(table, 30), kbest_dp(table, 30)
    assert [n.key for n in a] == [n.key for n in b]
    for key in ("time_dp", "memory_estimate_bytes", "memory_arrays_bytes", "maxrss_bytes"):
        assert a.stats[key] > 0, key
    assert a.stats["memory_arrays_bytes"] <= a.stats["memory_estimate_bytes"]
    assert a.stats["memory_peak_bytes"] is None
    traced = kbest_dp(table, 30, trace_memory=True)
    assert traced.stats["memory_peak_bytes"] > 0
    assert [n.key for n in traced] == [n.key for n in a]


def test_resolve_reports_one_solve_per_network():
    table = random_table(np.random.default_rng(4), 3, ties=False, empty=True)
    cs = kbest_resolve(table, 5, ties=False)
    assert cs.stats["solves"] == 5 and len(cs.stats["time_solves"]) == 5
    cs = kbest_resolve(table, 40)  # at most 25 DAGs: the last solve proves infeasibility
    assert cs.stats["solves"] == len(cs) + 1


def test_dp_time_limit_gives_incomplete_result():
    table = random_table(np.random.default_rng(6), 5, ties=False, empty=True)
    big = ScoreTable([f"X{i}" for i in range(13)],
                     [[((), -1.0), (((v + 1) % 13,), -0.5)] for v in range(13)])
    cs = kbest_dp_table(big, 200, time_limit=1e-6)
    assert not cs.complete and cs.reason == "time_limit" and len(cs) == 0
    assert kbest_dp_table(table, 3, time_limit=60).complete


def test_resolve_time_limit_gives_incomplete_result():
    data = read_data(random_data(np.random.default_rng(9), 5, 200))
    cs = kbest_resolve(data, 10_000, time_limit=1.0)
    assert not cs.complete and cs.reason == "time_limit"
    assert 0 < len(cs) < 10_000


def test_dp_guards():
    table = random_table(np.random.default_rng(1), 3, ties=False, empty=True)
    with pytest.raises(ScoreError, match="memory budget"):
        kbest_dp(table, 10, memory_budget=1000)
    big = ScoreTable([f"X{i}" for i in range(25)], [[((), -1.0)] for _ in range(25)])
    with pytest.raises(ParameterError, match="at most 24 variables"):
        kbest_dp_table(big, 1)
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ParameterError, match="k must be an integer >= 1|k must be an integer"):
            kbest_dp(table, bad)
        with pytest.raises(ParameterError, match="k must be an integer >= 1|k must be an integer"):
            kbest_resolve(table, bad)
    with pytest.raises(ParameterError, match="need data"):
        kbest_dp(table, 3, score="BDeu")
    with pytest.raises(ParameterError, match="time_limit"):
        kbest_dp(table, 3, time_limit=0)
    assert estimate_memory(20, 10) < estimate_memory(20, 100) < estimate_memory(21, 100)


def test_methods_are_named_by_the_registry():
    table = random_table(np.random.default_rng(3), 3, ties=False, empty=True)
    assert len(kbest(table, 2, method="dp")) == 2
    with pytest.raises(ParameterError, match='method must be one of .* got "bogus"'):
        kbest(table, 2, method="bogus")
    with pytest.raises(ParameterError, match="method 'dp' cannot honour the structural constraint max_edges"):
        kbest(table, 2, method="dp", constraints={"max_edges": 1})
    assert kbest(table, 2).stats["method_reason"]


# ---------------------------------------------------------- real data (slow)
@pytest.mark.slow
def test_dp_and_search_agree_on_real_data():
    path = dataset("iris")
    data = read_data(path, header=False)
    results = {"dp": kbest_dp(data, 50, score="BDeu"), "search": kbest_search(data, 50, score="BDeu"),
               "resolve": kbest_resolve(data, 20, score="BDeu")}
    assert len(results["dp"]) == 50
    for a, b in zip(results["dp"].networks, results["search"].networks):
        assert same(a.score, b.score)
    for a, b in zip(results["dp"].networks, results["resolve"].networks):
        assert same(a.score, b.score)


@pytest.mark.slow
def test_resolve_nogoods_hold_through_restarts_on_wine_bdeu():
    """Regression: with SCIP's defaults (restarts, strong dual reductions) the 20th solve on wine
    (BDeu, ESS 1) returned the 10th network again.  The re-solve baseline now uses the collector's
    nogood-safe settings; its list must equal the DP's entry by entry."""
    path = dataset("wine")
    data = read_data(path, header=False)
    resolved = kbest_resolve(data, 25, score="BDeu", ess=1.0)
    dp = kbest_dp(data, 25, score="BDeu", ess=1.0)
    assert len(resolved) == len(dp) >= 25  # the 25th is tied with Markov-equivalent networks: all are listed
    assert {n.key for n in resolved} == {n.key for n in dp}
    for a, b in zip(resolved.networks, dp.networks):
        assert same(a.score, b.score)


@pytest.mark.slow
@pytest.mark.parametrize("name, opt, within_bf3, within_bf20", [
    ("tic-tac-toe", -9396.375858, 192, 192),
    ("wine", -1258.445909, 308, 3449),
])
def test_dp_reproduces_checked_counts_on_real_data(name, opt, within_bf3, within_bf20):
    """The shared data README lists OPT and exhaustively checked counts within BF 3 and 20 (BIC)."""
    path = dataset(name)
    k = within_bf3 + 1
    cs = kbest_dp(read_data(path, header=False), k, ties=False)
    assert abs(cs.opt - opt) < 1e-5 and len(cs) == k
    gaps = [cs.opt - net.score for net in cs]
    assert sum(g <= math.log(3) + 1e-9 for g in gaps) == within_bf3
    assert sum(g <= math.log(20) + 1e-9 for g in gaps) == min(k, within_bf20)


# ------------------------------------------------------------ compare entry point
def test_compare_cli_prints_the_table_without_matplotlib(capsys):
    from gobnilp_py.cli import main

    rc = main(["compare", "example:asia", "--k", "2", "--bf", "3", "--score", "BDeu", "--methods", "dp,ilp"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "| k | dp T | ilp T | networks | classes | gap of k-th |" in printed
    assert "| 2 |" in printed and "| 3 | 1.0986 |" in printed


def test_compare_cli_writes_table_json_and_plot(tmp_path, capsys):
    import json

    pytest.importorskip("matplotlib", reason="the Figure-2 plot needs matplotlib (pip install matplotlib)")
    from gobnilp_py.cli import main

    out = tmp_path / "cmp"
    rc = main(["compare", "example:asia", "--k", "3,8", "--bf", "3,20", "--score", "BDeu",
               "--time-limit", "120", "-o", str(out)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "| k | dp T | resolve T | ilp T | networks | classes | gap of k-th |" in printed
    written = (out / "compare.md").read_text()
    assert written.strip() == printed.strip() and "| 8 |" in written
    assert (out / "kbest_gap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((out / "compare.json").read_text())
    rows = [r for r in summary["kbest"] if r["method"] != "kbestec"]
    assert {(r["k"], r["method"]) for r in rows} == {(k, m) for k in (3, 8) for m in ("dp", "resolve", "ilp")}
    assert {r["k"] for r in summary["kbest"] if r["method"] == "kbestec"} == {3, 8}  # the KBestEC column
    for k in (3, 8):
        same_k = [r for r in rows if r["k"] == k]
        # every method lists the k best and every network tied with the k-th: the same number
        assert all(r["complete"] and r["networks"] >= k for r in same_k)
        assert len({r["networks"] for r in same_k}) == 1
        gaps = {round(r["kth_gap"], 9) for r in same_k}
        assert len(gaps) == 1, f"methods disagree on the gap of the {k}-th network: {gaps}"
    bf = {r["bf"]: r for r in summary["bayes_factor"]}
    assert bf[3.0]["networks"] <= bf[20.0]["networks"] and bf[3.0]["classes"] >= 1
    gap_list = summary["gaps"]
    assert len(gap_list) >= 8 and gap_list[0] == 0.0 and gap_list == sorted(gap_list)
    # the k-best list and the enumeration agree where they overlap
    within = sum(g <= math.log(3) + 1e-9 for g in gap_list)
    assert within == min(len(gap_list), bf[3.0]["networks"])


def test_compare_api_marks_methods_that_cannot_run(monkeypatch):
    import gobnilp_py.search.subset_dp as dp
    from gobnilp_py import example_path
    from gobnilp_py.compare import compare

    def refuse(*args, **kwargs):
        raise ScoreError("dynamic-programming k-best handles at most 24 variables; this table has 99")

    monkeypatch.setattr(dp, "kbest", refuse)
    cmp = compare(example_path("asia"), ks=[4], bayes_factors=[3], methods=["dp", "ilp"], score="BDeu")
    dp_row = cmp.kbest[cmp.kbest.method == "dp"].iloc[0]
    assert not dp_row.complete and dp_row.note.startswith("not run: dynamic-programming")
    assert "not run" in cmp.to_markdown()
    search_row = cmp.kbest[cmp.kbest.method == "ilp"].iloc[0]
    assert search_row.complete and search_row.networks >= 4  # 4 best and the networks tied with the 4th


def test_compare_bad_settings():
    from gobnilp_py import ParameterError, example_path
    from gobnilp_py.compare import compare

    for kw, msg in [({"ks": [0]}, "positive integer"), ({"bayes_factors": [0.5]}, "Bayes factor"),
                    ({"methods": ["nope"]}, "unknown k-best method"), ({"ks": []}, "at least one")]:
        with pytest.raises(ParameterError, match=msg):
            compare(example_path("asia"), **kw)
