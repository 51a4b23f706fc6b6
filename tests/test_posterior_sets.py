"""How much of the posterior a credible set holds: ``CredibleSet.posterior_mass`` through the API, the CLI
and the config runner (issue 41, the integration step; ``docs/posterior.md``).

The oracle is independent of the drivers and of the sums: every DAG of 3, 4 and 5 nodes
(``tests/oracle_dags.py`` through ``tests/oracle_posterior.py``) scored from the *unpruned* table, the
ε-set (or the k best) picked from that list by score, and its share of the total weight summed with
``math.fsum``.  The reported mass must equal it to 1e-9 relative.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gobnilp_py
from gobnilp_py import Budget, enumerate_networks, kbest, load_result, score
from gobnilp_py.cli import main
from gobnilp_py.errors import DataError, ScoreError
from gobnilp_py.search import posterior_sums as ps_mod
from gobnilp_py.solve import set_posterior as sp_mod

from oracle_posterior import brute_posterior
from random_problems import random_data

RTOL = 1e-9
ASIA = str(gobnilp_py.example_path("asia"))


def _data(seed: int, n: int, rows: int = 50) -> np.ndarray:
    return random_data(np.random.default_rng(seed), n, rows)


def _brute(data, kind: str, palim, keep=None):
    return brute_posterior(score(data, score=kind, palim=palim, prune=False, n_jobs=1), keep)


def _within(brute, eps: float):
    """The ε-set of the brute-force list: every allowed DAG with log weight >= top - ε (score tolerance)."""
    tol = 1e-9 * max(1.0, abs(brute.top))
    return [d for d, lw in zip(brute.dags, brute.logw.tolist()) if lw >= brute.top - eps - tol]


def _k_best(brute, k: int):
    """The k best DAGs of the brute-force list and every one tied with the k-th (kbest's ties=True)."""
    order = np.argsort(-brute.logw, kind="stable")
    kth = brute.logw[order[min(k, len(order)) - 1]]
    tol = 1e-9 * max(1.0, abs(brute.top))
    return [brute.dags[i] for i in order if brute.logw[i] >= kth - tol]


def _check(cs, brute, dags) -> None:
    m = cs.posterior_mass
    assert m is not None and m.exact and not m.lower_bound
    want = brute.mass(dags)
    assert abs(m.value - want) <= RTOL * want, (m.value, want)
    assert m.line.startswith("posterior mass ") and "(exact" in m.line


# ------------------------------------------------------------------------- exactness against brute force
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.sampled_from([3, 4, 5]), kind=st.sampled_from(["BIC", "BDeu"]),
       palim=st.sampled_from([None, 1, 2]), bf=st.sampled_from([1.0, 3.0, 20.0, 150.0]))
def test_enumerate_mass_equals_brute_force(seed, n, kind, palim, bf):
    data = _data(seed, n)
    cs = enumerate_networks(data, score=kind, palim=palim, bayes_factor=bf, method="ordergraph", by="dag",
                            n_jobs=1)
    brute = _brute(data, kind, palim)
    picked = _within(brute, math.log(bf))
    assert len(cs) == len(picked)
    _check(cs, brute, picked)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.sampled_from([3, 4, 5]), kind=st.sampled_from(["BIC", "BDeu"]),
       k=st.integers(1, 12))
def test_kbest_mass_equals_brute_force(seed, n, kind, k):
    data = _data(seed, n)
    cs = kbest(data, k, score=kind, palim=2, method="dp", n_jobs=1)
    brute = _brute(data, kind, 2)
    picked = _k_best(brute, k)
    assert len(cs) == len(picked)
    _check(cs, brute, picked)


def _keep_tiers(first: set[int]):
    """Brute-force filter: no arrow from a later tier into the first."""
    def keep(dag) -> bool:
        return all(p in first for v in first for p in dag[v])
    return keep


@pytest.mark.parametrize("seed", [3, 11, 19])
def test_constraints_restrict_the_prior_exactly(seed):
    data = _data(seed, 5)
    names = [str(i) for i in range(5)]
    cons = {"tiers": [names[:2], names[2:]], "forbidden_arrows": [[names[4], names[2]]]}
    cs = enumerate_networks(data, score="BDeu", bayes_factor=20, constraints=cons, method="ordergraph", by="dag",
                            n_jobs=1)
    tiers = _keep_tiers({0, 1})

    def keep(dag) -> bool:
        return tiers(dag) and 4 not in dag[2]
    brute = _brute(data, "BDeu", None, keep)
    picked = _within(brute, math.log(20))
    assert len(cs) == len(picked)
    _check(cs, brute, picked)
    assert "satisfying the constraints" in cs.posterior_mass.scope


def test_class_level_set_counts_members_not_listed():
    """By class with a cut listing: the mass counts every member of every class (the full DAG listing's mass)."""
    data = _data(31, 5, 60)
    full = enumerate_networks(data, score="BDeu", bayes_factor=50, method="ordergraph", by="dag", n_jobs=1)
    cap = len(full) - 1       # the class search finishes; the listing is cut one network short
    cut = enumerate_networks(data, score="BDeu", bayes_factor=50, method="ilp", by="class", max_networks=cap,
                             n_jobs=1)
    assert len(cut) == cap and cut.n_networks_total == len(full) > 3
    a, b = full.posterior_mass, cut.posterior_mass
    assert b.covers == "classes" and b.n_networks == len(full)
    assert abs(a.value - b.value) <= RTOL * a.value


def test_mass_of_an_incomplete_listing_says_at_least_the_listed():
    data = _data(5, 5)
    cs = enumerate_networks(data, score="BIC", bayes_factor=150, method="ordergraph", by="dag", max_networks=3,
                            n_jobs=1)
    assert not cs.complete
    m = cs.posterior_mass
    brute = _brute(data, "BIC", None)
    names = list(cs.networks[0].names)
    dags = [tuple(tuple(sorted(names.index(p) for p in net.parents[v])) for v in names) for net in cs.networks]
    assert abs(m.value - brute.mass(dags)) <= RTOL * m.value
    assert "listing is incomplete" in m.note


# ------------------------------------------------------------------------- provenance
def test_unpruned_table_serves_and_a_pruned_table_is_refused_in_one_line():
    post = gobnilp_py.posterior(ASIA, score="BDeu", palim=2)
    full = score(ASIA, score="BDeu", palim=2, prune=False)
    a = enumerate_networks(full, bayes_factor=20)
    assert abs(a.posterior_mass.value - post.mass_of(a).value) <= 1e-12
    pruned = enumerate_networks(score(ASIA, score="BDeu", palim=2, bayes_factor=20), bayes_factor=20)
    assert pruned.posterior_mass is None
    assert "the score table is pruned" in pruned.posterior_mass_note
    with pytest.raises(ScoreError) as exc:
        pruned.compute_posterior_mass()
    assert "\n" not in str(exc.value) and "prune=False" in str(exc.value)


def test_palim_auto_is_summed_without_a_limit():
    data = _data(2, 4)
    cs = enumerate_networks(data, score="BIC", palim="auto", bayes_factor=20, method="ordergraph", by="dag",
                            n_jobs=1)
    brute = _brute(data, "BIC", None)
    _check(cs, brute, _within(brute, math.log(20)))


def test_constraints_the_posterior_cannot_sum_over_give_no_value_and_say_why():
    cs = enumerate_networks(ASIA, score="BDeu", palim=2, bayes_factor=3,
                            constraints={"required_adjacencies": [["asia", "tub"]]})
    assert cs.posterior_mass is None and "required_adjacencies" in cs.posterior_mass_note
    with pytest.raises(ScoreError):
        cs.compute_posterior_mass()


def test_the_fixed_order_route_is_measured_against_every_dag():
    data = _data(13, 5)
    names = [str(i) for i in range(5)]
    cs = enumerate_networks(data, score="BDeu", palim=2, bayes_factor=150, order=names[::-1], n_jobs=1)
    brute = _brute(data, "BDeu", 2)
    dags = [tuple(tuple(sorted(names.index(p) for p in net.parents[v])) for v in names) for net in cs.networks]
    assert all(all(p > v for p in dag[v]) for dag in dags for v in range(5))     # they follow the order
    _check(cs, brute, dags)
    assert cs.posterior_mass.value < 1.0


def test_a_set_built_by_hand_says_why():
    net = gobnilp_py.Network(("a", "b"), {"b": ("a",)}, -1.0)
    cs = gobnilp_py.CredibleSet(-1.0, 0.0, True, None, [net])
    assert cs.posterior_mass is None and "does not record the data" in cs.posterior_mass_note


# ------------------------------------------------------------------------- limits
def test_bound_when_exact_is_refused_or_stopped(monkeypatch):
    cs = enumerate_networks(ASIA, score="BDeu", palim=2, bayes_factor=20)
    exact = cs.posterior_mass.value
    bound = cs.compute_posterior_mass(exact=False)
    assert bound.lower_bound and bound.value <= exact and bound.text.startswith("at least ")
    assert cs.posterior_mass is bound or cs.posterior_mass.value == bound.value
    calls = {"n": 0}

    def why_stop(self):
        calls["n"] += 1
        return "time_limit" if calls["n"] > 8 + 2 else None
    monkeypatch.setattr(ps_mod._Clock, "why_stop", why_stop)
    stopped = cs.compute_posterior_mass(time_limit=100)
    assert stopped.lower_bound and stopped.value <= exact


def test_limits_that_leave_no_bound_are_labelled():
    cs = enumerate_networks(ASIA, score="BDeu", palim=2, bayes_factor=20)
    none = cs.compute_posterior_mass(memory_limit=1000)
    assert none.value is None and cs.posterior_mass is None and none.text == "no bound available"
    spent = Budget(1e-9)
    gone = cs.compute_posterior_mass(time_limit=spent)
    assert gone.value is None and "time limit" in gone.note
    with pytest.raises(gobnilp_py.errors.ParameterError):
        cs.compute_posterior_mass(time_limit=-1)


# ------------------------------------------------------------------------- saving and loading
def test_to_dict_round_trip_and_a_tampered_mass_is_refused(tmp_path):
    cs = enumerate_networks(ASIA, score="BDeu", palim=2, bayes_factor=20)
    m = cs.posterior_mass
    d = cs.to_dict()
    assert d["posterior_mass"]["value"] == m.value and d["posterior_mass"]["exact"] is True
    back = gobnilp_py.CredibleSet.from_dict(json.loads(json.dumps(d)))
    assert back.posterior_mass == m
    with pytest.raises(ScoreError):            # a loaded set keeps the mass, not the data
        back.compute_posterior_mass()
    bad = json.loads(json.dumps(d))
    bad["posterior_mass"]["value"] = 1.5
    with pytest.raises(DataError, match=r"posterior_mass.value must lie in \[0, 1\]"):
        gobnilp_py.CredibleSet.from_dict(bad)
    bad["posterior_mass"]["value"] = m.value / 2
    with pytest.raises(DataError, match="posterior_mass.text"):
        gobnilp_py.CredibleSet.from_dict(bad)
    untouched = enumerate_networks(ASIA, score="BDeu", palim=2, bayes_factor=3)
    assert untouched.to_dict()["posterior_mass"] is None        # not computed: null, not a guess


# ------------------------------------------------------------------------- command line
def _cli(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_first_lines_state_the_mass_and_posterior_adds_the_comparison(capsys):
    code, out, _ = _cli(["enumerate", ASIA, "--score", "BDeu", "--palim", "2", "--bf", "20", "-q"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("# complete")
    assert lines[1] == "# posterior mass 0.368001 (exact; the listed networks)"
    assert "largest difference" not in out
    code, out, _ = _cli(["enumerate", ASIA, "--score", "BDeu", "--palim", "2", "--bf", "20", "--posterior", "-q"],
                        capsys)
    assert code == 0 and "largest difference 0.1241 (tub - lung: set 0.5075, exact 0.6316)" in out
    code, out, _ = _cli(["kbest", ASIA, "--score", "BDeu", "--palim", "2", "-k", "5", "-q"], capsys)
    assert code == 0 and out.splitlines()[1].startswith("# posterior mass 0.0546342 (exact")


def test_cli_json_and_folder_carry_the_mass_and_load_reads_it(tmp_path, capsys):
    code, out, _ = _cli(["enumerate", ASIA, "--score", "BDeu", "--palim", "2", "--bf", "20", "--posterior",
                         "--json", "-q"], capsys)
    d = json.loads(out)
    assert code == 0 and d["posterior_mass"]["exact"] and abs(d["posterior_mass"]["value"] - 0.368001) < 1e-6
    assert abs(d["posterior"]["max_edge_difference"]["value"] - 0.1241) < 1e-4
    folder = tmp_path / "out"
    code, _, _ = _cli(["enumerate", ASIA, "--score", "BDeu", "--palim", "2", "--bf", "20", "-o", folder,
                       "--write", "json,csv,report", "-q"], capsys)
    assert code == 0
    back = load_result(folder)
    assert back.posterior_mass.exact and abs(back.posterior_mass.value - 0.368001) < 1e-6
    assert "# posterior mass 0.368001" in (folder / "networks.csv").read_text()
    assert "posterior mass 0.368001" in (folder / "report.md").read_text()


def test_cli_posterior_refused_before_the_work_for_a_pruned_table(tmp_path, capsys):
    jkl = tmp_path / "asia.jkl"
    score(ASIA, score="BDeu", palim=2, bayes_factor=20).to_jkl(jkl)
    code, out, err = _cli(["enumerate", jkl, "--bf", "20", "--posterior"], capsys)
    assert code != 0 and out == "" and len(err.strip().splitlines()) == 1
    assert "--posterior" in err and "the score table is pruned" in err
    code, out, _ = _cli(["enumerate", jkl, "--bf", "20", "-q"], capsys)   # not asked: said, not refused
    assert code == 0 and out.splitlines()[1].startswith("# posterior mass: not available (the score table is pruned")


def test_cli_large_problems_are_not_computed_unless_asked(monkeypatch, capsys):
    monkeypatch.setattr(sp_mod, "AUTO_MAX_VARIABLES", 4)
    code, out, _ = _cli(["enumerate", ASIA, "--score", "BDeu", "--palim", "2", "--bf", "3", "-q"], capsys)
    assert code == 0 and out.splitlines()[1].startswith("# posterior mass: not computed (8 variables")
    code, out, _ = _cli(["enumerate", ASIA, "--score", "BDeu", "--palim", "2", "--bf", "3", "--posterior", "-q"],
                        capsys)
    assert code == 0 and out.splitlines()[1].startswith("# posterior mass 0.")


def test_cli_time_limit_leaves_a_labelled_bound_or_nothing(monkeypatch, capsys):
    monkeypatch.setattr(ps_mod._Clock, "why_stop", lambda self: "time_limit")
    code, out, _ = _cli(["enumerate", ASIA, "--score", "BDeu", "--palim", "2", "--bf", "3", "--time-limit", "600",
                         "--posterior", "-q"], capsys)
    assert code == 0
    assert out.splitlines()[1] == "# posterior mass: no bound available (the time limit stopped them)"
    assert "exact edge posteriors: not available" in out


# ------------------------------------------------------------------------- config
def test_config_posterior_key(tmp_path):
    from gobnilp_py.app.runner import run

    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[data]\npath = "{ASIA}"\n[scoring]\nscore = "BDeu"\npalim = 2\n[search]\njob = "enumerate"\n'
                   f'bayes_factor = 20\nposterior = true\n[output]\ndir = "{tmp_path / "o"}"\n'
                   'write = ["json", "report", "edges_png"]\n')
    res = run(cfg)
    assert abs(res.result.posterior_mass.value - 0.368001) < 1e-6
    d = json.loads((tmp_path / "o" / "result.json").read_text())
    assert d["result"]["posterior_mass"]["exact"] and "max_edge_difference" in d["posterior"]
    assert load_result(tmp_path / "o").posterior_mass == res.result.posterior_mass
    report = (tmp_path / "o" / "report.md").read_text()
    assert "**posterior mass 0.368001 (exact" in report and "exact P(adjacent)" in report
    cfg.write_text(cfg.read_text().replace("posterior = true", 'posterior = "yes"'))
    with pytest.raises(gobnilp_py.errors.ConfigError, match=r"\[search\] posterior"):
        run(cfg)


def test_config_posterior_refused_for_a_pruned_table(tmp_path, capsys):
    jkl = tmp_path / "asia.jkl"
    score(ASIA, score="BDeu", palim=2, bayes_factor=20).to_jkl(jkl)
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[data]\npath = "{jkl}"\n[search]\njob = "enumerate"\nbayes_factor = 20\nposterior = true\n')
    code = main(["run", str(cfg)])
    err = capsys.readouterr().err
    assert code != 0 and "[search] posterior = true cannot be met" in err and len(err.strip().splitlines()) == 1


def test_edge_picture_title_states_the_mass():
    pytest.importorskip("matplotlib")
    from gobnilp_py.drawing import figures

    cs = enumerate_networks(ASIA, score="BDeu", palim=2, bayes_factor=20)
    assert "share of the posterior" not in figures._edge_figure(cs)._suptitle.get_text()   # not computed: nothing
    cs.compute_posterior_mass(exact=False)
    title = figures._edge_figure(cs)._suptitle.get_text()
    assert title.endswith("\nshare of the posterior over all DAGs: at least 0.006269 (a lower bound)")
    cs.compute_posterior_mass()
    assert figures._edge_figure(cs)._suptitle.get_text().endswith(": 0.368001 (exact)")


def test_config_time_limit_stop_is_labelled_in_result_json(tmp_path, monkeypatch):
    from gobnilp_py.app.runner import run

    monkeypatch.setattr(ps_mod._Clock, "why_stop", lambda self: "time_limit")
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[data]\npath = "{ASIA}"\n[scoring]\nscore = "BDeu"\npalim = 2\n[search]\njob = "kbest"\nk = 3\n'
                   f'[limits]\ntime_limit = 600\n[output]\ndir = "{tmp_path / "o"}"\nwrite = ["json", "csv"]\n')
    res = run(cfg)                                  # not asked, but cheap: computed, and stopped
    assert res.result.posterior_mass is None
    d = json.loads((tmp_path / "o" / "result.json").read_text())
    pm = d["result"]["posterior_mass"]
    assert pm["value"] is None and pm["text"] == "no bound available" and "time limit" in pm["note"]
    assert "posterior" not in d                      # no exact sums, no exact edge posteriors
    csv_head = (tmp_path / "o" / "networks.csv").read_text().splitlines()[1]
    assert csv_head == "# posterior mass: no bound available (the time limit stopped them)"
    back = load_result(tmp_path / "o")
    assert back.posterior_mass is None and "time limit" in back.posterior_mass_note


def test_cli_kbest_json_with_posterior(capsys):
    code, out, _ = _cli(["kbest", ASIA, "--score", "BDeu", "--palim", "2", "-k", "3", "--posterior", "--json", "-q"],
                        capsys)
    d = json.loads(out)
    assert code == 0 and d["posterior_mass"]["exact"] and d["posterior"]["max_edge_difference"]["value"] > 0
    names = d["posterior"]["edge_probabilities"]["names"]
    assert len(names) == 8 and len(d["posterior"]["arrow_probabilities"]["matrix"]) == 8


def test_ctrl_c_while_rescoring_leaves_the_set_and_a_labelled_note(monkeypatch):
    from gobnilp_py import scoring

    cs = enumerate_networks(ASIA, score="BDeu", palim=2, bayes_factor=3)
    stopped = enumerate_networks(ASIA, score="BDeu", palim=2, bayes_factor=3)
    stopped.reason, stopped.complete = "interrupted", False

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(scoring, "score", interrupted)
    line = sp_mod.posterior_step(cs, requested=True)
    assert line == "posterior mass: no bound available (interrupted while scoring the unpruned table the mass needs)"
    assert sp_mod.posterior_step(stopped, requested=True).endswith("(not computed: the search was interrupted)")


# ------------------------------------------------------------------------- continuous data (issue 40 beside 41)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.sampled_from([3, 4, 5]), kind=st.sampled_from(["bic-g", "bge"]),
       bf=st.sampled_from([3.0, 20.0, 150.0]))
def test_gaussian_enumerate_mass_equals_brute_force(seed, n, kind, bf):
    """A set found on continuous data holds the share of the posterior that brute force over every DAG gives
    (its unpruned table scored again from the same measurements with the same Gaussian score)."""
    from gobnilp_py.examples.gaussian import random_linear_gaussian

    frame = random_linear_gaussian(n, seed=seed % 1000, mean_parents=1.0).frame(80, seed=seed)
    cs = enumerate_networks(frame, score=kind, bayes_factor=bf, method="ordergraph", by="dag", n_jobs=1)
    brute = _brute(frame, kind, None)
    picked = _within(brute, math.log(bf))
    assert len(cs) == len(picked)
    _check(cs, brute, picked)


def test_posterior_of_continuous_data_equals_that_of_its_unpruned_gaussian_table():
    """``posterior(data, score="bge")`` scores the measurements itself (BGe's options passed on), and the
    options of the other kind are refused in one line naming the score."""
    from gobnilp_py import posterior
    from gobnilp_py.errors import ParameterError
    from gobnilp_py.examples.gaussian import random_linear_gaussian

    frame = random_linear_gaussian(5, seed=2, mean_parents=1.0).frame(200, seed=3)
    for kind, opts in (("bge", {"alpha_mu": 2.0}), ("bic-g", {})):
        direct = posterior(frame, score=kind, **opts)
        via = posterior(score(frame, score=kind, prune=False, **opts))
        assert direct.kind == via.kind == "exact"
        assert math.isclose(direct.log_evidence, via.log_evidence, rel_tol=1e-12)
        assert np.allclose(direct.edge_probabilities().to_numpy(), via.edge_probabilities().to_numpy(), atol=1e-12)
    with pytest.raises(ScoreError, match=r"^ess is the equivalent sample size .* leave it out$"):
        posterior(frame, score="bge", ess=2)
    with pytest.raises(ParameterError, match=r'^alpha_mu is a hyperparameter of the Gaussian score "bge" only'):
        posterior(ASIA, score="BIC", alpha_mu=1.0)
