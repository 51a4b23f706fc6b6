"""ASOBS's seed and order budget through the API, the CLI and a settings file (one vocabulary).

Also: an approximate network says so in its ``repr``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gobnilp_py import ParameterError, learn, read_data
from gobnilp_py.cli import main

from datasets import dataset

FAST = {"max_evaluations": 40}


@pytest.fixture(scope="module")
def wine():
    return read_data(dataset("wine"), header=False)


def test_api_seed_and_orders_are_deterministic(wine) -> None:
    a = learn(wine, method="asobs", seed=4, n_orders=6, **FAST)
    b = learn(wine, method="asobs", seed=4, n_orders=6, **FAST)
    assert a.approximate and a.stats["orders"] == 6 and a.stats["seed"] == 4
    assert (a.score, sorted(a.edges)) == (b.score, sorted(b.edges))
    assert "approximate=True" in repr(a)


@pytest.mark.parametrize("kw, word", [({"seed": -1}, "seed"), ({"n_orders": 0}, "n_orders"),
                                      ({"n_orders": 2.0}, "n_orders"), ({"seed": True}, "seed")])
def test_api_refuses_bad_values(wine, kw, word) -> None:
    with pytest.raises(ParameterError, match=word):
        learn(wine, method="asobs", **kw)


def test_api_refuses_the_options_for_an_exact_method(wine) -> None:
    with pytest.raises(ParameterError, match="n_orders"):
        learn(wine, method="ilp", n_orders=3)


def test_cli_flags(tmp_path: Path, capsys) -> None:
    code = main(["learn", str(dataset("wine")), "--no-header", "--method", "asobs", "--seed", "4",
                 "--n-orders", "6", "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    d = json.loads(out)
    assert d["approximate"] is True and d["stats"]["orders"] == 6 and d["stats"]["seed"] == 4
    for flag, bad in (("--n-orders", "0"), ("--seed", "x")):
        code = main(["learn", str(dataset("wine")), "--no-header", "--method", "asobs", flag, bad])
        _, err = capsys.readouterr()
        assert code != 0 and flag in err and len(err.strip().splitlines()) == 1


def test_settings_file_keys(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "a.toml"
    cfg.write_text(f'[data]\npath = "{dataset("wine")}"\nheader = false\n[search]\njob = "learn"\n'
                   f'method = "asobs"\nseed = 4\nn_orders = 6\n[output]\ndir = "{tmp_path / "out"}"\n')
    assert main(["run", str(cfg)]) == 0
    capsys.readouterr()
    res = json.loads((tmp_path / "out" / "result.json").read_text())
    assert res["approximate"] is True
    cfg.write_text(cfg.read_text().replace("n_orders = 6", "n_orders = 0"))
    assert main(["run", str(cfg), "--force"]) != 0
    _, err = capsys.readouterr()
    assert "n_orders" in err and len(err.strip().splitlines()) == 1
