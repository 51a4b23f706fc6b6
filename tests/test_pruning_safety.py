"""ε-safety of pruning, checked against exhaustive enumeration of every DAG.

For random small data (n <= 5, arities 1..3, columns made to depend on each
other so that the rules really fire) and random ε in [0, 6]: score every
family without pruning, enumerate all DAGs (``oracle_dags``), find OPT and
every DAG with score >= OPT - ε, and require each of their families to be in
the pruned table with the same score.  Also: the pruned table alone yields
exactly the same credible set, and pruning removes something in most cases
(otherwise this test would prove nothing).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py.data.dataset import Dataset
from gobnilp_py.scoring import BIC, LocalScore, score

from oracle_dags import all_dags_array
from random_problems import noisy_columns

#: Slack below OPT - ε for "credible" in the oracle.  The engine's tolerance
#: (1e-9 relative, >= 1e-9 absolute) covers it, so these DAGs must be kept too.
SLACK = 5e-10


@st.composite
def problems(draw):
    # Hypothesis draws a seed; the sizes come from numpy so they are spread
    # evenly (hypothesis alone favours minimal values: n=2, all arities 1, ε=0).
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = int(rng.choice([2, 3, 4, 4, 5, 5, 5]))
    n_rows = int(rng.integers(3, 400))
    arities = [int(a) for a in rng.choice([1, 2, 3], size=n, p=[0.1, 0.45, 0.45])]
    noise = float(rng.choice([0.02, 0.1, 0.3, 0.6]))
    # each column past the first depends on up to two earlier ones, with noise
    codes = noisy_columns(rng, n_rows, arities, noise, 2)
    ds = Dataset([f"X{j}" for j in range(n)], arities, codes)
    eps = 0.0 if rng.random() < 0.15 else float(rng.uniform(0.0, 6.0))
    kind = str(rng.choice(["BIC", "BDeu"]))
    ess = float(rng.choice([0.5, 1.0, 10.0]))
    palim = [None, None, None, 1, 2, 3][int(rng.integers(0, 6))]
    return ds, eps, kind, ess, palim


def score_matrix(table, n: int) -> np.ndarray:
    """``S[v, mask]`` = local score of v with parent bitmask ``mask``; -inf if absent."""
    s = np.full((n, 1 << n), -np.inf)
    for v, fams in enumerate(table.families):
        for ps, sc in fams:
            s[v, sum(1 << p for p in ps)] = sc
    return s


def dag_scores(s: np.ndarray, dags: np.ndarray) -> np.ndarray:
    n = s.shape[0]
    return s[np.arange(n)[None, :], dags].sum(axis=1)


def check_safe(ds: Dataset, eps: float, kind, ess: float, palim) -> dict[str, int]:
    """Assert safety for one problem; return the pruning counters and sizes."""
    n = ds.n
    full = score(ds, score=kind, ess=ess, palim=palim, prune=False)
    pruned = score(ds, score=kind, ess=ess, palim=palim, epsilon=eps)
    assert pruned.epsilon == pytest.approx(eps)
    dags = all_dags_array(n)
    s_full = score_matrix(full, n)
    s_pruned = score_matrix(pruned, n)
    # Every kept family has the unpruned score.
    kept = np.isfinite(s_pruned)
    assert kept[:, 0].all(), "the empty parent set must always be kept"
    np.testing.assert_allclose(s_pruned[kept], s_full[kept], rtol=0, atol=1e-9)

    tot = dag_scores(s_full, dags)
    opt = tot.max()
    credible = tot >= opt - eps - SLACK
    cred_dags = dags[credible]
    # Each credible DAG's families are in the pruned table.
    v_idx = np.broadcast_to(np.arange(n), cred_dags.shape)
    missing = ~kept[v_idx, cred_dags]
    if missing.any():
        d, v = np.argwhere(missing)[0]
        mask = int(cred_dags[d, v])
        ps = [p for p in range(n) if mask >> p & 1]
        raise AssertionError(f"credible DAG #{d} uses pruned family X{v}<-{ps} "
                             f"(eps={eps}, {kind}, DAG score {tot[credible][d]}, OPT {opt})")
    # The pruned table alone represents exactly the same credible set (and OPT).
    tot_p = dag_scores(s_pruned, dags)
    assert tot_p.max() == pytest.approx(opt, abs=1e-9)
    cred_p = tot_p >= opt - eps - SLACK
    assert np.array_equal(cred_p, credible)
    removed = len(full) - len(pruned)
    stats = Counter({"removed": removed, "full": len(full), "kept": len(pruned)})
    for counts in pruned.pruning.values():
        for rule, c in counts.items():
            stats[rule] += c
    return stats


def test_oracle_counts():
    assert [all_dags_array(n).shape[0] for n in range(1, 6)] == [1, 3, 25, 543, 29281]


def test_pruning_never_drops_a_credible_family():
    """>= 150 random problems; pruning must be safe and must also actually prune."""
    outcomes: list[Counter] = []

    @settings(max_examples=160, derandomize=True, deadline=None, database=None)
    @given(problems())
    def check(problem):
        outcomes.append(check_safe(*problem))

    check()
    assert len(outcomes) >= 150
    share = sum(1 for o in outcomes if o["removed"] > 0) / len(outcomes)
    assert share >= 0.5, f"pruning removed sets in only {share:.0%} of the problems"
    totals = sum(outcomes, Counter())
    assert totals["removed"] >= 0.3 * totals["full"], totals
    for rule in ("dominated", "penalty_bound", "entropy", "cell_bound"):
        assert totals[rule] > 0, f"rule {rule} never fired: {totals}"


def test_constant_columns_keep_all_tied_sets():
    """An arity-1 child: all its parent sets tie, and every one is in some optimal DAG."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, size=300)
    b = (a + (rng.random(300) < 0.1)) % 2
    codes = np.column_stack([a, b, np.zeros(300, dtype=int), rng.integers(0, 3, size=300)])
    ds = Dataset(["a", "b", "k", "c"], [2, 2, 1, 3], codes)
    for kind in ("BIC", "BDeu"):
        t = score(ds, score=kind, epsilon=0.0)
        assert len(t.parent_sets("k")) == 8  # all subsets of {a, b, c}
        stats = check_safe(ds, 0.0, kind, 1.0, None)
        assert stats["removed"] > 0


class BoundedBIC(LocalScore):
    """A user score (BIC values) with a valid superset bound: s(T) <= -penalty(T) <= -penalty(X)."""

    name = "BoundedBIC"

    def __init__(self, data):
        super().__init__(data)
        self._bic = BIC(data)

    def local_score(self, child, parents, counts):
        return self._bic.local_score(child, parents, counts)

    def upper_bound(self, child, parents):
        return -self._bic.penalty(child, parents)


@settings(max_examples=25, derandomize=True, deadline=None, database=None)
@given(problems())
def test_user_bound_is_used_safely(problem):
    ds, eps, _, _, palim = problem
    check_safe(ds, eps, BoundedBIC(ds), 1.0, palim)  # asserts safety; firing is checked below


def test_user_bound_fires():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, size=60)
    codes = np.column_stack([a, (a + (rng.random(60) < 0.2)) % 3, rng.integers(0, 3, size=60),
                             rng.integers(0, 3, size=60)])
    ds = Dataset(list("abcd"), [3, 3, 3, 3], codes)
    stats = check_safe(ds, 1.0, BoundedBIC(ds), 1.0, None)
    assert stats["user_bound"] > 0


def test_epsilon_monotone_tables():
    """A larger ε never keeps fewer sets (the kept sets are nested)."""
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, size=200)
    codes = np.column_stack([a, (a + (rng.random(200) < 0.3)) % 3, rng.integers(0, 2, size=200),
                             (a + rng.integers(0, 2, size=200)) % 3, rng.integers(0, 3, size=200)])
    ds = Dataset(list("abcde"), [3, 3, 2, 3, 3], codes)
    prev = None
    for eps in (0.0, math.log(3), math.log(20), math.log(150), 20.0):
        t = score(ds, epsilon=eps)
        fams = {(f.child, f.parents) for f in t}
        if prev is not None:
            assert prev <= fams
        prev = fams


@settings(max_examples=40, derandomize=True, deadline=None, database=None)
@given(problems())
def test_vectorised_and_reference_walks_agree(problem):
    """The bitmask/numpy lattice walk and the tuple/dict walk give identical tables and counters."""
    from gobnilp_py.scoring import engine

    ds, eps, kind, ess, palim = problem
    fast = score(ds, score=kind, ess=ess, palim=palim, epsilon=eps)
    saved = engine.VECTORISE_MAX_N
    engine.VECTORISE_MAX_N = None
    try:
        slow = score(ds, score=kind, ess=ess, palim=palim, epsilon=eps)
    finally:
        engine.VECTORISE_MAX_N = saved
    assert fast.families == slow.families
    assert fast.pruning == slow.pruning
    assert fast.meta["families_scored_per_level"] == slow.meta["families_scored_per_level"]


def test_python_walk_is_safe_too():
    """Run a slice of the safety check through the tuple walk (used for n > 62)."""
    from gobnilp_py.scoring import engine

    saved = engine.VECTORISE_MAX_N
    engine.VECTORISE_MAX_N = None
    try:
        @settings(max_examples=30, derandomize=True, deadline=None, database=None)
        @given(problems())
        def check(problem):
            check_safe(*problem)

        check()
    finally:
        engine.VECTORISE_MAX_N = saved


def test_candidate_cap_raises_a_one_line_error():
    """Constant columns defeat exact pruning; the cap turns a blow-up into a clear ScoreError."""
    from gobnilp_py.errors import ScoreError

    rng = np.random.default_rng(4)
    codes = np.column_stack([rng.integers(0, 2, size=50) for _ in range(8)] + [np.zeros(50, dtype=int)])
    ds = Dataset([f"v{j}" for j in range(9)], [2] * 8 + [1], codes)
    with pytest.raises(ScoreError, match="'v8' is constant.*palim, or drop the constant column") as exc:
        score(ds, max_candidates=200)
    assert "\n" not in str(exc.value) and "learning one optimal network (learn) needs neither" in str(exc.value)
    t = score(ds, palim=2, max_candidates=10_000)
    assert len(t.parent_sets("v8")) == 1 + 8 + 28
    # Without constant columns the cap is enforced during the walk.
    free = Dataset([f"v{j}" for j in range(8)], [2] * 8, codes[:, :8])
    with pytest.raises(ScoreError, match="over 60 candidate parent sets.*palim") as exc:
        score(free, score="BDeu", max_candidates=60)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("kind", ["BIC", "BDeu"])
@pytest.mark.parametrize("bf", [1.0, 3.0, 20.0, 150.0])
def test_real_data_iris_against_all_dags(kind, bf):
    """Real data (iris, 5 variables): the same exhaustive check at the paper's Bayes factors."""
    from pathlib import Path

    from gobnilp_py.data import read_data

    path = Path(__file__).resolve().parents[2] / "shared" / "data" / "iris.csv"
    if not path.exists():
        path = Path("/work/shared/data/iris.csv")
    if not path.exists():
        pytest.skip(f"{path} not found")
    ds = read_data(path, header=False)
    stats = check_safe(ds, math.log(bf), kind, 1.0, None)
    assert stats["removed"] > 0
