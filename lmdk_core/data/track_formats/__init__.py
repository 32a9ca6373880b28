"""One module per track format, each with one reader of the same shape,
``read_track(data: bytes, options: ReadOptions) -> Track``: ``csv`` (named or recognised
columns), ``plt`` (GeoLife / OziExplorer), ``gpx``, ``fit``, ``tcx``, ``kml`` and
``geojson``. They are called by :func:`lmdk_core.data.track_loading.load_track`, the one
entry point, which reads the file and detects its format; they call down into
:mod:`lmdk_core.data.track_building` (options, limits, coordinate checks, waypoints, the
track of a file's pieces), :mod:`lmdk_core.data.tables` and
:mod:`lmdk_core.data.track_times`, never back into the dispatcher (docs/data-formats.md).
"""
