"""A figure as plain data: plotly's JSON (traces and layout as dictionaries), without
plotly's objects.

The figure builders that the privacy report shares with the app write their traces and
layout as plain dictionaries of plotly's schema; the app makes a ``go.Figure`` of them
(:func:`~lmdk_core.figures.common.plain_figure`, the same figure as before), the report
draws them as static SVG (:func:`lmdk_core.report.svg.figure_svg`) without importing
plotly at all (its import and objects were a quarter of a report's CPU time).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = ["FigureSpec"]


@dataclass
class FigureSpec:
    """Traces (``data``: one dict per trace, with its ``type``) and ``layout``, as
    plotly's ``to_plotly_json`` writes a figure (arrays may stay numpy arrays)."""

    data: list[dict] = field(default_factory=list)
    layout: dict = field(default_factory=dict)

    def figure(self) -> go.Figure:
        """The plotly figure of these dictionaries (not validated again:
        :func:`~lmdk_core.figures.common.plain_figure`)."""
        from lmdk_core.figures.common import plain_figure

        return plain_figure(self.data, self.layout)
