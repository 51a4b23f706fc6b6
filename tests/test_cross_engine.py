"""The order-graph engine and the ILP engine give the same exact answers.

Two engines that share no search code (the SCIP branch-and-cut of
:mod:`gobnilp_py.ilp` and the order-graph branch and bound of
:mod:`gobnilp_py.search`) are run through the public drivers on the same score
tables, and must agree on

* the optimum score (``learn``), to the package's "same score" tolerance,
  1e-9 relative;
* the ε-set (``enumerate_networks``): the same set of DAGs (by
  :attr:`Network.key`) with the same scores, for a random ε.  Scores are
  compared exactly: both drivers compute a network's score as the ``math.fsum``
  of its local scores from the same table, so equal networks have bit-equal
  scores;
* the k best networks (``kbest``), with every network tied with the k-th
  (``ties=True``), and with ties broken by network key (``ties=False``); on a
  table pruned for ε a list reaching beyond ε is labelled incomplete
  (``table_epsilon``) by the driver, the same way for both engines, and the
  lists over the table must still be equal.

The random tables (n = 8..12, seeded) are of three kinds: sparse tables with
continuous scores; sparse tables with small-integer scores, where ties are
everywhere (equal networks, networks exactly at the ε boundary, ties at the
k-th place); and BIC / BDeu tables scored from random dependent data (for which
the ILP collects by equivalence class, so the class-member listing is checked
too).  Brute force over all DAGs is out of reach for n >= 8; the engines are
checked against it on n <= 6 in ``test_order_collect.py`` and
``test_enumerate.py``.

Then, on the datasets shipped with the tests (:mod:`datasets`), both engines must
give the same ε-set at Bayes factors 3 and 20 (``test_published_counts.py``
compares the counts per method; here the sets themselves).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from datasets import dataset
from gobnilp_py import ScoreTable, enumerate_networks, kbest, learn, read_data, score
from random_problems import random_data

pytest.importorskip("pyscipopt")

#: "Same score" (the package's tolerance, ``gobnilp_py.solve.results.REL_TOL``).
REL = 1e-9

ENGINES = ("ilp", "ordergraph")


# --------------------------------------------------------------------------- tables


def sparse_table(rng: np.random.Generator, n: int, *, ties: bool) -> ScoreTable:
    """A random table with a few candidate parent sets per node (sizes 1..4) beside the empty set.

    Larger parent sets tend to score better, so the best families of different
    nodes point at each other and acyclicity binds (the searches must work).
    ``ties``: small integer scores, so many networks tie.
    """
    fams = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        rows: dict[tuple[int, ...], float] = {(): float(rng.integers(-14, -8)) if ties else float(rng.normal(-12, 2))}
        for _ in range(int(rng.integers(4, 16))):
            size = int(rng.integers(1, 5))
            ps = tuple(sorted(int(x) for x in rng.choice(others, size=size, replace=False)))
            gain = 1.5 * size
            sc = float(rng.integers(-12, -6) + round(gain)) if ties else float(rng.normal(-12 + gain, 2.5))
            rows.setdefault(ps, sc)
        fams.append(list(rows.items()))
    return ScoreTable([f"V{i}" for i in range(n)], fams)


def data_table(rng: np.random.Generator, n: int, score_name: str, eps: float) -> ScoreTable:
    """BIC or BDeu from random dependent data, pruned safely for ``eps``."""
    data = read_data(random_data(rng, n, int(rng.integers(60, 300))))
    return score(data, score=score_name, epsilon=eps)


def problem(i: int) -> tuple[str, ScoreTable, float, int]:
    """Case ``i``: (kind, table, ε, k), all from the seed ``i``."""
    rng = np.random.default_rng(20_261_122 + i)
    kind = ("sparse", "ties", "sparse", "ties", "BIC", "BDeu")[i % 6]
    n = int(rng.integers(8, 13)) if kind in ("sparse", "ties") else int(rng.integers(8, 11))
    if kind == "ties":
        eps = float(rng.integers(0, 4))  # integer ε with integer scores: networks sit exactly on the boundary
    else:
        eps = float(rng.uniform(0.0, 4.0))
    k = int(rng.integers(1, 25))
    if kind in ("sparse", "ties"):
        table = sparse_table(rng, n, ties=kind == "ties")
    else:
        table = data_table(rng, n, kind, eps)
    return kind, table, eps, k


def by_key(cs) -> dict:
    """A result as ``{network key: score}`` (each network once)."""
    out = {net.key: net.score for net in cs}
    assert len(out) == len(cs), "a network is listed twice"
    return out


def describe(table: ScoreTable, a: dict, b: dict) -> str:
    """The networks only one engine found (for the failure message)."""
    only_a = sorted(set(a) - set(b), key=str)[:3]
    only_b = sorted(set(b) - set(a), key=str)[:3]
    return (f"n={table.n}: {len(a)} vs {len(b)} networks; only ilp (first 3): "
            f"{[(k, a[k]) for k in only_a]}; only ordergraph: {[(k, b[k]) for k in only_b]}")


def same_sets(table: ScoreTable, results: dict[str, object], what: str) -> None:
    ilp, og = (by_key(results[m]) for m in ENGINES)
    assert ilp.keys() == og.keys(), f"{what}: " + describe(table, ilp, og)
    diff = [k for k in ilp if ilp[k] != og[k]]
    assert not diff, f"{what}: same network, different scores: {diff[0]}: {ilp[diff[0]]!r} vs {og[diff[0]]!r}"


def check(table: ScoreTable, eps: float, k: int) -> None:
    """Both engines: same optimum, same ε-set, same k-best lists (with ties and without)."""
    opt = {m: learn(table, method=m).score for m in ENGINES}
    assert math.isfinite(opt["ilp"])
    assert opt["ordergraph"] == pytest.approx(opt["ilp"], rel=REL, abs=0), opt

    sets = {m: enumerate_networks(table, epsilon=eps, method=m, max_networks=None) for m in ENGINES}
    for m, cs in sets.items():
        assert cs.complete and cs.reason is None, (m, cs)
        assert cs.opt == pytest.approx(opt[m], rel=REL, abs=0)
        assert len(cs) >= 1
    same_sets(table, sets, f"epsilon-set (eps={eps!r})")
    # the ILP found the set by equivalence class when the score allows it: the totals must agree too
    if sets["ilp"].n_networks_total is not None:
        assert sets["ilp"].n_networks_total == len(sets["ordergraph"])

    for ties in (True, False):
        lists = {m: kbest(table, k, method=m, ties=ties) for m in ENGINES}
        # a table pruned for ε labels a list reaching beyond ε incomplete ("table_epsilon"), the same
        # way for both engines; the lists over the table itself must still be equal
        assert lists["ilp"].complete == lists["ordergraph"].complete, lists
        assert lists["ilp"].reason == lists["ordergraph"].reason in (None, "table_epsilon"), lists
        if ties:
            same_sets(table, lists, f"{k}-best with ties")
        else:
            # exactly k (or every network, if fewer), the same ones: ties at the k-th place broken by key
            assert len(lists["ilp"]) == len(lists["ordergraph"]) <= k
            assert [n.key for n in lists["ilp"]] == [n.key for n in lists["ordergraph"]], f"{k}-best without ties"


# --------------------------------------------------------------------------- random tables

#: 18 quick cases run by default, 36 more marked slow (54 in all; about a minute on an idle machine).
QUICK = 18
N_CASES = 54


@pytest.mark.parametrize("i", range(QUICK))
def test_random_tables_engines_agree(i):
    kind, table, eps, k = problem(i)
    check(table, eps, k)


@pytest.mark.slow
@pytest.mark.parametrize("i", range(QUICK, N_CASES))
def test_random_tables_engines_agree_more(i):
    kind, table, eps, k = problem(i)
    check(table, eps, k)


def test_the_random_cases_cover_what_they_claim():
    """The case generator gives n = 8..12, all three kinds, ties, and ε-sets that are not trivial."""
    kinds, ns, sizes = set(), set(), []
    for i in range(N_CASES):
        kind, table, eps, k = problem(i)
        kinds.add(kind)
        ns.add(table.n)
        assert 8 <= table.n <= 12
    assert kinds == {"sparse", "ties", "BIC", "BDeu"} and len(ns) >= 4
    # at least one ties case has more than one optimal network (ties really occur)
    for i in range(1, N_CASES, 6):
        _, table, _, _ = problem(i)
        sizes.append(len(enumerate_networks(table, epsilon=0.0, method="ordergraph", max_networks=None)))
    assert max(sizes) > 1


# --------------------------------------------------------------------------- shipped datasets

# (name, BF, networks or None): published counts where the data README has them
DATASETS = [
    ("iris", 3, None),
    ("iris", 20, None),
    ("tic-tac-toe", 3, 192),
    ("wine", 3, 308),
    ("voting", 3, 27),
    pytest.param("tic-tac-toe", 20, 192, marks=pytest.mark.slow),
    pytest.param("wine", 20, 3449, marks=pytest.mark.slow),
    pytest.param("voting", 20, 441, marks=pytest.mark.slow),
    pytest.param("zoo", 3, 49, marks=pytest.mark.slow),
    pytest.param("zoo", 20, 1111, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("name, bf, n_networks", DATASETS)
def test_shipped_datasets_same_epsilon_set(name, bf, n_networks):
    """BIC, the ILP (collecting by equivalence class) and the order graph give the same set of networks."""
    table = score(read_data(dataset(name), header=False), score="BIC", bayes_factor=bf)
    sets = {m: enumerate_networks(table, bayes_factor=bf, method=m, max_networks=None) for m in ENGINES}
    for m, cs in sets.items():
        assert cs.complete, (m, cs)
    assert sets["ilp"].opt == pytest.approx(sets["ordergraph"].opt, rel=REL, abs=0)
    same_sets(table, sets, f"{name} BF {bf}")
    if n_networks is not None:
        assert len(sets["ilp"]) == n_networks
    assert sets["ilp"].stats.get("by") == "class"
    assert sets["ilp"].n_networks_total == len(sets["ordergraph"])
