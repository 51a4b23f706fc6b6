"""Test-suite settings shared by every file.

Hypothesis runs **derandomized** (the examples are a function of the test
alone), so a CI run is reproducible: a failure seen once is seen again on the
same commit, and a green run is not luck.  Exploration of new examples is
still available on demand: ``HYPOTHESIS_PROFILE=explore python -m pytest``.
Deadlines are off: the machines are shared, and a slow example under load is
not a failure (speed is measured by the benchmarks, never by tests).

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

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
