"""The sink heuristic inside the cut loop only down to ``sink_loop_depth`` (model option; default 0, the root).

Below that depth it runs once after each node's LP.  A heuristic only offers networks that SCIP checks
(``trySol``), so the optimum cannot change: checked against the DP oracle in a tree search, and the
depth rule itself is checked on the calls SCIP makes.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pyscipopt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
from oracle_dp import optimal_dag  # noqa: E402
from random_problems import random_sparse_table  # noqa: E402

from gobnilp_py.errors import ConfigError  # noqa: E402
from gobnilp_py.ilp.engine import optimum  # noqa: E402
from gobnilp_py.ilp.heuristic import SinkHeuristic  # noqa: E402

#: a model with few cuts, so the search branches (tens of nodes on 12 variables)
TREE = {"cycle_cuts": False, "four_node_cuts": False, "kcluster_max": 1}
TREE_PARAMS = {"separating/maxroundsroot": 0}
LOOP = int(pyscipopt.SCIP_HEURTIMING.DURINGLPLOOP)


def _solve(table, **options):
    return optimum(table, arrow_restart=math.inf, model_options={**TREE, **options}, params=TREE_PARAMS)


@pytest.fixture
def calls(monkeypatch):
    """(depth, inside the cut loop, ran) of every call SCIP makes to the sink heuristic."""
    seen: list[tuple[int, bool, bool]] = []
    original = SinkHeuristic.heurexec

    def recording(self, heurtiming, nodeinfeasible):
        out = original(self, heurtiming, nodeinfeasible)
        seen.append((self.model.getDepth(), bool(int(heurtiming) & LOOP),
                     out["result"] != pyscipopt.SCIP_RESULT.DIDNOTRUN))
        return out

    monkeypatch.setattr(SinkHeuristic, "heurexec", recording)
    return seen


@pytest.mark.parametrize("depth", [None, -1, 0, 2])
def test_inside_the_cut_loop_only_down_to_the_depth(calls, depth) -> None:
    table = random_sparse_table(np.random.default_rng(0), 12, 10, 3)
    sol = _solve(table) if depth is None else _solve(table, sink_loop_depth=depth)
    limit = 0 if depth is None else depth          # the default is the root only
    assert sol.status == "optimal" and sol.stats["nodes"] > 10
    in_loop_below = [d for d, loop, ran in calls if loop and ran and d > limit]
    after_node_below = [d for d, loop, ran in calls if not loop and ran and d > max(limit, 0)]
    if limit == -1:
        assert in_loop_below                   # every depth: the rule below has something to forbid
    else:
        assert not in_loop_below
    assert after_node_below                    # deeper nodes still get it once after their LP


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 10), st.integers(2, 9), st.sampled_from([-1, 0, 1, 3]), st.integers(0, 10**6))
def test_the_optimum_is_the_dp_optimum_at_any_depth(n: int, k: int, depth: int, seed: int) -> None:
    table = random_sparse_table(np.random.default_rng(seed), n, k, 3)
    opt, _ = optimal_dag(table)
    sol = _solve(table, sink_loop_depth=depth)
    assert sol.status == "optimal" and sol.score == pytest.approx(opt, abs=1e-6)


@pytest.mark.parametrize("bad", [-2, 1.5, True, "0"])
def test_a_bad_depth_is_refused_in_one_line(bad) -> None:
    with pytest.raises(ConfigError, match="sink_loop_depth") as err:
        _solve(random_sparse_table(np.random.default_rng(1), 5, 4, 2), sink_loop_depth=bad)
    assert "\n" not in str(err.value)
