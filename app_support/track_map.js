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
  st.releasedNow = () => releasedNow(st);
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
  // what the ε and r sliders move (previewTo): the released points with their noise's
  // true bases and the circles (movableLayers), the joined line; the factors of the last
  // preview
  st.movable = movableLayers(overlay);
  if (st.previewing) clearPreview(st);  // the layers below are drawn afresh on the main canvas
  st.previewing = false;
  st.info = overlay.preview || null;
  st.scale = { f: 1, g: 1 };
  if (overlay.circles) st.movable.layers.push(...st.groups[LAYER_NAMES.circles].getLayers());
  if (rel) {
    add("released_path", rel.lines.map((piece) => {
      const l = line(st, piece, { color: COLORS.released, weight: 1.2, opacity: 0.45 });
      st.movable.lines.push(l);
      return l;
    }));
  }
  if (rel) {
    const p = rel.published, a = rel.approximated;
    // a tooltip says the error and ε_t of the release (a preview is drawn apart, without
    // tooltips: paintPreview)
    const err = (e) => fmtMetres(e);
    const eps = (e) => fmtEps(e);
    const keep = (m, part) => {
      if (part.blat) st.movable.layers.push(m);
      return m;
    };
    p.t.forEach((t, k) => released.push(keep(circle(st, p.lat[k], p.lon[k], {
      radius: 3, color: COLORS.released, fillColor: COLORS.released, fillOpacity: 0.8,
      weight: 1.5 }, () => `Released t=${t} · ${labels.get(t) ?? ""} · noisy, ε_t = ` +
        `${eps(p.eps[k])} · ${err(p.err[k])} m from the true point`), p)));
    a.t.forEach((t, k) => released.push(keep(circle(st, a.lat[k], a.lon[k], {
      radius: 3, color: COLORS.approximated, fillColor: "#ffffff", fillOpacity: 0.8,
      weight: 1.5 }, () => `Released t=${t} · ${labels.get(t) ?? ""} · last release ` +
        `repeated (ε_t = 0) · ${err(a.err[k])} m from the true point`), a)));
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

function movableLayers(overlay) {
  // what a preview moves, as typed arrays built once per release: each released point
  // that carries its noise's true base (blat/blon: a static scheme), published first,
  // then the approximated ones (drawn in that order), and each 2r/ε_t circle's true
  // centre and radius in metres; ``layers``: their Leaflet layers (hidden while previewing)
  const rel = overlay.released;
  const parts = rel ? [rel.published, rel.approximated].filter((part) => part.blat) : [];
  const n = parts.reduce((sum, part) => sum + part.lat.length, 0);
  const pts = { lat: new Float64Array(n), lon: new Float64Array(n), blat: new Float64Array(n),
    blon: new Float64Array(n), published: rel && rel.published.blat ? rel.published.lat.length : 0,
    x: new Float64Array(n), y: new Float64Array(n) };
  let i = 0;
  for (const part of parts) {
    for (let k = 0; k < part.lat.length; k++, i++) {
      pts.lat[i] = part.lat[k];
      pts.lon[i] = part.lon[k];
      pts.blat[i] = part.blat[k];
      pts.blon[i] = part.blon[k];
    }
  }
  const c = overlay.circles;
  const circles = c ? { lat: Float64Array.from(c.lat), lon: Float64Array.from(c.lon),
    r: Float64Array.from(c.r) } : null;
  return { pts, circles, layers: [], lines: [] };
}

function previewCanvas(st) {
  // a canvas of its own for the preview, in a pane under the main canvas (the released
  // points are drawn under the true path) that takes no pointer events, covering the
  // map's view: each preview frame repaints only it (paintPreview), not the track's path
  // and points nor one Leaflet layer per point (a 5,000-point track repainted in full
  // every frame drew ~10 frames a second; 1,500 Leaflet markers moved, ~27). It follows
  // the view: placed again after a pan or zoom, hidden while a zoom animates.
  if (!st.pv) {
    const pane = st.map.createPane("lmdkPreview");
    pane.style.zIndex = 399;  // the overlay pane (the main canvas) is 400
    pane.style.pointerEvents = "none";
    // the rings under the points: each a canvas of its own
    const rings = L.DomUtil.create("canvas", "lmdk-preview-canvas", pane);
    const dots = L.DomUtil.create("canvas", "lmdk-preview-canvas", pane);
    st.pv = { canvases: [rings, dots], ctx: rings.getContext("2d"),
      dots: dots.getContext("2d"), image: null, placed: false, topLeft: null, size: null,
      dpr: 1, ringsDrawn: false };
    const replace = () => {
      st.pv.placed = false;
      for (const c of st.pv.canvases) c.style.visibility = "";
      if (st.previewing) paintPreview(st);
    };
    st.map.on("moveend zoomend viewreset resize", replace);
    st.map.on("zoomstart", () => {
      for (const c of st.pv.canvases) c.style.visibility = "hidden";
    });
    st.map.on("overlayadd overlayremove", () => {
      if (st.previewing) {
        hideMovable(st);
        paintPreview(st);
      }
    });
  }
  return st.pv;
}

function place(st, pv) {
  // the canvas over the map's view, in the panes' coordinates (read once per view, not
  // per frame)
  const size = st.map.getSize();
  const dpr = window.devicePixelRatio || 1;
  pv.topLeft = st.map.containerPointToLayerPoint([0, 0]).round();
  pv.origin = st.map.getPixelOrigin();
  pv.scale = st.map.options.crs.scale(st.map.getZoom());
  for (const c of pv.canvases) L.DomUtil.setPosition(c, pv.topLeft);
  if (!pv.size || pv.size.x !== size.x || pv.size.y !== size.y || pv.dpr !== dpr) {
    for (const c of pv.canvases) {
      c.width = Math.round(size.x * dpr);
      c.height = Math.round(size.y * dpr);
      c.style.width = size.x + "px";
      c.style.height = size.y + "px";
    }
    pv.image = pv.dots.createImageData(pv.canvases[1].width, pv.canvases[1].height);
    pv.words = new Uint32Array(pv.image.data.buffer);
    pv.dirty = null;
    pv.ringsDrawn = true;  // cleared by the resize: cleared again below all the same
  }
  pv.size = size;
  pv.dpr = dpr;
  pv.placed = true;
}

function projector(st, pv) {
  // (lat, lon) → x, y on the preview canvas: Leaflet's own projection of the map
  // (latLngToLayerPoint, less the canvas's corner); Web Mercator (EPSG:3857, the map's
  // CRS) inlined with Leaflet's constants, so a frame allocates nothing per point
  const crs = st.map.options.crs;
  const ox = pv.origin.x + pv.topLeft.x, oy = pv.origin.y + pv.topLeft.y;
  if (crs === L.CRS.EPSG3857) {
    const proj = L.Projection.SphericalMercator, R = proj.R, max = proj.MAX_LATITUDE;
    const d = Math.PI / 180, a = 0.5 / (Math.PI * R), s = pv.scale;
    return (lat, lon, out, k) => {
      const sin = Math.sin(Math.max(Math.min(max, lat), -max) * d);
      out.x[k] = s * (a * (R * lon * d) + 0.5) - ox;
      out.y[k] = s * (-a * (R * Math.log((1 + sin) / (1 - sin)) / 2) + 0.5) - oy;
    };
  }
  return (lat, lon, out, k) => {
    const p = st.map.project([lat, lon]);
    out.x[k] = p.x - ox;
    out.y[k] = p.y - oy;
  };
}

function circlePixels(st, pv, lat, lon, metres) {
  // [x, y, rx, ry] of a circle of ``metres`` around (lat, lon) on the preview canvas, as
  // Leaflet's L.Circle projects it (its _project, the Earth's CRS)
  const map = st.map, d = Math.PI / 180;
  const latR = (metres / L.CRS.Earth.R) / d;
  const top = map.project([lat + latR, lon]);
  const p = top.add(map.project([lat - latR, lon])).divideBy(2);
  const lat2 = map.unproject(p).lat;
  let lngR = Math.acos((Math.cos(latR * d) - Math.sin(lat * d) * Math.sin(lat2 * d)) /
    (Math.cos(lat * d) * Math.cos(lat2 * d))) / d;
  if (isNaN(lngR) || lngR === 0) lngR = latR / Math.cos(d * lat);
  const rx = isNaN(lngR) ? 0 : p.x - map.project([lat2, lon - lngR]).x;
  return [p.x - pv.origin.x - pv.topLeft.x, p.y - pv.origin.y - pv.topLeft.y, rx, p.y - top.y];
}

function shown(st, key) {
  const g = st.groups[LAYER_NAMES[key]];
  return Boolean(g && st.map.hasLayer(g));
}

function dotSprite(pv, stroke, fill) {
  // one released point as Leaflet draws it (radius 3, fill at 0.8 opacity, a 1.5 px
  // ring), drawn once on a small canvas and kept as its pixels (offsets and straight
  // RGBA): a frame stamps them at each point, in order, as Leaflet paints one marker
  // after the other (a path of 1,500 circles filled and stroked cost ~8 ms of software
  // rasterising a frame; 1,500 drawImage calls ~3 ms)
  const key = `${stroke} ${fill} ${pv.dpr}`;
  pv.sprites = pv.sprites || new Map();
  let sprite = pv.sprites.get(key);
  if (!sprite) {
    const side = Math.ceil(DOT_BOX * pv.dpr);
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = side;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    ctx.scale(pv.dpr, pv.dpr);
    ctx.beginPath();
    ctx.arc(DOT_BOX / 2, DOT_BOX / 2, DOT_RADIUS, 0, 2 * Math.PI);
    ctx.globalAlpha = 0.8;
    ctx.fillStyle = fill;
    ctx.fill();
    ctx.globalAlpha = 1;
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = stroke;
    ctx.stroke();
    const px = ctx.getImageData(0, 0, side, side).data;
    const dx = [], dy = [], rgba = [];
    for (let k = 0; k < side * side; k++) {
      if (!px[4 * k + 3]) continue;
      dx.push((k % side) - Math.floor(side / 2));
      dy.push(Math.floor(k / side) - Math.floor(side / 2));
      rgba.push(px[4 * k], px[4 * k + 1], px[4 * k + 2], px[4 * k + 3]);
    }
    const bytes = Uint8Array.from(rgba);
    sprite = { dx: Int32Array.from(dx), dy: Int32Array.from(dy), rgba: bytes,
      px32: new Uint32Array(bytes.buffer), half: Math.ceil(side / 2), w: 0, off: null };
    pv.sprites.set(key, sprite);
  }
  return sprite;
}

function stampDots(image, words, box, sprite, xs, ys, from, to, dpr) {
  // the sprite's pixels laid over ``image`` (ImageData: straight RGBA; ``words``: the
  // same pixels as 32-bit words) at each point from..to (CSS px, rounded to whole pixels
  // as Leaflet rounds a marker's point), blended "source-over" as a canvas draws one
  // over another; a pixel still empty takes the sprite's as one 32-bit write. ``box``
  // grows to hold what was stamped.
  const { dx, dy, rgba, px32, half } = sprite, m = dx.length;
  const w = image.width, h = image.height, buf = image.data;
  if (sprite.w !== w) {  // the sprite's pixels as offsets in this image
    sprite.w = w;
    sprite.off = Int32Array.from(dx, (x, j) => dy[j] * w + x);
  }
  const off = sprite.off;
  for (let k = from; k < to; k++) {
    const x = Math.round(xs[k]) * dpr, y = Math.round(ys[k]) * dpr;
    if (x < -half || y < -half || x >= w + half || y >= h + half) continue;
    const inside = x >= half && y >= half && x < w - half && y < h - half;
    const at = y * w + x;
    if (x - half < box.x0) box.x0 = Math.max(0, x - half);
    if (y - half < box.y0) box.y0 = Math.max(0, y - half);
    if (x + half > box.x1) box.x1 = Math.min(w, x + half);
    if (y + half > box.y1) box.y1 = Math.min(h, y + half);
    for (let j = 0; j < m; j++) {
      if (!inside) {
        const px = x + dx[j], py = y + dy[j];
        if (px < 0 || py < 0 || px >= w || py >= h) continue;
      }
      const q = at + off[j];
      if (words[q] === 0) {
        words[q] = px32[j];
        continue;
      }
      const i = 4 * q, s = 4 * j;
      const as = rgba[s + 3] / 255, bd = (buf[i + 3] / 255) * (1 - as), ao = as + bd;
      buf[i] = (rgba[s] * as + buf[i] * bd) / ao;
      buf[i + 1] = (rgba[s + 1] * as + buf[i + 1] * bd) / ao;
      buf[i + 2] = (rgba[s + 2] * as + buf[i + 2] * bd) / ao;
      buf[i + 3] = ao * 255;
    }
  }
}

const DOT_RADIUS = 3;
const DOT_BOX = 10;  // the sprite's side in CSS px: the dot and its ring, centred

function ringArc(x, y, r, w, h) {
  // the part of a ring (centre x, y, radius r) that can cross the view [0, w] × [0, h]:
  // null when none does; else [start, end] angles (the whole ring when the centre is in
  // view), so a huge dashed ring is not dashed along its whole length
  const nx = Math.max(0, Math.min(w, x)), ny = Math.max(0, Math.min(h, y));
  if (Math.hypot(nx - x, ny - y) > r) return null;  // the view is outside the ring
  const fx = Math.max(Math.abs(x), Math.abs(w - x)), fy = Math.max(Math.abs(y), Math.abs(h - y));
  if (Math.hypot(fx, fy) < r) return null;  // the view is inside it
  if (x >= 0 && x <= w && y >= 0 && y <= h) return [0, 2 * Math.PI];
  const mid = Math.atan2(h / 2 - y, w / 2 - x);
  let lo = 0, hi = 0;
  for (const [cx, cy] of [[0, 0], [w, 0], [0, h], [w, h]]) {
    let a = Math.atan2(cy - y, cx - x) - mid;
    a = Math.atan2(Math.sin(a), Math.cos(a));  // within ±π of the view's direction
    lo = Math.min(lo, a);
    hi = Math.max(hi, a);
  }
  return [mid + lo - 0.05, mid + hi + 0.05];
}

function paintPreview(st) {
  // one preview frame: every released point at base + (released − base)·f and every
  // circle's radius × f, on the preview canvas: the rings as one dashed path, then the
  // points stamped (published first, then approximated); what lies off the view skipped
  const pv = previewCanvas(st);
  if (!pv.placed) place(st, pv);
  const { ctx, size, dpr } = pv;
  const f = st.scale.f;
  const c = st.movable.circles;
  if (pv.ringsDrawn) {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
    pv.ringsDrawn = false;
  }
  if (c && shown(st, "circles")) {
    pv.ringsDrawn = true;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const path = new Path2D();
    for (let k = 0; k < c.r.length; k++) {
      const [x, y, rx, ry] = circlePixels(st, pv, c.lat[k], c.lon[k], c.r[k] * f);
      const r = Math.max(Math.round(rx), 1), rr = Math.max(Math.round(ry), 1) || r;
      const arc = ringArc(x, y, Math.max(r, rr), size.x, size.y);
      if (!arc) continue;
      path.moveTo(x + r * Math.cos(arc[0]), y + rr * Math.sin(arc[0]));
      path.ellipse(x, y, r, rr, 0, arc[0], arc[1]);
    }
    ctx.setLineDash([4, 4]);
    ctx.globalAlpha = 0.45;
    ctx.lineWidth = 1;
    ctx.strokeStyle = COLORS.circle;
    ctx.lineCap = ctx.lineJoin = "round";
    ctx.stroke(path);
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
  }
  const pts = st.movable.pts, n = pts.lat.length;
  const img = pv.image, w = img.width, last = pv.dirty;
  // only the rectangle the last frame stamped is cleared, and only it and this frame's
  // are copied to the canvas (a few released points on a large map copy a few pixels)
  if (last) {
    for (let y = last.y0; y < last.y1; y++) pv.words.fill(0, y * w + last.x0, y * w + last.x1);
  }
  const box = { x0: w, y0: img.height, x1: 0, y1: 0 };
  if (n && shown(st, "released")) {
    const project = projector(st, pv);
    for (let k = 0; k < n; k++) {
      project(pts.blat[k] + (pts.lat[k] - pts.blat[k]) * f,
        pts.blon[k] + (pts.lon[k] - pts.blon[k]) * f, pts, k);
    }
    stampDots(img, pv.words, box, dotSprite(pv, COLORS.released, COLORS.released), pts.x,
      pts.y, 0, pts.published, dpr);
    stampDots(img, pv.words, box, dotSprite(pv, COLORS.approximated, "#ffffff"), pts.x,
      pts.y, pts.published, n, dpr);
  }
  const put = last ? { x0: Math.min(last.x0, box.x0), y0: Math.min(last.y0, box.y0),
    x1: Math.max(last.x1, box.x1), y1: Math.max(last.y1, box.y1) } : box;
  if (put.x1 > put.x0 && put.y1 > put.y0) {
    pv.dots.putImageData(img, 0, 0, put.x0, put.y0, put.x1 - put.x0, put.y1 - put.y0);
  }
  pv.dirty = box.x1 > box.x0 && box.y1 > box.y0 ? box : null;
}

function clearPreview(st) {
  const pv = st.pv;
  if (!pv || !pv.size) return;
  pv.ctx.setTransform(1, 0, 0, 1, 0, 0);
  for (const ctx of [pv.ctx, pv.dots]) ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  pv.image.data.fill(0);
  pv.dirty = null;
  pv.ringsDrawn = false;
}

function hideMovable(st) {
  // the moved layers off the main canvas (each on its own: their groups stay on the map
  // and in the layers control)
  for (const layer of st.movable.layers) {
    if (st.map.hasLayer(layer)) layer.remove();
  }
}

function showMovable(st) {
  // back on the main canvas, those of a group that is on the map
  for (const key of ["released", "circles"]) {
    if (!shown(st, key)) continue;
    st.groups[LAYER_NAMES[key]].eachLayer((layer) => {
      if (!st.map.hasLayer(layer)) layer.addTo(st.map);
    });
  }
}

function previewTo(st, f, g) {
  // the release previewed at another ε and r (app_support/map_scrub.js): every drawn
  // released point drawn at base + (released − base)·f and every circle scaled by f,
  // f = (r'/r)·(ε/ε'); g = ε'/ε scales the budgets. The same unit draws, scaled: what a
  // static scheme's release at ε', r' would show (lmdk_core.figures.map). While
  // previewing they are drawn on the preview canvas (paintPreview: no tooltips, it takes
  // no pointer events) at once, in the caller's animation frame; back at f = g = 1, or
  // with the next release, the Leaflet layers are on the main canvas again.
  if (!st.alive || !st.movable) return false;
  const previewing = !(f === 1 && g === 1);
  st.scale = { f, g };
  if (previewing !== st.previewing) {
    st.previewing = previewing;
    if (previewing) hideMovable(st);
    else {
      clearPreview(st);
      showMovable(st);
    }
  }
  // the line joining every released point (off by default) is hidden while previewing:
  // its points are not sent with their bases; the next release draws it again
  const joined = previewing ? 0 : 0.45;
  for (const l of st.movable.lines) {
    if (l.options.opacity !== joined) l.setStyle({ opacity: joined });
  }
  if (previewing) paintPreview(st);
  return true;
}

function releasedNow(st) {
  // [lat, lon, blat, blon] of each released point a preview moves, where it is drawn now
  // (for the browser tests)
  const pts = st.movable.pts, f = st.previewing ? st.scale.f : 1, out = [];
  for (let k = 0; k < pts.lat.length; k++) {
    out.push([pts.blat[k] + (pts.lat[k] - pts.blat[k]) * f,
      pts.blon[k] + (pts.lon[k] - pts.blon[k]) * f, pts.blat[k], pts.blon[k]]);
  }
  return out;
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
