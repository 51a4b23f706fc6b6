"""The rules between parameters are written once (issue 43): one request object, three interfaces' words.

Why: the serial backend's ``n_jobs`` rule and the Dask scheduler rules were written three times
(drivers, config, command line) and drifted.  These check that each rule is found by
:class:`SearchRequest` alone and that the API, the config and the CLI say the same thing, each in its
own names.
"""

from __future__ import annotations

import pytest

import gobnilp_py as gp
from gobnilp_py.app.config import CONFIG_WORDS
from gobnilp_py.cli import main
from gobnilp_py.cli._options import CLI_WORDS
from gobnilp_py.errors import ConfigError, ParameterError
from gobnilp_py.solve.request import API_WORDS, SearchRequest

RULES = [
    (dict(backend="serial", n_jobs=2), "backend",
     {"api": 'backend "serial" scores in-process: n_jobs must be 1 or not given, got 2',
      "cli": '--backend "serial" scores in-process: --n-jobs must be 1 or not given, got 2',
      "config": '[scoring] backend = "serial" scores in-process: [scoring] n_jobs must be 1 or not given, got 2'}),
    (dict(scheduler="tcp://x:1"), "scheduler",
     {"api": 'scheduler (a Dask scheduler address) needs backend "dask"',
      "cli": "--scheduler (a Dask scheduler address) needs --backend dask",
      "config": '[scoring] scheduler (a Dask scheduler address) needs [scoring] backend = "dask"'}),
    (dict(backend="dask"), "backend",
     {"api": 'backend "dask" needs scheduler (an address such as "tcp://host:8786")',
      "cli": '--backend "dask" needs --scheduler (an address such as "tcp://host:8786")',
      "config": '[scoring] backend = "dask" needs [scoring] scheduler (an address such as "tcp://host:8786")'}),
]


@pytest.mark.parametrize("given, about, words", RULES)
def test_one_rule_three_wordings(given, about, words):
    (v,) = list(SearchRequest.of(given).violations())
    assert v.about == about
    assert v.message(API_WORDS) == words["api"]
    assert v.message(CLI_WORDS) == words["cli"]
    assert v.message(CONFIG_WORDS) == words["config"]


def test_good_requests_break_no_rule():
    for given in ({}, dict(backend="serial"), dict(backend="serial", n_jobs=1), dict(backend="processes", n_jobs=2),
                  dict(backend="dask", scheduler="tcp://x:1")):
        assert list(SearchRequest.of(given).violations()) == []


@pytest.mark.parametrize("given, about, words", RULES)
def test_each_interface_raises_the_rule_in_its_words(given, about, words, tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("a,b\n0,1\n1,0\n1,1\n0,0\n")
    with pytest.raises(ParameterError) as info:
        gp.learn(data, **given)
    assert str(info.value) == words["api"] and info.value.name == about
    flags = {"backend": "--backend", "n_jobs": "--n-jobs", "scheduler": "--scheduler"}
    argv = ["learn", str(data)] + [x for k, v in given.items() for x in (flags[k], str(v))]
    assert main(argv) != 0
    assert capsys.readouterr().err.strip() == f"gobnilp-py: error: {words['cli']}"
    cfg = tmp_path / "c.toml"
    body = "\n".join(f"{k} = {v!r}".replace("'", '"') for k, v in given.items())
    cfg.write_text(f'[data]\npath = "{data}"\n[search]\njob = "learn"\n[scoring]\n{body}\n')
    with pytest.raises(ConfigError) as info:
        gp.load_config(cfg)
    assert str(info.value) == f"{cfg}: {words['config']}"
