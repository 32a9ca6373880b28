"""The files of an aggregate release: the publishable statistics and the CONFIDENTIAL audit.

**Publishable** (CSV with ``#`` header lines, or Parquet with the same lines in its
metadata): columns ``window``, ``cell``, ``cell_lat``, ``cell_lon`` (tracks), ``released``,
``low``, ``high``. The header holds public settings only — the statistic and its
declared bounds, the grids (declared or marked as read from the data), ε, the scheme,
k or the public landmark windows, the noise — and nothing that depends on the raw data
except through the noise: never a landmark count, an ε_t that reveals one, or a
measured error (docs/privacy-model.md).

**Audit** (first line ``# CONFIDENTIAL …``): the same rows with the true statistic
``true``, the budget ε_t and whether the window is a fresh release; beside it
``<audit>.users.csv`` (or ``.users.parquet``): one row per user with its landmark
windows, dropped contributions, refusal and verdict. Both are written with mode 0600
through a temporary file in the same folder and ``os.replace`` (never through a link).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from lmdk_core.aggregate.population_release import AggregateResult
from lmdk_core.files.atomic_write import AtomicFile
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["AUDIT_LABEL", "EXPLORATORY_LABEL", "PUBLISHABLE_LABEL", "audit_frame",
           "grids_declared", "header_lines",
           "od_audit_frame", "od_publishable_frame", "publishable_frame", "users_audit_path",
           "save_table"]

PUBLISHABLE_LABEL = ("lmdk aggregate: publishable released statistics (no raw data, no "
                     "landmarks, no per-user budgets, no true values)")
EXPLORATORY_LABEL = ("lmdk aggregate: EXPLORATORY, not publishable: the period or the "
                     "map box was read from the data (declare --start, --end and, for "
                     "tracks, --bbox to publish); released statistics only")
AUDIT_LABEL = ("CONFIDENTIAL: true statistics, per-window budgets and per-user landmark "
               "verdicts of an aggregate release; keep with the raw data")


def _noise_line(noise: str, seeded: bool = False) -> str:
    from lmdk_core.mechanisms.exact_noise import FAST_SAMPLER_NAME, sampler_description

    if noise == "exact":
        return "noise: " + sampler_description()
    return "noise: " + FAST_SAMPLER_NAME + (
        "; drawn from a fixed --seed: whoever knows the seed regenerates the noise and "
        "recovers the data" if seeded else "")


def decimals(result: AggregateResult) -> int:
    """Decimal places of the released values and intervals: a step of at most 1/1000 of
    the smallest noise scale Δ/ε (:func:`lmdk_core.files.export.release_decimals`; public
    settings only)."""
    from lmdk_core.files.export import release_decimals

    return release_decimals(result.spec.epsilon, result.spec.statistic.sensitivity)


def grids_declared(result: AggregateResult) -> bool:
    """Whether the window grid (and the cell grid of a track statistic) were declared:
    a grid read from the data depends on the raw data, so the file is then exploratory."""
    spec = result.spec
    return bool(spec.windows.declared and (spec.cells is None or spec.cells.declared))


def header_lines(result: AggregateResult, noise: str, seeded: bool = False) -> list[str]:
    """The publishable header: public settings only (module docstring); its first line
    says EXPLORATORY instead when a grid was read from the data."""
    spec, plan = result.spec, result.plan
    label = PUBLISHABLE_LABEL if grids_declared(result) else EXPLORATORY_LABEL
    lines = [label, spec.statistic.describe(), spec.windows.describe()]
    if spec.cells is not None:
        lines.append(spec.cells.describe())
    lines.append(spec.landmarks.describe())
    if spec.landmarks.kind == "public" and spec.landmarks.windows.size:
        labels = spec.windows.labels()
        lines.append("public landmark windows: "
                     + ", ".join(labels[i] for i in spec.landmarks.windows))
    lines.append(f"privacy: landmark privacy with total ε = {spec.epsilon:g}; scheme "
                 f"{plan.scheme}; {_budget_text(result)}")
    if result.leakage is not None:
        lines.append(result.leakage.describe(spec.epsilon))
    lines.append(_noise_line(noise, seeded))
    from lmdk_core.files.export import rounding_line

    lines.append(rounding_line(decimals(result), "released values and intervals"))
    lines.append("low, high: 95 % interval of each released value from the noise law "
                 "(empty where a window repeats the last release)")
    return lines


def _budget_text(result: AggregateResult) -> str:
    """ε_t in words: a constant set by public settings, or (Adaptive) not stated."""
    plan = result.plan
    if plan.scheme == "adaptive":
        return "per-window budgets decided by the release (not stated)"
    eps = plan.allocation
    if result.spec.od:
        return (f"ε_t = {eps[0]:.6g} per window event, split: the cell counts at "
                f"{eps[0] / 2:.6g}, each origin-destination transition at {eps[0] / 4:.6g}")
    if plan.skip_landmarks:
        return (f"ε_t = {eps[0]:.6g} in every window, every landmark contribution left "
                "out")
    if np.all(eps == eps[0]):
        return f"ε_t = {eps[0]:.6g} in every window"
    return "ε_t = ε at regular windows, 0 at the public landmark windows (last release repeated)"


def publishable_frame(result: AggregateResult) -> pd.DataFrame:
    """One row per window (and cell): released value and its 95 % interval."""
    spec, rel = result.spec, result.release
    T, C = rel.released.shape
    frame = {"window": np.repeat(spec.windows.labels(), C)}
    if spec.cells is not None:
        lat, lon = spec.cells.centres()
        frame["cell"] = np.tile(np.arange(C), T)
        frame["cell_lat"] = np.tile(np.round(lat, 6), T)
        frame["cell_lon"] = np.tile(np.round(lon, 6), T)
    places = decimals(result)
    frame.update(released=np.round(rel.released.ravel(), places),
                 low=np.round(rel.low.ravel(), places), high=np.round(rel.high.ravel(), places))
    return pd.DataFrame(frame)


def od_publishable_frame(result: AggregateResult) -> pd.DataFrame:
    """One row per transition (the first window of the pair), origin and destination
    cell: released count and its 95 % interval."""
    rel = result.od_release
    if rel is None:
        raise ValueError("this release has no origin-destination counts (od)")
    C = result.spec.n_cells
    n = rel.released.shape[0]
    places = decimals(result)
    return pd.DataFrame({
        "window": np.repeat(result.spec.windows.labels()[:n], C * C),
        "origin": np.tile(np.repeat(np.arange(C), C), n),
        "destination": np.tile(np.arange(C), n * C),
        "released": np.round(rel.released.ravel(), places),
        "low": np.round(rel.low.ravel(), places), "high": np.round(rel.high.ravel(), places)})


def od_audit_frame(result: AggregateResult) -> pd.DataFrame:
    """The OD rows plus ``true`` (CONFIDENTIAL)."""
    frame = od_publishable_frame(result)
    if result.od_truth is None:
        raise ValueError("this release has no origin-destination counts (od)")
    return frame.assign(true=result.od_truth.ravel())


def audit_frame(result: AggregateResult) -> pd.DataFrame:
    """The publishable rows plus ``true``, ``epsilon_t`` and ``fresh`` (CONFIDENTIAL)."""
    frame = publishable_frame(result)
    C = result.release.released.shape[1]
    frame["true"] = result.truth.ravel()
    frame["epsilon_t"] = np.repeat(result.release.allocation, C)
    frame["fresh"] = np.repeat(result.release.published, C)
    return frame


def users_audit_path(audit: str | Path, part: str = "users") -> Path:
    """``name.users.ext`` (or ``name.<part>.ext``) beside the audit ``name.ext``."""
    p = Path(audit)
    return p.with_name(f"{p.stem}.{part}{p.suffix}")


def save_table(frame: pd.DataFrame, path: str | Path, lines: list[str], *,
               confidential: bool) -> None:
    """Write ``frame`` as CSV (``# `` + each line, then the table) or Parquet (the lines
    in the metadata key ``lmdk.header``) through :class:`~lmdk_core.files.atomic_write.
    AtomicFile`: whole or not at all, a link at ``path`` replaced and never followed, mode
    0600 when ``confidential``."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise InputError(f"{quote_user_text(str(path))} must end in .csv or .parquet")
    with AtomicFile(p, "wb", confidential=confidential) as fh:
        if suffix == ".csv":
            text = "".join(f"# {line}\n" for line in lines) + frame.to_csv(index=False)
            fh.write(text.encode("utf-8"))
        else:
            _write_parquet(frame, fh, lines)


def _write_parquet(frame: pd.DataFrame, fh, lines: list[str]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    meta = {**(table.schema.metadata or {}),
            b"lmdk.header": json.dumps(lines, ensure_ascii=False).encode()}
    pq.write_table(table.replace_schema_metadata(meta), fh)
