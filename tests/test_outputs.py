"""Writers, pictures, report and all-or-nothing folders, on one small real collection."""

from __future__ import annotations

import json
import math

import pytest

from gobnilp_py import enumerate_networks, learn, read_data
from gobnilp_py.examples import example_path
from gobnilp_py.output import (
    StagedFolder,
    cpdag_png,
    dag_png,
    dot_text,
    edge_heatmap_png,
    gobnilp_text,
    modelstrings,
    networks_csv,
    score_rank_png,
    to_json,
)
from gobnilp_py.output.report import ReportData, render_html, render_markdown

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def data():
    ds = read_data(example_path("asia"))
    return read_data(ds.codes[:400, :5], names=list(ds.names[:5]))


@pytest.fixture(scope="module")
def cs(data):
    return enumerate_networks(data, bayes_factor=5, score="BDeu")


def test_text_writers_agree_with_the_collection(cs):
    assert len(cs) > 3
    csv = networks_csv(cs).splitlines()
    assert csv[0].startswith("# complete: every network with score >= OPT - ")  # every file says what it is worth
    assert csv[1].split(",")[:3] == ["rank", "score", "gap"] and len(csv) == len(cs) + 2
    txt = gobnilp_text(cs)
    assert txt.count("BN score is") == len(cs) and txt.startswith("# complete:") and "\n# network 1 of" in txt
    ms = modelstrings(cs).splitlines()
    assert ms[0].startswith("# complete:") and ms[1:] == [n.to_modelstring() for n in cs.networks]
    dot = dot_text(cs)
    assert dot.startswith("// complete:") and '\ndigraph "best" {' in dot and 'digraph "best_cpdag"' in dot
    for p, c in cs.best.edges:
        assert f'"{p}" -> "{c}"' in dot


def test_json_is_strict_and_round_trips(cs):
    d = json.loads(to_json({"x": math.nan, "y": [1.5, math.inf], "set": cs.to_dict()}))
    assert d["x"] is None and d["y"] == [1.5, None]
    assert d["set"]["n_networks"] == len(cs)


def test_single_network_writers(data):
    net = learn(data, score="BIC")
    assert gobnilp_text(net) == "# complete: proven optimal" + net.guarantee[len("complete: proven optimal"):] + \
        "\n" + net.to_gobnilp_text()
    rows = networks_csv(net).splitlines()
    assert len(rows) == 3 and rows[0].startswith("# complete:") and rows[2].startswith("1,") \
        and rows[2].endswith(",optimal")


@pytest.mark.parametrize("draw", ["dag", "cpdag", "edges", "scores"])
def test_pictures_are_png(cs, draw):
    png = {"dag": lambda: dag_png(cs.best, dpi=40), "cpdag": lambda: cpdag_png(cs.best, dpi=40),
           "edges": lambda: edge_heatmap_png(cs, dpi=40), "scores": lambda: score_rank_png(cs, dpi=40)}[draw]()
    assert len(png) > 1000 and png[:8] == PNG_MAGIC


def test_report_markdown_and_html(cs):
    rd = ReportData(title="t <x>", job="enumerate", inputs={"data": "d.csv"}, settings={"search": {"bayes_factor": 5}},
                    timings={"solving": 1.0}, results={"networks": len(cs)}, networks=cs.networks, opt=cs.opt,
                    edges=[("a", "b", 0.5)], files=["result.json"])
    md = render_markdown(rd, {"best network": "best_dag.png"})
    assert md.startswith("# t <x>") and "![best network](best_dag.png)" in md and "| [search] bayes_factor | 5 |" in md
    html = render_html(rd, {"best network": PNG_MAGIC + b"rest"})
    assert "<title>t &lt;x&gt;</title>" in html and "data:image/png;base64," in html


def test_staged_folder_all_or_nothing(tmp_path):
    dest = tmp_path / "deep" / "out"
    with pytest.raises(RuntimeError):
        with StagedFolder(dest) as f:
            f.write_text("a.txt", "a")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []  # no file, no staging folder, no created parent
    with StagedFolder(dest) as f:
        f.write_text("a.txt", "first")
        f.write_text("old.txt", "stale")
        f.commit()
    with StagedFolder(dest) as f:
        f.write_text("a.txt", "second")
        files = f.commit()
    assert files == [dest / "a.txt"]
    assert (dest / "a.txt").read_text() == "second" and not (dest / "old.txt").exists()  # replaced as a whole
    assert sorted(p.name for p in dest.parent.iterdir()) == ["out"]


def test_staged_folder_refuses_foreign_folder(tmp_path):
    from gobnilp_py.errors import ConfigError

    dest = tmp_path / "mine"
    dest.mkdir()
    (dest / "notes.txt").write_text("keep")
    with pytest.raises(ConfigError):
        with StagedFolder(dest) as f:
            f.write_text("a.txt", "a")
            f.commit()
    assert [p.name for p in dest.iterdir()] == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]
