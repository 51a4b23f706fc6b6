"""Tests of the Network value object (gobnilp_py/network.py)."""

from __future__ import annotations

import json
import logging
import math
import re

import networkx as nx
import numpy as np
import pytest

from gobnilp_py.errors import CycleError, GobnilpError
from gobnilp_py.network import Network, find_cycle

NAMES = ("A", "B", "C", "D")


def asia_like() -> Network:
    # D has no parents and is isolated; C's parents given out of order on purpose.
    return Network(NAMES, {"C": ("B", "A"), "B": ("A",)}, score=-6.0,
                   local_scores={"A": -1.0, "B": -2.0, "C": -2.5, "D": -0.5}, stats={"time": 0.1})


# ------------------------------------------------------------------ construction
def test_parents_are_canonical_and_complete():
    net = asia_like()
    assert net.parents == {"A": (), "B": ("A",), "C": ("A", "B"), "D": ()}
    assert list(net.parents) == list(NAMES)
    assert net.n == 4


def test_canonical_order_follows_names_not_alphabet():
    net = Network(("Z", "Y", "X"), {"X": ("Y", "Z")}, 0.0)
    assert net.parents["X"] == ("Z", "Y")
    assert net.to_modelstring() == "[Z][Y][X|Z:Y]"
    assert net.key == ((), (), (0, 1))


@pytest.mark.parametrize("parents, fragment", [
    ({"A": ("B",), "B": ("A",)}, "cycle A->B->A"),
    ({"A": ("C",), "B": ("A",), "C": ("B",)}, "cycle"),
    ({"A": ("A",)}, "own parent"),
    ({"Q": ("A",)}, "unknown variable 'Q'"),
    ({"A": ("Q",)}, "unknown parent 'Q'"),
    ({"B": ("A", "A")}, "listed twice"),
])
def test_invalid_parents_rejected(parents, fragment):
    with pytest.raises(GobnilpError, match=re.escape(fragment)):
        Network(NAMES, parents, 0.0)


def test_duplicate_names_rejected():
    with pytest.raises(GobnilpError, match="'A' twice"):
        Network(("A", "B", "A"), {}, 0.0)


def test_lone_string_parent_is_one_parent():
    assert Network(("A", "B"), {"B": "A"}, 0.0).parents["B"] == ("A",)


def test_find_cycle():
    assert find_cycle(["a", "b", "c"], {"b": ["a"], "c": ["b"]}) is None
    cyc = find_cycle(["a", "b", "c"], {"b": ["a"], "c": ["b"], "a": ["c"]})
    assert cyc[0] == cyc[-1] and set(cyc) == {"a", "b", "c"} and len(cyc) == 4
    # arrow direction: each consecutive pair is parent -> child
    parents = {"b": ["a"], "c": ["b"], "a": ["c"]}
    assert all(u in parents[v] for u, v in zip(cyc, cyc[1:]))


def test_find_cycle_deep_chain_no_recursion_limit():
    n = 5000
    names = [f"v{i}" for i in range(n)]
    parents = {names[i]: [names[i - 1]] for i in range(1, n)}
    assert find_cycle(names, parents) is None
    parents[names[0]] = [names[-1]]
    assert len(find_cycle(names, parents)) == n + 1


def test_is_acyclic_rechecks_after_mutation():
    net = asia_like()
    assert net.is_acyclic()
    net.parents["A"] = ("C",)
    assert not net.is_acyclic()


def test_score_and_local_scores_mismatch_is_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="gobnilp_py.network"):
        Network(("A", "B"), {}, -1.0, local_scores={"A": -1.0, "B": -1.0})
    assert "differs from the sum" in caplog.text


def test_unknown_local_score_name_rejected():
    with pytest.raises(GobnilpError, match="'Q'"):
        Network(("A",), {}, 0.0, local_scores={"Q": 1.0})


# ---------------------------------------------------------------------- structure
def test_edges_and_counts():
    net = asia_like()
    assert net.edges == [("A", "B"), ("A", "C"), ("B", "C")]
    assert net.n_edges == 3
    assert net.has_edge("A", "C") and not net.has_edge("C", "A")
    assert net.adjacent("C", "A") and not net.adjacent("A", "D")


def test_key_dedups_and_sorts_deterministically():
    a = Network(("A", "B"), {"B": ("A",)}, -1.0)
    a2 = Network(("A", "B"), {"B": ["A"]}, -1.0, status="time_limit")
    b = Network(("A", "B"), {"A": ("B",)}, -1.0)
    c = Network(("A", "B"), {}, -1.0)
    assert a.key == ((), (0,)) and b.key == ((1,), ())
    assert len({a, a2, b, c}) == 3
    assert [n.key for n in sorted([b, a, c], key=lambda n: n.key)] == [((), ()), ((), (0,)), ((1,), ())]


# ------------------------------------------------------------------ equality, status
def test_equality_structure_and_score():
    a = asia_like()
    same = Network(NAMES, {"B": ("A",), "C": ("A", "B")}, -6.0 + 1e-12, status="feasible")
    assert a == same and hash(a) == hash(same)
    assert a != Network(NAMES, {"B": ("A",), "C": ("A", "B")}, -6.5)
    assert a != Network(NAMES, {"B": ("A",)}, -6.0)
    assert a != "not a network"
    inf1 = Network(("A",), {}, float("-inf"), status="infeasible")
    inf2 = Network(("A",), {}, float("-inf"), status="infeasible")
    assert inf1 == inf2


def test_status_helpers():
    assert asia_like().is_optimal and asia_like().is_exact
    for status in ("feasible", "time_limit", "infeasible"):
        net = Network(("A",), {}, 0.0, status=status)
        assert not net.is_optimal and not net.is_exact


# ------------------------------------------------------------------------ exports
def test_to_networkx_has_all_nodes():
    g = asia_like().to_networkx()
    assert isinstance(g, nx.DiGraph)
    assert list(g.nodes) == list(NAMES)
    assert sorted(g.edges) == [("A", "B"), ("A", "C"), ("B", "C")]
    assert nx.is_directed_acyclic_graph(g)
    assert g.graph["score"] == -6.0


def test_modelstring():
    assert asia_like().to_modelstring() == "[A][B|A][C|A:B][D]"
    assert Network(("x",), {}, 0.0).to_modelstring() == "[x]"


def _parse_dot(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Tiny reader for the subset of DOT that to_dot writes (quoted IDs)."""
    qid = r'"((?:[^"\\]|\\.)*)"'
    unq = lambda s: s.replace('\\"', '"').replace("\\\\", "\\")  # noqa: E731
    lines = text.strip().splitlines()
    assert re.fullmatch(r"digraph " + qid + r" \{", lines[0]) and lines[-1] == "}"
    nodes, edges = [], []
    for ln in lines[1:-1]:
        if m := re.fullmatch(r"\s*" + qid + r"\s*->\s*" + qid + r";", ln):
            edges.append((unq(m.group(1)), unq(m.group(2))))
        elif m := re.fullmatch(r"\s*" + qid + r";", ln):
            nodes.append(unq(m.group(1)))
        else:
            raise AssertionError(f"unexpected DOT line {ln!r}")
    return nodes, edges


def test_dot_structure_and_quoting():
    names = ("A", 'we"ird', "with space", "back\\slash", "x->y")
    net = Network(names, {'we"ird': ("A",), "with space": ('we"ird', "x->y"), "back\\slash": ()}, 0.0)
    nodes, edges = _parse_dot(net.to_dot())
    assert nodes == list(names)
    assert edges == net.edges


def test_dot_parses_with_pydot_if_available():
    pytest.importorskip("pydot", reason="pydot not installed; DOT structure checked by test_dot_structure_and_quoting")
    g = nx.nx_pydot.from_pydot(__import__("pydot").graph_from_dot_data(asia_like().to_dot())[0])
    assert sorted(e[:2] for e in g.edges) == [('"A"', '"B"'), ('"A"', '"C"'), ('"B"', '"C"')] or \
        sorted(e[:2] for e in g.edges) == [("A", "B"), ("A", "C"), ("B", "C")]


def test_gobnilp_text():
    text = asia_like().to_gobnilp_text()
    assert text.splitlines() == [
        "A<- -1.000000",
        "B<-A, -2.000000",
        "C<-A,B, -2.500000",
        "D<- -0.500000",
        "BN score is -6.000000",
    ]
    full = asia_like().to_gobnilp_text(digits=None)
    assert full.splitlines()[-1] == "BN score is -6.0"


def test_gobnilp_text_without_local_scores():
    text = Network(("A", "B"), {"B": ("A",)}, -3.25).to_gobnilp_text(digits=2)
    assert text == "A<-\nB<-A,\nBN score is -3.25\n"


def test_dict_json_round_trip():
    net = asia_like()
    net.stats.update({"nodes": np.int64(7), "gap": np.float64(0.0), "tags": {"b", "a"}, "obj": object()})
    d = json.loads(json.dumps(net.to_dict(), allow_nan=False))
    assert d["parents"] == {"A": [], "B": ["A"], "C": ["A", "B"], "D": []}
    assert d["edges"] == [["A", "B"], ["A", "C"], ["B", "C"]]
    assert d["score"] == -6.0 and d["status"] == "optimal" and d["dual_bound"] is None
    assert d["stats"]["nodes"] == 7 and d["stats"]["tags"] == ["a", "b"]
    back = Network.from_dict(d)
    assert back == net and back.key == net.key
    assert back.local_scores == net.local_scores and back.status == net.status


def test_dict_round_trip_non_finite_scores():
    net = Network(("A", "B"), {}, float("-inf"), status="infeasible", dual_bound=float("inf"))
    d = json.loads(json.dumps(net.to_dict(), allow_nan=False))
    # one JSON convention: non-finite floats are null (strict JSON); status says what a null score means
    assert d["score"] is None and d["dual_bound"] is None and d["guarantee"].startswith("INFEASIBLE")
    back = Network.from_dict(d)
    assert back.score == float("-inf") and back.dual_bound is None and back.status == "infeasible"
    old = Network.from_dict({"names": ["A"], "score": "-inf", "status": "infeasible"})  # files of earlier versions
    assert old.score == float("-inf")
    nan = Network.from_dict(Network(("A",), {}, float("nan")).to_dict())
    assert math.isnan(nan.score)


def test_from_dict_errors():
    with pytest.raises(GobnilpError, match="names"):
        Network.from_dict({"parents": {}})
    with pytest.raises(GobnilpError, match="cycle"):
        Network.from_dict({"names": ["A", "B"], "parents": {"A": ["B"], "B": ["A"]}, "score": 0})


def test_from_edges():
    net = Network.from_edges(NAMES, [("B", "C"), ("A", "C"), ("A", "B")], score=-1.0)
    assert net == Network(NAMES, {"B": ("A",), "C": ("A", "B")}, -1.0)
    assert "[C|A:B]" in repr(net)


# ------------------------------------------------------- errors and guarantees
def test_network_errors_are_value_errors_with_a_cycle_leaf():
    from gobnilp_py.errors import CycleError, NetworkError

    with pytest.raises(CycleError, match="cycle A->B->A") as info:
        Network(("A", "B"), {"A": ("B",), "B": ("A",)}, 0.0)
    assert isinstance(info.value, NetworkError) and isinstance(info.value, ValueError)
    for bad in ({}, {"names": ["A"]}, {"score": 1.0}, [], "x", {"names": ["A"], "score": 0, "parents": ["A"]}):
        with pytest.raises(NetworkError):
            Network.from_dict(bad)
    with pytest.raises(NetworkError, match="its own parent"):
        Network(("A",), {"A": ("A",)}, 0.0)


@pytest.mark.parametrize("status, dual, start", [
    ("optimal", None, "complete: proven optimal"),
    ("time_limit", -0.5, "INCOMPLETE (time_limit): the best network found before the search stopped; the optimum is at most -0.500000"),
    ("gap_limit", -0.9, "INCOMPLETE (gap_limit)"),
    ("interrupted", None, "INCOMPLETE (interrupted): the best network found"),
    ("feasible", None, "INCOMPLETE (feasible)"),
])
def test_guarantee_says_what_the_network_is_worth(status, dual, start):
    net = Network(("A", "B"), {"B": ("A",)}, -1.0, status=status, dual_bound=dual)
    assert net.guarantee.startswith(start)
    assert net.complete is (status == "optimal") and net.approximate is False
    d = json.loads(json.dumps(net.to_dict(), allow_nan=False))
    assert d["guarantee"] == net.guarantee and d["complete"] is net.complete


def test_guarantee_of_infeasible_approximate_and_caveats():
    inf = Network(("A",), {}, float("-inf"), status="infeasible")
    assert inf.guarantee == "INFEASIBLE: no network satisfies the constraints and the score table" and inf.complete  # a whole answer
    none = Network(("A",), {}, float("-inf"), status="no_solution")
    assert none.guarantee == "INCOMPLETE (no_solution): no network found before the search stopped"
    approx = Network(("A", "B"), {"B": ("A",)}, -1.0, status="feasible", approximate=True)
    assert approx.guarantee.startswith("APPROXIMATE:")
    cav = Network(("A",), {}, -1.0, caveats=("the score table's pruning is unknown",))
    assert cav.guarantee.startswith("complete:") and cav.complete
    assert cav.notes == [cav.guarantee, "the score table's pruning is unknown"]
    back = Network.from_dict(json.loads(json.dumps(cav.to_dict())))
    assert back.caveats == cav.caveats and Network.from_dict(approx.to_dict()).approximate


@pytest.mark.parametrize("name, fmt", [("a:b", "modelstring"), ("a|b", "modelstring"), ("a[1]", "modelstring"),
                                       ("x<-y", "gobnilp"), ("p,q", "gobnilp"), ("two words", "gobnilp")])
def test_names_a_format_cannot_hold_are_refused_there(name, fmt):
    from gobnilp_py.errors import NetworkError

    net = Network((name, "B"), {"B": (name,)}, -1.0)
    writer = net.to_modelstring if fmt == "modelstring" else net.to_gobnilp_text
    with pytest.raises(NetworkError, match="use as a separator; rename the variable"):
        writer()
    other = net.to_gobnilp_text if fmt == "modelstring" else net.to_modelstring
    if not any(ch in name for ch in "[]|: ,") and "<-" not in name:
        other()
    assert name in repr(net)  # repr never fails: it falls back to the arrows
    assert net.to_dot().count(name) >= 2  # DOT quotes every identifier


def test_a_network_built_from_table_parts_fills_its_dicts_on_first_use():
    """``_from_table_parts`` defers ``parents`` / ``local_scores``; every view must see the same network."""
    import copy
    import pickle

    names = ("A", "B", "C")
    lazy = Network._from_table_parts(names, {v: i for i, v in enumerate(names)}, [(), (0,), (0, 1)],
                                     [-1.0, -2.0, -3.5], "optimal")
    eager = Network(names, {"B": ("A",), "C": ("A", "B")}, -6.5, local_scores={"A": -1.0, "B": -2.0, "C": -3.5})
    for view in (pickle.loads(pickle.dumps(lazy)), copy.deepcopy(lazy), lazy):
        assert view == eager and view.key == eager.key
        assert view.parents == eager.parents and view.local_scores == eager.local_scores
        assert view.to_modelstring() == "[A][B|A][C|A:B]"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        lazy.nothing
    with pytest.raises(CycleError):
        Network._from_table_parts(names, {v: i for i, v in enumerate(names)}, [(2,), (0,), (1,)], [0.0] * 3, "optimal")
