"""A :class:`~gobnilp_py.solve.credible.CredibleSet` as the terms of its posterior mass (for :meth:`Posterior.mass_of`).

A credible set from class-level collection holds every member of each
credible equivalence class, counted exactly (``ClassSummary.n_members``) even
where the listing was cut; under a score-equivalent score every member has its
class's score, so the set's weight is ``sum_classes n_members * exp(score)``
without listing a member.  Two checks keep that sum honest against the
posterior's table:

* **scores**: every listed network, and one member of every class, is scored
  again from the posterior's table and must match the score it carries (to
  1e-9 relative): a set from other data or another score is refused;
* **support**: the members a class counts must all be DAGs of the posterior
  (their families in its table): counted again with both restrictions at once
  (:class:`~gobnilp_py.equivalence.Extensions`), the count must not drop.  Skipped
  when the posterior's table holds every parent set of every variable.

A set without (fully counted) classes contributes its listed networks.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .._wording import count
from ..errors import ScoreError

if TYPE_CHECKING:
    from .credible import CredibleSet
    from .posterior import Posterior

__all__ = ["credible_set_terms"]


def credible_set_terms(post: Posterior, cs: CredibleSet) -> tuple[list[float], int, str, str]:
    """``(log weights, DAGs counted, covers, note)`` of the set's DAGs, each checked against ``post``."""
    if cs.infeasible:
        return [], 0, "networks", "no network satisfies the constraints"
    if not cs.networks and not cs.classes:
        if not cs.complete:
            return [], 0, "networks", (f"no network listed; the search stopped ({cs.reason}), so the whole set's "
                                       "mass is not known")
        return [], 0, "networks", "the set is empty"
    names = cs.networks[0].names if cs.networks else cs.classes[0].cpdag.names  # type: ignore[index]
    if set(names) != set(post.names):
        raise ScoreError("the credible set's variables are not the posterior's: they must come from the same data")
    listed = []
    seen = set()
    for i, net in enumerate(cs.networks):
        key = net.key if tuple(net.names) == post.names else tuple(post._masks(net))
        if key in seen:
            continue
        seen.add(key)
        listed.append(post._checked_weight(net, f"network {i + 1} of the set"))
    classes = cs.classes
    if classes and all(c.n_members is not None for c in classes):
        logs, total = [], 0
        complete = all(len(f) == 1 << (post.table.n - 1) for f in post.table.families)
        for k, c in enumerate(classes):
            if not c.n_members:
                continue
            score = _class_score(post, c, k, check_support=not complete)
            logs.append(math.log(c.n_members) + score)
            total += int(c.n_members)
        note = (f"every member of {count(len(logs), 'equivalence class')}, counted "
                f"({len(listed)} listed)")
        return logs, total, "classes", note
    note = "the listed networks"
    if not cs.complete:
        note += f"; the listing is incomplete ({cs.reason}), so the whole set's mass is at least this"
    return listed, len(listed), "networks", note


def _class_score(post: Posterior, c: Any, k: int, *, check_support: bool) -> float:
    """One member's score by the posterior's table, checked against the class's; and the support check."""
    from ..equivalence import Extensions, MemberConstraints

    cp = c.cpdag
    where = {v: i for i, v in enumerate(post.names)}
    perm = [where[v] for v in cp.names]
    look = post._families()

    def remap(mask: int) -> int:
        out = 0
        while mask:
            low = mask & -mask
            out |= 1 << perm[low.bit_length() - 1]
            mask ^= low
        return out

    def in_post(v: int, fam: int) -> bool:
        return remap(fam) in look[perm[v]]

    own = c.constraints
    if own is None:
        both = MemberConstraints(allowed=in_post)
    else:
        def allowed(v: int, fam: int) -> bool:
            return (own.allowed is None or own.allowed(v, fam)) and in_post(v, fam)

        both = MemberConstraints(required=own.required, forbidden=own.forbidden, max_parents=own.max_parents,
                                 allowed=allowed)
    ext = Extensions(cp, both if check_support else own)
    if check_support:
        inside = ext.count()
        if inside != c.n_members:
            raise ScoreError(f"equivalence class {k + 1} of the set counts {c.n_members} members, of which {inside} "
                             "are DAGs of the posterior's table: the set and the posterior must come from the same "
                             "data, score, parent limit and constraints")
    member = next(iter(ext.members(limit=1)), None)
    if member is None:
        raise ScoreError(f"equivalence class {k + 1} of the set has no member among the posterior's DAGs")
    masks = [0] * len(post.names)
    for v, m in enumerate(member):
        masks[perm[v]] = remap(m)
    sc = math.fsum(look[v][m] for v, m in enumerate(masks))
    if not math.isclose(sc, float(c.score), rel_tol=1e-9, abs_tol=1e-9):
        raise ScoreError(f"equivalence class {k + 1} of the set scores {float(c.score):.10g} but a member scores "
                         f"{sc:.10g} by the posterior's table: the set and the posterior must come from the same "
                         "data and score")
    return sc
