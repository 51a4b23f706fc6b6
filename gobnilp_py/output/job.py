"""Deprecated alias of :mod:`gobnilp_py.app.runner` (moved by the application-layer redesign, issue 43).

``import gobnilp_py.output.job`` keeps working for one release and gives the very same module object (private
names and monkeypatching included); new code imports :mod:`gobnilp_py.app.runner`.
"""

import sys

from ..app import runner as _module

sys.modules[__name__] = _module
