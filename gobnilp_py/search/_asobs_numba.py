"""Compiled (numba) versions of the queries in :mod:`._asobs_lists`, used when numba is installed.

The queries scan a node's families best first and stop at the first one that
passes; a compiled loop stops after a few entries where numpy has to test a
whole block.  Same answers as the numpy kernels (tested when numba is present).
numba is optional (``pip install gobnilp_py[fast]``); without it
:data:`AVAILABLE` is False and nothing here is compiled.
"""

from __future__ import annotations

import numpy as np

from ._asobs_lists import FamilyLists

__all__ = ["AVAILABLE", "NumbaKernels"]

try:  # pragma: no cover - depends on the installation
    import numba as _nb
except ImportError:  # pragma: no cover
    _nb = None

AVAILABLE = _nb is not None

if AVAILABLE:  # pragma: no cover - exercised only where numba is installed
    _jit = _nb.njit(cache=True, nogil=True)

    @_jit
    def _first_below(fstart, pstart, pidx, v, pos, thr):
        for f in range(fstart[v], fstart[v + 1]):
            ok = True
            for e in range(pstart[f], pstart[f + 1]):
                if pos[pidx[e]] >= thr:
                    ok = False
                    break
            if ok:
                return f
        return -1

    @_jit
    def _first_avoiding(fstart, pstart, pidx, v, words):
        for f in range(fstart[v], fstart[v + 1]):
            ok = True
            for e in range(pstart[f], pstart[f + 1]):
                p = pidx[e]
                if (words[p >> 6] >> np.uint64(p & 63)) & np.uint64(1):
                    ok = False
                    break
            if ok:
                return f
        return -1

    @_jit
    def _obs_choice(fstart, pstart, pidx, pos):
        n = fstart.size - 1
        out = np.empty(n, dtype=np.int64)
        for v in range(n):
            out[v] = _first_below(fstart, pstart, pidx, v, pos, pos[v])
        return out


class NumbaKernels:
    """The queries of ordering-based search on ``fl``, compiled with numba."""

    name = "numba"

    def __init__(self, fl: FamilyLists) -> None:
        if not AVAILABLE:
            raise ImportError("numba is not installed")
        self.fl = fl
        self._a = (fl.fstart, fl.pstart, fl.pidx)

    def first_below(self, v: int, pos: np.ndarray, thr: int) -> int:
        return int(_first_below(*self._a, v, pos, thr))

    def first_avoiding(self, v: int, forbidden_words: np.ndarray) -> int:
        return int(_first_avoiding(*self._a, v, forbidden_words))

    def obs_choice(self, pos: np.ndarray) -> np.ndarray:
        return _obs_choice(*self._a, pos)
