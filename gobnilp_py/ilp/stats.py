"""Counters and timers of one solve, shared by the handler, the heuristic and :func:`learn`.

One mutable object is handed to every plugin so each can count what it does
without knowing about the others; :meth:`SolveStats.to_dict` is what ends up in
``Network.stats`` and in benchmark reports.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from collections.abc import Iterator

__all__ = ["SolveStats"]


@dataclass
class SolveStats:
    """What the acyclicity handler and the sink heuristic did, and where time went.

    Times are wall-clock seconds measured with :func:`time.perf_counter`.
    """

    #: cluster cuts from cycles of integral points (enforcement and separation of integral LPs)
    cuts_integral: int = 0
    #: cluster cuts from the cycle heuristic on fractional points
    cuts_cycle: int = 0
    #: cluster cuts from the exact separation sub-IP
    cuts_subip: int = 0
    #: k-cluster cuts (k >= 2) for fractional points that no cluster cut separates
    cuts_kcluster: int = 0
    #: cluster cuts of an earlier search of the same table put in at the root (not counted in cuts_total)
    cuts_seed: int = 0
    #: four-node cuts (:mod:`.four_node`), not cluster cuts (not counted in cuts_total)
    cuts_four_node: int = 0
    #: separation rounds that looked for k-cluster cuts
    kcluster_rounds: int = 0
    #: cuts skipped because the same cluster had already been added
    cuts_duplicate: int = 0
    #: initial cluster inequalities of all node pairs added to the first LP
    initial_pair_cuts: int = 0
    separation_rounds: int = 0
    #: exact separation calls (sub-IP or, for few relevant nodes, subset enumeration)
    subip_calls: int = 0
    #: of those, answered by enumerating subsets instead of a SCIP sub-IP
    subip_enumerated: int = 0
    enforce_calls: int = 0
    check_calls: int = 0
    propagation_calls: int = 0
    propagation_fixings: int = 0
    propagation_cutoffs: int = 0
    heuristic_calls: int = 0
    heuristic_solutions: int = 0
    time_separation: float = 0.0
    time_subip: float = 0.0
    #: seconds spent looking for k-cluster cuts
    time_kcluster: float = 0.0
    #: seconds spent looking for four-node cuts
    time_four_node: float = 0.0
    time_enforce: float = 0.0
    time_check: float = 0.0
    time_propagation: float = 0.0
    time_heuristic: float = 0.0
    time_scoring: float = 0.0
    time_build: float = 0.0
    time_solve: float = 0.0
    time_lp: float = 0.0
    time_total: float = 0.0
    nodes: int = 0
    lp_iterations: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def cuts_total(self) -> int:
        """All cluster cuts added, by any method."""
        return self.cuts_integral + self.cuts_cycle + self.cuts_subip + self.cuts_kcluster

    @contextmanager
    def timer(self, attr: str) -> Iterator[None]:
        """Add the wall time of the ``with`` block to the attribute ``attr``."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            setattr(self, attr, getattr(self, attr) + time.perf_counter() - t0)

    def to_dict(self) -> dict:
        """Plain dict (JSON-serialisable) including ``cuts_total``."""
        d = asdict(self)
        d["cuts_total"] = self.cuts_total
        return d
