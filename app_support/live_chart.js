// A plotly chart that stays mounted (a Streamlit component, version 2). plotly.js is the
// component's asset, served by the app's own server and imported once per page (it sets
// window.Plotly); app_support/live_chart.py names its path in the value ("plotly").
//
// Every new value is drawn with one Plotly.react on the same div: no new chart, no
// second draw, and layout.uirevision keeps the user's zoom and drag tool. A click
// reports the clicked point at once, a box or lasso its points and shape (trigger value
// "selection", shaped like st.plotly_chart's selection state); the selection drawn by
// plotly is cleared by the next value (layout.selectionrevision). The chart is a figure
// named by layout.meta.alt, its SVG hidden from screen readers. A chart the page hides
// (display: none) is drawn when it is shown, with its last value.

const STATES = new WeakMap();
let PLOTLY = null;  // the import of plotly.js under way (one per page)

function loadPlotly(path) {
  // the asset's URL on the app's own server (the page's base, so a base path is kept)
  if (!PLOTLY) {
    PLOTLY = window.Plotly ? Promise.resolve()
      : import(new URL("_stcore/bidi-components/" + path, document.baseURI).href);
  }
  return PLOTLY;
}

function label(st, alt) {
  // the text alternative (app_support.live_chart.chart_alt: the figure's meta.alt)
  if (st.gd.getAttribute("aria-label") !== alt) st.gd.setAttribute("aria-label", alt);
  st.gd.querySelectorAll("svg.main-svg").forEach((s) => s.setAttribute("aria-hidden", "true"));
}

function pointOf(p) {
  // a selected point as st.plotly_chart reports it (snake_case, no trace objects)
  const out = {
    curve_number: p.curveNumber, point_number: p.pointNumber,
    point_index: p.pointIndex ?? p.pointNumber, x: p.x, y: p.y,
  };
  for (const k of ["z", "customdata", "text", "hovertext", "lat", "lon", "label", "value"]) {
    if (p[k] !== undefined) out[k] = ArrayBuffer.isView(p[k]) ? Array.from(p[k]) : p[k];
  }
  if (p.pointIndices) out.point_indices = Array.from(p.pointIndices);
  if (p.data && p.data.legendgroup) out.legendgroup = p.data.legendgroup;
  return out;
}

function shapes(selections, type) {
  // the boxes ("rect") or lassos ("path") of a selection event, in axis units
  const out = [];
  for (const s of selections || []) {
    if (s.type !== type) continue;
    if (type === "rect") {
      out.push({ xref: s.xref, yref: s.yref, x: [s.x0, s.x1], y: [s.y0, s.y1] });
    } else if (s.path) {
      const pts = s.path.replace("M", "").replace("Z", "").split("L")
        .map((q) => q.split(",").map(Number));
      out.push({ xref: s.xref, yref: s.yref, x: pts.map((q) => q[0]), y: pts.map((q) => q[1]) });
    }
  }
  return out;
}

function report(st, points, selections) {
  const pts = (points || []).map(pointOf);
  const indices = [...new Set(pts.map((p) => p.point_index).filter((i) => i !== undefined))];
  const box = shapes(selections, "rect"), lasso = shapes(selections, "path");
  if ((box.length && !st.modes.includes("box")) || (lasso.length && !st.modes.includes("lasso"))) {
    return;
  }
  st.reports += 1;
  st.send("selection", { points: pts, point_indices: indices, box, lasso, n: st.reports });
}

function bind(st) {
  // once per chart: the div keeps its handlers across Plotly.react
  st.gd.on("plotly_click", (ev) => {
    if (st.modes.includes("points") && ev && ev.points && ev.points.length) {
      report(st, [ev.points[0]], []);
    }
  });
  st.gd.on("plotly_selected", (ev) => {
    if (ev && ev.selections && ev.selections.length && st.modes.length) {
      report(st, ev.points, ev.selections);
    }
  });
}

function fullscreenButton(st) {
  return {
    name: "Fullscreen", title: "Fullscreen",
    icon: { width: 16, height: 16,
      path: "M1 1h5v2H3v3H1zM10 1h5v5h-2V3h-3zM1 10h2v3h3v2H1zM13 10h2v5h-5v-2h3z" },
    click: () => {
      if (document.fullscreenElement) document.exitFullscreen();
      else st.el.requestFullscreen();
    },
  };
}

function shown(st) {
  // false inside a container the page hides (display: none): Compare's phone tabs on a
  // desktop, its wide row on a phone
  return st.el.getClientRects().length > 0;
}

function createState(parentElement) {
  const el = document.createElement("div");
  el.className = "lmdk-live-chart";
  const gd = document.createElement("div");
  gd.className = "lmdk-live-plot";  // named here, not by app_support/accessibility.py
  gd.setAttribute("role", "figure");
  el.appendChild(gd);
  parentElement.appendChild(el);
  const st = { el, gd, send: null, modes: [], reports: 0, revision: 0, queue: Promise.resolve(),
    bound: false, alive: true, height: 450, pending: null };
  // the container's width, also when the page (or the sidebar) changes it
  st.resize = new ResizeObserver(() => {
    // a hidden chart (a phone-only or wide-only container, a closed tab) has no size:
    // it is not drawn while hidden, and drawn (or resized) once it is shown
    if (!st.alive || !shown(st)) return;
    if (st.pending) {
      const data = st.pending;
      st.pending = null;
      st.queue = st.queue.then(() => { if (st.alive) return draw(st, data); })
        .catch((e) => console.error("live chart:", e));
    } else if (st.bound) {
      Plotly.Plots.resize(gd).catch(() => {});
    }
  });
  st.resize.observe(el);
  st.fullscreen = fullscreenButton(st);
  document.addEventListener("fullscreenchange", st.onFull = () => {
    if (!st.alive || !st.bound) return;
    const full = document.fullscreenElement === el;
    Plotly.relayout(gd, { height: full ? window.innerHeight : st.height });
  });
  return st;
}

function draw(st, data) {
  const fig = JSON.parse(data.figure);
  const layout = fig.layout || {};
  st.modes = data.select || [];
  st.height = data.height;
  layout.height = document.fullscreenElement === st.el ? window.innerHeight : data.height;
  delete layout.width;  // the container's width
  layout.autosize = true;
  if (st.modes.length) {
    // a click reports at once and selects nothing: the page answers with the next value
    layout.clickmode = "event";
    layout.hovermode = layout.hovermode || "closest";
    // st.plotly_chart's first drag tool: pan when points are clicked, else the selection
    layout.dragmode = layout.dragmode || (st.modes.includes("points") ? "pan"
      : st.modes.includes("box") ? "select" : st.modes.includes("lasso") ? "lasso" : "pan");
  }
  st.revision += 1;
  layout.selectionrevision = st.revision;  // a selection drawn before is cleared
  // no plotly logo unless asked for (st.plotly_chart hides it too)
  const config = { displaylogo: false, ...data.config, responsive: false };
  config.modeBarButtonsToRemove = [...(config.modeBarButtonsToRemove || []), "sendChartToCloud"];
  // the same button object every time: a new one (a new click function) would make
  // Plotly.react see a changed config and draw the whole chart again
  config.modeBarButtonsToAdd = [st.fullscreen];
  return Plotly.react(st.gd, fig.data || [], layout, config).then(() => {
    if (!st.bound) {
      bind(st);
      st.bound = true;
    }
    label(st, data.alt || "Chart.");
    window.__lmdkLiveCharts = (window.__lmdkLiveCharts || 0) + 1;  // draws, for the tests
  });
}

export default function (component) {
  const { parentElement, data, setTriggerValue } = component;
  if (!data || !data.figure) return;
  let st = STATES.get(parentElement);
  if (!st) {
    st = createState(parentElement);
    STATES.set(parentElement, st);
  }
  st.send = setTriggerValue;
  // values are drawn in order, each once plotly.js is there; a hidden chart keeps only
  // its last value, drawn when the chart is shown (the ResizeObserver above)
  st.queue = st.queue.then(() => loadPlotly(data.plotly)).then(() => {
    if (!st.alive) return;
    if (!shown(st)) {
      st.pending = data;
      return;
    }
    st.pending = null;
    return draw(st, data);
  }).catch((e) => console.error("live chart:", e));
  return () => {
    // the component leaves the page
    if (STATES.get(parentElement) !== st) return;
    STATES.delete(parentElement);
    st.alive = false;
    st.resize.disconnect();
    document.removeEventListener("fullscreenchange", st.onFull);
    if (window.Plotly) Plotly.purge(st.gd);
    st.el.remove();
  };
}
