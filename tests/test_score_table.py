"""ScoreTable: construction checks, access by name, and exact .jkl round trips."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py import ScoreError, ScoreTable

# GOBNILP's own scorer's output for wine, shipped with the tests (tests/data/README.md), so the check runs
# in a fresh clone: it used to be looked up in ../shared/reference only and was skipped without it.
REFERENCE = Path(__file__).resolve().parent / "data" / "wine.BIC.3.jkl"


def small_table() -> ScoreTable:
    return ScoreTable(["A", "B", "C"], [
        [((), -10.0), ((1,), -8.5), ((1, 2), -8.0)],
        [((), -5.0), ((2,), -4.0)],
        [((), -3.25)],
    ], score_name="BIC", epsilon=0.0)


def test_access_and_iteration():
    t = small_table()
    assert len(t) == 6
    assert t.n_candidates() == {"A": 3, "B": 2, "C": 1}
    assert t.parent_sets("A")[0] == (("B", "C"), -8.0)
    assert t.local_score("A", ["C", "B"]) == -8.0
    fams = list(t)
    assert fams[0].child == "A" and fams[0].parents == ("B", "C")
    with pytest.raises(ScoreError, match="not a candidate family"):
        t.local_score("A", ["C"])
    with pytest.raises(ScoreError, match="unknown variable 'Z'"):
        t.parent_sets("Z")


@pytest.mark.parametrize("families, pattern", [
    ([[((0,), -1.0)], [((), -1.0)]], r"invalid parent set \(0,\) for variable 'A'"),
    ([[((), -1.0), ((), -2.0)], [((), -1.0)]], r"listed twice"),
    ([[], [((), -1.0)]], r"'A' has no candidate parent set"),
    ([[((), float("nan"))], [((), -1.0)]], r"not a finite number"),
    ([[((5,), -1.0)], [((), -1.0)]], r"invalid parent set"),
])
def test_bad_tables(families, pattern):
    with pytest.raises(ScoreError, match=pattern):
        ScoreTable(["A", "B"], families)


def test_jkl_round_trip_is_exact(tmp_path):
    t = small_table()
    path = tmp_path / "t.jkl"
    t.to_jkl(path)
    back = ScoreTable.from_jkl(path)
    assert back.names == t.names
    assert back.families == t.families
    assert back.epsilon == t.epsilon == 0.0 and back.score_name == "BIC"  # provenance lines round trip


@settings(max_examples=50, derandomize=True, deadline=None)
@given(st.lists(st.floats(min_value=-1e7, max_value=0, allow_nan=False, allow_infinity=False), min_size=4, max_size=4))
def test_jkl_round_trip_random_scores(scores):
    t = ScoreTable(["x", "y"], [[((), scores[0]), ((1,), scores[1])], [((), scores[2]), ((0,), scores[3])]])
    back = ScoreTable.from_jkl_text(t.to_jkl())
    for a, b in zip(t.families, back.families):
        for (pa, sa), (pb, sb) in zip(a, b):
            assert pa == pb and abs(sa - sb) <= 1e-8


def test_reads_gobnilp_reference_file():
    t = ScoreTable.from_jkl(REFERENCE)
    assert t.n == 14 and len(t) == 592
    assert t.parent_sets("0")[0] == (("1", "7"), -89.09382988)
    back = ScoreTable.from_jkl_text(t.to_jkl())
    assert back.families == t.families


@pytest.mark.parametrize("text, pattern", [
    ("", r"file ends early, expected the number of variables"),
    ("2\nA 1\n-1.0 0\n", r"file ends early, expected a 'name count' header"),
    ("1\nA 1\n-1.0 1 B\n", r"parent 'B' of 'A' is not a variable"),
    ("1\nA 1\nx 0\n", r"line 3: score 'x' is not a number"),
    ("1\nA 1\n-1.0 2 B\n", r"line 3: expected 'score m parent1 .. parentm' with m=2"),
    ("1\nA x\n", r"line 2: expected the number of parent sets"),
    ("1\nA 1\n-1.0 0\nextra\n", r"line 4: unexpected text"),
    ("2\nA 1\n-1.0 0\nA 1\n-1.0 0\n", r"duplicate variable names 'A'"),
])
def test_malformed_jkl(text, pattern):
    with pytest.raises(ScoreError, match=pattern):
        ScoreTable.from_jkl_text(text, source="f.jkl")


def test_missing_jkl_file(tmp_path):
    with pytest.raises(ScoreError, match="score file not found"):
        ScoreTable.from_jkl(tmp_path / "none.jkl")


# ------------------------------------------------------------------ provenance
def _scored_table(**kw):
    from gobnilp_py import read_data, score
    from gobnilp_py.examples import example_path

    ds = read_data(example_path("asia"))
    return score(read_data(ds.codes[:300, :5], names=list(ds.names[:5])), **kw)


def test_provenance_round_trip_is_exact(tmp_path):
    t = _scored_table(bayes_factor=3, score="BDeu", ess=2.0)
    path = tmp_path / "t.jkl"
    t.to_jkl(path)
    text = path.read_text()
    assert text.startswith(f"{t.n}\n") and "\n# gobnilp_py score table provenance" in text
    assert "# gobnilp_py: epsilon = " + repr(t.epsilon) in text
    back = ScoreTable.from_jkl(path)
    assert back.families == t.families and back.names == t.names
    assert back.epsilon == t.epsilon and back.score_name == "BDeu"  # exact floats, not rounded
    for key in ("N", "arities", "ess", "palim", "bayes_factor", "prune", "unpruned", "families_scored"):
        assert back.meta[key] == t.meta[key], key
    assert back.pruning == t.pruning and back.meta["source"] == str(path)
    assert back.meta["written_by"].startswith("gobnilp_py ")
    assert back.guarantee == t.guarantee and back.guarantee.startswith("epsilon-safe:")
    assert ScoreTable.from_jkl_text(back.to_jkl()).to_jkl() == back.to_jkl()  # a fixed point


def test_foreign_file_without_provenance_is_unknown():
    t = ScoreTable.from_jkl_text("2\nA 1\n-1.0 0\nB 2\n-2.0 0\n-1.5 1 A\n", source="gob.jkl")
    assert t.epsilon is None and t.score_name is None and t.safe_epsilon is None
    assert t.guarantee.startswith("UNKNOWN:") and not t.is_unpruned
    assert "# gobnilp_py: guarantee = \"unknown\"" in t.to_jkl()  # written back, it stays unknown
    assert ScoreTable.from_jkl_text(t.to_jkl()).epsilon is None


def test_unpruned_and_approximate_tables():
    exact = _scored_table(prune=False, palim=2)
    assert exact.is_unpruned and exact.safe_epsilon == float("inf")
    assert exact.guarantee == "exact: every parent set with at most 2 parents is present (no pruning)"
    back = ScoreTable.from_jkl_text(exact.to_jkl())
    assert back.is_unpruned and back.meta["prune"] is False and back.meta["palim"] == 2
    approx = small_table()
    approx.meta["approximate"] = True
    assert approx.guarantee.startswith("APPROXIMATE:") and approx.safe_epsilon is None
    back = ScoreTable.from_jkl_text(approx.to_jkl())
    assert back.approximate and back.guarantee.startswith("APPROXIMATE:")
    assert '# gobnilp_py: guarantee = "approximate"' in approx.to_jkl()


def test_provenance_lines_follow_the_scores_as_comments():
    """GOBNILP's reader needs the number of variables on the first line and ignores what follows the
    last variable, so the provenance comes after the scores, every line a '#' comment."""
    text = _scored_table(bayes_factor=20).to_jkl()
    lines = text.splitlines()
    assert lines[0] == "5"
    first_comment = next(i for i, ln in enumerate(lines) if ln.startswith("#"))
    assert all(ln.startswith("#") for ln in lines[first_comment:])
    body = [ln for ln in lines if not ln.startswith("#")]
    assert body == lines[:first_comment]


def test_provenance_is_read_wherever_it_stands():
    """Files written before the provenance moved to the end (comments first) still read the same."""
    t = _scored_table(bayes_factor=3)
    lines = t.to_jkl().splitlines()
    first_comment = next(i for i, ln in enumerate(lines) if ln.startswith("#"))
    old_layout = "\n".join(lines[first_comment:] + lines[:first_comment]) + "\n"
    back = ScoreTable.from_jkl_text(old_layout)
    assert back.families == t.families and back.epsilon == t.epsilon and back.pruning == t.pruning
    assert back.to_jkl() == t.to_jkl()


def test_our_jkl_is_recognised_by_its_provenance_block(tmp_path):
    """``score -o`` replaces a .jkl of ours without --force: recognised at the end (or, older, the start)."""
    from gobnilp_py.scoring.table import jkl_written_by_us

    t = _scored_table(bayes_factor=3)
    text = t.to_jkl()
    lines = text.splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.startswith("#"))
    cases = {
        "ours.jkl": text,
        "old-layout.jkl": "\n".join(lines[k:] + lines[:k]) + "\n",
        "long-provenance.jkl": text + "# gobnilp_py: note = \"" + "x" * 300_000 + "\"\n\n",
        "foreign.jkl": "\n".join(lines[:k]) + "\n",
        "foreign-commented.jkl": "\n".join(lines[:k]) + "\n# my notes\n" + "#" * 200_000 + "\n",
        "notes.txt": "my own notes\n",
        "empty.jkl": "",
    }
    for name, body in cases.items():
        (tmp_path / name).write_text(body)
    got = {name: jkl_written_by_us(tmp_path / name) for name in cases}
    assert got == {name: name in ("ours.jkl", "old-layout.jkl", "long-provenance.jkl") for name in cases}
    assert not jkl_written_by_us(tmp_path / "missing.jkl")


def test_the_gobnilp_reference_program_reads_our_jkl(tmp_path):
    """Interoperability, checked with the GOBNILP eBNSL binary of ../shared/tools when it is there."""
    import shutil
    import subprocess

    # ../shared beside the checkout (a git worktree sits one level deeper)
    tool = Path("shared", "tools", "gobnilp-ebnsl", "run_one.sh")
    script = next((q / tool for q in Path(__file__).resolve().parents[2:4] if (q / tool).exists()), Path(tool))
    if not script.exists() or shutil.which("bash") is None:
        pytest.skip("../shared/tools/gobnilp-ebnsl is absent (the GOBNILP reference program)")
    t = _scored_table(bayes_factor=3)
    path = tmp_path / "t.jkl"
    t.to_jkl(path)
    from gobnilp_py import learn

    opt = learn(t).score
    env = {**os.environ, "RESULTS": str(tmp_path / "res"), "OPT_TIMEOUT": "60"}
    out = subprocess.run(["bash", str(script), "--jkl", str(path), "3", "60"], capture_output=True, text=True,
                         env=env, timeout=180)
    fields = out.stdout.split()
    assert out.returncode == 0 and fields[-1] == "ok", out.stdout + out.stderr
    assert int(fields[2]) == sum(len(f) for f in t.families) and float(fields[3]) == pytest.approx(opt, abs=1e-6)


@pytest.mark.parametrize("score", [float("-inf"), -1e20, 1e21, float("inf")])
def test_table_refuses_scores_scip_cannot_hold(score):
    with pytest.raises(ScoreError, match=r"not a finite number with \|score\| < 1e\+20"):
        ScoreTable(["A"], [[((), score)]])


def test_jkl_reading_errors_name_file_and_line(tmp_path):
    (tmp_path / "d.jkl").mkdir()
    with pytest.raises(ScoreError, match=r"d.jkl is a folder"):
        ScoreTable.from_jkl(tmp_path / "d.jkl")
    (tmp_path / "b.jkl").write_bytes(b"1\nA 1\n\x00\x01 0\n")
    with pytest.raises(ScoreError, match=r"b.jkl is not a text file \(binary data at byte 6\)"):
        ScoreTable.from_jkl(tmp_path / "b.jkl")
    with pytest.raises(ScoreError, match=r"line 3: score '-inf' is not a finite number"):
        ScoreTable.from_jkl_text("1\nA 1\n-inf 0\n")
    with pytest.raises(ScoreError, match=r"line 4: score 'B' is not a number; it looks like the next variable's header"):
        ScoreTable.from_jkl_text("2\nA 2\n-1 0\nB 1\n-2 0\n")
    if Path("/dev/zero").exists():
        os.symlink("/dev/zero", tmp_path / "z.jkl")
        with pytest.raises(ScoreError, match="not a regular file"):
            ScoreTable.from_jkl(tmp_path / "z.jkl")


def test_to_jkl_refuses_names_it_cannot_hold():
    with pytest.raises(ScoreError, match=r'variable name "#A" starts with "#"'):
        ScoreTable(["#A"], [[((), -1.0)]]).to_jkl()


def test_from_scoring_equals_the_checked_constructor():
    """The engine's unchecked constructor sorts as the constructor does and still refuses a bad score."""
    fams = [[((), -10.0), ((1,), -8.0), ((1, 2), -8.0), ((2,), -8.0)], [((), -5.0), ((0,), -5.0)], [((), -1.0)]]
    kw = dict(epsilon=0.5, score_name="BIC", pruning={"A": {"dominated": 1}}, meta={"N": 3})
    fast = ScoreTable.from_scoring(["A", "B", "C"], [list(f) for f in fams], **kw)
    slow = ScoreTable(["A", "B", "C"], [list(f) for f in fams], **kw)
    assert fast == slow and fast.families[0][0] == ((1,), -8.0) and fast.index("C") == 2
    with pytest.raises(ScoreError, match="not a finite number"):
        ScoreTable.from_scoring(["A"], [[((), float("nan"))]])
    with pytest.raises(ScoreError, match="no candidate parent set"):
        ScoreTable.from_scoring(["A"], [[]])
