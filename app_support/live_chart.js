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
//
// With a "scrub" value (lmdk_core/figures/epsilon_preview.py) a log-scale ε slider sits
// above the chart: while it moves, each animation frame redraws the chart at the
// slider's ε from the preview's rules (a released value's noise scaled by ε/ε', every
// budget by ε'/ε, the leakage curves read off a grid of ε) and says the preview verdict,
// with no message to the server; when it is let go ("change": the pointer's release, a
// key) the value is sent once (trigger value "epsilon") and the page reruns once.
// window.__lmdkScrubFrames counts the redraws, for the tests and the benchmark.
// fmt, valueAt and posOf: log_slider.js, put in front of this script.

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


function decode(b64) {
  // base64 of little-endian float32 (epsilon_preview.b64) as a Float32Array
  if (!b64) return null;
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

function gridAt(grid, values, n, eps) {
  // row values[g] (n per row) interpolated in log ε between the grid points around eps
  const G = grid.length, out = new Float64Array(n);
  let g = 0;
  if (eps <= grid[0]) g = 0;
  else if (eps >= grid[G - 1]) g = G - 2;
  else while (g < G - 2 && grid[g + 1] < eps) g++;
  const w = Math.min(1, Math.max(0, (Math.log(eps) - Math.log(grid[g]))
    / (Math.log(grid[g + 1]) - Math.log(grid[g]))));
  for (let k = 0; k < n; k++) {
    out[k] = values[g * n + k] * (1 - w) + values[(g + 1) * n + k] * w;
  }
  return out;
}

// the slider previews' leakage grids by digest (live_chart.py shared_grids): the server
// sends a grid once per session, then only its digest; the newest GRIDS_KEPT received are
// kept (more than the server counts as sent), across the pages of the tab
const GRIDS = window.__lmdkPreviewGrids || (window.__lmdkPreviewGrids = new Map());
const GRIDS_KEPT = 24;

function resolveGrids(sc) {
  // the preview with every grid in full: a new one is stored, a digest is looked up
  if (!sc || !sc.traces) return sc;
  const traces = [];
  for (const tr of sc.traces) {
    if (!tr.gridKey) {
      traces.push(tr);
    } else if (tr.grid) {
      GRIDS.delete(tr.gridKey);
      GRIDS.set(tr.gridKey, tr.grid);
      while (GRIDS.size > GRIDS_KEPT) GRIDS.delete(GRIDS.keys().next().value);
      traces.push(tr);
    } else if (GRIDS.has(tr.gridKey)) {
      traces.push({ ...tr, grid: GRIDS.get(tr.gridKey) });
    }
    // else (not kept: should not happen) the trace keeps still while the slider moves
  }
  return { ...sc, traces };
}

function prepareScrub(sc) {
  // decode the preview's arrays once per value
  sc.gridV = decode(sc.grid);
  sc.peakV = sc.verdict ? decode(sc.verdict.peak) : null;
  for (const v of sc.verdicts || []) v.peakV = decode(v.peak);
  for (const tr of sc.traces || []) {
    tr.y0V = decode(tr.y0);
    tr.baseV = decode(tr.base);
    tr.gridV = decode(tr.grid);
  }
  return sc;
}

const RANK = { none: 0, green: 1, amber: 2, red: 3 };

function verdictOf(sc, v, eps, short) {
  // one verdict's colour and number at eps (epsilon_preview: the theorem's largest total
  // ratio × ε, landmark TPL off the grid), and its words (short: one column of several)
  const worst = (v.ratio || 0) * eps;
  const bound = short ? `total ${fmt(worst)}` : `landmarks + one timestamp spend at most ${fmt(worst)}`;
  if (!v.private) {
    return ["red", short ? `not landmark-private (${bound} > ε)`
      : `Not landmark-private: ${bound} > ε = ${fmt(eps)}`];
  }
  const peakV = v.peakV !== undefined ? v.peakV : sc.peakV;
  if (!peakV || !sc.gridV) {
    return ["green", short ? `landmark-private (${bound} ≤ ε)`
      : `Landmark-private: ${bound} ≤ ε = ${fmt(eps)}`];
  }
  const peak = gridAt(sc.gridV, peakV, 1, eps)[0];
  if (peak > eps * (1 + (v.rtol || 0))) {
    return ["amber", short ? `private only if values were independent (landmark TPL ${fmt(peak)} > ε)`
      : `Private only if values were independent: landmark TPL up to ${fmt(peak)} > ε = ${fmt(eps)} under the correlation model`];
  }
  return ["green", short ? `landmark-private (${bound} ≤ ε, landmark TPL ${fmt(peak)} ≤ ε)`
    : `Landmark-private: ${bound} ≤ ε = ${fmt(eps)}; landmark TPL up to ${fmt(peak)} ≤ ε`];
}

function previewVerdict(sc, eps) {
  // the preview verdict at eps: the chart's one verdict, or (Compare) one per column,
  // coloured by the worst of them
  if (!sc.verdicts) return verdictOf(sc, sc.verdict || {}, eps, false);
  let colour = "none";
  const words = sc.verdicts.map((v) => {
    if (!v.live) return `${v.label}: drawn again when you let go`;
    const [c, w] = verdictOf(sc, v, eps, true);
    if (RANK[c] > RANK[colour]) colour = c;
    return `${v.label}: ${w}`;
  });
  return [colour, words.join("; ")];
}

function percentile(values, q) {
  // numpy's default (linear) percentile of the finite values, NaN when there are none
  const v = Array.from(values).filter(Number.isFinite).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const pos = (q / 100) * (v.length - 1), lo = Math.floor(pos), hi = Math.ceil(pos);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

function axisRanges(sc, layout, moved, eps) {
  // the y-ranges of rows with fixed ranges (Compare) at eps, made as the figure makes
  // them: "fit" from 0 to pad × the largest of ε and the row's values, "spread" the 1st
  // to 99th percentile of the moving released values and the fixed lo … hi, padded
  for (const ax of sc.axes || []) {
    const ys = (sc.traces || []).filter((tr) => tr.row === ax.row && moved.has(tr.i))
      .map((tr) => moved.get(tr.i));
    let range = null;
    if (ax.rule === "fit") {
      let top = Math.max(eps, ax.top || 0);
      for (const y of ys) for (const v of y) if (Number.isFinite(v) && v > top) top = v;
      range = [0, ax.pad * top];
    } else if (ax.rule === "spread") {
      let lo = ax.lo ?? Infinity, hi = ax.hi ?? -Infinity;
      for (const y of ys) {
        const a = percentile(y, 1), b = percentile(y, 99);
        if (Number.isFinite(a)) lo = Math.min(lo, a);
        if (Number.isFinite(b)) hi = Math.max(hi, b);
      }
      if (!Number.isFinite(lo) || !Number.isFinite(hi)) continue;
      const pad = hi > lo ? ax.pad * (hi - lo) : 1;
      range = [lo - pad, hi + pad];
    }
    if (!range) continue;
    for (const name of ax.axes) layout[name] = { ...(layout[name] || {}), range, autorange: false };
  }
}

function scrubFigure(st, eps) {
  // the chart's last figure redrawn at eps by the preview's rules
  const sc = st.scrub, fig = st.fig, e0 = sc.epsilon;
  const data = fig.data.slice(), moved = new Map();
  for (const tr of sc.traces) {
    const y0 = tr.y0V, n = y0.length, y = new Float64Array(n);
    if (tr.rule === "scale") {
      const f = eps / e0;
      for (let k = 0; k < n; k++) y[k] = y0[k] * f;
    } else if (tr.rule === "noise") {
      const f = e0 / eps, b = tr.baseV;
      for (let k = 0; k < n; k++) y[k] = b[k] + (y0[k] - b[k]) * f;
    } else if (tr.rule === "grid" && sc.gridV) {
      y.set(gridAt(sc.gridV, tr.gridV, n, eps));
    } else {
      continue;
    }
    data[tr.i] = { ...data[tr.i], y };
    moved.set(tr.i, y);
  }
  // a column that does not follow the slider (Compare's Adaptive) is faint off its ε
  for (const i of sc.frozen || []) {
    if (data[i]) data[i] = { ...data[i], opacity: eps === e0 ? data[i].opacity : 0.2 };
  }
  const layout = { ...st.layout, datarevision: ++st.frames };
  axisRanges(sc, layout, moved, eps);
  if (layout.shapes) {
    layout.shapes = layout.shapes.slice();
    for (const i of sc.shapes || []) layout.shapes[i] = { ...layout.shapes[i], y0: eps, y1: eps };
  }
  if (layout.annotations) {
    layout.annotations = layout.annotations.slice();
    for (const i of sc.annotations || []) {
      layout.annotations[i] = { ...layout.annotations[i], y: eps, text: `ε = ${fmt(eps)}` };
    }
  }
  return [data, layout];
}

function scrubText(st, eps, preview) {
  const [colour, words] = preview ? previewVerdict(st.scrub, eps) : ["none", ""];
  const out = `ε = ${fmt(eps)}`;
  st.bar.out.textContent = out;
  st.bar.input.setAttribute("aria-valuetext", out + (preview ? `, preview: ${colour}` : ""));
  st.bar.verdict.dataset.colour = colour;
  st.bar.verdict.textContent = preview
    ? `Preview at ε = ${fmt(eps)} (not a release): ${words}.`
    : st.scrub.live
      ? `ε = ${fmt(eps)}: the chart and the page below show this release.`
      : `ε = ${fmt(eps)}: ${st.scrub.note || "this scheme decides from its own noise: the chart follows when you let go"}.`;
}

// ---- fast frames: the chart's SVG moved in place, not redrawn by plotly
// A full Plotly.react of the Timeline's chart costs 50–150 ms (every trace, axis and
// annotation drawn again): too slow to follow a pointer. While the slider moves, each
// frame instead rewrites the few SVG attributes that depend on ε — the lines and marker
// positions of the traces the preview moves, the ε lines and their labels — in the
// pixel geometry plotly drew last (the axes' ranges stay); when the pointer rests (or is
// let go) one full Plotly.react at that ε rescales the axes, and the fast frames go on
// from that drawing. A chart whose moving traces are not SVG (WebGL) has full frames only.

function axisOf(fl, ref, letter) {
  return fl[letter + "axis" + (ref && ref.length > 1 ? ref.slice(1) : "")];
}

const TRANSLATE = /translate\(([^,]+),([^)]+)\)/;

function snapshot(st, eps) {
  // what the fast frames move, read off the chart plotly has just drawn at eps
  const gd = st.gd, fl = gd._fullLayout, sc = st.scrub;
  const rules = new Map((sc.traces || []).map((tr) => [tr.i, tr]));
  const traces = [];
  const seen = new Set();
  gd.querySelectorAll("g.trace").forEach((g) => {
    const cd = g.__data__;
    const trace = cd && cd[0] && cd[0].trace;
    if (!trace || !rules.has(trace.index)) return;
    seen.add(trace.index);
    const xa = axisOf(fl, trace.xaxis, "x"), ya = axisOf(fl, trace.yaxis, "y");
    const rule = rules.get(trace.index);
    // a "scale" trace's lines, fills and bars are stretched about y = 0 by one SVG
    // transform per element (a bar trace: its group of bars), not rewritten path by path
    // (2,000 bars: 2,000 path strings parsed and written per frame); their lines keep
    // their width (non-scaling-stroke)
    const stretch = rule.rule === "scale"
      ? [...g.querySelectorAll("path.js-line, path.js-fill, g.points")]
        .filter((el) => el.tagName !== "g" || el.querySelector("g.point > path"))
      : [];
    for (const el of stretch) {
      if (el.tagName === "path") el.style.vectorEffect = "non-scaling-stroke";
    }
    traces.push({
      rule, xa, ya, cd,
      stretch: stretch.map((el) => [el, el.getAttribute("transform") || ""]),
      lines: [...g.querySelectorAll("path.js-line")],
      points: [...g.querySelectorAll("path.point")]
        .map((p) => [p, p.getAttribute("transform") || "", p.__data__]),
    });
  });
  const shapes = (sc.shapes || []).map((i) => {
    const el = gd.querySelector(`.shapelayer path[data-index="${i}"]`);
    const shape = fl.shapes && fl.shapes[i];
    return el && shape ? [el, el.getAttribute("d") || "", axisOf(fl, shape.yref, "y")] : null;
  }).filter(Boolean);
  const labels = (sc.annotations || []).map((i) => {
    const el = gd.querySelector(`g.annotation[data-index="${i}"]`);
    const ann = fl.annotations && fl.annotations[i];
    return el && ann ? [el, el.querySelector(".annotation-text"), axisOf(fl, ann.yref, "y")]
      : null;
  }).filter(Boolean);
  const ok = (sc.traces || []).every((tr) => seen.has(tr.i));
  return { eps, traces, shapes, labels, ok };
}

function ruleValues(sc, rule, n, eps) {
  // the y of a "noise" or "grid" trace at eps (n points)
  if (rule.rule === "grid") return sc.gridV ? gridAt(sc.gridV, rule.gridV, n, eps) : null;
  const y = new Float64Array(n), f = sc.epsilon / eps, b = rule.baseV, y0 = rule.y0V;
  for (let k = 0; k < n; k++) y[k] = b[k] + (y0[k] - b[k]) * f;
  return y;
}

function bounded(ya) {
  // a pixel y kept within three panel heights of the panel: what lies outside is clipped
  // anyway, and painting lines thousands of pixels long (the noise at a small ε) made a
  // frame of a 2,000-point chart take 80 ms instead of 35
  const lo = -3 * ya._length, hi = 4 * ya._length;
  return (py) => (py < lo ? lo : py > hi ? hi : py);
}

function fastFrame(st, eps) {
  // move the SVG of the last full drawing (at snap.eps) to eps
  const snap = st.snap, sc = st.scrub;
  for (const t of snap.traces) {
    const { rule, xa, ya } = t;
    const clip = bounded(ya);
    if (rule.rule === "scale") {
      const z = ya.c2p(0), f = eps / snap.eps, fy = (py) => clip(z + (py - z) * f);
      const stretch = `translate(0,${(z * (1 - f)).toFixed(2)}) scale(1,${f.toFixed(5)})`;
      for (const [el, tf] of t.stretch) el.setAttribute("transform", `${stretch} ${tf}`);
      for (const [p, tf] of t.points) {
        p.setAttribute("transform", tf.replace(TRANSLATE, (m, x, y) =>
          `translate(${x},${fy(Number(y)).toFixed(2)})`));
      }
      continue;
    }
    const y = ruleValues(sc, rule, rule.y0V.length, eps);
    if (!y) continue;
    if (t.lines.length) {
      // the line through every point, broken where a value is missing
      let d = "", open = false;
      for (let k = 0; k < t.cd.length && k < y.length; k++) {
        const v = y[k];
        if (!Number.isFinite(v)) { open = false; continue; }
        d += `${open ? "L" : "M"}${xa.c2p(t.cd[k].x).toFixed(2)},${clip(ya.c2p(v)).toFixed(2)}`;
        open = true;
      }
      t.lines[0].setAttribute("d", d);
      for (const p of t.lines.slice(1)) p.setAttribute("d", "");
    }
    for (const [p, tf, pt] of t.points) {
      const k = pt && pt.i !== undefined ? pt.i : -1;
      if (k < 0 || !Number.isFinite(y[k])) continue;
      p.setAttribute("transform", tf.replace(TRANSLATE, (m, x) =>
        `translate(${x},${clip(ya.c2p(y[k])).toFixed(2)})`));
    }
  }
  for (const [el, d, ya] of snap.shapes) {
    const py = (ya._offset + ya.c2p(eps)).toFixed(2);
    el.setAttribute("d", d.replace(/([ML])([^,]+),([^MLZ]+)/g, (m, c, x) => `${c}${x},${py}`));
  }
  for (const [el, text, ya] of snap.labels) {
    const dy = ya.c2p(eps) - ya.c2p(snap.eps);
    el.setAttribute("transform", `translate(0,${dy.toFixed(2)})`);
    if (text) text.textContent = `ε = ${fmt(eps)}`;
  }
}

function unstretch(st) {
  // the stretched elements as plotly drew them (plotly keeps the elements it redraws)
  for (const t of (st.snap && st.snap.traces) || []) {
    for (const [el, tf] of t.stretch) {
      if (tf) el.setAttribute("transform", tf); else el.removeAttribute("transform");
    }
  }
}

function fullFrame(st, eps) {
  // one Plotly.react of the figure at eps (axes rescaled); the fast frames go on from it
  const [data, layout] = scrubFigure(st, eps);
  unstretch(st);
  st.drawing = true;
  st.lastFull = performance.now();
  return Plotly.react(st.gd, data, layout, st.config).then(() => {
    // the slowest full drawing so far: a chart that once took over 60 ms (a long series,
    // a loaded machine) is drawn in full only when the pointer rests
    st.fullCost = Math.max(st.fullCost, performance.now() - st.lastFull);
    st.snap = snapshot(st, eps);
    st.gd.dataset.previewEpsilon = String(eps);  // the ε of the last full preview drawing
    window.__lmdkScrubFrames = (window.__lmdkScrubFrames || 0) + 1;
    window.__lmdkScrubFull = (window.__lmdkScrubFull || 0) + 1;  // of them full drawings
  }).catch((e) => console.error("live chart:", e)).finally(() => {
    st.drawing = false;
    if (st.wanted !== null && !st.frameQueued) {
      st.frameQueued = true;
      requestAnimationFrame(() => scrubFrame(st));
    }
  });
}

function scrubFrame(st) {
  // one redraw at the slider's latest ε: fast while the pointer moves, a full drawing
  // once it rests
  st.frameQueued = false;
  if (!st.alive || !st.bound || st.drawing || st.wanted === null) return;
  const eps = st.wanted;
  st.wanted = null;
  scrubText(st, eps, true);
  if (!st.scrub.live) return;
  clearTimeout(st.restTimer);
  // ε a long way (10×) from the last full drawing: its axes no longer fit what is
  // shown, so one full drawing now and then (at most every 700 ms) while the pointer moves
  // — unless a full drawing of this chart was ever slow (over 60 ms: a long series, a
  // loaded machine), then only at rest
  const far = st.snap && Math.max(eps / st.snap.eps, st.snap.eps / eps) > 10
    && performance.now() - st.lastFull > 700 && st.fullCost < 60;
  if (st.snap && st.snap.ok && !far) {
    fastFrame(st, eps);
    window.__lmdkScrubFrames = (window.__lmdkScrubFrames || 0) + 1;
    st.shownEps = eps;
    // the pointer rests: one full drawing rescales the axes to what is shown
    st.restTimer = setTimeout(() => {
      if (st.alive && st.wanted === null && !st.drawing && st.shownEps === eps) {
        fullFrame(st, eps);
      }
    }, 250);
    return;
  }
  fullFrame(st, eps);
}

function createScrubBar(st) {
  const bar = document.createElement("div");
  bar.className = "lmdk-scrub";
  const id = "lmdk-scrub-" + Math.random().toString(36).slice(2);
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = "ε (drag to preview)";
  const input = document.createElement("input");
  input.type = "range";
  input.id = id;
  input.min = "0";
  input.step = "1";
  const out = document.createElement("output");
  out.htmlFor = id;
  out.setAttribute("aria-hidden", "true");  // the slider's aria-valuetext says it
  const verdict = document.createElement("div");
  verdict.className = "lmdk-scrub-verdict";
  verdict.setAttribute("role", "status");  // announced politely, once per change
  bar.append(label, input, out, verdict);
  st.el.insertBefore(bar, st.gd);
  st.bar = { bar, input, out, verdict };
  input.addEventListener("input", () => {
    // every move: a redraw on the next animation frame (moves in between coalesce)
    st.wanted = valueAt(st.scrub, Number(input.value));
    st.bar.out.textContent = `ε = ${fmt(st.wanted)}`;
    if (!st.frameQueued) {
      st.frameQueued = true;
      requestAnimationFrame(() => scrubFrame(st));
    }
  });
  // a drag holds the slider against values from the server until it is let go
  input.addEventListener("pointerdown", () => { st.dragging = true; st.keyed = false; });
  const up = () => { st.dragging = false; };
  window.addEventListener("pointerup", up);
  window.addEventListener("pointercancel", up);
  st.unbindBar = () => {
    window.removeEventListener("pointerup", up);
    window.removeEventListener("pointercancel", up);
  };
  input.addEventListener("keydown", () => { st.keyed = true; });
  input.addEventListener("change", () => {
    // let go (or a key): the value once to the server, which reruns once; arrow keys
    // held down send their last value, 300 ms after the last step
    clearTimeout(st.commitTimer);
    const commit = () => {
      const eps = valueAt(st.scrub, Number(input.value));
      if (eps === st.scrub.epsilon || !st.send) return;
      st.sent += 1;
      st.send("epsilon", { epsilon: eps, n: st.sent });
    };
    if (st.keyed) st.commitTimer = setTimeout(commit, 300);
    else commit();
  });
}

function updateScrub(st, sc) {
  // a new value from the server: the slider shows its ε (unless it is being moved)
  st.scrub = prepareScrub(sc);
  if (!st.bar) createScrubBar(st);
  const input = st.bar.input;
  input.max = String(sc.steps);
  // the name holds the visible label (WCAG 2.5.3, label in name)
  input.setAttribute("aria-label", "Total privacy budget ε (drag to preview), log scale");
  if (!st.dragging) {
    input.value = String(posOf(sc, sc.epsilon));
    scrubText(st, sc.epsilon, false);
  }
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
    bound: false, alive: true, height: 450, pending: null, scrub: null, bar: null,
    fig: null, layout: null, config: null, frames: 0, wanted: null, frameQueued: false,
    drawing: false, sent: 0, dragging: false, keyed: false, commitTimer: null,
    unbindBar: null, snap: null, restTimer: null, shownEps: null, lastFull: 0,
    fullCost: 0 };
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
  // kept for the slider's preview frames (redrawn from this figure at another ε)
  fig.data = fig.data || [];
  st.fig = fig;
  st.layout = layout;
  st.config = config;
  st.wanted = null;
  if (data.scrub) updateScrub(st, data.scrub);
  unstretch(st);
  const t0 = performance.now();
  return Plotly.react(st.gd, fig.data, layout, config).then(() => {
    // what a full drawing of this chart costs, measured on the page's own drawing too: a
    // drag draws one now and then only when it is cheap (scrubFrame), and the first drag
    // no longer finds out by stalling the pointer (one Plotly.react took 0.3–0.7 s at
    // load ~10 on the demo week: 17–27 redraws/s in that drag instead of 35–45)
    st.fullCost = Math.max(st.fullCost, performance.now() - t0);
    st.lastFull = t0;
    if (!st.bound) {
      bind(st);
      st.bound = true;
    }
    label(st, data.alt || "Chart.");
    st.snap = st.scrub && st.scrub.live ? snapshot(st, st.scrub.epsilon) : null;
    window.__lmdkLiveCharts = (window.__lmdkLiveCharts || 0) + 1;  // draws, for the tests
  });
}

export default function (component) {
  const { parentElement, setTriggerValue } = component;
  let { data } = component;
  if (!data || !data.figure) return;
  // at once, not when drawn: a hidden chart draws only its last value, which may name a
  // grid an earlier value brought
  if (data.scrub) data = { ...data, scrub: resolveGrids(data.scrub) };
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
    if (st.unbindBar) st.unbindBar();
    clearTimeout(st.commitTimer);
    clearTimeout(st.restTimer);
    document.removeEventListener("fullscreenchange", st.onFull);
    if (window.Plotly) Plotly.purge(st.gd);
    st.el.remove();
  };
}
