"""Start-up cost: ``import gobnilp_py`` and ``gobnilp-py --help`` in fresh interpreters (issue 39).

Usage (light: about 30 s of CPU in all; run it under the shared lock anyway, so the figures are not
taken beside a heavy job)::

    flock /work/cpu.lock /work/venv/bin/python benchmarks/bench_import_time.py [--repeat 15] \\
        [--tree /work/main --tree .]

For each source tree (default: this checkout) and each command below, the median and the minimum
wall time over ``--repeat`` fresh processes, the processes of all trees and commands interleaved so
a change of load hits them alike:

* ``python -c pass``                 -- the interpreter alone (the floor);
* ``python -c "import numpy"``       -- numpy alone, for scale;
* ``python -c "import gobnilp_py"``  -- the package;
* ``python -m gobnilp_py --help``    -- the command line's start (parser of every subcommand).

Each is timed twice: ``source`` with no ``.pyc`` of ours (this machine sets
``PYTHONDONTWRITEBYTECODE=1`` and the package is an editable install, so every
process compiles the modules it imports), and ``bytecode`` with compiled
modules, as an installed wheel has them (``PYTHONPYCACHEPREFIX`` points at a
temporary folder that a first, untimed run fills: no file lands in the tree).
``uptime`` is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "import numpy": ["-c", "import numpy"],
    "import gobnilp_py": ["-c", "import gobnilp_py"],
    "gobnilp-py --help": ["-m", "gobnilp_py", "--help"],
}


def _env(tree: Path, cache: str | None) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    if cache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def _once(args: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, stdout=subprocess.DEVNULL, check=True, cwd="/")
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--tree", action="append", default=None, help="a source tree to import from (repeatable)")
    a = ap.parse_args(argv)
    trees = [Path(t).resolve() for t in (a.tree or [Path(__file__).resolve().parents[1]])]
    print("uptime before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory(prefix="gobnilp-import-bench-") as tmp:
        caches = {t: str(Path(tmp) / str(i)) for i, t in enumerate(trees)}
        for t in trees:  # fill each tree's bytecode cache (untimed)
            for args in COMMANDS.values():
                _once(args, _env(t, caches[t]))
        times: dict[tuple[Path, str, str], list[float]] = {}
        for _ in range(a.repeat):
            for t in trees:
                for mode in ("source", "bytecode"):
                    env = _env(t, None if mode == "source" else caches[t])
                    for name, args in COMMANDS.items():
                        times.setdefault((t, mode, name), []).append(_once(args, env))
    print("uptime after: ", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"\n{a.repeat} processes each, wall seconds, median (min)\n")
    print("| tree | .pyc | " + " | ".join(COMMANDS) + " |")
    print("|---|---|" + "---|" * len(COMMANDS))
    for t in trees:
        for mode in ("source", "bytecode"):
            cells = [f"{statistics.median(v):.3f} ({min(v):.3f})"
                     for v in (times[(t, mode, name)] for name in COMMANDS)]
            print(f"| {t} | {mode} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
