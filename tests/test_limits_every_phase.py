"""The time and memory limits hold in every phase a command goes through, through the API, the CLI and a config.

What the documentation promises (``--time-limit``: "wall-clock seconds for the whole command (reading,
scoring, search and writing)"; ``memory_limit``: what scoring holds, estimated before allocating) is
checked here phase by phase:

* reading: the command line and ``run`` stop reading a data file at the limit and answer "no result",
  labelled ``INCOMPLETE (time_limit)``, exit 0, nothing written; the API counts reading;
* scoring: ``score``, ``learn``, ``enumerate``, ``kbest`` and ``run`` stop scoring at the limit (between
  levels, pieces and blocks, in worker processes too); the table is truncated at the last complete
  parent-set size -- exactly the table a parent limit of that size gives -- and every result from it
  is labelled INCOMPLETE, with nothing claimed about the optimum;
* the optimum and the collection: the search gets what is left, and a collection leaves the listing
  and writing of each network its time;
* writing: a folder is written whole; pictures that no longer fit are skipped, the report says why;
* workers: ``n_jobs`` beyond the cores is capped and said; a worker that cannot start is one line, no hang;
* memory: a column of thousands of states is refused (or counted sparsely) before its quadratic tables
  are allocated, naming the variables and the amount.

Subprocess runs are measured as a user would (:mod:`process_tree`: wall time and the peak memory of the
whole process tree).  Bounds on time are generous (the limit plus several seconds): the machine is shared.
"""

from __future__ import annotations

import json
import logging
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import gobnilp_py as gp
from gobnilp_py import ScoreTable
from gobnilp_py._budget import NO_LIMIT_SECONDS, Budget, TimeLimitReached, process_age
from gobnilp_py.cli import main
from gobnilp_py.scoring import engine, parallel, pool, walk_state

from datasets import dataset
from process_tree import available as proc_available
from process_tree import run_measured

ROOT = Path(__file__).resolve().parents[1]
ZOO = dataset("zoo")            # shipped; BDeu at BF 20 takes a few seconds to score (13 lattice levels)
WINE = dataset("wine")
CLI = [sys.executable, "-m", "gobnilp_py"]
#: Seconds a subprocess may take beyond its limit: interpreter start, imports and a loaded machine.
SLACK = 8.0

needs_proc = pytest.mark.skipif(not proc_available(), reason="needs Linux /proc to measure the process tree")


@pytest.fixture(autouse=True)
def _alarm_left_clean():
    """Each test starts with SIGALRM at its default and no real-time timer, as a command-line process does.

    The reading guard arms only when the alarm is free (a user's own handler is left alone), so a handler or
    timer leaked by another test would decide the reading tests here.  It is cleared (timer first: a default
    handler with a timer running would end the process) and said, so that a leak shows as a warning."""
    import signal
    import warnings

    handler, timer = signal.getsignal(signal.SIGALRM), signal.getitimer(signal.ITIMER_REAL)
    if handler not in (signal.SIG_DFL, None) or timer != (0.0, 0.0):
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        warnings.warn(f"an earlier test left SIGALRM taken (handler {handler!r}, timer {timer}); cleared")
    yield


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture(scope="module")
def slow_csv(tmp_path_factory) -> Path:
    """26 ternary variables, 600 rows, each a noisy copy of an earlier one: BDeu at BF 20 keeps most parent
    sets, and scoring takes minutes (level 5 alone about 20 s), so any limit of seconds stops it in scoring."""
    path = tmp_path_factory.mktemp("slow") / "slow.csv"
    rng = np.random.default_rng(0)
    n, rows = 26, 600
    X = np.zeros((rows, n), dtype=int)
    X[:, 0] = rng.integers(0, 3, rows)
    for j in range(1, n):
        src = X[:, rng.integers(0, j)]
        X[:, j] = np.where(rng.random(rows) < 0.6, rng.integers(0, 3, rows), src)
    np.savetxt(path, X, fmt="%d", delimiter=",")
    return path


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory) -> Path:
    """200,000 rows of 10 small integer columns: reading takes seconds (Python loops), scoring does not matter."""
    path = tmp_path_factory.mktemp("big") / "big.csv"
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(200_000, 10))
    np.savetxt(path, codes, fmt="%d", delimiter=",", header=",".join(f"v{j}" for j in range(10)), comments="")
    return path


@pytest.fixture(scope="module")
def row_ids(tmp_path_factory) -> Path:
    """12,000 rows, two columns of 12,000 distinct values (row ids) and two binary ones."""
    path = tmp_path_factory.mktemp("ids") / "ids.csv"
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2, 12_000)
    b = (a + rng.integers(0, 2, 12_000)) % 2
    cols = np.column_stack([np.arange(12_000), rng.permutation(12_000), a, b])
    np.savetxt(path, cols, fmt="%d", delimiter=",", header="id,id2,a,b", comments="")
    return path


# ------------------------------------------------------------------ the budget itself
def test_budget_counts_from_its_start_and_treats_huge_limits_as_none():
    b = Budget(5, start=time.perf_counter() - 4.5)
    assert 0 < b.remaining() <= 0.5 and not b.expired()
    assert Budget(1e-9, start=time.perf_counter() - 1).expired()
    assert Budget(1e300).time_limit is None and Budget(NO_LIMIT_SECONDS).time_limit is None
    assert Budget(None).remaining() is None and Budget(None).left_for_engine() is None
    early = Budget(10).ending_before(3)
    assert early.time_limit == 7 and early.start == early.start
    assert Budget(1e-9, start=0.0).left_for_engine() == 1e-6     # engines refuse <= 0: a microsecond
    assert Budget.of(b) is b and Budget.of(3).time_limit == 3
    assert 0 <= process_age() < 3600
    for far in (1e10, 9.99e19):          # under "no limit" but past what the reading timer can hold
        with Budget(far).guard("reading"):
            pass


def test_guard_stops_pure_python_work_and_leaves_a_users_alarm_alone():
    import signal

    b = Budget(0.2)
    t0 = time.perf_counter()
    with pytest.raises(TimeLimitReached) as info:
        with b.guard("reading"):
            while True:
                sum(range(1000))
    assert time.perf_counter() - t0 < 2.0 and info.value.phase == "reading"
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)      # the timer is gone after the block
    # a user's own SIGALRM handler: the guard does not arm (the block runs to its end)
    old = signal.signal(signal.SIGALRM, lambda *a: None)
    try:
        with Budget(0.05).guard("reading"):
            time.sleep(0.2)
    finally:
        signal.signal(signal.SIGALRM, old)


def test_the_guard_rings_again_when_its_first_ring_is_dropped():
    """A ring that lands in a callback called from C (a gc callback hypothesis registers, in the full suite)
    is printed and dropped there: the guard rings again until its block ends (one ring let reading run on)."""
    t0 = time.perf_counter()
    dropped = 0
    with pytest.raises(TimeLimitReached):
        with Budget(0.1).guard("reading"):
            while time.perf_counter() - t0 < 5:
                try:
                    while time.perf_counter() - t0 < 5:
                        sum(range(1000))
                except TimeLimitReached:
                    if dropped:
                        raise
                    dropped += 1              # as a callback called from C would: printed, dropped, go on
    assert dropped == 1 and time.perf_counter() - t0 < 2.0


def test_a_guard_whose_teardown_was_cut_leaves_nothing_that_fires_later():
    """A KeyboardInterrupt in a guard's teardown once left its timer and handler behind: later guards then
    never armed (reading ran past the limit) and the stale timer raised inside SCIP's callbacks."""
    import signal

    old = signal.getsignal(signal.SIGALRM)
    real = signal.setitimer
    calls = [0]

    def cut(which, seconds, interval=0.0):
        calls[0] += 1
        if calls[0] == 2:                      # the teardown's disarming: interrupted before it runs
            raise KeyboardInterrupt
        return real(which, seconds, interval)

    try:
        signal.setitimer = cut
        with pytest.raises(KeyboardInterrupt):
            with Budget(0.2).guard("reading"):
                pass
        signal.setitimer = real
        time.sleep(0.4)                        # the stale timer fires here: its handler does nothing
        with pytest.raises(TimeLimitReached):  # and the next guard arms as if the alarm were free
            with Budget(0.2).guard("reading"):
                t0 = time.perf_counter()
                while time.perf_counter() - t0 < 5:
                    pass
    finally:
        signal.setitimer = real
        real(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, old)


# ------------------------------------------------------------------ scoring: truncated, exactly
def _stop_at(monkeypatch, level: int) -> None:
    """Make the walk's clock run out when it starts building parent sets of size ``level`` (deterministic)."""
    real = walk_state._Run.tick

    def tick(self):
        if self.level >= level:
            raise walk_state._OutOfTime
        return real(self)

    monkeypatch.setattr(walk_state._Run, "tick", tick)


@pytest.mark.parametrize("walk", ["numpy", "python"])
def test_a_truncated_table_is_exactly_the_parent_limited_one(monkeypatch, walk):
    if walk == "python":
        monkeypatch.setattr(engine, "VECTORISE_MAX_N", None)
    data = gp.read_data(WINE, header=False)
    _stop_at(monkeypatch, 3)
    cut = gp.score(data, bayes_factor=20, n_jobs=1, time_limit=60)
    monkeypatch.undo()
    if walk == "python":
        monkeypatch.setattr(engine, "VECTORISE_MAX_N", None)
    ref = gp.score(data, bayes_factor=20, n_jobs=1, palim=2)
    inc = cut.incomplete
    assert inc is not None and inc["reason"] == "time_limit" and inc["stopped_at_size"] == 3
    assert set(inc["truncated"].values()) <= {2}
    for v, name in enumerate(cut.names):
        got = sorted(cut.families[v])
        if name in inc["truncated"]:   # the variables still growing keep sizes <= 2: palim=2's families
            assert got == sorted(ref.families[v]), name
        assert max(len(ps) for ps, _ in got) <= 2
    assert cut.safe_epsilon is None and cut.approximate and cut.guarantee.startswith("INCOMPLETE (time_limit)")
    assert "nothing is known about the optimum" in cut.guarantee


def test_truncation_survives_a_jkl_round_trip_and_labels_what_is_searched_on_it(monkeypatch, tmp_path):
    _stop_at(monkeypatch, 3)
    cut = gp.score(WINE, header=False, bayes_factor=3, n_jobs=1, time_limit=60)
    monkeypatch.undo()
    path = tmp_path / "cut.jkl"
    cut.to_jkl(path)
    back = ScoreTable.from_jkl(path)
    assert back.incomplete == cut.incomplete and back.guarantee == cut.guarantee and back.safe_epsilon is None
    net = gp.learn(back)
    assert net.status == "time_limit" and net.dual_bound is None
    assert net.guarantee.startswith("INCOMPLETE (time_limit)") and not net.approximate
    assert any("nothing is known about the optimum" in c for c in net.caveats)
    cs = gp.enumerate_networks(back, bayes_factor=3)
    assert not cs.complete and cs.reason == "time_limit" and len(cs) == 0 and math.isnan(cs.opt)


def test_workers_stop_at_the_deadline_too(monkeypatch, slow_csv):
    """The deadline reaches the pool: a chunk in a worker stops between blocks (ScoringDeadline).

    On the slow data (minutes of scoring), not zoo: on an idle machine zoo's whole table took 0.87 s, under
    the limit, so the test depended on the load."""
    for name in ("PARALLEL_MIN_GROUPS", "PARALLEL_MIN_UNITS", "PARALLEL_MIN_UNITS_PER_GROUP"):
        monkeypatch.setattr(parallel, name, 0)
    limit = 1.0
    t0 = time.perf_counter()
    table = gp.score(str(slow_csv), header=False, score="BDeu", bayes_factor=20, n_jobs=2, time_limit=limit)
    elapsed = time.perf_counter() - t0
    assert elapsed < limit + 5.0, elapsed
    assert table.incomplete is not None and table.meta["n_jobs"] == 2
    assert table.meta["families_scored"] == sum(table.meta["families_scored_per_level"])


def test_in_process_scoring_stops_between_blocks_not_only_between_levels(slow_csv):
    """A level scored in-process (one piece) is cut inside: the deadline is read per block of parent sets."""
    budget = Budget(0.8)
    table = gp.score(str(slow_csv), header=False, score="BDeu", bayes_factor=20, n_jobs=1, time_limit=budget)
    assert budget.elapsed() < 0.8 + 3.0
    assert table.incomplete is not None


# ------------------------------------------------------------------ the drivers on a truncated table
def test_learn_searches_the_truncated_table_and_labels_it(monkeypatch):
    _stop_at(monkeypatch, 2)
    net = gp.learn(WINE, header=False, time_limit=60)
    assert net.status == "time_limit" and net.dual_bound is None and math.isfinite(net.score)
    assert net.stats["scoring_stopped"] == "time_limit" and net.stats.get("optimal_for_truncated_table")
    assert all(len(ps) <= 1 for ps in net.parents.values())
    assert net.guarantee.startswith("INCOMPLETE (time_limit)")


def test_enumerate_and_kbest_certify_nothing_from_a_truncated_table(monkeypatch):
    _stop_at(monkeypatch, 2)
    cs = gp.enumerate_networks(WINE, header=False, bayes_factor=3, time_limit=60)
    assert not cs.complete and cs.reason == "time_limit" and len(cs) == 0 and cs.stats["scoring_stopped"]
    assert any("scoring stopped by the time limit" in c for c in cs.caveats)
    kb = gp.kbest(WINE, 3, header=False, time_limit=60)
    assert not kb.complete and kb.reason == "time_limit" and len(kb) == 0
    assert kb.guarantee.startswith("INCOMPLETE (time_limit)")


# ------------------------------------------------------------------ reading
def test_the_command_line_stops_reading_at_the_limit(big_csv, tmp_path, capsys):
    out = tmp_path / "out"
    t0 = time.perf_counter()
    code = main(["enumerate", str(big_csv), "--bf", "3", "--time-limit", "0.3", "-o", str(out)])
    elapsed = time.perf_counter() - t0
    std = capsys.readouterr()
    assert code == 0 and elapsed < 0.3 + 3.0, elapsed
    assert std.out.startswith("# INCOMPLETE (time_limit): the 0.3 s time limit ran out while reading the data")
    assert not out.exists()                                   # nothing written, not even a staging folder
    assert not list(tmp_path.glob(".out*"))


def test_the_command_line_json_answer_when_reading_ran_out(big_csv, capsys):
    code = main(["learn", str(big_csv), "--time-limit", "0.2", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and d["complete"] is False and d["reason"] == "time_limit" and d["phase"] == "reading"
    assert d["guarantee"].startswith("INCOMPLETE (time_limit)")


def test_run_stops_reading_at_the_limit(big_csv, tmp_path, capsys):
    cfg = tmp_path / "job.toml"
    cfg.write_text(f'[data]\npath = "{big_csv}"\n[search]\njob = "learn"\n[limits]\ntime_limit = 0.3\n'
                   f'[output]\ndir = "{tmp_path / "out"}"\n')
    t0 = time.perf_counter()
    code = main(["run", str(cfg)])
    assert code == 0 and time.perf_counter() - t0 < 0.3 + 3.0
    assert "ran out while reading" in capsys.readouterr().out and not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["score", "kbest"])
def test_score_and_kbest_stop_reading_at_the_limit_too(command, big_csv, tmp_path, capsys):
    out = tmp_path / "t.jkl"
    head = ["score", str(big_csv), "-o", str(out)] if command == "score" else ["kbest", str(big_csv), "-k", "3"]
    t0 = time.perf_counter()
    code = main(head + ["--time-limit", "0.3"])
    elapsed = time.perf_counter() - t0
    std = capsys.readouterr()
    assert code == 0 and elapsed < 0.3 + 3.0, elapsed
    assert std.out.startswith("# INCOMPLETE (time_limit): the 0.3 s time limit ran out while reading the data")
    assert not out.exists() and not list(tmp_path.iterdir())      # nothing written, no .part left


@pytest.mark.parametrize("command", ["score", "enumerate", "kbest"])
def test_the_api_counts_reading_for_every_command(command, big_csv):
    """Reading used the whole limit: what follows stops at once and every result is labelled."""
    if command == "score":
        r = gp.score(big_csv, time_limit=0.3)
        assert r.incomplete is not None and r.incomplete["reason"] == "time_limit"
    else:
        r = (gp.enumerate_networks(big_csv, bayes_factor=3, time_limit=0.3) if command == "enumerate"
             else gp.kbest(big_csv, 3, time_limit=0.3))
        assert not r.complete and r.reason == "time_limit"
    assert r.guarantee.startswith("INCOMPLETE (time_limit)")


def test_the_api_counts_reading(big_csv):
    """The API has nothing to return while reading, so it reads to the end, then finds the time gone."""
    net = gp.learn(big_csv, time_limit=0.3)
    assert net.status == "time_limit" and not math.isfinite(net.score)


# ------------------------------------------------------------------ every command, every interface
def _cmd(command: str, interface: str, limit: float, tmp: Path, data: Path) -> list[str]:
    """A run of ``command`` on ``data`` (BDeu, BF 20: minutes of scoring) through ``interface``, limited to
    ``limit`` seconds."""
    zoo = str(data)
    if interface == "cli":
        head = {"score": ["score", zoo, "-o", str(tmp / "zoo.jkl"), "--bf", "20"],
                "learn": ["learn", zoo], "enumerate": ["enumerate", zoo, "--bf", "20", "-o", str(tmp / "out")],
                "kbest": ["kbest", zoo, "-k", "3", "-o", str(tmp / "out")]}[command]
        return CLI + head + ["--no-header", "--score", "BDeu", "--time-limit", str(limit)]
    if interface == "config":
        job = {"score": 'job = "score"\nbayes_factor = 20', "learn": 'job = "learn"',
               "enumerate": 'job = "enumerate"\nbayes_factor = 20', "kbest": 'job = "kbest"\nk = 3'}[command]
        cfg = tmp / "job.toml"
        cfg.write_text(f'[data]\npath = "{zoo}"\nheader = false\n[scoring]\nscore = "BDeu"\n[search]\n{job}\n'
                       f'[limits]\ntime_limit = {limit}\n[output]\ndir = "{tmp / "run"}"\n')
        return CLI + ["run", str(cfg)]
    call = {"score": f"gp.score({zoo!r}, header=False, score='BDeu', bayes_factor=20, time_limit={limit})",
            "learn": f"gp.learn({zoo!r}, header=False, score='BDeu', time_limit={limit})",
            "enumerate": f"gp.enumerate_networks({zoo!r}, header=False, score='BDeu', bayes_factor=20, "
                         f"time_limit={limit})",
            "kbest": f"gp.kbest({zoo!r}, 3, header=False, score='BDeu', time_limit={limit})"}[command]
    return [sys.executable, "-c", f"import gobnilp_py as gp\nr = {call}\n"
            "print(getattr(r, 'guarantee', ''))\nprint('incomplete', getattr(r, 'incomplete', None) is not None)"]


FAST = [("enumerate", "cli"), ("learn", "api"), ("kbest", "config")]
MATRIX = [(c, i) for c in ("score", "learn", "enumerate", "kbest") for i in ("api", "cli", "config")]


@needs_proc
@pytest.mark.parametrize("command,interface", [
    pytest.param(c, i, marks=() if (c, i) in FAST else pytest.mark.slow) for c, i in MATRIX])
def test_every_command_keeps_the_limit_through_every_interface(command, interface, tmp_path, slow_csv):
    """Wall time of the whole process within the limit (plus start-up slack), a labelled answer, exit 0,
    the memory of the whole process tree under the memory limit, and every file written whole.  (Before
    the limit reached scoring, every one of these ran for minutes.)"""
    limit, memory = 4.0, 2e9
    cmd = _cmd(command, interface, limit, tmp_path, slow_csv)
    if interface == "cli":
        cmd += ["--memory-limit", str(memory)]
    elif interface == "config":
        cfg = Path(cmd[-1])
        cfg.write_text(cfg.read_text().replace('score = "BDeu"', f'score = "BDeu"\nmemory_limit = {memory:.0f}'))
    else:
        cmd[-1] = cmd[-1].replace("time_limit=", f"memory_limit={memory:.0f}, time_limit=")
    m = run_measured(cmd, timeout=limit + 120, env=_env())
    assert m.returncode == 0, m.stderr[-2000:]
    assert m.wall < limit + SLACK, m.wall
    assert m.leftover == 0                                   # no worker outlives the command
    assert m.peak_rss < memory, m.peak_rss
    assert "INCOMPLETE (time_limit)" in m.stdout, m.stdout[-2000:]
    if interface == "api" and command == "score":
        assert "incomplete True" in m.stdout
    if interface != "api" and command != "score" and "ran out while reading" not in m.stdout:
        assert "scoring stopped by the time limit" in m.stdout   # the caveat says what the limit cut
    for part in tmp_path.rglob("*"):
        assert not part.name.endswith(".part") and ".staging" not in part.name
    if interface == "config" and "ran out while reading" not in m.stdout:
        written = json.loads((tmp_path / "run" / "result.json").read_text())
        assert written["complete"] is False and written["guarantee"].startswith("INCOMPLETE (time_limit)")


@needs_proc
def test_score_from_the_command_line_writes_a_labelled_truncated_jkl(tmp_path, slow_csv):
    out = tmp_path / "slow.jkl"
    m = run_measured(CLI + ["score", str(slow_csv), "--no-header", "--score", "BDeu", "--bf", "20", "--time-limit",
                            "4", "-o", str(out)], timeout=120, env=_env())
    assert m.returncode == 0 and m.wall < 4 + SLACK, (m.wall, m.stderr)
    if "ran out while reading" in m.stdout:          # a machine so loaded that start-up took the limit
        assert not out.exists()
        return
    table = ScoreTable.from_jkl(out)
    assert table.incomplete is not None and table.guarantee.startswith("INCOMPLETE (time_limit)")
    assert m.stdout.startswith("# INCOMPLETE (time_limit)")     # the label first, as every command's answer


# ------------------------------------------------------------------ collection and writing
def test_the_collection_leaves_writing_its_time(monkeypatch, tmp_path, capsys):
    """A collection cut by the limit stops listing early enough for writing each listed network; here
    writing is made to cost 1 ms a network, and the command still ends near its limit."""
    import gobnilp_py.cli._enumerate as E
    import gobnilp_py.cli._options as O

    real = E.write_collection

    def slow(cs, folder, force=False):
        time.sleep(1e-3 * len(cs))
        return real(cs, folder, force=force)

    monkeypatch.setattr(E, "write_collection", slow)
    monkeypatch.setattr(E, "WRITE_SECONDS_PER_NETWORK_VARIABLE", 1e-3 / 14)   # 1 ms for wine's 14 variables
    out = tmp_path / "out"
    limit = 6.0
    t0 = time.perf_counter()
    code = main(["enumerate", str(WINE), "--no-header", "--bf", "150", "--time-limit", str(limit), "-o", str(out)])
    elapsed = time.perf_counter() - t0
    assert code == 0 and elapsed < limit + 3.0, elapsed
    summary = json.loads((out / "summary.json").read_text())
    if not summary["complete"]:
        assert summary["reason"] == "time_limit" and summary["guarantee"].startswith("INCOMPLETE")
    assert O.WRITE_SECONDS_PER_NETWORK_VARIABLE > 0


def test_pictures_that_no_longer_fit_are_skipped_and_the_report_says_so(monkeypatch, tmp_path):
    from gobnilp_py.output import job

    monkeypatch.setattr(job, "DRAW_SECONDS_PER_PICTURE", 1e6)
    cfg = tmp_path / "job.toml"
    cfg.write_text(f'[data]\npath = "{WINE}"\nheader = false\n[search]\njob = "learn"\n[limits]\ntime_limit = 600\n'
                   f'[output]\ndir = "{tmp_path / "out"}"\nwrite = ["json", "report", "dag_png"]\n')
    res = gp.run(cfg)
    assert not (tmp_path / "out" / "best.png").exists()
    report = (tmp_path / "out" / "report.md").read_text()
    assert "not drawn: the 600 s time limit left" in report


# ------------------------------------------------------------------ workers
def test_n_jobs_beyond_the_cores_is_capped_and_said(caplog):
    with caplog.at_level(logging.WARNING, logger="gobnilp_py"):
        table = gp.score(WINE, header=False, n_jobs=100_000)
    cores = pool.usable_cores()
    assert table.meta["n_jobs"] == cores and table.meta["n_jobs_requested"] == 100_000
    assert any(f"n_jobs=100000 capped at {cores}" in r.getMessage() for r in caplog.records)


@needs_proc
def test_n_jobs_100000_from_the_command_line_ends_and_leaves_no_process(tmp_path):
    script = ("import sys\nfrom gobnilp_py.scoring import parallel\n"
              "parallel.PARALLEL_MIN_GROUPS = parallel.PARALLEL_MIN_UNITS = parallel.PARALLEL_MIN_UNITS_PER_GROUP = 0\n"
              "from gobnilp_py.cli import main\n"
              f"sys.exit(main(['score', {str(ZOO)!r}, '--no-header', '--palim', '2', '--n-jobs', '100000', "
              f"'-o', {str(tmp_path / 'z.jkl')!r}]))\n")
    m = run_measured([sys.executable, "-c", script], timeout=120, env=_env())
    assert m.returncode == 0, m.stderr
    assert "capped at" in m.stderr and m.peak_processes <= pool.usable_cores() + 2
    assert m.leftover == 0 and m.wall < 60


@needs_proc
def test_a_worker_that_cannot_start_is_one_line_and_no_hang(tmp_path):
    script = ("import errno, sys, multiprocessing.context as c\n"
              "from gobnilp_py.scoring import parallel\n"
              "parallel.PARALLEL_MIN_GROUPS = parallel.PARALLEL_MIN_UNITS = parallel.PARALLEL_MIN_UNITS_PER_GROUP = 0\n"
              "real, n = c.ForkProcess.start, [0]\n"
              "def start(self):\n"
              "    n[0] += 1\n"
              "    if n[0] >= 2:\n"
              "        raise BlockingIOError(errno.EAGAIN, 'Resource temporarily unavailable')\n"
              "    return real(self)\n"
              "c.ForkProcess.start = start\n"
              "from gobnilp_py.cli import main\n"
              f"sys.exit(main(['score', {str(ZOO)!r}, '--no-header', '--palim', '2', '--n-jobs', '2', "
              f"'-o', {str(tmp_path / 'z.jkl')!r}]))\n")
    m = run_measured([sys.executable, "-c", script], timeout=60, env=_env())
    assert m.returncode == 1, (m.returncode, m.stderr)
    lines = [ln for ln in m.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "cannot start scoring worker process" in lines[0], m.stderr
    assert "Resource temporarily unavailable" in lines[0] and "--n-jobs" in lines[0]
    assert m.leftover == 0 and m.wall < 30 and not (tmp_path / "z.jkl").exists()


# ------------------------------------------------------------------ memory
@needs_proc
def test_a_row_id_column_is_refused_before_its_quadratic_table(row_ids):
    limit = 1e9
    m = run_measured(CLI + ["learn", str(row_ids), "--score", "BDeu", "--memory-limit", str(limit), "-q"],
                     timeout=120, env=_env())
    assert m.returncode == 1 and m.stderr.count("\n") == 1, m.stderr
    msg = m.stderr
    assert "'id2'" in msg and "{id}" in msg and "GiB" in msg and "over memory_limit 954 MiB" in msg
    assert "row ids or continuous values" in msg
    assert m.peak_rss < limit, m.peak_rss                # refused before allocating (was 3.3 GB)


@needs_proc
def test_row_id_atoms_are_counted_sparsely(row_ids):
    """BIC prunes the id families without counting them; LL(v | all others) no longer builds id x id tables."""
    limit = 1e9
    m = run_measured(CLI + ["learn", str(row_ids), "--memory-limit", str(limit), "-q"], timeout=120, env=_env())
    assert m.returncode == 0 and "complete: proven optimal" in m.stdout, m.stderr
    assert m.peak_rss < limit, m.peak_rss


def test_sparse_atoms_give_the_dense_values():
    """The sparse atom counts (wide tables) give what the dense ones give, on data where both can run."""
    from gobnilp_py.scoring import atom_bounds as ab
    from gobnilp_py.scoring.counts import ParentConfigs

    rng = np.random.default_rng(3)
    codes = np.column_stack([rng.integers(0, 40, 300), rng.integers(0, 3, 300), rng.integers(0, 2, 300)])
    codes[:, 1] = (codes[:, 0] + codes[:, 1]) % 3
    pc = ParentConfigs(gp.read_data(codes))
    for child in range(3):
        dense = ab.child_atoms(pc, child, np.arange(pc.rows))
        others = tuple(j for j in range(3) if j != child)
        z, m = pc.ids(others)
        sparse = ab._child_atoms_sparse(pc, child, np.arange(pc.rows), z, m, int(pc.arities[child]))
        for f in ("inv", "d", "fr_atom", "ent_atom"):
            assert np.array_equal(getattr(dense, f), getattr(sparse, f)), f
        for f in ("ml", "fr_p", "ent_i", "ent_p"):
            assert np.allclose(getattr(dense, f), getattr(sparse, f), rtol=0, atol=1e-9), f


def test_a_small_memory_limit_starts_fewer_workers_and_says_so(caplog):
    with caplog.at_level(logging.WARNING, logger="gobnilp_py"):
        table = gp.score(WINE, header=False, n_jobs=2, memory_limit=300 * 2**20)
    assert table.meta["n_jobs"] == 1
    assert any("leaves no room for scoring worker processes" in r.getMessage() for r in caplog.records)


def test_the_memory_limit_reaches_the_search_engines():
    from gobnilp_py.solve.methods import METHODS, with_memory_limit

    og = with_memory_limit(METHODS["ordergraph"], {}, 10**9)
    assert og == {"memory_budget": 10**9}
    ilp = with_memory_limit(METHODS["ilp"], {"params": {"limits/nodes": 5}}, 2**30)
    assert ilp["params"] == {"limits/nodes": 5, "limits/memory": 1024.0}
    mine = with_memory_limit(METHODS["ilp"], {"params": {"limits/memory": 10}}, 2**30)
    assert mine["params"]["limits/memory"] == 10             # the user's own SCIP setting wins
    assert with_memory_limit(METHODS["asobs"], {}, 10**9) == {}


# ------------------------------------------------------------------ a limit SCIP would refuse
@pytest.mark.parametrize("how", ["cli", "cli-1e10", "config", "settings"])
def test_an_enormous_time_limit_means_no_limit_and_no_scip_errors(how, tmp_path):
    """1e300 is SCIP's infinity or more: no limit, nothing said.  1e10 is under it but past the 64-bit
    nanoseconds of the reading timer (``setitimer`` overflowed: an internal error, exit 3)."""
    if how.startswith("cli"):
        limit = "1e10" if how == "cli-1e10" else "1e300"
        cmd = CLI + ["learn", str(WINE), "--no-header", "--method", "ilp", "--time-limit", limit]
    elif how == "config":
        cfg = tmp_path / "job.toml"
        cfg.write_text(f'[data]\npath = "{WINE}"\nheader = false\n[search]\njob = "learn"\nmethod = "ilp"\n'
                       f'[limits]\ntime_limit = 1e300\n[output]\ndir = "{tmp_path / "out"}"\n')
        cmd = CLI + ["run", str(cfg)]
    else:
        cfg = tmp_path / "gobnilp.set"
        cfg.write_text("limits/time = 1e300\n")
        cmd = CLI + ["run", str(cfg), "--data", str(WINE), "--set", "data.header=false", "--job", "learn",
                     "--method", "ilp", "-o", str(tmp_path / "out")]
    r = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=300)
    assert r.returncode == 0, r.stderr
    both = r.stdout + r.stderr
    assert "ERROR" not in both and "paramset" not in both and "limits/time" not in both
    assert "complete: proven optimal" in r.stdout


# ------------------------------------------------------------------ the acceptance run of issue 37
@needs_proc
@pytest.mark.slow
@pytest.mark.parametrize("interface", ["cli", "config"])
def test_alarm1000_bdeu_bf20_in_thirty_seconds_under_the_memory_limit(interface, tmp_path):
    """The run issue 37 named (minutes of scoring and 8 GiB before), as ``enumerate`` and as ``run`` with a
    config; benchmarks/bench_limits_kept.py measures the same runs for benchmarks/RESULTS.md."""
    alarm = dataset("alarm1000")
    limit, memory = 30, 2e9
    if interface == "cli":
        cmd = CLI + ["enumerate", str(alarm), "--no-header", "--score", "BDeu", "--bf", "20",
                     "--time-limit", str(limit), "--memory-limit", str(memory)]
    else:
        cfg = tmp_path / "job.toml"
        cfg.write_text(f'[data]\npath = "{alarm}"\nheader = false\n[scoring]\nscore = "BDeu"\n'
                       f'memory_limit = {memory:.0f}\n[search]\njob = "enumerate"\nbayes_factor = 20\n'
                       f'[limits]\ntime_limit = {limit}\n[output]\ndir = "{tmp_path / "out"}"\n')
        cmd = CLI + ["run", str(cfg)]
    m = run_measured(cmd, timeout=300, env=_env())
    assert m.returncode == 0, m.stderr
    assert m.wall < limit + SLACK, m.wall
    assert m.peak_rss < memory, m.peak_rss
    assert m.stdout.startswith("# INCOMPLETE (time_limit)") and "OPT = not proven" in m.stdout
    assert "scoring stopped by the time limit" in m.stdout
    assert m.leftover == 0
    if interface == "config":
        written = json.loads((tmp_path / "out" / "result.json").read_text())
        assert written["complete"] is False and written["guarantee"].startswith("INCOMPLETE (time_limit)")


def test_run_from_python_reads_to_the_end_and_labels_what_follows(big_csv, tmp_path):
    """``gobnilp_py.run`` has a result to give only after reading: it reads, then finds the time gone."""
    cfg = tmp_path / "job.toml"
    cfg.write_text(f'[data]\npath = "{big_csv}"\n[search]\njob = "learn"\n[limits]\ntime_limit = 0.3\n'
                   f'[output]\ndir = "{tmp_path / "out"}"\n')
    res = gp.run(cfg)
    assert res.result.status == "time_limit" and res.guarantee.startswith("INCOMPLETE (time_limit)")
    assert json.loads((tmp_path / "out" / "result.json").read_text())["complete"] is False


def test_run_from_python_stops_scoring_at_the_limit_and_writes_a_labelled_folder(slow_csv, tmp_path):
    """``gobnilp_py.run`` (the API of a config file): scoring cut by the limit, the collection labelled,
    the folder written whole, all within the limit plus slack."""
    cfg = tmp_path / "job.toml"
    cfg.write_text(f'[data]\npath = "{slow_csv}"\nheader = false\n[scoring]\nscore = "BDeu"\n[search]\n'
                   f'job = "enumerate"\nbayes_factor = 20\n[limits]\ntime_limit = 3\n'
                   f'[output]\ndir = "{tmp_path / "out"}"\n')
    t0 = time.perf_counter()
    res = gp.run(cfg)
    elapsed = time.perf_counter() - t0
    assert elapsed < 3 + SLACK, elapsed
    assert res.guarantee.startswith("INCOMPLETE (time_limit)")
    assert any("scoring stopped by the time limit" in c for c in res.result.caveats)
    written = json.loads((tmp_path / "out" / "result.json").read_text())
    assert written["complete"] is False and written["guarantee"].startswith("INCOMPLETE (time_limit)")
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".part") or ".staging" in p.name]


def test_dask_tasks_stop_at_the_deadline_too(slow_csv, monkeypatch, tmp_path):
    """On a Dask cluster the deadline travels with every task (the wall clock, not this process's)."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (extra 'dask')")
    import dask
    for name in ("PARALLEL_MIN_GROUPS", "PARALLEL_MIN_UNITS", "PARALLEL_MIN_UNITS_PER_GROUP"):
        monkeypatch.setattr(parallel, name, 0)
    data = gp.read_data(slow_csv, header=False)
    # dask's scratch folder (it outlives the cluster) in this test's folder, not the system's temporary one
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) \
            as cluster:
        budget = Budget(3.0)
        table = gp.score(data, score="BDeu", bayes_factor=20, backend="dask", scheduler=cluster.scheduler_address,
                         time_limit=budget)
        elapsed = budget.elapsed()
    assert table.incomplete is not None and table.meta["backend"] == "dask"
    assert elapsed < 3.0 + 5.0, elapsed
