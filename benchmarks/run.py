"""The benchmark runner: every benchmark by name, what it measures, and one way to run it.

Usage (from the project root)::

    python benchmarks/run.py                      # list the benchmarks and what each measures
    python benchmarks/run.py scoring -- --budget 60 --pgmpy-sample 100
    flock /work/cpu.lock python benchmarks/run.py learn -- wine zoo --bf 3

A run prints, before the benchmark's own output, the line that reproduces it, the date (UTC) and the
machine's load (``/proc/loadavg``), so a figure copied into ``benchmarks/RESULTS.md`` carries all
three.  The script runs with this checkout first on ``PYTHONPATH``.  Benchmarks are heavy: on a
shared machine run them under the shared lock.  Figures live in ``benchmarks/RESULTS.md`` (the
current ones) and the files it links under ``benchmarks/results/`` (named by what they measure);
earlier figures are in git history.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its script (in ``benchmarks/``), what it measures, and where its figures are."""

    name: str
    script: str
    measures: str
    results: str = "RESULTS.md"


BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (
    Benchmark("suite", "suite.py", "Liao et al. (AAAI 2019) Tables 1 and 2 on every dataset: OPT, ε-sets at BF 3/20/150, "
              "classes, k-best for k = 10/100/1000 by each method, published figures beside ours",
              "RESULTS.md §4"),
    Benchmark("scoring", "bench_scoring.py", "scoring time and table size per dataset, pgmpy's scorer on the same families",
              "RESULTS.md §1"),
    Benchmark("learn", "bench_learn.py", "learn(): time to the proven optimum, nodes, cuts, time split, by method",
              "RESULTS.md §2"),
    Benchmark("enumerate", "bench_enumerate.py", "enumerate_networks(): ε-BNSL time and counts per dataset and Bayes "
              "factor (Liao et al. Table 1 style)", "RESULTS.md §3"),
    Benchmark("engines", "bench_engines.py", "the search methods side by side on identical tables: time to OPT and to "
              "the whole ε-set", "results/order-graph-vs-ilp-and-auto-choice.md"),
    Benchmark("order-graph", "bench_order_graph.py", "the order-graph engine: optimum (BFBnB) and ε-set per dataset and "
              "Bayes factor", "results/order-graph-vs-ilp-and-auto-choice.md"),
    Benchmark("fixed-order", "bench_fixed_order.py", "learning under a fixed order: Tian's branch and bound against "
              "plainer searches", "docs/fixed-order.md"),
    Benchmark("classes", "bench_classes.py", "ε-BNSL by class beside GOBNILP eBNSL (C) on identical .jkl files",
              "results/class-collection-vs-gobnilp.md"),
    Benchmark("search-table", "bench_search_table.py", "one saved score table searched with a Bayes factor and a time "
              "limit: one JSON line (used by the class-collection side-by-sides)",
              "results/class-invariant-branching-hailfinder.md"),
    Benchmark("kbest-bounds", "bench_kbest_bounds.py", "k-best parent limits and the certified k-best gap on the shared "
              "data", "results/kbest-bounds-and-certified-gap.md"),
    Benchmark("kbest-driver", "bench_kbest_driver.py", "kbest() from one certified gap: methods side by side, table "
              "sizes, passes", "results/kbest-bounds-and-certified-gap.md"),
    Benchmark("asobs", "bench_asobs.py", "independence selection + ASOBS beside BLIP 0.9, every network scored by our "
              "exact BIC", "results/asobs-vs-blip-and-incumbent.md"),
    Benchmark("asobs-vs-blip", "bench_asobs_vs_blip.py", "ASOBS beside BLIP 0.9's solver.asobs on the same score "
              "table at equal time: median of 5 seeds per bnlearn sample, wins/losses (restarts on n_jobs workers)",
              "results/asobs-vs-blip-same-table.md"),
    Benchmark("asobs-warmstart", "bench_asobs_warmstart.py", "the ASOBS incumbent inside the exact engines: ILP warm "
              "start, order-graph bound, lower_bound='auto' table sizes", "results/asobs-vs-blip-and-incumbent.md"),
    Benchmark("bdeu-atom-costs", "bench_correia14.py", "BDeu scoring with and without per-atom ml_ceiling costs "
              "(Correia et al.)", "results/bdeu-atom-costs-correia.md"),
    Benchmark("scoring-deadline-overhead", "bench_scoring_deadline_overhead.py", "scoring speed with and without the "
              "time-limit checks: two source trees side by side"),
    Benchmark("limits-kept", "bench_limits_kept.py", "whole commands under a time and a memory limit: wall time and "
              "the peak memory of the process tree"),
    Benchmark("import-time", "bench_import_time.py", "start-up cost: import gobnilp_py and gobnilp-py --help in fresh "
              "interpreters"),
    Benchmark("numba-extra", "bench_numba_extra.py", "what the optional numba extra buys: the same work with and "
              "without it"),
    Benchmark("write-result", "bench_write_result.py", "writing 150,000 networks of 45 variables through every output"),
    Benchmark("ilp-hard", "bench_ilp_hard.py", "proving one optimum on hard tables (bnlearn network samples, BDeu/BIC, "
              "parent limits 3-4) beside the GOBNILP C program on the same .jkl: time, or gap and both bounds",
              "results/ilp-hard-tables-vs-gobnilp.md"),
    Benchmark("gaussian-scoring", "bench_gaussian_scoring.py", "Gaussian BIC and BGe: scoring and the optimum beside "
              "causal-learn's bic_exact_search, and every network within a Bayes factor", "RESULTS.md (Gaussian scores)"),
    Benchmark("gaussian-parallel", "bench_gaussian_parallel.py", "Gaussian scoring in-process beside two worker "
              "processes, side by side, and the cost of starting the pool", "RESULTS.md (Gaussian scores)"),
    Benchmark("collect-dask", "bench_collect_dask.py", "the ε-collection in-process beside the same collection split "
              "over a Dask LocalCluster of 2 worker processes, side by side: ratio and load", "RESULTS.md (issue 42)"),
    Benchmark("posterior", "bench_posterior.py", "exact sums over all DAGs (Tian-He) by width: time and memory",
              "results/posterior-sums-by-width.md"),
    Benchmark("posterior-coverage", "bench_posterior_coverage.py", "how much of the posterior a credible set holds, "
              "per dataset and Bayes factor", "results/credible-set-posterior-coverage.md"),
    Benchmark("graph-compare-crosscheck", "crosscheck_graph_compare_causallearn.py", "not timing: compare_graphs "
              "against causal-learn on random DAG pairs", "results/graph-compare-vs-causallearn.md"),
)}


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def listing() -> str:
    """The benchmarks, one a line: name, what it measures, where its figures are."""
    width = max(len(n) for n in BENCHMARKS)
    lines = [f"{b.name:<{width}}  {b.measures}  [{b.results}]" for b in BENCHMARKS.values()]
    return "\n".join(lines) + "\n\nrun one: python benchmarks/run.py NAME [-- ARGS]  (its --help lists ARGS)"


def command(name: str, args: list[str]) -> list[str]:
    """The command that runs benchmark ``name`` with ``args``."""
    return [sys.executable, str(HERE / BENCHMARKS[name].script), *args]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-l", "--list", "list"):
        print(listing())
        return 0
    if argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    name, rest = argv[0], argv[1:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    if name not in BENCHMARKS:
        print(f"run.py: unknown benchmark {name!r}; `python benchmarks/run.py` lists them", file=sys.stderr)
        return 2
    cmd = command(name, rest)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    shown = f"python benchmarks/run.py {name}" + (" -- " + shlex.join(rest) if rest else "")
    print(f"# {shown}\n# date: {stamp}; load (1/5/15 min): {_load()}; cores: {os.cpu_count()}", flush=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main())
