"""One exception hierarchy for the whole package.

Every error a user can cause (bad data, bad settings, impossible constraints)
is a :class:`GobnilpError`.  The CLI turns these into a single line on stderr
and a non-zero exit code; anything else is a bug and keeps its traceback.
Domain errors also subclass the builtin a caller would already catch
(``ValueError``, ``TypeError``, ``RuntimeError``), as scikit-learn does, so
``except ValueError`` keeps working for code that does not know this package.

The tree::

    GobnilpError
    ├── DataError (ValueError)            data files, frames, arrays
    ├── ScoreError (ValueError)           scoring settings, .jkl files
    ├── ConstraintError (ValueError)      structural constraints
    ├── ConfigError (ValueError)          run configs, settings files
    │   └── OutputError                   an output file or folder that cannot be (over)written
    ├── ParameterError (ValueError)       a bad argument value of the Python API or a flag
    │   └── ParameterTypeError (TypeError)    ... of the wrong type (time_limit="10")
    ├── NetworkError (ValueError)         a malformed Network (unknown name, self-loop, bad dict)
    │   └── CycleError                    arrows that form a directed cycle
    └── SolverError (RuntimeError)        the solver failed in a way that is not the user's input

Warnings that concern exactness or the reading of the data are
:class:`GobnilpWarning` subclasses (``warnings.warn``), so ``-W error`` or
``pytest.warns`` can act on them.
"""

from __future__ import annotations

__all__ = [
    "GobnilpError",
    "DataError",
    "ScoreError",
    "ConstraintError",
    "ConfigError",
    "OutputError",
    "ParameterError",
    "ParameterTypeError",
    "NetworkError",
    "CycleError",
    "SolverError",
    "GobnilpWarning",
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


class OutputError(ConfigError):
    """An output file or folder that cannot be written, or holds files gobnilp_py did not write.

    Raised *before* the work whenever the problem can be seen then (a missing
    or read-only folder, a foreign file in the way), so a long run never ends
    in "cannot write".
    """


class ParameterError(GobnilpError, ValueError):
    """A parameter of the Python API (or a command-line flag) has an impossible value.

    Parameters
    ----------
    problem : str
        What is wrong, completing "<name> ...", e.g. ``"must be a number > 0, got -1"``.
    name : str, optional
        The parameter's name; the message is then ``"<name> <problem>"``.

    Attributes
    ----------
    name : str or None
    problem : str
        The message without the name, so a config file can put its own
        ``file: [section] key`` in front of the same words.
    """

    def __init__(self, problem: str, name: str | None = None) -> None:
        self.name = name
        self.problem = problem
        super().__init__(f"{name} {problem}" if name else problem)


class ParameterTypeError(ParameterError, TypeError):
    """A parameter has the wrong type (e.g. ``time_limit="10"``); also a :class:`TypeError`."""


class NetworkError(GobnilpError, ValueError):
    """A network that cannot exist: unknown or duplicated names, a self-loop, a malformed dict."""


class CycleError(NetworkError):
    """Arrows that form a directed cycle: a Bayesian network must be acyclic."""


class SolverError(GobnilpError, RuntimeError):
    """The ILP solver failed in a way that is not the user's input."""


class GobnilpWarning(UserWarning):
    """Base class of the package's warnings (exactness caveats, suspicious data)."""
