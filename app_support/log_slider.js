// Log-scale slider arithmetic shared by the in-browser previews (live_chart.js's ε
// slider and map_scrub.js's ε and r sliders); app_support/live_chart.py and
// app_support/map_scrub.py put this file in front of their component's script.

function fmt(x) {
  // 3 significant digits, no trailing zeros (what the typed field shows)
  return Number(x.toPrecision(3)).toString();
}

function valueAt(range, pos) {
  // slider position 0 … steps on a log scale from low to high, 3 significant digits
  const a = Math.log(range.low), b = Math.log(range.high);
  return Number(Math.exp(a + (b - a) * pos / range.steps).toPrecision(3));
}

function posOf(range, x) {
  // the slider position of value x (the inverse of valueAt, rounded)
  const a = Math.log(range.low), b = Math.log(range.high);
  return Math.round((Math.log(x) - a) / (b - a) * range.steps);
}
