"""One JSON convention for every file and line the package writes.

JSON has no infinities or NaN.  Python's :mod:`json` writes them anyway
(``NaN``, ``Infinity``), which strict readers (JavaScript, ``jq``, Go, Rust,
``json.loads(..., parse_constant=...)``) reject.  Here every non-finite float
becomes ``null``, everywhere: a missing optimum (an infeasible problem), an
infinite Bayes factor, an unknown bound.  Readers map ``null`` back to "no
value"; where the difference between ``-inf`` and ``nan`` matters, the
surrounding fields say it (``status``, ``complete``).

numpy scalars and arrays become Python numbers and lists, tuples and sets
lists (sets sorted, for determinism), paths strings; anything else its
``str``.  Floats are written by :func:`json.dumps` with ``repr`` precision, so
a finite float reads back exactly.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from typing import Any

__all__ = ["jsonable", "dumps", "float_or_none", "loads_strict"]


def float_or_none(x: Any) -> float | None:
    """``float(x)``, or ``None`` for ``None`` and for a non-finite value."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def jsonable(obj: Any) -> Any:
    """Plain JSON data: non-finite floats ``None``, numpy values Python values, tuples and sets lists.

    Examples
    --------
    >>> jsonable({"opt": float("-inf"), "k": (1, 2), 3: {2, 1}})
    {'opt': None, 'k': [1, 2], '3': [1, 2]}
    """
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return [jsonable(v) for v in sorted(obj, key=repr)]
    if hasattr(obj, "tolist"):  # numpy arrays and scalars (np.bool_, np.int64, np.float64, ...)
        return jsonable(obj.tolist())
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    return str(obj)


def dumps(obj: Any, *, indent: int | None = None) -> str:
    """Strict JSON text of ``obj`` (via :func:`jsonable`; never ``NaN`` or ``Infinity``)."""
    return json.dumps(jsonable(obj), indent=indent, allow_nan=False, ensure_ascii=False)


def _refuse(token: str) -> Any:
    raise ValueError(f"non-standard JSON constant {token}")


def loads_strict(text: str) -> Any:
    """Parse JSON, refusing ``NaN``/``Infinity`` (what a strict reader does); for tests and readers."""
    return json.loads(text, parse_constant=_refuse)
