"""The :class:`Network` value object: one learned DAG with its score.

Everything downstream of the solver (the ε-BNSL collector, equivalence-class
code, writers, the CLI) exchanges networks as :class:`Network` objects, so
this module fixes one canonical representation:

* ``names`` gives the variable order (the column order of the data or score
  table); every parent tuple is sorted by that order, so two networks with the
  same arrows have identical ``parents`` dicts and identical :attr:`Network.key`.
* The structure is checked on construction (known names, no self-loops, no
  duplicate parents, acyclic), because a cyclic "network" is never a valid
  answer and catching it here turns a silent wrong result into a loud error
  (:class:`~gobnilp_py.errors.NetworkError`, :class:`~gobnilp_py.errors.CycleError`
  for a cycle; both are ``ValueError``).
* Every network says what it is worth: :attr:`Network.guarantee` is one human
  line starting with ``complete:``, ``INCOMPLETE (<status>):``,
  ``APPROXIMATE:`` or ``INFEASIBLE:``, shown in every output; ``complete`` and
  ``approximate`` are the machine-readable halves.
* Text formats whose separators could occur in a name (GOBNILP's
  ``child<-p1,p2``, bnlearn's ``[c|p1:p2]``) refuse such names instead of
  writing something that reads back differently.

Scores are natural-log local scores, higher is better (GOBNILP's convention).
"""

from __future__ import annotations

import functools
import logging
import math
import sys
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

from ._graphs import acyclic_indices
from ._json import float_or_none, jsonable
from ._wording import UNKNOWN_PREFIX, pruning_unknown
from .errors import CycleError, NetworkError, ParameterError

__all__ = ["Network", "find_cycle", "STATUSES"]

logger = logging.getLogger(__name__)

#: Status strings used across the package.  Only ``"optimal"`` means the
#: network is proven best (within the requested gap of 0); the others come
#: from limits or from an impossible problem.
STATUSES = ("optimal", "feasible", "time_limit", "gap_limit", "interrupted", "no_solution", "infeasible", "unknown")

# Tolerance for "these two scores are the same": scores are sums of a few
# dozen log-likelihood terms, so 1e-9 relative is far above rounding noise and
# far below any real score difference.
_REL_TOL = 1e-9
_ABS_TOL = 1e-7


def find_cycle(names: Sequence[str], parents: Mapping[str, Sequence[str]]) -> list[str] | None:
    """Return one directed cycle ``[a, b, ..., a]`` of the parents graph, or ``None``.

    Uses an iterative depth-first search (no recursion limit on large graphs).
    The cycle is reported in arrow direction (``a -> b -> ... -> a``), which is
    what a user wants to read in an error message.
    """
    children: dict[str, list[str]] = {v: [] for v in names}
    for child in names:
        for p in parents.get(child, ()):
            children.setdefault(p, []).append(child)
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {v: WHITE for v in children}
    for root in names:
        if colour[root] != WHITE:
            continue
        stack: list[tuple[str, int]] = [(root, 0)]
        path: list[str] = [root]
        colour[root] = GREY
        while stack:
            v, k = stack[-1]
            kids = children[v]
            if k < len(kids):
                stack[-1] = (v, k + 1)
                w = kids[k]
                if colour[w] == GREY:
                    return path[path.index(w):] + [w]
                if colour[w] == WHITE:
                    colour[w] = GREY
                    stack.append((w, 0))
                    path.append(w)
            else:
                colour[v] = BLACK
                stack.pop()
                path.pop()
    return None


def _same_score(a: float, b: float) -> bool:
    """Scores agree (both non-finite counts as agreeing: e.g. two infeasible results)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return math.isclose(a, b, rel_tol=_REL_TOL, abs_tol=_ABS_TOL)


@functools.lru_cache(maxsize=64)
def _format_problem(names: tuple[str, ...], fmt: str) -> str | None:
    """The reason ``names`` cannot be written in format ``fmt`` (None if they can); cached per name tuple."""
    from ._validation import check_names_for

    try:
        check_names_for(names, [fmt])
    except ParameterError as exc:
        return str(exc)
    return None


def _check_format(names: tuple[str, ...], fmt: str) -> None:
    problem = _format_problem(names, fmt)
    if problem is not None:
        raise NetworkError(problem)


@dataclass(eq=False)
class Network:
    """A Bayesian network structure (a DAG) with its score and how it was obtained.

    Parameters
    ----------
    names : tuple of str
        All variables, in the canonical (column) order.
    parents : dict of str to tuple of str
        Parents of each variable.  Variables missing from the dict have no
        parents.  Stored with every variable present and each tuple sorted by
        position in ``names``.
    score : float
        Total score (sum of local scores; natural log, higher is better).
        May be non-finite for a result without a network (status ``"infeasible"``).
    status : str
        ``"optimal"`` if proven optimal; otherwise why the search stopped
        (see :data:`STATUSES`).
    dual_bound : float or None
        Best proven upper bound on the score, when the solver reports one.
    local_scores : dict of str to float
        Local score of each variable's chosen family, when known.
    stats : dict
        Free-form solver statistics (time, nodes, ...), for reports.
    approximate : bool
        True when the network comes from a method with no optimality
        guarantee (a heuristic engine, an approximate score table).
    caveats : tuple of str
        Further limits of the guarantee, one short sentence each (e.g. "the
        score table's pruning is unknown"); shown after the guarantee in
        every output (:attr:`notes`).

    Raises
    ------
    NetworkError
        If a name is unknown or duplicated, a variable is its own parent, or a
        parent is listed twice.
    CycleError
        If the arrows form a cycle (a subclass of NetworkError).

    Examples
    --------
    >>> net = Network(("A", "B", "C"), {"C": ("B", "A"), "B": ("A",)}, score=-3.0)
    >>> net.parents["C"]
    ('A', 'B')
    >>> net.to_modelstring()
    '[A][B|A][C|A:B]'
    >>> net.key
    ((), (0,), (0, 1))
    """

    names: tuple[str, ...]
    parents: dict[str, tuple[str, ...]]
    score: float
    status: str = "optimal"
    dual_bound: float | None = None
    local_scores: dict[str, float] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    approximate: bool = False
    caveats: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.names = tuple(str(v) for v in self.names)
        index = {v: i for i, v in enumerate(self.names)}
        if len(index) != len(self.names):
            dup = next(v for i, v in enumerate(self.names) if v in self.names[:i])
            raise NetworkError(f"network lists variable {dup!r} twice")
        raw = dict(self.parents or {})
        for child in raw:
            if str(child) not in index:
                raise NetworkError(f"parents given for unknown variable {child!r}; known: {', '.join(self.names)}")
        canon: dict[str, tuple[str, ...]] = {}
        for child in self.names:
            ps = raw.get(child, ())
            if isinstance(ps, str):  # a lone name is a common slip: treat "A" as ("A",)
                ps = (ps,)
            ps = [str(p) for p in ps]
            for p in ps:
                if p not in index:
                    raise NetworkError(f"unknown parent {p!r} of {child!r}; known: {', '.join(self.names)}")
                if p == child:
                    raise NetworkError(f"variable {child!r} cannot be its own parent")
            if len(set(ps)) != len(ps):
                raise NetworkError(f"a parent of {child!r} is listed twice: {ps}")
            canon[child] = tuple(sorted(ps, key=index.__getitem__))
        self.parents = canon
        self._index = index
        cycle = find_cycle(self.names, canon)
        if cycle is not None:
            raise CycleError(f"parents form a cycle {'->'.join(cycle)}; a Bayesian network must be acyclic")
        self.score = float(self.score)
        self.status = str(self.status)
        if self.status not in STATUSES:
            logger.debug("network status %r is not one of %s", self.status, STATUSES)
        if self.dual_bound is not None:
            self.dual_bound = float(self.dual_bound)
        self.local_scores = {str(k): float(v) for k, v in (self.local_scores or {}).items()}
        for k in self.local_scores:
            if k not in index:
                raise NetworkError(f"local score given for unknown variable {k!r}")
        self.stats = dict(self.stats or {})
        self.approximate = bool(self.approximate)
        if isinstance(self.caveats, str):
            self.caveats = (self.caveats,)
        self.caveats = tuple(str(c) for c in (self.caveats or ()))
        if len(self.local_scores) == len(self.names) and math.isfinite(self.score):
            total = math.fsum(self.local_scores.values())
            if not _same_score(total, self.score):
                logger.warning("network score %.10g differs from the sum of its local scores %.10g",
                               self.score, total)

    @classmethod
    def _from_table_parts(cls, names: tuple[str, ...], index: dict[str, int], parent_idx: Sequence[tuple[int, ...]],
                          local: Sequence[float], status: str) -> "Network":
        """A network from a score table's families, without re-validating what the table guarantees.

        For engine results (:func:`gobnilp_py.solve.results.network_of`): the
        names are the table's (unique strings, ``index`` their positions), each
        ``parent_idx[v]`` a sorted tuple of indices other than ``v`` (the
        table's invariant) and ``local`` the chosen families' scores.  Only
        acyclicity is checked, by an index-based topological sort, since an
        engine bug would show there.  Measured on hailfinder100 (56 variables,
        unlocked, load about 2): 0.12 ms per network against 0.30 ms through
        ``__init__``, i.e. 18 s instead of 45 s for 150,000 networks.
        """
        if not acyclic_indices(parent_idx):
            parents = {names[v]: tuple(names[p] for p in ps) for v, ps in enumerate(parent_idx)}
            cycle = find_cycle(names, parents) or []
            raise CycleError(f"parents form a cycle {'->'.join(cycle)}; a Bayesian network must be acyclic")
        net = object.__new__(cls)
        net.names = names
        # ``parents`` and ``local_scores`` are built on first use (:meth:`__getattr__`): a listing of
        # 150,000 networks is mostly written out or averaged through ``key``-like views, and the two
        # dicts were half of the 65 µs a network cost (lung-cancer, 57 variables).
        net._lazy = (parent_idx, local)
        net.score = math.fsum(local)
        net.status = status
        net.dual_bound = None
        net.stats = {}
        net.approximate = False
        net.caveats = ()
        net._index = index
        return net

    def __getattr__(self, name: str) -> Any:
        # Reached only when normal lookup fails: the dicts of a network built by _from_table_parts.
        if name in ("parents", "local_scores"):
            lazy = self.__dict__.pop("_lazy", None)
            if lazy is not None:
                parent_idx, local = lazy
                names = self.names
                self.parents = {names[v]: tuple(names[p] for p in ps) for v, ps in enumerate(parent_idx)}
                self.local_scores = dict(zip(names, map(float, local)))
                return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------- bulk views
    def _mask_row(self) -> bytes | None:
        """Parent bitmasks, one little-endian uint64 per variable in ``names`` order (bit ``j``: ``names[j]``).

        The row :mod:`gobnilp_py.equivalence.columns` stacks to summarise and write a collection of
        150,000 networks with numpy instead of one Python loop per network and variable.  Read from the
        engine's parent indices of a network built by :meth:`_from_table_parts` (cached: they never
        change) or else from ``parents`` (not cached, so a ``parents`` changed in place is seen).
        ``None`` beyond 64 variables.
        """
        d = self.__dict__
        lazy = d.get("_lazy")
        if lazy is not None:
            cached = d.get("_mask_cache")
            if cached is not None and cached[0] is lazy[0]:
                return cached[1]
            if len(self.names) > 64:
                return None
            get, add = _TUPLE_MASKS.get, _tuple_mask
            row = _le(array("Q", [m if (m := get(t, -1)) >= 0 else add(t) for t in lazy[0]]).tobytes())
            d["_mask_cache"] = (lazy[0], row)
            return row
        if len(self.names) > 64:
            return None
        idx = self._index
        return _le(array("Q", [sum(1 << idx[p] for p in self.parents[c]) for c in self.names]).tobytes())

    def _local_row(self) -> Sequence[float] | None:
        """Local scores in ``names`` order without building :attr:`local_scores` (``None`` if any is unknown)."""
        lazy = self.__dict__.get("_lazy")
        if lazy is not None:
            return lazy[1]
        local = self.local_scores
        if len(local) != len(self.names):
            return None
        return [local[c] for c in self.names]

    # ---------------------------------------------------------------- structure
    @property
    def n(self) -> int:
        """Number of variables."""
        return len(self.names)

    @property
    def edges(self) -> list[tuple[str, str]]:
        """Arrows as ``(parent, child)``, ordered by child then parent (``names`` order)."""
        return [(p, c) for c in self.names for p in self.parents[c]]

    @property
    def n_edges(self) -> int:
        """Number of arrows."""
        return sum(len(ps) for ps in self.parents.values())

    @property
    def key(self) -> tuple[tuple[int, ...], ...]:
        """Canonical hashable structure: per variable (``names`` order), its sorted parent indices.

        Two networks over the same ``names`` have the same key exactly when
        they have the same arrows, so the key deduplicates and (being a tuple
        of int tuples) sorts collections of networks deterministically.
        """
        lazy = self.__dict__.get("_lazy")
        if lazy is not None:  # the engine's parent indices are the key already (sorted, names order)
            return tuple(map(tuple, lazy[0]))
        idx = self._index
        return tuple(tuple(idx[p] for p in self.parents[c]) for c in self.names)

    def is_acyclic(self) -> bool:
        """True if the current ``parents`` have no directed cycle.

        Construction already rejects cycles; this re-checks in case the
        ``parents`` dict was modified afterwards.
        """
        return find_cycle(self.names, self.parents) is None

    def has_edge(self, parent: str, child: str) -> bool:
        """True if the arrow ``parent -> child`` is present."""
        return parent in self.parents.get(child, ())

    def adjacent(self, a: str, b: str) -> bool:
        """True if ``a`` and ``b`` are joined by an arrow in either direction."""
        return self.has_edge(a, b) or self.has_edge(b, a)

    # -------------------------------------------------------------- status info
    @property
    def is_optimal(self) -> bool:
        """True only if the solver proved this network optimal (status ``"optimal"``)."""
        return self.status == "optimal"

    @property
    def is_exact(self) -> bool:
        """True only for a proven result (status ``"optimal"``); a time-limited network is not exact."""
        return self.status == "optimal"

    @property
    def complete(self) -> bool:
        """True when the search finished: proven optimal, or proven infeasible (no network exists).

        As for :class:`~gobnilp_py.solve.credible.CredibleSet`, an infeasible
        answer is complete (the whole answer is "none"); ``status`` tells the
        two apart.  Read it together with :attr:`approximate` (an optimum of
        an approximate table is not the optimum of the data) and :attr:`caveats`.
        """
        return self.status in ("optimal", "infeasible")

    @property
    def guarantee(self) -> str:
        """One human line saying what this result is worth, shown in every output.

        Starts with ``complete:`` (proven optimal), ``INCOMPLETE (<status>):``
        (a limit or an interrupt stopped the search), ``APPROXIMATE:``,
        ``INFEASIBLE:`` or ``UNKNOWN:`` (learnt from a score table that does
        not record how it was pruned; the rest of the line then holds for that
        table).  :attr:`notes` adds the :attr:`caveats`, as
        :class:`~gobnilp_py.solve.credible.CredibleSet` does.

        Examples
        --------
        >>> Network(("A", "B"), {"B": ("A",)}, score=-1.0).guarantee
        'complete: proven optimal (no network allowed by the score table and constraints scores higher)'
        >>> Network(("A",), {}, score=-1.0, status="time_limit", dual_bound=-0.5).guarantee
        'INCOMPLETE (time_limit): the best network found before the search stopped; the optimum is at most -0.500000'
        """
        if self.status == "infeasible":
            text = "INFEASIBLE: no network satisfies the constraints and the score table"
        elif self.approximate:
            text = "APPROXIMATE: a good network found without an optimality guarantee"
        elif self.status == "optimal" and self.stats.get("order"):
            # learned under a given variable order (solve/ordered.py): optimal among the networks it allows
            text = ("complete: proven optimal under the given order (no network that follows the order scores "
                    "higher)")
        elif self.status == "optimal":
            text = "complete: proven optimal (no network allowed by the score table and constraints scores higher)"
        elif not math.isfinite(self.score):
            text = f"INCOMPLETE ({self.status}): no network found before the search stopped"
        else:
            text = f"INCOMPLETE ({self.status}): the best network found before the search stopped"
            if self.dual_bound is not None and math.isfinite(self.dual_bound):
                text += f"; the optimum is at most {self.dual_bound:.6f}"
        if self.pruning_unknown and self.status != "infeasible" and not self.approximate:
            text = UNKNOWN_PREFIX + text
        return text

    @property
    def pruning_unknown(self) -> bool:
        """Learnt from a score table that does not record how it was pruned (e.g. GOBNILP's ``.jkl``).

        Then "proven optimal" holds for that table; whether the table kept the
        optimum's families is not known, and the guarantee starts with ``UNKNOWN:``.
        """
        return pruning_unknown(self.caveats)

    @property
    def notes(self) -> list[str]:
        """The guarantee line followed by every caveat (what every output file shows)."""
        return [self.guarantee, *self.caveats]

    # ---------------------------------------------------------------- equality
    def __eq__(self, other: object) -> bool:
        """Same variables, same arrows and the same score (to 1e-9 relative).

        Status, bounds and statistics are deliberately ignored: the same DAG
        found by two runs is the same network.  Comparing scores too catches
        networks built from different score tables being mistaken for one.
        """
        if not isinstance(other, Network):
            return NotImplemented
        return (self.names == other.names and self.parents == other.parents
                and _same_score(self.score, other.score))

    def __hash__(self) -> int:
        return hash((self.names, self.key))

    # ------------------------------------------------------------------ export
    def to_networkx(self) -> "nx.DiGraph":
        """A :class:`networkx.DiGraph` with every variable as a node (isolated ones too)."""
        import networkx as nx  # about 0.13 s to import: only where a graph object is asked for

        g = nx.DiGraph()
        g.add_nodes_from(self.names)
        g.add_edges_from(self.edges)
        g.graph["score"] = self.score
        g.graph["status"] = self.status
        return g

    def to_pgmpy(self, data: Any, **kwargs: Any) -> Any:
        """A pgmpy model of this structure with CPTs fitted from ``data`` (see :func:`gobnilp_py.interop.to_pgmpy`)."""
        from .interop import to_pgmpy

        return to_pgmpy(self, data, **kwargs)

    def to_bif(self, data: Any, **kwargs: Any) -> str:
        """BIF text with CPTs fitted from ``data``, no pgmpy needed (see :func:`gobnilp_py.interop.to_bif`)."""
        from .interop import to_bif

        return to_bif(self, data, **kwargs)

    def to_modelstring(self) -> str:
        """bnlearn's model string, e.g. ``[A][B|A][C|A:B]`` (nodes and parents in ``names`` order).

        Raises
        ------
        NetworkError
            If a name contains ``[``, ``]``, ``|``, ``:`` or a line break (the
            string would read back as a different network).
        """
        _check_format(self.names, "modelstring")
        parts = []
        for c in self.names:
            ps = self.parents[c]
            parts.append(f"[{c}|{':'.join(ps)}]" if ps else f"[{c}]")
        return "".join(parts)

    def to_dot(self, name: str = "BN") -> str:
        """Graphviz DOT text; every identifier is quoted so any variable name is valid."""
        lines = [f"digraph {_dot_id(name)} {{"]
        lines += [f"  {_dot_id(v)};" for v in self.names]
        lines += [f"  {_dot_id(p)} -> {_dot_id(c)};" for p, c in self.edges]
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_gobnilp_text(self, digits: int | None = 6) -> str:
        """GOBNILP's solution text: ``child<-p1,p2, local_score`` per node, then ``BN score is <total>``.

        ``digits`` decimals are printed (GOBNILP prints 6); ``None`` prints
        the shortest text that reads back to the same float.  A node whose
        local score is unknown gets no score on its line.

        Raises
        ------
        NetworkError
            If a name contains ``<-``, ``,`` or white space (GOBNILP's separators).
        """
        _check_format(self.names, "gobnilp")
        def fmt(x: float) -> str:
            return repr(float(x)) if digits is None else f"{x:.{digits}f}"

        lines = []
        for c in self.names:
            head = f"{c}<-" + "".join(f"{p}," for p in self.parents[c])
            lines.append(f"{head} {fmt(self.local_scores[c])}" if c in self.local_scores else head)
        lines.append(f"BN score is {fmt(self.score)}")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict; non-finite floats become ``None`` (the package's JSON convention).

        An infeasible result has ``"score": null`` and ``"status": "infeasible"``.  A result
        without a network (infeasible, or a search stopped before finding one) has ``null``
        ``parents``, ``edges`` and ``n_edges``: an empty parent list would read as the empty graph.
        """
        none = not math.isfinite(self.score)
        return {
            "names": list(self.names),
            "score": float_or_none(self.score),
            "status": self.status,
            "complete": self.complete,
            "approximate": self.approximate,
            "guarantee": self.guarantee,
            "caveats": list(self.caveats),
            "dual_bound": float_or_none(self.dual_bound),
            "parents": None if none else {c: list(self.parents[c]) for c in self.names},
            "edges": None if none else [list(e) for e in self.edges],
            "n_edges": None if none else self.n_edges,
            "local_scores": {c: float_or_none(self.local_scores[c]) for c in self.names
                             if c in self.local_scores},
            "stats": jsonable(self.stats),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Network":
        """Inverse of :meth:`to_dict` (``edges``, ``n_edges``, ``complete`` and ``guarantee`` are derived).

        A ``null`` score reads as ``-inf`` for a result without a network
        (status ``"infeasible"`` or ``"no_solution"``), else as ``nan``.

        Raises
        ------
        NetworkError
            ``d`` is not a mapping, lacks ``names`` or ``score``, or holds
            values of the wrong kind; CycleError for cyclic parents.
        """
        if not isinstance(d, Mapping):
            raise NetworkError(f"a network dict must be a mapping, got {type(d).__name__}")
        missing = [k for k in ("names", "score") if k not in d]
        if missing:
            raise NetworkError(f"network dict lacks {', '.join(repr(k) for k in missing)}; "
                               "expected keys names, parents, score")
        parents = d.get("parents") or {}
        if not isinstance(parents, Mapping):
            raise NetworkError(f"network dict: parents must be a mapping, got {type(parents).__name__}")
        status = d.get("status", "optimal")
        try:
            names = tuple(d["names"])
            score = d["score"]
            if score is None:
                score = -math.inf if status in ("infeasible", "no_solution") else math.nan
            dual = d.get("dual_bound")
            return cls(
                names=names,
                parents={str(k): tuple(v) for k, v in parents.items()},
                score=float(score),
                status=status,
                dual_bound=None if dual is None else float(dual),
                local_scores={k: float(v) for k, v in (d.get("local_scores") or {}).items() if v is not None},
                stats=dict(d.get("stats") or {}),
                approximate=bool(d.get("approximate", False)),
                caveats=tuple(d.get("caveats") or ()),
            )
        except (TypeError, ValueError) as exc:
            if isinstance(exc, NetworkError):
                raise
            raise NetworkError(f"network dict holds a value of the wrong kind: {exc}") from None

    @classmethod
    def from_edges(cls, names: Sequence[str], edges: Iterable[tuple[str, str]], score: float = math.nan,
                   **kwargs: Any) -> "Network":
        """Build from ``(parent, child)`` pairs (convenience for tests and converters)."""
        parents: dict[str, list[str]] = {}
        for p, c in edges:
            parents.setdefault(str(c), []).append(str(p))
        return cls(tuple(names), {c: tuple(ps) for c, ps in parents.items()}, score, **kwargs)

    def _repr_svg_(self) -> str | None:
        """The network drawn as SVG, which Jupyter shows for a network value (see :mod:`gobnilp_py.drawing.notebook`).

        ``None`` (the text ``repr`` is shown) for a result without a network or
        with more variables than a picture can hold; matplotlib is imported
        only here, when a notebook asks.
        """
        from ._display import render

        return render("network_svg", self)

    def __repr__(self) -> str:
        try:
            shape = self.to_modelstring()
        except NetworkError:  # names a model string cannot hold: list the arrows instead
            shape = repr(self.edges)
        # The label travels with the object: an approximate network never prints like an optimum.
        tail = ", approximate=True" if self.approximate else ""
        return f"Network({shape}, score={self.score:.6f}, status={self.status!r}{tail})"


#: Parent-index tuple -> bitmask, shared by every network (a collection repeats the same parent sets).
_TUPLE_MASKS: dict[tuple[int, ...], int] = {}


def _tuple_mask(t: tuple[int, ...]) -> int:
    if len(_TUPLE_MASKS) > 1 << 20:  # bounded: a long session of different tables does not grow it forever
        _TUPLE_MASKS.clear()
    m = 0
    for p in t:
        m |= 1 << p
    _TUPLE_MASKS[t] = m
    return m


def _le(row: bytes) -> bytes:
    """``array('Q')`` bytes in little-endian order (the order the bulk readers assume)."""
    if sys.byteorder == "little":
        return row
    a = array("Q", row)
    a.byteswap()
    return a.tobytes()


def _dot_id(s: str) -> str:
    """A DOT double-quoted ID; backslashes and quotes escaped, newlines kept out."""
    s = str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{s}"'
