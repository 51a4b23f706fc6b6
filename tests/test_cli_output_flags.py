"""``run`` takes the data and scoring flags of the other commands; ``enumerate``/``kbest -o`` take ``--write``
(issue 39).  The flags are overrides of the config, checked by its vocabulary and named in its messages.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gobnilp_py import load_result, read_data
from gobnilp_py.cli import main
from gobnilp_py.examples import example_path


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def headless(tmp_path: Path) -> Path:
    """Five Asia columns, no header row: variables are named 0..4 only with --no-header."""
    rows = read_data(example_path("asia")).codes[:400, :5]
    p = tmp_path / "headless.csv"
    p.write_text("\n".join(",".join(map(str, r)) for r in rows) + "\n")
    return p


@pytest.fixture
def config(tmp_path: Path, headless: Path) -> Path:
    cfg = tmp_path / "job.toml"
    cfg.write_text(f'[data]\npath = "{headless}"\n[search]\njob = "enumerate"\nbayes_factor = 3\n'
                   '[output]\ndir = "res"\nwrite = ["json", "csv"]\n')
    return cfg


# ------------------------------------------------------------------ run: --no-header --score --ess --palim
def test_run_no_header_equals_set_data_header_false(config, tmp_path, capsys):
    assert run(["run", config, "-q", "--no-header"], capsys)[0] == 0
    a = json.loads((tmp_path / "res" / "result.json").read_text())
    assert run(["run", config, "-q", "--set", "data.header=false", "-o", tmp_path / "res2"], capsys)[0] == 0
    b = json.loads((tmp_path / "res2" / "result.json").read_text())
    assert a["config"]["data"]["header"] is False and a["inputs"]["names"] == ["0", "1", "2", "3", "4"]
    assert a["inputs"]["rows"] == 400  # the first row is data, not names
    assert [n["parents"] for n in a["result"]["networks"]] == [n["parents"] for n in b["result"]["networks"]]


def test_run_score_ess_palim_reach_the_job(config, tmp_path, capsys):
    code, _, _ = run(["run", config, "-q", "--no-header", "--score", "BDeu", "--ess", "5", "--palim", "1"], capsys)
    assert code == 0
    d = json.loads((tmp_path / "res" / "result.json").read_text())
    assert (d["config"]["scoring"]["score"], d["config"]["scoring"]["ess"], d["config"]["scoring"]["palim"]) == (
        "BDeu", 5, 1)
    nets = d["result"]["networks"]
    assert nets and all(len(ps) <= 1 for n in nets for ps in n["parents"].values())
    code, _, _ = run(["run", config, "-q", "--no-header", "--palim", "auto", "--check"], capsys)
    assert code == 0


@pytest.mark.parametrize("flags, message", [
    (["--palim", "-1"], 'command line: --palim must be an integer >= 0 or "auto", got -1'),
    (["--palim", "two"], 'command line: --palim must be an integer >= 0 or "auto", got "two"'),
    (["--ess", "0"], "command line: --ess must be a number > 0, got 0"),
    (["--score", "BDEUX"], "command line: --score"),
])
def test_run_bad_flag_is_one_line_naming_it(flags, message, config, tmp_path, capsys):
    code, out, err = run(["run", config, "--no-header", *flags], capsys)
    assert code == 1 and out == "" and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "res").exists()


# ------------------------------------------------------------------ run: --missing-values --states --delimiter --arities
@pytest.fixture
def with_none(tmp_path: Path) -> Path:
    """A config on data where "None" is a state (a pgmpy sample's spelling), job score into out/."""
    (tmp_path / "d.csv").write_text("x;y\nNone;0\nLow;1\nNone;1\nHigh;0\nLow;0\n")
    cfg = tmp_path / "none.toml"
    cfg.write_text('[data]\npath = "d.csv"\n[search]\njob = "score"\n[output]\ndir = "out"\nwrite = ["jkl"]\n')
    return cfg


def _jkl_arities(folder: Path) -> str:
    return next(line for line in (folder / "scores.jkl").read_text().splitlines() if "arities" in line)


def test_run_takes_missing_values_like_the_other_commands(with_none, tmp_path, capsys):
    code, out, err = run(["run", with_none, "-q"], capsys)
    assert code == 1 and out == "" and "missing value 'None'" in err and "--missing-values" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
    assert run(["run", with_none, "-q", "--missing-values", ""], capsys)[0] == 0
    assert '"x": 3' in _jkl_arities(tmp_path / "out")  # None, Low, High
    # the same as the config key, and as score's flag
    assert run(["run", with_none, "-q", "--set", "data.missing_values=[]", "-o", tmp_path / "o2"], capsys)[0] == 0
    assert (tmp_path / "out" / "scores.jkl").read_bytes() == (tmp_path / "o2" / "scores.jkl").read_bytes()
    assert run(["score", tmp_path / "d.csv", "-q", "--missing-values", "", "-o", tmp_path / "s.jkl"], capsys)[0] == 0
    assert (tmp_path / "s.jkl").read_bytes() == (tmp_path / "out" / "scores.jkl").read_bytes()


def test_run_takes_states_delimiter_and_arities(with_none, tmp_path, capsys):
    code, _, _ = run(["run", with_none, "-q", "--missing-values", "", "--delimiter", ";",
                      "--states", "x=None,Low,Mid,High", "--states", "y=0,1,2"], capsys)
    assert code == 0
    assert _jkl_arities(tmp_path / "out").endswith('{"x": 4, "y": 3}')
    code, _, _ = run(["run", with_none, "-q", "--missing-values", "", "--arities", "5,2", "-o", tmp_path / "o3"],
                     capsys)
    assert code == 0 and _jkl_arities(tmp_path / "o3").endswith('{"x": 5, "y": 2}')


@pytest.mark.parametrize("flags, message", [
    (["--states", "x"], "--states must look like VAR=S1,S2,..."),
    (["--states", "x=Low"], "column 'x' holds the value 'High', which is not one of its declared states"),
    (["--states", "z=a"], "state_names given for unknown variable 'z'"),
    (["--arities", "two"], "--arities must be comma-separated integers"),
    (["--delimiter", ";;"], "--delimiter"),
])
def test_run_bad_data_flag_is_one_line(flags, message, with_none, tmp_path, capsys):
    code, out, err = run(["run", with_none, "-q", "--missing-values", "", *flags], capsys)
    assert code == 1 and out == "" and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_run_data_flags_refused_with_a_score_table(tmp_path, capsys):
    cfg = tmp_path / "t.toml"
    cfg.write_text(f'[data]\npath = "{Path(__file__).parent / "data" / "wine.BIC.3.jkl"}"\n[search]\njob = "learn"\n')
    for flags in (["--missing-values", ""], ["--states", "x=a,b"], ["--arities", "2"], ["--delimiter", ","]):
        code, out, err = run(["run", cfg, "-q", *flags], capsys)
        assert code == 1 and "is a score table" in err and flags[0] in err, (flags, err)


# ------------------------------------------------------------------ enumerate / kbest -o DIR --write
def test_enumerate_write_gives_runs_files_byte_for_byte(config, headless, tmp_path, capsys):
    """The same job through ``run`` and through ``enumerate -o --write``: the same text files."""
    names = "csv,gobnilp,modelstring,dot"
    assert run(["run", config, "-q", "--no-header", "--write", names, "-o", tmp_path / "by_run"], capsys)[0] == 0
    code, _, err = run(["enumerate", headless, "--no-header", "--bf", "3", "-o", tmp_path / "by_flag",
                        "--write", names], capsys)
    assert code == 0 and "wrote 5 files to" in err
    files = sorted(p.name for p in (tmp_path / "by_run").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "by_flag").iterdir())
    assert "networks.txt" in files and "best_cpdag.dot" in files
    for f in files:
        if not f.startswith("."):
            assert (tmp_path / "by_run" / f).read_bytes() == (tmp_path / "by_flag" / f).read_bytes(), f


def test_enumerate_write_all_with_report_and_result_json(headless, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "all"
    code, _, _ = run(["enumerate", headless, "--no-header", "--bf", "3", "--score", "BDeu", "-o", out,
                      "--write", "all", "-q"], capsys)
    assert code == 0
    written = {p.name for p in out.iterdir()}
    assert {"result.json", "report.md", "networks.csv", "best_dag.png", "best.bif", "arc_strength.csv"} <= written
    assert "scores.jkl" not in written and "summary.json" not in written
    d = json.loads((out / "result.json").read_text())
    assert d["config"]["scoring"]["score"] == "BDeu" and d["config"]["search"]["bayes_factor"] == 3
    assert len(load_result(out)) == d["result"]["n_networks"]
    report = (out / "report.md").read_text()
    assert "| solving |" in report and "| [scoring] score | BDeu |" in report


def test_kbest_write_json_reads_back(headless, tmp_path, capsys):
    out = tmp_path / "kb"
    assert run(["kbest", headless, "--no-header", "-k", "3", "-o", out, "--write", "json", "-q"], capsys)[0] == 0
    cs = load_result(out / "result.json")
    assert cs.kind == "kbest" and len(cs) >= 3


def test_without_write_the_folder_is_as_before(headless, tmp_path, capsys):
    out = tmp_path / "plain"
    assert run(["enumerate", headless, "--no-header", "--bf", "3", "-o", out, "-q"], capsys)[0] == 0
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["networks.csv", "summary.json"]


@pytest.mark.parametrize("extra, message", [
    (["-o", "x", "--write", "jsn"], 'command line: --write has unknown output "jsn"'),
    (["--write", "csv"], "--write and --picture-format need -o DIR"),
    (["-o", "x", "--write", "jkl"], "--write jkl: 'enumerate' scores the data inside its search"),
    (["-o", "x", "--write", "csv", "--picture-format", "gif"], "invalid choice"),
])
def test_bad_write_is_refused_before_any_work(extra, message, headless, tmp_path, capsys, monkeypatch):
    import gobnilp_py

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(gobnilp_py, "enumerate_networks", lambda *a, **k: pytest.fail("the search ran"))
    try:
        code, out, err = run(["enumerate", headless, "--no-header", "--bf", "3", *extra], capsys)
    except SystemExit as exc:  # argparse: a value outside the choices
        code, err = exc.code, capsys.readouterr().err
    assert code in (1, 2) and message in err
    assert not (tmp_path / "x").exists()


def test_write_jkl_from_a_score_table(tmp_path, headless, capsys):
    jkl = tmp_path / "t.jkl"
    assert run(["score", headless, "--no-header", "--bf", "3", "-o", jkl, "-q"], capsys)[0] == 0
    out = tmp_path / "fromjkl"
    assert run(["enumerate", jkl, "--bf", "3", "-o", out, "--write", "jkl,csv", "-q"], capsys)[0] == 0
    assert (out / "scores.jkl").read_text().splitlines()[-1] == jkl.read_text().splitlines()[-1]
