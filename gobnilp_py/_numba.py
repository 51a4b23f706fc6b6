"""numba when it is installed: one import and one decorator for every compiled kernel of the package.

Imported only by the kernel modules (``scoring/_kernels_numba.py``, ``scoring/_walk_numba.py``,
``search/asobs/_numba.py``), which the engines import when they decide to use them, so
``import gobnilp_py`` never loads numba (about a second).  ``cache=True`` keeps each module's
compiled code next to it; ``nogil=True`` lets the kernels run beside other threads.
"""

from __future__ import annotations

from typing import Any

try:  # pragma: no cover - depends on the installation
    import numba
except ImportError:  # pragma: no cover
    numba = None

#: Whether numba could be imported (without it nothing is compiled and the numpy paths run).
AVAILABLE = numba is not None

#: The decorator of every kernel (``None`` without numba).
jit: Any = numba.njit(cache=True, nogil=True) if numba is not None else None
