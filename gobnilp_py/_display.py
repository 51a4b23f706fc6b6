"""Notebook pictures for the value classes, plugged in from above.

Why a hook: :class:`~gobnilp_py.network.Network` and
:class:`~gobnilp_py.equivalence.CPDAG` answer Jupyter's ``_repr_svg_``, but the
pictures (:mod:`gobnilp_py.drawing`) are drawn by a layer that itself reads
networks and computes CPDAGs.  The value classes ask this module for a renderer
by name; the package installs :mod:`gobnilp_py.drawing.notebook`'s functions
when ``gobnilp_py`` loads (imported only when a picture is asked for), so no
value class imports the drawing layer and the two never form an import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["set_renderer", "render"]

_RENDERERS: dict[str, Callable[..., str | None]] = {}


def set_renderer(kind: str, renderer: Callable[..., str | None]) -> None:
    """Install the renderer of ``kind`` (``"network_svg"``, ``"cpdag_svg"``)."""
    _RENDERERS[kind] = renderer


def render(kind: str, obj: Any, **options: Any) -> str | None:
    """``obj`` drawn by the renderer of ``kind`` (with its ``options``); ``None`` (the text ``repr`` is
    shown) when none is installed."""
    renderer = _RENDERERS.get(kind)
    return None if renderer is None else renderer(obj, **options)
