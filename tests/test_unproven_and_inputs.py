"""Results of searches stopped before OPT is proven, results without a network, and input checks.

* ``enumerate`` whose optimum search stops (time limit, interrupt) lists a network only when it is
  provably credible (within ε of a proven upper bound on OPT); OPT is unknown (nan), never the
  incumbent's score.
* A ``learn`` result without a network prints and serialises no parent lists.
* Boolean options refuse non-booleans in the API as the config does; ``run``'s time limit covers
  reading and scoring; a header read as data is warned about.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import time
from pathlib import Path

import pytest

import gobnilp_py as gp
from gobnilp_py.cli import main
from gobnilp_py.errors import ParameterError, ParameterTypeError
from gobnilp_py.network import Network
from gobnilp_py.solve import collect

WINE = Path(__file__).parent / "data" / "wine.csv"
EPS = math.log(20)


@pytest.fixture(scope="module")
def table():
    return gp.score(WINE, header=False, score="BIC", bayes_factor=20)


def _stopped(monkeypatch, bound_above_opt: float | None):
    """Make the optimum search report ``time_limit`` with the true optimum as its incumbent and a
    dual bound ``bound_above_opt`` above it (None: no bound)."""
    real = collect.engine_module

    class Stopped:
        def __init__(self, mod):
            self.mod = mod

        def optimum(self, *a, **kw):
            sol = self.mod.optimum(*a, **kw)
            bound = None if bound_above_opt is None else sol.score + bound_above_opt
            return dataclasses.replace(sol, status="time_limit", dual_bound=bound)

        def __getattr__(self, name):
            return getattr(self.mod, name)

    monkeypatch.setattr(collect, "engine_module", lambda m: Stopped(real(m)))


@pytest.mark.parametrize("bound_above_opt, listed", [(0.5, True), (EPS + 1.0, False), (None, False)])
def test_an_unproven_optimum_lists_only_a_provably_credible_network(table, monkeypatch, bound_above_opt, listed):
    opt = gp.learn(table).score
    _stopped(monkeypatch, bound_above_opt)
    cs = gp.enumerate_networks(table, bayes_factor=20)
    assert not cs.complete and cs.reason == "time_limit"
    assert math.isnan(cs.opt)                           # unknown: not the incumbent's score
    assert len(cs) == (1 if listed else 0)
    assert cs.stats["best_found"] == pytest.approx(opt)
    assert (cs.stats["opt_upper_bound"] is None) == (bound_above_opt is None)
    note = next(c for c in cs.caveats if c.startswith("OPT not proven (time_limit)"))
    assert ("it is listed" in note) == listed and f"{opt:.6f}" in note
    if listed:
        assert cs.networks[0].score == pytest.approx(opt)


def test_the_command_line_says_opt_is_not_proven(table, monkeypatch, capsys, tmp_path):
    _stopped(monkeypatch, EPS + 1.0)
    jkl = tmp_path / "wine.jkl"
    table.to_jkl(jkl)
    code = main(["enumerate", str(jkl), "--bf", "20", "-o", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 0
    assert "OPT = not proven" in out and "0 networks" in out and "OPT not proven (time_limit)" in out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["opt"] is None


def test_a_learn_without_a_network_shows_no_parents(capsys):
    code = main(["learn", str(WINE), "--no-header", "--time-limit", "1e-9"])
    out = capsys.readouterr().out
    # the command's clock covers reading: the limit runs out there, and the answer says there is no result
    assert code == 0 and out.startswith("# INCOMPLETE (time_limit):") and "there is no result" in out
    assert "<-" not in out and "BN score" not in out
    net = gp.learn(WINE, header=False, time_limit=1e-9)
    d = net.to_dict()
    assert d["score"] is None and d["parents"] is None and d["edges"] is None and d["n_edges"] is None
    back = Network.from_dict(d)
    assert back.status == "time_limit" and not math.isfinite(back.score)


@pytest.mark.parametrize("call", [
    lambda: gp.kbest(WINE, 3, header=False, ties="no"),
    lambda: gp.learn(WINE, header=False, verify="no"),
    lambda: gp.learn(WINE, header=False, verbose="yes"),
    lambda: gp.enumerate_networks(WINE, header=False, bayes_factor=3, verify=1),
    lambda: gp.score(WINE, header=False, prune="no"),
    lambda: gp.read_data(WINE, header="no"),
])
def test_boolean_options_refuse_other_types(call):
    with pytest.raises(ParameterTypeError, match="must be true or false"):
        call()


def test_verify_refuses_an_approximate_method():
    with pytest.raises(ParameterError, match=r'^verify does not apply to method "asobs": it is approximate'):
        gp.learn(WINE, header=False, method="asobs", verify=True)


def test_a_header_read_as_data_is_warned_about(tmp_path, caplog):
    f = tmp_path / "h.csv"
    f.write_text("Alcohol,Colour,Hue\n" + "\n".join(",".join(str((i * j) % 2) for j in range(3)) for i in range(9)))
    with caplog.at_level(logging.WARNING):
        gp.read_data(f, header=False)
    assert any("looks like a header" in r.getMessage() for r in caplog.records)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        gp.read_data(f)
    assert not any("header" in r.getMessage() for r in caplog.records)


def test_run_time_limit_covers_scoring(tmp_path, monkeypatch):
    """A job whose scoring uses up the time limit stops the search at once (labelled), as the API does."""
    import gobnilp_py.output.job as job

    real = job._score

    def slow(*a, **kw):
        time.sleep(0.6)
        return real(*a, **kw)

    monkeypatch.setattr(job, "_score", slow)
    (tmp_path / "c.toml").write_text(f'[data]\npath = "{WINE.as_posix()}"\nheader = false\n'
                                     '[search]\njob = "learn"\nmethod = "ilp"\n[limits]\ntime_limit = 0.5\n')
    from gobnilp_py.config import load_config

    res = job.run(load_config(tmp_path / "c.toml"))
    assert res.result.status == "time_limit"


def test_the_command_line_takes_a_memory_limit_written_as_the_config_does(tmp_path, capsys):
    """``--memory-limit 8e9`` is accepted, as ``memory_limit = 8e9`` is in a config and the API."""
    out = tmp_path / "w.jkl"
    assert main(["score", str(WINE), "--no-header", "--memory-limit", "8e9", "-o", str(out)]) == 0
    assert out.is_file()
    assert main(["score", str(WINE), "--no-header", "--memory-limit", "0.5", "-o", str(tmp_path / "x.jkl")]) == 1
    assert "--memory-limit" in capsys.readouterr().err and not (tmp_path / "x.jkl").exists()
