"""Deprecated alias of :mod:`gobnilp_py.app.compare` (moved by the application-layer redesign, issue 43).

``import gobnilp_py.compare`` keeps working for one release and gives the very same module object (private
names and monkeypatching included); new code imports :mod:`gobnilp_py.app.compare`.
"""

import sys

from .app import compare as _module

sys.modules[__name__] = _module
