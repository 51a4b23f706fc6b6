"""Where the tests find datasets: the small published-figure files ship in ``tests/data``.

``dataset(name)`` returns the CSV of ``name`` from ``tests/data`` (tic-tac-toe, wine, voting, zoo,
iris: every checkout runs the published-figure checks on them), else from the folder named by the
environment variable ``GOBNILP_DATA``, else from ``../shared/data`` beside the repository; when none
has it the calling test is skipped with a reason naming the file and the places looked in.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = ["dataset", "reference", "SHIPPED", "shared_data_dir"]

HERE = Path(__file__).resolve().parent
SHIPPED = HERE / "data"


def shared_data_dir() -> Path:
    """The folder of the large shared datasets (``GOBNILP_DATA`` or ``../shared/data``)."""
    env = os.environ.get("GOBNILP_DATA")
    return Path(env) if env else HERE.parents[1] / "shared" / "data"


def _find(filename: str, *folders: Path) -> Path:
    for folder in folders:
        path = folder / filename
        if path.is_file():
            return path
    looked = ", ".join(str(f) for f in folders)
    pytest.skip(f"{filename} is not shipped with the tests and was not found in {looked} "
                "(set GOBNILP_DATA to the folder of the shared datasets)")


def dataset(name: str) -> Path:
    """Path of ``<name>.csv`` (shipped first, then the shared folder); skips the test when absent."""
    return _find(f"{name}.csv", SHIPPED, shared_data_dir())


def reference(filename: str) -> Path:
    """Path of a reference output (e.g. ``wine.BIC.3.jkl``): shipped first, then ``../shared/reference``."""
    return _find(filename, SHIPPED, HERE.parents[1] / "shared" / "reference")
