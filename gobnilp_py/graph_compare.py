"""How far a learned graph is from a true one: SHD, and precision and recall of adjacencies and arrowheads.

:func:`compare_graphs` takes the true graph first and the learned one second
(each a :class:`~gobnilp_py.network.Network`, a
:class:`~gobnilp_py.equivalence.CPDAG`, a networkx ``DiGraph``/``Graph``, a
pandas adjacency ``DataFrame`` or a 0/1 array with ``names=``) and returns a
:class:`GraphComparison`.  The definitions are the ones the usual tools use,
so numbers can be put beside theirs:

* **SHD** (structural Hamming distance, Tsamardinos, Brown & Aliferis 2006):
  the number of variable pairs whose edge differs, where a pair holds no
  edge, ``u -> v``, ``v -> u`` or ``u - v`` (undirected).  A reversed arrow,
  a missing or extra edge, and an arrow against an undirected edge each
  count one.  :attr:`GraphComparison.shd` compares the graphs as given (two
  DAGs: missing + extra + reversed arrows, as causal-learn's ``SHD`` and
  bnlearn's ``shd(learned, true, cpdag = FALSE)``);
  :attr:`GraphComparison.shd_cpdag` compares their CPDAGs (equivalence
  classes), as bnlearn's ``shd(learned, true)`` does by default, so two
  Markov-equivalent DAGs are at distance 0.  causal-learn's ``SHD`` (as
  released in 0.1.4.8: a pair counts when its two endpoint marks differ)
  gives the same numbers on the same graphs, DAGs or CPDAGs (an older
  version in its history did not count an arrow against an undirected
  edge; :attr:`GraphComparison.cpdag_differences` lists each pair with its
  kind, so that figure can be had too).
* **Adjacencies** (causal-learn's ``AdjacencyConfusion``): over unordered
  pairs, TP = adjacent in both, FP = adjacent only in the learned graph,
  FN = adjacent only in the true graph; precision TP / (TP + FP), recall
  TP / (TP + FN).  Directions are ignored.
* **Arrowheads** (causal-learn's ``ArrowConfusion``): an arrow ``u -> v``
  puts an arrowhead at ``v``; undirected edges have none.  TP = arrowheads
  in both graphs, FP = only in the learned graph, FN = only in the true
  graph, so a reversed arrow is one FP and one FN.  Given for the graphs as
  given (:attr:`GraphComparison.arrowheads`) and for their CPDAGs
  (:attr:`GraphComparison.cpdag_arrowheads`: only compelled arrows count,
  which is what a structure learner can be asked to get right).

A precision or recall with nothing to count (``0 / 0``) is ``nan``:
causal-learn raises ``ZeroDivisionError`` there; bnlearn's ``compare``
returns the counts only.  The counts are always there.

Adjacency matrices follow bnlearn's ``amat`` and networkx's convention:
row ``u``, column ``v`` is 1 when ``u -> v``; 1 in both ``[u, v]`` and
``[v, u]`` is an undirected edge.  (causal-learn's own ``GeneralGraph``
matrix codes endpoints with -1 and 1 and is not read here; convert it with
causal-learn's ``.graph`` documentation, or pass the edges.)
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import DataError

__all__ = ["compare_graphs", "GraphComparison", "EdgeCounts", "Difference"]

# A graph as the comparison reads it: variable names, arrows (u, v), undirected pairs.
_Graph = tuple[tuple[str, ...], frozenset[tuple[str, str]], frozenset[frozenset[str]]]


@dataclass(frozen=True)
class EdgeCounts:
    """True positives, false positives and false negatives of one kind of edge feature, with precision and recall."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        """TP / (TP + FP): the share of the learned features that are true (``nan`` when nothing was learned)."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else math.nan

    @property
    def recall(self) -> float:
        """TP / (TP + FN): the share of the true features that were learned (``nan`` when there are none)."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else math.nan

    @property
    def f1(self) -> float:
        """The harmonic mean of precision and recall, 2 TP / (2 TP + FP + FN) (``nan`` when all are 0)."""
        d = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / d if d else math.nan

    def to_dict(self) -> dict[str, Any]:
        """``{"tp", "fp", "fn", "precision", "recall", "f1"}``; ``nan`` becomes ``None`` (JSON has no nan)."""
        def num(x: float) -> float | None:
            return None if math.isnan(x) else x

        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "precision": num(self.precision),
                "recall": num(self.recall), "f1": num(self.f1)}


@dataclass(frozen=True)
class Difference:
    """One pair of variables whose edge differs: what the true and the learned graph hold there.

    ``true`` and ``learned`` read ``"u -> v"``, ``"v -> u"``, ``"u - v"`` or
    ``"none"``; ``kind`` is ``"missing"`` (adjacent only in the true graph),
    ``"extra"`` (only in the learned one), ``"reversed"`` (opposite arrows)
    or ``"orientation"`` (an arrow against an undirected edge).
    """

    u: str
    v: str
    true: str
    learned: str
    kind: str


@dataclass(frozen=True)
class GraphComparison:
    """The distance between a true and a learned graph (see the module docstring for every definition).

    Attributes
    ----------
    names : tuple of str
        The variables, in the true graph's order.
    shd : int
        Structural Hamming distance between the graphs as given.
    shd_cpdag : int
        Structural Hamming distance between their CPDAGs (bnlearn's ``shd``).
    adjacency : EdgeCounts
        Skeleton TP / FP / FN, precision and recall.
    arrowheads : EdgeCounts
        Arrowheads of the graphs as given.
    cpdag_arrowheads : EdgeCounts
        Arrowheads of their CPDAGs (compelled arrows).
    differences, cpdag_differences : tuple of Difference
        Every pair that differs, as given and between the CPDAGs
        (``len(differences) == shd``).
    """

    names: tuple[str, ...]
    shd: int
    shd_cpdag: int
    adjacency: EdgeCounts
    arrowheads: EdgeCounts
    cpdag_arrowheads: EdgeCounts
    differences: tuple[Difference, ...]
    cpdag_differences: tuple[Difference, ...]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary (``nan`` as ``None``), the differences as ``[u, v, true, learned, kind]`` lists."""
        return {
            "names": list(self.names),
            "shd": self.shd,
            "shd_cpdag": self.shd_cpdag,
            "adjacency": self.adjacency.to_dict(),
            "arrowheads": self.arrowheads.to_dict(),
            "cpdag_arrowheads": self.cpdag_arrowheads.to_dict(),
            "differences": [[d.u, d.v, d.true, d.learned, d.kind] for d in self.differences],
            "cpdag_differences": [[d.u, d.v, d.true, d.learned, d.kind] for d in self.cpdag_differences],
        }

    def _rows(self) -> list[tuple[str, EdgeCounts]]:
        return [("adjacencies", self.adjacency), ("arrowheads", self.arrowheads),
                ("arrowheads (CPDAG)", self.cpdag_arrowheads)]

    def __str__(self) -> str:
        def f(x: float) -> str:
            return "nan" if math.isnan(x) else f"{x:.3f}"

        lines = [f"SHD {self.shd} (DAGs as given), {self.shd_cpdag} (CPDAGs)",
                 f"{'':<20}{'TP':>5}{'FP':>5}{'FN':>5}{'precision':>11}{'recall':>8}"]
        for label, c in self._rows():
            lines.append(f"{label:<20}{c.tp:>5}{c.fp:>5}{c.fn:>5}{f(c.precision):>11}{f(c.recall):>8}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The summary as an HTML table, for notebooks."""
        def f(x: float) -> str:
            return "nan" if math.isnan(x) else f"{x:.3f}"

        rows = "".join(f"<tr><td>{html.escape(label)}</td><td>{c.tp}</td><td>{c.fp}</td><td>{c.fn}</td>"
                       f"<td>{f(c.precision)}</td><td>{f(c.recall)}</td></tr>" for label, c in self._rows())
        diffs = "; ".join(html.escape(f"{d.true} / {d.learned}") for d in self.differences[:12])
        more = f" (and {len(self.differences) - 12} more)" if len(self.differences) > 12 else ""
        return (f"<p><b>SHD {self.shd}</b> between the graphs as given, <b>{self.shd_cpdag}</b> between their "
                f"CPDAGs</p><table><tr><th></th><th>TP</th><th>FP</th><th>FN</th><th>precision</th>"
                f"<th>recall</th></tr>{rows}</table>"
                + (f"<p>differences (true / learned): {diffs}{more}</p>" if self.differences else ""))

    def __repr__(self) -> str:
        return (f"GraphComparison(shd={self.shd}, shd_cpdag={self.shd_cpdag}, "
                f"adjacency precision={self.adjacency.precision:.3f} recall={self.adjacency.recall:.3f}, "
                f"arrowhead precision={self.arrowheads.precision:.3f} recall={self.arrowheads.recall:.3f})")


# ------------------------------------------------------------------------------ reading graphs
def _from_edges(names: Sequence[Any], arcs: Iterable[tuple[Any, Any]], what: str) -> _Graph:
    """Arrows given both ways become one undirected edge."""
    names_t = tuple(str(v) for v in names)
    if len(set(names_t)) != len(names_t):
        dup = next(v for i, v in enumerate(names_t) if v in names_t[:i])
        raise DataError(f"compare_graphs: the {what} graph names variable {dup!r} twice")
    known = set(names_t)
    arcs_s = set()
    for u, v in arcs:
        u, v = str(u), str(v)
        if u == v:
            raise DataError(f"compare_graphs: the {what} graph has a self-loop at {u!r}")
        for x in (u, v):
            if x not in known:
                raise DataError(f"compare_graphs: the {what} graph has an edge at unknown variable {x!r}")
        arcs_s.add((u, v))
    directed = frozenset(a for a in arcs_s if (a[1], a[0]) not in arcs_s)
    undirected = frozenset(frozenset(a) for a in arcs_s if (a[1], a[0]) in arcs_s)
    return names_t, directed, undirected


def _matrix(mat: Any, names: Sequence[Any] | None, what: str) -> _Graph:
    import numpy as np

    a = np.asarray(mat)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise DataError(f"compare_graphs: the {what} adjacency matrix must be square, got shape {a.shape}")
    if names is None:
        raise DataError(f"compare_graphs: the {what} graph is an array without variable names; pass a pandas "
                        "DataFrame or names=[...]")
    if len(names) != a.shape[0]:
        raise DataError(f"compare_graphs: {len(names)} names for the {what} {a.shape[0]} x {a.shape[0]} matrix")
    try:
        vals = a.astype(float)
    except (TypeError, ValueError):
        raise DataError(f"compare_graphs: the {what} adjacency matrix must hold 0 and 1") from None
    if not np.isin(vals, (0.0, 1.0)).all():
        raise DataError(f"compare_graphs: the {what} adjacency matrix must hold only 0 and 1 (row u, column v is 1 "
                        "when u -> v)")
    rows, cols = np.nonzero(vals)
    return _from_edges(names, [(names[i], names[j]) for i, j in zip(rows.tolist(), cols.tolist())], what)


def _read(g: Any, names: Sequence[Any] | None, what: str) -> _Graph:
    """Any accepted graph as (names, arrows, undirected pairs)."""
    if hasattr(g, "directed") and hasattr(g, "undirected") and hasattr(g, "names"):  # a CPDAG
        return (tuple(g.names), frozenset(g.directed), frozenset(frozenset(e) for e in g.undirected))
    if hasattr(g, "names") and hasattr(g, "parents") and isinstance(g.parents, Mapping):  # a Network
        return _from_edges(g.names, [(p, c) for c in g.names for p in g.parents.get(c, ())], what)
    if isinstance(g, Mapping) and "names" in g and "parents" in g:
        return _from_edges(g["names"], [(p, c) for c, ps in g["parents"].items() for p in ps], what)
    if hasattr(g, "is_directed") and hasattr(g, "nodes") and hasattr(g, "edges"):  # networkx
        nodes = list(g.nodes)
        arcs = list(g.edges())
        if not g.is_directed():
            arcs = arcs + [(v, u) for u, v in arcs]
        return _from_edges(nodes, arcs, what)
    if hasattr(g, "index") and hasattr(g, "columns") and hasattr(g, "to_numpy"):  # a pandas DataFrame
        rows, cols = [str(x) for x in g.index], [str(x) for x in g.columns]
        if sorted(rows) != sorted(cols):
            raise DataError(f"compare_graphs: the {what} adjacency frame's rows and columns name different "
                            "variables")
        frame = g.copy()
        frame.index, frame.columns = rows, cols
        return _matrix(frame.loc[rows, rows].to_numpy(), rows, what)
    if isinstance(g, tuple) and len(g) == 2 and not isinstance(g[0], str):
        return _matrix(g[0], list(g[1]), what)
    if hasattr(g, "shape") or isinstance(g, list):
        return _matrix(g, names, what)
    raise DataError(f"compare_graphs: cannot read the {what} graph from {type(g).__name__}; give a Network, a "
                    "CPDAG, a networkx graph, an adjacency DataFrame or an array with names=")


def _extension(names: Sequence[str], directed: frozenset[tuple[str, str]],
               undirected: frozenset[frozenset[str]]) -> dict[str, list[str]] | None:
    """A DAG with the same skeleton and v-structures as the partially directed graph (Dor & Tarsi 1992), or None.

    Repeatedly take a vertex with no outgoing arrow whose undirected
    neighbours are adjacent to every other vertex adjacent to it, direct
    its undirected edges into it, and remove it.
    """
    parents: dict[str, list[str]] = {v: [] for v in names}
    out: dict[str, set[str]] = {v: set() for v in names}
    inn: dict[str, set[str]] = {v: set() for v in names}
    und: dict[str, set[str]] = {v: set() for v in names}
    for u, v in directed:
        out[u].add(v)
        inn[v].add(u)
        parents[v].append(u)
    for e in undirected:
        a, b = tuple(e)
        und[a].add(b)
        und[b].add(a)
    left = list(names)
    while left:
        for x in left:
            if out[x]:
                continue
            adj = inn[x] | und[x]
            if all(adj - {y} <= (inn[y] | out[y] | und[y]) for y in und[x]):
                break
        else:
            return None
        for y in und[x]:
            parents[x].append(y)
            und[y].discard(x)
        for y in inn[x]:
            out[y].discard(x)
        left.remove(x)
        for d in (out, inn, und):
            d[x] = set()
    return parents


def _cpdag_of(g: _Graph, what: str) -> _Graph:
    from .equivalence import cpdag

    names, directed, undirected = g
    if not undirected:
        parents: dict[str, list[str]] = {v: [] for v in names}
        for u, v in directed:
            parents[v].append(u)
        try:
            c = cpdag(names, parents)
        except DataError as exc:
            raise DataError(f"compare_graphs: the {what} graph: {exc}") from None
        return names, frozenset(c.directed), frozenset(c.undirected)
    ext = _extension(names, directed, undirected)
    if ext is None:
        raise DataError(f"compare_graphs: the {what} graph has undirected edges but no DAG with its skeleton and "
                        "v-structures exists, so it is not a CPDAG")
    c = cpdag(names, ext)
    if c.directed != directed or c.undirected != undirected:
        raise DataError(f"compare_graphs: the {what} graph has undirected edges but is not a CPDAG (its "
                        "equivalence class orients or leaves undirected other edges); give a DAG or a CPDAG")
    return g


# ------------------------------------------------------------------------------ the comparison
def _state(g: _Graph, u: str, v: str) -> str:
    _, directed, undirected = g
    if (u, v) in directed:
        return f"{u} -> {v}"
    if (v, u) in directed:
        return f"{v} -> {u}"
    if frozenset((u, v)) in undirected:
        return f"{u} - {v}"
    return "none"


def _differences(names: Sequence[str], t: _Graph, e: _Graph) -> tuple[Difference, ...]:
    out = []
    for i, u in enumerate(names):
        for v in names[i + 1:]:
            a, b = _state(t, u, v), _state(e, u, v)
            if a == b:
                continue
            if b == "none":
                kind = "missing"
            elif a == "none":
                kind = "extra"
            elif "->" in a and "->" in b:
                kind = "reversed"
            else:
                kind = "orientation"
            out.append(Difference(u, v, a, b, kind))
    return tuple(out)


def _skeleton(g: _Graph) -> set[frozenset[str]]:
    return {frozenset(a) for a in g[1]} | set(g[2])


def _counts(true: Iterable[Any], learned: Iterable[Any]) -> EdgeCounts:
    t, e = set(true), set(learned)
    return EdgeCounts(len(t & e), len(e - t), len(t - e))


def compare_graphs(true: Any, learned: Any, *, names: Sequence[str] | None = None) -> GraphComparison:
    """Compare a learned graph with the true one: SHD (as given and between CPDAGs), adjacency and arrowhead scores.

    Parameters
    ----------
    true, learned : Network, CPDAG, networkx graph, DataFrame or array
        A :class:`~gobnilp_py.network.Network` (or anything with ``names``
        and ``parents``), a :class:`~gobnilp_py.equivalence.CPDAG`, a
        networkx ``DiGraph`` (an edge both ways is undirected) or ``Graph``
        (all undirected), a pandas adjacency ``DataFrame`` (row ``u``,
        column ``v`` is 1 when ``u -> v``), a ``(matrix, names)`` pair, or a
        0/1 array with ``names``.  The two graphs must have the same
        variables (in any order); a graph with undirected edges must be a
        CPDAG (its CPDAG figures are needed).
    names : sequence of str, optional
        Variable names of a bare array (row/column order).

    Returns
    -------
    GraphComparison
        ``shd``, ``shd_cpdag``, ``adjacency``, ``arrowheads``,
        ``cpdag_arrowheads`` (each with ``tp``, ``fp``, ``fn``,
        ``precision``, ``recall``), and the differing pairs.

    Raises
    ------
    DataError
        A graph that cannot be read, a cycle, a self-loop, different
        variables, a matrix holding other values than 0 and 1, undirected
        edges that do not form a CPDAG.

    Examples
    --------
    >>> from gobnilp_py import Network
    >>> true = Network.from_edges("abc", [("a", "b"), ("b", "c")], score=0.0)      # a -> b -> c
    >>> learned = Network.from_edges("abc", [("b", "a"), ("b", "c"), ("a", "c")], score=0.0)
    >>> r = compare_graphs(true, learned)
    >>> r.shd, r.shd_cpdag, (r.adjacency.tp, r.adjacency.fp, r.adjacency.fn)
    (2, 1, (2, 1, 0))
    >>> [(d.u, d.v, d.kind) for d in r.differences]
    [('a', 'b', 'reversed'), ('a', 'c', 'extra')]

    The reversed arrow ``a -> b`` stays inside the true graph's equivalence
    class (both CPDAGs leave ``a - b`` undirected), so only the extra edge
    counts between the CPDAGs.
    """
    t = _read(true, names, "true")
    e = _read(learned, names, "learned")
    if set(t[0]) != set(e[0]):
        only_t = sorted(set(t[0]) - set(e[0]))
        only_e = sorted(set(e[0]) - set(t[0]))
        parts = []
        if only_t:
            parts.append(f"only the true graph has {', '.join(map(repr, only_t[:5]))}")
        if only_e:
            parts.append(f"only the learned graph has {', '.join(map(repr, only_e[:5]))}")
        raise DataError("compare_graphs: the two graphs have different variables: " + "; ".join(parts))
    order = t[0]
    tc, ec = _cpdag_of(t, "true"), _cpdag_of(e, "learned")
    diffs = _differences(order, t, e)
    cdiffs = _differences(order, tc, ec)
    return GraphComparison(
        names=order,
        shd=len(diffs),
        shd_cpdag=len(cdiffs),
        adjacency=_counts(_skeleton(t), _skeleton(e)),
        arrowheads=_counts(t[1], e[1]),
        cpdag_arrowheads=_counts(tc[1], ec[1]),
        differences=diffs,
        cpdag_differences=cdiffs,
    )
