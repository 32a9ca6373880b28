"""FIT activity files (Garmin, Wahoo and other bike computers and watches) read with
``fitdecode`` into the one track model: the ``record`` messages that carry a GPS
position, in file order, with their UTC timestamps (the FIT epoch is handled by
fitdecode). Positions are stored in semicircles: degrees = semicircles · 180 / 2³¹
(FIT SDK, Profile: ``position_lat``/``position_long``)."""

from __future__ import annotations

import io

import numpy as np

from lmdk_core.data.track import Track
from lmdk_core.data.track_building import Piece, ReadOptions, track_from_pieces, utc_times
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["SEMICIRCLE_DEG", "read_track"]

#: degrees per semicircle (FIT SDK)
SEMICIRCLE_DEG = 180.0 / 2**31


def _fit_records(data: bytes) -> tuple[list, int, str]:
    """(records with a position as (lat°, lon°, time), records without one, file type)."""
    import fitdecode

    found, without, kind = [], 0, "activity"
    with fitdecode.FitReader(io.BytesIO(data), check_crc=fitdecode.CrcCheck.RAISE,
                             keep_raw_chunks=False) as reader:
        for frame in reader:
            if not isinstance(frame, fitdecode.FitDataMessage):
                continue
            if frame.name == "file_id" and frame.has_field("type"):
                kind = str(frame.get_value("type"))
            elif frame.name == "record":
                lat = frame.get_value("position_lat", fallback=None)
                lon = frame.get_value("position_long", fallback=None)
                if lat is None or lon is None:
                    without += 1
                    continue
                when = frame.get_value("timestamp", fallback=None)
                found.append((lat * SEMICIRCLE_DEG, lon * SEMICIRCLE_DEG,
                              None if when is None else when.isoformat()))
    return found, without, kind


def _read_error(exc: Exception) -> InputError:
    """The one-line refusal of a FIT file fitdecode cannot read."""
    import fitdecode

    msg = quote_user_text(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, 120)
    if isinstance(exc, fitdecode.FitEOFError):
        return InputError("the FIT file is cut short (it ends in the middle of a message: "
                          f"{msg}); copy it from the device or export it again")
    if isinstance(exc, fitdecode.FitHeaderError):
        return InputError(f"the FIT file's header is damaged ({msg}); export the activity "
                          "again")
    if isinstance(exc, fitdecode.FitCRCError):
        return InputError(f"the FIT file is damaged: its checksum does not match ({msg}); "
                          "copy it from the device or export it again")
    return InputError(f"the FIT file cannot be read: {msg}")


def read_track(data: bytes, options: ReadOptions) -> Track:
    """Read a FIT activity: every ``record`` with a position, in file order (records
    without a position — before the GPS fix, indoors — are left out and counted)."""
    import fitdecode

    if len(data) < 12 or data[8:12] != b".FIT":
        raise InputError("the file is not a FIT file: its header lacks the '.FIT' "
                         "signature (a download that failed, or another format)")
    try:
        found, without, kind = _fit_records(data)
    except (fitdecode.FitError, ValueError, KeyError, IndexError) as exc:
        raise _read_error(exc) from None
    if not found:
        if without:
            raise InputError(f"the FIT file has {without:,} records but none with a GPS "
                             "position (an indoor or trainer activity?): there is no track "
                             "to release")
        raise InputError(f"the FIT file holds no activity records (its type is "
                         f"{quote_user_text(kind, 40)}: settings, a workout or monitoring "
                         "data, not a recorded track)")
    lat, lon, when = (list(c) for c in zip(*found, strict=True))
    notes = ([f"{without:,} record{'s' if without != 1 else ''} without a GPS position "
              "(before the fix, or indoors) left out."] if without else [])
    piece = Piece(np.asarray(lat), np.asarray(lon), utc_times(when), "activity")
    return track_from_pieces([piece], options, "the FIT file", notes)
