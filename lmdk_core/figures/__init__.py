"""Figure builders: engine results in, plotly figures out (no streamlit here).

One module per page: :mod:`.timeline`, :mod:`.map`, :mod:`.compare`, :mod:`.leakage`,
:mod:`.dummies`, :mod:`.learn`, :mod:`.choose` (Choose ε) and :mod:`.population`;
:mod:`.common` holds what they share (colours, hover labels, decimation for display).
The names below are re-exported for ``from lmdk_core.figures import …``.
"""

from lmdk_core.figures.common import COLORS, decimate_figure, display_values, hover_labels
from lmdk_core.figures.timeline import timeline_figure

__all__ = ["COLORS", "decimate_figure", "display_values", "hover_labels", "timeline_figure"]
