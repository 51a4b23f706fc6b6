"""What becomes a state: exact numeric codes, missing-value tokens, declared (unobserved) states, identifier columns.

Issue 37: distinct codes that collide as floats (``9007199254740992`` and
``9007199254740993``; ``1e400`` and ``2e400``, both ``inf``) became one state,
and ``inf`` in a DataFrame became a state.  Issue 39: ``None``, ``NA`` and
``?`` were always missing (even in a DataFrame), so samples of pgmpy's own
``child`` network were refused; a categorical column's unobserved categories
were dropped silently.  Each is checked through the API, the command line and
a config where the option exists there.
"""

from __future__ import annotations

import gzip
import math
import warnings
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import gobnilp_py as gp
from gobnilp_py import DataError, read_data
from gobnilp_py.cli import main


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _cli_error(argv: list[str], capsys) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 1 and out == "" and len(lines) == 1, (code, out, err)
    assert lines[0].startswith("gobnilp-py: error: ") and "Traceback" not in err
    return lines[0]


# ---------------------------------------------------------------- exact numbers
@pytest.mark.parametrize("a, b", [("9007199254740992", "9007199254740993"), ("1e400", "2e400"),
                                  ("-1e400", "1e400"), ("123456789012345678901234567890", "123456789012345678901234567891")])
def test_codes_that_collide_as_floats_are_distinct_states(tmp_path, a, b):
    d = read_data(write(tmp_path, "d.csv", f"x,y\n{a},0\n{b},1\n{a},1\n{b},0\n"))
    assert d.arities.tolist() == [2, 2]
    assert d.codes[:, 0].tolist() == [0, 1, 0, 1]
    assert list(d.labels[0]) == sorted([int(Decimal(a)), int(Decimal(b))])
    assert all(isinstance(v, int) for v in d.labels[0])  # exact labels, never a float that rounds


def test_equal_numbers_written_differently_stay_one_state(tmp_path):
    d = read_data(write(tmp_path, "d.csv", "x,y\n1,0\n1.0,1\n01,1\n1e0,0\n2,0\n"))
    assert d.arities.tolist() == [2, 2] and d.labels[0] == (1, 2)


def test_a_number_no_float_holds_exactly_is_refused(tmp_path):
    p = write(tmp_path, "d.csv", "x,y\n0.1,0\n0.10000000000000001,1\n0.1,1\n")
    with pytest.raises(DataError, match=r"column 'x': the number '0.10000000000000001' cannot be kept exactly"):
        read_data(p)


def test_a_number_of_more_than_4300_digits_is_refused(tmp_path):
    p = write(tmp_path, "d.csv", "x,y\n1e5000,0\n1,1\n")
    with pytest.raises(DataError, match=r"has more than 4,300 digits"):
        read_data(p)


def test_big_python_ints_in_a_frame_are_exact():
    frame = pd.DataFrame({"x": pd.Series([2 ** 53, 2 ** 53 + 1, 2 ** 53, 1.5], dtype=object), "y": [0, 1, 1, 0]})
    d = read_data(frame)
    assert d.labels[0] == (1.5, 2 ** 53, 2 ** 53 + 1) and d.codes[:, 0].tolist() == [1, 2, 1, 0]
    huge = pd.DataFrame({"x": pd.Series([10 ** 30, 10 ** 30 + 1, 10 ** 30], dtype=object), "y": [0, 1, 1]})
    assert read_data(huge).arities.tolist() == [2, 2]


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_inf_in_a_frame_or_array_is_refused(value):
    frame = pd.DataFrame({"x": [1.0, value, 1.0], "y": [0, 1, 1]})
    with pytest.raises(DataError, match=r"<DataFrame>, row 1, column 'x': the value -?inf is not a state"):
        read_data(frame)
    with pytest.raises(DataError, match=r"row 1, column 'x': the value -?inf is not a state"):
        read_data(pd.DataFrame({"x": pd.Series([1, value, 1], dtype=object), "y": [0, 1, 1]}))
    with pytest.raises(DataError, match=r"<array>, row 1, column '0': the value -?inf is not a state"):
        read_data(np.array([[1.0, 0.0], [value, 1.0], [1.0, 1.0]]))


def test_colliding_codes_through_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "d.csv", "x,y\n9007199254740992,0\n9007199254740993,1\n9007199254740992,1\n9007199254740993,0\n")
    assert main(["score", "d.csv", "-o", "d.jkl", "-q"]) == 0
    assert 'arities = {"x": 2, "y": 2}' in (tmp_path / "d.jkl").read_text()


# ---------------------------------------------------------------- missing values
def test_default_tokens_are_missing_in_text_files_and_the_error_names_the_option(tmp_path):
    p = write(tmp_path, "d.csv", "x,y\nNone,0\nLow,1\nNone,1\n")
    with pytest.raises(DataError, match=r"line 2, column 'x': missing value 'None'; .*missing_values=.*"
                                        r"--missing-values.*\[data\] missing_values"):
        read_data(p)


@pytest.mark.parametrize("given", [[], "", ["?"], ("NA", "-999")])
def test_missing_values_makes_none_a_state(tmp_path, given):
    p = write(tmp_path, "d.csv", "x,y\nNone,0\nLow,1\nNone,1\nNA,0\n")
    if isinstance(given, tuple):  # NA is still missing
        with pytest.raises(DataError, match=r"line 5, column 'x': missing value 'NA'"):
            read_data(p, missing_values=list(given))
        return
    d = read_data(p, missing_values=given)
    assert d.labels[0] == ("Low", "NA", "None") and d.codes[:, 0].tolist() == [2, 0, 2, 1]


def test_given_tokens_are_missing_and_the_empty_field_always_is(tmp_path):
    with pytest.raises(DataError, match=r"line 3, column 'y': missing value '-999'"):
        read_data(write(tmp_path, "a.csv", "x,y\na,0\nb,-999\n"), missing_values=["-999"])
    with pytest.raises(DataError, match=r"line 3, column 'y': missing value ''"):
        read_data(write(tmp_path, "b.csv", "x,y\na,0\nb,\n"), missing_values=[])


@pytest.mark.parametrize("bad", [1, [1], {"NA": 1}, b"NA"])
def test_missing_values_of_the_wrong_type(tmp_path, bad):
    with pytest.raises(DataError, match=r"missing_values must be a list of strings"):
        read_data(write(tmp_path, "d.csv", "x,y\na,0\nb,1\n"), missing_values=bad)


def test_in_a_frame_only_real_missing_values_are_missing():
    frame = pd.DataFrame({"x": ["None", "NA", "?", "None"], "y": ["a", "b", "a", "b"]})
    d = read_data(frame)
    assert d.labels[0] == ("?", "NA", "None")
    for hole in (None, np.nan, pd.NA):
        f2 = frame.astype(object).copy()
        f2.iloc[2, 1] = hole
        with pytest.raises(DataError, match=r"missing value at row 2 .*column 'y'"):
            read_data(f2)
    with pytest.raises(DataError, match=r"row 0, column 'x': missing value 'None'"):
        read_data(frame, missing_values=["None"])
    arr = np.array([["None", "a"], ["NA", "b"], ["None", "b"]])
    assert read_data(arr).labels[0] == ("NA", "None")


def test_a_declared_state_is_never_missing(tmp_path):
    p = write(tmp_path, "d.csv", "x,y\nNone,0\nLow,1\nNone,1\n")
    d = read_data(p, state_names={"x": ["None", "Low", "High"]})
    assert d.labels[0] == ("None", "Low", "High") and d.arities.tolist() == [3, 2]


def _child_sample(rows: int, seed: int) -> pd.DataFrame:
    """Rows sampled from pgmpy's bundled ``child`` network (states include "None"), as categorical columns."""
    import sys

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        from sample_bif import forward_sample, load_network
    finally:
        sys.path.remove(str(root / "benchmarks"))
    model = load_network("child")
    names, codes, _arities = forward_sample(model, rows, np.random.default_rng(seed))
    states = {v: list(model.get_cpds(v).state_names[v]) for v in names}
    return pd.DataFrame({v: pd.Categorical.from_codes(codes[:, j], categories=states[v]) for j, v in enumerate(names)})


@pytest.fixture(scope="module")
def child() -> pd.DataFrame:
    pytest.importorskip("pgmpy")
    return _child_sample(300, 7)


def test_a_sample_of_pgmpys_child_network_reads_as_a_frame_file_and_config(child, tmp_path, capsys, monkeypatch):
    assert any("None" in child[c].cat.categories for c in child.columns)
    as_frame = read_data(child)
    as_text = read_data(child.astype(str))  # an object frame: "None" is a state there too
    csv = tmp_path / "child.csv"
    child.to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"missing value 'None'.*missing_values"):
        read_data(csv)
    from_file = read_data(csv, missing_values=[])
    assert as_frame.names == from_file.names == as_text.names
    for j in range(as_frame.n):  # the same rows, whatever the source
        lab_f = [as_frame.labels[j][k] for k in as_frame.codes[:, j]]
        lab_t = [from_file.labels[j][k] for k in from_file.codes[:, j]]
        assert lab_f == lab_t
    # the frame declares every state of the network, observed or not
    assert as_frame.arities.tolist() == [len(child[c].cat.categories) for c in child.columns]
    monkeypatch.chdir(tmp_path)
    assert main(["learn", "child.csv", "--palim", "1", "--missing-values", "", "-q"]) == 0
    capsys.readouterr()
    line = _cli_error(["learn", "child.csv", "--palim", "1", "-q"], capsys)
    assert "missing value 'None'" in line and "--missing-values" in line
    (tmp_path / "c.toml").write_text('[data]\npath = "child.csv"\nmissing_values = []\n[scoring]\npalim = 1\n'
                                     '[search]\njob = "learn"\n')
    assert main(["run", "c.toml", "-q"]) == 0
    capsys.readouterr()


# ---------------------------------------------------------------- declared states
def test_unobserved_categories_of_a_categorical_column_are_states():
    frame = pd.DataFrame({"x": pd.Categorical(["a", "b", "a", "b"], categories=["c", "a", "b"]),
                          "y": [0, 1, 1, 0]})
    d = read_data(frame)
    assert d.arities.tolist() == [3, 2] and d.labels[0] == ("c", "a", "b")
    assert d.codes[:, 0].tolist() == [1, 2, 1, 2]


def test_unobserved_states_change_bdeu_and_bic(tmp_path):
    """A declared state with no rows is a state: more cells for BDeu's prior, more parameters for BIC."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 200)
    y = (x ^ (rng.random(200) < 0.2)).astype(int)
    plain = pd.DataFrame({"x": pd.Categorical(x), "y": pd.Categorical(y)})
    wide = pd.DataFrame({"x": pd.Categorical(x, categories=[0, 1, 2]), "y": pd.Categorical(y)})
    by_names = read_data(pd.DataFrame({"x": x, "y": y}), state_names={"x": [0, 1, 2]})
    by_arity = read_data(pd.DataFrame({"x": x, "y": y}), arities={"x": 3})
    assert read_data(wide).arities.tolist() == by_names.arities.tolist() == by_arity.arities.tolist() == [3, 2]
    for score in ("BDeu", "BIC"):
        t_plain = gp.score(plain, score=score, prune=False)
        t_wide = gp.score(wide, score=score, prune=False)
        t_names = gp.score(by_names, score=score, prune=False)
        t_arity = gp.score(by_arity, score=score, prune=False)
        for child, parents in (("x", ()), ("y", ("x",)), ("x", ("y",))):
            same = [t.local_score(child, parents) for t in (t_wide, t_names, t_arity)]
            assert same == pytest.approx([same[0]] * 3, rel=1e-12)
            assert same[0] != pytest.approx(t_plain.local_score(child, parents), rel=1e-9)
    # BIC's penalty: q (r - 1) parameters; x with 3 states has 2 free parameters instead of 1
    t_plain = gp.score(plain, score="BIC", prune=False)
    t_wide = gp.score(wide, score="BIC", prune=False)
    assert t_plain.local_score("x", ()) - t_wide.local_score("x", ()) == pytest.approx(math.log(200) / 2, rel=1e-9)


def test_state_names_order_and_numbers(tmp_path):
    p = write(tmp_path, "d.csv", "x,y\n2,a\n1.0,b\n2,b\n")
    d = read_data(p, state_names={"x": ["3", 2, 1], "y": ["b", "a", "c"]})
    assert d.labels == ((3, 2, 1), ("b", "a", "c"))
    assert d.codes.tolist() == [[1, 1], [2, 0], [1, 0]]


def test_state_names_errors(tmp_path):
    p = write(tmp_path, "d.csv", "x,y\nlow,0\nhigh,1\nlow,1\n")
    with pytest.raises(DataError, match=r"column 'x' holds the value 'high', which is not one of its declared states"):
        read_data(p, state_names={"x": ["low", "mid"]})
    with pytest.raises(DataError, match=r"state_names given for unknown variable 'z'"):
        read_data(p, state_names={"z": ["a"]})
    with pytest.raises(DataError, match=r"the declared states of 'y' list '1' twice"):
        read_data(p, state_names={"y": [0, 1, "1"]})
    with pytest.raises(DataError, match=r"column 'x' has 3 declared states but its declared arity is 4"):
        read_data(p, state_names={"x": ["low", "mid", "high"]}, arities={"x": 4})
    with pytest.raises(DataError, match=r"state_names\[\"x\"\] must list at least one state"):
        read_data(p, state_names={"x": []})
    with pytest.raises(DataError, match=r"state_names must be a mapping"):
        read_data(p, state_names=["low"])


def test_states_through_the_command_line_and_a_config(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "d.csv", "x,y\nlow,0\nhigh,1\nlow,1\nhigh,0\n")
    assert main(["score", "d.csv", "--states", "x=low,mid,high", "-o", "a.jkl", "-q"]) == 0
    capsys.readouterr()
    assert 'arities = {"x": 3, "y": 2}' in (tmp_path / "a.jkl").read_text()
    line = _cli_error(["score", "d.csv", "--states", "x=low", "-o", "b.jkl"], capsys)
    assert "holds the value 'high', which is not one of its declared states" in line
    line = _cli_error(["score", "d.csv", "--states", "x", "-o", "b.jkl"], capsys)
    assert "--states must look like VAR=S1,S2,..." in line
    (tmp_path / "c.toml").write_text('[data]\npath = "d.csv"\n[data.state_names]\nx = ["low", "mid", "high"]\n'
                                     '[search]\njob = "score"\n[output]\ndir = "out"\nwrite = ["jkl"]\n')
    assert main(["run", "c.toml", "-q"]) == 0
    capsys.readouterr()
    assert 'arities = {"x": 3, "y": 2}' in (tmp_path / "out" / "scores.jkl").read_text()
    (tmp_path / "bad.toml").write_text('[data]\npath = "d.csv"\nstate_names = ["low"]\n[search]\njob = "score"\n')
    line = _cli_error(["run", "bad.toml"], capsys)
    assert "[data] state_names must be a mapping" in line
    (tmp_path / "bad2.toml").write_text('[data]\npath = "d.csv"\nmissing_values = 3\n[search]\njob = "score"\n')
    line = _cli_error(["run", "bad2.toml"], capsys)
    assert "[data] missing_values must be a list of strings" in line


def test_reading_keywords_pass_through_the_drivers():
    frame = pd.DataFrame({"x": ["None", "a", "None", "a"] * 5, "y": [0, 1, 1, 0] * 5})
    net = gp.learn(frame.astype(str), missing_values=["?"], state_names={"x": ["None", "a", "b"]})
    assert set(net.names) == {"x", "y"}
    with pytest.raises(DataError, match=r"missing value 'None'"):
        gp.learn(frame.astype(str), missing_values=["None"])


# ---------------------------------------------------------------- identifier columns, names
def test_a_column_of_distinct_texts_is_refused(tmp_path):
    lines = [f"user{i}:x:{i}:{i}::/home/user{i}:/bin/sh" for i in range(12)]
    p = write(tmp_path, "passwd", "\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"has a different value in every one of its 11 rows \(an identifier"):
        read_data(p)
    # a declared set of states is meant, and a short column is too small to tell
    read_data(pd.DataFrame({"id": [f"r{i}" for i in range(12)], "y": [0, 1] * 6}),
              state_names={"id": [f"r{i}" for i in range(12)]})
    read_data(pd.DataFrame({"id": [f"r{i}" for i in range(9)], "y": [0, 1, 0] * 3}))


def test_a_config_pointing_data_at_a_text_file_writes_no_bif(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lines = [f"user{i}:x:{i}:{i}::/home/user{i}:/bin/sh" for i in range(20)]
    write(tmp_path, "passwd", "\n".join(lines) + "\n")
    (tmp_path / "c.toml").write_text('[data]\npath = "passwd"\n[search]\njob = "learn"\n[output]\ndir = "pw"\n'
                                     'write = ["bif"]\n')
    line = _cli_error(["run", "c.toml"], capsys)
    assert "an identifier or free text" in line and "/home/user5" not in line
    assert not (tmp_path / "pw").exists()


@pytest.mark.parametrize("name", ["a\x1b[31mred", "a\u202eb", "a\x07", "a\x7fb"])
def test_a_name_with_a_control_character_is_refused_and_escaped(tmp_path, name, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.csv").write_bytes(f'{name},y\n0,1\n1,0\n'.encode())
    with pytest.raises(DataError, match=r"contains a control character"):
        read_data(tmp_path / "d.csv")
    line = _cli_error(["learn", "d.csv"], capsys)
    assert "contains a control character" in line
    assert not any(ch in line for ch in "\x1b\u202e\x07\x7f")


@pytest.mark.parametrize("name", ["a\nb", "a\rb", "a\u2028b", "a\tb", "a\x1b[2J"])
def test_a_frame_column_name_with_a_control_character_is_refused(name):
    with pytest.raises(DataError, match=r"contains a control character") as info:
        read_data(pd.DataFrame({name: [0, 1], "y": [1, 0]}))
    assert len(str(info.value).splitlines()) == 1


# ---------------------------------------------------------------- compression bombs
def _bomb(path: Path, decompressed: int) -> Path:
    """A gzip file of many copies of one small member: ``decompressed`` bytes of CSV rows from a few kB."""
    piece = b"0,1\n" * (1 << 14)  # 64 KiB
    member = gzip.compress(piece, compresslevel=9)
    path.write_bytes(gzip.compress(b"a,b\n") + member * (decompressed // len(piece)))
    return path


def test_a_compression_bomb_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    import gobnilp_py.data.reader as reader

    monkeypatch.setattr(reader, "MAX_DECOMPRESSED_BYTES", 1 << 20)
    bomb = _bomb(tmp_path / "bomb.csv.gz", 64 << 20)
    assert bomb.stat().st_size < 200_000
    with pytest.raises(DataError, match=r"decompresses to more than 1 MiB \(gzip\): a compression bomb"):
        read_data(bomb)
    ok = _bomb(tmp_path / "ok.csv.gz", 256 << 10)
    assert read_data(ok).N == 4 * (1 << 14)
    monkeypatch.chdir(tmp_path)
    line = _cli_error(["learn", "bomb.csv.gz"], capsys)
    assert "compression bomb" in line
    import bz2
    import lzma

    body = b"a,b\n" + b"0,1\n" * (5 << 16)  # 1.25 MiB
    (tmp_path / "b.csv.bz2").write_bytes(bz2.compress(body, compresslevel=1))
    (tmp_path / "x.csv.xz").write_bytes(lzma.compress(body, preset=0))
    for name in ("b.csv.bz2", "x.csv.xz"):
        with pytest.raises(DataError, match=r"decompresses to more than 1 MiB"):
            read_data(tmp_path / name)


@pytest.mark.slow
def test_a_real_size_bomb_is_refused_with_the_default_cap(tmp_path):
    """A 1.1 GB bomb (about 1 MB on disk) with the documented 1 GiB cap: refused, never held whole."""
    bomb = _bomb(tmp_path / "bomb.csv.gz", 1100 << 20)
    with warnings.catch_warnings():
        with pytest.raises(DataError, match=r"decompresses to more than 1 GiB"):
            read_data(bomb)
