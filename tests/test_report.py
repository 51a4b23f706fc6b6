"""The report: equivalence classes with their probability mass, the tie count, timings, labels, formats."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gobnilp_py import Network, enumerate_networks, kbest, learn, read_data
from gobnilp_py.equivalence import class_key
from gobnilp_py.examples import example_path
from gobnilp_py.output.report import (ReportData, class_rows, cpdag_string, render_html, render_markdown, tie_count,
                                      timing_rows)
from gobnilp_py.solve.credible import CredibleSet


@pytest.fixture(scope="module")
def data():
    ds = read_data(example_path("asia"))
    return read_data(ds.codes[:400, :6], names=list(ds.names[:6]))


@pytest.fixture(scope="module")
def cs(data):
    return enumerate_networks(data, bayes_factor=8, score="BDeu", method="ilp")


@pytest.fixture(scope="module")
def capped(data):
    """A class-level collection cut at the network cap: averages still cover every credible network."""
    full = enumerate_networks(data, bayes_factor=8, score="BDeu", method="ilp")
    out = enumerate_networks(data, bayes_factor=8, score="BDeu", max_networks=max(2, len(full) // 3), method="ilp")
    return full, out


def _brute_masses(nets: list[Network]) -> dict[tuple, float]:
    """Oracle: each network weighs exp(score - best); a class's mass is its members' share."""
    best = max(n.score for n in nets)
    w = {}
    for n in nets:
        k = class_key(n.names, n.parents)
        w[k] = w.get(k, 0.0) + math.exp(n.score - best)
    total = sum(w.values())
    return {k: v / total for k, v in w.items()}


def test_class_masses_match_brute_force_and_sum_to_one(cs):
    rows = class_rows(cs, top=None)
    assert len(rows) == cs.n_mecs and [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    assert sum(r["mass"] for r in rows) == pytest.approx(1.0, abs=1e-12)
    assert all(a["mass"] >= b["mass"] for a, b in zip(rows, rows[1:]))
    brute = sorted(_brute_masses(cs.networks).values(), reverse=True)
    np.testing.assert_allclose([r["mass"] for r in rows], brute, rtol=1e-9)
    assert sum(r["networks"] for r in rows) == len(cs)
    assert len(class_rows(cs, top=2)) == min(2, len(rows))


def test_capped_class_level_masses_count_members_beyond_the_cap(capped):
    full, cut = capped
    assert not cut.complete and cut.averages_over == "all credible networks", cut
    rows = class_rows(cut, top=None)
    want = sorted(_brute_masses(full.networks).values(), reverse=True)
    np.testing.assert_allclose([r["mass"] for r in rows], want, rtol=1e-9)
    assert sum(r["networks"] for r in rows) == len(full) > len(cut) == sum(r["listed"] for r in rows)


def test_tie_count(cs, capped, data):
    count, text = tie_count(cs)
    assert count == sum(1 for n in cs.networks if math.isclose(n.score, cs.networks[0].score, rel_tol=1e-9))
    assert text.startswith(f"{count} network") and "at least" not in text
    full, cut = capped
    c2, t2 = tie_count(cut)  # class summaries give the exact count even though the listing was cut
    assert c2 == tie_count(full)[0] and "at least" not in t2 and "equivalence class" in t2
    none, why = tie_count(learn(data, score="BDeu"))
    assert none is None and "not searched" in why
    nets = [Network(("a", "b"), {"b": ("a",)}, -1.0), Network(("a", "b"), {"a": ("b",)}, -1.0)]
    stopped = CredibleSet(-1.0, 1.0, False, "time_limit", nets)
    assert tie_count(stopped) == (2, "at least 2 networks share the best score (the search stopped before it "
                                     "could rule out more)")
    # A k-best list filled by ties may omit more ties past the k-th, unless it keeps every one (stats "ties").
    full_of_ties = CredibleSet(-1.0, 0.0, True, None, nets, kind="kbest", stats={"k": 2})
    assert tie_count(full_of_ties)[1].startswith("at least 2 networks")
    assert tie_count(CredibleSet(-1.0, 0.0, True, None, nets, kind="kbest", stats={"k": 2, "ties": True}))[1] \
        == "2 networks share the best score"
    k2 = kbest(data, 2, score="BDeu")
    assert math.isclose(k2[0].score, k2[1].score, rel_tol=1e-9) and k2.complete
    count, text = tie_count(k2)
    if k2.stats.get("ties"):
        assert count == len(k2) and not text.startswith("at least")
    else:
        assert text.startswith("at least 2 networks")


def _csv_mec_of(result) -> dict[str, int]:
    """model string -> the ``mec`` column of networks.csv (what a reader matches the report against)."""
    import io

    import pandas as pd

    from gobnilp_py.output.writers import networks_csv

    df = pd.read_csv(io.StringIO(networks_csv(result)), comment="#")
    return dict(zip(df["model"], df["mec"]))


def test_class_table_gives_the_mec_index_of_networks_csv():
    """Sorted by probability, each class still shows its networks.csv / result.json index (0 = best by score)."""
    names = ("a", "b", "c")
    collider = Network(names, {"c": ("a", "b")}, -10.0)  # best class, alone in its class
    chains = [Network(names, {"b": ("a",), "c": ("b",)}, -10.1), Network(names, {"a": ("b",), "b": ("c",)}, -10.1),
              Network(names, {"a": ("b",), "c": ("b",)}, -10.1)]  # 3 * exp(-0.1) > 1: the most probable class
    cs3 = CredibleSet(-10.0, 1.0, True, None, [collider, *chains])
    rows = class_rows(cs3, top=None)
    assert [(r["rank"], r["mec"], r["networks"]) for r in rows] == [(1, 1, 3), (2, 0, 1)]
    csv_mec = _csv_mec_of(cs3)
    assert csv_mec[collider.to_modelstring()] == 0 and {csv_mec[n.to_modelstring()] for n in chains} == {1}
    md = render_markdown(_report(cs3), {})
    assert "| 1 | 1 | 73.1% | -10.100000 | 3 | 3 | a--b, b--c |" in md
    assert "| 0 | 2 | 26.9% | -10.000000 | 1 | 1 | a->c, b->c |" in md


def test_class_rows_mec_matches_networks_csv(cs, capped):
    for result in (cs, capped[1]):
        csv_mec = _csv_mec_of(result)
        by_mec = {i: cls for i, cls in enumerate(result.mecs())}
        rows = class_rows(result, top=None)
        for r in rows:
            if r["listed"] == 0:  # a class none of whose networks is listed has no index in the files
                assert r["mec"] is None
                continue
            cls = by_mec[r["mec"]]
            assert cpdag_string(cls.cpdag) == r["cpdag"]
            assert {csv_mec[m.to_modelstring()] for m in cls.members} == {r["mec"]}
        assert sorted(r["mec"] for r in rows if r["mec"] is not None) == list(range(len(result.mecs())))


def test_cpdag_string_marks_compelled_and_reversible_edges():
    from gobnilp_py import cpdag

    assert cpdag_string(cpdag("abcd", {"c": ("a", "b"), "d": ("c",)})) == "a->c, b->c, c->d"
    assert cpdag_string(cpdag("abc", {"b": ("a",), "c": ("b",)})) == "a--b, b--c"


def test_timing_rows_order_parts_and_total():
    rows = timing_rows({"writing": 0.5, "solving": 4.0, "reading": 0.1, "drawing": 3.4},
                       wall=10.0, stats={"time_opt": 1.5, "time_collect": 2.0, "time_nonsense": "x"})
    names = [r[0] for r in rows]
    assert names == ["reading", "solving", "  of which finding OPT", "  of which collecting networks",
                     "drawing pictures", "writing (files before this report)", "not in a phase",
                     "total (wall clock)"]
    assert rows[-1][1:] == ("10.00", "100%") and rows[-2][1] == "2.00"  # 10 - (0.1 + 4 + 3.4 + 0.5)
    assert timing_rows({"a": 1.0, "b": 3.0})[-1] == ("total", "4.00", "100%")
    assert dict((r[0], r[2]) for r in timing_rows({"a": 1.0, "b": 3.0}))["a"] == "25.0%"


def _report(result, **kw) -> ReportData:
    nets = list(getattr(result, "networks", None) or [result])
    return ReportData(title="t", job="enumerate", inputs={"data": "d.csv"}, settings={}, timings={"solving": 1.0},
                      results={}, networks=nets, opt=result.opt if hasattr(result, "opt") else result.score, result=result,
                      **kw)


def test_markdown_report_shows_label_ties_classes_and_notes(cs):
    md = render_markdown(_report(cs, picture_notes={"edge probabilities": "not drawn: too many"}, wall=2.0),
                         {"best network": "best_dag.png"})
    assert f"**{cs.guarantee}**" in md
    count, ties = tie_count(cs)
    assert f"{ties}." in md and "### Best network\n" in md
    assert f"### Equivalence classes ({min(10, cs.n_mecs)} of {cs.n_mecs})" in md
    assert "| mec | rank by probability | probability | score | networks | listed | CPDAG |" in md
    assert "* edge probabilities: not drawn: too many" in md and "![best network](best_dag.png)" in md
    assert "| total (wall clock) | 2.00 | 100% |" in md


def test_incomplete_and_unproven_results_are_labelled():
    nets = [Network(("a", "b"), {"b": ("a",)}, -1.0), Network(("a", "b"), {}, -2.0)]
    stopped = CredibleSet(-1.0, 2.0, False, "max_networks", nets)
    md = render_markdown(_report(stopped), {})
    assert "**INCOMPLETE (max_networks)" in md
    net = Network(("a", "b"), {"b": ("a",)}, -1.0, status="time_limit")
    md = render_markdown(_report(net), {})
    assert "**INCOMPLETE (time_limit)" in md
    assert "ties not searched" in md


def test_html_embeds_png_and_svg_and_links_pdf(cs):
    pics = {"a png": b"\x89PNG\r\n\x1a\n...", "an svg": b"<?xml version='1.0'?>\n<svg></svg>",
            "a pdf": b"%PDF-1.4 ..."}
    page = render_html(_report(cs), pics, {"a pdf": "best_dag.pdf"})
    assert "data:image/png;base64," in page and "data:image/svg+xml;base64," in page
    assert '<a href="best_dag.pdf">best_dag.pdf</a>' in page and "data:application/pdf" not in page
    assert "<h3>Equivalence classes" in page and "<b>complete:" in page
    assert "<code>[" in page  # the best network's model string


def test_report_without_a_result_object_still_renders(cs):
    rd = ReportData(title="t", job="enumerate", inputs={}, settings={}, timings={}, results={},
                    networks=cs.networks, opt=cs.opt)
    md = render_markdown(rd, {})
    assert "### Best network" in md and "Equivalence classes" not in md
