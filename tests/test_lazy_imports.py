"""What a small order-graph run imports: only the modules its path needs (issue 13, iris).

The search modules are imported on the first call, inside the timed search, so
a module imported there but not used costs every short run its import (and,
without a ``.pyc``, its compiling).  These checks run in a fresh interpreter and
look at ``sys.modules``; they never time anything.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Modules a small (< 20 variables) order-graph enumeration must not import: the ASOBS incumbent
#: (only from 20 variables), numba, SCIP and the ILP engine (``gobnilp_py.ilp.settings``, SCIP's
#: settings as data, is imported by ``import gobnilp_py`` itself and allowed).
NOT_ON_SMALL_PATH = ("gobnilp_py.search.incumbent", "gobnilp_py.search.asobs.engine", "numba", "pyscipopt",
                     "gobnilp_py.ilp.engine", "gobnilp_py.ilp.model", "gobnilp_py.ilp.collector")

_TABLE = """
from gobnilp_py.scoring.table import ScoreTable
t = ScoreTable(["A", "B", "C", "D"], [
    [((), -5.0), ((1,), -4.0), ((1, 2), -3.5)],
    [((), -3.0), ((0,), -2.5), ((3,), -2.9)],
    [((), -4.0), ((0,), -3.0), ((1,), -3.2)],
    [((), -2.0), ((2,), -1.8)],
])
"""


def _loaded(body: str) -> dict:
    """Run ``body`` after building the table ``t`` in a fresh interpreter; the modules it loaded and ``out``."""
    code = ("import json, sys\n" + _TABLE + "before = set(sys.modules)\nout = None\n" + body +
            "\nprint(json.dumps({'new': sorted(set(sys.modules) - before), 'all': sorted(sys.modules), "
            "'out': out}))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def _heavy(mods: list[str]) -> list[str]:
    return [m for m in mods if any(m == h or m.startswith(h + ".") for h in NOT_ON_SMALL_PATH)]


def test_small_enumeration_imports_only_the_order_graph_path():
    r = _loaded("from gobnilp_py import enumerate_networks\n"
                "cs = enumerate_networks(t, bayes_factor=20, method='auto')\n"
                "out = [cs.method, len(cs), cs.complete]")
    assert r["out"][0] == "ordergraph" and r["out"][1] > 1 and r["out"][2]
    assert "gobnilp_py.search.order_graph.frontier" in r["new"]  # the call did import its engine here
    assert _heavy(r["all"]) == []


def test_small_learn_imports_only_the_order_graph_path():
    r = _loaded("from gobnilp_py import learn\nnet = learn(t, method='ordergraph')\nout = net.score")
    assert r["out"] is not None
    assert "gobnilp_py.search.order_graph.frontier" in r["new"]
    assert _heavy(r["all"]) == []


def test_incumbent_is_imported_when_asked_for():
    """The control: asking for the incumbent search does import it (so the module name above is right)."""
    r = _loaded("from gobnilp_py.search.order_graph.frontier import order_graph_optimum\n"
                "res = order_graph_optimum(t, incumbent_search=True)\n"
                "out = [res.status, res.stats['lower_bound_source'] in ('heuristic', 'asobs')]")
    assert r["out"] == ["optimal", True]
    assert "gobnilp_py.search.incumbent" in r["new"]


def test_importing_the_package_loads_no_heavy_library():
    """``import gobnilp_py`` (every CLI start) loads neither scipy, networkx, pandas, numba nor SCIP.

    Together they took about 0.5 s of every process (``python -X importtime``): they are imported
    where they are used (BDeu's ``gammaln`` beyond the cached tables, ``Network.to_networkx``,
    the data frames of model averaging).
    """
    code = ("import json, sys\nimport gobnilp_py\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('scipy', 'networkx', 'pandas', 'numba', 'pyscipopt'))))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert json.loads(p.stdout.strip().splitlines()[-1]) == []


def test_bdeu_and_graphs_still_work_after_the_lazy_imports():
    r = _loaded("import numpy as np\nfrom gobnilp_py import read_data, score, learn\n"
                "d = read_data(np.array([[0, 1, 0], [1, 1, 0], [1, 0, 1], [0, 0, 1]] * 5), header=False)\n"
                "t2 = score(d, score='BDeu')\nnet = learn(t2, method='ordergraph')\n"
                "g = net.to_networkx()\nout = [len(t2), g.number_of_nodes()]")
    assert r["out"][0] > 0 and r["out"][1] == 3


def test_scoring_an_array_or_a_file_does_not_import_pandas(tmp_path):
    """Reading an array or a CSV never needs pandas (its import, 0.2-0.3 s, outweighed scoring small data).

    A DataFrame can only be passed once pandas is imported, so ``read_data`` looks it up in
    ``sys.modules`` instead of importing it; the control below checks a frame is still read.
    """
    csv = tmp_path / "d.csv"
    csv.write_text("a,b\n0,1\n1,1\n1,0\n0,0\n")
    r = _loaded("import numpy as np\nfrom gobnilp_py import read_data, score\n"
                "t2 = score(np.array([[0, 1], [1, 1], [1, 0], [0, 0]] * 3), score='BIC')\n"
                f"d = read_data({str(csv)!r})\n"
                "out = [len(t2) > 0, d.names, 'pandas' in sys.modules]")
    assert r["out"] == [True, ["a", "b"], False]
    r = _loaded("import pandas as pd\nfrom gobnilp_py import read_data\n"
                "d = read_data(pd.DataFrame({'x': ['u', 'v', 'u'], 'y': [1, 1, 2]}))\n"
                "out = [list(d.names), d.arities.tolist()]")
    assert r["out"] == [["x", "y"], [2, 2]]


# ------------------------------------------------------------ lazy public names (issue 39)
#: Libraries and layers ``import gobnilp_py`` must not load: each is imported by the names that use it.
NOT_ON_IMPORT = ("numpy", "pyscipopt", "pandas", "matplotlib", "networkx", "scipy", "numba", "dask",
                 "gobnilp_py.scoring.engine", "gobnilp_py.solve", "gobnilp_py.search", "gobnilp_py.ilp",
                 "gobnilp_py.output", "gobnilp_py.config")


def _fresh(code: str) -> object:
    p = subprocess.run([sys.executable, "-c", "import json, sys\n" + code], capture_output=True, text=True,
                       check=True, cwd="/")
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_import_gobnilp_py_loads_only_version_and_errors():
    """Structural, not timed: what ``import gobnilp_py`` leaves in ``sys.modules``.

    ``benchmarks/bench_import_time.py`` times it.
    """
    loaded = _fresh("import gobnilp_py\nprint(json.dumps(sorted(sys.modules)))")
    heavy = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in NOT_ON_IMPORT)]
    assert heavy == []
    assert "gobnilp_py.errors" in loaded


def test_cli_help_loads_no_solver_plotting_or_frames():
    """``gobnilp-py --help`` builds every subcommand's flags without SCIP, pandas, matplotlib or scipy."""
    loaded = _fresh("from gobnilp_py.cli import main\n"
                    "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
                    "print(json.dumps(sorted(sys.modules)))")
    assert [m for m in loaded if m.split(".")[0] in ("pyscipopt", "pandas", "matplotlib", "networkx", "scipy",
                                                       "numba")] == []


def test_every_public_name_resolves_and_star_import_works():
    """Each name of ``__all__`` (of the package and of its lazy subpackages) imports; ``dir`` lists them."""
    out = _fresh("import gobnilp_py, gobnilp_py.scoring, gobnilp_py.output\n"
                 "ns = {}\nexec('from gobnilp_py import *', ns)\n"
                 "missing = [m.__name__ + '.' + n for m in (gobnilp_py, gobnilp_py.scoring, gobnilp_py.output)\n"
                 "           for n in m.__all__ if not hasattr(m, n) or n not in dir(m)]\n"
                 "print(json.dumps([missing, sorted(set(gobnilp_py.__all__) - set(ns)),\n"
                 "                  gobnilp_py.learn.__module__, type(gobnilp_py.scoring).__name__]))")
    assert out == [[], [], "gobnilp_py.solve.learn", "module"]


def test_unknown_attribute_is_still_an_attribute_error():
    import gobnilp_py

    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        gobnilp_py.not_a_name  # noqa: B018


@pytest.mark.parametrize("package", ["gobnilp_py", "gobnilp_py.scoring", "gobnilp_py.output"])
def test_lazy_map_matches_the_type_checking_imports(package):
    """The ``_LAZY`` map and the ``TYPE_CHECKING`` imports (what type checkers and the layering test read) agree."""
    import ast
    import importlib
    from pathlib import Path

    mod = importlib.import_module(package)
    tree = ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))
    declared: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                for alias in imp.names:
                    declared[alias.name] = "." * (imp.level - 1) + "." + (imp.module or "")
    assert declared == mod._LAZY
    assert set(mod._LAZY) <= set(mod.__all__)


def test_a_name_that_is_also_a_submodule_is_refused():
    """``solve.kbest`` is a function and a module: lazily it would turn into the module once imported."""
    import gobnilp_py.solve  # noqa: F401  (the check looks the package up)
    from gobnilp_py._lazy import lazy_exports

    with pytest.raises(ImportError, match="also submodule names"):
        lazy_exports("gobnilp_py.solve", {"kbest": ".kbest"}, ["kbest"])
