"""The subset loops of the exact posterior sums (:mod:`.posterior_sums`), compiled by numba when it is installed.

Every quantity is held as a natural logarithm (``-inf`` for zero).  Signed
sums (the inclusion–exclusion over sink sets) are formed in linear
arithmetic relative to a scale known to bound their terms: the largest term
(two passes over one set's terms, :func:`backward_level`) or the sum over
orders (:func:`forward_level`, whose terms arrive from many sets).  Sets are
processed size by size; within a size the work is split between two *lanes*
by a function of the set alone (:func:`owner`), so two threads can run the
lanes at once without sharing a written entry, and the result does not
depend on whether they do.  Each call handles ``count`` sets and returns
where it stopped, so the Python driver can look at the clock and at Ctrl-C
between calls; the first call of each kernel compiles it (the driver holds
signals then, see :func:`gobnilp_py._interrupt.held`).

Indexing: a set of nodes is a bitmask over all ``n`` nodes; a per-node table
(``la[v]``, ``lab[v]``) is indexed by a set of the *other* nodes, bit ``v``
squeezed out (:func:`squeeze`).  Without numba these are plain Python
functions (correct, about a hundred times slower; the driver limits ``n``).
"""

from __future__ import annotations

import math

import numpy as np

from .._numba import AVAILABLE, jit

__all__ = ["AVAILABLE", "log_zeta_subsets", "log_zeta_supersets", "forward_level", "finish_level", "backward_level",
           "order_sum_chunk", "trailing_zeros", "squeeze", "owner", "next_set", "FIELDS", "SCALE"]


#: float64's unit roundoff.
_U = 2.0 ** -53


def _compiled(f):  # type: ignore[no-untyped-def]
    return jit(f) if AVAILABLE else f


@_compiled
def _logaddexp(a, b):  # type: ignore[no-untyped-def]
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    if a >= b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


@_compiled
def squeeze(mask, v):  # type: ignore[no-untyped-def]
    """``mask`` (bit ``v`` clear) as an index over the other ``n - 1`` nodes."""
    return ((mask >> (v + 1)) << v) | (mask & ((1 << v) - 1))


def trailing_zeros(n: int) -> np.ndarray:
    """``tz[j]`` = index of the lowest set bit of ``j`` for ``1 <= j < 2^n`` (``tz[0] = 0``).

    int8 for the compiled kernels (a small table stays in cache); int64 for the
    Python fallback, where int8 scalar arithmetic would overflow.
    """
    tz = np.zeros(1 << n, dtype=np.int8 if AVAILABLE else np.int64)
    for b in range(n):
        tz[1 << b::1 << (b + 1)] = b
    return tz


@_compiled
def log_zeta_subsets(a, m):  # type: ignore[no-untyped-def]
    """In place: ``a[x] <- log sum_{y subset of x} exp(a[y])`` over ``m``-bit masks (positive sums only)."""
    size = 1 << m
    for b in range(m):
        bit = 1 << b
        for x in range(size):
            if x & bit:
                a[x] = _logaddexp(a[x], a[x ^ bit])


@_compiled
def log_zeta_supersets(a, m):  # type: ignore[no-untyped-def]
    """In place: ``a[x] <- log sum_{y superset of x} exp(a[y])`` over ``m``-bit masks."""
    size = 1 << m
    for b in range(m):
        bit = 1 << b
        for x in range(size):
            if not x & bit:
                a[x] = _logaddexp(a[x], a[x | bit])


@_compiled
def _gather(n, la, W, full, cl, cbit, cidx):  # type: ignore[no-untyped-def]
    """The nodes outside ``W``, their bits and ``log alpha_t(W)``; returns how many."""
    k = 0
    for t in range(n):
        bit = 1 << t
        if not (W & bit):
            cl[k] = la[t, squeeze(W, t)]
            cbit[k] = bit
            cidx[k] = t
            k += 1
    return k


@_compiled
def owner(S):  # type: ignore[no-untyped-def]
    """The lane (0 or 1) that owns set ``S``: the parity of the bits of ``S`` from bit 3 up.

    A function of the set alone, so two lanes never write the same entry and the
    order in which an entry receives its terms does not depend on how the lanes
    are scheduled (the results are the same on one thread or two); sets that
    differ only in bits 0-2 (one 64-byte cache line of float64) share a lane.
    """
    x = S >> 3
    p = 0
    while x:
        x &= x - 1
        p ^= 1
    return p


@_compiled
def next_set(W, full):  # type: ignore[no-untyped-def]
    """The next set with as many elements as ``W`` in increasing order (Gosper), ``-1`` after the last."""
    if W == 0:
        return -1
    c = W & -W
    r = W + c
    nxt = (((r ^ W) >> 2) // c) | r
    return nxt if nxt <= full else -1


#: Fields of the forward pass's per-set record ``acc[S]`` (one row, so a push touches one cache line):
#: the scale ``log L(S)``, the compensated signed sum and its correction, the sum of magnitudes, and the
#: magnitude-weighted rounding of the terms' logs (in units of ``u``).
SCALE, SUM, CORR, ABS, ERR = 0, 1, 2, 3, 4
#: Fields per record.
FIELDS = 5


@_compiled
def _push(acc, S, x, sg, em):  # type: ignore[no-untyped-def]
    """Add the term ``sg * exp(x)`` to set ``S``'s sums, relative to ``L(S)`` (compensated).

    ``em`` is the sum of the magnitudes of the partial sums that made ``x``: the
    rounding of ``x`` is at most ``u em``, that of ``x - log L(S)`` another
    ``u |x - log L(S)|``, and ``exp`` adds one ulp; the term's magnitude times
    ``em + |x - log L(S)| + 2`` goes to ``acc[S, ERR]``.
    """
    d = x - acc[S, SCALE]
    e = math.exp(d)
    y = sg * e - acc[S, CORR]
    t = acc[S, SUM] + y
    acc[S, CORR] = (t - acc[S, SUM]) - y
    acc[S, SUM] = t
    acc[S, ABS] += e
    acc[S, ERR] += e * (em + abs(d) + 2.0)


@_compiled
def forward_level(n, la, acc, lR, W, count, lane, tz, part, em, tmask, sgn, par,  # type: ignore[no-untyped-def]
                  cl, cbit, cidx, cl2, cbit2, cm2):
    """Robinson's sum over sink sets: push the terms of up to ``count`` finished sets ``W`` of one size.

    ``R(S) = sum_{T nonempty subset of S} (-1)^(|T|+1) R(S - T) prod_{t in T} alpha_t(S - T)``.

    Sizes are taken in increasing order (the driver finishes every set of size
    ``k`` with :func:`finish_level` before pushing from it), so ``R(W)`` is final
    when ``W`` pushes.  Each lane pushes only to the sets it owns
    (:func:`owner`): with ``p`` the lowest node outside ``W`` from node 3 up, each
    subset ``T'`` of the other outside nodes gives exactly one ``T`` (``T'`` or
    ``T' + p``) of each owner, so each lane takes half the terms without looking
    at the other half.  A term is added in linear arithmetic relative to
    ``L(S)``, the sum over orders of ``S`` (:func:`order_sum_chunk`, in
    ``acc[S, SCALE]``): it counts the DAGs on ``S`` of which ``T`` are sinks, so
    it is at most ``R(S) <= L(S)``, while ``R(S) >= L(S) / |S|!``: nothing that
    matters underflows.  The signed sum is compensated (Kahan: its rounding is
    ``2u`` times the sum of magnitudes whatever the number of terms); the
    per-set record ``acc[S]`` holds every running sum (:data:`SCALE` ... :data:`ERR`).

    Returns the set after the last one processed (``-1`` when the size is done).
    """
    full = (1 << n) - 1
    done = 0
    while W != -1 and done < count:
        base = lR[W]
        if base != -math.inf and W != full:
            k = _gather(n, la, W, full, cl, cbit, cidx)
            piv = -1
            for b in range(k):
                if cidx[b] >= 3:
                    piv = b
                    break
            wpar = owner(W)
            part[0] = base
            em[0] = abs(base)
            tmask[0] = 0
            sgn[0] = -1
            if piv == -1:                       # every outside node below 3: every target has W's owner
                if wpar == lane:
                    for j in range(1, 1 << k):
                        b = tz[j]
                        prev = j ^ (1 << b)
                        x = part[prev] + cl[b]
                        part[j] = x
                        em[j] = em[prev] + abs(x)
                        tmask[j] = tmask[prev] | cbit[b]
                        sgn[j] = -sgn[prev]
                        if x != -math.inf:
                            _push(acc, W | tmask[j], x, float(sgn[j]), em[j])
            else:
                m = 0
                for b in range(k):
                    if b != piv:
                        cl2[m] = cl[b]
                        cbit2[m] = cbit[b]
                        cm2[m] = 1 if cidx[b] >= 3 else 0
                        m += 1
                lp = cl[piv]
                bp = cbit[piv]
                par[0] = 0
                if wpar != lane and base + lp != -math.inf:      # T' empty: T = {pivot}
                    x = base + lp
                    _push(acc, W | bp, x, 1.0, em[0] + abs(x))
                flip = wpar ^ lane
                for j in range(1, 1 << m):
                    b = tz[j]
                    prev = j ^ (1 << b)
                    p = part[prev] + cl2[b]
                    part[j] = p
                    ep = em[prev] + abs(p)
                    em[j] = ep
                    tm = tmask[prev] | cbit2[b]
                    tmask[j] = tm
                    sg = -sgn[prev]
                    sgn[j] = sg
                    q = par[prev] ^ cm2[b]
                    par[j] = q
                    add = q ^ flip                   # 1: the pivot joins T and flips the owner (selects, no branch)
                    x = p + (lp if add else 0.0)
                    if x != -math.inf:
                        _push(acc, W | tm | (bp if add else 0), x, float(-sg if add else sg),
                              ep + (abs(x) if add else 0.0))
        done += 1
        W = next_set(W, full)
    return W


@_compiled
def finish_level(n, acc, lR, lA, lE, k):  # type: ignore[no-untyped-def]
    """Turn the sums of every set ``S`` of size ``k`` into ``lR[S] = log R(S)``, ``lA[S] = log A(S)`` and
    ``lE[S] = log E(S)``.

    ``A(S)``, the sum of the terms' magnitudes, over ``R(S)`` is the condition
    of the signed sum; ``E(S)`` bounds its rounding in units of ``u`` (the
    terms' logs and the compensated sum, ``2 A(S)``).  ``R(S) = 0`` exactly when
    no term is nonzero (a nonzero term exhibits a DAG on ``S``), so a
    non-positive sum with nonzero terms means the cancellation ate every
    digit: returns that set, else ``-1``.
    """
    full = (1 << n) - 1
    S = (1 << k) - 1
    while S != -1:
        s = acc[S, SUM] - acc[S, CORR]
        a = acc[S, ABS]
        if a == 0.0:
            lR[S] = -math.inf
            lA[S] = -math.inf
            lE[S] = -math.inf
        elif not (s > 0.0 and a < math.inf):
            return S
        else:
            scale = acc[S, SCALE]
            lR[S] = scale + math.log(s)
            lA[S] = scale + math.log(a)
            lE[S] = scale + math.log(acc[S, ERR] + 2.0 * a)
        S = next_set(S, full)
    return -1


@_compiled
def _pairwise_sum(h, lo, hi, scratch):  # type: ignore[no-untyped-def]
    """Sum of ``h[lo:hi]`` (a power of two long) by pairwise folding (error ``<= log2(len) u sum|h|``)."""
    m = hi - lo
    if m <= 32:
        s = 0.0
        for i in range(lo, hi):
            s += h[i]
        return s
    half = m >> 1
    for i in range(half):
        scratch[i] = h[lo + i] + h[lo + half + i]
    m = half
    while m > 32:
        half = m >> 1
        for i in range(half):
            scratch[i] += scratch[half + i]
        m = half
    s = 0.0
    for i in range(m):
        s += scratch[i]
    return s


@_compiled
def backward_level(n, la, lR, lQ, lAQ, lab, W, count, lane, tz, part, tmask, sgn, h, scratch, cl, cbit, cidx,  # type: ignore[no-untyped-def]
                   marg, lZ, drop, dropped):
    """The adjoint of :func:`forward_level`: ``Q(W) = dZ/dR(W)`` and ``dZ/d alpha_t(W)`` for up to ``count`` sets of one size.

    ``Q(W) = sum_{T nonempty, disjoint from W} h(T)`` with
    ``h(T) = (-1)^(|T|+1) Q(W + T) prod_{t in T} alpha_t(W)``: the weight of
    every way to add the nodes outside ``W`` to a DAG on ``W`` (each new node
    may take parents anywhere).  For ``t`` outside ``W``,
    ``dZ/d alpha_t(W) = R(W) / alpha_t(W) * sum_{T containing t} h(T)``, which
    is ``>= 0`` (the weight of the DAGs whose non-descendants of ``t`` are
    exactly ``W``), stored as ``lab[t, squeeze(W, t)]``.  The sums over
    ``T containing t`` for every ``t`` come from one halving pass over ``h``
    (``2^k`` additions, not ``k 2^(k-1)``), each by pairwise folding.  Sizes are
    taken in decreasing order (``Q`` of every superset is final); a lane
    processes the sets it owns (:func:`owner`) among the ``count`` from ``W``.

    ``lQ[W]``, ``lAQ[W]`` (log of the sum of magnitudes) are written for every
    ``W`` processed.  A value that must be positive may come out non-positive
    when it is (nearly) zero and its terms are not: a marginal is exactly zero
    when no DAG has ``t`` as the only new source, and any value loses its
    digits when the cancellation is worse than float64 holds.  Such a value
    is taken as zero when it is zero within the rounding of its own sum
    (``noise``, the pairwise sums' bound), or when what it could carry is
    negligible: every use of ``Q(W)`` or of ``dZ/d alpha_t(W) alpha_t(W)`` weighs
    at most ``R(W) x (its magnitude)``, compared with ``Z = exp(lZ)``, below
    ``drop`` (a fraction of ``Z``).  What each such zero could carry, its
    magnitude plus the noise, is added to ``dropped[0]``; otherwise the pass fails.  Returns the set after the last one processed
    (``-1`` when the size is done), or ``-(W + 2)`` on failure.
    """
    full = (1 << n) - 1
    done = 0
    while W != -1 and done < count:
        if W == full or owner(W) != lane:
            done += 1
            W = next_set(W, full)
            continue
        k = _gather(n, la, W, full, cl, cbit, cidx)
        part[0] = 0.0
        tmask[0] = 0
        sgn[0] = -1
        mx = -math.inf
        size = 1 << k
        for j in range(1, size):
            b = tz[j]
            prev = j ^ (1 << b)
            p = part[prev] + cl[b]
            part[j] = p
            tm = tmask[prev] | cbit[b]
            tmask[j] = tm
            sgn[j] = -sgn[prev]
            x = p + lQ[W | tm]
            h[j] = x
            if x > mx:
                mx = x
        r = lR[W]
        if mx == -math.inf:
            lQ[W] = -math.inf
            lAQ[W] = -math.inf
            for b in range(k):
                lab[cidx[b], squeeze(W, cidx[b])] = -math.inf
        else:
            h[0] = 0.0
            a = 0.0
            for j in range(1, size):
                x = h[j]
                if x == -math.inf:
                    h[j] = 0.0
                else:
                    e = math.exp(x - mx)
                    a += e
                    h[j] = sgn[j] * e
            # halving pass: the upper half at step b holds the terms with node b, folded over higher bits
            for b in range(k - 1, -1, -1):
                half = 1 << b
                marg[b] = _pairwise_sum(h, half, 2 * half, scratch)
                for i in range(half):
                    h[i] += h[half + i]
            q = h[0]
            noise = (k + 40) * _U * a          # the pairwise sums' own rounding, relative to the scale
            lAQ[W] = mx + math.log(a)
            if q > 0.0:
                lQ[W] = mx + math.log(q)
            else:
                if r != -math.inf:
                    share = math.exp(r + mx - lZ) * (noise - q)
                    if q < -noise and share > drop:
                        return -(W + 2)
                    dropped[0] += share
                lQ[W] = -math.inf
            for b in range(k):
                t = cidx[b]
                mb = marg[b]
                if r == -math.inf or cl[b] == -math.inf:
                    lab[t, squeeze(W, t)] = -math.inf
                elif mb <= 0.0:
                    share = math.exp(r + mx - lZ) * (noise - mb)
                    if mb < -noise and share > drop:
                        return -(W + 2)
                    dropped[0] += share
                    lab[t, squeeze(W, t)] = -math.inf
                else:
                    lab[t, squeeze(W, t)] = r + mx + math.log(mb) - cl[b]
        done += 1
        W = next_set(W, full)
    return W


@_compiled
def order_sum_chunk(n, la, lL, S, budget):  # type: ignore[no-untyped-def]
    """Koivisto and Sood's sum over orders: ``L(S) = sum_{v in S} L(S - v) alpha_v(S - v)`` (all terms positive).

    Sets in increasing numeric order from ``S`` (``lL[0] = 0`` set by the
    caller); each sum by its largest term first.  Returns the next set.
    """
    full = (1 << n) - 1
    work = 0
    while S <= full:
        mx = -math.inf
        for v in range(n):
            bit = 1 << v
            if S & bit:
                x = lL[S ^ bit] + la[v, squeeze(S ^ bit, v)]
                if x > mx:
                    mx = x
        if mx == -math.inf:
            lL[S] = -math.inf
        else:
            s = 0.0
            for v in range(n):
                bit = 1 << v
                if S & bit:
                    x = lL[S ^ bit] + la[v, squeeze(S ^ bit, v)]
                    if x != -math.inf:
                        s += math.exp(x - mx)
            lL[S] = mx + math.log(s)
        work += n
        S += 1
        if work >= budget:
            break
    return S
