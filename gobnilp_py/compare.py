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
reason instead of a time; a run stopped by ``time_limit`` is marked, not
dropped.
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
from typing import Any

import numpy as np
import pandas as pd

from ._io import atomic_write_text
from .errors import GobnilpError, ParameterError

__all__ = ["compare", "Comparison", "KBEST_METHODS", "plot_gaps"]

_log = logging.getLogger(__name__)

#: The k-best methods compared by default (any name of :func:`gobnilp_py.method_names` ("kbest") is accepted).
KBEST_METHODS = ("dp", "resolve", "ilp")


@dataclass
class Comparison:
    """The results of :func:`compare`.

    Attributes
    ----------
    source : str
        What was compared (file name or description).
    settings : dict
        Scoring options, k values, Bayes factors, time limit.
    kbest : pandas.DataFrame
        One row per (k, method): ``k, method, seconds, networks, classes,
        kth_gap, complete, note``.
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

    def to_markdown(self) -> str:
        """Both tables as Markdown, the k-best one in Liao et al.'s Table 2 layout (methods side by side)."""
        lines = [f"# k-best against Bayes-factor enumeration: {self.source}", ""]
        opts = ", ".join(f"{k}={v}" for k, v in self.settings.get("scoring", {}).items())
        lines += [f"Scoring: {opts}.  Times are wall-clock seconds, scoring included; "
                  f"time limit per run: {self.settings.get('time_limit')}.", ""]
        lines += ["## k best networks", ""]
        methods = [m for m in KBEST_METHODS if m in set(self.kbest["method"])]
        head = ["k"] + [f"{m} T" for m in methods] + ["networks", "classes", "gap of k-th"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for k, rows in self.kbest.groupby("k", sort=True):
            by = {r.method: r for r in rows.itertuples()}
            cells = [str(k)] + [_time_cell(by[m]) if m in by else "-" for m in methods]
            ref = _reference_row(rows)
            cells += [_int_cell(ref, "networks"), _int_cell(ref, "classes"),
                      "-" if ref is None or not math.isfinite(ref.kth_gap) else f"{ref.kth_gap:.4f}"]
            lines.append("| " + " | ".join(cells) + " |")
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
        """JSON-able form of everything (tables as lists of records)."""
        return {"source": self.source, "settings": self.settings, "machine": self.machine,
                "kbest": _records(self.kbest), "bayes_factor": _records(self.bayes_factor),
                "gaps": [float(g) for g in self.gaps]}

    def plot(self, path: str | Path) -> Path:
        """Write Figure 2 (gap of the k-th best network against k, BF levels marked) as an image."""
        levels = {float(r.bf): float(r.epsilon) for r in self.bayes_factor.itertuples()}
        return plot_gaps(self.gaps, levels, path, title=self.source)

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


def compare(data: Any, *, ks: Sequence[int] = (10, 100, 1000), bayes_factors: Sequence[float] = (3, 20, 150),
            methods: Sequence[str] = KBEST_METHODS, time_limit: float | None = None,
            max_networks: int | None = 150_000, source: str | None = None,
            **scoring_options: Any) -> Comparison:
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
    time_limit : float, optional
        Seconds per run; a run that reaches it is reported as incomplete.
    max_networks : int or None
        Cap of each Bayes-factor enumeration (Liao et al. used 150,000).
    source : str, optional
        Label for the tables and the plot (default: the file name).
    **scoring_options
        ``score``, ``ess``, ``palim``, ``prune`` (see :func:`gobnilp_py.score`).

    Returns
    -------
    Comparison

    Examples
    --------
    >>> from gobnilp_py import example_path
    >>> from gobnilp_py.compare import compare
    >>> c = compare(example_path("asia"), ks=[5], bayes_factors=[3], score="BDeu")  # doctest: +SKIP
    >>> print(c.to_markdown())  # doctest: +SKIP
    """
    from .data import Dataset, read_data
    from .solve import enumerate_networks, kbest

    ks = _positive_ints(ks, "ks")
    bfs = _bayes_factors(bayes_factors)
    from .solve.methods import method_names

    unknown = [m for m in methods if m not in method_names("kbest") or m == "auto"]
    if unknown:
        raise ParameterError(f"unknown k-best method {unknown[0]!r}; choose from "
                          f"{', '.join(m for m in method_names('kbest') if m != 'auto')}")
    if time_limit is not None and not float(time_limit) > 0:
        raise ParameterError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    label = source or (Path(data).name if isinstance(data, (str, Path)) else type(data).__name__)
    dataset = data if isinstance(data, Dataset) else read_data(data)

    krows = []
    lists: list[Any] = []
    for k in ks:
        for method in methods:
            options: dict[str, Any] = dict(scoring_options)
            if time_limit is not None:
                options["time_limit"] = float(time_limit)
            t0 = time.perf_counter()
            try:
                cs = kbest(dataset, k, method=method, **options)
            except GobnilpError as exc:  # e.g. the DP refused: too many variables or over its memory budget
                krows.append(_krow(k, method, math.nan, None, note=f"not run: {exc}"))
                _log.info("compare: %s k=%d not run: %s", method, k, exc)
                continue
            secs = time.perf_counter() - t0
            krows.append(_krow(k, method, secs, cs))
            if cs.complete:
                lists.append(cs)
            _log.info("compare: %s k=%d: %d networks in %.2fs", method, k, len(cs), secs)
    brows = []
    for bf in bfs:
        t0 = time.perf_counter()
        cs = enumerate_networks(dataset, bayes_factor=bf, time_limit=time_limit, max_networks=max_networks,
                                **scoring_options)
        secs = time.perf_counter() - t0
        note = "" if cs.complete else f"stopped: {cs.reason}"
        brows.append({"bf": float(bf), "epsilon": math.log(bf), "seconds": secs, "networks": len(cs),
                      "classes": cs.n_mecs, "complete": cs.complete, "note": note})
        _log.info("compare: BF %g: %d networks in %.2fs", bf, len(cs), secs)
    gaps = np.array([], dtype=float)
    if lists:
        longest = max(lists, key=len)
        gaps = np.array([longest.opt - net.score for net in longest.networks], dtype=float)
    settings = {"ks": ks, "bayes_factors": bfs, "methods": list(methods), "time_limit": time_limit,
                "max_networks": max_networks, "scoring": {"score": "BIC", **scoring_options}}
    return Comparison(label, settings, pd.DataFrame(krows, columns=_KCOLS),
                      pd.DataFrame(brows, columns=_BCOLS), gaps, machine_info())


_KCOLS = ["k", "method", "seconds", "networks", "classes", "kth_gap", "complete", "note"]
_BCOLS = ["bf", "epsilon", "seconds", "networks", "classes", "complete", "note"]


def _krow(k: int, method: str, secs: float, cs: Any, note: str = "") -> dict[str, Any]:
    if cs is None:
        return {"k": k, "method": method, "seconds": secs, "networks": None, "classes": None,
                "kth_gap": math.nan, "complete": False, "note": note}
    if not cs.complete:
        note = f"stopped: {cs.reason} after {len(cs)} networks"
    elif len(cs) < k:
        note = f"only {len(cs)} networks exist"
    return {"k": k, "method": method, "seconds": secs, "networks": len(cs), "classes": cs.n_mecs,
            "kth_gap": cs.epsilon if len(cs) else math.nan, "complete": bool(cs.complete), "note": note}


def plot_gaps(gaps: Sequence[float], levels: dict[float, float], path: str | Path, *, title: str = "") -> Path:
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
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    g = np.asarray(gaps, dtype=float)
    fig, ax = plt.subplots(figsize=(6.0, 4.0), dpi=120)
    try:
        if g.size:
            ax.step(np.arange(1, g.size + 1), g, where="post", color="C0", label="gap of k-th best network")
        for i, (bf, eps) in enumerate(sorted(levels.items())):
            ax.axhline(eps, color=f"C{i + 1}", linestyle="--", linewidth=1, label=f"BF {bf:g} (ln BF = {eps:.2f})")
        ax.set_xscale("log")
        ax.set_xlabel("k")
        ax.set_ylabel("OPT - score of k-th best network")
        ax.set_title(f"k-best against Bayes factor: {title}" if title else "k-best against Bayes factor")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="best", fontsize=8)
        fig.tight_layout()
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
    if r.seconds is None or not math.isfinite(r.seconds):
        return "not run"
    mark = "" if r.complete else " (stopped)"
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
