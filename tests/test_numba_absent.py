"""numba is a dependency, but a platform without its wheel must still work: every compiled kernel falls
back to numpy with the same results (issue 39).

Each case runs the same command twice in fresh processes: once as installed, once where ``import numba``
fails (a folder holding a ``numba`` package that raises ``ImportError`` is put first on ``PYTHONPATH``),
with the compiled scoring and walk kernels asked for on every level (``GOBNILP_SCORING_KERNEL=numba``,
``GOBNILP_WALK_KERNEL=numba``), so the run with numba does use them and the other falls back.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gobnilp_py import ScoreTable, _numba

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"

pytestmark = pytest.mark.skipif(not _numba.AVAILABLE, reason="numba is not installed here")


def _env(tmp: Path, blocked: bool) -> dict[str, str]:
    path = [str(ROOT)]
    if blocked:
        blocker = tmp / "no-numba"
        (blocker / "numba").mkdir(parents=True, exist_ok=True)
        (blocker / "numba" / "__init__.py").write_text('raise ImportError("numba left out for a test")\n')
        path.insert(0, str(blocker))
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path), GOBNILP_SCORING_KERNEL="numba",
                GOBNILP_WALK_KERNEL="numba")


def _run(args: list[str], tmp: Path, blocked: bool) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], env=_env(tmp, blocked), cwd=tmp, capture_output=True, text=True,
                          timeout=300)


def test_the_blocker_hides_numba(tmp_path):
    code = "import gobnilp_py._numba as n, gobnilp_py.search.asobs._numba as a; print(n.AVAILABLE, a.AVAILABLE)"
    assert _run(["-c", code], tmp_path, blocked=False).stdout.split() == ["True", "True"]
    assert _run(["-c", code], tmp_path, blocked=True).stdout.split() == ["False", "False"]


@pytest.mark.parametrize("score", ["BIC", "BDeu"])
def test_scoring_without_numba_keeps_the_same_table(score, tmp_path):
    """The same families kept; scores equal to 1e-12 relative (the kernel sums per pair, numpy per block:
    they agree to about 1e-15, not bit for bit; docs/pruning.md, "Compiled kernel")."""
    tables = []
    for blocked in (False, True):
        out = tmp_path / f"{score}-{blocked}.jkl"
        r = _run(["-m", "gobnilp_py", "score", str(DATA / "zoo.csv"), "--no-header", "--score", score, "--bf", "3",
                  "-o", str(out), "-q"], tmp_path, blocked)
        assert r.returncode == 0, r.stderr
        table = ScoreTable.from_jkl(out)
        tables.append({(child, parents): value for child in table.names
                       for parents, value in table.parent_sets(child)})
    assert tables[0].keys() == tables[1].keys() and len(tables[0]) > 100
    for key, value in tables[0].items():
        assert tables[1][key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


def test_asobs_and_the_collection_without_numba_give_the_same_answer(tmp_path):
    runs = []
    for blocked in (False, True):
        a = _run(["-m", "gobnilp_py", "learn", str(DATA / "zoo.csv"), "--no-header", "--method", "asobs",
                  "--n-orders", "20", "-q"], tmp_path, blocked)
        e = _run(["-m", "gobnilp_py", "enumerate", str(DATA / "wine.csv"), "--no-header", "--bf", "3", "-q"],
                 tmp_path, blocked)
        assert a.returncode == 0 and e.returncode == 0, (a.stderr, e.stderr)
        runs.append((a.stdout, e.stdout))
    assert runs[0] == runs[1]
