"""Every string into a Streamlit element goes through one function
(:func:`lmdk_core.foundation.quoting.inert_markdown`, installed by
``app_support/markdown_guard.py``),
and the engine's messages quote the user text of the surfaces a security review attacked.
The browser side (a beacon that must receive nothing) is tests/browser/test_browser_markdown.py."""

from __future__ import annotations

import inspect

import pytest
from streamlit.delta_generator import DeltaGenerator
from streamlit.testing.v1 import AppTest

from lmdk_core.foundation.quoting import inert_markdown, quote_user_text

BEACON = "![b](http://127.0.0.1:9/b.png)"


@pytest.mark.parametrize("text, expected", [
    (BEACON, r"!\[b\](http\://127.0.0.1:9/b.png)"),
    ("see www.x.org, https://a.b/c or a@b.c", r"see www\.x.org, https\://a.b/c or a\@b.c"),
    ("<img src=x> [l](u) $x$ \\[", r"\<img src=x> \[l\](u) \$x\$ \\\["),
    # code spans are left alone (they render nothing), whatever their fence
    (f"file {quote_user_text(BEACON)} here", f"file {quote_user_text(BEACON)} here"),
    ("``a`[b](c)`` [d](e) `f", r"``a`[b](c)`` \[d\](e) `f"),
    # the app's own markup is unchanged
    ("**Fixed seed** :material/lock: ε in (0, 1)", "**Fixed seed** :material/lock: ε in (0, 1)"),
])
def test_inert_markdown(text, expected):
    assert inert_markdown(text) == expected


def test_every_markdown_element_of_streamlit_is_guarded():
    """Any element method of the installed Streamlit that takes a label, a body or a help
    text must be in the guard's list (a new Streamlit element fails this test)."""
    import streamlit as st

    import app_support.session  # noqa: F401 - installs the guard, as every page does
    from app_support.markdown_guard import MARKDOWN_ELEMENTS, NOT_MARKDOWN, installed

    takes_text = []
    for name, fn in inspect.getmembers(DeltaGenerator, inspect.isfunction):
        if name.startswith("_"):
            continue
        params = set(inspect.signature(fn).parameters)
        if params & {"label", "body", "help"}:
            takes_text.append(name)
    assert takes_text, "no element found: the inspection is broken"
    missing = sorted(set(takes_text) - set(MARKDOWN_ELEMENTS) - set(NOT_MARKDOWN))
    assert not missing, f"elements that render Markdown but are not guarded: {missing}"
    for name in set(takes_text) - set(NOT_MARKDOWN):
        assert installed(DeltaGenerator, name), name
        if hasattr(st, name):
            assert installed(st, name), name


#: a page drawn with the guard installed (as every page imports app_support.session); run
#: from a file: AppTest.from_function leaves a main module that later worker processes
#: spawned by multiprocessing (the Dask tests) cannot import
SCRIPT = """
import streamlit as st

import app_support.session  # noqa: F401

payload = "![b](http://127.0.0.1:9/b.png)"
st.error(f"Could not read {payload}")
st.sidebar.caption(payload)
c1, _ = st.columns(2)
c1.warning(payload)
st.button("go " + payload, help="tip " + payload)
st.radio("pick", ["a", payload], key="r")
"""


def test_the_guard_reaches_boxes_labels_tooltips_and_options(tmp_path):
    page = tmp_path / "guarded_page.py"
    page.write_text(SCRIPT)
    at = AppTest.from_file(str(page)).run(timeout=60)
    assert not at.exception
    inert = r"!\[b\](http\://127.0.0.1:9/b.png)"
    assert at.error[0].value == f"Could not read {inert}"
    assert at.sidebar.caption[0].value == inert
    assert at.warning[0].value == inert
    assert at.button[0].label == "go " + inert and at.button[0].help == "tip " + inert
    assert at.radio[0].options == ["a", inert]
    assert at.radio[0].value == "a"  # the options' values are the raw ones


def test_engine_messages_quote_the_attacked_surfaces():
    import numpy as np
    import pandas as pd

    from lmdk_core.data.series import Series
    from lmdk_core.data.track_loading import load_track
    from lmdk_core.foundation.errors import InputError
    from lmdk_core.leakage.model import correlation_from_spec
    from lmdk_core.population.partition import BatchSettings, release_partition
    from lmdk_core.population.table import PopulationColumns
    from tests.browser.test_browser_markdown import _gpx

    # GPX: a far waypoint's name and the track names of the "separate pieces" note
    far = load_track(_gpx([("a", 48.85)], (BEACON, 40.0)), file_format="gpx")
    pieces = load_track(_gpx([(BEACON, 48.85), (BEACON + "2", 48.86)], None),
                        file_format="gpx")
    for note in far.notes + pieces.notes:  # user text only inside code spans
        assert inert_markdown(note) == note, note
    assert any("separate pieces" in n for n in pieces.notes)
    # an unknown correlation model, a matrix name
    s = Series(np.arange(10.0), np.arange(10.0), "number", "s")
    with pytest.raises(InputError) as exc:
        correlation_from_spec({"model": BEACON}, s)
    assert "](http" in str(exc.value) and inert_markdown(str(exc.value)) == str(exc.value)
    model = correlation_from_spec({"model": "matrix", "name": BEACON,
                                   "forward": [[0.9, 0.1], [0.1, 0.9]]}, s)
    assert quote_user_text(BEACON) in model.description
    assert model.spec["name"] == BEACON  # saved again as it was given, not re-quoted
    # a population user id in the Geometric mechanism's error
    frame = pd.DataFrame({"u": [BEACON] * 3, "t": [0, 1, 2], "v": [1.5, 2.0, 3.0]})
    settings = BatchSettings(kind="series", epsilon=1.0, scheme="uniform", window=3,
                             mechanism="geometric", sensitivity=1.0, radius=100.0,
                             noise="fast", root_entropy=1)
    with pytest.raises(InputError) as exc:
        release_partition(frame, PopulationColumns(user="u", time="t", value="v"), settings)
    assert quote_user_text(BEACON, 40) in str(exc.value)
    assert inert_markdown(str(exc.value)) == str(exc.value)
