"""The posterior mass of a credible set from its provenance: the unpruned table it needs, and when to pay for it.

A :class:`~gobnilp_py.solve.credible.CredibleSet` is computed from a table
pruned for its gap, which lacks most families of the DAGs outside the set: its
table cannot give the evidence (the sum over *every* DAG).  The mass needs the
table **unpruned** up to the set's parent limit, under the same score and
constraints.  The drivers (:func:`~gobnilp_py.solve.collect.enumerate_networks`,
:func:`~gobnilp_py.solve.kbest.kbest`) record where that table comes from, a
:class:`PosteriorSource`:

* **data** were given: the same data are scored again with ``prune=False``
  (same score, ``ess``, parent limit; ``palim="auto"`` is safe for the gap, so
  the set is the one without a limit and the prior is over every DAG);
* an **unpruned table** was given (or the data were scored with ``prune=False``):
  it is used as it is;
* a **pruned table** (ε-safe, of unknown pruning, approximate, with isolated
  constants): the families outside it are gone, so no mass can be computed;
  refused in one line (score the data with ``prune=False`` and call
  :meth:`Posterior.mass_of <gobnilp_py.solve.posterior.Posterior.mass_of>`);
* constraints other than those on single families, a set read back from a file
  or built by hand: refused in one line, saying why.

A set from the fixed-order route (``order=``) is measured against the posterior
over *every* DAG (the order is a restriction of the search, not of the prior).

**When it is paid** (``docs/posterior.md``, "The mass of every credible set"): the
drivers never compute it.  :attr:`CredibleSet.posterior_mass` computes it on
first access (an explicit request; no time limit), and
:meth:`CredibleSet.compute_posterior_mass` takes a time and a memory limit.
The command line and the config runner compute it by themselves only when it
is cheap (:func:`cheap`: at most :data:`AUTO_MAX_VARIABLES` variables and
:data:`AUTO_MAX_FAMILIES` families to score), otherwise on ``--posterior`` /
``[search] posterior = true``, and say which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._budget import Budget
from ..errors import GobnilpError, ScoreError
from .mass import PosteriorMass, mass_line

if TYPE_CHECKING:
    from .credible import CredibleSet
    from .posterior import Posterior

__all__ = ["PosteriorSource", "source_for", "refused_source", "set_posterior", "mass_of_set", "cheap",
           "AUTO_MAX_VARIABLES", "AUTO_MAX_FAMILIES", "unpruned_families", "sourced", "posterior_step",
           "mass_line", "refusal_before_work", "edge_comparison"]

#: Computed without being asked (CLI, config runner) only up to this many variables: the exact sums take
#: 0.02 s at 12 variables and 1.3 s at 16, then about 3 times more per variable (134 s at 20;
#: ``docs/posterior.md``, "Limits").
AUTO_MAX_VARIABLES = 16
#: ... and this many families in the unpruned table, which must be scored first (each family is a count
#: over the data; 16 variables without a parent limit have 524,288, with at most 3 parents 9,216).
AUTO_MAX_FAMILIES = 50_000

#: Scoring options handed on to the unpruned scoring (what the table holds and how the scorer runs);
#: the pruning options (``prune``, ``lower_bound``, the gap) are not: the table must hold every family.
_PASSED = ("score", "ess", "palim", "n_jobs", "backend", "scheduler", "memory_limit")


@dataclass
class PosteriorSource:
    """Where a set's unpruned table comes from: data to score again, a table to use, or why neither."""

    data: Any = None
    table: Any = None
    options: dict[str, Any] = field(default_factory=dict)
    constraints: Any = None
    refusal: str | None = None

    @property
    def n(self) -> int | None:
        src = self.table if self.table is not None else self.data
        return None if src is None else len(src.names)


def refused_source(why: str) -> PosteriorSource:
    """A source that cannot give the table, with the reason (one line)."""
    return PosteriorSource(refusal=why)


def source_for(data: Any, table: Any, scoring_options: dict[str, Any], constraints: Any) -> PosteriorSource:
    """The provenance of a set computed from ``table`` (``data``: the Dataset scored, ``None`` for a given table)."""
    from .posterior import SUPPORTED_CONSTRAINTS

    if constraints is not None:
        bad = sorted(constraints.kinds() - SUPPORTED_CONSTRAINTS)
        if bad:
            return refused_source(f"the posterior honours only constraints on single families; {', '.join(bad)} "
                                  "cannot be summed over exactly")
    if table is not None and table.is_unpruned and table.incomplete is None:
        return PosteriorSource(table=table, constraints=constraints)
    if data is None:
        return refused_source("the score table is pruned (or of unknown pruning), so it "
                              "lacks the families of the DAGs outside the set: score the data with prune=False and "
                              "use gobnilp_py.posterior(table).mass_of(the set)")
    opts = {k: scoring_options[k] for k in _PASSED if scoring_options.get(k) is not None}
    if opts.get("palim") == "auto":
        opts.pop("palim")     # safe for the gap: the set is the one without a limit, so the prior is over every DAG
    return PosteriorSource(data=data, options=opts, constraints=constraints)


def sourced(src: PosteriorSource, cs: CredibleSet) -> CredibleSet:
    """``cs`` with its provenance recorded (the drivers' last step)."""
    cs._posterior_source = src
    return cs


def unpruned_families(n: int, palim: int | None) -> int:
    """Families of an unpruned table on ``n`` variables with at most ``palim`` parents."""
    top = n - 1 if palim is None else min(int(palim), n - 1)
    return n * sum(math.comb(n - 1, k) for k in range(top + 1))


def cheap(cs: CredibleSet) -> bool:
    """True when the set's mass is cheap enough to compute without being asked (see the module docstring)."""
    src = cs._posterior_source
    if src is None or src.refusal is not None or src.n is None:
        return False
    n = src.n
    if n > AUTO_MAX_VARIABLES:
        return False
    families = len(src.table) if src.table is not None else unpruned_families(n, src.options.get("palim"))
    return families <= AUTO_MAX_FAMILIES


def _why_not(cs: CredibleSet) -> str | None:
    src = cs._posterior_source
    if src is None:
        return ("the set does not record the data and score it came from (read back from a file, or built by "
                "hand): use gobnilp_py.posterior(data, ...).mass_of(the set)")
    return src.refusal


def set_posterior(cs: CredibleSet, *, time_limit: float | Budget | None = None, memory_limit: int | None = None,
                  exact: bool | None = None) -> Posterior:
    """The posterior over every DAG the set's score, parent limit and constraints allow.

    Raises :class:`ScoreError` (one line) when the set's provenance cannot give the unpruned table, or when
    the time limit stopped scoring it.
    """
    from .posterior import posterior

    why = _why_not(cs)
    if why is not None:
        raise ScoreError(f"no posterior mass for this set: {why}")
    src = cs._posterior_source
    if isinstance(time_limit, Budget):
        budget = time_limit
    else:
        from .._validation import check_time_limit

        budget = Budget(check_time_limit(time_limit))
    table = src.table
    if table is None:
        from .. import scoring

        opts = dict(src.options)
        if budget.limited:
            opts["time_limit"] = budget
        if memory_limit is not None:
            opts["memory_limit"] = memory_limit
        mp = src.constraints.max_parents if src.constraints is not None else None
        if mp is not None and (opts.get("palim") is None or mp < opts["palim"]):
            opts["palim"] = mp
        try:
            table = scoring.score(src.data, prune=False, **opts)
        except ScoreError as exc:
            if "memory" not in str(exc):
                raise
            raise _Stopped(f"scoring the unpruned table the mass needs went over the memory limit ({exc})") from None
        if table.incomplete is not None:
            raise _Stopped("the time limit stopped scoring the unpruned table the mass needs")
    left = budget.remaining()
    if left is not None and left <= 0:
        raise _Stopped("the time limit ran out before the posterior sums")
    return posterior(table, constraints=src.constraints, exact=exact, time_limit=left, memory_limit=memory_limit)


class _Stopped(ScoreError):
    """A limit stopped the work before any bound existed."""


def mass_of_set(cs: CredibleSet, *, time_limit: float | Budget | None = None, memory_limit: int | None = None,
                exact: bool | None = None) -> tuple[PosteriorMass, Posterior | None]:
    """The set's mass (exact, a lower bound, or no value with why) and the posterior it came from.

    A refusal of the provenance raises :class:`ScoreError`; a limit that stops the work returns a mass
    without a value, saying so (labelled, never guessed).
    """
    try:
        post = set_posterior(cs, time_limit=time_limit, memory_limit=memory_limit, exact=exact)
    except _Stopped as exc:
        why = str(exc).removeprefix("no posterior mass for this set: ")
        return PosteriorMass(None, False, 0, "networks", "", why), None
    except MemoryError:
        return PosteriorMass(None, False, 0, "networks", "", "scoring the unpruned table ran out of memory"), None
    return post.mass_of(cs), post


def posterior_step(cs: CredibleSet, *, requested: bool, budget: Budget | None = None,
                   memory_limit: int | None = None) -> str:
    """The posterior step of a command (CLI, config runner) after the set is found; returns the line to show.

    Computes the mass when ``requested`` (``--posterior``, ``[search] posterior = true``) or when
    :func:`cheap`, within what ``budget`` leaves and ``memory_limit``; a refusal of the provenance or a
    stop leaves a mass without a value whose note says why (an explicit request is checked before the
    work: :func:`refusal_before_work`).  Otherwise nothing is computed and the line says so.
    """
    line = _step(cs, requested=requested, budget=budget, memory_limit=memory_limit)
    cs._posterior_line = line
    return line


def _step(cs: CredibleSet, *, requested: bool, budget: Budget | None, memory_limit: int | None) -> str:
    if cs._posterior_mass is None and cs.reason == "interrupted":
        # the user stopped the search: nothing more is started (a run asked for its partial result)
        cs._posterior_mass = PosteriorMass(None, False, 0, "networks", "", "not computed: the search was interrupted")
    if cs._posterior_mass is None:
        if not requested and not cheap(cs):
            why = _why_not(cs)
            if why is not None:
                return f"posterior mass: not available ({why})"
            src = cs._posterior_source
            fams = len(src.table) if src.table is not None else unpruned_families(src.n, src.options.get("palim"))
            return (f"posterior mass: not computed ({src.n} variables, {fams:,} families to sum over: computed "
                    f"without being asked up to {AUTO_MAX_VARIABLES} variables and {AUTO_MAX_FAMILIES:,} families; "
                    "--posterior or [search] posterior = true computes it)")
        try:
            cs.compute_posterior_mass(time_limit=budget, memory_limit=memory_limit)
        except GobnilpError as exc:           # e.g. constraints no DAG satisfies: said, not raised after the work
            cs._posterior_mass = PosteriorMass(None, False, 0, "networks", "",
                                               str(exc).removeprefix("no posterior mass for this set: "))
        except KeyboardInterrupt:
            # Ctrl-C / SIGTERM while the unpruned table was scored (the sums stop by themselves and keep
            # the bound): the set found is still written, labelled, and the command line exits 130 / 143
            # (the signal was recorded by its handler)
            cs._posterior_mass = PosteriorMass(None, False, 0, "networks", "",
                                               "interrupted while scoring the unpruned table the mass needs")
    return mass_line(cs._posterior_mass)


def refusal_before_work(data: Any, table: Any, constraints: Any) -> str | None:
    """Why an explicit request for the mass cannot be met, known before any search (``None``: it can)."""
    if data is None and table is None:
        return None
    return source_for(data, table, {}, constraints).refusal


def edge_comparison(cs: CredibleSet) -> dict[str, Any] | None:
    """The exact edge posteriors beside the set's averages, and the largest difference (``None``: not exact).

    ``{"edge_probabilities": {names, matrix}, "arrow_probabilities": ..., "max_edge_difference":
    {"value", "u", "v", "set", "exact"}, "guarantee"}``: what ``--posterior`` adds.
    """
    post = cs._posterior
    if post is None or not post.exact or not cs.networks:
        return None
    import numpy as np

    exact = post.edge_probabilities()
    avg = cs.edge_probabilities().reindex(index=exact.index, columns=exact.columns)
    diff = np.abs(avg.to_numpy() - exact.to_numpy())
    i, j = np.unravel_index(int(np.argmax(diff)), diff.shape)
    arrows = post.arrow_probabilities()
    names = list(exact.index)
    return {"guarantee": post.guarantee, "log_evidence": post.log_evidence,
            "edge_probabilities": {"names": names, "matrix": exact.to_numpy().tolist()},
            "arrow_probabilities": {"names": names, "matrix": arrows.to_numpy().tolist()},
            "max_edge_difference": {"value": float(diff[i, j]), "u": names[i], "v": names[j],
                                    "set": float(avg.iat[i, j]), "exact": float(exact.iat[i, j])}}
