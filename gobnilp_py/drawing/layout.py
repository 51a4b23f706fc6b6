"""Where to put the nodes and edges of a DAG picture: Graphviz ``dot`` when present, a layered layout otherwise.

Both layouts give node centres and, for every arrow, a route (the control
points of a cubic Bézier curve from the tail's border to the head's border),
in inches with ``y`` pointing up, so :mod:`gobnilp_py.drawing.figures` draws
either one the same way.

**Graphviz** (:func:`graphviz_layout`).  Used when the ``dot`` program is on
``PATH`` or pygraphviz is importable.  The graph is sent with anonymous node
ids (``n0``, ``n1``, ...) and the exact node sizes the picture will draw, so
any variable name is safe and the spacing fits the labels; the ``plain``
output (node centres, spline control points) is parsed back.  Any failure
(missing program, time out, unreadable output) logs a warning and falls back
to the layered layout: a picture is never lost because Graphviz misbehaved.

**Layered** (:func:`layered_layout`), the Sugiyama framework (Sugiyama,
Tagawa & Toda 1981; Gansner, Koutsofios, North & Vo 1993, "A technique for
drawing directed graphs", the paper behind ``dot``):

1. *Layers.*  Longest path from the sources, then each node is pulled down
   towards its children while that shortens more edges than it lengthens
   (sources always): a cheap stand-in for dot's network-simplex ranking that
   keeps sources next to their children instead of all in the top row.
2. *Dummy nodes.*  An edge spanning ``k > 1`` layers becomes a chain of
   ``k - 1`` dummy nodes, one per layer it crosses.  Dummies take room in
   their layer like small nodes, so no real node is placed where an edge
   passes: **edges never run through nodes** (between two adjacent layers
   there are no nodes to hit).
3. *Crossing reduction.*  Layer by layer sweeps, down then up, ordering each
   layer by the barycentre of its neighbours in the previous one, each sweep
   followed by the *transpose* heuristic (swap neighbours while that removes
   crossings); the order with fewest crossings over all sweeps is kept.
4. *Coordinates.*  Each layer in turn is moved towards the weighted mean of
   its neighbours' positions (dummy-dummy links weigh most, so long edges
   run straight), keeping the order and the minimum gaps.  That step is an
   exact weighted least-squares fit under ordering constraints, solved by
   the pool-adjacent-violators algorithm after subtracting the cumulative
   gaps (which turns "``x[i+1] >= x[i] + gap``" into "non-decreasing").
5. *Routes.*  Every node sits in the horizontal band of its layer
   (``NODE_HEIGHT`` high); between two bands there are no nodes.  An edge
   leaves its tail at the bottom (ports spread a little, ordered by where
   the edges go), crosses each gap between bands as one cubic Bézier
   segment whose four control points all lie inside that gap (vertical
   tangents at both ends), and crosses the band of each layer it skips as a
   vertical line at its dummy's position, which the coordinates keep clear
   of every node.  A Bézier curve lies in the convex hull of its control
   points, so **no edge can enter a node** it does not start or end at:
   this is a property of the construction, not of a particular picture.

Everything is deterministic: ties are broken by the variables' order.
"""

from __future__ import annotations

import logging
import math
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Layout",
    "node_size",
    "layout_dag",
    "layered_layout",
    "graphviz_layout",
    "graphviz_engine",
    "parse_plain",
    "layout_from_plain",
    "fit_route",
    "count_crossings",
]

log = logging.getLogger(__name__)

#: Font size (points) of node labels; node widths are measured for it.
LABEL_FONT = 9.0
#: Node height (inches) and the horizontal padding around a label.
NODE_HEIGHT = 0.38
_PAD = 0.28
_CHAR = 0.0085 * LABEL_FONT  # average width of a character in inches at LABEL_FONT (DejaVu Sans)
#: Gaps (inches): between two nodes of a layer, next to a dummy, between two dummies; between layers.
NODE_GAP = 0.32
DUMMY_GAP = 0.16
LAYER_GAP = 0.95
_DUMMY_WIDTH = 0.08


@dataclass
class Layout:
    """Node centres, node sizes and edge routes of a DAG drawing, in inches (``y`` up).

    Attributes
    ----------
    pos : dict of name -> (x, y)
        Centre of each node.
    size : dict of name -> (width, height)
        The ellipse drawn for each node.
    routes : dict of (tail, head) -> ndarray of shape (3k + 1, 2)
        Cubic Bézier control points from the tail's border to the head's
        border (``k`` segments).
    engine : str
        ``"dot"``, ``"pygraphviz"`` or ``"layered"``.
    crossings : int or None
        Edge crossings of the layered layout (``None`` for Graphviz).
    layers : dict of name -> int
        Layer of each node (layered layout only).
    """

    pos: dict[str, tuple[float, float]]
    size: dict[str, tuple[float, float]]
    routes: dict[tuple[str, str], np.ndarray]
    engine: str
    crossings: int | None = None
    layers: dict[str, int] = field(default_factory=dict)

    def bounds(self) -> tuple[float, float, float, float]:
        """``(xmin, xmax, ymin, ymax)`` over nodes and routes."""
        xs: list[float] = []
        ys: list[float] = []
        for v, (x, y) in self.pos.items():
            w, h = self.size[v]
            xs += [x - w / 2, x + w / 2]
            ys += [y - h / 2, y + h / 2]
        for pts in self.routes.values():
            xs += pts[:, 0].tolist()
            ys += pts[:, 1].tolist()
        if not xs:
            return 0.0, 1.0, 0.0, 1.0
        return min(xs), max(xs), min(ys), max(ys)


def node_size(label: str) -> tuple[float, float]:
    """Width and height (inches) of the ellipse that holds ``label`` at :data:`LABEL_FONT`."""
    return max(0.5, len(str(label)) * _CHAR * 1.25 + _PAD), NODE_HEIGHT


# ----------------------------------------------------------------------------- dispatch
def graphviz_engine() -> str | None:
    """``"dot"`` when the Graphviz program is on ``PATH``, ``"pygraphviz"`` when importable, else ``None``."""
    if shutil.which("dot"):
        return "dot"
    try:
        import pygraphviz  # noqa: F401
    except ImportError:
        return None
    return "pygraphviz"


def layout_dag(names: Sequence[str], edges: Sequence[tuple[str, str]], *, engine: str = "auto") -> Layout:
    """Lay out a DAG.

    Parameters
    ----------
    names : sequence of str
        Every node (isolated ones too), in the order used to break ties.
    edges : sequence of (tail, head)
        The arrows; they must form a DAG.
    engine : {"auto", "graphviz", "layered"}
        ``"auto"``: Graphviz when present (see :func:`graphviz_engine`), else
        layered.  ``"graphviz"`` without Graphviz also falls back, with a warning.

    Examples
    --------
    >>> lay = layout_dag(["a", "b", "c"], [("a", "b"), ("a", "c"), ("b", "c")], engine="layered")
    >>> [lay.layers[v] for v in "abc"]
    [0, 1, 2]
    """
    if engine not in ("auto", "graphviz", "layered"):
        from ..errors import ConfigError

        raise ConfigError(f"The 'engine' parameter must be 'auto', 'graphviz' or 'layered'. Got {engine!r} instead.")
    if engine != "layered":
        gv = graphviz_engine()
        if gv is not None:
            try:
                return graphviz_layout(names, edges, program=gv)
            except Exception as exc:  # any Graphviz trouble: draw anyway
                log.warning("Graphviz layout failed (%s); using the built-in layered layout", exc)
        elif engine == "graphviz":
            log.warning("Graphviz (the dot program or pygraphviz) is not installed; using the built-in layered layout")
    return layered_layout(names, edges)


# ----------------------------------------------------------------------------- Graphviz
def _dot_for_layout(names: Sequence[str], edges: Sequence[tuple[str, str]]) -> str:
    ids = {v: f"n{i}" for i, v in enumerate(names)}
    lines = ["digraph G {",
             f"  graph [rankdir=TB, nodesep={NODE_GAP:.3f}, ranksep={LAYER_GAP - NODE_HEIGHT:.3f}, splines=true];",
             "  node [shape=ellipse, fixedsize=true, label=\"\"];",
             "  edge [arrowhead=none];"]
    for v in names:
        w, h = node_size(v)
        lines.append(f"  {ids[v]} [width={w:.4f}, height={h:.4f}];")
    lines += [f"  {ids[u]} -> {ids[v]};" for u, v in edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def graphviz_layout(names: Sequence[str], edges: Sequence[tuple[str, str]], *, program: str = "dot",
                    timeout: float = 30.0) -> Layout:
    """Layout by Graphviz ``dot`` (``program="dot"``: the executable; ``"pygraphviz"``: the library).

    Raises
    ------
    RuntimeError, OSError, subprocess.TimeoutExpired
        When Graphviz fails; :func:`layout_dag` catches these and falls back.
    """
    text = _dot_for_layout(names, edges)
    if program == "pygraphviz":
        import pygraphviz

        plain = pygraphviz.AGraph(string=text).draw(format="plain", prog="dot")
        plain = plain.decode("utf-8") if isinstance(plain, bytes) else str(plain)
    else:
        exe = shutil.which(program) or program
        proc = subprocess.run([exe, "-Tplain"], input=text, capture_output=True, text=True, timeout=timeout,
                              check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"{program} exited with code {proc.returncode}: {proc.stderr.strip()[:200]}")
        plain = proc.stdout
    return layout_from_plain(names, edges, plain, engine="pygraphviz" if program == "pygraphviz" else "dot")


def layout_from_plain(names: Sequence[str], edges: Sequence[tuple[str, str]], plain: str, *,
                      engine: str = "dot") -> Layout:
    """The layout Graphviz's ``-Tplain`` text describes, with every route fitted to the drawn nodes.

    ``plain`` is what ``dot -Tplain`` prints for :func:`_dot_for_layout`'s
    graph (nodes ``n0``, ``n1``, ... in ``names`` order).  Graphviz ends each
    spline on *its* node outline (a polygon approximating the ellipse, sizes
    rounded to points, coordinates to 5 digits), which is up to a few
    thousandths of an inch inside or outside the ellipse drawn here.  Each
    route is therefore cut where it first enters its child's ellipse (and
    where it last leaves its parent's), or carried on to the border when it
    stops short (:func:`fit_route`): it then ends on the border, heading
    into the child, and the arrowhead drawn along that last tangent points at
    the child.  (Extending the route by a tiny segment from a point just
    inside the ellipse to the border, as before, gave a tangent pointing
    *out of* the child: the head was drawn backwards and hidden under the
    node, Asia losing 2 of its 7 arrowheads.)

    Raises
    ------
    RuntimeError
        When the text lacks a node.
    """
    ids = {f"n{i}": v for i, v in enumerate(names)}
    centres, routes = parse_plain(plain)
    missing = [k for k in ids if k not in centres]
    if missing:
        raise RuntimeError(f"Graphviz output lacks node {missing[0]}")
    pos = {ids[k]: centres[k] for k in ids}
    size = {v: node_size(v) for v in names}
    index = {v: i for i, v in enumerate(names)}
    out: dict[tuple[str, str], np.ndarray] = {}
    for u, v in edges:
        pts = routes.get((f"n{index[u]}", f"n{index[v]}"))
        fitted = None
        if pts is not None and len(pts) >= 4 and (len(pts) - 1) % 3 == 0:
            fitted = fit_route(pts, pos[u], size[u], pos[v], size[v])
        if fitted is None:  # no usable spline: a straight line between the borders
            log.debug("Graphviz route of %s -> %s unusable; drawing a straight line", u, v)
            fitted = _bezier_through(_clip_ends([np.array(pos[u]), np.array(pos[v])], size[u], size[v]))
        out[(u, v)] = fitted
    return Layout(pos, size, out, engine)


def parse_plain(text: str) -> tuple[dict[str, tuple[float, float]], dict[tuple[str, str], np.ndarray]]:
    """Node centres and edge control points from Graphviz ``-Tplain`` output (inches, y up).

    The format (Graphviz "Output Formats", *plain*)::

        graph scale width height
        node name x y width height label style shape color fillcolor
        edge tail head n x1 y1 ... xn yn [label xl yl] style color
        stop

    Examples
    --------
    >>> c, r = parse_plain("graph 1 2 2\\nnode n0 1 1.5 0.5 0.3 a solid ellipse black lightgrey\\n"
    ...                    "node n1 1 0.5 0.5 0.3 b solid ellipse black lightgrey\\n"
    ...                    "edge n0 n1 4 1 1.35 1 1.1 1 0.9 1 0.65 solid black\\nstop\\n")
    >>> c["n1"], r[("n0", "n1")].shape
    ((1.0, 0.5), (4, 2))
    """
    centres: dict[str, tuple[float, float]] = {}
    routes: dict[tuple[str, str], np.ndarray] = {}
    scale = 1.0
    for line in text.splitlines():
        if not line.strip():
            continue
        tok = shlex.split(line, posix=True)
        kind = tok[0]
        if kind == "graph":
            scale = float(tok[1])
        elif kind == "node":
            centres[tok[1]] = (float(tok[2]) * scale, float(tok[3]) * scale)
        elif kind == "edge":
            n = int(tok[3])
            nums = [float(t) for t in tok[4:4 + 2 * n]]
            routes[(tok[1], tok[2])] = np.array(nums, dtype=float).reshape(n, 2) * scale
        elif kind == "stop":
            break
    return centres, routes


#: A route whose end is this close (inches) to the border is moved onto it; farther, it is carried on by a line.
_SNAP = 0.02
#: The last tangent must point into the child by at least this cosine (about 84 degrees off the border) and
#: be this long (inches): matplotlib draws the head along ``p3 - p2``, so a stub of a few thousandths of an
#: inch would give a head pointing wherever rounding sends it.
_MIN_COS = 0.1
_MIN_TANGENT = 0.01


def _inside(pts: np.ndarray, centre: Sequence[float], size: tuple[float, float]) -> np.ndarray:
    a, b = size[0] / 2, size[1] / 2
    return ((pts[..., 0] - centre[0]) / a) ** 2 + ((pts[..., 1] - centre[1]) / b) ** 2 < 1.0


def _cubic(seg: np.ndarray, t: np.ndarray) -> np.ndarray:
    t = np.asarray(t, dtype=float)[..., None]
    p0, p1, p2, p3 = seg
    return (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3


def _split(seg: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
    """De Casteljau: the two cubic pieces of ``seg`` before and after parameter ``t``."""
    p0, p1, p2, p3 = seg
    a, b, c = p0 + t * (p1 - p0), p1 + t * (p2 - p1), p2 + t * (p3 - p2)
    d, e = a + t * (b - a), b + t * (c - b)
    f = d + t * (e - d)
    return np.array([p0, a, d, f]), np.array([f, e, c, p3])


def _crossing(seg: np.ndarray, t_out: float, t_in: float, centre: Sequence[float],
              size: tuple[float, float]) -> float:
    """The parameter between ``t_out`` (outside the ellipse) and ``t_in`` (inside) where ``seg`` crosses it."""
    for _ in range(50):
        mid = (t_out + t_in) / 2
        if _inside(_cubic(seg, np.array(mid)), centre, size):
            t_in = mid
        else:
            t_out = mid
    return t_out


def _points_in(tangent: np.ndarray, end: np.ndarray, centre: Sequence[float], size: tuple[float, float]) -> bool:
    """Whether ``tangent`` at the border point ``end`` points into the ellipse, clearly and not as a stub."""
    a, b = size[0] / 2, size[1] / 2
    inward = -np.array([(end[0] - centre[0]) / a ** 2, (end[1] - centre[1]) / b ** 2])
    length = float(np.hypot(*tangent))
    if length < _MIN_TANGENT or not np.any(inward):
        return False
    return float(np.dot(tangent, inward)) >= _MIN_COS * length * float(np.hypot(*inward))


def _line(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.array([p, p + (q - p) / 3, p + 2 * (q - p) / 3, q])


def fit_route(pts: np.ndarray, pos_u: Sequence[float], size_u: tuple[float, float], pos_v: Sequence[float],
              size_v: tuple[float, float], samples: int = 64) -> np.ndarray | None:
    """A route (cubic Bézier control points) made to leave the tail's ellipse and end on the head's, heading in.

    * *Head.*  Where the curve first enters the head's ellipse (found on
      ``samples`` points per segment, then by bisection to 2^-50 of a
      segment), the segment is split (de Casteljau) and the rest dropped.
      A curve entering a convex shape crosses its border heading inwards,
      so the last tangent points into the child.  A curve that stops
      short is moved onto the border when within :data:`_SNAP` inches
      (keeping its last tangent), else carried on by a straight segment
      towards the centre.
    * *Tail.*  Likewise, from where the curve last leaves the tail's ellipse.

    Returns ``None`` when no such route exists (overlapping nodes, a curve
    that starts inside the head) or when the last tangent still does not
    point into the child; the caller then draws a straight line, whose end
    always does.

    Examples
    --------
    >>> r = fit_route(np.array([[0, 2.0], [0, 1.5], [0, 0.5], [0, 0.1]]), (0, 2), (0.5, 0.38), (0, 0), (0.5, 0.38))
    >>> [round(float(x), 6) for x in r[0]], [round(float(x), 6) for x in r[-1]]
    ([0.0, 1.81], [0.0, 0.19])
    """
    pts = np.asarray(pts, dtype=float)
    segs = [pts[i:i + 4] for i in range(0, len(pts) - 3, 3)]
    t = np.linspace(0.0, 1.0, samples + 1)
    # head: the first entry into v's ellipse
    cut = None
    for k, seg in enumerate(segs):
        inside = _inside(_cubic(seg, t), pos_v, size_v)
        if inside.any():
            j = int(np.argmax(inside))
            if j == 0:
                if k == 0:
                    return None  # starts inside the head: nothing sensible to draw
                cut = (k, 0.0)
            else:
                cut = (k, _crossing(seg, float(t[j - 1]), float(t[j]), pos_v, size_v))
            break
    if cut is not None:
        k, tc = cut
        segs = segs[:k] + ([_split(segs[k], tc)[0]] if tc > 0 else [])
        if not segs:
            return None
        end = segs[-1][3]
        segs[-1] = segs[-1].copy()
        segs[-1][3] = _border(np.asarray(pos_v, float), end - np.asarray(pos_v, float), size_v)
    else:
        end = segs[-1][3]
        target = _border(np.asarray(pos_v, float), end - np.asarray(pos_v, float), size_v)
        if float(np.hypot(*(target - end))) <= _SNAP:
            segs[-1] = segs[-1].copy()
            segs[-1][3] = target
        else:
            segs.append(_line(end, target))
    # tail: the last exit from u's ellipse
    for k in range(len(segs) - 1, -1, -1):
        inside = _inside(_cubic(segs[k], t), pos_u, size_u)
        if inside.any():
            j = samples - int(np.argmax(inside[::-1]))  # the last sample inside
            if j == samples:
                segs = segs[k + 1:]
            else:
                tc = _crossing(segs[k], float(t[j + 1]), float(t[j]), pos_u, size_u)
                segs = [_split(segs[k], tc)[1]] + segs[k + 1:]
            break
    if not segs:
        return None
    start = segs[0][0]
    origin = _border(np.asarray(pos_u, float), start - np.asarray(pos_u, float), size_u)
    if float(np.hypot(*(origin - start))) <= _SNAP:
        segs[0] = segs[0].copy()
        segs[0][0] = origin
    else:
        segs.insert(0, _line(origin, start))
    out = np.vstack([segs[0]] + [s[1:] for s in segs[1:]])
    if not _points_in(out[-1] - out[-2], out[-1], pos_v, size_v):
        return None
    return out


# ----------------------------------------------------------------------------- layered
def _topological(names: Sequence[str], parents: Mapping[str, list[str]],
                 children: Mapping[str, list[str]]) -> list[str]:
    indeg = {v: len(parents[v]) for v in names}
    ready = [v for v in names if indeg[v] == 0]
    order: list[str] = []
    rank = {v: i for i, v in enumerate(names)}
    while ready:
        ready.sort(key=rank.__getitem__)
        v = ready.pop(0)
        order.append(v)
        for c in children[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    if len(order) != len(names):
        from ..errors import DataError

        raise DataError("cannot lay out: the edges form a directed cycle")
    return order


def _assign_layers(names: Sequence[str], parents: Mapping[str, list[str]],
                   children: Mapping[str, list[str]]) -> dict[str, int]:
    order = _topological(names, parents, children)
    layer = {v: 0 for v in names}
    for v in order:
        for c in children[v]:
            layer[c] = max(layer[c], layer[v] + 1)
    # Pull nodes down towards their children when that shortens more edges than it lengthens.
    for _ in range(len(names)):
        moved = False
        for v in reversed(order):
            if not children[v]:
                continue
            target = min(layer[c] for c in children[v]) - 1
            if target > layer[v] and (not parents[v] or len(children[v]) > len(parents[v])):
                layer[v] = target
                moved = True
        if not moved:
            break
    # Isolated nodes: top layer (they are placed after the others there by the ordering).
    return layer


def count_crossings(upper: Sequence[int], lower: Sequence[int]) -> int:
    """Crossings among straight edges between two layers, given each edge's positions (upper[i], lower[i]).

    Two edges cross when their ends are in opposite orders; edges sharing an
    end do not cross.

    Examples
    --------
    >>> count_crossings([0, 1], [1, 0]), count_crossings([0, 0, 1], [0, 1, 0])
    (1, 1)
    """
    if len(upper) < 2:
        return 0
    a = np.asarray(upper)
    b = np.asarray(lower)
    da = a[:, None] - a[None, :]
    db = b[:, None] - b[None, :]
    return int(np.count_nonzero((da * db) < 0) // 2)


class _Graph:
    """The layered graph with dummies: layers of node ids, and the links between consecutive layers."""

    def __init__(self, names: Sequence[str], edges: Sequence[tuple[str, str]]) -> None:
        self.names = list(names)
        parents: dict[str, list[str]] = {v: [] for v in names}
        children: dict[str, list[str]] = {v: [] for v in names}
        for u, v in edges:
            parents[v].append(u)
            children[u].append(v)
        layer = _assign_layers(names, parents, children)
        self.layer_of = dict(layer)
        n_layers = max(layer.values(), default=0) + 1
        # node ids: 0..n-1 real nodes, then dummies
        self.label: list[str | None] = list(names)
        self.layer: list[int] = [layer[v] for v in names]
        idx = {v: i for i, v in enumerate(names)}
        self.up: list[list[int]] = [[] for _ in names]    # neighbours in the layer above
        self.down: list[list[int]] = [[] for _ in names]  # neighbours in the layer below
        self.chains: dict[tuple[str, str], list[int]] = {}
        for u, v in edges:
            chain = [idx[u]]
            for k in range(layer[u] + 1, layer[v]):
                d = len(self.label)
                self.label.append(None)
                self.layer.append(k)
                self.up.append([])
                self.down.append([])
                chain.append(d)
            chain.append(idx[v])
            for a, b in zip(chain, chain[1:]):
                self.down[a].append(b)
                self.up[b].append(a)
            self.chains[(u, v)] = chain
        self.layers: list[list[int]] = [[] for _ in range(n_layers)]
        for node in self._initial_order(idx, children):
            self.layers[self.layer[node]].append(node)

    def is_dummy(self, node: int) -> bool:
        return self.label[node] is None

    def _initial_order(self, idx: Mapping[str, int], children: Mapping[str, list[str]]) -> list[int]:
        """Depth-first order from the sources (names order): related nodes start close together."""
        seen: set[int] = set()
        out: list[int] = []

        def visit(start: int) -> None:
            stack = [start]
            while stack:
                x = stack.pop()
                if x in seen:
                    continue
                seen.add(x)
                out.append(x)
                stack.extend(reversed(self.down[x]))

        connected = [i for i in range(len(self.names)) if self.up[i] or self.down[i]]
        for i in connected:
            if not self.up[i]:
                visit(i)
        out += [i for i in range(len(self.label)) if i not in seen and (i >= len(self.names) or i in connected)]
        out += [i for i in range(len(self.names)) if i not in seen and i not in connected]  # isolated: last
        return out

    # ----------------------------------------------------------------- crossings
    def crossings(self, layers: list[list[int]]) -> int:
        total = 0
        for k in range(len(layers) - 1):
            pos_u = {x: i for i, x in enumerate(layers[k])}
            pos_l = {x: i for i, x in enumerate(layers[k + 1])}
            ups, lows = [], []
            for x in layers[k]:
                for y in self.down[x]:
                    ups.append(pos_u[x])
                    lows.append(pos_l[y])
            total += count_crossings(ups, lows)
        return total

    def _order_by(self, layer: list[int], ref: list[int], neighbours: list[list[int]]) -> list[int]:
        pos = {x: i for i, x in enumerate(ref)}
        keyed = []
        for i, x in enumerate(layer):
            nb = [pos[y] for y in neighbours[x]]
            bary = float(np.mean(nb)) if nb else None
            keyed.append((bary, i, x))
        # Nodes without neighbours in ref keep their slot; the others are sorted into the remaining slots.
        fixed = {i: x for bary, i, x in keyed if bary is None}
        movable = sorted(((b, i, x) for b, i, x in keyed if b is not None), key=lambda t: (t[0], t[1]))
        out: list[int] = []
        it = iter(movable)
        for i in range(len(layer)):
            out.append(fixed[i] if i in fixed else next(it)[2])
        return out

    def _transpose(self, layers: list[list[int]]) -> None:
        """Swap neighbours within a layer while that removes crossings with the two adjacent layers."""
        for _ in range(20):
            improved = False
            for k, layer in enumerate(layers):
                refs = []
                for nb, r in ((self.up, k - 1), (self.down, k + 1)):
                    if 0 <= r < len(layers):
                        pos = {x: i for i, x in enumerate(layers[r])}
                        refs.append({x: [pos[y] for y in nb[x]] for x in layer})

                def cross(a: int, b: int) -> int:  # crossings between a's and b's edges with a left of b
                    return sum(1 for ref in refs for x in ref[a] for y in ref[b] if x > y)

                for j in range(len(layer) - 1):
                    a, b = layer[j], layer[j + 1]
                    if cross(b, a) < cross(a, b):
                        layer[j], layer[j + 1] = b, a
                        improved = True
            if not improved:
                break

    def _sweeps(self, start: list[list[int]], sweeps: int) -> tuple[list[list[int]], int]:
        best = [list(l) for l in start]
        self._transpose(best)
        best_c = self.crossings(best)
        cur = [list(l) for l in best]
        for it in range(sweeps):
            if best_c == 0:
                break
            if it % 2 == 0:
                for k in range(1, len(cur)):
                    cur[k] = self._order_by(cur[k], cur[k - 1], self.up)
            else:
                for k in range(len(cur) - 2, -1, -1):
                    cur[k] = self._order_by(cur[k], cur[k + 1], self.down)
            self._transpose(cur)
            c = self.crossings(cur)
            if c < best_c:
                best, best_c = [list(l) for l in cur], c
        return best, best_c

    def reduce_crossings(self, sweeps: int = 24, restarts: int = 4) -> int:
        """Fewest crossings found from several starting orders (depth-first, reversed, seeded shuffles)."""
        starts = [self.layers, [list(reversed(l)) for l in self.layers]]
        rng = np.random.default_rng(20240611)
        for _ in range(restarts):
            starts.append([[l[i] for i in rng.permutation(len(l))] for l in self.layers])
        best, best_c = self.layers, None
        for start in starts:
            order, c = self._sweeps(start, sweeps)
            if best_c is None or c < best_c:
                best, best_c = order, c
            if best_c == 0:
                break
        self.layers = best
        return int(best_c or 0)

    # ---------------------------------------------------------------- coordinates
    def width(self, node: int) -> float:
        return _DUMMY_WIDTH if self.is_dummy(node) else node_size(self.label[node] or "")[0]

    def gap(self, a: int, b: int) -> float:
        g = NODE_GAP if not (self.is_dummy(a) or self.is_dummy(b)) else DUMMY_GAP
        return (self.width(a) + self.width(b)) / 2 + g

    def coordinates(self, iterations: int = 12) -> dict[int, float]:
        x: dict[int, float] = {}
        for layer in self.layers:
            cur = 0.0
            for j, node in enumerate(layer):
                if j:
                    cur += self.gap(layer[j - 1], node)
                x[node] = cur
        # centre the layers on each other before straightening
        for layer in self.layers:
            if layer:
                shift = (x[layer[0]] + x[layer[-1]]) / 2
                for node in layer:
                    x[node] -= shift
        for it in range(iterations):
            order = range(len(self.layers)) if it % 2 == 0 else range(len(self.layers) - 1, -1, -1)
            for k in order:
                self._place(self.layers[k], x)
        return x

    def _link_weight(self, a: int, b: int) -> float:
        da, db = self.is_dummy(a), self.is_dummy(b)
        return 8.0 if (da and db) else (2.0 if (da or db) else 1.0)

    def _place(self, layer: list[int], x: dict[int, float]) -> None:
        if not layer:
            return
        want = np.empty(len(layer))
        weight = np.empty(len(layer))
        for j, node in enumerate(layer):
            nb = self.up[node] + self.down[node]
            if nb:
                w = np.array([self._link_weight(node, y) for y in nb])
                want[j] = float(np.dot(w, [x[y] for y in nb]) / w.sum())
                weight[j] = w.sum()
            else:
                want[j] = x[node]
                weight[j] = 0.05
        offsets = np.zeros(len(layer))
        for j in range(1, len(layer)):
            offsets[j] = offsets[j - 1] + self.gap(layer[j - 1], layer[j])
        fit = _isotonic(want - offsets, weight) + offsets
        for j, node in enumerate(layer):
            x[node] = float(fit[j])


def _isotonic(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted least-squares non-decreasing fit (pool adjacent violators)."""
    vals: list[float] = []
    wts: list[float] = []
    counts: list[int] = []
    for yi, wi in zip(y.tolist(), w.tolist()):
        vals.append(yi)
        wts.append(wi)
        counts.append(1)
        while len(vals) > 1 and vals[-2] > vals[-1]:
            wsum = wts[-2] + wts[-1]
            v = (vals[-2] * wts[-2] + vals[-1] * wts[-1]) / wsum
            c = counts[-2] + counts[-1]
            vals[-2:] = [v]
            wts[-2:] = [wsum]
            counts[-2:] = [c]
    return np.repeat(np.array(vals), counts)


def layered_layout(names: Sequence[str], edges: Sequence[tuple[str, str]]) -> Layout:
    """The built-in layered (Sugiyama) layout; see the module docstring for the steps.

    Examples
    --------
    >>> lay = layered_layout(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("a", "c"), ("a", "d")])
    >>> lay.engine, lay.crossings, lay.routes[("a", "c")].shape[1]
    ('layered', 0, 2)
    """
    names = [str(v) for v in names]
    edges = [(str(u), str(v)) for u, v in edges]
    g = _Graph(names, edges)
    crossings = g.reduce_crossings()
    x = g.coordinates()
    if x:
        shift = min(x[node] - g.width(node) / 2 for node in x)
        x = {k: v - shift for k, v in x.items()}
    y = {node: -g.layer[node] * LAYER_GAP for node in range(len(g.label))}
    pos = {v: (x[i], y[i]) for i, v in enumerate(names)}
    size = {v: node_size(v) for v in names}
    routes = _band_routes(g, x, y, size)
    return Layout(pos, size, routes, "layered", crossings=crossings, layers=dict(g.layer_of))


def _ports(g: _Graph, x: Mapping[int, float], size: Mapping[str, tuple[float, float]]
           ) -> tuple[dict[tuple[int, int], float], dict[tuple[int, int], float]]:
    """Horizontal offsets of where each link leaves its upper end and enters its lower end.

    A real node's links are spread over the middle of its bottom (outgoing)
    and top (incoming) side, ordered by the other end's position, so arrows
    into one node do not pile up on one point and do not cross at the node.
    """
    out_off: dict[tuple[int, int], float] = {}
    in_off: dict[tuple[int, int], float] = {}
    for node in range(len(g.label)):
        if g.is_dummy(node):
            continue
        w = size[g.label[node] or ""][0]
        for links, store, key in ((g.down[node], out_off, lambda o: (node, o)), (g.up[node], in_off,
                                                                                  lambda o: (o, node))):
            k = len(links)
            if not k:
                continue
            spread = min(0.25 * w, 0.07 * (k - 1))
            offsets = np.linspace(-spread, spread, k) if k > 1 else np.zeros(1)
            for off, other in zip(offsets, sorted(links, key=lambda o: (x[o], o))):
                store[key(other)] = float(off)
    return out_off, in_off


def _band_routes(g: _Graph, x: Mapping[int, float], y: Mapping[int, float],
                 size: Mapping[str, tuple[float, float]]) -> dict[tuple[str, str], np.ndarray]:
    """Cubic Bézier control points of every edge, kept out of the layer bands except at its own ends and dummies."""
    out_off, in_off = _ports(g, x, size)
    half = NODE_HEIGHT / 2

    def bottom(node: int, nxt: int) -> np.ndarray:
        if g.is_dummy(node):
            return np.array([x[node], y[node] - half])
        w, h = size[g.label[node] or ""]
        dx = out_off[(node, nxt)]
        return np.array([x[node] + dx, y[node] - (h / 2) * math.sqrt(max(0.0, 1 - (2 * dx / w) ** 2))])

    def top(node: int, prev: int) -> np.ndarray:
        if g.is_dummy(node):
            return np.array([x[node], y[node] + half])
        w, h = size[g.label[node] or ""]
        dx = in_off[(prev, node)]
        return np.array([x[node] + dx, y[node] + (h / 2) * math.sqrt(max(0.0, 1 - (2 * dx / w) ** 2))])

    routes: dict[tuple[str, str], np.ndarray] = {}
    for (u, v), chain in g.chains.items():
        pts: list[np.ndarray] = []
        for a, b in zip(chain, chain[1:]):
            p0, p3 = bottom(a, b), top(b, a)
            mid = (p0[1] + p3[1]) / 2
            seg = [p0, np.array([p0[0], mid]), np.array([p3[0], mid]), p3]
            if pts:  # the vertical run through the dummy's own band, from its top to its bottom
                pts += [pts[-1] + (p0 - pts[-1]) / 3, pts[-1] + 2 * (p0 - pts[-1]) / 3, p0]
            else:
                pts.append(p0)
            pts += seg[1:]
        routes[(u, v)] = np.array(pts)
    return routes


# ----------------------------------------------------------------------------- geometry
def _border(centre: np.ndarray, direction: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """Point where the ray from ``centre`` along ``direction`` leaves the node's ellipse."""
    a, b = size[0] / 2, size[1] / 2
    dx, dy = float(direction[0]), float(direction[1])
    norm = math.hypot(dx / a, dy / b)
    if norm == 0:
        return centre.astype(float)
    return centre + np.array([dx, dy]) / norm


def _clip_ends(pts: list[np.ndarray], size_u: tuple[float, float], size_v: tuple[float, float]) -> list[np.ndarray]:
    start = _border(pts[0], pts[1] - pts[0], size_u)
    end = _border(pts[-1], pts[-2] - pts[-1], size_v)
    return [start] + pts[1:-1] + [end]


def _bezier_through(pts: list[np.ndarray]) -> np.ndarray:
    """Cubic Bézier control points of the Catmull-Rom spline through ``pts`` (a straight segment for two)."""
    p = np.array(pts, dtype=float)
    if len(p) == 2:
        return np.array([p[0], p[0] + (p[1] - p[0]) / 3, p[0] + 2 * (p[1] - p[0]) / 3, p[1]])
    out = [p[0]]
    for i in range(len(p) - 1):
        p0 = p[i - 1] if i > 0 else p[i]
        p3 = p[i + 2] if i + 2 < len(p) else p[i + 1]
        out += [p[i] + (p[i + 1] - p0) / 6, p[i + 1] - (p3 - p[i]) / 6, p[i + 1]]
    return np.array(out)
