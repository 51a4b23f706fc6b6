"""Figures of networks and collections, drawn with matplotlib: the DAG, its CPDAG, edge probabilities, score by rank.

Drawn on matplotlib's Agg canvas directly (no pyplot, no global backend
switch), so they work on a headless machine, inside other programs and in a
notebook.  Each picture is returned as bytes in the format asked for: PNG
(default), SVG or PDF (:data:`FORMATS`); SVG and PDF are written without
creation dates and with fixed element ids, so the same input gives the same
bytes.  matplotlib is imported only when a figure is drawn, so importing
this module (and ``gobnilp_py``) stays light.

This module sits beside :mod:`gobnilp_py.network` and
:mod:`gobnilp_py.equivalence` (not in the application layer) so that the
value objects can draw themselves (``Network._repr_svg_``,
``CPDAG._repr_svg_``, ``CredibleSet._repr_html_``); it reads them by duck
typing (``names``, ``parents``, ``edges``, ``guarantee``, ...).

Networks are laid out by :func:`gobnilp_py.drawing.layout.layout_dag`:
Graphviz ``dot`` when it is installed, otherwise a built-in layered layout
whose edges never run through nodes.  Either way every arrow ends on its
child's border in a head that points into the child (the layout guarantees
the end tangent; :func:`arrow_heads` reads the drawn heads back for the
tests).  The CPDAG reuses the DAG's layout, so the two pictures can be
compared at a glance, and has a legend for its two kinds of edge.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .layout import LABEL_FONT, Layout, layout_dag

__all__ = [
    "FORMATS",
    "BF_LEVELS",
    "MAX_NODES",
    "drawable",
    "file_suffix",
    "draw_dag",
    "draw_cpdag",
    "draw_edge_probabilities",
    "draw_score_rank",
    "arrow_heads",
]

#: Picture formats: matplotlib's name of each.
FORMATS = ("png", "svg", "pdf")
#: Networks with more variables than this are not drawn (unreadable; the DOT and CSV files hold the same facts).
MAX_NODES = 60
#: Bayes-factor levels drawn on the score-versus-rank plot (Kass and Raftery's 3, 20, 150 and 1).
BF_LEVELS = (3.0, 20.0, 150.0)

ARROW = "#2d2d2d"
REVERSIBLE = "#c0392b"
NODE_FACE = "#dbe9f6"
NODE_EDGE = "#2b5d8a"


# ------------------------------------------------------------------------ basics
def _check_format(format: str) -> str:
    f = str(format).lower().lstrip(".")
    if f not in FORMATS:
        from ..errors import ConfigError

        raise ConfigError(f"The 'format' parameter must be one of {', '.join(FORMATS)}. Got {format!r} instead.")
    return f


def file_suffix(format: str) -> str:
    """The file suffix of a picture format: ``".png"``, ``".svg"`` or ``".pdf"``."""
    return "." + _check_format(format)


def _figure(width: float, height: float, *, constrained: bool = False) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained" if constrained else None)
    FigureCanvasAgg(fig)
    return fig


def _render(fig: Any, format: str, dpi: int) -> bytes:
    """The figure as bytes; SVG/PDF without dates and with fixed ids, so output is reproducible."""
    import matplotlib

    fmt = _check_format(format)
    meta: dict[str, Any] | None = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}.get(fmt)
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "gobnilp-py", "svg.fonttype": "path"}):
        fig.savefig(buf, format=fmt, dpi=dpi, bbox_inches="tight", pad_inches=0.15, metadata=meta)
    return buf.getvalue()


def _n_variables(obj: Any) -> tuple[int, str]:
    if isinstance(obj, (int, np.integer)):
        return int(obj), "the network"
    names = getattr(obj, "names", None)
    if names is None and getattr(obj, "networks", None):
        names = obj.networks[0].names
    if names is None and getattr(obj, "classes", None):
        names = obj.classes[0].cpdag.names
    if names is None:
        names = list(obj)
    what = "the collection" if hasattr(obj, "networks") else "the network"
    return len(names), what


def drawable(obj: Any, *, max_nodes: int = MAX_NODES) -> tuple[bool, str]:
    """Whether a network (or collection, or a variable count) is drawn, and if not, why.

    Returns
    -------
    (bool, str)
        ``(True, "")`` or ``(False, reason)``, the reason being one sentence
        for the report or log, e.g. ``"not drawn: the network has 70
        variables, more than 60 ..."``.

    Examples
    --------
    >>> drawable(8)
    (True, '')
    >>> drawable(61)[0]
    False
    """
    n, what = _n_variables(obj)
    if n == 0:
        return False, f"not drawn: {what} has no variables"
    if n > max_nodes:
        return False, (f"not drawn: {what} has {n} variables, more than {max_nodes} (a picture that large cannot "
                       f"be read; the DOT files and the CSV/JSON outputs hold the same information)")
    return True, ""


_LABEL = re.compile(r"\b(APPROXIMATE|INCOMPLETE \([^)]*\)|INFEASIBLE)")


def _status_prefix(result: Any) -> str:
    """``"INCOMPLETE (reason): "``, ``"APPROXIMATE: "``... for results that are not exact, else ``""``.

    Taken from the result's own ``guarantee`` line when it has one (the words
    every output uses), otherwise from its fields.
    """
    guarantee = getattr(result, "guarantee", None)
    if isinstance(guarantee, str):
        labels = list(dict.fromkeys(_LABEL.findall(guarantee)))
        return ", ".join(labels) + ": " if labels else ""
    parts = []
    if getattr(result, "approximate", False):
        parts.append("APPROXIMATE")
    if getattr(result, "infeasible", False):
        parts.append("INFEASIBLE")
    elif getattr(result, "complete", True) is False:
        parts.append(f"INCOMPLETE ({getattr(result, 'reason', None) or 'stopped early'})")
    status = getattr(result, "status", None)
    if isinstance(status, str) and status not in ("optimal", "feasible") and not hasattr(result, "networks"):
        parts.append(f"INCOMPLETE ({status})")
    return ", ".join(parts) + ": " if parts else ""


# ------------------------------------------------------------------------ networks
def _network_layout(network: Any, engine: str) -> Layout:
    return layout_dag(list(network.names), list(network.edges), engine=engine)


def _route(layout: Layout, u: str, v: str) -> np.ndarray:
    """The control points from ``u`` to ``v``: the layout's route, or its reverse for an edge drawn against it."""
    pts = layout.routes.get((u, v))
    if pts is None:  # a CPDAG edge drawn on the DAG's route, or a pair the layout did not see
        back = layout.routes.get((v, u))
        pts = back[::-1] if back is not None else None
    if pts is None:
        a, b = np.array(layout.pos[u]), np.array(layout.pos[v])
        pts = np.array([a, a + (b - a) / 3, a + 2 * (b - a) / 3, b])
    return pts


def _bezier_middle(pts: np.ndarray) -> np.ndarray:
    """The point half way (in parameter) along a route of cubic segments: where an edge's label goes."""
    k = (len(pts) - 1) // 3
    seg = min(k - 1, k // 2) if k else 0
    p0, p1, p2, p3 = pts[3 * seg:3 * seg + 4]
    t = 0.5 if k % 2 else 0.0
    return (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3


def _draw_network(layout: Layout, arrows: Sequence[tuple[str, str]], lines: Sequence[tuple[str, str]],
                  title: str, legend: bool, *, edge_labels: Mapping[tuple[str, str], str] | None = None) -> Any:
    """A figure of the layout, 1 data unit = 1 inch; ``lines`` are drawn without arrowheads.

    Each edge's patch is labelled ``"_arrow\\t<tail>\\t<head>"`` or
    ``"_line\\t<u>\\t<v>"`` (a leading underscore keeps it out of legends) so
    :func:`arrow_heads` can tell which drawn head belongs to which arrow.
    ``edge_labels`` puts a short text (a probability) half way along an edge.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Ellipse, FancyArrowPatch
    from matplotlib.path import Path

    xmin, xmax, ymin, ymax = layout.bounds()
    margin = 0.2
    width = max(xmax - xmin + 2 * margin, 3.0)
    height = max(ymax - ymin + 2 * margin, 1.0)
    extra = 0.45 + (0.55 if legend else 0.0)  # title and legend, in inches
    fig = _figure(width, height + extra)
    ax = fig.add_axes((0.0, (0.55 if legend else 0.0) / (height + extra), 1.0, height / (height + extra)))
    cx = (xmin + xmax) / 2
    cy = (ymin + ymax) / 2
    ax.set_xlim(cx - width / 2, cx + width / 2)
    ax.set_ylim(cy - height / 2, cy + height / 2)
    ax.set_aspect("equal")
    ax.set_axis_off()

    def path_of(pts: np.ndarray) -> Any:
        codes = [Path.MOVETO] + [Path.CURVE4] * (len(pts) - 1)
        return Path(pts, codes)

    for u, v in lines:
        ax.add_patch(FancyArrowPatch(path=path_of(_route(layout, u, v)), arrowstyle="-", color=REVERSIBLE,
                                     linewidth=1.6, linestyle=(0, (4, 2.5)), zorder=1, label=f"_line\t{u}\t{v}"))
    for u, v in arrows:
        ax.add_patch(FancyArrowPatch(path=path_of(_route(layout, u, v)),
                                     arrowstyle="-|>,head_length=0.45,head_width=0.22", mutation_scale=14,
                                     color=ARROW, linewidth=1.2, shrinkA=0, shrinkB=0, zorder=1,
                                     label=f"_arrow\t{u}\t{v}"))
    for (u, v), text in (edge_labels or {}).items():
        x, y = _bezier_middle(_route(layout, u, v))
        ax.text(x, y, text, ha="center", va="center", fontsize=7, color="#555555", zorder=4,
                bbox={"boxstyle": "round,pad=0.12", "facecolor": "white", "edgecolor": "none", "alpha": 0.85})
    for v, (x, y) in layout.pos.items():
        w, h = layout.size[v]
        ax.add_patch(Ellipse((x, y), w, h, facecolor=NODE_FACE, edgecolor=NODE_EDGE, linewidth=1.1, zorder=2))
        ax.text(x, y, v, ha="center", va="center", fontsize=LABEL_FONT, zorder=3)
    fig.suptitle(title, fontsize=10, y=1.0 - 0.08 / (height + extra), va="top")
    if legend:
        handles = [Line2D([], [], color=ARROW, linewidth=1.4, marker=">", markersize=5, markevery=[1],
                          label="compelled arrow: the same direction in every network of the class"),
                   Line2D([], [], color=REVERSIBLE, linewidth=1.6, linestyle=(0, (4, 2.5)),
                          label="reversible edge: its direction differs between equivalent networks")]
        fig.legend(handles=handles, loc="lower center", fontsize=8, frameon=False, ncol=1,
                   bbox_to_anchor=(0.5, 0.0))
    return fig


def arrow_heads(fig: Any) -> list[tuple[str, str, np.ndarray, np.ndarray]]:
    """The arrowheads a network figure draws: ``(tail, head, tip, base)`` per arrow, in inches (``y`` up).

    ``tip`` is the head's point and ``base`` the middle of its back edge, read
    from the patches matplotlib draws (not from the layout), so a test can
    check what a reader sees: every arrow of a DAG, and every compelled arrow
    of a CPDAG, ends in a head whose tip touches its child and which points
    into it.  An arrow drawn without a head (what happens when the last
    control points coincide) is returned with ``tip`` and ``base`` ``None``;
    undirected edges (``"_line"`` patches) are not returned.
    """
    from matplotlib.path import Path

    out: list[tuple[str, str, Any, Any]] = []
    for ax in fig.axes:
        for patch in ax.patches:
            label = patch.get_label() or ""
            if not label.startswith("_arrow\t"):
                continue
            _, u, v = label.split("\t")
            path = patch.get_path()
            codes = path.codes if path.codes is not None else []
            if len(codes) >= 4 and codes[-1] == Path.CLOSEPOLY and codes[-4] == Path.MOVETO:
                a, tip, b = path.vertices[-4], path.vertices[-3], path.vertices[-2]
                out.append((u, v, np.array(tip, dtype=float), (np.asarray(a) + np.asarray(b)) / 2.0))
            else:
                out.append((u, v, None, None))
    return out


def _score_text(network: Any) -> str:
    s = getattr(network, "score", math.nan)
    return f"score {s:,.4f}" if isinstance(s, float) and math.isfinite(s) else "no score"


def draw_dag(network: Any, *, format: str = "png", dpi: int = 110, title: str | None = None,
             engine: str = "auto") -> bytes:
    """The network as a drawing, arrows from parent to child.

    Parameters
    ----------
    network : Network
    format : {"png", "svg", "pdf"}
    dpi : int
        Resolution of PNG output (and of raster parts of PDF/SVG).
    title : str, optional
        Default: ``"best network (score ...)"``, prefixed by its status when
        it is not proven optimal.
    engine : {"auto", "graphviz", "layered"}
        Layout engine (see :func:`gobnilp_py.drawing.layout.layout_dag`).
    """
    fmt = _check_format(format)
    return _render(_dag_figure(network, title=title, engine=engine), fmt, dpi)


def _dag_figure(network: Any, *, title: str | None = None, engine: str = "auto",
                edge_labels: Mapping[tuple[str, str], str] | None = None) -> Any:
    lay = _network_layout(network, engine)
    label = title or f"{_status_prefix(network)}best network ({_score_text(network)})"
    return _draw_network(lay, list(network.edges), [], label, legend=False, edge_labels=edge_labels)


def _is_cpdag(obj: Any) -> bool:
    return hasattr(obj, "directed") and hasattr(obj, "undirected") and not hasattr(obj, "parents")


def _cpdag_edges(obj: Any) -> tuple[Any, list[tuple[str, str]], list[tuple[str, str]], dict[str, tuple[str, ...]]]:
    """The CPDAG of a network (or a CPDAG itself): (cpdag, arrows, undirected pairs, a member DAG's parents).

    The member DAG is what the picture is laid out by: the network itself,
    or for a CPDAG given alone its first member, whose arrows agree with
    every compelled arrow, so each arrow is drawn along its own route.
    """
    if _is_cpdag(obj):
        c = obj
        parents = next(iter(c.dags(1)))
    else:
        from ..equivalence import cpdag

        c = cpdag(obj.names, obj.parents)
        parents = dict(obj.parents)
    order = {v: i for i, v in enumerate(c.names)}
    arrows = sorted(c.directed, key=lambda e: (order[e[0]], order[e[1]]))
    lines = sorted((tuple(sorted(e, key=order.__getitem__)) for e in c.undirected),
                   key=lambda e: (order[e[0]], order[e[1]]))
    return c, arrows, lines, parents  # type: ignore[return-value]


def draw_cpdag(network: Any, *, format: str = "png", dpi: int = 110, title: str | None = None,
               engine: str = "auto") -> bytes:
    """The network's equivalence class (CPDAG) on the network's layout, with a legend.

    Compelled arrows (the same in every network of the class) are black;
    reversible edges (directed either way within the class) are red and
    dashed.  ``network`` may also be a :class:`~gobnilp_py.equivalence.CPDAG`
    (laid out by one of its member DAGs).
    """
    fmt = _check_format(format)
    return _render(_cpdag_figure(network, title=title, engine=engine), fmt, dpi)


def _cpdag_figure(obj: Any, *, title: str | None = None, engine: str = "auto") -> Any:
    c, arrows, lines, parents = _cpdag_edges(obj)
    names = list(c.names)
    lay = layout_dag(names, [(p, v) for v in names for p in parents.get(v, ())], engine=engine)
    if title is None:
        what = "equivalence class (CPDAG)" if _is_cpdag(obj) else "equivalence class of the best network (CPDAG)"
        title = f"{_status_prefix(obj)}{what}: {len(arrows)} compelled, {len(lines)} reversible"
    return _draw_network(lay, arrows, lines, title, legend=True)


# ------------------------------------------------------------------------ collections
def _tick_font(n: int) -> float:
    return 8.0 if n <= 20 else (7.0 if n <= 40 else 6.0)


def _heat(ax: Any, fig: Any, mat: np.ndarray, names: Sequence[str], title: str, xlabel: str, ylabel: str) -> None:
    import matplotlib

    n = len(names)
    cmap = matplotlib.colormaps["Blues"].with_extremes(bad="#d0d0d0")
    shown = np.ma.masked_array(mat, mask=np.eye(n, dtype=bool))
    im = ax.imshow(shown, vmin=0.0, vmax=1.0, cmap=cmap)
    fs = _tick_font(n)
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    if max((len(x) for x in names), default=0) <= 2:
        ax.set_xticklabels(names, fontsize=fs)
    else:
        ax.set_xticklabels(names, rotation=60, ha="right", rotation_mode="anchor", fontsize=fs)
    ax.set_yticklabels(names, fontsize=fs)
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=9)
    ax.set_title(title, fontsize=10)
    # the cell borders as two line collections, not as minor ticks with a grid: 2 (n + 1) tick objects per
    # axis made the layout measure every one (45 variables: 1.0 of 1.9 s to render the figure)
    edges = np.arange(-0.5, n, 1.0)
    ax.hlines(edges, -0.5, n - 0.5, colors="#eeeeee", linewidths=0.5, zorder=1.5)
    ax.vlines(edges, -0.5, n - 0.5, colors="#eeeeee", linewidths=0.5, zorder=1.5)
    if n <= 20:
        for i in range(n):
            for j in range(n):
                v = mat[i, j]
                if i != j and v >= 0.005:
                    ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6 if n > 12 else 7,
                            color="white" if v > 0.6 else "black")
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cb.set_label("probability", fontsize=8)
    cb.ax.tick_params(labelsize=7)


def draw_edge_probabilities(cs: Any, *, format: str = "png", dpi: int = 110) -> bytes:
    """Two heat maps over the collection: P(two variables adjacent) and P(row -> column).

    Networks are weighted by ``exp(score - OPT)`` (see
    :meth:`~gobnilp_py.solve.credible.CredibleSet.edge_probabilities`); the
    diagonal is grey.  The title says what the average covers and whether the
    collection is complete.
    """
    fmt = _check_format(format)
    return _render(_edge_figure(cs), fmt, dpi)


def _edge_figure(cs: Any) -> Any:
    e = cs.edge_probabilities()
    a = cs.arrow_probabilities()
    names = [str(x) for x in e.index]
    n = len(names)
    side = max(4.0, 0.22 * n + 2.4)
    fig = _figure(2 * side + 1.2, side + 0.6, constrained=True)
    over = getattr(cs, "averages_over", "the listed networks")
    total = getattr(cs, "n_networks_total", None) or len(cs)
    title = f"{_status_prefix(cs)}model-averaged over {over} ({total:,} networks, weights exp(score - OPT))"
    mass = _posterior_mass_text(cs)
    if mass:
        title += "\n" + mass
    fig.suptitle(title, fontsize=10)
    _heat(fig.add_subplot(1, 2, 1), fig, e.to_numpy(), names, "P(adjacent): an edge either way",
          "variable", "variable")
    _heat(fig.add_subplot(1, 2, 2), fig, a.to_numpy(), names, "P(row -> column): the arrow's direction",
          "child (arrow to)", "parent (arrow from)")
    return fig


def _posterior_mass_text(cs: Any) -> str:
    """How much of the posterior over all DAGs the collection holds, once computed: exact, "at least", or none.

    Read from the collection's ``_posterior_mass`` (a ``PosteriorMass``, duck-typed: the drawing layer
    imports nothing of the drivers); empty when it was not computed.
    """
    m = getattr(cs, "_posterior_mass", None)
    if m is None:
        return ""
    if m.value is None:
        return "share of the posterior over all DAGs: no bound available"
    kind = "exact" if m.exact else "a lower bound"
    return f"share of the posterior over all DAGs: {m.text} ({kind})"


class _ScoreFormatter:
    """Plain tick labels with thousands separators and just enough decimals for the tick spacing."""

    def __init__(self, axis: Any) -> None:
        self.axis = axis

    def decimals(self) -> int:
        locs = np.asarray(self.axis.get_majorticklocs(), dtype=float)
        if locs.size < 2:
            return 2
        step = float(np.min(np.diff(np.sort(locs))))
        if step <= 0 or not math.isfinite(step):
            return 2
        return int(min(6, max(0, -math.floor(math.log10(step) + 1e-9))))

    def __call__(self, value: float, pos: Any = None) -> str:
        d = self.decimals()
        text = f"{value:,.{d}f}"
        return "0" if text in ("-0", "-0." + "0" * d) else text.replace("-", "\u2212")


def _bf(bf: float) -> str:
    """A Bayes factor without scientific notation: ``3``, ``20``, ``1.5``, ``197,284``."""
    if not math.isfinite(bf):
        return str(bf)
    return f"{bf:.4g}" if bf < 1000 else f"{bf:,.0f}"


def _plain_score_axis(ax: Any) -> None:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(nbins=8, steps=[1, 2, 2.5, 5, 10]))
    fmt = _ScoreFormatter(ax.yaxis)
    ax.yaxis.set_major_formatter(FuncFormatter(fmt))


#: Cells per axis of the grid :func:`_thinned` keeps one point per: far finer than the picture's pixels.
THIN_CELLS = 4096


def _thinned(ranks: np.ndarray, scores: np.ndarray, *, log_x: bool) -> np.ndarray:
    """Indices of the points to draw: the first point in each cell of a ``THIN_CELLS`` grid over the plot
    (log-scaled ranks when ``log_x``), the last point, and every point while there are few.

    150,000 networks are 150,000 markers on about 800 pixels: most fall on the same spot, and
    matplotlib's ``loc="best"`` legend tests every point each time the figure is laid out (about a
    second).  Points closer than a quarter pixel apart look the same drawn once; the counts in the
    legend come from all the scores.
    """
    n = scores.size
    if n <= 2 * THIN_CELLS:
        return np.arange(n)
    x = np.log(ranks) if log_x else ranks.astype(float)
    lo, hi = float(scores.min()), float(scores.max())
    cx = np.minimum(((x - x[0]) / max(x[-1] - x[0], 1e-300) * THIN_CELLS).astype(np.int64), THIN_CELLS)
    cy = np.minimum(((scores - lo) / max(hi - lo, 1e-300) * THIN_CELLS).astype(np.int64), THIN_CELLS)
    cell = cx * (THIN_CELLS + 1) + cy
    _, first = np.unique(cell, return_index=True)
    return np.union1d(first, [0, n - 1])


def draw_score_rank(cs: Any, *, levels: Sequence[float] = BF_LEVELS, format: str = "png", dpi: int = 110) -> bytes:
    """Score of each network against its rank, with the thresholds OPT - ln(BF) of several Bayes factors.

    Like Figure 2 of Liao et al. (2019): how many networks lie within each
    Bayes factor of the optimum, and how fast scores fall away from it.  The
    score axis shows plain numbers (``-11,783.05``): no offset, no scientific
    notation, so a value can be read off directly.
    """
    fmt = _check_format(format)
    return _render(_score_rank_figure(cs, levels=levels), fmt, dpi)


def _score_rank_figure(cs: Any, *, levels: Sequence[float] = BF_LEVELS) -> Any:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    scores = np.array([n.score for n in cs.networks], dtype=float)
    fig = _figure(7.5, 4.4, constrained=True)
    ax = fig.add_subplot(1, 1, 1)
    if scores.size == 0:
        ax.text(0.5, 0.5, f"{_status_prefix(cs)}no networks", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    ranks = np.arange(1, scores.size + 1)
    opt = cs.opt if math.isfinite(cs.opt) else float(scores.max())
    shown = _thinned(ranks, scores, log_x=scores.size > 50)
    ax.plot(ranks[shown], scores[shown], marker="o", markersize=2.5 if scores.size > 200 else 4, linestyle="-",
            linewidth=0.8, color="#2b5d8a", label="networks, best first", zorder=3)
    if scores.size > 50:
        ax.set_xscale("log")
        ax.set_xlim(0.8, scores.size * 1.25)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
        ax.set_xlim(0.5, scores.size + 0.5)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 and v == round(v) else ""))
    bfs = sorted({float(f"{b:.9g}") for b in levels if math.log(b) <= cs.epsilon + 1e-9} | {1.0}
                 | ({float(f"{cs.bayes_factor:.9g}")} if math.isfinite(cs.bayes_factor) else set()))
    colours = ["#27ae60", "#f39c12", "#c0392b", "#8e44ad", "#7f8c8d"]
    tol = max(getattr(cs, "tolerance", 0.0), 1e-9 * max(1.0, abs(opt)))
    for i, bf in enumerate(bfs):
        y = opt - math.log(bf)
        count = int(np.sum(scores >= y - tol))
        name = "OPT" if bf == 1.0 else f"OPT \u2212 ln {_bf(bf)}"
        ax.axhline(y, color=colours[i % len(colours)], linestyle="--", linewidth=1.0, zorder=2,
                   label=f"{name}: {count:,} listed network{'s' if count != 1 else ''}")
    lo = min(float(scores.min()), opt - math.log(max(bfs)))
    span = max(opt - lo, 1e-6)
    ax.set_ylim(lo - 0.08 * span, opt + 0.12 * span)
    _plain_score_axis(ax)
    ax.set_xlabel("rank (1 = best)" + (", log scale" if scores.size > 50 else ""), fontsize=9)
    ax.set_ylabel("score (natural log; higher is better)", fontsize=9)
    kind = "the k best" if getattr(cs, "kind", "") == "kbest" else f"within Bayes factor {_bf(cs.bayes_factor)} of OPT"
    ax.set_title(f"{_status_prefix(cs)}{scores.size:,} networks {kind}", fontsize=10)
    ax.legend(fontsize=8, loc="best", framealpha=0.9)
    ax.grid(True, alpha=0.3)
    return fig


