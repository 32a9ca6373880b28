// The Map page's Leaflet map (a Streamlit component, version 2). Leaflet itself is the
// component's asset, served by the app's own server and imported once per page (it sets
// window.L); app_support/track_map.py names its path in the value ("leaflet"), or
// prepends it to this file when it cannot be served.
//
// The map stays mounted from rerun to rerun: when the page sends a new value only the
// drawn layers are rebuilt (the view, the open layers and the background stay), and
// the track's bounds are fitted only when the track itself changes. Everything is drawn
// on one canvas (fast with thousands of points); the clickable track points and the
// landmarks are drawn last, so a click reaches them first. A click reports the point's
// t to the page at once (trigger value "toggle") and marks the point straight away.
// Tooltips are set as text, never as HTML: names may come from uploaded files.

const STATES = new WeakMap();
const LAYER_NAMES = {
  path: "Original path",
  released: "Released points",
  released_path: "Released points joined (a line)",
  circles: "Expected displacement 2r/ε_t",
  events: "Stays (one landmark event each)",
  stays: "Suggested stays",
  waypoints: "Waypoints / places",
  landmarks: "Landmarks",
};
// the palette of the page's charts (lmdk_core.figures.map.MAP_COLORS), sent with the layers
let COLORS = {};

function textTip(text) {
  // a tooltip's content as a text element (Leaflet would read a string as HTML)
  return () => {
    const el = document.createElement("span");
    el.textContent = typeof text === "function" ? text() : text;
    return el;
  };
}

function fmtEps(x) {
  // like Python's format(x, ".3g")
  if (x === 0) return "0";
  const s = Number(x).toPrecision(3);
  return String(Number(s)).replace("e-", "e-0").replace(/e-0(\d\d)/, "e-$1");
}

function fmtMetres(x) {
  return Math.round(x).toLocaleString("en-US");
}

function legendControl(rows) {
  const ctl = L.control({ position: "bottomleft" });
  ctl.onAdd = () => {
    const div = L.DomUtil.create("div", "lmdk-legend");
    L.DomEvent.disableClickPropagation(div);
    L.DomEvent.disableScrollPropagation(div);
    const det = document.createElement("details");
    const sum = document.createElement("summary");
    const b = document.createElement("b");
    b.textContent = "Legend";
    sum.appendChild(b);
    det.appendChild(sum);
    for (const [kind, stroke, fill, text] of rows) {
      const row = document.createElement("div");
      const mark = document.createElement("span");
      mark.className = "lmdk-legend-mark";
      if (kind.startsWith("dot") || kind.startsWith("target")) {
        // a target: the dot inside a dark ring (the map's landmarks)
        const target = kind.startsWith("target");
        const size = Number(kind.replace(/^(dot|target)/, "")) || 10;
        Object.assign(mark.style, {
          width: size + "px", height: size + "px", borderRadius: "50%",
          border: "2px solid " + stroke, background: fill,
        }, target ? { boxShadow: "0 0 0 2px #111111", margin: "2px 8px 2px 2px" } : {});
      } else {
        Object.assign(mark.style, {
          width: "18px", borderTop: "3px " + (kind === "dashed" ? "dashed " : "solid ") + stroke,
        });
      }
      row.appendChild(mark);
      row.appendChild(document.createTextNode(text));
      det.appendChild(row);
    }
    const note = document.createElement("i");
    note.textContent = "Layers: the button at the top right.";
    det.appendChild(note);
    div.appendChild(det);
    return div;
  };
  return ctl;
}

function createState(parentElement) {
  let el = parentElement.querySelector(".lmdk-track-map");
  if (!el) {
    el = document.createElement("div");
    el.className = "lmdk-track-map";
    // the map's text alternative: what it shows, and where its keyboard equivalent is
    el.setAttribute("role", "region");
    el.setAttribute("aria-label", "Map of the track: the true path (grey line), the " +
      "landmarks (large red dots in a dark ring), and when shown the released points (small blue dots). A click " +
      "on a point marks or unmarks it as a landmark; without a mouse, type its t in " +
      "the Landmarks field of this page.");
    parentElement.appendChild(el);
  }
  // keyboard: false — Leaflet's keyboard handler focuses the map on the first mousedown,
  // which scrolls the page and swallows that first click
  const map = L.map(el, { keyboard: false, zoomControl: true, preferCanvas: true });
  const st = {
    el, map,
    renderer: L.canvas({ padding: 0.3, tolerance: 3 }),
    control: L.control.layers(null, null, { collapsed: true, position: "topright" }),
    groups: {},          // name -> L.FeatureGroup currently drawn
    // layer names switched off: the joined released points start off (at ε = 1 and
    // r = 100 m consecutive noisy points are ~1 km apart: the line was a tangle)
    hidden: new Set(["Released points joined (a line)"]),
    baseKey: null,
    baseText: null,      // the track's part as last received (JSON text) and parsed
    base: null,
    labels: null,
    tiles: null,
    legend: null,
    points: null,        // t -> drawn track point (for tests and instant feedback)
    landmarks: new Set(),
    clicks: 0,
    send: null,
  };
  st.control.addTo(map);
  L.control.scale().addTo(map);
  map.on("overlayremove", (e) => st.hidden.add(e.name));
  map.on("overlayadd", (e) => st.hidden.delete(e.name));
  // a resize reaches the map only while it is alive: after map.remove() (a new upload
  // replaces the component) Leaflet's panes are gone and invalidateSize() would throw
  // "Cannot read properties of undefined (reading '_leaflet_pos')"
  st.alive = true;
  st.resize = new ResizeObserver(() => {
    if (st.alive) map.invalidateSize({ animate: false });
  });
  st.resize.observe(el);
  st.clientPoint = (t) => clientPoint(st, t);
  st.previewTo = (f, g) => previewTo(st, f, g);
  st.freePoint = (start, gap) => freePoint(st, start, gap ?? 10);
  window.__lmdkTrackMap = st;  // read by the browser tests and benchmarks
  return st;
}

function clientPoint(st, t) {
  // where track point t is drawn, in the page's viewport coordinates
  const m = st.points.get(t);
  if (!m) return null;
  const p = st.map.latLngToContainerPoint(m.getLatLng());
  const r = st.el.getBoundingClientRect();
  return [r.left + p.x, r.top + p.y];
}

function freePoint(st, start, gap) {
  // [t, x, y] of the first track point (from the start-th) that is not a landmark, lies
  // well inside the map and the window, is not covered by a control and has no other
  // point within gap px nor a landmark within 16 px
  st.el.scrollIntoView({ block: "center" });
  const r = st.el.getBoundingClientRect();
  const ts = [...st.points.keys()];
  const xy = ts.map((t) => clientPoint(st, t));
  const marks = [...st.landmarks].map((t) => clientPoint(st, t)).filter(Boolean);
  const near = (a, b, d) => Math.hypot(a[0] - b[0], a[1] - b[1]) < d;
  for (let k = start; k < ts.length; k++) {
    const p = xy[k];
    if (st.landmarks.has(ts[k])) continue;
    if (p[0] < r.left + 60 || p[0] > r.right - 90 || p[1] < r.top + 90 ||
        p[1] > r.bottom - 60 || p[1] < 0 || p[1] > innerHeight) continue;
    if (gap > 0 && xy.some((q, j) => j !== k && near(p, q, gap))) continue;
    if (marks.some((q) => near(p, q, 16))) continue;
    const hit = document.elementFromPoint(p[0], p[1]);  // not under the legend or a control
    if (!hit || hit.tagName !== "CANVAS" || !st.el.contains(hit)) continue;
    return [ts[k], p[0], p[1]];
  }
  return null;
}

function circle(st, lat, lon, style, tip) {
  const m = L.circleMarker([lat, lon], { renderer: st.renderer, ...style });
  if (tip) m.bindTooltip(textTip(tip), { sticky: false });
  return m;
}

function toggle(st, t, marker) {
  // mark at once what the click will do; the page's rerun redraws the truth
  const on = !st.landmarks.has(t);
  if (marker) {
    marker.setStyle(on ? { fillColor: COLORS.landmark, color: "#ffffff", radius: 8 }
      : { fillColor: "#ffffff", color: COLORS.point, radius: 4 });
  }
  st.clicks += 1;
  st.send("toggle", { t, n: st.clicks });
}

function line(st, piece, style) {
  const pts = piece.lat.map((la, k) => [la, piece.lon[k]]);
  return L.polyline(pts, { renderer: st.renderer, interactive: false, ...style });
}

function parsed(st, data) {
  // the layers arrive as JSON text; the track's part is parsed again only when it changed
  if (data.base !== st.baseText) {
    st.baseText = data.base;
    st.base = JSON.parse(data.base);
    const pts = st.base.points;
    st.labels = new Map(pts.t.map((t, k) => [t, pts.label[k]]));  // t -> time label
  }
  return { base: st.base, overlay: JSON.parse(data.overlay) };
}

function draw(st, spec) {
  const { base, overlay } = spec;
  const labels = st.labels;
  for (const g of Object.values(st.groups)) {
    st.control.removeLayer(g);
    st.map.removeLayer(g);
  }
  st.groups = {};
  const add = (key, layers) => {
    const name = LAYER_NAMES[key] || key;
    const g = L.featureGroup(layers);
    st.groups[name] = g;
    st.control.addOverlay(g, name);
    if (!st.hidden.has(name)) g.addTo(st.map);
  };
  // drawing order = stacking order on the one canvas: last drawn is on top and clicked
  if (overlay.circles) {
    const c = overlay.circles;
    add("circles", c.r.map((r, k) => L.circle([c.lat[k], c.lon[k]], {
      renderer: st.renderer, radius: r, color: COLORS.circle, weight: 1, opacity: 0.45,
      dashArray: "4 4", fill: false, interactive: false })));
  }
  // the released layers first: the true path, the track points and the landmarks are
  // drawn on top of them
  const rel = overlay.released;
  const released = [];
  // what the ε and r sliders move (previewTo): each released point and line with its
  // noise's true base, each circle with its radius; the factors of the last preview
  st.movable = { points: [], lines: [], circles: [] };
  st.previewing = false;  // the layers below are drawn afresh on the main canvas
  st.info = overlay.preview || null;
  st.scale = { f: 1, g: 1 };
  if (overlay.circles) {
    for (const layer of st.groups[LAYER_NAMES.circles].getLayers()) {
      st.movable.circles.push([layer, layer.getRadius()]);
    }
  }
  if (rel) {
    add("released_path", rel.lines.map((piece) => {
      const l = line(st, piece, { color: COLORS.released, weight: 1.2, opacity: 0.45 });
      st.movable.lines.push(l);
      return l;
    }));
  }
  if (rel) {
    const p = rel.published, a = rel.approximated;
    // a tooltip says the error and ε_t of what is drawn: the preview's while it moves
    const err = (e) => fmtMetres(e * st.scale.f);
    const eps = (e) => fmtEps(e * st.scale.g);
    const keep = (m, part, k) => {
      if (part.blat) st.movable.points.push([m, part.lat[k], part.lon[k], part.blat[k], part.blon[k]]);
      return m;
    };
    p.t.forEach((t, k) => released.push(keep(circle(st, p.lat[k], p.lon[k], {
      radius: 3, color: COLORS.released, fillColor: COLORS.released, fillOpacity: 0.8,
      weight: 1.5 }, () => `Released t=${t} · ${labels.get(t) ?? ""} · noisy, ε_t = ` +
        `${eps(p.eps[k])} · ${err(p.err[k])} m from the true point` + previewNote(st)), p, k)));
    a.t.forEach((t, k) => released.push(keep(circle(st, a.lat[k], a.lon[k], {
      radius: 3, color: COLORS.approximated, fillColor: "#ffffff", fillOpacity: 0.8,
      weight: 1.5 }, () => `Released t=${t} · ${labels.get(t) ?? ""} · last release ` +
        `repeated (ε_t = 0) · ${err(a.err[k])} m from the true point` + previewNote(st)), a, k)));
    add("released", released);
  }
  add("path", base.path.map((piece) => line(st, piece,
    { color: COLORS.original, weight: 3, opacity: 0.75 })));
  if ((overlay.events || []).length) {
    add("events", overlay.events.map((s) => circle(st, s.lat, s.lon, {
      radius: 13, color: COLORS.landmark, fillColor: "#ffd6d6", fillOpacity: 0.45,
      weight: 3 }, s.tip)));
  }
  if (overlay.stays.length) {
    add("stays", overlay.stays.map((s) => circle(st, s.lat, s.lon, {
      radius: 14, color: COLORS.suggestion, fillColor: "#ffe0b2", fillOpacity: 0.35,
      weight: 2.5 }, s.tip)));
  }
  if (overlay.waypoints.length) {
    add("waypoints", overlay.waypoints.map((w) => circle(st, w.lat, w.lon, {
      radius: 9, color: COLORS.waypoint, fillColor: "#e1d5f0", fillOpacity: 0.6,
      weight: 2 }, w.tip)));
  }
  // the clickable track points
  st.landmarks = new Set(overlay.landmarks.t);
  st.points = new Map();
  const pts = base.points;
  const markers = pts.t.map((t, k) => {
    const m = circle(st, pts.lat[k], pts.lon[k], {
      radius: 4, color: COLORS.point, fillColor: "#ffffff", fillOpacity: 0.9, weight: 1.5 },
    () => {
      // a fix of a stay protected as one event is not a landmark of its own
      const ev = (overlay.events || []).find((e) => e.range[0] <= t && t <= e.range[1]);
      return ev ? `Point t=${t} · ${pts.label[k]} · a fix of the stay t=${ev.range[0]}–` +
        `${ev.range[1]}, protected as one landmark event`
        : `Point t=${t} · ${pts.label[k]} (click: make it a landmark)`;
    });
    m.on("click", () => toggle(st, t, m));
    st.points.set(t, m);
    return m;
  });
  add(base.points_name, markers);
  // landmarks last: drawn on top, so they are the ones clicked. Each is a target (a dark
  // ring around a white-edged dot), not only a larger dot in another colour: told apart
  // from the track points in grey and without colour vision (WCAG 1.4.1)
  const lm = overlay.landmarks;
  const rings = lm.t.map((t, k) => circle(st, lm.lat[k], lm.lon[k], {
    radius: 11, color: COLORS.landmark_ring || "#111111", weight: 2, fill: false,
    interactive: false }));
  add("landmarks", rings.concat(lm.t.map((t, k) => {
    const m = circle(st, lm.lat[k], lm.lon[k], {
      radius: 8, color: "#ffffff", fillColor: COLORS.landmark, fillOpacity: 1, weight: 2 },
    () => `Landmark t=${t} · ${lm.label[k]} · ε_t = ${fmtEps(lm.eps[k])} (click to remove)`);
    m.on("click", () => toggle(st, t, m));
    return m;
  })));
}

function previewNote(st) {
  return st.scale.f === 1 && st.scale.g === 1 ? "" : " (preview, not a release)";
}

function previewRenderer(st) {
  // a canvas of its own for what a preview moves, in a pane under the main canvas (the
  // released points are drawn under the true path) that takes no pointer events: each
  // preview frame repaints only it, not the track's path and points (a 5,000-point track
  // repainted in full every frame drew ~10 frames a second)
  if (!st.previewCanvas) {
    const pane = st.map.createPane("lmdkPreview");
    pane.style.zIndex = 399;  // the overlay pane (the main canvas) is 400
    pane.style.pointerEvents = "none";
    st.previewCanvas = L.canvas({ padding: 0, pane: "lmdkPreview" });  // a smaller canvas to paint
  }
  return st.previewCanvas;
}

function moveTo(st, renderer) {
  // the movable layers drawn by ``renderer`` (re-added: Leaflet binds a renderer on add)
  const layers = st.movable.points.map((p) => p[0]).concat(st.movable.circles.map((c) => c[0]));
  for (const layer of layers) {
    if (layer.options.renderer === renderer) continue;
    const on = st.map.hasLayer(layer);
    if (on) layer.remove();
    layer.options.renderer = renderer;
    if (on) layer.addTo(st.map);
  }
}

function previewTo(st, f, g) {
  // the release previewed at another ε and r (app_support/map_scrub.js): every drawn
  // released point moved to base + (released − base)·f and every circle scaled by f,
  // f = (r'/r)·(ε/ε'); g = ε'/ε scales the budgets in the tooltips. The same unit draws,
  // scaled: what a static scheme's release at ε', r' would show (lmdk_core.figures.map).
  // While previewing they sit on their own canvas (no tooltips: it takes no pointer
  // events), redrawn once on the next animation frame; back at f = g = 1, or with the
  // next release, they are on the main canvas again.
  if (!st.alive || !st.movable) return false;
  const previewing = !(f === 1 && g === 1);
  if (previewing !== st.previewing) {
    moveTo(st, previewing ? previewRenderer(st) : st.renderer);
    st.previewing = previewing;
  }
  st.scale = { f, g };
  for (const [m, lat, lon, blat, blon] of st.movable.points) {
    m.setLatLng([blat + (lat - blat) * f, blon + (lon - blon) * f]);
  }
  // the line joining every released point (off by default) is hidden while previewing:
  // its points are not sent with their bases; the next release draws it again
  const joined = previewing ? 0 : 0.45;
  for (const l of st.movable.lines) {
    if (l.options.opacity !== joined) l.setStyle({ opacity: joined });
  }
  for (const [c, r] of st.movable.circles) c.setRadius(r * f);
  return true;
}

function setTiles(st, on) {
  if (on && !st.tiles) {
    st.tiles = L.tileLayer("https://tile.openstreetmap.org/{z}/{x}/{y}.png", {
      maxZoom: 19, attribution: "© OpenStreetMap contributors" }).addTo(st.map);
  } else if (!on && st.tiles) {
    st.map.removeLayer(st.tiles);
    st.tiles = null;
  }
  st.el.classList.toggle("lmdk-plain", !on);
}

let LEAFLET = null;  // the import of Leaflet under way (one per page)

function loadLeaflet(path) {
  // the asset's URL on the app's own server (the page's base, so a base path is kept)
  if (!LEAFLET) LEAFLET = import(new URL("_stcore/bidi-components/" + path, document.baseURI).href);
  return LEAFLET;
}

function unmount(parentElement) {
  const st = STATES.get(parentElement);
  if (!st) return;
  STATES.delete(parentElement);
  if (window.__lmdkTrackMap === st) window.__lmdkTrackMap = null;
  st.alive = false;
  st.resize.disconnect();
  st.map.stop();  // an animation still running would move panes that no longer exist
  st.map.remove();
}

// Leaflet 1.9's canvas renderer can run a redraw it had requested after map.remove()
// destroyed its canvas (a rerun that replaces the map, e.g. switching the online tiles):
// "Cannot read properties of undefined (reading 'save')". Nothing is left to draw then.
function guardCanvasRedraw() {
  const redraw = L.Canvas.prototype._redraw;
  if (redraw.lmdkGuarded) return;
  L.Canvas.prototype._redraw = function () {
    if (this._ctx) redraw.call(this);
  };
  L.Canvas.prototype._redraw.lmdkGuarded = true;
}

function render(component) {
  const { parentElement, data, setTriggerValue } = component;
  guardCanvasRedraw();
  let st = STATES.get(parentElement);
  if (!st) {
    st = createState(parentElement);
    STATES.set(parentElement, st);
  }
  st.send = setTriggerValue;
  COLORS = data.colors;
  st.el.style.height = (data.height || 620) + "px";
  if (!st.legend) {
    st.legend = legendControl(data.legend).addTo(st.map);
  }
  setTiles(st, Boolean(data.tiles));
  const spec = parsed(st, data);
  draw(st, spec);
  if (st.baseKey !== spec.base.key) {
    st.baseKey = spec.base.key;
    st.map.invalidateSize({ animate: false });
    st.map.fitBounds(spec.base.bounds, { animate: false });
  }
}

export default function (component) {
  const { parentElement, data } = component;
  if (!data || !data.base) return;
  let gone = false;
  if (window.L) {
    render(component);
  } else {
    // first value of the page: draw once Leaflet is loaded (later values wait in order)
    loadLeaflet(data.leaflet).then(() => { if (!gone) render(component); });
  }
  return () => {
    gone = true;
    unmount(parentElement);
  };
}
