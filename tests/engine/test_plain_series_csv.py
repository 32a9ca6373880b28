"""The pandas-free read of plain series CSVs (lmdk_core.data.plain_series_csv) against
the pandas path it short-cuts: on generated CSV texts — separators, quoting,
whitespace, empty lines, NaN spellings, numbers in every notation, ISO times with and
without zones, BOMs, comments, bad inputs — ``load_series_csv`` gives the same series
(times and their dtype, values bit for bit, kind, notes, zone flag) or the same error
message as with the plain read switched off; ``csv_columns`` the same names."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmdk_core.data import series as series_module
from lmdk_core.data.plain_series_csv import PLAIN_MAX_BYTES, plain_header, read_plain_series
from lmdk_core.data.series import csv_columns, load_series_csv
from lmdk_core.foundation.errors import InputError


def _outcome(data: bytes, **columns):
    """('ok', series) or ('error', message) of ``load_series_csv``."""
    try:
        return "ok", load_series_csv(data, **columns)
    except InputError as exc:
        return "error", str(exc)


def _pandas_outcome(data: bytes, **columns):
    """The same with the plain read switched off (every file through pandas)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(series_module, "read_plain_series", lambda *a: None)
        mp.setattr(series_module, "plain_header", lambda *a: None)
        return _outcome(data, **columns), csv_columns(data)


def _same_array(a: np.ndarray, b: np.ndarray) -> bool:
    """Same dtype, shape and bits (so -0.0 differs from 0.0)."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _check_same(data: bytes, **columns) -> bool:
    """Assert the plain read and the pandas path agree on ``data``; True when the plain
    read took the file."""
    tcol = columns.get("time_col", "time").strip().lower()
    vcol = columns.get("value_col", "value").strip().lower()
    took = read_plain_series(data, tcol, vcol) is not None
    fast, fast_cols = _outcome(data, **columns), csv_columns(data)
    slow, slow_cols = _pandas_outcome(data, **columns)
    assert fast_cols == slow_cols, data
    assert fast[0] == slow[0], (data, fast, slow)
    if fast[0] == "error":
        assert fast[1] == slow[1], data
        return took
    a, b = fast[1], slow[1]
    assert _same_array(a.time, b.time), (data, a.time, b.time)
    assert _same_array(a.values, b.values), (data, a.values, b.values)
    assert (a.time_kind, a.notes, a.utc, a.name) == (b.time_kind, b.notes, b.utc, b.name)
    return took


_DIGITS = st.text("0123456789", min_size=1, max_size=18)
_NUMBER_TEXT = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.builds(lambda s, a, b: f"{s}{a}.{b}", st.sampled_from(["", "-", "+"]), _DIGITS, _DIGITS),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(-1e6, 1e6).map(lambda x: f"{x:.3f}"),
    st.floats(-1e6, 1e6).map(lambda x: f"{x:e}"),
    st.floats(-1e300, 1e300).map(lambda x: f"{x:.17g}"),
    st.sampled_from(["-0", "-0.0", "0.0", "00012", ".5", "5.", "1e3", "1E-3", "1_000",
                     "1,5", "NaN", "nan", "NA", "N/A", "null", "", " ", "inf", "-inf",
                     "1e400", "0x10", "\"1.5\"", " 1.5", "1.5 ", "½", "١", "TRUE",
                     "99999999999999999999", "123456789012345", "1234567890123456",
                     "0.000000000000001", "9007199254740993"]),
)
_ISO_TEXT = st.builds(
    lambda y, mo, d, h, mi, s, sep, tail: f"{y:04d}-{mo:02d}-{d:02d}{sep}{h:02d}:{mi:02d}{s}{tail}",
    st.sampled_from([1899, 1900, 1970, 2024, 2199, 2262]), st.integers(0, 13),
    st.integers(0, 32), st.integers(0, 24), st.integers(0, 60),
    st.sampled_from(["", ":00", ":59", ":60", ":30.5"]), st.sampled_from(["T", " ", "t"]),
    st.sampled_from(["", "", "", "Z", "+01:00", "-0500", " "]))


@st.composite
def csv_texts(draw):
    """A CSV text that is often plain and often a near miss of plain."""
    names = ["time", "value"] if draw(st.booleans()) else ["value", "time"]
    names = [draw(st.sampled_from([n, n.upper(), n.title(), f" {n}", f"{n} ", f"\"{n}\""]))
             if draw(st.integers(0, 3)) == 0 else n for n in names]
    if draw(st.integers(0, 6)) == 0:
        names.append(draw(st.sampled_from(["extra", "time", "", "value"])))
    sep = draw(st.sampled_from([","] * 6 + [";", "\t", "|", ", "]))
    n = draw(st.integers(0, 8))
    kind = draw(st.sampled_from(["whole", "decimal", "iso", "mixed"]))
    if kind == "whole":
        start = draw(st.integers(-10**16, 10**16))
        times = [str(start + i * draw(st.integers(0, 3))) for i in range(n)]
    elif kind == "decimal":
        times = [f"{i}.{draw(st.integers(0, 99))}" for i in range(n)]
    elif kind == "iso":
        first = draw(_ISO_TEXT)
        times = [first[:11] + f"{i % 24:02d}" + first[13:] for i in range(n)]
    else:
        times = [draw(st.one_of(_NUMBER_TEXT, _ISO_TEXT)) for _ in range(n)]
    if n > 1 and draw(st.integers(0, 5)) == 0:
        i = draw(st.integers(0, n - 2))
        times[i], times[i + 1] = times[i + 1], times[i]
    rows = []
    for t in times:
        v = draw(_NUMBER_TEXT)
        cells = {"time": t, "value": v}
        row = [cells.get(h.strip().strip('"').lower(), "1") for h in names]
        if draw(st.integers(0, 15)) == 0:
            row = row[:-1] if draw(st.booleans()) else row + ["9"]
        rows.append(sep.join(row))
    lines = [sep.join(names), *rows]
    if draw(st.integers(0, 6)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", " ", "# c"])))
    end = draw(st.sampled_from(["\n"] * 5 + ["\r\n", "\r"]))
    text = end.join(lines) + draw(st.sampled_from([end, "", end + end]))
    prefix = draw(st.sampled_from([""] * 8 + ["\ufeff", "# lmdk release\n", " ", "\n"]))
    data = (prefix + text).encode("utf-8")
    return data if draw(st.integers(0, 20)) else data + b"\xff"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csv_texts())
def test_plain_read_parses_like_pandas(data):
    _check_same(data)


@st.composite
def plain_texts(draw):
    """Files the plain read must take (so the comparison above is not vacuous)."""
    n = draw(st.integers(1, 30))
    iso = draw(st.booleans())
    if iso:
        day = draw(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2199, 12, 1)))
        layout = draw(st.sampled_from(["%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M",
                                       "%Y-%m-%dT%H:%M"]))
        base = dt.datetime.combine(day, dt.time())
        steps = np.cumsum(draw(st.lists(st.integers(0, 90), min_size=n, max_size=n)))
        times = [(base + dt.timedelta(minutes=int(s))).strftime(layout) for s in steps]
    else:
        start = draw(st.integers(-10**12, 10**12))  # ≤ 15 digits with ".25"
        steps = np.cumsum(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))
        dec = draw(st.booleans())
        times = [f"{start + int(s)}" + (".25" if dec else "") for s in steps]
    values = [draw(st.one_of(
        st.integers(-10**14, 10**14).map(str),
        st.builds(lambda a, b: f"{a}.{b}", st.integers(-10**7, 10**7),
                  st.text("0123456789", min_size=1, max_size=7)),
        st.sampled_from(["-0", "-0.0", "0", "0.0", "000.100", "123456789012345",
                         "0.00000000000001", "-99999999999999.9"]))) for _ in range(n)]
    header = draw(st.sampled_from(["time,value", "Time,Value", "value,time", "TIME,value"]))
    first_time = header.lower().startswith("time")
    rows = [f"{t},{v}" if first_time else f"{v},{t}" for t, v in zip(times, values, strict=True)]
    return ("\n".join([header, *rows]) + draw(st.sampled_from(["\n", ""]))).encode()


@settings(max_examples=200, deadline=None)
@given(plain_texts())
def test_plain_files_are_read_without_pandas_as_pandas_reads_them(data):
    assert _check_same(data), data


@pytest.mark.parametrize("data", [
    b"time,value\n0,1.5\n1,2\n2,-0\n3,-0.0\n",
    b"time,value\n2024-03-04T00:00:00,0.31\n2024-03-04T01:00:00,0.33\n",
    b"time,value\n2024-03-04 00:00,1\n2024-03-04 00:00,2\n",  # repeated time: the note
    b"time,value\n2024-02-30T00:00:00,1\n",  # invalid date: pandas' message
    b"time,value\n1,1\n0,2\n",  # out of order: pandas' message
    b"time,value\n0,100000000000000000\n",  # 18 digits
    b"kWh,timestamp\n1.5,3\n2.5,4\n",
    b"lat,lon\n48.85,2.35\n48.86,2.36\n",  # a track's header: csv_columns alike
    b"lat,lon\n48.85,2.35,7\n",  # a row of three cells
])
def test_examples_agree(data):
    _check_same(data, **({"time_col": "timestamp", "value_col": "kWh"}
                         if data.startswith(b"kWh") else {}))


def test_what_the_plain_read_refuses():
    assert plain_header(b"time,value\n\n1,2\n") is None  # an empty line
    assert plain_header(b"\xef\xbb\xbftime,value\n1,2\n") is None  # a BOM
    assert plain_header(b"time,value\r\n1,2\r\n") is None  # CR
    assert plain_header(b"time,value\n1,2\n" + b"0" * PLAIN_MAX_BYTES) is None  # large
    assert plain_header(b"time,time\n1,2\n") is None  # duplicate names
    assert read_plain_series(b"time,value\n1,1234567890123456\n", "time", "value") is None
    assert read_plain_series(b"time,value\n1,1e3\n", "time", "value") is None
    assert read_plain_series(b"time,value\n2024-03-04T00:00Z,1\n", "time", "value") is None
    got = read_plain_series(b"time,value\n1,2.5\n3,-4\n", "time", "value")
    assert got is not None and got.kind == "number" and got.times.dtype == np.int64


def test_a_plain_series_loads_without_pandas(tmp_path):
    """The point of the plain read: a plain file is loaded with pandas never imported."""
    p = tmp_path / "s.csv"
    p.write_text("time,value\n2024-03-04T00:00:00,0.31\n2024-03-04T01:00:00,0.33\n")
    code = ("import sys\nfrom lmdk_core.data.series import load_series_csv, csv_columns\n"
            f"s = load_series_csv({str(p)!r}); csv_columns({str(p)!r})\n"
            "print('pandas' in sys.modules, len(s))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "2"]
