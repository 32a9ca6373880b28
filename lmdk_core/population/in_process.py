"""A small population released in this process (the app's Population page), without Dask.

The same code path as the batch: the table is validated once
(:func:`~lmdk_core.population.table.prepare_users`), then the users are released in
chunks by :func:`~lmdk_core.population.partition.release_partition` — lockstep over the
users of a chunk, one independent stream per user, every user's spent allocation checked
by the one verifier (:func:`lmdk_core.engine.verifier.verify`) in the audit. Chunks only give a
progress report; a user's release does not depend on the chunking.

Also here, for the page and the tests:

* :func:`verdict_colours` — green / amber / red per user, the rule of
  :func:`lmdk_core.decision.verdict.privacy_verdict` applied to the audit's numbers;
* :func:`user_landmarks`, :func:`user_series`, :func:`user_track` — one user's data and
  landmarks, to open on the Timeline or Map page;
* :func:`population_correlation` — the transition matrices estimated from the whole
  population (Cao et al., ICDE 2017: transitions pooled over many users' sequences);
* :func:`publishable_csv` (released values only) and :func:`audit_csv` (CONFIDENTIAL).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.decision.verdict import AMBER, GREEN, LEAKAGE_RTOL, RED
from lmdk_core.engine.run_events import runs_of
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.plurals import agree, counted
from lmdk_core.foundation.quoting import quote_user_text
from lmdk_core.population.audit import AUDIT_COLUMNS
from lmdk_core.population.landmarks import (
    DiscoverySettings,
    discover_landmarks,
    discover_stays,
)
from lmdk_core.population.partition import BatchSettings, release_partition
from lmdk_core.population.table import PopulationColumns, prepare_users, user_starts

__all__ = [
    "MAX_APP_USERS",
    "PopulationModel",
    "PopulationRelease",
    "STANDARD_COLUMNS",
    "audit_csv",
    "BATCH_MATRIX_LABEL",
    "batch_config_is_confidential",
    "batch_config_json",
    "batch_dataset",
    "population_correlation",
    "publishable_csv",
    "read_table_bytes",
    "release_in_process",
    "standardise",
    "user_landmarks",
    "user_stays",
    "user_series",
    "user_track",
    "verdict_colours",
    "NO_LEAKAGE",
]

#: most users the app releases in its own process (more: the batch command on Dask)
MAX_APP_USERS = 1000
#: most rows the app accepts in a population (more: the batch command)
MAX_APP_ROWS = 1_000_000

#: the columns of a standardised frame (:func:`standardise`), per kind
STANDARD_COLUMNS = {
    "series": PopulationColumns(user="user", time="time", value="value"),
    "track": PopulationColumns(user="user", time="time", lat="lat", lon="lon"),
}


def standardise(raw: pd.DataFrame, cols: PopulationColumns) -> tuple[pd.DataFrame, str]:
    """Validate ``raw`` and return it with the columns of :data:`STANDARD_COLUMNS` (plus
    ``landmark`` when a flag column is named), sorted by user and time, and its time
    kind. Refuses more than :data:`MAX_APP_USERS` users or :data:`MAX_APP_ROWS` rows
    with the batch command as the fix."""
    if len(raw) > MAX_APP_ROWS:
        raise InputError(f"the table has {len(raw):,} rows; the app releases up to "
                         f"{MAX_APP_ROWS:,} — run the batch command shown below on the file")
    frame, kind = prepare_users(raw, cols)
    if frame.empty:
        raise InputError("the table has no rows")
    n = frame["user"].nunique()
    if n > MAX_APP_USERS:
        raise InputError(f"the table has {n:,} users; the app releases up to "
                         f"{MAX_APP_USERS:,} — run the batch command shown below on the file")
    return frame, kind


def _standard_cols(kind: str, flagged: bool) -> PopulationColumns:
    base = STANDARD_COLUMNS[kind]
    return PopulationColumns(user=base.user, time=base.time, value=base.value, lat=base.lat,
                             lon=base.lon, landmark="landmark" if flagged else None)


@dataclass
class PopulationRelease:
    """The publishable rows (``user, time, released`` or ``released_lat,
    released_lon``) and the CONFIDENTIAL audit (one row per user, the columns of
    :data:`~lmdk_core.population.audit.AUDIT_COLUMNS`) of a population."""

    released: pd.DataFrame
    audit: pd.DataFrame
    time_kind: str
    #: decimal places of the released values (``BatchSettings.release_decimals``)
    decimals: int | None = None


def release_in_process(frame: pd.DataFrame, kind: str, settings: BatchSettings,
                       chunk_users: int = 25,
                       progress: Callable[[int, int], object] | None = None
                       ) -> PopulationRelease:
    """Release every user of a standardised ``frame`` (:func:`standardise`) with
    ``settings``; ``progress(done_users, users)`` after every chunk."""
    cols = _standard_cols(kind, "landmark" in frame)
    users = frame["user"].to_numpy()
    starts = user_starts(users)
    n_users = starts.size - 1
    released, audits, time_kind = [], [], "none"
    for lo in range(0, n_users, max(1, int(chunk_users))):
        hi = min(n_users, lo + max(1, int(chunk_users)))
        part = frame.iloc[int(starts[lo]):int(starts[hi])]
        res = release_partition(part, cols, settings)
        released.append(res.released)
        audits.append(res.audit)
        time_kind = res.time_kind
        if progress is not None:
            progress(hi, n_users)
    audit = pd.concat(audits, ignore_index=True) if audits else pd.DataFrame(
        columns=AUDIT_COLUMNS)
    return PopulationRelease(pd.concat(released, ignore_index=True), audit, time_kind,
                             settings.release_decimals())


def verdict_colours(audit: pd.DataFrame, epsilon: float,
                    leakage_target: float | None = None) -> np.ndarray:
    """Each user's verdict colour (:mod:`lmdk_core.decision.verdict`): red where the verifier
    refused the allocation, amber where it passed but the largest landmark TPL under the
    correlation model exceeds α (default ε) by more than the relative tolerance, green
    otherwise (also when no correlation model was chosen: the theorem's verdict alone);
    grey (:data:`NO_LEAKAGE`) where the verifier passed but the landmark TPL could not be
    computed (the audit's ``leakage_note`` says why, e.g. more grid cells than the
    leakage handles): such a user is counted apart, never as green or amber."""
    alpha = float(epsilon if leakage_target is None else leakage_target)
    private = audit["landmark_private"].to_numpy(dtype=bool)
    tpl = audit["max_landmark_tpl"].to_numpy(dtype=float)
    over = np.isfinite(tpl) & (tpl > alpha * (1 + LEAKAGE_RTOL))
    note = (audit["leakage_note"].fillna("").astype(str).to_numpy() if "leakage_note" in audit
            else np.full(len(audit), ""))
    unknown = ~np.isfinite(tpl) & (note != "")
    return np.where(~private, RED, np.where(over, AMBER, np.where(unknown, NO_LEAKAGE, GREEN)))


#: the verdict colour of a user whose landmark TPL could not be computed
NO_LEAKAGE = "grey"


def _user_rows(frame: pd.DataFrame, user: object) -> pd.DataFrame:
    rows = frame[frame["user"] == user]
    if rows.empty:
        raise InputError(f"no user {quote_user_text(str(user), 40)} in this population")
    return rows


def user_landmarks(frame: pd.DataFrame, user: object, time_kind: str,
                   discovery: DiscoverySettings) -> list[int]:
    """User ``user``'s landmarks (0-based indices into its rows sorted by time): its
    flags, or the detectors' finds — the landmarks its release used."""
    rows = _user_rows(frame, user)
    if "landmark" in rows:
        return np.flatnonzero(rows["landmark"].to_numpy(dtype=bool)).tolist()
    data = (rows[["lat", "lon"]].to_numpy(dtype=float) if "lat" in rows
            else rows["value"].to_numpy(dtype=float))
    return discover_landmarks(rows["time"].to_numpy(), data, time_kind, discovery).tolist()


def user_stays(frame: pd.DataFrame, user: object, time_kind: str,
               discovery: DiscoverySettings) -> list[tuple[int, int]]:
    """User ``user``'s stays released as one landmark event each, as the batch released
    them (docs/stays.md): with ``discovery.stays_as_events``, the detector's stays of a
    track without a flag column, the runs of consecutive flagged fixes of a track with
    one, a series' runs of consecutive landmarks (docs/series-events.md); otherwise none."""
    rows = _user_rows(frame, user)
    if not discovery.stays_as_events:
        return []
    if "lat" not in rows or "landmark" in rows:
        return runs_of(user_landmarks(frame, user, time_kind, discovery))
    return discover_stays(rows["time"].to_numpy(), rows[["lat", "lon"]].to_numpy(dtype=float),
                          time_kind, discovery)


def user_series(frame: pd.DataFrame, user: object, time_kind: str, unit: str = "") -> Series:
    """User ``user``'s values as a :class:`~lmdk_core.data.series.Series`."""
    rows = _user_rows(frame, user)
    time = rows["time"].to_numpy()
    return Series(time=time, values=rows["value"].to_numpy(dtype=float),
                  time_kind="datetime" if time_kind == "datetime" else "number",
                  name=f"user {user}", unit=unit)


def user_track(frame: pd.DataFrame, user: object, time_kind: str) -> Track:
    """User ``user``'s points as a :class:`~lmdk_core.data.track.Track`."""
    rows = _user_rows(frame, user)
    return Track(lat=rows["lat"].to_numpy(dtype=float), lon=rows["lon"].to_numpy(dtype=float),
                 time=rows["time"].to_numpy(),
                 time_kind="datetime" if time_kind == "datetime" else "number",
                 name=f"user {user}")


# ------------------------------------------------------------------ the population's model
@dataclass(frozen=True)
class PopulationModel:
    """Transition matrices estimated from a whole population: ``forward`` (counted
    transitions), ``backward`` (the same transitions reversed), the number of users and
    of counted transitions, and a description of the states."""

    forward: np.ndarray
    backward: np.ndarray
    users: int
    transitions: int
    description: str

    @property
    def n_states(self) -> int:
        return int(self.forward.shape[0])


def _normalise(C: np.ndarray, smoothing: float) -> np.ndarray:
    """Rows of counts + smoothing, normalised; a row with nothing becomes uniform (as
    :func:`lmdk_core.leakage.estimation.transition_matrices`)."""
    n = C.shape[0]
    C = C + smoothing
    tot = C.sum(axis=1, keepdims=True)
    P = np.divide(C, tot, out=np.full_like(C, 1.0 / n), where=tot > 0)
    P[tot[:, 0] == 0] = 1.0 / n
    return P


def population_correlation(frame: pd.DataFrame, kind: str, *, bins: int = 10,
                           binning: str = "width", smoothing: float = 1.0,
                           cell_size_m: float = 250.0, unit: str = "",
                           max_states: int = 500) -> PopulationModel:
    """The Markov model of the whole population (Cao et al., ICDE 2017, estimate the
    transition matrix from many users' sequences).

    Series: the pooled values of every user are cut into ``bins`` bins by ``binning``
    (the Leakage page's estimated model, :func:`~lmdk_core.leakage.estimation.
    discretize_series`, but with the population's bins); tracks: every point is mapped to
    square grid cells of ``cell_size_m`` metres around the population's mean position
    (:func:`~lmdk_core.leakage.estimation.trajectory_cells`). Transitions are counted
    between consecutive timestamps of the same user only (never from one user's last
    row to the next user's first), with ``smoothing`` added to every count.
    """
    from lmdk_core.leakage.estimation import discretize_series, trajectory_cells

    if frame.empty:
        raise InputError("the population has no rows")
    users = frame["user"].to_numpy()
    if kind == "track":
        cells = trajectory_cells(frame["lat"].to_numpy(dtype=float),
                                 frame["lon"].to_numpy(dtype=float), cell_size_m)
        states, n = cells.states, cells.n_states
        what = (f"grid cells of {cell_size_m:,.0f} m visited by the population ({n} "
                "states)")
        if n > max_states:
            raise InputError(f"the population visits {n:,} grid cells of {cell_size_m:,.0f} m; "
                             f"the leakage handles up to {max_states} states — choose larger "
                             "cells")
    else:
        disc = discretize_series(frame["value"].to_numpy(dtype=float), int(bins), binning)
        states, n = disc.states, disc.n_states
        cut = "equal-width" if binning == "width" else "equal-count"
        u = f" {unit}" if unit else ""
        what = (f"{n} {cut} bins of the pooled values ({disc.edges[0]:.4g}–"
                f"{disc.edges[-1]:.4g}{u})")
    same = users[1:] == users[:-1]
    a, b = states[:-1][same], states[1:][same]
    C = np.zeros((n, n))
    np.add.at(C, (a, b), 1.0)
    n_users = int(pd.unique(users).size)
    count = "add-one smoothing" if smoothing == 1 else f"{smoothing:g} added to every count"
    desc = (f"estimated from {n_users:,} users: {what}, {int(same.sum()):,} transitions "
            f"between consecutive timestamps of the same user counted with {count}")
    return PopulationModel(_normalise(C, float(smoothing)), _normalise(C.T.copy(),
                                                                      float(smoothing)),
                           n_users, int(same.sum()), desc)


# ------------------------------------------------------------------ files
def _times(time: pd.Series, time_kind: str) -> list:
    if time_kind == "datetime":
        return [str(t) for t in np.datetime_as_string(time.to_numpy(dtype="datetime64[s]"),
                                                      unit="s")]
    return time.tolist()


def publishable_csv(rel: PopulationRelease, header: list[str]) -> str:
    """The publishable CSV: ``# header`` lines (ε, scheme, mechanism, sampler — nothing
    about landmarks, raw data or the seed), then ``user,time,released`` (or
    ``released_lat,released_lon``); withheld timestamps empty. Refused when any user's
    release is not landmark-private (as the batch writes no publishable file then)."""
    from lmdk_core.files.export import csv_with_header, rounding_line

    bad = int((~rel.audit["landmark_private"].astype(bool)).sum())
    if bad:
        who = counted(bad, "user's release", "users' releases")
        raise InputError(f"{who} "
                         f"{agree(bad, 'is', 'are')} not landmark-private under these "
                         "settings; nothing publishable")
    out = rel.released.copy()
    out["time"] = _times(out["time"], rel.time_kind)
    keep = ["user", "time"] + [c for c in ("released", "released_lat", "released_lon")
                               if c in out]
    if rel.decimals is not None:  # the rows are rounded already (release_partition)
        header = [*header, rounding_line(rel.decimals)]
    return csv_with_header(header, out[keep])


def audit_csv(rel: PopulationRelease, meta: dict[str, str]) -> str:
    """The CONFIDENTIAL audit CSV: the label and the settings as ``#`` lines, then one
    row per user."""
    from lmdk_core.files.export import csv_with_header
    from lmdk_core.population.dask_driver import AUDIT_LABEL

    lines = [AUDIT_LABEL] + [f"{k}: {v}" for k, v in meta.items()]
    return csv_with_header(lines, rel.audit)


def read_table_bytes(data: bytes, filename: str) -> pd.DataFrame:
    """A long table uploaded as bytes: ``.parquet`` / ``.pq`` read with pyarrow, anything
    else as CSV (every cell as text; :func:`standardise` parses times, numbers and
    flags with clear messages)."""
    name = quote_user_text(filename)
    if not data:
        raise InputError(f"{name} is empty")
    parquet = filename.lower().endswith((".parquet", ".pq"))
    try:
        df = _read_parquet_upload(data, name) if parquet else _read_csv_upload(data)
    except InputError:
        raise
    except Exception as exc:  # parser errors of pandas / pyarrow, decoding errors
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        fmt = "Parquet" if parquet else "CSV"
        raise InputError(f"cannot read {name} as {fmt}: {quote_user_text(first, 120)}; "
                         "upload a CSV with a header line or a Parquet file") from None
    if df.empty:
        raise InputError(f"{name} has no rows")
    df.columns = [str(c) for c in df.columns]
    if len(set(df.columns)) != len(df.columns):
        raise InputError(f"{name} has two columns with the same name; rename one")
    return df


def _read_parquet_upload(data: bytes, name: str) -> pd.DataFrame:
    """An uploaded Parquet file, refused from its footer's row count above
    :data:`MAX_APP_ROWS` before any data is decompressed (a few hundred kB of Parquet
    can hold tens of millions of rows: gigabytes)."""
    import io

    import pyarrow.parquet as pq

    rows = pq.ParquetFile(io.BytesIO(data)).metadata.num_rows
    if rows > MAX_APP_ROWS:
        raise InputError(f"{name} has {rows:,} rows; the app releases up to "
                         f"{MAX_APP_ROWS:,} — run the batch command shown below on "
                         "the file")
    return pd.read_parquet(io.BytesIO(data))


def _read_csv_upload(data: bytes) -> pd.DataFrame:
    """An uploaded CSV, every cell as text (empty cells missing)."""
    import io

    return pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False,
                       na_values=[""], comment=None)


def batch_dataset(kind: str, name: str | None = None, sha256: str | None = None) -> dict:
    """The ``dataset`` / ``data_file`` fields of a batch configuration: an uploaded
    population is named by its file (``dataset = "file"``, name + SHA-256), never as a
    demo dataset; the Population page's demo population keeps the demo's name."""
    if sha256 is not None:
        return {"dataset": "file", "data_file": {"name": str(name), "sha256": sha256.lower()}}
    return {"dataset": "demo-household" if kind == "series" else "demo-paris",
            "data_file": None}


def batch_config_json(cfg) -> str:
    """The configuration file of ``lmdk batch`` written by the app: the view
    configuration's JSON without the ``confidential`` label, since it holds no data, no
    landmarks and no seed (``cfg.data`` must be None, ``cfg.landmarks`` empty and
    ``cfg.seed`` None — refused otherwise), and no transition matrix (estimated from
    raw values, it is derived data: :func:`batch_config_is_confidential`)."""
    import json

    from lmdk_core.files.config import config_to_json

    if cfg.data is not None or list(cfg.landmarks) or cfg.seed is not None \
            or cfg.reproducible:
        raise InputError("a batch configuration holds no data, landmarks or seed")
    body = json.loads(config_to_json(cfg))
    body.pop("confidential", None)
    if batch_config_is_confidential(cfg):
        body = {"confidential": BATCH_MATRIX_LABEL, **body}
    return json.dumps(body, indent=2)


#: the label of a batch configuration that holds a transition matrix
BATCH_MATRIX_LABEL = ("CONFIDENTIAL — holds the transition matrix of the correlation model, "
                      "which may be estimated from the users' raw values (derived data "
                      "about the population); keep it with the raw data")


def batch_config_is_confidential(cfg) -> bool:
    """A batch configuration is confidential when its correlation model carries a
    transition matrix (``extra.correlation.model == "matrix"``): the Population page
    estimates it from every user's raw values (Cao et al., ICDE 2017), and an uploaded
    one may have been. A model that only says how to estimate the matrix from each
    user's own data (``estimated``, ``grid``) or a parametric one (``smoothed``) holds
    nothing derived from the data."""
    spec = cfg.extra.get("correlation") if isinstance(cfg.extra, dict) else None
    return isinstance(spec, dict) and (
        spec.get("model") == "matrix" or any(k in spec for k in ("forward", "backward")
                                             if isinstance(spec.get(k), list)))
