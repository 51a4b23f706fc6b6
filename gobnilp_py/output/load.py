"""Read a saved result back: ``result.json`` (``gobnilp-py run``) or ``summary.json`` into a result object.

A run's JSON holds everything needed to rebuild its answer: a ``learn`` job's
:class:`~gobnilp_py.network.Network` (``Network.to_dict``), an ``enumerate``
or ``kbest`` job's :class:`~gobnilp_py.solve.credible.CredibleSet`
(``CredibleSet.to_dict``: every network's parents and score, OPT, ε, the
labels ``complete``/``reason``/``threshold``/``approximate``, the caveats and
statistics).  :func:`load_result` rebuilds the object, so a saved run can be
inspected, averaged, drawn or handed on (:mod:`gobnilp_py.interop`) without
running it again.

What is checked, so a loaded result is never silently different from the saved one:

* the rebuilt set's ``guarantee`` line equals the saved one (a file edited by
  hand, or written by a version whose labels differ, fails loudly);
* the networks' count equals ``n_networks``, every network is a DAG over the
  run's variables;
* the model averages: when the run averaged over *every* credible network
  through class summaries (class-level collection, possibly cut at the
  network cap), the summaries are read from ``classes`` (written by
  :func:`classes_to_json`); a file without them cannot reproduce those
  averages, so the loaded set says so in its ``caveats``.

Numbers come back as written: JSON floats round-trip exactly (Python writes
the shortest repr), and ``null`` stands for a non-finite value.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import DataError

__all__ = ["load_result", "result_from_dict", "credible_set_from_dict", "classes_to_json", "classes_from_json"]

#: Relative tolerance for "the same score" (the package's convention, see network.py).
_REL = 1e-9


def load_result(path: str | os.PathLike[str]) -> Any:
    """The result saved in a JSON file: a ``CredibleSet`` (enumerate, kbest) or a ``Network`` (learn).

    Parameters
    ----------
    path : str or path-like
        A run folder's ``result.json``, a ``summary.json`` written by
        ``gobnilp-py enumerate -o``, a file of ``CredibleSet.to_dict()`` or of
        ``Network.to_dict()``; or a folder: a run folder (its ``result.json`` is
        read) or one written by ``gobnilp-py enumerate -o`` / ``kbest -o`` (its
        ``summary.json``).

    Raises
    ------
    DataError
        The file is missing (or a folder holds neither file), is not JSON, is a ``score`` job's result (a
        score table summary: read the ``.jkl`` file instead), or does not
        describe a result.

    Examples
    --------
    >>> from gobnilp_py.output.load import load_result
    >>> cs = load_result("out/result.json")  # doctest: +SKIP
    >>> cs.guarantee  # doctest: +SKIP
    'complete: every network with score >= OPT - 1.09861 (Bayes factor 3)'
    """
    p = _result_file(Path(path))
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{p}: no such file") from None
    except OSError as exc:
        raise DataError(f"{p}: cannot read ({exc.strerror or exc})") from None
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{p}: not JSON ({exc.msg} at line {exc.lineno})") from None
    try:
        return result_from_dict(d)
    except DataError as exc:
        raise DataError(f"{p}: {exc}") from None


#: The JSON a folder holds, in the order they are looked for: ``gobnilp-py run`` writes ``result.json``,
#: ``gobnilp-py enumerate -o`` / ``kbest -o`` write ``summary.json``.
_FOLDER_FILES = ("result.json", "summary.json")


def _result_file(p: Path) -> Path:
    """The file to read for ``p``: ``p`` itself, or the result a folder holds (``result.json``, else ``summary.json``).

    Why both: a user hands ``load_result`` the folder they gave ``-o``, whichever command wrote it.
    """
    if not p.is_dir():
        return p
    for name in _FOLDER_FILES:
        if (p / name).is_file():
            return p / name
    raise DataError(f"{p}: the folder holds no result ({' or '.join(_FOLDER_FILES)}); give a folder written by "
                    "gobnilp-py run, enumerate -o or kbest -o, or a JSON file")


def result_from_dict(d: Mapping[str, Any]) -> Any:
    """:func:`load_result` on an already parsed JSON object."""
    if not isinstance(d, Mapping):
        raise DataError(f"expected a JSON object, got {type(d).__name__}")
    if "job" in d and "result" in d:  # a run's result.json
        job = d["job"]
        if job == "score":
            raise DataError("this is a score job's result (a summary of the score table, no networks); "
                            "read its .jkl file with ScoreTable.from_jkl")
        names = (d.get("inputs") or {}).get("names")
        if job == "learn":
            return _network(d["result"])
        if job in ("enumerate", "kbest"):
            return credible_set_from_dict(d["result"], names=names, summary=d)
        raise DataError(f"unknown job {job!r}; expected learn, enumerate or kbest")
    if "networks" in d and "opt" in d:
        return credible_set_from_dict(d)
    if "names" in d and "parents" in d and "score" in d:
        return _network(d)
    raise DataError("not a gobnilp-py result: expected a run's result.json, a CredibleSet or a Network")


# ----------------------------------------------------------------------------- pieces
def _float(x: Any, what: str) -> float:
    if x is None:
        return math.nan
    if isinstance(x, str) and x.strip().lower() in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity"):
        return float(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise DataError(f"{what} must be a number, got {x!r}")
    return float(x)


def _network(d: Any) -> Any:
    from ..errors import GobnilpError
    from ..network import Network

    if not isinstance(d, Mapping):
        raise DataError(f"a network must be a JSON object, got {type(d).__name__}")
    try:
        return Network.from_dict(d)
    except DataError:
        raise
    except (GobnilpError, TypeError, ValueError) as exc:
        raise DataError(f"bad network: {exc}") from None


def classes_to_json(classes: Sequence[Any] | None) -> list[dict[str, Any]] | None:
    """Class summaries of a class-level collection as JSON data (``None`` stays ``None``).

    Each class: its CPDAG (``names``/``directed``/``undirected``), the score
    every member has, the exact member count (``null`` when unknown), how many
    members are listed, and the per-arrow member counts as ``[u, v, count]``
    (when known).  :func:`classes_from_json` reads it back, so model averages
    over every credible network survive a save and load.
    """
    if classes is None:
        return None
    from ..solve.classes import arrow_counts

    out = []
    for c in classes:
        # Computed when missing, so the output does not depend on whether averages were asked for before.
        counts = arrow_counts(c) if c.n_members is not None else c.arrow_counts
        out.append({
            "cpdag": c.cpdag.to_dict(),
            "score": c.score if math.isfinite(c.score) else None,
            "n_members": c.n_members,
            "listed": c.listed,
            "arrow_counts": None if counts is None else [[u, v, int(k)] for (u, v), k in sorted(counts.items())],
        })
    return out


def _cpdag_from_dict(d: Mapping[str, Any]) -> Any:
    """The CPDAG described by ``CPDAG.to_dict()``: rebuilt from one member DAG (orient reversible edges acyclically)."""
    from ..equivalence import cpdag
    from ..network import find_cycle

    names = tuple(str(x) for x in d["names"])
    parents: dict[str, list[str]] = {v: [] for v in names}
    for u, v in d.get("directed", []):
        parents[str(v)].append(str(u))
    # A consistent extension: orient each undirected edge along a perfect elimination order of its
    # chain component; any member DAG gives the same CPDAG, which is compared with the saved one below.
    und = [(str(u), str(v)) for u, v in d.get("undirected", [])]
    order = _extension_order(names, und)
    for u, v in und:
        a, b = (u, v) if order[u] < order[v] else (v, u)
        parents[b].append(a)
    if find_cycle(names, parents) is not None:
        raise DataError("a saved class summary is not a valid CPDAG")
    c = cpdag(names, parents)
    saved_dir = {(str(u), str(v)) for u, v in d.get("directed", [])}
    saved_und = {frozenset((str(u), str(v))) for u, v in d.get("undirected", [])}
    if saved_dir != set(c.directed) or saved_und != set(c.undirected):
        raise DataError("a saved class summary is not a valid CPDAG (its edges are not an essential graph)")
    return c


def _extension_order(names: Sequence[str], und: Sequence[tuple[str, str]]) -> dict[str, int]:
    """A maximum-cardinality-search order of the undirected part: orienting along it adds no v-structure.

    The chain components of a CPDAG are chordal, and orienting a chordal
    graph along the reverse of a perfect elimination order (which maximum
    cardinality search yields, Tarjan & Yannakakis 1984) gives an acyclic
    orientation without v-structures, i.e. a member of the class.
    """
    nb: dict[str, set[str]] = {v: set() for v in names}
    for u, v in und:
        nb[u].add(v)
        nb[v].add(u)
    weight = {v: 0 for v in names}
    order: dict[str, int] = {}
    rank = {v: i for i, v in enumerate(names)}
    while len(order) < len(names):
        v = max((x for x in names if x not in order), key=lambda x: (weight[x], -rank[x]))
        order[v] = len(order)
        for w in nb[v]:
            if w not in order:
                weight[w] += 1
    return order


def classes_from_json(data: Sequence[Mapping[str, Any]] | None) -> list[Any] | None:
    """Inverse of :func:`classes_to_json`."""
    if data is None:
        return None
    from ..solve.classes import ClassSummary

    out = []
    for i, c in enumerate(data):
        try:
            counts = c.get("arrow_counts")
            out.append(ClassSummary(
                cpdag=_cpdag_from_dict(c["cpdag"]),
                score=_float(c["score"], f"classes[{i}].score"),
                n_members=None if c.get("n_members") is None else int(c["n_members"]),
                listed=int(c.get("listed", 0)),
                arrow_counts=None if counts is None else {(str(u), str(v)): int(k) for u, v, k in counts},
            ))
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"classes[{i}] is malformed ({exc})") from None
    return out


def credible_set_from_dict(d: Mapping[str, Any], *, names: Sequence[str] | None = None,
                           summary: Mapping[str, Any] | None = None) -> Any:
    """A :class:`~gobnilp_py.solve.credible.CredibleSet` from ``CredibleSet.to_dict()``.

    Parameters
    ----------
    d : mapping
        The set's dict (with ``networks``).
    names : sequence of str, optional
        The variables in column order (a run's ``inputs.names``); by default
        the order of the first network's ``parents``, which is the same.
    summary : mapping, optional
        The enclosing ``result.json``: its ``edge_probabilities`` and
        ``arrow_probabilities`` are compared with the rebuilt set's.
    """
    from ..network import Network
    from ..solve.credible import CredibleSet

    if not isinstance(d, Mapping):
        raise DataError(f"a credible set must be a JSON object, got {type(d).__name__}")
    try:
        raw_nets = d["networks"]
        opt = _float(d["opt"], "opt")
        eps = _float(d["epsilon"], "epsilon")
        complete = bool(d["complete"])
    except KeyError as exc:
        raise DataError(f"the credible set lacks {exc}; was it written with networks=False?") from None
    if not isinstance(raw_nets, list):
        raise DataError("'networks' must be a list")
    if names is None:
        if raw_nets:
            names = list(raw_nets[0].get("parents", {}).keys())
        elif d.get("classes"):
            names = list(d["classes"][0]["cpdag"]["names"])
        else:
            names = []
    names = tuple(str(x) for x in names)
    tol = _float(d.get("tolerance", 0.0), "tolerance")
    tol = 0.0 if math.isnan(tol) else tol
    nets = []
    for i, nd in enumerate(raw_nets):
        try:
            score = _float(nd["score"], f"networks[{i}].score")
            parents = {str(k): tuple(str(p) for p in v) for k, v in nd["parents"].items()}
        except (KeyError, TypeError, AttributeError) as exc:
            raise DataError(f"networks[{i}] is malformed ({exc})") from None
        status = "optimal" if math.isfinite(opt) and score >= opt - tol else "feasible"
        try:
            nets.append(Network(names, parents, score, status=status))
        except Exception as exc:
            raise DataError(f"networks[{i}]: {exc}") from None
    n_saved = d.get("n_networks")
    if n_saved is not None and int(n_saved) != len(nets):
        raise DataError(f"the file says {n_saved} networks but lists {len(nets)}")
    threshold = d.get("threshold")
    cs = CredibleSet(
        opt=opt, epsilon=eps, complete=complete, reason=d.get("reason"), networks=nets, tolerance=tol,
        near_boundary=int(d.get("near_boundary") or 0), kind=str(d.get("kind", "bayes_factor")),
        stats=dict(d.get("stats") or {}), method=d.get("method"),
        threshold=None if threshold is None else _float(threshold, "threshold"),
        infeasible=bool(d.get("infeasible", False)), approximate=bool(d.get("approximate", False)),
        caveats=[str(c) for c in d.get("caveats") or []],
        n_networks_total=d.get("n_networks_total"), n_classes_total=d.get("n_classes_total"),
        classes=classes_from_json(d.get("classes")),
    )
    saved_guarantee = d.get("guarantee")
    if saved_guarantee is not None and saved_guarantee != cs.guarantee and cs.threshold is None:
        cs.threshold = -math.inf  # JSON writes a threshold of -inf as null
        if saved_guarantee != cs.guarantee:
            cs.threshold = None
    if saved_guarantee is not None and saved_guarantee != cs.guarantee:
        raise DataError(f"the saved guarantee {saved_guarantee!r} differs from the one its fields give "
                        f"({cs.guarantee!r}); the file was edited or written by another version")
    saved_over = d.get("averages_over")
    every_listed = cs.n_networks_total is not None and int(cs.n_networks_total) == len(nets)
    if saved_over is not None and saved_over != cs.averages_over and every_listed and nets:
        cs.classes = _classes_of_listed(cs)  # every member is listed: the summaries follow from the networks
    averages_lost = saved_over is not None and saved_over != cs.averages_over and not every_listed
    if averages_lost:
        cs.caveats.append(f"saved without its class summaries: model averages now cover {cs.averages_over}, "
                          f"not {saved_over} as in the saved run")
    if summary is not None and nets and not averages_lost:
        _check_probabilities(cs, summary)
    return cs


def _classes_of_listed(cs: Any) -> list[Any]:
    """Class summaries of a set that lists every credible network: members, score and arrow counts by counting."""
    from ..solve.classes import ClassSummary

    out = []
    for cls in cs.mecs():
        counts: dict[tuple[str, str], int] = {}
        for net in cls.members:
            for arrow in net.edges:
                counts[arrow] = counts.get(arrow, 0) + 1
        out.append(ClassSummary(cls.cpdag, float(cls.best_score), len(cls.members), len(cls.members), counts))
    return out


def _check_probabilities(cs: Any, summary: Mapping[str, Any]) -> None:
    """The rebuilt set's edge and arrow probabilities equal the saved ones (to 1e-9), else a caveat."""
    import numpy as np

    for key, fn in (("edge_probabilities", cs.edge_probabilities), ("arrow_probabilities", cs.arrow_probabilities)):
        saved = summary.get(key)
        if not saved:
            continue
        got = fn()
        mat = np.array(saved["matrix"], dtype=float)
        if list(saved["names"]) != [str(x) for x in got.index] or mat.shape != got.shape or \
                not np.allclose(got.to_numpy(), mat, rtol=_REL, atol=1e-12):
            cs.caveats.append(f"the rebuilt {key.replace('_', ' ')} differ from the saved ones")
