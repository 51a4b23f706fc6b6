"""The wiring of methods, orders and scoring settings into the API, the config and the command line.

Checked here:

* **one vocabulary**: each bad value is refused by the API, a config file and
  the command line with the same words after the parameter's name (``method
  ...``, ``[search] method ...``, ``--method ...``), and each good value is
  accepted by all three (method names read from the registry, never a copy);
* **fixed-order learning through the drivers** (``learn(order=)``,
  ``enumerate_networks(order=)``), from data and from an ε-safe table, equals
  brute force over every DAG that follows the order (``oracle_dags``), and
  ``verify=True`` cross-checks it with the order given as tiers;
* **end to end**: ``gobnilp-py learn wine --method ordergraph``, ``--order``,
  ``enumerate --method ilp --by dag --verify``, a config run under an order;
  stdout, ``result.json`` and the report say which method ran and why;
* the Dask backend through the drivers (skipped without ``dask.distributed``).
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py import enumerate_networks, kbest, learn, read_data, score
from gobnilp_py.cli import main
from gobnilp_py.config import load_config
from gobnilp_py.data.dataset import Dataset
from gobnilp_py.errors import ConfigError, ParameterError, ScoreError
from gobnilp_py.solve.methods import method_names

from oracle_dags import all_dags
from random_problems import random_data

ROOT = Path(__file__).resolve().parent
GOOD = ROOT / "bad_inputs" / "good.csv"  # variables a..e, with a header
WINE = ROOT / "data" / "wine.csv"  # 14 variables, no header


def _tol(x: float) -> float:
    return 1e-9 * max(1.0, abs(x))


# ------------------------------------------------------------------ one vocabulary
def _api_problem(call) -> str:
    with pytest.raises(ParameterError) as exc:
        call()
    return exc.value.problem


def _config_problem(tmp_path: Path, body: str, label: str) -> str:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[data]\npath = "{GOOD}"\n' + body)
    with pytest.raises(ConfigError) as exc:
        cfg_obj = load_config(cfg)
        # Checks that need the data (the order's names) run before any work, as `gobnilp-py run` does.
        from gobnilp_py.output.job import _read, check_before_work

        check_before_work(cfg_obj, *_read(cfg_obj))
    text = str(exc.value)
    head = f"{cfg}: {label} "
    assert text.startswith(head), text
    return text[len(head):]


def _cli_problem(argv: list[str], flag: str, capsys) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 1 and len(lines) == 1 and out == "", (code, err, out)
    head = f"gobnilp-py: error: {flag} "
    assert lines[0].startswith(head), lines[0]
    return lines[0][len(head):]


G = str(GOOD)
#: (id, API call, config body, config label, CLI argv, CLI flag, words the message must contain)
PARITY = [
    ("method typo", lambda: enumerate_networks(G, bayes_factor=3, method="ilpp"),
     '[search]\nbayes_factor = 3\nmethod = "ilpp"\n', "[search] method",
     ["enumerate", G, "--bf", "3", "--method", "ilpp"], "--method", '(did you mean "ilp"?)'),
    ("method cannot enumerate", lambda: enumerate_networks(G, bayes_factor=3, method="dp"),
     '[search]\nbayes_factor = 3\nmethod = "dp"\n', "[search] method",
     ["enumerate", G, "--bf", "3", "--method", "dp"], "--method", "cannot compute every network within"),
    ("by typo", lambda: enumerate_networks(G, bayes_factor=3, by="klass"),
     '[search]\nbayes_factor = 3\nby = "klass"\n', "[search] by",
     ["enumerate", G, "--bf", "3", "--by", "klass"], "--by", '(did you mean "class"?)'),
    ("palim negative", lambda: learn(G, palim=-1), '[search]\njob = "learn"\n[scoring]\npalim = -1\n',
     "[scoring] palim", ["learn", G, "--palim", "-1"], "--palim", 'or "auto", got -1'),
    ("palim text", lambda: learn(G, palim="all"), '[search]\njob = "learn"\n[scoring]\npalim = "all"\n',
     "[scoring] palim", ["learn", G, "--palim", "all"], "--palim", 'got "all"'),
    ("score unknown", lambda: learn(G, score="K3"), '[search]\njob = "learn"\n[scoring]\nscore = "K3"\n',
     "[scoring] score", ["learn", G, "--score", "K3"], "--score", '"bge", got "K3"'),
    ("backend typo", lambda: learn(G, backend="daks"), '[search]\njob = "learn"\n[scoring]\nbackend = "daks"\n',
     "[scoring] backend", ["learn", G, "--backend", "daks"], "--backend", '(did you mean "dask"?)'),
    ("n_jobs zero", lambda: learn(G, n_jobs=0), '[search]\njob = "learn"\n[scoring]\nn_jobs = 0\n',
     "[scoring] n_jobs", ["learn", G, "--n-jobs", "0"], "--n-jobs", "got 0"),
    ("memory_limit zero", lambda: learn(G, memory_limit=0), '[search]\njob = "learn"\n[scoring]\nmemory_limit = 0\n',
     "[scoring] memory_limit", ["learn", G, "--memory-limit", "0"], "--memory-limit", "got 0"),
    ("lower_bound text", lambda: learn(G, lower_bound="high"),
     '[search]\njob = "learn"\n[scoring]\nlower_bound = "high"\n', "[scoring] lower_bound",
     ["learn", G, "--lower-bound", "high"], "--lower-bound", 'got "high"'),
    ("order unknown", lambda: learn(G, order=["a", "b", "c", "d", "zz"]),
     '[search]\njob = "learn"\norder = ["a", "b", "c", "d", "zz"]\n', "[search] order",
     ["learn", G, "--order", "a,b,c,d,zz"], "--order", 'unknown variable "zz"'),
    ("order duplicate", lambda: enumerate_networks(G, bayes_factor=3, order=["a", "b", "c", "d", "d"]),
     '[search]\nbayes_factor = 3\norder = ["a", "b", "c", "d", "d"]\n', "[search] order",
     ["enumerate", G, "--bf", "3", "--order", "a,b,c,d,d"], "--order", 'lists variable "d" twice'),
    ("order missing", lambda: learn(G, order=["a", "b", "c"]),
     '[search]\njob = "learn"\norder = ["a", "b", "c"]\n', "[search] order",
     ["learn", G, "--order", "a,b,c"], "--order", 'missing: "d", "e"'),
]


@pytest.mark.parametrize("case", PARITY, ids=[c[0] for c in PARITY])
def test_api_config_and_cli_refuse_with_the_same_words(case, tmp_path, capsys):
    _id, api, body, label, argv, flag, words = case
    a = _api_problem(api)
    c = _config_problem(tmp_path, body, label)
    k = _cli_problem(argv, flag, capsys)
    assert a == c == k, (a, c, k)
    assert words in a, a


@pytest.mark.parametrize("job,task", [("learn", "optimum"), ("enumerate", "epsilon_set"), ("kbest", "kbest")])
def test_every_registry_method_is_accepted_everywhere(job, task, tmp_path):
    """The config and the CLI take exactly the registry's names for the task (so a new method needs no edit here)."""
    import argparse

    from gobnilp_py.solve.methods import check_method_name as check_method
    from gobnilp_py.cli._options import add_method_options, method_kwargs

    extra = {"learn": "", "enumerate": "bayes_factor = 3\n", "kbest": "k = 2\n"}[job]
    for name in method_names(task):
        assert check_method(name, "method", task) == name
        cfg = tmp_path / f"{job}_{name}.toml"
        cfg.write_text(f'[data]\npath = "{GOOD}"\n[search]\njob = "{job}"\nmethod = "{name}"\n{extra}')
        assert load_config(cfg).search_kwargs()["method"] == name
        p = argparse.ArgumentParser()
        add_method_options(p, job)
        assert method_kwargs(p.parse_args(["--method", name]), job)["method"] == name
    for name in set(method_names()) - set(method_names(task)):
        with pytest.raises(ParameterError, match="cannot compute"):
            check_method(name, "method", task)


def test_good_scoring_values_are_accepted_and_normalised_alike(tmp_path):
    from gobnilp_py.solve.inputs import check_scoring_options

    api = check_scoring_options({"palim": "AUTO", "backend": "serial", "score": "bic-d", "lower_bound": "auto",
                                 "memory_limit": 10**9})
    assert api == {"palim": "auto", "backend": "processes", "n_jobs": 1, "score": "BIC", "lower_bound": "auto",
                   "memory_limit": 10**9}
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[data]\npath = "{GOOD}"\n[search]\nbayes_factor = 3\n[scoring]\npalim = "AUTO"\n'
                   'backend = "serial"\nscore = "bic-d"\nlower_bound = "auto"\nmemory_limit = 1000000000\n')
    kw = load_config(cfg).scoring_kwargs()
    assert check_scoring_options(kw) == {**api, "ess": 1.0, "prune": True}  # the config fills in its defaults
    # the same run from the three doors gives the same table
    ds = read_data(GOOD)
    t_api = score(ds, **{k: v for k, v in api.items()}, bayes_factor=3)
    t_cfg = score(ds, **check_scoring_options(kw), bayes_factor=3)
    assert t_api.families == t_cfg.families and t_api.meta["palim"] == "auto"


# ---------------------------------------------------------- fixed order vs brute force
@lru_cache(maxsize=None)
def _dags(n: int):
    return list(all_dags(n))


def _brute(table_full, order: list[int], eps: float):
    """OPT under the order and the ε-set under the order, by brute force over every DAG (unpruned table)."""
    n = table_full.n
    look = [dict(table_full.families[v]) for v in range(n)]
    pos = {v: i for i, v in enumerate(order)}
    scored = []
    for dag in _dags(n):
        if all(pos[p] < pos[v] for v in range(n) for p in dag[v]):
            scored.append((math.fsum(look[v][dag[v]] for v in range(n)), dag))
    opt = max(s for s, _ in scored)
    return opt, {dag for s, dag in scored if s >= opt - eps - _tol(opt)}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5), rows=st.integers(15, 90),
       kind=st.sampled_from(["BIC", "BDeu"]), eps=st.floats(0.0, 3.0))
def test_fixed_order_through_the_drivers_equals_brute_force(seed, n, rows, kind, eps):
    rng = np.random.default_rng(seed)
    codes = random_data(rng, n, rows)
    names = tuple(f"x{i}" for i in range(n))
    ds = Dataset(names, np.array([max(2, int(codes[:, j].max()) + 1) for j in range(n)]), codes)
    order = [int(i) for i in rng.permutation(n)]
    order_names = [names[i] for i in order]
    full = score(ds, score=kind, prune=False, n_jobs=1)
    opt, members = _brute(full, order, eps)
    # from data: Tian's branch and bound per node
    net = learn(ds, score=kind, order=order_names)
    assert net.status == "optimal" and abs(net.score - opt) <= _tol(opt)
    assert net.stats["method"] == "fixed_order" and "order" in net.caveats[0]
    cs = enumerate_networks(ds, epsilon=eps, score=kind, order=order_names)
    assert cs.complete and abs(cs.opt - opt) <= _tol(opt)
    assert {m.key for m in cs.networks} == members
    assert len(cs.networks) == len(members)  # each once
    # from an ε-safe table (subset rules only: safe under any order)
    table = score(ds, score=kind, epsilon=eps, n_jobs=1)
    assert abs(learn(table, order=order_names).score - opt) <= _tol(opt)
    cs_t = enumerate_networks(table, epsilon=eps, order=order)  # column indices, as the API allows
    assert {m.key for m in cs_t.networks} == members


def test_verify_under_an_order_uses_the_order_as_tiers():
    ds = read_data(WINE, header=False)
    order = [str(i) for i in reversed(range(ds.n))]
    net = learn(ds, order=order, verify=True)
    assert "tiers" in net.stats["verified_by"]
    cs = enumerate_networks(ds, bayes_factor=3, order=order, verify=True)
    assert cs.complete and "tiers" in cs.stats["verified_by"] and len(cs) >= 1
    tiers = {"tiers": [[v] for v in order]}
    assert abs(learn(ds, constraints=tiers, method="ilp").score - net.score) <= _tol(net.score)


def test_a_table_needs_the_gap_and_no_global_gap_pruning_under_an_order():
    ds = read_data(WINE, header=False)
    order = [str(i) for i in range(ds.n)]
    small = score(ds, bayes_factor=3)
    with pytest.raises(ScoreError, match="pruned for epsilon=1.09861.*within epsilon=2.99573"):
        enumerate_networks(small, bayes_factor=20, order=order)
    pruned = score(ds, bayes_factor=3, lower_bound="auto")
    removed = sum(r.get("global_gap", 0) for r in pruned.pruning.values())
    if removed:
        with pytest.raises(ScoreError, match="global gap rule"):
            learn(pruned, order=order)
    else:  # nothing removed by the rule: the table is as safe as without it
        assert learn(pruned, order=order).status == "optimal"
    # With data the order route never builds a table, so lower_bound is refused outright.
    with pytest.raises(ParameterError, match="lower_bound"):
        learn(ds, order=order, lower_bound="auto")


# ---------------------------------------------------------------------- end to end
def test_cli_learn_method_ordergraph_names_the_method(capsys):
    code = main(["learn", str(WINE), "--no-header", "--method", "ordergraph", "--json"])
    out, _ = capsys.readouterr()
    d = json.loads(out)
    assert code == 0 and d["method"] == "ordergraph" and d["method_reason"] == "chosen by the caller"
    ilp = learn(read_data(WINE, header=False), method="ilp")
    assert abs(d["score"] - ilp.score) <= _tol(ilp.score)
    code = main(["learn", str(WINE), "--no-header", "--method", "ordergraph"])
    out, _ = capsys.readouterr()
    assert code == 0 and "# method: ordergraph (chosen by the caller)" in out.splitlines()[:3]


def test_cli_learn_under_an_order(capsys):
    order = ",".join(str(i) for i in reversed(range(14)))
    code = main(["learn", str(WINE), "--no-header", "--order", order, "--verify", "--json"])
    out, _ = capsys.readouterr()
    d = json.loads(out)
    assert code == 0 and d["method"] == "fixed_order" and "tiers" in d["verified_by"]
    assert any("under the variable order 13 < 12" in c for c in d["caveats"])
    pos = {str(v): i for i, v in enumerate(reversed(range(14)))}
    assert all(pos[p] < pos[c] for c, ps in d["parents"].items() for p in ps)
    api = learn(read_data(WINE, header=False), order=order.split(","))
    assert d["score"] == api.score


@pytest.mark.slow
def test_cli_enumerate_ilp_by_dag_verify(capsys):
    code = main(["enumerate", str(WINE), "--no-header", "--bf", "3", "--method", "ilp", "--by", "dag", "--verify",
                 "--json"])
    out, _ = capsys.readouterr()
    d = json.loads(out)
    assert code == 0 and d["method"] == "ilp" and d["stats"]["by"] == "dag" and d["complete"]
    assert d["stats"]["verified_by"] in method_names("epsilon_set")
    other = enumerate_networks(read_data(WINE, header=False), bayes_factor=3, method="ordergraph")
    assert d["n_networks"] == len(other) and abs(d["opt"] - other.opt) <= _tol(other.opt)
    code = main(["enumerate", str(WINE), "--no-header", "--bf", "3", "--method", "ilp", "--by", "dag", "--verify"])
    out, _ = capsys.readouterr()
    assert code == 0 and re.search(r"^# method: ilp \(chosen by the caller\); verified by \w+$", out, re.M)


def test_cli_kbest_method_by_and_ties(capsys):
    code = main(["kbest", str(WINE), "--no-header", "-k", "3", "--method", "dp", "--by", "dag", "--no-ties",
                 "--json"])
    out, _ = capsys.readouterr()
    d = json.loads(out)
    assert code == 0 and d["method"] == "dp" and d["n_networks"] == 3 and d["stats"]["ties"] is False
    ref = kbest(read_data(WINE, header=False), 3, method="ordergraph", ties=False)
    assert [n["score"] for n in d["networks"]] == pytest.approx([n.score for n in ref.networks], rel=1e-12)


def test_config_run_under_an_order_writes_the_method_everywhere(tmp_path, capsys):
    order = [str(i) for i in reversed(range(14))]
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[data]\npath = "{WINE}"\nheader = false\n[search]\njob = "enumerate"\nbayes_factor = 3\n'
                   f"order = {json.dumps(order)}\nverify = true\n[scoring]\npalim = 3\n[output]\n"
                   'dir = "out"\nwrite = ["json", "csv", "report"]\n')
    code = main(["run", str(cfg), "-q"])
    out, _ = capsys.readouterr()
    assert code == 0 and "# method: fixed_order" in out
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    assert res["result"]["method"] == "fixed_order" and "tiers" in res["result"]["stats"]["verified_by"]
    assert res["config"]["search"]["order"] == order
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| method | fixed_order |" in report and "| verified by |" in report
    api = enumerate_networks(read_data(WINE, header=False), bayes_factor=3, order=order, palim=3)
    assert res["result"]["n_networks"] == len(api)


def test_config_method_reaches_the_driver(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[data]\npath = "{WINE}"\nheader = false\n[search]\njob = "learn"\nmethod = "ordergraph"\n'
                   "verify = true\n")
    code = main(["run", str(cfg)])
    out, _ = capsys.readouterr()
    assert code == 0 and "# method: ordergraph (chosen by the caller); verified by dp" in out
    code = main(["run", str(cfg), "--method", "ilp", "--set", "search.verify=false"])
    out, _ = capsys.readouterr()
    assert code == 0 and "# method: ilp (chosen by the caller)" in out


# -------------------------------------------------------------------------- Dask
@pytest.mark.slow
def test_dask_backend_through_the_driver_equals_serial(tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (extra 'dask')")
    import dask

    ds = read_data(WINE, header=False)
    serial = enumerate_networks(ds, bayes_factor=3, backend="serial", method="ordergraph")
    # dask's scratch folder (it outlives the cluster) in this test's folder, not the session's temporary one
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                     dashboard_address=None) as cluster:
        on_dask = enumerate_networks(ds, bayes_factor=3, backend="dask", scheduler=cluster.scheduler_address,
                                     method="ordergraph")
    assert [n.key for n in on_dask.networks] == [n.key for n in serial.networks]
    assert [n.score for n in on_dask.networks] == [n.score for n in serial.networks]
