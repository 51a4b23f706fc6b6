"""Class-level collection, the driver's half: from one network per equivalence class to every member.

An engine that collects by class (the ILP with class nogoods) returns one
representative per credible Markov equivalence class.  The members of a class
are the consistent extensions of its CPDAG; here they are listed (best class
first, up to the network cap) and counted, and only those whose every family is
a candidate of the searched table are kept.  That one filter applies everything
that is not the same across a class: the structural constraints enforced by
filtering the table (required and forbidden arrows, tiers, parent limits) and
the score table's own limits (a parent limit, pruning).

Exactness (``docs/enumeration.md``): with a score-equivalent score every member
of a class has its representative's score, so a class is credible as a whole;
the class nogood guarantees every credible class is found once; a member is a
network of the search space exactly when its families are in the table and the
class-invariant constraints (adjacencies, immoralities, edge counts) hold,
which they do for every member when they hold for the representative.  When
every member is guaranteed to be in the table (an ε-safe, exact table with no
parent limit and no filtering constraint) the count is the CPDAG's number of
extensions and nothing has to be listed past the cap.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..scoring.table import ScoreTable
from ..search.results import Entry

__all__ = ["ClassSummary", "Expansion", "expand_classes", "arrow_counts", "is_score_equivalent", "SCORE_EQUIVALENT",
           "classes_to_json"]

#: Scores for which every DAG of a Markov equivalence class has the same score.
SCORE_EQUIVALENT = frozenset({"BIC", "BDeu", "AIC"})


@dataclass
class ClassSummary:
    """One credible equivalence class of a class-level collection.

    Attributes
    ----------
    cpdag : CPDAG
        Its essential graph.
    score : float
        The score every member has (its representative's).
    n_members : int or None
        Members that are networks of the search space (exact; ``None`` when
        a time limit stopped the counting).
    listed : int
        How many of them are listed in the result.
    arrow_counts : dict or None
        ``(u, v) -> members with u -> v`` over the counted members, when known.
    """

    cpdag: Any
    score: float
    n_members: int | None
    listed: int = 0
    arrow_counts: dict[tuple[str, str], int] | None = None


@dataclass
class Expansion:
    """Members of the classes, best class first."""

    entries: list[Entry]
    classes: list[ClassSummary]
    complete_counts: bool
    capped: bool
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def n_networks_total(self) -> int | None:
        """Every credible network, counted exactly (``None`` when some count is unknown)."""
        if not self.complete_counts:
            return None
        return sum(c.n_members or 0 for c in self.classes)


def is_score_equivalent(table: ScoreTable) -> bool:
    """True when the table's score gives every DAG of a Markov equivalence class the same score."""
    declared = table.meta.get("score_equivalent")
    if declared is not None:
        return bool(declared)
    return table.score_name in SCORE_EQUIVALENT


def _lookup(table: ScoreTable) -> list[dict[int, int]]:
    """Per node: parent bitmask -> position of that family in the table."""
    return [{sum(1 << p for p in ps): k for k, (ps, _) in enumerate(fams)} for fams in table.families]


def expand_classes(table: ScoreTable, reps: Sequence[Entry], *, limit: float, max_networks: int | None,
                   all_representable: bool, deadline: float | None = None) -> Expansion:
    """List and count the members of the classes of ``reps`` that are networks of ``table``.

    Parameters
    ----------
    table : ScoreTable
        The table searched (filtered by the structural constraints).
    reps : sequence of (score, chosen)
        One representative per class.
    limit : float
        Members must score at least this (the boundary ``OPT - ε - tol``).
    max_networks : int or None
        List at most this many networks (counting goes on).
    all_representable : bool
        Every member of a credible class is known to be in the table (see the
        module docstring): counts then come from the CPDAG alone.
    deadline : float, optional
        ``time.perf_counter()`` value after which listing and counting stop
        (counts that needed the listing become unknown).
    """
    from ..equivalence import cpdag

    names = table.names
    where = _lookup(table)
    index = {x: i for i, x in enumerate(names)}
    t0 = time.perf_counter()
    order = sorted(reps, key=lambda e: (-e[0], e[1]))
    entries: list[Entry] = []
    summaries: list[ClassSummary] = []
    complete_counts = True
    listed_total = 0
    for score, chosen in order:
        parents = {names[v]: tuple(names[p] for p in table.families[v][c][0]) for v, c in enumerate(chosen)}
        cp = cpdag(names, parents)
        room = None if max_networks is None else max(0, max_networks - listed_total)
        summary = ClassSummary(cp, score, None)
        if all_representable:
            summary.n_members = cp.count_dags()
            if room is None or room > 0:
                for i, member in enumerate(cp.dags(limit=room)):
                    if deadline is not None and i % 256 == 0 and time.perf_counter() > deadline:
                        break  # the counts stay exact; only the listing is cut
                    entry = _entry(table, where, member, names, index)
                    if entry is None:  # cannot happen when all_representable holds; keep it honest anyway
                        raise AssertionError("a member of a credible class is missing from an epsilon-safe table")
                    entries.append(entry)
                    summary.listed += 1
        else:
            count = 0
            arrows: dict[tuple[str, str], int] = {}
            stopped = False
            for i, member in enumerate(cp.dags()):
                if deadline is not None and i % 256 == 0 and time.perf_counter() > deadline:
                    stopped = True
                    break
                entry = _entry(table, where, member, names, index)
                if entry is None or entry[0] < limit:
                    continue
                count += 1
                for child, ps in member.items():
                    for p in ps:
                        arrows[(p, child)] = arrows.get((p, child), 0) + 1
                if room is None or summary.listed < room:
                    entries.append(entry)
                    summary.listed += 1
            if stopped:
                complete_counts = False
            else:
                summary.n_members = count
                summary.arrow_counts = arrows
        listed_total += summary.listed
        if summary.n_members != 0:
            summaries.append(summary)
    capped = max_networks is not None and listed_total >= max_networks and any(
        c.n_members is None or c.n_members > c.listed for c in summaries)
    stats = {"time_members": time.perf_counter() - t0, "classes": len(summaries)}
    return Expansion(entries, summaries, complete_counts, capped, stats)


def _entry(table: ScoreTable, where: list[dict[int, int]], member: dict[str, tuple[str, ...]],
           names: tuple[str, ...], index: dict[str, int]) -> Entry | None:
    """The member as table positions and its score; ``None`` when a family is not a candidate."""
    chosen = []
    for v, name in enumerate(names):
        mask = 0
        for p in member[name]:
            mask |= 1 << index[p]
        pos = where[v].get(mask)
        if pos is None:
            return None
        chosen.append(pos)
    score = math.fsum(table.families[v][c][1] for v, c in enumerate(chosen))
    return score, tuple(chosen)


def arrow_counts(summary: ClassSummary) -> dict[tuple[str, str], int]:
    """``(u, v) -> members with u -> v`` of a class (computed once, from the CPDAG or by listing)."""
    if summary.arrow_counts is None:
        try:
            from ..equivalence import arrow_counts as count_arrows  # polynomial, when available
        except ImportError:
            count_arrows = None
        if count_arrows is not None:
            summary.arrow_counts = dict(count_arrows(summary.cpdag))
        else:
            counts: dict[tuple[str, str], int] = {}
            for member in summary.cpdag.dags():
                for child, ps in member.items():
                    for p in ps:
                        counts[(p, child)] = counts.get((p, child), 0) + 1
            summary.arrow_counts = counts
    return summary.arrow_counts


def classes_to_json(classes: Sequence[ClassSummary] | None) -> list[dict[str, Any]] | None:
    """Class summaries as JSON data (read back by :func:`gobnilp_py.output.load.classes_from_json`).

    Arrow counts are computed when missing (for a class whose members are all counted), so the
    output does not depend on whether model averages were asked for before.
    """
    if classes is None:
        return None
    out = []
    for c in classes:
        counts = arrow_counts(c) if c.n_members is not None else c.arrow_counts
        out.append({"cpdag": c.cpdag.to_dict(), "score": c.score if math.isfinite(c.score) else None,
                    "n_members": c.n_members, "listed": c.listed,
                    "arrow_counts": None if counts is None else [[u, v, int(k)] for (u, v), k in sorted(counts.items())]})
    return out
