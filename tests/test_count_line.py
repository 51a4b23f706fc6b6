"""The one-line count the CLI prints says what a cut listing leaves out (``CredibleSet.count_line``).

A class-level run cut at ``max_networks`` knows the exact totals: the line must
give them rather than group the listed prefix into classes (which undercounts
and, at 150,000 networks, takes seconds).  A run without totals says its class
count is among the listed networks only.
"""

from __future__ import annotations

import itertools

from gobnilp_py import enumerate_networks
from gobnilp_py.scoring.table import ScoreTable


def _table(k: int) -> ScoreTable:
    """Every parent set scores its size: the k! complete DAGs (one class) tie for the optimum."""
    fams = []
    for i in range(k):
        others = [j for j in range(k) if j != i]
        fams.append([(ps, -10.0 + len(ps)) for r in range(k) for ps in itertools.combinations(others, r)])
    return ScoreTable([f"X{i}" for i in range(k)], fams, score_name="BIC")


def test_complete_class_run_gives_its_exact_counts_without_grouping():
    cs = enumerate_networks(_table(4), epsilon=0.5, method="ilp", by="class")
    assert cs.complete and len(cs) == 24
    assert cs.count_line() == "24 networks in 1 equivalence class"
    assert cs._mecs is None          # the count came from the class search, nothing was grouped


def test_cut_class_listing_gives_the_totals():
    cs = enumerate_networks(_table(4), epsilon=0.5, method="ilp", by="class", max_networks=5)
    assert not cs.complete and len(cs) == 5
    assert cs.n_networks_total == 24 and cs.n_classes_total == 1
    assert cs.count_line() == "5 of 24 networks listed (1 equivalence class, all found and counted)"


def test_cut_dag_listing_says_its_classes_are_among_those_listed():
    cs = enumerate_networks(_table(4), epsilon=0.5, method="ilp", by="dag", max_networks=5)
    assert not cs.complete and len(cs) == 5 and cs.n_networks_total is None
    assert cs.count_line() == "5 networks in 1 equivalence class (among those listed)"
