"""The ``**`` keywords of the public drivers: which each takes, and the one-line refusal of any other.

Why here: the drivers (:func:`~gobnilp_py.learn`, :func:`~gobnilp_py.enumerate_networks`,
:func:`~gobnilp_py.kbest`) pass ``**scoring_options`` on to :func:`~gobnilp_py.scoring.score`, so a
misspelt or misplaced keyword (``learn(d, max_networks=3)``) would surface as ``TypeError: score() got
an unexpected keyword argument``, blaming a function the caller never called.  The table of public
functions lives with the drivers (the layer that knows them all); the wording is the validation
vocabulary's (:func:`gobnilp_py._validation.refuse_unknown_keyword`).
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Mapping
from typing import Any

from .._validation import READ_OPTIONS, refuse_unknown_keyword

__all__ = ["check_keywords", "KEYWORD_FUNCTIONS"]

#: The public functions whose ``**`` keywords pass through to scoring: name -> (module, extra keywords
#: taken there besides the scorer's own and :data:`READ_OPTIONS`).  ``learn`` also scores by independence
#: selection for an approximate method; ``kbest`` names ``initial_epsilon`` only to explain its removal.
#: Modules are named, not imported: their signatures are read only when a keyword has to be checked.
KEYWORD_FUNCTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "learn": ("gobnilp_py.solve.learn", ("candidate_limit", "max_evaluations", "time_per_variable")),
    "enumerate_networks": ("gobnilp_py.solve.collect", ()),
    "kbest": ("gobnilp_py.solve.kbest", ("initial_epsilon",)),
    "score": ("gobnilp_py.scoring.engine", ()),
}


@functools.cache
def _named_keywords(function: str) -> tuple[str, ...]:
    """The keyword parameters ``function`` names in its signature (not its ``**`` catch-all); read once."""
    module, _extra = KEYWORD_FUNCTIONS[function]
    fn = getattr(importlib.import_module(module), function)
    return tuple(name for name, prm in inspect.signature(fn).parameters.items()
                 if prm.kind in (prm.KEYWORD_ONLY, prm.POSITIONAL_OR_KEYWORD))


def _scorer_keywords() -> tuple[str, ...]:
    """What a driver passes on to :func:`gobnilp_py.scoring.score` (its own progress hook is named by the driver)."""
    return tuple(k for k in _named_keywords("score") if k not in ("data", "progress"))


def check_keywords(function: str, options: Mapping[str, Any]) -> None:
    """Refuse a keyword that ``function`` (``"learn"``, ``"enumerate_networks"``, ``"kbest"``, ``"score"``) lacks.

    The error names the function called, the closest keyword it takes (as a config file's unknown key
    does), or the other public function that takes the keyword.

    Raises
    ------
    ParameterTypeError
        A ``TypeError`` (what Python raises for an unexpected keyword) and a ``GobnilpError``.
    """
    if not options:  # the usual call: nothing to check, and no scorer signature to read
        return
    accepted = {*_scorer_keywords(), *READ_OPTIONS, *KEYWORD_FUNCTIONS[function][1]}
    if all(k in accepted for k in options):
        return
    refuse_unknown_keyword(
        function, options, accepted,
        suggestions={*accepted, *_named_keywords(function)} - {"data", "data_or_table", "initial_epsilon"},
        takers={other: _named_keywords(other) for other in KEYWORD_FUNCTIONS})

