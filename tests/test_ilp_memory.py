"""The ILP refuses, in one line and before building anything, a table that cannot fit in memory.

Why: mushroom's table (a constant column keeps all 2^22 of its parent sets, every one scoring the
same) has 4.2 million families; GOBNILP's C program took the machine's 24 GB and was killed by the
system, and ours died with a bare MemoryError under a 6 GB cap.
"""

from __future__ import annotations

import itertools

import pytest

import gobnilp_py as gp
from gobnilp_py.cli import main
from gobnilp_py._memory import format_bytes
from gobnilp_py.errors import SolverError
from gobnilp_py.ilp import model as ilp_model
from gobnilp_py.ilp.model import ILP_BYTES_PER_FAMILY, check_memory
from gobnilp_py.scoring.table import ScoreTable


def _table(tied: bool) -> ScoreTable:
    """12 nodes; node 0 has every parent set of the others (2^11), all scoring the same when ``tied``."""
    n = 12
    others = list(range(1, n))
    sets = [ps for r in range(n) for ps in itertools.combinations(others, r)]
    fams = [[(ps, -10.0 if tied else -10.0 - len(ps)) for ps in sets]]
    fams += [[((), -5.0), ((0,), -4.0)] for _ in others]
    return ScoreTable([f"X{i}" for i in range(n)], fams)


def test_enough_room_or_unknown_room_passes(monkeypatch):
    t = _table(tied=False)
    need = sum(len(f) for f in t.families) * ILP_BYTES_PER_FAMILY
    check_memory(t, room=need)
    with pytest.raises(SolverError):
        check_memory(t, room=need - 1)
    monkeypatch.setattr(ilp_model, "memory_room", lambda: None)  # cannot tell: no check
    check_memory(t)


def test_too_little_room_is_one_line_naming_the_need():
    t = _table(tied=False)
    with pytest.raises(SolverError) as info:
        check_memory(t, room=1024 ** 2)
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith("the ILP over 2,070 candidate families would need about 15.8 MiB of memory, more than "
                          "the 1.0 MiB available; use a parent limit")


def test_a_tied_variable_is_named_as_a_constant_column():
    with pytest.raises(SolverError, match=r"variable 'X0' alone has 2,048 candidate parent sets that all score "
                                          r"the same, as a constant column's do: drop such columns$"):
        check_memory(_table(tied=True), room=1024 ** 2)


def test_learn_and_the_command_line_refuse_before_building(monkeypatch, tmp_path, capsys):
    t = _table(tied=True)
    monkeypatch.setattr(ilp_model, "memory_room", lambda: 1024 ** 2)
    built = []
    monkeypatch.setattr(ilp_model.pyscipopt, "Model", lambda *a, **k: built.append(1))
    with pytest.raises(SolverError, match="drop such columns"):
        gp.learn(t, method="ilp")
    assert not built  # refused before any SCIP object was made
    path = tmp_path / "t.jkl"
    t.to_jkl(path)
    assert main(["learn", str(path), "--method", "ilp"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("gobnilp-py: error: the ILP over 2,070 candidate families") and "\n" not in err


def test_tied_variables_are_named_in_every_result():
    """The table names its tied variables; every result computed from it carries the note."""
    t = _table(tied=True)
    assert t.tied_variables() == [("X0", 2048)]
    assert _table(tied=False).tied_variables() == []
    assert t.tied_variables(at_least=4096) == []
    res = gp.learn(t)
    assert any("variable 'X0' has 2,048 candidate parent sets that all score the same" in c and "drop such columns" in c
               for c in res.caveats)


@pytest.mark.parametrize("n_bytes, text", [
    (0, "0 bytes"), (1023, "1023 bytes"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
    (16_571_392, "15.8 MiB"), (150 * 2**20, "150 MiB"), (2**30, "1.0 GiB"), (212 * 2**30, "212 GiB"),
    (3 * 2**40, "3.0 TiB"),
])
def test_memory_messages_use_the_largest_unit_reached(n_bytes, text):
    """One byte format for every memory message (the ILP's, the scorer's, the order-graph engines')."""
    assert format_bytes(n_bytes) == text
