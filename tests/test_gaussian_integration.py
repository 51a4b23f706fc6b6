"""The Gaussian scores through every interface (issue 40, integration): ``gobnilp_py.score`` and the
drivers by name, the config file and the command line, the time limit, the outputs.

Exactness: the table ``score(..., "bic-g")`` builds is ``gaussian_score_table``'s, family for family
(the same computation, so equality is exact), and what the drivers return from data is checked
against brute force over all 29,281 DAGs of 5 variables on an unpruned table (the oracle of
``tests/gaussian_helpers.py``), to the engines' tolerance 1e-9 relative.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gobnilp_py as gp
from gobnilp_py import Budget, enumerate_networks, kbest, learn
from gobnilp_py.cli import main
from gobnilp_py.data.continuous import as_continuous
from gobnilp_py.errors import ConfigError, DataError, GobnilpError, ParameterError, ScoreError
from gobnilp_py.examples.gaussian import random_linear_gaussian
from gobnilp_py.scoring.gaussian import gaussian_score_table
from gaussian_helpers import brute_force_set, collected, correlated_data, dag_scores

NAMES = ("bic-g", "aic-g", "bge")


def _frame(n: int = 5, rows: int = 300, seed: int = 21) -> pd.DataFrame:
    return random_linear_gaussian(n, seed=seed, mean_parents=1.5).frame(rows, seed=2)


def _same_table(a, b) -> None:  # type: ignore[no-untyped-def]
    assert a.names == b.names and a.score_name == b.score_name
    assert a.families == b.families
    assert a.meta["score_params"] == b.meta["score_params"] and a.meta["data_kind"] == "continuous"


# ---------------------------------------------------------------- score() by name


@pytest.mark.parametrize("name", ["bic-g", "AIC-G", "BGe", " Bge "])
def test_score_by_name_is_the_gaussian_table(name, tmp_path):
    x = _frame(6, 400)
    direct = gaussian_score_table(x, score=name.strip(), bayes_factor=20)
    _same_table(gp.score(x, score=name, bayes_factor=20), direct)
    _same_table(gp.score(x.to_numpy(), score=name, bayes_factor=20, names=list(x.columns)), direct)
    path = tmp_path / "x.csv"
    x.to_csv(path, index=False)
    from_file = gp.score(str(path), score=name, bayes_factor=20)
    assert from_file.names == direct.names and len(from_file) == len(direct)
    for (ps, s), (qs, t) in zip((f for fams in from_file.families for f in fams),
                                (f for fams in direct.families for f in fams)):
        assert ps == qs and abs(s - t) <= 1e-9 * abs(t)      # the file's decimal text rounds the floats
    x.to_csv(tmp_path / "y.tsv", index=False, header=False, sep="\t")
    no_header = gp.score(str(tmp_path / "y.tsv"), score=name, bayes_factor=20, header=False, delimiter="\t")
    assert no_header.names == tuple(str(j) for j in range(6)) and len(no_header) == len(direct)


def test_bge_hyperparameters_reach_the_table():
    x = _frame()
    t = gp.score(x, score="bge", alpha_mu=2.5, alpha_w=9.0, nu=[0.0] * 5, bayes_factor=3)
    _same_table(t, gaussian_score_table(x, score="bge", alpha_mu=2.5, alpha_w=9.0, nu=[0.0] * 5, bayes_factor=3))
    assert t.meta["score_params"]["alpha_mu"] == 2.5 and t.meta["score_params"]["alpha_w"] == 9.0


def test_the_registry_knows_the_gaussian_names():
    from gobnilp_py.scoring.local_scores import all_score_names, check_score_name, is_gaussian_score

    assert [check_score_name(s) for s in ("BIC-G", "aic-g", "bge", "BGE")] == ["BIC-G", "AIC-G", "BGe", "BGe"]
    assert set(NAMES) <= set(all_score_names()) and is_gaussian_score("Bic-G") and not is_gaussian_score("bic")
    with pytest.raises(ParameterError, match='"bic-g", "aic-g", "bge", got "bic-x"'):
        check_score_name("bic-x")


# ---------------------------------------------------------------- the drivers from data, against brute force


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [21, 5])
def test_drivers_from_data_equal_brute_force(name, seed):
    x = _frame(5, 200, seed)
    full = gaussian_score_table(x, score=name, prune=False)
    dags, scores = dag_scores(full)
    ranked = np.sort(scores)[::-1]
    tol = 1e-9 * abs(ranked[0])
    best = learn(x, score=name)
    assert best.status == "optimal" and abs(best.score - ranked[0]) <= tol
    for method in ("dp", "ordergraph", "ilp"):
        assert abs(learn(x, score=name, method=method).score - ranked[0]) <= tol
    eps = 3.0
    expected = brute_force_set(full, eps)
    for by in ("dag", "class"):
        cs = enumerate_networks(x, score=name, epsilon=eps, by=by)
        got = collected(cs)
        assert cs.complete and set(got) == set(expected)
        assert all(abs(got[k] - s) <= 1e-9 * abs(s) for k, s in expected.items())
    top = kbest(x, 6, score=name)
    got = [nw.score for nw in top.networks]
    assert top.complete and len(got) >= 6
    assert all(abs(a - b) <= 1e-9 * abs(b) for a, b in zip(got, ranked[: len(got)]))


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.integers(8, 300), eps=st.floats(0.0, 8.0), name=st.sampled_from(NAMES),
       hyper=st.sampled_from([None, (0.5, 0.5), (3.0, 6.0)]), seed=st.integers(0, 2**31 - 1),
       by=st.sampled_from(["class", "dag"]))
def test_epsilon_set_from_data_equals_brute_force_on_four_variables(rows, eps, name, hyper, seed, by):
    """Random data (scales and offsets drawn too), gap, score, BGe prior and collection kind: the ε-set
    ``enumerate_networks`` builds from the data by name equals brute force over all 543 DAGs."""
    rng = np.random.default_rng(seed)
    x = correlated_data(rng, 4, rows, density=float(rng.uniform(0.2, 0.9)), scale=bool(seed % 2))
    kw = {} if name != "bge" or hyper is None else {"alpha_mu": hyper[0], "alpha_w": 5.0 + hyper[1]}
    expected = brute_force_set(gaussian_score_table(x, score=name, prune=False, **kw), eps)
    cs = enumerate_networks(x, score=name, epsilon=eps, by=by, **kw)
    got = collected(cs)
    assert cs.complete and set(got) == set(expected)
    assert all(abs(got[k] - s) <= 1e-9 * max(1.0, abs(s)) for k, s in expected.items())


@pytest.mark.parametrize("name", NAMES)
def test_global_gap_rule_on_a_gaussian_table_keeps_the_epsilon_set(name):
    """``lower_bound`` (given, or "auto") prunes a Gaussian table by the global gap rule, which holds
    for any decomposable score; the ε-set from the smaller table is still the brute-force one."""
    x = _frame(5, 200, 5)
    full = gaussian_score_table(x, score=name, prune=False)
    eps = 2.0
    expected = brute_force_set(full, eps)
    opt = max(expected.values())
    plain = gp.score(x, score=name, epsilon=eps)
    for lb in (opt, "auto"):
        t = gp.score(x, score=name, epsilon=eps, lower_bound=lb)
        assert len(t) <= len(plain) and "global_gap" in t.meta["rules"] and t.meta["lower_bound"] <= opt + 1e-9
        got = collected(enumerate_networks(t, epsilon=eps))
        assert set(got) == set(expected)


# ---------------------------------------------------------------- bad inputs: one line each


@pytest.mark.parametrize("call, words", [
    (lambda x: gp.score(x, score="bic-g", ess=2), 'ess is the equivalent sample size'),
    (lambda x: learn(x, score="bge", ess=1.0), 'ess is the equivalent sample size'),
    (lambda x: enumerate_networks(x, score="aic-g", bayes_factor=3, max_candidates=10), "max_candidates caps"),
    (lambda x: kbest(x, 3, score="bge", n_jobs=0), "n_jobs must be an integer >= 1"),
    (lambda x: gp.score(x, score="bge", backend="dask"), 'backend="dask" needs scheduler='),
    (lambda x: gp.score(x, score="bge", scheduler="tcp://h:1"), 'scheduler= is only used with backend="dask"'),
    (lambda x: gp.score(x, score="bic-g", alpha_mu=2.0), 'alpha_mu is a hyperparameter of the Gaussian score "bge"'),
    (lambda x: gp.score(x, score="bge", arities=[2] * 5), "arities declares discrete states"),
    (lambda x: gp.score(x, score="bge", alpha_w=5.0), r"alpha_w must be > n \+ 1 = 6 for 5 variables"),
    (lambda x: gp.score(x, score="bge", nu=[1.0, 2.0]), "nu must give 5 numbers"),
    (lambda x: gp.score(gp.read_data(x.round().astype(int)), score="bge"), "read as discrete states"),
    (lambda x: learn(x, score="bic-g", method="asobs"), "'bic-g' is a Gaussian score, and approximate methods"),
    (lambda x: learn(x, score="bic-g", order=list(x.columns)), "the fixed-order search from data counts"),
    (lambda x: gp.score(x.assign(X1=np.arange(len(x))), score="bic-g"), r"'X1' \(int64\) are not floating point"),
    (lambda x: gp.posterior(x, score="bge", ess=2), "ess is the equivalent sample size of the discrete Dirichlet"),
    (lambda x: gp.score(as_continuous(x), score="BDeu"), "continuous data .measurements. need a Gaussian score"),
])
def test_bad_gaussian_inputs_are_one_line(call, words):
    x = _frame()
    with pytest.raises(GobnilpError, match=words) as info:
        call(x)
    assert "\n" not in str(info.value)


def test_discrete_options_with_discrete_data_still_work():
    """The conflict rule refuses nothing a discrete score takes (ess with BDeu; the default score)."""
    ds = gp.read_data(gp.example_path("asia"))
    assert gp.score(ds, score="BDeu", ess=2.0).score_name == "BDeu"
    with pytest.raises(ScoreError, match='alpha_mu is a hyperparameter of the Gaussian score "bge" only, not of '
                                         'score "BIC"'):
        gp.score(ds, alpha_mu=1.0)


# ---------------------------------------------------------------- the time limit and the memory limit


class _RunsOutAfter(Budget):
    """A budget whose clock runs out after ``calls`` looks (a deterministic stand-in for a slow machine)."""

    __slots__ = ("calls",)

    def __init__(self, calls: int) -> None:
        super().__init__(1e6)
        self.calls = calls

    def expired(self) -> bool:
        self.calls -= 1
        return self.calls < 0


def test_time_limit_truncates_the_gaussian_walk_between_children():
    x = _frame(6, 300)
    full = gaussian_score_table(x, score="bic-g", bayes_factor=3)
    cut = gp.score(x, score="bic-g", bayes_factor=3, time_limit=_RunsOutAfter(2))
    assert cut.families[:2] == full.families[:2]                       # the children walked keep everything
    assert all(fams == [((), fams[0][1])] for fams in cut.families[2:])  # the others the empty set only
    assert all(abs(cut.families[v][0][1] - full.local_score(cut.names[v], ())) <= 1e-12 * abs(cut.families[v][0][1])
               for v in range(2, 6))
    assert cut.incomplete == {"reason": "time_limit", "stopped_at_size": 1, "children_walked": 2,
                              "truncated": {v: 0 for v in cut.names[2:]}}
    assert cut.guarantee.startswith("INCOMPLETE (time_limit)") and cut.safe_epsilon is None
    gone = gp.score(x, score="bic-g", time_limit=Budget(1.0, start=time.perf_counter() - 5))
    assert gone.incomplete["children_walked"] == 0 and len(gone) == 6


def test_time_limit_labels_driver_results_incomplete():
    x = _frame(6, 300)
    cs = enumerate_networks(x, score="bge", bayes_factor=3, time_limit=_RunsOutAfter(3))
    assert cs.guarantee.startswith("INCOMPLETE (time_limit)") and not cs.complete
    assert any(c.startswith("scoring stopped by the time limit") for c in cs.caveats)
    # learn leaves SEARCH_SHARE (a tenth) of its limit to the search: a budget 95 s into 100 s has scoring's
    # share spent (every child keeps the empty set) and 5 s for the search of that table
    net = learn(x, score="bic-g", time_limit=Budget(100.0, start=time.perf_counter() - 95.0))
    assert net.status == "time_limit" and net.stats["scoring_stopped"] == "time_limit"
    assert net.parents == {v: () for v in net.names}
    assert any(c.startswith("scoring stopped by the time limit") for c in net.caveats)


def test_memory_limit_is_kept_by_the_gaussian_walk():
    x = random_linear_gaussian(14, seed=3, mean_parents=2.0).frame(500, seed=1)
    with pytest.raises(ScoreError, match="need more than the memory limit of 4,096 bytes") as info:
        gp.score(x, score="bic-g", memory_limit=4096, prune=False)
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------- outputs: pgmpy, BIF, provenance


def test_to_pgmpy_gives_a_linear_gaussian_network_fitted_by_least_squares():
    pytest.importorskip("pgmpy")
    from pgmpy.models import LinearGaussianBayesianNetwork

    x = _frame(6, 500)
    best = learn(x, score="bic-g")
    assert best.stats["data_kind"] == "continuous" and best.stats["score"] == "BIC-G"
    model = best.to_pgmpy(x)
    assert isinstance(model, LinearGaussianBayesianNetwork) and set(model.nodes()) == set(best.names)
    for v in best.names:
        ps = list(best.parents[v])
        cpd = model.get_cpds(v)
        design = np.column_stack([np.ones(len(x))] + [x[p].to_numpy() for p in ps])
        coef, rss, *_ = np.linalg.lstsq(design, x[v].to_numpy(), rcond=None)
        assert list(cpd.evidence) == ps
        assert np.allclose(cpd.beta, coef, rtol=1e-8, atol=1e-10)      # intercept first, then the parents
        resid = x[v].to_numpy() - design @ coef
        assert abs(cpd.std - np.sqrt(resid @ resid / (len(x) - len(ps) - 1))) <= 1e-8 * cpd.std
    cs = enumerate_networks(x, score="bge", bayes_factor=3)
    assert isinstance(cs.best.to_pgmpy(x), LinearGaussianBayesianNetwork)
    with pytest.raises(DataError, match="ess set"):
        best.to_pgmpy(x, ess=2.0)


def test_bif_is_refused_for_a_gaussian_result():
    x = _frame()
    best = learn(x, score="bge")
    with pytest.raises(DataError, match="BIF holds discrete probability tables only") as info:
        best.to_bif(x)
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------- config file and command line


def _csv(tmp_path: Path, header: bool = True) -> Path:
    p = tmp_path / ("g.csv" if header else "g_nohdr.csv")
    _frame(5, 300).to_csv(p, index=False, header=header)
    return p


def _config(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "c.toml"
    p.write_text(body)
    return p


def test_config_runs_a_gaussian_job_and_says_so(tmp_path, capsys):
    data = _csv(tmp_path)
    cfg = _config(tmp_path, f'[data]\npath = "{data}"\n[scoring]\nscore = "BGe"\nalpha_mu = 2.0\n'
                            f'[search]\njob = "enumerate"\nbayes_factor = 20\n[output]\ndir = "{tmp_path / "out"}"\n'
                            'write = ["all"]\n')
    assert main(["run", str(cfg)]) == 0
    capsys.readouterr()
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    assert res["inputs"]["data_kind"] == "continuous"
    assert res["inputs"]["score"].startswith("BGe, alpha_mu = 2.0, alpha_w = 7.0, nu = sample mean")
    assert "ess" not in res["config"]["scoring"] and res["config"]["scoring"]["alpha_mu"] == 2.0
    assert not (tmp_path / "out" / "best.bif").exists()               # "all" leaves BIF out for continuous data
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| data_kind | continuous |" in report and "alpha_w = 7.0" in report
    api = enumerate_networks(pd.read_csv(data), score="bge", alpha_mu=2.0, bayes_factor=20)
    assert res["result"]["n_networks"] == len(api) and abs(res["result"]["opt"] - api.opt) <= 1e-9 * abs(api.opt)


@pytest.mark.parametrize("body, words", [
    ('[scoring]\nscore = "bic-g"\ness = 2\n', '[scoring] ess is the equivalent sample size of the discrete '
                                              'Dirichlet scores (BDeu, BDs); [scoring] score "BIC-G" is a Gaussian'),
    ('[scoring]\nscore = "bdeu"\nalpha_w = 9\n', '[scoring] alpha_w is a hyperparameter of the Gaussian score '
                                                 '"bge" only, not of [scoring] score "BDeu"'),
    ('[scoring]\nscore = "bge"\nalpha_w = 5\n', "[scoring] alpha_w must be > n + 1 = 6 for 5 variables"),
    ('[scoring]\nscore = "bge"\nnu = [1, 2]\n', "[scoring] nu must give 5 numbers"),
    ('[scoring]\nscore = "bge"\nnu = "x"\n', "[scoring] nu must be a list of finite numbers"),
    ('[scoring]\nscore = "bge"\nalpha_mu = 0\n', "[scoring] alpha_mu must be a number > 0"),
    ('[data]\narities = [2, 2, 2, 2, 2]\n[scoring]\nscore = "bge"\n', "[data] arities declares discrete states"),
    ('[scoring]\nscore = "aic-g"\n[output]\nwrite = ["bif"]\n', '[output] write asks for "bif" with [scoring] '
                                                                 'score = "AIC-G": BIF holds discrete'),
    ('[scoring]\nscore = "bic-g"\n[search]\norder = ["X1", "X2", "X3", "X4", "X5"]\n',
     '[search] order does not apply with [scoring] score = "BIC-G"'),
])
def test_config_refuses_in_one_line_naming_the_key(tmp_path, capsys, body, words):
    data = _csv(tmp_path)
    head = f'[data]\npath = "{data}"\n' if not body.startswith("[data]") else body.replace("[data]\n", f'[data]\npath = "{data}"\n', 1)
    text = head + (body if not body.startswith("[data]") else "")
    if "[search]" not in text:
        text += '[search]\njob = "learn"\n'
    else:
        text = text.replace("[search]\n", '[search]\njob = "learn"\n', 1)
    if "[output]" in text:
        text = text.replace("[output]\n", f'[output]\ndir = "{tmp_path / "out"}"\n', 1)
    cfg = _config(tmp_path, text)
    assert main(["run", str(cfg)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"gobnilp-py: error: {cfg}: "), err
    assert words in err[0], err[0]
    assert not (tmp_path / "out").exists()


def test_cli_commands_take_a_gaussian_score(tmp_path, capsys):
    data, bare = _csv(tmp_path), _csv(tmp_path, header=False)
    x = pd.read_csv(data)
    opt = learn(x, score="bic-g").score
    assert main(["learn", str(data), "--score", "bic-g", "--json"]) == 0
    assert abs(json.loads(capsys.readouterr().out)["score"] - opt) <= 1e-9 * abs(opt)
    assert main(["learn", str(bare), "--score", "BIC-G", "--no-header", "--json"]) == 0
    assert abs(json.loads(capsys.readouterr().out)["score"] - opt) <= 1e-9 * abs(opt)
    bge = enumerate_networks(x, score="bge", alpha_mu=3.0, alpha_w=8.0, bayes_factor=20)
    assert main(["enumerate", str(data), "--score", "bge", "--alpha-mu", "3", "--alpha-w", "8", "--bf", "20",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_networks"] == len(bge) and abs(out["opt"] - bge.opt) <= 1e-9 * abs(bge.opt)
    top = kbest(x, 4, score="aic-g")
    assert main(["kbest", str(data), "-k", "4", "--score", "aic-g", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [round(n["score"], 6) for n in out["networks"]] == [round(n.score, 6) for n in top.networks]
    jkl = tmp_path / "t.jkl"
    assert main(["score", str(data), "--score", "bge", "--nu", "0,0,0,0,0", "--bf", "3", "-o", str(jkl)]) == 0
    capsys.readouterr()
    back = gp.ScoreTable.from_jkl(jkl)
    ref = gaussian_score_table(x, score="bge", nu=[0.0] * 5, bayes_factor=3)
    assert back.names == ref.names and back.score_name == "BGe"
    assert back.meta["data_kind"] == "continuous" and back.meta["score_params"]["nu"] == [0.0] * 5
    from_table = learn(str(jkl))                        # the .jkl keeps the provenance: the result is continuous
    assert from_table.stats["data_kind"] == "continuous" and from_table.stats["score"] == "BGe"
    assert {(f.child, f.parents): f.score for f in back} == pytest.approx(
        {(f.child, f.parents): f.score for f in ref}, rel=1e-12)


@pytest.mark.parametrize("argv, words", [
    (["learn", "{d}", "--score", "bic-g", "--ess", "2"], '--ess is the equivalent sample size of the discrete '
                                                         'Dirichlet scores (BDeu, BDs); --score "BIC-G" is a Gaussian'),
    (["learn", "{d}", "--score", "bdeu", "--alpha-mu", "2"], '--alpha-mu is a hyperparameter of the Gaussian score '
                                                             '"bge" only, not of --score "BDeu"'),
    (["learn", "{d}", "--score", "bge", "--nu", "1,x"], '--nu must be comma-separated numbers, got "1,x"'),
    (["learn", "{d}", "--score", "bge", "--nu", "1,2"], "--nu must give 5 numbers"),
    (["learn", "{d}", "--score", "bge", "--alpha-w", "5"], "--alpha-w must be > n + 1 = 6 for 5 variables"),
    (["learn", "{d}", "--score", "bge", "--alpha-mu", "0"], "--alpha-mu must be a number > 0"),
    (["learn", "{d}", "--score", "bge", "--arities", "2,2,2,2,2"], "--arities declares discrete states"),
    (["enumerate", "{d}", "--score", "bge", "--bf", "3", "--backend", "dask"], '--backend "dask" needs --scheduler'),
    (["compare", "{d}", "--score", "bic-g"], "--score bic-g: compare runs approximate methods"),
    (["learn", "{d}", "--score", "bic-g", "--method", "asobs"], "is a Gaussian score, and approximate methods"),
])
def test_cli_refuses_in_one_line_naming_the_flag(tmp_path, capsys, argv, words):
    data = _csv(tmp_path)
    code = main([a.format(d=data) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and err[0].startswith("gobnilp-py: error: "), (code, err)
    assert words in err[0], err[0]


def test_cli_write_all_leaves_bif_out_and_write_bif_is_refused(tmp_path, capsys):
    data = _csv(tmp_path)
    out = tmp_path / "out"
    assert main(["enumerate", str(data), "--score", "bge", "--alpha-mu", "2", "--bf", "3", "-o", str(out),
                 "--write", "all", "-q"]) == 0
    capsys.readouterr()
    assert (out / "result.json").exists() and not (out / "best.bif").exists()
    res = json.loads((out / "result.json").read_text())
    assert res["inputs"]["data_kind"] == "continuous" and res["config"]["scoring"]["alpha_mu"] == 2
    assert main(["enumerate", str(data), "--score", "bge", "--bf", "3", "-o", str(tmp_path / "o2"),
                 "--write", "bif"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and '--write asks for "bif" with [scoring] score = "BGe": BIF holds discrete' in err[0]
    assert not (tmp_path / "o2").exists()


def test_integer_columns_with_a_gaussian_score_are_refused_naming_them(tmp_path, capsys):
    p = tmp_path / "mixed.csv"
    _frame().assign(X2=lambda f: np.arange(len(f))).to_csv(p, index=False)
    assert main(["learn", str(p), "--score", "bic-g"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'X2' (int64) are not floating point" in err[0]
    with pytest.raises(DataError, match="'X2'"):
        gp.score(str(p), score="bic-g")
    with pytest.raises((ConfigError, DataError)):
        gp.run(_config(tmp_path, f'[data]\npath = "{p}"\n[scoring]\nscore = "bic-g"\n[search]\njob = "learn"\n'))


@pytest.fixture
def slow_walk(monkeypatch):
    """Each child's Gaussian walk takes 1 s more: six children outlast a 2 s limit whatever the machine, even
    walked two at a time by worker processes (a forked worker inherits the slow walk)."""
    import gobnilp_py.scoring._gaussian_walk as GW

    real = GW.walk_child_dense

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        time.sleep(1.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(GW, "walk_child_dense", slow)


def test_cli_time_limit_stops_gaussian_scoring_labelled_incomplete(tmp_path, capsys, slow_walk):
    p = tmp_path / "g.csv"
    _frame(6, 300).to_csv(p, index=False)
    assert main(["enumerate", str(p), "--score", "bic-g", "--bf", "3", "--time-limit", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# INCOMPLETE (time_limit)")
    assert "# scoring stopped by the time limit while scoring parent sets of size 1" in out


def test_config_time_limit_stops_gaussian_scoring_labelled_incomplete(tmp_path, capsys, slow_walk):
    p = tmp_path / "g.csv"
    _frame(6, 300).to_csv(p, index=False)
    cfg = _config(tmp_path, f'[data]\npath = "{p}"\n[scoring]\nscore = "bge"\n[search]\njob = "enumerate"\n'
                            f'bayes_factor = 3\n[limits]\ntime_limit = 2\n[output]\ndir = "{tmp_path / "out"}"\n'
                            'write = ["json", "report"]\n')
    assert main(["run", str(cfg)]) == 0
    capsys.readouterr()
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    assert res["guarantee"].startswith("INCOMPLETE (time_limit)")
    assert any(c.startswith("scoring stopped by the time limit") for c in res["caveats"])
    assert "INCOMPLETE (time_limit)" in (tmp_path / "out" / "report.md").read_text()
