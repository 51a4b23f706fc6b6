"""Model averaging over whole equivalence classes (``CredibleSet`` after class-level collection).

The averages weigh each class by its exact member count, ``n_c exp(s_c - OPT)``.
Here the classes are huge on purpose: a complete undirected CPDAG on ``N``
nodes has ``N!`` members (``25! ~ 1.6e25``; ``200! ~ 7.9e374`` is beyond the
float range, so any float conversion of the count would overflow).  The exact
values are computed independently with exact integers and ``decimal`` (60
digits): every member of the complete class has ``u -> v`` for exactly half of
the orders of the nodes, and the second class is a single DAG (all its arrows
compelled), so

    P(u -> v) = (N!/2 * w1 + [u -> v in G2] * w2) / (N! * w1 + w2),  w_i = exp(s_i - OPT).
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest

from gobnilp_py.equivalence import cpdag
from gobnilp_py.solve.classes import ClassSummary
from gobnilp_py.solve.credible import CredibleSet


def _complete(names):
    """Parents of the complete DAG names[0] -> names[1] -> ... (every earlier node a parent)."""
    return {x: tuple(names[:i]) for i, x in enumerate(names)}


def _immoral(names):
    """A DAG whose every arrow is compelled: names[0] and names[1] both point to every other node."""
    a, b = names[0], names[1]
    return {x: ((a, b) if i >= 2 else ()) for i, x in enumerate(names)}


def _exact(n, s1, s2, opt):
    """Exact arrow and edge probabilities (Decimal, 60 digits) for the complete class (s1) and _immoral (s2)."""
    assert n >= 3
    with localcontext() as ctx:
        ctx.prec = 60
        w1 = (Decimal(s1) - Decimal(opt)).exp()
        w2 = (Decimal(s2) - Decimal(opt)).exp()
        big = Decimal(math.factorial(n))
        total = big * w1 + w2
        arrows = np.zeros((n, n))
        edges = np.zeros((n, n))
        for u in range(n):
            for v in range(n):
                if u == v:
                    continue
                in_g2 = u in (0, 1) and v >= 2
                adjacent_g2 = in_g2 or (v in (0, 1) and u >= 2)
                arrows[u, v] = float((big / 2 * w1 + (w2 if in_g2 else 0)) / total)
                # the complete class is adjacent everywhere, the single DAG only along its arrows
                edges[u, v] = float((big * w1 + (w2 if adjacent_g2 else 0)) / total)
    return arrows, edges


def _credible_set(names, classes, opt):
    return CredibleSet(opt, 5.0, False, "max_networks", [], classes=classes)


@pytest.mark.parametrize("n", [25, 30, 200])
def test_a_complete_class_alone_averages_exactly(n):
    names = tuple(f"x{i}" for i in range(n))
    cp = cpdag(names, _complete(names))
    assert cp.count_dags() == math.factorial(n)
    cs = _credible_set(names, [ClassSummary(cp, -100.0, math.factorial(n))], -100.0)
    assert cs.averages_over == "all credible networks"
    arrows = cs.arrow_probabilities().to_numpy()
    edges = cs.edge_probabilities().to_numpy()
    off = ~np.eye(n, dtype=bool)
    assert np.all(arrows[off] == 0.5) and np.all(np.diag(arrows) == 0)  # N!/2 of N!: exactly one half
    assert np.all(edges[off] == 1.0) and np.all(np.diag(edges) == 0)


@pytest.mark.parametrize("n, gap", [(25, 0.0), (25, 50.0), (25, 58.0), (200, 0.0), (200, 860.0), (200, 865.0)])
def test_a_huge_class_beside_a_single_dag_averages_exactly(n, gap):
    """Huge class N! members at score OPT - gap against one DAG at OPT; gaps near ln N! balance the two.

    ln 25! = 58.00, ln 200! = 863.23: the gaps straddle the point where both classes weigh the same, so
    neither class's weight rounds away and a mistake in either count shows.
    """
    names = tuple(f"x{i}" for i in range(n))
    opt = -1234.5
    s1, s2 = opt - gap, opt
    big = cpdag(names, _complete(names))
    one = cpdag(names, _immoral(names))
    assert one.count_dags() == 1
    cs = _credible_set(names, [ClassSummary(one, s2, 1), ClassSummary(big, s1, math.factorial(n))], opt)
    want_arrows, want_edges = _exact(n, s1, s2, opt)
    got_arrows = cs.arrow_probabilities()
    got_edges = cs.edge_probabilities()
    assert list(got_arrows.index) == list(names) and list(got_arrows.columns) == list(names)
    np.testing.assert_allclose(got_arrows.to_numpy(), want_arrows, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(got_edges.to_numpy(), want_edges, rtol=1e-12, atol=0)
    assert np.all(np.isfinite(got_arrows.to_numpy()))


def test_constrained_member_counts_are_used_for_the_weights():
    """A class whose counted members are restricted weighs by that count, its arrows by theirs.

    The restriction is an ``allowed`` family predicate, as :func:`expand_classes` uses for a pruned
    table: node 0 may have at most one parent.  The members of a complete class are the orders of its
    nodes, so the members that count are the orders with node 0 in the first two places (2 * 5! of 6!),
    enumerated here directly over the permutations, independently of the counting code.
    """
    import itertools

    from gobnilp_py.equivalence import MemberConstraints

    n = 6
    names = tuple("abcdef")
    cp = cpdag(names, _complete(names))
    cons = MemberConstraints(allowed=lambda v, fam: not (v == 0 and fam.bit_count() >= 2))
    want = np.zeros((n, n))
    count = 0
    for perm in itertools.permutations(range(n)):
        if perm.index(0) >= 2:
            continue
        count += 1
        for i, v in enumerate(perm):
            for p in perm[:i]:
                want[p, v] += 1
    assert count == 2 * math.factorial(5)
    from gobnilp_py.equivalence import Extensions

    assert Extensions(cp, cons).count() == count
    other = cpdag(names, _immoral(names))
    classes = [ClassSummary(other, -10.0, 1), ClassSummary(cp, -10.0 - math.log(3), count, constraints=cons)]
    cs = _credible_set(names, classes, -10.0)
    # the complete class weighs count/3, the single DAG 1
    w_big, w_one = count / 3, 1.0
    g2 = np.zeros((n, n))
    g2[0, 2:] = g2[1, 2:] = 1
    expected = (want / 3 + g2 * w_one) / (w_big + w_one)
    np.testing.assert_allclose(cs.arrow_probabilities().to_numpy(), expected, rtol=1e-12, atol=1e-15)
    edges = cs.edge_probabilities().to_numpy()
    want_edges = ((1.0 - np.eye(n)) * w_big + (g2 + g2.T) * w_one) / (w_big + w_one)
    np.testing.assert_allclose(edges, want_edges, rtol=1e-12, atol=1e-15)
