"""The table of candidate parent sets ("family variables") with their local scores.

A :class:`ScoreTable` is the hand-over between the scoring layer and the ILP:
for every variable (the *child*) it holds the candidate parent sets that
survived pruning, each with its local score (natural log, higher is better).
Parent sets are stored internally as sorted tuples of variable *indices* (the
solver's view) and shown to users by *name*.

``epsilon`` records the gap the table is safe for: every parent set used by a
network with score >= OPT - epsilon is present.  A table read from a ``.jkl``
file carries ``epsilon=None`` (unknown) because the file does not say how it
was pruned.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ScoreError

__all__ = ["ScoreTable", "Family"]


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
                if math.isnan(sc) or sc == math.inf:
                    raise ScoreError(f"score {sc} of {self.names[i]!r}<-{self._label(ps)} is not a finite number")
                seen.add(ps)
                rows.append((ps, sc))
            if not rows:
                raise ScoreError(f"variable {self.names[i]!r} has no candidate parent set")
            rows.sort(key=lambda r: (-r[1], len(r[0]), r[0]))
            cleaned.append(rows)
        self.families = cleaned
        self._index = {name: i for i, name in enumerate(self.names)}

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
    def to_jkl(self, path: str | os.PathLike[str] | None = None) -> str:
        """Write GOBNILP's ``.jkl`` format; returns the text (and writes it atomically if ``path``).

        Scores are written with 17 significant digits (``repr``), so a round
        trip through :meth:`from_jkl` is exact, far inside the 1e-8 promise.
        """
        lines = [str(self.n)]
        for i, fams in enumerate(self.families):
            lines.append(f"{self.names[i]} {len(fams)}")
            for ps, sc in fams:
                lines.append(" ".join([repr(sc), str(len(ps)), *self._names_of(ps)]))
        text = "\n".join(lines) + "\n"
        if path is not None:
            from .._io import atomic_write_text

            atomic_write_text(path, text)
        return text

    @classmethod
    def from_jkl(cls, path: str | os.PathLike[str]) -> "ScoreTable":
        """Read a GOBNILP ``.jkl`` score file (parents given by name).

        Errors name the file and line.  The result has ``epsilon=None``:
        the file does not record how it was pruned.
        """
        p = Path(path)
        try:
            text = p.read_text()
        except OSError as exc:
            raise ScoreError(f"cannot read score file {p}: {exc.strerror or exc}") from None
        return cls.from_jkl_text(text, source=str(p))

    @classmethod
    def from_jkl_text(cls, text: str, *, source: str = "<jkl>") -> "ScoreTable":
        """Parse ``.jkl`` text; see :meth:`from_jkl`."""
        lines = [(no, ln.split()) for no, ln in enumerate(text.splitlines(), 1)]
        lines = [(no, toks) for no, toks in lines if toks and not toks[0].startswith("#")]
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
                raise ScoreError(f"{source}, line {no}: expected {what} (an integer), got {tok!r}") from None
            if v < 0:
                raise ScoreError(f"{source}, line {no}: {what} must be >= 0, got {v}")
            return v

        no, toks = take("the number of variables")
        if len(toks) != 1:
            raise ScoreError(f"{source}, line {no}: expected the number of variables alone on the line")
        n = as_int(toks[0], no, "the number of variables")
        blocks: list[tuple[str, int, list[tuple[list[str], float]]]] = []
        for _ in range(n):
            no, toks = take("a 'name count' header")
            if len(toks) != 2:
                raise ScoreError(f"{source}, line {no}: expected 'name count', got {' '.join(toks)!r}")
            name, k = toks[0], as_int(toks[1], no, "the number of parent sets")
            rows = []
            for _ in range(k):
                no, toks = take(f"a parent set line for {name!r}")
                try:
                    sc = float(toks[0])
                except ValueError:
                    raise ScoreError(f"{source}, line {no}: score {toks[0]!r} is not a number") from None
                m = as_int(toks[1], no, "the parent count") if len(toks) > 1 else -1
                if len(toks) != 2 + m:
                    raise ScoreError(
                        f"{source}, line {no}: expected 'score m parent1 .. parentm' with m={m}, got {len(toks) - 2} parents")
                rows.append((toks[2:], sc))
            blocks.append((name, no, rows))
        if pos != len(lines):
            raise ScoreError(f"{source}, line {lines[pos][0]}: unexpected text after the last variable")
        names = [b[0] for b in blocks]
        if len(set(names)) != len(names):
            raise ScoreError(f"{source}: duplicate variable names {_dupes(names)}")
        idx = {nm: i for i, nm in enumerate(names)}
        families = []
        for name, no, rows in blocks:
            fams = []
            for parents, sc in rows:
                unknown = [p for p in parents if p not in idx]
                if unknown:
                    raise ScoreError(f"{source}: parent {unknown[0]!r} of {name!r} is not a variable of the file")
                fams.append((tuple(idx[p] for p in parents), sc))
            families.append(fams)
        try:
            return cls(names, families, epsilon=None, meta={"source": source})
        except ScoreError as exc:
            raise ScoreError(f"{source}: {exc}") from None


def _dupes(names: Sequence[str]) -> str:
    seen: set[str] = set()
    d = []
    for x in names:
        if x in seen and x not in d:
            d.append(x)
        seen.add(x)
    return ", ".join(repr(x) for x in d)
