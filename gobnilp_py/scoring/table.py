"""The table of candidate parent sets ("family variables") with their local scores.

A :class:`ScoreTable` is the hand-over between the scoring layer and the ILP:
for every variable (the *child*) it holds the candidate parent sets that
survived pruning, each with its local score (natural log, higher is better).
Parent sets are stored internally as sorted tuples of variable *indices* (the
solver's view) and shown to users by *name*.

``epsilon`` records the gap the table is safe for: every parent set used by a
network with score >= OPT - epsilon is present.

Provenance in ``.jkl`` files
    GOBNILP's ``.jkl`` format has no place for how a table was pruned, yet a
    table pruned for Bayes factor 3 silently gives a wrong "complete" answer
    when enumerated at Bayes factor 20.  Every ``.jkl`` written here therefore
    ends with ``#`` comment lines of the form ``# gobnilp_py: key = <JSON
    value>`` (at the end because GOBNILP's reader, which ignores what follows
    the last variable, refuses a file whose first line is not the number of
    variables; this package's reader accepts them anywhere): the score, ε and
    the Bayes factor, ESS, parent limit, whether pruning was on, the number of
    rows, the arities, the package version, the pruning counts, and a
    ``guarantee`` (``"exact"`` -- nothing pruned, ``"epsilon-safe"``,
    ``"optimum"`` -- constant variables isolated, for learning only -- or
    ``"approximate"``).  :meth:`ScoreTable.from_jkl` reads them back into
    ``epsilon``, ``score_name`` and ``meta``; a file without them (written by
    GOBNILP or by hand) keeps ``epsilon=None``, "pruning unknown", and every
    result computed from it says so.  A provenance line that cannot be parsed
    is an error rather than a silently unknown table.

Scores must be finite with ``|score| < 1e20``: SCIP treats 1e20 as infinity,
and a family that can never be chosen belongs out of the table, not in it
with ``-inf``.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._io import decode_input_text, read_input_bytes
from .._version import __version__
from .._wording import excerpt, has_control, printable
from ..errors import ScoreError

__all__ = ["ScoreTable", "Family", "PROVENANCE_PREFIX", "MAX_ABS_SCORE", "jkl_written_by_us"]

#: Every provenance comment line of a ``.jkl`` we write starts with this.
PROVENANCE_PREFIX = "# gobnilp_py:"
#: The first provenance line, right after the scores (before 2026-11-23: the file's first line).
PROVENANCE_HEADER = "# gobnilp_py score table provenance: keep these comment lines, they say how the table was pruned"
#: Largest magnitude a local score may have (SCIP's infinity is 1e20).
MAX_ABS_SCORE = 1e20
#: ``meta`` key naming the constant variables of a table made for an optimum only
#: (:mod:`gobnilp_py.scoring.constants`), in column order.
ISOLATED_CONSTANTS_KEY = "isolated_constants"
#: ``meta`` keys written as provenance (time and per-level counters are left out so the same
#: table always gives the same file).
_PROVENANCE_META = ("N", "arities", "ess", "palim", "bayes_factor", "prune", "unpruned", "approximate",
                    ISOLATED_CONSTANTS_KEY, "tolerance_rtol", "families_scored", "max_nonunit_parents", "lower_bound",
                    "lower_bound_source", "incomplete", "data_kind", "score_params")
_PROVENANCE_RE = re.compile(r"^#\s*gobnilp_py:\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$")


def jkl_written_by_us(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a ``.jkl`` this package wrote (so ``score -o`` may replace it without ``--force``).

    Our provenance block follows the last score line; older files of ours
    start with it.  The file's tail is read in growing windows until the
    block's header, or a line that is not a comment (the scores, which the
    header would follow), is in view: a few kilobytes however large the table.
    """
    marker = ("\n" + PROVENANCE_HEADER.split(":", 1)[0]).encode()
    try:
        with open(path, "rb") as fh:
            if fh.read(12) == b"# gobnilp_py":
                return True
            size = fh.seek(0, os.SEEK_END)
            window = 1 << 16
            while True:
                start = max(0, size - window)
                fh.seek(start)
                tail = fh.read(size - start)
                if marker in tail:
                    return True
                whole_lines = tail.split(b"\n")[1:] if start else tail.split(b"\n")
                if start == 0 or any(ln.strip() and not ln.lstrip().startswith(b"#") for ln in whole_lines):
                    return False
                window *= 4
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class Family:
    """One candidate family: a child, a parent set (names) and its local score."""

    child: str
    parents: tuple[str, ...]
    score: float


@dataclass
class ScoreTable:
    """Candidate parent sets with local scores, per variable.

    Parameters
    ----------
    names : sequence of str
        Variable names, in column order.
    families : sequence of sequences of (parents, score)
        ``families[i]`` lists the candidates of variable ``i``; ``parents`` is
        an iterable of variable indices (never containing ``i``).  Stored
        sorted best score first (ties: fewer parents, then lexicographic), so
        iteration order is deterministic.
    epsilon : float or None
        Score gap the pruning was made safe for (``None`` if unknown).
    score_name : str or None
        Name of the local score ("BIC", "BDeu", ...), for reports.
    pruning : mapping, optional
        Per variable name, how many parent sets each pruning rule removed.

    Examples
    --------
    >>> t = ScoreTable(["A", "B"], [[((), -10.0), ((1,), -8.0)], [((), -5.0)]])
    >>> t.parent_sets("A")[0]
    (('B',), -8.0)
    >>> len(t)
    3
    """

    names: tuple[str, ...]
    families: list[list[tuple[tuple[int, ...], float]]]
    epsilon: float | None = None
    score_name: str | None = None
    pruning: dict[str, dict[str, int]] = field(default_factory=dict)
    meta: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.names = tuple(str(x) for x in self.names)
        n = len(self.names)
        if len(set(self.names)) != n:
            raise ScoreError(f"duplicate variable names in score table: {_dupes(self.names)}")
        if len(self.families) != n:
            raise ScoreError(f"score table has {len(self.families)} family lists for {n} variables")
        cleaned: list[list[tuple[tuple[int, ...], float]]] = []
        for i, fams in enumerate(self.families):
            seen: set[tuple[int, ...]] = set()
            rows = []
            for parents, sc in fams:
                ps = tuple(sorted(int(p) for p in parents))
                if any(p == i or p < 0 or p >= n for p in ps) or len(set(ps)) != len(ps):
                    raise ScoreError(f"invalid parent set {ps} for variable {self.names[i]!r}")
                if ps in seen:
                    raise ScoreError(f"parent set {self._label(ps)} listed twice for {self.names[i]!r}")
                sc = float(sc)
                if not abs(sc) < MAX_ABS_SCORE:
                    raise ScoreError(f"score {sc} of {self.names[i]!r}<-{self._label(ps)} is not a finite number "
                                     f"with |score| < {MAX_ABS_SCORE:g}")
                seen.add(ps)
                rows.append((ps, sc))
            if not rows:
                raise ScoreError(f"variable {self.names[i]!r} has no candidate parent set")
            cleaned.append(rows)
        self._sorted(cleaned)

    def _sorted(self, families: list[list[tuple[tuple[int, ...], float]]]) -> None:
        """Store ``families`` best first (ties: fewer parents, then lexicographic) and index the names."""
        for rows in families:
            rows.sort(key=lambda r: (-r[1], len(r[0]), r[0]))
        self.families = families
        self._index = {name: i for i, name in enumerate(self.names)}

    @classmethod
    def from_scoring(cls, names: Sequence[str], families: list[list[tuple[tuple[int, ...], float]]],
                     **fields: Any) -> "ScoreTable":
        """A table from a producer whose families are valid by construction (the scoring engine:
        sorted tuples of Python ints, never the child, no repeats, distinct names).

        Only the scores are checked and the families sorted, as
        the constructor would; a bad score falls back to the constructor for
        its message.  Why: checking every family in Python took about a tenth
        of scoring a small dataset (wine: 3 ms of 32).  ``families`` is
        sorted in place and kept.
        """
        if not all(families) or not all(abs(sc) < MAX_ABS_SCORE for rows in families for _, sc in rows):
            return cls(names, families, **fields)
        table = cls.__new__(cls)
        table.names = tuple(str(x) for x in names)
        table.epsilon = fields.pop("epsilon", None)
        table.score_name = fields.pop("score_name", None)
        table.pruning = fields.pop("pruning", {})
        table.meta = fields.pop("meta", {})
        if fields:
            raise TypeError(f"from_scoring: unknown fields {sorted(fields)}")
        table._sorted(families)
        return table

    # ------------------------------------------------------------------ access
    @property
    def n(self) -> int:
        """Number of variables."""
        return len(self.names)

    def index(self, name: str) -> int:
        """Index of variable ``name``; a :class:`ScoreError` names an unknown one."""
        try:
            return self._index[str(name)]
        except KeyError:
            raise ScoreError(f"unknown variable {name!r}; known: {', '.join(self.names)}") from None

    def parent_sets(self, child: str) -> list[tuple[tuple[str, ...], float]]:
        """Candidates of ``child`` as (parent names, score), best first."""
        i = self.index(child)
        return [(self._names_of(ps), sc) for ps, sc in self.families[i]]

    def local_score(self, child: str, parents: Sequence[str]) -> float:
        """Score of ``child`` with exactly ``parents``; KeyError-like ScoreError if pruned."""
        i = self.index(child)
        key = tuple(sorted(self.index(p) for p in parents))
        for ps, sc in self.families[i]:
            if ps == key:
                return sc
        raise ScoreError(f"{child}<-{','.join(parents) or '{}'} is not a candidate family in this table")

    def n_candidates(self) -> dict[str, int]:
        """Number of candidate parent sets per variable."""
        return {name: len(f) for name, f in zip(self.names, self.families)}

    #: :meth:`tied_variables` reports variables with at least this many tied candidate parent sets.
    TIED_REPORT_MIN = 1024

    def tied_variables(self, at_least: int | None = None) -> list[tuple[str, int]]:
        """``(name, count)`` of the variables whose ``count >= at_least`` candidate parent sets all score the
        same (to 1e-9 relative), most first.

        Why: a constant column scores 0 with every parent set, and no rule can
        prune a tie, so its lattice is kept whole (mushroom: 2^22 sets), every
        network comes in that many variants, and the engines' memory and time
        go to them.  Messages name such columns so that users can drop them.
        """
        at_least = self.TIED_REPORT_MIN if at_least is None else at_least
        out = []
        for v, fams in enumerate(self.families):
            if len(fams) >= at_least:
                sc = [s for _, s in fams]
                if max(sc) - min(sc) <= 1e-9 * (1.0 + abs(sc[0])):
                    out.append((self.names[v], len(fams)))
        return sorted(out, key=lambda t: -t[1])

    def __len__(self) -> int:
        return sum(len(f) for f in self.families)

    def __iter__(self) -> Iterator[Family]:
        for i, fams in enumerate(self.families):
            for ps, sc in fams:
                yield Family(self.names[i], self._names_of(ps), sc)

    def _names_of(self, ps: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(self.names[p] for p in ps)

    def _label(self, ps: tuple[int, ...]) -> str:
        return "{" + ",".join(self.names[p] for p in ps) + "}"

    # ------------------------------------------------------------- guarantee
    @property
    def approximate(self) -> bool:
        """True if the table may lack parent sets of good networks: pruned by a rule that may drop them, or
        truncated by a time limit (:attr:`incomplete`)."""
        return bool(self.meta.get("approximate", False)) or self.incomplete is not None

    @property
    def incomplete(self) -> dict[str, Any] | None:
        """How scoring was cut short (``time_limit``), or ``None`` for a table scored to its end.

        ``{"reason", "stopped_at_size", "truncated"}``: the parent-set size being scored when the limit
        ran out, and for each variable still growing then the largest size it keeps (see
        :func:`gobnilp_py.scoring.score`, ``time_limit``).
        """
        inc = self.meta.get("incomplete")
        return inc if isinstance(inc, dict) else None

    @property
    def isolated_constants(self) -> tuple[str, ...]:
        """Constant variables given ``∅`` alone, for an optimum only (:mod:`gobnilp_py.scoring.constants`).

        Such a table holds an optimal network, not every network within ε: each
        placement of a constant variable ties, and those variants were left out.
        """
        return tuple(str(x) for x in self.meta.get(ISOLATED_CONSTANTS_KEY) or ())

    @property
    def is_unpruned(self) -> bool:
        """True if no parent set was pruned (``prune=False``, or every rule removed nothing).

        Such a table holds every parent set (up to its parent limit), so it is
        safe for any gap.  A table of unknown provenance is not unpruned.
        """
        if self.approximate or self.isolated_constants:
            return False
        if self.meta.get("palim") == "auto":
            return False      # d_ε(v) depends on ε: the table is safe for its own ε only, pruned or not
        if self.meta.get("prune") is False:
            return True
        return bool(self.pruning) and not any(int(c) for rules in self.pruning.values() for c in rules.values())

    @property
    def safe_epsilon(self) -> float | None:
        """The largest gap ε the table is known to be safe for: ``inf`` if unpruned, ``None`` if unknown.

        A driver asked for every network within ε of the optimum must refuse
        (or label) a table with ``safe_epsilon < ε`` or ``None``; an
        approximate table is safe for no gap (``None``), nor is one with isolated constant variables.
        """
        if self.approximate or self.isolated_constants:
            return None
        if self.is_unpruned:
            return math.inf
        return self.epsilon

    @property
    def guarantee(self) -> str:
        """One human line: what the table is guaranteed to hold.

        Starts with ``exact:``, ``epsilon-safe:``, ``optimum:``, ``APPROXIMATE:`` or ``UNKNOWN:``.
        """
        palim = self.meta.get("palim")
        within = f" with at most {palim} parents" if palim is not None else ""
        inc = self.incomplete
        if inc is not None:
            cut = inc.get("truncated") or {}
            sizes = sorted({int(d) for d in cut.values()}) if isinstance(cut, dict) else []
            upto = (f"up to size {sizes[0]}" if len(sizes) == 1 else f"up to sizes {sizes[0]}-{sizes[-1]}") \
                if sizes else "up to the sizes scored"
            who = ("every variable keeps its parent sets" if len(cut) >= self.n else
                   f"{len(cut)} of {self.n} variables keep their parent sets")
            rest = "" if len(cut) >= self.n else " (the others all of theirs)"
            return (f"INCOMPLETE ({inc.get('reason', 'time_limit')}): scoring stopped while scoring parent sets of "
                    f"size {inc.get('stopped_at_size', '?')}; {who} only {upto}{rest}: networks may need parent "
                    "sets never scored, so nothing is known about the optimum, and results hold for the parent "
                    "sets scored only")
        if self.approximate:
            return ("APPROXIMATE: pruned by a rule that may drop parent sets of good networks; networks learned "
                    "from it carry no optimality guarantee")
        if self.isolated_constants:
            shown = ", ".join(repr(c) for c in self.isolated_constants)
            eps = f"within {self.epsilon:.6g} " if self.epsilon is not None else ""
            return (f"optimum: holds an optimal network (every parent set{within} of the other variables' networks "
                    f"{eps}of OPT); the constant variables {shown} are given no parents and no children, since "
                    "every placement of them scores the same")
        if self.is_unpruned:
            return f"exact: every parent set{within} is present (no pruning)"
        if self.epsilon is None:
            return ("UNKNOWN: the table does not say how it was pruned; results are exact for this table only, "
                    "not necessarily for the data")
        bf = math.exp(self.epsilon) if self.epsilon < 700 else math.inf
        return (f"epsilon-safe: holds every parent set{within} of every network with score >= OPT - "
                f"{self.epsilon:.6g} (Bayes factor {bf:.6g})")

    def _guarantee_kind(self) -> str:
        if self.approximate:
            return "approximate"
        if self.isolated_constants:
            return "optimum"
        if self.is_unpruned:
            return "exact"
        return "epsilon-safe" if self.epsilon is not None else "unknown"

    def subset(self, keep: Mapping[str, Sequence[Sequence[str]]] | None = None) -> "ScoreTable":
        """Copy of the table (optionally restricted to the given parent sets per child)."""
        fams = []
        for i, name in enumerate(self.names):
            if keep is None or name not in keep:
                fams.append(list(self.families[i]))
            else:
                allowed = {tuple(sorted(self.index(p) for p in ps)) for ps in keep[name]}
                fams.append([r for r in self.families[i] if r[0] in allowed])
        return ScoreTable(self.names, fams, epsilon=self.epsilon, score_name=self.score_name,
                          pruning=dict(self.pruning), meta=dict(self.meta))

    # -------------------------------------------------------------------- I/O
    def provenance_lines(self) -> list[str]:
        """The ``# gobnilp_py: key = value`` comment lines :meth:`to_jkl` writes after the scores."""
        from .._json import jsonable

        items: list[tuple[str, object]] = [
            ("written_by", f"gobnilp_py {__version__}"),
            ("score", self.score_name),
            ("epsilon", self.epsilon),
            ("guarantee", self._guarantee_kind()),
        ]
        for key in _PROVENANCE_META:
            if key in self.meta:
                items.append((key, self.meta[key]))
        data = self.meta.get("data", self.meta.get("source") if "N" in self.meta else None)
        if data is not None:
            items.append(("data", str(data)))
        if self.pruning:
            items.append(("pruning", self.pruning))
        head = [PROVENANCE_HEADER]
        return head + [f"{PROVENANCE_PREFIX} {k} = {json.dumps(jsonable(v), allow_nan=False)}" for k, v in items]

    def to_jkl(self, path: str | os.PathLike[str] | None = None) -> str:
        """Write GOBNILP's ``.jkl`` format; returns the text (and writes it atomically if ``path``).

        The scores are followed by provenance comment lines (see the module
        docstring), which :meth:`from_jkl` reads back; GOBNILP reads the file
        as it is.  Scores are written with 17 significant digits (``repr``), so
        a round trip is exact.
        """
        from .._validation import check_names_for

        try:
            check_names_for(self.names, ["jkl"], where="the .jkl file")
        except Exception as exc:
            raise ScoreError(str(exc)) from None
        lines = [str(self.n)]
        for i, fams in enumerate(self.families):
            lines.append(f"{self.names[i]} {len(fams)}")
            for ps, sc in fams:
                lines.append(" ".join([repr(sc), str(len(ps)), *self._names_of(ps)]))
        lines.extend(self.provenance_lines())
        text = "\n".join(lines) + "\n"
        if path is not None:
            from .._io import atomic_write_text

            atomic_write_text(path, text)
        return text

    @classmethod
    def from_jkl(cls, path: str | os.PathLike[str]) -> "ScoreTable":
        """Read a GOBNILP ``.jkl`` score file (parents given by name).

        Provenance comment lines written by :meth:`to_jkl` set ``epsilon``,
        ``score_name`` and ``meta``; without them ``epsilon`` is ``None``
        (pruning unknown).  Every error is one line naming the file (and the
        line): a missing file, a folder or device, binary data, a malformed
        line, a non-finite score or one with ``|score| >= 1e20``.
        """
        p = Path(path)
        shown = printable(p)
        raw = read_input_bytes(p, "score", ScoreError)
        text = decode_input_text(raw, "score", shown, ScoreError, note="; a .jkl score file is text")
        return cls.from_jkl_text(text, source=shown)

    @classmethod
    def from_jkl_text(cls, text: str, *, source: str = "<jkl>") -> "ScoreTable":
        """Parse ``.jkl`` text; see :meth:`from_jkl`."""
        provenance: dict[str, object] = {}
        lines: list[tuple[int, list[str]]] = []
        for no, ln in enumerate(text.splitlines(), 1):
            stripped = ln.strip()
            if stripped.startswith("#"):
                if stripped.startswith(PROVENANCE_PREFIX.replace(" ", "")) or stripped.startswith(PROVENANCE_PREFIX):
                    m = _PROVENANCE_RE.match(stripped)
                    if m is None:
                        raise ScoreError(f"{source}, line {no}: malformed provenance line; expected "
                                         f"'{PROVENANCE_PREFIX} key = <JSON value>'")
                    try:
                        provenance[m.group(1)] = json.loads(m.group(2), parse_constant=_refuse_constant)
                    except ValueError:
                        raise ScoreError(f"{source}, line {no}: provenance value of {m.group(1)!r} is not "
                                         f"valid JSON: {m.group(2)[:60]!r}") from None
                    except RecursionError:
                        raise ScoreError(f"{source}, line {no}: provenance value of {m.group(1)!r} is nested too "
                                         "deeply to be a provenance value") from None
                continue
            toks = ln.split()
            if toks:
                lines.append((no, toks))
        pos = 0

        def take(what: str) -> tuple[int, list[str]]:
            nonlocal pos
            if pos >= len(lines):
                raise ScoreError(f"{source}: file ends early, expected {what}")
            pos += 1
            return lines[pos - 1]

        def as_int(tok: str, no: int, what: str) -> int:
            try:
                v = int(tok)
            except ValueError:
                raise ScoreError(f"{source}, line {no}: expected {what} (an integer), got "
                                 f"{excerpt(tok, 12 if pos == 1 else 40)}") from None
            if v < 0:
                raise ScoreError(f"{source}, line {no}: {what} must be >= 0, got {v}")
            return v

        def is_number(tok: str) -> bool:
            try:
                float(tok)
            except ValueError:
                return False
            return True

        no, toks = take("the number of variables")
        if len(toks) != 1:
            raise ScoreError(f"{source}, line {no}: expected the number of variables alone on the line")
        n = as_int(toks[0], no, "the number of variables")
        if n == 0:
            raise ScoreError(f"{source}, line {no}: the file declares 0 variables; a score table needs at least one")
        blocks: list[tuple[str, int, list[tuple[list[str], float]]]] = []
        for vi in range(n):
            no, toks = take(f"a 'name count' header (variable {vi + 1} of {n})")
            if len(toks) != 2 or (is_number(toks[0]) and blocks and not toks[1].lstrip("-").isdigit()):
                hint = ""
                if blocks and toks and is_number(toks[0]):
                    prev_name, prev_no, prev_rows = blocks[-1]
                    hint = (f"; this looks like a parent set line: does the count on line {prev_no} "
                            f"({len(prev_rows)}) match the lines listed for {prev_name!r}?")
                raise ScoreError(f"{source}, line {no}: expected 'name count' (variable {vi + 1} of {n}), "
                                 f"got {' '.join(toks)[:80]!r}{hint}")
            name, k = toks[0], as_int(toks[1], no, "the number of parent sets")
            head_no = no
            rows = []
            for j in range(k):
                no, toks = take(f"parent set {j + 1} of {k} for {name!r} (count on line {head_no})")
                if not is_number(toks[0]):
                    looks_like_header = len(toks) == 2 and toks[1].isdigit()
                    hint = (f"; it looks like the next variable's header: the count {k} on line {head_no} is "
                            f"larger than the {j} parent sets listed for {name!r}") if looks_like_header else ""
                    raise ScoreError(f"{source}, line {no}: score {toks[0][:40]!r} is not a number{hint}")
                sc = float(toks[0])
                if not abs(sc) < MAX_ABS_SCORE:
                    raise ScoreError(f"{source}, line {no}: score {toks[0][:40]!r} is not a finite number with "
                                     f"|score| < {MAX_ABS_SCORE:g}")
                if len(toks) < 2:
                    raise ScoreError(f"{source}, line {no}: expected 'score m parent1 .. parentm', got only a score")
                m = as_int(toks[1], no, "the parent count")
                if len(toks) != 2 + m:
                    raise ScoreError(
                        f"{source}, line {no}: expected 'score m parent1 .. parentm' with m={m}, "
                        f"got {len(toks) - 2} parent name(s)")
                rows.append((toks[2:], sc))
            blocks.append((name, head_no, rows))
        if pos != len(lines):
            raise ScoreError(f"{source}, line {lines[pos][0]}: unexpected text after the last variable "
                             f"(the file declares {n} variables)")
        names = [b[0] for b in blocks]
        for name, head_no, _rows in blocks:
            if has_control(name):
                raise ScoreError(f"{source}, line {head_no}: variable name {excerpt(name)} contains a control "
                                 "character (an escape sequence); names are printed, so they must be plain text")
        if len(set(names)) != len(names):
            raise ScoreError(f"{source}: duplicate variable names {_dupes(names)}")
        idx = {nm: i for i, nm in enumerate(names)}
        families = []
        for name, _no, rows in blocks:
            fams = []
            for parents, sc in rows:
                unknown = [p for p in parents if p not in idx]
                if unknown:
                    raise ScoreError(f"{source}: parent {unknown[0]!r} of {name!r} is not a variable of the file")
                fams.append((tuple(idx[p] for p in parents), sc))
            families.append(fams)
        epsilon, score_name, pruning, meta = _from_provenance(provenance, source)
        try:
            table = cls(names, families, epsilon=epsilon, score_name=score_name, pruning=pruning, meta=meta)
        except ScoreError as exc:
            raise ScoreError(f"{source}: {exc}") from None
        for c in table.isolated_constants:
            if c not in table._index or [ps for ps, _ in table.families[table._index[c]]] != [()]:
                raise ScoreError(f"{source}: provenance isolated_constants names {c!r}, which is not a variable "
                                 "with the empty parent set alone")
        return table


def _refuse_constant(token: str) -> Any:
    """``NaN``/``Infinity`` are not JSON (the writer never writes them): a provenance value holding one is refused."""
    raise ValueError(f"non-standard JSON constant {token}")


def _from_provenance(prov: dict[str, object], source: str
                     ) -> tuple[float | None, str | None, dict[str, dict[str, int]], dict[str, object]]:
    """(epsilon, score_name, pruning, meta) from the parsed provenance lines (empty: all unknown)."""
    meta: dict[str, object] = {"source": source}
    if not prov:
        return None, None, {}, meta
    eps = prov.get("epsilon")
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps >= 0):
        raise ScoreError(f"{source}: provenance epsilon must be a number >= 0 or null, got {eps!r}")
    name = prov.get("score")
    if name is not None and not isinstance(name, str):
        raise ScoreError(f"{source}: provenance score must be a string or null, got {name!r}")
    pruning = prov.get("pruning") or {}
    if not isinstance(pruning, dict):
        raise ScoreError(f"{source}: provenance pruning must be a JSON object, got {pruning!r}")
    kind = prov.get("guarantee")
    if kind not in (None, "exact", "epsilon-safe", "optimum", "approximate", "unknown"):
        raise ScoreError(f"{source}: provenance guarantee {kind!r} is not one of exact, epsilon-safe, optimum, "
                         "approximate, unknown")
    iso = prov.get(ISOLATED_CONSTANTS_KEY)
    if iso is not None and not (isinstance(iso, list) and all(isinstance(x, str) for x in iso)):
        raise ScoreError(f"{source}: provenance isolated_constants must be a list of variable names, got {iso!r}")
    if (kind == "optimum") != bool(iso):
        raise ScoreError(f"{source}: provenance guarantee {kind!r} does not match isolated_constants {iso!r}")
    lb = prov.get("lower_bound")
    if lb is not None and (isinstance(lb, bool) or not isinstance(lb, (int, float)) or not math.isfinite(lb)):
        raise ScoreError(f"{source}: provenance lower_bound must be a finite number or null, got {lb!r}")
    for key, value in prov.items():
        if key not in ("epsilon", "score", "pruning", "guarantee"):
            meta[key] = value
    if kind == "approximate":
        meta["approximate"] = True
    meta["provenance"] = True
    return (None if eps is None else float(eps)), name, {str(k): dict(v) for k, v in pruning.items()}, meta


def _dupes(names: Sequence[str]) -> str:
    seen: set[str] = set()
    d = []
    for x in names:
        if x in seen and x not in d:
            d.append(x)
        seen.add(x)
    return ", ".join(repr(x) for x in d)
