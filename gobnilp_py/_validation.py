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
from collections.abc import Iterable, Mapping, Sequence
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
    "check_missing_values",
    "check_state_names",
    "check_width",
    "check_names_for",
    "NAME_SEPARATORS",
    "check_order",
    "check_order_names",
    "parse_order",
    "check_palim",
    "check_n_jobs",
    "check_memory_limit",
    "check_lower_bound",
    "check_number_list",
    "parse_number_list",
    "READ_OPTIONS",
    "refuse_unknown_keyword",
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


def check_number_list(value: Any, name: str | None = None) -> tuple[float, ...]:
    """A non-empty list of finite numbers (e.g. BGe's prior mean ``nu``, one per variable).

    Examples
    --------
    >>> check_number_list([0, 1.5])
    (0.0, 1.5)
    """
    import numpy as np

    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or not value or not all(_is_real(v) and math.isfinite(float(v))
                                                                    for v in value):
        shown = show(value if isinstance(value, (list, tuple, str)) else str(value))
        raise _fail(f"must be a list of finite numbers, got {shown}", name)
    return tuple(float(v) for v in value)


def parse_number_list(text: Any, name: str | None = None) -> tuple[float, ...]:
    """Comma-separated numbers as on a command line (``--nu 0,1.5,-2``), checked as :func:`check_number_list`."""
    items = [t.strip() for t in str(text).split(",")]
    try:
        values = [float(t) for t in items]
    except ValueError:
        raise _fail(f"must be comma-separated numbers, got {show(str(text))}", name) from None
    return check_number_list(values, name)


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


def check_missing_values(value: Any, name: str | None = "missing_values") -> tuple[str, ...] | None:
    """``None`` (the reader's default tokens) or the texts that mean "missing": one string or a list of strings.

    Modelled on pandas' ``na_values`` with ``keep_default_na=False``: the
    tokens given *replace* the default ones, so ``[]`` (or ``""``) leaves only
    the empty field missing and ``NA``, ``None`` and ``?`` become states.
    Tokens are compared after stripping blanks.

    Examples
    --------
    >>> check_missing_values(["NA", " ?"]), check_missing_values([]), check_missing_values(None)
    (('NA', '?'), (), None)
    """
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise _fail(f"must be a list of strings (the texts read as missing), got {show(value)}", name,
                    type_error=True)
    out = []
    for tok in value:
        if not isinstance(tok, str):
            raise _fail(f"must be a list of strings (the texts read as missing), got the item {show(tok)}", name,
                        type_error=True)
        if tok.strip():
            out.append(tok.strip())
    return tuple(dict.fromkeys(out))


def check_state_names(value: Any, name: str | None = "state_names") -> dict[str, tuple[Any, ...]] | None:
    """``None`` or a mapping ``variable -> list of its states`` (strings or numbers), each list non-empty.

    As pgmpy's ``state_names``: the listed states are the variable's states,
    in that order, observed or not.
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise _fail(f"must be a mapping variable -> list of states, got {show(value)}", name, type_error=True)
    out: dict[str, tuple[Any, ...]] = {}
    for var, states in value.items():
        where = f"{name}[{show(str(var))}]" if name else f"state_names[{show(str(var))}]"
        if isinstance(states, (str, bytes, Mapping)) or not isinstance(states, Iterable):
            raise _fail(f"must be a list of states, got {show(states)}", where, type_error=True)
        items = list(states)
        if not items:
            raise _fail("must list at least one state", where)
        for st in items:
            if isinstance(st, float) and not math.isfinite(st):
                raise _fail(f"lists {show(st)}, which is not a state", where)
            if not isinstance(st, (str, int, float, bool)) and not _is_real(st):
                raise _fail(f"must list strings or numbers, got {show(st)}", where, type_error=True)
        out[str(var)] = tuple(items)
    return out


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



# ------------------------------------------------------- orders
def parse_order(text: Any, name: str | None = "--order") -> list[str]:
    """``"a,b,c"`` (the command line's spelling of an order) -> ``["a", "b", "c"]``."""
    if not isinstance(text, str):
        raise _fail(f"must be comma-separated variable names, got {show(text)}", name, type_error=True)
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise _fail(f"must be comma-separated variable names (every variable once), got {show(text)}", name)
    return items


def check_order(value: Any, name: str | None = "order", *, allow_none: bool = True) -> list[Any] | None:
    """The form of a variable order: a list of variable names (or column indices), at least one.

    Whether it lists every variable of the data exactly once is checked by
    :func:`check_order_names` once the data are known.
    """
    if value is None and allow_none:
        return None
    want = "a list of variable names, first to last"
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) and type(value).__name__ != "ndarray":
        raise _fail(f"must be {want}, got {show(value)}", name, type_error=True)
    items = list(value)
    if not items:
        raise _fail(f"must be {want} (every variable once), got []", name)
    for v in items:
        if not (isinstance(v, str) or _is_int(v)):
            raise _fail(f"must be {want}, got {show(items)}", name, type_error=True)
    return items


def check_order_names(order: Any, names: Sequence[str], name: str | None = "order") -> tuple[int, ...]:
    """Column indices of ``order``, which must name every variable of ``names`` exactly once.

    Items are variable names; an integer item is a column index (the API
    accepts those; configs and the command line name variables).  A string
    that is not a name is not read as an index.

    Raises
    ------
    ParameterError
        One line naming the unknown, repeated or missing variables.
    """
    items = check_order(order, name, allow_none=False)
    index = {str(nm): i for i, nm in enumerate(names)}
    n = len(names)
    out: list[int] = []
    for v in items:  # type: ignore[union-attr]
        if _is_int(v):
            i = int(v)
            if not 0 <= i < n:
                raise _fail(f"has column index {i}, outside 0..{n - 1}", name)
        elif v in index:
            i = index[v]
        else:
            raise _fail(f"names unknown variable {show(v)}{suggest(v, names, quote=True)}; the variables are "
                        f"{', '.join(show(x) for x in list(names)[:12])}{' ...' if n > 12 else ''}", name)
        out.append(i)
    seen: set[int] = set()
    for i in out:
        if i in seen:
            raise _fail(f"lists variable {show(names[i])} twice", name)
        seen.add(i)
    if len(out) != n:
        missing = [str(names[i]) for i in range(n) if i not in seen]
        raise _fail(f"must list every variable once; missing: {', '.join(show(m) for m in missing[:8])}"
                    f"{' ...' if len(missing) > 8 else ''}", name)
    return tuple(out)


def check_palim(value: Any, name: str | None = "palim") -> int | str | None:
    """``None`` (no limit), an integer >= 0, or ``"auto"`` (the parent-count bound safe for ε)."""
    if isinstance(value, str):
        if value.strip().lower() == "auto":
            return "auto"
        raise _fail(f'must be an integer >= 0 or "auto", got {show(value)}', name)
    if value is None:
        return None
    if not _is_int(value):
        raise _fail(f'must be an integer >= 0 or "auto", got {show(value)}', name, type_error=True)
    if int(value) < 0:
        raise _fail(f'must be an integer >= 0 or "auto", got {int(value)}', name)
    return int(value)


def check_n_jobs(value: Any, name: str | None = "n_jobs") -> int | None:
    """Worker processes: ``None`` or -1 (every core), or an integer >= 1."""
    if value is None:
        return None
    if _is_int(value) and int(value) == -1:
        return -1
    if not _is_int(value):
        raise _fail(f"must be an integer >= 1, or -1 (every core), got {show(value)}", name, type_error=True)
    if int(value) < 1:
        raise _fail(f"must be an integer >= 1, or -1 (every core), got {int(value)}", name)
    return int(value)


def check_memory_limit(value: Any, name: str | None = "memory_limit") -> int | None:
    """``None`` (the default budget) or a number of bytes >= 1 (``8e9`` is accepted; returned as an int)."""
    v = check_number(value, name, lo=1.0, allow_none=True, unit="bytes")
    return None if v is None else int(v)


def check_lower_bound(value: Any, name: str | None = "lower_bound") -> float | str | None:
    """``None`` (the global gap rule off), ``"auto"`` or a finite number (the score of some admissible DAG)."""
    if isinstance(value, str):
        if value == "auto":
            return "auto"
        raise _fail(f'must be a number or "auto", got {show(value)}', name, type_error=True)
    return check_number(value, name, allow_none=True)


# ------------------------------------------------------------------ keywords of the public functions
#: Options of :func:`gobnilp_py.read_data` that ``score`` and every driver accept beside the scoring
#: options, so that ``learn(frame, arities=...)`` reads the data as asked before scoring it.
READ_OPTIONS = ("header", "delimiter", "arities", "names", "missing_values", "state_names")

def refuse_unknown_keyword(function: str, options: Mapping[str, Any], accepted: Iterable[str], *,
                           suggestions: Iterable[str] | None = None,
                           takers: Mapping[str, Iterable[str]] | None = None) -> None:
    """Refuse a keyword of ``options`` that ``function`` does not take, in Python's words and ours.

    Why generic: the public functions that take ``**`` keywords (the drivers in :mod:`gobnilp_py.solve`,
    :func:`gobnilp_py.scoring.score`) each know what they accept; this only words the refusal alike:
    the function called, the closest keyword it takes (among ``suggestions``, by default ``accepted``), or the
    other public functions (``takers``: name -> keywords it names) that do take it.

    Raises
    ------
    ParameterTypeError
        A ``TypeError`` (what Python raises for an unexpected keyword) and a ``GobnilpError``.
    """
    accepted = set(accepted)
    unknown = [k for k in options if k not in accepted]
    if not unknown:
        return
    key = unknown[0]
    hint = suggest(key, sorted(accepted if suggestions is None else set(suggestions)))
    if not hint and takers:
        names = [f"{other}()" for other, words in takers.items() if other != function and key in set(words)]
        hint = f" ({' and '.join(names)} {'take' if len(names) > 1 else 'takes'} it)" if names else ""
    raise ParameterTypeError(f"{function}() got an unexpected keyword argument {key!r}{hint}")
