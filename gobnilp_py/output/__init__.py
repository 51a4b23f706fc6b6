"""Outputs of a run: text writers, pictures, the report and all-or-nothing folders.

The writers and picture functions can be used on their own with any result
(``ScoreTable``, ``Network``, ``CredibleSet``).  The job runner and the result
loader moved to the application layer (:mod:`gobnilp_py.app`); ``run``,
``run_job``, ``RunResult`` and ``load_result`` are still importable from here
through the deprecated alias modules ``output.job`` and ``output.load``.

Names are imported on first use (:mod:`gobnilp_py._lazy`): ``from
gobnilp_py.output.writers import networks_csv`` does not load the job runner,
the config or matplotlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .folder import StagedFolder
    from .load import load_result
    from .pictures import PictureSet, cpdag_png, dag_png, dot_files, draw_pictures, edge_heatmap_png, score_rank_png
    from .report import ReportData, render_html, render_markdown
    from .job import RunResult, run, run_job
    from .writers import dot_text, gobnilp_text, modelstrings, networks_csv, to_json

#: Public name -> the submodule it is imported from on first use.
_LAZY: dict[str, str] = {
    "StagedFolder": ".folder", "load_result": ".load", "PictureSet": ".pictures", "cpdag_png": ".pictures",
    "dag_png": ".pictures", "dot_files": ".pictures", "draw_pictures": ".pictures", "edge_heatmap_png": ".pictures",
    "score_rank_png": ".pictures", "ReportData": ".report", "render_html": ".report", "render_markdown": ".report",
    "RunResult": ".job", "run": ".job", "run_job": ".job", "dot_text": ".writers", "gobnilp_text": ".writers",
    "modelstrings": ".writers", "networks_csv": ".writers", "to_json": ".writers",
}

__all__ = [
    "run",
    "run_job",
    "RunResult",
    "StagedFolder",
    "to_json",
    "networks_csv",
    "gobnilp_text",
    "modelstrings",
    "dot_text",
    "dag_png",
    "cpdag_png",
    "edge_heatmap_png",
    "score_rank_png",
    "draw_pictures",
    "dot_files",
    "PictureSet",
    "load_result",
    "ReportData",
    "render_markdown",
    "render_html",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__, ("job", "load"))  # the deprecated aliases
