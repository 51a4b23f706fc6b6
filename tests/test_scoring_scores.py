"""The score registry, rules declared per score, and K2 / BDs against independent references.

The reference counts rows with ``collections.Counter`` and uses ``math.lgamma``
(nothing shared with the engine); pgmpy's K2 and BDs are compared where their
formulas agree with the published ones (see the notes at each test).
"""

from __future__ import annotations

import math
import re
import warnings
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py.data.dataset import Dataset
from gobnilp_py.errors import ScoreError
from gobnilp_py.scoring import (
    BIC,
    SCORES,
    BDeu,
    BDs,
    K2,
    LocalScore,
    active_rules,
    make_score,
    resolve_score_name,
    score,
    score_names,
)


def reference(codes: np.ndarray, arities: list[int], child: int, parents: tuple[int, ...], kind: str,
              ess: float = 1.0) -> float:
    """K2 / BDs / BDeu by the textbook formula, one row at a time."""
    njk: Counter = Counter()
    nj: Counter = Counter()
    for row in codes.tolist():
        cfg = tuple(row[p] for p in parents)
        njk[(cfg, row[child])] += 1
        nj[cfg] += 1
    r = arities[child]
    q = math.prod(arities[p] for p in parents)
    if kind == "K2":
        a_j = float(r)
    elif kind == "BDs":
        a_j = ess / len(nj)          # Scutari 2016: only observed configurations get prior mass
    else:
        a_j = ess / q
    a_jk = a_j / r
    tot = sum(math.lgamma(a_j) - math.lgamma(a_j + c) for c in nj.values())
    tot += sum(math.lgamma(a_jk + c) - math.lgamma(a_jk) for c in njk.values())
    return tot


@st.composite
def datasets(draw):
    n = draw(st.integers(2, 5))
    rows = draw(st.integers(1, 80))
    observed = [draw(st.integers(1, 4)) for _ in range(n)]
    extra = [draw(st.integers(0, 2)) for _ in range(n)]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    codes = np.column_stack([rng.integers(0, o, size=rows) for o in observed])
    return Dataset([f"V{j}" for j in range(n)], [o + e for o, e in zip(observed, extra)], codes)


@settings(max_examples=60, derandomize=True, deadline=None, database=None)
@given(datasets(), st.sampled_from(["K2", "BDs", "BDeu"]), st.sampled_from([0.3, 1.0, 7.0]))
def test_scores_match_reference(ds, kind, ess):
    t = score(ds, score=kind, ess=ess, prune=False, n_jobs=1)
    ar = [int(a) for a in ds.arities]
    sc = make_score(kind, ds, ess=ess)
    for v in range(ds.n):
        others = [j for j in range(ds.n) if j != v]
        for k in range(len(others) + 1):
            for ps in combinations(others, k):
                want = reference(ds.codes, ar, v, ps, kind, ess)
                got = t.local_score(ds.names[v], [ds.names[p] for p in ps])
                assert got == pytest.approx(want, abs=1e-9, rel=1e-12)
                assert sc.compute(v, ps) == pytest.approx(want, abs=1e-9, rel=1e-12)


def test_k2_and_bds_equal_pgmpy_where_pgmpy_follows_the_formula():
    """pgmpy's K2 adds lgamma(r) for unobserved configurations and its BDs uses ess/(q r) for cells:
    both equal the published scores when every parent configuration is observed, as here."""
    pytest.importorskip("pgmpy")
    import logging

    import pandas as pd
    from pgmpy.estimators import BDs as PgBDs
    from pgmpy.estimators import K2 as PgK2

    logging.getLogger("pgmpy").setLevel(logging.ERROR)
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, size=(400, 4))
    codes[:, 3] = (codes[:, 0] + (rng.random(400) < 0.3)) % 3
    ds = Dataset(list("abcd"), [3, 3, 3, 3], codes)
    frame = pd.DataFrame(codes, columns=list("abcd"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pk, pb = PgK2(frame), PgBDs(frame, equivalent_sample_size=2.0)
        tk = score(ds, score="k2", prune=False, n_jobs=1)
        tb = score(ds, score="bds", ess=2.0, prune=False, n_jobs=1)
        compared = 0
        for tab, pg in ((tk, pk), (tb, pb)):
            for fam in tab:
                cols = [ds.names.index(p) for p in fam.parents]
                if len(np.unique(codes[:, cols], axis=0)) < 3 ** len(cols):
                    continue           # unobserved configurations: pgmpy departs from the formula
                assert fam.score == pytest.approx(pg.local_score(fam.child, list(fam.parents)), abs=1e-9)
                compared += 1
        assert compared >= 40


def test_registry_names_and_pgmpy_aliases():
    assert score_names()[:5] == ("BIC", "AIC", "BDeu", "K2", "BDs")
    for alias, canon in [("bic", "BIC"), ("bic-d", "BIC"), ("aic-d", "AIC"), ("bdeu", "BDeu"),
                         ("k2", "K2"), ("bds", "BDs"), ("BDEUSCORE", "BDeu")]:
        assert resolve_score_name(alias) == canon
    with pytest.raises(ScoreError, match="unknown score 'll-g'.*valid: BIC") as exc:
        resolve_score_name("ll-g")
    assert "\n" not in str(exc.value)
    assert BDeu.defaults == {"ess": 1.0} and BDs.defaults == {"ess": 1.0}


def test_score_equivalence_is_declared():
    assert SCORES["BIC"].score_equivalent and SCORES["AIC"].score_equivalent and BDeu.score_equivalent
    assert not K2.score_equivalent and not BDs.score_equivalent

    class Sub(BDeu):
        pass

    assert not Sub.score_equivalent


def test_rules_are_declared_not_inherited():
    rng = np.random.default_rng(2)
    ds = Dataset(list("abcd"), [2, 3, 2, 2], rng.integers(0, 2, size=(60, 4)))

    class HalfPenaltyBIC(BIC):           # a different penalty: BIC's bounds would be unsound
        name = "half"

        @property
        def coef(self):
            return 0.25 * math.log(self.N)

    assert active_rules(BIC(ds)) == ("parent_count", "penalty_bound", "ll_ceiling", "entropy", "dominated")
    assert active_rules(HalfPenaltyBIC(ds)) == ("dominated",)
    t = score(ds, score=HalfPenaltyBIC(ds), epsilon=0.0, n_jobs=1)
    assert set(t.meta["rules"]) == {"dominated"}
    assert set(next(iter(t.pruning.values()))) == {"dominated"}
    assert active_rules(K2(ds)) == ("cell_bound", "ml_ceiling", "dominated")

    class Bad(LocalScore):
        name = "bad"
        pruning_rules = ("penalty_bound", "dominated")

        def local_score(self, child, parents, counts):
            return 0.0

    with pytest.raises(ScoreError, match="declares rule 'penalty_bound'"):
        score(ds, score=Bad(ds), n_jobs=1)

    class Typo(LocalScore):
        name = "typo"
        pruning_rules = ("dominatd",)

        def local_score(self, child, parents, counts):
            return 0.0

    with pytest.raises(ScoreError, match="unknown pruning rule 'dominatd'"):
        score(ds, score=Typo(ds), n_jobs=1)


def test_memory_budget_error_names_variable_level_and_memory():
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 2, size=(40, 12))
    ds = Dataset([f"v{j}" for j in range(12)], [2] * 12, codes)
    full = score(ds, score="BDeu", n_jobs=1)
    assert full.meta["child_batches"] == 1
    # a budget too small for all children together: they are walked in batches, same table
    batched = score(ds, score="BDeu", memory_limit=1_000_000, n_jobs=1)
    assert batched.meta["child_batches"] > 1
    assert batched.families == full.families
    assert batched.meta["families_scored_per_level"] == full.meta["families_scored_per_level"]
    with pytest.raises(ScoreError) as exc:
        score(ds, score="BDeu", memory_limit=40_000, n_jobs=1)
    msg = str(exc.value)
    assert "\n" not in msg and "variable 'v" in msg and "parent-set size" in msg and "memory_limit" in msg
    assert re.search(r"\d (bytes|KiB|MiB|GiB)\b", msg)
    with pytest.raises(ScoreError, match="memory_limit"):
        score(ds, memory_limit=-5)
    with pytest.raises(ScoreError, match="palim"):
        score(ds, palim="sometimes")


def test_palim_auto_for_scores_without_a_count_bound_is_no_limit():
    rng = np.random.default_rng(6)
    ds = Dataset(list("abcd"), [2, 2, 2, 2], rng.integers(0, 2, size=(50, 4)))
    t = score(ds, score="BDeu", palim="auto", prune=False, n_jobs=1)
    assert t.meta["palim_auto"] == {"a": None, "b": None, "c": None, "d": None}
    assert len(t) == 4 * 8
