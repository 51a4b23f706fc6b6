"""The documentation runs: every command and Python example in README.md and docs/*.md.

Why: the figures a user reads first (``502 networks in 107 equivalence classes``) went
stale once already (issue 11).  This test executes every fenced code block of the
README and of every ``docs/*.md`` file and compares the output the text claims.

Block kinds (the fence's info string decides):

``python``
    With ``>>>`` prompts: run by :mod:`doctest` (``ELLIPSIS`` and
    ``NORMALIZE_WHITESPACE``), so every output shown is checked.  Without prompts:
    executed; it must not raise (its ``assert`` statements are the checks).
``console``
    Lines ``$ gobnilp-py ARGS`` are commands; the lines after one, up to the next
    ``$``, are the output it claims, compared like a doctest (``...`` matches
    anything).  A command that exits 0 is compared on stdout; one that fails is
    compared on stderr (documented error messages).
``bash``
    Every line is a ``gobnilp-py`` command (``\\`` continuations joined, ``#``
    comments dropped) that must exit 0.  Any other command in an unmarked block
    fails the test: mark the block instead.
anything else (``toml``, ``text``, none)
    Data or file excerpts, not executed.

A block that cannot run in CI (installs packages, needs ``../shared``, takes
minutes) is preceded by ``<!-- norun: reason -->``; the reason must be non-empty.
Everything else must run: :func:`test_every_runnable_block_ran` checks that the
runnable blocks found equal the blocks executed.

Each Markdown file runs in its own temporary folder holding copies of the
shipped ``configs/`` and ``tests/data/`` and a link to the package folder (a fresh clone's files, never
``../shared``); its blocks run in order and share one Python namespace and one
folder, so a later block may use what an earlier one made.  Commands run as
``python -m gobnilp_py`` with this checkout first on ``PYTHONPATH``.  Nothing a
block writes may land in the checkout: the files of the clone are listed before
and after each Markdown file (Python's and numba's ``__pycache__`` aside) and must
be the same.  A block may register a score (``docs/api.md`` registers ``HalfBIC``); the
registry is put back as it was after each Markdown file, so the order tests run in never matters.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = {"python", "console", "bash"}
NORUN = re.compile(r"<!--\s*norun:\s*(.*?)\s*-->")
FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)")
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
TIMEOUT = 240


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    norun: str | None  # the reason, when marked

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with the norun mark that precedes each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(1), m.group(2).lower()
        j = i + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        if j >= len(lines):
            raise AssertionError(f"{path.name}:{i + 1}: unclosed code fence")
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = NORUN.search(lines[k]) if k >= 0 else None
        out.append(Block(path, i + 1, lang, "\n".join(lines[i + 1:j]) + "\n", mark.group(1) if mark else None))
        i = j + 1
    return out


ALL_BLOCKS = [b for p in DOC_FILES for b in blocks_of(p)]
EXECUTED: set[str] = set()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["COLUMNS"] = "200"
    env.pop("GOBNILP_DATA", None)
    return env


def _gobnilp(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(command, comments=True)
    assert argv and argv[0] == "gobnilp-py", f"not a gobnilp-py command: {command!r}"
    return subprocess.run([sys.executable, "-m", "gobnilp_py", *argv[1:]], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=TIMEOUT)


def _compare(block: Block, what: str, want: str, got: str) -> None:
    checker = doctest.OutputChecker()
    if not checker.check_output(want, got, OPTIONS):
        raise AssertionError(f"{block.id}: {what}: output differs from the documentation\n"
                             f"--- documented\n{want}--- actual\n{got}")


def _join_continuations(text: str) -> list[str]:
    out: list[str] = []
    buf = ""
    for raw in text.splitlines():
        if raw.rstrip().endswith("\\"):
            buf += raw.rstrip()[:-1] + " "
            continue
        out.append(buf + raw)
        buf = ""
    if buf:
        out.append(buf)
    return out


def run_bash(block: Block, cwd: Path) -> None:
    for line in _join_continuations(block.text):
        cmd = line.strip()
        if not cmd or cmd.startswith("#"):
            continue
        p = _gobnilp(cmd, cwd)
        assert p.returncode == 0, f"{block.id}: `{cmd}` exited {p.returncode}:\n{p.stderr[-2000:]}"


def run_console(block: Block, cwd: Path) -> None:
    cmd: str | None = None
    want: list[str] = []
    items: list[tuple[str, str]] = []
    for line in _join_continuations(block.text):
        if line.startswith("$ "):
            if cmd is not None:
                items.append((cmd, "\n".join(want) + "\n" if want else ""))
            cmd, want = line[2:].strip(), []
        else:
            assert cmd is not None, f"{block.id}: console block must start with '$ gobnilp-py ...'"
            want.append(line)
    assert cmd is not None, f"{block.id}: console block without a command"
    items.append((cmd, "\n".join(want) + "\n" if want else ""))
    for cmd, want_text in items:
        p = _gobnilp(cmd, cwd)
        got = p.stdout if p.returncode == 0 else p.stderr
        if want_text.strip():
            _compare(block, f"`{cmd}` (exit {p.returncode})", want_text, got)
        else:
            assert p.returncode == 0, f"{block.id}: `{cmd}` exited {p.returncode}:\n{p.stderr[-2000:]}"


def run_python(block: Block, namespace: dict) -> None:
    if ">>>" in block.text:
        parser = doctest.DocTestParser()
        test = parser.get_doctest(block.text, namespace, block.id, str(block.path), block.line)
        runner = doctest.DocTestRunner(optionflags=OPTIONS)
        out: list[str] = []
        runner.run(test, out=out.append, clear_globs=False)
        namespace.update(test.globs)  # DocTest works on a copy; later blocks see these names
        assert runner.failures == 0, f"{block.id}: doctest failed\n" + "".join(out)
    else:
        code = compile(block.text, block.id, "exec")
        exec(code, namespace)  # noqa: S102 - executing our own documentation is the point


def _workdir(tmp: Path) -> Path:
    shutil.copytree(ROOT / "configs", tmp / "configs", ignore=shutil.ignore_patterns("out"))
    (tmp / "tests").mkdir()
    shutil.copytree(ROOT / "tests" / "data", tmp / "tests" / "data")
    (tmp / "gobnilp_py").symlink_to(ROOT / "gobnilp_py", target_is_directory=True)  # configs may name it
    return tmp


FILES_WITH_RUNNABLE = [p for p in DOC_FILES if any(b.lang in RUNNABLE and b.norun is None for b in blocks_of(p))]


#: Folders of caches, not of the project: Python's and numba's bytecode, test tools' state.
_CACHES = {"__pycache__", ".git", ".hypothesis", ".pytest_cache"}


def _clone_files() -> set[str]:
    """Every file of the checkout (caches aside), relative to it."""
    out: set[str] = set()
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in _CACHES]
        out.update(os.path.relpath(os.path.join(folder, f), ROOT) for f in files)
    return out


def _score_registry() -> tuple[dict, dict]:
    """Copies of the score registry's two tables (names, aliases)."""
    from gobnilp_py.scoring.local_scores import SCORE_ALIASES, SCORES

    return dict(SCORES), dict(SCORE_ALIASES)


@pytest.mark.parametrize("path", FILES_WITH_RUNNABLE, ids=lambda p: str(p.relative_to(ROOT)))
def test_doc_file_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _clone_files()
    registry = _score_registry()
    _run_doc_file(path, tmp_path, monkeypatch)
    assert sorted(_clone_files() - before) == [], f"{path.name}: examples wrote files into the checkout"
    assert _score_registry() == registry, f"{path.name}: a score registered by an example was left registered"


def _run_doc_file(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the file's blocks in order; the score registry is restored afterwards, even on failure."""
    from gobnilp_py.scoring.local_scores import SCORE_ALIASES, SCORES

    scores, aliases = _score_registry()
    try:
        _run_blocks(path, tmp_path, monkeypatch)
    finally:
        SCORES.clear()
        SCORES.update(scores)
        SCORE_ALIASES.clear()
        SCORE_ALIASES.update(aliases)


def _run_blocks(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cwd = _workdir(tmp_path)
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("GOBNILP_DATA", raising=False)
    namespace: dict = {"__name__": "__docs__"}
    for block in blocks_of(path):
        if block.lang not in RUNNABLE or block.norun is not None:
            continue
        if block.lang == "python":
            run_python(block, namespace)
        elif block.lang == "console":
            run_console(block, cwd)
        else:
            run_bash(block, cwd)
        EXECUTED.add(block.id)


def test_norun_marks_give_a_reason() -> None:
    for b in ALL_BLOCKS:
        if b.norun is not None:
            assert b.norun, f"{b.id}: <!-- norun: ... --> needs a reason"
            assert b.lang in RUNNABLE, f"{b.id}: norun mark on a block that would not run anyway ({b.lang!r})"


def test_docs_never_point_outside_the_repository() -> None:
    """Paths in runnable blocks work from a fresh clone: no ``../shared``."""
    for b in ALL_BLOCKS:
        if b.lang in RUNNABLE and b.norun is None:
            assert "../shared" not in b.text and "/work/" not in b.text, f"{b.id}: path outside the repository"


def test_every_runnable_block_ran() -> None:
    """Runs last (file order): every unmarked runnable block was executed above."""
    want = {b.id for b in ALL_BLOCKS if b.lang in RUNNABLE and b.norun is None}
    if not EXECUTED and want:
        pytest.skip("the per-file tests did not run in this session (selected separately)")
    missing = sorted(want - EXECUTED)
    assert not missing, f"runnable blocks that did not run: {missing}"


def test_api_documents_every_public_name() -> None:
    """docs/api.md has a heading or entry naming every name in ``gobnilp_py.__all__``."""
    import gobnilp_py

    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^#{2,4} `([A-Za-z_][\w.]*)", text, flags=re.M))
    missing = [n for n in gobnilp_py.__all__ if n not in documented]
    assert not missing, f"docs/api.md has no '### `NAME`' entry for: {missing}"
