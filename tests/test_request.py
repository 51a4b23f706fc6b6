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


# -- the rules of a variable order: the fixed-order search takes no other method, no constraints, no classes,
# no "auto" parent limit.  (section, key) of each parameter in a config, and its flag.
_ORDER = ["a", "b"]
_WHERE = {"method": ("search", "method", "--method"), "by": ("search", "by", "--by"),
          "palim": ("scoring", "palim", "--palim"), "constraints": ("constraints", None, "--constraints")}
ORDER_RULES = [
    (dict(method="ilp"), "method", "learn",
     {"api": 'method "ilp" does not apply with order: the order runs the fixed-order search',
      "cli": '--method "ilp" does not apply with --order: the order runs the fixed-order search',
      "config": '[search] method = "ilp" does not apply with [search] order: the order runs the fixed-order search'}),
    (dict(by="class"), "by", "enumerate",
     {"api": 'by "class" does not apply with order (the networks that follow an order are not whole',
      "cli": '--by "class" does not apply with --order (the networks that follow an order are not whole',
      "config": '[search] by = "class" does not apply with [search] order (the networks that follow an order'}),
    (dict(palim="auto"), "palim", "learn",
     {"api": 'palim "auto" does not apply with order ("auto" bounds a pruned score table',
      "cli": '--palim "auto" does not apply with --order ("auto" bounds a pruned score table',
      "config": '[scoring] palim = "auto" does not apply with [search] order ("auto" bounds a pruned score table'}),
    (dict(constraints="c.con"), "order", "learn",
     {"api": "order cannot be combined with constraints (the fixed-order search honours the order only)",
      "cli": "--order cannot be combined with --constraints (the fixed-order search honours the order only)",
      "config": "[search] order cannot be combined with [constraints] (the fixed-order search honours the order"}),
]


@pytest.mark.parametrize("given, about, job, words", ORDER_RULES)
def test_order_rules_one_request_three_wordings(given, about, job, words, tmp_path, capsys):
    (v,) = list(SearchRequest.of({"order": _ORDER, **given}).violations())
    assert v.about == about
    for interface, w in (("api", API_WORDS), ("cli", CLI_WORDS), ("config", CONFIG_WORDS)):
        assert v.message(w).startswith(words[interface])
    data = tmp_path / "d.csv"
    data.write_text("a,b\n0,1\n1,0\n1,1\n0,0\n")
    con = tmp_path / "c.con"
    con.write_text("a -> b\n")
    api = {k: (con if k == "constraints" else v) for k, v in given.items()}
    if "constraints" in api:
        api["constraints"] = gp.read_constraints(con) if hasattr(gp, "read_constraints") else str(con)
    call = gp.learn if job == "learn" else gp.enumerate_networks
    extra = {} if job == "learn" else {"bayes_factor": 3}
    with pytest.raises(ParameterError) as info:
        call(data, order=_ORDER, **extra, **api)
    assert str(info.value).startswith(words["api"]) and info.value.name == about
    argv = [job, str(data), "--order", "a,b"] + (["--bf", "3"] if job == "enumerate" else [])
    for k, val in given.items():
        argv += [_WHERE[k][2], str(con) if k == "constraints" else str(val)]
    assert main(argv) != 0
    assert capsys.readouterr().err.strip().startswith(f"gobnilp-py: error: {words['cli']}")
    sections = {"data": [f'path = "{data}"'], "search": [f'job = "{job}"', 'order = ["a", "b"]']}
    if job == "enumerate":
        sections["search"].append("bayes_factor = 3")
    for k, val in given.items():
        section, key, _ = _WHERE[k]
        sections.setdefault(section, []).append(f'file = "{con}"' if k == "constraints" else f'{key} = "{val}"')
    lines = [f"[{name}]\n" + "\n".join(body) for name, body in sections.items()]
    cfg = tmp_path / "c.toml"
    cfg.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError) as info:
        gp.load_config(cfg)
    assert str(info.value).startswith(f"{cfg}: {words['config']}")
