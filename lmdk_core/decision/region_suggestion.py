"""A suggested region for an exact track release — a suggestion only, never used unasked.

The exact Planar Laplace (:mod:`lmdk_core.mechanisms.exact_planar`; Andrés et al.,
CCS 2013, §5) releases on the grid of a **declared** region: the grid, the truncation
and the header depend on it, so it must not be computed from the data (the publishing
rule, docs/privacy-model.md). Like the data's suggested Δf, the region computed here
from the track is shown labelled as a suggestion, and becomes the declared region only
when the user says so (the Map's *Use … as my declared region*, or copying it into
``--region``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from lmdk_core.mechanisms.exact_planar import MAX_REGION_KM, PlanarRegion

__all__ = ["suggested_region"]


def suggested_region(lat: ArrayLike, lon: ArrayLike) -> PlanarRegion | None:
    """The centre of the track's bounding box rounded to 0.1°, with a radius that holds
    every point plus 5 km, rounded up to 10 km; None when that exceeds the largest
    region (:data:`~lmdk_core.mechanisms.exact_planar.MAX_REGION_KM`) or there are no
    points. A function of the data: a suggestion to show, never a declared region.

    >>> suggested_region([48.85, 48.87], [2.34, 2.36]).text()
    '48.9,2.3,20'
    """
    la = np.asarray(lat, dtype=float)
    lo = np.asarray(lon, dtype=float)
    ok = np.isfinite(la) & np.isfinite(lo)
    if not ok.any():
        return None
    la, lo = la[ok], lo[ok]
    centre = PlanarRegion(round(float(la.min() + la.max()) / 2, 1),
                          round(float(lo.min() + lo.max()) / 2, 1), MAX_REGION_KM)
    far_km = float(centre.to_plane(la, lo)[2].max()) / 1000.0
    radius = 10.0 * math.ceil((far_km + 5.0) / 10.0)
    if radius > MAX_REGION_KM:
        return None
    return PlanarRegion(centre.lat, centre.lon, radius)
