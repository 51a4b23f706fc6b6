"""Hand-off to other tools: fitted CPTs, BIF files, pgmpy models, bnlearn arc strengths, adjacency matrices.

Structure learning ends where parameter learning and inference begin; this
module turns a learned :class:`~gobnilp_py.network.Network` (and the data it
was learned from) into what the usual next tools read:

* :func:`fit_cpts`: conditional probability tables from counts, with
  maximum likelihood or a Dirichlet prior (BDeu, K2 or a constant pseudo
  count).  For a child with ``r`` states and parent configuration ``j``
  (``q`` of them) and counts ``N_jk``, the posterior-mean estimate is

  .. math:: \\hat\\theta_{jk} = \\frac{N_{jk} + \\alpha_{jk}}{N_{j} + \\sum_k \\alpha_{jk}},

  with ``α = ess / (r q)`` for BDeu (Heckerman, Geiger & Chickering 1995),
  ``α = 1`` for K2 (Cooper & Herskovits 1992) and ``α = pseudo_count`` for
  ``"dirichlet"``; maximum likelihood is ``α = 0``, with a uniform column
  for a parent configuration never seen (``N_j = 0``), as pgmpy does.  Arities
  are the declared ones, so unobserved states get their share of the prior.
  These are exactly pgmpy's ``DiscreteBayesianEstimator`` /
  ``DiscreteMLE`` estimates, which the tests check to 1e-9.
* :func:`to_bif`: the network with its CPTs in the Bayesian Interchange
  Format (read by pgmpy's ``BIFReader``, bnlearn's ``read.bif``, GeNIe,
  Hugin...), written without pgmpy.
* :func:`to_pgmpy`: a pgmpy ``DiscreteBayesianNetwork`` (``BayesianNetwork``
  in older pgmpy) with CPTs fitted by pgmpy's own estimators.  pgmpy is an
  optional dependency (``pip install gobnilp-py[pgmpy]``).
* :func:`arc_strength`: the model-averaged arc strengths of a collection in
  the shape of bnlearn's ``custom.strength`` / ``boot.strength`` (columns
  ``from, to, strength, direction``), which ``averaged.network`` reads.
* :func:`adjacency_matrix`: the 0/1 matrix ``A[u, v] = 1`` iff ``u -> v``
  (bnlearn's ``amat`` convention).
"""

from __future__ import annotations

import itertools
import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .errors import ConfigError, DataError, GobnilpError

__all__ = [
    "CPT",
    "fit_cpts",
    "to_bif",
    "to_pgmpy",
    "to_pgmpy_gaussian",
    "is_continuous",
    "BIF_CONTINUOUS",
    "pgmpy_state_names",
    "arc_strength",
    "arc_strength_csv",
    "adjacency_matrix",
    "adjacency_csv",
    "ESTIMATORS",
    "PRIORS",
]

log = logging.getLogger(__name__)

#: Parameter estimators: posterior mean under a Dirichlet prior, or maximum likelihood.
ESTIMATORS = ("bayes", "mle")
#: Dirichlet priors of the ``"bayes"`` estimator.
PRIORS = ("BDeu", "K2", "dirichlet")


# ---------------------------------------------------------------------------- inputs
def _dataset(data: Any) -> Any:
    from .data import Dataset, read_data

    if isinstance(data, Dataset):
        return data
    try:
        return read_data(data)
    except GobnilpError:
        raise
    except Exception as exc:  # pragma: no cover - read_data reports its own errors
        raise DataError(f"cannot read the data: {exc}") from None


def _columns(network: Any, ds: Any) -> list[int]:
    """Data column of each network variable (the network may use a subset of the data's variables)."""
    where = {v: j for j, v in enumerate(ds.names)}
    missing = [v for v in network.names if v not in where]
    if missing:
        raise DataError(f"the data has no column for variable(s) {', '.join(map(repr, missing[:5]))} of the network; "
                        f"data columns: {', '.join(ds.names[:10])}{' ...' if ds.n > 10 else ''}")
    return [where[v] for v in network.names]


def _states(ds: Any, j: int) -> list[str]:
    """State labels of column ``j`` as strings: the data's labels, then ``"k"`` for declared but unlabelled states."""
    r = int(ds.arities[j])
    labels = list(ds.labels[j]) if len(ds.labels) > j else []
    out = [str(x) for x in labels[:r]] + [str(k) for k in range(len(labels), r)]
    if len(set(out)) != len(out):  # labels that coincide as strings: fall back to the codes
        out = [str(k) for k in range(r)]
    return out


def _check_choice(value: str, allowed: Sequence[str], what: str, where: str) -> str:
    for a in allowed:
        if str(value).lower() == a.lower():
            return a
    raise ConfigError(f"The {what!r} parameter of {where} must be one of {', '.join(map(repr, allowed))}. "
                      f"Got {value!r} instead.")


def _check_positive(value: float, what: str, where: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not (math.isfinite(v) and v > 0):
        raise ConfigError(f"The {what!r} parameter of {where} must be a positive number. Got {value!r} instead.")
    return v


# ---------------------------------------------------------------------------- CPTs
@dataclass(frozen=True)
class CPT:
    """The conditional probability table of one variable.

    Attributes
    ----------
    variable : str
    parents : tuple of str
        In the network's variable order.
    states : tuple of str
        The variable's states (its declared arity), as labels.
    parent_states : tuple of tuple of str
        The states of each parent.
    table : numpy.ndarray, shape (q, r)
        ``table[j, k] = P(variable = states[k] | parents in configuration j)``;
        configurations are enumerated with the **first parent slowest** and
        the last fastest (the order of ``itertools.product``, of BIF tables
        and of pgmpy's columns).  Each row sums to 1.
    counts : numpy.ndarray of int, shape (q, r)
        The data counts behind the table.
    """

    variable: str
    parents: tuple[str, ...]
    states: tuple[str, ...]
    parent_states: tuple[tuple[str, ...], ...]
    table: np.ndarray
    counts: np.ndarray

    def configurations(self) -> list[tuple[str, ...]]:
        """Parent configurations in row order (first parent slowest)."""
        return list(itertools.product(*self.parent_states)) if self.parents else [()]


def _counts(codes: np.ndarray, arities: Sequence[int], child: int, parents: Sequence[int]) -> np.ndarray:
    """``(q, r)`` counts, parent configurations in C order (first parent slowest)."""
    r = int(arities[child])
    cfg = np.zeros(codes.shape[0], dtype=np.int64)
    q = 1
    for p in parents:
        cfg = cfg * int(arities[p]) + codes[:, p]
        q *= int(arities[p])
    flat = np.bincount(cfg * r + codes[:, child], minlength=q * r)
    return flat.reshape(q, r)


def fit_cpts(network: Any, data: Any, *, estimator: str = "bayes", prior: str = "BDeu", ess: float = 1.0,
             pseudo_count: float = 1.0) -> dict[str, CPT]:
    """Fit every variable's CPT from the data (no pgmpy needed).

    Parameters
    ----------
    network : Network
        The structure; its variables must be columns of ``data``.
    data : Dataset, or anything :func:`~gobnilp_py.read_data` reads
        Arities and state labels come from it (declared arities included).
    estimator : {"bayes", "mle"}
        Posterior mean under a Dirichlet prior, or maximum likelihood (an
        unseen parent configuration gets a uniform row).
    prior : {"BDeu", "K2", "dirichlet"}
        The prior of ``"bayes"``: BDeu with equivalent sample size ``ess``
        (``ess / (r q)`` per cell), K2 (1 per cell) or ``pseudo_count`` per cell.
    ess : float
        BDeu's equivalent sample size (default 1, as the package's BDeu score).
    pseudo_count : float
        The ``"dirichlet"`` prior's count per cell.

    Returns
    -------
    dict of variable -> CPT, in the network's variable order.

    Examples
    --------
    >>> import gobnilp_py as gp
    >>> ds = gp.read_data(gp.example_path("asia"))
    >>> net = gp.Network(ds.names, {"tub": ("asia",)}, score=0.0)
    >>> cpt = fit_cpts(net, ds, estimator="mle")["tub"]
    >>> cpt.parents, cpt.states, cpt.table.shape
    (('asia',), ('no', 'yes'), (2, 2))
    """
    where = "fit_cpts"
    est = _check_choice(estimator, ESTIMATORS, "estimator", where)
    pri = _check_choice(prior, PRIORS, "prior", where)
    ess_v = _check_positive(ess, "ess", where)
    pc = _check_positive(pseudo_count, "pseudo_count", where)
    ds = _dataset(data)
    cols = _columns(network, ds)
    col_of = dict(zip(network.names, cols))
    codes = ds.codes
    arities = [int(a) for a in ds.arities]
    out: dict[str, CPT] = {}
    for v in network.names:
        j = col_of[v]
        pj = [col_of[p] for p in network.parents[v]]
        n = _counts(codes, arities, j, pj).astype(np.int64)
        q, r = n.shape
        if est == "mle":
            tot = n.sum(axis=1, keepdims=True)
            table = np.where(tot > 0, n / np.maximum(tot, 1), 1.0 / r)
        else:
            alpha = {"BDeu": ess_v / (r * q), "K2": 1.0, "dirichlet": pc}[pri]
            table = (n + alpha) / (n.sum(axis=1, keepdims=True) + r * alpha)
        out[v] = CPT(v, tuple(network.parents[v]), tuple(_states(ds, j)),
                     tuple(tuple(_states(ds, p)) for p in pj), table, n)
    return out


# ---------------------------------------------------------------------------- continuous results
#: Why a network learned from continuous data has no BIF (one line, for the API, the CLI and the runner).
BIF_CONTINUOUS = ("BIF holds discrete probability tables only, and this network was learned from continuous data "
                  "with a Gaussian score (its parameters are linear-Gaussian: coefficients and a variance per "
                  "variable); use Network.to_pgmpy(data), a pgmpy LinearGaussianBayesianNetwork")


def is_continuous(network: Any, data: Any = None) -> bool:
    """Whether ``network`` was learned from continuous data (a Gaussian score): its ``stats`` say so
    (:func:`gobnilp_py.solve.inputs.score_provenance`), or ``data`` is a
    :class:`~gobnilp_py.data.continuous.ContinuousData`."""
    from .data.continuous import ContinuousData

    stats = getattr(network, "stats", None) or {}
    return isinstance(data, ContinuousData) or stats.get("data_kind") == "continuous"


def to_pgmpy_gaussian(network: Any, data: Any) -> Any:
    """pgmpy's ``LinearGaussianBayesianNetwork`` of this structure, its CPDs fitted by least squares.

    ``data`` is read as measurements (:func:`~gobnilp_py.data.continuous.continuous_input`: a float
    array or DataFrame, a file, or :class:`~gobnilp_py.data.continuous.ContinuousData`).  Each CPD is
    pgmpy's ``LinearGaussianMLE`` fit: the least-squares regression of the variable on its parents
    with an intercept (the coefficients that attain the log-likelihood of ``bic-g``/``aic-g``); its
    standard deviation is pgmpy's, ``sqrt(RSS / (N - p - 1))``, not the maximum-likelihood
    ``sqrt(RSS / N)`` those scores use.
    """
    from .data.continuous import continuous_input

    _pgmpy()
    cd = continuous_input(data, score=str((getattr(network, "stats", None) or {}).get("score", "Gaussian")))
    where = {v: j for j, v in enumerate(cd.names)}
    missing = [v for v in network.names if v not in where]
    if missing:
        raise DataError(f"the data has no column for variable(s) {', '.join(map(repr, missing[:5]))} of the network; "
                        f"its columns: {', '.join(map(repr, cd.names[:8]))}")
    frame = pd.DataFrame({v: cd.values[:, where[v]] for v in network.names}, columns=list(network.names))
    from pgmpy.models import LinearGaussianBayesianNetwork

    model = LinearGaussianBayesianNetwork()
    model.add_nodes_from(network.names)
    model.add_edges_from(network.edges)
    model.fit(frame)
    return model


# ---------------------------------------------------------------------------- BIF
_BIF_WORD = re.compile(r"[^A-Za-z0-9_.\-]")


def _bif_names(items: Sequence[str], what: str, renamed: list[str]) -> list[str]:
    """BIF-safe words (letters, digits, ``_ . -``), unique; renamings are collected for one warning."""
    out: list[str] = []
    used: set[str] = set()
    for s in items:
        w = _BIF_WORD.sub("_", str(s)) or "_"
        base, k = w, 2
        while w in used:
            w, k = f"{base}_{k}", k + 1
        if w != str(s):
            renamed.append(f"{what} {s!r} -> {w!r}")
        used.add(w)
        out.append(w)
    return out


def to_bif(network: Any, data: Any, *, estimator: str = "bayes", prior: str = "BDeu", ess: float = 1.0,
           pseudo_count: float = 1.0, name: str = "gobnilp_py") -> str:
    """The network and its fitted CPTs in the Bayesian Interchange Format (BIF 0.15), as text.

    Every variable is declared with all its states (declared arity, data
    labels); every parent configuration gets its own line, in order, with
    probabilities written to full double precision (``repr``), so a reader
    gets back exactly the fitted numbers.  Names and state labels that BIF
    cannot hold (anything but letters, digits, ``_``, ``.``, ``-``) are
    rewritten with ``_`` and reported in one warning.  Parameters are those of
    :func:`fit_cpts`.

    Examples
    --------
    >>> import gobnilp_py as gp
    >>> ds = gp.read_data(gp.example_path("asia"))
    >>> net = gp.Network(ds.names, {"tub": ("asia",)}, score=0.0)
    >>> text = to_bif(net, ds, estimator="mle")
    >>> text.splitlines()[0], "probability ( tub | asia ) {" in text
    ('network gobnilp_py {', True)
    """
    if is_continuous(network, data):
        raise DataError(BIF_CONTINUOUS)
    cpts = fit_cpts(network, data, estimator=estimator, prior=prior, ess=ess, pseudo_count=pseudo_count)
    renamed: list[str] = []
    vnames = dict(zip(network.names, _bif_names(list(network.names), "variable", renamed)))
    snames = {v: _bif_names(list(c.states), f"state of {v!r}", renamed) for v, c in cpts.items()}
    if renamed:
        log.warning("BIF names may hold only letters, digits, '_', '.' and '-'; renamed %s", "; ".join(renamed))
    net_name = _BIF_WORD.sub("_", str(name)) or "network"
    lines = [f"network {net_name} {{", "}"]
    for v in network.names:
        st = snames[v]
        lines += [f"variable {vnames[v]} {{", f"  type discrete [ {len(st)} ] {{ {', '.join(st)} }};", "}"]
    for v in network.names:
        c = cpts[v]
        probs = [", ".join(repr(float(x)) for x in row) for row in c.table]
        if not c.parents:
            lines += [f"probability ( {vnames[v]} ) {{", f"  table {probs[0]};", "}"]
            continue
        head = f"probability ( {vnames[v]} | {', '.join(vnames[p] for p in c.parents)} ) {{"
        lines.append(head)
        for cfg, row in zip(itertools.product(*(range(len(s)) for s in c.parent_states)), probs):
            labels = ", ".join(snames[p][k] for p, k in zip(c.parents, cfg))
            lines.append(f"  ({labels}) {row};")
        lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- pgmpy
def _pgmpy() -> Any:
    try:
        import pgmpy
    except ImportError:
        raise GobnilpError("to_pgmpy needs pgmpy: pip install 'gobnilp-py[pgmpy]' (or pip install pgmpy)") from None
    return pgmpy


def pgmpy_state_names(network: Any, data: Any) -> dict[str, list[str]]:
    """``{variable: [state labels]}`` with every declared state, as pgmpy's ``state_names`` wants it."""
    ds = _dataset(data)
    return {v: _states(ds, j) for v, j in zip(network.names, _columns(network, ds))}


def to_pgmpy(network: Any, data: Any, *, estimator: str = "bayes", prior: str = "BDeu", ess: float = 1.0,
             pseudo_count: float = 1.0) -> Any:
    """A pgmpy Bayesian network of this structure with CPTs fitted by pgmpy's estimators.

    Parameters
    ----------
    network : Network
    data : Dataset, or anything :func:`~gobnilp_py.read_data` reads
    estimator, prior, ess, pseudo_count
        As for :func:`fit_cpts`: ``"bayes"`` uses pgmpy's Bayesian estimator
        with ``prior_type`` = ``prior`` (BDeu with ``equivalent_sample_size``
        = ``ess``, K2, or dirichlet with ``pseudo_counts`` = ``pseudo_count``);
        ``"mle"`` its maximum-likelihood estimator.

    Returns
    -------
    pgmpy.models.DiscreteBayesianNetwork
        For a network learned from continuous data (a Gaussian score; :func:`is_continuous`):
        ``pgmpy.models.LinearGaussianBayesianNetwork`` with CPDs fitted by least squares
        (:func:`to_pgmpy_gaussian`; the discrete estimator options are then refused).
        (``BayesianNetwork`` with pgmpy older than 0.1.26.)  Every variable is
        a node (isolated ones too); states are the data's labels as strings,
        every declared state included, so the model and :func:`to_bif` agree.

    Raises
    ------
    GobnilpError
        pgmpy is not installed (one line saying how to install it).
    """
    where = "to_pgmpy"
    if is_continuous(network, data):
        given = [k for k, v, d in (("estimator", estimator, "bayes"), ("prior", prior, "BDeu"), ("ess", ess, 1.0),
                                   ("pseudo_count", pseudo_count, 1.0)) if v != d]
        if given:
            raise DataError(f"to_pgmpy: {', '.join(given)} set(s) the CPTs of discrete data; this network was "
                            "learned from continuous data, whose linear-Gaussian CPDs are fitted by least squares")
        return to_pgmpy_gaussian(network, data)
    est = _check_choice(estimator, ESTIMATORS, "estimator", where)
    pri = _check_choice(prior, PRIORS, "prior", where)
    ess_v = _check_positive(ess, "ess", where)
    pc = _check_positive(pseudo_count, "pseudo_count", where)
    _pgmpy()
    ds = _dataset(data)
    cols = _columns(network, ds)
    state_names = {v: _states(ds, j) for v, j in zip(network.names, cols)}
    frame = pd.DataFrame({v: np.asarray(state_names[v], dtype=object)[ds.codes[:, j]]
                          for v, j in zip(network.names, cols)}, columns=list(network.names))
    try:
        from pgmpy.models import DiscreteBayesianNetwork as BN
    except ImportError:  # pgmpy < 0.1.26
        from pgmpy.models import BayesianNetwork as BN  # type: ignore[no-redef]
    model = BN()
    model.add_nodes_from(network.names)
    model.add_edges_from(network.edges)
    prior_type = {"BDeu": "BDeu", "K2": "K2", "dirichlet": "dirichlet"}[pri]
    try:  # pgmpy >= 1.1: estimator objects
        from pgmpy.parameter_estimator import DiscreteBayesianEstimator, DiscreteMLE
    except ImportError:
        DiscreteBayesianEstimator = DiscreteMLE = None  # type: ignore[assignment,misc]
    if DiscreteMLE is not None:
        if est == "mle":
            fitter = DiscreteMLE(state_names=state_names)
        else:
            fitter = DiscreteBayesianEstimator(state_names=state_names, prior_type=prior_type,
                                               equivalent_sample_size=ess_v,
                                               pseudo_counts=pc if pri == "dirichlet" else None)
        model.fit(frame, estimator=fitter)
    else:  # pgmpy 0.1.x / 1.0: estimator classes and keyword arguments
        from pgmpy.estimators import BayesianEstimator, MaximumLikelihoodEstimator

        if est == "mle":
            model.fit(frame, estimator=MaximumLikelihoodEstimator, state_names=state_names)
        else:
            kw: dict[str, Any] = {"prior_type": prior_type, "equivalent_sample_size": ess_v}
            if pri == "dirichlet":
                kw["pseudo_counts"] = {v: np.full((len(state_names[v]),
                                                   int(np.prod([len(state_names[p]) for p in network.parents[v]]))),
                                                  pc) for v in network.names}
            model.fit(frame, estimator=BayesianEstimator, state_names=state_names, **kw)
    return model


# ---------------------------------------------------------------------------- collections
def _probabilities(result: Any) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Names, P(adjacent) and P(u -> v) of a collection (or 0/1 for a single network)."""
    if hasattr(result, "arrow_probabilities") and hasattr(result, "edge_probabilities"):
        if not len(result):
            raise DataError("the collection holds no network: there are no arc strengths to write")
        a = result.arrow_probabilities()
        names = [str(x) for x in a.index]
        arrows = a.to_numpy(dtype=float)
    elif hasattr(result, "parents") and hasattr(result, "names"):
        names = list(result.names)
        arrows = adjacency_matrix(result).to_numpy(dtype=float)
    else:
        raise DataError(f"expected a CredibleSet or a Network, got {type(result).__name__}")
    adjacent = np.clip(arrows + arrows.T, 0.0, 1.0)
    return names, adjacent, arrows


def arc_strength(result: Any) -> pd.DataFrame:
    """Arc strengths in the shape of bnlearn's ``custom.strength`` (``from, to, strength, direction``).

    One row per ordered pair of distinct variables (``n (n - 1)`` rows, the
    ``from`` variable slowest, in variable order): ``strength`` = P(the two
    are adjacent), ``direction`` = P(``from -> to`` | adjacent) (0 when never
    adjacent), both model-averaged with weights ``exp(score - OPT)`` over
    what the collection averages over
    (:attr:`~gobnilp_py.solve.credible.CredibleSet.averages_over`).  A single
    :class:`~gobnilp_py.network.Network` gives 0/1 strengths.

    In R (bnlearn), the CSV becomes a ``bn.strength`` object for
    ``averaged.network`` by adding the attributes ``custom.strength`` sets
    (``comment.char``: a run's ``arc_strength.csv`` starts with ``#`` guarantee lines)::

        s <- read.csv("arc_strength.csv", stringsAsFactors = FALSE, comment.char = "#")
        s <- structure(s, class = c("bn.strength", "data.frame"), method = "bootstrap",
                       threshold = 0.5, nodes = unique(c(s$from, s$to)))
        avg <- averaged.network(s)

    Examples
    --------
    >>> from gobnilp_py import Network
    >>> arc_strength(Network(("a", "b"), {"b": ("a",)}, -1.0)).to_dict("records")
    [{'from': 'a', 'to': 'b', 'strength': 1.0, 'direction': 1.0}, {'from': 'b', 'to': 'a', 'strength': 1.0, 'direction': 0.0}]
    """
    names, adjacent, arrows = _probabilities(result)
    n = len(names)
    iu, iv = np.where(~np.eye(n, dtype=bool))
    strength = adjacent[iu, iv]
    with np.errstate(invalid="ignore", divide="ignore"):
        direction = np.where(strength > 0, arrows[iu, iv] / np.where(strength > 0, strength, 1.0), 0.0)
    direction = np.clip(direction, 0.0, 1.0)
    return pd.DataFrame({"from": [names[i] for i in iu], "to": [names[j] for j in iv],
                         "strength": strength, "direction": direction},
                        columns=["from", "to", "strength", "direction"])


def arc_strength_csv(result: Any) -> str:
    """:func:`arc_strength` as CSV text (15 significant digits, header ``from,to,strength,direction``)."""
    return arc_strength(result).to_csv(index=False, float_format="%.15g")


def adjacency_matrix(network: Any) -> pd.DataFrame:
    """The 0/1 adjacency matrix: row ``u``, column ``v`` is 1 exactly when ``u -> v`` (bnlearn's ``amat``).

    Examples
    --------
    >>> from gobnilp_py import Network
    >>> adjacency_matrix(Network(("a", "b"), {"b": ("a",)}, -1.0)).values.tolist()
    [[0, 1], [0, 0]]
    """
    if not (hasattr(network, "parents") and hasattr(network, "names")):
        raise DataError(f"expected a Network, got {type(network).__name__}")
    names = list(network.names)
    pos = {v: i for i, v in enumerate(names)}
    mat = np.zeros((len(names), len(names)), dtype=np.int64)
    for c in names:
        for p in network.parents.get(c, ()):
            mat[pos[p], pos[c]] = 1
    return pd.DataFrame(mat, index=pd.Index(names, name="from"), columns=pd.Index(names, name="to"))


def adjacency_csv(network: Any) -> str:
    """:func:`adjacency_matrix` as CSV: a header of variable names, then one row per parent, named in column one.

    In R: ``amat(bn) <- as.matrix(read.csv("adjacency.csv", row.names = 1, check.names = FALSE))``.
    """
    return adjacency_matrix(network).to_csv(index=True, index_label="")
