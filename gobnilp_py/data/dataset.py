"""The :class:`Dataset` value object: discrete data as integer codes.

Every later stage works on ``codes`` (an ``N x n`` array of small
non-negative integers, ``codes[:, j] < arities[j]``), never on the original
labels, so counting can be vectorised with mixed-radix arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Dataset"]


@dataclass(frozen=True, eq=False)
class Dataset:
    """Discrete data, integer coded.

    Attributes
    ----------
    names : tuple of str
        Variable names in column order.
    arities : numpy.ndarray of int64, shape (n,)
        Number of states of each variable (declared, or observed).  A state
        may be unobserved when the arity was declared larger than the data.
    codes : numpy.ndarray of int, shape (N, n)
        ``codes[r, j]`` is the state of variable ``j`` in row ``r``,
        ``0 <= codes[r, j] < arities[j]``.
    labels : tuple of tuples
        ``labels[j][k]`` is the original label of state ``k`` of variable ``j``
        (strings, or the values found in a frame or array).
    source : str
        Where the data came from, for messages.
    """

    names: tuple[str, ...]
    arities: np.ndarray
    codes: np.ndarray
    labels: tuple[tuple[object, ...], ...] = ()
    source: str = "<data>"
    _cols: tuple[np.ndarray, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        codes = np.asarray(self.codes)
        dtype = np.int64
        object.__setattr__(self, "codes", np.ascontiguousarray(codes, dtype=dtype))
        object.__setattr__(self, "arities", np.asarray(self.arities, dtype=np.int64))
        object.__setattr__(self, "names", tuple(str(x) for x in self.names))
        # Column-major copies: counting reads whole columns, so keep each one contiguous.
        object.__setattr__(self, "_cols", tuple(np.ascontiguousarray(self.codes[:, j]) for j in range(self.n)))

    @property
    def N(self) -> int:
        """Number of rows (data points)."""
        return int(self.codes.shape[0])

    @property
    def n(self) -> int:
        """Number of variables."""
        return int(self.codes.shape[1])

    def column(self, j: int) -> np.ndarray:
        """Contiguous int64 codes of variable ``j``."""
        return self._cols[j]

    def index(self, name: str) -> int:
        """Index of a variable by name (raises DataError naming an unknown one)."""
        from ..errors import DataError

        try:
            return self.names.index(str(name))
        except ValueError:
            raise DataError(f"unknown variable {name!r}; known: {', '.join(self.names)}") from None

    def __repr__(self) -> str:
        return f"Dataset(n={self.n}, N={self.N}, source={self.source!r})"
