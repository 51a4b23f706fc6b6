"""Read a saved result back (``gobnilp_py.load_result``): the result codec with the result classes filled in.

The reading itself, strict and one-line on every failure, is the result codec
(:mod:`gobnilp_py.solve.codec`), which lives beside the result types so that
:meth:`CredibleSet.from_dict <gobnilp_py.solve.credible.CredibleSet.from_dict>` needs nothing above
it.  This is the application's door: a run's ``result.json`` (or its folder), a ``summary.json``
written by ``gobnilp-py enumerate -o``, or a file of ``CredibleSet.to_dict()`` / ``Network.to_dict()``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..solve import codec
from ..solve.classes import classes_to_json
from ..solve.codec import classes_from_json
from ..solve.credible import CredibleSet

__all__ = ["load_result", "result_from_dict", "credible_set_from_dict", "classes_to_json", "classes_from_json"]


def load_result(path: str | os.PathLike[str]) -> Any:
    """The result saved in a JSON file or folder: a ``CredibleSet`` (enumerate, kbest) or a ``Network`` (learn).

    See :func:`gobnilp_py.solve.codec.load_result` for what is read and checked.

    Raises
    ------
    DataError
        The file is missing (or a folder holds neither ``result.json`` nor ``summary.json``), is not
        JSON, is a ``score`` job's result, or does not describe a result.

    Examples
    --------
    >>> from gobnilp_py import load_result
    >>> cs = load_result("out/result.json")  # doctest: +SKIP
    >>> cs.guarantee  # doctest: +SKIP
    'complete: every network with score >= OPT - 1.09861 (Bayes factor 3)'
    """
    return codec.load_result(path, make=CredibleSet)


def result_from_dict(d: Mapping[str, Any]) -> Any:
    """:func:`load_result` on an already parsed JSON object."""
    return codec.result_from_dict(d, make=CredibleSet)


def credible_set_from_dict(d: Mapping[str, Any], *, names: Sequence[str] | None = None,
                           summary: Mapping[str, Any] | None = None, where: str = "") -> CredibleSet:
    """A :class:`~gobnilp_py.solve.credible.CredibleSet` from ``CredibleSet.to_dict()`` (every field checked)."""
    return codec.credible_set_from_dict(d, make=CredibleSet, names=names, summary=summary, where=where)
