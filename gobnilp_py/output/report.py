"""A one-page report of a run, in Markdown (pictures linked) or HTML (pictures embedded).

The report answers what a reader of a study asks first: what data, which
settings, how long each phase took, what was found (OPT, ε and the Bayes
factor, how many networks and equivalence classes, whether the answer is
complete), the best networks, the most probable edges, and the pictures.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ReportData", "render_markdown", "render_html"]

#: Rows shown in the report's tables.
TOP_NETWORKS = 10
TOP_EDGES = 15


class ReportData:
    """Everything a report shows, gathered once and rendered to Markdown or HTML."""

    def __init__(self, *, title: str, job: str, inputs: Mapping[str, Any], settings: Mapping[str, Any],
                 timings: Mapping[str, float], results: Mapping[str, Any], networks: Sequence[Any] = (),
                 opt: float | None = None, edges: Sequence[tuple[str, str, float]] = (),
                 pictures: Mapping[str, bytes] | None = None, files: Sequence[str] = (),
                 warnings: Sequence[str] = (), version: str = "") -> None:
        self.title = title
        self.job = job
        self.inputs = dict(inputs)
        self.settings = dict(settings)
        self.timings = dict(timings)
        self.results = dict(results)
        self.networks = list(networks)
        self.opt = opt
        self.edges = list(edges)
        self.pictures = dict(pictures or {})
        self.files = list(files)
        self.warnings = list(warnings)
        self.version = version
        self.created = _dt.datetime.now().isoformat(timespec="seconds")


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.10g}" if math.isfinite(v) else str(v)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "-"
    if isinstance(v, (list, tuple)):
        if any(isinstance(x, (list, tuple, dict)) for x in v):
            return json.dumps(v)
        return ", ".join(_fmt(x) for x in v)
    if isinstance(v, dict):
        return json.dumps(v)
    return str(v)


def _settings_rows(settings: Mapping[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for k, v in settings.items():
        if isinstance(v, Mapping):
            for kk, vv in v.items():
                rows.append((f"[{k}] {kk}", _fmt(vv)))
        else:
            rows.append((k, _fmt(v)))
    return rows


def _network_rows(data: ReportData) -> list[list[str]]:
    rows = []
    for rank, net in enumerate(data.networks[:TOP_NETWORKS], 1):
        gap = (data.opt - net.score) if data.opt is not None and math.isfinite(data.opt) else float("nan")
        bf = math.exp(gap) if math.isfinite(gap) and gap < 700 else float("nan")
        rows.append([str(rank), f"{net.score:.6f}", f"{gap:.4f}", f"{bf:.4g}", str(net.n_edges),
                     net.to_modelstring()])
    return rows


_NET_HEAD = ["rank", "score", "gap to OPT", "Bayes factor", "arrows", "model string"]


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def render_markdown(data: ReportData, picture_files: Mapping[str, str]) -> str:
    """Markdown text; pictures are linked by their file names in the same folder."""
    lines = [f"# {data.title}", "",
             f"gobnilp-py {data.version}, job **{data.job}**, {data.created}.", ""]
    lines += ["## Inputs", "", _md_table(["", ""], [(k, _fmt(v)) for k, v in data.inputs.items()]), ""]
    lines += ["## Settings", "", _md_table(["key", "value"], _settings_rows(data.settings)), ""]
    lines += ["## Results", "", _md_table(["", ""], [(k, _fmt(v)) for k, v in data.results.items()]), ""]
    if data.networks:
        shown = min(len(data.networks), TOP_NETWORKS)
        lines += [f"### Best networks ({shown} of {len(data.networks)})", "", _md_table(_NET_HEAD, _network_rows(data)),
                  ""]
    if data.edges:
        lines += ["### Most probable edges", "",
                  _md_table(["u", "v", "P(adjacent)"], [(u, v, f"{p:.3f}") for u, v, p in data.edges[:TOP_EDGES]]), ""]
    if picture_files:
        lines += ["## Pictures", ""]
        for caption, fname in picture_files.items():
            lines += [f"![{caption}]({fname})", ""]
    lines += ["## Timings", "", _md_table(["phase", "seconds"], [(k, f"{v:.2f}") for k, v in data.timings.items()]),
              ""]
    if data.warnings:
        lines += ["## Warnings", ""] + [f"* {w}" for w in data.warnings] + [""]
    if data.files:
        lines += ["## Files", ""] + [f"* `{f}`" for f in data.files] + [""]
    return "\n".join(lines)


def _html_table(head: Sequence[str] | None, rows: Sequence[Sequence[str]]) -> str:
    out = ["<table>"]
    if head:
        out.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def render_html(data: ReportData, pictures: Mapping[str, bytes]) -> str:
    """A self-contained HTML page: pictures embedded as base64 PNG, so the file can be mailed alone."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\">", f"<title>{e(data.title)}</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;"
        "text-align:left;font-size:90%}img{max-width:100%;border:1px solid #eee;margin:.5em 0}"
        "code{font-size:90%}</style></head><body>",
        f"<h1>{e(data.title)}</h1>",
        f"<p>gobnilp-py {e(data.version)}, job <b>{e(data.job)}</b>, {e(data.created)}.</p>",
        "<h2>Inputs</h2>", _html_table(None, [(k, _fmt(v)) for k, v in data.inputs.items()]),
        "<h2>Settings</h2>", _html_table(["key", "value"], _settings_rows(data.settings)),
        "<h2>Results</h2>", _html_table(None, [(k, _fmt(v)) for k, v in data.results.items()]),
    ]
    if data.networks:
        shown = min(len(data.networks), TOP_NETWORKS)
        parts += [f"<h3>Best networks ({shown} of {len(data.networks)})</h3>", _html_table(_NET_HEAD, _network_rows(data))]
    if data.edges:
        parts += ["<h3>Most probable edges</h3>",
                  _html_table(["u", "v", "P(adjacent)"], [(u, v, f"{p:.3f}") for u, v, p in data.edges[:TOP_EDGES]])]
    if pictures:
        parts.append("<h2>Pictures</h2>")
        for caption, png in pictures.items():
            b64 = base64.b64encode(png).decode("ascii")
            parts.append(f"<figure><img alt=\"{e(caption)}\" src=\"data:image/png;base64,{b64}\">"
                         f"<figcaption>{e(caption)}</figcaption></figure>")
    parts += ["<h2>Timings</h2>", _html_table(["phase", "seconds"], [(k, f"{v:.2f}") for k, v in data.timings.items()])]
    if data.warnings:
        parts += ["<h2>Warnings</h2><ul>"] + [f"<li>{e(w)}</li>" for w in data.warnings] + ["</ul>"]
    if data.files:
        parts += ["<h2>Files</h2><ul>"] + [f"<li><code>{e(f)}</code></li>" for f in data.files] + ["</ul>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
