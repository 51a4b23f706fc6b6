"""The search methods, declared once: what each can do, and which one ``method="auto"`` picks.

Every driver (:func:`~gobnilp_py.learn`, :func:`~gobnilp_py.enumerate_networks`,
:func:`~gobnilp_py.kbest`), the config (``[search] method``) and the command line
(``--method``) read this registry, so adding an engine is one entry here plus its
module.  An entry declares

* the **tasks** it performs: ``"optimum"`` (one optimal network), ``"epsilon_set"``
  (every network within ε of the optimum), ``"kbest"`` (the k best networks);
* whether its answers are **exact** (proven) or approximate;
* the **structural constraint kinds** it honours (``None``: every kind).  Kinds that
  :meth:`~gobnilp_py.constraints.StructuralConstraints.filter_table` enforces by
  deleting families (:data:`~gobnilp_py.constraints.FILTER_KINDS`) are honoured by
  every engine, because the drivers filter the table first;
* a **limit on the number of variables** beyond which it refuses, and the Python
  modules it **needs** (the ILP needs ``pyscipopt``; nothing is imported until the
  method runs);
* whether it can **collect by class** (one network per Markov equivalence class,
  the members listed combinatorially: ``by="class"``);
* the **module** implementing it, with functions ``optimum(table, **kw)``,
  ``epsilon_set(table, **kw)`` and ``kbest(table, **kw)`` answering in table
  positions (:mod:`gobnilp_py.search.results`).

:func:`choose_method` implements ``method="auto"`` and returns the reason for its
choice, which every result records (``stats["method"]``, ``stats["method_reason"]``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..constraints.structural import FILTER_KINDS
from .._validation import check_choice, show
from ..errors import ParameterError

__all__ = ["Method", "METHODS", "TASKS", "AUTO", "method_names", "get_method", "engine_module", "check_method",
           "check_method_name", "check_by", "BY_CHOICES", "choose_method", "resolve_method", "method_options", "is_neutral_option", "with_memory_limit",
           "WORKER_OPTIONS", "takes_workers"]

#: The tasks a method can perform.
TASKS = ("optimum", "epsilon_set", "kbest")

#: The name that asks the registry to choose.
AUTO = "auto"


@dataclass(frozen=True)
class Method:
    """One search method: its capabilities and where it lives."""

    name: str
    title: str
    tasks: frozenset[str]
    exact: bool
    module: str
    constraint_kinds: frozenset[str] | None = None
    max_variables: int | None = None
    needs: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    #: The method can collect one network per Markov equivalence class (``by="class"``).
    class_collection: bool = False
    #: Its k-best lists already hold every network tied with the k-th (else the driver asks for more).
    kbest_ties: bool = False
    #: Its search runs on the call's workers (:data:`WORKER_OPTIONS`, as scoring takes them), so those
    #: options apply to it even when it is given a score table (ASOBS: its restarts in parallel).
    workers: bool = False

    def supports_constraints(self, kinds: frozenset[str]) -> frozenset[str]:
        """The kinds in ``kinds`` this method cannot honour (empty when it honours all)."""
        if self.constraint_kinds is None:
            return frozenset()
        return frozenset(k for k in kinds if k not in self.constraint_kinds)


METHODS: dict[str, Method] = {m.name: m for m in (
    Method("ilp", "branch-and-cut on SCIP (family variables, cluster cuts)",
           frozenset(TASKS), True, "gobnilp_py.ilp.engine", None, None, ("pyscipopt",),
           ("gap", "params", "verbose", "model_options", "warm_start", "arrow_restart"), class_collection=True, kbest_ties=True),
    Method("ordergraph", "order-graph search (frontier breadth-first branch and bound; Malone et al. 2011)",
           frozenset(TASKS), True, "gobnilp_py.search.order_graph", FILTER_KINDS, 30, (),
           ("memory_budget", "lower_bound"), kbest_ties=True),
    Method("dp", "dynamic programming over subsets with k-best lists (Tian, He and Ram 2010)",
           frozenset({"optimum", "kbest"}), True, "gobnilp_py.search.subset_dp", FILTER_KINDS, 24, (),
           ("memory_budget", "trace_memory")),
    Method("resolve", "k successive ILP solves with nogoods (GOBNILP 1.6)",
           frozenset({"kbest"}), True, "gobnilp_py.ilp.resolve", None, None, ("pyscipopt",),
           ("params", "verbose")),
    # Approximate (exact=False): ``auto`` never picks it; from data the drivers score by independence
    # selection (solve/approximate.py) and every result is labelled approximate.
    Method("asobs", "acyclic selection ordering-based search over random orders, approximate (Scanagatta et al. 2015)",
           frozenset({"optimum"}), False, "gobnilp_py.search.asobs", FILTER_KINDS, None, (),
           ("seed", "n_orders", "kernels"), workers=True),
)}

#: The call's worker options (scoring's ``n_jobs``, ``backend``, ``scheduler``), which a method with
#: ``Method.workers`` also takes for its search.
WORKER_OPTIONS = ("n_jobs", "backend", "scheduler")


def takes_workers(name: Any) -> bool:
    """True when ``name`` is a method whose search runs on the call's workers (:data:`WORKER_OPTIONS`)."""
    m = METHODS.get(name) if isinstance(name, str) else None
    return bool(m is not None and m.workers)


def method_names(task: str | None = None) -> tuple[str, ...]:
    """Names of the methods (that perform ``task``), plus ``"auto"``."""
    names = [m.name for m in METHODS.values() if task is None or task in m.tasks]
    return (AUTO, *names)


def get_method(name: str) -> Method:
    """The registry entry of ``name``; a one-line :class:`ParameterError` for an unknown one."""
    try:
        return METHODS[name]
    except KeyError:
        import difflib

        near = difflib.get_close_matches(str(name), list(METHODS), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise ParameterError(f"unknown method {name!r}{hint}; choose from {', '.join(method_names())}") from None


def engine_module(method: Method) -> ModuleType:
    """Import the module implementing ``method`` (the only place engines are imported)."""
    for dep in method.needs:
        try:
            importlib.import_module(dep)
        except ImportError:
            raise ParameterError(f"method {method.name!r} needs the Python package {dep!r}, which is not "
                              "installed") from None
    if not _available(method):
        raise ParameterError(f"method {method.name!r} is not available in this installation")
    return importlib.import_module(method.module)


def check_method(method: Method, task: str, n: int, kinds: frozenset[str]) -> None:
    """Refuse, in one line, a method that cannot perform ``task`` on ``n`` variables with these constraints."""
    if task not in method.tasks:
        able = ", ".join(m.name for m in METHODS.values() if task in m.tasks)
        raise ParameterError(f"method {method.name!r} cannot compute {_TASK_TEXT[task]}; methods that can: {able}")
    missing = method.supports_constraints(kinds)
    if missing:
        able = ", ".join(m.name for m in METHODS.values() if task in m.tasks and not m.supports_constraints(kinds))
        raise ParameterError(f"method {method.name!r} cannot honour the structural constraint "
                          f"{', '.join(sorted(missing))}; methods that can: {able or 'none'}")
    if method.max_variables is not None and n > method.max_variables:
        raise ParameterError(f"method {method.name!r} handles at most {method.max_variables} variables; "
                          f"this problem has {n}")


_TASK_TEXT = {"optimum": "an optimal network", "epsilon_set": "every network within a Bayes factor",
              "kbest": "the k best networks"}

#: ``by`` per task: how a collection is searched (``docs/enumeration.md``).
BY_CHOICES: dict[str, tuple[str, ...]] = {"epsilon_set": ("auto", "class", "dag"), "kbest": ("dag", "class")}


def check_method_name(value: Any, name: str | None = "method", task: str | None = None) -> str:
    """A search method of this registry, or ``"auto"``: the check the API, the config and the CLI share.

    The names are read from the registry each time (never a copy), so a
    method added here is accepted by the drivers, the config and the command
    line at once.  With ``task`` (``"optimum"``, ``"epsilon_set"``, ``"kbest"``)
    a method that cannot perform it is refused, naming those that can.

    Examples
    --------
    >>> check_method_name("ilp", task="optimum")
    'ilp'
    """
    every = method_names()
    if isinstance(value, str) and task is not None and value in every and value not in method_names(task):
        problem = f"{show(value)} cannot compute {_TASK_TEXT[task]}; methods that can: {', '.join(method_names(task))}"
        raise ParameterError(problem, name)
    return check_choice(value, name, every)


def check_by(value: Any, name: str | None = "by", task: str = "epsilon_set") -> str:
    """How a collection is searched: ``"auto"``, ``"class"`` or ``"dag"`` (k-best: ``"dag"`` or ``"class"``)."""
    return check_choice(value, name, BY_CHOICES[task])


#: ``auto`` uses the order graph up to this many variables (see :func:`choose_method`).  Measured
#: (``benchmarks/results/order-graph-vs-ilp-and-auto-choice.md``): the order graph won all 21 runs with n <= 17 (1.3x to
#: over 1,900x), and proved the optimum of mushroom (n = 23) in 9 s and sensors (n = 25) in 60 s (2.3 GB)
#: where the ILP had not in 300 s; at n = 28 (steel) it did not finish in 600 s.
ORDERGRAPH_AUTO_MAX = 25


def choose_method(task: str, n: int, kinds: frozenset[str], n_families: int) -> tuple[str, str]:
    """The method ``auto`` runs for ``task`` and why (a sentence recorded in the result).

    The order graph's work grows as ``n 2^n`` whatever the data, the ILP's with
    the number of candidate families and the hardness of the LP relaxation;
    the order graph therefore wins where variables are few and rows many
    (many families per variable, weak LP bounds), the ILP everywhere else.
    The crossover was measured (``benchmarks/results/order-graph-vs-ilp-and-auto-choice.md``).
    """
    og = METHODS["ordergraph"]
    if task not in og.tasks or not _available(og):
        return "ilp", "the order-graph engine is not available"
    if og.supports_constraints(kinds):
        return "ilp", "the structural constraints include kinds only the ILP honours"
    if n > ORDERGRAPH_AUTO_MAX:
        return "ilp", f"{n} variables > {ORDERGRAPH_AUTO_MAX}: the order graph's 2^n subsets would be too many"
    return "ordergraph", (f"{n} variables <= {ORDERGRAPH_AUTO_MAX}: the order graph's 2^n subsets are cheap "
                          "and its search does not depend on the LP relaxation")


def _available(method: Method) -> bool:
    """True when the module implementing ``method`` is installed."""
    import importlib.util

    return importlib.util.find_spec(method.module) is not None


def resolve_method(name: str, task: str, n: int, kinds: frozenset[str], n_families: int,
                   options: dict[str, Any] | None = None, *, class_collection: bool = False) -> tuple[Method, str]:
    """The method to run (``auto`` resolved) and the reason, after every capability check.

    With ``auto``, options that only one method understands (SCIP ``params``,
    say) decide for that method, and ``class_collection=True`` (the k best
    equivalence classes) restricts the choice to methods that collect classes.
    """
    given = [k for k, v in (options or {}).items() if not is_neutral_option(k, v)]
    if name == AUTO:
        chosen, reason = choose_method(task, n, kinds, n_families)
        if class_collection and not METHODS[chosen].class_collection:
            able = [m for m in METHODS.values() if task in m.tasks and m.class_collection and _available(m)]
            if able:
                chosen, reason = able[0].name, "only it collects one network per equivalence class"
        foreign = [k for k in given if k not in METHODS[chosen].options]
        if foreign:
            able = [m for m in METHODS.values()
                    if m.exact and task in m.tasks and all(k in m.options for k in given) and _available(m)]
            if able:
                words = " and ".join(OPTION_WORDS.get(k, f"option {k}") for k in foreign)
                chosen, reason = able[0].name, f"it takes the {words} given; {chosen} does not"
    else:
        chosen, reason = name, "chosen by the caller"
    method = get_method(chosen)
    check_method(method, task, n, kinds)
    return method, reason


#: What an option is, in words that fit every interface: the result's method line is read by users of the
#: API (``params=``), of a config (``[scip]``) and of the command line alike, so it names the thing, not a spelling.
OPTION_WORDS = {"params": "SCIP parameters", "verbose": "solver log (verbose)", "gap": "relative gap",
                "model_options": "ILP model options", "warm_start": "ILP warm start",
                "arrow_restart": "ILP restart with arrow variables",
                "memory_budget": "memory budget", "trace_memory": "memory tracing", "lower_bound": "lower bound",
                "seed": "random seed", "n_orders": "number of random orders", "kernels": "kernel choice"}


def is_neutral_option(key: str, value: Any) -> bool:
    """True for an option value that asks nothing of any method (not given, off, or a zero gap)."""
    return value is None or value is False or (key == "gap" and value == 0) or (
        isinstance(value, Mapping) and not value)


def with_memory_limit(method: Method, options: dict[str, Any], memory_limit: int | None) -> dict[str, Any]:
    """``options`` with the command's memory limit given to the engine, where the caller set none of its own.

    The order graph and the DP take it as their ``memory_budget`` (they refuse, before allocating, a run
    whose estimate exceeds it, or stop with status ``memory_limit``); the ILPs as SCIP's ``limits/memory``
    (MiB; SCIP counts its own memory only, and stops with status ``memory_limit``).  Applied after the
    method is chosen, so it never steers ``auto``.
    """
    if memory_limit is None:
        return options
    out = dict(options)
    if "memory_budget" in method.options and out.get("memory_budget") is None:
        out["memory_budget"] = int(memory_limit)
    if "params" in method.options:
        params = dict(out.get("params") or {})
        if "limits/memory" not in params:
            params["limits/memory"] = max(1.0, float(memory_limit) / 2**20)
            out["params"] = params
    return out


def method_options(method: Method, options: dict[str, Any]) -> dict[str, Any]:
    """Keep the options ``method`` understands; refuse, in one line, one it cannot use."""
    out = {}
    for key, value in options.items():
        if is_neutral_option(key, value):
            continue  # not given (or the neutral value every method honours)
        if key not in method.options:
            users = ", ".join(m.name for m in METHODS.values() if key in m.options)
            raise ParameterError(f"option {key!r} does not apply to method {method.name!r} (only to {users})")
        out[key] = value
    return out
