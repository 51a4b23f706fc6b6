"""Counts and ordinals in messages ("1 network", "2 networks", "3rd"), and the words results share.

One home for the grammar, for the one caveat whose presence changes a
result's guarantee line: a score table that does not record how it was pruned
(e.g. GOBNILP's own ``.jkl``), and for making text safe to print.

Text safe to print
    Names, values and paths come from the user's files, and a file can hold
    anything: an ESC sequence in a CSV header recolours or clears the
    terminal, a line break in a path splits a one-line error in two.
    :func:`printable` escapes such characters (as Python's ``repr`` does)
    and :func:`excerpt` quotes at most a short, escaped piece of a line from
    a file that may not be what the user meant to give (``/etc/passwd`` as a
    constraints file).  The command line passes every error, warning and log
    line through :func:`printable`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["count", "ordinal", "UNKNOWN_PRUNING", "UNKNOWN_PREFIX", "pruning_unknown", "printable", "excerpt",
           "has_control"]

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


#: Characters never printed raw: C0/C1 controls and DEL (ESC starts terminal sequences), the Unicode line
#: and paragraph separators (``str.splitlines`` breaks lines at them), and the bidirectional overrides and
#: isolates (they reorder what the terminal shows).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\ufeff]")


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if ch in named:
        return named[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def has_control(text: str) -> bool:
    """True when ``text`` holds a character :func:`printable` would escape (a control, line or bidi character)."""
    return _UNSAFE.search(text) is not None


def printable(text: object) -> str:
    r"""``str(text)`` with control, line-separator and bidi characters escaped (``\x1b``, ``\n``, ``\u2028``).

    Everything else is kept as written (accents, other scripts), so an
    ordinary message is unchanged.

    Examples
    --------
    >>> printable("a\x1b[31mb\nc")
    'a\\x1b[31mb\\nc'
    >>> printable("Größe")
    'Größe'
    """
    s = str(text)
    return _UNSAFE.sub(_escape, s) if _UNSAFE.search(s) else s


def excerpt(text: str, limit: int = 40) -> str:
    """At most ``limit`` characters of ``text``, escaped and quoted, with ``...`` when cut.

    Why: an error about a line of a file must let the user find the line,
    but a file given by mistake (a password file as a constraints file) must
    not be copied to the terminal or a log; a short escaped piece does both.

    Examples
    --------
    >>> excerpt("a<>b")
    "'a<>b'"
    >>> excerpt("root:x:0:0:root:/root:/bin/bash", 12)
    "'root:x:0:0:r...' (31 characters)"
    """
    s = str(text)
    if len(s) <= limit:
        return "'" + printable(s).replace("'", "\\'") + "'"
    return "'" + printable(s[:limit]).replace("'", "\\'") + f"...' ({len(s)} characters)"
