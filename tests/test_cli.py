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

# ../shared beside the checkout (a git worktree sits one level deeper)
SHARED = next((q / "shared" / "data" for q in Path(__file__).resolve().parents[2:4]
               if (q / "shared" / "data").exists()), Path(__file__).resolve().parents[2] / "shared" / "data")


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
    nets = json.loads(stdout)["networks"]
    assert len(nets) >= 4  # the 4 best, and (where k-best lists ties) every network tied with the 4th
    assert all(n["score"] == pytest.approx(nets[3]["score"], abs=1e-9) for n in nets[4:])


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


# ----------------------------------------------------------- honest results
def _strict(text: str):
    from gobnilp_py._json import loads_strict

    return loads_strict(text)


@pytest.fixture
def cyclic_jkl(tmp_path: Path) -> Path:
    """A table whose every network is cyclic: the problem is infeasible, which no quick check sees."""
    p = tmp_path / "cyc.jkl"
    p.write_text("2\na 1\n-1.0 1 b\nb 1\n-1.0 1 a\n")
    return p


@pytest.mark.parametrize("argv", [["learn"], ["learn", "--json"], ["enumerate", "--bf", "3"],
                                  ["enumerate", "--bf", "3", "--json"], ["kbest", "-k", "2"],
                                  ["kbest", "-k", "2", "--json"]])
def test_infeasible_is_an_answer_with_a_nonzero_status(argv, cyclic_jkl, capsys):
    code, out, err = run([argv[0], cyclic_jkl, *argv[1:]], capsys)
    assert code == 1
    assert err.strip().splitlines()[-1] == "gobnilp-py: infeasible: no network satisfies the constraints and the score table"
    if "--json" in argv:
        d = _strict(out)
        assert d["infeasible"] is True and d["guarantee"].startswith("INFEASIBLE")
    else:
        assert out.startswith("# INFEASIBLE: no network satisfies")


def test_every_json_the_cli_prints_or_writes_is_strict(tmp_path, small_csv, capsys):
    outputs = []
    for argv in (["learn", small_csv, "--json"], ["learn", small_csv, "--json", "--time-limit", "0.001"],
                 ["enumerate", small_csv, "--bf", "3", "--json", "-o", tmp_path / "e"],
                 ["kbest", small_csv, "-k", "3", "--json", "--time-limit", "0.001"],
                 ["kbest", small_csv, "-k", "3", "--json"]):
        code, out, _ = run(argv, capsys)
        assert code == 0
        outputs.append(out)
    outputs.append((tmp_path / "e" / "summary.json").read_text())
    for text in outputs:
        d = _strict(text)  # never NaN or Infinity
        assert isinstance(d["guarantee"], str) and isinstance(d["complete"], bool)
    cut = _strict(outputs[3])
    assert cut["complete"] is False and cut["guarantee"].startswith("INCOMPLETE")


def test_quiet_prints_results_only(tmp_path, small_csv, capsys):
    for argv in (["-q", "learn", small_csv], ["learn", small_csv, "-q"]):
        code, out, err = run(argv, capsys)
        assert code == 0 and err == ""
        assert out.startswith("# complete: proven optimal") and "BN score is" in out
    code, out, err = run(["enumerate", small_csv, "--bf", "3", "-q", "-o", tmp_path / "o"], capsys)
    assert code == 0 and err == "" and "networks in" in out  # no "wrote ..." line either


def test_score_output_is_checked_before_the_work_and_never_overwrites_a_foreign_file(tmp_path, small_csv, capsys,
                                                                                      monkeypatch):
    import gobnilp_py.scoring as scoring_mod

    def no_scoring(*a, **k):
        raise AssertionError("scored before checking the output")

    foreign = tmp_path / "mine.jkl"
    foreign.write_text("my own notes\n")
    with monkeypatch.context() as m:
        m.setattr(scoring_mod, "score", no_scoring)
        code, _, err = run(["score", small_csv, "-o", foreign / "x.jkl"], capsys)
        assert code == 1 and "is not a folder" in err
        code, _, err = run(["score", small_csv, "-o", foreign], capsys)
        assert code == 1 and "was not written by gobnilp-py" in err
    assert foreign.read_text() == "my own notes\n"
    ours = tmp_path / "ours.jkl"
    assert run(["score", small_csv, "-o", ours, "-q"], capsys)[0] == 0
    assert run(["score", small_csv, "--bf", "20", "-o", ours, "-q"], capsys)[0] == 0  # ours: replaced
    assert ScoreTable.from_jkl(ours).meta["bayes_factor"] == pytest.approx(20)
    assert run(["score", small_csv, "-o", foreign, "--force", "-q"], capsys)[0] == 0
    assert ScoreTable.from_jkl(foreign).epsilon == 0.0
    deep = tmp_path / "nodir" / "sub" / "x.jkl"           # missing folders: created on writing, as for -o DIR
    assert run(["score", small_csv, "-o", deep, "-q"], capsys)[0] == 0 and deep.is_file()


def test_enumerate_output_folder_is_labelled_and_safe(tmp_path, small_csv, capsys):
    folder = tmp_path / "out"
    code, out, _ = run(["enumerate", small_csv, "--bf", "3", "--max-networks", "2", "-o", folder], capsys)
    assert code == 0 and out.startswith("# INCOMPLETE (max_networks)")
    assert (folder / "networks.csv").read_text().startswith("# INCOMPLETE (max_networks)")
    d = _strict((folder / "summary.json").read_text())
    assert d["complete"] is False and d["guarantee"].startswith("INCOMPLETE (max_networks)")
    (folder / "summary.json").write_text("edited by hand\n")  # now the user's file? no: listed in our marker
    (folder / "notes.txt").write_text("the user's\n")
    code, _, err = run(["enumerate", small_csv, "--bf", "3", "-o", folder], capsys)
    assert code == 1 and "holds 'notes.txt'" in err
    assert (folder / "notes.txt").read_text() == "the user's\n"
    code, _, _ = run(["enumerate", small_csv, "--bf", "3", "-o", folder, "--force"], capsys)
    assert code == 0 and (folder / "notes.txt").read_text() == "the user's\n"
    assert _strict((folder / "summary.json").read_text())["complete"] is True


def test_time_limit_help_says_what_it_covers(capsys):
    for sub in ("learn", "enumerate", "kbest", "run"):
        with pytest.raises(SystemExit):
            main([sub, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "wall-clock seconds for the whole command" in text, sub


def test_names_a_format_cannot_hold_are_shown_as_arrows_on_stdout(tmp_path, capsys):
    rows = read_data(example_path("asia")).codes[:300, :3]
    p = tmp_path / "n.csv"
    p.write_text("a:1,b,c\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    code, out, err = run(["enumerate", p, "--bf", "3"], capsys)
    assert code == 0 and "->" in out or "(no arrows)" in out
    code, _, err = run(["enumerate", p, "--bf", "3", "-o", tmp_path / "o"], capsys)
    assert code == 1 and 'variable name "a:1" contains ":"' in err and not (tmp_path / "o").exists()
