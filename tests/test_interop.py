"""Hand-off: CPTs from counts, BIF, pgmpy, bnlearn arc strengths, adjacency matrices, and loading saved results."""

from __future__ import annotations

import io
import itertools
import json
import logging
import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from gobnilp_py import Network, enumerate_networks, learn, read_data
from gobnilp_py.data import Dataset
from gobnilp_py.errors import ConfigError, DataError, GobnilpError
from gobnilp_py.examples import example_path
from gobnilp_py.interop import (adjacency_csv, adjacency_matrix, arc_strength, arc_strength_csv, fit_cpts, to_bif,
                                to_pgmpy)
from gobnilp_py.output.load import classes_to_json, load_result, result_from_dict
from gobnilp_py.output.writers import collection_summary, to_json
from gobnilp_py.solve.credible import CredibleSet

try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgmpy  # noqa: F401
    HAVE_PGMPY = True
except ImportError:  # pragma: no cover - pgmpy is an optional extra
    HAVE_PGMPY = False
needs_pgmpy = pytest.mark.skipif(not HAVE_PGMPY, reason="pgmpy is not installed (optional extra gobnilp-py[pgmpy])")


@pytest.fixture(scope="module")
def asia():
    return read_data(example_path("asia"))


@pytest.fixture(scope="module")
def best(asia):
    return learn(asia, score="BDeu")


def tiny() -> Dataset:
    """a (3 states, one never seen), b (2), c (2): hand-countable."""
    codes = np.array([[0, 0, 1], [0, 1, 1], [1, 1, 0], [1, 1, 1], [0, 0, 0], [1, 0, 1]])
    return Dataset(("a", "b", "c"), np.array([3, 2, 2]), codes,
                   labels=(("lo", "mid", "hi"), ("no", "yes"), ("0", "1")))


# ----------------------------------------------------------------------------- CPTs from counts
def test_cpts_by_hand():
    ds = tiny()
    net = Network(ds.names, {"c": ("a", "b")}, score=0.0)
    cpts = fit_cpts(net, ds, estimator="mle")
    c = cpts["c"]
    assert c.parents == ("a", "b") and c.states == ("0", "1")
    assert c.configurations() == [(x, y) for x in ("lo", "mid", "hi") for y in ("no", "yes")]
    # (a, b) = (lo, no): c = 1, 0 -> 1/2 each; (lo, yes): c=1; (mid, no): c=1; (mid, yes): c=0,1; (hi, *): unseen
    np.testing.assert_array_equal(c.counts, [[1, 1], [0, 1], [0, 1], [1, 1], [0, 0], [0, 0]])
    np.testing.assert_allclose(c.table, [[.5, .5], [0, 1], [0, 1], [.5, .5], [.5, .5], [.5, .5]])
    np.testing.assert_allclose(cpts["a"].table, [[0.5, 0.5, 0.0]])  # the unseen state keeps its place
    bdeu = fit_cpts(net, ds, prior="BDeu", ess=6.0)["c"]  # alpha = 6 / (2 * 6) = 0.5 per cell
    np.testing.assert_allclose(bdeu.table[0], [(1 + .5) / 3, (1 + .5) / 3])
    np.testing.assert_allclose(bdeu.table[4], [.5, .5])
    k2 = fit_cpts(net, ds, prior="K2")["c"]
    np.testing.assert_allclose(k2.table[1], [1 / 3, 2 / 3])
    dirichlet = fit_cpts(net, ds, prior="dirichlet", pseudo_count=0.25)["a"]
    np.testing.assert_allclose(dirichlet.table, [[3.25 / 6.75, 3.25 / 6.75, 0.25 / 6.75]])
    for cpt in fit_cpts(net, ds).values():
        np.testing.assert_allclose(cpt.table.sum(axis=1), 1.0)


def test_cpts_for_a_network_on_a_subset_of_the_columns(asia):
    net = Network(("lung", "xray", "either"), {"either": ("lung",), "xray": ("either",)}, score=0.0)
    cpts = fit_cpts(net, asia, estimator="mle")
    lung = asia.codes[:, asia.names.index("lung")]
    assert cpts["lung"].table[0, 1] == pytest.approx(lung.mean())


def test_bad_parameters_and_missing_columns(asia, best):
    with pytest.raises(ConfigError, match="The 'estimator' parameter of fit_cpts must be one of 'bayes', 'mle'. "
                                          "Got 'map' instead."):
        fit_cpts(best, asia, estimator="map")
    with pytest.raises(ConfigError, match="'prior' parameter"):
        to_bif(best, asia, prior="uniform")
    with pytest.raises(ConfigError, match="'ess' parameter of to_pgmpy must be a positive number"):
        to_pgmpy(best, asia, ess=0)
    with pytest.raises(DataError, match="no column for variable.*'z'"):
        fit_cpts(Network(("asia", "z"), {}, 0.0), asia)


# ----------------------------------------------------------------------------- BIF and pgmpy
def _cpd_dict(cpd) -> dict:
    """A pgmpy CPD as {(state, ((parent, state), ...)): p}, independent of the evidence order."""
    sn = cpd.state_names
    var, ev = cpd.variable, cpd.variables[1:]
    vals = cpd.get_values()
    out = {}
    for j, cfg in enumerate(itertools.product(*[sn[e] for e in ev])):
        for k, s in enumerate(sn[var]):
            out[(s, tuple(sorted(zip(ev, cfg))))] = float(vals[k, j])
    return out


def _read_bif(text: str):
    from pgmpy.readwrite import BIFReader

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BIFReader(string=text).get_model()


@needs_pgmpy
@pytest.mark.parametrize("kw", [{}, {"estimator": "mle"}, {"prior": "K2"}, {"prior": "dirichlet", "pseudo_count": 0.5},
                                {"ess": 10.0}])
def test_round_trip_best_network_pgmpy_bif_pgmpy(asia, best, kw):
    """best network -> pgmpy model (pgmpy's estimators) -> our BIF -> pgmpy's BIFReader: same structure and CPTs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = to_pgmpy(best, asia, **kw)
    assert set(model.nodes()) == set(best.names) and set(model.edges()) == set(best.edges)
    back = _read_bif(to_bif(best, asia, **kw))
    assert set(back.nodes()) == set(best.names) and set(back.edges()) == set(best.edges)
    for v in best.names:
        a, b = _cpd_dict(model.get_cpds(v)), _cpd_dict(back.get_cpds(v))
        assert a.keys() == b.keys()
        assert max(abs(a[k] - b[k]) for k in a) <= 1e-9, v


@needs_pgmpy
def test_round_trip_with_unseen_states_isolated_nodes_and_awkward_names(caplog):
    ds = tiny()
    ds = Dataset(("a x", "b", "c"), ds.arities, ds.codes, labels=(("lo", "mid (1)", "hi"), ("no", "yes"), ("0", "1")))
    net = Network(ds.names, {"c": ("a x",)}, score=0.0)  # b isolated, a has an unseen state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = to_pgmpy(net, ds)
    with caplog.at_level(logging.WARNING):
        text = to_bif(net, ds)
    assert "'a x' -> 'a_x'" in caplog.text and "'mid (1)' -> 'mid__1_'" in caplog.text
    back = _read_bif(text)
    assert set(back.nodes()) == {"a_x", "b", "c"} and set(back.edges()) == {("a_x", "c")}
    got = _cpd_dict(back.get_cpds("c"))
    want = {(s, tuple((p.replace(" ", "_"), st.replace(" ", "_").replace("(", "_").replace(")", "_"))
                      for p, st in cfg)): x for (s, cfg), x in _cpd_dict(model.get_cpds("c")).items()}
    assert got.keys() == want.keys() and max(abs(got[k] - want[k]) for k in got) <= 1e-9
    assert len(back.get_cpds("a_x").state_names["a_x"]) == 3  # declared arity kept


def test_to_pgmpy_without_pgmpy_is_one_line(monkeypatch, asia, best):
    monkeypatch.setitem(sys.modules, "pgmpy", None)
    with pytest.raises(GobnilpError, match=r"^to_pgmpy needs pgmpy: pip install 'gobnilp-py\[pgmpy\]'"):
        to_pgmpy(best, asia)


def test_bif_is_complete_without_pgmpy(asia, best, monkeypatch):
    monkeypatch.setitem(sys.modules, "pgmpy", None)
    text = to_bif(best, asia)
    assert text.count("variable ") == asia.n and text.count("probability (") == asia.n
    for v in best.names:
        rows = 2 ** len(best.parents[v])
        block = text.split(f"probability ( {v}")[1].split("}")[0]
        assert block.count(";") == rows  # every parent configuration, one line each


# ----------------------------------------------------------------------------- arc strengths and adjacency
@pytest.fixture(scope="module")
def coll(asia):
    small = read_data(asia.codes[:300, :5], names=list(asia.names[:5]))
    return enumerate_networks(small, bayes_factor=10, score="BDeu", by="dag")


def test_arc_strength_against_the_networks(coll):
    df = arc_strength(coll)
    n = len(coll.best.names)
    assert list(df.columns) == ["from", "to", "strength", "direction"] and len(df) == n * (n - 1)
    w = np.array([math.exp(x.score - coll.opt) for x in coll.networks])
    w /= w.sum()
    for row in df.itertuples(index=False):
        u, v = row[0], row[1]
        adj = sum(wi for wi, x in zip(w, coll.networks) if x.adjacent(u, v))
        arrow = sum(wi for wi, x in zip(w, coll.networks) if x.has_edge(u, v))
        assert row.strength == pytest.approx(adj, abs=1e-12)
        assert row.direction == pytest.approx(arrow / adj if adj > 0 else 0.0, abs=1e-9)
    pairs = df.set_index(["from", "to"])
    for row in df.itertuples(index=False):
        other = pairs.loc[(row[1], row[0])]
        assert other.strength == row.strength
        if row.strength > 0:
            assert other.direction + row.direction == pytest.approx(1.0)
    back = pd.read_csv(io.StringIO(arc_strength_csv(coll)))
    np.testing.assert_allclose(back["strength"], df["strength"], rtol=0, atol=1e-14)


def test_arc_strength_of_a_single_network_and_of_nothing(best):
    df = arc_strength(best)
    assert set(map(tuple, df[df.strength == 1][["from", "to"]].values)) >= set(best.edges)
    assert df[df.strength == 1].direction.isin([0.0, 1.0]).all()
    with pytest.raises(DataError, match="no network"):
        arc_strength(CredibleSet(math.nan, 1.0, True, None, []))
    with pytest.raises(DataError, match="expected a CredibleSet or a Network"):
        arc_strength("x")


def test_adjacency_matrix_and_csv(best):
    m = adjacency_matrix(best)
    assert m.values.sum() == best.n_edges and all(m.loc[p, c] == 1 for p, c in best.edges)
    back = pd.read_csv(io.StringIO(adjacency_csv(best)), index_col=0)
    assert list(back.columns) == list(best.names) and list(back.index) == list(best.names)
    assert (back.values == m.values).all()


# ----------------------------------------------------------------------------- loading saved results
def _same_set(a: CredibleSet, b: CredibleSet) -> None:
    assert [n.key for n in a] == [n.key for n in b] and [n.score for n in a] == [n.score for n in b]
    assert [n.names for n in a] == [n.names for n in b]
    for attr in ("opt", "epsilon", "complete", "reason", "kind", "guarantee", "approximate", "infeasible",
                 "n_networks_total", "averages_over"):
        x, y = getattr(a, attr), getattr(b, attr)
        assert x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)), attr
    np.testing.assert_allclose(a.edge_probabilities().to_numpy(), b.edge_probabilities().to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(a.arrow_probabilities().to_numpy(), b.arrow_probabilities().to_numpy(), rtol=1e-12)


def _result_json(cs: CredibleSet, names, with_classes: bool) -> dict:
    d = cs.to_dict()
    if with_classes:
        d["classes"] = classes_to_json(cs.classes)
    else:  # as written before CredibleSet.to_dict carried the class summaries
        d.pop("classes", None)
    return json.loads(to_json({"job": "enumerate", "result": d, "inputs": {"names": list(names)},
                               **collection_summary(cs)}))


def test_run_result_json_loads_back(tmp_path, asia):
    from gobnilp_py.output.job import run

    small = tmp_path / "small.csv"
    small.write_text(",".join(asia.names[:5]) + "\n" + "\n".join(",".join(map(str, r)) for r in asia.codes[:300, :5]))
    cfg = tmp_path / "e.toml"
    cfg.write_text(f'[data]\npath = "{small}"\n[scoring]\nscore = "BDeu"\n[search]\njob = "enumerate"\n'
                   'bayes_factor = 10\n[output]\nwrite = ["json"]\n')
    res = run(cfg, output_dir=tmp_path / "out")
    loaded = load_result(tmp_path / "out")  # the folder: its result.json
    _same_set(res.result, loaded)
    assert loaded.caveats == res.result.caveats
    learned = tmp_path / "l.toml"
    learned.write_text(cfg.read_text().replace('job = "enumerate"', 'job = "learn"'))
    res = run(learned, output_dir=tmp_path / "out2")
    net = load_result(tmp_path / "out2" / "result.json")
    assert net == res.result and net.status == res.result.status


def test_class_level_capped_set_round_trips_with_its_class_summaries(asia):
    small = read_data(asia.codes[:400, :6], names=list(asia.names[:6]))
    full = enumerate_networks(small, bayes_factor=8, score="BDeu", method="ilp")
    cut = enumerate_networks(small, bayes_factor=8, score="BDeu", max_networks=len(full) // 3, method="ilp")
    assert cut.averages_over == "all credible networks" and not cut.complete
    loaded = result_from_dict(_result_json(cut, small.names, with_classes=True))
    _same_set(cut, loaded)
    assert loaded.caveats == cut.caveats
    assert [(c.score, c.n_members, c.listed, c.cpdag) for c in loaded.classes] == \
        [(c.score, c.n_members, c.listed, c.cpdag) for c in cut.classes]
    # Without the class summaries the exact averages cannot be rebuilt: the loaded set says so.
    lossy = result_from_dict(_result_json(cut, small.names, with_classes=False))
    assert [n.key for n in lossy] == [n.key for n in cut]
    assert lossy.averages_over == "the listed networks" and any("class summaries" in c for c in lossy.caveats)
    # A complete set needs no summaries: every credible network is listed, the summaries follow from them.
    plain = result_from_dict(_result_json(full, small.names, with_classes=False))
    assert full.averages_over == "all credible networks"
    _same_set(full, plain)
    assert plain.caveats == full.caveats


def test_kbest_and_incomplete_labels_round_trip(asia):
    from gobnilp_py import kbest

    small = read_data(asia.codes[:300, :5], names=list(asia.names[:5]))
    k = kbest(small, 7, score="BIC")
    _same_set(k, result_from_dict(json.loads(to_json(k.to_dict()))))
    nets = [Network(("a", "b"), {"b": ("a",)}, -1.0), Network(("a", "b"), {}, -2.5)]
    stopped = CredibleSet(-1.0, 2.0, False, "time_limit", nets, threshold=-1.5, caveats=["a caveat"])
    back = result_from_dict(json.loads(to_json(stopped.to_dict())))
    assert back.guarantee == stopped.guarantee and back.caveats == ["a caveat"]
    assert [n.status for n in back] == ["optimal", "feasible"]
    infeasible = CredibleSet(math.nan, 1.0, True, None, [], infeasible=True)
    back = result_from_dict(json.loads(to_json(infeasible.to_dict())))
    assert back.infeasible and math.isnan(back.opt) and back.guarantee == infeasible.guarantee


def test_loading_bad_files_is_one_line(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        load_result(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DataError, match="bad.json: not JSON"):
        load_result(bad)
    bad.write_text(json.dumps({"job": "score", "result": {}}))
    with pytest.raises(DataError, match="score job's result"):
        load_result(bad)
    bad.write_text(json.dumps([1, 2]))
    with pytest.raises(DataError, match="expected a JSON object"):
        load_result(bad)
    nets = [Network(("a", "b"), {"b": ("a",)}, -1.0)]
    d = json.loads(to_json(CredibleSet(-1.0, 1.0, True, None, nets).to_dict()))
    d["guarantee"] = "complete: something else"
    with pytest.raises(DataError, match="differs from the one its fields give"):
        result_from_dict(d)
    d = json.loads(to_json(CredibleSet(-1.0, 1.0, True, None, nets).to_dict()))
    d["networks"][0]["parents"] = {"a": ["b"], "b": ["a"]}
    with pytest.raises(DataError, match=r"networks\[0\]: .*cycle"):
        result_from_dict(d)
    d = json.loads(to_json(CredibleSet(-1.0, 1.0, True, None, nets).to_dict()))
    d["n_networks"] = 5
    with pytest.raises(DataError, match="says 5 networks but lists 1"):
        result_from_dict(d)
