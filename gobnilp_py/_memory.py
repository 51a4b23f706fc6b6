"""How much memory this process may still take: what the system has free, and any address-space cap.

Why: an engine that knows roughly what it will need can refuse up front with a one-line error
naming the need, instead of being stopped half-way by ``MemoryError`` (under an address-space
limit) or, worse, by the system's out-of-memory killer after it has slowed the whole machine.
"""

from __future__ import annotations

import os

try:  # Unix only
    import resource
except ImportError:  # pragma: no cover
    resource = None  # type: ignore[assignment]

__all__ = ["memory_room", "gib"]


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


def gib(n_bytes: float) -> str:
    """``n_bytes`` in GiB for messages (``"12.3 GB"``)."""
    return f"{n_bytes / 1024 ** 3:.1f} GB"
