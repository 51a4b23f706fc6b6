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

#: Modules a small (< 20 variables) order-graph enumeration must not import: the ASOBS incumbent
#: (only from 20 variables), numba, SCIP and the ILP engine (``gobnilp_py.ilp.settings``, SCIP's
#: settings as data, is imported by ``import gobnilp_py`` itself and allowed).
NOT_ON_SMALL_PATH = ("gobnilp_py.search.incumbent", "gobnilp_py.search.asobs", "numba", "pyscipopt",
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
    assert "gobnilp_py.search.order_graph" in r["new"]  # the call did import its engine here
    assert _heavy(r["all"]) == []


def test_small_learn_imports_only_the_order_graph_path():
    r = _loaded("from gobnilp_py import learn\nnet = learn(t, method='ordergraph')\nout = net.score")
    assert r["out"] is not None
    assert "gobnilp_py.search.order_graph" in r["new"]
    assert _heavy(r["all"]) == []


def test_incumbent_is_imported_when_asked_for():
    """The control: asking for the incumbent search does import it (so the module name above is right)."""
    r = _loaded("from gobnilp_py.search.order_graph import order_graph_optimum\n"
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
