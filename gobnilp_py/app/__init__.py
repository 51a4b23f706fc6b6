"""The application layer: what a run of the package is, above the drivers.

* :mod:`.runner`: a job from a config to its files (``gobnilp_py.run``, ``gobnilp-py run``);
* :mod:`.config`: run configurations (TOML, GOBNILP settings files), validated key by key;
* :mod:`.load`: a saved result read back (``gobnilp_py.load_result``);
* :mod:`.compare`: exact against approximate methods on the same data (``gobnilp-py compare``);
* :mod:`.formats`: the output formats, declared once as data.

It may import every layer below it (drivers, engines, scoring, data, and the presentation in
:mod:`gobnilp_py.output`); only the command line (:mod:`gobnilp_py.cli`) and the package's public
``__init__`` import it.  Names load on first use (:mod:`gobnilp_py._lazy`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .config import RunConfig, load_config
    from .load import load_result
    from .runner import RunResult, run, run_job

_LAZY: dict[str, str] = {
    "RunConfig": ".config", "load_config": ".config", "load_result": ".load",
    "RunResult": ".runner", "run": ".runner", "run_job": ".runner",
}

__all__ = ["run", "run_job", "RunResult", "load_config", "RunConfig", "load_result"]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
