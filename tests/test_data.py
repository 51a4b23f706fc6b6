"""Data input: every source type, declared arities, and every bad-input error."""

from __future__ import annotations

import logging
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gobnilp_py import ConstantColumnWarning, DataError, read_data
from gobnilp_py.examples import ASIA_PARENTS, example_path, sample_asia

# ../shared beside the checkout (a git worktree sits one level deeper)
SHARED = next((q / "shared" / "data" for q in Path(__file__).resolve().parents[2:4]
               if (q / "shared" / "data").exists()), Path(__file__).resolve().parents[2] / "shared" / "data")


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_csv_with_header(tmp_path):
    p = write(tmp_path, "d.csv", "A,B,C\nx,1,u\ny,2,u\nx,2,v\n")
    d = read_data(p)
    assert d.names == ("A", "B", "C")
    assert d.N == 3 and d.n == 3
    assert d.arities.tolist() == [2, 2, 2]
    assert d.codes.tolist() == [[0, 0, 0], [1, 1, 0], [0, 1, 1]]
    assert d.labels[0] == ("x", "y")


def test_csv_without_header_names_columns_by_position(tmp_path):
    p = write(tmp_path, "d.csv", "0,1\n1,1\n1,0\n")
    d = read_data(p, header=False)
    assert d.names == ("0", "1")
    assert d.N == 3


def test_numeric_labels_sort_as_numbers(tmp_path):
    p = write(tmp_path, "d.csv", "A,B\n10,0\n2,1\n1,0\n")
    d = read_data(p)
    assert d.labels[0] == (1, 2, 10)  # a numeric column: states are numbers, labelled by value
    assert d.codes[:, 0].tolist() == [2, 1, 0]


def test_whitespace_and_tab_delimiters(tmp_path):
    d1 = read_data(write(tmp_path, "a.txt", "A B\n0 1\n1 1\n"))
    d2 = read_data(write(tmp_path, "b.tsv", "A\tB\n0\t1\n1\t1\n"))
    assert d1.names == d2.names == ("A", "B")
    assert np.array_equal(d1.codes, d2.codes)


def test_dat_file_with_declared_arities(tmp_path):
    p = write(tmp_path, "d.dat", "A B\n3 2\n0 1\n1 1\n0 0\n")
    d = read_data(p)
    assert d.names == ("A", "B")
    assert d.arities.tolist() == [3, 2]
    assert d.codes[:, 0].tolist() == [0, 1, 0]


def test_declared_arity_keeps_integer_states(tmp_path):
    p = write(tmp_path, "d.csv", "A,B\n2,0\n2,1\n0,1\n")
    d = read_data(p, arities=[3, 2])
    # label k is state k, so the unobserved state 1 stays a gap
    assert d.codes[:, 0].tolist() == [2, 2, 0]
    assert d.arities.tolist() == [3, 2]
    d2 = read_data(p, arities={"A": 4})
    assert d2.arities.tolist() == [4, 2]


def test_dataframe_and_array_sources():
    df = pd.DataFrame({"a": ["x", "y", "x"], "b": [1, 2, 2], 3: [True, False, True]})
    d = read_data(df)
    assert d.names == ("a", "b", "3")
    assert d.arities.tolist() == [2, 2, 2]
    arr = np.array([["u", "v"], ["v", "v"], ["u", "u"]])
    d2 = read_data(arr, names=["p", "q"])
    assert d2.names == ("p", "q")
    assert d2.codes.tolist() == [[0, 1], [1, 1], [0, 0]]


def test_real_dataset_shapes():
    if not SHARED.is_dir():
        pytest.skip("../shared/data is absent")
    d = read_data(SHARED / "wine.csv", header=False)
    assert (d.n, d.N) == (14, 178)
    assert d.arities.tolist() == [3] + [2] * 13


def test_bundled_asia_example_is_reproducible():
    d = read_data(example_path("asia"))
    assert d.names == tuple(ASIA_PARENTS)
    assert d.N == 1000
    regenerated = sample_asia()
    assert np.array_equal(np.where(d.codes == 1, "yes", "no"), regenerated)


def test_constant_column_warns(tmp_path):
    p = write(tmp_path, "d.csv", "A,B\n0,1\n1,1\n")
    with pytest.warns(ConstantColumnWarning, match="'B' is constant"):
        d = read_data(p)
    assert d.arities.tolist() == [2, 1]


def test_header_that_looks_like_data_is_reported(tmp_path, caplog):
    p = write(tmp_path, "d.csv", "0,1\n1,1\n1,0\n0,0\n")
    with caplog.at_level(logging.WARNING, logger="gobnilp_py"):
        read_data(p)
    assert "looks like data" in caplog.text


@pytest.mark.parametrize(
    "name, text, kwargs, pattern",
    [
        ("missing.csv", "A,B\n0,1\n1,\n", {}, r"missing.csv, line 3, column 'B': missing value"),
        ("na.csv", "A,B\n0,NA\n1,1\n", {}, r"line 2, column 'B': missing value 'NA'"),
        ("ragged.csv", "A,B\n0,1\n1\n0,0\n", {}, r"ragged.csv, line 3: ragged row with 1 fields, expected 2"),
        ("long.csv", "A,B\n0,1\n1,0,1\n", {}, r"line 3: ragged row with 3 fields"),
        ("small.csv", "A,B\n0,1\n", {}, r"needs at least 2 data rows, found 1"),
        ("dup.csv", "A,A\n0,1\n1,0\n", {}, r"duplicate variable name 'A'"),
        ("arity.csv", "A,B\n0,1\n1,0\n2,0\n", {"arities": [2, 2]}, r"column 'A' has 3 distinct values but its declared arity is 2"),
        ("count.csv", "A,B\n0,1\n1,0\n", {"arities": [2]}, r"1 arities given for 2 variables"),
        ("unk.csv", "A,B\n0,1\n1,0\n", {"arities": {"C": 2}}, r"arity given for unknown variable 'C'"),
        ("bad.dat", "A B\n2 x\n0 1\n1 0\n", {}, r"bad.dat, line 2, column 'B': arity 'x' is not an integer"),
        ("short.dat", "A B\n2 2\n0 1\n1\n", {}, r"short.dat, line 4: ragged row"),
        ("small.dat", "A B\n1 2\n0 1\n1 0\n", {}, r"column 'A' has 2 distinct values but its declared arity is 1"),
        ("empty.csv", "", {}, r"empty.csv: the file is empty"),
        ("blank.csv", "A,B\n0,1\n\n1,0\n", {}, r"line 3: blank line inside the data"),
    ],
)
def test_bad_files_give_one_line_errors(tmp_path, name, text, kwargs, pattern):
    p = write(tmp_path, name, text)
    with pytest.raises(DataError, match=pattern) as info:
        read_data(p, **kwargs)
    assert "\n" not in str(info.value)


def test_bad_sources():
    with pytest.raises(DataError, match="data file not found"):
        read_data("/nonexistent/file.csv")
    with pytest.raises(DataError, match="cannot read data from a dict"):
        read_data({"a": [1, 2]})
    with pytest.raises(DataError, match="expected a 2-D array"):
        read_data(np.zeros(3))
    with pytest.raises(DataError, match=r"missing value at row 1, column 0"):
        read_data(np.array([[0.0, 1.0], [np.nan, 1.0]]))
    with pytest.raises(DataError, match=r"missing value at row 1 \(index 1\), column 'a'"):
        read_data(pd.DataFrame({"a": [1, None, 2], "b": [1, 2, 3]}))
    with pytest.raises(DataError, match="duplicate variable name"):
        read_data(np.zeros((3, 2), dtype=int), names=["x", "x"])


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        read_data(np.zeros((1, 2), dtype=int))


def test_no_warning_for_normal_data(tmp_path):
    p = write(tmp_path, "d.csv", "A,B\n0,1\n1,0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_data(p)


# ------------------------------------------------------- numbers and states
def test_numeric_text_is_read_as_numbers(tmp_path):
    p = write(tmp_path, "n.csv", "A,B,C\n1,x,0.5\n1.0,y,1.5\n01,x,0.50\n1e0,y,2\n2,x,1.5\n")
    d = read_data(p)
    assert d.labels[0] == (1, 2) and d.codes[:, 0].tolist() == [0, 0, 0, 0, 1]  # 1, 1.0, 01, 1e0: one state
    assert d.labels[1] == ("x", "y")  # categorical stays text
    assert d.labels[2] == (0.5, 1.5, 2) and d.arities.tolist() == [2, 2, 3]
    assert isinstance(d.labels[0][0], int) and isinstance(d.labels[2][0], float)


def test_mixed_columns_stay_categorical(tmp_path):
    p = write(tmp_path, "m.csv", "A,B\n1,0\n1.0,1\none,0\n")
    d = read_data(p)
    assert d.labels[0] == ("1", "1.0", "one") and d.arities.tolist() == [3, 2]


def test_declared_arity_with_integral_float_labels(tmp_path):
    p = write(tmp_path, "f.csv", "A,B\n2.0,0\n2,1\n0.0,1\n")
    d = read_data(p, arities=[3, 2])
    assert d.codes[:, 0].tolist() == [2, 2, 0] and d.arities.tolist() == [3, 2]


def test_continuous_columns_warn(tmp_path):
    from gobnilp_py.data import ContinuousColumnWarning

    rng = np.random.default_rng(0)
    rows = "".join(f"{x:.3f},{i % 40},{i % 2}\n" for i, x in enumerate(rng.normal(size=400)))
    p = write(tmp_path, "c.csv", "x,many,b\n" + rows)
    with pytest.warns(ContinuousColumnWarning) as rec:
        read_data(p)
    msgs = [str(w.message) for w in rec]
    assert any(re.search(r"column 'x' has 3\d\d distinct non-integral numeric values in 400 rows", m)
               and "discretise" in m for m in msgs)
    assert any("column 'many' has 40 distinct numeric values in 400 rows" in m for m in msgs)
    assert not any("column 'b'" in m for m in msgs)
    small = write(tmp_path, "s.csv", "x,b\n" + "".join(f"{i % 12},{i % 2}\n" for i in range(200)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_data(small)  # 12 integer states in 200 rows: discrete, no warning


def test_many_constant_columns_give_one_warning(tmp_path):
    p = write(tmp_path, "k.csv", "a,b,c,d\n0,1,1,1\n1,1,1,1\n")
    with pytest.warns(ConstantColumnWarning) as rec:
        read_data(p)
    assert len(rec) == 1 and "3 variables are constant (one value): 'b', 'c', 'd'" in str(rec[0].message)


# ------------------------------------------------------------------- files
@pytest.mark.parametrize("suffix, compress", [(".csv.gz", "gzip"), (".csv.bz2", "bz2"), (".csv.xz", "lzma"),
                                              (".dat.gz", "gzip"), (".csv", "gzip")])
def test_compressed_files_are_read(tmp_path, suffix, compress):
    import importlib

    mod = importlib.import_module(compress)
    text = "A B\n2 2\n0 1\n1 1\n0 0\n" if suffix.startswith(".dat") else "A,B\n0,1\n1,1\n0,0\n"
    p = tmp_path / f"d{suffix}"
    p.write_bytes(mod.compress(text.encode()))
    d = read_data(p)
    assert d.names == ("A", "B") and d.codes.tolist() == [[0, 1], [1, 1], [0, 0]]


@pytest.mark.parametrize("content, kwargs, pattern", [
    (b"A,B\n0,\x001\n1,0\n", {}, r"is not a text file \(binary data at byte 6\)"),
    (b"A,B\n\xff,1\n1,0\n", {}, r"is not UTF-8 text \(invalid byte 0xff at offset 4: Latin-1 or another encoding\?\); save it as UTF-8"),
    (b"PK\x03\x04rest", {}, r"is a zip archive"),
    (b"\x1f\x8b\x08\x00junk", {}, r"looks gzip-compressed but cannot be decompressed"),
    (b"A,B\n" + b"y" * 140_000 + b",1\n1,0\n", {}, r"line 2: a field is over 131,072 characters"),
    (b"A,B\n0,1\n1,0\n", {"delimiter": ""}, r'delimiter must be one character \(or "tab"\), got ""'),
    (b"A,B\n0,1\n1,0\n", {"delimiter": "ab"}, r'delimiter must be one character \(or "tab"\), got "ab"'),
    (b"A,B\n0,1\n1,0\n", {"delimiter": "\n"}, r"delimiter cannot be a quote or a line break"),
    (b"A,B\n0,1\n1,0\n", {"arities": [2, "x"]}, r"arity of 'B' must be an integer >= 1, got \"x\""),
    (b"A,B\n0,1\n1,0\n", {"arities": "22"}, r"arities must be a sequence of integers"),
])
def test_unreadable_files_are_one_line_data_errors(tmp_path, content, kwargs, pattern):
    p = tmp_path / "bad.csv"
    p.write_bytes(content)
    with pytest.raises(DataError, match=pattern) as info:
        read_data(p, **kwargs)
    assert "\n" not in str(info.value)


def test_folders_and_devices_are_not_data_files(tmp_path):
    with pytest.raises(DataError, match=r"is a folder, not a file"):
        read_data(tmp_path)
    if Path("/dev/zero").exists():
        with pytest.raises(DataError, match=r"/dev/zero is not a regular file"):
            read_data("/dev/zero")


def test_wide_data_is_read_but_refused_for_learning_at_once(tmp_path):
    import time

    from gobnilp_py._validation import check_width
    from gobnilp_py.errors import ParameterError

    n = 3_300
    p = write(tmp_path, "w.csv", ",".join(f"v{j}" for j in range(n)) + "\n"
              + "\n".join(",".join(str((i + j) % 2) for j in range(n)) for i in range(3)) + "\n")
    t0 = time.perf_counter()
    d = read_data(p)  # reading alone is allowed
    with pytest.raises(ParameterError, match=r"3300 variables are too many for exact learning: the first level "
                                             r"alone has 10,886,700 \(child, parent\) pairs"):
        check_width(d.n, palim=None, max_candidates=10_000_000)
    check_width(d.n, palim=0, max_candidates=10_000_000)  # the empty network needs no parent sets
    check_width(d.n, palim=None, max_candidates=None)
    assert time.perf_counter() - t0 < 30


@pytest.mark.parametrize("text, delimiter, holds", [
    ("a;b;c\n0;1;0\n1;0;1\n0;0;1\n", ",", "';'"),
    ("a,b,c\n0,1,0\n1,0,1\n", " ", "','"),            # GOBNILP's gobnilp/delimiter = whitespace on a CSV
    ("a,b,c\n0,1,0\n1,0,1\n", "whitespace", "','"),
    ("a\tb\tc\n0\t1\t0\n1\t0\t1\n", ";", "tab"),
    ("a b c\n0 1 0\n1 0 1\n", ",", "space"),
])
def test_a_delimiter_that_leaves_one_field_per_line_is_refused(tmp_path, text, delimiter, holds):
    """Read as asked these would be one variable, and every search would 'prove' a one-node network optimal."""
    path = tmp_path / "d.csv"
    path.write_text(text)
    with pytest.raises(DataError, match=rf"every line is one field, but line 1 holds {holds}; give delimiter="):
        read_data(path, delimiter=delimiter)
    assert read_data(path).n > 1  # guessing reads it


def test_a_genuine_one_column_file_is_still_read_with_a_delimiter(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("a\n0\n1\n1\n")
    assert read_data(path, delimiter=",").names == ("a",)
