"""lmdk_core.files.config.restored_view: the one restore of a saved view (Timeline and Map),
every part checked before anything is used."""

from __future__ import annotations

import numpy as np
import pytest

from lmdk_core.data.demo import demo_series
from lmdk_core.data.demo_track import demo_track
from lmdk_core.files.config import (
    RESTORED_SETTINGS,
    ViewConfig,
    config_from_json,
    config_to_json,
    restored_view,
)
from lmdk_core.files.data_reference import embedded_table
from lmdk_core.foundation.errors import InputError

SERIES, TRACK = demo_series(), demo_track()


def test_a_demo_series_view_restores_its_settings_and_landmarks():
    cfg = ViewConfig(landmarks=[3, 40], epsilon=0.5, scheme="skip", window=7,
                     mechanism="laplace", sensitivity=2.5, correlation_strength=0.3,
                     extra={"correlation": {"model": "smoothed", "strength": 0.2}})
    view = restored_view(config_from_json(config_to_json(cfg)), "demo-household", SERIES)
    assert view.data is None and view.landmarks == [3, 40] and view.stays == []
    assert view.settings == {"epsilon": 0.5, "scheme": "skip", "window": 7,
                             "mechanism": "laplace", "sensitivity": 2.5,
                             "correlation_strength": 0.3}
    assert tuple(view.settings) == RESTORED_SETTINGS["series"]
    assert view.correlation == {"model": "smoothed", "strength": 0.2}


def test_an_embedded_track_with_stays_leaves_the_stay_fixes_out_of_the_landmarks():
    table = embedded_table(TRACK)
    cfg = ViewConfig(data_kind="track", dataset="embedded", data=table,
                     time_kind=TRACK.time_kind, landmarks=[2, 10, 11, 12, 30], radius=250.0,
                     extra={"stays": "10-12", "cell_size_m": 400.0}).validate()
    checked = []
    view = restored_view(cfg, "demo-paris", TRACK,
                         check_data=lambda tr: checked.append(len(tr)) or tr)
    assert checked == [len(TRACK)] and len(view.data) == len(TRACK)
    np.testing.assert_allclose(view.data.lat, TRACK.lat)
    assert view.stays == [(10, 12)] and view.landmarks == [2, 30]
    assert view.settings["radius"] == 250.0 and view.settings["cell_size"] == 400.0
    assert set(view.settings) == set(RESTORED_SETTINGS["track"])


def test_a_track_without_a_saved_grid_takes_the_default_cell_size():
    cfg = ViewConfig(data_kind="track", dataset="demo-paris").validate()
    view = restored_view(cfg, "demo-paris", TRACK, default_cell_size=123.0)
    assert view.settings["cell_size"] == 123.0 and view.data is None


@pytest.mark.parametrize("change, message", [
    ({"dataset": "demo-elsewhere"}, "unknown dataset"),
    ({"landmarks": [10_000]}, "beyond the end of the series"),
    ({"extra": {"correlation": {"model": "magic"}}}, "unknown correlation model"),
])
def test_a_bad_series_view_is_refused_saying_what_is_wrong(change, message):
    cfg = ViewConfig(**change)
    with pytest.raises(InputError, match=message):
        restored_view(cfg, "demo-household", SERIES)


def test_a_bad_track_view_is_refused():
    for extra, message in [({"stays": "5-3"}, "ends before it starts"),
                           ({"stays": "0-100000"}, "outside|beyond|0 to"),
                           ({"cell_size_m": -1}, "cell")]:
        cfg = ViewConfig(data_kind="track", dataset="demo-paris", extra=extra)
        with pytest.raises(InputError, match=message):
            restored_view(cfg, "demo-paris", TRACK)


def test_the_size_check_refuses_before_anything_is_used():
    cfg = ViewConfig(data_kind="track", dataset="embedded", data=embedded_table(TRACK),
                     time_kind=TRACK.time_kind).validate()

    def too_big(tr):
        raise InputError("too many points")

    with pytest.raises(InputError, match="too many points"):
        restored_view(cfg, "demo-paris", TRACK, check_data=too_big)
