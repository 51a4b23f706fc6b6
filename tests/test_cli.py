"""The command line: each subcommand's output, and bad input giving one line, exit != 0, no output file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gobnilp_py import ScoreTable, enumerate_networks, read_data
from gobnilp_py.cli import main
from gobnilp_py.examples import example_path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small_csv(tmp_path: Path) -> Path:
    rows = read_data(example_path("asia")).codes[:300, :5]
    p = tmp_path / "small.csv"
    p.write_text("a,b,c,d,e\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    return p


def test_score_writes_jkl_and_summary(tmp_path, small_csv, capsys):
    out = tmp_path / "s.jkl"
    code, stdout, _ = run(["score", small_csv, "--bf", "3", "-o", out], capsys)
    assert code == 0
    assert "candidate parent sets for 5 variables" in stdout
    table = ScoreTable.from_jkl(out)
    assert table.names == ("a", "b", "c", "d", "e")


def test_learn_json(small_csv, capsys):
    code, stdout, _ = run(["learn", small_csv, "--json"], capsys)
    assert code == 0
    d = json.loads(stdout)
    assert d["status"] == "optimal"
    assert set(d["parents"]) == {"a", "b", "c", "d", "e"}
    assert d["dual_bound"] == pytest.approx(d["score"])


def test_enumerate_json_equals_api(tmp_path, small_csv, capsys):
    code, stdout, _ = run(["enumerate", small_csv, "--bf", "20", "--json"], capsys)
    assert code == 0
    d = json.loads(stdout)
    cs = enumerate_networks(read_data(small_csv), bayes_factor=20)
    assert d["n_networks"] == len(cs) and d["complete"] is True
    assert d["opt"] == pytest.approx(cs.opt, abs=1e-9)
    assert [n["score"] for n in d["networks"]] == pytest.approx([n.score for n in cs.networks])
    assert d["n_mecs"] == cs.n_mecs


def test_enumerate_output_dir_and_kbest(tmp_path, small_csv, capsys):
    folder = tmp_path / "out"
    code, stdout, _ = run(["enumerate", small_csv, "--bf", "3", "-o", folder], capsys)
    assert code == 0 and "networks in" in stdout
    assert (folder / "networks.csv").is_file() and (folder / "summary.json").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]  # temp folder cleaned up
    code, stdout, _ = run(["kbest", small_csv, "-k", "4", "--json"], capsys)
    assert code == 0
    assert len(json.loads(stdout)["networks"]) == 4


def test_bundled_example(capsys):
    code, stdout, _ = run(["enumerate", "example:asia", "--bf", "3"], capsys)
    assert code == 0 and "complete" in stdout


@pytest.mark.parametrize("argv, message", [
    (["score", "{missing}", "-o", "{out}"], "data file not found"),
    (["score", "{ragged}", "-o", "{out}"], "ragged row"),
    (["score", "{csv}", "--score", "XYZ", "-o", "{out}"], "XYZ"),
    (["score", "{csv}", "--ess", "-1", "-o", "{out}"], "ess"),
    (["score", "{csv}", "--bf", "0.5", "-o", "{out}"], "--bf must be a number >= 1"),
    (["score", "{csv}", "--palim", "-2", "-o", "{out}"], "palim"),
    (["enumerate", "{csv}", "--bf", "0.2", "-o", "{outdir}"], "--bf must be"),
    (["enumerate", "{csv}", "--bf", "3", "--max-networks", "0", "-o", "{outdir}"], "--max-networks"),
    (["learn", "{csv}", "--constraints", "{badcons}"], "unknown variable"),
    (["learn", "{badjkl}"], "not a number"),
    (["kbest", "{csv}", "-k", "0"], "-k must be an integer >= 1"),
])
def test_bad_input_one_line_error_no_output(tmp_path, small_csv, capsys, argv, message):
    files = {
        "missing": tmp_path / "nope.csv",
        "out": tmp_path / "out.jkl",
        "outdir": tmp_path / "outdir",
        "csv": small_csv,
        "ragged": tmp_path / "ragged.csv",
        "badcons": tmp_path / "bad.con",
        "badjkl": tmp_path / "bad.jkl",
    }
    files["ragged"].write_text("a,b\n0,1\n1\n")
    files["badcons"].write_text("a<-zz\n")
    files["badjkl"].write_text("1\na 1\nfoo 0\n")
    code, _, err = run([a.format(**files) for a in argv], capsys)
    assert code != 0
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("WARNING")]
    assert len(lines) == 1 and lines[0].startswith("gobnilp-py: error:"), err
    assert message.lower() in lines[0].lower()
    assert not files["out"].exists() and not files["outdir"].exists()


def test_bad_flag_is_one_line_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["score"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1


def test_console_entry_point_exit_code(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "gobnilp_py", "score", str(tmp_path / "none.csv"), "-o",
                           str(tmp_path / "x.jkl")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith("gobnilp-py: error: data file not found")
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is absent")
def test_headerless_shared_file(tmp_path, capsys):
    out = tmp_path / "iris.jkl"
    code, stdout, _ = run(["score", SHARED / "iris.csv", "--no-header", "-o", out], capsys)
    assert code == 0
    assert ScoreTable.from_jkl(out).names == ("0", "1", "2", "3", "4")
