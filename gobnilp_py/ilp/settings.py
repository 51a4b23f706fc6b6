"""SCIP settings of the ILP engine, as plain data (importing this module does not load SCIP).

Three groups, each measured or proven (``docs/solver.md``, ``docs/enumeration.md``):

* :data:`DEFAULT_PARAMS` -- applied to every model before the caller's overrides;
* :data:`ENUMERATION_PARAMS` -- what exact collection (ε-sets, k-best, re-solves with
  nogoods) *relies on*; a caller may never override them for those jobs, and the
  config refuses them there;
* :data:`COLLECT_PARAMS` / :data:`COLLECT_MODEL_OPTIONS` -- settings that only make
  the collecting search faster and are proven not to lose a network.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["DEFAULT_PARAMS", "ENUMERATION_PARAMS", "COLLECT_PARAMS", "CLASS_COLLECT_PARAMS", "COLLECT_MODEL_OPTIONS",
           "CLASS_BRANCHING", "ARROW_RESTART_GAP", "ARROW_RESTART_PARAMS", "RESUME_PARAMS",
           "ASOBS_START_GAP"]

#: SCIP settings applied before the caller's overrides (measured, see docs/solver.md).
DEFAULT_PARAMS: dict[str, Any] = {
    # SCIP's own Ctrl-C catching prints "pressed CTRL-C ..." to stdout (even with hideOutput(),
    # which would corrupt --json output) and exits the process at the fifth Ctrl-C.  Signals are
    # handled by gobnilp_py._interrupt instead: SIGINT and SIGTERM call interruptSolve(), SCIP stops
    # at its next safe point with status "userinterrupt", and the result is labelled "interrupted".
    "misc/catchctrlc": False,
    # Multi-aggregated family variables can be neither set in heuristic
    # solutions nor bounded by propagation; the convexity rows are tiny anyway.
    "presolving/donotmultaggr": True,
    # SCIP's aggregation (c-MIR) and Gomory separators spent ~9 s of a 33 s
    # zoo solve and applied almost nothing: cluster cuts do the work here.
    "separating/aggregation/freq": -1,
    "separating/gomory/freq": -1,
    # Farkas diving took 16 of the first 40 s on nltcs (8,287 families), finding nothing.
    "heuristics/farkasdiving/freq": -1,
    # Cluster cuts of overlapping clusters are nearly parallel; SCIP's default cut
    # selection (minimum orthogonality 0.9) threw most of them away and the root
    # bound of nltcs stalled: after 60 s -19928 with it, -20026 without (OPT -20033.6).
    "cutselection/hybrid/minortho": 0.0,
    "cutselection/hybrid/minorthoroot": 0.0,
    # Zero-half cuts ({0, 1/2}-combinations of the convexity rows and the cluster and four-node cuts)
    # carry half of the C program's root bound on alarm10000 (benchmarks/results/gobnilp-cut-families-ablation.md);
    # SCIP stops them after 20 root rounds, long before our cuts have built the rows they combine.  With
    # every root round: root bound -105,813 -> -105,948 (OPT -106,363), and the solve proved in 87 s
    # instead of a 0.30 % gap at 120 s (docs/solver.md, "Four-node cuts and zero-half rounds").
    "separating/zerohalf/maxroundsroot": -1,
}


#: An optimum search whose root node leaves at least this relative gap (SCIP's) goes on in a model with
#: arrow variables (:func:`gobnilp_py.ilp.engine._restart_with_arrows`); ``math.inf``: never.  Measured
#: (docs/solver.md): the rebuild paid where the root left 0.49-2.3 % (alarm10000 104.7 -> 63.3 s, soybean
#: 149.0 -> 137.9 s, zoo 6.4 -> 5.4 s) and lost where it left 0.06-0.21 % (hailfinder5000, insurance10000,
#: hepar2: short trees); the threshold lies between.
ARROW_RESTART_GAP: float = 0.003

#: SCIP settings of the model rebuilt with arrow variables, under the caller's own.  SCIP's knapsack
#: separation (lifted covers of the cut rows) slows down once the arrow links are in the model: restart
#: after hailfinder5000's root 19.3 -> 16.5 s without it (``docs/solver.md``).
ARROW_RESTART_PARAMS: dict[str, Any] = {"constraints/knapsack/sepafreq": -1}

#: SCIP settings of the tree an optimum search resumes when its root leaves a gap below ``ARROW_RESTART_GAP``
#: (the same model goes on), under the caller's own: less strong branching (reliability after one strong
#: branch instead of SCIP's 1-5).  Those trees are short and their strong branching LPs cost more than the
#: nodes they save: hepar2 at 10,000 rows 9.9 -> 8.3 s and 10.3 -> 8.1 s (119 -> 121 nodes), adult BIC BF 3
#: 29.3 -> 27.8 s, hailfinder5000, insurance10000 and nltcs unchanged.  Not for the arrow model: there it
#: doubled the tree (soybean BIC BF 3 140 -> 207 s, alarm10000 61 -> 65 s); docs/solver.md.
RESUME_PARAMS: dict[str, Any] = {"branching/relpscost/minreliable": 0, "branching/relpscost/maxreliable": 1}

#: Root gap (relative, SCIP's) at or above which the model rebuilt with arrow variables also gets an ASOBS
#: search's network as its first solution when it beats the root's (``engine._better_start``).  Measured:
#: win95pts1000 (root gap 5.9 %) 120 s incumbent -9,978.5 -> -9,769.0, the C program's -9,899.3; but where the
#: root gap is small a better first solution made the tree slower (alarm10000, gap 0.49 %: 62.7 -> 81.8 s;
#: zoo BIC BF 3, 0.65 %: 5.5 -> 10.5 s), so only large gaps get it (docs/solver.md).
ASOBS_START_GAP: float = 0.05

#: SCIP settings without which an enumeration can miss networks (checked
#: against brute force: with SCIP defaults one run found 28 of 43 solutions).
ENUMERATION_PARAMS: dict[str, object] = {
    "misc/allowstrongdualreds": False,
    "misc/usesymmetry": 0,
    "presolving/maxrestarts": 0,
    # When presolving leaves few variables SCIP may detect an "integral" objective (tied networks make the
    # differences of scores look like multiples of one step) and round the cutoff bound to that lattice,
    # which cut off a tied network in our tests.  Keep the objective as it is.
    "misc/scaleobj": False,
}

#: Settings that only make the collecting search faster; none of them can lose a network (each one
#: removes work that prunes nothing, or pruning that SCIP would only have done by the cutoff bound).
#: Measured on wine BF 20 (3,449 networks), CPU seconds of the collection: about 21 with the learning
#: settings, 7.7 with these and :data:`COLLECT_MODEL_OPTIONS` (see docs/enumeration.md).
COLLECT_PARAMS: dict[str, object] = {
    # Primal heuristics can never succeed here (the collector rejects every point in ``conscheck``);
    # they are switched off by ``setHeuristics(OFF)`` in the caller, and rapid learning (a sub-SCIP
    # run on a copy without our handlers) with them.
    "separating/rapidlearning/freq": -1,
    # Conflict analysis derives its conflicts from the (fixed) cutoff bound; exact, but it cost more
    # time than the nodes it saved (wine BF 20: 3.7 s of analysis).
    "conflict/enable": False,
    # Depth first: each child LP starts from its parent's basis.  With no incumbent the cutoff never
    # moves, so best-bound order has nothing to gain; node order never removes a point.
    "nodeselection/dfs/stdpriority": 1_000_000,
    # Inference branching instead of reliability pseudo-costs: no strong branching LPs.  More nodes but
    # cheaper ones; collection CPU time -18% (wine BF 20) to -40% (zoo BF 3), never worse in our runs.
    "branching/inference/priority": 100_000,
}

#: The settings of a *class-level* collecting search: :data:`COLLECT_PARAMS` without depth-first node
#: selection and inference branching, i.e. SCIP's own choices (best-estimate node selection with plunging,
#: reliability pseudo-cost branching).  Node and branching order never remove a point (the cutoff is the fixed
#: objective limit), so this is a speed setting only.  Why: a class-level search records one point per class
#: and excludes each class with a dense class nogood; depth first with inference branching then spent
#: ~50 nodes per class on hailfinder100 BF 20 (1,834 classes in 200 s, unfinished, global bound stuck at
#: the optimum), where SCIP's defaults need ~10 per class and finish (1,880 classes in 87 s), with a global
#: bound that falls steadily, i.e. a useful certified threshold when a time limit stops the search
#: (``benchmarks/results/hailfinder-class-collection.md``).
CLASS_COLLECT_PARAMS: dict[str, object] = {
    k: v for k, v in COLLECT_PARAMS.items()
    if k not in ("nodeselection/dfs/stdpriority", "branching/inference/priority")}

#: A class-level collecting search branches first on adjacencies and v-structures, quantities every member
#: of a Markov equivalence class shares (:mod:`~gobnilp_py.ilp.class_branching`), and leaves SCIP's rule to
#: branch on family variables only when none of them is fractional.  Exact: the two children of every such
#: branching hold every integral point of the node between them.  Why: SCIP's rule fixes single families and
#: so splits a class's members over sibling subtrees, each of which could reach the class again after its
#: nogood row was added elsewhere; hailfinder100 BF 150 re-cut 443,531 points for 40,344 classes in 1,074,081
#: nodes (634 s); with this rule 5 re-cuts in 89,439 nodes (103 s; ``benchmarks/results/class-invariant-branching-hailfinder.md``).
#: ``False`` (for measurements) restores SCIP's branching.
CLASS_BRANCHING: bool = True

#: :func:`~gobnilp_py.model.builder.build_model` options of the collecting search.  Cluster cuts
#: are separated at the root only (cycle heuristic, then the exact sub-IP); in the tree the
#: acyclicity handler still *enforces* every integral point (forced cuts of its cycles), so no cyclic
#: point is ever recorded and no acyclic one is ever cut.  Arrow propagation is off: it fixes only
#: families that would close a cycle, so dropping it loses nothing, and it cost more than it saved.
COLLECT_MODEL_OPTIONS: dict[str, object] = {"sepafreq": 0, "propagate": False}
