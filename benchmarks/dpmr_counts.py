"""The real table through dp-mobility-report (user-level DP), for bench_aggregate.py.

Run with the Python of its own virtual environment (dp-mobility-report needs pandas<2.2,
geopandas<1.0, numpy<2, scikit-learn 1.6.1, diffprivlib 0.6.4; it is not a dependency of
this project):

    /work/venv-dpmr/bin/python benchmarks/dpmr_counts.py TABLE.csv SEED

The table (``user,time,lat,lon``) is cut into trips at gaps of more than 20 minutes (the
data have no trip ids); the tessellation is the same 2 km grid over the same box as
``lmdk aggregate`` (tile ids = our cell numbers). dp-mobility-report counts **visits**
(each trip's start and end point) per tile over the whole period and per tile and
time-of-day window, with user-level privacy: each user's trips sampled down to
``max_trips_per_user`` and the budget split over its analyses. That is not our query
(users per cell per hourly window): the printout says which query each figure is of,
with its mean absolute error against dp-mobility-report's own non-private run.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pandas as pd

BBOX = (39.85, 116.20, 40.10, 116.50)
CELL = 2000.0
M = 111_320.0
PERIOD = ("2008-10-23", "2008-11-03")
MAX_TRIPS = 5


def tessellation():
    """Square 2 km tiles over BBOX, numbered as lmdk_core.aggregate.cells numbers them."""
    import geopandas as gpd
    from shapely.geometry import box

    s, w, n, e = BBOX
    per_lon = M * math.cos(math.radians((s + n) / 2))
    rows = math.ceil((n - s) * M / CELL)
    cols = math.ceil((e - w) * per_lon / CELL)
    polys, ids = [], []
    for r in range(rows):
        for c in range(cols):
            lat0, lon0 = s + r * CELL / M, w + c * CELL / per_lon
            polys.append(box(lon0, lat0, lon0 + CELL / per_lon, lat0 + CELL / M))
            ids.append(str(r * cols + c))
    return gpd.GeoDataFrame({"tile_id": ids}, geometry=polys, crs="EPSG:4326")


def trips(path: str) -> pd.DataFrame:
    df = pd.read_csv(path)
    df["datetime"] = pd.to_datetime(df["time"]).dt.tz_localize(None)
    df = df[(df["datetime"] >= PERIOD[0]) & (df["datetime"] < PERIOD[1])]
    df = df.sort_values(["user", "datetime"], kind="stable")
    gap = df.groupby("user")["datetime"].diff() > pd.Timedelta(minutes=20)
    df["tid"] = (gap | df["user"].ne(df["user"].shift())).cumsum()
    return pd.DataFrame({"uid": df["user"].astype(str), "tid": df["tid"],
                         "datetime": df["datetime"], "lat": df["lat"], "lng": df["lon"]})


def main() -> None:
    from dp_mobility_report import DpMobilityReport
    from dp_mobility_report import constants as const

    path, seed = sys.argv[1], int(sys.argv[2])
    df, tess = trips(path), tessellation()
    analyses = [const.VISITS_PER_TILE]
    kw = dict(max_trips_per_user=MAX_TRIPS, analysis_selection=analyses,
              user_privacy=True, seed_sampling=seed)
    private = DpMobilityReport(df, tess, privacy_budget=1.0, **kw).report
    exact = DpMobilityReport(df, tess, privacy_budget=None, **kw).report
    key = const.VISITS_PER_TILE
    a = private[key].data.set_index("tile_id")["visits"]
    b = exact[key].data.set_index("tile_id")["visits"].reindex(a.index).fillna(0)
    mae = float(np.mean(np.abs(a - b)))
    moe = getattr(private[key], "margin_of_error_laplace", float("nan"))
    print(f"dp-mobility-report (user level, ε = 1, max {MAX_TRIPS} trips per user, "
          f"{df['uid'].nunique()} users, {df['tid'].nunique()} trips): visits per 2 km tile "
          f"over the whole period, {len(a)} tiles: MAE {mae:.4g} visits per tile against "
          f"its own non-private run (mean true visits per tile {float(b.mean()):.4g}; "
          f"its Laplace margin of error {moe:.4g}). Not per hourly window: it has no "
          "such query.")


if __name__ == "__main__":
    main()
