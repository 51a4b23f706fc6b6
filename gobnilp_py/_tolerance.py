"""The package's "same score": one relative tolerance for ties and the ε boundary.

Why one module: drivers, results and the engines each compared scores with
``1e-9 * max(1, |opt|)`` and each wrote the constant again; the ε-set's
membership test must be the same everywhere it is made (``docs/enumeration.md``),
so it is declared once, below every layer.
"""

from __future__ import annotations

import math

__all__ = ["REL_TOL", "tolerance_of"]

#: Relative tolerance of "same score" (ties) and of the ε boundary.
REL_TOL = 1e-9


def tolerance_of(opt: float) -> float:
    """Absolute tolerance at the optimum ``opt``: ``1e-9 * max(1, |opt|)`` (0 at a non-finite ``opt``)."""
    return REL_TOL * max(1.0, abs(opt)) if math.isfinite(opt) else 0.0
