"""Text outputs of a run: JSON, CSV, GOBNILP text, .jkl, bnlearn model strings, DOT.

Each writer turns a result into a string and nothing else, so the same
function serves the run folder, tests and notebooks; files are written by
:mod:`gobnilp_py.output.folder`, atomically.  A *result* is what a job
returns: a :class:`~gobnilp_py.scoring.table.ScoreTable` (job ``score``), a
:class:`~gobnilp_py.network.Network` (``learn``) or a
:class:`~gobnilp_py.solve.credible.CredibleSet` (``enumerate``, ``kbest``).
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = [
    "jsonable",
    "to_json",
    "networks_of",
    "networks_csv",
    "gobnilp_text",
    "modelstrings",
    "dot_text",
    "table_summary",
    "collection_summary",
]


def jsonable(obj: Any) -> Any:
    """Plain JSON data: non-finite floats become ``None``, tuples lists, numpy scalars Python numbers.

    ``None`` rather than the strings ``"nan"``/``"inf"`` so that strict JSON
    readers (``allow_nan=False``, JavaScript) accept every file we write.
    """
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return [jsonable(v) for v in sorted(obj, key=repr)]
    if hasattr(obj, "tolist"):  # numpy arrays and scalars
        return jsonable(obj.tolist())
    if hasattr(obj, "__fspath__"):
        return str(obj)
    return str(obj)


def to_json(obj: Any) -> str:
    """Strict JSON text (no NaN), indented for reading, ending in a newline."""
    return json.dumps(jsonable(obj), indent=1, allow_nan=False) + "\n"


def networks_of(result: Any) -> list[Any]:
    """The networks of a result: all of a collection, the one of a learn, none of a score table."""
    from ..network import Network

    if isinstance(result, Network):
        return [result] if math.isfinite(result.score) else []
    return list(getattr(result, "networks", []))


def networks_csv(result: Any) -> str:
    """One row per network: rank, score, gap to OPT, Bayes factor, class, arrows, model string."""
    from ..network import Network

    if isinstance(result, Network):
        nets = networks_of(result)
        buf = io.StringIO()
        buf.write("rank,score,gap,bayes_factor,mec,n_edges,model,status\n")
        for net in nets:
            buf.write(f"1,{net.score!r},0.0,1.0,0,{net.n_edges},{net.to_modelstring()},{net.status}\n")
        return buf.getvalue()
    return result.to_dataframe().to_csv(index=False, float_format="%.10g")


def gobnilp_text(result: Any) -> str:
    """GOBNILP's solution text (``child<-p1,p2, score`` lines, ``BN score is ...``) for each network.

    Several networks are separated by a blank line and headed by a ``#``
    comment with their rank and Bayes factor against the optimum.
    """
    nets = networks_of(result)
    if len(nets) == 1 and not hasattr(result, "networks"):
        return nets[0].to_gobnilp_text()
    opt = getattr(result, "opt", None)
    parts = []
    for rank, net in enumerate(nets, 1):
        head = f"# network {rank} of {len(nets)}"
        if opt is not None and math.isfinite(opt):
            gap = opt - net.score
            head += f", gap {gap:.6f}, Bayes factor {math.exp(gap):.6g}" if gap < 700 else f", gap {gap:.6f}"
        parts.append(head + "\n" + net.to_gobnilp_text())
    return "\n".join(parts)


def modelstrings(result: Any) -> str:
    """bnlearn model strings, one network per line, best first."""
    return "".join(net.to_modelstring() + "\n" for net in networks_of(result))


def dot_text(result: Any) -> str:
    """DOT of the best network and, after it, of its equivalence class (CPDAG)."""
    from ..equivalence import cpdag

    nets = networks_of(result)
    if not nets:
        return "digraph empty {\n}\n"
    best = nets[0]
    return best.to_dot("best") + cpdag(best.names, best.parents).to_dot("best_cpdag")


def table_summary(table: Any) -> dict[str, Any]:
    """What a score table is: variables, candidates per variable, ε, score, pruning counts, metadata."""
    return {
        "names": list(table.names),
        "n_variables": table.n,
        "n_candidates": len(table),
        "candidates": table.n_candidates(),
        "epsilon": table.epsilon,
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
    return out
