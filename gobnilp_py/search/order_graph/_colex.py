"""Colexicographic ranks of fixed-size node sets, vectorised (the order graph's in-RAM layer index).

The ``k``-subsets of ``{0..n-1}`` in *colex* order are exactly their bitmasks
in increasing numeric order, and the rank of ``{b_0 < b_1 < ... < b_{k-1}}``
is ``sum_i C(b_i, i + 1)`` (the combinatorial number system).  So a dense
array indexed by rank holds a layer sorted by mask with no sort at all.

:class:`Colex` splits a mask into 12-bit pieces (one ``n``-bit piece when
``n < 12``); piece ``j`` contributes ``T_j[c, x]`` where ``c`` is the number of
set bits below the piece and ``x`` its bits, so a rank costs two small-table
gathers per piece.  Unranking walks ``k`` down to 1 with a binary search in the
column ``C(., k)``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Colex"]

_PIECE = 12


class Colex:
    """Rank / unrank of ``k``-subsets of ``{0..n-1}`` as ``uint64`` masks (``n <= 63``)."""

    def __init__(self, n: int) -> None:
        self.n = n
        # pieces of at most 12 bits, and no wider than n: for a small n the tables have 2^n columns, not
        # 4096 (the same ranks; building the 4096-column tables cost 0.2 ms a search on a 5-variable table)
        self.bits = bits = min(_PIECE, max(n, 1))
        self.binom = np.array([[math.comb(c, k) for k in range(n + 2)] for c in range(n + 1)], dtype=np.int64)
        self.pieces = []
        x = np.arange(1 << bits, dtype=np.int64)
        self.popcount = np.zeros(1 << bits, dtype=np.int64)
        for t in range(bits):
            self.popcount += (x >> t) & 1
        for start in range(0, max(n, 1), bits):
            width = min(bits, n - start) if n else 0
            table = np.zeros((start + 1, 1 << bits), dtype=np.int64)
            for c in range(start + 1):
                cnt = np.full(x.shape, c, dtype=np.int64)
                acc = np.zeros(x.shape, dtype=np.int64)
                for t in range(width):
                    bit = (x >> t) & 1
                    cnt += bit
                    acc += bit * self.binom[start + t, np.minimum(cnt, n + 1)]
                table[c] = acc
            self.pieces.append((start, table.reshape(-1)))

    def size(self, k: int) -> int:
        """Number of ``k``-subsets."""
        return math.comb(self.n, k)

    def rank(self, masks: np.ndarray) -> np.ndarray:
        """Colex rank (int64) of each ``uint64`` mask among the masks of its own popcount."""
        r = np.zeros(masks.shape, dtype=np.int64)
        c = np.zeros(masks.shape, dtype=np.int64)
        width = 1 << self.bits
        for start, table in self.pieces:
            x = ((masks >> np.uint64(start)) & np.uint64(width - 1)).astype(np.int64)
            r += table[c * width + x]
            c += self.popcount[x]
        return r

    def unrank(self, ranks: np.ndarray, k: int) -> np.ndarray:
        """The ``k``-subsets (``uint64`` masks) with the given colex ranks."""
        r = np.asarray(ranks, dtype=np.int64).copy()
        out = np.zeros(r.shape, dtype=np.uint64)
        for j in range(k, 0, -1):
            col = self.binom[:, j]  # C(c, j) for c = 0..n, nondecreasing
            c = np.searchsorted(col, r, side="right") - 1
            out |= np.uint64(1) << c.astype(np.uint64)
            r -= col[c]
        return out
