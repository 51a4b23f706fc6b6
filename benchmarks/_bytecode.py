"""Compile the package's modules to ``.pyc`` before timing whole processes of ours.

Why: this machine sets ``PYTHONDONTWRITEBYTECODE=1`` and the package is an editable install, so
every fresh process of ours compiled every module it imported from source (about 0.2 s for
``gobnilp-py learn`` on a ``.jkl``), while numpy, PySCIPOpt and the rest have their ``.pyc`` from
``pip install`` -- as gobnilp_py installed from a wheel would.  An existing ``.pyc`` is read even with
``PYTHONDONTWRITEBYTECODE`` set, and one that does not match its source (modification time and size)
is ignored, so compiling never runs stale code.
"""

from __future__ import annotations

import compileall
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def compile_package(root: Path = ROOT) -> None:
    """Compile every module under ``root/gobnilp_py`` to ``.pyc`` (stops the benchmark if one fails)."""
    if not compileall.compile_dir(str(root / "gobnilp_py"), quiet=1):
        raise SystemExit(f"compiling {root / 'gobnilp_py'} failed")
