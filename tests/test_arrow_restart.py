"""The optimum search that goes on with arrow variables after its first nodes (``optimum(arrow_restart=N)``).

The restart rebuilds the model with arrow variables, seeds the first model's cluster cuts and offers its
incumbent; the answer must still be the table's optimum (checked against the subset DP oracle), the
caller's time limit must hold over both models, and the restart must stay out of the way of a caller's
own node limit or arrow variables.  To make the restart happen on small tables the tests weaken the first
model's root (no separation rounds, no cycle or sub-IP cuts, no heuristic): its search is then still open
after one node, and the arrow model has to finish the job.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from oracle_dp import optimal_dag  # noqa: E402
from random_problems import random_sparse_table  # noqa: E402

from gobnilp_py.errors import ParameterError  # noqa: E402
from gobnilp_py.ilp.engine import optimum  # noqa: E402
from gobnilp_py.ilp.cluster import find_cycles  # noqa: E402
from gobnilp_py.solve.learn import learn  # noqa: E402

#: a first model whose root proves nothing: integral cycles are still cut off by enforcement (exact)
WEAK = {"subip_cuts": False, "cycle_cuts": False, "four_node_cuts": False, "heuristic": False}
WEAK_PARAMS = {"separating/maxroundsroot": 0}


def _table(seed: int, n: int = 8, k: int = 8):
    return random_sparse_table(np.random.default_rng(seed), n, k, 3)


def _check(sol, table, opt: float) -> None:
    assert sol.status == "optimal"
    assert sol.score == pytest.approx(opt, abs=1e-6)
    chosen = [table.families[v][k][0] for v, k in enumerate(sol.chosen)]
    assert not find_cycles([list(ps) for ps in chosen])
    assert sol.score == pytest.approx(math.fsum(table.families[v][k][1] for v, k in enumerate(sol.chosen)), abs=1e-9)


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 9), st.integers(2, 9), st.integers(1, 3), st.integers(0, 10**6))
def test_the_restarted_search_finds_the_dp_optimum(n: int, k: int, after: int, seed: int) -> None:
    table = _table(seed, n, k)
    opt, _ = optimal_dag(table)
    _check(optimum(table, arrow_restart=after, model_options=WEAK, params=WEAK_PARAMS), table, opt)


@pytest.mark.parametrize("seed", range(8))
def test_a_restart_happens_and_says_what_it_carried(seed: int) -> None:
    """On these seeds the weakened root leaves the search open, so the arrow model finishes it."""
    table = _table(seed)
    opt, _ = optimal_dag(table)
    sol = optimum(table, arrow_restart=1, model_options=WEAK, params=WEAK_PARAMS)
    _check(sol, table, opt)
    info = sol.stats["extra"]["arrow_restart"]
    assert info["after_nodes"] == 1 and info["nodes"] >= 1
    assert info["cuts_seeded"] >= 0 and info["seconds"] >= 0
    # the nodes of both models are counted, and the first model's incumbent was offered to the second
    assert sol.stats["nodes"] >= info["nodes"]
    if info["primal"] is not None:
        assert "accepted" in info
        assert info["primal"] <= opt + 1e-6
    # the first model's dual bound was already an upper bound of the optimum
    assert info["dual_bound"] is None or info["dual_bound"] >= opt - 1e-6
    # nothing leaks into the warm start's record
    assert "warm_start" not in sol.stats["extra"]


def test_no_restart_where_the_caller_limits_nodes_or_asks_for_arrows() -> None:
    table = _table(0)
    capped = optimum(table, arrow_restart=1, model_options=WEAK, params={**WEAK_PARAMS, "limits/nodes": 1})
    assert "arrow_restart" not in capped.stats["extra"]
    arrows = optimum(table, arrow_restart=1, model_options={**WEAK, "arrow_vars": True}, params=WEAK_PARAMS)
    assert "arrow_restart" not in arrows.stats["extra"]
    assert arrows.status == "optimal"
    never = optimum(table, arrow_restart=0, model_options=WEAK, params=WEAK_PARAMS)
    assert "arrow_restart" not in never.stats["extra"] and never.status == "optimal"


def test_a_negative_restart_is_refused_in_one_line() -> None:
    with pytest.raises(ParameterError, match="arrow_restart") as err:
        optimum(_table(0), arrow_restart=-1)
    assert "\n" not in str(err.value)


def test_the_time_limit_covers_both_models() -> None:
    """A budget the first model uses part of: the second gets only what is left, the total holds."""
    from datasets import dataset
    from gobnilp_py import score
    from gobnilp_py.data import read_data

    table = score(read_data(dataset("zoo"), header=False), score="BIC")
    limit = 2.0
    t0 = time.perf_counter()
    sol = optimum(table, time_limit=limit, arrow_restart=1, model_options=WEAK,
                  params={**WEAK_PARAMS, "branching/relpscost/maxreliable": 0})
    wall = time.perf_counter() - t0
    info = sol.stats["extra"].get("arrow_restart")
    assert info is not None and info["seconds"] < limit
    # SCIP checks its clock between LP iterations; 1.5 s covers the build of the second model and that check
    assert wall < limit + 1.5
    assert sol.status in ("time_limit", "optimal")
    if sol.status == "time_limit":
        assert sol.dual_bound is not None and sol.dual_bound >= sol.score


def test_the_driver_passes_arrow_restart_to_the_ilp_only() -> None:
    table = _table(3)
    opt, _ = optimal_dag(table)
    net = learn(table, method="ilp", engine_options={"arrow_restart": 1, "model_options": WEAK,
                                                     "params": WEAK_PARAMS})
    assert net.status == "optimal" and net.score == pytest.approx(opt, abs=1e-6)
    assert "arrow_restart" in net.stats["extra"]
    with pytest.raises(ParameterError, match="arrow"):
        learn(table, method="ordergraph", engine_options={"arrow_restart": 1})
