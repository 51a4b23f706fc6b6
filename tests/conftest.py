"""Test-suite settings shared by every file.

Hypothesis runs **derandomized** (the examples are a function of the test
alone), so a CI run is reproducible: a failure seen once is seen again on the
same commit, and a green run is not luck.  Exploration of new examples is
still available on demand: ``HYPOTHESIS_PROFILE=explore python -m pytest``.
Deadlines are off: the machines are shared, and a slow example under load is
not a failure (speed is measured by the benchmarks, never by tests).

Nothing is left in the system's temporary folder: the session points ``TMPDIR``
(and :data:`tempfile.tempdir`, for this process) at a folder under pytest's own
base temporary folder, which subprocesses inherit, and fails at the end if
anything is left in it (a crash log of a test that provokes an internal error,
a scratch folder of a cluster started without its own directory).  pytest
keeps the base folders of the last few sessions and removes older ones.

Ctrl-C is given its default meaning for the whole session.  A suite started
in the background by a non-interactive shell (``nohup ... &``, some CI
runners) inherits SIGINT *ignored*; the command line, by design, leaves an
ignored signal ignored, and so would every subprocess the tests start.  The
signal tests check what a user at a terminal gets, so they need SIGINT
delivered: with a Python handler installed here, each child's ``exec`` resets
it to the default action.
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session", autouse=True)
def _private_temp_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The session's temporary files go to a folder of its own, which must be empty at the end."""
    folder = tmp_path_factory.mktemp("system-temp")
    old_env, old_dir = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = str(folder)
    try:
        yield folder
    finally:
        tempfile.tempdir = old_dir
        if old_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_env
    # multiprocessing's pymp-* folder of this process goes when the interpreter exits
    left = sorted(p.name for p in folder.iterdir() if not p.name.startswith("pymp-"))
    assert not left, f"tests left files in the temporary folder {folder}: {left}"
