"""What every SCIP plugin of the package shares.

PySCIPOpt turns an exception raised inside a callback into SCIP's generic
"unspecified error", losing the traceback; :func:`logged_callback` logs it
first.  :data:`INT_TOL` is the integrality tolerance all plugins use to read
a point as a network (SCIP's default ``numerics/feastol`` is 1e-6).
:class:`TransformedVars` gives a plugin the solver's copies of the family
variables.
"""

from __future__ import annotations

import numpy as np

import logging
from functools import wraps

__all__ = ["logged_callback", "INT_TOL", "is_integral", "TransformedVars"]

_log = logging.getLogger(__name__)

#: values within this of 0 or 1 count as integral (SCIP's default integrality tolerance is 1e-6)
INT_TOL = 1e-6


def is_integral(xval: np.ndarray) -> bool:
    """Every value within :data:`INT_TOL` of 0 or 1."""
    return bool(np.all((xval < INT_TOL) | (xval > 1.0 - INT_TOL)))


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


class TransformedVars:
    """Mixin for a plugin with ``self.model`` and ``self.xvars``: the transformed family variables.

    Why: SCIP solves a transformed copy of the problem; LP values, local bounds and solution
    values are read from the copies, which exist only once the problem is transformed and are
    new after a restart.  A plugin fetches them on first use in a solve (:meth:`tvars`) and
    forgets them in its ``init``/``exit`` callbacks (:meth:`forget_tvars`), never once per node.
    """

    _tvars: list | None = None

    def tvars(self) -> list:
        """The transformed counterparts of ``self.xvars``, in their order (fetched once per solve)."""
        if self._tvars is None:
            self._tvars = [self.model.getTransformedVar(v) for v in self.xvars]  # type: ignore[attr-defined]
        return self._tvars

    def forget_tvars(self) -> None:
        """Drop the copies: called when a solve starts or ends (a restart makes new ones)."""
        self._tvars = None
