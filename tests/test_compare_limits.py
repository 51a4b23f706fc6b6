"""``compare`` on a budget (issue 39): a time limit per run by default, runs cut short labelled
INCOMPLETE in the table, the JSON and the plot, larger k skipped after a cut, progress while it runs.

The cut-short runs are made deterministic by standing in for the drivers (a k-best "resolve" that
answers like one stopped by its time limit), so nothing here depends on the machine's speed; one
real run with the real drivers checks the default limit reaches them.
"""

from __future__ import annotations

import inspect
import json
import math

import pytest

import gobnilp_py.solve as solve
from gobnilp_py import ParameterError, example_path
from gobnilp_py.cli import main
from gobnilp_py.compare import DEFAULT_TIME_LIMIT, compare
from gobnilp_py.solve.credible import CredibleSet

REAL_KBEST = solve.kbest


@pytest.fixture
def calls(monkeypatch):
    """Stand-in k-best: "resolve" stops like a run cut short by its time limit (2 networks found)."""
    seen: list[dict] = []

    def fake_kbest(data, k, *, method="auto", by="dag", **kw):
        seen.append({"k": k, "method": method, "by": by, "time_limit": kw.get("time_limit"),
                     "progress": kw.get("progress")})
        if method == "resolve":
            full = REAL_KBEST(data, 2, method="dp", score="BDeu")
            return CredibleSet(full.opt, math.nan, False, "time_limit", list(full.networks[:2]), kind="kbest",
                               stats={"k": k})
        return REAL_KBEST(data, k, method=method, by=by, **kw)

    monkeypatch.setattr(solve, "kbest", fake_kbest)
    return seen


def test_default_time_limit_is_per_run_and_reaches_every_driver(calls):
    assert inspect.signature(compare).parameters["time_limit"].default == DEFAULT_TIME_LIMIT == 10.0
    cmp = compare(example_path("asia"), ks=[2], bayes_factors=[3], methods=["dp"], score="BDeu")
    assert {c["time_limit"] for c in calls} == {DEFAULT_TIME_LIMIT}
    assert cmp.settings["time_limit"] == DEFAULT_TIME_LIMIT and cmp.complete
    assert cmp.guarantee == "complete: all 3 runs finished (10 s per run)"
    assert "time limit per run: 10 s" in cmp.to_markdown()


def test_no_limit_passes_none(calls):
    cmp = compare(example_path("asia"), ks=[2], bayes_factors=[3], methods=["dp"], classes=False,
                  time_limit=None, score="BDeu")
    assert [c["time_limit"] for c in calls] == [None]
    assert "time limit per run: none" in cmp.to_markdown() and "no time limit" in cmp.guarantee


def test_a_run_cut_short_is_labelled_everywhere_and_larger_k_is_skipped(calls, tmp_path, monkeypatch):
    cmp = compare(example_path("asia"), ks=[3, 8], bayes_factors=[3], methods=["resolve", "ilp"], classes=False,
                  score="BDeu")
    # resolve ran at k=3 only: cut short there, k=8 could only take longer
    assert [(c["k"], c["method"]) for c in calls] == [(3, "resolve"), (3, "ilp"), (8, "ilp")]
    rows = {(r.k, r.method): r for r in cmp.kbest.itertuples()}
    cut, skipped = rows[(3, "resolve")], rows[(8, "resolve")]
    assert not cut.complete and cut.note == "INCOMPLETE (time_limit) after 2 networks" and cut.networks == 2
    assert not skipped.complete and math.isnan(skipped.seconds)
    assert skipped.note == "skipped: resolve at k=3 was cut short (time_limit); k=8 could only take longer"
    assert not cmp.complete
    assert cmp.guarantee.startswith("INCOMPLETE: 1 of 5 runs cut short (time_limit; 10 s per run)")
    assert cmp.guarantee.endswith("1 not run after a run cut short")
    md = cmp.to_markdown()
    assert md.splitlines()[2] == cmp.guarantee
    assert "INCOMPLETE (time_limit) |" in md and "| skipped |" in md
    d = json.loads(json.dumps(cmp.to_dict()))
    assert (d["complete"], d["guarantee"], d["runs_cut_short"], d["runs_not_run"]) == (
        False, cmp.guarantee, 1, 1)
    assert [r["complete"] for r in d["kbest"] if r["method"] == "resolve"] == [False, False]
    drawn = {}
    monkeypatch.setattr("gobnilp_py.compare.plot_gaps", lambda *a, **kw: drawn.update(kw))
    cmp.plot(tmp_path / "g.png")
    assert drawn["note"] == cmp.guarantee  # the picture carries the same label


def test_cut_short_list_gives_no_gap_of_the_kth(calls):
    """A gap read off a list cut short is not the k-th's gap: only complete rows fill that column."""
    cmp = compare(example_path("asia"), ks=[3], bayes_factors=[3], methods=["resolve"], classes=False,
                  score="BDeu")
    row = next(line for line in cmp.to_markdown().splitlines() if line.startswith("| 3 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1].endswith(" INCOMPLETE (time_limit)")
    assert cells[2:] == ["2+", "1+", "-", "-"]  # networks and classes found (lower bounds), no k-th gap


def test_an_interrupt_ends_the_comparison_after_its_run(monkeypatch):
    calls = []

    def interrupted(data, k, *, method="auto", **kw):
        calls.append((k, method))
        full = REAL_KBEST(data, 1, method="dp", score="BDeu")
        return CredibleSet(full.opt, math.nan, False, "interrupted", list(full.networks), kind="kbest")

    monkeypatch.setattr(solve, "kbest", interrupted)
    cmp = compare(example_path("asia"), ks=[2, 4], bayes_factors=[3, 20], methods=["dp", "ilp"], score="BDeu")
    assert calls == [(2, "dp")]
    notes = [r.note for r in cmp.kbest.itertuples()][1:] + [r.note for r in cmp.bayes_factor.itertuples()]
    assert notes and set(notes) == {"skipped: the comparison was interrupted"}
    assert cmp.guarantee.startswith("INCOMPLETE: 1 of 8 runs cut short (interrupted; 10 s per run)")
    assert cmp.guarantee.endswith("; 7 not run after a run cut short")


def test_progress_announces_each_run(calls, capsys):
    compare(example_path("asia"), ks=[2], bayes_factors=[3], methods=["dp"], classes=False, score="BDeu",
            progress=True)
    err = capsys.readouterr().err
    assert "[1/2] k=2 dp: the 2 best networks (at most 10 s) ..." in err
    assert "[2/2] BF 3: every network within Bayes factor 3 (at most 10 s) ..." in err
    assert "[2/2] BF 3 done in" in err
    assert all(c["progress"] is not None for c in calls)  # the engines report through it too


def test_silent_by_default(calls, capsys):
    compare(example_path("asia"), ks=[2], bayes_factors=[3], methods=["dp"], classes=False, score="BDeu")
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("kw, msg", [({"time_limit": 0}, "time_limit must be a number > 0"),
                                     ({"time_limit": "ten"}, "time_limit"),
                                     ({"progress": "loud"}, "progress must be")])
def test_bad_limit_or_progress_is_one_line(kw, msg):
    with pytest.raises(ParameterError, match=msg):
        compare(example_path("asia"), ks=[2], bayes_factors=[3], **kw)


# ------------------------------------------------------------------ the command line
def test_cli_default_limit_label_and_stderr_line(calls, capsys):
    code = main(["compare", "example:asia", "-k", "3,8", "--bf", "3", "--score", "BDeu",
                 "--methods", "resolve,ilp", "--no-classes"])
    out, err = capsys.readouterr()
    assert code == 0
    assert {c["time_limit"] for c in calls} == {DEFAULT_TIME_LIMIT}
    assert out.splitlines()[2].startswith("INCOMPLETE: 1 of 5 runs cut short (time_limit; 10 s per run)")
    assert "gobnilp-py: compare: INCOMPLETE: 1 of 5 runs cut short" in err
    assert "--time-limit SECONDS gives each run longer" in err


def test_cli_json_and_files_say_incomplete(calls, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    code = main(["compare", "example:asia", "-k", "3", "--bf", "3", "--score", "BDeu", "--methods", "resolve",
                 "--no-classes", "--json", "-q", "-o", str(tmp_path / "c")])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    printed = json.loads(out)
    written = json.loads((tmp_path / "c" / "compare.json").read_text())
    for d in (printed, written):
        assert d["complete"] is False and d["guarantee"].startswith("INCOMPLETE: 1 of 2 runs cut short")
    assert (tmp_path / "c" / "compare.md").read_text().splitlines()[2] == printed["guarantee"]


def test_cli_time_limit_flags(calls, capsys):
    assert main(["compare", "example:asia", "-k", "2", "--bf", "3", "--methods", "dp", "--no-classes",
                 "--no-time-limit", "-q"]) == 0
    assert main(["compare", "example:asia", "-k", "2", "--bf", "3", "--methods", "dp", "--no-classes",
                 "--time-limit", "3", "-q"]) == 0
    assert [c["time_limit"] for c in calls] == [None, 3.0]
    capsys.readouterr()
    assert main(["compare", "example:asia", "--time-limit", "0"]) == 1
    assert "--time-limit must be a number > 0" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["compare", "example:asia", "--time-limit", "3", "--no-time-limit"])
    assert exc.value.code == 2
