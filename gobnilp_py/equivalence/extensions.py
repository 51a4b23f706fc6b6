"""Member DAGs of a Markov equivalence class: exact counting, listing and arrow counts.

The members of a class are the *consistent extensions* of its CPDAG: keep
every compelled arrow and orient each undirected edge so that no directed
cycle and no new v-structure appears.  The undirected part splits into
chain components, connected chordal graphs that are oriented independently,
and on each one the admissible orientations are its *acyclic moral
orientations* (AMOs).  So a class's members are a product over components.

Counting: Clique-Picking (Wienöbst, Bannach & Liśkiewicz, AAAI 2021; JAIR
2023).  Take a clique tree ``T`` of a connected chordal graph ``G`` rooted at
some clique.  For every AMO there is exactly one maximal clique ``K`` (a node
of ``T``) and one order ``pi`` of ``K`` such that the AMO has a topological
order starting with ``pi`` and ``pi`` has no prefix in ``FP(K)``, the edge
separators on the path from ``K`` to the root that lie inside ``K``.  Putting
``K`` first in order ``pi`` and closing with Meek's rules leaves undirected
components ``C_G(K)`` that do not depend on ``pi``, so::

    #AMO(G) = sum over cliques K of  phi(K, FP(K)) * prod_{H in C_G(K)} #AMO(H)

where ``phi`` counts the orders of ``K`` without a forbidden prefix
(inclusion-exclusion on the first forbidden prefix hit: the prefixes are
nested, ``R_1 < R_2 < ...``, so ``phi(S) = |S|! - sum_i phi(R_i) (|S|-|R_i|)!``
with ``phi(R_i)`` taken over the prefixes inside ``R_i``).  Memoised on the
subproblem's node set, the recursion is polynomial (the paper's bound); the
exact integers are Python ints.

Listing: the same partition read as a tree of choices (clique, order of the
clique, then a member of each remaining component) enumerates every member
exactly once, in a fixed order.  Every choice left open leads to at least one
member (an order of ``K`` avoiding a chain of proper subsets as prefixes can
always be completed), so the delay between two outputs is polynomial.
Components with few orientations are listed once and reused.

Constraints that are not class-invariant (required and forbidden arrows, a
per-node parent limit, an "allowed family" predicate) act node by node: a
node's parent set is fixed at the level of the recursion where it is placed
(inside ``K``: its predecessors in ``pi``; outside: the arrows the closure
forces, plus its parents inside the component it falls in).  So the same
recursion counts and lists the members satisfying them, with the order of
``K`` counted by a dynamic programme over the subsets of ``K`` (the parents
of a node of ``K`` are the set of nodes before it, whatever their order).
Listing is then guided by the counts, so it never enters a branch without a
member.  With constraints the subproblems are keyed by node set and the
parents each node already has (counting with arbitrary background knowledge
is #P-hard; Wienöbst et al. 2023), and the cost is exponential only in the
size of the cliques the constraints touch.

Arrow counts (members with ``u -> v`` for every edge) follow from the same
recursion: an edge inside ``K`` is oriented by ``pi`` (counted by the
pair-restricted version of ``phi``), an edge forced by the closure has one
direction for all members under that clique, and an edge inside a remaining
component is counted there and scaled by the other factors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from typing import TYPE_CHECKING, Any

from ..errors import ConstraintError
from .chordal import bits, clique_tree, closure_after_clique, components, forbidden_prefixes, n_edges

if TYPE_CHECKING:  # pragma: no cover
    from .cpdag import CPDAG

__all__ = [
    "MemberConstraints",
    "Extensions",
    "count_members",
    "iter_members",
    "arrow_counts",
]

#: Orientations of a component are kept in memory (and reused for every
#: combination with the other components) when there are at most this many.
MATERIALISE_LIMIT = 1 << 14


# --------------------------------------------------------------------------- #
# forbidden-prefix counting (closed forms, exact ints)
# --------------------------------------------------------------------------- #


@lru_cache(maxsize=4096)
def _phi(k: int, sizes: tuple[int, ...]) -> int:
    """Orders of a ``k``-set with no prefix among nested subsets of sizes ``sizes`` (ascending, < k).

    Split the orders that do hit a forbidden prefix by the *first* (smallest)
    one hit, ``R_i``: such an order is an order of ``R_i`` with no smaller
    forbidden prefix, followed by any order of the rest.
    """
    total = math.factorial(k)
    for i, s in enumerate(sizes):
        total -= _phi(s, sizes[:i]) * math.factorial(k - s)
    return total


@lru_cache(maxsize=16384)
def _phi_pair(k: int, sizes: tuple[int, ...], a: int, b: int) -> int:
    """As :func:`_phi`, counting only the orders in which ``u`` comes before ``v``.

    ``u`` lies in the forbidden prefixes ``R_a, R_a+1, ...`` and ``v`` in
    ``R_b, ...`` (``a`` or ``b`` = ``len(sizes)``: in none of them).  First-hit
    split again: if the first hit ``R_i`` holds both, recurse; only ``u``,
    all its completions qualify; only ``v``, none; neither, half of the
    orders of the rest put ``u`` first.
    """
    total = math.factorial(k) // 2
    for i, s in enumerate(sizes):
        if i >= a and i >= b:
            total -= _phi_pair(s, sizes[:i], a, b) * math.factorial(k - s)
        elif i >= a:  # u inside R_i, v after it
            total -= _phi(s, sizes[:i]) * math.factorial(k - s)
        elif i >= b:  # v inside R_i, u after it: never u before v
            continue
        else:
            total -= _phi(s, sizes[:i]) * (math.factorial(k - s) // 2)
    return total


# --------------------------------------------------------------------------- #
# constraints
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class MemberConstraints:
    """Constraints on the members of a class that are not class-invariant.

    All nodes are indices into the CPDAG's ``names``; parent sets are bitmasks
    (bit ``j`` = ``names[j]``).

    Attributes
    ----------
    required : frozenset of (int, int)
        Arrows ``(u, v)`` meaning ``u -> v`` that every listed member must have.
    forbidden : frozenset of (int, int)
        Arrows no listed member may have.
    max_parents : int, tuple of (int or None), or None
        Largest parent set, for all nodes (an int) or per node (``None`` = no limit).
    allowed : callable (int, int) -> bool, optional
        ``allowed(child, parent_mask)``: whether the family may occur (for
        example, whether it is in a pruned score table).  Called at most once
        per distinct family; must be deterministic.

    Contradictory constraints are not an error: they leave no member.
    """

    required: frozenset[tuple[int, int]] = frozenset()
    forbidden: frozenset[tuple[int, int]] = frozenset()
    max_parents: int | tuple[int | None, ...] | None = None
    allowed: Callable[[int, int], bool] | None = None

    def __post_init__(self) -> None:
        for name in ("required", "forbidden"):
            val = getattr(self, name)
            if not isinstance(val, frozenset):
                object.__setattr__(self, name, frozenset(tuple(a) for a in val))
        for name in ("required", "forbidden"):
            for arrow in getattr(self, name):
                if (len(arrow) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in arrow)
                        or arrow[0] == arrow[1]):
                    raise ConstraintError(f"{name} arrow {arrow!r} is not a pair of two different node indices")
        mp = self.max_parents
        if mp is not None and not isinstance(mp, int):
            mp = tuple(mp)
            object.__setattr__(self, "max_parents", mp)
        for x in (mp,) if isinstance(mp, int) else (mp or ()):
            if x is not None and (not isinstance(x, int) or isinstance(x, bool) or x < 0):
                raise ConstraintError(f"max_parents must be a non-negative int (or None), got {x!r}")
        if self.allowed is not None and not callable(self.allowed):
            raise ConstraintError(f"allowed must be callable (child, parent_mask) -> bool, got {type(self.allowed).__name__}")

    @classmethod
    def from_names(
        cls,
        names: Sequence[str],
        *,
        required: Iterable[tuple[str, str]] = (),
        forbidden: Iterable[tuple[str, str]] = (),
        max_parents: int | Sequence[int | None] | dict[str, int] | None = None,
        allowed: Callable[[int, int], bool] | None = None,
    ) -> MemberConstraints:
        """Build constraints from variable names (``max_parents`` may be a dict name -> limit)."""
        idx = {v: i for i, v in enumerate(names)}

        def ix(v: str, what: str) -> int:
            try:
                return idx[v]
            except KeyError:
                raise ConstraintError(f"unknown variable {v!r} in {what}") from None

        req = frozenset((ix(u, "required"), ix(v, "required")) for u, v in required)
        forb = frozenset((ix(u, "forbidden"), ix(v, "forbidden")) for u, v in forbidden)
        mp: Any = max_parents
        if isinstance(max_parents, dict):
            lim: list[int | None] = [None] * len(names)
            for v, k in max_parents.items():
                lim[ix(v, "max_parents")] = k
            mp = tuple(lim)
        return cls(req, forb, mp, allowed)

    @property
    def empty(self) -> bool:
        """True when nothing is constrained."""
        return not self.required and not self.forbidden and self.max_parents is None and self.allowed is None


class _Cons:
    """Constraints compiled to per-node masks for an ``n``-node class."""

    __slots__ = ("req_in", "req_out", "forb_in", "limit", "allowed", "per_node", "_cache")

    def __init__(self, c: MemberConstraints, n: int) -> None:
        self.req_in = [0] * n
        self.req_out = [0] * n
        self.forb_in = [0] * n
        for name, arrows in (("required", c.required), ("forbidden", c.forbidden)):
            for u, v in arrows:
                if u >= n or v >= n:
                    raise ConstraintError(f"{name} arrow {(u, v)!r} names a node outside 0..{n - 1}")
        for u, v in c.required:
            self.req_in[v] |= 1 << u
            self.req_out[u] |= 1 << v
        for u, v in c.forbidden:
            self.forb_in[v] |= 1 << u
        mp = c.max_parents
        if mp is None:
            self.limit = None
        elif isinstance(mp, int):
            self.limit = [mp] * n
        else:
            if len(mp) != n:
                raise ConstraintError(f"max_parents has {len(mp)} entries for {n} nodes")
            self.limit = list(mp)
        self.allowed = c.allowed
        self.per_node = self.limit is not None or self.allowed is not None
        self._cache: dict[tuple[int, int], bool] = {}

    def family_ok(self, v: int, fam: int) -> bool:
        """Parent limit and allowed-family predicate for ``v`` with parents ``fam``."""
        if self.limit is not None:
            lim = self.limit[v]
            if lim is not None and fam.bit_count() > lim:
                return False
        if self.allowed is not None:
            key = (v, fam)
            hit = self._cache.get(key)
            if hit is None:
                hit = bool(self.allowed(v, fam))
                self._cache[key] = hit
            return hit
        return True

    def arrows_ok(self, v: int, parents: int) -> bool:
        """No forbidden arrow into ``v`` and no required arrow out of ``v`` reversed, given these parents."""
        return not (parents & self.forb_in[v] or parents & self.req_out[v])


# --------------------------------------------------------------------------- #
# per-component plans
# --------------------------------------------------------------------------- #


class _Root:
    """One clique of a component's clique tree: what choosing it first fixes."""

    __slots__ = ("clique", "knodes", "fp", "sizes", "fixed", "fixed_map", "subs")

    def __init__(self, clique: int, fp: tuple[int, ...], fixed: dict[int, int], subs: list[int]) -> None:
        self.clique = clique
        self.knodes = tuple(bits(clique))
        self.fp = fp
        self.sizes = tuple(m.bit_count() for m in fp)
        self.fixed_map = fixed
        #: (node, parents inside the component forced by the closure), for nodes outside the clique
        self.fixed = tuple(sorted(fixed.items()))
        self.subs = tuple(subs)


class _Plan:
    """Everything about one connected chordal component that does not depend on constraints."""

    __slots__ = ("mask", "nodes", "pos", "kind", "roots", "tree")

    def __init__(self, und: list[int], mask: int) -> None:
        self.mask = mask
        self.nodes = tuple(bits(mask))
        self.pos = {v: i for i, v in enumerate(self.nodes)}
        k = len(self.nodes)
        self.roots: tuple[_Root, ...] = ()
        self.tree: tuple[tuple[int, ...], ...] = ()
        if k == 1:
            self.kind = "single"
            return
        m = n_edges(und, mask)
        if m == k * (k - 1) // 2:
            self.kind = "complete"
        elif m == k - 1:
            self.kind = "tree"
            self.tree = tuple(self._tree_orientation(und, r) for r in self.nodes)
        else:
            self.kind = "general"
            cliques, parent = clique_tree(und, mask)
            roots = []
            for i, c in enumerate(cliques):
                fixed, rest = closure_after_clique(und, mask, c)
                roots.append(_Root(c, forbidden_prefixes(cliques, parent, i), fixed, rest))
            self.roots = tuple(roots)

    def _tree_orientation(self, und: list[int], root: int) -> tuple[int, ...]:
        """Parent masks (aligned to ``nodes``) of the tree oriented away from ``root``."""
        pa = [0] * len(self.nodes)
        seen = 1 << root
        frontier = [root]
        while frontier:
            nxt = []
            for x in frontier:
                for y in bits(und[x] & self.mask & ~seen):
                    pa[self.pos[y]] = 1 << x
                    seen |= 1 << y
                    nxt.append(y)
            frontier = nxt
        return tuple(pa)


def _odometer(sources: Sequence[Callable[[], Iterable[Any]]]) -> Iterator[tuple[list[Any], int]]:
    """All combinations of one item per source, last source fastest.

    Yields ``(current, lo)``: the same list object each time (read it before
    advancing), and the lowest position that changed since the previous
    combination (0 the first time).  Each source is a zero-argument callable
    returning a fresh non-empty iterable.
    """
    m = len(sources)
    its: list[Iterator[Any]] = []
    cur: list[Any] = []
    for s in sources:
        it = iter(s())
        its.append(it)
        cur.append(next(it))
    yield cur, 0
    if not m:
        return
    sentinel = object()
    while True:
        i = m - 1
        while True:
            x = next(its[i], sentinel)
            if x is not sentinel:
                cur[i] = x
                break
            if i == 0:
                return
            its[i] = iter(sources[i]())
            cur[i] = next(its[i])
            i -= 1
        yield cur, i


# --------------------------------------------------------------------------- #
# the engine
# --------------------------------------------------------------------------- #


class Extensions:
    """The members of one class (optionally restricted by constraints): count, list, arrow counts.

    Parameters
    ----------
    cpdag : CPDAG
        The class.
    constraints : MemberConstraints, optional
        Restrict to the members satisfying them (default: all members).

    Notes
    -----
    Results are memoised inside the object, so counting, then arrow counts,
    then listing share the work; drop the object to free the memory.

    Examples
    --------
    >>> from gobnilp_py.equivalence import cpdag
    >>> ext = Extensions(cpdag("abc", {"b": ("a",), "c": ("b",)}))     # a - b - c
    >>> ext.count(), sorted(ext.arrow_counts().items())[:2]
    (3, [((0, 1), 1), ((1, 0), 2)])
    >>> [m for m in ext.members()]           # parent masks of a, b, c
    [(0, 1, 2), (2, 0, 2), (2, 4, 0)]
    """

    def __init__(self, cpdag: CPDAG, constraints: MemberConstraints | None = None) -> None:
        self.names = cpdag.names
        n = len(cpdag.names)
        self.n = n
        self._und = list(cpdag._und)
        self._pa = list(cpdag._pa)
        self.constraints = constraints if constraints is not None and not constraints.empty else None
        self._cons = _Cons(self.constraints, n) if self.constraints is not None else None
        self._plans: dict[int, _Plan] = {}
        self._counts: dict[Any, int] = {}
        self._root_counts: dict[Any, tuple[int, ...]] = {}
        self._arrows: dict[Any, dict[tuple[int, int], int]] = {}
        self._lists: dict[Any, tuple[tuple[int, ...], ...]] = {}
        self._kdp: dict[Any, _CliqueDP] = {}
        self.components = [c for c in components(self._und, (1 << n) - 1) if c & (c - 1)]
        self._feasible = self._check_fixed_part()

    # ------------------------------------------------------------------ plans
    def _plan(self, mask: int) -> _Plan:
        p = self._plans.get(mask)
        if p is None:
            p = self._plans[mask] = _Plan(self._und, mask)
        return p

    def _check_fixed_part(self) -> bool:
        """Constraints on what every member shares: compelled arrows and nodes outside the components."""
        cons = self._cons
        if cons is None:
            return True
        adj = [u | p for u, p in zip(self._und, self._pa)]
        for v in range(self.n):
            for p in bits(self._pa[v]):
                adj[p] |= 1 << v
        in_comp = 0
        for c in self.components:
            in_comp |= c
        for v in range(self.n):
            if cons.req_in[v] & ~adj[v]:  # a required arrow between non-adjacent nodes
                return False
            if not cons.arrows_ok(v, self._pa[v]):
                return False
            if not (in_comp >> v) & 1 and not cons.family_ok(v, self._pa[v]):
                return False
        return True

    def _ctx(self, plan: _Plan, ctx_of: Callable[[int], int]) -> tuple[int, ...] | None:
        if self._cons is None or not self._cons.per_node:
            return None
        return tuple(ctx_of(v) for v in plan.nodes)

    # --------------------------------------------------------------- counting
    def count(self) -> int:
        """Number of members (satisfying the constraints, if any)."""
        if not self._feasible:
            return 0
        total = 1
        for comp in self.components:
            plan = self._plan(comp)
            total *= self._count(comp, self._ctx(plan, self._pa.__getitem__))
            if not total:
                return 0
        return total

    def _count(self, mask: int, ctx: tuple[int, ...] | None) -> int:
        key = (mask, ctx)
        hit = self._counts.get(key)
        if hit is not None:
            return hit
        plan = self._plan(mask)
        if self._cons is None:
            if plan.kind == "single":
                total = 1
            elif plan.kind == "complete":
                total = math.factorial(len(plan.nodes))
            elif plan.kind == "tree":
                total = len(plan.nodes)
            else:
                total = 0
                for r in plan.roots:
                    prod = _phi(len(r.knodes), r.sizes)
                    for s in r.subs:
                        prod *= self._count(s, None)
                    total += prod
        else:
            total = sum(self._root_counts_of(plan, ctx))
        self._counts[key] = total
        return total

    def _root_counts_of(self, plan: _Plan, ctx: tuple[int, ...] | None) -> tuple[int, ...]:
        """Constrained: members per root choice (per root of a tree, per clique otherwise)."""
        key = (plan.mask, ctx)
        hit = self._root_counts.get(key)
        if hit is not None:
            return hit
        cons = self._cons
        assert cons is not None
        ctxv = ctx if ctx is not None else (0,) * len(plan.nodes)
        if plan.kind == "single":
            out: tuple[int, ...] = (int(not cons.per_node or cons.family_ok(plan.nodes[0], ctxv[0])),)
        elif plan.kind == "tree":
            out = tuple(int(self._tree_ok(plan, pa, ctxv)) for pa in plan.tree)
        elif plan.kind == "complete":
            out = (self._clique_dp(plan, plan.mask, (), ctxv).count,)
        else:
            counts = []
            for r in plan.roots:
                counts.append(self._root_count(plan, r, ctxv))
            out = tuple(counts)
        self._root_counts[key] = out
        return out

    def _tree_ok(self, plan: _Plan, pa: tuple[int, ...], ctxv: tuple[int, ...]) -> bool:
        cons = self._cons
        assert cons is not None
        for v, p, c in zip(plan.nodes, pa, ctxv):
            if not cons.arrows_ok(v, p):
                return False
            if cons.per_node and not cons.family_ok(v, c | p):
                return False
        return True

    def _sub_ctx(self, plan: _Plan, r: _Root, ctxv: tuple[int, ...], sub: int) -> tuple[int, ...] | None:
        if not self._cons or not self._cons.per_node:
            return None
        fixed = r.fixed_map
        return tuple(ctxv[plan.pos[w]] | fixed[w] for w in bits(sub))

    def _root_count(self, plan: _Plan, r: _Root, ctxv: tuple[int, ...]) -> int:
        cons = self._cons
        assert cons is not None
        in_sub = 0
        for s in r.subs:
            in_sub |= s
        for w, p in r.fixed:
            if not cons.arrows_ok(w, p):
                return 0
            # a required arrow w -> x along an edge the closure orients x -> w is caught at x
            if cons.per_node and not (in_sub >> w) & 1 and not cons.family_ok(w, ctxv[plan.pos[w]] | p):
                return 0
        # required arrows out of a clique node into the rest are all satisfied (edges leave the clique);
        # required arrows into a clique node from outside it are violated
        for v in r.knodes:
            if cons.req_in[v] & plan.mask & ~r.clique:
                return 0
        prod = 1
        for s in r.subs:
            prod *= self._count(s, self._sub_ctx(plan, r, ctxv, s))
            if not prod:
                return 0
        return prod * self._clique_dp(plan, r.clique, r.fp, ctxv).count

    def _clique_dp(self, plan: _Plan, clique: int, fp: tuple[int, ...], ctxv: tuple[int, ...]) -> _CliqueDP:
        key = (plan.mask, clique, ctxv if self._cons and self._cons.per_node else None)
        dp = self._kdp.get(key)
        if dp is None:
            assert self._cons is not None
            dp = self._kdp[key] = _CliqueDP(self._cons, clique, frozenset(fp), {v: ctxv[plan.pos[v]] for v in bits(clique)})
        return dp

    # ----------------------------------------------------------- arrow counts
    def arrow_counts(self) -> dict[tuple[int, int], int]:
        """Number of members with ``u -> v``, for both directions of every adjacent pair ``(u, v)``.

        ``counts[u, v] + counts[v, u]`` equals :meth:`count` for every edge.
        """
        total = self.count()
        out: dict[tuple[int, int], int] = {}
        for v in range(self.n):
            for p in bits(self._pa[v]):
                out[(p, v)] = total
                out[(v, p)] = 0
        if not total:
            for v in range(self.n):
                for w in bits(self._und[v]):
                    out[(v, w)] = 0
            return out
        for comp in self.components:
            plan = self._plan(comp)
            ctx = self._ctx(plan, self._pa.__getitem__)
            c = self._count(comp, ctx)
            scale = total // c
            for arrow, x in self._arrow_counts(comp, ctx).items():
                out[arrow] = x * scale
        return out

    def _arrow_counts(self, mask: int, ctx: tuple[int, ...] | None) -> dict[tuple[int, int], int]:
        key = (mask, ctx)
        hit = self._arrows.get(key)
        if hit is not None:
            return hit
        plan = self._plan(mask)
        acc: dict[tuple[int, int], int] = {}
        for v in plan.nodes:
            for w in bits(self._und[v] & mask):
                acc[(v, w)] = 0
        k = len(plan.nodes)
        cons = self._cons
        if plan.kind == "single":
            pass
        elif plan.kind == "complete" and cons is None:
            half = math.factorial(k) // 2
            for a in acc:
                acc[a] = half
        elif plan.kind == "tree":
            weights = self._root_counts_of(plan, ctx) if cons is not None else (1,) * k
            for wgt, pa in zip(weights, plan.tree):
                if wgt:
                    for v, p in zip(plan.nodes, pa):
                        for q in bits(p):
                            acc[(q, v)] += wgt
        elif plan.kind == "complete":
            ctxv = ctx if ctx is not None else (0,) * k
            dp = self._clique_dp(plan, mask, (), ctxv)
            for a, x in dp.pair_counts().items():
                acc[a] += x
        else:
            ctxv = ctx if ctx is not None else (0,) * k
            for r in plan.roots:
                self._add_root_arrows(plan, r, ctx, ctxv, acc)
        self._arrows[key] = acc
        return acc

    def _add_root_arrows(self, plan: _Plan, r: _Root, ctx: tuple[int, ...] | None, ctxv: tuple[int, ...],
                         acc: dict[tuple[int, int], int]) -> None:
        cons = self._cons
        if cons is not None:
            if not self._root_count(plan, r, ctxv):
                return
            dp = self._clique_dp(plan, r.clique, r.fp, ctxv)
            k_count = dp.count
        else:
            dp = None
            k_count = _phi(len(r.knodes), r.sizes)
        sub_ctx = [self._sub_ctx(plan, r, ctxv, s) if cons is not None else None for s in r.subs]
        sub_counts = [self._count(s, c) for s, c in zip(r.subs, sub_ctx)]
        prod_subs = 1
        for c in sub_counts:
            prod_subs *= c
        here = k_count * prod_subs
        if not here:
            return
        for w, p in r.fixed:
            for q in bits(p):
                acc[(q, w)] += here
        for s, c, sc in zip(r.subs, sub_counts, sub_ctx):
            factor = here // c
            for a, x in self._arrow_counts(s, sc).items():
                acc[a] += factor * x
        if dp is not None:
            for a, x in dp.pair_counts().items():
                acc[a] += x * prod_subs
        else:
            knodes = r.knodes
            fp = r.fp
            first = {v: next((i for i, m in enumerate(fp) if (m >> v) & 1), len(fp)) for v in knodes}
            kk = len(knodes)
            for u in knodes:
                for v in knodes:
                    if u != v:
                        acc[(u, v)] += _phi_pair(kk, r.sizes, first[u], first[v]) * prod_subs

    # ---------------------------------------------------------------- listing
    def members(self, limit: int | None = None) -> Iterator[tuple[int, ...]]:
        """Yield the members as tuples of parent masks (entry ``v`` = parents of ``names[v]``).

        Each member exactly once, in a fixed order (components in order of
        their lowest node, the last one varying fastest).  ``limit`` stops
        after that many.
        """
        if limit is not None and limit <= 0:
            return
        if not self._feasible or not self.count():
            return
        pa = list(self._pa)
        sources = []
        node_lists = []
        for comp in self.components:
            plan = self._plan(comp)
            ctx = self._ctx(plan, self._pa.__getitem__)
            base = tuple(self._pa[v] for v in plan.nodes)
            sources.append(self._final_source(comp, ctx, base))
            node_lists.append(plan.nodes)
        produced = 0
        for cur, lo in _odometer(sources):
            for j in range(lo, len(cur)):
                for v, x in zip(node_lists[j], cur[j]):
                    pa[v] = x
            yield tuple(pa)
            produced += 1
            if limit is not None and produced >= limit:
                return

    def _final_source(self, comp: int, ctx: tuple[int, ...] | None, base: tuple[int, ...]) -> Callable[[], Iterable[tuple[int, ...]]]:
        """Orientations of a top-level component with the compelled parents OR-ed in."""
        src = self._source(comp, ctx)
        if isinstance(src, tuple):
            final = tuple(tuple(b | x for b, x in zip(base, o)) for o in src)
            return lambda: final

        def gen() -> Iterator[tuple[int, ...]]:
            for o in src():  # type: ignore[operator]
                yield tuple(b | x for b, x in zip(base, o))

        return gen

    def _source(self, mask: int, ctx: tuple[int, ...] | None) -> Any:
        """The orientations of a component: a materialised tuple when small, else a generator factory."""
        key = (mask, ctx)
        hit = self._lists.get(key)
        if hit is not None:
            return hit
        if self._count(mask, ctx) <= MATERIALISE_LIMIT:
            out = tuple(self._orientations(mask, ctx))
            self._lists[key] = out
            return out
        return lambda: self._orientations(mask, ctx)

    def _orientations(self, mask: int, ctx: tuple[int, ...] | None) -> Iterator[tuple[int, ...]]:
        """Orientations of a component (parent masks inside it, aligned to its nodes), each once."""
        plan = self._plan(mask)
        cons = self._cons
        k = len(plan.nodes)
        ctxv = ctx if ctx is not None else (0,) * k
        if plan.kind == "single":
            if cons is None or self._root_counts_of(plan, ctx)[0]:
                yield (0,)
            return
        if plan.kind == "tree":
            weights = self._root_counts_of(plan, ctx) if cons is not None else (1,) * k
            for wgt, pa in zip(weights, plan.tree):
                if wgt:
                    yield pa
            return
        if plan.kind == "complete":
            pos = plan.pos
            if cons is None:
                nodes = plan.nodes
                for perm in permutations(nodes):
                    out = [0] * k
                    prefix = 0
                    for v in perm:
                        out[pos[v]] = prefix
                        prefix |= 1 << v
                    yield tuple(out)
            else:
                dp = self._clique_dp(plan, mask, (), ctxv)
                for preds in dp.orders():
                    out = [0] * k
                    for v, p in preds.items():
                        out[pos[v]] = p
                    yield tuple(out)
            return
        counts = self._root_counts_of(plan, ctx) if cons is not None else None
        for ri, r in enumerate(plan.roots):
            if counts is not None and not counts[ri]:
                continue
            yield from self._root_orientations(plan, r, ctxv)

    def _root_orientations(self, plan: _Plan, r: _Root, ctxv: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        cons = self._cons
        pos = plan.pos
        base = [0] * len(plan.nodes)
        for w, p in r.fixed:
            base[pos[w]] = p
        sub_pos = [tuple(pos[w] for w in bits(s)) for s in r.subs]
        sub_src = []
        for s in r.subs:
            sc = self._sub_ctx(plan, r, ctxv, s) if cons is not None else None
            src = self._source(s, sc)
            sub_src.append((lambda t=src: t) if isinstance(src, tuple) else src)
        if cons is None:
            orders: Iterable[dict[int, int]] = _orders_avoiding(r.knodes, frozenset(r.fp))
        else:
            orders = self._clique_dp(plan, r.clique, r.fp, ctxv).orders()
        kpos = [(pos[v], v) for v in r.knodes]
        for preds in orders:
            arr = list(base)
            for i, v in kpos:
                arr[i] = preds[v]
            if not sub_src:
                yield tuple(arr)
                continue
            for cur, _ in _odometer(sub_src):
                out = list(arr)
                for sp, o in zip(sub_pos, cur):
                    for i, x in zip(sp, o):
                        out[i] |= x
                yield tuple(out)


def _orders_avoiding(knodes: tuple[int, ...], fp: frozenset[int]) -> Iterator[dict[int, int]]:
    """Orders of a clique with no prefix in ``fp``, as node -> mask of the nodes before it.

    Depth-first, lowest node first.  No dead ends: a prefix that is not
    forbidden always extends (the forbidden sets are nested, so at most one
    has the next size and contains the prefix; with two or more nodes left one
    of them avoids it, and the whole clique is never forbidden).
    """
    k = len(knodes)
    preds: dict[int, int] = {}

    def rec(prefix: int, depth: int) -> Iterator[dict[int, int]]:
        if depth == k:
            yield dict(preds)
            return
        for v in knodes:
            b = 1 << v
            if prefix & b:
                continue
            nxt = prefix | b
            if nxt in fp:
                continue
            preds[v] = prefix
            yield from rec(nxt, depth + 1)

    return rec(0, 0)


class _CliqueDP:
    """Constrained orders of a clique placed first: a dynamic programme over its subsets.

    A node ``v`` of the clique has as parents (inside the component) exactly
    the clique nodes before it, so whether it may come next after the set
    ``S`` depends on ``S`` only.  ``h(S)`` = number of valid completions of a
    prefix with node set ``S`` (no prefix in ``fp``); the count is ``h(0)``.
    """

    __slots__ = ("cons", "clique", "fp", "ctx", "_h", "count", "_pairs")

    def __init__(self, cons: _Cons, clique: int, fp: frozenset[int], ctx: dict[int, int]) -> None:
        self.cons = cons
        self.clique = clique
        self.fp = fp
        self.ctx = ctx
        self._h: dict[int, int] = {clique: 1}
        self._pairs: dict[tuple[int, int], int] | None = None
        self.count = self._hval(0)

    def _ok(self, v: int, prefix: int) -> bool:
        cons = self.cons
        if prefix & cons.req_out[v] or prefix & cons.forb_in[v]:
            return False
        if cons.req_in[v] & self.clique & ~prefix:
            return False
        return not cons.per_node or cons.family_ok(v, self.ctx[v] | prefix)

    def _hval(self, prefix: int) -> int:
        hit = self._h.get(prefix)
        if hit is not None:
            return hit
        total = 0
        for v in bits(self.clique & ~prefix):
            nxt = prefix | (1 << v)
            if nxt in self.fp or not self._ok(v, prefix):
                continue
            total += self._hval(nxt)
        self._h[prefix] = total
        return total

    def orders(self) -> Iterator[dict[int, int]]:
        """Valid orders (node -> mask of the nodes before it), depth-first, only into live branches."""
        preds: dict[int, int] = {}
        clique = self.clique

        def rec(prefix: int) -> Iterator[dict[int, int]]:
            if prefix == clique:
                yield dict(preds)
                return
            for v in bits(clique & ~prefix):
                nxt = prefix | (1 << v)
                if nxt in self.fp or not self._ok(v, prefix) or not self._hval(nxt):
                    continue
                preds[v] = prefix
                yield from rec(nxt)

        if self.count:
            yield from rec(0)

    def pair_counts(self) -> dict[tuple[int, int], int]:
        """Valid orders with ``u`` before ``v``, for every ordered pair of clique nodes."""
        if self._pairs is not None:
            return self._pairs
        clique = self.clique
        knodes = list(bits(clique))
        pairs = {(u, v): 0 for u in knodes for v in knodes if u != v}
        # forward counts f(S): valid prefixes with node set S, level by level
        f = {0: 1}
        level = {0: 1}
        while level:
            nxt_level: dict[int, int] = {}
            for s, fs in level.items():
                for u in bits(clique & ~s):
                    t = s | (1 << u)
                    if t in self.fp or not self._ok(u, s):
                        continue
                    ht = self._hval(t)
                    if not ht:
                        continue
                    # orders through S then u: u comes before every node outside t
                    w = fs * ht
                    for v in bits(clique & ~t):
                        pairs[(u, v)] += w
                    nxt_level[t] = nxt_level.get(t, 0) + fs
            f.update(nxt_level)
            level = nxt_level
        self._pairs = pairs
        return pairs


# --------------------------------------------------------------------------- #
# functional shortcuts
# --------------------------------------------------------------------------- #


def count_members(cpdag: CPDAG, constraints: MemberConstraints | None = None) -> int:
    """Number of member DAGs of the class (satisfying ``constraints``); see :class:`Extensions`."""
    return Extensions(cpdag, constraints).count()


def iter_members(cpdag: CPDAG, constraints: MemberConstraints | None = None, *,
                 limit: int | None = None) -> Iterator[tuple[int, ...]]:
    """Member DAGs as tuples of parent masks, each once, in a fixed order; see :meth:`Extensions.members`."""
    return Extensions(cpdag, constraints).members(limit)


def arrow_counts(cpdag: CPDAG, constraints: MemberConstraints | None = None) -> dict[tuple[str, str], int]:
    """Members with ``u -> v``, keyed by *names*, for both directions of every adjacent pair.

    The name-keyed form of :meth:`Extensions.arrow_counts` (which uses node
    indices), as :meth:`CPDAG.arrow_counts` gives it; includes zero counts
    (the reverse of a compelled arrow, or directions no member satisfying the
    constraints has).
    """
    names = cpdag.names
    return {(names[u], names[v]): c for (u, v), c in Extensions(cpdag, constraints).arrow_counts().items()}
