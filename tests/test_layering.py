"""The package's import graph follows the pipeline: lower layers never import higher ones.

Why this test: the layout should read as the pipeline (data -> scoring -> graphs and constraints
-> engines -> drivers -> application) and a new engine should be able to land without pulling the
drivers into the scorer.  Back-edges crept in before (scoring read its data through the drivers'
input module; lower modules imported the package's ``__init__`` for the version string), each
harmless alone and together a tangle.  This reads every module's imports from its source (those
inside functions too: a lazy import is still a dependency) and checks two things:

* no import points to a higher layer (:data:`ALLOWED` would list an exception with its reason: it is empty);
* the lower layers (:data:`LOWER`) never import the drivers or the application, with no exception;
* the imports executed at module load form no cycle between modules;
* counting imports inside functions too (only ``if TYPE_CHECKING:`` ones are left out), no two modules
  and no two packages reach each other (issue 43; :data:`PENDING_CYCLE_EDGES` would excuse an edge of
  the application layers while a cycle is being removed: it is empty).

Deprecated alias modules (:data:`ALIASES`: an old import path kept for one release) are checked to be
nothing but the alias and are left out of the graph: they import their new home by design.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "gobnilp_py"

#: Layers, lowest first.  A module belongs to the longest prefix that names it.
LAYERS: list[tuple[str, ...]] = [
    ("errors", "_io", "_version", "_lazy", "_interrupt", "_numba", "_wording", "_json", "_graphs", "_memory", "_budget",
     "_tolerance", "_display", "_worker_state",
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

#: Upward imports that are there on purpose (importer, imported): each is lazy and each says why.
ALLOWED: dict[tuple[str, str], str] = {}

#: Deprecated alias modules (old path -> new home), kept for one release: each imports its new home and
#: replaces itself by it, nothing more (checked below), so it is left out of the graph.
ALIASES: dict[str, str] = {
    "config": "app.config",
    "compare": "app.compare",
    "output.job": "app.runner",
    "output.load": "app.load",
}


#: The lower layers and what they never import, not even inside a function (issue 43): the engines and
#: everything under them know nothing of the drivers or the application.
LOWER = ("data", "scoring", "equivalence", "network", "ilp", "search")
NEVER_IMPORTED_BY_LOWER = ("solve", "output", "app", "config", "compare", "cli")

#: Edges of the cycles the application half of issue 43 removes (registries owning their checks, the
#: result codec, output formats as data); in the lower layers no edge is excused.  Delete each entry
#: as its cycle goes (``test_pending_cycle_edges_still_exist`` says when one is stale).
PENDING_CYCLE_EDGES: dict[tuple[str, str], str] = {}


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


def _type_only(tree: ast.Module) -> set[int]:
    """The import statements under ``if TYPE_CHECKING:`` anywhere in ``tree`` (never executed)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return out


def _imports(root: Path = PKG, *, type_only: bool = True) -> list[tuple[str, str, bool]]:
    """Every (importer, imported module, executed at load) of the package at ``root``, ``gobnilp_py.`` removed.

    Imports inside functions count (a lazy import is still a dependency); ``type_only=False`` leaves out
    the ones under ``if TYPE_CHECKING:``, which never run.
    """
    modules = {_module_name(p, root) for p in root.rglob("*.py")}
    out = []
    for path in sorted(root.rglob("*.py")):
        me = _module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        at_load = {id(n) for n in _top_level(tree.body)}
        skip = set() if type_only else _type_only(tree)
        package = me.split(".") if path.name == "__init__.py" else me.split(".")[:-1]
        if me == "":
            package = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and id(node) not in skip:
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
            elif isinstance(node, ast.Import) and id(node) not in skip:
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


def _top(module: str) -> str:
    return module.split(".")[0]


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph ``edges`` (a path closing on itself), or ``None``."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for nxt in sorted(edges.get(m, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


@pytest.fixture(scope="module")
def executed_graph() -> list[tuple[str, str, bool]]:
    """Every import that can run (inside functions too), without ``if TYPE_CHECKING:`` ones."""
    return [(a, b, at_load) for a, b, at_load in _imports(type_only=False) if a not in ALIASES]


def _edges(graph, *, packages: bool) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for a, b, _ in graph:
        # "from . import x" in a package's __init__, or a submodule reading its own package: not a cycle
        if a.startswith(b + ".") or b == "" or (a, b) in PENDING_CYCLE_EDGES:
            continue
        if packages:
            a, b = _top(a), _top(b)
            if a == b:
                continue
        edges.setdefault(a, set()).add(b)
    return edges


def test_no_module_cycle_counting_imports_inside_functions(executed_graph):
    """Issue 43: no two modules reach each other, even through lazy imports (only TYPE_CHECKING is exempt)."""
    cycle = _cycle(_edges(executed_graph, packages=False))
    assert cycle is None, "import cycle between modules: " + " -> ".join(cycle or [])


def test_no_package_cycle_counting_imports_inside_functions(executed_graph):
    """The same between subpackages and top-level modules (``search`` -> ``scoring`` -> ``search`` is a cycle)."""
    cycle = _cycle(_edges(executed_graph, packages=True))
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle or [])


def test_pending_cycle_edges_still_exist(executed_graph):
    present = {(a, b) for a, b, _ in executed_graph}
    stale = sorted(set(PENDING_CYCLE_EDGES) - present)
    assert not stale, f"PENDING_CYCLE_EDGES lists imports that no longer exist: {stale}"
    assert not any(_top(a) in LOWER for a, _ in PENDING_CYCLE_EDGES), "no cycle is excused in the lower layers"


def test_lower_layers_never_import_drivers_or_application(graph):
    """data, scoring, equivalence, network, ilp and search never import solve, output, config or cli."""
    bad = sorted({(a, b) for a, b, _ in graph
                  if _top(a) in LOWER and _top(b) in NEVER_IMPORTED_BY_LOWER})
    assert not bad, "lower layer imports a driver or the application: " + ", ".join(f"{a} -> {b}" for a, b in bad)


def test_the_cycle_finder_sees_a_lazy_cycle_and_ignores_type_checking(tmp_path):
    fake = tmp_path / "gobnilp_py"
    (fake / "search").mkdir(parents=True)
    for init in ("__init__.py", "search/__init__.py"):
        (fake / init).write_text("")
    (fake / "search" / "a.py").write_text("from . import b\n")
    (fake / "search" / "b.py").write_text("def f():\n    from .a import X\n")
    (fake / "search" / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import X\n")
    (fake / "search" / "d.py").write_text("from .c import Y\n")
    graph = _imports(fake, type_only=False)
    edges = _edges(graph, packages=False)
    assert _cycle(edges) in (["search.a", "search.b", "search.a"], ["search.b", "search.a", "search.b"])
    assert "search.c" not in edges  # the TYPE_CHECKING import never runs
    del edges["search.b"]
    assert _cycle(edges) is None


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


def test_aliases_are_only_aliases():
    """An alias module imports its new home and replaces itself by it, nothing more (so leaving it out is safe)."""
    found = {(a, b) for a, b, _ in _imports(type_only=False) if a in ALIASES}
    assert found == {(old, new) for old, new in ALIASES.items()}
    for old in ALIASES:
        path = PKG.joinpath(*old.split(".")).with_suffix(".py")
        assert "sys.modules[__name__] = _module" in path.read_text(encoding="utf-8"), path
