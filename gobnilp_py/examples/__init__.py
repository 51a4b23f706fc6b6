"""Bundled example data, so a fresh install can run a real job with nothing else.

``asia.csv`` holds 1,000 rows sampled by :func:`sample_asia` (seed 2026) from
the Asia network of Lauritzen and Spiegelhalter (1988), with the conditional
probabilities as distributed in the bnlearn repository.  The sampler is kept
here so the file can be regenerated and checked.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np

__all__ = ["example_path", "sample_asia", "ASIA_PARENTS"]

#: The true Asia structure, child -> parents.
ASIA_PARENTS: dict[str, tuple[str, ...]] = {
    "asia": (), "smoke": (), "tub": ("asia",), "lung": ("smoke",), "bronc": ("smoke",),
    "either": ("tub", "lung"), "xray": ("either",), "dysp": ("bronc", "either"),
}


def example_path(name: str = "asia") -> Path:
    """Path of a bundled example data file (CSV with a header row)."""
    from ..errors import DataError

    ref = resources.files(__package__) / f"{name}.csv"
    if not ref.is_file():
        raise DataError(f"unknown example {name!r}; available: asia")
    return Path(str(ref))


def sample_asia(n_rows: int = 1000, seed: int = 2026) -> np.ndarray:
    """Forward-sample the Asia network; returns an (n_rows, 8) array of 'yes'/'no' labels.

    Columns in the order of :data:`ASIA_PARENTS`.  Probabilities are P(yes | parents).
    """
    rng = np.random.default_rng(seed)

    def draw(p: np.ndarray | float) -> np.ndarray:
        return rng.random(n_rows) < p

    asia = draw(0.01)
    smoke = draw(0.5)
    tub = draw(np.where(asia, 0.05, 0.01))
    lung = draw(np.where(smoke, 0.1, 0.01))
    bronc = draw(np.where(smoke, 0.6, 0.3))
    either = tub | lung
    xray = draw(np.where(either, 0.98, 0.05))
    dysp = draw(np.select([bronc & either, bronc & ~either, ~bronc & either], [0.9, 0.8, 0.7], 0.1))
    cols = [asia, smoke, tub, lung, bronc, either, xray, dysp]
    return np.where(np.column_stack(cols), "yes", "no")


def _write_asia(path: Path) -> None:  # pragma: no cover - used once to make the bundled file
    rows = sample_asia()
    lines = [",".join(ASIA_PARENTS)] + [",".join(r) for r in rows]
    path.write_text("\n".join(lines) + "\n")
