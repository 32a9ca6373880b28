"""What Streamlit does not give a keyboard or screen-reader user, added once per tab.

* **A "Skip to the downloads" link**, the second Tab on a page with downloads: Enter
  puts the focus on its first download button (the publishable file), so the download is
  three key presses from the top of the page (it was ~24 Tab presses on the Timeline).
* **A "Skip to the landmarks" link**, the Tab after it on the Timeline and the Map:
  Enter puts the focus in the landmark field (on the Map it was 35 Tab presses away).
* **A "Skip to the settings" link** (WCAG 2.1 2.4.1, bypass blocks): the first Tab of a
  page shows it; Enter moves the keyboard focus past the page list to ε (opening the
  sidebar on a phone), and a "Back to the page" link after the scheme returns to the
  page's title. Streamlit's own "Skip to main content" link, the Tab after these,
  goes to the page itself (then the Timeline's landmark picker is 5 Tab presses away).
* **A text alternative for every chart** (1.1.1, non-text content): each plotly chart is
  marked as a figure named by its ``layout.meta.alt`` (set by the figure functions of
  :mod:`lmdk_core.figures`), or else by its title, panel titles and trace names. The
  chart's own SVG is hidden from screen readers: its tick labels read as a stream of
  numbers. Vega-Lite charts carry their spec's ``description`` (vega-embed's own label).
* **Into a popover with Tab**: Tab on an open popover's button (the Timeline's
  "Suggest") moves into the popover; Escape closes it.
* **A focus ring on every control** (2.4.7, focus visible): a 2 px outline in the text
  colour on whatever has the keyboard focus, also where Streamlit's own ring is a faint
  tint of the accent colour.

It is our own fixed code with no user input in it, like the touch script of
:mod:`app_support.touch_select`; the labels are set as text (never parsed as HTML).
"""

from __future__ import annotations

import streamlit as st

__all__ = ["enable_accessibility"]

_SCRIPT = """<style>
.lmdk-skip { position: fixed; left: 0.5rem; top: -4rem; z-index: 1000100;
  background: #ffffff; color: #111111; padding: 0.5rem 0.9rem; border-radius: 0.4rem;
  border: 2px solid #111111; font-weight: 600; text-decoration: none; }
.lmdk-skip:focus { top: 0.5rem; }
.lmdk-to-page { position: absolute; left: -10000px; width: 1px; height: 1px;
  overflow: hidden; }
.lmdk-to-page:focus { position: static; width: auto; height: auto; display: inline-block;
  padding: 0.3rem 0.6rem; border: 2px solid #111111; border-radius: 0.4rem;
  color: #111111; background: #ffffff; font-weight: 600; text-decoration: none; }
:focus-visible { outline: 2px solid #111111 !important; outline-offset: 2px !important; }
/* st.code's syntax colours on the light theme: Streamlit's are below 4.5:1 on the code
   background #fcfcfb (its light blue #00a4d4 2.8:1, green #09ab3b 3.0:1, orange #ed6f13
   3.0:1, grey #808495 3.6:1, blue #1c83e1 3.8:1); darker shades of the same hues, each
   ≥ 5.7:1 there. Only on a light page (class set below): the dark theme keeps its own */
.lmdk-light [data-testid=stCode] .token:is(.comment, .prolog, .doctype, .cdata, .punctuation,
  .unchanged) { color: #5c5f6b !important; }
.lmdk-light [data-testid=stCode] .token:is(.attr-name, .property, .variable) {
  color: #00678a !important; }
.lmdk-light [data-testid=stCode] .token:is(.boolean, .constant, .symbol, .string, .char,
  .attr-value, .inserted) { color: #1a7431 !important; }
.lmdk-light [data-testid=stCode] .token:is(.number, .regex) { color: #1b6e63 !important; }
.lmdk-light [data-testid=stCode] .token:is(.operator, .entity, .decorator, .atrule) {
  color: #a6470a !important; }
.lmdk-light [data-testid=stCode] .token:is(.keyword, .tag, .function, .class-name,
  .selector) { color: #0b5cad !important; }
.lmdk-light [data-testid=stCode] .token:is(.important, .deleted) { color: #b3261e !important; }
/* KaTeX's 2 px spacer (.vlist-s) made most display formulas scroll sideways by 2 px (a
   scroll region the keyboard cannot reach, axe's scrollable-region-focusable) */
.katex-display { padding-right: 2px; }
/* ε and the scheme above the verdict: for phones, where the sidebar covers the page
   (Streamlit's sidebar becomes an overlay at 768 px and below) */
@media (min-width: 769px) { .st-key-lmdk_row_settings { display: none !important; } }
/* scrolled to (or focused), it comes out below Streamlit's fixed header, not under it */
.st-key-lmdk_row_settings { scroll-margin-top: 4.5rem; }
/* Streamlit stacks every st.columns row below 640 px. A container keyed 'lmdk_row_…'
   keeps its columns side by side (short fields and buttons); one keyed 'lmdk_wrap_…'
   gives its first column the whole width and keeps the others in one row under it */
/* room above the Map's landmark table for the table's own toolbar */
.st-key-lmdk_table_gap { padding-top: 1.9rem; }
/* the tab's key (app_support/tab_memory.py) and the other components that draw nothing
   take no room */
.st-key-lmdk_tab_memory_box, [class*="st-key-lmdk_hidden_"] { display: none !important; }
/* Home's page list: a link's line wraps instead of ending in "…" on a phone */
.st-key-lmdk_pages [data-testid^=stPageLink] * { white-space: normal !important;
  overflow: visible !important; text-overflow: clip !important; height: auto !important; }
@media (min-width: 641px) { [class*="st-key-lmdk_narrow_"] { display: none !important; } }
@media (max-width: 640px) {
  [class*="st-key-lmdk_wide_"] { display: none !important; }
  [class*="st-key-lmdk_row_"] [data-testid=stColumn],
  [class*="st-key-lmdk_wrap_"] [data-testid=stColumn]:not(:first-child) {
    min-width: 0 !important; }
}
</style>
<script>
(function () {
  if (window.__lmdkA11y) { return; }
  window.__lmdkA11y = true;
  var doc = window.document;

  // Streamlit's own "Skip to main content" link follows; this one goes to the shared
  // settings, after the page list (without it ε is 15 Tab presses away)
  function settings() {
    // on a phone, ε above the verdict (app_support.session.settings_on_page) when the page
    // has it: the verdict stays in view
    var here = doc.querySelector(
      ".st-key-lmdk_row_settings input[aria-label^='Total privacy budget']");
    if (here && here.getClientRects().length) { return here; }
    return doc.querySelector("[data-testid=stSidebar] input[aria-label^='Total privacy budget']");
  }
  var skip = doc.createElement("a");
  skip.className = "lmdk-skip";
  skip.href = "#";
  skip.textContent = "Skip to the settings (ε and the scheme)";
  skip.addEventListener("click", function (e) {
    e.preventDefault();
    var target = settings();
    if (target && target.getClientRects().length && target.getBoundingClientRect().right > 0) {
      target.focus();
      return;
    }
    // a closed sidebar (a phone): open it, then focus ε once it is drawn
    var open = doc.querySelector("[data-testid=stExpandSidebarButton]") ||
      doc.querySelector("[data-testid=stSidebarCollapsedControl] button");
    if (open) { open.click(); }
    var tries = 0;
    (function wait() {
      var t = settings();
      if (t && t.getBoundingClientRect().right > 0) { t.focus(); return; }
      if (++tries < 40) { window.setTimeout(wait, 50); }
    })();
  });
  // in a navigation landmark of their own (axe's "region": all content in landmarks)
  var nav = doc.createElement("nav");
  nav.setAttribute("aria-label", "Skip links");
  nav.appendChild(skip);
  doc.body.insertBefore(nav, doc.body.firstChild);

  // the second Tab: to the page's first download (the publishable file comes first), on
  // pages that have one (it was ~24 Tab presses away on the Timeline)
  function download() {
    var b = doc.querySelector("[data-testid=stMain] [data-testid=stDownloadButton] button");
    return b && b.getClientRects().length ? b : null;
  }
  var toDownload = doc.createElement("a");
  toDownload.className = "lmdk-skip lmdk-skip-download";
  toDownload.href = "#";
  toDownload.textContent = "Skip to the downloads";
  toDownload.style.display = "none";
  toDownload.addEventListener("click", function (e) {
    e.preventDefault();
    var b = download();
    if (!b) { return; }
    b.scrollIntoView({block: "center"});
    b.focus();
  });
  skip.after(toDownload);
  // the third Tab: to the landmark field of the Timeline and the Map (on the Map it was
  // 35 Tab presses away, past the sidebar, the verdict and the map's own controls)
  function landmarks() {
    var boxes = doc.querySelectorAll("[data-testid=stMain] [data-testid=stMultiSelect]");
    for (var i = 0; i < boxes.length; i++) {
      var l = boxes[i].querySelector("label");
      var input = boxes[i].querySelector("input");
      var word = l ? (l.textContent || "").trim().split(" ")[0] : "";
      if (input && word === "Landmarks" && boxes[i].getClientRects().length) {
        return input;
      }
    }
    return null;
  }
  var toLandmarks = doc.createElement("a");
  toLandmarks.className = "lmdk-skip lmdk-skip-landmarks";
  toLandmarks.href = "#";
  toLandmarks.textContent = "Skip to the landmarks";
  toLandmarks.style.display = "none";
  toLandmarks.addEventListener("click", function (e) {
    e.preventDefault();
    var f = landmarks();
    if (!f) { return; }
    f.scrollIntoView({block: "center"});
    f.focus();
  });
  toDownload.after(toLandmarks);
  // "Back to the page" (drawn in the sidebar after the scheme): to the page's title
  doc.addEventListener("click", function (e) {
    var a = e.target && e.target.closest && e.target.closest("a.lmdk-to-page");
    if (!a) { return; }
    e.preventDefault();
    var m = doc.querySelector("[data-testid=stMain]");
    var h = m && (m.querySelector("h1") || m);
    if (!h) { return; }
    h.setAttribute("tabindex", "-1");
    h.focus();
  });

  // Tab on an open popover's button goes into the popover: Streamlit draws its content
  // at the end of the page, so Tab went on through the page instead
  doc.addEventListener("keydown", function (e) {
    if (e.key !== "Tab" || e.shiftKey) { return; }
    var a = doc.activeElement;
    if (!a || !a.matches("[data-testid=stPopoverButton][aria-expanded=true]")) { return; }
    var bodies = doc.querySelectorAll("[data-testid=stPopoverBody]");
    var body = bodies[bodies.length - 1];
    var first = body && body.querySelector("button:not([disabled]), input:not([disabled]), " +
      "a[href], select, textarea, summary, [tabindex]:not([tabindex='-1'])");
    if (first) { e.preventDefault(); first.focus(); }
  }, true);

  function text(t) {
    return (t || "").toString().replace(/<[^>]*>/g, " ").replace(/\\s+/g, " ").trim();
  }
  function plotlyLabel(gd) {
    var lay = gd.layout || {};
    if (lay.meta && lay.meta.alt) { return text(lay.meta.alt); }
    var parts = [];
    var title = lay.title && (lay.title.text || lay.title);
    if (typeof title === "string" && text(title)) { parts.push(text(title)); }
    (lay.annotations || []).forEach(function (a) {
      if (a && a.xref === "paper" && a.yref === "paper" && text(a.text)) {
        parts.push(text(a.text));
      }
    });
    var names = [];
    (gd.data || []).forEach(function (tr) {
      var n = text(tr && tr.name);
      if (n && names.indexOf(n) < 0) { names.push(n); }
    });
    if (names.length) { parts.push("shows: " + names.join(", ")); }
    return "Chart. " + (parts.join(". ") || "No description.");
  }
  function label() {
    var shown = download() ? "" : "none";
    if (toDownload.style.display !== shown) { toDownload.style.display = shown; }
    var lmShown = landmarks() ? "" : "none";
    if (toLandmarks.style.display !== lmShown) { toLandmarks.style.display = lmShown; }
    // the live charts (app_support/live_chart.py) name themselves
    doc.querySelectorAll(".js-plotly-plot:not(.lmdk-live-plot)").forEach(function (gd) {
      var l = plotlyLabel(gd);
      if (gd.getAttribute("aria-label") !== l) {
        gd.setAttribute("role", "figure");
        gd.setAttribute("aria-label", l);
      }
      gd.querySelectorAll("svg.main-svg").forEach(function (s) {
        if (s.getAttribute("aria-hidden") !== "true") { s.setAttribute("aria-hidden", "true"); }
      });
    });
  }
  // a formula or code block wider than the page (on a phone) scrolls sideways: it takes
  // the keyboard focus then, so the arrow keys scroll it (2.1.1; axe's
  // scrollable-region-focusable). Checked whenever its size changes (an expander
  // opened, the window turned), and only then a Tab stop
  var scrolls = new ResizeObserver(function (entries) {
    entries.forEach(function (en) {
      var e = en.target;
      var wide = e.scrollWidth > e.clientWidth + 1;
      if (wide && !e.hasAttribute("tabindex")) {
        e.setAttribute("tabindex", "0");
        e.setAttribute("data-lmdk-scroll", "");
      } else if (!wide && e.hasAttribute("data-lmdk-scroll")) {
        e.removeAttribute("tabindex");
        e.removeAttribute("data-lmdk-scroll");
      }
    });
  });
  function scrollers() {
    doc.querySelectorAll(".katex-display, [data-testid=stCode] pre").forEach(function (e) {
      if (!e.__lmdkScroll) { e.__lmdkScroll = true; scrolls.observe(e); }
    });
    // the code colours above: on a light page only
    var app = doc.querySelector("[data-testid=stApp]");
    var bg = app ? getComputedStyle(app).backgroundColor.match(/\\d+/g) : null;
    var light = !!bg && (+bg[0]) + (+bg[1]) + (+bg[2]) > 3 * 160;
    doc.documentElement.classList.toggle("lmdk-light", light);
  }
  // labelled as soon as the chart's nodes are there (the observer runs after the task that
  // drew them; it only sets attributes, which it does not observe). A 250 ms timer made
  // the label land a quarter of a second after every re-drawn chart
  new MutationObserver(function () { label(); scrollers(); }).observe(
    doc.body, {subtree: true, childList: true});
  label();
  scrollers();
})();
</script>"""


def enable_accessibility() -> None:
    """Install the settings link, chart labels and focus ring (idempotent; draws nothing
    until the keyboard reaches the skip link)."""
    with st.sidebar:
        st.html(_SCRIPT, unsafe_allow_javascript=True)
