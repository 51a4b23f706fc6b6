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


# ----------------------------------------------------------------- k-best beyond its table
def test_a_k_best_list_beyond_its_tables_gap_does_not_claim_to_be_an_epsilon_set(tmp_path):
    """wine pruned for BF 3, k=500: the 500th lies 1.64 below OPT, where 588 networks of the data lie."""
    path = tmp_path / "wine3.jkl"
    score(read_data(WINE, header=False), bayes_factor=3).to_jkl(path)
    ks = kbest(path, 500)
    assert not ks.complete and ks.reason == "table_epsilon"
    assert ks.stats["equals_epsilon_set"] is False
    notes = "\n".join(ks.notes)
    assert "equals the exact epsilon-set" not in notes
    assert ks.guarantee.startswith("INCOMPLETE (table_epsilon) k-best list: the 500 best networks of a score table "
                                   "pruned for a smaller gap")
    assert "before the search stopped" not in ks.guarantee  # the search did not stop: the table is too narrow
    # what stays certified holds: every network of the data within the table's gap is listed
    full = enumerate_networks(WINE, header=False, epsilon=math.log(3))
    assert ks.threshold == pytest.approx(full.opt - math.log(3), abs=1e-5)  # less the tolerance
    assert {n.key for n in full.networks} <= {n.key for n in ks.networks}


def test_the_witness_count_is_not_called_networks_within_the_gap():
    ks = kbest(WINE, 10, header=False)
    label = next(c for c in ks.caveats if c.startswith("k-best list (k=10) with certified gap"))
    assert "distinct networks within it" not in label
    assert "the 10 best of at least" in label and "witness networks" in label and "10th best" in label


def test_a_k_best_list_longer_than_the_number_of_networks_says_so(tmp_path):
    data = tmp_path / "three.csv"
    data.write_text("a,b,c\n0,1,0\n1,0,1\n0,0,1\n1,1,0\n")
    ks = kbest(data, 30)
    assert len(ks) == 25 and ks.complete  # every DAG on 3 nodes
    assert ks.guarantee.startswith("complete k-best list: all 25 networks the score table and constraints allow "
                                   "(fewer than k=30")
    assert "tied with the 30th" not in ks.guarantee


# ----------------------------------------------------------------- a table of unknown pruning
GOBNILP_JKL = DATA / "wine.BIC.3.jkl"  # written by GOBNILP's scorer: no provenance


def test_a_result_from_a_table_of_unknown_pruning_starts_with_unknown():
    cs = enumerate_networks(GOBNILP_JKL, bayes_factor=20)
    # 1,409 networks where the data hold 3,449 (tests/data/README.md): exact for the table only
    assert cs.pruning_unknown and cs.complete
    assert cs.guarantee.startswith("UNKNOWN: exact for this score table only")
    assert "complete: every network with score >= OPT - 2.99573" in cs.guarantee
    net = learn(GOBNILP_JKL)
    assert net.pruning_unknown and net.guarantee.startswith("UNKNOWN: ") and "proven optimal" in net.guarantee
    assert kbest(GOBNILP_JKL, 3).guarantee.startswith("UNKNOWN: ")
    # our own tables and data are not affected
    assert enumerate_networks(WINE, header=False, bayes_factor=3).guarantee.startswith("complete: ")


def test_the_unknown_label_survives_a_result_folder(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["enumerate", str(GOBNILP_JKL), "--bf", "20", "-o", str(out), "-q"]) == 0
    first = (out / "networks.csv").read_text().splitlines()[0]
    assert first.startswith("# UNKNOWN: exact for this score table only")
    back = gp.load_result(out / "summary.json")
    assert back.pruning_unknown and back.guarantee.startswith("UNKNOWN: ")


def test_a_k_best_gap_within_the_tie_tolerance_is_zero():
    """A→B and the empty network tie up to 1e-12 (rounding): the list's epsilon is 0, not 1e-12 (BF 1)."""
    table = ScoreTable.from_jkl_text("2\nA 2\n-1.0 0\n-5.0 1 B\nB 2\n-0.999999999999 1 A\n-1.0 0\n")
    ks = kbest(table, 2)
    assert len(ks) == 2 and ks.complete
    assert ks.epsilon == 0.0
    assert "OPT - 0;" in ks.guarantee or ks.guarantee.endswith("OPT - 0")
