"""One exception hierarchy for the whole package.

Every error a user can cause (bad data, bad settings, impossible constraints)
is a :class:`GobnilpError`.  The CLI turns these into a single line on stderr
and a non-zero exit code; anything else is a bug and keeps its traceback.
Domain errors also subclass the builtin a caller would already catch
(``ValueError``, ``KeyError``), as scikit-learn does.
"""

from __future__ import annotations

__all__ = [
    "GobnilpError",
    "DataError",
    "ScoreError",
    "ConstraintError",
    "ConfigError",
    "SolverError",
]


class GobnilpError(Exception):
    """Base class of every error gobnilp_py raises on purpose."""


class DataError(GobnilpError, ValueError):
    """Malformed or unusable input data (file, frame or array)."""


class ScoreError(GobnilpError, ValueError):
    """Bad scoring settings or a malformed score file."""


class ConstraintError(GobnilpError, ValueError):
    """Structural constraints that are malformed, name unknown variables, or contradict each other."""


class ConfigError(GobnilpError, ValueError):
    """A run configuration or settings file that is malformed or impossible."""


class SolverError(GobnilpError, RuntimeError):
    """The ILP solver failed in a way that is not the user's input."""
