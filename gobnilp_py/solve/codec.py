"""The result codec: a credible set to JSON data and back, and any saved result read back strictly.

Why one module: what :meth:`CredibleSet.to_dict` writes and what the loader reads are one format,
so both directions live here and change together (the network's own pair is
:meth:`Network.to_dict` / :func:`network_from_dict`).  It sits beside the result types, below the
application: :class:`~gobnilp_py.solve.credible.CredibleSet`'s ``from_dict``/``from_json`` doors use
it without reaching up, and :mod:`gobnilp_py.app.load` (``gobnilp_py.load_result``) is this with the
result class filled in.  The constructor of a credible set is passed in (``make=``), so this module
never imports :mod:`.credible` (which imports it).

Reading: ``result.json`` (``gobnilp-py run``) or ``summary.json`` into a result object.

A run's JSON holds everything needed to rebuild its answer: a ``learn`` job's
:class:`~gobnilp_py.network.Network` (``Network.to_dict``), an ``enumerate``
or ``kbest`` job's :class:`~gobnilp_py.solve.credible.CredibleSet`
(``CredibleSet.to_dict``: every network's parents and score, OPT, ε, the
labels ``complete``/``reason``/``threshold``/``approximate``, the caveats and
statistics).  :func:`load_result` rebuilds the object, so a saved run can be
inspected, averaged, drawn or handed on (:mod:`gobnilp_py.interop`) without
running it again.

What is checked, so a loaded result is never silently different from the saved one
(every failure a one-line :class:`~gobnilp_py.errors.DataError` naming the field):

* the file is a regular file of strict JSON (no ``NaN``/``Infinity``, which
  the writer never produces; nesting that would exhaust the parser is refused);
* every field has the type the writer gives it (``"complete"`` is ``true`` or
  ``false``, never the text ``"false"``; scores are numbers or ``null``;
  parents are lists of names), and the labels are there: a result without
  its ``complete`` flag or ``guarantee`` line is refused, never loaded as
  complete;
* the rebuilt result's ``guarantee`` line and ``complete`` flag equal the
  saved ones, in the result and, for a run's ``result.json``, at its top
  level (a file edited by hand, or written by a version whose labels
  differ, fails loudly);
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
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._json import jsonable
from .._wording import printable
from ..errors import DataError
from .classes import classes_to_json
from .labels import labels

__all__ = ["load_result", "result_from_dict", "credible_set_from_dict", "credible_set_to_dict", "network_from_dict",
           "classes_to_json", "classes_from_json"]

#: Relative tolerance for "the same score" (the package's convention, see network.py).
_REL = 1e-9


def load_result(path: str | os.PathLike[str], *, make: Callable[..., Any]) -> Any:
    """The result saved in a JSON file: a ``CredibleSet`` (enumerate, kbest) or a ``Network`` (learn).

    Parameters
    ----------
    path : str or path-like
        A run folder's ``result.json``, a ``summary.json`` written by
        ``gobnilp-py enumerate -o``, a file of ``CredibleSet.to_dict()`` or of
        ``Network.to_dict()``; or a folder: a run folder (its ``result.json`` is
        read) or one written by ``gobnilp-py enumerate -o`` / ``kbest -o`` (its
        ``summary.json``).
    make : callable
        The credible-set class (:class:`~gobnilp_py.solve.credible.CredibleSet` or a subclass).

    Raises
    ------
    DataError
        The file is missing (or a folder holds neither file), is not JSON, is a ``score`` job's result (a
        score table summary: read the ``.jkl`` file instead), or does not
        describe a result.

    :func:`gobnilp_py.load_result` is this with ``make=CredibleSet``.
    """
    p = _result_file(Path(path))
    shown = printable(p)
    d = _read_json(p, shown)
    try:
        return result_from_dict(d, make=make)
    except DataError as exc:
        raise DataError(f"{shown}: {exc}") from None


def _refuse_constant(token: str) -> Any:
    raise DataError(f"holds {token}, which is not JSON (the writer writes null for a non-finite number)")


def _read_json(p: Path, shown: str) -> Any:
    """The parsed JSON of a regular file; one-line DataErrors for a device, bad text, deep nesting, no memory."""
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise DataError(f"{shown}: no such file") from None
    except OSError as exc:
        raise DataError(f"{shown}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise DataError(f"{shown}: not a regular file (a device, socket or pipe); give a result.json or summary.json")
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise DataError(f"{shown}: cannot read ({exc.strerror or exc})") from None
    except MemoryError:
        raise DataError(f"{shown}: too large to load ({st.st_size:,} bytes)") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{shown}: not UTF-8 text (invalid byte at offset {exc.start}); not a saved result") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise DataError(f"{shown}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except DataError as exc:
        raise DataError(f"{shown}: {exc}") from None
    except RecursionError:
        raise DataError(f"{shown}: JSON nested too deeply to be a saved result") from None
    except MemoryError:
        raise DataError(f"{shown}: too large to load ({st.st_size:,} bytes)") from None


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
        if (p / name).exists():
            return p / name
    raise DataError(f"{p}: the folder holds no result ({' or '.join(_FOLDER_FILES)}); give a folder written by "
                    "gobnilp-py run, enumerate -o or kbest -o, or a JSON file")


def result_from_dict(d: Mapping[str, Any], *, make: Callable[..., Any]) -> Any:
    """:func:`load_result` on an already parsed JSON object."""
    try:
        return _result_from_dict(d, make)
    except RecursionError:
        raise DataError("nested too deeply to be a saved result") from None


def _result_from_dict(d: Mapping[str, Any], make: Callable[..., Any]) -> Any:
    if not isinstance(d, Mapping):
        raise DataError(f"expected a JSON object, got {_kind(d)}")
    if "job" in d and "result" in d:  # a run's result.json
        job = d["job"]
        if job == "score":
            raise DataError("this is a score job's result (a summary of the score table, no networks); "
                            "read its .jkl file with ScoreTable.from_jkl")
        if job not in ("learn", "enumerate", "kbest"):
            raise DataError(f"unknown job {_short(job)}; expected learn, enumerate or kbest")
        inputs = _get(d, "inputs", (dict,), "", required=False, allow_none=True) or {}
        names = _get(inputs, "names", (list,), "inputs.", required=False, allow_none=True)
        if names is not None:
            _names(names, "inputs.names")
        if job == "learn":
            out = network_from_dict(d["result"], "result.")
        else:
            out = credible_set_from_dict(d["result"], make=make, names=names, summary=d, where="result.")
        _same_labels(d, out, "")
        return out
    if "networks" in d and "opt" in d:
        return credible_set_from_dict(d, make=make)
    if "names" in d and "parents" in d and "score" in d:
        return network_from_dict(d)
    raise DataError("not a gobnilp-py result: expected a run's result.json, a CredibleSet or a Network")


# ----------------------------------------------------------------------------- writing


def credible_set_to_dict(cs: Any, *, networks: bool = True) -> dict[str, Any]:
    """``CredibleSet.to_dict()``: the labels and counts (and, by default, every network's score and parents).

    :func:`credible_set_from_dict` reads it back; non-finite numbers are written as ``null``.
    """
    d: dict[str, Any] = {
        "kind": cs.kind,
        "guarantee": cs.guarantee,
        "caveats": list(cs.caveats),
        "method": cs.method,
        "opt": cs.opt,
        "epsilon": cs.epsilon,
        "bayes_factor": cs.bayes_factor,
        "complete": cs.complete,
        "reason": cs.reason,
        "infeasible": cs.infeasible,
        "approximate": cs.approximate,
        "threshold": cs.threshold,
        "tolerance": cs.tolerance,
        "near_boundary": cs.near_boundary,
        "n_networks": len(cs.networks),
        "n_mecs": cs.n_mecs,
        "n_networks_total": cs.n_networks_total,
        "n_classes_total": cs.n_classes_total,
        "averages_over": cs.averages_over,
        "stats": cs.stats,
        # how much of the posterior over all DAGs the set holds, once computed (null: not computed)
        "posterior_mass": None if getattr(cs, "_posterior_mass", None) is None else cs._posterior_mass.to_dict(),
    }
    if networks:
        d["networks"] = [{"score": n.score, "parents": {k: list(v) for k, v in n.parents.items()}}
                         for n in cs.networks]
        d["classes"] = classes_to_json(cs.classes)
    return jsonable(d)


# ----------------------------------------------------------------------------- field checks
_KIND = {bool: "true or false", str: "a string", int: "an integer", float: "a number", list: "a list",
         dict: "an object", type(None): "null"}


def _kind(x: Any) -> str:
    if isinstance(x, bool):
        return "true/false"
    if isinstance(x, (int, float)):
        return "a number"
    return {str: "a string", list: "a list", dict: "an object", type(None): "null"}.get(type(x), type(x).__name__)


def _short(x: Any) -> str:
    text = json.dumps(x, ensure_ascii=False)[:60] if isinstance(x, (str, int, float, bool, type(None))) else _kind(x)
    return printable(text)


def _get(d: Mapping[str, Any], key: str, kinds: tuple[type, ...], where: str, *, required: bool = True,
         allow_none: bool = False) -> Any:
    """``d[key]`` checked to be one of ``kinds`` (``float`` admits ints; ``bool`` is never a number)."""
    if key not in d:
        if required:
            raise DataError(f"{where}{key} is missing; the file was edited or is not a gobnilp-py result")
        return None
    v = d[key]
    if v is None and allow_none:
        return None
    ok = any(isinstance(v, k) and not (isinstance(v, bool) and k in (int, float)) for k in kinds)
    if float in kinds and isinstance(v, int) and not isinstance(v, bool):
        ok = True
    if not ok:
        want = " or ".join(_KIND.get(k, k.__name__) for k in kinds) + (" or null" if allow_none else "")
        raise DataError(f"{where}{key} must be {want}, got {_short(v)}")
    if int in kinds and float not in kinds and isinstance(v, int) and v < 0:
        raise DataError(f"{where}{key} must be >= 0, got {v}")
    return v


def _names(x: Any, where: str) -> list[str]:
    if not isinstance(x, list) or not all(isinstance(v, str) for v in x):
        raise DataError(f"{where} must be a list of variable names, got {_short(x)}")
    return x


def _parents(x: Any, where: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(x, dict):
        raise DataError(f"{where} must be an object variable -> list of parents, got {_short(x)}")
    out = {}
    for child, ps in x.items():
        _names(ps, f"{where}[{printable(json.dumps(child, ensure_ascii=False))}]")
        out[child] = tuple(ps)
    return out


def _same_labels(d: Mapping[str, Any], result: Any, where: str) -> None:
    """The saved ``guarantee`` and ``complete`` (when the file has them at this level) equal the rebuilt result's."""
    got = labels(result)
    for key in ("guarantee", "complete"):
        if key in d and d[key] != got[key]:
            raise DataError(f"the saved {where}{key} {_short(d[key])} differs from the one its fields give "
                            f"({_short(got[key])}); the file was edited or written by another version")


# ----------------------------------------------------------------------------- pieces
def _float(x: Any, what: str) -> float:
    """A JSON number as a float; ``null`` (how the writer writes a non-finite value) as NaN."""
    if x is None:
        return math.nan
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise DataError(f"{what} must be a number or null, got {_short(x)}")
    try:
        return float(x)
    except OverflowError:
        raise DataError(f"{what} is too large for a number, got an integer of {len(str(x))} digits") from None


def network_from_dict(d: Any, where: str = "") -> Any:
    from ..errors import GobnilpError
    from ..network import STATUSES, Network

    if not isinstance(d, Mapping):
        raise DataError(f"{where or 'a network'} must be a JSON object, got {_kind(d)}")
    _names(_get(d, "names", (list,), where), f"{where}names")
    _get(d, "score", (float,), where, allow_none=True)
    status = _get(d, "status", (str,), where)
    if status not in STATUSES:
        raise DataError(f"{where}status must be one of {', '.join(STATUSES)}, got {_short(status)}")
    _get(d, "complete", (bool,), where)
    _get(d, "guarantee", (str,), where)
    _get(d, "approximate", (bool,), where, required=False)
    caveats = _get(d, "caveats", (list,), where, required=False) or []
    if not all(isinstance(c, str) for c in caveats):
        raise DataError(f"{where}caveats must be a list of strings")
    _get(d, "dual_bound", (float,), where, required=False, allow_none=True)
    parents = _get(d, "parents", (dict,), where, allow_none=True)
    if parents is not None:
        _parents(parents, f"{where}parents")
    local = _get(d, "local_scores", (dict,), where, required=False) or {}
    for k, v in local.items():
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise DataError(f"{where}local_scores must map names to numbers, got {_short(v)}")
    _get(d, "stats", (dict,), where, required=False, allow_none=True)
    try:
        net = Network.from_dict(d)
    except DataError:
        raise
    except (GobnilpError, TypeError, ValueError) as exc:
        raise DataError(f"bad network: {exc}") from None
    _same_labels(d, net, where)
    return net


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


def classes_from_json(data: Sequence[Mapping[str, Any]] | None, where: str = "") -> list[Any] | None:
    """Inverse of :func:`classes_to_json` (every field checked: a malformed summary is a one-line DataError)."""
    if data is None:
        return None
    from ..errors import GobnilpError
    from .classes import ClassSummary

    if not isinstance(data, list):
        raise DataError(f"{where}classes must be a list or null, got {_kind(data)}")
    out = []
    for i, c in enumerate(data):
        at = f"{where}classes[{i}]."
        if not isinstance(c, Mapping):
            raise DataError(f"{where}classes[{i}] must be an object, got {_kind(c)}")
        cp = _get(c, "cpdag", (dict,), at)
        _names(_get(cp, "names", (list,), f"{at}cpdag."), f"{at}cpdag.names")
        for key in ("directed", "undirected"):
            for e in _get(cp, key, (list,), f"{at}cpdag.", required=False) or []:
                if not (isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)):
                    raise DataError(f"{at}cpdag.{key} must list [name, name] pairs, got {_short(e)}")
        score = _float(_get(c, "score", (float,), at, allow_none=True), f"{at}score")
        n_members = _get(c, "n_members", (int,), at, required=False, allow_none=True)
        listed = _get(c, "listed", (int,), at, required=False) or 0
        counts = _get(c, "arrow_counts", (list,), at, required=False, allow_none=True)
        for e in counts or []:
            if not (isinstance(e, list) and len(e) == 3 and isinstance(e[0], str) and isinstance(e[1], str)
                    and isinstance(e[2], int) and not isinstance(e[2], bool) and e[2] >= 0):
                raise DataError(f"{at}arrow_counts must list [parent, child, count] triples, got {_short(e)}")
        try:
            out.append(ClassSummary(
                cpdag=_cpdag_from_dict(cp),
                score=score,
                n_members=n_members,
                listed=int(listed),
                arrow_counts=None if counts is None else {(u, v): int(k) for u, v, k in counts},
            ))
        except DataError as exc:
            raise DataError(f"{where}classes[{i}]: {exc}") from None
        except (GobnilpError, KeyError, TypeError, ValueError) as exc:
            raise DataError(f"{where}classes[{i}] is malformed ({printable(exc)})") from None
    return out


#: The fields of ``CredibleSet.to_dict()``, with the JSON types the writer gives them (``float`` admits ints).
_SET_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {  # key -> (kinds, null allowed)
    "kind": ((str,), False), "caveats": ((list,), False), "method": ((str,), True),
    "reason": ((str,), True), "infeasible": ((bool,), False), "approximate": ((bool,), False),
    "threshold": ((float,), True), "tolerance": ((float,), True), "near_boundary": ((int,), True),
    "n_networks": ((int,), False), "n_networks_total": ((int,), True), "n_classes_total": ((int,), True),
    "averages_over": ((str,), True), "stats": ((dict,), True), "bayes_factor": ((float,), True),
    "n_mecs": ((int,), True), "posterior_mass": ((dict,), True),
}


def credible_set_from_dict(d: Mapping[str, Any], *, make: Callable[..., Any], names: Sequence[str] | None = None,
                           summary: Mapping[str, Any] | None = None, where: str = "") -> Any:
    """A :class:`~gobnilp_py.solve.credible.CredibleSet` from ``CredibleSet.to_dict()``.

    Parameters
    ----------
    d : mapping
        The set's dict (with ``networks``).
    make : callable
        The credible-set class to build (:class:`~gobnilp_py.solve.credible.CredibleSet`).
    names : sequence of str, optional
        The variables in column order (a run's ``inputs.names``); by default
        the order of the first network's ``parents``, which is the same.
    summary : mapping, optional
        The enclosing ``result.json``: its ``edge_probabilities`` and
        ``arrow_probabilities`` are compared with the rebuilt set's.
    where : str
        Prefix of field names in messages (``"result."`` inside a run's file).

    Raises
    ------
    DataError
        A field missing (``networks``, ``opt``, ``epsilon``, ``complete``,
        ``guarantee``) or of the wrong type, a network that is not a DAG over
        the variables, or labels that differ from those the fields give.
    """
    from ..network import Network

    if not isinstance(d, Mapping):
        raise DataError(f"a credible set must be a JSON object, got {_kind(d)}")
    if "networks" not in d:
        raise DataError(f"{where}networks is missing; was the set written with networks=False?")
    raw_nets = _get(d, "networks", (list,), where)
    opt = _float(_get(d, "opt", (float,), where, allow_none=True), f"{where}opt")
    eps = _float(_get(d, "epsilon", (float,), where, allow_none=True), f"{where}epsilon")
    complete = _get(d, "complete", (bool,), where)
    saved_guarantee = _get(d, "guarantee", (str,), where)
    for key, (kinds, nullable) in _SET_FIELDS.items():
        _get(d, key, kinds, where, required=False, allow_none=nullable)
    if not all(isinstance(c, str) for c in d.get("caveats") or []):
        raise DataError(f"{where}caveats must be a list of strings")
    for i, nd in enumerate(raw_nets):
        if not isinstance(nd, Mapping):
            raise DataError(f"{where}networks[{i}] must be an object, got {_kind(nd)}")
        _get(nd, "score", (float,), f"{where}networks[{i}].", allow_none=True)
        _parents(_get(nd, "parents", (dict,), f"{where}networks[{i}]."), f"{where}networks[{i}].parents")
    if names is None:
        if raw_nets:
            names = list(raw_nets[0]["parents"].keys())
        elif d.get("classes"):
            first = d["classes"][0]
            names = _names(first.get("cpdag", {}).get("names") if isinstance(first, Mapping)
                           and isinstance(first.get("cpdag"), Mapping) else None, f"{where}classes[0].cpdag.names")
        else:
            names = []
    names = tuple(str(x) for x in names)
    tol = _float(d.get("tolerance", 0.0), f"{where}tolerance")
    tol = 0.0 if math.isnan(tol) else tol
    nets = []
    for i, nd in enumerate(raw_nets):
        score = _float(nd["score"], f"{where}networks[{i}].score")
        parents = {str(k): tuple(v) for k, v in nd["parents"].items()}
        status = "optimal" if math.isfinite(opt) and score >= opt - tol else "feasible"
        try:
            nets.append(Network(names, parents, score, status=status))
        except Exception as exc:
            raise DataError(f"{where}networks[{i}]: {printable(exc)}") from None
    n_saved = d.get("n_networks")
    if n_saved is not None and n_saved != len(nets):
        raise DataError(f"the file says {n_saved} networks but lists {len(nets)}")
    threshold = d.get("threshold")
    try:
        cs = make(
            opt=opt, epsilon=eps, complete=complete, reason=d.get("reason"), networks=nets, tolerance=tol,
            near_boundary=int(d.get("near_boundary") or 0), kind=str(d.get("kind", "bayes_factor")),
            stats=dict(d.get("stats") or {}), method=d.get("method"),
            threshold=None if threshold is None else _float(threshold, f"{where}threshold"),
            infeasible=bool(d.get("infeasible", False)), approximate=bool(d.get("approximate", False)),
            caveats=[str(c) for c in d.get("caveats") or []],
            n_networks_total=d.get("n_networks_total"), n_classes_total=d.get("n_classes_total"),
            classes=classes_from_json(d.get("classes"), where),
        )
    except DataError:
        raise
    except (TypeError, ValueError) as exc:
        raise DataError(f"{where}: a field holds a value of the wrong kind ({printable(exc)})") from None
    if saved_guarantee != cs.guarantee and cs.threshold is None:
        cs.threshold = -math.inf  # JSON writes a threshold of -inf as null
        if saved_guarantee != cs.guarantee:
            cs.threshold = None
    if saved_guarantee != cs.guarantee:
        raise DataError(f"the saved guarantee {_short(saved_guarantee)} differs from the one its fields give "
                        f"({_short(cs.guarantee)}); the file was edited or written by another version")
    _same_labels(d, cs, where)
    if d.get("posterior_mass") is not None:
        cs._posterior_mass = posterior_mass_from_dict(d["posterior_mass"], f"{where}posterior_mass")
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


def posterior_mass_from_dict(d: Mapping[str, Any], where: str = "posterior_mass") -> Any:
    """A :class:`~gobnilp_py.solve.posterior.PosteriorMass` from its ``to_dict()``, every field checked."""
    from .mass import PosteriorMass

    value = _get(d, "value", (float,), f"{where}.", allow_none=True)
    exact = _get(d, "exact", (bool,), f"{where}.")
    n = _get(d, "n_networks", (int,), f"{where}.")
    covers = _get(d, "covers", (str,), f"{where}.")
    scope = _get(d, "scope", (str,), f"{where}.")
    note = _get(d, "note", (str,), f"{where}.", required=False) or ""
    if value is not None and not 0.0 <= float(value) <= 1.0:
        raise DataError(f"{where}.value must lie in [0, 1], got {value!r}")
    if value is None and exact:
        raise DataError(f"{where}: an exact mass needs a value")
    if covers not in ("networks", "classes"):
        raise DataError(f"{where}.covers must be 'networks' or 'classes', got {covers!r}")
    m = PosteriorMass(None if value is None else float(value), exact, int(n), covers, scope, note)
    for key in ("lower_bound", "text"):
        if key in d and d[key] != getattr(m, key):
            raise DataError(f"{where}.{key} is {d[key]!r} but its fields give {getattr(m, key)!r}; the file was "
                            "edited or written by another version")
    return m


def _classes_of_listed(cs: Any) -> list[Any]:
    """Class summaries of a set that lists every credible network: members, score and arrow counts by counting."""
    from .classes import ClassSummary

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
        if not isinstance(saved, Mapping) or not isinstance(saved.get("names"), list) or \
                not isinstance(saved.get("matrix"), list):
            raise DataError(f"{key} must be an object with names and matrix, got {_short(saved)}")
        try:
            mat = np.array(saved["matrix"], dtype=float)
        except (TypeError, ValueError):
            raise DataError(f"{key}.matrix must be a square list of lists of numbers") from None
        got = fn()
        if list(saved["names"]) != [str(x) for x in got.index] or mat.shape != got.shape or \
                not np.allclose(got.to_numpy(), mat, rtol=_REL, atol=1e-12):
            cs.caveats.append(f"the rebuilt {key.replace('_', ' ')} differ from the saved ones")
