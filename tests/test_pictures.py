"""Pictures and layouts: formats, sizes from 1 to 60 nodes, the skip rule, edges that avoid nodes, Graphviz optional."""

from __future__ import annotations

import json
import logging
import math
import os
import shutil
import stat
import sys
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest
from matplotlib.path import Path as Path_

from gobnilp_py import Network, cpdag, enumerate_networks, read_data
from gobnilp_py.errors import ConfigError
from gobnilp_py.examples import example_path
from gobnilp_py.drawing import figures as F
from gobnilp_py.drawing import layout as L
from gobnilp_py.output import pictures as P
from gobnilp_py.solve.credible import CredibleSet

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-"}


def _is_format(data: bytes, fmt: str) -> bool:
    if fmt == "svg":
        head = data[:400].lstrip()
        return (head.startswith(b"<?xml") or head.startswith(b"<svg")) and b"</svg>" in data[-200:]
    return data.startswith(MAGIC[fmt])


def random_dag(n: int, seed: int, max_parents: int = 3, prefix: str = "v") -> Network:
    rng = np.random.default_rng(seed)
    names = [f"{prefix}{i}" for i in range(n)]
    order = rng.permutation(n)
    parents = {}
    for pos in range(1, n):
        k = int(rng.integers(0, min(max_parents, pos) + 1))
        parents[names[order[pos]]] = tuple(names[order[j]] for j in rng.choice(pos, size=k, replace=False))
    return Network(tuple(names), parents, score=-float(1000 + seed))


@pytest.fixture(scope="module")
def cs():
    ds = read_data(example_path("asia"))
    return enumerate_networks(read_data(ds.codes[:400, :5], names=list(ds.names[:5])), bayes_factor=5, score="BDeu")


def collection_of(nets: list[Network]) -> CredibleSet:
    nets = sorted(nets, key=lambda n: (-n.score, n.key))
    return CredibleSet(nets[0].score, nets[0].score - nets[-1].score, True, None, nets)


# ----------------------------------------------------------------------------- formats
@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
@pytest.mark.parametrize("what", ["dag", "cpdag", "edges", "scores"])
def test_every_picture_in_every_format(cs, what, fmt):
    draw = {"dag": lambda: P.draw_dag(cs.best, format=fmt, dpi=40),
            "cpdag": lambda: P.draw_cpdag(cs.best, format=fmt, dpi=40),
            "edges": lambda: P.draw_edge_probabilities(cs, format=fmt, dpi=40),
            "scores": lambda: P.draw_score_rank(cs, format=fmt, dpi=40)}[what]
    data = draw()
    assert _is_format(data, fmt), data[:40]
    assert len(data) > 2000


def test_svg_and_pdf_are_reproducible(cs):
    for fmt in ("svg", "pdf"):
        assert P.draw_cpdag(cs.best, format=fmt) == P.draw_cpdag(cs.best, format=fmt)


def test_png_size_follows_the_dpi(cs):
    from PIL import Image  # matplotlib depends on pillow
    import io

    small = Image.open(io.BytesIO(P.draw_dag(cs.best, dpi=50))).size
    large = Image.open(io.BytesIO(P.draw_dag(cs.best, dpi=100))).size
    assert abs(large[0] / small[0] - 2.0) < 0.1 and abs(large[1] / small[1] - 2.0) < 0.1


def test_bad_format_is_one_line_error(cs):
    with pytest.raises(ConfigError, match="'format' parameter must be one of png, svg, pdf. Got 'jpg'"):
        P.draw_dag(cs.best, format="jpg")
    assert P.file_suffix("SVG") == ".svg"


@pytest.mark.parametrize("n", [1, 2, pytest.param(60, marks=pytest.mark.slow)])
def test_networks_of_1_2_and_60_nodes_draw(n):
    net = random_dag(n, seed=n)
    for draw in (P.draw_dag, P.draw_cpdag):
        assert _is_format(draw(net, dpi=20), "png")
    other = random_dag(n, seed=n + 100)
    other = Network(net.names, other.parents, score=net.score - 0.5)
    coll = collection_of([net, other])
    assert _is_format(P.draw_edge_probabilities(coll, dpi=20), "png")
    assert _is_format(P.draw_score_rank(coll, dpi=20), "png")


def test_network_without_edges_and_empty_collection_draw():
    net = Network(("a", "b", "c"), {}, score=-1.0)
    assert _is_format(P.draw_cpdag(net, dpi=30), "png")
    empty = CredibleSet(math.nan, 1.0, True, None, [])
    assert _is_format(P.draw_score_rank(empty, dpi=30), "png")


# ----------------------------------------------------------------------------- the skip rule
def test_drawable_says_why_not():
    assert P.drawable(random_dag(60, 1)) == (True, "")
    ok, why = P.drawable(random_dag(61, 1))
    assert not ok and "61 variables" in why and "more than 60" in why
    assert P.drawable(10, max_nodes=8)[0] is False
    assert P.drawable(Network((), {}, score=0.0))[0] is False


def test_draw_pictures_skips_large_networks_with_reasons(caplog):
    big = random_dag(61, 3)
    coll = collection_of([big, Network(big.names, {}, score=big.score - 1)])
    with caplog.at_level(logging.WARNING):
        out = P.draw_pictures(coll, ["dag_png", "cpdag_png", "edges_png", "scores_png"], dpi=20)
    assert set(out.skipped) == {"dag_png", "cpdag_png", "edges_png"}
    assert all("61 variables" in why for why in out.skipped.values())
    assert set(out.images) == {"scores_png"} and out.seconds > 0
    assert "61 variables" in caplog.text
    small = P.draw_pictures(random_dag(5, 2), ["dag_png", "cpdag_png", "edges_png"], format="svg", dpi=20)
    assert set(small.images) == {"dag_png", "cpdag_png"} and small.skipped == {
        "edges_png": "not drawn: the collection is empty"}
    assert all(_is_format(b, "svg") for b in small.images.values())
    with pytest.raises(ConfigError, match="unknown picture"):
        P.draw_pictures(coll, ["nope"])


# ----------------------------------------------------------------------------- the layered layout
def _bezier_points(ctrl: np.ndarray, per_segment: int = 24) -> np.ndarray:
    t = np.linspace(0.0, 1.0, per_segment)[:, None]
    out = []
    for i in range(0, len(ctrl) - 1, 3):
        p0, p1, p2, p3 = ctrl[i:i + 4]
        out.append((1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3)
    return np.vstack(out)


def _edges_through_nodes(lay: L.Layout, shrink: float = 0.9) -> list[tuple[tuple[str, str], str]]:
    """(edge, node) pairs where the drawn curve enters a node other than its two ends."""
    bad = []
    for (u, v), ctrl in lay.routes.items():
        pts = _bezier_points(ctrl)
        for w, (x, y) in lay.pos.items():
            if w in (u, v):
                continue
            a, b = (shrink * s / 2 for s in lay.size[w])
            inside = ((pts[:, 0] - x) / a) ** 2 + ((pts[:, 1] - y) / b) ** 2 < 1.0
            if inside.any():
                bad.append(((u, v), w))
    return bad


@pytest.mark.parametrize("seed", range(12))
def test_layered_layout_never_draws_an_edge_through_a_node(seed):
    net = random_dag(8 + 4 * seed, seed, max_parents=2 + seed % 3)
    lay = L.layered_layout(list(net.names), net.edges)
    assert _edges_through_nodes(lay) == []
    for u, v in net.edges:  # parents above children, curves start and end on the node borders
        assert lay.pos[u][1] > lay.pos[v][1]
        start, end = lay.routes[(u, v)][0], lay.routes[(u, v)][-1]
        for pt, w in ((start, u), (end, v)):
            a, b = (s / 2 for s in lay.size[w])
            assert abs(((pt[0] - lay.pos[w][0]) / a) ** 2 + ((pt[1] - lay.pos[w][1]) / b) ** 2 - 1.0) < 1e-9
    xs = {}  # nodes of one layer do not overlap
    for v, (x, y) in lay.pos.items():
        xs.setdefault(round(y, 6), []).append((x, lay.size[v][0]))
    for row in xs.values():
        row.sort()
        for (x1, w1), (x2, w2) in zip(row, row[1:]):
            assert x2 - x1 >= (w1 + w2) / 2 + L.NODE_GAP - 1e-9


def test_layered_layout_is_deterministic_and_plans_for_a_tree_without_crossings():
    names = [f"n{i}" for i in range(15)]
    tree = [(names[(i - 1) // 2], names[i]) for i in range(1, 15)]
    a = L.layered_layout(names, tree)
    b = L.layered_layout(names, tree)
    assert a.crossings == 0 and a.pos == b.pos
    assert sorted(set(a.layers.values())) == [0, 1, 2, 3]


def test_sources_are_pulled_down_next_to_their_children():
    # a -> b -> c -> d and a source s whose only child is d: s belongs just above d, not in the top row
    lay = L.layered_layout(list("abcds"), [("a", "b"), ("b", "c"), ("c", "d"), ("s", "d")])
    assert lay.layers["s"] == lay.layers["d"] - 1


def test_count_crossings_matches_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(50):
        m = int(rng.integers(0, 12))
        up, low = rng.integers(0, 5, m), rng.integers(0, 5, m)
        brute = sum(1 for i in range(m) for j in range(i + 1, m) if (up[i] - up[j]) * (low[i] - low[j]) < 0)
        assert L.count_crossings(up.tolist(), low.tolist()) == brute


def test_isotonic_fit_matches_scipy():
    from scipy.optimize import isotonic_regression

    rng = np.random.default_rng(7)
    for _ in range(30):
        y = rng.normal(size=int(rng.integers(1, 15)))
        w = rng.uniform(0.1, 3.0, size=y.size)
        np.testing.assert_allclose(L._isotonic(y, w), isotonic_regression(y, weights=w).x, atol=1e-12)


def test_layout_rejects_a_cycle_and_a_bad_engine():
    from gobnilp_py.errors import DataError

    with pytest.raises(DataError, match="cycle"):
        L.layered_layout(["a", "b"], [("a", "b"), ("b", "a")])
    with pytest.raises(ConfigError, match="'engine' parameter"):
        L.layout_dag(["a"], [], engine="neato")


# ----------------------------------------------------------------------------- Graphviz, when present
PLAIN = """graph 1 3 3
node n0 1.5 2.5 0.5 0.38 "" solid ellipse black lightgrey
node n1 1.5 0.5 0.5 0.38 "" solid ellipse black lightgrey
edge n0 n1 4 1.5 2.31 1.5 1.9 1.5 1.3 1.5 0.83 solid black
stop
"""


def _fake_dot(tmp_path, body: str) -> str:
    exe = tmp_path / "dot"
    exe.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return str(tmp_path)


def test_graphviz_dot_program_is_used_when_on_path(tmp_path, monkeypatch):
    folder = _fake_dot(tmp_path, f"""
        import sys
        text = sys.stdin.read()
        assert sys.argv[1:] == ["-Tplain"] and "n0 -> n1" in text and "fixedsize=true" in text
        sys.stdout.write({PLAIN!r})
        """)
    monkeypatch.setenv("PATH", folder + os.pathsep + os.environ.get("PATH", ""))
    assert L.graphviz_engine() == "dot"
    lay = L.layout_dag(["a", "b"], [("a", "b")])
    assert lay.engine == "dot" and lay.pos == {"a": (1.5, 2.5), "b": (1.5, 0.5)}
    route = lay.routes[("a", "b")]
    assert route.shape == (7, 2)  # Graphviz's 4 points, extended to the head's border by one segment
    assert abs(route[-1][1] - (0.5 + L.NODE_HEIGHT / 2)) < 1e-9
    assert _is_format(P.draw_dag(Network(("a", "b"), {"b": ("a",)}, -1.0), dpi=30), "png")


def test_failing_graphviz_falls_back_to_the_layered_layout(tmp_path, monkeypatch, caplog):
    folder = _fake_dot(tmp_path, """
        import sys
        sys.stderr.write("Error: syntax error in line 1")
        sys.exit(1)
        """)
    monkeypatch.setenv("PATH", folder + os.pathsep + os.environ.get("PATH", ""))
    with caplog.at_level(logging.WARNING):
        lay = L.layout_dag(["a", "b"], [("a", "b")])
    assert lay.engine == "layered" and "Graphviz layout failed" in caplog.text and "syntax error" in caplog.text


def test_pygraphviz_is_used_when_importable(monkeypatch):
    monkeypatch.setattr(L.shutil, "which", lambda name: None)
    seen = {}

    class AGraph:
        def __init__(self, string):
            seen["dot"] = string

        def draw(self, format, prog):
            seen["args"] = (format, prog)
            return PLAIN.encode()

    monkeypatch.setitem(sys.modules, "pygraphviz", types.SimpleNamespace(AGraph=AGraph))
    assert L.graphviz_engine() == "pygraphviz"
    lay = L.layout_dag(["a", "b"], [("a", "b")])
    assert lay.engine == "pygraphviz" and seen["args"] == ("plain", "dot") and "n0 -> n1" in seen["dot"]


def test_without_graphviz_the_layered_layout_is_used(monkeypatch, caplog):
    monkeypatch.setattr(L.shutil, "which", lambda name: None)
    monkeypatch.setitem(sys.modules, "pygraphviz", None)  # import fails
    assert L.graphviz_engine() is None
    assert L.layout_dag(["a", "b"], [("a", "b")]).engine == "layered"
    with caplog.at_level(logging.WARNING):
        assert L.layout_dag(["a", "b"], [("a", "b")], engine="graphviz").engine == "layered"
    assert "not installed" in caplog.text


def test_parse_plain_reads_quoted_names_and_scale():
    centres, routes = L.parse_plain('graph 2 1 1\nnode "a b" 0.5 0.25 1 1 "a b" solid ellipse black white\n'
                                    'edge "a b" c 4 0 0 0 1 0 2 0 3 solid black\nstop\n')
    assert centres == {"a b": (1.0, 0.5)} and routes[("a b", "c")][-1].tolist() == [0.0, 6.0]


# ----------------------------------------------------------------------------- arrowheads (issue 39)
RECORDED = json.loads((Path(__file__).parent / "data" / "graphviz_plain.json").read_text())["graphs"]


def _recorded(name: str) -> tuple[list[str], list[tuple[str, str]], str]:
    g = RECORDED[name]
    return g["names"], [tuple(e) for e in g["edges"]], g["plain"]


def _dot_printing(tmp_path, monkeypatch, plain: str) -> None:
    """A fake ``dot`` on PATH that prints a recorded ``-Tplain`` output (so no Graphviz is needed)."""
    folder = _fake_dot(tmp_path, f"""
        import sys
        sys.stdin.read()
        assert sys.argv[1:] == ["-Tplain"]
        sys.stdout.write({plain!r})
        """)
    monkeypatch.setenv("PATH", folder + os.pathsep + os.environ.get("PATH", ""))


def _ellipse_r(p, centre, size) -> float:
    a, b = (s / 2 for s in size)
    return ((p[0] - centre[0]) / a) ** 2 + ((p[1] - centre[1]) / b) ** 2


def _bad_heads(fig, lay: L.Layout, arrows) -> list:
    """Arrows drawn without a head, or whose head does not touch its child, or points elsewhere.

    A good head: its base (the back edge) is outside the child's ellipse, so it is seen; its tip is
    within 0.04 inch of the border (matplotlib pulls the tip back by the line's half width); it
    points into the child (the direction base -> tip makes less than 80 degrees with the inward normal
    of the border where it ends)."""
    heads = {(u, v): (tip, base) for u, v, tip, base in F.arrow_heads(fig)}
    assert set(heads) == set(arrows)
    bad = []
    for (u, v), (tip, base) in sorted(heads.items()):
        if tip is None:
            bad.append((u, v, "no head"))
            continue
        c, size = np.array(lay.pos[v]), lay.size[v]
        d = (tip - base) / np.linalg.norm(tip - base)
        border = L._border(c, tip - c, size)
        inward = -np.array([(border[0] - c[0]) / size[0] ** 2, (border[1] - c[1]) / size[1] ** 2])
        inward /= np.linalg.norm(inward)
        if _ellipse_r(base, c, size) <= 1.0:
            bad.append((u, v, "head hidden under the child"))
        elif np.linalg.norm(tip - border) > 0.04:
            bad.append((u, v, "head does not touch the child"))
        elif float(np.dot(d, inward)) < math.cos(math.radians(80)):
            bad.append((u, v, f"head points away from the child ({float(np.dot(d, inward)):.2f})"))
    return bad


def _routes_end_heading_in(lay: L.Layout) -> list:
    bad = []
    for (u, v), pts in lay.routes.items():
        for pt, w in ((pts[0], u), (pts[-1], v)):
            if abs(_ellipse_r(pt, lay.pos[w], lay.size[w]) - 1.0) > 1e-6:
                bad.append((u, v, f"does not end on {w}'s border"))
        if not L._points_in(pts[-1] - pts[-2], pts[-1], lay.pos[v], lay.size[v]):
            bad.append((u, v, "last tangent does not point into the child"))
    return bad


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_recorded_dot_layout_draws_every_arrowhead_pointing_at_its_child(name, tmp_path, monkeypatch):
    """Asia lost lung->either and either->dysp with dot on PATH: routes ended in a backward stub."""
    names, edges, plain = _recorded(name)
    _dot_printing(tmp_path, monkeypatch, plain)
    net = Network.from_edges(names, edges, score=-1.0)
    lay = L.layout_dag(names, edges)
    assert lay.engine == "dot"
    assert _routes_end_heading_in(lay) == []
    assert _bad_heads(P._dag_figure(net), lay, edges) == []
    fig = P._cpdag_figure(net)
    g = cpdag(net)
    assert _bad_heads(fig, lay, sorted(g.directed)) == []
    lines = [p for p in fig.axes[0].patches if (p.get_label() or "").startswith("_line\t")]
    assert len(lines) == len(g.undirected)
    assert all(Path_.CLOSEPOLY not in (p.get_path().codes if p.get_path().codes is not None else [])
               for p in lines)  # undirected edges carry no head


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_layered_layout_draws_every_arrowhead_pointing_at_its_child(name):
    names, edges, _ = _recorded(name)
    net = Network.from_edges(names, edges, score=-1.0)
    lay = L.layered_layout(names, edges)
    assert _routes_end_heading_in(lay) == []
    assert _bad_heads(P._dag_figure(net, engine="layered"), lay, edges) == []
    assert _bad_heads(P._cpdag_figure(net, engine="layered"), lay, sorted(cpdag(net).directed)) == []


def test_asia_cpdag_draws_its_compelled_v_structure_with_heads(tmp_path, monkeypatch):
    """The picture agrees with its legend: tub -> either <- lung and either -> dysp <- bronc are arrows."""
    names, edges, plain = _recorded("asia")
    _dot_printing(tmp_path, monkeypatch, plain)
    heads = {(u, v): tip for u, v, tip, _ in F.arrow_heads(P._cpdag_figure(Network.from_edges(names, edges, -1.0)))}
    for arrow in (("tub", "either"), ("lung", "either"), ("either", "dysp"), ("bronc", "dysp")):
        assert heads[arrow] is not None, arrow


def test_fit_route_cuts_a_route_that_ends_inside_the_child():
    """Graphviz's end a little inside our ellipse: cut where the curve enters, not a stub back out."""
    size = (0.5, 0.38)
    inside_end = np.array([[0.0, 2.0], [0.0, 1.6], [0.0, 0.6], [0.05, 0.15]])  # ends inside the child at (0, 0)
    r = L.fit_route(inside_end, (0, 2.2), size, (0, 0), size)
    assert abs(_ellipse_r(r[-1], (0, 0), size) - 1) < 1e-9 and L._points_in(r[-1] - r[-2], r[-1], (0, 0), size)
    short = np.array([[0.0, 2.0], [0.0, 1.6], [0.0, 0.6], [0.0, 0.2]])  # 0.01 short of the border: snapped
    r = L.fit_route(short, (0, 2.2), size, (0, 0), size)
    assert r.shape == (4, 2) and abs(r[-1][1] - 0.19) < 1e-12
    assert L.fit_route(np.array([[0, 0.1], [0, 0.5], [0, 1.0], [0, 1.5]]), (0, 2), size, (0, 0), size) is None


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("seed", range(6))
def test_real_dot_draws_every_arrowhead_pointing_at_its_child(seed):
    net = random_dag(10 + 5 * seed, seed, max_parents=2 + seed % 3)
    lay = L.layout_dag(list(net.names), net.edges, engine="graphviz")
    assert lay.engine == "dot"
    assert _routes_end_heading_in(lay) == []
    assert _bad_heads(P._dag_figure(net, engine="graphviz"), lay, net.edges) == []


# ----------------------------------------------------------------------------- axes and labels
def test_score_axis_has_no_offset_and_plain_numbers():
    nets = [Network(("a", "b"), {"b": ("a",)}, -11783.0524), Network(("a", "b"), {}, -11784.0208),
            Network(("a", "b"), {"a": ("b",)}, -11783.0524)]
    coll = collection_of(nets)
    fig = P._score_rank_figure(coll)
    fig.canvas.draw()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert ax.yaxis.get_offset_text().get_text() == ""
    assert labels and all("e" not in s and "," in s and s.startswith("\u221211,78") for s in labels), labels
    assert ax.get_ylabel().startswith("score") and ax.get_xlabel().startswith("rank")
    lo, hi = ax.get_xlim()
    ranks = [t.get_text() for t in ax.get_xticklabels() if t.get_text() and lo <= t.get_position()[0] <= hi]
    assert ranks == sorted(set(ranks), key=ranks.index) and set(ranks) <= {"1", "2", "3"}, ranks
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("OPT: 2 listed networks") for t in legend)


def test_heat_map_axes_name_the_variables(cs):
    fig = P._edge_figure(cs)
    left, right = fig.axes[0], fig.axes[2]  # axes 1 and 3 are the colour bars
    names = list(cs.edge_probabilities().index)
    assert [t.get_text() for t in left.get_xticklabels()] == names
    assert [t.get_text() for t in right.get_yticklabels()] == names
    assert (left.get_xlabel(), left.get_ylabel()) == ("variable", "variable")
    assert (right.get_xlabel(), right.get_ylabel()) == ("child (arrow to)", "parent (arrow from)")


def test_cpdag_picture_has_a_legend_for_both_kinds_of_edge(cs):
    fig = P._cpdag_figure(cs.best)
    texts = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert any(t.startswith("compelled arrow") for t in texts) and any(t.startswith("reversible edge") for t in texts)


def test_incomplete_results_say_so_in_their_titles():
    nets = [Network(("a", "b"), {"b": ("a",)}, -10.0), Network(("a", "b"), {}, -11.0)]
    coll = CredibleSet(-10.0, 2.0, False, "max_networks", nets)
    fig = P._score_rank_figure(coll)
    assert fig.axes[0].get_title().startswith("INCOMPLETE (max_networks): ")
    stopped = Network(("a", "b"), {"b": ("a",)}, -10.0, status="time_limit")
    assert P._dag_figure(stopped)._suptitle.get_text().startswith("INCOMPLETE (time_limit): ")


# ----------------------------------------------------------------------------- DOT
def test_one_graph_per_dot_file(cs):
    files = P.dot_files(cs)
    assert set(files) == {"best.dot", "best_cpdag.dot"}
    for text in files.values():
        assert text.count("digraph ") == 1 and text.count("{") == text.count("}")
        assert text.startswith(f"// {cs.notes[0]}\n")
    dag, cp = files["best.dot"], files["best_cpdag.dot"]
    for p, c in cs.best.edges:
        assert f'"{p}" -> "{c}";' in dag
    from gobnilp_py import cpdag

    g = cpdag(cs.best.names, cs.best.parents)
    assert cp.count("dir=none, style=dashed") == len(g.undirected) + 1  # plus the legend's sample edge
    for u, v in g.directed:
        assert f'"{u}" -> "{v}";' in cp
    assert "compelled arrow" in cp and "reversible edge" in cp


def test_dot_quotes_any_name_and_handles_no_network():
    net = Network(('say "hi"', "back\\slash"), {"back\\slash": ('say "hi"',)}, -1.0)
    text = P.dag_dot(net)
    assert '"say \\"hi\\"" -> "back\\\\slash";' in text
    empty = P.dot_files(CredibleSet(math.nan, 1.0, True, None, []))
    assert all("no network" in t and t.count("digraph") == 1 for t in empty.values())


# ------------------------------------------------------------------ score against rank: many networks
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60)
@given(n=st.integers(1, 40_000), seed=st.integers(0, 2**32 - 1), cells=st.sampled_from([4, 64, 4096]),
       log_x=st.booleans(), ties=st.booleans())
def test_thinned_points_stand_for_every_point(n, seed, cells, log_x, ties):
    """Every point dropped shares its grid cell with a point drawn; the first and last are drawn; few
    points are all drawn; a monotone curve keeps at most two points per cell row and column."""
    rng = np.random.default_rng(seed)
    raw = rng.gamma(2.0, 0.5, n)
    if ties:
        raw = np.round(raw, 1)
    scores = -100.0 - np.sort(raw)
    ranks = np.arange(1, n + 1)
    old = F.THIN_CELLS
    F.THIN_CELLS = cells
    try:
        kept = F._thinned(ranks, scores, log_x=log_x)
    finally:
        F.THIN_CELLS = old
    assert kept[0] == 0 and kept[-1] == n - 1 and np.all(np.diff(kept) > 0)
    if n <= 2 * cells:
        assert kept.tolist() == list(range(n))
        return
    x = np.log(ranks) if log_x else ranks.astype(float)
    cx = np.minimum(((x - x[0]) / max(x[-1] - x[0], 1e-300) * cells).astype(np.int64), cells)
    cy = np.minimum(((scores - scores.min()) / max(np.ptp(scores), 1e-300) * cells).astype(np.int64), cells)
    cell = cx * (cells + 1) + cy
    assert set(cell.tolist()) == set(cell[kept].tolist())
    assert kept.size <= 2 * (cells + 1) + 1


def test_score_rank_of_150000_networks_draws_few_points_and_counts_them_all():
    scores = -1000.0 - np.sort(np.random.default_rng(0).gamma(2.0, 0.5, 150_000))
    scores[0] = -1000.0
    cs = types.SimpleNamespace(networks=[types.SimpleNamespace(score=float(s)) for s in scores], opt=-1000.0,
                               epsilon=math.log(150), bayes_factor=150.0, kind="epsilon", tolerance=0.0)
    fig = F._score_rank_figure(cs)
    (ax,) = fig.axes
    line = ax.lines[0]
    assert 100 < len(line.get_xdata()) <= 2 * (F.THIN_CELLS + 1) + 1
    assert line.get_xdata()[0] == 1 and line.get_xdata()[-1] == 150_000
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert f"OPT \u2212 ln 150: {int(np.sum(scores >= -1000.0 - math.log(150) - 1e-6)):,} listed networks" in labels
