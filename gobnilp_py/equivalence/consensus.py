"""A consensus network from model-averaged probabilities: the arrows (or edges) that reach a threshold, kept acyclic.

Model averaging over a credible set gives each arrow ``u -> v`` a posterior
probability (:meth:`~gobnilp_py.solve.credible.CredibleSet.arrow_probabilities`)
and each pair an adjacency probability.  A single graph that summarises them
is what a reader usually wants drawn; the arrows above a threshold need not
form a DAG, so the rule that makes one is part of the answer and is reported
with it.  :func:`consensus_network` follows one of two rules:

``on="arrows"`` (default)
    Every arrow with ``P(u -> v) >= threshold`` is a candidate.  Candidates
    are added in decreasing probability (ties in variable order: parent
    first, then child); a candidate that would close a directed cycle with
    the arrows already added is **skipped**, and reported with the cycle it
    closes (:attr:`ConsensusNetwork.skipped`).  With ``threshold > 0.5`` two
    opposite arrows cannot both qualify (their probabilities sum to at most
    1), so only longer cycles can be met.
``on="edges"``
    Every pair with ``P(u, v adjacent) >= threshold`` is kept: the skeleton
    of the result is exactly the pairs that reach the threshold.  Pairs are
    taken in decreasing adjacency probability; each is directed the way it
    is more probable (ties: from the earlier variable), and when that would
    close a cycle it is directed the other way instead, which never closes
    one (a path ``v ~> u`` exists, so a path ``u ~> v`` would already have
    made a cycle).  Such pairs are reported (:attr:`ConsensusNetwork.flipped`).

bnlearn's ``averaged.network`` keeps the pairs whose adjacency strength is
*above* the threshold, each in its direction of probability >= 0.5, and
adds them by decreasing strength, dropping any arc that would close a
cycle: ``on="edges"`` thresholds like it (at or above) but turns such an
arc round instead of dropping it; ``on="arrows"`` drops like it.

A probability counts as reaching the threshold when it is at least
``threshold - 1e-9``: the averages are sums of at most a few hundred
thousand normalised weights, so their rounding error is below 1e-10, and a
probability that is exactly the threshold in exact arithmetic is not lost
to it.

The result is a :class:`~gobnilp_py.network.Network` (a
:class:`ConsensusNetwork`), so everything a network does (CPDAG, pictures,
networkx, pgmpy, BIF, :func:`~gobnilp_py.graph_compare.compare_graphs`)
works on it; it has no score (``nan``, status ``"unknown"``), carries the
probability of every arrow it keeps, and its :attr:`guarantee` starts with
the label of the set it was averaged over (``complete:``, ``INCOMPLETE
(<reason>):``, ``APPROXIMATE:``, ``UNKNOWN:``), so a consensus of an
incomplete or approximate set says so wherever it is shown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._wording import UNKNOWN_PREFIX, count
from ..errors import DataError
from ..network import Network

__all__ = ["ConsensusNetwork", "consensus_network", "CONSENSUS_RULES", "PROBABILITY_TOLERANCE"]

#: The two rules (see the module docstring).
CONSENSUS_RULES = ("arrows", "edges")
#: A probability reaches the threshold when it is at least ``threshold - PROBABILITY_TOLERANCE``.
PROBABILITY_TOLERANCE = 1e-9

_LABEL = re.compile(r"\b(APPROXIMATE|INCOMPLETE \([^)]*\)|INFEASIBLE)")


def source_label(guarantee: str, complete: bool) -> str:
    """The label a result derived from a set starts with: ``"complete: "``, ``"INCOMPLETE (x): "``, ...

    The words are the set's own (its guarantee line's labels, in order), so a
    consensus, a picture or a table derived from it says what the set says.

    Examples
    --------
    >>> source_label("complete: every network with score >= OPT - 3 (Bayes factor 20.1)", True)
    'complete: '
    >>> source_label("APPROXIMATE (explored parent sets only); INCOMPLETE (time_limit): not ...", False)
    'APPROXIMATE, INCOMPLETE (time_limit): '
    """
    labels = list(dict.fromkeys(_LABEL.findall(guarantee or "")))
    text = ", ".join(labels) + ": " if labels else ("complete: " if complete else "INCOMPLETE: ")
    if (guarantee or "").startswith(UNKNOWN_PREFIX) and not text.startswith("UNKNOWN"):
        text = UNKNOWN_PREFIX + text
    return text


@dataclass(eq=False)
class ConsensusNetwork(Network):
    """A network summarising model-averaged probabilities (see :func:`consensus_network` for the rules).

    Extra attributes
    ----------------
    threshold : float
    on : {"arrows", "edges"}
    arrow_probability : dict of (parent, child) -> float
        ``P(parent -> child)`` of every arrow kept.
    edge_probability : dict of (parent, child) -> float
        ``P(parent, child adjacent)`` of every arrow kept.
    skipped : tuple of (parent, child, probability, cycle)
        Arrows that reached the threshold but closed a cycle (``on="arrows"``),
        ``cycle`` the closed cycle as a tuple of names ``(parent, child, ..., parent)``.
    flipped : tuple of (parent, child, P(parent -> child), P(child -> parent))
        Pairs directed against their more probable direction to avoid a cycle
        (``on="edges"``), as kept.
    source_guarantee : str
        The guarantee line of the set the probabilities were averaged over.
    source_complete : bool
    averages_over : str
        What the probabilities average over (``"all credible networks"``, ...).
    """

    threshold: float = 0.5
    on: str = "arrows"
    arrow_probability: dict[tuple[str, str], float] = field(default_factory=dict)
    edge_probability: dict[tuple[str, str], float] = field(default_factory=dict)
    skipped: tuple[tuple[str, str, float, tuple[str, ...]], ...] = ()
    flipped: tuple[tuple[str, str, float, float], ...] = ()
    source_guarantee: str = ""
    source_complete: bool = True
    averages_over: str = "the given probabilities"

    @property
    def complete(self) -> bool:
        """True when the probabilities were averaged over a complete set (the rule itself is exact)."""
        return bool(self.source_complete)

    def _rule(self) -> str:
        t = f"{self.threshold:g}"
        if self.on == "edges":
            k = len(self.flipped)
            turned = "none turned to avoid a cycle" if not k else (
                f"{count(k, 'pair')} turned the other way to avoid a cycle")
            return f"the pairs adjacent with probability >= {t}, each directed the more probable way ({turned})"
        k = len(self.skipped)
        skipped = "none closed a cycle" if not k else (
            f"{count(k, 'arrow')} skipped because {'it' if k == 1 else 'each'} closed a cycle")
        return f"the arrows with probability >= {t}, added in decreasing probability ({skipped})"

    @property
    def guarantee(self) -> str:
        """``<label of the set>consensus network: <the rule>; averaged over <what>; the set: <its guarantee>``."""
        label = source_label(self.source_guarantee, self.source_complete)
        text = f"{label}consensus network: {self._rule()}, averaged over {self.averages_over}"
        if self.source_guarantee:
            text += f" (the set: {self.source_guarantee})"
        return text

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Network.to_dict` plus a ``"consensus"`` entry with the rule, the probabilities and what was skipped."""
        d = super().to_dict()
        d["consensus"] = {
            "threshold": self.threshold,
            "on": self.on,
            "averages_over": self.averages_over,
            "arrows": [[u, v, self.arrow_probability.get((u, v)), self.edge_probability.get((u, v))]
                       for u, v in self.edges],
            "skipped": [[u, v, p, list(c)] for u, v, p, c in self.skipped],
            "flipped": [[u, v, p, q] for u, v, p, q in self.flipped],
            "source_guarantee": self.source_guarantee,
        }
        return d

    def edge_labels(self) -> dict[tuple[str, str], str]:
        """The probability of each kept arrow as a short label (``"0.93"``), as the picture shows it."""
        probs = self.edge_probability if self.on == "edges" else self.arrow_probability
        return {e: f"{probs[e]:.2f}" for e in self.edges if e in probs}

    def _repr_svg_(self) -> str | None:
        from .._display import render

        label = source_label(self.source_guarantee, self.source_complete)
        label = "" if label == "complete: " else label
        what = "adjacent" if self.on == "edges" else "arrow"
        return render("network_svg", self, title=f"{label}consensus network: P({what}) >= {self.threshold:g}",
                           edge_labels=self.edge_labels())

    def __repr__(self) -> str:
        try:
            shape = self.to_modelstring()
        except Exception:
            shape = repr(self.edges)
        label = source_label(self.source_guarantee, self.source_complete).rstrip(": ")
        extra = (f"{len(self.skipped)} skipped" if self.on == "arrows" else f"{len(self.flipped)} flipped")
        return f"ConsensusNetwork({shape}, threshold={self.threshold:g}, on={self.on!r}, {extra}, {label})"


def _frame(p: Any, names: Sequence[str] | None, what: str) -> tuple[list[str], Any]:
    import numpy as np

    if hasattr(p, "index") and hasattr(p, "to_numpy"):
        names_l = [str(x) for x in p.index]
        cols = [str(x) for x in p.columns]
        if cols != names_l:
            raise DataError(f"consensus: the {what} probabilities must have the same variables as rows and columns")
        a = p.to_numpy(dtype=float)
    else:
        a = np.asarray(p, dtype=float)
        if names is None:
            raise DataError(f"consensus: {what} probabilities given as an array need names=")
        names_l = [str(x) for x in names]
    if a.ndim != 2 or a.shape != (len(names_l), len(names_l)):
        raise DataError(f"consensus: the {what} probabilities must be a square matrix over the variables")
    if not np.all(np.isfinite(a)) or a.min() < -PROBABILITY_TOLERANCE or a.max() > 1 + PROBABILITY_TOLERANCE:
        raise DataError(f"consensus: the {what} probabilities must lie between 0 and 1")
    return names_l, np.clip(a, 0.0, 1.0)


def _path(children: Mapping[int, set[int]], start: int, goal: int) -> list[int] | None:
    """A directed path start ~> goal (node indices), or None."""
    prev = {start: -1}
    stack = [start]
    while stack:
        x = stack.pop()
        if x == goal:
            out = [x]
            while prev[out[-1]] != -1:
                out.append(prev[out[-1]])
            return out[::-1]
        for y in sorted(children[x], reverse=True):
            if y not in prev:
                prev[y] = x
                stack.append(y)
    return None


def consensus_network(arrows: Any, threshold: float = 0.5, *, on: str = "arrows", edges: Any = None,
                      names: Sequence[str] | None = None, source: Any = None) -> ConsensusNetwork:
    """The consensus DAG of model-averaged probabilities (the rules are in the module docstring).

    Parameters
    ----------
    arrows : DataFrame or array
        ``P(u -> v)``, row ``u`` (parent), column ``v`` (child), as
        :func:`~gobnilp_py.equivalence.arrow_probabilities` returns it.
    threshold : float
        In ``(0, 1]``: the probability an arrow (or edge) must reach.
    on : {"arrows", "edges"}
        Threshold the arrow probabilities (default) or the adjacency probabilities.
    edges : DataFrame or array, optional
        ``P(u, v adjacent)``; by default ``arrows + arrows.T`` (exact when
        the averaged networks are DAGs: a DAG never holds both directions).
    names : sequence of str, optional
        Variable names when the probabilities are plain arrays.
    source : CredibleSet, optional
        The set averaged over: its guarantee, completeness, caveats and
        :attr:`~gobnilp_py.solve.credible.CredibleSet.averages_over` are
        carried into the result.

    Raises
    ------
    ParameterError
        ``threshold`` outside ``(0, 1]`` or ``on`` not one of the rules.
    DataError
        Probabilities that are not a square matrix of values in ``[0, 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0, .9, 0], [0, 0, .8], [.7, 0, 0]])      # a -> b -> c -> a, all above 0.5
    >>> c = consensus_network(p, 0.5, names=["a", "b", "c"])
    >>> c.edges, c.skipped
    ([('a', 'b'), ('b', 'c')], (('c', 'a', 0.7, ('c', 'a', 'b', 'c')),))
    >>> c.guarantee.split(",")[0]
    'complete: consensus network: the arrows with probability >= 0.5'
    """
    import numpy as np

    from .._validation import check_choice, check_number

    t = float(check_number(threshold, "threshold", lo=0.0, hi=1.0, lo_strict=True))  # type: ignore[arg-type]
    rule = check_choice(on, "on", CONSENSUS_RULES)
    names_l, a = _frame(arrows, names, "arrow")
    if edges is None:
        e = np.clip(a + a.T, 0.0, 1.0)
    else:
        names_e, e = _frame(edges, names_l, "edge")
        if names_e != names_l:
            raise DataError("consensus: the edge and arrow probabilities name different variables")
    np.fill_diagonal(a, 0.0)
    np.fill_diagonal(e, 0.0)
    n = len(names_l)
    cut = t - PROBABILITY_TOLERANCE
    children: dict[int, set[int]] = {i: set() for i in range(n)}
    kept: list[tuple[int, int]] = []
    skipped: list[tuple[str, str, float, tuple[str, ...]]] = []
    flipped: list[tuple[str, str, float, float]] = []
    if rule == "arrows":
        cand = sorted(((-float(a[i, j]), i, j) for i in range(n) for j in range(n) if i != j and a[i, j] >= cut))
        for negp, i, j in cand:
            back = _path(children, j, i)
            if back is not None:
                skipped.append((names_l[i], names_l[j], -negp, tuple(names_l[k] for k in [i, *back])))
                continue
            children[i].add(j)
            kept.append((i, j))
    else:
        pairs = sorted((-float(e[i, j]), -max(float(a[i, j]), float(a[j, i])), i, j)
                       for i in range(n) for j in range(i + 1, n) if e[i, j] >= cut)
        for _, _, i, j in pairs:
            u, v = (i, j) if a[i, j] >= a[j, i] else (j, i)
            if _path(children, v, u) is not None:
                u, v = v, u
                flipped.append((names_l[u], names_l[v], float(a[u, v]), float(a[v, u])))
            children[u].add(v)
            kept.append((u, v))
    parents: dict[str, list[str]] = {}
    for i, j in kept:
        parents.setdefault(names_l[j], []).append(names_l[i])
    caveats: list[str] = [str(c) for c in getattr(source, "caveats", ()) or ()]
    if skipped:
        listed = ", ".join(f"{u} -> {v} ({p:.3f})" for u, v, p, _ in skipped[:10])
        caveats.append(f"{count(len(skipped), 'arrow')} with probability >= {t:g} left out because each closes a "
                       f"directed cycle with more probable arrows: {listed}" + (" ..." if len(skipped) > 10 else ""))
    if flipped:
        listed = ", ".join(f"{u} -> {v} ({p:.3f} against {q:.3f})" for u, v, p, q in flipped[:10])
        caveats.append(f"{count(len(flipped), 'pair')} directed against the more probable direction to keep the "
                       f"network acyclic: {listed}" + (" ..." if len(flipped) > 10 else ""))
    guarantee = getattr(source, "guarantee", "") if source is not None else ""
    complete = bool(getattr(source, "complete", True)) if source is not None else True
    return ConsensusNetwork(
        tuple(names_l), {c: tuple(ps) for c, ps in parents.items()}, math.nan, status="unknown",
        approximate=bool(getattr(source, "approximate", False)), caveats=tuple(caveats),
        threshold=t, on=rule,
        arrow_probability={(names_l[i], names_l[j]): float(a[i, j]) for i, j in kept},
        edge_probability={(names_l[i], names_l[j]): float(e[i, j]) for i, j in kept},
        skipped=tuple(skipped), flipped=tuple(flipped),
        source_guarantee=str(guarantee or ""), source_complete=complete,
        averages_over=str(getattr(source, "averages_over", "the given probabilities")) if source is not None
        else "the given probabilities",
    )
