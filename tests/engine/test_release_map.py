"""The offline HTML map of a publishable track release (folium, Leaflet inlined): it holds
the publishable GeoJSON's content only and opens with no network request."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from lmdk_core.data.demo_track import demo_track, demo_track_landmarks
from lmdk_core.engine.release import release_trajectory
from lmdk_core.figures.release_map import released_track_map_html
from lmdk_core.files.export import PLANAR_NOISE, mechanism_text
from tests.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
SEED = 11  # the release's noise (numpy Planar Laplace)


def _map(scheme: str = "uniform"):
    tr, lm = demo_track(), demo_track_landmarks()
    rel = release_trajectory(tr.lat, tr.lon, lm, epsilon=1.0, radius=100.0, scheme=scheme,
                             seed=SEED)
    return tr, lm, rel, released_track_map_html(tr, rel, mechanism_text(
        "planar laplace", radius=100.0), PLANAR_NOISE)


def _numbers(html: str) -> set[str]:
    return set(re.findall(r"-?\d+\.\d+", html))


@pytest.mark.parametrize("scheme", ["uniform", "skip"])
def test_map_holds_the_released_track_only(scheme):
    tr, lm, rel, html = _map(scheme)
    numbers = _numbers(html)
    ok = ~rel.withheld
    # every released location is on the map (GeoJSON rounds to 7 decimals) ...
    for lat, lon in np.asarray(rel.released)[ok][::25]:
        assert f"{round(float(lat), 7)}" in numbers and f"{round(float(lon), 7)}" in numbers
    # ... and no original location, landmark or not (the original path is not there)
    for t in range(len(tr)):
        if np.allclose(np.asarray(rel.released)[t], [tr.lat[t], tr.lon[t]]):
            continue  # a released point equal to the original cannot be told apart
        assert f"{tr.lat[t]}" not in numbers or f"{tr.lon[t]}" not in numbers, t
    low = html.lower()
    assert "seed" not in low and "epsilon_t" not in low and "ε_t" not in html
    assert "Planar Laplace" in html and "Uniform" in html or "Skip" in html


def test_map_loads_nothing_from_a_cdn():
    _, _, _, html = _map()
    assert not re.findall(r"<(?:script|link)[^>]*(?:src|href)\s*=\s*[\"']?https?:", html)
    assert "cdn.jsdelivr" not in html and "code.jquery" not in html
    assert "L.tileLayer(" not in html and "tile.openstreetmap" not in html


def test_map_text_from_the_release_is_escaped():
    _, _, rel, _ = _map()
    html = released_track_map_html(demo_track(), rel, "<img src=x onerror=alert(1)>",
                                   "<script>alert(1)</script>")
    assert "<img src=x" not in html and "&lt;img src=x" in html
    assert "<script>alert(1)</script>" not in html


@pytest.mark.browser
def test_map_opens_offline_in_chromium(tmp_path):
    """Opened from disk, the map draws the released track and requests nothing but the
    file itself (no CDN script, no tile)."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    _, _, rel, html = _map()
    path = tmp_path / "map.html"
    path.write_text(html, encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        requests: list[str] = []
        errors: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_function("() => document.querySelector('.leaflet-container canvas')",
                               timeout=30_000)
        drawn = page.evaluate("""() => {
            const map = Object.values(window).find(v => v instanceof L.Map);
            let points = 0, lines = 0;
            map.eachLayer(l => { if (l instanceof L.CircleMarker) points++;
                                 else if (l instanceof L.Polyline) lines++; });
            return [points, lines];
        }""")
        browser.close()
    assert not errors, errors
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
    # one marker per released location, and the released path
    assert drawn[0] == int((~rel.withheld).sum()) and drawn[1] >= 1


def test_geo_release_writes_the_offline_map(tmp_path):
    p = run_cli("geo-release", "--noise", "fast", "--input", str(ROOT / "examples" / "track.gpx"),
                "--landmarks", "0,215", "--epsilon", "1", "--output", str(tmp_path / "r.html"))
    assert p.returncode == 0, p.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "leaflet" in html.lower()
