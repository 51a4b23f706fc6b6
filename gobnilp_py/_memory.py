"""How much memory this process may still take: what the system has free, and any address-space cap.

Why: an engine that knows roughly what it will need can refuse up front with a one-line error
naming the need, instead of being stopped half-way by ``MemoryError`` (under an address-space
limit) or, worse, by the system's out-of-memory killer after it has slowed the whole machine.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from functools import cache
from typing import Any

try:  # Unix only
    import resource
except ImportError:  # pragma: no cover
    resource = None  # type: ignore[assignment]

__all__ = ["memory_room", "format_bytes", "resident_bytes", "give_back_freed_memory"]


def _available_system_bytes() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` (Linux), else ``None``."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _address_space_room() -> int | None:
    """Bytes left under ``RLIMIT_AS`` (``None`` when there is no such limit)."""
    if resource is None:
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            used = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        used = 0
    return max(0, soft - used)


def memory_room() -> int | None:
    """Bytes this process can still allocate, as far as can be told (``None``: unknown)."""
    known = [b for b in (_available_system_bytes(), _address_space_room()) if b is not None]
    return min(known) if known else None


def resident_bytes() -> int | None:
    """This process's resident set (``/proc/self/statm``, Linux), else ``None``.

    Why measured and not only estimated: the lattice walk's estimates count its arrays, not what the
    allocator keeps of arrays already freed, nor the interpreter's own growth; a limit on the process
    tree is kept only if what the process really holds is checked too.
    """
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


@cache
def _malloc_trim() -> Any:
    """glibc's ``malloc_trim``, or ``None`` (another C library, or none found)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
        return libc.malloc_trim
    except (OSError, AttributeError, TypeError):
        return None


def give_back_freed_memory() -> None:
    """Return the heap memory already freed to the system (glibc ``malloc_trim(0)``; elsewhere nothing).

    Why: numpy arrays of a few MiB are served from the heap once glibc's mmap threshold has risen, and a
    heap freed in the middle is not given back by itself; a level of the walk joined from many such pieces
    then counts twice in the resident set (the freed pieces and the joined level), which is what a
    memory limit on the process is judged by.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def format_bytes(n_bytes: float) -> str:
    """``n_bytes`` for a message, in the largest binary unit it reaches (``"512 bytes"``, ``"3.2 MiB"``,
    ``"12.3 GiB"``, ``"212 GiB"``): one place for every memory message of the package, so that small
    needs do not print as "0.0 GB" and large ones as "4096 MiB"."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n_bytes >= scale:
            v = n_bytes / scale
            return f"{v:.1f} {unit}" if v < 100 else f"{v:.0f} {unit}"
    return f"{n_bytes:.0f} bytes"
