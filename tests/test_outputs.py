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
from gobnilp_py.output import writers as W
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
    assert dot.startswith("// complete:") and '\ndigraph "best" {' in dot and dot.count("digraph") == 1
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


# ----------------------------------------------------- every file is labelled
def _labelled_results(cs, data):
    """One result of each kind a run can produce, none of them a complete exact answer."""
    import copy

    from gobnilp_py import Network
    from gobnilp_py.solve.credible import CredibleSet

    cut = CredibleSet(cs.opt, cs.epsilon, False, "max_networks", list(cs.networks[:3]), kind="bayes_factor")
    timed = CredibleSet(cs.opt, cs.epsilon, False, "time_limit", list(cs.networks[:2]), kind="kbest")
    stopped = CredibleSet(cs.opt, cs.epsilon, False, "interrupted", list(cs.networks[:2]))
    try:  # CredibleSet says "infeasible" itself once it has the field; before, it is derived
        empty = CredibleSet(math.nan, cs.epsilon, True, None, [], infeasible=True)
    except TypeError:
        empty = CredibleSet(math.nan, cs.epsilon, True, None, [])
    best = cs.best
    net_time = Network(best.names, best.parents, best.score, status="time_limit", dual_bound=best.score + 1,
                       local_scores=best.local_scores)
    net_int = copy.copy(net_time)
    net_int.status = "interrupted"
    net_approx = Network(best.names, best.parents, best.score, status="feasible", approximate=True)
    net_unknown = Network(best.names, best.parents, best.score, caveats=("the score table's pruning is unknown",))
    net_inf = Network(best.names, {}, -math.inf, status="infeasible")
    return {
        "collection max_networks": (cut, "INCOMPLETE (max_networks)"),
        "kbest time_limit": (timed, "INCOMPLETE (time_limit)"),
        "collection interrupted": (stopped, "INCOMPLETE (interrupted)"),
        "collection infeasible": (empty, "INFEASIBLE"),
        "network time_limit": (net_time, "INCOMPLETE (time_limit)"),
        "network interrupted": (net_int, "INCOMPLETE (interrupted)"),
        "network approximate": (net_approx, "APPROXIMATE"),
        "network unknown table": (net_unknown, "complete: proven optimal"),
        "network infeasible": (net_inf, "INFEASIBLE"),
    }


CASES = ["collection max_networks", "kbest time_limit", "collection interrupted", "collection infeasible",
         "network time_limit", "network interrupted", "network approximate", "network unknown table",
         "network infeasible"]


@pytest.mark.parametrize("case", CASES)
def test_every_writer_says_what_the_result_is_worth(cs, data, case):
    from gobnilp_py.output.writers import collection_summary, guarantee_of, labels

    result, head = _labelled_results(cs, data)[case]
    g = guarantee_of(result)
    assert g.startswith(head)
    head_lines = f"# {g}\n"
    if case == "network unknown table":
        head_lines += "# the score table's pruning is unknown\n"  # a caveat is shown with the guarantee
    assert networks_csv(result).startswith(head_lines)
    assert gobnilp_text(result).startswith(head_lines)
    assert modelstrings(result).startswith(head_lines)
    assert dot_text(result).startswith(head_lines.replace("# ", "// "))
    if W.networks_of(result):  # the hand-off files too: arc strengths, adjacency matrix, BIF
        if hasattr(result, "networks"):
            assert W.arc_strength_csv(result).startswith(head_lines)
        assert W.adjacency_csv(result).startswith(head_lines)
        assert W.bif_text(result, data).startswith(head_lines.replace("# ", "// "))
    lab = labels(result)
    assert lab["caveats"] == (["the score table's pruning is unknown"] if case == "network unknown table" else [])
    assert lab["guarantee"] == g and lab["complete"] is (head.startswith("complete") or head == "INFEASIBLE")
    assert lab["approximate"] is (head == "APPROXIMATE") and lab["infeasible"] is (head == "INFEASIBLE")
    d = json.loads(to_json({**result.to_dict(), **lab}), parse_constant=_refuse)
    assert d["guarantee"] == g
    if hasattr(result, "networks"):
        json.loads(to_json(collection_summary(result)), parse_constant=_refuse)


def _refuse(token):
    raise ValueError(f"non-standard JSON constant {token}")


def test_csv_reads_back_with_pandas_comment(cs):
    import io

    import pandas as pd

    df = pd.read_csv(io.StringIO(networks_csv(cs)), comment="#")
    assert len(df) == len(cs) and list(df.columns[:3]) == ["rank", "score", "gap"]


def test_hand_off_files_carry_the_guarantee_and_still_load(cs, data, tmp_path):
    """arc_strength.csv, best_adjacency.csv and best.bif start with the guarantee, and their readers skip it."""
    import io

    import pandas as pd

    from gobnilp_py import interop
    from gobnilp_py.solve.credible import CredibleSet

    cut = CredibleSet(cs.opt, cs.epsilon, False, "max_networks", list(cs.networks[:3]))
    for result in (cs, cut):
        g = W.guarantee_of(result)
        text = W.arc_strength_csv(result)
        assert text.splitlines()[0] == f"# {g}"
        got = pd.read_csv(io.StringIO(text), comment="#")
        pd.testing.assert_frame_equal(got, pd.read_csv(io.StringIO(interop.arc_strength_csv(result))))
        assert list(got.columns) == ["from", "to", "strength", "direction"]
        text = W.adjacency_csv(result)
        assert text.splitlines()[0] == f"# {g}"
        amat = pd.read_csv(io.StringIO(text), comment="#", index_col=0)
        assert amat.to_numpy().tolist() == interop.adjacency_matrix(result.best).to_numpy().tolist()
        text = W.bif_text(result, data)
        assert text.splitlines()[0] == f"// {g}" and text.isascii()
        assert text.endswith(interop.to_bif(result.best, data))
    assert W.arc_strength_csv(cut).startswith("# INCOMPLETE (max_networks)")
    pytest.importorskip("pgmpy")
    from pgmpy.readwrite import BIFReader

    path = tmp_path / "best.bif"
    path.write_text(W.bif_text(cut, data), encoding="ascii")
    model = BIFReader(str(path)).get_model()
    assert model.check_model() and sorted(model.edges()) == sorted(cut.best.edges)


def test_bif_comment_is_ascii_whatever_the_caveat(cs, data):
    from gobnilp_py.solve.credible import CredibleSet

    odd = CredibleSet(cs.opt, cs.epsilon, True, None, list(cs.networks), caveats=["table from /données/ε.jkl"])
    head = W.bif_text(odd, data).splitlines()[1]
    assert head.startswith("// table from /donn") and head.isascii()


def test_tied_gap_noise_is_written_as_zero(cs):
    """A network tied with OPT up to float noise shows gap 0 and Bayes factor 1 wherever a gap is written."""
    import io

    import pandas as pd

    from gobnilp_py import Network
    from gobnilp_py.output.report import _network_rows
    from gobnilp_py.solve.credible import CredibleSet

    a, b, c = cs.networks[:3]
    opt = -2254.566645450538
    real = 1e-4  # a genuine (small) gap, far above the tolerance 1e-9 * |OPT|
    nets = [Network(a.names, a.parents, opt), Network(b.names, b.parents, opt - 9.094947017729282e-13),
            Network(c.names, c.parents, opt + 4.5e-13), Network(a.names, {}, opt - real)]
    noisy = CredibleSet(opt, 1.0, True, None, nets)
    df = pd.read_csv(io.StringIO(networks_csv(noisy)), comment="#")
    assert df["gap"].tolist()[:3] == [0.0, 0.0, 0.0] and df["bayes_factor"].tolist()[:3] == [1.0, 1.0, 1.0]
    assert df["gap"].iloc[3] == pytest.approx(real, rel=1e-6) and df["bayes_factor"].iloc[3] > 1.0
    assert df["score"].tolist() == pytest.approx([n.score for n in nets], abs=0, rel=1e-9)  # as computed (10 digits)
    assert len(df) == len(nets)
    txt = gobnilp_text(noisy)
    assert txt.count(", gap 0.000000, Bayes factor 1\n") == 3 and "-0.000000" not in txt
    rows = _network_rows(ReportData(title="t", job="enumerate", inputs={}, settings={}, timings={}, results={},
                                    networks=nets, opt=opt))
    assert [r[2] for r in rows[:3]] == ["0.0000"] * 3 and [r[3] for r in rows[:3]] == ["1"] * 3
    assert W.shown_gap(opt, opt - 9.094947017729282e-13) == 0.0 and W.shown_gap(opt, opt - real) == opt - (opt - real)


def test_table_summary_is_labelled(cs):
    from gobnilp_py import ScoreTable
    from gobnilp_py.output.writers import table_summary

    foreign = ScoreTable.from_jkl_text("2\nA 1\n-1.0 0\nB 1\n-2.0 0\n")
    s = json.loads(to_json(table_summary(foreign)), parse_constant=_refuse)
    assert s["guarantee"].startswith("UNKNOWN:") and s["complete"] is False and s["epsilon"] is None


# ----------------------------------------------------------- output folders
def test_rerun_replaces_only_its_own_files(tmp_path):
    from gobnilp_py.errors import OutputError

    dest = tmp_path / "out"
    with StagedFolder(dest) as f:
        f.write_text("a.txt", "first")
        f.commit()
    marker = json.loads((dest / ".gobnilp-run").read_text())
    assert marker["files"] == ["a.txt"]
    (dest / "mine.txt").write_text("the user's")
    with pytest.raises(OutputError, match=r"holds 'mine.txt', which gobnilp-py did not write"):
        with StagedFolder(dest) as f:
            f.write_text("a.txt", "second")
            f.commit()
    assert (dest / "a.txt").read_text() == "first" and (dest / "mine.txt").read_text() == "the user's"
    with StagedFolder(dest, force=True) as f:  # force: write beside the user's file, never delete it
        f.write_text("b.txt", "second")
        f.commit()
    assert sorted(p.name for p in dest.iterdir()) == [".gobnilp-run", "b.txt", "mine.txt"]
    assert json.loads((dest / ".gobnilp-run").read_text())["files"] == ["b.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_force_overwrites_same_named_files_only(tmp_path):
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "summary.json").write_text("the user's summary")
    (dest / "keep.txt").write_text("keep")
    with StagedFolder(dest, force=True) as f:
        f.write_text("summary.json", "{}\n")
        f.commit()
    assert (dest / "summary.json").read_text() == "{}\n" and (dest / "keep.txt").read_text() == "keep"


def test_old_style_marker_vouches_for_known_outputs_only(tmp_path):
    from gobnilp_py.errors import OutputError

    dest = tmp_path / "out"
    dest.mkdir()
    (dest / ".gobnilp-run").write_text("written by gobnilp-py run at some time\n")
    (dest / "result.json").write_text("{}")
    with StagedFolder(dest) as f:  # result.json is one of ours: replaced
        f.write_text("result.json", "[]")
        f.commit()
    (dest / "photo.jpg").write_text("x")
    with pytest.raises(OutputError, match="photo.jpg"):
        with StagedFolder(dest) as f:
            f.commit()


def test_write_failure_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    import errno

    import gobnilp_py.output.folder as folder_mod
    from gobnilp_py.errors import OutputError

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(folder_mod, "atomic_write_bytes", full)
    with pytest.raises(OutputError, match=r"cannot write .*out/a.txt: No space left on device"):
        with StagedFolder(tmp_path / "deep" / "out") as f:
            f.write_text("a.txt", "a")
    assert list(tmp_path.iterdir()) == []


def test_files_get_the_umask_mode(tmp_path):
    import os

    old = os.umask(0o027)
    try:
        with StagedFolder(tmp_path / "out") as f:
            f.write_text("a.txt", "a")
            f.commit()
        from gobnilp_py._io import atomic_write_text

        atomic_write_text(tmp_path / "b.txt", "b")
    finally:
        os.umask(old)
    assert (tmp_path / "out" / "a.txt").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o750
    assert (tmp_path / "b.txt").stat().st_mode & 0o777 == 0o640
    (tmp_path / "b.txt").chmod(0o604)
    atomic_write_text(tmp_path / "b.txt", "c")  # a replaced file keeps its mode
    assert (tmp_path / "b.txt").stat().st_mode & 0o777 == 0o604


def test_check_output_file(tmp_path):
    from gobnilp_py import ScoreTable
    from gobnilp_py.errors import OutputError
    from gobnilp_py.output.folder import check_output_file

    check_output_file(tmp_path / "nodir" / "x.jkl")      # created when written, as output folders are
    (tmp_path / "plain").write_text("x")
    with pytest.raises(OutputError, match="plain is not a folder"):
        check_output_file(tmp_path / "plain" / "x.jkl")
    with pytest.raises(OutputError, match="is a folder"):
        check_output_file(tmp_path)
    theirs = tmp_path / "theirs.jkl"
    theirs.write_text("1\nA 1\n-1 0\n")
    with pytest.raises(OutputError, match="was not written by gobnilp-py"):
        check_output_file(theirs)
    check_output_file(theirs, force=True)
    ours = tmp_path / "ours.jkl"
    ScoreTable(["A"], [[((), -1.0)]]).to_jkl(ours)
    check_output_file(ours)  # ours: may be replaced
    check_output_file(tmp_path / "new.jkl")
