"""Plotly charts that stay mounted: a Streamlit component (version 2) that updates in place.

``st.plotly_chart`` derives its element's identity from the key *and* the figure, so
every rerun that changes a chart mounted a new one: ``Plotly.newPlot`` of ~950 SVG nodes
(~8,000 DOM mutations on the Timeline), a second ``Plotly.react`` 0.2–0.7 s later, and
the user's zoom lost. :func:`live_chart` draws the figure into one ``div`` that stays
from rerun to rerun and answers each new figure with one ``Plotly.react`` on it
(``layout.uirevision`` keeps the zoom, the pan and the chosen drag tool).

* **plotly.js** is the installed plotly package's own ``package_data/plotly.min.js``,
  served once per page by the app's server as the component's asset
  (:func:`app_support.bidi_assets.serve_component_assets`, like the Map's Leaflet); no
  CDN, no network. Without the registry the page falls back to ``st.plotly_chart``.
* **The same look** as ``st.plotly_chart(theme="streamlit")``: Streamlit's frontend
  replaces the placeholder colours of its plotly template and merges its theme into the
  template's layout; :func:`themed_spec` does the same here with the values that
  Streamlit 1.67 computes for the app's light theme (``live_chart_theme.json``, read off
  a rendered ``st.plotly_chart``). The width is the container's (and follows resizes),
  the height the figure's (450 px when it has none), the toolbar the given config.
* **Selection** (``on_select``): a click reports the clicked point at once, a box or a
  lasso the points and the shape, as the trigger value ``selection`` with the shape of
  ``st.plotly_chart``'s selection state (``points`` with ``x``/``y``/``point_index``/
  ``curve_number``/``customdata``, ``point_indices``, ``box``, ``lasso``), read with
  :func:`chart_selection`.
* **Text alternative**: the chart is a figure named by :func:`chart_alt` (its
  ``layout.meta.alt``), set by the component on every value, its SVG hidden from screen
  readers — what :mod:`app_support.accessibility` does for any other plotly chart.
* **An ε slider that scrubs** (``scrub``, :mod:`lmdk_core.figures.epsilon_preview`): a
  log-scale slider above the chart; while it moves, the component redraws the chart at
  the slider's ε in the browser (the preview's rules: noise scaled, budgets scaled,
  leakage off a grid of ε) with a preview verdict, no server round trip; when it is let
  go (``change``: the pointer's release, an arrow key) it reports the value once, as
  the trigger value ``epsilon`` read with :func:`scrubbed_epsilon` in ``on_scrub``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import plotly
import plotly.io as pio
import streamlit as st

from app_support import state_keys as K
from app_support.bidi_assets import (
    asset_url_path,
    component_script,
    serve_component_assets,
    trigger_value,
)
from lmdk_core.data.digest import sha256_hex
from lmdk_core.figures.object_memo import per_object
from lmdk_core.figures.style import PLOTLY_CONFIG

__all__ = ["COMPONENT", "SCRUB_HEIGHT", "chart_alt", "chart_selection", "live_chart",
           "scrubbed_epsilon", "themed_spec", "warm_plotly"]

#: the component's name: "<package>.<component>" of its asset manifest
COMPONENT = "lmdk.live_chart"
#: the installed plotly package's own plotly.js (MIT), served as the component's asset
PLOTLY_JS_DIR = Path(plotly.__file__).resolve().parent / "package_data"
_JS = Path(__file__).with_name("live_chart.js")
_THEME = Path(__file__).with_name("live_chart_theme.json")
#: plotly.js's own height when a figure sets none (what st.plotly_chart uses too)
DEFAULT_HEIGHT = 450
#: the height of the ε slider and its preview verdict above a chart that scrubs
SCRUB_HEIGHT = 92

_CSS = """
.lmdk-live-chart { width: 100%; }
.lmdk-live-chart:fullscreen { background: #ffffff; }
.lmdk-scrub { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.75rem;
  font-family: "Source Sans Pro", sans-serif; font-size: 0.95rem; color: #31333f;
  margin-bottom: 0.25rem; }
.lmdk-scrub label { font-weight: 600; }
.lmdk-scrub input[type=range] { flex: 1 1 16rem; min-width: 10rem; accent-color: #1f77b4;
  height: 1.75rem; }
.lmdk-scrub input[type=range]:focus-visible { outline: 2px solid #1f4e79;
  outline-offset: 2px; }
.lmdk-scrub output { min-width: 5.5rem; font-variant-numeric: tabular-nums;
  font-weight: 600; }
.lmdk-scrub-verdict { flex-basis: 100%; padding: 0.2rem 0.6rem; border-left: 0.3rem solid;
  border-radius: 0.25rem; min-height: 1.6rem; }
.lmdk-scrub-verdict[data-colour=green] { border-color: #177233; background: #e8f5ec; }
.lmdk-scrub-verdict[data-colour=amber] { border-color: #926c05; background: #fff6dc; }
.lmdk-scrub-verdict[data-colour=red] { border-color: #b3261e; background: #fdeceb; }
.lmdk-scrub-verdict[data-colour=none] { border-color: #808495; background: #f0f2f6; }
"""


@functools.cache
def _component() -> tuple[Callable, str] | None:
    """Register the component once per process; None when plotly.js cannot be served
    as its asset (the charts are then drawn by ``st.plotly_chart``)."""
    if not serve_component_assets(COMPONENT, PLOTLY_JS_DIR):
        return None
    component = st.components.v2.component(
        COMPONENT, html="", css=_CSS, js=component_script(_JS),
        isolate_styles=False)
    return component, asset_url_path(COMPONENT, "plotly.min.js")


#: loads plotly.js while the browser is idle (the same module URL as the charts', so the
#: browser fetches and runs it once per page: a chart's own import then finds it)
_WARM_JS = """
export default function (component) {
  const { data } = component;
  if (window.Plotly || window.__lmdkPlotlyWarm || !data || !data.plotly) return;
  window.__lmdkPlotlyWarm = true;
  const load = () => import(new URL("_stcore/bidi-components/" + data.plotly,
                                    document.baseURI).href)
    .catch(() => { window.__lmdkPlotlyWarm = false; });
  if (window.requestIdleCallback) window.requestIdleCallback(load, { timeout: 4000 });
  else setTimeout(load, 500);
}
"""


@functools.cache
def _warm_component() -> Callable:
    return st.components.v2.component("lmdk.plotly_warmup", html="", js=_WARM_JS)


def warm_plotly() -> None:
    """On a page without a chart (Home, Learn …): load plotly.js in the browser's idle
    time, so that the first chart of the next page (Home's *Start here* opens the
    Timeline) draws without waiting for the 4.6 MB library. Draws nothing; no-op where
    plotly.js cannot be served (the charts then use ``st.plotly_chart``)."""
    found = _component()
    if found is None:
        return
    with st.container(key="lmdk_hidden_plotly_warmup"):
        _warm_component()(data={"plotly": found[1]}, key="lmdk_plotly_warmup")


@functools.cache
def _theme() -> dict:
    return json.loads(_THEME.read_text(encoding="utf-8"))


def _merge(into: dict, theme: dict) -> None:
    """Deep-merge ``theme`` into ``into`` (theme values win; lodash ``merge``, as
    Streamlit's frontend merges its theme)."""
    for k, v in theme.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = json.loads(json.dumps(v)) if isinstance(v, dict | list) else v


@functools.lru_cache(maxsize=16)
def _themed_template(template_json: str) -> dict:
    """A figure's template as Streamlit's frontend themes it: placeholder colours
    replaced, the theme merged into its layout (cached: every figure has the same one)."""
    theme = _theme()
    for placeholder, colour in theme["colors"].items():
        template_json = template_json.replace(placeholder, colour)
    template = json.loads(template_json)
    _merge(template.setdefault("layout", {}), theme["layout"])
    return template


def _plain(text: object) -> str:
    return " ".join(re.sub(r"<[^>]*>", " ", str(text or "")).split())


def chart_alt(spec: dict) -> str:
    """The chart's text alternative: its ``layout.meta.alt`` (set by the figure
    functions of :mod:`lmdk_core.figures`), or else its title, panel titles and trace
    names (what :mod:`app_support.accessibility` gives any other plotly chart)."""
    layout = spec.get("layout") or {}
    meta = layout.get("meta")
    if isinstance(meta, dict) and _plain(meta.get("alt")):
        return _plain(meta["alt"])
    title = layout.get("title")
    parts = [_plain(title.get("text") if isinstance(title, dict) else title)]
    parts += [_plain(a.get("text")) for a in layout.get("annotations") or []
              if a.get("xref") == "paper" and a.get("yref") == "paper"]
    names = list(dict.fromkeys(n for tr in spec.get("data") or [] if (n := _plain(tr.get("name")))))
    parts += [f"shows: {', '.join(names)}"] if names else []
    return "Chart. " + (". ".join(p for p in parts if p) or "No description.")


def themed_spec(fig) -> tuple[str, str]:
    """The figure as JSON text, themed as ``st.plotly_chart(theme="streamlit")`` shows
    it (a title in bold, as Streamlit's frontend draws it), and its text alternative
    (:func:`chart_alt`)."""
    spec = fig.to_dict()
    alt = chart_alt(spec)
    layout = spec.setdefault("layout", {})
    template = layout.pop("template", None)
    title = layout.get("title")
    if isinstance(title, dict) and title.get("text"):
        title["text"] = f"<b>{title['text']}</b>"
    if template is not None:  # the same (shared, never changed) themed template
        layout["template"] = _themed_template(json.dumps(template, sort_keys=True))
    return pio.to_json(spec, validate=False), alt


#: :func:`themed_spec` kept per figure object: a figure memoised across reruns
#: (:func:`app_support.figure_memo.memo_figure`, shared and read-only) is serialised once,
#: not on every rerun that sends it again (a toggle beside it, a fragment's run)
_themed_once = per_object(maxsize=32)(themed_spec)


def _height(fig) -> int:
    height = fig.layout.height
    return int(height) if isinstance(height, int | float) and height > 0 else DEFAULT_HEIGHT


#: preview grids a session remembers as sent: fewer than the browser keeps
#: (``GRIDS_KEPT`` = 24 in live_chart.js, the newest first received), so it holds every
#: grid the server counts as sent
GRIDS_REMEMBERED = 8


def grid_digest(grid: str) -> str:
    """The name of a preview's leakage grid (its base64 text) in the browser's store: the
    first 24 hex digits of its SHA-256 (lmdk_core.data.digest, the one place data are
    hashed)."""
    return sha256_hex(grid.encode("ascii"))[:24]


def shared_grids(scrub: dict | None, sent: list[str]) -> tuple[dict | None, list[str]]:
    """The slider preview ``scrub`` as sent to the browser, and the digests it sends in
    full. Each trace's leakage off the grid of ε (``grid``: 64 ε × the points shown,
    2.7 MB of the 3.9 MB of a 2,000-row Compare ε step) does not change when ε does, so
    a grid whose digest is in ``sent`` (this session sent it already, the browser keeps
    it: ``GRIDS`` in live_chart.js) goes as its digest (``gridKey``) alone; a new one
    goes in full, with its digest. ``scrub`` itself is not changed (it may be memoised)."""
    if not scrub or not scrub.get("traces"):
        return scrub, []
    traces, full = [], []
    for tr in scrub["traces"]:
        grid = tr.get("grid")
        if not isinstance(grid, str) or not grid:
            traces.append(tr)
            continue
        digest = grid_digest(grid)
        if digest in sent:
            traces.append({k: v for k, v in tr.items() if k != "grid"} | {"gridKey": digest})
        else:
            traces.append(tr | {"gridKey": digest})
            full.append(digest)
    return scrub | {"traces": traces}, full


def _remember_sent(full: list[str]) -> None:
    """Count ``full`` as sent in this session (the newest :data:`GRIDS_REMEMBERED`)."""
    if not full:
        return
    sent = st.session_state.setdefault(K.PREVIEW_GRIDS_SENT, [])
    for d in full:
        if d in sent:
            sent.remove(d)
        sent.append(d)
    del sent[:-GRIDS_REMEMBERED]


def live_chart(fig, *, key: str, where=None, on_select: Callable[[], None] | None = None,
               selection_mode: Sequence[str] = ("points", "box", "lasso"),
               config: dict | None = None, scrub: dict | None = None,
               on_scrub: Callable[[], None] | None = None):
    """Draw the plotly figure ``fig`` in ``where`` (a container; the page by default),
    updated in place on every rerun; ``config`` is plotly's (``st.plotly_chart``'s
    ``config``), by default the style guide's toolbar
    (:data:`~lmdk_core.figures.style.PLOTLY_CONFIG`, which every chart of the app has).
    ``on_select`` runs on a click, a box or a lasso (the kinds in ``selection_mode``),
    with :func:`chart_selection` giving what was selected. ``scrub`` (a preview of
    :mod:`lmdk_core.figures.epsilon_preview`) puts an ε slider above the chart that
    redraws it in the browser while it moves; ``on_scrub`` runs once when it is let go,
    with :func:`scrubbed_epsilon` giving the value."""
    where = st if where is None else where
    config = PLOTLY_CONFIG if config is None else config
    found = _component()
    if found is None:  # no asset registry: Streamlit's own chart
        return where.plotly_chart(fig, key=key, width="stretch", config=config,
                                  on_select=on_select or "ignore",
                                  selection_mode=tuple(selection_mode))
    component, plotly_js = found
    height = _height(fig)
    figure, alt = _themed_once(fig)
    scrub, full = shared_grids(scrub, list(st.session_state.get(K.PREVIEW_GRIDS_SENT, [])))
    with contextlib.nullcontext() if where is st else where:
        out = component(
            data={"figure": figure, "alt": alt, "config": config, "height": height,
                  "select": list(selection_mode) if on_select else [],
                  "plotly": plotly_js, "scrub": scrub},
            key=key, height=height + (SCRUB_HEIGHT if scrub else 0),
            on_selection_change=on_select, on_epsilon_change=on_scrub)
    # counted as sent only once the element is on its way (a rerun that stopped this one
    # before it was queued sends the grids again)
    _remember_sent(full)
    return out


def chart_selection(key: str) -> dict:
    """What was selected on the chart ``key`` (in its ``on_select`` callback): a dict
    with ``points``, ``point_indices``, ``box`` and ``lasso`` as ``st.plotly_chart``
    reports them, empty lists when nothing was."""
    value = trigger_value(key, "selection")
    if isinstance(value, dict) and "selection" in value:  # st.plotly_chart's state
        value = value["selection"]
    value = value if isinstance(value, dict) else {}
    return {k: list(value.get(k) or []) for k in ("points", "point_indices", "box", "lasso")}


def scrubbed_epsilon(key: str) -> float | None:
    """The ε the slider of chart ``key`` was let go at (in its ``on_scrub`` callback), or
    None when it reported nothing usable."""
    value = trigger_value(key, "epsilon")
    if isinstance(value, dict):
        value = value.get("epsilon")
    if not isinstance(value, (int, float, str)):  # what a component reports: JSON
        return None
    try:
        eps = float(value)
    except (TypeError, ValueError):
        return None
    return eps if eps > 0 and eps == eps and eps != float("inf") else None
