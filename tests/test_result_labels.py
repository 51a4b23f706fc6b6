"""Results say what they are worth: the labels that a user-side review (session 9) found wrong.

* a given ``lower_bound`` above the optimum made scoring unsafe, and the result
  still said ``complete`` (it held 152 of wine's 308 networks at BF 3);
* a k-best list from a table pruned for a smaller gap said it "equals the exact
  epsilon-set" while its first line said INCOMPLETE;
* a result from a table that does not record its pruning (GOBNILP's ``.jkl``)
  started with ``complete:`` although the docs promise ``UNKNOWN:``;
* the k-best label called the witness count "distinct networks within" ε_k.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gobnilp_py as gp
from gobnilp_py import ScoreError, ScoreTable, enumerate_networks, kbest, learn, read_data, score
from gobnilp_py.cli import main
from random_problems import random_data
from test_enumerate import assert_same, brute_force

DATA = Path(__file__).resolve().parent / "data"
WINE = DATA / "wine.csv"
WINE_OPT = -1258.445909  # BIC, tests/data/README.md
WINE_BF3 = 308           # networks within ln 3 (tests/data/README.md)


# ----------------------------------------------------------------- a given lower bound
@pytest.mark.parametrize("run", [
    lambda lb: enumerate_networks(WINE, header=False, bayes_factor=3, lower_bound=lb),
    lambda lb: learn(WINE, header=False, lower_bound=lb),
    lambda lb: kbest(WINE, 5, header=False, lower_bound=lb),
], ids=["enumerate", "learn", "kbest"])
def test_a_lower_bound_above_the_optimum_is_refused(run):
    """-1200 lies below wine's upper bound, so scoring accepts it; only the search can tell it is impossible."""
    with pytest.raises(ScoreError, match=r"lower_bound -1200\.000000 exceeds the optimum -1258\.445909"):
        run(-1200.0)


def test_a_lower_bound_at_the_optimum_keeps_every_network():
    cs = enumerate_networks(WINE, header=False, bayes_factor=3, lower_bound=WINE_OPT - 1e-7)
    assert cs.complete and len(cs) == WINE_BF3


def test_a_table_scored_with_a_given_lower_bound_is_checked_when_searched_later(tmp_path):
    table = score(read_data(WINE, header=False), bayes_factor=3, lower_bound=-1200.0)
    path = tmp_path / "wine.jkl"
    table.to_jkl(path)
    back = ScoreTable.from_jkl(path)
    assert back.meta["lower_bound"] == -1200.0 and back.meta["lower_bound_source"] == "given"
    with pytest.raises(ScoreError, match="exceeds the optimum"):
        enumerate_networks(path, bayes_factor=3)


def test_the_command_line_refuses_an_impossible_lower_bound_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["enumerate", str(WINE), "--no-header", "--bf", "3", "--lower-bound=-1200", "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert len(err) == 1 and "exceeds the optimum" in err[0]
    assert not out.exists()


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(2, 4), st.integers(15, 80), st.floats(0.0, 4.0), st.floats(0.0, 5.0),
       st.sampled_from(["BIC", "BDeu"]), st.integers(0, 2**31 - 1))
def test_any_lower_bound_is_exact_or_refused(n, rows, eps, delta, score_name, seed):
    """LB <= OPT: the brute-force ε-set; LB > OPT (beyond the tolerance): an error, never a short set."""
    data = read_data(random_data(np.random.default_rng(seed), n, rows))
    full = score(data, score=score_name, prune=False)
    expected = brute_force(full, eps)
    opt = max(expected.values())
    below = opt - delta
    assert_same(enumerate_networks(data, epsilon=eps, score=score_name, lower_bound=below), expected)
    above = opt + delta + 1e-6 * max(1.0, abs(opt))
    with pytest.raises(ScoreError, match="exceeds"):
        enumerate_networks(data, epsilon=eps, score=score_name, lower_bound=above)
