"""The package's version, declared once.

Why a module of its own: ``pyproject.toml`` reads it (``[tool.setuptools.dynamic]``) and every
module that records it (table files, run folders, the command line) imports it from here, so no
lower layer has to import the package's top ``__init__`` for one string.
"""

__version__ = "0.1.0"
