"""One ASOBS restart, numbered: its order comes from ``(seed, index)`` alone, and a tally of restarts.

Why numbered restarts: the restarts are independent, so they can run anywhere (in-process, on a
process pool, on a Dask cluster) and in any grouping, and the search still answers the same.  Restart
``i`` draws its order from ``numpy.random.default_rng((seed, i))`` -- not from a stream shared with the
other restarts -- so what restart ``i`` finds does not depend on which process ran it nor on what ran
before it.  The best of a set of restarts is chosen by score and then by the *lowest* index
(:meth:`Tally.merge`), a total order, so merging the tallies of any partition of the set, in any order,
gives the same best network.  (Only restart ``i`` cut short by the time limit inside its swap search
depends on timing; :func:`run_batch` says which.)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .acyclic import asobs_for_order
from .obs import OrderSearch

__all__ = ["restart_order", "Tally", "run_restart", "run_batch"]


def restart_order(seed: int, index: int, n: int) -> np.ndarray:
    """The random order (a permutation of ``range(n)``) of restart ``index`` under ``seed``."""
    return np.random.default_rng((int(seed), int(index))).permutation(n)


@dataclass
class Tally:
    """What a set of restarts found: the best DAG (score, then lowest index) and counters."""

    best_score: float = -math.inf
    best_index: int = -1
    best_choice: np.ndarray | None = None
    done: int = 0                # restarts run (with or without a DAG)
    failed: int = 0              # restarts whose ASOBS pass found no DAG
    cut: int = 0                 # restarts whose swap search the time limit cut short
    swaps: int = 0
    moves: int = 0               # insertion moves
    sum_asobs: float = 0.0
    sum_obs_gain: float = 0.0
    sum_swap_gain: float = 0.0
    sum_insertion_gain: float = 0.0
    indices: list[int] = field(default_factory=list)   # the restarts run, in the order they ran

    def offer(self, score: float, index: int, choice: np.ndarray) -> None:
        """Keep ``choice`` if it beats the best so far: higher score, or equal score and lower index."""
        if score > self.best_score or (score == self.best_score and 0 <= index < self.best_index):
            self.best_score, self.best_index, self.best_choice = score, index, choice

    def merge(self, other: "Tally") -> None:
        """Add ``other``'s restarts (the result does not depend on the order of merging)."""
        if other.best_choice is not None:
            self.offer(other.best_score, other.best_index, other.best_choice)
        self.done += other.done
        self.failed += other.failed
        self.cut += other.cut
        self.swaps += other.swaps
        self.moves += other.moves
        self.sum_asobs += other.sum_asobs
        self.sum_obs_gain += other.sum_obs_gain
        self.sum_swap_gain += other.sum_swap_gain
        self.sum_insertion_gain += other.sum_insertion_gain
        self.indices.extend(other.indices)


def run_restart(search: OrderSearch, seed: int, index: int, tally: Tally, *, swaps: bool = True,
                insertions: bool = True, deadline: float | None = None) -> None:
    """Restart ``index``: ASOBS on its order, OBS on a topological order of that DAG, adjacent swaps, then
    insertion moves (:meth:`.obs.OrderSearch.insertion_search`); into ``tally``.

    ``deadline`` (``time.perf_counter()`` of this process) stops the local searches only; the restart
    is then counted in ``tally.cut``.
    """
    order = restart_order(seed, index, search.n)
    tally.done += 1
    tally.indices.append(int(index))
    choice = asobs_for_order(search, order)
    if choice is None:
        tally.failed += 1
        return
    s_asobs = search.score(choice)
    topo = search.topological_order(choice, prefer=order)
    final = search.obs(topo)
    assert final is not None  # the ASOBS choice is consistent with topo
    s_obs = search.score(final)
    s_swapped = s_obs
    if swaps:
        topo, final, ns = search.swap_search(topo, final, deadline=deadline)
        tally.swaps += ns
        s_swapped = search.score(final)
    if insertions and not (deadline is not None and time.perf_counter() >= deadline):
        topo, final, nm = search.insertion_search(topo, final, deadline=deadline)
        tally.moves += nm
    if (swaps or insertions) and deadline is not None and time.perf_counter() >= deadline:
        tally.cut += 1
    s_final = search.score(final)
    tally.sum_asobs += s_asobs
    tally.sum_obs_gain += s_obs - s_asobs
    tally.sum_swap_gain += s_swapped - s_obs
    tally.sum_insertion_gain += s_final - s_swapped
    tally.offer(s_final, int(index), final.copy())


def run_batch(search: OrderSearch, seed: int, indices: list[int] | range, *, swaps: bool = True,
              insertions: bool = True, deadline_wall: float | None = None) -> Tally:
    """The restarts ``indices`` in turn, stopping before a restart when ``deadline_wall`` (``time.time()``) passed.

    The deadline is wall-clock time so that it means the same moment in every process of the
    machine, and on a cluster's other machines as far as their clocks agree.
    """
    tally = Tally()
    deadline = None
    if deadline_wall is not None:
        deadline = time.perf_counter() + (deadline_wall - time.time())
    for i in indices:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        run_restart(search, seed, int(i), tally, swaps=swaps, insertions=insertions, deadline=deadline)
    return tally
