"""The one-command benchmark suite (``benchmarks/suite.py``) on a tiny data folder.

The suite itself runs for an hour on the shared datasets; here it runs on one
small generated dataset with a short budget, so that what CI checks is the
machinery: every planned run becomes a row, a run that reaches the budget is
marked and kept, the skip rules, the agreement check, and the RESULTS.md block
replaced between its markers without touching the rest of the file.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from random_problems import random_data

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def suite():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location("bench_suite", ROOT / "benchmarks" / "suite.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def _csv(folder: Path, name: str, n: int, rows: int, seed: int) -> None:
    data = random_data(np.random.default_rng(seed), n, rows)
    np.savetxt(folder / f"{name}.csv", data.astype(int), fmt="%d", delimiter=",")


def test_plan_orders_runs_for_the_skip_rules(suite, tmp_path):
    jobs = suite.plan(["a"], {1, 2}, tmp_path, 10.0, 100)["a"]
    ids = [j["id"] for j in jobs]
    assert ids[:4] == ["T1:a:BIC:BF3", "T1:a:BIC:BF20", "T1:a:BIC:BF150", "T2:a:BDeu:BF20"]
    assert len(ids) == 3 + 1 + 9 and len(set(ids)) == len(ids)
    ks = [j["k"] for j in jobs if j["kind"] == "kbest"]
    assert ks == sorted(ks)  # smaller k first, so a budget hit can be carried to larger k


def test_skip_rules(suite):
    bf20 = {"id": "T2:x:BDeu:BF20", "kind": "bf", "score": "BDeu", "bf": 20, "status": "budget", "phase": "scoring"}
    kb = {"id": "k", "kind": "kbest", "score": "BDeu", "method": "dp", "k": 100}
    assert "exhausted the budget" in suite.skip_reason(kb, [bf20])
    # Scoring at a smaller epsilon than the one that failed proves nothing.
    bf150 = dict(bf20, bf=150)
    assert suite.skip_reason(kb, [bf150]) is None
    # Another score, or a search (not scoring) budget hit, proves nothing either.
    assert suite.skip_reason(kb, [dict(bf20, score="BIC")]) is None
    assert suite.skip_reason(kb, [dict(bf20, phase="search")]) is None
    refused = dict(bf20, status="not run")
    assert "was refused" in suite.skip_reason(kb, [refused])
    small = {"id": "s", "kind": "kbest", "score": "BDeu", "method": "dp", "k": 10, "status": "budget"}
    assert "k=10" in suite.skip_reason(kb, [small])
    assert suite.skip_reason(dict(kb, method="ilp"), [small]) is None
    assert suite.skip_reason(kb, [dict(small, status="complete")]) is None


def test_agreement(suite):
    a = {"status": "complete", "scores": [-1.0, -2.0]}
    assert suite.agreement([a, dict(a)]) == "yes (2)"
    assert suite.agreement([a, dict(a, scores=[-1.0, -2.5])]) == "NO"
    assert suite.agreement([a, dict(a, scores=[-1.0])]) == "NO"
    assert suite.agreement([a, dict(a, status="budget", scores=[-1.0])]) == "-"


def test_write_results_replaces_only_the_block(suite, tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_text(f"# R\n\nbefore\n\n{suite.BEGIN}\nold\n{suite.END}\n\nafter\n")
    suite.write_results(path, f"{suite.BEGIN}\nnew\n{suite.END}\n")
    assert path.read_text() == f"# R\n\nbefore\n\n{suite.BEGIN}\nnew\n{suite.END}\n\nafter\n"
    other = tmp_path / "other.md"
    other.write_text("# Other\n")
    suite.write_results(other, f"{suite.BEGIN}\nx\n{suite.END}\n")
    assert other.read_text() == f"# Other\n\n{suite.BEGIN}\nx\n{suite.END}\n"


def test_bad_arguments_fail_with_one_line(suite, tmp_path, capsys):
    assert suite.main(["--data-dir", str(tmp_path / "missing")]) == 2
    assert suite.main(["nope", "--data-dir", str(tmp_path)]) == 2
    assert suite.main(["--budget", "0", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("error: ") for line in err)


@pytest.mark.slow
def test_suite_end_to_end_on_a_small_dataset(suite, tmp_path):
    """Both tables on one 5-variable dataset; the re-solve k-best cannot list 1000 networks in 3 s."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    _csv(data_dir, "tiny", 5, 300, seed=3)
    results = tmp_path / "RESULTS.md"
    results.write_text(f"# Results\n\nkept\n\n{suite.BEGIN}\n(old)\n{suite.END}\n")
    out_json = tmp_path / "suite.json"
    log = tmp_path / "runs.jsonl"
    args = ["--data-dir", str(data_dir), "--budget", "3", "--results", str(results), "--json", str(out_json),
            "--log", str(log)]
    assert suite.main(args) == 0
    rows = {r["id"]: r for r in json.loads(out_json.read_text())}
    assert len(rows) == 13
    for bf in (3, 20, 150):
        assert rows[f"T1:tiny:BIC:BF{bf}"]["status"] == "complete"
    assert rows["T2:tiny:BDeu:BF20"]["status"] == "complete"
    # Small k: every method finishes and all list the same scores.
    for k in (10, 100):
        done = [rows[f"T2:tiny:BDeu:{m}-k{k}"] for m in ("dp", "ilp")]
        assert all(r["status"] == "complete" and len(r["scores"]) == k for r in done)
        assert suite.agreement(done).startswith("yes")
    # The budget hit is marked and kept, with the networks found so far.
    slow = rows["T2:tiny:BDeu:resolve-k1000"]
    assert slow["status"] in ("budget", "skipped")
    if slow["status"] == "budget":
        assert 0 < slow["networks"] < 1000
    text = results.read_text()
    assert text.startswith("# Results\n\nkept\n\n") and "(old)" not in text
    assert "### Table 1" in text and "### Table 2" in text
    assert "**budget**" in text or "skipped" in text
    assert text.count(suite.BEGIN) == 1 and text.count(suite.END) == 1
    # Resume: every row comes from the log, nothing runs again (a run would take >= 3 s for resolve).
    assert len(log.read_text().splitlines()) == 13
    assert suite.main(args + ["--resume", "--no-write"]) == 0
    assert len(log.read_text().splitlines()) == 13


# ------------------------------------------------------------------ the runner and the results folder
def _runner():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_runner_lists_every_benchmark_script():
    """Every benchmark script in benchmarks/ has a name in the runner, and every name a script."""
    run = _runner()
    scripts = {p.name for p in (ROOT / "benchmarks").glob("*.py")
               if p.name.startswith(("bench_", "crosscheck_")) or p.name == "suite.py"}
    registered = {b.script for b in run.BENCHMARKS.values()}
    assert scripts == registered, f"unregistered: {sorted(scripts - registered)}, missing: {sorted(registered - scripts)}"
    listing = run.listing()
    assert all(name in listing for name in run.BENCHMARKS)


def test_runner_refuses_an_unknown_name(capsys):
    assert _runner().main(["no-such-benchmark"]) == 2
    assert "unknown benchmark 'no-such-benchmark'" in capsys.readouterr().err


def test_results_folder_is_named_by_measure_and_has_no_orphans():
    """benchmarks/results/ holds what RESULTS.md links (and what those files use), named by what it measures."""
    import re

    folder = ROOT / "benchmarks" / "results"
    names = sorted(p.name for p in folder.iterdir())
    diary = [n for n in names if re.search(r"(^|-)(session|issue)-?\d", n)]
    assert not diary, f"results named by when they were made: {diary}"
    results_md = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    pages = {n: (folder / n).read_text(encoding="utf-8") for n in names if n.endswith(".md")}
    orphans = [n for n in names if n not in results_md and not any(n in text for m, text in pages.items() if m != n)]
    assert not orphans, f"files in benchmarks/results/ nothing links to: {orphans}"
    runner = (ROOT / "benchmarks" / "run.py").read_text(encoding="utf-8")
    for target in re.findall(r'"(results/[\w.-]+\.md)"', runner):
        assert (ROOT / "benchmarks" / target).exists(), target
