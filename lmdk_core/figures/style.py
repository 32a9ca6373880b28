"""The one chart style of the explorer: colours, font, dates, legend, toolbar, axis names.

Both chart libraries take their look from here — plotly (Timeline, Compare, Leakage,
Population, Choose ε, Learn, the report) through :func:`plotly_layout` /
:data:`PLOTLY_CONFIG`, and Vega-Lite (the Map's panels) through :func:`vega_config` and
:func:`vega_date_axis` — so a chart reads the same on every page. The rules are written
out in ``docs/chart-style.md``.

* **Colours** (:data:`COLORS`) are the Okabe–Ito palette (Okabe & Ito, "Color Universal
  Design", 2008), distinguishable under red/green colour blindness. Colour is never the
  only cue: landmarks are also stars (data) or hatched bars (ε_t), approximations open
  circles or crosses, the leakage curves dotted (TPL) and solid (landmark TPL), the ε
  reference dashed. Regular ε_t bars are light (sky blue), landmark bars dark
  (vermillion, hatched), so the two differ in grey too.
* **Dates** on a time axis never carry the year in a tick label (a long first label
  was clipped at the left edge of a phone screen) and stay short enough not to be
  slanted on a phone: hours as ``03:00`` with the day under them, days as ``05 Mar``
  (:data:`DATE_TICK_FORMATS`); hover labels say the full time (``Tue 05 Mar 03:00``).
* **Legend** below the panels, left-aligned, horizontal; panel titles left-aligned.
* **Toolbar** (plotly's mode bar): shown on hover, without the buttons nobody needs
  here, in a band of its own above the titles (:data:`TOOLBAR_BAND`), so it never
  covers a title on a phone.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "AXIS_TITLES",
    "COLORS",
    "DATE_HOVER_FORMAT",
    "DATE_TICK_FORMATS",
    "FONT",
    "LANDMARK_BAR_PATTERN",
    "PLOTLY_CONFIG",
    "SCHEME_COLORS",
    "VERDICT_COLORS",
    "TITLE_FONT_SIZE",
    "TOOLBAR_BAND",
    "rgba",
    "left_titles",
    "legend_below",
    "plotly_date_axis",
    "plotly_layout",
    "plotly_title",
    "vega_config",
    "vega_date_axis",
]

#: the colour of each kind of thing drawn, on every chart (Okabe–Ito palette)
COLORS: dict[str, str] = {
    "original": "#6e6e6e",      # grey: the raw data
    "released": "#0072b2",      # blue: released values
    "landmark": "#d55e00",      # vermillion: landmarks (with a star / hatching)
    "approximated": "#e69f00",  # orange: nothing spent, last release repeated
    "regular": "#56b4e9",       # sky blue: ε_t of a regular timestamp (light in grey)
    "epsilon": "#000000",       # black, dashed: the ε reference
    "tpl": "#cc79a7",           # reddish purple, dotted: TPL
    "landmark_tpl": "#d55e00",  # vermillion, solid: landmark TPL
    "total": "#009e73",         # bluish green, step line: landmarks + this timestamp
    "bpl": "#0072b2",           # blue, dashed: backward privacy leakage
    "fpl": "#e69f00",           # orange, dash-dotted: forward privacy leakage
}

#: one colour per scheme where schemes are compared (Compare's error chart, Choose ε),
#: each also with its own dash there
SCHEME_COLORS: dict[str, str] = {
    "uniform": "#0072b2", "skip": "#e69f00", "adaptive": "#009e73", "w-event": "#cc79a7",
    "user": "#d55e00", "event": "#6e6e6e",
}
#: the verdict's colours (always with its words: private / only if independent / not)
VERDICT_COLORS: dict[str, str] = {"green": "#009e73", "amber": "#e69f00", "red": "#d55e00",
                                  "grey": "#8c8c8c"}

#: one font everywhere (the app's own sans-serif stack), dark grey text
FONT: dict = {"family": "\"Source Sans Pro\", \"Source Sans 3\", sans-serif", "size": 12,
              "color": "#262730"}
#: panel titles: left-aligned, this size
TITLE_FONT_SIZE = 13

#: the hatching of landmark ε_t bars (plotly ``marker.pattern``; Vega-Lite draws a star
#: on each landmark bar instead, it has no fill patterns)
LANDMARK_BAR_PATTERN: dict = {"shape": "/", "fillmode": "overlay", "fgcolor": "#000000",
                              "size": 4, "solidity": 0.25}

#: the axis titles every chart uses for the same quantity
AXIS_TITLES: dict[str, str] = {
    "time": "time",
    "index": "t",
    "value": "value",
    "budget": "ε_t",
    "leakage": "leakage (ε units)",
    "displacement": "displacement (m)",
}

#: tick labels of a date axis by tick spacing (plotly ``tickformatstops``, d3 formats):
#: (smallest spacing in ms or None, largest or None, format). No year in any tick.
DATE_TICK_FORMATS: tuple[tuple[int | None, int | None, str], ...] = (
    (None, 60_000, "%H:%M:%S"),
    (60_000, 86_400_000 - 1, "%H:%M\n%d %b"),  # plotly's ranges include both ends
    (86_400_000, None, "%d %b"),
)
#: a timestamp in a hover label (the year stays out: the page says the data's range)
DATE_HOVER_FORMAT = "%a %d %b %H:%M"
#: the tick labels of a date axis whose data span more than one calendar year: the
#: year on the second line (short lines: the first label still fits on a phone)
DATE_TICK_FORMATS_YEARS: tuple[tuple[int | None, int | None, str], ...] = (
    (None, 60_000, "%H:%M:%S\n%d %b %Y"),
    (60_000, 86_400_000 - 1, "%H:%M\n%d %b %Y"),
    (86_400_000, 28 * 86_400_000 - 1, "%d %b\n%Y"),
    (28 * 86_400_000, None, "%b\n%Y"),
)
#: a hover label's timestamp when the data span more than one calendar year
DATE_HOVER_FORMAT_YEARS = "%a %d %b %Y %H:%M"


def spans_years(time) -> bool:
    """True when datetimes ``time`` fall in more than one calendar year (their labels
    then carry the year: docs/chart-style.md)."""
    t = np.asarray(time, dtype="datetime64[ns]")
    t = t[~np.isnat(t)]
    return bool(t.size) and t.min().astype("datetime64[Y]") != t.max().astype("datetime64[Y]")


def date_hover_format(years: bool = False) -> str:
    """The hover format of a timestamp: :data:`DATE_HOVER_FORMAT`, with the year when
    the data span years."""
    return DATE_HOVER_FORMAT_YEARS if years else DATE_HOVER_FORMAT

#: plotly's mode bar: shown on hover, few buttons, no logo
PLOTLY_CONFIG: dict = {
    "displaylogo": False,
    "displayModeBar": "hover",
    # zoom, pan, box and lasso select (the Timeline marks landmarks with them), zoom
    # in/out, reset, download; not autoscale, spike lines or the hover-mode toggles
    "modeBarButtonsToRemove": ["autoScale2d", "toggleSpikelines",
                               "hoverClosestCartesian", "hoverCompareCartesian"],
    "responsive": True,
}
#: pixels above the first panel's title kept free for the mode bar (~28 px tall)
TOOLBAR_BAND = 30
#: pixels of a (left-aligned) panel title line
_TITLE_LINE = 22


def rgba(hex_color: str, alpha: float) -> str:
    """A palette colour with transparency, for filled bands."""
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def legend_below(y: float = -0.06) -> dict:
    """The legend: below the panels, horizontal, left-aligned."""
    return {"orientation": "h", "yanchor": "top", "y": y, "x": 0, "xanchor": "left",
            "font": {"size": FONT["size"]}}


def plotly_date_axis(years: bool = False) -> dict:
    """The settings of a plotly date axis: the tick formats of :data:`DATE_TICK_FORMATS`
    (:data:`DATE_TICK_FORMATS_YEARS` when the data span ``years``) and ticks that stay
    inside the plot (``ticklabeloverflow``)."""
    stops = DATE_TICK_FORMATS_YEARS if years else DATE_TICK_FORMATS
    return {"tickformatstops": [{"dtickrange": [lo, hi], "value": fmt}
                                for lo, hi, fmt in stops],
            "hoverformat": date_hover_format(years), "automargin": True}


def plotly_layout(*, titles: bool = True, legend_y: float = -0.06, left: int = 60,
                  bottom: int = 40) -> dict:
    """The layout keys every plotly chart shares: font, white background, legend below,
    and a top margin that keeps the mode bar above the (left-aligned) panel titles
    (``titles``) or above the plot area."""
    top = TOOLBAR_BAND + (_TITLE_LINE if titles else 4)
    return {"font": dict(FONT), "paper_bgcolor": "#ffffff", "plot_bgcolor": "#ffffff",
            "margin": {"l": left, "r": 20, "t": top, "b": bottom},
            "legend": legend_below(legend_y),
            "modebar": {"orientation": "h", "bgcolor": "rgba(255,255,255,0.8)",
                        "color": "#6e6e6e", "activecolor": "#262730"},
            "hoverlabel": {"font": {"family": FONT["family"]}}}


def plotly_title(text: str) -> dict:
    """A figure's own title: left-aligned just above the plot area, under the toolbar band
    that :func:`plotly_layout` reserves (``titles=True``)."""
    return {"text": text, "x": 0, "xref": "paper", "xanchor": "left", "y": 1,
            "yref": "paper", "yanchor": "bottom", "pad": {"b": 6},
            "font": {"size": TITLE_FONT_SIZE}}


def left_titles(layout: dict) -> None:
    """Panel titles (the annotations ``make_subplots`` centres above each panel) moved to
    the left edge of their panel, in the title size. In place."""
    lefts = _panel_left_edges(layout)
    for ann in layout.get("annotations", []):
        if not _is_panel_title(ann):
            continue
        x0 = lefts.get(round(float(ann.get("x", 0.5)), 6))
        if x0 is not None:
            ann.update(x=x0, xanchor="left", font={"size": TITLE_FONT_SIZE})


def _panel_left_edges(layout: dict) -> dict[float, float]:
    """Each x axis's left edge, keyed by its centre (rounded; where plotly centres the
    panel's title), in paper coordinates."""
    return {round(sum(ax["domain"]) / 2, 6): ax["domain"][0]
            for key, ax in layout.items() if key.startswith("xaxis") and "domain" in ax}


def _is_panel_title(ann: dict) -> bool:
    """Whether an annotation is a panel title of ``make_subplots`` (paper x, above)."""
    return ann.get("xref") == "paper" and ann.get("yanchor") == "bottom"


def vega_date_axis(years: bool = False) -> dict:
    """The Vega-Lite axis of a date (UTC) time axis, with the tick labels of
    :func:`plotly_date_axis`: ``03:00`` over the day (``05 Mar``) within a day, the day
    only at midnight; when the data span ``years``, the year under the day."""
    day = "%d %b %Y" if years else "%d %b"
    return {"labelExpr": ("utcFormat(datum.value, '%H:%M') == '00:00' ? "
                          + ("[utcFormat(datum.value, '%d %b'), utcFormat(datum.value, '%Y')]"
                             if years else f"utcFormat(datum.value, '{day}')")
                          + f" : [utcFormat(datum.value, '%H:%M'), utcFormat(datum.value, "
                            f"'{day}')]"),
            # one tick per ~110 px, as on the plotly charts (two-line labels)
            "tickCount": {"expr": "ceil(width / 110)"},
            "labelOverlap": "greedy", "labelFlush": True, "labelAngle": 0}


def vega_config() -> dict:
    """The Vega-Lite ``config`` of every panel: font, title, legend and axis styles."""
    return {"font": FONT["family"],
            "title": {"anchor": "start", "fontSize": TITLE_FONT_SIZE, "fontWeight": "bold",
                      "color": FONT["color"], "subtitleColor": "#505050"},
            "axis": {"labelFontSize": FONT["size"] - 1, "titleFontSize": FONT["size"],
                     "titleFontWeight": "normal", "labelColor": FONT["color"],
                     "titleColor": FONT["color"]},
            "legend": {"orient": "bottom", "direction": "horizontal",
                       "labelFontSize": FONT["size"], "title": None},
            "view": {"stroke": None}}
