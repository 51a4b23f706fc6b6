"""Results show themselves in a notebook: Network/CPDAG SVG, CredibleSet HTML, and docs/notebook.ipynb runs.

The notebook is executed by nbclient with a kernel started from this interpreter (a kernel spec
written for the test, so a system-wide ``python3`` kernel cannot stand in) on this checkout, in a
temporary folder; the committed file must hold no outputs.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gobnilp_py as gp
from gobnilp_py import Network
from gobnilp_py.solve.credible import CredibleSet

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"


@pytest.fixture(scope="module")
def data():
    return gp.read_data(gp.example_path("asia"))


@pytest.fixture(scope="module")
def cs(data):
    return gp.enumerate_networks(data, bayes_factor=20, score="BDeu", palim=3)


def _svg_ok(text: str | None) -> bool:
    return isinstance(text, str) and text.lstrip().startswith("<?xml") and text.rstrip().endswith("</svg>")


# ----------------------------------------------------------------------------- the reprs
def test_network_and_cpdag_draw_themselves_as_svg(cs):
    assert _svg_ok(cs.best._repr_svg_())
    assert _svg_ok(gp.cpdag(cs.best)._repr_svg_())
    assert _svg_ok(cs.consensus(0.5)._repr_svg_())


def test_svg_reprs_are_skipped_when_there_is_nothing_to_draw():
    big = Network.from_edges([f"v{i}" for i in range(61)], [("v0", "v1")], score=-1.0)
    assert big._repr_svg_() is None and gp.cpdag(big)._repr_svg_() is None
    assert Network(("a",), {}, score=-math.inf, status="infeasible")._repr_svg_() is None


def test_a_standalone_cpdag_is_laid_out_by_a_member_and_keeps_its_arrows():
    from gobnilp_py.drawing import figures as F

    net = Network.from_edges("abcd", [("a", "c"), ("b", "c"), ("c", "d")], score=-1.0)  # a -> c <- b, c -> d
    cp = gp.cpdag(net)
    fig = F._cpdag_figure(cp)
    heads = {(u, v) for u, v, tip, _ in F.arrow_heads(fig) if tip is not None}
    assert heads == set(cp.directed) == {("a", "c"), ("b", "c"), ("c", "d")}
    assert fig._suptitle.get_text() == "equivalence class (CPDAG): 3 compelled, 0 reversible"


def test_credible_set_html_leads_with_its_guarantee(cs):
    text = cs._repr_html_()
    assert re.search(r"<b>CredibleSet</b>: <span[^>]*>complete: every network with score &gt;= OPT", text)
    assert "Best networks" in text and "Equivalence classes" in text
    assert text.count("<tr>") >= 1 + 10 + 1 + 10  # two tables of 10 rows with their heads
    assert "... and 513 more" in text and cs.count_line() in text
    assert 'src="data:image/png;base64,' in text


@pytest.mark.parametrize("label, make", [
    ("INCOMPLETE (max_networks): ", lambda nets: CredibleSet(nets[0].score, 2.0, False, "max_networks", nets)),
    ("APPROXIMATE", lambda nets: CredibleSet(nets[0].score, 2.0, True, None, nets, approximate=True)),
])
def test_incomplete_or_approximate_sets_say_so_in_html_and_consensus(label, make):
    nets = [Network(("a", "b", "c"), {"b": ("a",), "c": ("b",)}, -10.0),
            Network(("a", "b", "c"), {"b": ("a",)}, -10.5), Network(("a", "b", "c"), {"a": ("b",)}, -11.0)]
    coll = make(nets)
    text = coll._repr_html_()
    first = re.search(r"<b>CredibleSet</b>: <span[^>]*>([^<]*)</span>", text).group(1)
    assert first == coll.guarantee.replace(">", "&gt;") and label.rstrip(": ") in first
    cons = coll.consensus(0.5)
    assert cons.guarantee.startswith(label.rstrip(": ") if label == "APPROXIMATE" else label)
    assert cons.complete is coll.complete and cons.approximate is coll.approximate
    assert label.rstrip(": ") in repr(cons)
    # the edge picture's title carries the label too
    from gobnilp_py.drawing import figures as F

    assert F._edge_figure(coll)._suptitle.get_text().startswith(label.rstrip(": ").split(" (")[0])


def test_importing_the_package_does_not_load_matplotlib():
    code = "import sys, gobnilp_py; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(ROOT)).stdout.strip()
    assert out == "False"


# ----------------------------------------------------------------------------- the example notebook
def test_committed_notebook_has_no_outputs():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(c["outputs"] == [] and c["execution_count"] is None for c in code)


@pytest.mark.slow
def test_example_notebook_runs(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    # a kernel spec for this interpreter and this checkout only
    spec = tmp_path / "jupyter" / "kernels" / "gobnilp-test"
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "gobnilp test", "language": "python",
        "env": {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    work = tmp_path / "work"
    work.mkdir()
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(
        "import sys, gobnilp_py\nprint(sys.executable)\nprint(gobnilp_py.__file__)"))
    client = nbclient.NotebookClient(nb, kernel_name="gobnilp-test", timeout=300,
                                     resources={"metadata": {"path": str(work)}})
    client.execute()
    where = nb.cells[0].outputs[0]["text"].splitlines()
    assert where[0] == sys.executable and where[1].startswith(str(ROOT / "gobnilp_py"))
    outputs = {i: c.outputs for i, c in enumerate(nb.cells) if c.cell_type == "code"}
    assert not [o for outs in outputs.values() for o in outs if o.get("output_type") == "error"]
    shown = [o["data"] for outs in outputs.values() for o in outs if o.get("output_type") == "execute_result"]
    html = [d["text/html"] for d in shown if "text/html" in d]
    svgs = [d["image/svg+xml"] for d in shown if "image/svg+xml" in d]
    assert any(h.startswith('<div class="gobnilp-credible-set"><p><b>CredibleSet</b>: <span style="color:#1e7b34">'
                            "complete: every network") for h in html)
    assert any("INCOMPLETE (max_networks)" in h for h in html)
    assert any("SHD" in h for h in html)  # the comparison's table
    assert len(svgs) >= 3  # the best network, its CPDAG, the consensus
    plain = [d.get("text/plain", "") for d in shown]
    assert "'INCOMPLETE (max_networks)'" in plain
    assert sorted(p.name for p in work.iterdir()) == []  # the notebook leaves no files behind


def test_credible_set_html_says_how_much_of_the_posterior_it_holds(cs):
    """Computed when cheap, as the command line does; a set without provenance says why there is no bound."""
    text = cs._repr_html_()
    assert re.search(r"<p>posterior mass (at least )?[0-9.e-]+ \((exact|lower bound)", text), text[:600]
    nets = [Network(("a", "b"), {"b": ("a",)}, -10.0), Network(("a", "b"), {}, -10.5)]
    hand = CredibleSet(nets[0].score, 2.0, True, None, nets)
    assert "<p>posterior mass: no bound available (" in hand._repr_html_()
