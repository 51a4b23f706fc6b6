"""Pictures of a run as PNG bytes: the best DAG, its CPDAG, edge probabilities, score versus rank.

Drawn with networkx layouts and matplotlib's Agg canvas directly (no pyplot,
no global backend switch, no Graphviz executable), so they work on a headless
machine and inside other programs.  DAGs are laid out in layers by
topological generation (parents above children); the CPDAG reuses the DAG's
positions so the two pictures can be compared at a glance.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["dag_png", "cpdag_png", "edge_heatmap_png", "score_rank_png", "layered_positions", "BF_LEVELS"]

#: Bayes-factor levels drawn on the score-versus-rank plot (Kass and Raftery's 3, 20, 150 and 1).
BF_LEVELS = (3.0, 20.0, 150.0)


def _figure(width: float, height: float) -> tuple[Any, Any]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig, fig.canvas


def _png(fig: Any, dpi: int) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def layered_positions(names: Sequence[str], parents: Mapping[str, Sequence[str]]) -> dict[str, tuple[float, float]]:
    """Node positions: one row per topological generation, rows top to bottom, order kept within a row."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(names)
    g.add_edges_from((p, c) for c in names for p in parents.get(c, ()))
    order = {v: i for i, v in enumerate(names)}
    pos: dict[str, tuple[float, float]] = {}
    gens = list(nx.topological_generations(g))
    for depth, gen in enumerate(gens):
        row = sorted(gen, key=order.__getitem__)
        width = len(row)
        for j, v in enumerate(row):
            pos[v] = (j - (width - 1) / 2.0, -float(depth))
    return pos


def _draw_graph(ax: Any, names: Sequence[str], pos: Mapping[str, tuple[float, float]],
                arrows: Sequence[tuple[str, str]], lines: Sequence[tuple[str, str]], title: str) -> None:
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(names)
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color="#dbe9f6", edgecolors="#2b5d8a", node_size=1400)
    nx.draw_networkx_labels(g, pos, ax=ax, font_size=9)
    # An edge that skips a layer could pass straight through a node in between: bend it.
    def split(edges: Sequence[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        short = [e for e in edges if abs(pos[e[0]][1] - pos[e[1]][1]) <= 1.0]
        return short, [e for e in edges if e not in short]

    for style, edges, kw in (("arrow", arrows, {"arrowstyle": "-|>", "arrowsize": 16, "edge_color": "#333333",
                                                 "width": 1.4}),
                             ("line", lines, {"arrowstyle": "-", "edge_color": "#c0392b", "width": 1.6,
                                              "style": "dashed"})):
        short, long = split(edges)
        for group, conn in ((short, "arc3,rad=0.0"), (long, "arc3,rad=0.3")):
            if group:
                nx.draw_networkx_edges(g, pos, edgelist=group, ax=ax, arrows=True, node_size=1400,
                                       connectionstyle=conn, **kw)
    ax.set_title(title, fontsize=10)
    ax.set_axis_off()
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)


def _size_for(pos: Mapping[str, tuple[float, float]]) -> tuple[float, float]:
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    return max(4.0, 1.3 * (max(xs) - min(xs) + 2)), max(3.0, 1.2 * (max(ys) - min(ys) + 1.5))


def dag_png(network: Any, *, title: str | None = None, dpi: int = 110) -> bytes:
    """The network as a layered drawing (arrows parent -> child)."""
    pos = layered_positions(network.names, network.parents)
    fig, _ = _figure(*_size_for(pos))
    ax = fig.add_subplot(1, 1, 1)
    label = title or f"best network (score {network.score:.4f})"
    _draw_graph(ax, network.names, pos, network.edges, [], label)
    return _png(fig, dpi)


def cpdag_png(network: Any, *, title: str | None = None, dpi: int = 110) -> bytes:
    """The network's equivalence class: compelled arrows black, reversible edges red and dashed."""
    from ..equivalence import cpdag

    c = cpdag(network.names, network.parents)
    pos = layered_positions(network.names, network.parents)
    fig, _ = _figure(*_size_for(pos))
    ax = fig.add_subplot(1, 1, 1)
    order = {v: i for i, v in enumerate(network.names)}
    arrows = sorted(c.directed, key=lambda e: (order[e[0]], order[e[1]]))
    lines = sorted((tuple(sorted(e, key=order.__getitem__)) for e in c.undirected),
                   key=lambda e: (order[e[0]], order[e[1]]))
    label = title or f"its equivalence class (CPDAG): {len(arrows)} compelled, {len(lines)} reversible"
    _draw_graph(ax, network.names, pos, arrows, lines, label)
    return _png(fig, dpi)


def _heat(ax: Any, fig: Any, mat: np.ndarray, names: Sequence[str], title: str, xlabel: str, ylabel: str) -> None:
    im = ax.imshow(mat, vmin=0.0, vmax=1.0, cmap="viridis")
    n = len(names)
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if n <= 20:
        for i in range(n):
            for j in range(n):
                v = mat[i, j]
                if i != j and v >= 0.005:
                    ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6 if n > 12 else 7,
                            color="white" if v < 0.6 else "black")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)


def edge_heatmap_png(cs: Any, *, dpi: int = 110) -> bytes:
    """Two heat maps over the collection: P(u, v adjacent) and P(u -> v), networks weighted by exp(score - OPT)."""
    e = cs.edge_probabilities()
    a = cs.arrow_probabilities()
    names = list(e.index)
    side = max(4.0, 0.45 * len(names) + 2.5)
    fig, _ = _figure(2 * side + 1, side)
    _heat(fig.add_subplot(1, 2, 1), fig, e.to_numpy(), names, f"edge probability ({len(cs)} networks)", "v", "u")
    _heat(fig.add_subplot(1, 2, 2), fig, a.to_numpy(), names, "arrow probability P(row -> column)", "child",
          "parent")
    return _png(fig, dpi)


def score_rank_png(cs: Any, *, levels: Sequence[float] = BF_LEVELS, dpi: int = 110) -> bytes:
    """Score of each network against its rank, with the thresholds OPT - ln(BF) of several Bayes factors.

    Like Figure 2 of Liao et al. (2019): how many networks lie within each
    Bayes factor of the optimum, and how fast scores fall away from it.
    """
    scores = np.array([n.score for n in cs.networks], dtype=float)
    fig, _ = _figure(7.0, 4.2)
    ax = fig.add_subplot(1, 1, 1)
    if scores.size == 0:
        ax.text(0.5, 0.5, "no networks", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return _png(fig, dpi)
    ranks = np.arange(1, scores.size + 1)
    opt = cs.opt if math.isfinite(cs.opt) else float(scores.max())
    ax.plot(ranks, scores, marker="o", markersize=2.5 if scores.size > 200 else 4, linestyle="-",
            linewidth=0.8, color="#2b5d8a", label="networks, best first")
    if scores.size > 50:
        ax.set_xscale("log")
    bfs = sorted({float(f"{b:.9g}") for b in levels if math.log(b) <= cs.epsilon + 1e-9} | {1.0}
                 | ({float(f"{cs.bayes_factor:.9g}")} if math.isfinite(cs.bayes_factor) else set()))
    colours = ["#27ae60", "#f39c12", "#c0392b", "#8e44ad", "#7f8c8d"]
    for i, bf in enumerate(bfs):
        y = opt - math.log(bf)
        count = int(np.sum(scores >= y - max(cs.tolerance, 1e-9 * max(1.0, abs(opt)))))
        name = "OPT" if bf == 1.0 else f"BF {bf:g}"
        ax.axhline(y, color=colours[i % len(colours)], linestyle="--", linewidth=1.0,
                   label=f"{name}: {count} network{'s' if count != 1 else ''}")
    ax.set_xlabel("rank")
    ax.set_ylabel("score (natural log, higher is better)")
    kind = "k best" if getattr(cs, "kind", "") == "kbest" else f"within Bayes factor {cs.bayes_factor:.4g}"
    ax.set_title(f"{scores.size} networks {kind}", fontsize=10)
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(True, alpha=0.3)
    return _png(fig, dpi)
