"""Compiled (numba) versions of the queries in :mod:`._lists`, used when numba is installed.

The queries scan a node's families best first and stop at the first one that
passes; a compiled loop stops after a few entries where numpy has to test a
whole block.  Same answers as the numpy kernels (tested when numba is present).
numba is a dependency; where it cannot be imported,
:data:`AVAILABLE` is False and nothing here is compiled.
"""

from __future__ import annotations

import functools

import numpy as np

from ..._interrupt import held
from ._lists import FamilyLists

__all__ = ["AVAILABLE", "NumbaKernels"]

from ..._numba import AVAILABLE
from ..._numba import jit as _jit

if AVAILABLE:  # pragma: no cover - exercised only where numba is installed

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


    @_jit
    def _add_parents(desc, anc, v, fam, pstart, pidx, W, A, D):
        """Closure update of DescendantClosure.add_parents, on preallocated rows A and D."""
        e0, e1 = pstart[fam], pstart[fam + 1]
        if e1 == e0:
            return
        for w in range(W):
            A[w] = 0
            D[w] = desc[v, w]
        D[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
        for e in range(e0, e1):
            p = pidx[e]
            for w in range(W):
                A[w] |= anc[p, w]
            A[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
        for w in range(W):
            bits = A[w]
            while bits:
                low = bits & (~bits + np.uint64(1))
                a = w * 64 + _ctz(low)
                for k in range(W):
                    desc[a, k] |= D[k]
                bits ^= low
        for w in range(W):
            bits = D[w]
            while bits:
                low = bits & (~bits + np.uint64(1))
                d = w * 64 + _ctz(low)
                for k in range(W):
                    anc[d, k] |= A[k]
                bits ^= low

    @_jit
    def _ctz(x):
        n = 0
        while (x & np.uint64(1)) == 0:
            x >>= np.uint64(1)
            n += 1
        return n

    @_jit
    def _asobs_pass(fstart, pstart, pidx, order):
        n = order.size
        W = max(1, (n + 63) // 64)
        desc = np.zeros((n, W), dtype=np.uint64)
        anc = np.zeros((n, W), dtype=np.uint64)
        A = np.zeros(W, dtype=np.uint64)
        D = np.zeros(W, dtype=np.uint64)
        choice = np.full(n, -1, dtype=np.int64)
        for j in range(n - 1, -1, -1):
            v = order[j]
            f = _first_avoiding(fstart, pstart, pidx, v, desc[v])
            if f < 0:
                return choice, False
            choice[v] = f
            _add_parents(desc, anc, v, f, pstart, pidx, W, A, D)
        return choice, True

    @_jit
    def _contains(pstart, pidx, f, u):
        for e in range(pstart[f], pstart[f + 1]):
            if pidx[e] == u:
                return True
        return False

    @_jit
    def _gain(fstart, pstart, pidx, score, order, pos, choice, j, rtol):
        v, w = order[j], order[j + 1]
        cv, cw = choice[v], choice[w]
        nv = _first_below(fstart, pstart, pidx, v, pos, j + 2)
        nw = cw
        if _contains(pstart, pidx, cw, v):
            nw = _first_below(fstart, pstart, pidx, w, pos, j)
            if nw < 0:
                return -np.inf, nv, nw
        gain = (score[nv] - score[cv]) + (score[nw] - score[cw])
        tol = rtol * max(1.0, abs(score[cv]) + abs(score[cw]))
        if gain > tol:
            return gain, nv, nw
        return -np.inf, nv, nw

    @_jit
    def _swap_search(fstart, pstart, pidx, score, order, choice, rtol, max_swaps):
        n = order.size
        pos = np.empty(n, dtype=np.int64)
        for i in range(n):
            pos[order[i]] = i
        m = max(n - 1, 0)
        gains = np.full(m, -np.inf)
        new_v = np.zeros(m, dtype=np.int64)
        new_w = np.zeros(m, dtype=np.int64)
        for j in range(m):
            gains[j], new_v[j], new_w[j] = _gain(fstart, pstart, pidx, score, order, pos, choice, j, rtol)
        swaps = 0
        while m > 0:
            j = 0
            for i in range(1, m):
                if gains[i] > gains[j]:
                    j = i
            if gains[j] == -np.inf:
                break
            if max_swaps >= 0 and swaps >= max_swaps:
                break
            v, w = order[j], order[j + 1]
            choice[v] = new_v[j]
            choice[w] = new_w[j]
            order[j] = w
            order[j + 1] = v
            pos[w] = j
            pos[v] = j + 1
            swaps += 1
            for i in range(j - 1, j + 2):
                if 0 <= i < m:
                    gains[i], new_v[i], new_w[i] = _gain(fstart, pstart, pidx, score, order, pos, choice, i, rtol)
        return swaps


    @_jit
    def _insertion_search(fstart, pstart, pidx, score, order, choice, rtol, max_visits, state):
        """Insertion moves in place (see :meth:`.obs.OrderSearch.insertion_search`); ``state`` = (next node,
        nodes visited since the last move) is read and written back, so the search resumes where it stopped."""
        n = order.size
        pos = np.empty(n, dtype=np.int64)
        for k in range(n):
            pos[order[k]] = k
        v, quiet = state[0], state[1]
        moves = 0
        visits = 0
        while quiet < n and (max_visits < 0 or visits < max_visits):
            visits += 1
            i = pos[v]
            sv = score[choice[v]]
            best_gain = rtol * max(1.0, abs(sv))
            best_j = -1
            acc = 0.0
            for j in range(i - 1, -1, -1):          # v before order[j]: order[j..i-1] may now take v
                u = order[j]
                pos[v] = -1
                fu = _first_below(fstart, pstart, pidx, u, pos, pos[u])
                pos[v] = i
                acc += score[fu] - score[choice[u]]
                fv = _first_below(fstart, pstart, pidx, v, pos, j)
                if fv < 0:
                    break
                gain = (score[fv] - sv) + acc
                if gain > best_gain:
                    best_gain, best_j = gain, j
            acc = 0.0
            for j in range(i + 1, n):               # v after order[j]: order[i+1..j] lose v
                u = order[j]
                cu = choice[u]
                if _contains(pstart, pidx, cu, v):
                    pos[v] = n
                    fu = _first_below(fstart, pstart, pidx, u, pos, pos[u])
                    pos[v] = i
                    if fu < 0:
                        break
                    acc += score[fu] - score[cu]
                fv = _first_below(fstart, pstart, pidx, v, pos, j + 1)
                gain = (score[fv] - sv) + acc
                if gain > best_gain:
                    best_gain, best_j = gain, j
            if best_j >= 0:
                if best_j < i:
                    for k in range(i, best_j, -1):
                        order[k] = order[k - 1]
                else:
                    for k in range(i, best_j):
                        order[k] = order[k + 1]
                order[best_j] = v
                for k in range(n):
                    pos[order[k]] = k
                for k in range(n):
                    w = order[k]
                    choice[w] = _first_below(fstart, pstart, pidx, w, pos, k)
                moves += 1
                quiet = 0
            else:
                quiet += 1
            v = (v + 1) % n
        state[0] = v
        state[1] = quiet
        return moves


    @_jit
    def _topological_order(pstart, pidx, choice, rank):
        """Kahn's algorithm with a binary heap keyed by ``rank`` (ranks are distinct): the parents-first order
        of the DAG ``choice`` that takes, among the nodes ready, the one of lowest rank; ``ok`` False on a cycle."""
        n = choice.size
        indeg = np.zeros(n, dtype=np.int64)
        nkids = np.zeros(n, dtype=np.int64)
        for v in range(n):
            f = choice[v]
            indeg[v] = pstart[f + 1] - pstart[f]
            for e in range(pstart[f], pstart[f + 1]):
                nkids[pidx[e]] += 1
        kstart = np.zeros(n + 1, dtype=np.int64)
        for v in range(n):
            kstart[v + 1] = kstart[v] + nkids[v]
        fill = kstart[:-1].copy()
        kids = np.empty(kstart[n], dtype=np.int64)
        for v in range(n):
            f = choice[v]
            for e in range(pstart[f], pstart[f + 1]):
                p = pidx[e]
                kids[fill[p]] = v
                fill[p] += 1
        heap = np.empty(n, dtype=np.int64)     # node ids, ordered by rank
        size = 0
        out = np.empty(n, dtype=np.int64)
        m = 0
        for v in range(n):
            if indeg[v] == 0:
                k = size
                heap[k] = v
                size += 1
                while k > 0 and rank[heap[(k - 1) // 2]] > rank[heap[k]]:
                    q = (k - 1) // 2
                    heap[k], heap[q] = heap[q], heap[k]
                    k = q
        while size > 0:
            u = heap[0]
            size -= 1
            heap[0] = heap[size]
            k = 0
            while True:
                a, b, s = 2 * k + 1, 2 * k + 2, k
                if a < size and rank[heap[a]] < rank[heap[s]]:
                    s = a
                if b < size and rank[heap[b]] < rank[heap[s]]:
                    s = b
                if s == k:
                    break
                heap[k], heap[s] = heap[s], heap[k]
                k = s
            out[m] = u
            m += 1
            for e in range(kstart[u], kstart[u + 1]):
                c = kids[e]
                indeg[c] -= 1
                if indeg[c] == 0:
                    k = size
                    heap[k] = c
                    size += 1
                    while k > 0 and rank[heap[(k - 1) // 2]] > rank[heap[k]]:
                        q = (k - 1) // 2
                        heap[k], heap[q] = heap[q], heap[k]
                        k = q
        return out, m == n


#: Kernels compiled in this process (see :func:`_held_first_call`).
_COMPILED: set[str] = set()


def _held_first_call(method):
    """Hold Ctrl-C / SIGTERM during a kernel's first call in a process, which compiles it.

    A signal that lands while numba compiles (a cold cache: a fresh install, the first restart) broke the
    compilation: the call raised ``RuntimeError: no compiled object yet`` instead of the interrupt, and
    so did every later call in the process (seen in CI: Ctrl-C one second into a parallel ASOBS run).
    Held (:func:`gobnilp_py._interrupt.held`), the signal is delivered when the compiled call returns.
    Later calls go straight through (one set lookup).
    """
    name = method.__name__

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if name in _COMPILED:
            return method(self, *args, **kwargs)
        with held():
            out = method(self, *args, **kwargs)
        _COMPILED.add(name)
        return out

    return wrapper


class NumbaKernels:
    """The queries of ordering-based search on ``fl``, compiled with numba.

    Besides the single queries, whole loops run compiled: the ASOBS pass with
    its closure updates (:meth:`asobs_pass`) and the swap search
    (:meth:`swap_search`), with the same arithmetic and tie-breaking as the
    Python loops of :mod:`.engine` and :mod:`.obs` (tested equal).
    """

    name = "numba"

    def __init__(self, fl: FamilyLists) -> None:
        if not AVAILABLE:
            raise ImportError("numba is not installed")
        self.fl = fl
        self._a = (fl.fstart, fl.pstart, fl.pidx)

    @_held_first_call
    def first_below(self, v: int, pos: np.ndarray, thr: int) -> int:
        return int(_first_below(*self._a, v, pos, thr))

    @_held_first_call
    def first_avoiding(self, v: int, forbidden_words: np.ndarray) -> int:
        return int(_first_avoiding(*self._a, v, forbidden_words))

    @_held_first_call
    def obs_choice(self, pos: np.ndarray) -> np.ndarray:
        return _obs_choice(*self._a, pos)

    @_held_first_call
    def asobs_pass(self, order: np.ndarray) -> np.ndarray | None:
        """ASOBS on ``order`` (flat family ids), or ``None`` when a node has no acceptable family."""
        choice, ok = _asobs_pass(*self._a, np.ascontiguousarray(order, dtype=np.int64))
        return choice if ok else None

    @_held_first_call
    def topological_order(self, choice: np.ndarray, rank: np.ndarray) -> np.ndarray | None:
        """Parents-first order of the DAG ``choice``, ties to the lowest ``rank``; ``None`` on a cycle."""
        out, ok = _topological_order(self.fl.pstart, self.fl.pidx, np.ascontiguousarray(choice, dtype=np.int64),
                                     np.ascontiguousarray(rank, dtype=np.int64))
        return out if ok else None

    @_held_first_call
    def insertion_search(self, order: np.ndarray, choice: np.ndarray, rtol: float, max_visits: int,
                         state: np.ndarray) -> int:
        """Insertion moves in place on ``order`` and ``choice`` (at most ``max_visits`` nodes visited); moves made."""
        return int(_insertion_search(*self._a, self.fl.score, order, choice, rtol, int(max_visits), state))

    @_held_first_call
    def swap_search(self, order: np.ndarray, choice: np.ndarray, rtol: float,
                    max_swaps: int | None) -> int:
        """Best-improvement swaps in place on ``order`` and ``choice``; the number applied."""
        return int(_swap_search(*self._a, self.fl.score, order, choice, rtol,
                                -1 if max_swaps is None else int(max_swaps)))
