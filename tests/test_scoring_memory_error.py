"""A MemoryError inside the lattice walk (an address-space cap below memory_limit) never escapes raw.

bench3 met it on spectf under an 8 GB RLIMIT_AS: numpy's ``_ArrayMemoryError`` came out of
``score()`` as a traceback.  Now a batch of several children is split and retried (numpy fails
cleanly), and one child that still does not fit is a one-line ``ScoreError``.
"""

from __future__ import annotations

import numpy as np
import pytest

import gobnilp_py.scoring.engine as engine
from gobnilp_py import ScoreError, read_data, score
from random_problems import random_data


@pytest.fixture
def data():
    return read_data(random_data(np.random.default_rng(4), 5, 200))


def _patched(monkeypatch, fail):
    real = {name: getattr(engine, name) for name in ("_walk_numpy", "_walk_python")}

    def make(inner):
        def walk(run, res0, limit):
            if fail(run):
                raise MemoryError("Unable to allocate 25.0 MiB")
            return inner(run, res0, limit)
        return walk

    for name, inner in real.items():
        monkeypatch.setattr(engine, name, make(inner))


def test_a_batch_that_does_not_fit_is_split_and_the_table_is_unchanged(monkeypatch, data):
    want = score(data, bayes_factor=3)
    _patched(monkeypatch, lambda run: len(run.active) > 1)
    got = score(data, bayes_factor=3)
    assert got.families == want.families


def test_one_child_that_does_not_fit_is_a_one_line_error(monkeypatch, data):
    _patched(monkeypatch, lambda run: True)
    with pytest.raises(ScoreError, match="ran out of memory") as info:
        score(data, bayes_factor=3)
    assert "\n" not in str(info.value) and "palim" in str(info.value)
