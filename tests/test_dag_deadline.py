"""DAG-level ε-BNSL under a time limit: building the listed networks stops at the deadline too.

Building a ``Network`` costs a fraction of a millisecond, so on a large credible
set it once ran far past the call's limit after the search had finished.  Here
building is slowed artificially (each network 20 ms), so that the search ends
well within the limit and building does not: the call must return near the
limit with a best-first prefix of the complete answer, labelled incomplete, with
a threshold above which nothing credible is missing.
"""

from __future__ import annotations

import time


import gobnilp_py.solve.results as results
from gobnilp_py import enumerate_networks
from gobnilp_py.scoring.table import ScoreTable

from datasets import dataset

SLOW = 0.02




def test_a_cut_listing_is_a_labelled_best_first_prefix(monkeypatch) -> None:
    from gobnilp_py import read_data, score

    table = score(read_data(dataset("tic-tac-toe"), header=False), bayes_factor=150)
    full = enumerate_networks(table, bayes_factor=150, method="ordergraph")
    assert full.complete and len(full) == 544
    real = results.network_of

    def slow(*args, **kwargs):
        time.sleep(SLOW)
        return real(*args, **kwargs)

    monkeypatch.setattr(results, "network_of", slow)
    limit = 2.0
    t0 = time.perf_counter()
    cut = enumerate_networks(table, bayes_factor=150, method="ordergraph", time_limit=limit)
    elapsed = time.perf_counter() - t0
    # one batch of 256 networks may be built after the last look at the deadline
    assert elapsed < limit + 256 * SLOW + 1.0, elapsed
    assert not cut.complete and cut.reason == "time_limit" and cut.n_networks_total is None
    assert 0 < len(cut) < len(full)
    assert [n.key for n in cut.networks] == [n.key for n in full.networks[:len(cut)]]
    t = cut.threshold
    assert t is not None and t > full.networks[len(cut)].score
    listed = {n.key for n in cut.networks}
    assert all(n.key in listed for n in full.networks if n.score >= t)
    assert "INCOMPLETE (time_limit)" in cut.guarantee
