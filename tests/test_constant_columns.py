"""Constant columns in ``learn``: scored out and put back isolated (``gobnilp_py.scoring.constants``).

The reduction rests on two facts about every built-in score, each checked here
on random data: a constant parent never changes a local score, and a constant
child scores 0 with every parent set.  Then ``learn`` on data with constant
columns is compared with exhaustive DP on the *unpruned* table of the full data
(every tied variant kept), and a table with isolated constants is refused for
anything but an optimum.
"""

from __future__ import annotations

import itertools
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from datasets import dataset  # noqa: E402
from oracle_dp import optimal_dag  # noqa: E402

from gobnilp_py import ScoreTable, StructuralConstraints, enumerate_networks, kbest, learn, score  # noqa: E402
from gobnilp_py.cli import main  # noqa: E402
from gobnilp_py.data import Dataset  # noqa: E402
from gobnilp_py.errors import ScoreError  # noqa: E402
from gobnilp_py.scoring.constants import NEUTRAL_SCORES, isolating_constants  # noqa: E402
from gobnilp_py.scoring.local_scores import make_score  # noqa: E402
from gobnilp_py.solve.inputs import acquire_table  # noqa: E402

SETTINGS = dict(derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BUILT_IN = [cls.__name__ for cls in NEUTRAL_SCORES]


def with_constants(seed: int, n_free: int, n_const: int, n_rows: int) -> Dataset:
    """Random dependent data on ``n_free`` variables with ``n_const`` constant columns at random places."""
    rng = np.random.default_rng(seed)
    ar = rng.integers(2, 4, size=n_free)
    cols = [rng.integers(0, ar[0], size=n_rows)]
    for j in range(1, n_free):  # each column copies an earlier one with noise, so parents pay off
        src = cols[rng.integers(0, j)] % ar[j]
        noise = rng.random(n_rows) < 0.3
        cols.append(np.where(noise, rng.integers(0, ar[j], size=n_rows), src))
    arities = [int(a) for a in ar]
    for _ in range(n_const):
        at = int(rng.integers(0, len(cols) + 1))
        cols.insert(at, np.zeros(n_rows, dtype=np.int64))
        arities.insert(at, 1)
    codes = np.stack(cols, axis=1)
    for j, a in enumerate(arities):  # every state of a non-constant column observed (or arity lowered)
        arities[j] = max(1, int(codes[:, j].max()) + 1) if a > 1 else 1
    return Dataset(tuple(f"X{j}" for j in range(len(arities))), arities, codes)


@pytest.mark.parametrize("name", BUILT_IN)
@settings(max_examples=25, **SETTINGS)
@given(seed=st.integers(0, 2**31 - 1))
def test_a_constant_column_never_changes_a_built_in_score(name, seed):
    """s(v, W ∪ {c}) = s(v, W) and s(c, W) = 0 for every W: the two facts the reduction uses."""
    ds = with_constants(seed, 3, 1, 40)
    sc = make_score(name, ds, ess=1.7)
    c = int(np.flatnonzero(ds.arities == 1)[0])
    others = [v for v in range(ds.n) if v != c]
    for v in others:
        rest = [u for u in others if u != v]
        for k in range(len(rest) + 1):
            for w in itertools.combinations(rest, k):
                base = sc.compute(v, w)
                assert sc.compute(v, tuple(sorted((*w, c)))) == pytest.approx(base, rel=1e-12, abs=1e-12)
    for k in range(len(others) + 1):
        for w in itertools.combinations(others, k):
            assert sc.compute(c, w) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("score_name", ["BIC", "BDeu"])
@settings(max_examples=40, **SETTINGS)
@given(seed=st.integers(0, 2**31 - 1), n_free=st.integers(1, 4), n_const=st.integers(1, 2),
       n_rows=st.sampled_from([5, 30, 200]))
def test_learn_with_constant_columns_equals_dp_on_the_full_unpruned_table(score_name, seed, n_free, n_const, n_rows):
    ds = with_constants(seed, n_free, n_const, n_rows)
    full = score(ds, score=score_name, prune=False)       # every parent set, every tied variant
    opt, _ = optimal_dag(full)
    net = learn(ds, score=score_name)
    assert net.status == "optimal"
    assert net.score == pytest.approx(opt, rel=1e-9, abs=1e-9)
    constants = [ds.names[j] for j in range(ds.n) if ds.arities[j] == 1]
    assert net.names == ds.names
    assert all(net.parents[c] == () for c in constants)
    assert not any(set(ps) & set(constants) for ps in net.parents.values())
    isolated = any(c.startswith("constant variable") and "without parents or children" in c for c in net.caveats)
    assert isolated == (len(constants) < ds.n)     # all constant: nothing to score without them


def test_the_table_for_an_optimum_is_refused_for_listing_and_ranking(tmp_path):
    ds = with_constants(3, 3, 2, 100)
    table, info = acquire_table(ds, epsilon=None, constraints=None, scoring_options={}, optimum_only=True)
    constants = tuple(ds.names[j] for j in range(ds.n) if ds.arities[j] == 1)
    assert table.isolated_constants == constants
    assert table.safe_epsilon is None and not table.is_unpruned
    assert table.guarantee.startswith("optimum:")
    assert all(table.parent_sets(c) == [((), 0.0)] for c in constants)
    path = tmp_path / "t.jkl"
    table.to_jkl(path)
    back = ScoreTable.from_jkl(path)
    assert back.isolated_constants == constants and back.guarantee.startswith("optimum:")
    assert learn(back).score == pytest.approx(learn(ds).score, abs=1e-9)
    with pytest.raises(ScoreError, match="constant variables .* no parents and no children"):
        enumerate_networks(back, bayes_factor=3)
    with pytest.raises(ScoreError, match="cannot list or rank networks"):
        kbest(back, 2)
    code = main(["enumerate", str(path), "--bf", "3", "-q"])
    assert code != 0


def test_hand_edited_provenance_is_refused(tmp_path):
    ds = with_constants(5, 2, 1, 50)
    table, _ = acquire_table(ds, epsilon=None, constraints=None, scoring_options={}, optimum_only=True)
    text = table.to_jkl()
    bad = tmp_path / "bad.jkl"
    bad.write_text(text.replace('"optimum"', '"epsilon-safe"'))
    with pytest.raises(ScoreError, match="does not match isolated_constants"):
        ScoreTable.from_jkl(bad)
    free = next(v for v in ds.names if v not in table.isolated_constants)
    bad.write_text(text.replace(f'isolated_constants = ["{table.isolated_constants[0]}"]',
                                f'isolated_constants = ["{free}"]'))
    with pytest.raises(ScoreError, match="not a variable with the empty parent set alone"):
        ScoreTable.from_jkl(bad)


def test_no_isolation_when_it_would_not_be_exact():
    ds = with_constants(7, 3, 1, 80)
    c = ds.names[int(np.flatnonzero(ds.arities == 1)[0])]
    free = [v for v in ds.names if v != c]
    # enumeration needs every tied variant
    table, _ = acquire_table(ds, epsilon=0.5, constraints=None, scoring_options={})
    assert not table.isolated_constants and len(table.parent_sets(c)) == 2 ** (ds.n - 1)
    # a required arrow: removing a constant's arrows might break it
    cons = StructuralConstraints(required_arrows=[(c, free[0])])
    table, _ = acquire_table(ds, epsilon=None, constraints=cons, scoring_options={}, optimum_only=True)
    assert not table.isolated_constants
    net = learn(ds, constraints=cons)
    assert net.parents[free[0]].count(c) == 1
    assert net.score == pytest.approx(learn(ds).score, abs=1e-9)   # the constant arrow costs nothing
    # a score that is not built in, and a constant named in unpruned, keep the data as they are
    assert isolating_constants(ds, {"score": lambda child, parents, counts: 0.0}) == []
    assert isolating_constants(ds, {"unpruned": [c]}) == []
    assert isolating_constants(ds, {"score": "BDeu"}) == [ds.names.index(c)]


def test_cli_and_config_learn_data_with_constant_columns(tmp_path, capsys):
    ds = with_constants(11, 4, 2, 150)
    csv = tmp_path / "c.csv"
    csv.write_text(",".join(ds.names) + "\n" + "\n".join(",".join(map(str, r)) for r in ds.codes) + "\n")
    want = learn(ds).score
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["learn", str(csv), "--json", "-q"]) == 0
        got = json.loads(capsys.readouterr().out)
        assert got["status"] == "optimal" and got["score"] == pytest.approx(want, abs=1e-9)
        cfg = tmp_path / "l.toml"
        cfg.write_text(f'[data]\npath = "{csv}"\n[search]\njob = "learn"\n[output]\nwrite = ["json", "jkl"]\n')
        assert main(["run", str(cfg), "-q", "-o", str(tmp_path / "o")]) == 0
    capsys.readouterr()
    tables = list((tmp_path / "o").glob("*.jkl"))
    assert tables and ScoreTable.from_jkl(tables[0]).isolated_constants == tuple(
        ds.names[j] for j in range(ds.n) if ds.arities[j] == 1)


def test_carpo100_learned_without_a_parent_limit():
    """carpo100 (4 constant columns among 60) used to need a parent limit: the optimum of its 56 other
    variables, no parent limit.  -2000.213165 is what palim=3 gave (benchmarks/RESULTS.md), 8.6e-5
    above the published -2000.213251."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net = learn(dataset("carpo100"), header=False)
    assert net.status == "optimal"
    assert net.score == pytest.approx(-2000.2131653, abs=1e-6)
    assert all(net.parents[c] == () for c in ("5", "8", "12", "13"))


@pytest.mark.parametrize("method", ["ilp", "dp", "ordergraph"])
def test_the_search_skips_isolated_variables_and_maps_back(method):
    """Each exact engine searches the core (the other variables) and the answer comes back whole."""
    ds = with_constants(21, 4, 2, 120)
    table, _ = acquire_table(ds, epsilon=None, constraints=None, scoring_options={}, optimum_only=True)
    net = learn(table, method=method)
    want, _ = optimal_dag(score(ds, prune=False))
    assert net.status == "optimal" and net.score == pytest.approx(want, abs=1e-9)
    assert net.stats["isolated_constants"] == list(table.isolated_constants)
    assert net.names == ds.names and all(net.parents[c] == () for c in table.isolated_constants)
    assert net.local_scores == {v: table.local_score(v, net.parents[v]) for v in ds.names}


def test_isolated_core_offsets_the_empty_set_scores():
    """A non-zero ∅ score of an isolated variable (a hand-made table) is added back to the optimum and bound."""
    from gobnilp_py.scoring.constants import isolated_core
    from gobnilp_py.search.results import Solution

    t = ScoreTable(["A", "C", "B"], [[((), -5.0), ((2,), -3.0)], [((), -1.5)], [((), -2.0), ((0,), -2.5)]],
                   meta={"isolated_constants": ["C"]})
    core = isolated_core(t)
    assert core.table.names == ("A", "B") and core.keep == (0, 2) and core.offset == -1.5
    sol = core.widen(Solution("optimal", -5.0, (1, 0), dual_bound=-5.0))
    assert sol.chosen == (1, 0, 0) and sol.score == -6.5 and sol.dual_bound == -6.5
    assert learn(t).score == pytest.approx(-6.5)
    # a variable listed as isolated but used as a parent is not isolated: searched whole
    t2 = ScoreTable(["A", "C"], [[((), -5.0), ((1,), -3.0)], [((), 0.0)]], meta={"isolated_constants": ["C"]})
    assert isolated_core(t2) is None and learn(t2).score == -3.0


def test_constraints_on_an_isolated_table():
    ds = with_constants(23, 3, 1, 100)
    table, _ = acquire_table(ds, epsilon=None, constraints=None, scoring_options={}, optimum_only=True)
    c = table.isolated_constants[0]
    free = [v for v in ds.names if v != c]
    # a constraint naming the isolated variable: the whole table is searched, the answer is the same
    tiers = StructuralConstraints(tiers=[[c], free])
    assert learn(table, constraints=tiers).score == pytest.approx(learn(table).score, abs=1e-9)
    # a required arrow could need the missing families: refused in one line, learning from data works
    req = StructuralConstraints(required_arrows=[(c, free[0])])
    with pytest.raises(ScoreError, match="learn from the data instead"):
        learn(table, constraints=req)
    assert learn(ds, constraints=req).parents[free[0]].count(c) == 1
