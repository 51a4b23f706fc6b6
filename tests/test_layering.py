"""The package's import graph follows the pipeline: lower layers never import higher ones.

Why this test: the layout should read as the pipeline (data -> scoring -> graphs and constraints
-> engines -> drivers -> application) and a new engine should be able to land without pulling the
drivers into the scorer.  Back-edges crept in before (scoring read its data through the drivers'
input module; lower modules imported the package's ``__init__`` for the version string), each
harmless alone and together a tangle.  This reads every module's imports from its source (those
inside functions too: a lazy import is still a dependency) and checks two things:

* no import points to a higher layer, except the few listed in :data:`ALLOWED` with their reason;
* the imports executed at module load form no cycle between modules;
* counting the imports made inside functions too (only ``if TYPE_CHECKING:`` blocks are left out: they
  never run), no cycle between modules nor between packages, except those listed in
  :data:`KNOWN_CYCLES` / :data:`KNOWN_PACKAGE_CYCLES` (the engine half of issue 43 removes them).

Deprecated alias modules (:data:`ALIASES`: an old import path kept for one release, e.g.
``gobnilp_py.output.job`` for :mod:`gobnilp_py.app.runner`) are checked to be nothing but the alias
and are left out of the graph: they import their new home by design.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "gobnilp_py"

#: Layers, lowest first.  A module belongs to the longest prefix that names it.
LAYERS: list[tuple[str, ...]] = [
    ("errors", "_io", "_version", "_lazy", "_interrupt", "_numba", "_wording", "_json", "_graphs", "_memory", "_budget",
     "progress"),
    ("_validation", "_scip_params"),
    ("data",),
    ("scoring",),
    ("network", "equivalence", "constraints", "interop", "drawing", "graph_compare"),
    ("search", "ilp"),
    ("solve",),
    ("output",),  # presentation: writers, pictures, the report, all-or-nothing folders
    ("app", "config", "compare", "examples"),  # the runner, configs, result loading, compare
    ("cli", "__main__", ""),  # "" is the package's own __init__: the public API, on top of everything
]

#: Deprecated alias modules (old path -> new home), kept for one release; see the module docstring.
ALIASES: dict[str, str] = {
    "config": "app.config",
    "compare": "app.compare",
    "output.job": "app.runner",
    "output.load": "app.load",
}

#: Upward imports that are there on purpose (importer, imported): each is lazy and each says why.
ALLOWED: dict[tuple[str, str], str] = {
    # owned by the engine half of issue 43 (lower_bound="auto" moves out of scoring):
    ("scoring.engine", "search.family_index"): "lower_bound='auto' runs the search heuristics on the table",
    ("scoring.engine", "search.orders"): "lower_bound='auto' runs the search heuristics on the table",
    ("scoring.engine", "search.incumbent"): "lower_bound='auto' runs the ASOBS incumbent on the table",
}

#: Module cycles that remain, counting imports inside functions; each is the engine half's of issue 43.
KNOWN_CYCLES: set[frozenset[str]] = {
    frozenset({"drawing.figures", "drawing.notebook", "equivalence.columns", "equivalence.cpdag", "network"}),
    frozenset({"solve.collect", "solve.learn", "solve.ordered"}),
}

#: Package cycles that remain (top-level packages and modules), likewise the engine half's.
KNOWN_PACKAGE_CYCLES: set[frozenset[str]] = {
    frozenset({"scoring", "search"}),
    frozenset({"drawing", "equivalence", "network"}),
}


def _module_name(path: Path, root: Path = PKG) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _layer(module: str) -> int:
    best, best_len = None, -1
    for i, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".") or name == "") and len(name) > best_len:
                best, best_len = i, len(name)
    assert best is not None, f"module {module!r} has no layer: add it to LAYERS"
    return best


def _top_level(body: list[ast.stmt]):
    """Statements executed when the module loads (not ``if TYPE_CHECKING:`` blocks, not function bodies)."""
    for node in body:
        if isinstance(node, ast.If):
            if "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_level(node.body)
            for handler in node.handlers:
                yield from _top_level(handler.body)
        else:
            yield node


def _imports(root: Path = PKG) -> list[tuple[str, str, bool]]:
    """Every (importer, imported module, executed at load) of the package at ``root``, ``gobnilp_py.`` removed."""
    modules = {_module_name(p, root) for p in root.rglob("*.py")}
    out = []
    for path in sorted(root.rglob("*.py")):
        me = _module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        at_load = {id(n) for n in _top_level(tree.body)}
        for_types = {id(n) for n in ast.walk(tree) if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
                     for n in ast.walk(n)}
        package = me.split(".") if path.name == "__init__.py" else me.split(".")[:-1]
        if me == "":
            package = []
        for node in ast.walk(tree):
            if id(node) in for_types:  # only for type checkers: never executed
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    if not (node.module or "").startswith("gobnilp_py"):
                        continue
                    base = node.module.split(".")[1:]
                else:
                    base = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
                targets = []
                for alias in node.names:  # "from . import pruning" imports the submodule
                    sub = ".".join(base + [alias.name])
                    targets.append(sub if sub in modules else ".".join(base))
            elif isinstance(node, ast.Import):
                targets = [a.name.split(".", 1)[1] if "." in a.name else "" for a in node.names
                           if a.name.split(".")[0] == "gobnilp_py"]
            else:
                continue
            for target in targets:
                if target != me:
                    out.append((me, target, id(node) in at_load))
    return out


@pytest.fixture(scope="module")
def graph() -> list[tuple[str, str, bool]]:
    return [(a, b, at_load) for a, b, at_load in _imports() if a not in ALIASES]


def _cycles(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.add(frozenset(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_aliases_are_only_aliases():
    """An alias module imports its new home and replaces itself by it, nothing more (so leaving it out is safe)."""
    found = {(a, b) for a, b, _ in _imports() if a in ALIASES}
    assert found == {(old, new) for old, new in ALIASES.items()}
    for old in ALIASES:
        path = PKG.joinpath(*old.split(".")).with_suffix(".py")
        assert "sys.modules[__name__] = _module" in path.read_text(encoding="utf-8"), path


def test_no_module_cycle_counting_lazy_imports(graph):
    edges: dict[str, set[str]] = {}
    for a, b, _ in graph:
        if not (a.startswith(b + ".") or b == ""):  # a package's own __init__ is how "from . import x" reads
            edges.setdefault(a, set()).add(b)
    found = _cycles(edges)
    assert found - KNOWN_CYCLES == set(), f"import cycles: {[sorted(c) for c in found - KNOWN_CYCLES]}"
    assert KNOWN_CYCLES - found == set(), f"KNOWN_CYCLES lists cycles that are gone: {KNOWN_CYCLES - found}"


def test_no_package_cycle_counting_lazy_imports(graph):
    edges: dict[str, set[str]] = {}
    for a, b, _ in graph:
        pa, pb = a.split(".")[0], b.split(".")[0]
        if a and b and pa != pb:
            edges.setdefault(pa, set()).add(pb)
    found = _cycles(edges)
    assert found - KNOWN_PACKAGE_CYCLES == set(), f"package cycles: {[sorted(c) for c in found - KNOWN_PACKAGE_CYCLES]}"
    assert KNOWN_PACKAGE_CYCLES - found == set(), f"KNOWN_PACKAGE_CYCLES lists cycles that are gone: {KNOWN_PACKAGE_CYCLES - found}"


def test_no_import_points_up_the_pipeline(graph):
    upward = sorted({(a, b) for a, b, _ in graph if _layer(b) > _layer(a)} - set(ALLOWED))
    assert not upward, "imports against the pipeline (add a reason to ALLOWED only if it must be): " + ", ".join(
        f"{a or 'gobnilp_py'} -> {b or 'gobnilp_py'}" for a, b in upward)


def test_allowed_exceptions_are_still_needed(graph):
    present = {(a, b) for a, b, _ in graph}
    stale = sorted(set(ALLOWED) - present)
    assert not stale, f"ALLOWED lists imports that no longer exist: {stale}"


def test_no_cycle_among_imports_executed_at_load(graph):
    edges: dict[str, set[str]] = {}
    for a, b, at_load in graph:
        # a submodule importing its own package's __init__ at load is how "from . import x" reads; skip it
        if at_load and not (a.startswith(b + ".") or b == ""):
            edges.setdefault(a, set()).add(b)
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for nxt in sorted(edges.get(m, ())):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                pytest.fail("import cycle at load: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)


def test_the_checker_sees_a_planted_back_edge(tmp_path):
    """The graph reader finds relative, absolute and lazy imports (else the tests above could not fail)."""
    fake = tmp_path / "gobnilp_py"
    (fake / "scoring").mkdir(parents=True)
    (fake / "solve").mkdir()
    for init in ("__init__.py", "scoring/__init__.py", "solve/__init__.py"):
        (fake / init).write_text("")
    (fake / "solve" / "inputs.py").write_text("X = 1\n")
    (fake / "scoring" / "engine.py").write_text("def f():\n    from ..solve.inputs import X\n    return X\n")
    (fake / "scoring" / "other.py").write_text("import gobnilp_py.solve.inputs\nfrom . import engine\n")
    found = set(_imports(fake))
    assert ("scoring.engine", "solve.inputs", False) in found
    assert ("scoring.other", "solve.inputs", True) in found
    assert ("scoring.other", "scoring.engine", True) in found
    assert _layer("scoring.engine") < _layer("solve.inputs")


def test_the_cycle_finder_sees_a_lazy_cycle_and_skips_type_checking(tmp_path):
    """A cycle closed by an import inside a function is found; one closed only under TYPE_CHECKING is not."""
    fake = tmp_path / "gobnilp_py"
    (fake / "solve").mkdir(parents=True)
    for init in ("__init__.py", "solve/__init__.py"):
        (fake / init).write_text("")
    (fake / "solve" / "a.py").write_text("from . import b\n")
    (fake / "solve" / "b.py").write_text("def f():\n    from . import a\n")
    (fake / "solve" / "c.py").write_text("from typing import TYPE_CHECKING\nfrom . import a\n"
                                         "if TYPE_CHECKING:\n    from . import d\n")
    (fake / "solve" / "d.py").write_text("from . import c\n")
    edges: dict[str, set[str]] = {}
    for a, b, _ in _imports(fake):
        edges.setdefault(a, set()).add(b)
    assert _cycles(edges) == {frozenset({"solve.a", "solve.b"})}
