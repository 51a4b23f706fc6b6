"""ScoreTable -> SCIP model: family variables, one parent set per node, acyclicity.

The model (GOBNILP's) has one binary variable per candidate family, the local
score as objective (maximised) and a set-partitioning row per node.  Acyclicity
is not written down (it has exponentially many cluster inequalities): the
handler of :mod:`gobnilp_py.ilp.acyclicity` separates them lazily.

``build_model`` is also the foundation of the epsilon-BNSL collector: callers
pass SCIP parameter overrides and may add their own handlers, variables and
constraints to the returned :class:`FamilyModel`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pyscipopt

from .._memory import format_bytes, memory_room
from ..constraints.structural import StructuralConstraints
from ..errors import ConfigError, SolverError
from ..scoring.table import ScoreTable
from ..search.family_index import FamilyIndex
from .packing import add_packing_rows, packing_clusters
from .settings import DEFAULT_PARAMS
from .stats import SolveStats

__all__ = ["FamilyModel", "build_model", "ILP_BYTES_PER_FAMILY", "check_memory"]

#: Memory the ILP takes per candidate family, about: SCIP's variable, its transformed copy after
#: presolve, its LP column and the cuts over it, and our Python handle.  Measured: peak RSS grew by
#: 6.1 kB a family over a whole solve of a random 230,000-family table (23 nodes); rounded up.
#: GOBNILP's C program was killed by the system at 23.8 GB (5.6 kB a family) on mushroom's 4.2 M.
ILP_BYTES_PER_FAMILY = 8_000

_log = logging.getLogger(__name__)


@dataclass(eq=False)
class FamilyModel:
    """A built SCIP model and the maps needed to read and extend it.

    Attributes
    ----------
    model : pyscipopt.Model
    table : ScoreTable
        The table modelled (the drivers pass it already filtered by the structural constraints).
    x : list of list of pyscipopt.Variable
        ``x[i][k]`` is the variable of ``table.families[i][k]``.
    index : FamilyIndex
        Flat numpy view of the families; ``xflat[f]`` is the variable of flat family ``f``.
    xflat : list of pyscipopt.Variable
    stats : SolveStats
        Counters shared by the handler, the heuristic and :func:`~gobnilp_py.solve.learn.learn`.
    acyclicity : AcyclicityHandler
    heuristic : SinkHeuristic or None
    extra : dict
        Free room for other modules' variables and constraints (e.g. arrow
        variables of structural constraints), keyed by their own names.
    """

    model: pyscipopt.Model
    table: ScoreTable
    x: list[list[pyscipopt.Variable]]
    index: FamilyIndex
    xflat: list[pyscipopt.Variable]
    stats: SolveStats
    acyclicity: Any = None
    heuristic: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def families_with_arrow(self, parent: int, child: int) -> list[pyscipopt.Variable]:
        """Variables of the families of ``child`` that contain ``parent`` (the arrow ``parent -> child``)."""
        return [self.x[child][k] for k, (ps, _) in enumerate(self.table.families[child]) if parent in ps]

    def arrow_expr(self, parent: int, child: int) -> pyscipopt.Expr:
        """Linear expression equal to 1 iff the arrow ``parent -> child`` is chosen."""
        return pyscipopt.quicksum(self.families_with_arrow(parent, child))

    def chosen(self, sol: Any = None) -> list[int]:
        """Index ``k`` of the parent set chosen for each node in ``sol`` (default: the best solution)."""
        m = self.model
        sol = sol if sol is not None else m.getBestSol()
        out = []
        for i, xs in enumerate(self.x):
            vals = [m.getSolVal(sol, v) for v in xs]
            out.append(max(range(len(xs)), key=vals.__getitem__))
        return out


def build_model(table: ScoreTable, *, constraints: StructuralConstraints | None = None,
                params: Mapping[str, Any] | None = None, verbose: bool = False,
                heuristic: bool = True, pair_cuts: bool = False, propagate: bool = True,
                cycle_cuts: bool = True, subip_cuts: bool = True, min_violation: float = 0.05,
                sepafreq: int = 10, subip_params: Mapping[str, Any] | None = None,
                enumerate_max_nodes: int = 14, kcluster_max: int = 3, kcluster_depth: int = 0,
                kcluster_rounds: int = 10,
                arrow_vars: bool = False, sparse_cuts: bool = True, packing: int = 0,
                kcluster_subip: bool = False, four_node_cuts: bool = True, four_node_depth: int = 1_000_000,
                four_node_max: int = 100, four_node_after_clusters: bool = False, light_depths: int = 0,
                sink_loop_depth: int = 0, stats: SolveStats | None = None) -> FamilyModel:
    """Build the family-variable ILP of ``table`` with the acyclicity handler attached.

    Parameters
    ----------
    table : ScoreTable
    constraints : StructuralConstraints, optional
        Added as linear rows over the family variables
        (:func:`~gobnilp_py.ilp.structural_rows.add_structural_rows`).  Every
        kind is written as a row, including those ``filter_table`` already
        enforces, so the model is right on a filtered or an unfiltered table;
        the drivers filter first, which makes those rows trivial (presolve
        removes them) and the model smaller.
    params : mapping, optional
        SCIP parameter overrides, applied last (e.g. ``{"limits/time": 60}``).
    verbose : bool
        Show SCIP's log.
    heuristic : bool
        Include the sink heuristic.
    sink_loop_depth : int
        The sink heuristic also runs after every LP of the cut loop at nodes down to this depth (``-1``: at
        every depth); deeper, once after each node's LP (:func:`~gobnilp_py.ilp.heuristic.add_sink_heuristic`).
    pair_cuts : bool
        Add the cluster inequalities of all node pairs as initial rows.  Off
        by default: measured slower (zoo 2.4 s without, 12 s with; tic-tac-toe
        and wine also slower), because the cycle heuristic finds the pairs
        that matter anyway and the extra rows made the sub-IPs harder.
    arrow_vars : bool
        Add binary arrow variables linked to the families (``fm.extra["arrows"]``),
        as GOBNILP does; off by default (measured, see docs/solver.md).
    packing : int
        ``s >= 3``: add, before solving, the set-packing row of every cluster of 3 .. ``s`` nodes
        in which each member has a family containing all the others (at most one member can
        take all the others as parents; :mod:`~gobnilp_py.ilp.packing`).  Valid for every DAG,
        so exact under enumeration too.  ``0`` (default): none.
    propagate, cycle_cuts, subip_cuts, min_violation, sepafreq, subip_params, enumerate_max_nodes,
    kcluster_max, kcluster_depth, kcluster_rounds, sparse_cuts, kcluster_subip, four_node_cuts,
    four_node_depth, four_node_max, four_node_after_clusters, light_depths
        Options of the acyclicity handler (see :class:`~gobnilp_py.ilp.acyclicity.AcyclicityHandler`).
        ``sepafreq=10`` (cluster separation at the root and every 10th depth; SCIP re-adds pooled
        cuts in between) and ``sparse_cuts=True`` were measured in session 12 (``docs/solver.md``,
        Cut rows): soybean 180 -> 112 s, adult 76 -> 47 s, nltcs 45 -> 20 s, none slower.
    stats : SolveStats, optional
        Counters to fill (a new object by default).

    Returns
    -------
    FamilyModel
    """
    from .acyclicity import add_acyclicity
    from .heartbeat import add_heartbeat
    from .heuristic import add_sink_heuristic
    from .structural_rows import add_structural_rows

    stats = stats if stats is not None else SolveStats()
    t0 = time.perf_counter()
    _check_params(subip_params or {}, "sub-IP")
    if isinstance(packing, bool) or not isinstance(packing, int) or (packing != 0 and packing < 3):
        raise ConfigError(f"model option packing must be 0 (no rows) or a cluster size of at least 3, got {packing!r}")
    if isinstance(sink_loop_depth, bool) or not isinstance(sink_loop_depth, int) or sink_loop_depth < -1:
        raise ConfigError(f"model option sink_loop_depth must be a depth (0 = the root only) or -1 (every depth), "
                          f"got {sink_loop_depth!r}")
    check_memory(table)
    index = FamilyIndex.from_table(table)
    m = pyscipopt.Model("gobnilp")
    if not verbose:
        m.hideOutput()
    x: list[list[pyscipopt.Variable]] = []
    names = table.names
    for i, fams in enumerate(table.families):
        row = [m.addVar(name=f"{names[i]}<-{','.join(names[p] for p in ps)}", vtype="B", obj=sc)
               for ps, sc in fams]
        x.append(row)
        m.addCons(pyscipopt.quicksum(row) == 1, name=f"one_parent_set#{names[i]}")
    m.setMaximize()
    xflat = [v for row in x for v in row]
    fm = FamilyModel(model=m, table=table, x=x, index=index, xflat=xflat, stats=stats)
    if pair_cuts:
        stats.initial_pair_cuts = _add_pair_cuts(fm)
    if packing:
        stats.extra["packing_rows"] = add_packing_rows(m, xflat, packing_clusters(index, packing), names)
    if arrow_vars:
        fm.extra["arrow_families"] = _add_arrow_vars(fm)
        fm.extra["arrows"] = {k: a for k, (a, _) in fm.extra["arrow_families"].items()}
    fm.acyclicity = add_acyclicity(m, index, xflat, stats, sepafreq=sepafreq, propfreq=1 if propagate else -1,
                                   min_violation=min_violation, cycle_cuts=cycle_cuts,
                                   subip_cuts=subip_cuts, propagate=propagate,
                                   subip_params=dict(subip_params or {}),
                                   enumerate_max_nodes=enumerate_max_nodes, kcluster_max=kcluster_max,
                                   kcluster_depth=kcluster_depth, kcluster_rounds=kcluster_rounds,
                                   sparse_cuts=sparse_cuts, kcluster_subip=kcluster_subip,
                                   four_node_cuts=four_node_cuts, four_node_depth=four_node_depth,
                                   four_node_max=four_node_max, four_node_after_clusters=four_node_after_clusters,
                                   light_depths=light_depths)
    if heuristic:
        derived = [(a, fams) for (_, _), (a, fams) in fm.extra.get("arrow_families", {}).items()]
        fm.heuristic = add_sink_heuristic(m, index, xflat, stats, derived=derived, loop_depth=sink_loop_depth)
    if constraints is not None:
        add_structural_rows(constraints, fm)
    fm.extra["heartbeat"] = add_heartbeat(m)
    for key, value in {**DEFAULT_PARAMS, **dict(params or {})}.items():
        try:
            m.setParam(key, value)
        except (KeyError, LookupError, ValueError, TypeError) as exc:
            raise ConfigError(f"bad SCIP parameter {key!r}={value!r}: {exc}") from None
    stats.time_build += time.perf_counter() - t0
    _log.debug("built model: %d nodes, %d families", table.n, index.F)
    return fm


def check_memory(table: ScoreTable, room: int | None = None) -> None:
    """Refuse, in one line, a table whose ILP would not fit in the memory this process has left.

    Why: a model over millions of families (a constant column keeps every parent set: its scores
    all tie) took the whole machine before SCIP failed, or died with a bare ``MemoryError``.
    ``room`` defaults to :func:`gobnilp_py._memory.memory_room`; unknown room means no check.
    """
    room = memory_room() if room is None else room
    n_fams = sum(len(f) for f in table.families)
    need = n_fams * ILP_BYTES_PER_FAMILY
    if room is None or need <= room:
        return
    hint = "; use a parent limit (palim) or fewer variables"
    tied = table.tied_variables()
    if tied:
        name, count = tied[0]
        hint = (f"; variable {name!r} alone has {count:,} candidate parent sets that all score the same, "
                "as a constant column's do: drop such columns")
    raise SolverError(f"the ILP over {n_fams:,} candidate families would need about {format_bytes(need)} of memory, "
                      f"more than the {format_bytes(room)} available{hint}")


def _add_arrow_vars(fm: FamilyModel) -> dict[tuple[int, int], tuple[pyscipopt.Variable, list[int]]]:
    """Binary ``a[p, c] = sum of c's families containing p`` (GOBNILP's arrow variables; branching candidates)."""
    idx, m = fm.index, fm.model
    by_arrow: dict[tuple[int, int], list[int]] = {}
    for f, p, c in zip(idx.inc_fam.tolist(), idx.inc_par.tolist(), idx.inc_child.tolist()):
        by_arrow.setdefault((p, c), []).append(f)
    names = fm.table.names
    arrows = {}
    for (p, c), fams in sorted(by_arrow.items()):
        a = m.addVar(name=f"arrow#{names[p]}->{names[c]}", vtype="B", obj=0.0)
        m.addCons(a - pyscipopt.quicksum(fm.xflat[f] for f in fams) == 0, name=f"arrow_link#{p}#{c}")
        arrows[(p, c)] = (a, fams)
    return arrows


def _check_params(params: Mapping[str, Any], what: str) -> None:
    """Fail early (ConfigError) on SCIP settings the sub-IP would only reject mid-solve."""
    if not params:
        return
    probe = pyscipopt.Model()
    probe.hideOutput()
    for key, value in params.items():
        try:
            probe.setParam(key, value)
        except (KeyError, LookupError, ValueError, TypeError) as exc:
            raise ConfigError(f"bad {what} SCIP parameter {key!r}={value!r}: {exc}") from None


def _add_pair_cuts(fm: FamilyModel) -> int:
    """Add ``sum(families of u containing v) + sum(families of v containing u) <= 1`` for every pair."""
    idx, m = fm.index, fm.model
    n = idx.n
    by_arrow: dict[tuple[int, int], list[int]] = {}
    for f, p, c in zip(idx.inc_fam.tolist(), idx.inc_par.tolist(), idx.inc_child.tolist()):
        by_arrow.setdefault((p, c), []).append(f)
    added = 0
    for u in range(n):
        for v in range(u + 1, n):
            a, b = by_arrow.get((u, v)), by_arrow.get((v, u))
            if a and b:
                m.addCons(pyscipopt.quicksum(fm.xflat[f] for f in a + b) <= 1, name=f"pair#{u}#{v}")
                added += 1
    return added
