"""Counts and ordinals in messages ("1 network", "2 networks", "3rd"), and the words results share.

One home for the grammar, and for the one caveat whose presence changes a
result's guarantee line: a score table that does not record how it was pruned
(e.g. GOBNILP's own ``.jkl``).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["count", "ordinal", "UNKNOWN_PRUNING", "UNKNOWN_PREFIX", "pruning_unknown"]

#: How every caveat about a table of unknown pruning begins (``solve/inputs.py`` writes it).
UNKNOWN_PRUNING = "the score table does not record how it was pruned"

#: What a guarantee line starts with when the result carries that caveat (``docs/conventions.md``).
UNKNOWN_PREFIX = "UNKNOWN: exact for this score table only (it does not record how it was pruned); "


def pruning_unknown(caveats: Iterable[str]) -> bool:
    """True when one of ``caveats`` says the score table's pruning is not recorded.

    Derived from the caveats rather than stored as a flag, so that a result
    read back from ``result.json`` (which keeps its caveats) says the same.
    """
    return any(str(c).startswith(UNKNOWN_PRUNING) for c in caveats)


def count(n: int, word: str, words: str | None = None) -> str:
    """``"1 network"``, ``"2 networks"``, ``"1 equivalence class"`` (``words`` for an irregular plural)."""
    if n == 1:
        return f"{n} {word}"
    if words is None:
        words = word + ("es" if word.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{n} {words}"


def ordinal(k: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``12th``, ``13th``, ``21st``, ..."""
    if 10 <= k % 100 <= 20:
        return f"{k}th"
    return f"{k}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th') }"
