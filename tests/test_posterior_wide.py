"""The posterior sums on 10 to 15 variables, past brute-force enumeration, by checks that do not share their code.

``tests/test_posterior.py`` holds the engine to brute force over every DAG of 3-5
variables.  Here, where enumeration is out of reach (4.2e18 DAGs on 10 variables):

* **Counting, in exact integers.**  When every arc weighs ``x`` (``score(v, P) =
  |P| log x``), the evidence is ``sum_G x^(arcs of G)``: the arc generating
  polynomial of labelled DAGs, from Robinson's recursion over *the number* of
  nodes in Python integers (``a_n(x) = sum_k (-1)^(k+1) C(n, k) (1 + x)^(k (n-k))
  a_(n-k)(x)``; its value at 1 is OEIS A003024, checked below against the
  published figures and against enumeration), not the engine's float recursion
  over labelled sets.  With at most one parent per variable the DAGs are the
  rooted forests, counted in closed form (``C(n-1, k-1) n^(n-k)`` with ``k``
  trees).  By symmetry every arrow has posterior ``E[arcs] / (n (n - 1))``,
  ``E[arcs] = x a_n'(x) / a_n(x)``, and a set of DAGs with ``j`` arcs each weighs
  ``x^j`` apiece: the evidence, every arrow and edge posterior and ``mass_of``
  have exact references.
* **Real data (wine, 14 variables, BIC, no parent limit).**  The optimum of two
  other engines (order graph, subset DP) must lie between ``log_evidence - log
  a_14(1)`` and ``log_evidence``; a credible set's mass must lie in ``[0, 1]`` and
  between what its size and the Bayes factor imply; the sum over orders
  (Koivisto and Sood: every DAG counted once per linear extension) bounds the
  DAG sum (Tian and He) from above by at most ``log 14!``, and masses relative
  to it are lower bounds; arrows from the backward pass equal forward-only sums
  with one variable's families restricted to those holding the parent.

Tolerances (``docs/posterior.md``, "Error analysis"): the evidence as ``|log Z -
log Z_ref| <= 1e-9`` (1e-9 relative on ``Z``), probabilities and masses to 1e-9
relative.  The float error measured on these tables is about 1e-13, the first-order
bound the engine reports about 1e-11: the tolerance leaves room for both and still
fails on any lost term (the smallest here weighs 1e-8 of the evidence or more).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gobnilp_py
from gobnilp_py import ScoreTable, enumerate_networks, learn, posterior, score
from gobnilp_py.search.posterior_sums import posterior_sums

from datasets import dataset
from oracle_posterior import dag_list

RTOL = 1e-9

#: Labelled DAGs on n nodes, OEIS A003024 (Robinson 1973), published figures.
A003024 = {4: 543, 5: 29281, 10: 4175098976430598143, 15: 237725265553410354992180218286376719253505}


# ------------------------------------------------------------------ exact references in integers
def _mul(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


@lru_cache(maxsize=None)
def dag_polynomial(n: int) -> tuple[int, ...]:
    """Coefficients ``c_j`` = number of labelled DAGs on ``n`` nodes with ``j`` arcs (Robinson's recursion)."""
    if n == 0:
        return (1,)
    total = [0] * (n * (n - 1) // 2 + 1)
    for k in range(1, n + 1):
        m = k * (n - k)
        term = _mul([math.comb(m, j) for j in range(m + 1)], list(dag_polynomial(n - k)))
        sign = (-1) ** (k + 1) * math.comb(n, k)
        for j, c in enumerate(term):
            total[j] += sign * c
    assert all(c >= 0 for c in total)
    return tuple(total)


def forest_polynomial(n: int) -> tuple[int, ...]:
    """Coefficients for the DAGs with at most one parent per node (rooted forests): ``C(n-1, k-1) n^(n-k)`` with
    ``k`` trees, ``n - k`` arcs."""
    c = [0] * n
    for k in range(1, n + 1):
        c[n - k] = math.comb(n - 1, k - 1) * n ** (n - k)
    return tuple(c)


def _log(q: Fraction) -> float:
    return math.log(q.numerator) - math.log(q.denominator)      # exact ints of any size, one rounding each


def references(coeffs: tuple[int, ...], x: Fraction, n: int) -> tuple[float, float]:
    """``(log Z, P(u -> v))`` for arc weight ``x``: ``Z = sum c_j x^j``, ``P = E[arcs] / (n (n - 1))``."""
    z = sum(c * x ** j for j, c in enumerate(coeffs))
    arcs = sum(j * c * x ** j for j, c in enumerate(coeffs)) / z
    return _log(z), float(arcs / (n * (n - 1)))


def arc_weight_table(n: int, x: Fraction, palim: int | None) -> ScoreTable:
    """Every family up to ``palim`` parents, scoring ``|P| log x``; marked unpruned (it holds every parent set)."""
    lx = _log(x)
    fams = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        top = n - 1 if palim is None else palim
        fams.append([(ps, len(ps) * lx) for k in range(top + 1) for ps in itertools.combinations(others, k)])
    meta = {"prune": False, "palim": palim}
    return ScoreTable([f"V{i}" for i in range(n)], fams, score_name="arc weight", meta=meta)


# ------------------------------------------------------------------ the references themselves
def test_the_counting_references_match_enumeration_and_the_published_counts():
    for n in range(1, 6):
        dags = dag_list(n)
        arcs = [sum(len(ps) for ps in d) for d in dags]
        assert dag_polynomial(n) == tuple(arcs.count(j) for j in range(n * (n - 1) // 2 + 1))
        forests = [a for d, a in zip(dags, arcs) if all(len(ps) <= 1 for ps in d)]
        assert forest_polynomial(n) == tuple(forests.count(j) for j in range(n))
    for n, count in A003024.items():
        assert sum(dag_polynomial(n)) == count
    assert sum(forest_polynomial(15)) == 16 ** 14                # (n + 1)^(n - 1) rooted forests


# ------------------------------------------------------------------ the engine against them
def _check_counting(n: int, x: Fraction, palim: int | None) -> None:
    coeffs = dag_polynomial(n) if palim is None else forest_polynomial(n)
    log_z, p_arrow = references(coeffs, x, n)
    table = arc_weight_table(n, x, palim)
    post = posterior(table)
    assert post.exact and post.over_all_dags, post.guarantee
    assert abs(post.log_evidence - log_z) <= RTOL, (post.log_evidence, log_z)
    assert post.error_bound < RTOL and post.check_error < RTOL
    arrows = post.arrow_probabilities().to_numpy()
    off = ~np.eye(n, dtype=bool)
    assert np.all(np.abs(arrows[off] - p_arrow) <= RTOL * p_arrow) and np.all(arrows[~off] == 0.0)
    edges = post.edge_probabilities().to_numpy()
    assert np.all(np.abs(edges[off] - 2 * p_arrow) <= RTOL * 2 * p_arrow)
    # masses: the empty DAG, and the n (n - 1) DAGs with one arc (x each), against Z in integers
    z = sum(c * x ** j for j, c in enumerate(coeffs))
    names = post.names
    empty = {v: () for v in names}
    one_arc = [{**empty, names[v]: (names[u],)} for u in range(n) for v in range(n) if u != v]
    for nets, weight in (([empty], Fraction(1)), (one_arc, n * (n - 1) * x)):
        m = post.mass_of(nets)
        want = float(weight / z)
        assert m.exact and m.n_networks == len(nets) and abs(m.value - want) <= RTOL * want
    # Koivisto and Sood's sum over orders: a different quantity (each DAG once per linear extension)
    assert log_z - RTOL <= post.log_evidence_upper <= log_z + math.lgamma(n + 1) + RTOL


@settings(max_examples=12, deadline=None)
@given(n=st.integers(6, 13), x=st.sampled_from([Fraction(1), Fraction(1, 3), Fraction(1, 40), Fraction(5, 2)]),
       palim=st.sampled_from([None, 1]))
def test_arc_weighted_sums_equal_exact_counts(n, x, palim):
    _check_counting(n, x, palim)


def test_fifteen_variables_equal_exact_counts():
    """15 variables, every parent set (245,760 families): 2.4e41 DAGs, their evidence, arrows and masses."""
    _check_counting(15, Fraction(1), None)
    _check_counting(15, Fraction(1, 7), None)


def test_uniform_weights_count_the_dags():
    """All scores zero: the evidence is the number of DAGs, a published figure (OEIS A003024)."""
    s = posterior_sums(arc_weight_table(10, Fraction(1), None))
    assert abs(s.log_z - math.log(A003024[10])) <= RTOL


# ------------------------------------------------------------------ real data against other engines
@pytest.fixture(scope="module")
def wine():
    data = gobnilp_py.read_data(dataset("wine"), header=False)
    table = score(data, score="BIC", prune=False, n_jobs=1)
    return data, table, posterior(table)


def test_other_engines_optima_lie_within_the_evidence(wine):
    """OPT <= log Z <= OPT + log(number of DAGs); the order graph and the DP find the same OPT."""
    _data, table, post = wine
    assert post.exact and post.over_all_dags and table.n == 14
    opts = {}
    for method in ("ordergraph", "dp"):
        best = learn(table, method=method)
        opts[method] = best.score
        assert best.score <= post.log_evidence + RTOL * abs(post.log_evidence)
        p = post.probability(best)
        assert 0.0 < p <= 1.0
        assert abs(math.log(p) - (best.score - post.log_evidence)) <= 1e-9 * abs(best.score)
    assert math.isclose(opts["ordergraph"], opts["dp"], rel_tol=1e-12)
    assert post.log_evidence <= opts["dp"] + math.log(sum(dag_polynomial(14))) + 1e-9
    # the sum over orders: a different quantity, at least the DAG sum and at most n! times it
    assert post.log_evidence <= post.log_evidence_upper <= post.log_evidence + math.lgamma(15) + 1e-9


def test_credible_set_masses_are_bounded_and_the_order_sum_gives_lower_bounds(wine):
    """A set of N DAGs within a Bayes factor B of OPT holds between N exp(OPT - log Z) / B and
    N exp(OPT - log Z) of the posterior, never more than 1; relative to the sum over orders, less."""
    data, table, post = wine
    bound = posterior(table, exact=False)
    assert bound.kind == "bound"
    previous = 0.0
    for bf in (3.0, 20.0):
        cs = enumerate_networks(data, score="BIC", bayes_factor=bf, by="dag", method="ordergraph", n_jobs=1)
        assert cs.complete
        opt = max(net.score for net in cs.networks)
        n_dags = len(cs.networks)
        m = post.mass_of(cs)
        top = n_dags * math.exp(opt - post.log_evidence)
        assert m.exact and 0.0 < m.value <= 1.0
        assert top / bf * (1 - RTOL) <= m.value <= top * (1 + RTOL)
        assert m.value >= previous                          # a larger Bayes factor holds the smaller set
        previous = m.value
        lo = bound.mass_of(cs)
        assert lo.lower_bound and lo.value <= m.value and lo.text.startswith("at least ")


def test_wine_arrows_equal_forward_only_sums(wine):
    """Arrows from the backward pass against the forward recursion alone with the child's families
    restricted to those holding the parent (no backward pass), float64, 14 variables."""
    _data, table, post = wine
    p = post.arrow_probabilities().to_numpy()
    s_z = post.log_evidence
    strong = np.unravel_index(np.argmax(np.where(np.eye(14, dtype=bool), -1, p)), p.shape)
    weak = np.unravel_index(np.argmin(np.where(np.eye(14, dtype=bool), 2, p)), p.shape)
    middle = np.unravel_index(np.argmin(np.abs(p - 0.5) + np.eye(14)), p.shape)
    for u, v in {tuple(map(int, strong)), tuple(map(int, weak)), tuple(map(int, middle))}:
        fams = [list(f) if i != v else [(ps, sc) for ps, sc in f if u in ps] for i, f in enumerate(table.families)]
        want = math.exp(posterior_sums(ScoreTable(table.names, fams), exact=True).log_z - s_z)
        assert abs(p[u, v] - want) <= RTOL * want, (u, v, p[u, v], want)
