// The Map page's ε and r sliders that scrub (a Streamlit component, version 2).
//
// Two log-scale sliders, the total budget ε and Planar Laplace's radius r: while either
// moves, each animation frame moves the map's released points and the 2r/ε_t circles to
// where the same noise draws put them at that ε and r — the
// displacement scaled by f = (r'/r)·(ε/ε') around each point's true base
// (lmdk_core/figures/map.py, track_noise_bases; the map's previewTo in track_map.js) —
// and says the preview verdict (the theorem's total, the same multiple of ε at every ε)
// and the mean displacement, with no message to the server. When a slider is let go
// ("change": the pointer's release, a key) both values are sent once (trigger value
// "scrub") and the page reruns once. A scheme that decides from its own noise
// (Adaptive) is not moved: the map follows when the slider is let go.
// window.__lmdkScrubFrames counts the redraws, as for the charts' ε sliders.
// fmt, valueAt and posOf: log_slider.js, put in front of this script.

const STATES = new WeakMap();

// one number format for every frame (toLocaleString builds a new one per call)
const WHOLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function metres(x) {
  return `${WHOLE.format(Math.round(x))} m`;
}

function setText(el, text) {
  // a frame writes to the DOM only what changed (each write is a layout of the page)
  if (el.textContent !== text) el.textContent = text;
}

function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

function previewWords(info, eps, r) {
  // the preview verdict at eps, r: the theorem's largest total (ratio × ε), and the mean
  // displacement of the released points and its expectation 2r/ε_t, both × f
  const f = (r / info.radius) * (info.epsilon / eps);
  const total = (info.ratio || 0) * eps;
  const shift = [];
  if (info.mean_err != null) shift.push(`mean displacement ${metres(info.mean_err * f)}`);
  if (info.mean_expected != null) shift.push(`expected 2r/ε_t ${metres(info.mean_expected * f)}`);
  const moved = shift.length ? `; ${shift.join(", ")}` : "";
  if (!info.private) {
    return ["red", `not landmark-private: landmarks + one timestamp spend at most ` +
      `${fmt(total)} > ε${moved}`];
  }
  return ["none", `landmarks + one timestamp spend at most ${fmt(total)} ≤ ε (the ` +
    `theorem; the leakage under the correlation model is checked when you let go)${moved}`];
}

function show(st, preview) {
  // the outputs, the sliders' spoken values and the preview verdict
  const eps = valueAt(st.data.eps, Number(st.eps.value));
  const r = valueAt(st.data.r, Number(st.r.value));
  setText(st.epsOut, `ε = ${fmt(eps)}`);
  setText(st.rOut, `r = ${metres(r)}`);
  setAttr(st.eps, "aria-valuetext", `ε = ${fmt(eps)}` + (preview ? ", preview" : ""));
  setAttr(st.r, "aria-valuetext", `r = ${metres(r)}` + (preview ? ", preview" : ""));
  const map = window.__lmdkTrackMap;
  const info = map && map.info;
  let colour = "none", words;
  if (!preview) {
    words = `ε = ${fmt(eps)}, r = ${metres(r)}: the map and the page show this release. ` +
      "Drag a slider to preview another ε or r on the map.";
  } else if (!info) {
    words = `Preview at ε = ${fmt(eps)}, r = ${metres(r)}: the map is not drawn yet.`;
  } else if (!info.live) {
    words = `Preview at ε = ${fmt(eps)}, r = ${metres(r)}: this scheme decides from its ` +
      "own noise, so the map follows when you let go.";
  } else {
    const [c, w] = previewWords(info, eps, r);
    colour = c;
    words = `Preview at ε = ${fmt(eps)}, r = ${metres(r)} (not a release): ${w}.`;
  }
  if (st.verdict.dataset.colour !== colour) st.verdict.dataset.colour = colour;
  setText(st.verdict, words);
  return [eps, r, info];
}

function frame(st) {
  // one redraw at the sliders' latest values
  st.queued = false;
  if (!st.alive) return;
  const [eps, r, info] = show(st, true);
  const map = window.__lmdkTrackMap;
  if (info && info.live && map.previewTo((r / info.radius) * (info.epsilon / eps),
    eps / info.epsilon)) {
    window.__lmdkScrubFrames = (window.__lmdkScrubFrames || 0) + 1;
  }
}

function slider(st, id, label) {
  const wrap = document.createElement("div");
  wrap.className = "lmdk-scrub";
  const lab = document.createElement("label");
  lab.htmlFor = id;
  lab.textContent = label;
  const input = document.createElement("input");
  input.type = "range";
  input.id = id;
  input.min = "0";
  input.step = "1";
  const out = document.createElement("output");
  out.htmlFor = id;
  out.setAttribute("aria-hidden", "true");  // the slider's aria-valuetext says it
  wrap.append(lab, input, out);
  input.addEventListener("input", () => {
    if (!st.queued) {
      st.queued = true;
      requestAnimationFrame(() => frame(st));
    }
  });
  input.addEventListener("pointerdown", () => { st.dragging = true; st.keyed = false; });
  input.addEventListener("keydown", () => { st.keyed = true; });
  input.addEventListener("change", () => {
    // let go (or a key): both values once to the server, which reruns once; arrow keys
    // held down send their last values, 300 ms after the last step
    clearTimeout(st.commitTimer);
    const commit = () => {
      const eps = valueAt(st.data.eps, Number(st.eps.value));
      const r = valueAt(st.data.r, Number(st.r.value));
      if ((eps === st.data.epsilon && r === st.data.radius) || !st.send) return;
      st.sent += 1;
      st.send("scrub", { epsilon: eps, radius: r, n: st.sent });
    };
    if (st.keyed) st.commitTimer = setTimeout(commit, 300);
    else commit();
  });
  return [wrap, input, out];
}

function createState(parentElement) {
  const el = document.createElement("div");
  el.className = "lmdk-map-scrub";
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", "Preview another ε and r on the map");
  const st = { el, alive: true, queued: false, dragging: false, keyed: false, sent: 0,
    commitTimer: null, send: null, data: null };
  const id = "lmdk-map-scrub-" + Math.random().toString(36).slice(2);
  const [epsRow, eps, epsOut] = slider(st, id + "-eps", "ε (drag to preview)");
  const [rRow, r, rOut] = slider(st, id + "-r", "r (drag to preview)");
  // each name holds its visible label (WCAG 2.5.3, label in name: "ε (drag to preview)")
  eps.setAttribute("aria-label",
    "Total privacy budget ε (drag to preview), log scale, on the map");
  r.setAttribute("aria-label",
    "Protection radius r (drag to preview), in metres, log scale, on the map");
  const verdict = document.createElement("div");
  verdict.className = "lmdk-scrub-verdict";
  verdict.setAttribute("role", "status");  // announced politely, once per change
  el.append(epsRow, rRow, verdict);
  parentElement.appendChild(el);
  Object.assign(st, { eps, r, epsOut, rOut, verdict });
  const up = () => { st.dragging = false; };
  window.addEventListener("pointerup", up);
  window.addEventListener("pointercancel", up);
  st.unbind = () => {
    window.removeEventListener("pointerup", up);
    window.removeEventListener("pointercancel", up);
  };
  return st;
}

export default function (component) {
  const { parentElement, data, setTriggerValue } = component;
  if (!data || !data.eps) return;
  let st = STATES.get(parentElement);
  if (!st) {
    st = createState(parentElement);
    STATES.set(parentElement, st);
  }
  st.send = setTriggerValue;
  st.data = data;
  st.eps.max = String(data.eps.steps);
  st.r.max = String(data.r.steps);
  if (!st.dragging) {
    st.eps.value = String(posOf(data.eps, data.epsilon));
    st.r.value = String(posOf(data.r, data.radius));
    show(st, false);
  }
  return () => {
    if (STATES.get(parentElement) !== st) return;
    STATES.delete(parentElement);
    st.alive = false;
    clearTimeout(st.commitTimer);
    st.unbind();
    st.el.remove();
  };
}
