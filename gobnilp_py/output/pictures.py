"""Pictures of a run: the best DAG, its CPDAG, edge probabilities, score versus rank; and DOT text.

The figures themselves are drawn by :mod:`gobnilp_py.drawing.figures` (which
the value objects also use to show themselves in a notebook); this module
holds what a run needs around them: which pictures to draw for a result and
which to skip with the reason (:func:`draw_pictures`, :class:`PictureSet`),
the DOT text of the best network and its CPDAG (:func:`dag_dot`,
:func:`cpdag_dot`, :func:`dot_files`: one Graphviz graph per file, ``dot
-Tpng best.dot`` draws it, with the same styles and legend as the
pictures), and the older PNG names.  Pictures of more than :data:`MAX_NODES`
variables are not drawn (:func:`drawable` says so and why; the caller writes
the note).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..solve.labels import comment_lines
from ..drawing.figures import (
    ARROW as _ARROW,
    BF_LEVELS,
    FORMATS,
    MAX_NODES,
    NODE_EDGE as _NODE_EDGE,
    NODE_FACE as _NODE_FACE,
    REVERSIBLE as _REVERSIBLE,
    _check_format,
    _cpdag_edges,
    _cpdag_figure,
    _dag_figure,
    _edge_figure,
    _score_rank_figure,
    _score_text,
    _status_prefix,
    draw_cpdag,
    draw_dag,
    draw_edge_probabilities,
    draw_score_rank,
    drawable,
    file_suffix,
)

__all__ = [
    "FORMATS",
    "MAX_NODES",
    "BF_LEVELS",
    "PictureSet",
    "drawable",
    "draw_dag",
    "draw_cpdag",
    "draw_edge_probabilities",
    "draw_score_rank",
    "draw_pictures",
    "dag_png",
    "cpdag_png",
    "edge_heatmap_png",
    "score_rank_png",
    "dag_dot",
    "cpdag_dot",
    "dot_files",
    "file_suffix",
    "layered_positions",
]

log = logging.getLogger(__name__)


# ------------------------------------------------------------------------ all pictures of a result
@dataclass
class PictureSet:
    """Pictures of a result: the images, the ones skipped with the reason, and the drawing time.

    Attributes
    ----------
    images : dict of output name -> bytes
        ``"dag_png"``, ``"cpdag_png"``, ``"edges_png"``, ``"scores_png"``
        (the config's output names; the bytes are in ``format``).
    skipped : dict of output name -> str
        Why a picture asked for was not drawn (one sentence, for the report).
    seconds : float
        Wall time spent drawing (for the report's timings).
    format : str
    """

    images: dict[str, bytes] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    format: str = "png"


def draw_pictures(result: Any, wanted: Sequence[str], *, format: str = "png", dpi: int = 110,
                  max_nodes: int = MAX_NODES, engine: str = "auto") -> PictureSet:
    """Draw the pictures named in ``wanted`` for a ``Network`` or ``CredibleSet``, skipping what cannot be drawn.

    Parameters
    ----------
    result : Network or CredibleSet
    wanted : sequence of {"dag_png", "cpdag_png", "edges_png", "scores_png"}
    format, dpi, engine
        As for :func:`draw_dag`.
    max_nodes : int
        Networks with more variables are skipped (see :func:`drawable`); the
        score-versus-rank plot does not depend on the size and is always drawn.
    """
    fmt = _check_format(format)
    t0 = time.perf_counter()
    out = PictureSet(format=fmt)
    nets = list(getattr(result, "networks", None) or ([result] if hasattr(result, "parents") else []))
    nets = [n for n in nets if isinstance(getattr(n, "score", None), float) and math.isfinite(n.score)]
    for name in wanted:
        if name in ("dag_png", "cpdag_png"):
            if not nets:
                out.skipped[name] = "not drawn: there is no network"
                continue
            ok, why = drawable(nets[0], max_nodes=max_nodes)
            if not ok:
                out.skipped[name] = why
                continue
            draw = draw_dag if name == "dag_png" else draw_cpdag
            out.images[name] = draw(nets[0], format=fmt, dpi=dpi, engine=engine)
        elif name in ("edges_png", "scores_png"):
            if not hasattr(result, "networks") or not len(result):
                out.skipped[name] = "not drawn: the collection is empty"
                continue
            if name == "edges_png":
                ok, why = drawable(result, max_nodes=max_nodes)
                if not ok:
                    out.skipped[name] = why
                    continue
                out.images[name] = draw_edge_probabilities(result, format=fmt, dpi=dpi)
            else:
                out.images[name] = draw_score_rank(result, format=fmt, dpi=dpi)
        else:
            from ..errors import ConfigError

            raise ConfigError(f"unknown picture {name!r}; known: dag_png, cpdag_png, edges_png, scores_png")
    for name, why in out.skipped.items():
        log.warning("%s %s", name, why)
    out.seconds = time.perf_counter() - t0
    return out


# ------------------------------------------------------------------------ PNG shortcuts (older names)
def dag_png(network: Any, *, title: str | None = None, dpi: int = 110, format: str = "png") -> bytes:
    """:func:`draw_dag` (kept under its older name; ``format`` may ask for SVG or PDF)."""
    return draw_dag(network, title=title, dpi=dpi, format=format)


def cpdag_png(network: Any, *, title: str | None = None, dpi: int = 110, format: str = "png") -> bytes:
    """:func:`draw_cpdag` (older name)."""
    return draw_cpdag(network, title=title, dpi=dpi, format=format)


def edge_heatmap_png(cs: Any, *, dpi: int = 110, format: str = "png") -> bytes:
    """:func:`draw_edge_probabilities` (older name)."""
    return draw_edge_probabilities(cs, dpi=dpi, format=format)


def score_rank_png(cs: Any, *, levels: Sequence[float] = BF_LEVELS, dpi: int = 110, format: str = "png") -> bytes:
    """:func:`draw_score_rank` (older name)."""
    return draw_score_rank(cs, levels=levels, dpi=dpi, format=format)


def layered_positions(names: Sequence[str], parents: Mapping[str, Sequence[str]]) -> dict[str, tuple[float, float]]:
    """Node centres (inches, y up) of the built-in layered layout of the DAG ``parents``."""
    from ..drawing.layout import layered_layout

    return layered_layout(list(names), [(p, c) for c in names for p in parents.get(c, ())]).pos


# ------------------------------------------------------------------------ DOT text
def _dot_id(s: Any) -> str:
    s = str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{s}"'


_DOT_HEAD = ['  graph [rankdir=TB, fontname="Helvetica", fontsize=11, labelloc=t];',
             f'  node [shape=ellipse, style=filled, fillcolor="{_NODE_FACE}", color="{_NODE_EDGE}", '
             'fontname="Helvetica", fontsize=10];',
             f'  edge [color="{_ARROW}"];']


def dag_dot(network: Any, name: str = "best", *, title: str | None = None) -> str:
    """One Graphviz digraph of the network (``dot -Tpng best.dot -o best.png`` draws it).

    Examples
    --------
    >>> from gobnilp_py import Network
    >>> print(dag_dot(Network(("a", "b"), {"b": ("a",)}, -1.0)).splitlines()[-2])
      "a" -> "b";
    """
    label = title or f"{_status_prefix(network)}best network ({_score_text(network)})"
    lines = [f"digraph {_dot_id(name)} {{", *_DOT_HEAD, f"  label={_dot_id(label)};"]
    lines += [f"  {_dot_id(v)};" for v in network.names]
    lines += [f"  {_dot_id(p)} -> {_dot_id(c)};" for p, c in network.edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def cpdag_dot(network: Any, name: str = "best_cpdag", *, title: str | None = None) -> str:
    """One Graphviz digraph of the network's CPDAG: compelled arrows black, reversible edges red dashed.

    Reversible edges are written ``u -> v [dir=none, ...]`` in the network's
    direction (so ``dot`` ranks the picture like the DAG's) and a legend
    cluster explains the two styles.
    """
    _, arrows, lines_, _ = _cpdag_edges(network)
    label = title or (f"{_status_prefix(network)}equivalence class of the best network (CPDAG): "
                      f"{len(arrows)} compelled, {len(lines_)} reversible")
    out = [f"digraph {_dot_id(name)} {{", *_DOT_HEAD, f"  label={_dot_id(label)};"]
    out += [f"  {_dot_id(v)};" for v in network.names]
    out += [f"  {_dot_id(u)} -> {_dot_id(v)};" for u, v in arrows]
    for u, v in lines_:
        a, b = (u, v) if network.has_edge(u, v) else (v, u)
        out.append(f'  {_dot_id(a)} -> {_dot_id(b)} [dir=none, style=dashed, color="{_REVERSIBLE}", penwidth=1.4];')
    out += ["  subgraph \"cluster_legend\" {",
            '    label="legend"; fontsize=9; color="#bbbbbb";',
            '    node [shape=plaintext, style="", fontsize=9, label=""];',
            '    "legend a1"; "legend a2"; "legend b1"; "legend b2";',
            '    "legend a1" -> "legend a2" [label=" compelled arrow", fontsize=9];',
            f'    "legend b1" -> "legend b2" [label=" reversible edge", fontsize=9, dir=none, style=dashed, '
            f'color="{_REVERSIBLE}"];',
            "  }",
            "}"]
    return "\n".join(out) + "\n"


def dot_files(result: Any) -> dict[str, str]:
    """The DOT files of a result, one graph each: ``{"best.dot": ..., "best_cpdag.dot": ...}``.

    Each file starts with the result's guarantee line and caveats as ``//``
    comments, from the same function as every other output's
    (:func:`gobnilp_py.solve.labels.comment_lines`).  For a result without
    a network (an infeasible run, an empty collection) both files hold an
    empty graph saying so.
    """
    head = comment_lines(result, "//")
    nets = list(getattr(result, "networks", None) or ([result] if hasattr(result, "parents") else []))
    nets = [n for n in nets if isinstance(getattr(n, "score", None), float) and math.isfinite(n.score)]
    if not nets:
        empty = 'digraph {0} {{\n  label="no network";\n}}\n'
        return {"best.dot": head + empty.format(_dot_id("best")),
                "best_cpdag.dot": head + empty.format(_dot_id("best_cpdag"))}
    return {"best.dot": head + dag_dot(nets[0]), "best_cpdag.dot": head + cpdag_dot(nets[0])}
