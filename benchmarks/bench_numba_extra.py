"""What the optional ``fast`` extra (numba) buys: the same work with and without it, side by side (issue 39).

Usage (heavy: run it under the shared lock)::

    flock /work/cpu.lock /work/venv/bin/python benchmarks/bench_numba_extra.py \\
        [--repeat 5] [--data-dir /work/shared/data] [--datasets wine zoo alarm1000:BIC ...] \\
        [--scores BIC BDeu] [--budget 600] [--asobs hailfinder100] [--jsonl runs.jsonl]

"Without numba" is a process in which ``import numba`` fails (a folder holding a ``numba`` package that
raises ``ImportError`` is put first on ``PYTHONPATH``, inherited by every worker), which is what an
installation without the extra sees: every kernel falls back to its numpy path.  Three kinds of work,
each case run with and without numba one after the other, so both see the same load:

1. **the main job** -- ``gobnilp-py run configs/enumerate.toml`` (Asia, BDeu, BF 20, 523 networks),
   each run a fresh process writing into a temporary folder, ``--repeat`` times after one untimed
   run per side (which fills numba's on-disk cache: the timed runs are what a user sees from the
   second run on); wall seconds of the whole process, median and minimum;
2. **scoring** -- ``benchmarks/bench_scoring.py`` on ``--datasets`` (``--scores``, BF 3, no pgmpy,
   ``--repeat 3``, ``--budget`` seconds a run): first call and warm calls of :func:`gobnilp_py.score`;
   ``NAME:SCORE`` scores that dataset with that score only (BDeu without a parent limit runs out of any
   budget on alarm1000, insurance1000 and hailfinder100: leave it out there);
3. **ASOBS** -- ``gobnilp-py learn DATA --method asobs --n-orders 200`` (deterministic without a time
   limit), wall seconds of the process.

``uptime`` is printed before each case.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env(blocker: Path | None) -> dict[str, str]:
    path = [str(blocker), str(ROOT)] if blocker else [str(ROOT)]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path))


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def _timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data-dir", default="/work/shared/data")
    ap.add_argument("--datasets", nargs="*", default=["wine", "zoo", "tic-tac-toe", "alarm1000", "insurance1000",
                                                      "hailfinder100"])
    ap.add_argument("--scores", nargs="*", default=["BIC", "BDeu"])
    ap.add_argument("--budget", type=float, default=600.0, help="seconds per scoring run")
    ap.add_argument("--asobs", nargs="*", default=["hailfinder100"])
    ap.add_argument("--jsonl", type=Path, default=None)
    a = ap.parse_args(argv)
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="gobnilp-numba-bench-") as tmp:
        blocker = Path(tmp) / "no-numba"
        (blocker / "numba").mkdir(parents=True)
        (blocker / "numba" / "__init__.py").write_text('raise ImportError("numba left out for a benchmark")\n')
        sides = {"with numba": _env(None), "without numba": _env(blocker)}
        check = {s: subprocess.run([py, "-c", "import gobnilp_py._numba as n; print(n.AVAILABLE)"], env=e,
                                   capture_output=True, text=True).stdout.strip() for s, e in sides.items()}
        assert check == {"with numba": "True", "without numba": "False"}, check
        rows = []

        # 1. the main job
        print("main job:", _uptime(), flush=True)
        job = [py, "-m", "gobnilp_py", "run", str(ROOT / "configs" / "enumerate.toml"), "-q", "-o"]
        times: dict[str, list[float]] = {s: [] for s in sides}
        first = {s: _timed(job + [str(Path(tmp) / f"warm-{s.replace(' ', '-')}")], e, Path(tmp))
                 for s, e in sides.items()}
        for i in range(a.repeat):
            for s, e in sides.items():
                times[s].append(_timed(job + [str(Path(tmp) / f"out{i}")], e, Path(tmp)))
        for s in sides:
            rows.append(("gobnilp-py run configs/enumerate.toml", s, statistics.median(times[s]), min(times[s])))
            rows.append(("the same, first run (numba's on-disk cache of this tree as found)", s, first[s], None))

        # 2. scoring
        for spec in a.datasets:
            d, _, only = spec.partition(":")
            scores = [only] if only else a.scores
            for s, e in sides.items():
                print(f"scoring {d} {s}:", _uptime(), flush=True)
                out = Path(tmp) / f"{d}-{s.replace(' ', '-')}.jsonl"
                subprocess.run([py, str(ROOT / "benchmarks" / "bench_scoring.py"), "--data-dir", a.data_dir,
                                "--datasets", d, "--scores", *scores, "--bf", "3", "--no-pgmpy", "--repeat",
                                "3", "--budget", str(a.budget), "--jsonl", str(out)], env=e, check=True,
                               stdout=subprocess.DEVNULL)
                for line in out.read_text().splitlines():
                    r = json.loads(line)
                    if r.get("time") is None:
                        print(f"score {d} {r['score']} {s}: {r.get('status')}", flush=True)
                        continue
                    rows.append((f"score {d} {r['score']} BF 3", s, r.get("time"), r.get("time_warm")))

        # 3. ASOBS
        for d in a.asobs:
            cmd = [py, "-m", "gobnilp_py", "learn", str(Path(a.data_dir) / f"{d}.csv"), "--no-header", "--method",
                   "asobs", "--n-orders", "200", "-q"]
            for s, e in sides.items():
                print(f"asobs {d} {s}:", _uptime(), flush=True)
                _timed(cmd, e, Path(tmp))  # numba's cache filled, scoring's kernels loaded once
                rows.append((f"learn {d} --method asobs --n-orders 200", s, _timed(cmd, e, Path(tmp)), None))
    print("done:", _uptime())
    print("\n| work | numba | wall s (median / first call) | min / warm s |\n|---|---|---|---|")
    for work, side, t1, t2 in rows:
        t2s = "-" if t2 is None else f"{t2:.3f}"
        print(f"| {work} | {side} | {t1:.3f} | {t2s} |")
    if a.jsonl:
        with a.jsonl.open("a") as fh:
            for work, side, t1, t2 in rows:
                fh.write(json.dumps({"work": work, "side": side, "t1": t1, "t2": t2}) + "\n")


if __name__ == "__main__":
    main()
