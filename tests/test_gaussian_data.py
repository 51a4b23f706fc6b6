"""Continuous data for the Gaussian scores: what is accepted, and one-line errors naming the columns for the rest."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gobnilp_py.data.continuous import ContinuousData, as_continuous, check_full_rank
from gobnilp_py.errors import DataError
from gobnilp_py.scoring.gaussian import gaussian_score_table


def _frame(n_rows: int = 50, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n_rows, 3)), columns=["A", "B", "C"])


def test_moments_are_the_sample_mean_and_scatter():
    df = _frame()
    d = as_continuous(df)
    assert d.names == ("A", "B", "C") and d.N == 50 and d.n == 3 and d.source == "<DataFrame>"
    np.testing.assert_allclose(d.mean, df.to_numpy().mean(axis=0), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(d.scatter, np.cov(df.to_numpy(), rowvar=False) * 49, rtol=1e-12)
    np.testing.assert_allclose(np.diag(d.correlation()), 1.0)
    arr = as_continuous(df.to_numpy(), names=["x", "y", "z"])
    assert arr.names == ("x", "y", "z") and isinstance(arr, ContinuousData)
    assert as_continuous(df.to_numpy()).names == ("0", "1", "2")
    assert as_continuous(d) is d


def test_large_offsets_do_not_cost_precision():
    """Two passes (mean, then centred products): a column far from 0 keeps its variance."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(1000, 2))
    shifted = as_continuous(x + 1e8)
    np.testing.assert_allclose(shifted.scatter, as_continuous(x).scatter, rtol=1e-6)


def _one_line(exc: pytest.ExceptionInfo) -> str:
    msg = str(exc.value)
    assert "\n" not in msg and msg
    return msg


@pytest.mark.parametrize("make, pattern", [
    (lambda df: df.assign(B=np.arange(50)), r"column\(s\) 'B' \(int64\) are not floating point"),
    (lambda df: df.assign(A=["u"] * 50, C=np.arange(50) % 2 == 0),
     r"'A' \((object|str)\), 'C' \(bool\) are not floating point"),
    (lambda df: df.assign(B=pd.Categorical(["x", "y"] * 25)), r"'B' \(category\)"),
])
def test_non_float_columns_are_named(make, pattern):
    with pytest.raises(DataError, match=pattern) as info:
        gaussian_score_table(make(_frame()))
    assert "integer-coded and text columns are discrete data" in _one_line(info)


def test_nullable_float_columns_are_read_and_missing_values_named():
    df = _frame().astype({"B": "Float64"})
    assert as_continuous(df).names == ("A", "B", "C")
    df.loc[3, "B"] = pd.NA
    with pytest.raises(DataError, match=r"column 'B' has NaN in data row 4"):
        gaussian_score_table(df)


def test_integer_and_object_arrays_are_refused():
    with pytest.raises(DataError, match="dtype int64, not floating point") as info:
        gaussian_score_table(np.arange(30).reshape(10, 3))
    _one_line(info)
    with pytest.raises(DataError, match="float numpy array or a pandas DataFrame") as info:
        gaussian_score_table([[0.0, 1.0], [1.0, 0.0]])
    _one_line(info)
    with pytest.raises(DataError, match="2-D"):
        gaussian_score_table(np.zeros(5))


@pytest.mark.parametrize("value, what", [(np.nan, "NaN"), (np.inf, "an infinite value"), (-np.inf, "an infinite value")])
def test_non_finite_values_name_column_and_row(value, what):
    df = _frame()
    df.loc[7, "B"] = value
    df.loc[9, "C"] = value
    with pytest.raises(DataError, match=rf"column 'B' has {what} in data row 8 \(and 1 other column\(s\): 'C'\)") as info:
        gaussian_score_table(df)
    _one_line(info)


def test_constant_columns_are_named():
    df = _frame().assign(B=2.5, C=0.0)
    with pytest.raises(DataError, match=r"constant column\(s\) 'B', 'C'") as info:
        gaussian_score_table(df)
    _one_line(info)


def test_collinear_columns_are_named():
    df = _frame(200)
    df["D"] = df["A"] - 2.0 * df["C"]
    with pytest.raises(DataError, match=r"is \(nearly\) a linear function of the other columns \(mostly of") as info:
        gaussian_score_table(df)
    msg = _one_line(info)
    assert "singular" in msg and "'A'" in msg and "'C'" in msg
    # Duplicate columns too.
    with pytest.raises(DataError, match="linear function"):
        gaussian_score_table(_frame().assign(D=lambda f: f["B"]))
    # Strongly but not nearly collinear data are scored.
    rng = np.random.default_rng(0)
    df["D"] = df["D"] + 0.05 * rng.normal(size=200)
    assert check_full_rank(as_continuous(df)).min() > 1e-6
    gaussian_score_table(df)


def test_too_few_rows_for_the_parents():
    rng = np.random.default_rng(2)
    with pytest.raises(DataError, match=r"4 rows for 4 variables: the covariance matrix is singular .* at least 5 rows") \
            as info:
        gaussian_score_table(rng.normal(size=(4, 4)))
    _one_line(info)
    gaussian_score_table(rng.normal(size=(5, 4)))
    with pytest.raises(DataError, match="1 data row"):
        gaussian_score_table(rng.normal(size=(1, 2)))


def test_names_are_checked():
    with pytest.raises(DataError, match="duplicate variable names 'a'"):
        gaussian_score_table(np.random.default_rng(0).normal(size=(10, 3)), names=["a", "b", "a"])
    with pytest.raises(DataError, match="2 names for 3 columns"):
        gaussian_score_table(np.random.default_rng(0).normal(size=(10, 3)), names=["a", "b"])
    with pytest.raises(DataError, match="no columns"):
        gaussian_score_table(np.zeros((10, 0)))


# ---------------------------------------------------------------- read_continuous: files


def test_read_continuous_reads_what_as_continuous_reads(tmp_path):
    from gobnilp_py.data.continuous import read_continuous

    df = _frame(40, seed=3)
    for sep, name in ((",", "x.csv"), ("\t", "x.tsv"), (";", "x.txt"), (" ", "x.dat")):
        p = tmp_path / name
        df.to_csv(p, sep=sep, index=False, float_format="%.17g")
        d = read_continuous(p)
        assert d.names == ("A", "B", "C") and d.source == str(p)
        np.testing.assert_array_equal(d.values, df.to_numpy())
    p = tmp_path / "noheader.csv"
    df.to_csv(p, index=False, header=False, float_format="%.17g")
    assert read_continuous(p, header=False).names == ("0", "1", "2")
    assert read_continuous(p, header=False, names=["a", "b", "c"]).names == ("a", "b", "c")
    t1 = gaussian_score_table(read_continuous(tmp_path / "x.csv"), score="bge", bayes_factor=3)
    t2 = gaussian_score_table(df, score="bge", bayes_factor=3)
    assert t1.families == t2.families


@pytest.mark.parametrize("text, match", [
    ("A,B,C\n0.5,1,x\n1.5,2,y\n2.5,0,z\n", r"column\(s\) 'B' \(int64\), 'C' \((object|str)\) are not floating point"),
    ("A,B\n0.5,1.0\n?,2.0\n2.5,0.5\n", r"column 'A' has NaN in data row 2"),
    ("A,B\n0.5,1.0\n,2.0\n2.5,0.5\n", r"column 'A' has NaN in data row 2"),
    ("A,B\n0.5,1.0\n1.5,2.0,3.0\n2.5,0.5\n", r"not a table of numbers"),
    ("", r"the file is empty"),
    ("A,A\n0.5,1.0\n1.5,2.0\n", r"duplicate variable names 'A'"),
])
def test_read_continuous_refuses_in_one_line(tmp_path, text, match):
    from gobnilp_py.data.continuous import read_continuous

    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(DataError, match=match) as info:
        read_continuous(p)
    assert "\n" not in str(info.value)


def test_read_continuous_missing_file_and_non_path(tmp_path):
    from gobnilp_py.data.continuous import read_continuous

    with pytest.raises(DataError, match="no such file"):
        read_continuous(tmp_path / "absent.csv")
    with pytest.raises(DataError, match="takes a file path"):
        read_continuous(np.zeros((3, 2)))
