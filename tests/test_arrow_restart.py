"""The optimum search that goes on with arrow variables when its root leaves a gap (``optimum(arrow_restart=G)``).

The restart rebuilds the model with arrow variables, seeds the first model's cluster cuts and offers its
incumbent; the answer must still be the table's optimum (checked against the subset DP oracle), the
caller's time limit must hold over both models, and the restart must stay out of the way of a caller's
own node limit or arrow variables; below the threshold the same model must go on to the optimum.  To make
the restart happen on small tables the tests weaken the first model's root (no separation rounds, no cycle
or sub-IP cuts, no heuristic): its search is then still open after the root, and the arrow model has to
finish the job.
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


def _solved(table, gap: float):
    """The weakened search of ``table`` with restart threshold ``gap``, checked against the DP optimum:
    ``(solution, optimum, its arrow_restart record)``."""
    opt, _ = optimal_dag(table)
    sol = optimum(table, arrow_restart=gap, model_options=WEAK, params=WEAK_PARAMS)
    _check(sol, table, opt)
    return sol, opt, sol.stats["extra"]["arrow_restart"]


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 9), st.integers(2, 9), st.sampled_from([0.0, 1e-3, 0.05, 1.0, math.inf]), st.integers(0, 10**6))
def test_the_restarted_or_resumed_search_finds_the_dp_optimum(n: int, k: int, gap: float, seed: int) -> None:
    table = _table(seed, n, k)
    opt, _ = optimal_dag(table)
    _check(optimum(table, arrow_restart=gap, model_options=WEAK, params=WEAK_PARAMS), table, opt)


@pytest.mark.parametrize("seed", range(8))
def test_a_restart_happens_and_says_what_it_carried(seed: int) -> None:
    """On these seeds the weakened root leaves the search open, so the arrow model finishes it."""
    sol, opt, info = _solved(_table(seed), 0.0)
    assert info["restarted"] is True and info["threshold"] == 0.0 and info["root_gap"] > 0
    assert info["nodes"] >= 1
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


@pytest.mark.parametrize("seed", range(4))
def test_below_the_threshold_the_same_model_goes_on(seed: int) -> None:
    """A root gap under the threshold: no rebuild; SCIP resumes the first model's tree to the optimum."""
    sol, _, info = _solved(_table(seed), 1e9)
    assert info["restarted"] is False and info["root_gap"] < 1e9
    assert "cuts_seeded" not in info
    assert sol.stats["nodes"] > 1  # the tree after the root was searched in the same model


def test_no_restart_where_the_caller_limits_nodes_or_asks_for_arrows() -> None:
    table = _table(0)
    capped = optimum(table, arrow_restart=0.0, model_options=WEAK, params={**WEAK_PARAMS, "limits/nodes": 1})
    assert "arrow_restart" not in capped.stats["extra"]
    arrows = optimum(table, arrow_restart=0.0, model_options={**WEAK, "arrow_vars": True}, params=WEAK_PARAMS)
    assert "arrow_restart" not in arrows.stats["extra"]
    assert arrows.status == "optimal"
    never = optimum(table, arrow_restart=math.inf, model_options=WEAK, params=WEAK_PARAMS)
    assert "arrow_restart" not in never.stats["extra"] and never.status == "optimal"


@pytest.mark.parametrize("bad", [-1, -1e-9, math.nan, True, "0.1"])
def test_a_bad_threshold_is_refused_in_one_line(bad) -> None:
    with pytest.raises(ParameterError, match="arrow_restart") as err:
        optimum(_table(0), arrow_restart=bad)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("threshold", [0.0, 1e9])
def test_the_time_limit_covers_both_models(threshold: float) -> None:
    """A budget the root uses part of: the rebuilt model (threshold 0) or the resumed one (1e9) gets only
    what is left, and the total holds."""
    from datasets import dataset
    from gobnilp_py import score
    from gobnilp_py.data import read_data

    table = score(read_data(dataset("zoo"), header=False), score="BIC")
    limit = 2.0
    t0 = time.perf_counter()
    sol = optimum(table, time_limit=limit, arrow_restart=threshold, model_options=WEAK,
                  params={**WEAK_PARAMS, "branching/relpscost/maxreliable": 0})
    wall = time.perf_counter() - t0
    info = sol.stats["extra"].get("arrow_restart")
    assert info is not None and info["restarted"] is (threshold == 0.0)
    # SCIP checks its clock between LP iterations; 1.5 s covers the build of the second model and that check
    assert wall < limit + 1.5
    assert sol.status in ("time_limit", "optimal")
    if sol.status == "time_limit":
        assert sol.dual_bound is not None and sol.dual_bound >= sol.score


def test_the_driver_passes_arrow_restart_to_the_ilp_only() -> None:
    table = _table(3)
    opt, _ = optimal_dag(table)
    net = learn(table, method="ilp", engine_options={"arrow_restart": 0.0, "model_options": WEAK,
                                                     "params": WEAK_PARAMS})
    assert net.status == "optimal" and net.score == pytest.approx(opt, abs=1e-6)
    assert "arrow_restart" in net.stats["extra"]
    with pytest.raises(ParameterError, match="arrow"):
        learn(table, method="ordergraph", engine_options={"arrow_restart": 0.0})


@pytest.mark.slow
def test_zoo_restarted_with_every_root_cut_seeded_matches_the_order_graph() -> None:
    """A real table whose root finds four-node rows: they and the cluster cuts go into the arrow model's
    root, and the optimum is the order graph's (a second, SCIP-free engine)."""
    from datasets import dataset
    from gobnilp_py import score
    from gobnilp_py.data import read_data

    table = score(read_data(dataset("zoo"), header=False), score="BIC")
    sol = optimum(table, arrow_restart=0.0)
    info = sol.stats["extra"]["arrow_restart"]
    assert info["restarted"] is True and info["four_node_seeded"] > 0 and info["cuts_seeded"] > 0
    other = learn(table, method="ordergraph")
    assert sol.status == "optimal" and sol.score == pytest.approx(other.score, abs=1e-6)


def test_the_default_threshold_is_used_and_recorded() -> None:
    """Without the option the settings' threshold decides, and the record says which it was."""
    from gobnilp_py.ilp import settings

    table = _table(1)
    opt, _ = optimal_dag(table)
    sol = optimum(table, model_options=WEAK, params=WEAK_PARAMS)
    _check(sol, table, opt)
    info = sol.stats["extra"]["arrow_restart"]
    assert info["threshold"] == settings.ARROW_RESTART_GAP
    assert info["restarted"] is (info["root_gap"] >= settings.ARROW_RESTART_GAP)


def test_a_signal_while_the_arrow_model_is_built_stops_there(monkeypatch) -> None:
    """SIGINT between the two models: the second never runs, and the first model's network comes back
    labelled interrupted (not as a finished search)."""
    import os
    import signal

    import gobnilp_py.ilp.model as model_module

    real = model_module.build_model
    calls = []

    def build_and_signal(*args, **kwargs):
        calls.append(kwargs.get("arrow_vars", False))
        fm = real(*args, **kwargs)
        if kwargs.get("arrow_vars"):
            os.kill(os.getpid(), signal.SIGINT)
        return fm

    monkeypatch.setattr(model_module, "build_model", build_and_signal)
    table = _table(0)
    sol = optimum(table, arrow_restart=0.0, model_options=WEAK, params=WEAK_PARAMS)
    assert calls == [False, True]
    info = sol.stats["extra"]["arrow_restart"]
    assert info["restarted"] is False and info["interrupted_before_rebuild"] is True
    assert sol.status == "interrupted"


def test_the_resumed_tree_branches_with_the_resume_settings_under_the_callers(monkeypatch) -> None:
    """Below the threshold the resumed tree gets ``RESUME_PARAMS`` (less strong branching); the root before it
    and a rebuilt arrow model keep SCIP's own, and a caller's setting of the same name wins everywhere."""
    import gobnilp_py.ilp.engine as engine
    from gobnilp_py.ilp import settings

    key = "branching/relpscost/maxreliable"
    seen: list[float] = []
    original = engine._solve

    def recording(model, what):
        seen.append(model.getParam(key))
        return original(model, what)

    monkeypatch.setattr(engine, "_solve", recording)
    table = _table(0)
    opt, _ = optimal_dag(table)
    scip_default = 5.0
    _check(optimum(table, arrow_restart=1e9, model_options=WEAK, params=WEAK_PARAMS), table, opt)
    assert seen == [scip_default, settings.RESUME_PARAMS[key]]
    seen.clear()
    _check(optimum(table, arrow_restart=1e9, model_options=WEAK, params={**WEAK_PARAMS, key: 3}), table, opt)
    assert seen == [3, 3]
    seen.clear()
    _check(optimum(table, arrow_restart=0.0, model_options=WEAK, params=WEAK_PARAMS), table, opt)
    assert seen == [scip_default, scip_default]


@pytest.mark.parametrize("seed", range(6))
def test_the_arrow_model_starts_from_the_better_of_the_roots_and_asobs_network(seed: int, monkeypatch) -> None:
    """Before the rebuild an ASOBS search over a fixed number of seeded orders runs; its network is offered
    when it beats the root's incumbent (recorded, deterministic), and the optimum is the DP's either way."""
    from gobnilp_py.ilp import settings

    monkeypatch.setattr(settings, "ASOBS_START_GAP", 0.0)
    table = _table(seed, 9, 8)
    one, opt, info = _solved(table, 0.0)
    assert info["restarted"] is True
    asobs = info["asobs"]
    assert asobs["orders"] >= 1 and asobs["score"] <= opt + 1e-6
    root = info["primal"] if info["primal"] is not None else -math.inf
    assert asobs["used"] == (asobs["score"] > root)
    offered = max(asobs["score"], root)
    assert info["accepted"] is True and offered <= opt + 1e-6
    two = optimum(table, arrow_restart=0.0, model_options=WEAK, params=WEAK_PARAMS)
    assert two.stats["extra"]["arrow_restart"]["asobs"]["score"] == asobs["score"]
    assert two.chosen == one.chosen


def test_no_asobs_start_under_structural_constraints() -> None:
    """ASOBS knows only the table: with structural rows the arrow model starts from the root's network."""
    from gobnilp_py.constraints import StructuralConstraints
    from gobnilp_py.ilp import settings

    table = _table(1, 8, 8)
    assert optimum(table, arrow_restart=0.0, model_options=WEAK,   # without the rows it would run
                   params=WEAK_PARAMS).stats["extra"]["arrow_restart"]["root_gap"] >= settings.ASOBS_START_GAP
    cons = StructuralConstraints(forbidden_arrows=[(table.names[0], table.names[1])])
    sol = optimum(table, constraints=cons, arrow_restart=0.0, model_options=WEAK, params=WEAK_PARAMS)
    info = sol.stats["extra"]["arrow_restart"]
    assert info["restarted"] is True and "asobs" not in info
    assert sol.status == "optimal"


@pytest.mark.parametrize("seed", range(3))
def test_no_asobs_start_below_its_root_gap(seed: int, monkeypatch) -> None:
    """A rebuilt model whose root gap is below ``ASOBS_START_GAP`` starts from the root's network alone."""
    from gobnilp_py.ilp import settings

    monkeypatch.setattr(settings, "ASOBS_START_GAP", math.inf)
    _, _, info = _solved(_table(seed, 9, 8), 0.0)
    assert info["restarted"] is True and "asobs" not in info
