"""ScoreTable: construction checks, access by name, and exact .jkl round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py import ScoreError, ScoreTable

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "wine.BIC.3.jkl"


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
    if not REFERENCE.is_file():
        pytest.skip("../shared/reference/wine.BIC.3.jkl is absent")
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
