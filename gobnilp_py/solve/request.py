"""One request object for the rules between parameters, worded by each interface.

Why: a rule that ties two parameters together ("the serial backend scores in-process, so n_jobs
must be 1") was written three times, in the drivers' option checks, the config and the command line,
each with its own words, and the three drifted.  A :class:`SearchRequest` holds the parameters the
rules read and yields each broken rule once, as a :class:`Violation`: the parameter it is about and
the problem, whose references to other parameters are placeholders.  Each interface renders it
with its own :class:`Words` -- the API names the keyword (``n_jobs``), the config the key
(``[scoring] n_jobs``, after ``file:``), the command line the flag (``--n-jobs``) -- a translation
table of names, not a copy of the rules.

Placeholders in a problem: ``{name}`` is a parameter's name, ``{name=value}`` a setting as the user
writes it (API ``backend "dask"``, config ``[scoring] backend = "dask"``, CLI ``--backend dask``).

The rules held here: the scoring backend's (``backend``, ``n_jobs``, ``scheduler``); which options go
with which score (the Dirichlet and discrete-scorer options refused with a Gaussian score, BGe's
hyperparameters with any other: stated once in the score registry's layer,
:func:`gobnilp_py.scoring.gaussian_scores.score_option_conflicts`, and worded here); those of a variable
order (``order`` with ``method``, ``by``, ``palim``, ``constraints`` and the engine options); which
engine options a method takes (``gap``, ``seed``, SCIP ``params``, ... against ``method``, read from the
method registry, :data:`gobnilp_py.solve.methods.METHODS`); and ``verify`` with an approximate method.
Checked before any work: the drivers, the config's ``--check`` and the command line refuse the same
request at the same moment, before reading or scoring.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .._validation import show
from ..errors import ParameterError
from ..scoring.gaussian_scores import score_option_conflicts
from .methods import AUTO, METHODS, is_neutral_option

__all__ = ["SearchRequest", "Violation", "Words", "API_WORDS"]

#: The request's fields that :func:`score_option_conflicts` judges against the score.
_SCORE_OPTION_FIELDS = frozenset({"backend", "n_jobs", "scheduler", "ess", "max_candidates", "lower_bound",
                                  "alpha_mu", "alpha_w", "nu", "arities", "missing_values", "state_names"})

_NO_VALUE = object()
_PLACEHOLDER = re.compile(r"\{(\w+)(?:=([^}]*))?\}")


@dataclass(frozen=True)
class Words:
    """How an interface names a parameter: a name alone, a subject with its value, a setting."""

    #: parameter -> how it is named (``n_jobs``, ``--n-jobs``, ``[scoring] n_jobs``)
    name: Callable[[str], str]
    #: (the parameter as named, its value) -> the subject of a message (``--backend "serial"``)
    subject: Callable[[str, Any], str]
    #: (parameter, value text) -> the setting as written there (``--backend dask``)
    setting: Callable[[str, str], str]


#: The Python API's words: keyword names (``backend "serial"``, ``needs backend "dask"``).
API_WORDS = Words(name=lambda p: p, subject=lambda label, v: f"{label} {show(v)}",
                  setting=lambda p, v: f"{p} {show(v)}")


@dataclass(frozen=True)
class Violation:
    """One broken rule: the parameter it is about (``about``, shown with ``value`` when given) and the problem."""

    about: str
    problem: str
    value: Any = _NO_VALUE

    def message(self, words: Words, label: str | None = None) -> str:
        """The whole line in ``words``; ``label`` is how the user named ``about`` (default ``words.name``)."""
        label = words.name(self.about) if label is None else label
        head = label if self.value is _NO_VALUE else words.subject(label, self.value)

        def fill(m: re.Match[str]) -> str:
            return words.name(m[1]) if m[2] is None else words.setting(m[1], m[2])

        return f"{head} {_PLACEHOLDER.sub(fill, self.problem)}"


@dataclass(frozen=True)
class SearchRequest:
    """The parameters the cross-parameter rules read, as given (``None``: not given)."""

    backend: str | None = None
    n_jobs: int | None = None
    scheduler: str | None = None
    # which options the score takes (None: not given; ``score`` None is the default, "BIC")
    score: Any = None
    ess: float | None = None
    max_candidates: int | None = None
    lower_bound: Any = None
    alpha_mu: float | None = None
    alpha_w: float | None = None
    nu: Any = None
    arities: Any = None
    missing_values: Any = None
    state_names: Any = None
    order: Any = None          # a variable order: the fixed-order search
    method: str | None = None
    by: str | None = None
    palim: Any = None
    constraints: Any = None    # structural constraints (any value but None: given)
    task: str | None = None    # "optimum", "epsilon_set" or "kbest" (None: no engine rule is checked)
    options: Mapping[str, Any] | None = None   # engine options as given (gap, seed, n_orders, params, ...)
    verify: bool | None = None

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> "SearchRequest":
        """The request named by a mapping of keyword -> value (unknown keywords are ignored)."""
        return cls(**{k: options.get(k) for k in cls.__dataclass_fields__})

    def violations(self) -> Iterator[Violation]:
        """Every broken rule, in the order they are checked."""
        if self.backend == "serial" and self.n_jobs not in (None, 1):
            yield Violation("backend", f"scores in-process: {{n_jobs}} must be 1 or not given, got {self.n_jobs}",
                            "serial")
        if self.scheduler is not None and self.backend != "dask":
            yield Violation("scheduler", "(a Dask scheduler address) needs {backend=dask}")
        if self.backend == "dask" and self.scheduler is None:
            yield Violation("backend", 'needs {scheduler} (an address such as "tcp://host:8786")', "dask")
        given = {k: getattr(self, k) for k in self.__dataclass_fields__ if k in _SCORE_OPTION_FIELDS}
        for about, problem in score_option_conflicts(self.score, given):
            yield Violation(about, problem)
        if self.order is not None:
            yield from self._order_violations()
        yield from self._engine_violations()

    def _given_options(self) -> list[str]:
        return [k for k, v in (self.options or {}).items() if not is_neutral_option(k, v)]

    def _order_violations(self) -> Iterator[Violation]:
        if self.method not in (None, "auto"):
            yield Violation("method", 'does not apply with {order}: the order runs the fixed-order search (the method '
                            'must be "auto"); to search under an order with another method, give the order as tiers '
                            "constraints, one variable per tier", self.method)
        if self.constraints is not None:
            yield Violation("order", "cannot be combined with {constraints} (the fixed-order search honours the order "
                            "only); give the order as tiers constraints instead")
        if self.by == "class":
            yield Violation("by", "does not apply with {order} (the networks that follow an order are not whole "
                            'equivalence classes); use "dag" or "auto"', "class")
        if isinstance(self.palim, str):
            yield Violation("palim", "does not apply with {order} (\"auto\" bounds a pruned score table, and the "
                            "fixed-order search prunes none); give an integer", self.palim)
        for key in self._given_options():
            yield Violation(key, "does not apply with {order}: the fixed-order search runs no solver and takes no "
                            "engine options")

    def _engine_violations(self) -> Iterator[Violation]:
        """Which method takes which option (the registry's ``Method.options``), and ``verify`` with an
        approximate method.  ``auto`` picks an exact method that takes the options given, so only an option
        that no exact method takes conflicts with it."""
        if self.task is None or self.order is not None:
            return
        for key in self._given_options():
            users = [m for m in METHODS.values() if key in m.options and self.task in m.tasks]
            if not users:
                continue        # an option of another job: the interface that offers it says so
            names = [m.name for m in users]
            if self.method in (None, AUTO):
                if not any(m.exact for m in users):
                    yield Violation(key, f"applies only to {{method={names[0]}}}, which auto never picks; give "
                                    f"{{method={names[0]}}}")
            elif self.method not in names:
                yield Violation(key, f"does not apply to {{method={self.method}}} (only to {', '.join(names)})")
        entry = METHODS.get(self.method) if self.method not in (None, AUTO) else None
        if self.verify and entry is not None and not entry.exact:
            yield Violation("verify", f"does not apply to {{method={self.method}}}: it is approximate, so there is "
                            "no proven optimum for a second exact method to confirm")

    def check(self, words: Words = API_WORDS) -> None:
        """Raise the first broken rule as a one-line :class:`ParameterError` naming its parameter."""
        for v in self.violations():
            exc = ParameterError(v.message(words))
            exc.name = v.about
            raise exc
