"""learn() reproduces the published optimal BIC scores of the shared datasets (no parent limit).

Figures from the shared data README (small datasets ship in ``tests/data``) (checked there independently).  The
quick datasets run by default; the longer ones are marked slow (CI runs them
too, so each stays bounded).  Also: a time limit on a harder instance must
give status "time_limit" with a dual bound >= the incumbent's score, never "optimal".
"""

from __future__ import annotations

import math

import pytest

from datasets import dataset, reference

OPTIMA = {
    "tic-tac-toe": -9396.375858,
    "wine": -1258.445909,
    "voting": -4642.631030,
    "zoo": -612.261239,
    "nltcs": -20033.595540,
    "alarm1000": -11783.052412,
}
FAST = ["tic-tac-toe", "wine", "voting"]
SLOW = ["zoo", "nltcs", "alarm1000"]


def _dataset(name: str):
    from gobnilp_py.data import read_data

    return read_data(dataset(name), header=False)


def _check(name: str, method: str) -> None:
    from gobnilp_py.solve.learn import learn

    net = learn(_dataset(name), score="BIC", time_limit=600, method=method)
    assert net.status == "optimal", f"{name}: {net.status}"
    assert net.stats["method"] == method
    assert net.score == pytest.approx(OPTIMA[name], abs=1e-5)
    assert math.fsum(net.local_scores.values()) == pytest.approx(net.score, abs=1e-9)
    if method == "ilp":
        assert net.stats["cuts_total"] > 0  # these problems are not solved without cluster cuts


@pytest.mark.parametrize("method", ["ilp", "ordergraph"])
@pytest.mark.parametrize("name", FAST)
def test_published_optimum(name, method):
    _check(name, method)


@pytest.mark.slow
@pytest.mark.parametrize("name, method", [("zoo", "ilp"), ("zoo", "ordergraph"), ("nltcs", "ilp"),
                                          ("nltcs", "ordergraph"), ("alarm1000", "ilp")])
def test_published_optimum_slow(name, method):
    _check(name, method)


def test_reference_jkl_from_gobnilp():
    """The GOBNILP-produced wine table (BIC, pruned for BF 3) has the same optimum."""
    from gobnilp_py.solve.learn import learn

    path = reference("wine.BIC.3.jkl")
    if not path.exists():
        pytest.skip(f"reference score file {path} not available")
    net = learn(path)
    assert net.status == "optimal"
    assert net.score == pytest.approx(OPTIMA["wine"], abs=1e-5)


def test_time_limit_reports_incumbent_and_bound():
    from gobnilp_py.scoring import score
    from gobnilp_py.solve.learn import learn

    table = score(_dataset("zoo"), score="BIC")
    net = learn(table, time_limit=1.0, method="ilp")
    assert net.status == "time_limit", net.status
    assert net.dual_bound is not None and net.dual_bound >= net.score - 1e-9
    assert net.score <= OPTIMA["zoo"] + 1e-6
    assert net.dual_bound >= OPTIMA["zoo"] - 1e-6  # a valid bound on the true optimum
    assert math.isfinite(net.score)
    assert net.stats["scip_status"] == "timelimit"
