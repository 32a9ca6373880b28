"""A numeric time series: CSV ``time,value`` (times whole numbers or ISO datetimes)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk_core.data.tables import Source, numeric_column, parse_times, read_csv_table

__all__ = ["Series", "load_series_csv"]


@dataclass(frozen=True)
class Series:
    """Values ``values[t]`` at timestamps t = 0..T-1; ``time`` holds the original labels."""

    time: np.ndarray
    values: np.ndarray
    time_kind: str = "number"  # 'number' or 'datetime'
    name: str = "series"
    unit: str = ""

    def __len__(self) -> int:
        return int(self.values.size)

    def frame(self) -> pd.DataFrame:
        """The series as a ``time,value`` table."""
        return pd.DataFrame({"time": self.time, "value": self.values})


def load_series_csv(source: Source, name: str = "uploaded series") -> Series:
    """Read and validate a CSV with columns ``time,value`` (any order, case-insensitive)."""
    df = read_csv_table(source, ["time", "value"])
    values = numeric_column(df, "value")
    times, kind = parse_times(df, "time")
    return Series(time=times, values=values, time_kind=kind, name=name)
