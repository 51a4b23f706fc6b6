"""Ordering-based search (OBS): the best DAG consistent with an order, and adjacent swaps.

Teyssier and Koller (UAI 2005), as used by Scanagatta et al. (NIPS 2015, §4).
Convention: an *order* lists the nodes parents-first; a DAG is consistent with
it when every parent precedes its child.  Any such choice of families is
acyclic, so the best DAG consistent with an order picks, independently for
each node, its best family whose parents all precede it (:meth:`OrderSearch.obs`).

Local search over orders by swapping adjacent nodes (:meth:`OrderSearch.swap_search`):
swapping ``v = order[j]`` and ``w = order[j+1]`` changes the allowed parents of
these two nodes only — ``v`` may now take ``w``, ``w`` may no longer take
``v`` — so the gain is

    [best(v | positions < j+2) − s(v)] + [best(w | positions < j) − s(w)],

the second term zero unless ``w``'s family contains ``v``.  Each pass applies
the *best* improving swap (best improvement, as BLIP does) and recomputes the
gains of the three pairs it touches; no other pair's allowed set or family
changes.  A swap is applied only when its gain exceeds
``SWAP_RTOL × max(1, |s(v)| + |s(w)|)``: far above the rounding error of a
difference of two local scores, far below any real improvement, and it makes
every applied swap raise the total score, so the search cannot cycle.
(BLIP uses an absolute 2^-18.)

The queries run on :mod:`._lists` (numpy) or, when numba is installed
and ``backend`` allows it, on the compiled kernels of :mod:`._numba`;
both give the same answers.
"""

from __future__ import annotations

import heapq
import math
import time

import numpy as np

from ...scoring.table import ScoreTable
from ._lists import FamilyLists, NumpyKernels

__all__ = ["OrderSearch", "SWAP_RTOL", "BACKENDS"]

#: Relative gain a swap must exceed (see the module docstring).
SWAP_RTOL = 1e-9

#: Values of ``backend``: ``"auto"`` uses numba when it is installed.
BACKENDS = ("auto", "numpy", "numba")


def _kernels(fl: FamilyLists, backend: str):
    if backend not in BACKENDS:
        from ...errors import ConfigError

        raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend in ("auto", "numba"):
        from . import _numba as _asobs_numba

        if _asobs_numba.AVAILABLE:
            return _asobs_numba.NumbaKernels(fl)
        if backend == "numba":
            from ...errors import ConfigError

            raise ConfigError("backend 'numba' needs the Python package 'numba', which is not installed")
    return NumpyKernels(fl)


class OrderSearch:
    """Order-based queries on one score table (families best first).

    Choices are *flat family ids* of :class:`~._lists.FamilyLists`;
    :meth:`positions` turns them into table positions.

    Parameters
    ----------
    table : ScoreTable or FamilyLists
    backend : {"auto", "numpy", "numba"}
        Kernels for the inner queries (``"auto"``: numba when installed).
    """

    def __init__(self, table: ScoreTable | FamilyLists, backend: str = "auto") -> None:
        self.fl = table if isinstance(table, FamilyLists) else FamilyLists.from_table(table)
        self.n = self.fl.n
        self.kern = _kernels(self.fl, backend)
        self.backend = self.kern.name

    # ------------------------------------------------------------------ basics
    def score(self, choice: np.ndarray) -> float:
        """Exact total score of ``choice`` (``math.fsum`` of the local scores)."""
        return math.fsum(self.fl.score[choice].tolist())

    def positions(self, choice: np.ndarray) -> tuple[int, ...]:
        """Table positions (``table.families[v][k]``) of a choice of flat family ids."""
        return tuple(int(k) for k in self.fl.local[choice])

    def parents(self, f: int) -> list[int]:
        """Parents of flat family ``f``."""
        return self.fl.parents(int(f)).tolist()

    @staticmethod
    def inverse(order: np.ndarray) -> np.ndarray:
        """``pos[v]``: position of node ``v`` in ``order``."""
        order = np.asarray(order, dtype=np.int64)
        pos = np.empty(order.size, dtype=np.int64)
        pos[order] = np.arange(order.size, dtype=np.int64)
        return pos

    # ------------------------------------------------------------------ OBS
    def obs(self, order: np.ndarray) -> np.ndarray | None:
        """Best family of every node whose parents precede it in ``order``; ``None`` when a node has none."""
        choice = self.kern.obs_choice(self.inverse(order))
        return None if (choice < 0).any() else choice

    def topological_order(self, choice: np.ndarray, prefer: np.ndarray | None = None) -> np.ndarray:
        """A parents-first order of the DAG ``choice``; ties go to the node earliest in ``prefer``.

        Keeping close to ``prefer`` (the order the DAG came from) makes the
        result deterministic and leaves the swap search a familiar start.
        """
        n = self.n
        rank = np.arange(n) if prefer is None else self.inverse(prefer)
        if hasattr(self.kern, "topological_order"):  # the same order, compiled (a fifth of a restart's time)
            out_nb = self.kern.topological_order(choice, rank)
            if out_nb is None:
                raise ValueError("the choice is not acyclic")
            return out_nb
        kids: list[list[int]] = [[] for _ in range(n)]
        indeg = np.zeros(n, dtype=np.int64)
        for v in range(n):
            ps = self.parents(int(choice[v]))
            indeg[v] = len(ps)
            for p in ps:
                kids[p].append(v)
        heap = [(int(rank[v]), v) for v in range(n) if indeg[v] == 0]
        heapq.heapify(heap)
        out = []
        while heap:
            _, u = heapq.heappop(heap)
            out.append(u)
            for c in kids[u]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    heapq.heappush(heap, (int(rank[c]), c))
        if len(out) != n:
            raise ValueError("the choice is not acyclic")
        return np.array(out, dtype=np.int64)

    # ------------------------------------------------------------------ swaps
    def _gain(self, order: np.ndarray, pos: np.ndarray, choice: np.ndarray, j: int) -> tuple[float, int, int]:
        """Gain of swapping ``order[j]`` and ``order[j+1]``, with the two new families (-inf if impossible)."""
        fl, kern = self.fl, self.kern
        v, w = int(order[j]), int(order[j + 1])
        cv, cw = int(choice[v]), int(choice[w])
        nv = kern.first_below(v, pos, j + 2)
        nw = cw
        if v in self.parents(cw):
            nw = kern.first_below(w, pos, j)
            if nw < 0:
                return -math.inf, nv, nw
        gain = (fl.score[nv] - fl.score[cv]) + (fl.score[nw] - fl.score[cw])
        tol = SWAP_RTOL * max(1.0, abs(fl.score[cv]) + abs(fl.score[cw]))
        return (float(gain) if gain > tol else -math.inf), nv, nw

    def swap_search(self, order: np.ndarray, choice: np.ndarray, *, deadline: float | None = None,
                    max_swaps: int | None = None) -> tuple[np.ndarray, np.ndarray, int]:
        """Best-improvement adjacent swaps from an OBS solution until none improves.

        ``choice`` must be the OBS choice for ``order`` (each node's best family
        among its predecessors).  Returns the new order, its OBS choice and the
        number of swaps applied.  Never lowers the score.
        """
        order = np.array(order, dtype=np.int64)
        choice = np.array(choice, dtype=np.int64)
        n = self.n
        if n < 2:
            return order, choice, 0
        if hasattr(self.kern, "swap_search"):
            # Compiled loop, run in chunks so that the deadline is checked between them.
            chunk = 16 * n
            total = 0
            while True:
                cap = chunk if max_swaps is None else min(chunk, max_swaps - total)
                done = self.kern.swap_search(order, choice, SWAP_RTOL, cap)
                total += done
                if done < cap or (max_swaps is not None and total >= max_swaps) or (
                        deadline is not None and time.perf_counter() >= deadline):
                    return order, choice, total
        pos = self.inverse(order)
        gains = np.full(n - 1, -math.inf)
        new_v = np.zeros(n - 1, dtype=np.int64)
        new_w = np.zeros(n - 1, dtype=np.int64)
        for j in range(n - 1):
            gains[j], new_v[j], new_w[j] = self._gain(order, pos, choice, j)
        swaps = 0
        while True:
            j = int(np.argmax(gains))
            if gains[j] == -math.inf:
                break
            if (max_swaps is not None and swaps >= max_swaps) or (
                    deadline is not None and time.perf_counter() >= deadline):
                break
            v, w = int(order[j]), int(order[j + 1])
            choice[v], choice[w] = new_v[j], new_w[j]
            order[j], order[j + 1] = w, v
            pos[w], pos[v] = j, j + 1
            swaps += 1
            for i in (j - 1, j, j + 1):
                if 0 <= i < n - 1:
                    gains[i], new_v[i], new_w[i] = self._gain(order, pos, choice, i)
        return order, choice, swaps

    # ------------------------------------------------------------------ insertions
    def insertion_search(self, order: np.ndarray, choice: np.ndarray, *,
                         deadline: float | None = None) -> tuple[np.ndarray, np.ndarray, int]:
        """Insertion moves from an OBS solution until none improves: the swap search's larger neighbourhood.

        A move takes one node ``v`` out of the order and puts it back elsewhere.  Moving ``v`` from
        position ``i`` to before ``order[j]`` (``j < i``) changes the allowed parents of ``v`` (only
        ``order[:j]`` now) and of the nodes it passes (each may now take ``v``); moving it after
        ``order[j]`` (``j > i``), of ``v`` (``order[:j+1]``) and of the passed nodes whose family holds
        ``v`` (they must do without it).  No other node's allowed set changes, so the gain of every
        target position of ``v`` comes from one scan each way, ``O(n)`` queries.  Nodes are visited in
        turn (0, 1, ..., n-1, 0, ...); each takes its best position when that gains more than
        ``SWAP_RTOL × max(1, |s(v)|)`` (a strict rise, so no cycling), and the search ends after a whole
        round without a move.  An adjacent swap is an insertion by one place, so this ends where the
        swap search would have nothing left either.  Never lowers the score.

        Why: measured on independence-selection tables of bnlearn samples (alarm, hailfinder,
        win95pts, pathfinder; 5 s, 3 seeds, one core), restarts ending with it reached median scores
        60 to 510 higher than swap-only restarts, in 8-50x fewer restarts, and the proven optimum of
        the alarm table on every seed (docs/asobs.md, ``benchmarks/results/asobs-vs-blip-same-table.md``).

        Returns the new order, its OBS choice and the number of moves; ``deadline``
        (``time.perf_counter()``) is checked after every round of ``n`` visits, and the trajectory does
        not depend on it (only where it stops).
        """
        order = np.array(order, dtype=np.int64)
        choice = np.array(choice, dtype=np.int64)
        n = self.n
        if n < 2:
            return order, choice, 0
        state = np.zeros(2, dtype=np.int64)        # next node to visit, nodes visited since the last move
        kern = self.kern if hasattr(self.kern, "insertion_search") else _PythonInsertion(self)
        total = 0
        while state[1] < n:
            total += kern.insertion_search(order, choice, SWAP_RTOL, n, state)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return order, choice, total


class _PythonInsertion:
    """The insertion search without numba: the loop of ``_numba._insertion_search`` on the numpy queries."""

    def __init__(self, search: OrderSearch) -> None:
        self.search = search

    def insertion_search(self, order: np.ndarray, choice: np.ndarray, rtol: float, max_visits: int,
                         state: np.ndarray) -> int:
        fl, kern = self.search.fl, self.search.kern
        score = fl.score
        n = order.size
        pos = OrderSearch.inverse(order)
        v, quiet = int(state[0]), int(state[1])
        moves = visits = 0
        while quiet < n and visits < max_visits:
            visits += 1
            i = int(pos[v])
            sv = float(score[choice[v]])
            best_gain, best_j = rtol * max(1.0, abs(sv)), -1
            acc = 0.0
            for j in range(i - 1, -1, -1):
                u = int(order[j])
                pos[v] = -1
                fu = kern.first_below(u, pos, int(pos[u]))
                pos[v] = i
                acc += float(score[fu] - score[choice[u]])
                fv = kern.first_below(v, pos, j)
                if fv < 0:
                    break
                gain = float(score[fv] - sv) + acc
                if gain > best_gain:
                    best_gain, best_j = gain, j
            acc = 0.0
            for j in range(i + 1, n):
                u = int(order[j])
                cu = int(choice[u])
                if v in fl.parents(cu):
                    pos[v] = n
                    fu = kern.first_below(u, pos, int(pos[u]))
                    pos[v] = i
                    if fu < 0:
                        break
                    acc += float(score[fu] - score[cu])
                fv = kern.first_below(v, pos, j + 1)
                gain = float(score[fv] - sv) + acc
                if gain > best_gain:
                    best_gain, best_j = gain, j
            if best_j >= 0:
                if best_j < i:
                    order[best_j + 1:i + 1] = order[best_j:i].copy()
                else:
                    order[i:best_j] = order[i + 1:best_j + 1].copy()
                order[best_j] = v
                pos[:] = OrderSearch.inverse(order)
                choice[:] = kern.obs_choice(pos)
                moves += 1
                quiet = 0
            else:
                quiet += 1
            v = (v + 1) % n
        state[0], state[1] = v, quiet
        return moves
