"""Every registered engine implements the engine protocol for each task the registry declares.

Why: the drivers call ``module.optimum / epsilon_set / kbest`` on whatever module the registry
(:mod:`gobnilp_py.solve.methods`) names; the protocol (:mod:`gobnilp_py.search.protocol`) is what
they may rely on, and a new engine that misses a keyword the drivers pass would fail only when a
user reaches that task.
"""

from __future__ import annotations

import importlib
import importlib.util
import types

import pytest

from gobnilp_py.search import protocol as P
from gobnilp_py.solve.methods import METHODS


def _module(method):
    for dep in method.needs:
        if importlib.util.find_spec(dep) is None:
            pytest.skip(f"{method.name} needs {dep}")
    return importlib.import_module(method.module)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_registered_engine_implements_its_tasks(name):
    method = METHODS[name]
    engine = _module(method)
    for task in sorted(method.tasks):
        assert isinstance(engine, P.TASK_PROTOCOLS[task]), f"{name}: no {task}()"
        assert P.missing_parts(engine, task) == [], f"{name}: {P.missing_parts(engine, task)}"
        if method.constraint_kinds is None:  # honours every kind: the drivers pass constraints= to it
            assert P.missing_parts(engine, task, ("constraints",)) == [], name


def test_protocol_check_refuses_a_non_conforming_engine():
    bad = types.SimpleNamespace(optimum=lambda table: None, kbest=lambda table, *, time_limit=None: None)
    assert P.missing_parts(bad, "optimum") == ["optimum() takes no time_limit="]
    assert P.missing_parts(bad, "kbest") == ["kbest() takes no k="]
    assert P.missing_parts(bad, "epsilon_set") == ["no function epsilon_set()"]
    assert not isinstance(bad, P.EpsilonSetEngine)
    assert P.missing_parts(types.SimpleNamespace(optimum=lambda *, table: None), "optimum")[0] == \
        "optimum() does not take the table first"
    loose = types.SimpleNamespace(optimum=lambda table, **kw: None)
    assert P.missing_parts(loose, "optimum", ("constraints",)) == []
