"""A one-page report of a run, in Markdown (pictures linked) or HTML (pictures embedded).

The report answers what a reader of a study asks first: what data, which
settings, what was found (OPT, ε and the Bayes factor, how many networks and
equivalence classes, and, on top, whether the answer is complete or
approximate), the best network with the number of networks tied with it, the
equivalence classes with their probability mass, the best networks, the most
probable edges, the pictures, and how long each phase took.

Both renderers build the same list of sections (:func:`sections`), so the
Markdown and HTML reports never disagree.  The probability mass of a class is
its share of the model average the result uses
(:attr:`~gobnilp_py.solve.credible.CredibleSet.averages_over`): with class
summaries (class-level collection) a class weighs ``n_members · exp(score −
OPT)``, which counts members beyond the network cap; otherwise each listed
network weighs ``exp(score − OPT)``.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..solve.labels import posterior_mass_line
from .writers import shown_gap

__all__ = ["ReportData", "render_markdown", "render_html", "sections", "class_rows", "tie_count",
           "timing_rows", "cpdag_string", "Section"]

#: Rows shown in the report's tables.
TOP_NETWORKS = 10
TOP_EDGES = 15
TOP_CLASSES = 10

#: The order phases are listed in (others follow in the order given).
PHASE_ORDER = ("reading", "scoring", "solving", "summarising", "drawing", "writing")

#: Search statistics (``result.stats``) shown as the parts of the solving phase.
_STAT_TIMES = (("time_scoring", "preparing the score table"), ("time_opt", "finding OPT"),
               ("time_collect", "collecting networks"), ("time_members", "listing class members"))

# Two scores are the same to 1e-9 relative (the package's convention, network.py).
_REL_TOL = 1e-9
_ABS_TOL = 1e-7


class ReportData:
    """Everything a report shows, gathered once and rendered to Markdown or HTML.

    Parameters
    ----------
    title, job : str
    inputs, settings, results : mapping
        Shown as tables (settings may nest one level: ``{section: {key: value}}``).
    timings : mapping of phase -> seconds
        Wall time of each phase (``"drawing"`` for the pictures, when timed).
    networks : sequence of Network
        Best first (the "best networks" table).
    opt : float, optional
    edges : sequence of (u, v, P(adjacent))
    files, warnings : sequence of str
    version : str
    result : Network or CredibleSet, optional
        The job's answer: gives the guarantee line and caveats, the tie count
        and the table of equivalence classes.
    picture_notes : mapping of caption -> str, optional
        Pictures asked for but not drawn, with the reason.
    wall : float, optional
        Seconds from the start of the run to the report, so the timing table
        can show a total that includes what no phase measured.
    """

    def __init__(self, *, title: str, job: str, inputs: Mapping[str, Any], settings: Mapping[str, Any],
                 timings: Mapping[str, float], results: Mapping[str, Any], networks: Sequence[Any] = (),
                 opt: float | None = None, edges: Sequence[tuple[str, str, float]] = (),
                 pictures: Mapping[str, bytes] | None = None, files: Sequence[str] = (),
                 warnings: Sequence[str] = (), version: str = "", result: Any = None,
                 picture_notes: Mapping[str, str] | None = None, wall: float | None = None) -> None:
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
        self.result = result
        self.picture_notes = dict(picture_notes or {})
        self.wall = wall
        self.created = _dt.datetime.now().isoformat(timespec="seconds")


# ------------------------------------------------------------------------------- formatting
def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.10g}" if math.isfinite(v) else str(v)
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


def _tied(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_REL_TOL, abs_tol=_ABS_TOL)


def _pct(p: float) -> str:
    if p >= 0.9995:
        return "100%" if p >= 1.0 - 1e-12 else ">99.9%"
    if p < 0.0005:
        return "0%" if p <= 0 else "<0.1%"
    return f"{100 * p:.1f}%"


# ------------------------------------------------------------------------------- facts
def cpdag_string(cp: Any) -> str:
    """A CPDAG in one line: compelled arrows ``u->v``, reversible edges ``u--v``, in variable order.

    Examples
    --------
    >>> from gobnilp_py import cpdag
    >>> cpdag_string(cpdag("abc", {"c": ("a", "b")}))
    'a->c, b->c'
    >>> cpdag_string(cpdag("abc", {"b": ("a",), "c": ("b",)}))
    'a--b, b--c'
    >>> cpdag_string(cpdag("ab", {}))
    '(no edges)'
    """
    idx = {v: i for i, v in enumerate(cp.names)}
    items: list[tuple[tuple[int, int], str]] = []
    for u, v in cp.directed:
        items.append(((idx[v], idx[u]), f"{u}->{v}"))
    for e in cp.undirected:
        u, v = sorted(e, key=idx.__getitem__)
        items.append(((idx[v], idx[u]), f"{u}--{v}"))
    items.sort()
    return ", ".join(s for _, s in items) if items else "(no edges)"


def _class_average(result: Any) -> bool:
    classes = getattr(result, "classes", None)
    return bool(classes) and all(c.n_members is not None for c in classes) and getattr(result, "kind", "") != "kbest"


def class_rows(result: Any, *, top: int | None = TOP_CLASSES) -> list[dict[str, Any]]:
    """The equivalence classes of a collection, most probable first.

    Each row: ``rank`` (by probability mass: 1 = most probable), ``mec``
    (the class's index in ``networks.csv``'s ``mec`` column and
    ``result.json``'s ``mecs``, which order classes by score, 0 = best;
    ``None`` for a class none of whose networks is listed), ``cpdag``
    (:func:`cpdag_string`), ``score``, ``networks`` (member networks in the
    credible set, exact with class summaries, else the listed ones),
    ``listed``, ``mass`` (probability mass, see the module docstring).
    ``top`` rows at most (``None``: all).

    Both numbers are given because the two orders differ (a class of many
    networks can outweigh the best class), and a reader matching the report
    with the files needs the files' index.
    """
    nets = list(getattr(result, "networks", []) or [])
    opt = getattr(result, "opt", math.nan)
    rows: list[dict[str, Any]] = []
    if _class_average(result):
        classes = list(result.classes)
        ref = opt if math.isfinite(opt) else max(c.score for c in classes)
        w = [c.n_members * math.exp(min(c.score - ref, 0.0)) for c in classes]
        total = math.fsum(w)
        for c, wc in zip(classes, w):
            rows.append({"cpdag": cpdag_string(c.cpdag), "score": c.score, "networks": c.n_members,
                         "listed": c.listed, "mass": wc / total if total > 0 else math.nan,
                         "_edges": _edges_of(c.cpdag)})
    elif nets:
        from ..equivalence import network_weights

        weights = network_weights(nets)
        pos = {id(n): i for i, n in enumerate(nets)}
        for cls in result.mecs():
            mass = math.fsum(weights[pos[id(m)]] for m in cls.members)
            rows.append({"cpdag": cpdag_string(cls.cpdag), "score": cls.best_score, "networks": cls.size,
                         "listed": cls.size, "mass": mass, "_edges": _edges_of(cls.cpdag)})
    mec_of = _mec_index(result) if rows else {}
    for r in rows:
        r["mec"] = mec_of.get(r.pop("_edges"))
    rows.sort(key=lambda r: (-r["mass"] if math.isfinite(r["mass"]) else 0.0, -(r["score"] or -math.inf)))
    for i, r in enumerate(rows, 1):
        r["rank"] = i
    return rows if top is None else rows[:top]


def _edges_of(cp: Any) -> tuple[frozenset[Any], frozenset[Any]]:
    """A CPDAG's compelled arrows and reversible edges: what identifies its class, whatever the variable order."""
    return frozenset(cp.directed), frozenset(cp.undirected)


def _mec_index(result: Any) -> dict[tuple[frozenset[Any], frozenset[Any]], int]:
    """CPDAG edges -> index in ``result.mecs()``: the ``mec`` of ``networks.csv`` and ``mecs`` of ``result.json``."""
    return {_edges_of(cls.cpdag): i for i, cls in enumerate(result.mecs())}


def tie_count(result: Any) -> tuple[int | None, str]:
    """How many networks share the best score, and a sentence saying so (and how sure that count is).

    Returns ``(count, text)``; ``count`` is ``None`` when it is not known
    (a single learned network: learning finds one optimum and does not look
    for others).
    """
    if hasattr(result, "parents"):  # a Network
        return None, ("ties not searched: learn finds one optimal network; enumerate with bayes_factor=1 "
                      "lists every network with the best score")
    nets = list(getattr(result, "networks", []) or [])
    if not nets:
        return 0, "no network"
    best = nets[0].score
    if _class_average(result):
        tied = [c for c in result.classes if _tied(c.score, best)]
        count = sum(int(c.n_members) for c in tied)
        listed = sum(1 for n in nets if _tied(n.score, best))
        text = f"{count:,} network{'s' if count != 1 else ''} share{'s' if count == 1 else ''} the best score"
        text += f" ({len(tied)} equivalence class{'es' if len(tied) != 1 else ''}"
        text += ", all listed)" if listed == count else f", {listed:,} listed)"
        return count, text
    count = sum(1 for n in nets if _tied(n.score, best))
    complete = bool(getattr(result, "complete", False))
    # A complete Bayes-factor set lists every tie; so does a complete k-best list that keeps every network
    # tied with its k-th, or whose ties at the top do not fill it.
    stats = getattr(result, "stats", None) or {}
    exact = complete and (getattr(result, "kind", "") != "kbest" or count < len(nets) or bool(stats.get("ties")))
    text = f"{count:,} network{'s' if count != 1 else ''} share{'s' if count == 1 else ''} the best score"
    if not exact:
        return count, "at least " + text + " (the search stopped before it could rule out more)"
    return count, text


def timing_rows(timings: Mapping[str, float], *, wall: float | None = None,
                stats: Mapping[str, Any] | None = None) -> list[tuple[str, str, str]]:
    """Rows ``(phase, seconds, share)`` in pipeline order, the search's own parts, and a total.

    The total is ``wall`` when given (time from start to the report, which
    includes anything no phase measured, shown as its own row when it is more
    than 1% of the total), else the sum of the phases.
    """
    order = [p for p in PHASE_ORDER if p in timings] + [p for p in timings if p not in PHASE_ORDER]
    measured = math.fsum(float(timings[p]) for p in order)
    total = float(wall) if wall is not None and wall >= measured else measured
    rows: list[tuple[str, str, str]] = []
    for p in order:
        t = float(timings[p])
        label = "drawing pictures" if p == "drawing" else p
        if p == "writing" and wall is not None:
            label = "writing (files before this report)"
        rows.append((label, f"{t:.2f}", _pct(t / total) if total > 0 else "-"))
        if p == "solving" and stats:
            for key, name in _STAT_TIMES:
                v = stats.get(key)
                if isinstance(v, (int, float)) and math.isfinite(v) and v > 0:
                    rows.append((f"  of which {name}", f"{float(v):.2f}", _pct(v / total) if total > 0 else "-"))
    other = total - measured
    if wall is not None and other > 0.01 * total and other > 0.005:
        rows.append(("not in a phase", f"{other:.2f}", _pct(other / total)))
    rows.append(("total" + (" (wall clock)" if wall is not None else ""), f"{total:.2f}", "100%" if total else "-"))
    return rows


# ------------------------------------------------------------------------------- sections
@dataclass
class Section:
    """One part of the report: a heading, paragraphs, an optional table, pictures."""

    heading: str
    level: int = 2
    paragraphs: list[str] = field(default_factory=list)
    head: list[str] | None = None
    rows: list[list[str]] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)
    code_bullets: bool = False
    pictures: list[str] = field(default_factory=list)  # captions


def _network_rows(data: ReportData) -> list[list[str]]:
    rows = []
    for rank, net in enumerate(data.networks[:TOP_NETWORKS], 1):
        gap = shown_gap(data.opt, net.score) if data.opt is not None and math.isfinite(data.opt) else float("nan")
        bf = math.exp(gap) if math.isfinite(gap) and gap < 700 else float("nan")
        rows.append([str(rank), f"{net.score:.6f}", f"{gap:.4f}", f"{bf:.4g}", str(net.n_edges),
                     net.to_modelstring()])
    return rows


_NET_HEAD = ["rank", "score", "gap to OPT", "Bayes factor", "arrows", "model string"]


def sections(data: ReportData, captions: Sequence[str] = ()) -> list[Section]:
    """The report's sections, in order (shared by both renderers)."""
    r = data.result
    out: list[Section] = []
    notes = list(getattr(r, "notes", []) or [])
    if notes:
        mass = posterior_mass_line(r)          # how much of the posterior over all DAGs a collection holds
        head = [f"**{notes[0]}**"] + ([f"**{mass}**"] if mass else [])
        out.append(Section("What this result is", paragraphs=head, bullets=notes[1:]))
    elif r is not None and hasattr(r, "status"):
        state = ("complete: proven optimal" if r.status == "optimal"
                 else f"INCOMPLETE ({r.status}): the best network found, not proven optimal")
        out.append(Section("What this result is", paragraphs=[f"**{state}**"]))
    out.append(Section("Inputs", head=["", ""], rows=[[k, _fmt(v)] for k, v in data.inputs.items()]))
    out.append(Section("Settings", head=["key", "value"], rows=[list(x) for x in _settings_rows(data.settings)]))
    out.append(Section("Results", head=["", ""], rows=[[k, _fmt(v)] for k, v in data.results.items()]))
    best = data.networks[0] if data.networks else None
    if best is not None:
        _, ties = tie_count(r if r is not None else _Listed(data.networks))
        out.append(Section("Best network", level=3,
                           paragraphs=[f"score {best.score:,.6f}, {best.n_edges} arrows: {ties}.",
                                       f"`{best.to_modelstring()}`"]))
    if r is not None and hasattr(r, "networks") and len(r):
        rows = class_rows(r, top=None)
        shown = rows[:TOP_CLASSES]
        over = getattr(r, "averages_over", "the listed networks")
        out.append(Section(
            f"Equivalence classes ({len(shown)} of {len(rows)})", level=3,
            paragraphs=[f"Most probable first. Probability mass: the share of the model average over {over} "
                        "(weights exp(score - OPT)); mec: the class's index in `networks.csv` (column `mec`) and "
                        "`result.json` (`mecs`), which number classes by score (0 = best), - when none of its "
                        "networks is listed; CPDAG: `u->v` compelled arrow, `u--v` reversible edge."],
            head=["mec", "rank by probability", "probability", "score", "networks", "listed", "CPDAG"],
            rows=[["-" if x["mec"] is None else str(x["mec"]), str(x["rank"]), _pct(x["mass"]), f"{x['score']:.6f}",
                   f"{x['networks']:,}", f"{x['listed']:,}", x["cpdag"]] for x in shown]))
    if data.networks:
        shown_n = min(len(data.networks), TOP_NETWORKS)
        out.append(Section(f"Best networks ({shown_n} of {len(data.networks)})", level=3, head=_NET_HEAD,
                           rows=_network_rows(data)))
    if data.edges:
        out.append(_edges_section(data, r))
    if captions or data.picture_notes:
        out.append(Section("Pictures", pictures=list(captions),
                           bullets=[f"{c}: {why}" for c, why in data.picture_notes.items()]))
    out.append(Section("Timings", head=["phase", "seconds", "share"],
                       rows=[list(x) for x in timing_rows(data.timings, wall=data.wall,
                                                          stats=getattr(r, "stats", None))]))
    if data.warnings:
        out.append(Section("Warnings", bullets=list(data.warnings)))
    if data.files:
        out.append(Section("Files", bullets=list(data.files), code_bullets=True))
    return out


class _Listed:
    """A bare list of networks seen as a collection (for the tie count when no result object is given)."""

    def __init__(self, networks: Sequence[Any]) -> None:
        self.networks = list(networks)
        self.complete = False


# ------------------------------------------------------------------------------- Markdown
def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def esc(s: str) -> str:
        return str(s).replace("|", "\\|")

    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def _edges_section(data: ReportData, r: Any) -> Section:
    """The most probable edges: the set's averages, and the exact posteriors beside them once computed."""
    from ..solve.set_posterior import edge_comparison

    c = edge_comparison(r) if r is not None and hasattr(r, "networks") else None
    if c is None:
        return Section("Most probable edges", level=3, head=["u", "v", "P(adjacent)"],
                       rows=[[u, v, f"{p:.3f}"] for u, v, p in data.edges[:TOP_EDGES]])
    where = {v: i for i, v in enumerate(c["edge_probabilities"]["names"])}
    m = c["edge_probabilities"]["matrix"]
    d = c["max_edge_difference"]
    return Section("Most probable edges", level=3,
                   paragraphs=[f"P(adjacent) averaged over {getattr(r, 'averages_over', 'the set')}, and exact over "
                               f"every DAG the score and constraints allow ({c['guarantee']}). Largest difference "
                               f"{d['value']:.3f} ({d['u']} - {d['v']}: set {d['set']:.3f}, exact {d['exact']:.3f})."],
                   head=["u", "v", "P(adjacent) in the set", "exact P(adjacent)"],
                   rows=[[u, v, f"{p:.3f}", f"{m[where[u]][where[v]]:.3f}"] for u, v, p in data.edges[:TOP_EDGES]])


def render_markdown(data: ReportData, picture_files: Mapping[str, str]) -> str:
    """Markdown text; pictures are linked by their file names in the same folder."""
    lines = [f"# {data.title}", "", f"gobnilp-py {data.version}, job **{data.job}**, {data.created}.", ""]
    for s in sections(data, list(picture_files)):
        lines += ["#" * s.level + " " + s.heading, ""]
        for p in s.paragraphs:
            lines += [p, ""]
        if s.head is not None:
            lines += [_md_table(s.head, s.rows), ""]
        for cap in s.pictures:
            lines += [f"![{cap}]({picture_files[cap]})", ""]
        if s.bullets:
            lines += [f"* `{b}`" if s.code_bullets else f"* {b}" for b in s.bullets] + [""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------- HTML
def _html_table(head: Sequence[str] | None, rows: Sequence[Sequence[str]]) -> str:
    out = ["<table>"]
    if head and any(head):
        out.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>")
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _inline(text: str) -> str:
    """``**bold**`` and ```code``` of the shared paragraphs, as HTML (everything else escaped)."""
    parts = text.split("`")
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"<code>{html.escape(part)}</code>")
        else:
            bold = part.split("**")
            out.append("".join(f"<b>{html.escape(b)}</b>" if j % 2 else html.escape(b) for j, b in enumerate(bold)))
    return "".join(out)


def _mime(data: bytes) -> str | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    head = data[:512].lstrip()
    if head.startswith(b"<?xml") or head.startswith(b"<svg"):
        return "image/svg+xml"
    return None  # PDF and anything else cannot be shown inline by an <img>


def render_html(data: ReportData, pictures: Mapping[str, bytes],
                picture_files: Mapping[str, str] | None = None) -> str:
    """A self-contained HTML page: PNG and SVG pictures embedded (base64), so the file can be mailed alone.

    A picture that an ``<img>`` cannot show (PDF) is linked to its file
    instead, by its name in ``picture_files`` (caption -> file name).
    """
    e = html.escape
    files = dict(picture_files or {})
    parts = [
        "<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\">", f"<title>{e(data.title)}</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;"
        "text-align:left;font-size:90%}img{max-width:100%;border:1px solid #eee;margin:.5em 0}"
        "code{font-size:90%}</style></head><body>",
        f"<h1>{e(data.title)}</h1>",
        f"<p>gobnilp-py {e(data.version)}, job <b>{e(data.job)}</b>, {e(data.created)}.</p>",
    ]
    for s in sections(data, list(pictures)):
        parts.append(f"<h{s.level}>{e(s.heading)}</h{s.level}>")
        parts += [f"<p>{_inline(p)}</p>" for p in s.paragraphs]
        if s.head is not None:
            parts.append(_html_table(s.head, s.rows))
        for cap in s.pictures:
            img = pictures[cap]
            mime = _mime(img)
            if mime is None:
                target = files.get(cap)
                link = f"<a href=\"{e(target)}\">{e(target)}</a>" if target else "a file beside this report"
                parts.append(f"<figure><p>(picture in {link})</p><figcaption>{e(cap)}</figcaption></figure>")
            else:
                b64 = base64.b64encode(img).decode("ascii")
                parts.append(f"<figure><img alt=\"{e(cap)}\" src=\"data:{mime};base64,{b64}\">"
                             f"<figcaption>{e(cap)}</figcaption></figure>")
        if s.bullets:
            items = [f"<li><code>{e(b)}</code></li>" if s.code_bullets else f"<li>{e(b)}</li>" for b in s.bullets]
            parts += ["<ul>"] + items + ["</ul>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
