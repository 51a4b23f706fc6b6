"""Lazy public names for a package's ``__init__`` (PEP 562 module ``__getattr__``).

Why: ``import gobnilp_py`` used to import every layer (numpy, the scorer, the
drivers, SCIP's settings, the writers) before a script or a ``gobnilp-py``
command did anything; most uses need a few of them.  A package whose
``__init__`` re-exports names from its submodules lists them in a mapping
``{name: ".submodule"}`` instead, and :func:`lazy_exports` gives it the
``__getattr__`` that imports a name's module the first time the name is used
(``from gobnilp_py import learn`` works unchanged) and the ``__dir__`` that
lists every public name.

A name must not also be a submodule's name (``solve.kbest`` is both a function
and a module, so :mod:`gobnilp_py.solve` stays eager): once the submodule is
imported the attribute would be the module, and ``__getattr__`` is never
asked.  :func:`lazy_exports` refuses such a mapping at import time.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, names: Mapping[str, str], public: Iterable[str],
                 submodules: Iterable[str] = ()) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: each of ``names`` imported from its module on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : mapping
        Public name -> module, relative to ``package`` (``".scoring.table"``).
    public : iterable of str
        The package's ``__all__`` (listed by ``dir()``).
    submodules : iterable of str
        Submodules also reachable as attributes without importing them first
        (``gobnilp_py.scoring`` after ``import gobnilp_py``).
    """
    import sys

    pkg = sys.modules[package]
    names = dict(names)
    subs = frozenset(submodules)
    clash = sorted(n for n in names if n in subs or importlib.util.find_spec(f"{package}.{n}") is not None)
    if clash:
        raise ImportError(f"{package}: lazy names {clash} are also submodule names; import them eagerly")

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is not None:
            value = getattr(importlib.import_module(where, package), name)
        elif name in subs:
            value = importlib.import_module(f".{name}", package)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(pkg, name, value)       # later uses are plain attribute look-ups
        return value

    listed = frozenset(public) | subs

    def __dir__() -> list[str]:
        return sorted(set(vars(pkg)) | listed)

    return __getattr__, __dir__
