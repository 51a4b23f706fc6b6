"""Local scores for continuous data: ``bic-g``, ``aic-g`` and ``bge`` (definitions in ``docs/gaussian.md``).

Every score here is a function of the child ``y``, the parent set ``P`` (``p = |P|``) and two
numbers read from one symmetric positive definite matrix per score:

* ``ln R_{yy·P}``, the log of the Schur complement of ``R_PP`` in ``R_{P∪y}`` (for the linear
  Gaussian scores ``R`` is the centred scatter matrix ``S`` and this is the log of the residual
  sum of squares of the least-squares regression of ``y`` on ``P`` with an intercept);
* ``ln det R_PP`` (BGe only).

Each score is written ``s(y, P) = A[p] + Bc[p] * ln R_{yy·P} + Cc * ln det R_PP``.  The matrix is
stored scaled to a unit diagonal, ``M = D^-1/2 R D^-1/2`` with ``lnD = ln diag(R)``, so that
``ln R_{yy·P} = lnD[y] + ln M_{yy·P}`` and ``ln det R_PP = Σ_{x∈P} lnD[x] + ln det M_PP``: the
Cholesky pivots of ``M`` lie in (0, 1], which is what makes them accurate (van der Sluis).

``bic-g`` / ``aic-g`` (pgmpy's ``BICGauss`` / ``AICGauss``, bnlearn's ``bic-g`` / ``aic-g``)::

    LL(y|P) = -N/2 * (ln(2π RSS/N) + 1),   RSS = S_{yy·P}  (maximum-likelihood variance RSS/N)
    s(y, P) = LL(y|P) - c * (p + 2),       c = ln(N)/2 (BIC) or 1 (AIC)

``p + 2`` parameters: ``p`` coefficients, the intercept and the variance, as pgmpy counts them
(``df_model + 2``).

``bge`` (Geiger & Heckerman 2002 as corrected by Kuipers, Moffa & Heckerman 2014; bnlearn's
``bge``), with ``a = α_w - n``, ``t = α_μ (α_w - n - 1) / (α_μ + 1)`` and the posterior matrix
``R = t I + S + N α_μ / (N + α_μ) (x̄ - ν)(x̄ - ν)ᵀ``::

    s(y, P) = ½ ln(α_μ / (N + α_μ)) - N/2 ln π + lnΓ((N + a + p + 1)/2) - lnΓ((a + p + 1)/2)
              + (a + 2p + 1)/2 ln t - (N + a + p + 1)/2 ln R_{yy·P} - ½ ln det R_PP

Defaults as bnlearn's: ``α_μ = 1``, ``α_w = n + 2``, ``ν`` = the sample mean (the last term of
``R`` then vanishes).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ..data.continuous import ContinuousData
from ..errors import ScoreError

__all__ = ["GAUSSIAN_SCORES", "GaussianScore", "gaussian_score_name", "log_conditional_variances",
           "BGE_OPTIONS", "DISCRETE_OPTIONS", "score_option_conflicts", "bge_option_problems"]

#: Accepted names (any case) -> the canonical name a table records.
GAUSSIAN_SCORES: dict[str, str] = {"bic-g": "BIC-G", "aic-g": "AIC-G", "bge": "BGe"}


def gaussian_score_name(name: object) -> str:
    """The canonical name (``"BIC-G"``, ``"AIC-G"``, ``"BGe"``) of a Gaussian score given in any case."""
    key = str(name).strip().lower() if isinstance(name, str) else None
    if key not in GAUSSIAN_SCORES:
        raise ScoreError(f"unknown Gaussian score {name!r}; known: {', '.join(repr(k) for k in GAUSSIAN_SCORES)}")
    return GAUSSIAN_SCORES[key]


#: The hyperparameters only BGe takes (bnlearn's ``iss.mu``, ``iss.w``, ``nu``).
BGE_OPTIONS = ("alpha_mu", "alpha_w", "nu")
#: Options of the discrete scorer that mean nothing for continuous data, and why (each refused with a
#: Gaussian score rather than ignored).
DISCRETE_OPTIONS: dict[str, str] = {
    "ess": "is the equivalent sample size of the discrete Dirichlet scores (BDeu, BDs)",
    "max_candidates": "caps the discrete scorer's lattice walk (the Gaussian walk is bounded by memory_limit)",
    "arities": "declares discrete states", "missing_values": "declares discrete missing-value markers",
    "state_names": "declares discrete states",
}


def score_option_conflicts(score: object, given: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``(option, problem)`` for each option in ``given`` that the score named ``score`` does not take.

    The one statement of which options go with which scores: the Dirichlet-only and scorer-only
    options (:data:`DISCRETE_OPTIONS`) with a Gaussian score, the BGe hyperparameters with any
    other score.  Options given as ``None`` count as not given.  A problem names other parameters
    as ``{name}`` placeholders, which each interface fills with its own words (the keyword, the
    config key, the flag; :mod:`gobnilp_py.solve.request`), so a message reads
    ``<option> <problem>``.  A ``score`` that is no name (a LocalScore, a function) takes no BGe
    hyperparameter either.
    """
    key = score.strip().lower() if isinstance(score, str) else None
    canon = GAUSSIAN_SCORES.get(key) if key is not None else None
    if canon is not None:
        for opt, why in DISCRETE_OPTIONS.items():
            v = given.get(opt)
            if v is not None:
                yield opt, f'{why}; {{score}} "{canon}" is a Gaussian score for continuous data: leave it out'
    if canon != "BGe":
        for opt in BGE_OPTIONS:
            if given.get(opt) is not None:
                shown = (f'"{canon or score}"' if isinstance(score, str) else
                         '"BIC"' if score is None else getattr(score, "name", type(score).__name__))
                yield opt, f"is a hyperparameter of the Gaussian score \"bge\" only, not of {{score}} {shown}"


def bge_option_problems(n: int, *, alpha_w: float | None = None,
                        nu: Sequence[float] | np.ndarray | None = None) -> Iterator[tuple[str, str]]:
    """``(option, problem)`` for BGe hyperparameters that do not fit data of ``n`` variables.

    The checks that need the data's width, stated once: the scorer raises them in keyword
    names, the config and the command line (which know ``n`` once the data are read) in theirs.
    """
    if alpha_w is not None and not float(alpha_w) > n + 1:
        yield "alpha_w", (f"must be > n + 1 = {n + 1} for {n} variables (the Wishart prior's scale t = alpha_mu "
                          f"(alpha_w - n - 1) / (alpha_mu + 1) must be positive), got {float(alpha_w):g}")
    if nu is not None and len(nu) != n:
        yield "nu", f"must give {n} numbers (one prior mean per variable), got {len(nu)}"


def log_conditional_variances(M: np.ndarray) -> np.ndarray:
    """``ln M_{vv·V∖v}`` for every ``v`` of a positive definite ``M``: ``-ln (M⁻¹)_vv``.

    ``(M⁻¹)_vv`` is the squared norm of column ``v`` of ``L⁻¹`` (``M = L Lᵀ``), got by one
    triangular solve; no inverse of ``M`` is formed.
    """
    from scipy.linalg import solve_triangular

    L = np.linalg.cholesky(M)
    Linv = solve_triangular(L, np.eye(M.shape[0]), lower=True)
    return -np.log(np.einsum("ij,ij->j", Linv, Linv))


class GaussianScore:
    """One of the Gaussian scores on one data set, in the form ``A[p] + Bc[p] ln R_{yy·P} + Cc ln det R_PP``.

    Parameters
    ----------
    name : str
        ``"bic-g"``, ``"aic-g"`` or ``"bge"`` (any case).
    data : ContinuousData
        The data (its means and scatter matrix are all that is read).
    alpha_mu, alpha_w, nu :
        BGe's hyperparameters: ``alpha_mu > 0`` (default 1), ``alpha_w > n + 1`` (default
        ``n + 2``), ``nu`` the prior mean vector (default: the sample mean).  Refused for the
        other scores.

    Examples
    --------
    >>> import numpy as np
    >>> from gobnilp_py.data.continuous import as_continuous
    >>> x = np.random.default_rng(1).normal(size=(50, 3))
    >>> sc = GaussianScore("bic-g", as_continuous(x))
    >>> round(sc.local_score(1, (0, 2)), 6) == round(sc.local_score(1, (2, 0)), 6)
    True
    """

    #: Markov-equivalent DAGs score the same (BIC-G/AIC-G: equal maximised likelihoods and
    #: ``2n + |E|`` parameters; BGe: by Kuipers et al.'s construction).
    score_equivalent = True

    def __init__(self, name: str, data: ContinuousData, *, alpha_mu: float | None = None,
                 alpha_w: float | None = None, nu: Sequence[float] | np.ndarray | None = None) -> None:
        self.name = gaussian_score_name(name)
        self.data = data
        N, n = data.N, data.n
        self.N, self.n = N, n
        p = np.arange(n, dtype=np.float64)
        if self.name != "BGe":
            given = [k for k, v in (("alpha_mu", alpha_mu), ("alpha_w", alpha_w), ("nu", nu)) if v is not None]
            if given:
                raise ScoreError(f"{', '.join(given)}: hyperparameter(s) of the BGe score, not of {self.name}")
            R = data.scatter
            self.coef = 0.5 * math.log(N) if self.name == "BIC-G" else 1.0
            # s = -N/2 (ln 2π + 1) - N/2 (ln RSS - ln N) - c (p + 2)
            self.A = -0.5 * N * (math.log(2 * math.pi) + 1.0 - math.log(N)) - self.coef * (p + 2.0)
            self.Bc = np.full(n, -0.5 * N)
            self.Cc = 0.0
            self.params: dict[str, Any] = {}
        else:
            am = 1.0 if alpha_mu is None else _finite(alpha_mu, "alpha_mu")
            aw = float(n + 2) if alpha_w is None else _finite(alpha_w, "alpha_w")
            if not am > 0:
                raise ScoreError(f"alpha_mu must be > 0, got {alpha_mu!r}")
            for about, problem in bge_option_problems(n, alpha_w=aw):
                raise ScoreError(f"{about} {problem}")
            if nu is None:
                nu_v = data.mean.copy()
                shift = np.zeros(n)
            else:
                nu_v = np.asarray(nu, dtype=np.float64).reshape(-1)
                if not np.all(np.isfinite(nu_v)):
                    raise ScoreError(f"nu must be {n} finite numbers (one prior mean per variable), got {nu!r}")
                for about, problem in bge_option_problems(n, nu=nu_v):
                    raise ScoreError(f"{about} {problem}")
                shift = data.mean - nu_v
            a = aw - n
            t = am * (aw - n - 1.0) / (am + 1.0)
            R = data.scatter + t * np.eye(n) + (N * am / (N + am)) * np.outer(shift, shift)
            R = 0.5 * (R + R.T)
            lg = np.vectorize(math.lgamma)
            self.A = (0.5 * math.log(am / (N + am)) - 0.5 * N * math.log(math.pi)
                      + lg(0.5 * (N + a + p + 1.0)) - lg(0.5 * (a + p + 1.0)) + 0.5 * (a + 2.0 * p + 1.0) * math.log(t))
            self.Bc = -0.5 * (N + a + p + 1.0)
            self.Cc = -0.5
            self.coef = 0.0
            self.params = {"alpha_mu": am, "alpha_w": aw, "nu": "sample mean" if nu is None else nu_v.tolist(),
                           "t": t}
            self._a = a
        d = np.sqrt(np.diag(R))
        M = R / d[:, None] / d[None, :]
        M = 0.5 * (M + M.T)
        np.fill_diagonal(M, 1.0)
        self.M = M
        #: ``ln diag(R)`` (for BIC-G/AIC-G ``R = S``: ``ln S_vv``, the log of N times the ML variance).
        self.lnD = np.log(np.diag(R))
        self._lrC: np.ndarray | None = None

    # ------------------------------------------------------------------ values
    def describe(self) -> dict[str, Any]:
        """Name and hyperparameters, for a table's provenance."""
        return {"score": self.name, **self.params}

    def value(self, p: int | np.ndarray, ln_r: float | np.ndarray, ln_det: float | np.ndarray) -> Any:
        """``A[p] + Bc[p] * ln_r + Cc * ln_det`` (``ln_r = ln R_{yy·P}``, ``ln_det = ln det R_PP``)."""
        return self.A[p] + self.Bc[p] * ln_r + self.Cc * ln_det

    def local_score(self, child: int, parents: Sequence[int]) -> float:
        """The score of one family, from a Cholesky factor of its submatrix (the reference path).

        ``M_{P∪y}`` with ``y`` last: its last pivot squared is ``M_{yy·P}`` and the others give
        ``det M_PP``.
        """
        ps = sorted(int(x) for x in parents)
        if child in ps or len(set(ps)) != len(ps) or any(x < 0 or x >= self.n for x in ps):
            raise ScoreError(f"invalid parent set {tuple(ps)} for variable {child}")
        idx = ps + [int(child)]
        L = np.linalg.cholesky(self.M[np.ix_(idx, idx)])
        diag = np.log(np.diag(L))
        ln_r = self.lnD[child] + 2.0 * diag[-1]
        ln_det = float(self.lnD[ps].sum() + 2.0 * diag[:-1].sum())
        return float(self.value(len(ps), ln_r, ln_det))

    def log_likelihood(self, child: int, parents: Sequence[int]) -> float:
        """BIC-G/AIC-G: the maximised Gaussian log-likelihood ``LL(y|P)`` of the family."""
        if self.name == "BGe":
            raise ScoreError("log_likelihood is the Gaussian likelihood of BIC-G and AIC-G, not of BGe")
        return self.local_score(child, parents) + self.coef * (len(parents) + 2)

    @property
    def ln_cond_all(self) -> np.ndarray:
        """``ln M_{vv·V∖v}`` per variable (the log of 1 - R² of ``v`` on all others, for BIC-G/AIC-G)."""
        if self._lrC is None:
            self._lrC = log_conditional_variances(self.M)
        return self._lrC

    # ------------------------------------------------------------------ bounds
    def bounds(self, limit: int) -> "GaussianBounds":
        """The quantities the pruning rules need, for parent sets of at most ``limit`` parents.

        See ``docs/gaussian.md`` for the derivations.  Per child ``y``:

        * ``ceiling[y, p0]``: ``h_y(p0)``, with ``s(y, T) <= h_y(|X|) + Cc ln det R_XX`` for every
          ``T ⊇ X`` (``|T| <= limit``);
        * ``count_bound[y, p0]``: an upper bound on ``s(y, T)`` for every ``T`` with ``|T| >= p0``;
        * ``gain_cost[y, j]`` and ``gain_coef``: for ``T ∋ j``, ``s(T) - s(T∖j) <= -gain_cost[y, j] +
          gain_coef * min(ln M_{yy·Y} - ln M_{yy·C_y}, ln M_{jj·Y} - ln M_{jj·C_j})`` for any ``Y ⊆ T∖j``.
        """
        n = self.n
        limit = min(int(limit), n - 1)
        lrC = self.ln_cond_all
        base = np.empty((n, limit + 1))
        for y in range(n):
            base[y] = self.value(np.arange(limit + 1), self.lnD[y] + lrC[y], 0.0)
        ceiling = np.empty((n, limit + 1))
        count_bound = np.empty((n, limit + 1))
        gain_cost = np.empty((n, n))
        if self.Cc == 0.0:
            # BIC-G/AIC-G: base decreases in p (the penalty grows by c per parent), so both bounds
            # are base itself; adding a parent costs exactly c.
            ceiling[:] = base
            count_bound[:] = np.maximum.accumulate(base[:, ::-1], axis=1)[:, ::-1]
            gain_cost[:] = self.coef
            gain_coef = 0.5 * self.N
        else:
            # BGe: pivots of j in any R_TT with y outside T are >= m_{j|y} = R_{jj·V∖{j,y}}.
            lnm = self._ln_pivot_floors()
            dK = np.diff(self.A[: limit + 1]) if limit >= 1 else np.zeros(0)
            max_dk = float(dK.max()) if dK.size else 0.0
            for y in range(n):
                others = np.sort(np.delete(lnm[y], y))
                cum = np.concatenate(([0.0], np.cumsum(others)))[: limit + 1]
                for p0 in range(limit + 1):
                    ks = np.arange(p0, limit + 1)
                    ceiling[y, p0] = float(np.max(base[y, ks] + self.Cc * cum[ks - p0]))
                    count_bound[y, p0] = float(np.max(base[y, ks] + self.Cc * cum[ks]))
                # s(T) - s(T∖j) <= max ΔK - ½ ln R_{yy·C_y} - ½ ln m_{j|y} + gain_coef * gain.
                gain_cost[y] = -(max_dk + self.Cc * (self.lnD[y] + lrC[y]) + self.Cc * lnm[y])
            gain_coef = 0.5 * (self.N + self._a + limit)
        return GaussianBounds(limit=limit, ceiling=ceiling, count_bound=count_bound, gain_cost=gain_cost,
                              gain_coef=float(gain_coef), ln_cond_all=lrC.copy())

    def _ln_pivot_floors(self) -> np.ndarray:
        """``lnm[y, j] = ln R_{jj·V∖{j,y}}`` (unscaled ``R``), the least pivot ``j`` can have in a parent set of ``y``."""
        n = self.n
        out = np.zeros((n, n))
        for y in range(n):
            keep = [v for v in range(n) if v != y]
            if not keep:
                continue
            lc = log_conditional_variances(self.M[np.ix_(keep, keep)])
            out[y, keep] = lc + self.lnD[keep]
        return out


class GaussianBounds:
    """Arrays of :meth:`GaussianScore.bounds` (see there)."""

    def __init__(self, *, limit: int, ceiling: np.ndarray, count_bound: np.ndarray, gain_cost: np.ndarray,
                 gain_coef: float, ln_cond_all: np.ndarray) -> None:
        self.limit = limit
        self.ceiling = ceiling
        self.count_bound = count_bound
        self.gain_cost = gain_cost
        self.gain_coef = gain_coef
        self.ln_cond_all = ln_cond_all


def _finite(value: object, name: str) -> float:
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ScoreError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v) or isinstance(value, bool):
        raise ScoreError(f"{name} must be a finite number, got {value!r}")
    return v
