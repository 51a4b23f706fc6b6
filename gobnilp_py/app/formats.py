"""The output formats of a run, declared once as data: name, file, writer, what each needs.

Why one table: an output format used to live in about seven places (the config's name and file
tables, which jobs can write it, its default use, the runner's branch chain of writers, the names
its separators forbid, its cost per listed network, the CLI's ``--write`` help).  Each is now one
:class:`OutputFormat` entry here, and the config (``[output] write``), the command line
(``--write``) and the runner (:mod:`gobnilp_py.app.runner`) read this table, so a new format is one
entry plus its writer in :mod:`gobnilp_py.output`.

What a format *needs* is declared as words the readers check:

* ``"network"``: a best network (an infeasible or empty result writes nothing);
* ``"networks"``: at least one listed network;
* ``"table"``: the score table, which a search of the data under an order (or ``enumerate``/``kbest``
  from data on the command line) does not keep;
* ``"dataset"``: the data rows (a ``.jkl`` score table has none);
* ``"matplotlib"``: a picture, drawn by :mod:`gobnilp_py.output.pictures`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["OutputFormat", "FORMATS", "OUTPUTS", "PICTURES", "OUTPUTS_FOR_JOB", "DEFAULT_WRITE", "JOBS",
           "SECONDS_PER_NETWORK_VARIABLE", "texts_of"]

#: The jobs of a run (``[search] job``).
JOBS = ("score", "learn", "enumerate", "kbest")
_COLLECTING = ("enumerate", "kbest")
_SEARCHING = ("learn", "enumerate", "kbest")

#: ``(result of the run, file name) -> {file name: text}``: what a text format writes.
TextWriter = Callable[[Any, str], Mapping[str, str]]


@dataclass(frozen=True)
class OutputFormat:
    """One output of a run: where it goes, who can write it, what it needs, and how it is written."""

    name: str
    #: File written into ``[output] dir`` (a picture's extension follows ``picture_format``).
    file: str
    #: Jobs that produce it.
    jobs: tuple[str, ...]
    #: What it needs (see the module docstring).
    needs: frozenset[str] = frozenset()
    #: Jobs that write it when ``[output] write`` is not given.
    default_for: tuple[str, ...] = ()
    #: ``(run result, file) -> {file: text}`` for a text file; ``None`` for the JSON, the report (written
    #: last, from everything else) and the pictures (drawn first).
    text: TextWriter | None = None
    #: The written formats whose separators the variable names must not hold (``check_names_for``).
    name_formats: tuple[str, ...] = ()
    #: A picture's caption in the report.
    caption: str = ""
    #: Seconds per listed network per variable it costs (the time a collection leaves for writing).
    seconds_per_network_variable: float = 0.0

    @property
    def picture(self) -> bool:
        return "matplotlib" in self.needs


# The writers are imported when a file is written, not with this table (the config reads it, and a
# ``run --check`` should not load the writers and the drawing code).
def _listing(writer: str) -> TextWriter:
    """A writer of :mod:`gobnilp_py.output.writers` taking the result alone, as a :data:`TextWriter`."""
    def write(res: Any, fname: str) -> dict[str, str]:
        from ..output import writers as W

        return {fname: getattr(W, writer)(res.result)}
    return write


def _of_best(writer: str) -> TextWriter:
    """As :func:`_listing`, writing nothing when there is no best network (infeasible, or nothing found)."""
    def write(res: Any, fname: str) -> dict[str, str]:
        from ..output import writers as W

        return _listing(writer)(res, fname) if W.networks_of(res.result) else {}
    return write


def _jkl(res: Any, fname: str) -> dict[str, str]:
    return {fname: res.table.to_jkl()}


def _bif(res: Any, fname: str) -> dict[str, str]:
    from ..output import writers as W

    if not W.networks_of(res.result):
        return {}
    return {fname: W.bif_text(res.result, res.dataset, ess=res.config.get("scoring", "ess"))}


def _arc_strength(res: Any, fname: str) -> dict[str, str]:
    return _listing("arc_strength_csv")(res, fname) if len(res.result) else {}


def _dot(res: Any, fname: str) -> dict[str, str]:
    """One graph per file: ``best.dot`` and ``best_cpdag.dot``."""
    from ..output.pictures import dot_files

    return {fname if dot_name == "best.dot" else fname.rsplit(".", 1)[0] + "_cpdag.dot": text
            for dot_name, text in dot_files(res.result).items()}


_EVERY = JOBS
#: Every output, in the order ``all`` lists them.
FORMATS: dict[str, OutputFormat] = {f.name: f for f in (
    OutputFormat("json", "result.json", _EVERY, default_for=_EVERY, seconds_per_network_variable=25e-6),
    OutputFormat("csv", "networks.csv", _SEARCHING, default_for=_COLLECTING, name_formats=("modelstring",),
                 text=_listing("networks_csv"), seconds_per_network_variable=15e-6),
    OutputFormat("gobnilp", "networks.txt", _SEARCHING, default_for=("learn",), name_formats=("gobnilp",),
                 text=_listing("gobnilp_text")),
    OutputFormat("jkl", "scores.jkl", ("score", "learn", "enumerate"), frozenset({"table"}), default_for=("score",),
                 name_formats=("jkl",), text=_jkl),
    OutputFormat("modelstring", "modelstrings.txt", _SEARCHING, name_formats=("modelstring",),
                 text=_listing("modelstrings"), seconds_per_network_variable=8e-6),
    OutputFormat("dot", "best.dot", _SEARCHING, text=_dot),
    OutputFormat("dag_png", "best_dag.png", _SEARCHING, frozenset({"matplotlib"}), caption="best network"),
    OutputFormat("cpdag_png", "best_cpdag.png", _SEARCHING, frozenset({"matplotlib"}),
                 caption="equivalence class of the best network (CPDAG)"),
    OutputFormat("edges_png", "edge_probabilities.png", _COLLECTING, frozenset({"matplotlib"}),
                 caption="edge and arrow probabilities over the collection"),
    OutputFormat("scores_png", "score_rank.png", _COLLECTING, frozenset({"matplotlib"}),
                 caption="score versus rank with Bayes-factor levels"),
    # these three start with the guarantee too (// in BIF, # in CSV)
    OutputFormat("bif", "best.bif", _SEARCHING, frozenset({"network", "dataset"}),
                 text=_bif),
    OutputFormat("adjacency", "best_adjacency.csv", _SEARCHING, frozenset({"network"}),
                 text=_of_best("adjacency_csv")),
    OutputFormat("arc_strength", "arc_strength.csv", _COLLECTING, frozenset({"networks"}),
                 text=_arc_strength,
                 seconds_per_network_variable=4e-6),
    # report.html with report_format = "html"; the job score's report lists no networks
    OutputFormat("report", "report.md", _EVERY, default_for=_EVERY, name_formats=("modelstring",),
                 seconds_per_network_variable=8e-6),
)}

#: Output name -> file written into ``[output] dir``.
OUTPUTS: dict[str, str] = {name: f.file for name, f in FORMATS.items()}
#: The picture outputs ("pictures" in ``write`` means all of those the job has).
PICTURES: tuple[str, ...] = tuple(name for name, f in FORMATS.items() if f.picture)
#: Which outputs each job can produce (a picture of edge probabilities needs a collection, ...).
OUTPUTS_FOR_JOB: dict[str, tuple[str, ...]] = {job: tuple(n for n, f in FORMATS.items() if job in f.jobs)
                                               for job in JOBS}
#: What each job writes when ``[output] write`` is not given.
DEFAULT_WRITE: dict[str, tuple[str, ...]] = {job: tuple(n for n, f in FORMATS.items() if job in f.default_for)
                                             for job in JOBS}
#: Seconds a listed network costs after the search, per variable, for each output that lists every network
#: (and for summarising a collection: its classes and edge probabilities): a time-limited collection stops
#: listing early enough to leave them (:attr:`gobnilp_py._budget.Budget.per_network`).  Measured on wine BF 150
#: (26,153 networks of 14 variables): networks.csv 195 us a network, result.json's networks 311 us, classes and
#: edge probabilities 18 us; model strings and the report's rows are taken as about half of networks.csv.
SECONDS_PER_NETWORK_VARIABLE: dict[str, float] = {
    **{n: f.seconds_per_network_variable for n, f in FORMATS.items() if f.seconds_per_network_variable},
    "summarising": 2e-6}


def texts_of(name: str, res: Any, fname: str) -> Mapping[str, str]:
    """The text files output ``name`` writes for the run result ``res`` (``{}`` when it has nothing to write)."""
    writer = FORMATS[name].text
    return writer(res, fname) if writer is not None else {}
