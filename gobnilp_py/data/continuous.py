"""Continuous data for the Gaussian scores: a float matrix with names, checked and summarised once.

The Gaussian scores (``bic-g``, ``aic-g``, ``bge``; :mod:`gobnilp_py.scoring.gaussian`) read the
data only through two sufficient statistics: the column means and the centred scatter matrix
``S = Σ_r (x_r - x̄)(x_r - x̄)ᵀ``.  :class:`ContinuousData` computes them once (two passes: the
mean, then the products of the centred columns, which loses far less precision than
``Σ x xᵀ - N x̄ x̄ᵀ``), so no score ever passes over the rows again.

What is refused, each in one line naming the columns (a :class:`~gobnilp_py.errors.DataError`):

* a column that is not floating point (integers, text, booleans, categories): integer-coded and
  text columns are discrete data, and mixed data are not supported by the Gaussian scores;
* NaN or infinite values (the first row of the first such column is named);
* a constant column (its variance is 0: no regression on it or of it is defined);
* fewer than two rows, no columns, duplicate names.

Collinear columns (a singular covariance matrix) and too few rows for the parents are checked
by :func:`check_full_rank`, which the scorer calls with its numerical threshold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import DataError

__all__ = ["ContinuousData", "as_continuous", "read_continuous", "continuous_input", "CONTINUOUS_READ_OPTIONS",
           "check_full_rank", "COLLINEAR_RTOL"]

#: A column whose variance left unexplained by all the other columns is at most this fraction of
#: its own variance (1 - R² <= COLLINEAR_RTOL, i.e. R² >= 0.999999) is called collinear and refused.
#: Why this value: a score is computed from Schur complements of the scatter matrix, and its
#: rounding error grows like 1 / (1 - R²).  Measured against exact rational arithmetic on the same
#: float data (4 variables, N = 2,000): the largest score error is 2.5e-6 nats at 1 - R² = 2.8e-7,
#: 1.9e-5 at 2.8e-8 -- against a pruning tolerance of 1e-9 * |score| (1.7e-5 here) -- so at
#: 1e-6 the error stays below a tenth of the tolerance and the ε-set is the exact one.
COLLINEAR_RTOL = 1e-6


def _listed(names: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(repr(x) for x in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


@dataclass(frozen=True)
class ContinuousData:
    """A float matrix (rows = data points, columns = variables) with names and its moments.

    Attributes
    ----------
    names : tuple of str
        Variable names, in column order.
    values : numpy.ndarray of float64, shape (N, n)
        The data.
    source : str
        Where the data came from, for messages.
    mean : numpy.ndarray, shape (n,)
        Column means.
    scatter : numpy.ndarray, shape (n, n)
        Centred scatter matrix ``Σ_r (x_r - x̄)(x_r - x̄)ᵀ`` (``(N - 1)`` times the sample covariance).

    Examples
    --------
    >>> import numpy as np
    >>> d = as_continuous(np.array([[0.0, 1.0], [1.0, 3.0], [2.0, 2.0]]), names=["A", "B"])
    >>> d.N, d.n, d.mean.tolist()
    (3, 2, [1.0, 2.0])
    >>> d.scatter.tolist()
    [[2.0, 1.0], [1.0, 2.0]]
    """

    names: tuple[str, ...]
    values: np.ndarray
    source: str = "<data>"
    mean: np.ndarray = field(init=False, repr=False)
    scatter: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        vals = np.ascontiguousarray(self.values, dtype=np.float64)
        names = tuple(str(x) for x in self.names)
        object.__setattr__(self, "values", vals)
        object.__setattr__(self, "names", names)
        if vals.ndim != 2:
            raise DataError(f"{self.source}: continuous data must be a 2-D table (rows x columns), "
                            f"got {vals.ndim} dimension(s)")
        N, n = vals.shape
        if n == 0:
            raise DataError(f"{self.source}: the data have no columns")
        if len(names) != n:
            raise DataError(f"{self.source}: {len(names)} names for {n} columns")
        if len(set(names)) != n:
            dup = sorted({x for x in names if names.count(x) > 1})
            raise DataError(f"{self.source}: duplicate variable names {_listed(dup)}")
        if N < 2:
            raise DataError(f"{self.source}: {N} data row(s); a Gaussian score needs at least 2")
        bad = ~np.isfinite(vals)
        if bad.any():
            cols = np.flatnonzero(bad.any(axis=0))
            j = int(cols[0])
            r = int(np.flatnonzero(bad[:, j])[0])
            what = "NaN" if np.isnan(vals[r, j]) else "an infinite value"
            more = f" (and {len(cols) - 1} other column(s): {_listed([names[c] for c in cols[1:]])})" \
                if len(cols) > 1 else ""
            raise DataError(f"{self.source}: column {names[j]!r} has {what} in data row {r + 1}{more}; "
                            "the Gaussian scores need finite values (drop or impute missing ones first)")
        constant = [names[j] for j in range(n) if np.all(vals[:, j] == vals[0, j])]
        if constant:
            raise DataError(f"{self.source}: constant column(s) {_listed(constant)}: a Gaussian score needs a "
                            "positive variance in every column (drop them)")
        mean = vals.mean(axis=0)
        centred = vals - mean
        # Second pass: the mean of the centred columns is the rounding error of the first mean.
        shift = centred.mean(axis=0)
        centred -= shift
        mean = mean + shift
        scatter = centred.T @ centred
        scatter = 0.5 * (scatter + scatter.T)
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "scatter", scatter)
        tiny = [names[j] for j in range(n) if not scatter[j, j] > 0.0]
        if tiny:
            raise DataError(f"{self.source}: column(s) {_listed(tiny)} have a variance that rounds to 0; "
                            "a Gaussian score needs a positive variance in every column")

    @property
    def N(self) -> int:
        """Number of rows (data points)."""
        return int(self.values.shape[0])

    @property
    def n(self) -> int:
        """Number of variables."""
        return int(self.values.shape[1])

    def correlation(self) -> np.ndarray:
        """The sample correlation matrix ``D^-1/2 S D^-1/2`` (unit diagonal), from :attr:`scatter`."""
        d = 1.0 / np.sqrt(np.diag(self.scatter))
        c = self.scatter * d[:, None] * d[None, :]
        c = 0.5 * (c + c.T)
        np.fill_diagonal(c, 1.0)
        return c


def as_continuous(data: object, *, names: Sequence[str] | None = None, source: str | None = None) -> ContinuousData:
    """Continuous data from a float array, a pandas DataFrame of float columns, or a :class:`ContinuousData`.

    Parameters
    ----------
    data : numpy.ndarray, pandas.DataFrame or ContinuousData
        Rows are data points, columns variables.  Every column must be floating point.
    names : sequence of str, optional
        Variable names (default: a frame's column labels, an array's ``"0" … "n-1"``).
    source : str, optional
        What to call the data in messages.

    Raises
    ------
    DataError
        A column that is not floating point (named, with its type), NaN or infinite values,
        a constant column, fewer than two rows, no columns, or duplicate names.
    """
    if isinstance(data, ContinuousData):
        if names is None or tuple(str(x) for x in names) == data.names:
            return data
        return ContinuousData(tuple(names), data.values, source or data.source)
    import sys

    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(data, pd.DataFrame):
        src = source or "<DataFrame>"
        labels = [str(c) for c in data.columns]
        is_float = pd.api.types.is_float_dtype
        not_float = [(labels[j], str(dt)) for j, dt in enumerate(data.dtypes) if not is_float(dt)]
        if not_float:
            shown = ", ".join(f"{c!r} ({t})" for c, t in not_float[:5])
            more = f" and {len(not_float) - 5} more" if len(not_float) > 5 else ""
            raise DataError(f"{src}: column(s) {shown}{more} are not floating point; the Gaussian scores take "
                            "float columns only (integer-coded and text columns are discrete data; convert "
                            "measurements with .astype(float))")
        values = data.to_numpy(dtype=np.float64, na_value=np.nan)
        return ContinuousData(tuple(names) if names is not None else tuple(labels), values, src)
    if isinstance(data, np.ndarray):
        src = source or "<array>"
        if data.dtype.kind != "f":
            raise DataError(f"{src}: the array has dtype {data.dtype}, not floating point; the Gaussian scores take "
                            "float data only (integer-coded data are discrete; convert measurements with "
                            ".astype(float))")
        if data.ndim != 2:
            raise DataError(f"{src}: continuous data must be a 2-D array (rows x columns), got {data.ndim} "
                            "dimension(s)")
        nm = tuple(names) if names is not None else tuple(str(j) for j in range(data.shape[1]))
        return ContinuousData(nm, data, src)
    raise DataError(f"continuous data must be a float numpy array or a pandas DataFrame of float columns, "
                    f"got {type(data).__name__}")


#: Cells read as missing by :func:`read_continuous` (pandas' defaults plus GOBNILP's ``?``); a missing
#: cell is then refused by :class:`ContinuousData` with its column and row.
MISSING_MARKERS = ("?",)


def read_continuous(path: object, *, header: bool = True, delimiter: str | None = None,
                    names: Sequence[str] | None = None) -> ContinuousData:
    """Continuous data from a delimited text file whose every column holds decimal numbers.

    A separate reader, not an option of :func:`gobnilp_py.data.read_data`: ``read_data`` reads
    every column as discrete states, and a float column becomes Gaussian only when a Gaussian
    score is asked for.  A column that parses as integers (``0, 1, 2``) or text is discrete
    data: the file is refused in one line naming those columns (mixed data are a later step).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    header : bool, default True
        Whether the first row holds the variable names (without one: ``"0" … "n-1"``).
    delimiter : str, optional
        Field separator; by default guessed from the first line (comma, tab, semicolon, else
        any whitespace), as ``read_data`` does.
    names : sequence of str, optional
        Variable names replacing the header's.

    Raises
    ------
    DataError
        A missing, empty or unparsable file; non-float columns (named); missing values (``?``,
        empty cells, ``NA``: the first column and row named); everything :func:`as_continuous`
        refuses.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "x.csv")
    >>> _ = open(p, "w").write("A,B\\n0.5,1.25\\n1.5,0.75\\n2.0,3.0\\n")
    >>> read_continuous(p).scatter.round(4).tolist()
    [[1.1667, 1.0833], [1.0833, 2.7917]]
    >>> _ = open(p, "w").write("A,B\\n0.5,1\\n1.5,0\\n2.0,1\\n")
    >>> read_continuous(p)
    Traceback (most recent call last):
    ...
    gobnilp_py.errors.DataError: ...x.csv: column(s) 'B' (int64) are not floating point; ...
    >>> import shutil; shutil.rmtree(d)
    """
    import os

    import pandas as pd

    src = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if src is None:
        raise DataError(f"read_continuous takes a file path, got {type(path).__name__}; for arrays and frames "
                        "use as_continuous")
    try:
        with open(src, encoding="utf-8") as fh:
            first = fh.readline()
    except FileNotFoundError:
        raise DataError(f"{src}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{src}: cannot be read as UTF-8 text ({type(exc).__name__})") from None
    if not first.strip():
        raise DataError(f"{src}: the file is empty (or its first line is blank)")
    if delimiter is None:
        delimiter = next((d for d in (",", "\t", ";") if d in first), r"\s+")
    try:
        frame = pd.read_csv(src, sep=delimiter, header=0 if header else None, na_values=list(MISSING_MARKERS),
                            skipinitialspace=True, engine="python" if delimiter == r"\s+" else "c")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"{src}: not a table of numbers ({msg})") from None
    if header:
        # pandas renames a repeated name ("A", "A.1"); take the names as written, so that
        # ContinuousData refuses the duplicates.
        written = pd.read_csv(src, sep=delimiter, header=None, nrows=1, dtype=str, keep_default_na=False,
                              skipinitialspace=True, engine="python" if delimiter == r"\s+" else "c")
        labels = [str(v).strip() for v in written.iloc[0].tolist()]
        if len(labels) == frame.shape[1]:
            frame.columns = labels
    else:
        frame.columns = [str(j) for j in range(frame.shape[1])]
    return as_continuous(frame, names=names, source=src)


#: The reading options that apply to continuous data (the others declare discrete states).
CONTINUOUS_READ_OPTIONS = ("header", "delimiter", "names")


def continuous_input(data: object, read_options: Mapping[str, object] | None = None, *,
                     score: str = "Gaussian") -> ContinuousData:
    """What a caller gave with a Gaussian score, as :class:`ContinuousData`: the one place that reads it.

    A file is read by :func:`read_continuous` (``header``, ``delimiter``, ``names``), an array or
    frame by :func:`as_continuous` (``names``), a :class:`ContinuousData` is taken as it is.  A
    discrete :class:`~gobnilp_py.data.dataset.Dataset` is refused (its columns are states, not
    measurements), and so are the reading options that declare discrete states (``arities``,
    ``missing_values``, ``state_names``), each in one line.
    """
    import os

    from ..errors import ParameterError
    from .dataset import Dataset

    opts = {k: v for k, v in (read_options or {}).items() if v is not None}
    discrete = sorted(k for k in opts if k not in CONTINUOUS_READ_OPTIONS)
    if discrete:
        raise ParameterError(f"data option(s) {', '.join(discrete)} declare discrete data; the Gaussian score "
                             f"{score!r} reads measurements (options: {', '.join(CONTINUOUS_READ_OPTIONS)})")
    names = opts.get("names")
    if isinstance(data, Dataset):
        raise DataError(f"{data.source}: the data were read as discrete states (a Dataset); the Gaussian score "
                        f"{score!r} needs the measurements: give the file, array or DataFrame itself")
    if isinstance(data, (str, os.PathLike)):
        kw = {k: opts[k] for k in ("header", "delimiter") if k in opts}
        return read_continuous(data, names=names, **kw)  # type: ignore[arg-type]
    file_only = sorted(k for k in opts if k in ("header", "delimiter"))
    if file_only:
        raise ParameterError(f"data option(s) {', '.join(file_only)} apply to a file, not to "
                             f"{type(data).__name__} data")
    return as_continuous(data, names=names)  # type: ignore[arg-type]


def check_full_rank(data: ContinuousData, rtol: float = COLLINEAR_RTOL) -> np.ndarray:
    """Check that no column is (nearly) a linear function of the others; return ``1 - R²`` per column.

    ``1 - R²_j`` is the fraction of column ``j``'s variance that the other columns leave
    unexplained, ``1 / (C⁻¹)_jj`` for the correlation matrix ``C``; it is computed from a
    Cholesky factor of ``C`` with ``j`` last, never from an explicit inverse.  Raises a
    :class:`DataError` naming the column with the smallest value when it is ``<= rtol``, and the
    columns it depends on; when there are no more rows than columns (``N <= n``) the message
    says so, since the covariance of ``n`` columns from ``N <= n`` rows is always singular.
    """
    N, n = data.N, data.n
    if N <= n:
        raise DataError(f"{data.source}: {N} rows for {n} variables: the covariance matrix is singular (a "
                        f"linear-Gaussian family with p parents needs more than p + 1 rows, so every family "
                        f"up to {n - 1} parents needs at least {n + 1} rows)")
    corr = data.correlation()
    resid = np.empty(n)
    for j in range(n):
        order = [k for k in range(n) if k != j] + [j]
        sub = corr[np.ix_(order, order)]
        try:
            L = np.linalg.cholesky(sub)
        except np.linalg.LinAlgError:
            resid[j] = 0.0
            continue
        resid[j] = float(L[-1, -1]) ** 2
    j = int(np.argmin(resid))
    if resid[j] <= rtol:
        others = [k for k in range(n) if k != j]
        # Which columns it depends on: least-squares coefficients on the standardised columns.
        coef, *_ = np.linalg.lstsq(corr[np.ix_(others, others)], corr[others, j], rcond=None)
        big = [data.names[others[i]] for i in np.argsort(-np.abs(coef)) if abs(coef[i]) > 1e-6][:5]
        on = f" (mostly of {_listed(big)})" if big else ""
        raise DataError(f"{data.source}: column {data.names[j]!r} is (nearly) a linear function of the other "
                        f"columns{on}: 1 - R² = {resid[j]:.3g} <= {rtol:g}, so the covariance matrix is singular "
                        "for the Gaussian scores; drop one of the collinear columns")
    return resid
