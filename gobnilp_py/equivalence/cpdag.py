"""Markov equivalence classes of DAGs: canonical keys, CPDAGs and grouping.

Two DAGs over the same variables are *Markov equivalent* (they encode the same
conditional independences, and a score-equivalent score such as BIC or BDeu
cannot tell them apart) exactly when they have the same skeleton and the same
v-structures ``x -> z <- y`` with ``x``, ``y`` non-adjacent (Verma & Pearl,
1990).  This module turns that theorem into code:

* :func:`class_key` computes a canonical hashable key from the skeleton and
  the v-structures only.  It is the fast path used to group up to 150,000
  networks from an ε-BNSL collection.
* :func:`cpdag` computes the essential graph (CPDAG): the skeleton, the
  v-structure arrows, then Meek's orientation rules applied to closure.  An
  arrow in the CPDAG is *compelled* (it points the same way in every member
  of the class); an undirected edge is *reversible* (both directions occur).
* :func:`group_by_class` groups networks into :class:`EquivalenceClass`
  objects in a deterministic order.

Graphs are handled internally as bitmasks (one Python ``int`` per node), so
a set operation over a neighbourhood is one integer operation (on at most
two 30-bit digits for n <= 60) and the hot path creates no per-edge objects.

DAGs are passed as ``names`` (the variable order) and ``parents`` (a mapping
child name -> iterable of parent names; a missing child has no parents), or
as any object with ``.names``/``.parents`` (and ``.score``) attributes such as
:class:`gobnilp_py.network.Network`, or a mapping with those keys.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from .._graphs import cyclic_remainder
from ..errors import DataError
from .chordal import bits as _bits
from .extensions import Extensions, MemberConstraints

__all__ = [
    "CPDAG",
    "EquivalenceClass",
    "ClassKey",
    "cpdag",
    "cpdag_from_masks",
    "class_key",
    "class_key_from_masks",
    "group_by_class",
    "network_parts",
]

logger = logging.getLogger(__name__)

#: A class key: per node (in ``names`` order) the bitmask of its neighbours in
#: the skeleton, then per node the bitmask of those parents that take part in
#: a v-structure at that node.  Bit ``j`` stands for ``names[j]``.
ClassKey = tuple[tuple[int, ...], tuple[int, ...]]


class NetworkParts(NamedTuple):
    """The three things this package needs from a network-like object."""

    names: tuple[str, ...]
    parents: Mapping[str, Iterable[str]]
    score: float | None


def network_parts(net: Any) -> NetworkParts:
    """Read ``names``, ``parents`` and ``score`` from a network-like object.

    Accepts anything with ``.names`` and ``.parents`` attributes (``.score``
    optional), e.g. :class:`gobnilp_py.network.Network`; a mapping with keys
    ``"names"``, ``"parents"`` (and optionally ``"score"``); or a tuple
    ``(names, parents)`` / ``(names, parents, score)``.  Duck typing keeps this
    module free of an import of the Network class, which is written elsewhere.
    """
    if isinstance(net, Mapping):
        try:
            names, parents = net["names"], net["parents"]
        except KeyError as exc:
            raise DataError(f"network mapping lacks the key {exc.args[0]!r}") from None
        score = net.get("score")
    elif isinstance(net, tuple) and len(net) in (2, 3) and not hasattr(net, "parents"):
        names, parents = net[0], net[1]
        score = net[2] if len(net) == 3 else None
    else:
        try:
            names, parents = net.names, net.parents
        except AttributeError:
            raise DataError(
                f"not a network: {type(net).__name__} has no .names/.parents"
            ) from None
        score = getattr(net, "score", None)
    if not isinstance(parents, Mapping):
        raise DataError(f"network parents must be a mapping child -> parents, got {type(parents).__name__}")
    return NetworkParts(tuple(names), parents, None if score is None else float(score))


# --------------------------------------------------------------------------- #
# bitmask helpers
# --------------------------------------------------------------------------- #


@lru_cache(maxsize=256)
def _index(names: tuple[str, ...]) -> dict[str, int]:
    """Name -> position, cached because the same ``names`` tuple recurs for every network."""
    idx = {name: i for i, name in enumerate(names)}
    if len(idx) != len(names):
        seen: set[str] = set()
        dup = next(x for x in names if x in seen or seen.add(x))  # type: ignore[func-returns-value]
        raise DataError(f"duplicate variable name {dup!r}")
    return idx


def _children_masks(pa: list[int]) -> list[int]:
    ch = [0] * len(pa)
    for c, m in enumerate(pa):
        bit = 1 << c
        for p in _bits(m):
            ch[p] |= bit
    return ch


def _key_of(names: tuple[str, ...], parents: Mapping[str, Iterable[str]], validate: bool) -> ClassKey:
    """:func:`class_key`'s hot path: parse, check and key in one pass over the arrows.

    The v-structures at ``z`` are exactly the non-adjacent pairs among the
    parents of ``z``, so they are determined by the skeleton together with
    ``V(z)`` = the parents of ``z`` that are non-adjacent to some other parent
    of ``z``; conversely ``V(z)`` is read off the v-structures.  Hence
    ``(adjacency masks, V masks)`` is in one-to-one correspondence with
    (skeleton, set of v-structures): equal keys <=> Markov equivalent.

    Keeps the parent index lists it parses, so no bit scanning is needed, and
    checks acyclicity with Kahn's algorithm (O(n + arrows)).
    """
    if not isinstance(parents, Mapping):
        raise DataError(f"parents must be a mapping child -> parents, got {type(parents).__name__}")
    idx = _index(names)
    n = len(names)
    pa = [0] * n
    ch = [0] * n
    plists: list[list[int]] = [[] for _ in range(n)]
    for child, ps in parents.items():
        c = idx.get(child)
        if c is None:
            raise DataError(f"unknown variable {child!r} in parents")
        cb = 1 << c
        m = 0
        pl = plists[c]
        if isinstance(ps, str):  # a lone name, as Network accepts it
            ps = (ps,)
        for p in ps:
            j = idx.get(p)
            if j is None:
                raise DataError(f"unknown parent {p!r} of {child!r}")
            jb = 1 << j
            if m & jb:
                raise DataError(f"parent {p!r} of {child!r} is listed twice")
            m |= jb
            ch[j] |= cb
            pl.append(j)
        if m & cb:
            raise DataError(f"variable {child!r} is its own parent")
        pa[c] = m
    if validate:
        # Kahn: count parents, release children of every node whose parents are all placed.
        indeg = [len(pl) for pl in plists]
        stack = [v for v in range(n) if not indeg[v]]
        placed = 0
        while stack:
            v = stack.pop()
            placed += 1
            m = ch[v]
            while m:
                low = m & -m
                m ^= low
                c = low.bit_length() - 1
                indeg[c] -= 1
                if not indeg[c]:
                    stack.append(c)
        if placed != n:
            stuck = [names[v] for v in range(n) if indeg[v]]
            raise DataError(f"graph is not acyclic: {len(stuck)} variables lie on or below a directed cycle, e.g. {stuck[:6]}")
    adj = [p | c for p, c in zip(pa, ch)]
    vp = [0] * n
    for z, pl in enumerate(plists):
        if len(pl) > 1:
            m = pa[z]
            v = 0
            for x in pl:
                bit = 1 << x
                if m & ~adj[x] & ~bit:
                    v |= bit
            vp[z] = v
    return tuple(adj), tuple(vp)


def class_key(names: Sequence[str], parents: Mapping[str, Iterable[str]], *, validate: bool = True) -> ClassKey:
    """Canonical key of the Markov equivalence class of a DAG, without Meek's closure.

    Parameters
    ----------
    names : sequence of str
        Variable order; the key is relative to it (compare keys only between
        DAGs over the same ``names`` tuple).
    parents : mapping str -> iterable of str
        Parents of each child (children left out have none).
    validate : bool
        Check acyclicity (a cycle raises :class:`~gobnilp_py.errors.DataError`).
        Unknown names and self-loops are always rejected.  Turn off only for
        graphs already known to be DAGs (e.g. :class:`Network` objects).

    Returns
    -------
    tuple
        ``(adjacency masks, v-structure parent masks)``, hashable and
        orderable; equal for two DAGs iff they are Markov equivalent.

    Examples
    --------
    >>> k1 = class_key("abc", {"b": ("a",), "c": ("b",)})      # a -> b -> c
    >>> k2 = class_key("abc", {"a": ("b",), "b": ("c",)})      # a <- b <- c
    >>> k3 = class_key("abc", {"b": ("a", "c")})               # a -> b <- c
    >>> k1 == k2, k1 == k3
    (True, False)
    """
    return _key_of(tuple(names), parents, validate)


def class_key_from_masks(parent_masks: Sequence[int], *, validate: bool = True) -> ClassKey:
    """:func:`class_key` of a DAG given as parent bitmasks (entry ``v``: bit ``j`` = parent ``j``).

    The form the search engines and :meth:`Extensions.members` use; no names
    are parsed.  ``validate`` checks the masks (range, self-loops) and
    acyclicity (:class:`~gobnilp_py.errors.DataError`).
    """
    pa = [int(m) for m in parent_masks]
    n = len(pa)
    if validate:
        full = (1 << n) - 1
        for v, m in enumerate(pa):
            if m < 0 or m & ~full:
                raise DataError(f"parent mask of node {v} names a node outside 0..{n - 1}")
            if m >> v & 1:
                raise DataError(f"node {v} is its own parent")
        left = cyclic_remainder(pa)
        if left:
            raise DataError(f"graph is not acyclic: {left.bit_count()} nodes lie on or below a directed cycle")
    ch = _children_masks(pa)
    adj = [p | c for p, c in zip(pa, ch)]
    vp = [0] * n
    for z, m in enumerate(pa):
        if m & (m - 1):
            v = 0
            for x in _bits(m):
                if m & ~adj[x] & ~(1 << x):
                    v |= 1 << x
            vp[z] = v
    return tuple(adj), tuple(vp)


# --------------------------------------------------------------------------- #
# Meek's rules on bitmasks
# --------------------------------------------------------------------------- #


class _PDAG:
    """A partially directed graph on bitmasks, mutated in place by Meek's rules.

    ``und[i]``: undirected neighbours; ``pa[i]``/``ch[i]``: directed parents and
    children; ``adj[i]``: all neighbours (never changes).
    """

    __slots__ = ("und", "pa", "ch", "adj", "r4_fired")

    def __init__(self, und: list[int], pa: list[int], ch: list[int], adj: list[int]) -> None:
        self.und, self.pa, self.ch, self.adj = und, pa, ch, adj
        self.r4_fired = 0

    def orient(self, x: int, y: int) -> None:
        """Turn the undirected edge x - y into x -> y."""
        self.und[x] &= ~(1 << y)
        self.und[y] &= ~(1 << x)
        self.pa[y] |= 1 << x
        self.ch[x] |= 1 << y

    def _r123(self, scope: int) -> bool:
        """One sweep of Meek's rules 1-3 over the nodes in ``scope``; True if anything changed."""
        und, pa, ch, adj = self.und, self.pa, self.ch, self.adj
        changed = False
        for b in _bits(scope):
            if not und[b]:
                continue
            # R1: a -> b - c, a and c non-adjacent  =>  b -> c
            for a in _bits(pa[b]):
                targets = und[b] & ~adj[a]
                for c in _bits(targets):
                    self.orient(b, c)
                    changed = True
            # R2: b -> k -> c and b - c  =>  b -> c   (else a directed cycle)
            targets = 0
            for c in _bits(und[b]):
                if ch[b] & pa[c]:
                    targets |= 1 << c
            for c in _bits(targets):
                self.orient(b, c)
                changed = True
            # R3: a - b, a - c, a - d, c -> b <- d, c and d non-adjacent  =>  a -> b
            for a in _bits(und[b]):
                cands = und[a] & pa[b]
                if cands & (cands - 1):
                    for c in _bits(cands):
                        if cands & ~adj[c] & ~(1 << c):
                            self.orient(a, b)
                            changed = True
                            break
        return changed

    def _r4(self, scope: int) -> bool:
        """Meek's rule 4: i - j, i - k -> l -> j, i adjacent to l, k and j non-adjacent => i -> j.

        Never needed when starting from the pattern of a DAG (Meek 1995); kept
        for completeness and counted, so the tests can check that claim.
        """
        und, pa, ch, adj = self.und, self.pa, self.ch, self.adj
        for i in _bits(scope):
            for j in _bits(und[i]):
                for k in _bits(und[i] & ~adj[j] & ~(1 << j)):
                    if ch[k] & pa[j] & adj[i]:
                        self.orient(i, j)
                        self.r4_fired += 1
                        logger.debug("Meek rule 4 oriented %d -> %d", i, j)
                        return True
        return False

    def close(self, scope: int) -> None:
        """Apply Meek's rules R1-R4 to the nodes in ``scope`` until nothing changes."""
        while True:
            while self._r123(scope):
                pass
            if not self._r4(scope):
                return


def _pattern(key: ClassKey) -> _PDAG:
    """The pattern of a DAG (skeleton, only the v-structure arrows directed), from its class key."""
    adj, vp = key
    pa = list(vp)
    ch = _children_masks(pa)
    und = [a & ~p & ~c for a, p, c in zip(adj, pa, ch)]
    return _PDAG(und, pa, ch, list(adj))


# --------------------------------------------------------------------------- #
# value objects
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class CPDAG:
    """The essential graph (CPDAG) of a Markov equivalence class.

    Attributes
    ----------
    names : tuple of str
        Variable order.
    directed : frozenset of (str, str)
        Compelled arrows ``(u, v)`` meaning ``u -> v`` in every member DAG.
    undirected : frozenset of frozenset
        Reversible edges ``{u, v}``: some members have ``u -> v``, others ``v -> u``.
    key : tuple
        The class key of :func:`class_key` (equal across the class, different
        between classes over the same ``names``).
    """

    names: tuple[str, ...]
    directed: frozenset[tuple[str, str]]
    undirected: frozenset[frozenset[str]]
    key: ClassKey = field(repr=False)
    _und: tuple[int, ...] = field(repr=False, compare=False, hash=False)
    _pa: tuple[int, ...] = field(repr=False, compare=False, hash=False)

    @property
    def n_edges(self) -> int:
        """Number of adjacencies (directed plus undirected)."""
        return len(self.directed) + len(self.undirected)

    def count_dags(self) -> int:
        """Number of DAGs in the class (all of them, not just those in some collection).

        Exact, in polynomial time: Clique-Picking (Wienöbst, Bannach &
        Liśkiewicz 2021) over the chain components; see :mod:`.extensions`.
        """
        return Extensions(self).count()

    def extensions(self, constraints: MemberConstraints | None = None) -> Extensions:
        """The members (optionally restricted by ``constraints``): count, list, arrow counts.

        See :class:`~gobnilp_py.equivalence.extensions.Extensions`; nodes are
        indices into :attr:`names` and parent sets bitmasks.
        """
        return Extensions(self, constraints)

    def arrow_counts(self) -> dict[tuple[str, str], int]:
        """Number of member DAGs with ``u -> v``, for both directions of every adjacent pair (by name)."""
        names = self.names
        return {(names[u], names[v]): c for (u, v), c in Extensions(self).arrow_counts().items()}

    def dags(self, limit: int | None = None) -> Iterator[dict[str, tuple[str, ...]]]:
        """Yield the member DAGs as ``parents`` dicts (parents in ``names`` order).

        Each member exactly once, in a fixed order, with polynomial delay
        (:meth:`Extensions.members`, which yields bitmasks and is faster).
        ``limit`` stops after that many.
        """
        names = self.names
        for masks in Extensions(self).members(limit):
            yield {names[c]: tuple(names[p] for p in _bits(m)) for c, m in enumerate(masks)}

    def to_networkx(self) -> Any:
        """A ``networkx.DiGraph``: arrows once, undirected edges in both directions.

        Every edge carries ``undirected`` (bool) and ``kind`` (``"directed"``
        or ``"undirected"``), so ``[e for e in G.edges(data="undirected")]``
        separates the two.
        """
        import networkx as nx

        g = nx.DiGraph()
        g.add_nodes_from(self.names)
        for u, v in sorted(self.directed, key=self._order):
            g.add_edge(u, v, undirected=False, kind="directed")
        for u, v in self._undirected_pairs():
            g.add_edge(u, v, undirected=True, kind="undirected")
            g.add_edge(v, u, undirected=True, kind="undirected")
        return g

    def to_dot(self, name: str = "CPDAG") -> str:
        """Graphviz text: arrows as ``u -> v``, undirected edges as ``u -> v [dir=none]``."""
        lines = [f"digraph {_dot_id(name)} {{"]
        lines += [f"  {_dot_id(v)};" for v in self.names]
        lines += [f"  {_dot_id(u)} -> {_dot_id(v)};" for u, v in sorted(self.directed, key=self._order)]
        lines += [f"  {_dot_id(u)} -> {_dot_id(v)} [dir=none];" for u, v in self._undirected_pairs()]
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, list]:
        """JSON-ready dict: ``names``, ``directed`` [[u, v], ...], ``undirected`` [[u, v], ...] (u before v in names)."""
        return {
            "names": list(self.names),
            "directed": [[u, v] for u, v in sorted(self.directed, key=self._order)],
            "undirected": [[u, v] for u, v in self._undirected_pairs()],
        }

    def _repr_svg_(self) -> str | None:
        """The class drawn as SVG (compelled arrows, reversible edges dashed, a legend), which Jupyter shows.

        Laid out by one of its member DAGs; ``None`` (the text ``repr``) when
        there are more variables than a picture can hold.
        """
        from .._display import render

        return render("cpdag_svg", self)

    def _order(self, edge: tuple[str, str]) -> tuple[int, int]:
        idx = _index(self.names)
        return idx[edge[0]], idx[edge[1]]

    def _undirected_pairs(self) -> list[tuple[str, str]]:
        idx = _index(self.names)
        pairs = [tuple(sorted(e, key=idx.__getitem__)) for e in self.undirected]
        return sorted(pairs, key=self._order)  # type: ignore[arg-type]


def _dot_id(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _cpdag_from_key(names: tuple[str, ...], key: ClassKey) -> tuple[CPDAG, int]:
    """CPDAG from a class key (the key determines the pattern); also returns R4's firing count."""
    pdag = _pattern(key)
    n = len(names)
    pdag.close((1 << n) - 1)
    directed = frozenset((names[p], names[c]) for c in range(n) for p in _bits(pdag.pa[c]))
    undirected = frozenset(frozenset((names[a], names[b])) for a in range(n) for b in _bits(pdag.und[a]) if a < b)
    return CPDAG(names, directed, undirected, key, tuple(pdag.und), tuple(pdag.pa)), pdag.r4_fired


def cpdag(names: Sequence[str], parents: Mapping[str, Iterable[str]] | None = None) -> CPDAG:
    """The CPDAG (essential graph) of a DAG.

    Skeleton, v-structure arrows, then Meek's rules R1-R3 to closure (R4 is
    also applied; starting from a DAG's pattern it never fires, Meek 1995).

    Parameters
    ----------
    names : sequence of str, or a network-like object
        Variable order; or a network (``.names``/``.parents``) when
        ``parents`` is omitted.
    parents : mapping str -> iterable of str
        Parents of each child.

    Raises
    ------
    DataError
        Unknown names, self-loops or a directed cycle.

    Examples
    --------
    >>> g = cpdag("abc", {"b": ("a",), "c": ("b",)})
    >>> sorted(g.directed), sorted(sorted(e) for e in g.undirected)
    ([], [['a', 'b'], ['b', 'c']])
    >>> sorted(cpdag("abc", {"b": ("a", "c")}).directed)
    [('a', 'b'), ('c', 'b')]
    """
    if parents is None:
        names, parents, _ = network_parts(names)
    names_t = tuple(names)
    return _cpdag_from_key(names_t, _key_of(names_t, parents, True))[0]


def essential_masks(key: ClassKey) -> tuple[list[int], list[int]]:
    """The essential graph of a class key as bitmasks: (compelled parents, undirected neighbours) per node.

    What :func:`cpdag` computes, without names or value objects: for the
    search engines, which need it once per class found (the class nogood of
    :mod:`gobnilp_py.ilp.class_nogood`).
    """
    pdag = _pattern(key)
    pdag.close((1 << len(key[0])) - 1)
    return list(pdag.pa), list(pdag.und)


def cpdag_from_masks(names: Sequence[str], parent_masks: Sequence[int], *, validate: bool = True) -> CPDAG:
    """The CPDAG of a DAG given as parent bitmasks over ``names`` (see :func:`class_key_from_masks`).

    Examples
    --------
    >>> cp = cpdag_from_masks("abc", [0, 0b001, 0b010])     # a -> b -> c
    >>> cp == cpdag("abc", {"b": ("a",), "c": ("b",)}), cp.count_dags()
    (True, 3)
    """
    names_t = tuple(names)
    if len(names_t) != len(parent_masks):
        raise DataError(f"{len(parent_masks)} parent masks for {len(names_t)} variables")
    _index(names_t)
    return _cpdag_from_key(names_t, class_key_from_masks(parent_masks, validate=validate))[0]


class EquivalenceClass:
    """Networks of one Markov equivalence class found in a collection.

    Attributes
    ----------
    key : tuple
        The class key (see :func:`class_key`).
    members : tuple
        The member networks, in the order they were given.
    best_score : float or None
        Highest member score (``None`` if the networks carry no scores).  With
        a score-equivalent score (BIC, BDeu) all members score the same.
    cpdag : CPDAG
        The class's essential graph, computed on first access (grouping a
        large collection only needs the keys).
    """

    __slots__ = ("names", "key", "members", "best_score", "_cpdag")

    def __init__(self, names: tuple[str, ...], key: ClassKey, members: tuple[Any, ...], best_score: float | None) -> None:
        self.names = names
        self.key = key
        self.members = members
        self.best_score = best_score
        self._cpdag: CPDAG | None = None

    @property
    def cpdag(self) -> CPDAG:
        """The essential graph of the class (computed once, on demand)."""
        if self._cpdag is None:
            self._cpdag = _cpdag_from_key(self.names, self.key)[0]
        return self._cpdag

    @property
    def size(self) -> int:
        """Number of member networks in the collection (at most ``cpdag.count_dags()``)."""
        return len(self.members)

    def __repr__(self) -> str:
        score = "None" if self.best_score is None else f"{self.best_score:.6f}"
        return f"EquivalenceClass(size={self.size}, best_score={score}, n_edges={sum(bin(a).count('1') for a in self.key[0]) // 2})"


def _network_class() -> type | None:
    """The package's Network class if importable (imported lazily: it is developed separately)."""
    try:
        from ..network import Network
    except ImportError:  # pragma: no cover - only while network.py is missing
        return None
    return Network


def group_by_class(networks: Iterable[Any], *, validate: bool = True, columns: Any = None) -> list[EquivalenceClass]:
    """Group networks into Markov equivalence classes.

    Parameters
    ----------
    networks : iterable of network-like objects
        Anything :func:`network_parts` accepts.  All must be over the same set
        of variable names; keys are computed in the first network's order.
    validate : bool
        Check every network for cycles (see :func:`class_key`).  Networks
        that are :class:`gobnilp_py.network.Network` objects were checked when
        built and are never re-checked.
    columns : NetworkColumns, optional
        The networks' arrays (:func:`~.columns.columns_of`) when the caller
        keeps them; Network objects over one ``names`` tuple are keyed from
        their parent bitmasks with numpy either way (the same keys).

    Returns
    -------
    list of EquivalenceClass
        Ordered by best score (highest first; classes without a score, or
        with a NaN one, last),
        then by key, so the order is deterministic.  Members keep the input
        order.  Only keys are computed here; each class's CPDAG is computed
        when first asked for.
    """
    nets = list(networks)
    if not nets:
        return []
    fast = _group_columns(nets, columns)
    if fast is not None:
        return fast
    parts = [network_parts(x) for x in nets]
    ref = parts[0].names
    ref_set = frozenset(ref)
    groups: dict[ClassKey, list[int]] = {}
    network_cls = _network_class()
    for i, p in enumerate(parts):
        if p.names != ref and frozenset(p.names) != ref_set:
            raise DataError(f"network {i} has variables {list(p.names)[:5]}..., not those of network 0")
        k = _key_of(ref, p.parents, validate and not (network_cls and type(nets[i]) is network_cls))
        members = groups.get(k)
        if members is None:
            groups[k] = [i]
        else:
            members.append(i)
    classes = []
    for k, idxs in groups.items():
        scores = [parts[i].score for i in idxs if parts[i].score is not None]
        best = max(scores) if scores else None
        classes.append(EquivalenceClass(ref, k, tuple(nets[i] for i in idxs), best))
    classes.sort(key=_class_order)
    return classes


def _class_order(c: EquivalenceClass) -> tuple[bool, float, ClassKey]:
    unscored = c.best_score is None or math.isnan(c.best_score)
    return unscored, 0.0 if unscored else -c.best_score, c.key  # type: ignore[operator]


def _unique_rows(keys: Any) -> tuple[Any, Any]:
    """``(first, inverse)`` of the distinct rows of a uint64 array, as ``np.unique(axis=0)`` gives them.

    Rows are told apart by a 64-bit hash first (one sort of N numbers instead of N rows), and the
    grouping is then checked row for row: any collision falls back to sorting the rows themselves,
    so the groups are exact either way.
    """
    import numpy as np

    with np.errstate(over="ignore"):
        mult = (np.arange(keys.shape[1], dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)
        h = np.zeros(keys.shape[0], dtype=np.uint64)
        for j in range(keys.shape[1]):
            h = (h ^ (keys[:, j] * mult[j])) * np.uint64(0xBF58476D1CE4E5B9)
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    if not np.array_equal(keys, keys[first[inverse]]):  # a hash collision: group by the rows themselves
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    return first, inverse


def _group_columns(nets: list[Any], cols: Any = None) -> list[EquivalenceClass] | None:
    """:func:`group_by_class` of Network objects over one ``names`` tuple, keyed with numpy.

    The keys are those of :func:`_key_of` (the same Python ints), the members in input order, the
    classes in the same order; ``None`` when :func:`~.columns.columns_of` does not apply.
    """
    import numpy as np

    from .columns import columns_of

    if cols is None:
        cols = columns_of(nets)
    if cols is None:
        return None
    adj, vp = cols.class_keys()
    keys = np.concatenate([adj, vp], axis=1)
    first, inverse = _unique_rows(keys)
    by_class = np.argsort(inverse, kind="stable")            # members of each class in input order
    bounds = np.flatnonzero(np.diff(inverse[by_class])) + 1
    names = cols.names
    n = cols.n
    classes = []
    for c, idx in enumerate(np.split(by_class, bounds)):
        row = keys[first[c]].tolist()
        best = max(nets[i].score for i in idx.tolist())
        classes.append(EquivalenceClass(names, (tuple(row[:n]), tuple(row[n:])), tuple(nets[i] for i in idx.tolist()),
                                        best))
    classes.sort(key=_class_order)
    return classes
