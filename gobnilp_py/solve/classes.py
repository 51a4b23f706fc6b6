"""Class-level collection, the driver's half: from one network per equivalence class to every member.

An engine that collects by class (the ILP with class nogoods) returns one
representative per credible Markov equivalence class.  The members of a class
are the consistent extensions of its CPDAG; here they are counted and listed
with :class:`~gobnilp_py.equivalence.Extensions` (Clique-Picking counting,
Wienöbst, Bannach & Liśkiewicz, AAAI 2021; listing guided by the counts), and
only those whose every family is a candidate of the searched table are kept:
the ``allowed`` predicate of :class:`~gobnilp_py.equivalence.MemberConstraints`
is "this family is in the table".  That one predicate applies everything that
is not the same across a class: the structural constraints enforced by
filtering the table (required and forbidden arrows, tiers, parent limits) and
the score table's own limits (a parent limit, pruning).  (When the table holds
every family any member can have -- each node's compelled parents with any
subset of its undirected neighbours -- the predicate is dropped: same answer,
faster count.)  Because the predicate
acts inside the counting recursion, members outside the table are neither
listed nor generated, and a class is counted exactly without listing it.

Exactness (``docs/enumeration.md``): with a score-equivalent score every member
of a class has its representative's score, so a class is credible as a whole;
the class nogood guarantees every credible class is found once; a member is a
network of the search space exactly when its families are in the table and the
class-invariant constraints (adjacencies, immoralities, edge counts) hold,
which they do for every member when they hold for the representative.  When
every member is guaranteed to be in the table (an ε-safe, exact table with no
parent limit and no filtering constraint) the table lookup is skipped and the
count is the CPDAG's number of extensions.

Order of the result (deterministic): classes best first, ties by the
representative's family positions; inside a class the members in the fixed
order of :meth:`~gobnilp_py.equivalence.Extensions.members` (chain components
by lowest node, the last varying fastest).  Past the network cap the listing
stops but every class is still counted.

Scores are computed per listed member (``math.fsum`` of its local scores) and
checked against the boundary: a listed member below it would mean the score is
not score-equivalent after all (or a representative within rounding of the
boundary); that class is then listed in full and filtered member by member,
exactly as DAG-level collection would, so no network below the boundary is
ever kept or counted.  Likewise, a listed member with a family missing from a
table taken to hold every member (``all_representable``) sends its class back
to counting inside the table, with a warning.  Both checks see the listed
members only; past the network cap the premises (score equivalence, an ε-safe
table) stand for the rest.
"""

from __future__ import annotations

import logging
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

_log = logging.getLogger(__name__)

#: Members listed between two looks at the deadline.
_DEADLINE_EVERY = 256


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
    constraints : MemberConstraints or None
        What restricts the counted members (``None``: every member of the
        class counts), so arrow counts can be computed later, exactly.
    """

    cpdag: Any
    score: float
    n_members: int | None
    listed: int = 0
    arrow_counts: dict[tuple[str, str], int] | None = None
    constraints: Any = field(default=None, repr=False, compare=False)


@dataclass
class Expansion:
    """Members of the classes, best class first.

    ``complete_counts`` is False when a count is unknown *or* the deadline cut
    the listing short of what the cap allows (the driver then labels the result
    ``time_limit``); ``capped`` when the network cap cut the listing.
    ``all_counted`` is False when the deadline passed before every class was
    even counted (``classes`` then holds only the classes processed, and the
    totals are unknown).  ``unlisted_top`` bounds the score of every counted
    or uncounted member that is not in ``entries``: ``None`` when every member
    of every class is listed; a class's score when its members are cut (they
    all have that score, up to the rounding of their sums, far below the 1e-9
    relative tolerance of "same score"); ``inf`` when unknown (a class filtered
    member by member that the deadline stopped).
    """

    entries: list[Entry]
    classes: list[ClassSummary]
    complete_counts: bool
    capped: bool
    stats: dict[str, Any] = field(default_factory=dict)
    all_counted: bool = True
    unlisted_top: float | None = None

    @property
    def n_networks_total(self) -> int | None:
        """Every credible network, counted exactly (``None`` when some count is unknown)."""
        if any(c.n_members is None for c in self.classes):
            return None
        return sum(c.n_members or 0 for c in self.classes)


def is_score_equivalent(table: ScoreTable) -> bool:
    """True when the table's score gives every DAG of a Markov equivalence class the same score."""
    declared = table.meta.get("score_equivalent")
    if declared is not None:
        return bool(declared)
    return table.score_name in SCORE_EQUIVALENT


def _lookup(table: ScoreTable) -> list[dict[int, tuple[int, float]]]:
    """Per node: parent bitmask -> (position of that family in the table, its local score)."""
    return [{sum(1 << p for p in ps): (k, sc) for k, (ps, sc) in enumerate(fams)} for fams in table.families]


def expand_classes(table: ScoreTable, reps: Sequence[Entry], *, limit: float, max_networks: int | None,
                   all_representable: bool, deadline: float | None = None) -> Expansion:
    """Count and list the members of the classes of ``reps`` that are networks of ``table``.

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
        module docstring): the table lookup is then skipped.
    deadline : float, optional
        ``time.perf_counter()`` value after which listing stops (the counts
        of the classes already met stay exact; the expansion says the listing
        was cut, see :class:`Expansion`); a class not yet met when it passes is
        neither listed nor counted (``all_counted`` False), so the whole
        expansion ends within a class's work of the deadline.

    Returns
    -------
    Expansion
        Entries in the order of the module docstring, class summaries with
        exact member counts.
    """
    from ..equivalence import Extensions, MemberConstraints

    where = _lookup(table)
    t0 = time.perf_counter()
    entries: list[Entry] = []
    summaries: list[ClassSummary] = []
    complete_counts = True
    listed_total = 0
    fallbacks = 0
    missing = 0
    in_table = MemberConstraints(allowed=lambda v, fam: fam in where[v])
    order = _canonical(table, reps, where, in_table, all_representable, deadline)
    all_counted = True
    unlisted_top: float | None = None
    for score, _chosen, cp, whole, ext in order:
        if deadline is not None and time.perf_counter() > deadline:
            # Neither listed nor counted: the classes are best first, so this one bounds the rest.
            all_counted = complete_counts = False
            unlisted_top = score if unlisted_top is None else max(unlisted_top, score)
            break
        room = None if max_networks is None else max(0, max_networks - listed_total)
        summary, got, status = _expand_one(cp, score, None if whole else in_table, where, limit, room, deadline, ext)
        if status == "missing":  # the table lacks a member after all: count and list inside the table instead
            _log.warning("a member of a credible class is missing from a table taken to hold every member; "
                         "counting that class's members inside the table")
            missing += 1
            summary, got, status = _expand_one(cp, score, in_table, where, limit, room, deadline)
        top_left: float | None = score  # best score of a member of this class not listed (if any)
        if status == "below":  # not score-equivalent here after all: filter the whole class member by member
            fallbacks += 1
            got, count, arrows, stopped, top_left = _filter_members(table, where, Extensions(cp, in_table), limit,
                                                                    room, deadline)
            summary.n_members = None if stopped else count
            summary.arrow_counts = None if stopped else arrows
            status = "deadline" if stopped else "ok"
        if summary.n_members is None or len(got) < summary.n_members:
            unlisted_top = top_left if unlisted_top is None else max(unlisted_top, top_left)
        if status == "deadline":
            complete_counts = False  # the counts stay exact (unless the filter above stopped); the listing is cut
        entries.extend(got)
        summary.listed = len(got)
        listed_total += summary.listed
        if summary.n_members != 0:
            summaries.append(summary)
    capped = max_networks is not None and listed_total >= max_networks and any(
        c.n_members is None or c.n_members > c.listed for c in summaries)
    stats = {"time_members": time.perf_counter() - t0, "classes": len(summaries)}
    if fallbacks:
        stats["classes_filtered_by_score"] = fallbacks
    if missing:
        stats["classes_missing_members"] = missing
    return Expansion(entries, summaries, complete_counts, capped, stats, all_counted=all_counted,
                     unlisted_top=unlisted_top)


def _canonical(table: ScoreTable, reps: Sequence[Entry], where: list[dict[int, tuple[int, float]]], in_table: Any,
               all_representable: bool, deadline: float | None) -> list[tuple[float, tuple[int, ...], Any, bool, Any]]:
    """Each class as ``(score, chosen, cpdag, whole, extensions)`` from a *canonical* member, best first.

    Why: the search records whichever member of a class it meets first, and members' scores are equal
    only up to the rounding of their sums; a class found by another search (a part of a split
    collection, :mod:`gobnilp_py.solve.split`) would otherwise be reported with another score and
    sorted by it.  The canonical member is the first the member enumeration gives (it depends on the
    class and the table alone); its ``math.fsum`` score is the class's.  A class whose first member is
    not a network of the table keeps its representative.  ``whole``: every member is a network of the
    table (:func:`_table_holds_class`); ``extensions``: the class's members under the constraints that
    test implies, built here and handed on for counting and listing (its plans and counts are cached).
    Past ``deadline`` the classes left keep their representatives (no CPDAG: the caller stops at the
    deadline before reaching them).
    """
    from ..equivalence import Extensions, cpdag_from_masks

    names = table.names
    out: list[tuple[float, tuple[int, ...], Any, bool, Any]] = []
    for i, (score, chosen) in enumerate(reps):
        if deadline is not None and i % 64 == 0 and time.perf_counter() > deadline:
            out.extend((sc, tuple(ch), None, False, None) for sc, ch in reps[i:])
            break
        masks = [_mask(table.families[v][c][0]) for v, c in enumerate(chosen)]
        cp = cpdag_from_masks(names, masks, validate=False)
        whole = all_representable or _table_holds_class(cp, where)
        ext = Extensions(cp, None if whole else in_table)
        first = next(iter(ext.members(limit=1)), None)
        entry = None if first is None else _entry(where, first)
        if entry is not None:
            score, chosen = entry
        out.append((score, tuple(chosen), cp, whole, ext))
    out.sort(key=lambda e: (-e[0], e[1]))
    return out


#: Largest number of undirected neighbours of a node for which :func:`_table_holds_class` checks every family.
_HOLDS_MAX_NEIGHBOURS = 12


def _table_holds_class(cp: Any, where: list[dict[int, tuple[int, float]]]) -> bool:
    """True when every family any member of the class can have is in the table (a sufficient test).

    In every member, node ``v`` has its compelled parents plus a set ``S`` of
    its undirected neighbours, and ``S`` is a clique (two non-adjacent parents
    from the undirected part would be a new v-structure).  When the table holds
    every such family for every node, every member is a network of the table
    and the members can be counted without the table predicate (faster: no
    per-clique dynamic programme).  Nodes with many undirected neighbours are
    not checked (the test then says False and the predicate is used).
    """
    und_all = cp._und
    for v, (und, pa) in enumerate(zip(und_all, cp._pa)):
        if und.bit_count() > _HOLDS_MAX_NEIGHBOURS:
            return False
        look = where[v]
        # depth-first over the cliques inside und: extend by higher neighbours adjacent to all chosen
        stack = [(0, und)]
        while stack:
            chosen, cand = stack.pop()
            if pa | chosen not in look:
                return False
            while cand:
                low = cand & -cand
                cand ^= low
                u = low.bit_length() - 1
                stack.append((chosen | low, cand & und_all[u]))
    return True


def _expand_one(cp: Any, score: float, cons: Any, where: list[dict[int, tuple[int, float]]], limit: float,
                room: int | None, deadline: float | None, ext: Any = None) -> tuple[ClassSummary, list[Entry], str]:
    """Count one class's members (satisfying ``cons``) and list up to ``room`` of them (``ext``: the
    class's :class:`~gobnilp_py.equivalence.Extensions` under ``cons``, when already built).

    Status ``"ok"``; ``"deadline"`` (listing cut, count exact); ``"missing"``
    (a member has a family outside the table: only possible when ``cons`` is
    ``None``); ``"below"`` (a member scores below ``limit``).
    """
    from ..equivalence import Extensions

    if ext is None:
        ext = Extensions(cp, cons)
    summary = ClassSummary(cp, score, ext.count(), constraints=cons)
    got: list[Entry] = []
    if room is not None and room <= 0:
        return summary, got, "ok"
    for i, member in enumerate(ext.members(limit=room)):
        if deadline is not None and i % _DEADLINE_EVERY == 0 and time.perf_counter() > deadline:
            return summary, got, "deadline"
        entry = _entry(where, member)
        if entry is None:
            return summary, [], "missing"
        if entry[0] < limit:
            return summary, [], "below"
        got.append(entry)
    return summary, got, "ok"


def _mask(parents: Sequence[int]) -> int:
    m = 0
    for p in parents:
        m |= 1 << p
    return m


def _filter_members(table: ScoreTable, where: list[dict[int, tuple[int, float]]], ext: Any, limit: float,
                    room: int | None, deadline: float | None
                    ) -> tuple[list[Entry], int, dict[tuple[str, str], int], bool, float | None]:
    """List every member, keep those scoring >= ``limit``.

    Returns (listed, count, arrow counts by name, stopped, best score of a
    kept member not listed: ``None`` if none, ``inf`` when stopped).
    """
    names = table.names
    got: list[Entry] = []
    count = 0
    arrows: dict[tuple[str, str], int] = {}
    top_left: float | None = None
    for i, member in enumerate(ext.members()):
        if deadline is not None and i % _DEADLINE_EVERY == 0 and time.perf_counter() > deadline:
            return got, count, arrows, True, math.inf
        entry = _entry(where, member)
        if entry is None or entry[0] < limit:
            continue
        count += 1
        for child, m in enumerate(member):
            while m:
                low = m & -m
                m ^= low
                key = (names[low.bit_length() - 1], names[child])
                arrows[key] = arrows.get(key, 0) + 1
        if room is None or len(got) < room:
            got.append(entry)
        elif top_left is None or entry[0] > top_left:
            top_left = entry[0]
    return got, count, arrows, False, top_left


def _entry(where: list[dict[int, tuple[int, float]]], member: Sequence[int]) -> Entry | None:
    """The member (parent masks) as table positions and its score (``math.fsum`` of its local scores,
    as every driver computes it); ``None`` when a family is not a candidate."""
    try:
        hits = [look[mask] for look, mask in zip(where, member)]
    except KeyError:
        return None
    return math.fsum([h[1] for h in hits]), tuple([h[0] for h in hits])


def arrow_counts(summary: ClassSummary) -> dict[tuple[str, str], int]:
    """``(u, v) -> members with u -> v`` of a class, by name (computed once, exactly, without listing)."""
    if summary.arrow_counts is None:
        from ..equivalence import Extensions

        names = summary.cpdag.names
        counts = Extensions(summary.cpdag, summary.constraints).arrow_counts()
        summary.arrow_counts = {(names[u], names[v]): k for (u, v), k in counts.items()}
    return summary.arrow_counts


def classes_to_json(classes: Sequence[ClassSummary] | None) -> list[dict[str, Any]] | None:
    """Class summaries as JSON data (read back by :func:`gobnilp_py.solve.codec.classes_from_json`).

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
