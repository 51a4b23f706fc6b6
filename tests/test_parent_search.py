"""Tian's branch and bound over parent sets (``search/fixed_order/parent_search.py``) against exhaustive search.

Oracles: every subset of the candidate set scored with the package's public
score classes (``BIC``, ``AIC``, ``BDeu`` from :mod:`gobnilp_py.scoring`),
which count independently of the search.  Checked:

* the best set's score equals the exhaustive maximum (ties compared on score),
  for every bound variant, start and tree order;
* the ε form lists exactly the subsets within ε, each once;
* every bound the search uses is valid: for each bound reported through the
  trace, every set between the state and its ceiling set scores at most the
  bound (BIC, AIC and both BDeu bounds);
* the corrected depth bound on the XOR data (N = 106), whose best family has
  5 parents where the published ⌊log2(2N/log2 N)⌋ allows 4; no scored state
  exceeds the depth bound;
* limits (time, max_sets), constant columns, declared arities above the
  observed ones, and one-line errors for bad input.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py.data.dataset import Dataset
from gobnilp_py.errors import ConfigError, DataError, GobnilpError, ScoreError
from gobnilp_py.scoring.local_scores import AIC, BDeu, BIC
from gobnilp_py.search.fixed_order.parent_search import ParentSearch, best_parent_set, parent_count_bound

REL = 1e-9


def make_data(rng: np.random.Generator, n: int, N: int, max_arity: int = 4,
              constant: float = 0.0, noise: float | None = None) -> Dataset:
    """Random discrete data with arities 2..max_arity and dependencies on earlier columns."""
    ar, cols = [], []
    for j in range(n):
        r = 1 if rng.random() < constant else int(rng.integers(2, max_arity + 1))
        col = rng.integers(0, r, N)
        if j and r > 1 and rng.random() < 0.8:
            k = int(rng.integers(1, min(3, j) + 1))
            src = rng.choice(j, size=k, replace=False)
            det = sum((int(s) + 1) * cols[s] for s in src) % r
            nz = float(rng.choice([0.05, 0.2, 0.5])) if noise is None else noise
            col = np.where(rng.random(N) >= nz, det, col)
        ar.append(r)
        cols.append(col)
    return Dataset(tuple(f"V{j}" for j in range(n)), np.array(ar), np.column_stack(cols))


def reference(ds: Dataset, kind: str, ess: float = 1.0):
    return {"BIC": BIC(ds), "AIC": AIC(ds), "BDeu": BDeu(ds, ess=ess)}[kind]


def all_scores(ds: Dataset, kind: str, child: int, cands, ess: float = 1.0, palim=None) -> dict:
    ref = reference(ds, kind, ess)
    top = len(cands) if palim is None else min(palim, len(cands))
    return {tuple(sorted(W)): ref.compute(child, W)
            for k in range(top + 1) for W in itertools.combinations(cands, k)}


def close(a: float, b: float) -> bool:
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b))


@st.composite
def problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    N = int(rng.choice([10, 25, 60, 200, 800, 2000]))
    ds = make_data(rng, n, N, constant=0.05)
    child = int(rng.integers(n))
    cands = [v for v in rng.permutation(n).tolist() if v != child]
    kind = str(rng.choice(["BIC", "AIC", "BDeu"]))
    ess = float(rng.choice([0.5, 1.0, 10.0]))
    eps = float(rng.choice([0.0, 0.0, 0.3, 1.0, 3.0, 6.0]))
    palim = [None, None, None, 1, 2, 3][int(rng.integers(6))]
    return ds, child, cands, kind, ess, eps, palim


@settings(max_examples=120, derandomize=True, deadline=None, database=None)
@given(problems())
def test_best_and_epsilon_list_equal_exhaustive(problem):
    ds, child, cands, kind, ess, eps, palim = problem
    truth = all_scores(ds, kind, child, cands, ess, palim)
    best = max(truth.values())
    ps = ParentSearch(ds, kind, ess=ess)
    for bound in ("full", "fixed", "suzuki"):
        r = ps.search(child, cands, bound=bound, palim=palim)
        assert r.complete and r.reason is None
        assert close(r.score, best), (bound, r.score, best)
        assert close(truth[r.parents], r.score)
        assert r.stats["k3_score"] <= r.score + REL * max(1.0, abs(r.score))
        assert close(r.upper_bound, r.score)
    tol = REL * max(1.0, abs(best))
    expected = sorted(W for W, s in truth.items() if s >= best - eps - tol)
    for bound, start, order in (("full", "k3", "entropy"), ("fixed", "empty", "given"),
                                ("suzuki", "k3", "given")):
        r = ps.search(child, cands, epsilon=eps, bound=bound, start=start, tree_order=order, palim=palim)
        got = [W for W, _ in r.sets]
        assert len(got) == len(set(got)), "a set listed twice"
        assert sorted(got) == expected, (bound, eps)
        for W, s in r.sets:
            assert close(s, truth[W])
        assert [s for _, s in r.sets] == sorted((s for _, s in r.sets), reverse=True)


@pytest.mark.parametrize("N", [10, 40, 300, pytest.param(2000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("kind", ["BIC", "AIC", "BDeu"])
def test_ten_candidates_arities_2_to_4(N, kind):
    """|C| = 10, arities 2..4: the best set equals the exhaustive argmax over 1,024 subsets."""
    rng = np.random.default_rng(1000 + N)
    ds = make_data(rng, 11, N, max_arity=4)
    child = 10
    cands = list(range(10))
    truth = all_scores(ds, kind, child, cands)
    best = max(truth.values())
    r = best_parent_set(ds, child, cands, score=kind)
    assert close(r.score, best)
    assert close(truth[r.parents], best)
    r = best_parent_set(ds, child, cands, score=kind, epsilon=2.0)
    assert sorted(W for W, _ in r.sets) == sorted(W for W, s in truth.items()
                                                   if s >= best - 2.0 - REL * max(1.0, abs(best)))


def _subtree_sets(state: tuple[int, ...], ceiling_set: tuple[int, ...]):
    free = [v for v in ceiling_set if v not in state]
    for k in range(len(free) + 1):
        for extra in itertools.combinations(free, k):
            yield tuple(sorted((*state, *extra)))


@settings(max_examples=60, derandomize=True, deadline=None, database=None)
@given(problems())
def test_every_bound_is_valid(problem):
    """For every (state, bound) the search used: every S with state ⊆ S ⊆ ceiling set scores <= bound."""
    ds, child, cands, kind, ess, eps, palim = problem
    truth = all_scores(ds, kind, child, cands, ess)
    ps = ParentSearch(ds, kind, ess=ess)
    for bound in ("full", "fixed", "suzuki"):
        events = []

        def trace(kind_, state, value):
            if kind_ == "bound":
                events.append((state, value[1], value[0]))
            else:
                assert close(value, truth[state]), (state, value, truth[state])

        ps.search(child, cands, epsilon=eps, bound=bound, trace=trace)
        for state, cset, ub in events:
            assert set(state) <= set(cset)
            worst = max(truth[S] for S in _subtree_sets(state, cset))
            assert worst <= ub + 1e-9 * max(1.0, abs(ub)), (bound, state, cset, worst, ub)


def test_bounds_fire():
    """The bounds do prune (otherwise the validity test would prove nothing)."""
    rng = np.random.default_rng(7)
    ds = make_data(rng, 9, 500)
    for kind in ("BIC", "AIC", "BDeu"):
        r = best_parent_set(ds, 8, list(range(8)), score=kind)
        assert r.stats["pruned"] > 0
        assert r.stats["states"] < 2 ** 8


# ----------------------------------------------------------------------------- XOR / depth bound
def xor_data() -> Dataset:
    """Seeds-brief Appendix B.1: five binary parents, X their XOR, N = 106 (53 ones)."""
    pats = np.array(list(itertools.product([0, 1], repeat=5)))
    rows = np.repeat(pats, 3, axis=0)
    extra0 = pats[(pats.sum(1) % 2) == 0][:5]
    extra1 = pats[(pats.sum(1) % 2) == 1][:5]
    U = np.vstack([rows, extra0, extra1])
    X = U.sum(1) % 2
    return Dataset(("U1", "U2", "U3", "U4", "U5", "X"), np.full(6, 2), np.column_stack([U, X]))


def test_xor_needs_five_parents():
    ds = xor_data()
    N = ds.N
    assert N == 106 and int(ds.codes[:, 5].sum()) == 53
    published = math.floor(math.log2(2 * N / math.log2(N)))
    assert published == 4
    ps = ParentSearch(ds, "BIC")
    assert ps.depth_bound(5) == 5
    r = ps.search(5, range(5))
    assert r.parents == (0, 1, 2, 3, 4)
    assert round(r.score, 3) == -74.615
    truth = all_scores(ds, "BIC", 5, range(5))
    assert close(r.score, max(truth.values()))
    # With the published bound as a parent limit the optimum is lost.
    r4 = ps.search(5, range(5), palim=published)
    assert round(r4.score, 3) == -75.805 and r4.score < r.score
    # K3 is trapped here (no single parent helps an XOR): the search, not the incumbent, finds it.
    assert r.stats["k3_optimal"] is False


def test_parent_count_bound_formula():
    """d_ε = ⌊log2(1 + 2(NĤ + ε)/((r − 1) ln N))⌋ (BIC), computed without rounding down."""
    rng = np.random.default_rng(3)
    for _ in range(500):
        N = int(rng.integers(2, 100000))
        r = int(rng.integers(2, 6))
        h = float(rng.uniform(0, math.log(r))) * N
        eps = float(rng.choice([0.0, rng.uniform(0, 10)]))
        coef = 0.5 * math.log(N)
        d = parent_count_bound(h, r, coef, eps)
        x = 1 + 2 * (h + eps) / ((r - 1) * math.log(N))
        assert d in (math.floor(math.log2(x)), math.floor(math.log2(x)) + 1)
        assert coef * (r - 1) * (2 ** d - 1) <= (h + eps) * (1 + 1e-9) + 1e-9
        assert coef * (r - 1) * (2 ** (d + 1) - 1) > h + eps
    assert parent_count_bound(10.0, 1, 2.0) is None
    assert parent_count_bound(10.0, 2, 0.0) is None


@settings(max_examples=40, derandomize=True, deadline=None, database=None)
@given(problems())
def test_no_scored_state_exceeds_the_depth_bound(problem):
    ds, child, cands, kind, ess, eps, palim = problem
    if kind == "BDeu":
        kind = "BIC"
    ps = ParentSearch(ds, kind)
    d = ps.depth_bound(child, eps)
    seen = []
    ps.search(child, cands, epsilon=eps, trace=lambda k, s, v: seen.append(s) if k == "score" else None)
    if d is not None:
        assert all(sum(ds.arities[p] >= 2 for p in s) <= d for s in seen)


# ----------------------------------------------------------------------------- edge cases
def test_constant_child_and_constant_parents():
    """Arity-1 columns: a constant child scores 0 with every set (all tie); constant parents change nothing."""
    rng = np.random.default_rng(11)
    a = rng.integers(0, 2, 50)
    b = (a + (rng.random(50) < 0.2)) % 2
    c = np.zeros(50, dtype=int)
    ds = Dataset(("A", "B", "C"), np.array([2, 2, 1]), np.column_stack([a, b, c]))
    for kind in ("BIC", "AIC", "BDeu"):
        ps = ParentSearch(ds, kind)
        r = ps.search(2, [0, 1])
        assert r.score == 0.0 and r.parents == ()
        r = ps.search(2, [0, 1], epsilon=0.0)
        assert sorted(W for W, _ in r.sets) == [(), (0,), (0, 1), (1,)]
        r = ps.search(1, [0, 2], epsilon=0.0)
        truth = all_scores(ds, kind, 1, [0, 2])
        assert close(truth[(0,)], truth[(0, 2)])
        assert sorted(W for W, _ in r.sets) == sorted(W for W, s in truth.items()
                                                       if s >= max(truth.values()) - 1e-9 * abs(max(truth.values())))


def test_declared_arities_above_observed():
    rng = np.random.default_rng(5)
    ds0 = make_data(rng, 5, 80, max_arity=3)
    ds = Dataset(ds0.names, ds0.arities + np.array([0, 2, 0, 1, 0]), ds0.codes)
    for kind in ("BIC", "BDeu"):
        truth = all_scores(ds, kind, 4, [0, 1, 2, 3])
        r = best_parent_set(ds, 4, [0, 1, 2, 3], score=kind, epsilon=1.5)
        best = max(truth.values())
        assert close(r.score, best)
        assert sorted(W for W, _ in r.sets) == sorted(W for W, s in truth.items()
                                                       if s >= best - 1.5 - REL * max(1.0, abs(best)))


def test_empty_candidate_set_and_single_row():
    rng = np.random.default_rng(2)
    ds = make_data(rng, 3, 30)
    r = best_parent_set(ds, 0, [])
    assert r.parents == () and close(r.score, BIC(ds).compute(0, ()))
    one = Dataset(("A", "B"), np.array([2, 2]), np.array([[0, 1]]))
    for kind in ("BIC", "AIC", "BDeu"):
        r = best_parent_set(one, 1, [0], score=kind, epsilon=1.0)
        truth = all_scores(one, kind, 1, [0])
        assert close(r.score, max(truth.values()))


def test_time_limit_gives_an_incomplete_result_with_a_valid_bound():
    rng = np.random.default_rng(9)
    ds = make_data(rng, 9, 300)
    truth = all_scores(ds, "BIC", 8, list(range(8)))
    ps = ParentSearch(ds, "BIC")
    r = ps.search(8, list(range(8)), deadline=time.monotonic() - 1.0)
    assert not r.complete and r.reason == "time_limit"
    assert r.upper_bound >= max(truth.values()) - 1e-9
    assert close(truth[r.parents], r.score)


def test_max_sets_stops_the_list():
    ds = Dataset(("A", "B", "C", "D"), np.array([1, 2, 2, 2]),
                 np.column_stack([np.zeros(20, int), np.arange(20) % 2, (np.arange(20) // 2) % 2,
                                  (np.arange(20) // 4) % 2]))
    r = best_parent_set(ds, 0, [1, 2, 3], epsilon=0.0)
    assert r.complete and len(r.sets) == 8
    r = best_parent_set(ds, 0, [1, 2, 3], epsilon=0.0, max_sets=5)
    assert not r.complete and r.reason == "max_sets"


@pytest.mark.parametrize("call, exc", [
    (lambda ds: best_parent_set(ds, 0, [1], score="K2"), ScoreError),
    (lambda ds: best_parent_set(ds, 0, [0, 1]), DataError),
    (lambda ds: best_parent_set(ds, 0, [1, 1]), DataError),
    (lambda ds: best_parent_set(ds, 5, [1]), DataError),
    (lambda ds: best_parent_set(ds, 0, [1], epsilon=-1.0), ConfigError),
    (lambda ds: best_parent_set(ds, 0, [1], palim=-1), ConfigError),
    (lambda ds: best_parent_set(ds, 0, [1], bound="tight"), ConfigError),
    (lambda ds: best_parent_set(ds, 0, [1], score="BDeu", ess=0.0), ScoreError),
    (lambda ds: ParentSearch(ds.codes), DataError),
])
def test_bad_input_one_line_errors(call, exc):
    ds = make_data(np.random.default_rng(0), 3, 20)
    with pytest.raises(exc) as info:
        call(ds)
    assert isinstance(info.value, GobnilpError) and isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


def test_row_merging_does_not_change_answers():
    """Many duplicate rows (merged, counted with weights) against the same data without duplicates' effect."""
    rng = np.random.default_rng(21)
    base = make_data(rng, 6, 40)
    codes = np.repeat(base.codes, 25, axis=0)  # 1,000 rows, 40 distinct at most
    ds = Dataset(base.names, base.arities, codes)
    truth = all_scores(ds, "BIC", 5, [0, 1, 2, 3, 4])
    r = best_parent_set(ds, 5, [0, 1, 2, 3, 4], epsilon=1.0)
    assert r.stats["rows"] < 0.6 * ds.N
    best = max(truth.values())
    assert close(r.score, best)
    assert sorted(W for W, _ in r.sets) == sorted(W for W, s in truth.items()
                                                   if s >= best - 1.0 - REL * max(1.0, abs(best)))
