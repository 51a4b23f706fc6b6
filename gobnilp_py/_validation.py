"""One validation vocabulary for the Python API, the config files and the command line.

Every parameter is checked by one of these functions, so the same bad value
gets the same words wherever it comes from::

    time_limit must be a number > 0 (seconds), got -1             (Python API)
    c.toml: [limits] time_limit must be a number > 0 (seconds), got -1   (config)
    command line: --time-limit must be a number > 0 (seconds), got -1    (CLI)

A check raises :class:`~gobnilp_py.errors.ParameterError` (a ``ValueError``)
for an impossible value and :class:`~gobnilp_py.errors.ParameterTypeError`
(also a ``TypeError``) for a value of the wrong type, e.g. ``time_limit="10"``:
a string is never read as a number behind the caller's back.  The exception
carries the message without the parameter's name (``exc.problem``) so the
config layer can put ``file: [section] key`` in front of the same words.

The rules, shared by all checks (the style of scikit-learn's
``validate_params``):

* ``bool`` is not a number (``time_limit=True`` is a type error);
* numpy integers and floats are accepted wherever Python ones are
  (anything registered as :class:`numbers.Integral` / :class:`numbers.Real`);
* numbers must be finite unless a check says otherwise (``nan`` and ``inf``
  are impossible values, not types);
* ``None`` is accepted only where it means "no limit" or "not given"
  (``allow_none=True``), and is then returned unchanged.

Returned values are normalised (``float`` / ``int`` / the canonical spelling
of a choice), so a caller can use the result directly.
"""

from __future__ import annotations

import difflib
import json
import math
import numbers
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .errors import ParameterError, ParameterTypeError

__all__ = [
    "show",
    "suggest",
    "check_bool",
    "check_str",
    "check_choice",
    "check_number",
    "check_int",
    "check_positive_int",
    "check_nonnegative_int",
    "check_positive_number",
    "check_time_limit",
    "check_gap",
    "check_max_networks",
    "check_bayes_factor_epsilon",
    "check_delimiter",
    "check_width",
    "check_names_for",
    "NAME_SEPARATORS",
]


# ------------------------------------------------------------------ wording
def show(value: Any) -> str:
    """A value as a user would write it: strings in double quotes, ``true``/``false``, paths as strings.

    Examples
    --------
    >>> show("10"), show(True), show(1.5), show([1, "a"])
    ('"10"', 'true', '1.5', '[1, "a"]')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def suggest(word: str, options: Iterable[str], *, quote: bool = False) -> str:
    """``" (did you mean X?)"`` for the closest option, or ``""`` when none is close."""
    near = difflib.get_close_matches(str(word), [str(o) for o in options], n=1, cutoff=0.6)
    if not near:
        return ""
    return f" (did you mean {show(near[0]) if quote else near[0]}?)"


def _fail(problem: str, name: str | None, *, type_error: bool = False) -> ParameterError:
    cls = ParameterTypeError if type_error else ParameterError
    return cls(problem, name)


def _is_real(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


# ------------------------------------------------------------------- checks
def check_bool(value: Any, name: str | None = None) -> bool:
    """``value`` must be ``True`` or ``False`` (numpy booleans too); returns a Python bool."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise _fail(f"must be true or false, got {show(value)}", name, type_error=True)


def check_str(value: Any, name: str | None = None, *, nonempty: bool = False) -> str:
    """``value`` must be a string (non-empty if asked)."""
    if not isinstance(value, str):
        raise _fail(f"must be a string, got {show(value)}", name, type_error=True)
    if nonempty and not value.strip():
        raise _fail("must not be empty", name)
    return value


def check_choice(value: Any, name: str | None, choices: Sequence[str], *, fold: bool = False) -> str:
    """``value`` must be one of ``choices`` (case-insensitively with ``fold``); returns the canonical spelling.

    A near miss is named: ``score must be one of "BIC", "BDeu", "AIC", got "BDue" (did you mean "BDeu"?)``.
    """
    if not isinstance(value, str):
        raise _fail(f"must be one of {', '.join(show(c) for c in choices)}, got {show(value)}", name,
                    type_error=True)
    lookup = {c.lower(): c for c in choices} if fold else {c: c for c in choices}
    key = value.lower() if fold else value
    if key in lookup:
        return lookup[key]
    folded = {c.lower(): c for c in choices}  # suggestions ignore case even when matching does not
    near = difflib.get_close_matches(value.lower(), list(folded), n=1)
    hint = f" (did you mean {show(folded[near[0]])}?)" if near else ""
    raise _fail(f"must be one of {', '.join(show(c) for c in choices)}, got {show(value)}{hint}", name)


def _bounds_text(lo: float | None, hi: float | None, lo_strict: bool, hi_strict: bool) -> str:
    parts = []
    if lo is not None:
        parts.append(f"{'>' if lo_strict else '>='} {lo:g}")
    if hi is not None:
        parts.append(f"{'<' if hi_strict else '<='} {hi:g}")
    return " and ".join(parts)


def check_number(value: Any, name: str | None = None, *, lo: float | None = None, hi: float | None = None,
                 lo_strict: bool = False, hi_strict: bool = False, allow_none: bool = False,
                 finite: bool = True, unit: str = "") -> float | None:
    """A real number within bounds; returns ``float(value)`` (or ``None`` if allowed).

    Parameters
    ----------
    value : Any
    name : str, optional
        Parameter name for the message.
    lo, hi : float, optional
        Bounds; ``lo_strict`` / ``hi_strict`` make them exclusive.
    allow_none : bool
        Accept ``None`` (meaning "no limit" / "not given").
    finite : bool
        Refuse ``inf`` and ``nan`` (default).  ``nan`` is always refused.
    unit : str
        Shown after the requirement, e.g. ``"seconds"``.

    Raises
    ------
    ParameterTypeError
        Not a real number (a string, a bool, ``None`` when not allowed).
    ParameterError
        Out of bounds, ``nan``, or infinite when ``finite``.
    """
    if value is None and allow_none:
        return None
    bounds = _bounds_text(lo, hi, lo_strict, hi_strict)
    want = "a number" + (f" {bounds}" if bounds else "") + (f" ({unit})" if unit else "")
    if not _is_real(value):
        raise _fail(f"must be {want}, got {show(value)}", name, type_error=True)
    v = float(value)
    ok = not math.isnan(v) and (math.isfinite(v) or not finite)
    if ok and lo is not None:
        ok = v > lo if lo_strict else v >= lo
    if ok and hi is not None:
        ok = v < hi if hi_strict else v <= hi
    if not ok:
        if math.isinf(v) and finite:
            want = want.replace("a number", "a finite number", 1)
        raise _fail(f"must be {want}, got {show(value if type(value) in (int, float) else v)}", name)
    return v


def check_int(value: Any, name: str | None = None, *, lo: int | None = None, hi: int | None = None,
              allow_none: bool = False) -> int | None:
    """An integer within ``[lo, hi]``; returns ``int(value)`` (or ``None`` if allowed).

    A float, even an integral one such as ``3.0``, is a type error: a count
    given as a float is usually a slip (``k=1e3``), and silently truncating
    ``2.5`` would be worse.
    """
    if value is None and allow_none:
        return None
    bounds = _bounds_text(lo, hi, False, False)
    want = "an integer" + (f" {bounds}" if bounds else "")
    if not _is_int(value):
        raise _fail(f"must be {want}, got {show(value)}", name, type_error=True)
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise _fail(f"must be {want}, got {v}", name)
    return v


def check_positive_int(value: Any, name: str | None = None, *, allow_none: bool = False) -> int | None:
    """An integer >= 1 (e.g. ``k``, ``max_networks``, ``max_candidates``)."""
    return check_int(value, name, lo=1, allow_none=allow_none)


def check_nonnegative_int(value: Any, name: str | None = None, *, allow_none: bool = False) -> int | None:
    """An integer >= 0 (e.g. ``palim``)."""
    return check_int(value, name, lo=0, allow_none=allow_none)


def check_positive_number(value: Any, name: str | None = None, *, allow_none: bool = False) -> float | None:
    """A finite number > 0 (e.g. ``ess``)."""
    return check_number(value, name, lo=0.0, lo_strict=True, allow_none=allow_none)


def check_time_limit(value: Any, name: str | None = "time_limit") -> float | None:
    """``None`` (no limit) or a finite number of wall-clock seconds > 0.

    Examples
    --------
    >>> check_time_limit(None), check_time_limit(2)
    (None, 2.0)
    """
    return check_number(value, name, lo=0.0, lo_strict=True, allow_none=True, unit="seconds")


def check_gap(value: Any, name: str | None = "gap") -> float:
    """A relative optimality gap: a finite number >= 0 (0 proves optimality)."""
    return check_number(value, name, lo=0.0)  # type: ignore[return-value]


def check_max_networks(value: Any, name: str | None = "max_networks") -> int | None:
    """``None`` (no cap) or an integer >= 1."""
    return check_int(value, name, lo=1, allow_none=True)


def check_bayes_factor_epsilon(bayes_factor: Any, epsilon: Any, *, required: bool = False) -> float:
    """ε from at most one of ``bayes_factor`` (ε = ln BF, BF >= 1) and ``epsilon`` (ε >= 0).

    Parameters
    ----------
    bayes_factor, epsilon : number or None
    required : bool
        One of the two must be given (a collection); otherwise neither means ε = 0.

    Returns
    -------
    float
        The score gap ε (natural log).

    Raises
    ------
    ParameterError
        Both given, neither given when required, or an impossible value.
    ParameterTypeError
        A value that is not a number.

    Examples
    --------
    >>> round(check_bayes_factor_epsilon(20, None), 6), check_bayes_factor_epsilon(None, 0.5)
    (2.995732, 0.5)
    """
    if bayes_factor is not None and epsilon is not None:
        raise ParameterError("give either bayes_factor or epsilon, not both (epsilon = ln bayes_factor)")
    if bayes_factor is not None:
        bf = check_number(bayes_factor, "bayes_factor", lo=1.0)
        return math.log(bf)  # type: ignore[arg-type]
    if epsilon is not None:
        return check_number(epsilon, "epsilon", lo=0.0)  # type: ignore[return-value]
    if required:
        raise ParameterError("give a bayes_factor (>= 1) or an epsilon (>= 0)")
    return 0.0


def check_delimiter(value: Any, name: str | None = "delimiter") -> str | None:
    """``None`` (guess), ``"tab"``/``"\\t"``, ``"whitespace"``, or exactly one character.

    Refused: the empty string, several characters, a line break, and the
    double quote (the CSV quoting character).
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise _fail(f'must be one character (or "tab"), got {show(value)}', name, type_error=True)
    if value in ("tab", "\\t"):
        return "\t"
    if value == "whitespace":
        return " "
    if len(value) != 1:
        raise _fail(f'must be one character (or "tab"), got {show(value)}', name)
    if value in ('"', "\n", "\r"):
        raise _fail(f"cannot be a quote or a line break, got {show(value)}", name)
    return value


def check_width(n_variables: int, *, palim: int | None, max_candidates: int | None,
                n_constant: int = 0, source: str = "data") -> None:
    """Refuse, before any scoring, a problem too wide to score within ``max_candidates``.

    Every non-constant variable starts its lattice walk with its ``n - 1``
    parent sets of size one; pruning may drop some of them, but only after
    they have been generated and bounded one by one, which for thousands of
    variables takes minutes.  So when ``(n - n_constant) * (n - 1)`` exceeds
    ``max_candidates`` (and ``palim`` is not 0) the problem is refused at once,
    with the numbers.  This is an estimate from above: a problem refused here
    can still be run by raising ``max_candidates`` if pruning is known to cut
    the first level, but at 10,000 variables (10^8 pairs) exact learning is
    out of reach in any case.

    Raises
    ------
    ParameterError
        The estimate exceeds ``max_candidates``.
    """
    if max_candidates is None or palim == 0 or n_variables < 2:
        return
    level1 = (n_variables - n_constant) * (n_variables - 1)
    if level1 > max_candidates:
        raise ParameterError(
            f"{source}: {n_variables} variables are too many for exact learning: the first level alone has "
            f"{level1:,} (child, parent) pairs to bound, over max_candidates={max_candidates:,}; "
            f"select fewer variables (or set palim=0 for the empty network)")


#: Characters that make a variable name ambiguous in a written format, per format.
#: GOBNILP text is ``child<-p1,p2, score``; bnlearn model strings are ``[c|p1:p2]``;
#: ``.jkl`` and constraint files split on white space.
NAME_SEPARATORS: dict[str, tuple[str, ...]] = {
    "gobnilp": ("<-", ",", " ", "\t", "\n", "\r"),
    "modelstring": ("[", "]", "|", ":", "\n", "\r"),
    "jkl": (" ", "\t", "\n", "\r"),
}
_FORMAT_LABEL = {"gobnilp": "GOBNILP network text", "modelstring": "bnlearn model strings",
                 "jkl": ".jkl score files"}


def check_names_for(names: Iterable[str], formats: Iterable[str], *, where: str = "") -> None:
    """Refuse variable names that would make a written format ambiguous.

    Parameters
    ----------
    names : iterable of str
    formats : iterable of str
        Keys of :data:`NAME_SEPARATORS` (``"gobnilp"``, ``"modelstring"``, ``"jkl"``).
    where : str
        What will be written in that format (e.g. ``"networks.txt"``), for the message.

    Raises
    ------
    ParameterError
        Naming the variable, the character and the format, e.g.
        ``variable name "a:b" contains ":", which bnlearn model strings use as a separator``.
    """
    formats = list(formats)
    for nm in names:
        nm = str(nm)
        for fmt in formats:
            for sep in NAME_SEPARATORS[fmt]:
                if sep in nm:
                    shown = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a line break"}.get(
                        sep, show(sep))
                    target = f" ({where})" if where else ""
                    raise ParameterError(f"variable name {show(nm)} contains {shown}, which {_FORMAT_LABEL[fmt]}"
                                         f"{target} use as a separator; rename the variable")
        if "jkl" in formats and nm.startswith("#"):
            raise ParameterError(f"variable name {show(nm)} starts with \"#\", which .jkl score files read as a "
                                 "comment; rename the variable")
