"""What a result is worth, in the words every output and every loader uses: its guarantee and its flags.

Why here, beside the result types: a result's labels (``guarantee``, ``complete``, ``approximate``,
``infeasible``, ``caveats``) are written by every output (:mod:`gobnilp_py.output.writers`) and checked
by the loader (:mod:`.codec`) when a saved result is read back, so both read them from one place below
them.  A *result* is a :class:`~gobnilp_py.scoring.table.ScoreTable`, a
:class:`~gobnilp_py.network.Network` or a :class:`~gobnilp_py.solve.credible.CredibleSet`; they are
told apart by what they carry, so this module imports none of the collections.
"""

from __future__ import annotations

import math
from typing import Any

from ..network import Network

__all__ = ["guarantee_of", "is_complete", "is_approximate", "is_infeasible", "notes_of", "labels", "comment_lines",
           "posterior_mass_line"]


def _is_network(result: Any) -> bool:
    return isinstance(result, Network)


def _is_table(result: Any) -> bool:
    return hasattr(result, "families") and hasattr(result, "names") and not hasattr(result, "networks")


def is_infeasible(result: Any) -> bool:
    """True for an answer "no network satisfies the constraints and the score table" (a Network or a collection)."""
    flag = getattr(result, "infeasible", None)
    if isinstance(flag, bool):
        return flag
    if _is_network(result):
        return result.status == "infeasible"
    if hasattr(result, "networks"):
        if getattr(result, "reason", None) == "infeasible":
            return True
        opt = getattr(result, "opt", math.nan)
        return bool(result.complete) and not result.networks and not (opt == opt and math.isfinite(opt))
    return False


def is_approximate(result: Any) -> bool:
    """True if the result (or the table it came from) carries no exactness guarantee."""
    return bool(getattr(result, "approximate", False))


def is_complete(result: Any) -> bool:
    """True when the result is the whole answer it claims (False: cut short, or approximate).

    An infeasible answer is complete ("no network" is the whole answer).  A
    score table is complete unless approximate or of unknown pruning.
    """
    if _is_table(result):
        return not is_approximate(result) and getattr(result, "safe_epsilon", None) is not None
    flag = getattr(result, "complete", None)
    if flag is None and _is_network(result):
        flag = result.status in ("optimal", "infeasible")
    return bool(flag) and not is_approximate(result)


def _collection_guarantee(cs: Any) -> str:
    n = len(cs.networks)
    eps = float(getattr(cs, "epsilon", math.nan))
    if is_infeasible(cs):
        return "INFEASIBLE: no network satisfies the constraints and the score table"
    if is_approximate(cs):
        return f"APPROXIMATE: {n} networks found without a guarantee that they are the best"
    if cs.complete:
        if getattr(cs, "kind", "bayes_factor") == "kbest":
            return f"complete: the {n} best networks (the k-th is {eps:.6g} below OPT)"
        bf = math.exp(eps) if eps < 700 else math.inf
        return f"complete: every network with score >= OPT - {eps:.6g} (Bayes factor {bf:.6g})"
    return (f"INCOMPLETE ({cs.reason or 'stopped'}): {n} networks found before the search stopped; "
            "more networks within the gap may exist")


def guarantee_of(result: Any) -> str:
    """One human line saying what ``result`` is worth (shown in every output file and on stdout).

    Uses the result's own ``guarantee`` when it has one (``Network``,
    ``ScoreTable``, and ``CredibleSet`` once it carries one), else derives it
    from ``complete`` / ``reason`` / ``status``.
    """
    g = getattr(result, "guarantee", None)
    if isinstance(g, str) and g:
        return g
    if _is_network(result):
        return result.guarantee
    if hasattr(result, "networks"):
        return _collection_guarantee(result)
    return "UNKNOWN: the result does not say what it guarantees"


def notes_of(result: Any) -> list[str]:
    """The guarantee line, then every caveat of the result (e.g. a score table of unknown pruning)."""
    caveats = [str(c) for c in (getattr(result, "caveats", None) or ()) if str(c)]
    return [guarantee_of(result), *caveats]


def labels(result: Any) -> dict[str, Any]:
    """``{"guarantee", "complete", "approximate", "infeasible", "caveats"}`` of a result, for every JSON output."""
    return {"guarantee": guarantee_of(result), "complete": is_complete(result),
            "approximate": is_approximate(result), "infeasible": is_infeasible(result),
            "caveats": notes_of(result)[1:]}


def comment_lines(result: Any, mark: str = "#") -> str:
    """The guarantee and each caveat as comment lines (one line each: no line breaks inside).

    The one header every text output starts with, so no file can look more
    certain than the result it holds; ``mark`` is the format's comment
    marker (``#`` for CSV and text, ``//`` for BIF).
    """
    notes = notes_of(result)
    mass = posterior_mass_line(result)
    if mass is not None:
        notes.insert(1, mass)
    return "".join(f"{mark} {' '.join(note.split())}\n" for note in notes)


def posterior_mass_line(result: Any) -> str | None:
    """The line saying how much of the posterior a collection holds, once computed (``None`` before)."""
    if not hasattr(result, "networks"):
        return None
    m = getattr(result, "_posterior_mass", None)
    if m is None:
        return getattr(result, "_posterior_line", None)   # a command's "not computed (...)", or nothing
    from .mass import mass_line

    return mass_line(m)
