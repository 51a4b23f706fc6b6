"""Bayesian model averaging over a collection of networks (e.g. every ε-optimal DAG).

With a decomposable log marginal likelihood (BDeu) or its BIC approximation,
``score(G) - score(H)`` is the log Bayes factor of ``G`` against ``H``.  Under a
uniform structure prior, restricted to the collected networks, the posterior
probability of network ``k`` is therefore

    p_k = exp(s_k - OPT) / sum_j exp(s_j - OPT),

and the probability of a feature (an edge, an arrow, a class) is the sum of
``p_k`` over the networks that have it.  ε-BNSL collects every network with
``s_k >= OPT - ε``, i.e. all networks whose Bayes factor against the optimum is
at most ``exp(ε)``; everything outside weighs at most ``exp(-ε)`` each (not
included here; the probabilities are conditional on the collection).

Exponentials are taken of ``s_k - max_j s_j <= 0`` only, so nothing overflows,
and the normalised weights do not depend on which constant is subtracted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import DataError, ScoreError
from .columns import NetworkColumns, columns_of
from .cpdag import CPDAG, EquivalenceClass, _index, group_by_class, network_parts
from .extensions import Extensions

if TYPE_CHECKING:  # pandas (about 0.15 s to import) is imported by the functions that build frames
    import pandas as pd

__all__ = [
    "ClassWeight",
    "class_weights",
    "class_probabilities",
    "class_edge_probabilities",
    "class_arrow_probabilities",
    "class_feature_table",
    "network_weights",
    "edge_probabilities",
    "arrow_probabilities",
    "feature_table",
    "mec_probabilities",
]

# A network may score a hair above the stated optimum through solver
# tolerances; more than this (relative to max(1, |OPT|)) means the caller's
# OPT is wrong.
_OPT_REL_TOL = 1e-6


def _scores(parts: Sequence[Any]) -> np.ndarray:
    if not parts:
        raise ScoreError("no networks to average over")
    missing = [i for i, p in enumerate(parts) if p.score is None]
    if missing:
        raise ScoreError(f"network {missing[0]} has no score; model averaging needs scores")
    s = np.array([p.score for p in parts], dtype=float)
    bad = np.flatnonzero(~np.isfinite(s))
    if bad.size:
        raise ScoreError(f"network {int(bad[0])} has a non-finite score {s[bad[0]]}")
    return s


def _network_scores(networks: Sequence[Any]) -> np.ndarray | None:
    """The scores of :class:`~gobnilp_py.network.Network` objects, read without their parents (``None``
    for anything else, or a non-finite score: :func:`_scores` then says which network)."""
    from ..network import Network

    if not networks or any(type(x) is not Network for x in networks):
        return None
    s = np.fromiter((x.score for x in networks), dtype=float, count=len(networks))
    return s if np.isfinite(s).all() else None


def _resolve_opt(s: np.ndarray, opt: float | None) -> float:
    top = float(s.max())
    if opt is None:
        return top
    opt = float(opt)
    if not math.isfinite(opt):
        raise ScoreError(f"opt must be finite, got {opt}")
    if top > opt + _OPT_REL_TOL * max(1.0, abs(opt)):
        raise ScoreError(f"a network scores {top!r}, above the given optimum opt={opt!r}")
    return opt


def _posterior(s: np.ndarray) -> np.ndarray:
    """``exp(s - OPT)`` normalised, computed as ``exp(s - max s)``: every exponent is <= 0
    (no overflow) and the largest term is 1 (no 0/0); the shift cancels."""
    w = np.exp(s - s.max())
    return w / w.sum()


def network_weights(networks: Iterable[Any], opt: float | None = None, *, normalise: bool = True) -> np.ndarray:
    """Posterior weight of each network, proportional to ``exp(score - OPT)``.

    Parameters
    ----------
    networks : iterable of network-like objects
        Anything with ``names``/``parents``/``score`` (see
        :func:`~gobnilp_py.equivalence.cpdag.network_parts`).
    opt : float, optional
        The optimal score; defaults to the best score in the collection.  It
        cancels from the normalised weights; it is checked (no network may
        score above it beyond solver tolerance) and sets the scale of the
        unnormalised weights.
    normalise : bool
        If True (default) the weights sum to 1 (posterior probabilities given
        the collection).  If False, ``exp(score - OPT)``: the inverse Bayes
        factor against the optimum (1 for an optimal network; may underflow
        to 0.0 for networks more than ~745 nats below).

    Returns
    -------
    numpy.ndarray of float, one per network, in input order.
    """
    networks = networks if isinstance(networks, (list, tuple)) else list(networks)
    s = _network_scores(networks)
    if s is None:
        s = _scores([network_parts(x) for x in networks])
    opt_v = _resolve_opt(s, opt)
    if not normalise:
        return np.exp(np.minimum(s - opt_v, 0.0))
    return _posterior(s)


def _arrow_matrix(networks: Iterable[Any], opt: float | None,
                  columns: NetworkColumns | None = None) -> tuple[tuple[str, ...], np.ndarray]:
    """Weighted arrow counts: ``A[u, v]`` = total weight of networks with ``u -> v``.

    :class:`~gobnilp_py.network.Network` objects over one ``names`` tuple are summed from their
    parent bitmasks (:mod:`.columns`; ``columns`` when the caller keeps them), to the same floats.
    """
    networks = networks if isinstance(networks, (list, tuple)) else list(networks)
    cols = columns if columns is not None else columns_of(networks)
    if cols is not None:
        _resolve_opt(cols.scores, opt)
        a = cols.arrow_weights(_posterior(cols.scores))
        return cols.names, np.clip(a, 0.0, 1.0)  # a Network is never its own parent (checked when built)
    parts = [network_parts(x) for x in networks]
    s = _scores(parts)
    _resolve_opt(s, opt)
    w = _posterior(s)
    names = parts[0].names
    idx = _index(names)
    n = len(names)
    ref_set = frozenset(names)
    # Collect (network, parent, child) triples once, then one bincount does the sums.
    net_ids: list[int] = []
    flat: list[int] = []
    for k, p in enumerate(parts):
        if p.names != names and frozenset(p.names) != ref_set:
            raise DataError(f"network {k} has variables {list(p.names)[:5]}..., not those of network 0")
        for child, ps in p.parents.items():
            c = idx.get(child)
            if c is None:
                raise DataError(f"unknown variable {child!r} in network {k}")
            if isinstance(ps, str):  # a lone name, as Network accepts it
                ps = (ps,)
            seen = 0
            for q in ps:
                j = idx.get(q)
                if j is None:
                    raise DataError(f"unknown parent {q!r} of {child!r} in network {k}")
                if seen >> j & 1:
                    raise DataError(f"parent {q!r} of {child!r} is listed twice in network {k}")
                seen |= 1 << j
                flat.append(j * n + c)
                net_ids.append(k)
    if flat:
        a = np.bincount(np.asarray(flat, dtype=np.int64), weights=w[np.asarray(net_ids, dtype=np.int64)], minlength=n * n)
    else:
        a = np.zeros(n * n)
    a = a.reshape(n, n)
    if np.any(np.diag(a) > 0):
        bad = names[int(np.flatnonzero(np.diag(a) > 0)[0])]
        raise DataError(f"variable {bad!r} is its own parent")
    return names, np.clip(a, 0.0, 1.0)


def arrow_probabilities(networks: Iterable[Any], opt: float | None = None, *,
                        columns: NetworkColumns | None = None) -> pd.DataFrame:
    """Posterior probability of each arrow.

    ``columns``: the networks' arrays (:func:`~.columns.columns_of`) when the caller keeps them
    (a :class:`~gobnilp_py.solve.credible.CredibleSet` does), so they are not gathered again.

    Returns
    -------
    pandas.DataFrame
        Index and columns are the variable names; entry ``[u, v]`` is the
        probability that ``u -> v`` (u is a parent of v).  ``P[u, v] + P[v, u]``
        is the edge probability; the diagonal is 0.  Note that the direction of
        a reversible edge is not identifiable from data: under a
        score-equivalent score its arrow probability only reflects how many
        members of each class were collected.

    Notes
    -----
    Networks are not re-checked for cycles here (``Network`` objects are
    checked when built); unknown names, self-loops and repeated parents are
    rejected with :class:`~gobnilp_py.errors.DataError`.
    """
    names, a = _arrow_matrix(networks, opt, columns)
    import pandas as pd

    df = pd.DataFrame(a, index=pd.Index(names, name="parent"), columns=pd.Index(names, name="child"))
    return df


def edge_probabilities(networks: Iterable[Any], opt: float | None = None, *,
                       columns: NetworkColumns | None = None) -> pd.DataFrame:
    """Posterior probability of each adjacency (edge in either direction).

    ``columns``: as for :func:`arrow_probabilities`.

    Returns
    -------
    pandas.DataFrame
        Symmetric, index and columns the variable names; entry ``[u, v]`` is the
        probability that ``u`` and ``v`` are adjacent; the diagonal is 0.
        Adjacency is a property of the equivalence class, so unlike arrows it
        does not depend on which members of a class were collected.
    """
    return _edge_frame(*_arrow_matrix(networks, opt, columns))


def _edge_frame(names: Sequence[str], a: np.ndarray) -> pd.DataFrame:
    """Adjacency probabilities from arrow probabilities ``a``: ``P(u - v) = P(u -> v) + P(v -> u)``."""
    e = np.clip(a + a.T, 0.0, 1.0)  # a DAG never has both u -> v and v -> u
    import pandas as pd

    return pd.DataFrame(e, index=pd.Index(names, name="u"), columns=pd.Index(names, name="v"))


def feature_table(
    networks: Iterable[Any],
    opt: float | None = None,
    *,
    features: Sequence[str] = ("edge", "arrow"),
    min_probability: float = 0.0,
) -> pd.DataFrame:
    """Edges and arrows in long format, most probable first.

    Parameters
    ----------
    networks, opt
        As in :func:`edge_probabilities`.
    features : sequence of {"edge", "arrow"}
        Which features to list.
    min_probability : float
        List only features with probability strictly above this (default 0:
        every feature present in at least one network).

    Returns
    -------
    pandas.DataFrame
        Columns ``feature`` ("edge" or "arrow"), ``source``, ``target``,
        ``probability``.  For an edge, ``source`` comes before ``target`` in
        the variable order and the pair is unordered; for an arrow it means
        ``source -> target``.  Sorted by probability (descending), then
        feature, then variable order, so the order is deterministic.
    """
    _check_features(features)
    names, a = _arrow_matrix(networks, opt)
    return _feature_frame(names, a, features, min_probability)


def _check_features(features: Sequence[str]) -> None:
    unknown = set(features) - {"edge", "arrow"}
    if unknown:
        raise DataError(f"unknown feature kind {sorted(unknown)[0]!r}; use 'edge' or 'arrow'")


def _feature_frame(names: tuple[str, ...], a: np.ndarray, features: Sequence[str], min_probability: float) -> pd.DataFrame:
    """Long-format edges and arrows from an arrow-probability matrix (shared by both feature tables)."""
    n = len(names)
    frames = []
    if "edge" in features:
        e = np.clip(a + a.T, 0.0, 1.0)
        iu, ju = np.triu_indices(n, k=1)
        frames.append(("edge", iu, ju, e[iu, ju]))
    if "arrow" in features:
        ia, ja = np.nonzero(~np.eye(n, dtype=bool))
        frames.append(("arrow", ia, ja, a[ia, ja]))
    import pandas as pd

    rows = []
    for kind, i, j, p in frames:
        keep = p > min_probability
        rows.append(pd.DataFrame({
            "feature": kind,
            "source": np.asarray(names, dtype=object)[i[keep]],
            "target": np.asarray(names, dtype=object)[j[keep]],
            "probability": p[keep],
            "_i": i[keep],
            "_j": j[keep],
        }))
    if not rows:
        return pd.DataFrame(columns=["feature", "source", "target", "probability"])
    df = pd.concat(rows, ignore_index=True)
    df = df.sort_values(["probability", "feature", "_i", "_j"], ascending=[False, True, True, True], kind="mergesort")
    return df.drop(columns=["_i", "_j"]).reset_index(drop=True)


def mec_probabilities(
    networks: Iterable[Any],
    opt: float | None = None,
    *,
    classes: Sequence[EquivalenceClass] | None = None,
) -> pd.DataFrame:
    """Posterior probability of each Markov equivalence class in the collection.

    Parameters
    ----------
    networks, opt
        As in :func:`edge_probabilities`.
    classes : sequence of EquivalenceClass, optional
        The result of :func:`group_by_class` on the same networks, to avoid
        grouping twice.  Members are matched by identity.

    Returns
    -------
    pandas.DataFrame
        One row per class, in :func:`group_by_class` order, with columns
        ``rank`` (0-based position), ``n_networks`` (members collected),
        ``best_score``, ``log_bayes_factor`` (``OPT - best_score``, >= 0 up to
        tolerance: ln of the Bayes factor of the optimum against the class's
        best member), ``probability`` (sum of member weights; the column sums
        to 1) and ``equivalence_class`` (the :class:`EquivalenceClass`; its
        ``.cpdag`` is computed on first access, so listing 150,000 classes
        stays cheap).
    """
    nets = list(networks)
    s = _scores([network_parts(x) for x in nets])
    opt_v = _resolve_opt(s, opt)
    w = _posterior(s)
    if classes is None:
        classes = group_by_class(nets)
    pos = {id(x): i for i, x in enumerate(nets)}
    rows = []
    seen = 0
    for r, cls in enumerate(classes):
        try:
            idxs = [pos[id(m)] for m in cls.members]
        except KeyError:
            raise DataError(f"class {r} has a member that is not among the given networks") from None
        seen += len(idxs)
        rows.append({
            "rank": r,
            "n_networks": len(idxs),
            "best_score": cls.best_score,
            "log_bayes_factor": opt_v - cls.best_score if cls.best_score is not None else math.nan,
            "probability": float(w[idxs].sum()),
            "equivalence_class": cls,
        })
    if seen != len(nets):
        raise DataError(f"the classes hold {seen} networks, but {len(nets)} were given")
    import pandas as pd

    return pd.DataFrame(rows, columns=["rank", "n_networks", "best_score", "log_bayes_factor", "probability", "equivalence_class"])


# --------------------------------------------------------------------------- #
# averaging over whole classes, members weighted exactly without listing them
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class ClassWeight:
    """A credible Markov equivalence class, for model averaging without listing its members.

    With a score-equivalent score every member of a class has the same score,
    so a class contributes ``n_members * exp(score - OPT)`` to the posterior
    mass, and ``arrow_counts[u, v] * exp(score - OPT)`` to that of the arrow
    ``u -> v``: exactly what listing its members one by one would give.

    Attributes
    ----------
    cpdag : CPDAG
        The class.
    score : float
        The score of each member.
    n_members : int, optional
        How many members count (default: all, ``cpdag.count_dags()``).  Give
        it, with ``arrow_counts``, when structural constraints keep only some
        members (``Extensions(cpdag, constraints).count()``).
    arrow_counts : mapping, optional
        Members with ``u -> v`` per adjacent pair, keyed by index pairs (as
        :meth:`Extensions.arrow_counts` returns) or name pairs (as
        :meth:`CPDAG.arrow_counts`).  Default: computed for all members.
    """

    cpdag: CPDAG
    score: float
    n_members: int | None = None
    arrow_counts: Mapping[tuple[Any, Any], int] | None = None


def _resolve_classes(classes: Iterable[ClassWeight]) -> tuple[tuple[str, ...], list[ClassWeight], list[int], list[np.ndarray]]:
    """Validate; fill in member and arrow counts; arrow fractions as ``n x n`` arrays (count / members)."""
    cls = list(classes)
    if not cls:
        raise ScoreError("no classes to average over")
    names = None
    counts: list[int] = []
    fractions: list[np.ndarray] = []
    for i, c in enumerate(cls):
        if not isinstance(c, ClassWeight):
            raise DataError(f"class {i} is a {type(c).__name__}, not a ClassWeight")
        if not isinstance(c.cpdag, CPDAG):
            raise DataError(f"class {i}: cpdag is a {type(c.cpdag).__name__}, not a CPDAG")
        if names is None:
            names = c.cpdag.names
        elif c.cpdag.names != names:
            raise DataError(f"class {i} has variables {list(c.cpdag.names)[:5]}..., not those of class 0 (same order needed)")
        try:
            sc = float(c.score)
        except (TypeError, ValueError):
            raise ScoreError(f"class {i} has a score that is not a number: {c.score!r}") from None
        if not math.isfinite(sc):
            raise ScoreError(f"class {i} has a non-finite score {c.score!r}")
        n = len(names)
        if c.arrow_counts is None:
            ext = Extensions(c.cpdag)
            total = ext.count()
            if c.n_members is not None and c.n_members != total:
                raise DataError(f"class {i}: n_members={c.n_members} is not the class size {total}; "
                                "pass the arrow_counts of the members that count as well")
            ac: Mapping[tuple[Any, Any], int] = ext.arrow_counts()
        else:
            ac = c.arrow_counts
            if c.n_members is None:
                total = c.cpdag.count_dags()
            else:
                total = c.n_members
        if isinstance(total, bool) or not isinstance(total, (int, np.integer)) or total < 0:
            raise DataError(f"class {i}: n_members must be a non-negative int, got {total!r}")
        total = int(total)
        frac = np.zeros((n, n))
        idx = _index(names)
        seen: dict[tuple[int, int], int] = {}
        for (u, v), x in ac.items():
            a = idx.get(u) if isinstance(u, str) else u
            b = idx.get(v) if isinstance(v, str) else v
            if not isinstance(a, int) or not isinstance(b, int) or not (0 <= a < n and 0 <= b < n) or a == b:
                raise DataError(f"class {i}: arrow_counts key {(u, v)!r} is not a pair of two variables")
            if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 0 or x > total:
                raise DataError(f"class {i}: arrow count {x!r} for {(u, v)!r} is not an int in 0..{total}")
            seen[(a, b)] = int(x)
        adjacent = _adjacent_pairs(c.cpdag)
        if set(seen) - adjacent:
            a, b = sorted(set(seen) - adjacent)[0]
            raise DataError(f"class {i}: arrow_counts has {names[a]!r} -> {names[b]!r}, which are not adjacent")
        for a, b in adjacent:
            if seen.get((a, b), 0) + seen.get((b, a), 0) != total:
                raise DataError(f"class {i}: the arrow counts of {names[a]!r} - {names[b]!r} do not add up to "
                                f"n_members={total}")
        if total:
            for (a, b), x in seen.items():
                frac[a, b] = x / total  # int / int: correctly rounded however large
        counts.append(total)
        fractions.append(frac)
    assert names is not None
    return names, cls, counts, fractions


def _adjacent_pairs(cp: CPDAG) -> set[tuple[int, int]]:
    out = set()
    for v, (u, p) in enumerate(zip(cp._und, cp._pa)):
        m = u | p
        while m:
            low = m & -m
            m ^= low
            w = low.bit_length() - 1
            out.add((v, w))
            out.add((w, v))
    return out


def _class_mass(cls: Sequence[ClassWeight], counts: Sequence[int], opt: float | None) -> tuple[np.ndarray, float]:
    """Normalised posterior mass of each class, ``n_c exp(s_c)`` over the sum, in log space."""
    s = np.array([float(c.score) for c in cls])
    live = np.array([n > 0 for n in counts])
    if not live.any():
        raise ScoreError("no class has a member that counts: nothing to average over")
    opt_v = _resolve_opt(s[live], opt)
    logw = np.full(len(cls), -np.inf)
    for i, n in enumerate(counts):
        if n:
            logw[i] = math.log(n) + s[i]  # math.log takes ints of any size
    w = np.exp(logw - logw.max())
    return w / w.sum(), opt_v


def class_weights(classes: Iterable[ClassWeight], opt: float | None = None) -> np.ndarray:
    """Posterior probability of each class: ``n_c exp(s_c - OPT)`` normalised (the DAG-uniform prior)."""
    _, cls, counts, _ = _resolve_classes(classes)
    return _class_mass(cls, counts, opt)[0]


def _class_arrow_matrix(classes: Iterable[ClassWeight], opt: float | None) -> tuple[tuple[str, ...], np.ndarray]:
    names, cls, counts, fractions = _resolve_classes(classes)
    p, _ = _class_mass(cls, counts, opt)
    a = np.zeros((len(names), len(names)))
    for pc, frac in zip(p, fractions):
        if pc:
            a += pc * frac
    return names, np.clip(a, 0.0, 1.0)


def class_arrow_probabilities(classes: Iterable[ClassWeight], opt: float | None = None) -> pd.DataFrame:
    """Posterior probability of each arrow, from whole classes: as :func:`arrow_probabilities`
    on the list of every member (that counts) of every class, without listing them."""
    names, a = _class_arrow_matrix(classes, opt)
    import pandas as pd

    return pd.DataFrame(a, index=pd.Index(names, name="parent"), columns=pd.Index(names, name="child"))


def class_edge_probabilities(classes: Iterable[ClassWeight], opt: float | None = None) -> pd.DataFrame:
    """Posterior probability of each adjacency, from whole classes (see :func:`edge_probabilities`)."""
    return _edge_frame(*_class_arrow_matrix(classes, opt))


def class_feature_table(
    classes: Iterable[ClassWeight],
    opt: float | None = None,
    *,
    features: Sequence[str] = ("edge", "arrow"),
    min_probability: float = 0.0,
) -> pd.DataFrame:
    """Edges and arrows in long format from whole classes (see :func:`feature_table`)."""
    _check_features(features)
    names, a = _class_arrow_matrix(classes, opt)
    return _feature_frame(names, a, features, min_probability)


def class_probabilities(classes: Iterable[ClassWeight], opt: float | None = None) -> pd.DataFrame:
    """One row per class, in the given order (see :func:`mec_probabilities`).

    Columns ``rank``, ``n_networks`` (members that count, exact int),
    ``best_score`` (the members' score), ``log_bayes_factor`` (``OPT - score``),
    ``probability`` (sum of its members' posterior weights) and ``cpdag``.
    """
    names, cls, counts, _ = _resolve_classes(classes)
    p, opt_v = _class_mass(cls, counts, opt)
    rows = [{
        "rank": r,
        "n_networks": n,
        "best_score": float(c.score),
        "log_bayes_factor": opt_v - float(c.score),
        "probability": float(pc),
        "cpdag": c.cpdag,
    } for r, (c, n, pc) in enumerate(zip(cls, counts, p))]
    import pandas as pd

    return pd.DataFrame(rows, columns=["rank", "n_networks", "best_score", "log_bayes_factor", "probability", "cpdag"])
