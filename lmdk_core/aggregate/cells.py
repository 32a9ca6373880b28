"""The map cells of a track statistic: a public grid of square cells of a declared size.

Cells are squares of ``size`` metres on an equirectangular projection of a bounding box
(south, west, north, east): row ``⌊(lat − south)·M/size⌋``, column
``⌊(lon − west)·M·cos φ₀/size⌋`` with M = 111,320 m per degree and φ₀ the box's middle
latitude (cells are exactly ``size`` tall and ``size`` wide at φ₀; within a city the
width changes by well under 1 %). A fix outside the box is in no cell (counted in the
confidential audit). The box is a **public setting**: declared (``--bbox``) or, for
exploring, the data's extent — then the files say so (docs/aggregate.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["MAX_CELLS", "METRES_PER_DEGREE", "CellGrid", "cell_grid", "parse_bbox"]

#: metres per degree of latitude (and of longitude at the equator) on the mean sphere
METRES_PER_DEGREE = 111_320.0
#: the most cells one grid may hold
MAX_CELLS = 250_000


@dataclass(frozen=True)
class CellGrid:
    """``rows × cols`` square cells of ``size`` metres from the box's south-west corner."""

    south: float
    west: float
    north: float
    east: float
    size: float
    declared: bool

    @property
    def _lon_metres(self) -> float:
        return METRES_PER_DEGREE * float(np.cos(np.radians((self.south + self.north) / 2)))

    @property
    def rows(self) -> int:
        return max(1, int(np.ceil((self.north - self.south) * METRES_PER_DEGREE / self.size)))

    @property
    def cols(self) -> int:
        return max(1, int(np.ceil((self.east - self.west) * self._lon_metres / self.size)))

    @property
    def count(self) -> int:
        return self.rows * self.cols

    def index(self, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        """The cell of each point (``row·cols + col``), −1 outside the box."""
        lat = np.asarray(lat, dtype=float)
        lon = np.asarray(lon, dtype=float)
        r = np.floor((lat - self.south) * METRES_PER_DEGREE / self.size).astype(np.int64)
        c = np.floor((lon - self.west) * self._lon_metres / self.size).astype(np.int64)
        inside = ((lat >= self.south) & (lat <= self.north) & (lon >= self.west)
                  & (lon <= self.east))
        r = np.minimum(r, self.rows - 1)  # the north and east edges belong to the last cell
        c = np.minimum(c, self.cols - 1)
        return np.where(inside, r * self.cols + c, -1)

    def centres(self) -> tuple[np.ndarray, np.ndarray]:
        """The latitude and longitude of every cell's centre, in cell order."""
        r, c = np.divmod(np.arange(self.count), self.cols)
        lat = self.south + (r + 0.5) * self.size / METRES_PER_DEGREE
        lon = self.west + (c + 0.5) * self.size / self._lon_metres
        return lat, lon

    def describe(self) -> str:
        """The header line of the grid."""
        src = ("declared" if self.declared else "the data's extent (not a declared setting: "
               "declare --bbox for a publication)")
        return (f"cells: {self.rows} x {self.cols} squares of {self.size:g} m over lat "
                f"{self.south:.6f} to {self.north:.6f}, lon {self.west:.6f} to "
                f"{self.east:.6f} ({src})")


def parse_bbox(text: str) -> tuple[float, float, float, float]:
    """``SOUTH,WEST,NORTH,EAST`` in degrees; InputError unless a valid box."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        s, w, n, e = (float(p) for p in parts)
    except ValueError:
        raise InputError(f"--bbox {quote_user_text(text)} must be four numbers "
                         "SOUTH,WEST,NORTH,EAST in degrees") from None
    if not all(np.isfinite(v) for v in (s, w, n, e)):
        raise InputError("--bbox must hold finite numbers")
    if not (-90 <= s < n <= 90 and -180 <= w < e <= 180):
        raise InputError(f"--bbox {quote_user_text(text)} is not a box: need -90 <= SOUTH < "
                         "NORTH <= 90 and -180 <= WEST < EAST <= 180")
    return s, w, n, e


def cell_grid(size: float, *, bbox: tuple[float, float, float, float] | None = None,
              lat: np.ndarray | None = None, lon: np.ndarray | None = None) -> CellGrid:
    """The cell grid over the declared ``bbox`` or, when not declared, over the extent of
    the points ``lat``/``lon``."""
    if not np.isfinite(size) or size <= 0:
        raise InputError(f"the cell size must be a positive number of metres, got {size!r}")
    if bbox is not None:
        grid = CellGrid(*bbox, size=float(size), declared=True)
    else:
        if lat is None or lon is None or not np.size(lat):
            raise InputError("the data have no points")
        s, n = float(np.min(lat)), float(np.max(lat))
        w, e = float(np.min(lon)), float(np.max(lon))
        grid = CellGrid(s, w, max(n, s + 1e-9), max(e, w + 1e-9), float(size), declared=False)
    if grid.count > MAX_CELLS:
        raise InputError(f"{grid.count:,} cells of {size:g} m; at most {MAX_CELLS:,} — "
                         "choose larger cells or a smaller --bbox")
    return grid
