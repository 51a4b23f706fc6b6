"""``gobnilp_py.score``: the scorer as the public API offers it, beside the drivers.

Why a second door: :func:`gobnilp_py.scoring.score` refuses an unknown keyword in the drivers'
words, but only this layer knows the drivers, so only here can the refusal say which of them does
take the keyword (``score(d, max_networks=3)`` -> "enumerate_networks() and kbest() take it").
Everything else is the scorer itself (same signature, same documentation).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from .._validation import READ_OPTIONS
from ..scoring.engine import score as _score
from .keywords import check_keywords

__all__ = ["score"]


#: What the scorer takes by name: any other keyword (beside the read options) is unknown.
_NAMED = frozenset(inspect.signature(_score).parameters) | frozenset(READ_OPTIONS)


@functools.wraps(_score)
def score(data: object, **options: Any) -> Any:
    check_keywords("score", {k: v for k, v in options.items() if k not in _NAMED})
    return _score(data, **options)
