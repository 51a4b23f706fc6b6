"""The array path of a collection (``equivalence/columns.py``) gives exactly what the per-network code gave.

Issue 39: summaries and outputs of a large credible set now read the networks' parent bitmasks with
numpy.  Each check here builds random collections (hypothesis, derandomised), computes every
summary and output through the array path and through the per-network code (the arrays switched
off), and compares them exactly: the same class keys, members and order, the same floats (``==``,
not approximately: the files must keep their bytes), the same frame and dtypes, the same text.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gobnilp_py.equivalence.averaging as averaging
import gobnilp_py.equivalence.columns as columns
from gobnilp_py.equivalence import arrow_probabilities, edge_probabilities, group_by_class, network_weights
from gobnilp_py.network import Network
from gobnilp_py.output import writers as W
from gobnilp_py.solve.credible import CredibleSet


def _random_networks(seed: int, n: int, count: int, *, lazy: bool, names=None, tie_classes: bool = True):
    """``count`` distinct random DAGs over ``n`` variables, scored by a score-equivalent local score."""
    rng = np.random.default_rng(seed)
    names = tuple(names or (f"x{i}" for i in range(n)))
    index = {v: i for i, v in enumerate(names)}
    f: dict[int, float] = {0: 0.0}

    def fam(v: int, ps: tuple[int, ...]) -> float:
        m = sum(1 << p for p in ps)
        for s in (m, m | 1 << v):
            f.setdefault(s, float(rng.normal(0, 1)))
        return -10.0 * (v + 1) + f[m | 1 << v] - f[m] + (0.0 if tie_classes else float(rng.normal(0, 1e-3)))

    seen, nets = set(), []
    for _ in range(count * 4):
        order = rng.permutation(n)
        pidx = [()] * n
        for pos in range(1, n):
            earlier = order[:pos]
            k = int(rng.integers(0, min(3, pos) + 1))
            pidx[order[pos]] = tuple(sorted(int(x) for x in rng.choice(earlier, size=k, replace=False)))
        key = tuple(pidx)
        if key in seen:
            continue
        seen.add(key)
        local = [fam(v, ps) for v, ps in enumerate(pidx)]
        if lazy:
            nets.append(Network._from_table_parts(names, index, list(pidx), local, "optimal"))
        else:
            nets.append(Network(names, {names[v]: tuple(names[p] for p in ps) for v, ps in enumerate(pidx)},
                                math.fsum(local), local_scores=dict(zip(names, local))))
        if len(nets) == count:
            break
    nets.sort(key=lambda net: (-net.score, net.key))
    return nets


def _set(nets) -> CredibleSet:
    opt = nets[0].score
    return CredibleSet(opt, opt - nets[-1].score, True, None, list(nets), tolerance=1e-9 * max(1.0, abs(opt)))


collections = st.tuples(st.integers(0, 10_000), st.integers(2, 9), st.integers(1, 60), st.booleans(),
                        st.booleans())


@settings(max_examples=20)
@given(collections)
def test_classes_averages_and_weights_are_identical(case):
    seed, n, count, lazy, ties = case
    nets = _random_networks(seed, n, count, lazy=lazy, tie_classes=ties)
    assert columns.columns_of(nets) is not None
    fast = (group_by_class(nets, validate=False), arrow_probabilities(nets), edge_probabilities(nets),
            network_weights(nets), network_weights(nets, normalise=False))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(columns, "columns_of", lambda nets: None)
        mp.setattr(averaging, "columns_of", lambda nets: None)
        slow = (group_by_class(nets, validate=False), arrow_probabilities(nets), edge_probabilities(nets),
                network_weights(nets), network_weights(nets, normalise=False))
    assert [(c.key, c.members, c.best_score) for c in fast[0]] == [(c.key, c.members, c.best_score) for c in slow[0]]
    assert all(type(x) is int for c in fast[0] for part in c.key for x in part)
    for a, b in zip(fast[1:3], slow[1:3]):
        assert a.equals(b) and np.array_equal(a.to_numpy(), b.to_numpy())  # bit for bit, not approximately
    assert np.array_equal(fast[3], slow[3]) and np.array_equal(fast[4], slow[4])


@settings(max_examples=15)
@given(collections)
def test_every_text_output_is_identical(case):
    seed, n, count, lazy, ties = case
    nets = _random_networks(seed, n, count, lazy=lazy, tie_classes=ties)
    fast_cs = _set(nets)
    fast = (fast_cs.to_dataframe(), W.networks_csv(fast_cs), W.gobnilp_text(fast_cs), W.modelstrings(fast_cs))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(columns, "columns_of", lambda nets: None)
        mp.setattr(averaging, "columns_of", lambda nets: None)
        slow_cs = _set(nets)
        slow = (slow_cs.to_dataframe(), W.networks_csv(slow_cs), W.gobnilp_text(slow_cs), W.modelstrings(slow_cs))
    assert fast_cs._network_columns() is not None and slow_cs._network_columns() is None
    assert fast[0].equals(slow[0]) and list(fast[0].dtypes) == list(slow[0].dtypes)
    assert fast[1:] == slow[1:]


@settings(max_examples=15)
@given(collections, st.sampled_from(["plain", 'with,comma', 'with"quote', "é ü"]))
def test_csv_written_directly_is_what_pandas_writes(case, style):
    """networks.csv without pandas: byte for byte what ``to_dataframe().to_csv`` wrote (ties, quoting, NaN)."""
    seed, n, count, lazy, ties = case
    names = [f"x{i}" if style == "plain" else f"{style}{i}" for i in range(n)]
    nets = _random_networks(seed, n, count, lazy=lazy, names=names, tie_classes=ties)
    for opt_shift in (0.0, math.nan):
        cs = _set(nets)
        if opt_shift != opt_shift:
            cs.opt = math.nan  # an incomplete set without a proven optimum: empty gaps, infinite Bayes factors
        fast = W.networks_csv(cs)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(W, "_columns_of", lambda result: None)
            slow = W.networks_csv(cs)
        assert fast == slow


@settings(max_examples=15)
@given(collections)
def test_networks_json_is_what_json_dumps_writes(case):
    """At any nesting depth, with names JSON must escape (quotes, backslashes, non-ASCII)."""
    seed, n, count, lazy, _ = case
    nets = _random_networks(seed, n, count, lazy=lazy, names=[f'v"{i}é\\' for i in range(n)])
    cs = _set(nets)
    want = cs.to_dict()["networks"]
    assert json.dumps(want, indent=1, ensure_ascii=False) == columns.networks_json(cs._network_columns(), 0)
    for depth in (1, 2, 3):
        doc, slot = want, "SLOT"
        for _ in range(depth):
            doc, slot = {"k": doc}, {"k": slot}
        text = json.dumps(slot, indent=1, ensure_ascii=False).replace('"SLOT"',
                                                                     columns.networks_json(cs._network_columns(), depth))
        assert text == json.dumps(doc, indent=1, ensure_ascii=False)


def test_result_json_is_byte_identical(tmp_path, monkeypatch):
    """The whole result.json of a run: spliced from the arrays, equal to json.dumps of RunResult.to_dict."""
    from gobnilp_py.config import load_config
    from gobnilp_py.output.job import RunResult

    nets = _random_networks(3, 7, 80, lazy=True)
    data = tmp_path / "d.csv"
    data.write_text(",".join(nets[0].names) + "\n" + ",".join("0" for _ in nets[0].names) + "\n")
    cfg = load_config(None, [("data", "path", str(data), "DATA"), ("search", "job", "enumerate", "-"),
                             ("search", "bayes_factor", 20, "--bf")])
    res = RunResult(cfg, _set(nets))
    fast = W.result_json(res)
    assert fast == W.to_json(res.to_dict())
    assert json.loads(fast)["result"]["n_networks"] == 80
    cs = _set(nets)   # enumerate -o's summary.json likewise
    assert W.collection_json(cs) == W.to_json({**cs.to_dict(), **W.labels(cs)})


def test_wide_or_mixed_collections_take_the_general_path():
    wide = _random_networks(1, 66, 3, lazy=True)
    assert columns.columns_of(wide) is None
    assert len(group_by_class(wide)) >= 1 and edge_probabilities(wide).shape == (66, 66)
    a = _random_networks(2, 4, 3, lazy=True)
    b = _random_networks(2, 4, 3, lazy=True, names=["x3", "x2", "x1", "x0"])
    assert columns.columns_of(a + b) is None  # same variables, another order: keyed the general way
    assert columns.columns_of([]) is None


def test_mask_rows_follow_changed_parents():
    """Rows of an engine-built network are cached; once its parents are built and changed, the change is seen."""
    net = next(x for x in _random_networks(5, 4, 20, lazy=True) if x.n_edges)  # n_edges builds the parents
    child = next(c for c in net.names if net.parents[c])
    net.parents[child] = ()          # changed in place: no cache may hide it
    row = np.frombuffer(net._mask_row(), dtype="<u8")
    assert row[net.names.index(child)] == 0
    (lazy,) = _random_networks(5, 4, 1, lazy=True)
    assert lazy._mask_row() is lazy._mask_row()  # engine-built and untouched: cached


def test_lazy_key_equals_the_key_from_parents():
    for net in _random_networks(9, 6, 30, lazy=True):
        lazy_key = net.key
        built = tuple(tuple(net._index[p] for p in net.parents[c]) for c in net.names)
        assert lazy_key == built and hash(lazy_key) == hash(built)


@settings(max_examples=30)
@given(st.integers(0, 10_000), st.integers(1, 8), st.integers(1, 400), st.integers(1, 6))
def test_unique_rows_groups_as_numpy_does(seed, width, rows, values):
    """The hashed grouping of class keys: the same partition as ``np.unique(axis=0)``, each row's group
    holding only equal rows (checked row for row inside, a collision falling back to the sort)."""
    import importlib

    cpdag_module = importlib.import_module("gobnilp_py.equivalence.cpdag")
    keys = np.random.default_rng(seed).integers(0, values, size=(rows, width)).astype(np.uint64) << np.uint64(60)
    first, inverse = cpdag_module._unique_rows(keys)
    _, first2, inverse2 = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    assert len(first) == len(first2)
    assert np.array_equal(keys, keys[first[inverse]])
    pairs = {(int(a), int(b)) for a, b in zip(inverse, inverse2.reshape(-1))}
    assert len(pairs) == len(first)  # a bijection between the two labellings
