"""Outputs of a run: text writers, pictures, the report, all-or-nothing folders, and the job runner.

:func:`run` executes a config file (or :class:`~gobnilp_py.config.RunConfig`)
and writes the outputs it names; the writers and picture functions can also
be used on their own with any result (``ScoreTable``, ``Network``,
``CredibleSet``).
"""

from .folder import StagedFolder
from .load import load_result
from .pictures import PictureSet, cpdag_png, dag_png, dot_files, draw_pictures, edge_heatmap_png, score_rank_png
from .report import ReportData, render_html, render_markdown
from .job import RunResult, run, run_job
from .writers import dot_text, gobnilp_text, modelstrings, networks_csv, to_json

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
