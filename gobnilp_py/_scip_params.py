"""SCIP parameters a user may not set: those that name files (and shared libraries).

A user can pass SCIP parameters in three places: a config's ``[scip]``
section, a GOBNILP ``.set`` file and the API's ``params=``.  Some SCIP
parameters are *file names*: SCIP writes to them (``visual/vbcfilename``,
``visual/bakfilename``, ``heuristics/alns/rewardfilename``), reads them
(settings files of the solving phases, a repair start solution, a regression
forest, Ipopt's options file) or even loads them as code
(``nlpi/ipopt/hsllib``, ``nlpi/ipopt/pardisolib``).  A config shared between
people or run by a service would then write or read any file the process can
reach, outside the output folder.  None of them is needed to learn networks,
so all are refused with one line naming the parameter.

The list is SCIP's own: :func:`derive_file_params` reads every parameter's
description from ``Model.writeParams(comments=True)`` and keeps the string
parameters whose description speaks of a file, a path or a library; a test
checks that :data:`FILE_PARAMS` equals that derivation for the installed
SCIP, so a SCIP upgrade that adds one fails the test suite instead of
slipping through.  As a second net, any string parameter whose *name* says
``file``, ``lib``, ``setname`` or ``prefix`` is refused too.

pyscipopt is imported lazily (only by :func:`derive_file_params`), so
``import gobnilp_py`` stays SCIP-free.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from typing import Any

from ._validation import show
from .errors import ParameterError

__all__ = ["FILE_PARAMS", "is_file_param", "check_scip_params", "derive_file_params"]

#: SCIP 10's string parameters that name a file, a path prefix or a shared library
#: (what :func:`derive_file_params` finds; kept in step by a test).
FILE_PARAMS: frozenset[str] = frozenset({
    "visual/vbcfilename",
    "visual/bakfilename",
    "heuristics/alns/rewardfilename",
    "heuristics/repair/filename",
    "estimation/regforestfilename",
    "solvingphases/feassetname",
    "solvingphases/improvesetname",
    "solvingphases/proofsetname",
    "concurrent/paramsetprefix",
    "nlpi/ipopt/optfile",
    "nlpi/ipopt/hsllib",
    "nlpi/ipopt/pardisolib",
})

_NAME_RULE = re.compile(r"(file|lib$|setname$|prefix$|path$|dir$)", re.IGNORECASE)
_DESC_RULE = re.compile(r"\b(file|files|filename|path|library|directory)\b", re.IGNORECASE)


def is_file_param(name: str) -> bool:
    """True if SCIP parameter ``name`` names a file, path or library (refused for users)."""
    leaf = str(name).rsplit("/", 1)[-1]
    return str(name) in FILE_PARAMS or bool(_NAME_RULE.search(leaf))


def check_scip_params(params: Mapping[str, Any] | None, *, where: str = "") -> None:
    """Refuse every file-naming SCIP parameter in ``params`` (one line naming it).

    Call this wherever user SCIP parameters enter: the ILP engine (``params=``),
    the config's ``[scip]`` section and GOBNILP settings files.

    Parameters
    ----------
    params : mapping of SCIP parameter name to value, or None
    where : str
        Prefix for the message (e.g. the file and line of a settings file).

    Raises
    ------
    ParameterError
        E.g. ``SCIP parameter visual/vbcfilename = "/tmp/x" names a file SCIP would write
        or read outside the output folder; file-naming SCIP parameters are not accepted``.
    """
    for name, value in (params or {}).items():
        if is_file_param(name):
            prefix = f"{where}: " if where else ""
            raise ParameterError(f"{prefix}SCIP parameter {name} = {show(value)} names a file SCIP would write or "
                                 "read outside the output folder; file-naming SCIP parameters are not accepted")


def derive_file_params() -> frozenset[str]:
    """The file-naming string parameters of the installed SCIP, read from SCIP's own descriptions.

    Writes SCIP's full parameter file with comments into a temporary folder,
    then keeps every ``string`` parameter whose description mentions a file,
    a path, a directory or a library, or whose name does (SCIP describes
    ``estimation/regforestfilename`` only as "user regression forest in
    RFCSV format").
    """
    import pyscipopt

    m = pyscipopt.Model()
    m.hideOutput()
    with tempfile.TemporaryDirectory(prefix="gobnilp-scip-params-") as tmp:
        path = os.path.join(tmp, "all.set")
        m.writeParams(path, comments=True, onlychanged=False)
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    m.freeProb()
    found = set()
    for block in text.split("\n\n"):
        lines = [ln for ln in block.strip().splitlines() if ln.strip()]
        if not lines or "type: string" not in block:
            continue
        name = lines[-1].split("=", 1)[0].strip()
        desc = " ".join(ln.lstrip("# ") for ln in lines if ln.startswith("#") and "[type:" not in ln)
        if _DESC_RULE.search(desc) or _NAME_RULE.search(name.rsplit("/", 1)[-1]):
            found.add(name)
    return frozenset(found)
