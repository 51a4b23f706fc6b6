"""The posterior mass of a set of DAGs as every output shows it: exact, a lower bound ("at least"), or none.

Why a module of its own: the result codec, the labels and the credible set read and show a mass
without computing one, so they import this small type and not the sums (:mod:`.posterior`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..errors import ScoreError

__all__ = ["PosteriorMass", "mass_line"]


@dataclass(frozen=True)
class PosteriorMass:
    """The posterior mass of a set of DAGs, exact or a lower bound, with what it covers.

    Attributes
    ----------
    value : float or None
        The mass in ``[0, 1]``: exact when :attr:`exact`, else a lower bound
        (shown "at least"); ``None`` when no bound is available.
    exact : bool
        True when ``value`` is the mass itself.
    n_networks : int
        DAGs summed (class members counted, listed or not).
    covers : str
        ``"classes"`` (every member of the set's equivalence classes, counted)
        or ``"networks"`` (the networks given or listed).
    scope : str
        What the posterior is over (``Posterior.scope``).
    note : str
        Why a bound or no value, or what the mass is relative to; empty when exact over all DAGs.
    """

    value: float | None
    exact: bool
    n_networks: int
    covers: str
    scope: str
    note: str = ""

    @property
    def lower_bound(self) -> bool:
        """True when :attr:`value` is only a lower bound on the mass."""
        return self.value is not None and not self.exact

    @property
    def text(self) -> str:
        """The value as shown: ``"0.912345"``, ``"at least 0.71"`` (rounded down), ``"no bound available"``."""
        if self.value is None:
            return "no bound available"
        if self.exact:
            return f"{self.value:.6g}"
        return f"at least {_down6(self.value)}"

    @property
    def line(self) -> str:
        """One line for a report: ``"posterior mass 0.912345 (exact; 6390 networks in 24 classes)"``."""
        what = "exact" if self.exact else ("lower bound" if self.value is not None else self.note)
        tail = f"; {self.note}" if self.note and self.value is not None else ""
        return f"posterior mass {self.text} ({what}{tail})"

    def __float__(self) -> float:
        if self.value is None:
            raise ScoreError("no bound on the posterior mass is available" + (f": {self.note}" if self.note else ""))
        return float(self.value)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary."""
        return {"value": self.value, "exact": self.exact, "lower_bound": self.lower_bound,
                "n_networks": self.n_networks, "covers": self.covers, "scope": self.scope, "note": self.note,
                "text": self.text}


def _down6(x: float) -> str:
    """``x`` to 6 significant digits, rounded *down*: a lower bound shown rounded up would claim more."""
    if x <= 0.0:
        return "0"
    e = math.floor(math.log10(x)) - 5
    return f"{math.floor(x / 10.0 ** e) * 10.0 ** e:.6g}"


def mass_line(m: PosteriorMass) -> str:
    """The mass as the first lines show it: ``posterior mass 0.368 (exact; ...)`` or ``... at least ...``."""
    if m.value is None:
        return f"posterior mass: no bound available ({m.note})"
    return m.line
