"""The hard-table ILP runner (``benchmarks/bench_ilp_hard.py``) reads both programs' answers right.

Its figures go into RESULTS.md, so a misread status or bound would be a wrong claim: the C program's
summary block, SCIP's gap, and the table's ratio and agreement columns are checked on fixed texts.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_ilp_hard", ROOT / "benchmarks" / "bench_ilp_hard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


C_OPTIMAL = """Number of candidate parent sets: 6346
SCIP Status        : problem is solved [optimal solution found]
Solving Time (sec) : 70.49
Solving Nodes      : 53
Primal Bound       : -1.06362828676777e+05 (13 solutions)
Dual Bound         : -1.06362828676777e+05
Gap                : 0.00 %
"""

C_LIMIT = """Number of candidate parent sets: 113888
SCIP Status        : solving was interrupted [time limit reached]
Solving Time (sec) : 120.00
Solving Nodes      : 1
Primal Bound       : -9.89933770813920e+03 (21 solutions)
Dual Bound         : -9.48216900618325e+03
"""


def _fake_c(bench, monkeypatch, text):
    monkeypatch.setattr(bench, "_timed", lambda *a, **k: {"rc": 0, "stdout": text, "stderr": "", "wall": 1.0,
                                                            "cpu": 1.0, "rss_mb": 1.0, "load_before": 0.0})
    return bench.run_c(Path("x.jkl"), 120, False)


def test_c_summary_parsed(bench, monkeypatch):
    r = _fake_c(bench, monkeypatch, C_OPTIMAL)
    assert (r["status"], r["primal"], r["dual"], r["gap"], r["nodes"], r["families"]) == (
        "optimal", -106362.828676777, -106362.828676777, 0.0, 53, 6346)
    r = _fake_c(bench, monkeypatch, C_LIMIT)
    assert r["status"] == "time_limit" and r["nodes"] == 1
    assert r["gap"] == pytest.approx((9899.3377081392 - 9482.16900618325) / 9482.16900618325)
    r = _fake_c(bench, monkeypatch, "Segmentation fault\n")
    assert r["status"].startswith("error") and r["primal"] is None and r["gap"] is None


def test_gap_is_scips(bench):
    assert bench._gap(-110.0, -100.0) == pytest.approx(0.1)
    assert bench._gap(-100.0, -100.0) == 0.0
    assert bench._gap(None, -1.0) is None and bench._gap(float("-inf"), -1.0) is None


def test_table_ratio_and_agreement(tmp_path):
    log = tmp_path / "log.jsonl"
    base = {"instance": "t1", "families": 10, "load_before": 1.0, "gap": 0.0}
    rows = [dict(base, program="c", status="optimal", wall=4.0, primal=-10.0, dual=-10.0),
            dict(base, program="ours", status="optimal", wall=2.0, primal=-10.0, dual=-10.0),
            dict(base, instance="t2", program="c", status="optimal", wall=4.0, primal=-10.0, dual=-10.0),
            dict(base, instance="t2", program="ours", status="optimal", wall=1.0, primal=-10.5, dual=-10.5)]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_ilp_hard.py"), "--data", str(tmp_path),
                          "table", "--log", str(log)], capture_output=True, text=True, check=True).stdout
    t1 = next(line for line in out.splitlines() if line.startswith("| t1 "))
    t2 = next(line for line in out.splitlines() if line.startswith("| t2 "))
    assert "| 0.50 | yes |" in t1
    assert "| 0.25 | NO |" in t2


def test_instances_sorted_by_known_network_names(bench, tmp_path):
    """A network name ending in a digit (hepar2) keeps it: ``hepar21000`` is hepar2 at 1,000 rows, not
    'hepar' at 21,000, so it sorts with the suite's networks (the runs' and the table's order)."""
    (tmp_path / "jkl").mkdir()
    names = ["pathfinder1000.BDeu.p3", "hepar210000.BDeu.p3", "hepar21000.BDeu.p3", "water1000.BDeu.p3"]
    for name in names:
        (tmp_path / "jkl" / f"{name}.jkl").write_text("0\n")
    got = [n for n, _ in bench.instances(tmp_path, [])]
    assert got == ["water1000.BDeu.p3", "hepar21000.BDeu.p3", "hepar210000.BDeu.p3", "pathfinder1000.BDeu.p3"]


def test_build_records_the_summary_line(bench, tmp_path, monkeypatch):
    """``score`` prints the table's guarantee comment first; the build record keeps the summary line
    (candidate count and time) as ``line`` and the guarantee beside it."""
    (tmp_path / "jkl").mkdir()
    (tmp_path / "water1000.nc.csv").write_text("a,b\n0,1\n1,0\n")
    out = ("# epsilon-safe: holds every parent set\n"
           "246 candidate parent sets for 26 variables (BDeu, epsilon=0) in 4.10 s -> x.jkl\n")
    monkeypatch.setattr(bench, "_timed", lambda *a, **k: {"rc": 0, "stdout": out, "stderr": "", "wall": 5.1,
                                                            "cpu": 5.0, "rss_mb": 231.0, "load_before": 0.0})
    args = argparse.Namespace(
        data=tmp_path, networks=["water"], rows=[1000], scores=["BDeu"], palims=[3], seed=2015,
        score_timeout=900, force=False, lock=False)
    bench.build(args)
    rec = json.loads((tmp_path / "build.jsonl").read_text().splitlines()[-1])
    assert rec["line"].startswith("246 candidate parent sets for 26 variables")
    assert rec["guarantee"] == "epsilon-safe: holds every parent set"
    assert rec["status"] == "ok"


def test_our_modules_are_compiled_before_our_timed_runs(bench, tmp_path, monkeypatch):
    """Our whole-process times must not include compiling our own modules (a wheel install ships ``.pyc``;
    this machine's ``PYTHONDONTWRITEBYTECODE`` would make every run compile from source): ``run`` compiles
    first when it times ours, records it per row, and a module that does not compile stops the benchmark."""
    pkg = tmp_path / "gobnilp_py"
    pkg.mkdir()
    (pkg / "mod.py").write_text("X = 1\n")
    bench.compile_package(tmp_path)
    assert list((pkg / "__pycache__").glob("mod.*.pyc"))
    (pkg / "bad.py").write_text("def (\n")
    with pytest.raises(SystemExit, match="compiling"):
        bench.compile_package(tmp_path)

    calls, rows = [], []
    monkeypatch.setattr(bench, "compile_package", lambda: calls.append(1))
    monkeypatch.setattr(bench, "instances", lambda data, names: [("t", tmp_path / "t.jkl")])
    monkeypatch.setattr(bench, "run_ours", lambda *a, **k: {"status": "optimal"})
    monkeypatch.setattr(bench, "run_c", lambda *a, **k: {"status": "optimal"})
    monkeypatch.setattr(bench, "_commit", lambda: "x")
    log = tmp_path / "log.jsonl"
    for which, bytecode in (("c", "compile"), ("ours", "asis"), ("ours,c", "compile")):
        bench.run(argparse.Namespace(resume=False, log=str(log), data=tmp_path, instances=[], which=which,
                                     time_limit=1.0, lock=False, ours_args=[], ours_options=None,
                                     ours_params=None, ours_engine=None, label=None, save_output=None,
                                     bytecode=bytecode))
        rows += [json.loads(line) for line in log.read_text().splitlines()]
        log.unlink()
    assert len(calls) == 1                      # only the run that timed ours with "compile"
    assert [r.get("bytecode") for r in rows] == [None, "asis", "compile", None]


def test_our_command_is_found_beside_the_interpreter_or_refused(bench, tmp_path, monkeypatch):
    """Without an activated venv ``gobnilp-py`` is not on PATH: the one beside the interpreter is used, and
    where there is none the benchmark stops with one line instead of logging failed rows."""
    monkeypatch.setenv("PATH", str(tmp_path))
    exe = tmp_path / "bin" / "gobnilp-py"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    monkeypatch.setattr(bench.sys, "executable", str(tmp_path / "bin" / "python"))
    assert bench._our_command() == str(exe)
    exe.unlink()
    with pytest.raises(SystemExit, match="gobnilp-py not found"):
        bench._our_command()
