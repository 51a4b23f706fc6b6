"""How much of the posterior an answer holds: exact evidence, edge and arrow posteriors, and set masses.

:func:`posterior` scores the data with *no* pruning (every parent set up to
``palim``), or takes a table, applies the structural constraints that are
restrictions on single families, and runs the exact sums of
:mod:`gobnilp_py.search.posterior_sums` (Tian and He's DAG-modular sums) under a
uniform prior over the DAGs the table and constraints allow.  The
:class:`Posterior` it returns gives the log evidence, exact edge and arrow
posteriors, and :meth:`Posterior.mass_of`: the posterior mass of a
:class:`~gobnilp_py.solve.credible.CredibleSet` (its listed networks, or every
member of its classes, counted but not listed) or of any networks.

What each number means, and what a table's provenance permits
(``docs/posterior.md``):

* ``exp(score(G))`` is ``P(D | G)`` for BDeu (a marginal likelihood) and only
  approximates it for BIC; the prior is uniform over the DAGs allowed, so
  ``P(G | D) = exp(score(G)) / exp(log_evidence)``.
* An **unpruned** table (scored with ``prune=False``; a parent limit is part of
  the prior) gives the posterior over every DAG with that parent limit: the
  numbers are exact.
* A **pruned** table (ε-safe, of unknown provenance, approximate, or with
  isolated constants) lacks families, so its sums run over the DAGs the pruning
  kept: its ``log_evidence`` is a *lower* bound on the unpruned table's, and
  its probabilities and masses are relative to the kept DAGs, a prior chosen
  from the data.  No pruning rule of the package bounds
  the mass it drops usefully (a dropped family is only known to score below a
  kept subset by ε, and there can be ``2^(n-1)`` of them), so no pruned table
  qualifies for the posterior over all DAGs; the results say so.
* Past exact reach (memory, size, a time limit), the sum over orders bounds
  the evidence from above, so a set's mass is given as a lower bound,
  "at least"; edge and arrow posteriors are then refused.  Beyond that: no
  bound is available, and none is guessed.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .._interrupt import interruptible
from .._memory import format_bytes
from .._validation import READ_OPTIONS, check_choice, check_memory_limit, check_time_limit
from ..constraints.structural import FILTER_KINDS, InfeasibleConstraints, StructuralConstraints
from ..errors import ConstraintError, ParameterError, ScoreError
from ..network import Network
from ..scoring.table import ScoreTable
from .inputs import as_constraints, check_scoring_options, is_table_input, load_table
from .mass import PosteriorMass

if TYPE_CHECKING:  # pandas is imported by the methods that build frames
    import pandas as pd

    from ..search.posterior_sums import PosteriorSums
    from .credible import CredibleSet

__all__ = ["posterior", "Posterior", "PosteriorMass", "SUPPORTED_CONSTRAINTS"]

#: The constraint kinds the posterior honours exactly: each is a restriction on single families, so
#: filtering the table leaves exactly the DAGs that satisfy them (:data:`FILTER_KINDS`).
SUPPORTED_CONSTRAINTS = FILTER_KINDS

#: Scoring options :func:`posterior` passes on besides ``score``, ``ess`` and ``palim`` (how the
#: scorer runs, never what it keeps).
_RUN_OPTIONS = ("n_jobs", "backend", "scheduler", "max_candidates")
#: The Gaussian scores' hyperparameters (BGe's), passed on to the scorer with a Gaussian score.
_GAUSSIAN_OPTIONS = ("alpha_mu", "alpha_w", "nu")

#: Relative tolerance between a network's stated score and its score recomputed from the table.
_SCORE_RTOL = 1e-9


class Posterior:
    """The posterior over the DAGs a score table (and constraints) allow, under a uniform prior.

    Built by :func:`posterior`.  Every number is exact for :attr:`scope`
    unless :attr:`kind` says otherwise (see :attr:`guarantee`).

    Attributes
    ----------
    names : tuple of str
    table : ScoreTable
        The table summed over (filtered by the constraints).
    kind : str
        ``"exact"``, ``"bound"`` (sum over orders only) or ``"none"``.
    scope : str
        What the prior is uniform over, in words.
    over_all_dags : bool
        True when the table is unpruned, so the sums cover every DAG up to
        its parent limit (and the constraints); False for a pruned table.
    reason : str or None
        Why not exact (``"memory"``, ``"size"``, ``"time_limit"``,
        ``"interrupted"``, ``"precision"``, ``"requested"``).
    caveats : list of str
    stats : dict
    """

    def __init__(self, table: ScoreTable, sums: PosteriorSums, *, scope: str, over_all_dags: bool,
                 caveats: list[str], stats: dict[str, Any]) -> None:
        self.table = table
        self.names = tuple(table.names)
        self._sums = sums
        self.kind = {"exact": "exact", "order_bound": "bound"}.get(sums.kind, "none")
        self.reason = sums.reason
        self.scope = scope
        self.over_all_dags = over_all_dags
        self.caveats = list(caveats)
        self.stats = {**stats, **sums.stats}
        self._lookup: list[dict[int, float]] | None = None

    # ------------------------------------------------------------ numbers
    @property
    def exact(self) -> bool:
        """True when the exact DAG sums were completed."""
        return self.kind == "exact"

    @property
    def complete(self) -> bool:
        """False when a time limit or Ctrl-C cut the exact sums short."""
        return self.reason not in ("time_limit", "interrupted")

    @property
    def log_evidence(self) -> float | None:
        """``log sum_G exp(score(G))`` over every DAG of :attr:`scope` (``None`` unless exact).

        With BDeu, ``exp(log_evidence) / (number of DAGs allowed)`` is the
        marginal likelihood ``P(D)``; for a pruned table it is a lower bound
        on the unpruned table's (see :attr:`guarantee`).
        """
        return self._sums.log_z if self.exact else None

    @property
    def log_evidence_upper(self) -> float | None:
        """The sum over orders (Koivisto and Sood): ``log_evidence`` is at most this (``None``: not computed)."""
        return self._sums.log_order_sum

    @property
    def error_bound(self) -> float | None:
        """First-order bound on the absolute error of :attr:`log_evidence` (``docs/posterior.md``)."""
        return self._sums.error_bound

    @property
    def check_error(self) -> float | None:
        """Largest ``|log sum_P P(Pa_v = P)|`` over the variables: the arrow sums' consistency check."""
        return self._sums.check_error

    @property
    def guarantee(self) -> str:
        """One line saying what the numbers are."""
        s = self._sums
        if self.kind == "exact":
            if s.log_z is None or not s.log_z > -math.inf:
                return f"INFEASIBLE: no DAG is allowed by the score table{self._and_constraints()}"
            if self.over_all_dags:
                return (f"exact: posterior over {self.scope} (uniform prior); log evidence {s.log_z:.6f} "
                        f"(error at most {s.error_bound:.1e})")
            return (f"exact for this table only: posterior over {self.scope}; log evidence at least "
                    f"{s.log_z:.6f} (a lower bound on the unpruned table's); probabilities and masses are "
                    "relative to the DAGs the pruning kept")
        why = _why(self.reason, self.stats)
        if self.kind == "bound":
            return (f"BOUND (sum over orders): the exact DAG sums were not computed ({why}); log evidence at most "
                    f"{s.log_order_sum:.6f}; set masses are lower bounds (at least); no edge or arrow posteriors")
        return f"NO BOUND: neither the exact DAG sums nor the sum over orders could be computed ({why})"

    @property
    def notes(self) -> list[str]:
        """The guarantee line followed by every caveat."""
        return [self.guarantee, *self.caveats]

    def _and_constraints(self) -> str:
        return " and constraints" if self.stats.get("constraints") else ""

    # ---------------------------------------------------------- features
    def arrow_probabilities(self) -> pd.DataFrame:
        """P(u -> v) (row ``u`` = parent, column ``v`` = child), exact under the uniform prior of :attr:`scope`."""
        import pandas as pd

        a = self._probabilities("arrow")
        return pd.DataFrame(a, index=pd.Index(self.names, name="parent"), columns=pd.Index(self.names, name="child"))

    def edge_probabilities(self) -> pd.DataFrame:
        """P(u and v adjacent), either direction (symmetric), exact under the uniform prior of :attr:`scope`."""
        import numpy as np
        import pandas as pd

        a = self._probabilities("edge")
        e = np.minimum(a + a.T, 1.0)             # a DAG never holds both u -> v and v -> u
        return pd.DataFrame(e, index=pd.Index(self.names, name="u"), columns=pd.Index(self.names, name="v"))

    def _probabilities(self, what: str) -> Any:
        if not self.exact:
            raise ScoreError(f"{what} posteriors need the exact DAG sums, which were not computed "
                             f"({_why(self.reason, self.stats)})")
        if not self._sums.log_z > -math.inf:  # type: ignore[operator]
            raise ScoreError(f"no DAG is allowed by the score table{self._and_constraints()}: no {what} posteriors")
        return self._sums.arrow_probabilities()

    # ---------------------------------------------------------- masses
    def log_weight(self, network: Network | Mapping[str, Iterable[str]]) -> float:
        """``score(G)`` recomputed from :attr:`table` (``math.fsum`` of the local scores).

        Raises :class:`ScoreError` when a family of the network is not in the
        table (outside the posterior's DAGs: another parent limit, constraints).
        """
        masks = self._masks(network)
        look = self._families()
        out = []
        for v, m in enumerate(masks):
            sc = look[v].get(m)
            if sc is None:
                fam = ",".join(self.names[p] for p in range(self.table.n) if m >> p & 1)
                raise ScoreError(f"the family {self.names[v]}<-{{{fam}}} is not in the posterior's table (a "
                                 "parent limit or constraints exclude it): the networks and the posterior must come "
                                 "from the same data, score, parent limit and constraints")
            out.append(sc)
        return math.fsum(out)

    def probability(self, network: Network | Mapping[str, Iterable[str]]) -> float:
        """P(G | D) of one network (exact sums only)."""
        m = self.mass_of([network])
        if not m.exact:
            raise ScoreError(f"the probability of a network needs the exact DAG sums ({_why(self.reason, self.stats)})")
        return float(m)

    def mass_of(self, networks: Any) -> PosteriorMass:
        """The posterior mass of a set of DAGs: a CredibleSet, one network, or an iterable of networks.

        A :class:`~gobnilp_py.solve.credible.CredibleSet` from class-level
        collection counts every member of its classes, listed or not (each
        weighs ``n_members * exp(score)``; members are checked to lie among the
        posterior's DAGs); otherwise its listed networks.  Each network's score
        is recomputed from the posterior's table and must match the one it
        carries (to 1e-9 relative): a set from other data or another score is
        refused in one line, as is one with a family outside the table.
        Duplicates count once.  Exact when :attr:`kind` is ``"exact"``; a
        lower bound ("at least") from the sum over orders when it is
        ``"bound"``; no value when ``"none"``.
        """
        if _is_credible_set(networks):
            from .posterior_mass import credible_set_terms

            logs, count, covers, note = credible_set_terms(self, networks)
        else:
            if isinstance(networks, (Network, Mapping)):
                items = [networks]
            elif isinstance(networks, Iterable) and not isinstance(networks, (str, bytes)):
                items = list(networks)
            else:
                raise ParameterError(f"expected a CredibleSet, a Network, a mapping of child to parents, or a list of "
                                     f"these, got {type(networks).__name__}")
            logs, seen = [], set()
            for i, net in enumerate(items):
                key = tuple(self._masks(net))
                if key in seen:
                    continue
                seen.add(key)
                logs.append(self._checked_weight(net, f"network {i + 1}"))
            count, covers, note = len(logs), "networks", ""
        return self._mass(logs, count, covers, note)

    def _checked_weight(self, net: Any, what: str) -> float:
        w = self.log_weight(net)
        stated = getattr(net, "score", None)
        if isinstance(stated, float) and math.isfinite(stated) and not math.isclose(
                w, stated, rel_tol=_SCORE_RTOL, abs_tol=_SCORE_RTOL):
            raise ScoreError(f"{what} scores {stated:.10g} but {w:.10g} by the posterior's table: the set and the "
                             "posterior must come from the same data and score")
        return w

    def _mass(self, logs: list[float], count: int, covers: str, note: str) -> PosteriorMass:
        scope = self.scope
        if not self.over_all_dags:
            note = (note + "; " if note else "") + "relative to the DAGs the pruned table holds"
        if self.kind == "none":
            return PosteriorMass(None, False, count, covers, scope, _why(self.reason, self.stats))
        s = self._sums
        denom = s.log_z if self.exact else s.log_order_sum
        if denom is None or not denom > -math.inf:
            if logs:
                raise ScoreError("the posterior's table allows no DAG, yet the set holds networks")
            return PosteriorMass(0.0, self.exact, 0, covers, scope, note)
        if not logs:
            return PosteriorMass(0.0, self.exact, 0, covers, scope, note)
        m = max(logs)
        total = m + math.log(math.fsum(math.exp(x - m) for x in logs))
        value = math.exp(total - denom)
        if value > 1.0:
            slack = (s.error_bound or 0.0) + 1e-12
            if value > 1.0 + 4 * slack + 1e-9:
                raise ScoreError(f"the set's mass came out {value:.12g} > 1: it holds DAGs outside the posterior's "
                                 "(a bug, or a table changed in place)")
            value = 1.0
        if not self.exact:
            note = (note + "; " if note else "") + "over the sum over orders, which counts each DAG once per order"
        return PosteriorMass(value, self.exact, count, covers, scope, note)

    def _families(self) -> list[dict[int, float]]:
        if self._lookup is None:
            self._lookup = [{sum(1 << p for p in ps): sc for ps, sc in fams} for fams in self.table.families]
        return self._lookup

    def _masks(self, network: Any) -> list[int]:
        """Parent bitmasks (in the posterior's variable order) of a Network or a child -> parents mapping."""
        index = {v: i for i, v in enumerate(self.names)}
        if isinstance(network, Network):
            if set(network.names) != set(self.names):
                raise ScoreError(f"the network's variables ({', '.join(network.names[:6])}...) are not the "
                                 f"posterior's ({', '.join(self.names[:6])}...)")
            parents = network.parents
        elif isinstance(network, Mapping):
            parents = {str(k): tuple(str(p) for p in v) for k, v in network.items()}
            unknown = [v for v in parents if v not in index] + [p for ps in parents.values() for p in ps
                                                                if p not in index]
            if unknown:
                raise ScoreError(f"unknown variable {unknown[0]!r}; the posterior's variables: {', '.join(self.names)}")
            Network(self.names, parents, score=math.nan)          # checks cycles and self-loops
        else:
            raise ParameterError(f"expected a Network, a mapping of child to parents, or a CredibleSet, got "
                                 f"{type(network).__name__}")
        masks = [0] * len(self.names)
        for child, ps in parents.items():
            masks[index[child]] = sum(1 << index[p] for p in ps)
        return masks

    # ------------------------------------------------------------ output
    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary (no frames)."""
        from .._json import jsonable

        s = self._sums
        return jsonable({"kind": self.kind, "guarantee": self.guarantee, "caveats": self.caveats,
                         "scope": self.scope, "over_all_dags": self.over_all_dags, "reason": self.reason,
                         "log_evidence": self.log_evidence, "log_evidence_upper": s.log_order_sum,
                         "error_bound": s.error_bound, "check_error": s.check_error, "stats": self.stats})

    def __repr__(self) -> str:
        le = self.log_evidence
        shown = f"log_evidence={le:.6f}" if le is not None else (
            f"log_evidence<={self.log_evidence_upper:.6f}" if self.log_evidence_upper is not None else "no bound")
        return f"Posterior({len(self.names)} variables, {self.kind}, {shown})"


def _is_credible_set(x: Any) -> bool:
    """A :class:`~gobnilp_py.solve.credible.CredibleSet`, told by what it carries (the credible set imports
    this module's caller, :mod:`.set_posterior`, so this module does not import it back)."""
    return hasattr(x, "networks") and hasattr(x, "classes") and hasattr(x, "averages_over")


def _why(reason: str | None, stats: Mapping[str, Any]) -> str:
    """Why the exact sums are missing, in words."""
    if reason == "memory":
        need = stats.get("memory_estimate_exact")
        cap = stats.get("memory_cap")
        if need is not None and cap is not None:
            return f"they need about {format_bytes(need)}, over the {format_bytes(cap)} allowed"
        return "they do not fit in memory"
    if reason == "size":
        return "too many variables"
    if reason == "time_limit":
        return "the time limit stopped them"
    if reason == "interrupted":
        return "interrupted"
    if reason == "precision":
        return "an inclusion-exclusion sum lost every digit of float64"
    if reason == "requested":
        return "exact=False"
    return str(reason)


# ---------------------------------------------------------------------------------------------- the function
def posterior(data_or_table: Any, *, score: Any = None, ess: float | None = None, palim: int | None = None,
              prior: str = "uniform", constraints: Any = None, exact: bool | None = None,
              time_limit: float | None = None, memory_limit: int | None = None, **options: Any) -> Posterior:
    """The posterior over DAGs under a uniform prior: exact evidence, edge and arrow posteriors, set masses.

    Parameters
    ----------
    data_or_table : Dataset, path, DataFrame, array, ScoreTable or .jkl path
        Data are scored with *no* pruning (every parent set up to ``palim``),
        which the exact posterior needs.  A table is used as it is; its
        provenance decides what the numbers mean (:attr:`Posterior.guarantee`):
        an unpruned table gives the posterior over all DAGs up to its parent
        limit, a pruned one only over the DAGs it holds.
    score, ess, palim :
        As for :func:`gobnilp_py.score` (data only; default ``"BIC"``, no parent
        limit).  The parent limit is part of the prior: the posterior is over
        the DAGs with at most ``palim`` parents per variable.
    prior : str
        ``"uniform"`` (over the DAGs the table and constraints allow), the only one.
    constraints : StructuralConstraints, mapping or path, optional
        Kinds that restrict single families (required and forbidden arrows,
        forbidden adjacencies, tiers, parent limits) are honoured exactly; the
        others are refused in one line.
    exact : bool or None
        ``None``: the exact sums where they fit (memory, numba), else the bound;
        ``True``: the exact sums or an error naming the memory needed;
        ``False``: the sum over orders only.
    time_limit : float, optional
        Seconds for the posterior sums (scoring is not counted).  When it
        stops the exact sums, the sum over orders (computed first) stands.
    memory_limit : int, optional
        Bytes the posterior arrays may take (default 4 GiB), checked before they are allocated.
    **options
        Data options of :func:`gobnilp_py.read_data` (``header``, ``delimiter``,
        ``arities``, ``names``) and how the scorer runs (``n_jobs``, ``backend``, ``scheduler``).

    Returns
    -------
    Posterior

    Examples
    --------
    >>> import gobnilp_py
    >>> post = gobnilp_py.posterior(gobnilp_py.example_path("asia"), score="BDeu", palim=2)  # doctest: +SKIP
    >>> post.edge_probabilities().loc["either", "xray"]  # doctest: +SKIP
    """
    t_start = time.perf_counter()
    check_choice(prior, "prior", ("uniform",))
    if exact is not None and not isinstance(exact, bool):
        raise ParameterError(f"must be True, False or None, got {exact!r}", "exact")
    time_limit = check_time_limit(time_limit)
    memory_limit = check_memory_limit(memory_limit)
    cons = as_constraints(constraints)
    caveats: list[str] = []
    table, given = _table(data_or_table, score=score, ess=ess, palim=palim, constraints=cons, options=options)
    t_scored = time.perf_counter()
    over_all = table.is_unpruned
    if not over_all:
        caveats.append(_pruned_caveat(table))
    if cons is not None:
        table = _filter(table, cons)
    scope = _scope(table, over_all, cons)
    from ..search.posterior_sums import posterior_sums

    stop = threading.Event()
    with interruptible(stop.set):
        sums = posterior_sums(table, exact=exact, time_limit=time_limit, memory_budget=memory_limit, stop=stop)
    stats = {"time_scoring": t_scored - t_start if not given else 0.0,
             "time_posterior": time.perf_counter() - t_scored, "n_families": len(table),
             "score": table.score_name, "constraints": None if cons is None else cons.to_dict()}
    return Posterior(table, sums, scope=scope, over_all_dags=over_all, caveats=caveats, stats=stats)


def _table(data_or_table: Any, *, score: Any, ess: Any, palim: Any, constraints: StructuralConstraints | None,
           options: Mapping[str, Any]) -> tuple[ScoreTable, bool]:
    """The table to sum over (unfiltered) and whether it was given."""
    unknown = sorted(k for k in options if k not in READ_OPTIONS + _RUN_OPTIONS + _GAUSSIAN_OPTIONS)
    if unknown:
        if any(k in ("prune", "epsilon", "bayes_factor", "lower_bound") for k in unknown):
            raise ParameterError(f"posterior needs every parent set, so {', '.join(unknown)} cannot apply: the data are "
                                 "scored without pruning")
        raise ParameterError(f"posterior() got unknown keyword(s) {', '.join(unknown)}")
    if is_table_input(data_or_table):
        given = {k: v for k, v in (("score", score), ("ess", ess), ("palim", palim)) if v is not None}
        given.update(options)
        if given:
            raise ParameterError(f"options {sorted(given)} need data, not a score table (it is already scored)")
        table = load_table(data_or_table)
        if constraints is not None:
            constraints.validate(table.names)
            _check_kinds(constraints)
        return table, True
    from .. import scoring
    from ..data.reader import as_dataset
    from ..scoring.local_scores import is_gaussian_score

    if palim == "auto":
        raise ParameterError('palim="auto" depends on a gap ε, which the posterior does not have; give a number or None',
                             None)
    if constraints is not None and constraints.max_parents is not None and (
            palim is None or (isinstance(palim, int) and constraints.max_parents < palim)):
        palim = constraints.max_parents          # families beyond it would only be filtered out
    if is_gaussian_score(score):
        # continuous data: the Gaussian scorer reads them (and checks its own options, ess refused)
        table = scoring.score(data_or_table, score=score, palim=palim, prune=False,
                              **({} if ess is None else {"ess": ess}), **options)
        if constraints is not None:
            constraints.validate(table.names)
            _check_kinds(constraints)
        return table, False
    read = {k: options[k] for k in READ_OPTIONS if k in options}
    run = {k: options[k] for k in _RUN_OPTIONS if k in options}
    gauss = {k: options[k] for k in _GAUSSIAN_OPTIONS if k in options}   # refused here, naming the score
    opts = check_scoring_options({"score": "BIC" if score is None else score, "palim": palim, **run, **gauss,
                                  **({} if ess is None else {"ess": ess})})
    data = as_dataset(data_or_table, read)
    if constraints is not None:
        constraints.validate(data.names)
        _check_kinds(constraints)
    return scoring.score(data, prune=False, **opts), False


def _check_kinds(constraints: StructuralConstraints) -> None:
    bad = sorted(constraints.kinds() - SUPPORTED_CONSTRAINTS)
    if bad:
        raise ConstraintError(f"the posterior honours only constraints on single families "
                              f"({', '.join(sorted(SUPPORTED_CONSTRAINTS))}); {', '.join(bad)} cannot be summed "
                              "over exactly")


def _filter(table: ScoreTable, constraints: StructuralConstraints) -> ScoreTable:
    try:
        return constraints.filter_table(table)
    except InfeasibleConstraints as exc:
        raise InfeasibleConstraints(f"no DAG satisfies the constraints: {exc}") from None


def _scope(table: ScoreTable, over_all: bool, constraints: StructuralConstraints | None) -> str:
    """The DAGs the prior is uniform over, in words."""
    n = table.n
    if not over_all:
        what = f"the DAGs on {n} variables whose families are all in this pruned score table"
    else:
        palim = table.meta.get("palim")
        limit = f" with at most {palim} parents per variable" if isinstance(palim, int) and palim < n - 1 else ""
        what = f"every DAG on {n} variables{limit}"
    if constraints is not None and not constraints.is_empty():
        what += " satisfying the constraints"
    return what


def _pruned_caveat(table: ScoreTable) -> str:
    kind = table._guarantee_kind()
    how = {"epsilon-safe": f"pruned for a gap of {table.epsilon:.6g}" if table.epsilon is not None else "pruned",
           "unknown": "of unknown pruning (it does not record how it was pruned)",
           "approximate": "approximate (explored parent sets only)",
           "optimum": "made for an optimum only (constant variables isolated)"}.get(kind, "pruned")
    return (f"the score table is {how}: the posterior runs over the DAGs it holds, not over all DAGs; score the "
            "data with prune=False (or call posterior on the data) for the posterior over all DAGs")
