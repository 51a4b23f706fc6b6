"""User-supplied structural constraints on the learned DAG (background knowledge).

:class:`StructuralConstraints` holds what a user may know in advance: arrows
that must or must not be present, pairs that must or must not be adjacent,
tiers (temporal order), parent-count limits, bounds on the number of arrows,
and required or forbidden immoralities (v-structures ``x->z<-y``).

It acts on the learning problem in two places, both *exact* (they remove
only networks that violate a constraint, never a network that satisfies all
of them):

1. :meth:`StructuralConstraints.filter_table` deletes candidate families that
   no admissible network can use (a forbidden parent, a parent from a later
   tier, too many parents, a family lacking a required parent, ...).  This
   shrinks the ILP, and a constraint enforced by deletion costs the solver
   nothing.
2. engines honour the rest their own way: the ILP engine adds linear
   constraints over the family variables for what cannot be expressed by
   deleting families (adjacencies, arrow counts, immoralities; see
   :mod:`gobnilp_py.ilp.structural_rows`); :meth:`StructuralConstraints.kinds`
   names the kinds present so a driver can refuse an engine that cannot honour
   one of them.

:meth:`StructuralConstraints.is_satisfied` is an independent, direct check on a
finished network, used by tests and by the ε-BNSL collector.

Caution for callers (exactness): score-table pruning that drops a parent set
because a *subset* scores at least as well is only safe for constraints that
are closed under removing parents.  Required arrows, required adjacencies,
required immoralities, forbidden immoralities and ``min_edges`` are not; see
:attr:`StructuralConstraints.subset_pruning_safe`.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._io import decode_input_text
from .._wording import count, excerpt, printable
from ..errors import ConstraintError
from ..network import Network, find_cycle
from ..scoring.table import ScoreTable

__all__ = ["StructuralConstraints", "InfeasibleConstraints", "constraint_row_name", "CONSTRAINT_KINDS",
           "FILTER_KINDS", "CLASS_INVARIANT_KINDS"]

logger = logging.getLogger(__name__)

Arrow = tuple[str, str]           # (parent, child)
Pair = tuple[str, str]            # unordered pair, stored as given
Immorality = tuple[str, str, str]  # (x, z, y) for x->z<-y

_KEYS = (
    "required_arrows", "forbidden_arrows", "required_adjacencies", "forbidden_adjacencies",
    "tiers", "max_parents", "max_parents_per_variable", "min_edges", "max_edges",
    "required_immoralities", "forbidden_immoralities",
)
#: Every kind of structural constraint, by the name of its key.
CONSTRAINT_KINDS: tuple[str, ...] = _KEYS
#: The kinds :meth:`StructuralConstraints.filter_table` enforces completely by deleting families,
#: so that any engine searching the filtered table honours them exactly.
FILTER_KINDS: frozenset[str] = frozenset({
    "required_arrows", "forbidden_arrows", "forbidden_adjacencies", "tiers", "max_parents",
    "max_parents_per_variable"})
#: The kinds that depend only on the skeleton and the v-structures, so every DAG of a Markov
#: equivalence class satisfies them or none does.
CLASS_INVARIANT_KINDS: frozenset[str] = frozenset({
    "required_adjacencies", "forbidden_adjacencies", "min_edges", "max_edges",
    "required_immoralities", "forbidden_immoralities"})


class InfeasibleConstraints(ConstraintError):
    """No network of the score table satisfies the constraints (detected before any search)."""


# Keys a config author may try for conditional independence statements.
_CI_KEYS = ("independences", "independencies", "conditional_independences",
            "conditional_independencies", "ci", "cis")

_LABEL = {
    "required_arrows": "required arrow", "forbidden_arrows": "forbidden arrow",
    "required_adjacencies": "required adjacency", "forbidden_adjacencies": "forbidden adjacency",
    "required_immoralities": "required immorality", "forbidden_immoralities": "forbidden immorality",
}

_IMMORALITY_RE = re.compile(r"^(.+?)->(.+?)<-(.+)$")


# --------------------------------------------------------------------- parsing
def _decode(raw: bytes, shown: str) -> str:
    """The UTF-8 text of a constraints file, or a one-line ConstraintError naming the encoding problem."""
    return decode_input_text(raw, "constraints", shown, ConstraintError, sniff_utf16=True)


def _ci_error(where: str) -> ConstraintError:
    return ConstraintError(
        f"{where}: conditional independence statements (A_|_B or A_|_B|S) are not supported; "
        "only arrows, adjacencies and immoralities are")


def _names(parts: Sequence[str], where: str, text: str, limit: int = 40) -> list[str]:
    out = [p.strip() for p in parts]
    if any(not p for p in out):
        raise ConstraintError(f"{where}: empty variable name in {excerpt(text, limit)}")
    return out


def _parse_statement(text: str, where: str, limit: int = 40) -> tuple[bool, str, tuple[str, ...]]:
    """Parse one GOBNILP-style statement into (negated, kind, names).

    ``kind`` is ``"arrow"`` (names = parent, child), ``"adjacency"`` or
    ``"immorality"`` (names = x, z, y for ``x->z<-y``).  Messages quote at
    most ``limit`` characters of the statement, escaped
    (:func:`gobnilp_py._wording.excerpt`): the text may come from a file that
    is not a constraints file at all.
    """
    body = text.strip()
    negated = body.startswith("~")
    if negated:
        body = body[1:].strip()
    if "_|_" in body:
        raise _ci_error(where)
    m = _IMMORALITY_RE.match(body)
    if m and "->" not in m.group(3) and "<-" not in m.group(3) and "<-" not in m.group(1):
        x, z, y = _names(m.groups(), where, text, limit)
        return negated, "immorality", (x, z, y)
    n_left, n_right = body.count("<-"), body.count("->")
    if n_left == 1 and n_right == 0:
        child, parent = _names(body.split("<-"), where, text, limit)
        return negated, "arrow", (parent, child)
    if n_right == 1 and n_left == 0:
        parent, child = _names(body.split("->"), where, text, limit)
        return negated, "arrow", (parent, child)
    if n_left == 0 and n_right == 0 and "-" in body:
        if body.count("-") > 1:
            raise ConstraintError(
                f"{where}: adjacency {excerpt(text, limit)} is ambiguous (more than one '-'); "
                "give names containing '-' as pairs in a dict/keyword constraint instead")
        a, b = _names(body.split("-"), where, text, limit)
        return negated, "adjacency", (a, b)
    raise ConstraintError(
        f"{where}: cannot read constraint {excerpt(text, limit)}; expected x<-y, x->y, x-y or x->z<-y, optionally "
        "preceded by ~")


def _strip_comment(line: str) -> str:
    """Drop a whole-line ``#`` comment, or a trailing one that follows whitespace."""
    s = line.strip()
    if s.startswith("#"):
        return ""
    m = re.search(r"\s#", s)
    return s[: m.start()].strip() if m else s


def _as_int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            if isinstance(value, bool) or float(value) != int(value):
                raise ValueError
            value = int(value)
        except (TypeError, ValueError):
            raise ConstraintError(f"{what} must be a whole number, got {value!r}") from None
    if value < 0:
        raise ConstraintError(f"{what} must be >= 0, got {value}")
    return int(value)


# ------------------------------------------------------------------ the object
@dataclass
class StructuralConstraints:
    """Background knowledge restricting which DAGs are admissible.

    Parameters
    ----------
    required_arrows, forbidden_arrows : list of (parent, child)
        Arrows that must / must not be present.  Items may also be strings
        ``"A->B"`` or ``"B<-A"``.
    required_adjacencies, forbidden_adjacencies : list of (a, b)
        Unordered pairs that must / must not be joined by an arrow in either
        direction.  Items may also be strings ``"A-B"``.
    tiers : list of list of str
        Ordered tiers: a variable in a later tier cannot be a parent of one in
        an earlier tier.  Variables in no tier are unconstrained.
    max_parents : int or None
        Global limit on the number of parents of every variable.
    max_parents_per_variable : dict of str to int
        Per-variable limits (the smaller of this and ``max_parents`` applies).
    min_edges, max_edges : int or None
        Bounds on the total number of arrows.
    required_immoralities, forbidden_immoralities : list of (x, z, y)
        Immoralities ``x->z<-y`` (x and y both parents of z and not adjacent)
        that must / must not be present.  Items may also be strings
        ``"x->z<-y"``.

    Notes
    -----
    Construction only normalises the input; :meth:`validate` checks it
    against the variable names and for contradictions.  Every item remembers
    where it came from (keyword, dict key, or file and line) for messages.

    Examples
    --------
    >>> c = StructuralConstraints(required_arrows=["A->B"], tiers=[["A"], ["B", "C"]])
    >>> c.required_arrows
    [('A', 'B')]
    >>> c.is_satisfied({"A": (), "B": ("A",), "C": ("B",)})
    True
    """

    required_arrows: list[Arrow] = field(default_factory=list)
    forbidden_arrows: list[Arrow] = field(default_factory=list)
    required_adjacencies: list[Pair] = field(default_factory=list)
    forbidden_adjacencies: list[Pair] = field(default_factory=list)
    tiers: list[list[str]] = field(default_factory=list)
    max_parents: int | None = None
    max_parents_per_variable: dict[str, int] = field(default_factory=dict)
    min_edges: int | None = None
    max_edges: int | None = None
    required_immoralities: list[Immorality] = field(default_factory=list)
    forbidden_immoralities: list[Immorality] = field(default_factory=list)
    origins: dict[tuple[str, tuple[str, ...]], str] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.required_arrows = self._norm_items("required_arrows", self.required_arrows, "arrow")
        self.forbidden_arrows = self._norm_items("forbidden_arrows", self.forbidden_arrows, "arrow")
        self.required_adjacencies = self._norm_items("required_adjacencies", self.required_adjacencies, "adjacency")
        self.forbidden_adjacencies = self._norm_items("forbidden_adjacencies", self.forbidden_adjacencies, "adjacency")
        self.required_immoralities = self._norm_items("required_immoralities", self.required_immoralities,
                                                      "immorality")
        self.forbidden_immoralities = self._norm_items("forbidden_immoralities", self.forbidden_immoralities,
                                                       "immorality")
        if isinstance(self.tiers, (str, bytes)) or not isinstance(self.tiers, Iterable):
            raise ConstraintError(f"tiers must be a list of lists of names, got {self.tiers!r}")
        tiers = []
        for t, tier in enumerate(self.tiers):
            if isinstance(tier, str):
                raise ConstraintError(f"tier {t + 1} must be a list of names, got the string {tier!r}")
            tiers.append([str(v) for v in tier])
        self.tiers = tiers
        self.max_parents = _as_int(self.max_parents, "max_parents")
        self.min_edges = _as_int(self.min_edges, "min_edges")
        self.max_edges = _as_int(self.max_edges, "max_edges")
        if not isinstance(self.max_parents_per_variable, Mapping):
            raise ConstraintError("max_parents_per_variable must be a mapping of variable name to a number")
        self.max_parents_per_variable = {
            str(k): _as_int(v, f"max_parents_per_variable[{k!r}]")  # type: ignore[misc]
            for k, v in self.max_parents_per_variable.items()}

    def _norm_items(self, key: str, items: Any, kind: str) -> list[tuple[str, ...]]:
        """Turn strings/sequences into name tuples, remember their origin, drop duplicates."""
        if items is None:
            return []
        if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
            raise ConstraintError(f"{key} must be a list, got {items!r}")
        width = 3 if kind == "immorality" else 2
        out: list[tuple[str, ...]] = []
        for k, item in enumerate(items):
            where = self.origins.get((key, tuple(item) if isinstance(item, (tuple, list)) else ()),
                                     f"{key}[{k}]")
            if isinstance(item, str):
                negated, got, names = _parse_statement(item, where)
                if negated:
                    raise ConstraintError(f"{where}: {item!r}: '~' is only for constraint files; "
                                          f"use the forbidden_* keyword instead")
                if got != kind:
                    raise ConstraintError(f"{where}: {item!r} is an {got}, expected an {kind}")
            else:
                try:
                    names = tuple(str(v) for v in item)
                except TypeError:
                    raise ConstraintError(f"{where}: expected a sequence of names, got {item!r}") from None
                if len(names) != width:
                    raise ConstraintError(f"{where}: an {kind} needs {width} names, got {list(names)}")
            if names not in out:
                out.append(names)
                self.origins.setdefault((key, names), where)
        return out

    # ------------------------------------------------------------ constructors
    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "StructuralConstraints":
        """Build from a config mapping whose keys are the keyword names.

        A ``"file"`` key names a GOBNILP constraints file whose statements are
        merged in.  Unknown keys are an error (typos must not silently drop
        background knowledge).
        """
        if d is None:
            return cls()
        if not isinstance(d, Mapping):
            raise ConstraintError(f"constraints must be a mapping, got {type(d).__name__}")
        for k in d:
            if k in _CI_KEYS:
                raise _ci_error(f"constraints key {k!r}")
            if k not in _KEYS and k != "file":
                raise ConstraintError(f"unknown constraints key {k!r}; allowed: {', '.join(_KEYS + ('file',))}")
        out = cls(**{k: v for k, v in d.items() if k != "file"})
        if d.get("file"):
            out = out.merge(cls.from_file(d["file"]))
        return out

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> "StructuralConstraints":
        """Read a GOBNILP constraints file (see :meth:`parse`); errors name the file and line.

        The file must be UTF-8 text (an optional byte-order mark is
        skipped); UTF-16, Latin-1 and binary files are refused in one line
        naming the encoding problem, never with their bytes.
        """
        p = Path(path)
        shown = printable(p)
        try:
            st = os.stat(p)
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(21, "Is a directory")
            if not stat.S_ISREG(st.st_mode):
                raise ConstraintError(f"constraints file {shown} is not a regular file (a device, socket or pipe)")
            raw = p.read_bytes()
        except OSError as exc:
            raise ConstraintError(f"cannot read constraints file {shown}: {exc.strerror or exc}") from None
        return cls.parse(_decode(raw, shown), source=shown)

    @classmethod
    def parse(cls, text: str, *, source: str = "<constraints>") -> "StructuralConstraints":
        """Parse GOBNILP's constraints-file syntax, one statement per line.

        ``x<-y`` (y is a parent of x), ``x->y`` (x is a parent of y; an
        extension), ``x-y`` (adjacent), ``x->z<-y`` (immorality), each
        negatable with a leading ``~``; ``#`` starts a comment; blank lines
        are ignored.  Conditional independence lines (``A_|_B|S``) raise a
        :class:`ConstraintError`.
        """
        buckets: dict[str, list[tuple[str, ...]]] = {k: [] for k in _KEYS[:4] + _KEYS[-2:]}
        origins: dict[tuple[str, tuple[str, ...]], str] = {}
        source = printable(source)
        seen = 0
        for no, line in enumerate(text.splitlines(), 1):
            s = _strip_comment(line)
            if not s:
                continue
            where = f"{source}, line {no}"
            # The first statement may be the first line of a file that is no constraints file (a password
            # file named by mistake): quote only a few characters of it.
            negated, kind, names = _parse_statement(s, where, 40 if seen else 12)
            seen += 1
            prefix = "forbidden_" if negated else "required_"
            key = prefix + {"arrow": "arrows", "adjacency": "adjacencies", "immorality": "immoralities"}[kind]
            buckets[key].append(names)
            origins.setdefault((key, names), where)
        return cls(**buckets, origins=origins)  # type: ignore[arg-type]

    def merge(self, other: "StructuralConstraints") -> "StructuralConstraints":
        """Both sets of constraints at once (limits: the tighter one; tiers: must not both be given)."""
        if self.tiers and other.tiers:
            raise ConstraintError("tiers given twice (in two merged constraint sources); give them once")

        def tight(a: int | None, b: int | None, f: Any) -> int | None:
            return b if a is None else a if b is None else f(a, b)

        per = dict(self.max_parents_per_variable)
        for k, v in other.max_parents_per_variable.items():
            per[k] = min(per.get(k, v), v)
        origins = {**other.origins, **self.origins}
        return StructuralConstraints(
            required_arrows=self.required_arrows + other.required_arrows,
            forbidden_arrows=self.forbidden_arrows + other.forbidden_arrows,
            required_adjacencies=self.required_adjacencies + other.required_adjacencies,
            forbidden_adjacencies=self.forbidden_adjacencies + other.forbidden_adjacencies,
            tiers=self.tiers or other.tiers,
            max_parents=tight(self.max_parents, other.max_parents, min),
            max_parents_per_variable=per,
            min_edges=tight(self.min_edges, other.min_edges, max),
            max_edges=tight(self.max_edges, other.max_edges, min),
            required_immoralities=self.required_immoralities + other.required_immoralities,
            forbidden_immoralities=self.forbidden_immoralities + other.forbidden_immoralities,
            origins=origins,
        )

    # --------------------------------------------------------------- queries
    def is_empty(self) -> bool:
        """True if no constraint at all is set."""
        return not any(getattr(self, k) for k in _KEYS if k not in ("max_parents", "min_edges", "max_edges")) \
            and self.max_parents is None and not self.min_edges and self.max_edges is None

    def kinds(self) -> frozenset[str]:
        """The kinds of constraint present (names from :data:`CONSTRAINT_KINDS`)."""
        present = set()
        for k in _KEYS:
            v = getattr(self, k)
            if k == "min_edges":
                if v:
                    present.add(k)
            elif v is not None and v != [] and v != {}:
                present.add(k)
        return frozenset(present)

    @property
    def subset_pruning_safe(self) -> bool:
        """True if removing parents from an admissible network always leaves it admissible.

        Score-table pruning that discards a parent set because one of its
        subsets scores at least as well (the usual exact BNSL pruning) relies
        on this.  It fails for required arrows/adjacencies/immoralities (the
        subset may lack the required parent), forbidden immoralities (deleting
        the arrow between x and y can *create* the immorality) and
        ``min_edges``.  When False, the caller must score without subset
        pruning (or prune relative to the constraints) to stay exact.
        """
        return not (self.required_arrows or self.required_adjacencies or self.required_immoralities
                    or self.forbidden_immoralities or self.min_edges)

    def unprunable(self, names: Sequence[str]) -> set[str]:
        """Variables whose parent sets subset pruning must leave alone under these constraints.

        Subset pruning replaces a parent set W' of ``v`` by a subset W in an
        admissible network.  Removing parents of ``v`` can only break:

        * a required arrow ``u -> v`` or a required adjacency ``{u, v}``: ``v`` (and ``u``);
        * a required immorality ``x -> z <- y``: ``z`` (removing parents never creates
          the x--y adjacency that would spoil it);
        * a forbidden immorality ``x -> z <- y``: ``x`` and ``y`` (removing the arrow
          between them can create it; removing parents of ``z`` only removes immoralities);
        * ``min_edges``: every variable.

        Every other variable's parent sets can be pruned as usual: the
        replacement then never violates a constraint.  Returns names.
        """
        out: set[str] = set()
        if self.min_edges:
            return set(names)
        for u, v in self.required_arrows:
            out.add(v)
        for a, b in self.required_adjacencies:
            out.update((a, b))
        for x, z, y in self.required_immoralities:
            out.add(z)
        for x, z, y in self.forbidden_immoralities:
            out.update((x, y))
        return out

    def _where(self, key: str, names: tuple[str, ...]) -> str:
        return self.origins.get((key, names), key)

    def _tier_of(self) -> dict[str, int]:
        return {v: t for t, tier in enumerate(self.tiers) for v in tier}

    def _max_parents_of(self, name: str) -> int | None:
        a, b = self.max_parents, self.max_parents_per_variable.get(name)
        return b if a is None else a if b is None else min(a, b)

    def _all_required_arrows(self) -> list[tuple[Arrow, str]]:
        """Required arrows including those implied by required immoralities, with a label."""
        out: list[tuple[Arrow, str]] = [((u, v), f"required arrow {u}->{v} ({self._where('required_arrows', (u, v))})")
                                        for u, v in self.required_arrows]
        for x, z, y in self.required_immoralities:
            lab = f"required immorality {x}->{z}<-{y} ({self._where('required_immoralities', (x, z, y))})"
            out += [((x, z), lab), ((y, z), lab)]
        return out

    # ------------------------------------------------------------ validation
    def validate(self, names: Sequence[str]) -> "StructuralConstraints":
        """Check names and cheap contradictions; return ``self`` (for chaining).

        Raises
        ------
        ConstraintError
            For an unknown variable (naming it and where it came from), a
            malformed item (self-loop, repeated name in an immorality, a
            variable in two tiers) or a contradiction that no DAG can satisfy.
            Contradictions that are not cheap to detect surface later as
            solver status ``"infeasible"``.
        """
        known = {str(v) for v in names}
        seq_keys = _KEYS[:4] + _KEYS[-2:]
        for key in seq_keys:
            for item in getattr(self, key):
                for v in item:
                    if v not in known:
                        raise ConstraintError(
                            f"unknown variable {v!r} in {_LABEL[key]} "
                            f"{_fmt(key, item)} ({self._where(key, item)}); known: {', '.join(names)}")
                if len(set(item)) != len(item):
                    raise ConstraintError(
                        f"{_fmt(key, item)} ({self._where(key, item)}) repeats a variable")
        seen_tier: dict[str, int] = {}
        for t, tier in enumerate(self.tiers):
            for v in tier:
                if v not in known:
                    raise ConstraintError(f"unknown variable {v!r} in tier {t + 1}; known: {', '.join(names)}")
                if v in seen_tier:
                    raise ConstraintError(f"variable {v!r} is in tier {seen_tier[v] + 1} and tier {t + 1}")
                seen_tier[v] = t
        for v in self.max_parents_per_variable:
            if v not in known:
                raise ConstraintError(f"unknown variable {v!r} in max_parents_per_variable; known: {', '.join(names)}")

        # --- contradictions
        if self.min_edges is not None and self.max_edges is not None and self.min_edges > self.max_edges:
            raise ConstraintError(f"min_edges={self.min_edges} is greater than max_edges={self.max_edges}")
        n = len(known)
        if self.min_edges is not None and self.min_edges > n * (n - 1) // 2:
            raise ConstraintError(f"min_edges={self.min_edges} exceeds {n * (n - 1) // 2}, "
                                  f"the most arrows a DAG on {n} variables can have")
        forb_arrows = set(self.forbidden_arrows)
        forb_adj = {frozenset(p) for p in self.forbidden_adjacencies}
        req_adj = {frozenset(p) for p in self.required_adjacencies}
        tier = self._tier_of()

        def arrow_impossible(u: str, v: str) -> str | None:
            if (u, v) in forb_arrows:
                return f"the arrow {u}->{v} is forbidden ({self._where('forbidden_arrows', (u, v))})"
            if frozenset((u, v)) in forb_adj:
                w = next(p for p in self.forbidden_adjacencies if frozenset(p) == frozenset((u, v)))
                return f"the adjacency {u}-{v} is forbidden ({self._where('forbidden_adjacencies', w)})"
            if u in tier and v in tier and tier[u] > tier[v]:
                return f"{u} (tier {tier[u] + 1}) cannot be a parent of {v} (tier {tier[v] + 1})"
            mp = self._max_parents_of(v)
            if mp == 0:
                return f"{v} may have no parents (max parents 0)"
            return None

        req = self._all_required_arrows()
        for (u, v), label in req:
            why = arrow_impossible(u, v)
            if why:
                raise ConstraintError(f"{label} is impossible: {why}")
        cyc = find_cycle(list(names), _parents_of([a for a, _ in req]))
        if cyc is not None:
            raise ConstraintError(f"required arrows form a cycle {'->'.join(cyc)}")
        counts: dict[str, set[str]] = {}
        for (u, v), _ in req:
            counts.setdefault(v, set()).add(u)
        for v, ps in counts.items():
            mp = self._max_parents_of(v)
            if mp is not None and len(ps) > mp:
                raise ConstraintError(f"{v} has {len(ps)} required parents ({', '.join(sorted(ps))}) "
                                      f"but at most {mp} allowed")
        n_req = len({a for a, _ in req})
        if self.max_edges is not None and n_req > self.max_edges:
            raise ConstraintError(f"{count(n_req, 'arrow')} {'is' if n_req == 1 else 'are'} required but "
                                  f"max_edges={self.max_edges}")
        for a, b in self.required_adjacencies:
            if frozenset((a, b)) in forb_adj:
                raise ConstraintError(f"the adjacency {a}-{b} is both required and forbidden")
            why_ab, why_ba = arrow_impossible(a, b), arrow_impossible(b, a)
            if why_ab and why_ba:
                raise ConstraintError(f"required adjacency {a}-{b} ({self._where('required_adjacencies', (a, b))}) "
                                      f"is impossible: {why_ab}, and {why_ba}")
        req_im = {(frozenset((x, y)), z) for x, z, y in self.required_immoralities}
        for x, z, y in self.forbidden_immoralities:
            if (frozenset((x, y)), z) in req_im:
                raise ConstraintError(f"the immorality {x}->{z}<-{y} is both required and forbidden")
        req_pairs = {frozenset(a) for a, _ in req} | req_adj
        for x, z, y in self.required_immoralities:
            if frozenset((x, y)) in req_pairs:
                raise ConstraintError(f"required immorality {x}->{z}<-{y} needs {x} and {y} non-adjacent, "
                                      f"but they are required to be adjacent")
        return self

    # -------------------------------------------------------------- filtering
    def filter_table(self, table: ScoreTable) -> ScoreTable:
        """Copy of ``table`` without the families no admissible network can use.

        Drops a family of child ``v`` with parent set ``W`` if ``W`` contains a
        forbidden parent (forbidden arrow, forbidden adjacency, a parent from a
        later tier, the child of a required arrow out of ``v``, a non-adjacent
        partner of a required immorality), lacks a required parent (required
        arrow or immorality), or is larger than ``v``'s parent limit.  Every
        dropped family violates a constraint in *every* network containing it,
        so the set of admissible networks, and their scores, is unchanged.

        Raises
        ------
        ConstraintError
            If validation fails.
        InfeasibleConstraints
            If some variable is left with no family: no admissible network
            exists in this table (drivers report that as status "infeasible").
        """
        self.validate(table.names)
        at_risk = self.unprunable(table.names)
        pruned = sorted(name for name in at_risk
                        if any(k for r, k in table.pruning.get(name, {}).items() if r != "structural_constraints"))
        if pruned:
            # Only a variable these constraints make unprunable matters; the drivers score those
            # variables unpruned, so this fires only for a table pruned elsewhere (e.g. a .jkl file).
            logger.warning("the score table was pruned for %s, whose parent sets these constraints need unpruned "
                           "(required arrows/adjacencies/immoralities, forbidden immoralities or min_edges): "
                           "the result may miss admissible networks", ", ".join(pruned))
        idx = {v: i for i, v in enumerate(table.names)}
        n = table.n
        banned: list[set[int]] = [set() for _ in range(n)]     # parents v may not have
        needed: list[set[int]] = [set() for _ in range(n)]     # parents v must have
        for u, v in self.forbidden_arrows:
            banned[idx[v]].add(idx[u])
        for a, b in self.forbidden_adjacencies:
            banned[idx[a]].add(idx[b])
            banned[idx[b]].add(idx[a])
        tier = self._tier_of()
        for v, tv in tier.items():
            banned[idx[v]].update(idx[u] for u, tu in tier.items() if tu > tv)
        for (u, v), _ in self._all_required_arrows():
            needed[idx[v]].add(idx[u])
            banned[idx[u]].add(idx[v])   # v->u would close a 2-cycle with the required u->v
        for x, _z, y in self.required_immoralities:
            banned[idx[x]].add(idx[y])
            banned[idx[y]].add(idx[x])
        families = []
        dropped: dict[str, int] = {}
        for i, name in enumerate(table.names):
            limit = self._max_parents_of(name)
            keep = [(ps, sc) for ps, sc in table.families[i]
                    if (limit is None or len(ps) <= limit)
                    and banned[i].isdisjoint(ps) and needed[i].issubset(ps)]
            if not keep:
                hint = ("; the score table was pruned, which can remove the parent sets these constraints "
                        "need" if name in pruned else "")
                raise InfeasibleConstraints(
                    f"no candidate parent set of {name!r} satisfies the structural constraints "
                    f"(all {len(table.families[i])} were excluded){hint}")
            if len(keep) != len(table.families[i]):
                dropped[name] = len(table.families[i]) - len(keep)
            families.append(keep)
        pruning = {k: dict(v) for k, v in table.pruning.items()}
        for name, k in dropped.items():
            pruning.setdefault(name, {})["structural_constraints"] = k
        if dropped:
            logger.info("structural constraints removed %d of %d candidate families",
                        sum(dropped.values()), len(table))
        return ScoreTable(table.names, families, epsilon=table.epsilon, score_name=table.score_name,
                          pruning=pruning, meta=dict(table.meta))

    # ------------------------------------------------------------- checking
    def violations(self, network_or_parents: Network | Mapping[str, Sequence[str]] | Sequence[Sequence[int]],
                   names: Sequence[str] | None = None) -> list[str]:
        """Every constraint the network breaks, as readable strings (empty if admissible).

        Accepts a :class:`~gobnilp_py.network.Network`, a mapping of child
        name to parent names, or a sequence of parent-index tuples (then
        ``names`` is required).  Acyclicity is not checked here.
        """
        parents = _as_parents(network_or_parents, names)
        known = set(parents)
        for key in _KEYS[:4] + _KEYS[-2:]:
            for item in getattr(self, key):
                for v in item:
                    if v not in known:
                        raise ConstraintError(f"unknown variable {v!r} in {_fmt(key, item)}")
        pset = {c: set(ps) for c, ps in parents.items()}

        def arrow(u: str, v: str) -> bool:
            return u in pset[v]

        def adj(a: str, b: str) -> bool:
            return arrow(a, b) or arrow(b, a)

        out = []
        out += [f"required arrow {u}->{v} is missing" for u, v in self.required_arrows if not arrow(u, v)]
        out += [f"forbidden arrow {u}->{v} is present" for u, v in self.forbidden_arrows if arrow(u, v)]
        out += [f"required adjacency {a}-{b} is missing" for a, b in self.required_adjacencies if not adj(a, b)]
        out += [f"forbidden adjacency {a}-{b} is present" for a, b in self.forbidden_adjacencies if adj(a, b)]
        tier = self._tier_of()
        for c, ps in parents.items():
            for p in ps:
                if p in tier and c in tier and tier[p] > tier[c]:
                    out.append(f"arrow {p}->{c} goes from tier {tier[p] + 1} back to tier {tier[c] + 1}")
            mp = self._max_parents_of(c)
            if mp is not None and len(ps) > mp:
                out.append(f"{c} has {len(ps)} parents, more than {mp}")
        m = sum(len(ps) for ps in parents.values())
        if self.min_edges is not None and m < self.min_edges:
            out.append(f"{m} arrows, fewer than min_edges={self.min_edges}")
        if self.max_edges is not None and m > self.max_edges:
            out.append(f"{m} arrows, more than max_edges={self.max_edges}")

        def immoral(a: str, z: str, b: str) -> bool:
            return arrow(a, z) and arrow(b, z) and not adj(a, b)

        out += [f"required immorality {a}->{z}<-{b} is missing"
                for a, z, b in self.required_immoralities if not immoral(a, z, b)]
        out += [f"forbidden immorality {a}->{z}<-{b} is present"
                for a, z, b in self.forbidden_immoralities if immoral(a, z, b)]
        return out

    def is_satisfied(self, network_or_parents: Network | Mapping[str, Sequence[str]] | Sequence[Sequence[int]],
                     names: Sequence[str] | None = None) -> bool:
        """True if the network meets every constraint (see :meth:`violations`)."""
        return not self.violations(network_or_parents, names)

    # -------------------------------------------------------------- reporting
    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the non-empty settings (keys = keyword names); :meth:`from_dict` reads it back."""
        out: dict[str, Any] = {}
        for k in _KEYS:
            v = getattr(self, k)
            if v is None or (not isinstance(v, int) and not v):
                continue
            if isinstance(v, list):
                v = [list(t) for t in v]
            elif isinstance(v, dict):
                v = dict(v)
            out[k] = v
        return out

    def __str__(self) -> str:
        d = self.to_dict()
        return "StructuralConstraints(" + ", ".join(f"{k}={v}" for k, v in d.items()) + ")"


# ---------------------------------------------------------------- helpers
def _fmt(key: str, item: tuple[str, ...]) -> str:
    if "immorali" in key:
        return f"{item[0]}->{item[1]}<-{item[2]}"
    if "adjacenc" in key:
        return f"{item[0]}-{item[1]}"
    return f"{item[0]}->{item[1]}"


def _parents_of(arrows: Iterable[Arrow]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for u, v in arrows:
        out.setdefault(v, []).append(u)
    return out


def _as_parents(obj: Any, names: Sequence[str] | None) -> dict[str, tuple[str, ...]]:
    if isinstance(obj, Network):
        return dict(obj.parents)
    if isinstance(obj, Mapping):
        out = {str(k): tuple(str(p) for p in v) for k, v in obj.items()}
        for ps in list(out.values()):
            for p in ps:
                out.setdefault(p, ())
        if names is not None:
            for v in names:
                out.setdefault(str(v), ())
        return out
    if names is None:
        raise ConstraintError("a network given as parent-index tuples needs the variable names")
    rows = list(obj)
    if len(rows) != len(names):
        raise ConstraintError(f"{len(rows)} parent tuples for {len(names)} variables")
    return {str(names[i]): tuple(str(names[p]) for p in ps) for i, ps in enumerate(rows)}


_BAD = re.compile(r"\s+")


def constraint_row_name(name: str) -> str:
    """Constraint name without whitespace (SCIP writes names into LP/CIP files)."""
    return _BAD.sub("_", name)
