"""The hash tables of the compiled candidate generation (``scoring/_walk_numba.py``).

Every present mask must be found at its own position, every absent one
reported absent, for masks with high bits set (``1 << 62``), the empty mask
``0``, empty levels and levels of every size around the table growth; and the
per-child CSR must return positions *within* each child's level.  The
end-to-end check that generation with the tables equals the numpy walk is
``tests/test_walk_kernel.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobnilp_py.scoring import _walk_numba

pytestmark = pytest.mark.skipif(not _walk_numba.AVAILABLE, reason="numba is not installed (pip install .[fast])")


def _check(masks: np.ndarray, absent: np.ndarray) -> None:
    masks = np.unique(np.asarray(masks, dtype=np.int64))
    slots = _walk_numba.build_table(masks)
    assert slots.size == 2 * masks.size
    assert slots.dtype == np.int32
    # every row is in exactly one slot
    assert sorted(slots[slots >= 0].tolist()) == list(range(masks.size))
    assert np.array_equal(_walk_numba.lookup(slots, masks, masks), np.arange(masks.size))
    absent = np.setdiff1d(np.asarray(absent, dtype=np.int64), masks)
    assert np.all(_walk_numba.lookup(slots, masks, absent) == -1)


def test_empty_table_finds_nothing():
    e = np.zeros(0, dtype=np.int64)
    slots = _walk_numba.build_table(e)
    assert slots.size == 0
    assert _walk_numba.lookup(slots, e, np.array([0, 1, 1 << 62], dtype=np.int64)).tolist() == [-1, -1, -1]
    assert _walk_numba.lookup(slots, e, e).size == 0


def test_zero_and_high_bits():
    _check([0], [1, 1 << 62, -1])
    _check([1 << 62], [0, 1 << 61, (1 << 62) | 1, -(1 << 62)])
    _check([0, 1, 1 << 62, (1 << 62) | 1, (1 << 62) | (1 << 61), (1 << 63) - 1],
           [2, 3, 1 << 61, (1 << 62) | 2, (1 << 63) - 2])


@settings(max_examples=200, derandomize=True, deadline=None, database=None)
@given(st.lists(st.integers(0, 2**63 - 1), max_size=300), st.lists(st.integers(0, 2**63 - 1), max_size=100))
def test_any_masks(present, absent):
    _check(present, absent)


@settings(max_examples=100, derandomize=True, deadline=None, database=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2000), st.integers(1, 63))
def test_lattice_like_masks(seed, size, width):
    """Masks of up to four bits among ``width`` (as in the lattice walk): structured keys that
    differ in one bit, the top bit ``1 << 62`` included when ``width == 63``."""
    rng = np.random.default_rng(seed)
    bits = np.left_shift(np.int64(1), np.arange(width, dtype=np.int64))
    sets = [bits[rng.choice(width, size=int(rng.integers(0, min(4, width) + 1)), replace=False)].sum()
            for _ in range(size)]
    masks = np.asarray(sets, dtype=np.int64)
    absent = np.asarray([m ^ b for m in masks[:50] for b in bits], dtype=np.int64)
    _check(masks, np.concatenate([absent, np.arange(-3, 64, dtype=np.int64)]))


def test_csr_of_levels_gives_positions_within_each_level():
    rng = np.random.default_rng(5)
    levels = [np.zeros(0, dtype=np.int64), np.array([0], dtype=np.int64),
              np.unique(rng.integers(0, 1 << 20, size=500)),
              np.unique(rng.integers(0, 1 << 62, size=3000) | (1 << 62)),
              np.zeros(0, dtype=np.int64)]
    ptr = np.zeros(len(levels) + 1, dtype=np.int64)
    np.cumsum([lv.size for lv in levels], out=ptr[1:])
    keys = np.concatenate(levels)
    slots, sptr = _walk_numba.build_tables(keys, ptr)
    assert np.array_equal(np.diff(sptr), 2 * np.diff(ptr))
    for d, lv in enumerate(levels):
        sub = slots[sptr[d]:sptr[d + 1]]
        assert np.array_equal(_walk_numba.lookup(sub, lv, lv), np.arange(lv.size))
        others = np.setdiff1d(keys, lv)
        assert np.all(_walk_numba.lookup(sub, lv, others) == -1)


def _home_reference(q: int, size: int) -> int:
    """splitmix64's finaliser and ``(hash * size) >> 64`` in Python integers."""
    m64 = (1 << 64) - 1
    z = q & m64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m64
    z ^= z >> 31
    if size < 1 << 32:
        return ((z >> 32) * size) >> 32
    return (z * size) >> 64


def test_home_slot_matches_the_reference_and_stays_in_range():
    """Small tables scale the top 32 bits, tables of 2**32 slots or more the full 64x64 high
    product; both must equal the exact integer formula and stay below the size."""
    for size in (1, 2, 3, 1000, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 7, 2**40 + 3, 2**62 + 1, 2**63 - 1):
        for q in (0, 1, 12345, 1 << 62, (1 << 63) - 1, -1, -(1 << 63)):
            h = int(_walk_numba._home(np.int64(q), np.int64(size)))
            assert h == _home_reference(q, size)
            assert 0 <= h < size


def test_entropy_floor_is_the_least_gap_per_child():
    """The floor must be the exact least ``-LL + llc[d]`` of each child's rows (NaN rows skipped,
    ``+inf`` for an empty level or one of NaN rows only): the kernel skips a look-up on it."""
    ll = np.array([-3.0, -1.5, -7.25, np.nan, -2.0, np.nan, -0.1], dtype=np.float64)
    ptr = np.array([0, 3, 3, 5, 6, 7], dtype=np.int64)
    llc = np.array([-1.0, -2.0, -0.5, -4.0, -0.05])
    got = _walk_numba.entropy_floor(ll, ptr, llc)
    want = [min(-x + llc[0] for x in ll[0:3]), np.inf, -ll[4] + llc[2], np.inf, -ll[6] + llc[4]]
    assert got.tolist() == want
    rng = np.random.default_rng(3)
    ll = -rng.random(1000) * 100
    ptr = np.array([0, 10, 400, 1000], dtype=np.int64)
    llc = -rng.random(3)
    got = _walk_numba.entropy_floor(ll, ptr, llc)
    for d in range(3):
        assert got[d] == np.min(-ll[ptr[d]:ptr[d + 1]] + llc[d])
