"""The result of an ε-BNSL or k-best search: a set of networks with their evidence.

A :class:`CredibleSet` holds every network found with score >= OPT - ε (or
the k best), best first, ties in the canonical order of
:attr:`gobnilp_py.network.Network.key`, so two runs on the same input list
the same networks in the same order.  ``complete`` says whether the set is
provably the whole answer; when a network cap or a time limit ended the
search early it is ``False`` and ``reason`` says which.

Model averaging reads the scores as log marginal likelihoods (BDeu) or their
approximation (BIC): network ``G`` gets weight ``exp(score(G) - OPT)``,
normalised over the set, i.e. the posterior under a uniform structure prior
restricted to the credible set.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._tolerance import tolerance_of
from .._wording import UNKNOWN_PREFIX, count, ordinal, pruning_unknown
from ..errors import GobnilpError, ScoreError
from ..network import Network

if TYPE_CHECKING:  # pandas (about 0.15 s to import) is imported by the methods that build frames
    import pandas as pd

__all__ = ["CredibleSet", "shown_epsilon", "REL_TOL", "tolerance_of"]

#: Relative tolerance of "same score" (ties) and of the ε boundary (``docs/enumeration.md``); here, with
#: the result type whose labels use it (:mod:`.results` re-exports it for the drivers).
REL_TOL = 1e-9


def tolerance_of(opt: float) -> float:
    """Absolute tolerance at the optimum ``opt``: ``1e-9 * max(1, |opt|)``."""
    return REL_TOL * max(1.0, abs(opt)) if math.isfinite(opt) else 0.0


def shown_epsilon(gap: float, opt: float) -> float:
    """A gap as written in labels: 0 when within the score tolerance at ``opt`` (a tie's float noise,
    e.g. 9.09e-13), as the CSV writer shows it; the value itself is unchanged where it is used."""
    return 0.0 if math.isfinite(gap) and abs(gap) <= tolerance_of(opt) else gap


@dataclass
class CredibleSet:
    """Networks within a Bayes factor of the optimum (or the k best), best first.

    Attributes
    ----------
    opt : float
        The optimal score OPT (best score over all DAGs allowed by the table
        and constraints); ``nan`` if no network exists.
    epsilon : float
        The score gap: networks with ``score >= opt - epsilon`` are members
        (up to the documented tolerance ``tolerance``).  For k-best, the gap
        of the k-th network.
    complete : bool
        True when the set is provably every member; False when a limit ended
        the search (see ``reason``).
    reason : str or None
        ``None`` when complete; else ``"max_networks"``, ``"time_limit"``, ...
    networks : list of Network
        Best first; ties in canonical (``Network.key``) order.
    tolerance : float
        Absolute slack used at the boundary ``opt - epsilon``.
    near_boundary : int
        Networks found just below the boundary (within the solver margin but
        outside ``tolerance``): excluded, counted for transparency.
    kind : str
        ``"bayes_factor"`` (every network within ε of OPT) or ``"kbest"``.
    method : str or None
        The search method that produced the set (see :mod:`gobnilp_py.solve.methods`).
    threshold : float or None
        For an incomplete set: every network of the task with score ``>=
        threshold`` is listed (``None``: no such guarantee could be certified).
    infeasible : bool
        No network satisfies the structural constraints (an answer, not an error).
    approximate : bool
        Computed from an approximate score table (explored parent sets only):
        optimal and complete *with respect to that table* only.
    caveats : list of str
        Everything else a reader must know to trust the set (for example a
        score table that does not record how it was pruned).
    n_networks_total, n_classes_total : int or None
        The exact number of credible networks and equivalence classes, also
        when the listing was cut at the network cap (class-level collection
        counts every class's members); ``None`` when unknown.
    classes : list of ClassSummary or None
        Class-level collection: every credible class with its member count,
        so model averaging covers the whole credible set, listed or not.
    stats : dict
        Timings, nodes, cuts.
    """

    opt: float
    epsilon: float
    complete: bool
    reason: str | None
    networks: list[Network]
    tolerance: float = 0.0
    near_boundary: int = 0
    kind: str = "bayes_factor"
    stats: dict[str, Any] = field(default_factory=dict)
    method: str | None = None
    threshold: float | None = None
    infeasible: bool = False
    approximate: bool = False
    caveats: list[str] = field(default_factory=list)
    n_networks_total: int | None = None
    n_classes_total: int | None = None
    classes: list[Any] | None = field(default=None, repr=False)
    _mecs: list[Any] | None = field(default=None, init=False, repr=False)
    _columns: tuple[Any, ...] | None = field(default=None, init=False, repr=False)
    #: where the unpruned table of the posterior comes from (:mod:`.set_posterior`), set by the drivers
    _posterior_source: Any = field(default=None, init=False, repr=False, compare=False)
    #: the mass once computed (or read back from a file), and the posterior it came from
    _posterior_mass: Any = field(default=None, init=False, repr=False, compare=False)
    _posterior: Any = field(default=None, init=False, repr=False, compare=False)
    #: what a command's posterior step said (:func:`.set_posterior.posterior_step`), e.g. "not computed (...)"
    _posterior_line: str | None = field(default=None, init=False, repr=False, compare=False)

    # ------------------------------------------------------------- labels
    @property
    def guarantee(self) -> str:
        """One line saying exactly what the set is and what it guarantees (written into every output)."""
        if self.infeasible:
            text = "INFEASIBLE: no network satisfies the structural constraints"
        elif self.kind == "kbest":
            k = self.stats.get("k", len(self.networks))
            unit = "equivalence classes" if self.stats.get("by") == "class" else "networks"
            k_found = self.stats.get("k_found")
            if self.complete and isinstance(k_found, int) and k_found < k:
                text = (f"complete k-best list: all {count(k_found, 'equivalence class' if unit != 'networks' else 'network')} the "
                        f"score table and constraints allow (fewer than k={k}: {count(len(self.networks), 'network')}), "
                        f"i.e. every network with score >= OPT - {self.epsilon:.6g}")
            elif self.complete:
                if self.stats.get("ties", False):
                    text = (f"complete k-best list: the {k} best {unit} and every one tied with the {ordinal(k)} "
                            f"({count(len(self.networks), 'network')}), i.e. every network with score >= OPT - "
                            f"{self.epsilon:.6g}")
                else:
                    text = (f"complete k-best list: the {k} best {unit} (ties at the {ordinal(k)} place broken by "
                            "network key; the list may omit networks tied with the last)")
            elif self.reason == "table_epsilon":
                text = (f"INCOMPLETE (table_epsilon) k-best list: the {k} best {unit} of a score table pruned for a "
                        "smaller gap than the list spans")
                if self.threshold is not None:
                    text += f"; every network of the data scoring >= {_up6(self.threshold)} is listed"
            else:
                text = f"INCOMPLETE ({self.reason}) k-best list: the best {unit} found before the search stopped"
                if self.threshold is not None:
                    text += f"; every network scoring >= {_up6(self.threshold)} among the k best is listed"
            gap = self.stats.get("certified_epsilon")
            if gap is not None and math.isfinite(gap):
                text += (f"; certified gap epsilon_k={shown_epsilon(gap, self.opt):.6g} "
                         "(the k-th best scores >= OPT - epsilon_k)")
        else:
            bf = self.bayes_factor
            what = f"every network with score >= OPT - {self.epsilon:.6g} (Bayes factor {bf:.6g})"
            if self.complete:
                text = f"complete: {what}"
            else:
                text = f"INCOMPLETE ({self.reason}): not {what}"
                if self.threshold is not None and math.isfinite(self.threshold):
                    if math.isfinite(self.opt) and self.threshold > self.opt:
                        # true but empty (no network scores above OPT): said plainly instead
                        text += ("; nothing is certified beyond the networks listed (the search's bound had not "
                                 "come below OPT)")
                    else:
                        text += f"; every such network scoring >= {_up6(self.threshold)} is listed"
                if self.n_networks_total is not None and self.n_classes_total is not None:
                    # class-level collection whose search finished: only the listing was cut
                    k = self.n_classes_total
                    text += (f"; {len(self.networks)} of the {self.n_networks_total} such networks are listed "
                             f"(in {k} equivalence class{'' if k == 1 else 'es'}, all found and counted)")
        if self.approximate and not text.startswith("APPROXIMATE"):
            text = "APPROXIMATE (explored parent sets only); " + text
        elif self.pruning_unknown and not self.infeasible:
            text = UNKNOWN_PREFIX + text
        return text

    @property
    def pruning_unknown(self) -> bool:
        """Computed from a score table that does not record how it was pruned (e.g. GOBNILP's ``.jkl``).

        Then ``complete`` means complete *for that table*: whether the table
        held every family the gap needs is not known, and the guarantee line
        starts with ``UNKNOWN:``.
        """
        return pruning_unknown(self.caveats)

    @property
    def notes(self) -> list[str]:
        """The guarantee line followed by every caveat."""
        return [self.guarantee, *self.caveats]

    # ------------------------------------------------------------------ basics
    @property
    def bayes_factor(self) -> float:
        """exp(epsilon): the Bayes factor the set covers."""
        if self.epsilon != self.epsilon:        # nan: a k-best search stopped before its k-th network
            return math.nan
        return math.exp(self.epsilon) if self.epsilon < 700 else math.inf

    def __len__(self) -> int:
        return len(self.networks)

    def __iter__(self) -> Iterator[Network]:
        return iter(self.networks)

    def __getitem__(self, i: int) -> Network:
        return self.networks[i]

    @property
    def best(self) -> Network | None:
        """The first (best) network, or None for an empty set."""
        return self.networks[0] if self.networks else None

    def _network_columns(self) -> Any:
        """The networks as arrays (:class:`~gobnilp_py.equivalence.columns.NetworkColumns`), built once.

        Why kept here: the classes, the averages and every output of a large set read the same
        parent bitmasks (150,000 networks: about a second to gather); ``None`` where the arrays do
        not apply.  Rebuilt if ``networks`` is replaced or changes length.
        """
        c = self._columns
        if c is None or c[0] is not self.networks or c[1] != len(self.networks):
            from ..equivalence.columns import columns_of

            c = self._columns = (self.networks, len(self.networks), columns_of(self.networks))
        return c[2]

    # ----------------------------------------------------------- posterior mass
    @property
    def posterior_mass(self) -> Any:
        """How much of the posterior over all DAGs the set holds (a :class:`~.posterior.PosteriorMass`).

        Exact, or a lower bound shown "at least" (the sum over orders, past
        exact reach), under the uniform prior over every DAG the set's score,
        parent limit and constraints allow (``docs/posterior.md``).  ``None``
        when no bound is available: :attr:`posterior_mass_note` says why (a
        pruned table given instead of data, constraints that cannot be summed
        over, a limit that stopped the work, ...).

        Computed on first access and kept: the data are scored again without
        pruning and summed over (0.02 s at 12 variables, about a second at 16,
        minutes at 20).  To bound the time or memory it may take, call
        :meth:`compute_posterior_mass` first.  A set read back from a file
        carries the mass it was saved with.
        """
        m = self._posterior_mass
        if m is None:
            try:
                m = self.compute_posterior_mass()
            except GobnilpError as exc:  # the provenance cannot give the table: no bound, and why
                from .mass import PosteriorMass

                m = self._posterior_mass = PosteriorMass(None, False, 0, "networks", "", _strip(str(exc)))
        return m if m.value is not None else None

    @property
    def posterior_mass_note(self) -> str:
        """Why :attr:`posterior_mass` is ``None`` (or what it is relative to); ``""`` before it is computed."""
        m = self._posterior_mass
        return "" if m is None else m.note

    def compute_posterior_mass(self, *, time_limit: Any = None, memory_limit: int | None = None,
                               exact: bool | None = None) -> Any:
        """Compute (again) the set's posterior mass within limits, keep it, and return it.

        Parameters
        ----------
        time_limit : float or Budget, optional
            Seconds for scoring the unpruned table and the sums.  A stop during
            the exact sums leaves the lower bound ("at least"); a stop before the
            bound exists leaves no value (``.value`` is ``None``, ``.note`` says why).
        memory_limit : int, optional
            Bytes for the scoring and the sums (default: the posterior's 4 GiB).
        exact : bool or None
            As for :func:`gobnilp_py.posterior`.

        Returns
        -------
        PosteriorMass
            Whose ``value`` may be ``None`` (no bound, ``note`` says why).

        Raises
        ------
        ScoreError
            The set's provenance cannot give the unpruned table (one line saying why).
        """
        from .._validation import check_memory_limit
        from .set_posterior import mass_of_set

        if memory_limit is not None:
            memory_limit = check_memory_limit(memory_limit)
        m, post = mass_of_set(self, time_limit=time_limit, memory_limit=memory_limit, exact=exact)
        self._posterior_mass, self._posterior = m, post
        return m

    def posterior(self, *, time_limit: Any = None, memory_limit: int | None = None,
                  exact: bool | None = None) -> Any:
        """The :class:`~gobnilp_py.solve.posterior.Posterior` over every DAG the set's provenance allows.

        The one :meth:`compute_posterior_mass` used when it has run (its exact
        edge posteriors sit beside :meth:`edge_probabilities`); otherwise it is
        computed, as there.  Raises :class:`ScoreError` when it cannot be.
        """
        if self._posterior is None:
            self.compute_posterior_mass(time_limit=time_limit, memory_limit=memory_limit, exact=exact)
        if self._posterior is None:
            raise ScoreError(f"no posterior for this set: {self.posterior_mass_note}")
        return self._posterior

    # ----------------------------------------------------- equivalence classes
    def mecs(self) -> list[Any]:
        """Markov equivalence classes of the networks (CPDAG and members), best class first."""
        if self._mecs is None:
            from ..equivalence import group_by_class

            self._mecs = group_by_class(self.networks, validate=False, columns=self._network_columns())
        return self._mecs

    @property
    def n_mecs(self) -> int:
        """Number of Markov equivalence classes among the networks.

        When class-level collection listed every credible network this is its
        exact class count (no grouping needed); otherwise the listed networks
        are grouped by class.
        """
        if (self.n_classes_total is not None and self.n_networks_total is not None
                and self.n_networks_total == len(self.networks)):
            return self.n_classes_total
        return len(self.mecs())

    def count_line(self) -> str:
        """How many networks and classes, in words, saying what a cut listing leaves out.

        ``"6390 networks in 24 equivalence classes"``; a listing cut at
        ``max_networks`` after a finished class search: ``"150000 of 432624
        networks listed (46 equivalence classes, all found and counted)"``; an
        incomplete search: the classes among the listed networks, said so.
        """
        from .._wording import count

        n = len(self.networks)
        total, k = self.n_networks_total, self.n_classes_total
        if total is not None and k is not None and total != n:
            return (f"{n} of {count(total, 'network')} listed "
                    f"({count(k, 'equivalence class')}, all found and counted)")
        line = f"{count(n, 'network')} in {count(self.n_mecs, 'equivalence class')}"
        if not self.complete and not (total is not None and total == n):
            line += " (among those listed)"
        return line

    # ----------------------------------------------------------- averaging
    @property
    def averages_over(self) -> str:
        """What the model averages cover: ``"all credible networks"`` or ``"the listed networks"``."""
        return "all credible networks" if self._class_average() else "the listed networks"

    def _class_average(self) -> bool:
        return bool(self.classes) and all(c.n_members is not None for c in self.classes) and self.kind != "kbest"

    def edge_probabilities(self) -> pd.DataFrame:
        """P(u and v adjacent): networks weighted by exp(score - OPT), normalised over the set.

        After class-level collection the average covers every credible network,
        listed or not (each class contributes its exact member count); otherwise
        the listed networks (see :attr:`averages_over`).
        """
        if self._class_average():
            return self._class_probabilities(arrows=False)
        from ..equivalence import edge_probabilities

        return edge_probabilities(self.networks, opt=self._weight_opt(), columns=self._network_columns())

    def arrow_probabilities(self) -> pd.DataFrame:
        """P(u -> v) (row u, column v), weighted as :meth:`edge_probabilities`."""
        if self._class_average():
            return self._class_probabilities(arrows=True)
        from ..equivalence import arrow_probabilities

        return arrow_probabilities(self.networks, opt=self._weight_opt(), columns=self._network_columns())

    def _class_probabilities(self, *, arrows: bool) -> pd.DataFrame:
        """Exact averages over every credible network from the class summaries, without listing members.

        Each class is a :class:`~gobnilp_py.equivalence.ClassWeight` (its exact
        member count and per-arrow member counts), averaged by
        :func:`~gobnilp_py.equivalence.class_arrow_probabilities` /
        :func:`~gobnilp_py.equivalence.class_edge_probabilities`: a class weighs
        ``n_members * exp(score - OPT)``, taken in log space
        (``log n_members + score``, ``math.log`` of the exact int), and an arrow
        ``count / n_members`` of its class (an int ratio, correctly rounded), so
        a class of ``25!`` or ``200!`` members neither overflows nor loses
        precision.  Classes with no member that counts carry no weight.
        """
        from ..equivalence import ClassWeight, class_arrow_probabilities, class_edge_probabilities
        from .classes import arrow_counts

        weights = [ClassWeight(c.cpdag, float(c.score), int(c.n_members), arrow_counts(c))
                   for c in self.classes if c.n_members]
        if not weights:  # nothing counts: no average (all zero), as over an empty list
            names = list(self.classes[0].cpdag.names)
            n = len(names)
            import numpy as np
            import pandas as pd

            idx = ("parent", "child") if arrows else ("u", "v")
            return pd.DataFrame(np.zeros((n, n)), index=pd.Index(names, name=idx[0]),
                                columns=pd.Index(names, name=idx[1]))
        opt = self.opt if math.isfinite(self.opt) else None
        if arrows:
            return class_arrow_probabilities(weights, opt=opt)
        return class_edge_probabilities(weights, opt=opt)

    def _weight_opt(self) -> float | None:
        return self.opt if self.networks and math.isfinite(self.opt) else None

    # ------------------------------------------------------------- exports
    def to_dataframe(self) -> pd.DataFrame:
        """One row per network: rank, score, gap to OPT, Bayes factor, class, model string."""
        cols = self._network_columns()
        if cols is not None:  # the same frame from the arrays (150,000 networks: seconds, not minutes)
            from ..equivalence.columns import collection_frame

            class_of = self._class_index()
            return collection_frame(cols, self.opt, [class_of.get(id(net)) for net in self.networks])
        rows = []
        class_of = self._class_index()
        for rank, net in enumerate(self.networks, 1):
            gap = self.opt - net.score
            rows.append({
                "rank": rank,
                "score": net.score,
                "gap": gap,
                "bayes_factor": math.exp(gap) if gap < 700 else math.inf,
                "mec": class_of.get(id(net)),
                "n_edges": net.n_edges,
                "model": net.to_modelstring(),
            })
        import pandas as pd

        return pd.DataFrame(rows, columns=["rank", "score", "gap", "bayes_factor", "mec", "n_edges", "model"])

    def _class_index(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for ci, cls in enumerate(self.mecs()):
            for net in cls.members:
                out[id(net)] = ci
        return out

    def to_dict(self, *, networks: bool = True) -> dict[str, Any]:
        """JSON-able summary (and, by default, every network's score and parents); read back by :meth:`from_dict`."""
        from .codec import credible_set_to_dict

        return credible_set_to_dict(self, networks=networks)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "CredibleSet":
        """Inverse of :meth:`to_dict` (the result codec, :func:`gobnilp_py.solve.codec.credible_set_from_dict`)."""
        from .codec import credible_set_from_dict

        return credible_set_from_dict(d, make=cls)

    @classmethod
    def from_json(cls, path: Any) -> "CredibleSet":
        """A saved set: a run's ``result.json`` (or its folder), a ``summary.json``, or a ``to_dict()`` file."""
        from ..errors import DataError
        from .codec import load_result

        out = load_result(path, make=cls)
        if not isinstance(out, cls):
            raise DataError(f"{path} holds a single network (a learn job's result), not a credible set; "
                            "use gobnilp_py.load_result")
        return out

    # ------------------------------------------------------- notebook and consensus
    def _repr_html_(self) -> str:
        """The set as Jupyter shows it: the guarantee line, counts, best networks, classes, edge probabilities.

        See :func:`gobnilp_py.drawing.notebook.credible_html`; an incomplete or
        approximate set says so in its first line, in the words of :attr:`guarantee`.  The
        posterior mass follows it, computed here when it is cheap (as the command line does,
        :func:`~gobnilp_py.solve.set_posterior.cheap`), else said to be not computed yet.
        """
        from ..drawing.notebook import credible_html
        from .labels import posterior_mass_line
        from .set_posterior import cheap

        src = self._posterior_source
        if self._posterior_mass is None and (cheap(self) or src is None or src.refusal is not None):
            self.posterior_mass  # noqa: B018 - computed and kept, or refused at once (the note says why)
        line = posterior_mass_line(self)
        if line is None and not self.infeasible and len(self):
            line = "posterior mass: not computed yet (read cs.posterior_mass to compute it)"
        return credible_html(self, mass_line=line)

    def consensus(self, threshold: float = 0.5, *, on: str = "arrows") -> Any:
        """The consensus network: the arrows (``on="edges"``: the adjacencies) with probability >= ``threshold``.

        Arrows are added in decreasing probability and one that would close a
        directed cycle is skipped (``on="edges"``: turned round), and reported;
        see :mod:`gobnilp_py.equivalence.consensus` for the rules.  Returns a
        :class:`~gobnilp_py.equivalence.consensus.ConsensusNetwork` (a
        :class:`~gobnilp_py.network.Network` without a score) holding the
        probability of each arrow kept; its guarantee starts with this set's
        label, so the consensus of an incomplete or approximate set says so.

        Raises
        ------
        DataError
            The set holds no network.
        ParameterError
            ``threshold`` outside ``(0, 1]``, or ``on`` not ``"arrows"``/``"edges"``.
        """
        from ..equivalence.consensus import consensus_network
        from ..errors import DataError

        if not self.networks:
            raise DataError("consensus: the set holds no network, so there is nothing to average")
        return consensus_network(self.arrow_probabilities(), threshold, on=on, edges=self.edge_probabilities(),
                                 source=self)

    def __repr__(self) -> str:
        if self.infeasible:
            state = "INFEASIBLE"
        else:
            state = "complete" if self.complete else f"INCOMPLETE ({self.reason})"
        if self.kind == "kbest":
            state = "k-best list, " + state
        if self.approximate:
            state = "APPROXIMATE, " + state
        return (f"CredibleSet({len(self.networks)} networks, opt={self.opt:.6f}, "
                f"epsilon={self.epsilon:.6g}, {state})")


def _strip(message: str) -> str:
    """A refusal as a note: without the "no posterior mass for this set: " it starts with."""
    return message.removeprefix("no posterior mass for this set: ")


def _up6(t: float) -> str:
    """``t`` with 6 decimals, rounded *up*: a threshold shown rounded down would claim more than is certified.

    (A threshold just above a class's score, ``score + tol``, printed to the nearest
    6 decimals would read as the score itself, whose members are not all listed.)
    """
    return f"{math.ceil(t * 1e6) / 1e6:.6f}"
