"""Branching on class-invariant quantities (adjacencies, then v-structures) for class-level collection.

Why.  Class-level collection excludes a whole Markov equivalence class with one class nogood
(:mod:`.class_nogood`), but the row is part of the LP only in the subtree where it was added.
SCIP's own branching fixes single family variables, i.e. it splits the members of a class
(DAGs that orient the same skeleton differently) across sibling subtrees; every subtree that
still holds a member can reach it again, and the collector must cut it off again there
(``nogood_recuts``).  On hailfinder100 BF 150 that happened 443,531 times for 40,344 classes.
This rule branches first on quantities that are the same for every member of a class:

* the **adjacency** of two nodes ``a, b``: ``s_ab = Σ x[a, W] (b ∈ W) + Σ x[b, W] (a ∈ W)``;
* then, once no adjacency is fractional, the **v-structure** ``a → c ← b`` of two nodes the LP
  point leaves non-adjacent: ``v_abc = Σ x[c, W] (a, b ∈ W)``.

A class's members then stay together in one subtree as long as these branchings decide the
point; only when every such quantity is integral does SCIP's own rule branch on a family.

Why it is exact.  A branching rule never removes a point if its children together hold every
point of the node.  For an adjacency, every *acyclic* integral point has ``s_ab ∈ {0, 1}`` (one
parent set per node, and ``b ∈ W_a`` and ``a ∈ W_b`` together are a 2-cycle); a cyclic integral
point has ``s_ab ≤ 2``.  The children are ``s_ab = 0`` (every family counted by ``s_ab`` fixed
to 0) and ``s_ab ≥ 1`` (a local linear constraint), so every integral point, acyclic or not,
lies in one of them.  For a v-structure ``v_abc`` counts the families of the single node ``c``,
so ``v_abc ∈ {0, 1}`` at every integral point, with the same two children.  Both children cut
off the LP point (its ``s`` or ``v`` lies strictly between 0 and 1), so the search makes
progress; when no quantity is fractional the rule returns ``DIDNOTRUN`` and SCIP's rule branches.
The acyclicity handler and the collector are untouched: every integral point still passes
their enforcement, so the collector's records and exclusions are the same as before.

When it pays.  Keeping a class in one subtree saves the re-cuts of its members, so the rule pays
where classes are large, and costs more nodes and heavier LPs (its local rows) where they are
small.  Measured (``benchmarks/results/class-invariant-branching-hailfinder.md``, same tables, rule on / off):
hailfinder100 BF 150 (thousands of DAGs per class) 656 -> 131 s, wine BF 150 (27.5 DAGs per class)
57 -> 13 s, alarm1000 BF 150 (10.3) 5.4 -> 3.4 s, voting BF 150 (13.1) 1.5 -> 0.8 s; but zoo BF 150
(4.4 DAGs per class) is complete in 124 s without it and incomplete after 180 s with it.  The start
of the search shapes the rest of the tree: with the rule on only after 32 classes found by SCIP's
branching, hailfinder100 BF 150 took 317 s (42,070 re-cuts), and zoo with the rule off after its
first 64 classes still took 166 s.  So the rule branches from the start and decides once, when the
collector has recorded :data:`DECIDE_AFTER` classes, whether to go on: only if those classes have
at least :data:`MIN_MEAN_CLASS_SIZE` members on average (the first 32 classes: zoo 5.5,
insurance1000 9.4, alarm1000 11.8, voting 13.2, wine 38.7); otherwise SCIP branches alone from
then on.  The first class *recorded* does not tell (zoo's, at BF 150, has 10 members).

Decided too late, though, the rule still shapes the tree: on wdbc (BF 3, 63 classes of 6.3 members)
the first class came after 262 nodes and 87 s of class branching, the 32nd at 350 nodes, and the
collection took 1,234 s against 157-172 s with the rule off
(``benchmarks/results/wide-aims-final-rerun.md``, ``class-branching-optimum-class.md``).  So when
the optimum search hands over the optimum (:class:`gobnilp_py.ilp.engine.SearchReuse`), the rule is
off from the start if the *optimum's* class has fewer than :data:`MIN_OPTIMUM_CLASS_SIZE` members.  The
optimum's classes (BIC, counted): zoo 3, wdbc 5 (where the rule loses); alarm1000 8, bands 8,
insurance1000 10, voting 13, tic-tac-toe 24, wine 48, hailfinder100 11,520 (where it wins or is
level), so on those the rule runs as before.  Either way the search is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyscipopt
from pyscipopt import SCIP_RESULT

from ._callbacks import TransformedVars, logged_callback
from ..search.family_index import FamilyIndex

__all__ = ["ClassBranching", "include_class_branching"]

#: A quantity is branched on only when it lies in (TOL, 1 - TOL): far enough from 0 and 1 that the LP
#: point violates both children by more than SCIP's feasibility tolerance (1e-6), so that each child's LP
#: moves away from it (no endless re-branching on the same point).  Points whose quantities are all within
#: TOL of an integer are left to SCIP's rule.
TOL = 1e-3

#: The rule decides whether to go on once this many classes are recorded (module docstring, "When it
#: pays"); 0 keeps it on always (tests).
DECIDE_AFTER = 32

#: ... and goes on if those classes have at least this many members on average.
MIN_MEAN_CLASS_SIZE = 7.0

#: The rule is off from the start when the optimum's class has fewer members than this (when the
#: optimum search handed the optimum over; module docstring); 0 never turns it off this way (tests).
MIN_OPTIMUM_CLASS_SIZE = 7


class ClassBranching(TransformedVars, pyscipopt.Branchrule):
    """Branch on the most fractional adjacency, else on the most fractional v-structure (module docstring)."""

    def __init__(self, index: FamilyIndex, xvars: Sequence[pyscipopt.Variable],
                 class_sizes: Callable[[int], list[int]] | None = None,
                 optimum_class_size: int | None = None) -> None:
        self.index = index
        self.xvars = list(xvars)
        #: members of the first classes recorded (see :data:`DECIDE_AFTER`)
        self._class_sizes = class_sizes
        #: None until decided (the rule branches meanwhile); then whether it goes on branching
        self.active: bool | None = None if class_sizes is not None else True
        #: members of the optimum's class, when the optimum search handed it over (module docstring)
        self.optimum_class_members = optimum_class_size
        if class_sizes is not None and optimum_class_size is not None and optimum_class_size < MIN_OPTIMUM_CLASS_SIZE:
            self.active = False
        n = index.n
        # adjacency: incidence (family f, parent p, child c) -> unordered pair id
        lo = np.minimum(index.inc_par, index.inc_child)
        hi = np.maximum(index.inc_par, index.inc_child)
        self._pair_of_inc = (lo * n + hi).astype(np.int64)
        self._inc_fam = index.inc_fam.astype(np.int64)
        self._npairs = n * n
        # v-structures: (family, pair of its parents) -> triple id (c, a, b)
        fam, tri = [], []
        for f, ps in enumerate(index.parents):
            if len(ps) < 2:
                continue
            c = int(index.child[f])
            ps = sorted(int(p) for p in ps)
            for i in range(len(ps)):
                for j in range(i + 1, len(ps)):
                    fam.append(f)
                    tri.append((c * n + ps[i]) * n + ps[j])
        self._tri_fam = np.asarray(fam, dtype=np.int64)
        self._tri_id = np.asarray(tri, dtype=np.int64)
        self._tri_uniq, self._tri_inv = np.unique(self._tri_id, return_inverse=True)
        # family lists of each adjacency pair and each triple, built on demand
        self._pair_fams: dict[int, np.ndarray] = {}
        self._tri_fams: dict[int, np.ndarray] = {}
        self.n_adjacency = 0
        self.n_vstructure = 0
        self.n_passed = 0
        #: mean members of the classes the decision read (None: not decided)
        self.mean_class_members: float | None = None

    @logged_callback
    def branchinitsol(self):
        self.forget_tvars()

    @staticmethod
    def _families(cache: dict[int, np.ndarray], ids: np.ndarray, fams: np.ndarray, key: int) -> np.ndarray:
        """The distinct families whose entries in ``ids`` equal ``key`` (cached per key)."""
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = np.unique(fams[ids == key])
        return hit

    def choose(self, xval: np.ndarray) -> tuple[str, tuple[int, ...], np.ndarray, float] | None:
        """What to branch on at the LP point ``xval``, or None (nothing fractional: SCIP's rule branches).

        Returns ``(kind, nodes, families, value)``: ``("adjacency", (a, b), ...)`` with ``a < b``, or
        ``("vstructure", (a, b, c), ...)`` for ``a → c ← b`` with ``a < b``; ``families`` are the flat
        families the quantity counts and ``value`` its LP value ``xval[families].sum()``.
        """
        n = self.index.n
        s = np.bincount(self._pair_of_inc, weights=xval[self._inc_fam], minlength=self._npairs)
        frac = np.minimum(s, 1.0 - s)
        best = int(np.argmax(frac))
        if frac[best] > TOL:
            fams = self._families(self._pair_fams, self._pair_of_inc, self._inc_fam, best)
            return "adjacency", (best // n, best % n), fams, float(s[best])
        if not self._tri_id.size:
            return None
        tid = self._tri_uniq
        v = np.bincount(self._tri_inv, weights=xval[self._tri_fam], minlength=tid.size)
        a = (tid // n) % n
        b = tid % n
        nonadj = s[a * n + b] <= TOL  # a < b by construction
        fr = np.where(nonadj, np.minimum(v, 1.0 - v), 0.0)
        k = int(np.argmax(fr))
        if fr[k] > TOL:
            t = int(tid[k])
            fams = self._families(self._tri_fams, self._tri_id, self._tri_fam, t)
            return "vstructure", (t // n % n, t % n, t // (n * n)), fams, float(v[k])
        return None

    def _decide(self) -> bool:
        """Whether to branch: yes until :data:`DECIDE_AFTER` classes are recorded, then decided once (off
        from the start when the optimum's class is small: the module docstring)."""
        if self.active is None:
            if DECIDE_AFTER <= 0:
                self.active = True
            else:
                sizes = self._class_sizes(DECIDE_AFTER)  # type: ignore[misc]
                if len(sizes) >= DECIDE_AFTER:
                    self.mean_class_members = sum(sizes) / len(sizes)
                    self.active = self.mean_class_members >= MIN_MEAN_CLASS_SIZE
        return self.active is not False

    @logged_callback
    def branchexeclp(self, allowaddcons):
        if not allowaddcons or not self._decide():
            return {"result": SCIP_RESULT.DIDNOTRUN}
        tv = self.tvars()
        xval = np.fromiter((v.getLPSol() for v in tv), dtype=np.float64, count=len(tv))
        pick = self.choose(xval)
        if pick is None:
            self.n_passed += 1
            return {"result": SCIP_RESULT.DIDNOTRUN}
        kind, _, fams, value = pick
        if kind == "adjacency":
            self.n_adjacency += 1
        else:
            self.n_vstructure += 1
        m = self.model
        vars_ = [tv[f] for f in fams.tolist()]
        estimate = m.getLocalEstimate()
        # the child nearer the LP value first
        down_prio, up_prio = (1.0, 0.0) if value < 0.5 else (0.0, 1.0)
        down = m.createChild(down_prio, estimate)
        for var in vars_:
            if var.getUbLocal() > 0.5:
                m.chgVarUbNode(down, var, 0.0)
        up = m.createChild(up_prio, estimate)
        m.addConsNode(up, pyscipopt.quicksum(vars_) >= 1, name=kind, initial=True, separate=True,
                      enforce=True, check=False, propagate=True, local=True, dynamic=False, removable=False,
                      stickingatnode=True)
        return {"result": SCIP_RESULT.BRANCHED}

    @logged_callback
    def branchexecext(self, allowaddcons):
        return {"result": SCIP_RESULT.DIDNOTRUN}

    @logged_callback
    def branchexecps(self, allowaddcons):
        return {"result": SCIP_RESULT.DIDNOTRUN}


def include_class_branching(model: pyscipopt.Model, index: FamilyIndex,
                            xvars: Sequence[pyscipopt.Variable],
                            class_sizes: Callable[[int], list[int]] | None = None,
                            optimum_class_size: int | None = None) -> ClassBranching:
    """Add the rule to ``model`` above SCIP's own rules (they still branch when it passes).

    ``class_sizes(k)``: the members of each of the first ``k`` classes the collector recorded (fewer
    while fewer are); without it the rule is always on.  ``optimum_class_size``: the members of the
    optimum's class, when known; under :data:`MIN_OPTIMUM_CLASS_SIZE` the rule is off from the start.
    """
    rule = ClassBranching(index, xvars, class_sizes, optimum_class_size)
    model.includeBranchrule(rule, "gobnilp_class", "adjacency and v-structure branching",
                            priority=1_000_000, maxdepth=-1, maxbounddist=1.0)
    return rule
