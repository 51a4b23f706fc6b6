"""Test-suite settings shared by every file.

Hypothesis runs **derandomized** (the examples are a function of the test
alone), so a CI run is reproducible: a failure seen once is seen again on the
same commit, and a green run is not luck.  Exploration of new examples is
still available on demand: ``HYPOTHESIS_PROFILE=explore python -m pytest``.
Deadlines are off: the machines are shared, and a slow example under load is
not a failure (speed is measured by the benchmarks, never by tests).
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
