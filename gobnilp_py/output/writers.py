"""Text outputs of a run: JSON, CSV, GOBNILP text, .jkl, bnlearn model strings, DOT.

Each writer turns a result into a string and nothing else, so the same
function serves the run folder, tests and notebooks; files are written by
:mod:`gobnilp_py.output.folder`, atomically.  A *result* is what a job
returns: a :class:`~gobnilp_py.scoring.table.ScoreTable` (job ``score``), a
:class:`~gobnilp_py.network.Network` (``learn``) or a
:class:`~gobnilp_py.solve.credible.CredibleSet` (``enumerate``, ``kbest``).

Every file says what its result is worth
    A result cut short (network cap, time limit, interrupt), approximate, from
    a score table of unknown pruning, or infeasible must not look like a
    complete answer in *any* file.  So every text writer starts with the
    result's guarantee line (:func:`guarantee_of`) as a comment
    (:func:`comment_lines`) -- ``#`` in CSV (``networks.csv``,
    ``arc_strength.csv``, ``best_adjacency.csv``), GOBNILP text and model
    strings (read the CSV with ``pandas.read_csv(path, comment="#")``, in R
    ``read.csv(path, comment.char = "#")``), ``//`` in DOT and BIF (both
    readers skip ``//`` comments) -- and every JSON
    holds ``guarantee``, ``complete``, ``approximate``, ``infeasible`` and
    ``caveats`` (:func:`labels`).  Caveats (e.g. "the score table does not say
    how it was pruned") follow the guarantee as further comment lines.
    The guarantee starts with ``complete:``, ``INCOMPLETE (<reason>):``,
    ``APPROXIMATE:``, ``INFEASIBLE:`` or ``UNKNOWN:``.

Gaps to OPT
    A network tied with the optimum can differ from OPT by float noise (a
    sum of local scores added in another order, e.g. ``9.09e-13``).  Every
    gap written (``networks.csv``, ``networks.txt``, the report) goes
    through :func:`shown_gap`: a gap within the package's score tolerance
    (:func:`gobnilp_py.solve.results.tolerance_of`, ``1e-9 * max(1, |OPT|)``,
    the ``CredibleSet.tolerance`` of the ε boundary) is written as ``0`` and
    its Bayes factor as ``1``, so a tie reads as a tie.  Scores themselves are
    written as computed.

JSON
    One convention (:mod:`gobnilp_py._json`): non-finite floats are ``null``.
"""

from __future__ import annotations

import io
import json
import math
from typing import Any

from .._json import jsonable
from ..solve.labels import comment_lines, guarantee_of, is_approximate, is_complete, is_infeasible, labels, notes_of

__all__ = [
    "jsonable",
    "to_json",
    "result_json",
    "collection_json",
    "guarantee_of",
    "is_complete",
    "is_approximate",
    "is_infeasible",
    "notes_of",
    "labels",
    "comment_lines",
    "shown_gap",
    "networks_of",
    "networks_csv",
    "gobnilp_text",
    "modelstrings",
    "dot_text",
    "arc_strength_csv",
    "adjacency_csv",
    "bif_text",
    "table_summary",
    "collection_summary",
]


def to_json(obj: Any) -> str:
    """Strict JSON text (no NaN), indented for reading, ending in a newline."""
    return json.dumps(jsonable(obj), indent=1, allow_nan=False, ensure_ascii=False) + "\n"


#: Stands for a collection's networks in :func:`result_json` until their text is put in its place.
_NETWORKS_SLOT = "\x00gobnilp_py networks\x00"


def result_json(res: Any) -> str:
    """``result.json`` of a run: :func:`to_json` of ``res.to_dict()``, byte for byte, built faster.

    Why: a collection's ``networks`` are most of the file (150,000 networks of 45 variables: 6.75
    million parent lists), and :mod:`json` writes indented text in pure Python.  Their text is
    made from the collection's arrays (:func:`gobnilp_py.equivalence.columns.networks_json`, each
    family's text once) and put where :mod:`json` would have written them; the rest goes through
    :func:`to_json` as before.  Any other result is ``to_json(res.to_dict())``.
    """
    r = getattr(res, "result", None)
    cols = _columns_of(r) if res.job in ("enumerate", "kbest") else None
    if cols is None:
        return to_json(res.to_dict())
    d = res.to_dict(networks=False)
    return _with_networks(d, d["result"], r, cols)


def collection_json(cs: Any) -> str:
    """``summary.json`` of ``enumerate``/``kbest -o``: :func:`to_json` of the collection's ``to_dict()``
    with its :func:`labels`, byte for byte, its networks written from the arrays (see :func:`result_json`)."""
    cols = _columns_of(cs)
    if cols is None:
        return to_json({**cs.to_dict(), **labels(cs)})
    d = {**cs.to_dict(networks=False), **labels(cs)}
    return _with_networks(d, d, cs, cols)


def _with_networks(doc: dict[str, Any], where: dict[str, Any], cs: Any, cols: Any) -> str:
    """:func:`to_json` of ``doc`` once ``where`` ends with the collection's ``networks`` and ``classes``
    (as :meth:`CredibleSet.to_dict` ends), the networks' text made from the arrays."""
    from ..equivalence.columns import networks_json
    from ..solve.classes import classes_to_json

    where["networks"] = _NETWORKS_SLOT
    where["classes"] = jsonable(classes_to_json(cs.classes))
    text = to_json(doc)
    slot = json.dumps(_NETWORKS_SLOT, ensure_ascii=False)
    at = text.index(slot)
    depth = at - (text.rindex("\n", 0, at) + 1) - len('"networks": ')  # the key's indentation
    return text[:at] + networks_json(cols, depth) + text[at + len(slot):]


def shown_gap(opt: float, score: float) -> float:
    """``opt - score`` as written in outputs: 0 when within the score tolerance at ``opt`` (float noise of a tie).

    The tolerance is the package's documented score tolerance
    (:func:`gobnilp_py.solve.results.tolerance_of`: ``1e-9 * max(1, |opt|)``,
    ``CredibleSet.tolerance``, the slack of the ε boundary), so a network
    tied with the optimum never shows a gap like ``9.09e-13``.  Only what is
    written changes: scores, ranks and membership are as computed.
    Non-finite gaps are returned unchanged.
    """
    from ..solve.results import tolerance_of

    gap = opt - score
    if math.isfinite(gap) and abs(gap) <= tolerance_of(opt):
        return 0.0
    return gap


def networks_of(result: Any) -> list[Any]:
    """The networks of a result: all of a collection, the one of a learn, none of a score table."""
    from ..network import Network

    if isinstance(result, Network):
        return [result] if math.isfinite(result.score) else []
    return list(getattr(result, "networks", []))


def networks_csv(result: Any) -> str:
    """One row per network: rank, score, gap to OPT, Bayes factor, class, arrows, model string.

    The first line is a ``#`` comment with the guarantee; read the file with
    ``pandas.read_csv(path, comment="#")``.
    """
    from ..network import Network

    if isinstance(result, Network):
        nets = networks_of(result)
        buf = io.StringIO()
        buf.write(comment_lines(result))
        buf.write("rank,score,gap,bayes_factor,mec,n_edges,model,status\n")
        for net in nets:
            buf.write(f"1,{net.score!r},0.0,1.0,0,{net.n_edges},{_csv_field(net.to_modelstring())},{net.status}\n")
        return buf.getvalue()
    cols = _columns_of(result)
    if cols is not None:
        return comment_lines(result) + _csv_from_columns(result, cols)
    df = result.to_dataframe()
    opt = getattr(result, "opt", math.nan)
    if len(df) and math.isfinite(opt):  # a tie's float noise is written as gap 0, Bayes factor 1 (shown_gap)
        tied = _shown_tied(opt, df["score"].to_numpy(dtype=float))
        df.loc[tied, "gap"] = 0.0
        df.loc[tied, "bayes_factor"] = 1.0
    return comment_lines(result) + df.to_csv(index=False, float_format="%.10g")


def _csv_from_columns(cs: Any, cols: Any) -> str:
    """The rows :func:`networks_csv` writes through pandas (``to_dataframe().to_csv(index=False,
    float_format="%.10g")`` after the tie correction), written directly: the same text, byte for byte.

    Why: pandas took 2.4 s of the 150,000-network CSV.  The rules reproduced are pandas': floats as
    ``"%.10g" % x`` and NaN as an empty field, integers as ``str``, the class column as floats when a
    network has no class, a field quoted (quotes doubled) when it holds a comma, a quote or a line break.
    """
    from ..equivalence.columns import model_strings

    opt = getattr(cs, "opt", math.nan)
    scores = cols.scores.tolist()
    gaps = [opt - s for s in scores]
    bfs = [math.exp(g) if g < 700 else math.inf for g in gaps]
    if math.isfinite(opt):
        for i in _shown_tied(opt, cols.scores).nonzero()[0].tolist():
            gaps[i], bfs[i] = 0.0, 1.0
    class_of = cs._class_index()
    mec = [class_of.get(id(net)) for net in cs.networks]
    if any(m is None for m in mec):  # pandas makes the column float (NaN for the missing)
        mec_text = ["" if m is None else "%.10g" % float(m) for m in mec]
    else:
        mec_text = [str(m) for m in mec]

    def g(x: float) -> str:
        return "" if x != x else "%.10g" % x

    def quoted(text: str) -> str:
        return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\r\n') else text

    lines = ["rank,score,gap,bayes_factor,mec,n_edges,model\n"]
    lines += [f"{r},{g(s)},{g(gap)},{g(bf)},{m},{e},{quoted(model)}\n"
              for r, s, gap, bf, m, e, model in zip(range(1, len(scores) + 1), scores, gaps, bfs, mec_text,
                                                    cols.n_edges().tolist(), model_strings(cols))]
    return "".join(lines)


def _shown_tied(opt: float, scores: Any) -> Any:
    """Per score: :func:`shown_gap` would write 0 (``|opt - score|`` within the tolerance), as one array."""
    import numpy as np

    from ..solve.results import tolerance_of

    gap = opt - np.asarray(scores, dtype=float)
    return np.isfinite(gap) & (np.abs(gap) <= tolerance_of(opt))


def _columns_of(result: Any) -> Any:
    """The collection's arrays when it keeps them (:meth:`CredibleSet._network_columns`), else ``None``."""
    get = getattr(result, "_network_columns", None)
    return get() if callable(get) and hasattr(result, "networks") and len(result.networks) else None


def _csv_field(text: str) -> str:
    if any(ch in text for ch in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def gobnilp_text(result: Any) -> str:
    """GOBNILP's solution text (``child<-p1,p2, score`` lines, ``BN score is ...``) for each network.

    Several networks are separated by a blank line and headed by a ``#``
    comment with their rank and Bayes factor against the optimum.  The first
    line is a ``#`` comment with the guarantee (an infeasible result has no
    network lines at all).
    """
    nets = networks_of(result)
    head = comment_lines(result)
    if not hasattr(result, "networks"):
        return head + "".join(net.to_gobnilp_text() for net in nets)
    opt = getattr(result, "opt", None)
    known = opt is not None and math.isfinite(opt)
    tied = _shown_tied(opt, [net.score for net in nets]).tolist() if known and nets else []
    heads = []
    for rank, net in enumerate(nets, 1):
        head = f"# network {rank} of {len(nets)}"
        if known:
            gap = 0.0 if tied[rank - 1] else opt - net.score  # shown_gap, from the array
            head += f", gap {gap:.6f}, Bayes factor {math.exp(gap):.6g}" if gap < 700 else f", gap {gap:.6f}"
        heads.append(head)
    cols = _columns_of(result)
    if cols is not None:  # every network's text from the arrays: each family's line formatted once
        from ..equivalence.columns import gobnilp_text as bulk, local_columns

        local = local_columns(nets, cols.n)
        if local is not None:
            return comment_lines(result) + bulk(cols, local, heads)
    return comment_lines(result) + "\n".join(h + "\n" + net.to_gobnilp_text() for h, net in zip(heads, nets))


def modelstrings(result: Any) -> str:
    """bnlearn model strings, one network per line, best first, after a ``#`` guarantee line."""
    cols = _columns_of(result)
    if cols is not None:
        from ..equivalence.columns import modelstrings_text

        return comment_lines(result) + modelstrings_text(cols)
    return comment_lines(result) + "".join(net.to_modelstring() + "\n" for net in networks_of(result))


def dot_text(result: Any) -> str:
    """DOT of the best network: one graph (its CPDAG is ``dot_files(result)["best_cpdag.dot"]``)."""
    from .pictures import dot_files

    return dot_files(result)["best.dot"]


def arc_strength_csv(result: Any) -> str:
    """``arc_strength.csv``: :func:`gobnilp_py.interop.arc_strength_csv` after the ``#`` guarantee lines.

    Strengths averaged over a collection cut short are averages over the
    networks found, so the file says so itself.  Read it with
    ``pandas.read_csv(path, comment="#")`` or, in R,
    ``read.csv(path, comment.char = "#")``.
    """
    from .. import interop

    return comment_lines(result) + interop.arc_strength_csv(result)


def adjacency_csv(result: Any) -> str:
    """``best_adjacency.csv``: the best network's 0/1 matrix (row = parent) after the ``#`` guarantee lines.

    The guarantee is the result's: the best network of an incomplete search
    is not proven optimal.  Read it with ``pandas.read_csv(path,
    comment="#", index_col=0)`` or, in R, ``read.csv(path, row.names = 1,
    check.names = FALSE, comment.char = "#")``.
    """
    from .. import interop

    best = networks_of(result)[:1]
    if not best:
        raise ValueError("the result holds no network: there is no adjacency matrix to write")
    return comment_lines(result) + interop.adjacency_csv(best[0])


def bif_text(result: Any, data: Any, *, ess: float = 1.0) -> str:
    """``best.bif``: the best network with CPTs fitted to ``data`` (:func:`gobnilp_py.interop.to_bif`).

    The CPTs are BDeu posterior means with equivalent sample size ``ess``: a run
    passes its ``[scoring] ess``, so a BDeu run's parameters use the prior its
    structure was scored with.  Starts with the guarantee lines as ``//`` comments, which pgmpy's
    ``BIFReader`` and bnlearn's ``read.bif`` skip.  The comments are kept
    ASCII (other characters as ``\\x..`` escapes), as the rest of the file
    is, so a reader that assumes a single-byte encoding still reads it.
    """
    from .. import interop

    best = networks_of(result)[:1]
    if not best:
        raise ValueError("the result holds no network: there is no BIF to write")
    head = comment_lines(result, "//").encode("ascii", "backslashreplace").decode("ascii")
    return head + interop.to_bif(best[0], data, ess=ess)


def table_summary(table: Any) -> dict[str, Any]:
    """What a score table is: variables, candidates per variable, ε, score, pruning counts, metadata."""
    return {
        **labels(table),
        "names": list(table.names),
        "n_variables": table.n,
        "n_candidates": len(table),
        "candidates": table.n_candidates(),
        "epsilon": table.epsilon,
        "safe_epsilon": getattr(table, "safe_epsilon", table.epsilon),
        "score_name": table.score_name,
        "pruning": table.pruning,
        "meta": table.meta,
        "best_parent_sets": {table.names[i]: {"parents": [table.names[p] for p in fams[0][0]], "score": fams[0][1]}
                             for i, fams in enumerate(table.families)},
    }


def collection_summary(cs: Any) -> dict[str, Any]:
    """Equivalence classes and model-averaged probabilities of a collection, for the JSON output."""
    out: dict[str, Any] = {"mecs": [], "edge_probabilities": None, "arrow_probabilities": None}
    for cls in cs.mecs():
        out["mecs"].append({"size": cls.size, "best_score": cls.best_score, "cpdag": cls.cpdag.to_dict()})
    if len(cs):
        e = cs.edge_probabilities()
        a = cs.arrow_probabilities()
        out["edge_probabilities"] = {"names": list(e.index), "matrix": e.to_numpy().tolist()}
        out["arrow_probabilities"] = {"names": list(a.index), "matrix": a.to_numpy().tolist()}
    from ..solve.set_posterior import edge_comparison

    comparison = edge_comparison(cs)          # the exact posteriors, once computed (docs/posterior.md)
    if comparison is not None:
        out["posterior"] = comparison
    return out
