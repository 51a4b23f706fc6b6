"""Constant columns, for a task that needs one optimal network: score without them, put them back isolated.

A variable with one state (arity 1) never changes a built-in score:

* as a parent it splits no parent configuration, so ``s(v, W ∪ {c}) = s(v, W)``
  (BIC/AIC: the same log-likelihood and penalty, ``q`` times 1; BDeu/K2/BDs:
  the same counts and the same ``α/q``);
* as a child every parent set scores ``s(c, ∅) = 0`` (the likelihood of one
  state is 1, the penalty has ``r - 1 = 0`` free parameters, every Dirichlet
  term cancels).

So removing every arrow into or out of the constant variables changes no
network's score, and an optimal network of the other variables, with the
constant ones isolated, is an optimal network of the data.  Exact
ε-enumeration must instead keep every tied variant (each is a distinct
credible network), which makes a wide lattice of ties (carpo100: all 2^59 parent
sets of each of 4 constant columns): :func:`score` refuses it, and the engines
would pay for every variant.  A table made here lists ``∅`` alone for each
constant variable and carries ``meta["isolated_constants"]``: the drivers
accept it for an optimum only (``learn``), and refuse it, in one line, for
listing or ranking networks (:func:`gobnilp_py.solve.inputs.acquire_table`).

The claim is checked for every built-in score by ``tests/test_constant_columns.py``;
a score registered by a user may not satisfy it, so only the built-in classes
(:data:`NEUTRAL_SCORES`) are reduced.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..data import Dataset
from .engine import score
from .local_scores import AIC, BIC, BDeu, BDs, K2, make_score
from .table import ISOLATED_CONSTANTS_KEY, ScoreTable

__all__ = ["NEUTRAL_SCORES", "constant_columns", "without_columns", "isolating_constants", "score_for_optimum",
           "IsolatedCore", "isolated_core"]

#: Built-in scores for which a constant column is neutral (see the module docstring); exact classes,
#: not subclasses, since a subclass may change the formula.
NEUTRAL_SCORES: tuple[type, ...] = (BIC, AIC, BDeu, K2, BDs)


def constant_columns(data: Dataset) -> list[int]:
    """Indices of the variables with one state (arity 1)."""
    return [j for j, a in enumerate(data.arities.tolist()) if a == 1]


def without_columns(data: Dataset, drop: list[int]) -> Dataset:
    """``data`` without the columns ``drop`` (names, arities, codes and labels kept for the others)."""
    gone = set(drop)
    keep = [j for j in range(data.n) if j not in gone]
    labels = tuple(data.labels[j] for j in keep) if data.labels else ()
    return Dataset(tuple(data.names[j] for j in keep), data.arities[keep], data.codes[:, keep], labels, data.source)


def isolating_constants(data: Dataset, scoring_options: Mapping[str, Any]) -> list[int]:
    """The constant columns :func:`score_for_optimum` would isolate (empty: score the data as they are).

    Empty when the score is not a built-in one (a user's score may not be
    neutral to a constant column, and an instance is bound to the full data),
    when every column is constant, or when ``unpruned`` names a constant
    variable (the caller asked for its parent sets).
    """
    drop = constant_columns(data)
    if not drop or len(drop) == data.n:
        return []
    spec = scoring_options.get("score", "BIC")
    if not isinstance(spec, (str, type)):
        return []
    try:
        sc = make_score(spec, data, ess=float(scoring_options.get("ess") or 1.0))
    except Exception:   # an invalid score name: let score() give its own message
        return []
    if type(sc) not in NEUTRAL_SCORES:
        return []
    named = {str(u) for u in scoring_options.get("unpruned") or ()}
    if named & {data.names[j] for j in drop}:
        return []
    return drop


def score_for_optimum(data: Dataset, scoring_options: Mapping[str, Any]) -> ScoreTable:
    """A table holding an optimal network of ``data``: :func:`~gobnilp_py.scoring.score` with ``scoring_options``,
    the constant columns (when :func:`isolating_constants` allows) scored out and put back with ``∅`` alone.

    The reduced table's guarantee (ε, pruning counters, parent limit) holds
    for the other variables; ``meta["isolated_constants"]`` names the isolated
    ones, whose ``∅`` score is computed by the same score on the full data (0
    for every built-in score).
    """
    drop = isolating_constants(data, scoring_options)
    if not drop:
        return score(data, **scoring_options)
    reduced = without_columns(data, drop)
    table = score(reduced, **scoring_options)
    sc = make_score(scoring_options.get("score", "BIC"), data, ess=float(scoring_options.get("ess") or 1.0))
    return _widen(table, data, drop, [sc.compute(c, ()) for c in drop])


def _widen(table: ScoreTable, data: Dataset, drop: list[int], empty_scores: list[float]) -> ScoreTable:
    """``table`` (over the columns not in ``drop``) over all of ``data``'s columns, each dropped one with ``∅``."""
    gone = set(drop)
    keep = [j for j in range(data.n) if j not in gone]
    families: list[list[tuple[tuple[int, ...], float]]] = [[] for _ in range(data.n)]
    for i, fams in enumerate(table.families):
        families[keep[i]] = [(tuple(keep[p] for p in ps), s) for ps, s in fams]   # increasing: stays sorted
    for c, s in zip(drop, empty_scores):
        families[c] = [((), float(s))]
    names = [data.names[c] for c in drop]
    meta = dict(table.meta)
    meta["arities"] = [int(a) for a in data.arities]
    meta[ISOLATED_CONSTANTS_KEY] = names
    # per-variable entries: no non-unit parent, and LL(c | everything else) = 0 for a constant child
    for key, value in (("max_nonunit_parents", 0), ("palim_auto", 0), ("ll_all_others", 0.0)):
        if isinstance(meta.get(key), dict):
            meta[key] = {**meta[key], **dict.fromkeys(names, value)}
    pruning = {**table.pruning, **{nm: {} for nm in names}} if table.pruning else {}
    # valid by construction (the scored table's families renumbered), as isolated_core's are
    return ScoreTable.from_scoring(data.names, families, epsilon=table.epsilon, score_name=table.score_name,
                                   pruning=pruning, meta=meta)


@dataclass(frozen=True)
class IsolatedCore:
    """A table's variables other than its isolated constants, for the search alone.

    Why: an isolated variable has ``∅`` alone and is nobody's parent, so it
    adds nothing to search but size (an order graph or DP over 2^n subsets
    doubles with each).  :meth:`widen` maps the core's solution back to the
    full table: each isolated variable takes its one family, and the optimum
    and dual bound gain their ``∅`` scores (``offset``).
    """

    table: ScoreTable          # the core: the other variables, parents renumbered
    keep: tuple[int, ...]      # the core's variables' positions in the full table
    n_full: int
    offset: float              # Σ s(c, ∅) over the isolated variables

    def widen(self, sol: Any) -> Any:
        """``sol`` (a :class:`~gobnilp_py.search.results.Solution` of the core) over the full table."""
        if sol.chosen is None:
            chosen = None
        else:
            full = [0] * self.n_full
            for i, c in zip(self.keep, sol.chosen):
                full[i] = int(c)
            chosen = tuple(full)
        dual = None if sol.dual_bound is None else sol.dual_bound + self.offset
        return replace(sol, score=sol.score + self.offset, chosen=chosen, dual_bound=dual)


def isolated_core(table: ScoreTable) -> IsolatedCore | None:
    """The core of ``table`` without its isolated constant variables, or ``None`` when it has none (or a
    hand-made table lists one as a parent, so it is not isolated after all)."""
    iso = {table.index(c) for c in table.isolated_constants}
    if not iso or len(iso) == table.n:
        return None
    if any(set(ps) & iso for fams in table.families for ps, _ in fams):
        return None
    keep = tuple(j for j in range(table.n) if j not in iso)
    to_core = {j: i for i, j in enumerate(keep)}
    families = [[(tuple(to_core[p] for p in ps), s) for ps, s in table.families[j]] for j in keep]
    names = [table.names[j] for j in keep]
    meta = {k: v for k, v in table.meta.items() if k != ISOLATED_CONSTANTS_KEY}
    kept = set(names)
    pruning = {k: v for k, v in table.pruning.items() if k in kept}
    core = ScoreTable.from_scoring(names, families, epsilon=table.epsilon, score_name=table.score_name, meta=meta,
                                   pruning=pruning)
    offset = math.fsum(table.families[c][0][1] for c in sorted(iso))
    return IsolatedCore(core, keep, table.n, offset)
