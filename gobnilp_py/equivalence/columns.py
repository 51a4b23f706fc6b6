"""A collection of networks as arrays: parent bitmasks and scores, for the bulk summaries and writers.

Why: a credible set can hold 150,000 networks of 45 variables, and every summary and output of it
(classes, edge and arrow probabilities, the CSV, model strings, GOBNILP text, JSON) walked it one
Python object per network and variable, each pass building the networks' name dictionaries anew:
146,097 networks took 115 s to write after the search (issue 39).  Here the structure is read once
into ``masks`` (row ``k``, column ``v``: the parents of ``names[v]`` in network ``k`` as a bitmask)
and the work is numpy on that array.

Every function here returns exactly what the per-network code it replaces returned, float for
float (sums are taken in the same order, see :meth:`NetworkColumns.arrow_weights`), so written
files keep their bytes.  :func:`columns_of` returns ``None`` where the fast path does not apply (not
every item a :class:`~gobnilp_py.network.Network` over one ``names`` tuple, more than 64 variables,
a non-finite score); callers then keep their general code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["NetworkColumns", "columns_of", "model_strings", "modelstrings_text", "local_columns", "gobnilp_text",
           "networks_json", "collection_frame"]


@dataclass
class NetworkColumns:
    """The networks' parent bitmasks ``masks`` (N x n, uint64) and ``scores`` (N,), in input order."""

    names: tuple[str, ...]
    masks: np.ndarray
    scores: np.ndarray
    _bits_cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return len(self.names)

    def __len__(self) -> int:
        return int(self.masks.shape[0])

    # ------------------------------------------------------------------ arrows
    def arrows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every arrow as ``(network, child, parent)`` index arrays, ordered by network, child, parent.

        The order in which the per-network code listed them (children in ``names`` order, parents
        sorted), which the sums of :meth:`arrow_weights` depend on.  Each mask's bits are taken
        lowest first, one round per parent (a few rounds), each written to its place in the output,
        so no sort is needed.
        """
        got = self._bits_cache.get("arrows")
        if got is None:
            n = self.n
            flat = self.masks.reshape(-1)
            count = np.bitwise_count(flat).astype(np.int64)
            at = np.cumsum(count) - count                  # where each (network, child)'s parents start
            total = int(count.sum())
            where = np.empty(total, dtype=np.int64)        # network * n + child of each arrow
            parent = np.empty(total, dtype=np.int64)
            live = np.flatnonzero(count)
            m, pos = flat[live], at[live]
            one = np.uint64(1)
            while live.size:
                low = m & (~m + one)                       # the lowest parent left
                where[pos] = live
                parent[pos] = np.bitwise_count(low - one)
                m = m ^ low
                keep = m != 0
                live, m, pos = live[keep], m[keep], pos[keep] + 1
            k, v = np.divmod(where, n)            # int32: 150,000 networks' arrows take 12 bytes each
            got = self._bits_cache["arrows"] = (k.astype(np.int32), v.astype(np.int32), parent.astype(np.int32))
        return got

    def n_edges(self) -> np.ndarray:
        """Arrows per network."""
        return np.bitwise_count(self.masks).sum(axis=1, dtype=np.int64)

    # ------------------------------------------------------------------ averaging
    def arrow_weights(self, w: np.ndarray) -> np.ndarray:
        """``A[u, v]`` = sum of ``w[k]`` over the networks ``k`` with ``u -> v``.

        One :func:`numpy.bincount` over the arrows in network order: each entry is the sum of its
        networks' weights added one after the other in network order, exactly as the per-network
        code summed them (the same floats, so the probabilities written are the same to the bit).
        """
        n = self.n
        k, v, u = self.arrows()
        if not k.size:
            return np.zeros((n, n))
        return np.bincount(u.astype(np.int64) * n + v, weights=w[k], minlength=n * n).reshape(n, n)

    # ------------------------------------------------------------------ classes
    def class_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """Per network the class key of :func:`gobnilp_py.equivalence.cpdag.class_key`: ``(adj, vp)`` masks.

        ``adj[k, v]``: the neighbours of ``v``; ``vp[k, z]``: the parents ``x`` of ``z`` not adjacent to
        some other parent of ``z`` (the v-structures at ``z``).  Two networks are Markov equivalent iff
        both rows are equal (see ``_key_of``, whose per-network loop this replaces).
        """
        n, N = self.n, len(self)
        pa = self.masks
        k, v, u = self.arrows()
        # children masks: each arrow u -> v of network k puts bit v into ch[k, u]; the bits added to one
        # entry are distinct, so their sum is their OR
        ch = np.zeros(N * n, dtype=np.uint64)
        np.add.at(ch, k.astype(np.int64) * n + u, np.left_shift(np.uint64(1), v.astype(np.uint64)))
        ch = ch.reshape(N, n)
        adj = pa | ch
        vp = np.zeros(N * n, dtype=np.uint64)
        if k.size:
            kz = k.astype(np.int64) * n + v
            indeg = np.bincount(kz, minlength=N * n)
            sel = indeg[kz] > 1
            ks, zs, xs = k[sel], v[sel], u[sel]
            xbit = np.left_shift(np.uint64(1), xs.astype(np.uint64))
            hit = (pa[ks, zs] & ~adj[ks, xs] & ~xbit) != 0
            kz, xbit = kz[sel][hit], xbit[hit]
            if kz.size:  # the arrows come sorted by (network, child): OR each child's run of bits
                starts = np.flatnonzero(np.r_[True, kz[1:] != kz[:-1]])
                vp[kz[starts]] = np.bitwise_or.reduceat(xbit, starts)
        return adj, vp.reshape(N, n)


def columns_of(networks: Sequence[Any]) -> NetworkColumns | None:
    """The arrays of ``networks``, or ``None`` when the fast path does not apply (see the module docstring)."""
    from ..network import Network

    nets = networks if isinstance(networks, (list, tuple)) else list(networks)
    if not nets or type(nets[0]) is not Network:
        return None
    names = nets[0].names
    n = len(names)
    if n == 0 or n > 64:
        return None
    rows = []
    for net in nets:
        if type(net) is not Network or (net.names is not names and net.names != names):
            return None
        rows.append(net._mask_row())
    scores = np.fromiter((net.score for net in nets), dtype=float, count=len(nets))
    if not np.isfinite(scores).all():
        return None
    masks = np.frombuffer(b"".join(rows), dtype="<u8").reshape(len(nets), n).astype(np.uint64, copy=False)
    return NetworkColumns(names, masks, scores)


# ---------------------------------------------------------------------- text, one fragment per family
def _family_codes(cols: NetworkColumns) -> list[tuple[list[int], np.ndarray, np.ndarray]]:
    """Per variable ``v``: the distinct parent masks, each network's index into them, a network with each.

    Every text output is made from these codes: a collection repeats the same families over and over
    (45 variables, 150,000 networks: a few thousand distinct families), so each family's text is
    formatted once and the networks' texts are assembled from the codes.
    """
    got = cols._bits_cache.get("codes")
    if got is None:
        got = []
        for v in range(cols.n):
            uniq, first, inverse = np.unique(cols.masks[:, v], return_index=True, return_inverse=True)
            got.append((uniq.tolist(), inverse.reshape(-1).astype(np.int32), first))
        cols._bits_cache["codes"] = got
    return got


def _assemble(cols: NetworkColumns, texts: list[list[str]], heads: Sequence[str] | None, tails: Sequence[str],
              codes: list[np.ndarray] | None = None) -> str:
    """One string: for each network ``heads[k]``, the text of each of its families, ``tails[k]``.

    ``texts[v][i]``: the text of variable ``v``'s ``i``-th distinct family (its separator included);
    ``codes[v]``: each network's family index (default: by parent set).  Built as one flat list
    joined once, so no per-network string is made along the way.
    """
    N, n = cols.masks.shape
    codes = codes or [inverse for _, inverse, _ in _family_codes(cols)]
    grid = np.empty((N, n + 2), dtype=object)
    grid[:, 0] = "" if heads is None else heads
    for v in range(n):
        table = np.empty(len(texts[v]), dtype=object)
        table[:] = texts[v]
        grid[:, v + 1] = table[codes[v]]
    grid[:, n + 1] = tails
    return "".join(grid.ravel().tolist())


def _bits_of(m: int) -> tuple[int, ...]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return tuple(out)


def modelstrings_text(cols: NetworkColumns) -> str:
    """:meth:`Network.to_modelstring` of every network, one per line (names checked the same way)."""
    got = cols._bits_cache.get("modelstrings")
    if got is None:
        from ..network import _check_format

        names = cols.names
        _check_format(names, "modelstring")
        texts = [[f"[{names[v]}|{':'.join(names[p] for p in _bits_of(m))}]" if m else f"[{names[v]}]"
                  for m in uniq] for v, (uniq, _, _) in enumerate(_family_codes(cols))]
        got = cols._bits_cache["modelstrings"] = _assemble(cols, texts, None, "\n")
    return got


def model_strings(cols: NetworkColumns) -> list[str]:
    """:meth:`Network.to_modelstring` of every network (a model string holds no line break)."""
    return modelstrings_text(cols).split("\n")[:-1]


def local_columns(networks: Sequence[Any], n: int) -> np.ndarray | None:
    """Local scores (N x n) in ``names`` order, or ``None`` when some network does not carry them all."""
    rows = [net._local_row() for net in networks]
    if any(r is None or len(r) != n for r in rows):
        return None
    from itertools import chain

    return np.fromiter(chain.from_iterable(rows), dtype=float, count=len(rows) * n).reshape(len(rows), n)


def gobnilp_text(cols: NetworkColumns, local: np.ndarray, heads: Sequence[str], digits: int = 6) -> str:
    """GOBNILP's text of every network (:meth:`Network.to_gobnilp_text`), each after its ``heads[k]``
    line, separated by blank lines: what :func:`gobnilp_py.output.writers.gobnilp_text` writes.

    A family's line holds its local score, so lines are formatted once per distinct (variable,
    parent set, local score): one score per family when the networks come from one score table.
    """
    from ..network import _check_format

    names = cols.names
    _check_format(names, "gobnilp")
    bits = np.ascontiguousarray(local).view(np.uint64)  # compared as bits: equal floats, equal text
    texts, codes = [], []
    for v, (uniq, inverse, first) in enumerate(_family_codes(cols)):
        if np.array_equal(bits[:, v], bits[first[inverse], v]):  # one local score per family (one table)
            keys = list(zip(uniq, bits[first, v].tolist()))
        else:  # networks from several tables: a line per (parent set, local score)
            pair = np.stack([cols.masks[:, v], bits[:, v]], axis=1)
            uniq2, inverse = np.unique(pair, axis=0, return_inverse=True)
            keys, inverse = [tuple(x) for x in uniq2.tolist()], inverse.reshape(-1)
        texts.append([f"{names[v]}<-" + "".join(f"{names[p]}," for p in _bits_of(m)) + " "
                      + f"{float(np.uint64(x).view(np.float64)):.{digits}f}\n" for m, x in keys])
        codes.append(inverse)
    N = len(cols)
    tails = [f"BN score is {s:.{digits}f}\n\n" for s in cols.scores.tolist()]
    if N:
        tails[-1] = tails[-1][:-1]
    return _assemble(cols, texts, [h + "\n" for h in heads], tails, codes)


def networks_json(cols: NetworkColumns, depth: int) -> str:
    """The JSON of ``[{"score": s, "parents": {name: [parent names]}} ...]`` as ``json.dumps(indent=1)``
    writes it when the list stands at nesting ``depth``: the text :meth:`CredibleSet.to_dict`'s
    ``networks`` becomes in ``result.json``, byte for byte, without building 150,000 dictionaries.
    """
    import json

    names = cols.names
    n = len(names)
    enc = [json.dumps(x, ensure_ascii=False) for x in names]
    i1, i2, i3, i4 = (" " * (depth + d) for d in (1, 2, 3, 4))

    def item(v: int, m: int) -> str:
        sep = ",\n" if v < n - 1 else ""
        if not m:
            return f"{i3}{enc[v]}: []{sep}"
        inner = ",\n".join(f"{i4}{enc[p]}" for p in _bits_of(m))
        return f"{i3}{enc[v]}: [\n{inner}\n{i3}]{sep}"

    texts = [[item(v, m) for m in uniq] for v, (uniq, _, _) in enumerate(_family_codes(cols))]
    heads = [f"{i1}{{\n{i2}\"score\": {float.__repr__(s)},\n{i2}\"parents\": {{\n" for s in cols.scores.tolist()]
    tails = [f"\n{i2}}}\n{i1}}},\n"] * len(cols)
    if tails:
        tails[-1] = f"\n{i2}}}\n{i1}}}"
    return "[\n" + _assemble(cols, texts, heads, tails) + "\n" + " " * depth + "]"


def collection_frame(cols: NetworkColumns, opt: float, mec: Sequence[Any]) -> Any:
    """:meth:`CredibleSet.to_dataframe` from the arrays: the same columns, values and dtypes."""
    import math

    import pandas as pd

    scores = cols.scores.tolist()
    gaps = [opt - s for s in scores]
    return pd.DataFrame({
        "rank": list(range(1, len(scores) + 1)),
        "score": scores,
        "gap": gaps,
        "bayes_factor": [math.exp(g) if g < 700 else math.inf for g in gaps],
        "mec": list(mec),
        "n_edges": cols.n_edges().tolist(),
        "model": model_strings(cols),
    }, columns=["rank", "score", "gap", "bayes_factor", "mec", "n_edges", "model"])
