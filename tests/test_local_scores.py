"""Local scores against an independent, per-row implementation of the formulas.

The reference below counts rows with ``collections.Counter`` and uses
``math.lgamma`` -- nothing shared with the vectorised engine (mixed-radix
codes, ``np.bincount``, ``scipy.special.gammaln``, lookup tables).
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py.data.dataset import Dataset
from gobnilp_py.errors import GobnilpError, ScoreError
from gobnilp_py.scoring import (
    AIC,
    BIC,
    SCORES,
    BDeu,
    LocalScore,
    ParentConfigs,
    ScoreTable,
    make_score,
    register_score,
    resolve_epsilon,
    score,
)


# --------------------------------------------------------------- reference
def direct_score(codes: np.ndarray, arities: list[int], child: int, parents: tuple[int, ...],
                 kind: str, ess: float = 1.0) -> float:
    """The textbook formulas, one row at a time."""
    n_rows = len(codes)
    njk: Counter = Counter()
    nj: Counter = Counter()
    for row in codes.tolist():
        cfg = tuple(row[p] for p in parents)
        njk[(cfg, row[child])] += 1
        nj[cfg] += 1
    q = 1
    for p in parents:
        q *= arities[p]
    r = arities[child]
    if kind in ("BIC", "AIC"):
        ll = sum(c * math.log(c / nj[cfg]) for (cfg, _), c in njk.items())
        coef = 0.5 * math.log(n_rows) if kind == "BIC" else 1.0
        return ll - coef * q * (r - 1)
    assert kind == "BDeu"
    a_j, a_jk = ess / q, ess / (q * r)
    total = 0.0
    for cfg, c in nj.items():
        total += math.lgamma(a_j) - math.lgamma(a_j + c)
    for _, c in njk.items():
        total += math.lgamma(a_jk + c) - math.lgamma(a_jk)
    return total


@st.composite
def datasets(draw, max_n: int = 5, max_rows: int = 60, max_arity: int = 4):
    """Random data with declared arities sometimes larger than the observed ones."""
    n = draw(st.integers(2, max_n))
    n_rows = draw(st.integers(1, max_rows))
    observed = [draw(st.integers(1, max_arity)) for _ in range(n)]
    extra = [draw(st.integers(0, 2)) for _ in range(n)]
    arities = [o + e for o, e in zip(observed, extra)]
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, o, size=n_rows) for o in observed])
    if n_rows > 1 and draw(st.booleans()):  # correlate a column with another
        codes[:, -1] = (codes[:, 0] + rng.integers(0, 2, size=n_rows)) % observed[-1]
    return Dataset([f"V{j}" for j in range(n)], arities, codes)


def all_families(n: int):
    for v in range(n):
        others = [j for j in range(n) if j != v]
        for k in range(len(others) + 1):
            for ps in combinations(others, k):
                yield v, ps


# ------------------------------------------------------------------- tests
@settings(max_examples=60, derandomize=True, deadline=None)
@given(datasets(), st.sampled_from(["BIC", "AIC", "BDeu"]), st.sampled_from([0.1, 1.0, 3.5, 50.0]))
def test_engine_matches_direct_formulas(ds, kind, ess):
    """Every family of the unpruned table equals the textbook value to 1e-9."""
    table = score(ds, score=kind, ess=ess, prune=False)
    ar = [int(a) for a in ds.arities]
    assert len(table) == ds.n * 2 ** (ds.n - 1)
    for v, ps in all_families(ds.n):
        want = direct_score(ds.codes, ar, v, ps, kind, ess)
        got = table.local_score(ds.names[v], [ds.names[p] for p in ps])
        assert got == pytest.approx(want, abs=1e-9, rel=1e-12), (kind, v, ps)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(datasets(max_arity=6, max_rows=120), st.sampled_from(["BIC", "BDeu"]))
def test_counting_with_forced_compression(ds, kind):
    """Dense-id compression (forced at every step) and merged rows change no count or score."""
    sc = make_score(kind, ds, ess=2.0)
    plain = ParentConfigs(ds, dense_limit=10**9, merge_rows=False)
    squeezed = ParentConfigs(ds, dense_limit=1, merge_rows=False)
    merged = ParentConfigs(ds, dense_limit=1, merge_rows=True)
    assert merged.weights is not None and merged.weights.sum() == ds.N
    ar = [int(a) for a in ds.arities]
    for ps in [ps for _, ps in all_families(ds.n) if ps and 0 not in ps] + [()]:
        children = np.array([v for v in range(ds.n) if v not in ps])
        fa = plain.family_counts(ps, children)
        fm = merged.family_counts(ps, children)
        assert fa.n_configs == fm.n_configs
        np.testing.assert_array_equal(fa.nonzero_cells(), fm.nonzero_cells())
        a = sc.batch(fa).scores
        b = sc.batch(squeezed.family_counts(ps, children)).scores
        c = sc.batch(fm).scores
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)
        np.testing.assert_allclose(a, c, rtol=0, atol=1e-9)
        for i, v in enumerate(children):
            assert a[i] == pytest.approx(direct_score(ds.codes, ar, int(v), ps, kind, 2.0), abs=1e-9)


def test_single_family_paths_agree():
    """``local_score`` (the user-facing per-family path) agrees with the batch path."""
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 3, size=(200, 4))
    codes[:, 1] = (codes[:, 0] + (rng.random(200) < 0.2)) % 3
    ds = Dataset(["a", "b", "c", "d"], [3, 3, 4, 3], codes)
    for cls in (BIC, AIC, BDeu):
        sc = cls(ds)
        pc = ParentConfigs(ds)
        for ps in [(), (1,), (0, 2), (0, 2, 3)]:
            fc = pc.family_counts(ps, np.array([v for v in range(4) if v not in ps]))
            batch = sc.batch(fc).scores
            for i, v in enumerate(fc.children):
                single = sc.local_score(int(v), ps, fc.table(i))
                assert single == pytest.approx(batch[i], abs=1e-9)


def test_known_values_by_hand():
    """Two rows, one binary child: numbers a reader can check on paper."""
    ds = Dataset(["x", "y"], [2, 2], np.array([[0, 0], [1, 1]]))
    t = score(ds, score="BIC", prune=False)
    # LL(x) = 2 * 1*ln(1/2) ; penalty 0.5 ln 2 * 1 * 1
    assert t.local_score("x", []) == pytest.approx(2 * math.log(0.5) - 0.5 * math.log(2))
    # x <- y: configurations deterministic, LL = 0, penalty 0.5 ln 2 * 2
    assert t.local_score("x", ["y"]) == pytest.approx(-math.log(2))
    # BDeu(ess=1), empty parents: ln[G(1)/G(3) * G(1/2+1)^2/G(1/2)^2] = ln(1/2 * 1/4)
    b = score(ds, score="BDeu", prune=False)
    assert b.local_score("x", []) == pytest.approx(math.log(1 / 8))


def test_user_score_plugin_and_registry():
    rng = np.random.default_rng(3)
    ds = Dataset(["a", "b", "c"], [2, 2, 2], rng.integers(0, 2, size=(50, 3)))
    seen = []

    def neg_parents(child, parents, counts):
        seen.append((child, parents, counts.shape))
        assert counts.sum() == 50
        return -float(len(parents))

    t = score(ds, score=neg_parents, epsilon=0.5)
    # Every non-empty set is beaten by the empty set by >= 1 > 0.5.
    assert all(ps == () for f in t.families for ps, _ in f)
    assert t.score_name == "neg_parents" and seen

    class Half(LocalScore):
        name = "HalfBIC"

        def local_score(self, child, parents, counts):
            return 0.5 * BIC(self.data).local_score(child, parents, counts)

        def upper_bound(self, child, parents):
            return 0.0

    register_score(Half)
    try:
        assert "HalfBIC" in SCORES
        t2 = score(ds, score="halfbic", prune=False)
        t3 = score(ds, score="BIC", prune=False)
        for fam in t3:
            assert t2.local_score(fam.child, fam.parents) == pytest.approx(0.5 * fam.score)
        t4 = score(ds, score="HalfBIC", epsilon=0.0)
        assert "user_bound" in t4.pruning["a"]
    finally:
        SCORES.pop("HalfBIC", None)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"score": "BICX"}, "valid: BIC, AIC, BDeu"),
    ({"ess": 0}, "ess"),
    ({"ess": -1.0}, "ess"),
    ({"palim": -1}, "palim"),
    ({"palim": 1.5}, "palim"),
    ({"bayes_factor": 3, "epsilon": 1.0}, "not both"),
    ({"bayes_factor": 0.5}, "bayes_factor"),
    ({"epsilon": -0.1}, "epsilon"),
    ({"epsilon": float("nan")}, "epsilon"),
])
def test_bad_settings_are_one_line_score_errors(kwargs, fragment):
    ds = Dataset(["a", "b"], [2, 2], np.array([[0, 1], [1, 0], [1, 1]]))
    with pytest.raises(ScoreError) as exc:
        score(ds, **kwargs)
    msg = str(exc.value)
    assert fragment in msg and "\n" not in msg
    assert isinstance(exc.value, (GobnilpError, ValueError))


def test_epsilon_resolution():
    assert resolve_epsilon(None, None) == 0.0
    assert resolve_epsilon(3, None) == pytest.approx(math.log(3))
    assert resolve_epsilon(None, 2.5) == 2.5
    assert resolve_epsilon(1, None) == 0.0


def test_table_metadata_and_palim():
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 2, size=(80, 4))
    ds = Dataset(["a", "b", "c", "d"], [2, 2, 2, 2], codes)
    t = score(ds, score="BDeu", ess=2.0, palim=2, bayes_factor=20, prune=False)
    assert isinstance(t, ScoreTable)
    assert t.epsilon == pytest.approx(math.log(20)) and t.score_name == "BDeu"
    assert t.meta["N"] == 80 and t.meta["ess"] == 2.0 and t.meta["palim"] == 2
    assert t.meta["arities"] == {"a": 2, "b": 2, "c": 2, "d": 2}
    assert max(len(ps) for f in t.families for ps, _ in f) == 2
    assert len(t) == 4 * (1 + 3 + 3)
    t0 = score(ds, palim=0)
    assert len(t0) == 4


def test_large_arity_product_does_not_overflow():
    """q beyond 2**63 (many parents of large arity) must stay exact/finite."""
    rng = np.random.default_rng(5)
    n, rows = 9, 40
    codes = rng.integers(0, 3, size=(rows, n))
    ds = Dataset([str(j) for j in range(n)], [200] * n, codes)
    sc = BDeu(ds)
    ps = tuple(range(1, n))
    got = sc.compute(0, ps)
    want = direct_score(ds.codes, [200] * n, 0, ps, "BDeu", 1.0)
    assert math.isfinite(got) and got == pytest.approx(want, rel=1e-12)
    b = BIC(ds).compute(0, ps)
    assert b == pytest.approx(direct_score(ds.codes, [200] * n, 0, ps, "BIC"), rel=1e-12)
