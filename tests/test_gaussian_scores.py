"""The Gaussian local scores are the published ones, exactly.

* ``bic-g`` / ``aic-g`` equal pgmpy's ``BICGauss`` / ``AICGauss`` ``local_score`` (statsmodels'
  GLM fit on the rows) to 1e-8 on random data: the same convention (natural log, higher is
  better, ``p + 2`` parameters), so no conversion;
* ``bge`` equals the log marginal likelihood computed a second, independent way: the product of
  the sequential posterior predictive (multivariate Student-t) densities of the rows under the
  normal-Wishart prior restricted to the family (Kuipers, Moffa & Heckerman 2014), and
  ``log p(D_{P∪y}) - log p(D_P)``;
* every DAG of a Markov equivalence class gets the same score (all DAGs of 4 and 5 variables);
* the lattice walk (compiled, interpreted, dense or hashed store) gives every family the score of
  the direct Cholesky formula, and the scores are within a tenth of the pruning tolerance of exact
  rational arithmetic at the collinearity threshold.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gobnilp_py.data.continuous import COLLINEAR_RTOL, as_continuous, check_full_rank
from gobnilp_py.errors import DataError, ScoreError
from gobnilp_py.scoring import _gaussian_walk as W
from gobnilp_py.scoring import gaussian as G
from gobnilp_py.scoring.gaussian import gaussian_score_table
from gobnilp_py.scoring.gaussian_scores import GaussianScore, gaussian_score_name
from gaussian_helpers import class_keys, correlated_data, dag_scores

NAMES = "ABCDEF"


def _pgmpy_scores():
    pytest.importorskip("statsmodels")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from pgmpy.structure_score import AICGauss, BICGauss
        except ImportError:  # older pgmpy
            try:
                from pgmpy.estimators import AICGauss, BICGauss
            except ImportError:
                pytest.skip("pgmpy without BICGauss/AICGauss")
    return BICGauss, AICGauss


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(2, 5), n_rows=st.integers(8, 250), seed=st.integers(0, 2**31 - 1),
       scale=st.booleans(), name=st.sampled_from(["bic-g", "aic-g"]))
def test_bic_aic_equal_pgmpy(n, n_rows, seed, scale, name):
    import pandas as pd

    BICGauss, AICGauss = _pgmpy_scores()
    rng = np.random.default_rng(seed)
    n_rows = max(n_rows, n + 3)
    x = correlated_data(rng, n, n_rows, scale=scale)
    df = pd.DataFrame(x, columns=list(NAMES[:n]))
    ref = (BICGauss if name == "bic-g" else AICGauss)(df)
    sc = GaussianScore(name, as_continuous(df))
    full = gaussian_score_table(df, score=name, prune=False)
    y = int(rng.integers(n))
    for ps, ours in full.families[y]:
        theirs = float(ref.local_score(NAMES[y], tuple(NAMES[p] for p in ps)))
        assert abs(ours - theirs) <= 1e-8, (y, ps, ours, theirs)
        assert abs(sc.local_score(y, ps) - theirs) <= 1e-8


def _log_ml_sequential(x: np.ndarray, cols: list[int], n: int, am: float, aw: float, nu: np.ndarray) -> float:
    """log p(D_cols) as the product of the rows' posterior predictive densities (multivariate t)."""
    l = len(cols)
    if l == 0:
        return 0.0
    data = x[:, cols]
    t = am * (aw - n - 1) / (am + 1)
    T = t * np.eye(l)
    mu = nu[cols].astype(float).copy()
    a_mu, a_w = am, aw - n + l          # Kuipers et al.: the Wishart degrees of an l-variable marginal
    total = 0.0
    for row in data:
        dof = a_w - l + 1
        sig = (a_mu + 1) / (a_mu * dof) * T
        d = row - mu
        _, logdet = np.linalg.slogdet(sig)
        q = float(d @ np.linalg.solve(sig, d))
        total += (math.lgamma((dof + l) / 2) - math.lgamma(dof / 2) - l / 2 * math.log(dof * math.pi)
                  - logdet / 2 - (dof + l) / 2 * math.log1p(q / dof))
        T = T + a_mu / (a_mu + 1) * np.outer(d, d)
        mu = (a_mu * mu + row) / (a_mu + 1)
        a_mu += 1
        a_w += 1
    return total


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 4), n_rows=st.integers(6, 40), seed=st.integers(0, 2**31 - 1),
       am=st.sampled_from([None, 0.3, 1.0, 7.5]), extra=st.sampled_from([None, 0.5, 1.0, 12.0]),
       given_nu=st.booleans())
def test_bge_equals_sequential_predictive(n, n_rows, seed, am, extra, given_nu):
    rng = np.random.default_rng(seed)
    n_rows = max(n_rows, n + 2)
    x = correlated_data(rng, n, n_rows, scale=True)
    aw = None if extra is None else n + 1 + extra
    nu = rng.normal(size=n) * 5 if given_nu else None
    sc = GaussianScore("bge", as_continuous(x), alpha_mu=am, alpha_w=aw, nu=nu)
    am_v, aw_v = sc.params["alpha_mu"], sc.params["alpha_w"]
    nu_v = np.asarray(nu) if nu is not None else x.mean(axis=0)
    full = gaussian_score_table(x, score="bge", prune=False, alpha_mu=am, alpha_w=aw, nu=nu)
    y = int(rng.integers(n))
    for ps, ours in full.families[y]:
        ref = (_log_ml_sequential(x, list(ps) + [y], n, am_v, aw_v, nu_v)
               - _log_ml_sequential(x, list(ps), n, am_v, aw_v, nu_v))
        assert abs(ours - ref) <= 1e-9 * max(1.0, abs(ref)), (y, ps, ours, ref)


def test_bge_defaults_are_bnlearns():
    x = correlated_data(np.random.default_rng(0), 4, 30)
    sc = GaussianScore("bge", as_continuous(x))
    assert sc.params["alpha_mu"] == 1.0 and sc.params["alpha_w"] == 6.0 and sc.params["nu"] == "sample mean"
    assert sc.params["t"] == pytest.approx(0.5)
    same = GaussianScore("bge", as_continuous(x), alpha_mu=1.0, alpha_w=6.0, nu=x.mean(axis=0))
    for ps in [(), (1,), (1, 2, 3)]:
        assert same.local_score(0, ps) == pytest.approx(sc.local_score(0, ps), abs=1e-9)


@pytest.mark.parametrize("n", [4, 5])
@pytest.mark.parametrize("name", ["bge", "bic-g", "aic-g"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_dag_of_a_markov_class_scores_the_same(n, name, seed):
    rng = np.random.default_rng(100 * n + seed)
    x = correlated_data(rng, n, int(rng.integers(n + 3, 200)))
    full = gaussian_score_table(x, score=name, prune=False)
    dags, scores = dag_scores(full)
    assert len(dags) == {4: 543, 5: 29281}[n] and np.isfinite(scores).all()
    by_class: dict = {}
    for key, s in zip(class_keys(dags), scores.tolist()):
        by_class.setdefault(key, []).append(s)
    assert len(by_class) == {4: 185, 5: 8782}[n]
    spread = max(max(v) - min(v) for v in by_class.values())
    assert spread <= 1e-9, spread
    # The check can fail: scores do differ between classes.
    assert len({round(v[0], 6) for v in by_class.values()}) > len(by_class) // 2


@pytest.mark.parametrize("name", ["bic-g", "aic-g", "bge"])
@pytest.mark.parametrize("walk", ["two-pass", "dense", "hash"])
@pytest.mark.parametrize("compiled", [True, False])
def test_walk_gives_every_family_the_formula_score(name, walk, compiled, monkeypatch):
    rng = np.random.default_rng(7)
    x = correlated_data(rng, 7, 300)
    sc = GaussianScore(name, as_continuous(x))
    monkeypatch.setattr(G, "DENSE_MAX_BITS", 0 if walk == "hash" else 26)
    monkeypatch.setattr(G, "TWO_PASS_MIN_FRACTION", 0.25 if walk == "two-pass" else None)
    if not compiled:
        if not W.AVAILABLE:
            pytest.skip("numba absent: the walk always runs interpreted")
        monkeypatch.setattr(W, "walk_child", W.walk_child.py_func)
        monkeypatch.setattr(W, "walk_child_dense", W.walk_child_dense.py_func)
    full = gaussian_score_table(x, score=name, prune=False)
    assert len(full) == 7 * 2**6 and set(full.meta["walks"].values()) == {walk}
    worst = max(abs(s - sc.local_score(y, ps)) for y, fams in enumerate(full.families) for ps, s in fams)
    assert worst <= 1e-10


def _exact_scatter(x: np.ndarray) -> list[list[Fraction]]:
    """The centred scatter matrix of the float data, in exact rational arithmetic."""
    N, n = x.shape
    cols = [[Fraction(float(v)) for v in x[:, c]] for c in range(n)]
    cent = [[a - sum(c) / N for a in c] for c in cols]
    return [[sum(a * b for a, b in zip(cent[i], cent[j])) for j in range(n)] for i in range(n)]


def _exact_ln_rss(S: list[list[Fraction]], y: int, ps: tuple[int, ...]) -> float:
    """ln of the residual sum of squares of y on ps (with intercept): an exact Schur complement of S."""
    idx = [*ps, y]
    k = len(idx)
    A = [[S[i][j] for j in idx] for i in idx]
    for p in range(k - 1):
        for i in range(p + 1, k):
            f = A[i][p] / A[p][p]
            for j in range(p + 1, k):
                A[i][j] -= f * A[p][j]
    r = A[k - 1][k - 1]
    return math.log(r.numerator) - math.log(r.denominator)


def test_scores_near_the_collinearity_threshold_are_exact_to_the_tolerance():
    """At 1 - R² a few times the threshold, every score is within a tenth of the pruning tolerance of
    exact arithmetic on the same floats; a little below the threshold the data are refused."""
    rng = np.random.default_rng(5)
    N = 300
    x = rng.normal(size=(N, 4)) * [1, 3, 0.2, 1] + [0, 100, -5, 0]
    noise = rng.normal(size=N)
    x[:, 3] = x[:, 0] + 0.5 * x[:, 1] - 2 * x[:, 2] + 3e-3 * noise
    resid = check_full_rank(as_continuous(x))
    assert COLLINEAR_RTOL < resid.min() < 10 * COLLINEAR_RTOL
    full = gaussian_score_table(x, score="bic-g", prune=False)
    c = 0.5 * math.log(N)
    S = _exact_scatter(x)
    worst = 0.0
    for y, fams in enumerate(full.families):
        for ps, s in fams:
            exact = -0.5 * N * (math.log(2 * math.pi) + 1 + _exact_ln_rss(S, y, ps) - math.log(N)) - c * (len(ps) + 2)
            worst = max(worst, abs(s - exact) / (1e-9 * max(1.0, abs(exact))))
    assert worst < 0.1, worst
    x[:, 3] = x[:, 0] + 0.5 * x[:, 1] - 2 * x[:, 2] + 5e-4 * noise
    with pytest.raises(DataError, match=r"column '3' is \(nearly\) a linear function"):
        gaussian_score_table(x, score="bic-g")


def test_score_names_and_hyperparameters_are_checked():
    assert [gaussian_score_name(s) for s in ("BIC-G", "aic-g", "BGE", " bge ")] == ["BIC-G", "AIC-G", "BGe", "BGe"]
    x = correlated_data(np.random.default_rng(3), 3, 40)
    cases = [
        (dict(score="bic"), "unknown Gaussian score 'bic'"),
        (dict(score="bic-g", alpha_mu=2.0), "alpha_mu: hyperparameter.* of the BGe score, not of BIC-G"),
        (dict(score="bge", alpha_w=4.0), r"alpha_w must be > n \+ 1 = 4"),
        (dict(score="bge", alpha_mu=0.0), "alpha_mu must be > 0"),
        (dict(score="bge", alpha_mu=float("nan")), "alpha_mu must be a finite number"),
        (dict(score="bge", nu=[0.0, 1.0]), "nu must give 3 numbers"),
        (dict(score="bge", palim=-1), "palim"),
        (dict(score="bge", bayes_factor=0.5), "bayes_factor must be a finite number >= 1"),
        (dict(score="bge", unpruned=["Z"]), "unpruned names unknown variable 'Z'"),
    ]
    for kwargs, msg in cases:
        with pytest.raises(ScoreError, match=msg) as info:
            gaussian_score_table(x, **kwargs)
        assert "\n" not in str(info.value)


def test_docstring_examples_run():
    import doctest
    import importlib

    for mod in ("gobnilp_py.data.continuous", "gobnilp_py.scoring.gaussian_scores", "gobnilp_py.scoring.gaussian",
                "gobnilp_py.examples.gaussian"):
        res = doctest.testmod(importlib.import_module(mod), optionflags=doctest.ELLIPSIS)
        assert res.failed == 0 and res.attempted > 0, (mod, res)
