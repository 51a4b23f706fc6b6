"""Gaussian scores against oracles that share no code with the scorer.

* **BGe, the formula of Kuipers, Moffa & Heckerman (2014)** (their corrected equation for the
  marginal likelihood of the data on a set Y of l variables)::

      p(d_Y) = (α_μ/(N+α_μ))^{l/2} Γ_l((N+α_w-n+l)/2) / (π^{lN/2} Γ_l((α_w-n+l)/2))
               · det(T_YY)^{(α_w-n+l)/2} / det(R_YY)^{(N+α_w-n+l)/2}

  with Γ_l the multivariate gamma function, T = t·I and R = T + S + N α_μ/(N+α_μ)(x̄-ν)(x̄-ν)ᵀ;
  the local score is ln p(d_{P∪y}) - ln p(d_P).  Here every determinant is computed in *exact
  rational arithmetic* (data on a dyadic grid, so the floats are exact rationals, as are t, the
  mean and S), and only the final logarithms and lnΓ are floating point: an independent figure
  good to ~1e-13 relative, against the scorer's scaled incremental Cholesky.  The telescoping
  product also gives ln p(d) of all n variables, which every complete DAG must score.
* **The optimum on 8-10 variables**: Silander-Myllymäki's DP (``tests/oracle_dp.py``) over a
  table scored independently, family by family, by least squares on the rows (``bic-g``:
  ``numpy.linalg.lstsq`` with an intercept column) or by ``slogdet`` of the posterior matrix
  (``bge``, the closed form above), against ``learn`` on the pruned ``gaussian_score_table``.
* **The ε-set on 4 variables** equals brute force over all 543 DAGs, for ``bic-g`` and ``bge``
  with hyperparameters drawn too (the 5-variable check in ``test_gaussian_pruning.py`` uses the
  defaults).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py import ScoreTable, enumerate_networks, learn
from gobnilp_py.examples.gaussian import random_linear_gaussian
from gobnilp_py.scoring.gaussian import gaussian_score_table
from gaussian_helpers import brute_force_set, collected, correlated_data
from oracle_dp import optimal_dag

# ---------------------------------------------------------------- BGe: exact rational determinants


def _det(A: list[list[Fraction]]) -> Fraction:
    """Determinant by fraction-exact Gaussian elimination (A is positive definite: no pivoting)."""
    A = [row[:] for row in A]
    k = len(A)
    det = Fraction(1)
    for p in range(k):
        det *= A[p][p]
        for i in range(p + 1, k):
            f = A[i][p] / A[p][p]
            for j in range(p + 1, k):
                A[i][j] -= f * A[p][j]
    return det


def _ln(q: Fraction) -> float:
    return math.log(q.numerator) - math.log(q.denominator)


def _lmvgamma(a: float, l: int) -> float:
    """ln Γ_l(a) = l(l-1)/4 ln π + Σ_{j=1..l} ln Γ(a + (1-j)/2)."""
    return l * (l - 1) / 4 * math.log(math.pi) + sum(math.lgamma(a + (1 - j) / 2) for j in range(1, l + 1))


class KuipersBGe:
    """ln p(d_Y) of Kuipers, Moffa & Heckerman (2014), determinants exact; data must be exact rationals."""

    def __init__(self, x: np.ndarray, alpha_mu: Fraction, alpha_w: Fraction, nu: list[Fraction] | None):
        N, n = x.shape
        cols = [[Fraction(float(v)) for v in x[:, c]] for c in range(n)]
        mean = [sum(c) / N for c in cols]
        cent = [[v - m for v in c] for c, m in zip(cols, mean)]
        S = [[sum(a * b for a, b in zip(cent[i], cent[j])) for j in range(n)] for i in range(n)]
        self.t = alpha_mu * (alpha_w - n - 1) / (alpha_mu + 1)
        d = [Fraction(0)] * n if nu is None else [m - v for m, v in zip(mean, nu)]
        k = N * alpha_mu / (N + alpha_mu)
        self.R = [[S[i][j] + (self.t if i == j else 0) + k * d[i] * d[j] for j in range(n)] for i in range(n)]
        self.N, self.n, self.am, self.aw = N, n, alpha_mu, alpha_w

    def log_ml(self, Y: tuple[int, ...]) -> float:
        l = len(Y)
        if l == 0:
            return 0.0
        N, n = self.N, self.n
        am, aw = float(self.am), float(self.aw)
        RY = _det([[self.R[i][j] for j in Y] for i in Y])
        return (l / 2 * math.log(am / (N + am)) - l * N / 2 * math.log(math.pi)
                + _lmvgamma((N + aw - n + l) / 2, l) - _lmvgamma((aw - n + l) / 2, l)
                + (aw - n + l) / 2 * l * _ln(self.t) - (N + aw - n + l) / 2 * _ln(RY))

    def local(self, y: int, ps: tuple[int, ...]) -> float:
        return self.log_ml(tuple(sorted((*ps, y)))) - self.log_ml(tuple(sorted(ps)))


def _grid_data(seed: int, n: int, N: int, scale: bool) -> np.ndarray:
    """Correlated data rounded to multiples of 1/64: the floats are exact small rationals."""
    x = correlated_data(np.random.default_rng(seed), n, N, scale=scale)
    return np.round(x * 64) / 64


#: 25 rows of 4 correlated columns in units of 1/64 (``_grid_data(11, 4, 25, False) * 64``, written out so
#: the figure below does not depend on a random generator).
GRID = np.array([
    [-60, 85, -31, 48], [44, -24, -85, 129], [28, 130, -124, 31], [-53, -204, 18, -104], [42, 163, 84, -92],
    [50, 113, -130, 50], [49, -208, 29, 75], [-20, -52, -7, 97], [28, 71, -4, -109], [40, 128, 61, -65],
    [-14, 149, 166, 78], [-126, 55, -15, 110], [-81, -149, 45, 156], [105, -36, -114, -198], [20, 239, -180, 188],
    [-46, 186, 35, 87], [-60, -2, -22, 37], [-59, 36, -12, 48], [-18, -57, 124, -159], [-15, 157, 61, -179],
    [169, -54, -139, 8], [106, -97, -80, 319], [48, -32, -28, -103], [15, 3, 80, 136], [-34, -252, -141, 41],
]) / 64.0


HYPER = [(None, None, None), (Fraction(3, 2), 9, None), (Fraction(1, 4), 6, [Fraction(1, 2), -1, 2, Fraction(-3, 8)])]


@pytest.mark.parametrize("data", ["grid", "scaled"])
@pytest.mark.parametrize("am, aw, nu", HYPER)
def test_bge_equals_kuipers_moffa_heckerman_formula_with_exact_determinants(am, aw, nu, data):
    n, N = 4, 25
    x = GRID if data == "grid" else _grid_data(12, n, 60, True)   # scaled: offsets to ±50, scales 0.1-10
    ref = KuipersBGe(x, Fraction(1) if am is None else am, Fraction(n + 2) if aw is None else Fraction(aw), nu)
    kw = {} if am is None else {"alpha_mu": float(am), "alpha_w": float(aw)}
    if nu is not None:
        kw["nu"] = [float(v) for v in nu]
    full = gaussian_score_table(x, score="bge", prune=False, **kw)
    assert len(full) == n * 2 ** (n - 1)
    for y, fams in enumerate(full.families):
        for ps, ours in fams:
            theirs = ref.local(y, ps)
            assert abs(ours - theirs) <= 1e-11 * max(1.0, abs(theirs)), (y, ps, ours, theirs)
    # Every complete DAG (here, each of the 24 orders) scores ln p(d) of all variables.
    whole = ref.log_ml(tuple(range(n)))
    for order in itertools.permutations(range(n)):
        total = sum(full.local_score(str(v), [str(u) for u in order[:i]]) for i, v in enumerate(order))
        assert abs(total - whole) <= 1e-11 * abs(whole)


def test_bge_figure_on_a_fixed_data_set():
    """A figure fixed here: ln p(d) of the 4-variable data ``GRID`` under bnlearn's defaults
    (α_μ = 1, α_w = n + 2 = 6, ν = the sample mean), computed by :class:`KuipersBGe` in exact
    rational arithmetic; the scorer's complete DAG and the empty DAG's product of marginals."""
    x = GRID
    ref = KuipersBGe(x, Fraction(1), Fraction(6), None)
    assert ref.log_ml((0, 1, 2, 3)) == pytest.approx(FIGURE_LN_P_D, rel=1e-12)
    full = gaussian_score_table(x, score="bge", prune=False)
    chain = sum(full.local_score(str(v), [str(u) for u in range(v)]) for v in range(4))
    assert chain == pytest.approx(FIGURE_LN_P_D, rel=1e-11)
    empty = sum(full.local_score(str(v), []) for v in range(4))
    assert empty == pytest.approx(sum(ref.log_ml((v,)) for v in range(4)), rel=1e-11)


#: ``KuipersBGe(GRID, 1, 6, None).log_ml((0, 1, 2, 3))``, printed once (see the test above).
FIGURE_LN_P_D = -223.32957613007346


# ---------------------------------------------------------------- the optimum: an independent DP


def _independent_table(x: np.ndarray, name: str) -> ScoreTable:
    """Every family of every child scored without the scorer: lstsq on the rows (bic-g) or slogdet (bge)."""
    N, n = x.shape
    families: list[list[tuple[tuple[int, ...], float]]] = []
    if name == "bge":
        am, aw = 1.0, n + 2.0
        t = am * (aw - n - 1) / (am + 1)
        xc = x - x.mean(axis=0)
        R = t * np.eye(n) + xc.T @ xc

        def log_ml(Y: tuple[int, ...]) -> float:
            l = len(Y)
            if not l:
                return 0.0
            _, ld = np.linalg.slogdet(R[np.ix_(Y, Y)])
            return (l / 2 * math.log(am / (N + am)) - l * N / 2 * math.log(math.pi)
                    + _lmvgamma((N + aw - n + l) / 2, l) - _lmvgamma((aw - n + l) / 2, l)
                    + (aw - n + l) / 2 * l * math.log(t) - (N + aw - n + l) / 2 * ld)

    for y in range(n):
        others = [v for v in range(n) if v != y]
        fams = []
        for k in range(n):
            for ps in itertools.combinations(others, k):
                if name == "bic-g":
                    A = np.column_stack([np.ones(N), x[:, list(ps)]])
                    coef, *_ = np.linalg.lstsq(A, x[:, y], rcond=None)
                    rss = float(np.sum((x[:, y] - A @ coef) ** 2))
                    ll = -N / 2 * (math.log(2 * math.pi * rss / N) + 1)
                    fams.append((ps, ll - math.log(N) / 2 * (k + 2)))
                else:
                    fams.append((ps, log_ml(tuple(sorted((*ps, y)))) - log_ml(ps)))
        families.append(fams)
    return ScoreTable([str(v) for v in range(n)], families)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(8, 10), name=st.sampled_from(["bic-g", "bge"]), seed=st.integers(0, 2**31 - 1),
       rows=st.sampled_from([200, 1000, 3000]), mean_parents=st.sampled_from([1.0, 1.5, 2.5]))
def test_the_optimum_equals_an_independent_dp(n, name, seed, rows, mean_parents):
    net = random_linear_gaussian(n, seed=seed, mean_parents=mean_parents)
    x = net.sample(rows, seed=seed + 1)
    opt, parents = optimal_dag(_independent_table(x, name))
    table = gaussian_score_table(x, score=name, bayes_factor=3)
    got = learn(table)
    assert got.status == "optimal"
    assert abs(got.score - opt) <= 1e-9 * abs(opt), (got.score, opt)
    # The oracle's DAG scores the same under the scorer (its families are in the table or dominated).
    from gobnilp_py.data.continuous import as_continuous
    from gobnilp_py.scoring.gaussian_scores import GaussianScore

    sc = GaussianScore(name, as_continuous(x))
    assert abs(sum(sc.local_score(v, ps) for v, ps in enumerate(parents)) - opt) <= 1e-9 * abs(opt)


# ---------------------------------------------------------------- the ε-set on 4 variables


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.integers(6, 400), eps=st.floats(0.0, 10.0), name=st.sampled_from(["bic-g", "bge"]),
       hyper=st.sampled_from([None, (0.3, 0.5), (4.0, 3.0), (1.0, 40.0)]), seed=st.integers(0, 2**31 - 1),
       by=st.sampled_from(["class", "dag"]))
def test_epsilon_set_equals_brute_force_over_all_dags_of_four_variables(rows, eps, name, hyper, seed, by):
    rng = np.random.default_rng(seed)
    x = correlated_data(rng, 4, rows, density=float(rng.uniform(0.2, 0.9)), scale=bool(seed % 2))
    kw = {} if name != "bge" or hyper is None else {"alpha_mu": hyper[0], "alpha_w": 5.0 + hyper[1]}
    full = gaussian_score_table(x, score=name, prune=False, **kw)
    expected = brute_force_set(full, eps)
    table = gaussian_score_table(x, score=name, epsilon=eps, **kw)
    cs = enumerate_networks(table, epsilon=eps, by=by)
    got = collected(cs)
    assert cs.complete and set(got) == set(expected), (len(got), len(expected))
    for key, s in expected.items():
        assert abs(got[key] - s) <= 1e-9 * max(1.0, abs(s))


# ---------------------------------------------------------------- the other engines take the table as it is


def test_kbest_fixed_order_and_asobs_on_a_gaussian_table():
    """k-best equals the brute-force ranking of all 29,281 DAGs (unpruned table); a fixed order's
    optimum equals the best DAG consistent with it; ASOBS returns a DAG labelled approximate whose
    score is the sum of its families and at most the optimum."""
    from gaussian_helpers import dag_scores

    from gobnilp_py import kbest

    net = random_linear_gaussian(5, seed=21, mean_parents=1.5)
    x = net.sample(300, seed=2)
    for name in ("bic-g", "bge"):
        full = gaussian_score_table(x, score=name, prune=False)
        dags, scores = dag_scores(full)
        ranked = np.sort(scores)[::-1]
        top = kbest(full, 10)
        assert top.complete
        got = [nw.score for nw in top.networks]
        assert len(got) >= 10
        assert all(abs(a - b) <= 1e-9 * abs(b) for a, b in zip(got, ranked[: len(got)]))
        # Fixed order X5 < X4 < ... < X1: parents only from earlier variables.
        order = list(reversed(full.names))
        pos = {v: i for i, v in enumerate(range(4, -1, -1))}
        ok = [all(pos[p] < pos[v] for v in range(5) for p in range(5) if dags[d, v] >> p & 1) for d in range(len(dags))]
        fixed = learn(full, order=order)
        assert abs(fixed.score - scores[np.array(ok)].max()) <= 1e-9 * abs(fixed.score)
        table = gaussian_score_table(x, score=name, bayes_factor=3)
        approx = learn(table, method="asobs", seed=1)
        assert approx.status == "feasible" and approx.approximate
        total = sum(table.local_score(v, approx.parents[v]) for v in table.names)
        assert abs(total - approx.score) <= 1e-12 * abs(total) and approx.score <= ranked[0] + 1e-9 * abs(ranked[0])
