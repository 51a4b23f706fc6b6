"""Chordal-graph primitives on bitmasks: components, clique trees, and the closure after a clique.

The undirected part of a CPDAG is a disjoint union of connected chordal
graphs (its *chain components*, Andersson, Madigan & Perlman 1997).  The
member DAGs of the class are the *acyclic moral orientations* (AMOs: acyclic,
no v-structure) of these components, chosen independently.  This module
holds the graph work that counting and listing them needs
(:mod:`.extensions`); graphs are lists of ``int`` bitmasks indexed by node
(bit ``j`` of ``und[i]`` = edge ``i - j``), restricted to a node set ``H``
(also a mask) by ``&``.

* :func:`clique_tree`: maximum cardinality search (MCS; Tarjan & Yannakakis
  1984) visits a chordal graph so that each vertex's visited neighbours form a
  clique; a new maximal clique starts whenever that set is not the clique
  being grown, and it is attached to the clique of its last-visited member,
  which gives a clique tree (Blair & Peyton 1993; Berry & Simonet 2017,
  Algorithm 4).
* :func:`forbidden_prefixes`: for a clique of a rooted clique tree, the edge
  separators on its path to the root that lie inside it (the set FP of
  Wienöbst, Bannach & Liśkiewicz 2021/2023).
* :func:`closure_after_clique`: orient every edge leaving a clique ``K`` away
  from it (``K`` first in a topological order), close under Meek's rules, and
  return the arrows forced outside ``K`` and the undirected components left.
  Meek's rules are sound and complete for added orientation knowledge (Meek
  1995), so the components left are exactly the parts whose orientations
  remain free; each is again a connected chordal graph.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = [
    "bits",
    "components",
    "n_edges",
    "clique_tree",
    "forbidden_prefixes",
    "closure_after_clique",
]


def bits(mask: int) -> Iterator[int]:
    """Positions of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def components(und: list[int], scope: int) -> list[int]:
    """Connected components (as masks) of the graph ``und`` restricted to ``scope``, lowest node first."""
    comps = []
    left = scope
    while left:
        comp = frontier = left & -left
        while frontier:
            nxt = 0
            for v in bits(frontier):
                nxt |= und[v]
            nxt &= scope & ~comp
            comp |= nxt
            frontier = nxt
        comps.append(comp)
        left &= ~comp
    return comps


def n_edges(und: list[int], scope: int) -> int:
    """Number of edges of ``und`` with both ends in ``scope``."""
    return sum((und[v] & scope).bit_count() for v in bits(scope)) // 2


def clique_tree(und: list[int], scope: int) -> tuple[list[int], list[int]]:
    """Maximal cliques of a connected chordal graph and a clique tree rooted at clique 0.

    Parameters
    ----------
    und : list of int
        Adjacency masks.
    scope : int
        Node set of a connected chordal subgraph (the caller guarantees both).

    Returns
    -------
    cliques : list of int
        The maximal cliques as masks, in the order MCS completes them.
    parent : list of int
        ``parent[i]`` is the index of clique ``i``'s parent in the tree
        (``-1`` for the root, clique 0).  For every ``i > 0``,
        ``cliques[i] & cliques[parent[i]]`` is the edge's minimal separator.

    Notes
    -----
    MCS visits next an unvisited vertex with the most visited neighbours
    (lowest index on ties, for determinism).  On a chordal graph the visited
    neighbours ``S`` of the vertex ``x`` being visited form a clique.  If
    ``S`` equals the clique being grown, ``x`` joins it; otherwise that clique
    is maximal (a vertex adjacent to all of it would have a larger label than
    ``x``) and ``S + x`` starts a new one, whose tree parent is the clique
    that the last-visited vertex of ``S`` joined (it contains all of ``S``).
    The tests check maximality, the running-intersection property and the
    separators against brute force.
    """
    nodes = list(bits(scope))
    label = {v: 0 for v in nodes}
    cliques: list[int] = []
    parent: list[int] = []
    clique_of: dict[int, int] = {}
    visit_pos: dict[int, int] = {}
    visited = 0
    cur = -1
    for step in range(len(nodes)):
        x = -1
        best = -1
        for v, lab in label.items():  # insertion order = ascending index: ties -> lowest
            if lab > best:
                best, x = lab, v
        del label[x]
        bit = 1 << x
        s = und[x] & visited
        if cur >= 0 and s == cliques[cur]:
            cliques[cur] |= bit
        else:
            if s:
                last = max(bits(s), key=visit_pos.__getitem__)
                parent.append(clique_of[last])
            else:
                parent.append(-1)
            cliques.append(s | bit)
            cur = len(cliques) - 1
        clique_of[x] = cur
        visit_pos[x] = step
        visited |= bit
        for w in bits(und[x] & scope & ~visited):
            label[w] += 1
    return cliques, parent


def forbidden_prefixes(cliques: list[int], parent: list[int], i: int) -> tuple[int, ...]:
    """FP of clique ``i``: the separators of the edges on its path to the root that lie inside it.

    Walking up from clique ``i``, ``cliques[i] & cliques[a]`` shrinks; an
    edge's separator lies inside clique ``i`` exactly when it equals that
    intersection.  Returned as distinct masks, smallest first (they are
    nested, so this is a chain ``R_1 < R_2 < ...``, each a proper subset of
    the clique).
    """
    k = cliques[i]
    out: list[int] = []
    c = i
    while parent[c] >= 0:
        p = parent[c]
        sep = cliques[c] & cliques[p]
        if not sep & k:
            break
        if not sep & ~k and (not out or out[-1] != sep):
            out.append(sep)
        c = p
    out.reverse()
    return tuple(out)


#: How often :func:`closure_after_clique` needed rules 2-4 after Rule 1 (read by the tests).
FALLBACKS = 0


def closure_after_clique(und: list[int], scope: int, clique: int) -> tuple[dict[int, int], list[int]]:
    """Arrows forced when the clique ``clique`` comes first, and the undirected components left.

    Orients the edges inside the clique in index order (which order does not
    matter for anything outside it: no Meek rule that orients an edge outside
    the clique has an edge inside it as a premise, since every edge between
    the clique and the rest already points out) and every edge from the
    clique to the rest out of it, then closes under Meek's rules.

    Rule 1 (``a -> b - c``, ``a``, ``c`` non-adjacent ``=> b -> c``) is run
    from a work list, so each arrow is looked at once.  The result ``Q`` is
    then *checked*: no arrow may join two nodes of one undirected component,
    and all nodes of a component must have the same parents.  When that holds
    ``Q`` is a chain graph (a partially directed cycle would have to pass
    through components whose common parents chain into a directed cycle,
    impossible since Rule 1 is sound and some ordering with the clique first
    exists: a lexicographic BFS started on the clique) with chordal
    components and no induced ``a -> b - c``; so any acyclic moral orientation
    of each component, with the arrows of ``Q``, is a member, every remaining
    edge occurs in both directions, and ``Q`` is the complete Meek closure.
    Otherwise rules 2-4 are swept to a fixed point as well (counted in
    :data:`FALLBACKS`; the tests have not met such a case).

    Returns
    -------
    fixed : dict int -> int
        For every node of ``scope`` outside the clique, the mask of its
        parents inside ``scope`` that the closure forces (edges into a
        remaining undirected component from outside it are all forced).
    rest : list of int
        The connected components (masks) of the undirected edges left, with
        at least two nodes, lowest node first.
    """
    global FALLBACKS
    adj = [x & scope for x in und]
    u = list(adj)
    n = len(adj)
    pa = [0] * n
    new_pa = [0] * n  # parents gained that still have to fire Rule 1
    work: list[int] = []
    outside = scope & ~clique
    m = clique
    while m:
        low = m & -m
        k = low.bit_length() - 1
        m ^= low
        t = u[k] & outside
        u[k] = 0  # every edge at a clique node is now directed
        while t:
            lw = t & -t
            w = lw.bit_length() - 1
            t ^= lw
            u[w] &= ~low
            pa[w] |= low
            if not new_pa[w]:
                work.append(w)
            new_pa[w] |= low
    while True:
        while work:  # R1: x -> y - t, x and t non-adjacent  =>  y -> t
            y = work.pop()
            xs = new_pa[y]
            new_pa[y] = 0
            uy = u[y]
            targets = 0
            while xs:
                lx = xs & -xs
                xs ^= lx
                targets |= uy & ~adj[lx.bit_length() - 1]
            if not targets:
                continue
            yb = 1 << y
            u[y] = uy & ~targets
            while targets:
                lt = targets & -targets
                t_ = lt.bit_length() - 1
                targets ^= lt
                u[t_] &= ~yb
                pa[t_] |= yb
                if not new_pa[t_]:
                    work.append(t_)
                new_pa[t_] |= yb
        rest = components(u, outside)
        if _chain_ok(rest, pa):
            break
        FALLBACKS += 1
        if not _sweep_r234(u, adj, pa, outside, work, new_pa):
            break
    fixed = {w: pa[w] for w in bits(outside)}
    return fixed, [c for c in rest if c & (c - 1)]


def _chain_ok(comps: list[int], pa: list[int]) -> bool:
    """No arrow inside an undirected component, and one parent set per component."""
    for c in comps:
        if not c & (c - 1):
            continue
        low = c & -c
        first = pa[low.bit_length() - 1]
        if first & c:
            return False
        m = c ^ low
        while m:
            lb = m & -m
            m ^= lb
            if pa[lb.bit_length() - 1] != first:
                return False
    return True


def _sweep_r234(u: list[int], adj: list[int], pa: list[int], outside: int,
                work: list[int], new_pa: list[int]) -> bool:
    """One sweep of Meek's rules 2-4 over the undirected edges; True if anything was oriented."""
    ch = [0] * len(pa)
    for v, p in enumerate(pa):
        for q in bits(p):
            ch[q] |= 1 << v
    changed = False

    def orient(x: int, y: int) -> None:
        nonlocal changed
        u[x] &= ~(1 << y)
        u[y] &= ~(1 << x)
        pa[y] |= 1 << x
        ch[x] |= 1 << y
        if not new_pa[y]:
            work.append(y)
        new_pa[y] |= 1 << x
        changed = True

    for b in bits(outside):
        # R2: b -> k -> c and b - c  =>  b -> c
        for c in bits(u[b]):
            if ch[b] & pa[c]:
                orient(b, c)
        # R3: a - b, a - c -> b, a - d -> b, c and d non-adjacent  =>  a -> b
        for a in bits(u[b]):
            cands = u[a] & pa[b]
            if cands & (cands - 1) and any(cands & ~adj[c] & ~(1 << c) for c in bits(cands)):
                orient(a, b)
        # R4: b - j, b - k -> l -> j, b adjacent to l, k and j non-adjacent  =>  b -> j
        for j in bits(u[b]):
            for k in bits(u[b] & ~adj[j] & ~(1 << j)):
                if ch[k] & pa[j] & adj[b]:
                    orient(b, j)
                    break
    return changed
