"""Counts and ordinals in messages: "1 network", "2 networks", "3rd" (one home for the grammar)."""

from __future__ import annotations

__all__ = ["count", "ordinal"]


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
