"""What every SCIP plugin of the package shares.

PySCIPOpt turns an exception raised inside a callback into SCIP's generic
"unspecified error", losing the traceback; :func:`logged_callback` logs it
first.  :data:`INT_TOL` is the integrality tolerance all plugins use to read
a point as a network (SCIP's default ``numerics/feastol`` is 1e-6).
"""

from __future__ import annotations

import logging
from functools import wraps

__all__ = ["logged_callback", "INT_TOL"]

_log = logging.getLogger(__name__)

#: values within this of 0 or 1 count as integral (SCIP's default integrality tolerance is 1e-6)
INT_TOL = 1e-6


def logged_callback(fn):
    """Decorate a plugin callback so its exceptions are logged with a traceback, then re-raised."""

    @wraps(fn)
    def wrapper(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except Exception:
            _log.exception("error in %s.%s", type(self).__name__, fn.__name__)
            raise

    return wrapper
