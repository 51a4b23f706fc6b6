"""What a notebook shows for a result: SVG of a network or CPDAG, an HTML summary of a credible set.

Jupyter (IPython's display system) calls ``_repr_svg_`` / ``_repr_html_``
on the last value of a cell.  :class:`~gobnilp_py.network.Network`,
:class:`~gobnilp_py.equivalence.CPDAG` and
:class:`~gobnilp_py.solve.credible.CredibleSet` delegate to the functions
here, which draw with :mod:`.figures` (matplotlib is imported only then, so
``import gobnilp_py`` stays light).  Each returns ``None`` when there is
nothing sensible to draw (no network, more than :data:`~.figures.MAX_NODES`
variables); IPython then falls back to the text ``repr``.

The HTML summary of a set starts with its guarantee line, word for word as
every other output writes it (``complete: ...``, ``INCOMPLETE (<reason>):
...``, ``APPROXIMATE ...``), then its caveats, the counts, the best networks,
the equivalence classes, and the edge-probability picture (whose title
carries the same label).
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Mapping
from typing import Any

from .figures import MAX_NODES, _render, _status_prefix, drawable

__all__ = ["network_svg", "cpdag_svg", "credible_html", "TABLE_ROWS"]

#: Rows of the best-networks and classes tables in the HTML summary.
TABLE_ROWS = 10
#: Above this many listed networks the summary does not group them into classes (it would take seconds).
GROUP_LIMIT = 20_000


def _svg(fig: Any) -> str:
    return _render(fig, "svg", 72).decode("utf-8")


def _score_text(score: Any) -> str:
    return f"score {score:,.4f}" if isinstance(score, float) and math.isfinite(score) else "no score"


def network_svg(network: Any, *, title: str | None = None, edge_labels: Mapping[tuple[str, str], str] | None = None,
                max_nodes: int = MAX_NODES) -> str | None:
    """The network drawn as SVG text (``None`` for a result without a network or one too large to draw).

    The title starts with the network's label when it is not proven optimal
    (``INCOMPLETE (time_limit): network (score ...)``), as the pictures of a
    run do.
    """
    from .figures import _dag_figure

    if getattr(network, "status", None) in ("infeasible", "no_solution") or not drawable(network,
                                                                                          max_nodes=max_nodes)[0]:
        return None
    if title is None:
        title = f"{_status_prefix(network)}network ({_score_text(getattr(network, 'score', None))})"
    return _svg(_dag_figure(network, title=title, edge_labels=edge_labels))


def cpdag_svg(cpdag: Any, *, title: str | None = None, max_nodes: int = MAX_NODES) -> str | None:
    """The CPDAG drawn as SVG text, compelled arrows black, reversible edges red and dashed, with a legend."""
    from .figures import _cpdag_figure

    if not drawable(len(cpdag.names), max_nodes=max_nodes)[0]:
        return None
    return _svg(_cpdag_figure(cpdag, title=title))


# ------------------------------------------------------------------------------ the credible set
def _esc(x: Any) -> str:
    return html.escape(str(x))


def _table(head: list[str], rows: list[list[Any]]) -> str:
    th = "".join(f"<th>{_esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _bf(gap: float) -> str:
    if not math.isfinite(gap):
        return "inf"
    b = math.exp(gap) if gap < 700 else math.inf
    return f"{b:.4g}" if b < 1000 else f"{b:,.0f}"


def _model(net: Any) -> str:
    try:
        return net.to_modelstring()
    except Exception:  # a name the model string cannot hold
        return ", ".join(f"{p}->{c}" for p, c in net.edges)


def _networks_table(cs: Any, class_of: Mapping[int, int]) -> str:
    rows = []
    opt = cs.opt if math.isfinite(cs.opt) else (cs.networks[0].score if cs.networks else math.nan)
    for rank, net in enumerate(cs.networks[:TABLE_ROWS], 1):
        gap = opt - net.score
        rows.append([rank, f"{net.score:.4f}", f"{gap:.4f}", _bf(gap),
                     class_of.get(id(net), ""), net.n_edges, _model(net)])
    more = len(cs.networks) - TABLE_ROWS
    tail = f"<p>... and {more:,} more (<code>to_dataframe()</code> lists them all)</p>" if more > 0 else ""
    return _table(["rank", "score", "gap to OPT", "Bayes factor", "class", "arrows", "model"], rows) + tail


def _classes_table(cs: Any, mecs: list[Any]) -> str:
    rows = []
    for i, cls in enumerate(mecs[:TABLE_ROWS]):
        cp = cls.cpdag
        score = "" if cls.best_score is None else f"{cls.best_score:.4f}"
        rows.append([i, score, f"{cls.size:,}", f"{cp.count_dags():,}", len(cp.directed), len(cp.undirected)])
    more = len(mecs) - TABLE_ROWS
    tail = f"<p>... and {more:,} more classes (<code>mecs()</code>)</p>" if more > 0 else ""
    return _table(["class", "score", "networks listed", "DAGs in the class", "compelled arrows",
                   "reversible edges"], rows) + tail


def _edges_png(cs: Any) -> str:
    from .figures import _edge_figure

    data = _render(_edge_figure(cs), "png", 80)
    return (f'<img alt="edge probabilities" style="max-width:100%" '
            f'src="data:image/png;base64,{base64.b64encode(data).decode("ascii")}"/>')


def credible_html(cs: Any, *, pictures: bool = True, mass_line: str | None = None) -> str:
    """The HTML summary of a credible set (or k-best list): guarantee, counts, best networks, classes, picture.

    ``pictures=False`` leaves out the edge-probability picture (the tests use
    it to check the text quickly); ``mass_line``: how much of the posterior the
    set holds, in the words of the command line's second line (given by the set).
    """
    guarantee = str(getattr(cs, "guarantee", ""))
    exact = guarantee.startswith("complete") and not getattr(cs, "approximate", False)
    colour = "#1e7b34" if exact else "#b03a2e"
    parts = ["<div class=\"gobnilp-credible-set\">",
             f"<p><b>CredibleSet</b>: <span style=\"color:{colour}\">{_esc(guarantee)}</span></p>"]
    if mass_line:
        parts.append(f"<p>{_esc(mass_line)}</p>")
    caveats = [str(c) for c in getattr(cs, "caveats", ()) or ()]
    if caveats:
        parts.append("<ul>" + "".join(f"<li>{_esc(c)}</li>" for c in caveats) + "</ul>")
    if not len(cs):
        parts.append("<p>no networks</p></div>")
        return "".join(parts)
    facts = []
    grouped = len(cs) <= GROUP_LIMIT or getattr(cs, "n_classes_total", None) is not None
    if grouped:
        facts.append(cs.count_line())
    else:
        facts.append(f"{len(cs):,} networks (not grouped into classes here: more than {GROUP_LIMIT:,} listed)")
    if math.isfinite(cs.opt):
        facts.append(f"OPT = {cs.opt:.6f}")
    if getattr(cs, "kind", "") != "kbest" and math.isfinite(cs.epsilon):
        facts.append(f"epsilon = {cs.epsilon:.6g} (Bayes factor {_bf(cs.epsilon)})")
    if getattr(cs, "method", None):
        facts.append(f"method {cs.method}")
    parts.append("<p>" + "; ".join(_esc(f) for f in facts) + "</p>")
    mecs = cs.mecs() if len(cs) <= GROUP_LIMIT else []
    class_of = {id(net): i for i, cls in enumerate(mecs) for net in cls.members}
    parts.append("<p><b>Best networks</b></p>" + _networks_table(cs, class_of))
    if mecs:
        parts.append("<p><b>Equivalence classes</b> (of the listed networks, best first)</p>"
                     + _classes_table(cs, mecs))
    if pictures:
        ok, why = drawable(cs)
        over = getattr(cs, "averages_over", "the listed networks")
        parts.append(f"<p><b>Edge probabilities</b> (model-averaged over {_esc(over)})</p>")
        parts.append(_edges_png(cs) if ok else f"<p>{_esc(why)}</p>")
    parts.append("</div>")
    return "".join(parts)
