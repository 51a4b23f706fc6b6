"""Level-wise generation of candidate parent sets (the Apriori join).

Parent sets of one child are explored by size: level ``k + 1`` holds exactly
the sets all of whose ``k``-subsets survived level ``k``.  A set excluded by a
*bound* rule (which covers all its supersets) is simply absent from its
level, so none of its supersets is ever generated or counted; a set dropped
only for being dominated stays in the level (its supersets may still be
good).  Because every proper subset of a generated set has been scored, the
best proper-subset score needed by the pruning rules is exact.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator

__all__ = ["singletons", "next_level", "immediate_subsets"]


def singletons(allowed: Iterable[int]) -> list[tuple[int, ...]]:
    """Level 1: every allowed parent on its own, sorted."""
    return [(j,) for j in sorted(set(allowed))]


def immediate_subsets(x: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], int]]:
    """Pairs ``(x minus {j}, j)`` for each element ``j`` of the sorted tuple ``x``."""
    for i, j in enumerate(x):
        yield x[:i] + x[i + 1:], j


def next_level(level: Collection[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Sets of size ``k + 1`` whose every ``k``-subset is in ``level`` (sorted tuples, k >= 1).

    Two sets sharing their first ``k - 1`` elements are joined; the other
    ``k - 1`` subsets of the union are looked up.  Output is in lexicographic
    order, which is the order the counting cache reuses prefixes best in.
    """
    if not level:
        return []
    lookup = level if isinstance(level, (set, frozenset, dict)) else set(level)
    groups: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for s in lookup:
        groups[s[:-1]].append(s[-1])
    out: list[tuple[int, ...]] = []
    for prefix in sorted(groups):
        lasts = sorted(groups[prefix])
        k1 = len(prefix)
        for ia in range(len(lasts)):
            head = prefix + (lasts[ia],)
            for b in lasts[ia + 1:]:
                cand = head + (b,)
                ok = True
                for i in range(k1):
                    if cand[:i] + cand[i + 1:] not in lookup:
                        ok = False
                        break
                if ok:
                    out.append(cand)
    return out
