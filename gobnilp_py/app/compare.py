"""k-best search against Bayes-factor enumeration, on one dataset (Liao et al., Table 2 and Figure 2).

The case for enumerating by Bayes factor (ε-BNSL) rests on a comparison: a
k-best solver needs k chosen in advance, and a fixed k covers very different
evidence levels on different data.  :func:`compare` runs, on the user's data:

* for each k: every k-best method of :mod:`gobnilp_py.solve.methods` (dynamic
  programming, repeated ILP solves, the one-search ILP k-best, the order graph),
  recording wall time,
  the number of networks and of equivalence classes, and the gap of the k-th
  network below the optimum;
* for each Bayes factor: :func:`gobnilp_py.enumerate_networks`, recording wall
  time, networks and classes;

and returns a :class:`Comparison` that prints the two tables as Markdown and
draws Figure 2: the score gap of the i-th best network against i, with the
ln(BF) levels marked, so one reads off which k each Bayes factor corresponds
to on these data.

Times are wall-clock seconds of each call from the data, scoring included
(every method scores with pruning made safe for its own gap).  A method that
cannot run (the DP beyond its variable or memory limit) is recorded with the
reason instead of a time.

Every run has a time limit, :data:`DEFAULT_TIME_LIMIT` (10 s) unless told
otherwise (``time_limit=None``: none), so a comparison started with the
defaults ends in seconds on small data: the re-solve method needs one ILP
per network, and on tic-tac-toe k = 10 with its ties is 192 networks (429 s,
against 1.3 s for the DP).  A run the limit cuts short is kept and labelled
``INCOMPLETE (time_limit)`` in the table, the JSON and the plot, with what
it found (counts marked ``+``: lower bounds); a method cut short at one k is
not run for the larger k (nor the enumeration for a larger Bayes factor),
which could only take longer, and those rows say so.  An interrupt (Ctrl-C)
ends the comparison after the run it stopped, the runs left marked not run.
"""

from __future__ import annotations

import json
import logging
import math
import platform
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._io import atomic_write_text
from ..errors import GobnilpError, ParameterError

if TYPE_CHECKING:  # pandas (about 0.2 s to import) is imported when a comparison runs
    import pandas as pd

__all__ = ["compare", "Comparison", "KBEST_METHODS", "CLASS_METHOD", "DEFAULT_TIME_LIMIT", "plot_gaps"]

_log = logging.getLogger(__name__)

#: Row label of the k-best-classes column (Liao et al.'s KBestEC): ``kbest(..., by="class")`` with the ILP.
CLASS_METHOD = "kbestec"

#: The k-best methods compared by default (any name of :func:`gobnilp_py.method_names` ("kbest") is accepted).
KBEST_METHODS = ("dp", "resolve", "ilp")

#: Seconds per run by default (each k-best method at each k, each Bayes factor): ``None`` lifts it.
DEFAULT_TIME_LIMIT = 10.0


@dataclass
class Comparison:
    """The results of :func:`compare`.

    Attributes
    ----------
    source : str
        What was compared (file name or description).
    settings : dict
        Scoring options, k values, Bayes factors, time limit per run.
    kbest : pandas.DataFrame
        One row per (k, method): ``k, method, seconds, networks, classes,
        kth_gap, complete, note``.  ``complete`` is False for a run cut short
        (``note`` says by what) and for a run not made (``seconds`` NaN).
    bayes_factor : pandas.DataFrame
        One row per Bayes factor: ``bf, epsilon, seconds, networks, classes, complete, note``.
    gaps : numpy.ndarray
        ``opt - score`` of the i-th best network (i = 1 ..), from the longest
        complete k-best list; the data of Figure 2.
    machine : dict
        Platform, processor and Python version of the run.
    """

    source: str
    settings: dict[str, Any]
    kbest: pd.DataFrame
    bayes_factor: pd.DataFrame
    gaps: np.ndarray
    machine: dict[str, str] = field(default_factory=dict)

    # ---------------------------------------------------------------- labels
    @property
    def complete(self) -> bool:
        """True when every run finished (none cut short by the time limit or an interrupt, none skipped).

        A run that could not be made at all (``note`` "not run: ..." with the
        method's own refusal, e.g. the DP beyond its variable limit) is a fact
        about the method, not a cut-short run, and does not count here.
        """
        return not self._cut_short() and not self._skipped()

    def _rows(self) -> list[Any]:
        return [*self.kbest.itertuples(), *self.bayes_factor.itertuples()]

    def _cut_short(self) -> list[Any]:
        return [r for r in self._rows() if not r.complete and _ran(r)]

    def _skipped(self) -> list[Any]:
        return [r for r in self._rows() if str(r.note).startswith(_SKIPPED)]

    @property
    def guarantee(self) -> str:
        """One line saying what the tables are worth, shown in every output (Markdown, JSON, plot).

        ``complete: ...`` when every run finished; otherwise ``INCOMPLETE:``
        with how many runs were cut short (their times are lower bounds,
        their counts what they found) and how many were not run after them.
        """
        n = len(self._rows())
        limit = self.settings.get("time_limit")
        per_run = f"{limit:g} s per run" if limit else "no time limit"
        cut, skipped = self._cut_short(), self._skipped()
        if not cut and not skipped:
            return f"complete: all {n} runs finished ({per_run})"
        parts = []
        if cut:
            reasons = sorted({_reason(r) for r in cut})
            parts.append(f"{len(cut)} of {n} runs cut short ({', '.join(reasons)}; {per_run}): their times are "
                         "lower bounds and their counts, marked +, what they found")
        if skipped:
            parts.append(f"{len(skipped)} not run after a run cut short")
        return "INCOMPLETE: " + "; ".join(parts)

    # ---------------------------------------------------------------- outputs
    def to_markdown(self) -> str:
        """Both tables as Markdown, the k-best one in Liao et al.'s Table 2 layout (methods side by side)."""
        lines = [f"# k-best against Bayes-factor enumeration: {self.source}", "", self.guarantee, ""]
        opts = ", ".join(f"{k}={v}" for k, v in self.settings.get("scoring", {}).items())
        limit = self.settings.get("time_limit")
        lines += [f"Scoring: {opts}.  Times are wall-clock seconds, scoring included; "
                  f"time limit per run: {f'{limit:g} s' if limit else 'none'}"
                  + ("; INCOMPLETE marks a run the limit (or an interrupt) cut short." if limit or not self.complete
                     else "."), ""]
        lines += ["## k best networks", ""]
        present = list(dict.fromkeys(self.kbest["method"]))
        methods = [m for m in present if m != CLASS_METHOD]
        has_ec = CLASS_METHOD in present
        head = (["k"] + [f"{m} T" for m in methods] + ["networks", "classes", "gap of k-th", "certified ε_k"]
                + (["KBestEC T", "k best classes: networks"] if has_ec else []))
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for k, rows in self.kbest.groupby("k", sort=True):
            by = {r.method: r for r in rows.itertuples()}
            cells = [str(k)] + [_time_cell(by[m]) if m in by else "-" for m in methods]
            ref = _reference_row(rows[rows["method"] != CLASS_METHOD])
            exact = ref is not None and bool(ref.complete)  # a gap read off a cut-short list means nothing
            cert = getattr(ref, "certified_epsilon", math.nan) if exact else math.nan
            cells += [_int_cell(ref, "networks"), _int_cell(ref, "classes"),
                      f"{ref.kth_gap:.4f}" if exact and math.isfinite(ref.kth_gap) else "-",
                      "-" if cert is None or not math.isfinite(cert) else f"{cert:.4f}"]
            if has_ec:
                ec = by.get(CLASS_METHOD)
                cells += [_time_cell(ec) if ec is not None else "-", _int_cell(ec, "networks")]
            lines.append("| " + " | ".join(cells) + " |")
        if has_ec:
            lines += ["", "KBestEC: the k best Markov equivalence classes (and every class tied with the k-th), "
                      "`kbest(..., by=\"class\", method=\"ilp\")`; networks = members of those classes."]
        notes = [f"- k={r.k}, {r.method}: {r.note}" for r in self.kbest.itertuples() if r.note]
        lines += [""] + notes if notes else []
        lines += ["", "## Networks within a Bayes factor of the optimum", "",
                  "| BF | ln BF | T | networks | classes |", "|---|---|---|---|---|"]
        for r in self.bayes_factor.itertuples():
            lines.append(f"| {r.bf:g} | {r.epsilon:.4f} | {_time_cell(r)} | {_int_cell(r, 'networks')} | "
                         f"{_int_cell(r, 'classes')} |")
        notes = [f"- BF={r.bf:g}: {r.note}" for r in self.bayes_factor.itertuples() if r.note]
        lines += [""] + notes if notes else []
        if len(self.gaps):
            lines += ["", "## Which k each Bayes factor corresponds to", ""]
            for r in self.bayes_factor.itertuples():
                within = int(np.count_nonzero(self.gaps <= r.epsilon + 1e-9 * max(1.0, r.epsilon)))
                if within == len(self.gaps):
                    lines.append(f"- BF {r.bf:g} (gap {r.epsilon:.4f}): at least the {within} best networks "
                                 f"(the longest k-best list, k = {len(self.gaps)}, ends inside this gap)")
                else:
                    lines.append(f"- BF {r.bf:g} (gap {r.epsilon:.4f}): the {within} best networks, i.e. k = {within}")
        m = self.machine
        lines += ["", f"Machine: {m.get('platform', '?')}, {m.get('processor', '?')}, "
                  f"{m.get('cpus', '?')} CPUs, Python {m.get('python', '?')}.", ""]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form of everything (tables as lists of records), headed by the guarantee."""
        return {"source": self.source, "guarantee": self.guarantee, "complete": self.complete,
                "runs_cut_short": len(self._cut_short()), "runs_not_run": len(self._skipped()),
                "settings": self.settings, "machine": self.machine,
                "kbest": _records(self.kbest), "bayes_factor": _records(self.bayes_factor),
                "gaps": [float(g) for g in self.gaps]}

    def plot(self, path: str | Path) -> Path:
        """Write Figure 2 (gap of the k-th best network against k, BF levels marked) as an image.

        The figure carries the comparison's guarantee line, so a picture of a
        comparison cut short says so as the tables do.
        """
        levels = {float(r.bf): float(r.epsilon) for r in self.bayes_factor.itertuples()}
        return plot_gaps(self.gaps, levels, path, title=self.source, note=self.guarantee)

    def write(self, folder: str | Path) -> dict[str, Path]:
        """Write ``compare.md``, ``compare.json`` and ``kbest_gap.png`` into ``folder`` (created if missing)."""
        out = Path(folder)
        if out.exists() and not out.is_dir():
            raise ParameterError(f"output folder {out} exists and is not a folder")
        out.mkdir(parents=True, exist_ok=True)
        paths = {"markdown": out / "compare.md", "json": out / "compare.json", "plot": out / "kbest_gap.png"}
        atomic_write_text(paths["markdown"], self.to_markdown())
        atomic_write_text(paths["json"], json.dumps(self.to_dict(), indent=1))
        self.plot(paths["plot"])
        return paths


#: How the note of a run not made because an earlier one was cut short begins ("not run: ..." is a
#: method's own refusal, e.g. the DP beyond its variable limit).
_SKIPPED = "skipped: "
_AFTER_CUT = "skipped: {what} was cut short ({reason}); {bigger} could only take longer"
_AFTER_INTERRUPT = "skipped: the comparison was interrupted"


def _ran(r: Any) -> bool:
    return r.seconds is not None and math.isfinite(r.seconds)


def _reason(r: Any) -> str:
    """``time_limit`` from a note ``INCOMPLETE (time_limit) after 27 networks``."""
    note = str(r.note)
    if note.startswith("INCOMPLETE (") and ")" in note:
        return note[len("INCOMPLETE ("):note.index(")")]
    return "stopped"


def compare(data: Any, *, ks: Sequence[int] = (10, 100, 1000), bayes_factors: Sequence[float] = (3, 20, 150),
            methods: Sequence[str] = KBEST_METHODS, time_limit: float | None = DEFAULT_TIME_LIMIT,
            max_networks: int | None = 150_000, source: str | None = None, classes: bool = True,
            progress: Any = None, **scoring_options: Any) -> Comparison:
    """Run the k-best methods and the Bayes-factor enumeration on ``data`` and tabulate them.

    Parameters
    ----------
    data : Dataset, path, DataFrame or array
        Discrete data (every method scores it itself).
    ks : sequence of int
        The values of k (each >= 1).
    bayes_factors : sequence of float
        The Bayes factors (each >= 1).
    methods : sequence of str
        k-best methods among :data:`KBEST_METHODS` (``"ilp"``, ``"dp"``, ``"resolve"``, ...).
    time_limit : float or None
        Wall-clock seconds per run (default :data:`DEFAULT_TIME_LIMIT`, 10 s;
        ``None``: no limit).  A run that reaches it is kept, labelled
        ``INCOMPLETE (time_limit)``, and the same method is not run for a
        larger k (nor the enumeration for a larger Bayes factor).
    max_networks : int or None
        Cap of each Bayes-factor enumeration (Liao et al. used 150,000).
    source : str, optional
        Label for the tables and the plot (default: the file name).
    classes : bool
        Also run the k best equivalence classes (Liao et al.'s KBestEC column:
        ``kbest(..., by="class", method="ilp")``, row method ``"kbestec"``);
        skipped, with a note, for a score that is not score-equivalent.
    progress : bool, "auto" or Progress
        Progress on stderr while the runs go: each run is a phase
        (``[3/15] k=10 resolve: the 10 best networks (at most 10 s) ...``,
        then its time) and the engines report through it while they run.
        ``True`` prints, ``"auto"`` prints only on a terminal (the command
        line's choice), ``False`` / ``None`` (default) is silent; a
        :class:`gobnilp_py.progress.Progress` of your own is used as it is.
    **scoring_options
        ``score``, ``ess``, ``palim``, ``prune`` (see :func:`gobnilp_py.score`).

    Returns
    -------
    Comparison

    Examples
    --------
    >>> from gobnilp_py import example_path
    >>> from gobnilp_py.app.compare import compare
    >>> c = compare(example_path("asia"), ks=[5], bayes_factors=[3], score="BDeu")  # doctest: +SKIP
    >>> print(c.to_markdown())  # doctest: +SKIP
    """
    import pandas as pd

    from .._validation import check_time_limit
    from ..data import Dataset, read_data
    from ..solve import enumerate_networks, kbest
    from ..solve.methods import method_names

    ks = _positive_ints(ks, "ks")
    bfs = _bayes_factors(bayes_factors)
    unknown = [m for m in methods if m not in method_names("kbest") or m == "auto"]
    if unknown:
        raise ParameterError(f"unknown k-best method {unknown[0]!r}; choose from "
                          f"{', '.join(m for m in method_names('kbest') if m != 'auto')}")
    time_limit = check_time_limit(time_limit, "time_limit")
    label = source or (Path(data).name if isinstance(data, (str, Path)) else type(data).__name__)
    dataset = data if isinstance(data, Dataset) else read_data(data)

    plan = [("kbest", k, m) for k in ks for m in [*methods, *([CLASS_METHOD] if classes else [])]]
    plan += [("bf", bf, "enumerate") for bf in bfs]
    runner = _Runner(_progress_for(progress, [_run_label(*step) for step in plan], time_limit))
    limit = {} if time_limit is None else {"time_limit": time_limit}
    cut_at: dict[str, tuple[Any, str]] = {}   # method (or "enumerate") -> (k or BF, reason) where it was cut short

    krows: list[dict[str, Any]] = []
    lists: list[Any] = []
    brows: list[dict[str, Any]] = []
    for kind, x, method in plan:
        if kind == "kbest":
            k = int(x)
            skip = runner.skip_note(method, cut_at, f"k={k}")
            if skip:
                krows.append(_krow(k, method, math.nan, None, note=skip))
                continue
            by = "class" if method == CLASS_METHOD else "dag"
            engine = "ilp" if method == CLASS_METHOD else method
            try:
                cs, secs = runner.run(_run_label(kind, x, method), _run_detail(kind, x, method, time_limit),
                                      lambda hook: kbest(dataset, k, method=engine, by=by, progress=hook,
                                                         **limit, **scoring_options))
            except GobnilpError as exc:  # the DP refused (variables, memory), a score not score-equivalent, no SCIP
                krows.append(_krow(k, method, math.nan, None, note=f"not run: {exc}"))
                _log.info("compare: %s k=%d not run: %s", method, k, exc)
                continue
            row = _krow(k, method, secs, cs)
            if method == CLASS_METHOD:
                row["classes"] = cs.n_classes_total
                row["networks"] = cs.n_networks_total if cs.n_networks_total is not None else len(cs)
                if cs.complete and (cs.n_classes_total or 0) < k:
                    row["note"] = f"only {cs.n_classes_total} classes exist"
            elif cs.complete:
                lists.append(cs)
            krows.append(row)
            if not cs.complete:
                cut_at[method] = (f"k={k}", cs.reason or "stopped")
            _log.info("compare: %s k=%d: %d networks in %.2fs%s", method, k, len(cs), secs,
                      "" if cs.complete else f" (INCOMPLETE: {cs.reason})")
        else:
            bf = float(x)
            skip = runner.skip_note("enumerate", cut_at, f"BF {bf:g}")
            if skip:
                brows.append({"bf": bf, "epsilon": math.log(bf), "seconds": math.nan, "networks": None,
                              "classes": None, "complete": False, "note": skip})
                continue
            cs, secs = runner.run(_run_label(kind, x, method), _run_detail(kind, x, method, time_limit),
                                  lambda hook: enumerate_networks(dataset, bayes_factor=bf, max_networks=max_networks,
                                                                  progress=hook, **limit, **scoring_options))
            note = "" if cs.complete else f"INCOMPLETE ({cs.reason}) after {len(cs)} networks"
            brows.append({"bf": bf, "epsilon": math.log(bf), "seconds": secs, "networks": len(cs),
                          "classes": cs.n_mecs, "complete": cs.complete, "note": note})
            if not cs.complete:
                cut_at["enumerate"] = (f"BF {bf:g}", cs.reason or "stopped")
            _log.info("compare: BF %g: %d networks in %.2fs", bf, len(cs), secs)
    gaps = np.array([], dtype=float)
    if lists:
        longest = max(lists, key=len)
        gaps = np.array([longest.opt - net.score for net in longest.networks], dtype=float)
    settings = {"ks": ks, "bayes_factors": bfs, "methods": list(methods), "classes": bool(classes),
                "time_limit": time_limit,
                "max_networks": max_networks, "scoring": {"score": "BIC", **scoring_options}}
    return Comparison(label, settings, pd.DataFrame(krows, columns=_KCOLS),
                      pd.DataFrame(brows, columns=_BCOLS), gaps, machine_info())


def _run_label(kind: str, x: Any, method: str) -> str:
    return f"k={x} {method}" if kind == "kbest" else f"BF {float(x):g}"


def _run_detail(kind: str, x: Any, method: str, time_limit: float | None) -> str:
    what = {CLASS_METHOD: f"the {x} best equivalence classes (ILP)"}.get(
        method, f"the {x} best networks" if kind == "kbest" else f"every network within Bayes factor {float(x):g}")
    return what + (f" (at most {time_limit:g} s)" if time_limit is not None else "")


def _progress_for(progress: Any, labels: list[str], time_limit: float | None) -> Any:
    """The progress display of ``compare(progress=...)``: None (silent), a new one, or the caller's own."""
    if progress is None or progress is False:
        return None
    if progress is True or progress == "auto":
        from ..progress import Progress

        return Progress(labels, enabled=progress, time_limit=time_limit)
    if not hasattr(progress, "phase"):
        raise ParameterError(f"progress must be True, False, 'auto' or a Progress, got {progress!r}")
    return progress


class _Runner:
    """One comparison's runs: each timed, each a phase of the progress display, stopped by an interrupt."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress
        self.interrupted = False

    def skip_note(self, method: str, cut_at: dict[str, tuple[Any, str]], here: str) -> str:
        """Why this run is not made ("" to make it): after an interrupt, or after the method was cut short."""
        if self.interrupted:
            return _AFTER_INTERRUPT
        if method in cut_at:
            where, reason = cut_at[method]
            what = "the enumeration" if method == "enumerate" else method
            return _AFTER_CUT.format(what=f"{what} at {where}", reason=reason, bigger=here)
        return ""

    def run(self, label: str, detail: str, call: Any) -> tuple[Any, float]:
        from contextlib import nullcontext

        phase = self.progress.phase(label, detail) if self.progress is not None else nullcontext()
        t0 = time.perf_counter()
        with phase:
            cs = call(self.progress)
        secs = time.perf_counter() - t0
        if cs.reason == "interrupted":
            self.interrupted = True
        return cs, secs


_KCOLS = ["k", "method", "seconds", "networks", "classes", "kth_gap", "certified_epsilon", "scoring_passes",
          "families_before_limits", "families_after_limits", "complete", "note"]
_BCOLS = ["bf", "epsilon", "seconds", "networks", "classes", "complete", "note"]


def _krow(k: int, method: str, secs: float, cs: Any, note: str = "") -> dict[str, Any]:
    if cs is None:
        return {"k": k, "method": method, "seconds": secs, "networks": None, "classes": None,
                "kth_gap": math.nan, "certified_epsilon": math.nan, "scoring_passes": None,
                "families_before_limits": None, "families_after_limits": None, "complete": False, "note": note}
    if not cs.complete:
        note = f"INCOMPLETE ({cs.reason}) after {len(cs)} networks"
    elif len(cs) < k:
        note = f"only {len(cs)} networks exist"
    return {"k": k, "method": method, "seconds": secs, "networks": len(cs), "classes": cs.n_mecs,
            "kth_gap": cs.epsilon if len(cs) else math.nan,
            "certified_epsilon": cs.stats.get("certified_epsilon", math.nan),
            "scoring_passes": cs.stats.get("scoring_passes"),
            "families_before_limits": cs.stats.get("families_before_limits"),
            "families_after_limits": cs.stats.get("families_after_limits"),
            "complete": bool(cs.complete), "note": note}


def plot_gaps(gaps: Sequence[float], levels: dict[float, float], path: str | Path, *, title: str = "",
              note: str = "") -> Path:
    """Figure 2 of Liao et al.: gap below the optimum of the k-th best network, against k.

    Parameters
    ----------
    gaps : sequence of float
        ``opt - score`` of the 1st, 2nd, ... best network.
    levels : dict
        Bayes factor -> ln(BF), drawn as horizontal lines: the networks under a
        line are exactly those within that Bayes factor.
    path : path
        Image file (format from the suffix, e.g. ``.png``, ``.svg``).
    note : str
        A line printed under the plot: what the comparison is worth
        (:attr:`Comparison.guarantee`), so a picture of runs cut short says so.
    """
    import textwrap

    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    g = np.asarray(gaps, dtype=float)
    fig, ax = plt.subplots(figsize=(6.0, 4.0), dpi=120)
    try:
        if g.size:
            ax.step(np.arange(1, g.size + 1), g, where="post", color="C0",
                    label=f"gap of k-th best network (complete list, k <= {g.size})")
        else:
            ax.text(0.5, 0.5, "no complete k-best list: no gaps to draw", transform=ax.transAxes,
                    ha="center", va="center", fontsize=9)
        for i, (bf, eps) in enumerate(sorted(levels.items())):
            ax.axhline(eps, color=f"C{i + 1}", linestyle="--", linewidth=1, label=f"BF {bf:g} (ln BF = {eps:.2f})")
        ax.set_xscale("log")
        ax.set_xlabel("k")
        ax.set_ylabel("OPT - score of k-th best network")
        ax.set_title(f"k-best against Bayes factor: {title}" if title else "k-best against Bayes factor")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="best", fontsize=8)
        wrapped = textwrap.wrap(note, 100)
        if wrapped:
            fig.text(0.01, 0.01, "\n".join(wrapped), fontsize=6.5, va="bottom", ha="left",
                     color="black" if note.startswith("complete") else "darkred")
        fig.tight_layout(rect=(0, 0.012 * (1 + 1.6 * len(wrapped)) if wrapped else 0, 1, 1))
        out = Path(path)
        tmp = out.with_name(f".{out.name}.tmp{out.suffix}")
        fig.savefig(tmp)
        tmp.replace(out)
    finally:
        plt.close(fig)
    return out


def machine_info() -> dict[str, str]:
    """Where a run happened (for reports beside published figures)."""
    import os

    proc = platform.processor() or ""
    try:  # the model name is more telling than the architecture, where available
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                proc = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"platform": platform.platform(), "processor": proc or platform.machine(),
            "cpus": str(os.cpu_count()), "python": platform.python_version()}


def _positive_ints(values: Sequence[Any], name: str) -> list[int]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ParameterError(f"every value of {name} must be a positive integer, got {v!r}")
        out.append(int(v))
    if not out:
        raise ParameterError(f"{name} must name at least one value")
    return sorted(set(out))


def _bayes_factors(values: Sequence[Any]) -> list[float]:
    out = []
    for v in values:
        try:
            bf = float(v)
        except (TypeError, ValueError):
            raise ParameterError(f"every Bayes factor must be a number >= 1, got {v!r}") from None
        if not (bf >= 1 and math.isfinite(bf)):
            raise ParameterError(f"every Bayes factor must be a finite number >= 1, got {v!r}")
        out.append(bf)
    return sorted(set(out))


def _reference_row(rows: pd.DataFrame) -> Any:
    """A complete row of one k (all complete rows agree on the counts), else any row with networks."""
    good = [r for r in rows.itertuples() if r.complete]
    if good:
        return good[0]
    some = [r for r in rows.itertuples() if r.networks is not None and r.networks == r.networks]
    return some[0] if some else None


def _time_cell(r: Any) -> str:
    if not _ran(r):
        return "skipped" if str(r.note).startswith(_SKIPPED) else "not run"
    mark = "" if r.complete else f" INCOMPLETE ({_reason(r)})"
    return f"{r.seconds:.2f}{mark}"


def _int_cell(r: Any, attr: str) -> str:
    if r is None:
        return "-"
    v = getattr(r, attr)
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return f"{int(v):,}" + ("" if r.complete else "+")


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    out = []
    for rec in df.to_dict(orient="records"):
        clean = {}
        for key, v in rec.items():
            if isinstance(v, (np.integer,)):
                v = int(v)
            elif isinstance(v, (float, np.floating)):
                v = float(v) if math.isfinite(v) else None
            elif isinstance(v, np.bool_):
                v = bool(v)
            clean[key] = v
        out.append(clean)
    return out
