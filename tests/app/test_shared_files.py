"""Every file the app and the CLI offer as shareable ("publishable", or a configuration
that is not marked confidential) is checked for seeds and for anything estimated from
the raw data (a transition matrix); in the teaching mode no download is called
publishable and every file says "fixed seed".

The app's files are captured at the download buttons of real page runs (AppTest): every
``download_button`` call is recorded with its label, file name and content."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from lmdk_core.cli import main
from lmdk_core.files.config import ViewConfig, config_to_json
from tests.conftest import open_page

TIMEOUT = 180
#: a seed that cannot appear in a file by chance (digits checked below)
SEED = 918_273_645_546_372_819


@pytest.fixture
def downloads(monkeypatch):
    """Every download button drawn while the fixture is active: (label, file name,
    text)."""
    import app_support.session  # noqa: F401 - the guard first: the recorder wraps it, and
    # the guarded method (not a bare one) is what the teardown puts back

    seen: list[tuple[str, str, str]] = []
    original = DeltaGenerator.download_button

    def record(self, label, data=None, *args, **kwargs):
        content = data() if callable(data) else data
        if isinstance(content, bytes):
            content = content.decode("utf-8", "replace")
        seen.append((str(label), str(kwargs.get("file_name", "")), str(content)))
        return original(self, label, content, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", record)
    monkeypatch.setattr(st, "download_button", lambda *a, **k: record(st._main, *a, **k))
    return seen


def _open(page: str):
    """The page, with the population released (the Population page releases on request)."""
    at = open_page(page, TIMEOUT)
    if page == "population":
        at.button(key="pop_release").click().run()
        assert not at.exception
    return at


def _released(files) -> bool:
    """A release among the downloads (publishable, or labelled exploratory / teaching: any
    of them may be passed on, so none may hold the seed)."""
    return any(name.startswith(("lmdk_release", "lmdk_TEACHING", "lmdk_EXPLORATORY"))
               for _, name, _ in files)


def _shared(files):
    """The files not marked confidential."""
    return [f for f in files if "CONFIDENTIAL" not in f[0] and "CONFIDENTIAL" not in f[1]]


def _check_shared(files, seed: int) -> None:
    shared = _shared(files)
    assert shared, [f[0] for f in files]
    for label, name, text in shared:
        assert str(seed) not in text, f"{label}: holds the seed"
        if name.endswith(".json"):
            body = json.loads(text)
            assert "seed" not in body, f"{label}: holds a seed field"
            spec = body.get("extra", {}).get("correlation", {})
            assert not any(isinstance(spec.get(k), list) for k in ("forward", "backward")), \
                f"{label}: holds a transition matrix estimated from the data"


@pytest.mark.parametrize("page", ["population", "map", "timeline"])
def test_shareable_files_hold_no_seed_and_nothing_estimated(downloads, page):
    at = _open(page)
    assert _released(downloads), [f[1] for f in downloads]
    seed = int(at.session_state["w_seed"])
    assert seed >= 2**64  # a fresh 128-bit seed
    _check_shared(downloads, seed)


def test_population_batch_configuration_with_an_estimated_matrix_is_confidential(downloads):
    at = _open("population")
    at.button(key="pop_estimate").click().run()
    assert not at.exception
    configs = [f for f in downloads if f[1].endswith(".json")]
    assert configs and "forward" in json.loads(configs[-1][2])["extra"]["correlation"]
    assert "CONFIDENTIAL" in configs[-1][0] and "CONFIDENTIAL" in configs[-1][1]
    assert json.loads(configs[-1][2])["confidential"].startswith("CONFIDENTIAL")
    _check_shared(downloads, int(at.session_state["w_seed"]))


def _teaching(at, seed: int = 7):
    at.session_state["w_reproducible"] = True
    at.session_state["w_teaching_seed"] = seed
    at.session_state["w_seed"] = seed
    at.session_state["seed_origin"] = "teaching"
    return at.run()


@pytest.mark.parametrize("page", ["population", "map", "timeline"])
def test_teaching_mode_calls_nothing_publishable_and_every_file_says_fixed_seed(
        downloads, page):
    at = open_page(page, TIMEOUT)
    downloads.clear()
    _teaching(at)
    if page == "population":
        at.button(key="pop_release").click().run()
    assert not at.exception
    assert _released(downloads), [f[1] for f in downloads]
    for label, name, text in downloads:
        assert "publishable" not in label.lower() or "not publishable" in label.lower(), label
        assert not name.startswith("lmdk_release"), name
        if "CONFIDENTIAL" in label or name.endswith(".parquet"):
            continue  # the confidential files already hold the seed by design
        if name.endswith(".json") and "seed" not in json.loads(text):
            continue  # settings only (the batch configuration): no noise, no seed
        assert re.search(r"fixed (teaching )?seed 7", text), f"{label}: {text[:300]}"


# ------------------------------------------------------------ the CLI's shareable files
def test_cli_publishable_files_never_hold_the_given_seed(tmp_path, cluster):
    series = tmp_path / "s.csv"
    series.write_text("time,value\n" + "".join(f"{t},{t % 7}\n" for t in range(40)))
    track = tmp_path / "t.csv"
    track.write_text("time,lat,lon\n" + "".join(f"{t},{48.85 + t * 1e-4},2.35\n"
                                                for t in range(40)))
    outs = []
    for cmd, src, out in (("release", series, "r.csv"), ("geo-release", track, "g.csv"),
                          ("geo-release", track, "g.geojson")):
        argv = [cmd, "--input", str(src), "--landmarks", "3", "--epsilon", "1", "--seed",
                str(SEED), "--output", str(tmp_path / out)]
        if cmd == "geo-release":
            argv += ["--radius", "100", "--noise", "fast"]
        assert main(argv) == 0
        outs.append((tmp_path / out).read_text())
    rng = np.random.default_rng(2)  # data, not noise
    pop = pd.DataFrame({"u": np.repeat(np.arange(3), 5), "t": np.tile(np.arange(5), 3),
                        "v": rng.normal(10, 1, 15)})
    pop.to_csv(tmp_path / "pop.csv", index=False)
    (tmp_path / "view.json").write_text(config_to_json(ViewConfig()))
    assert main(["batch", "--config", str(tmp_path / "view.json"), "--input",
                 str(tmp_path / "pop.csv"), "--user-col", "u", "--time-col", "t",
                 "--value-col", "v", "--output", str(tmp_path / "b.csv"), "--audit",
                 str(tmp_path / "a.csv"), "--seed", str(SEED), "--noise", "fast",
                 "--scheduler", cluster.scheduler_address]) == 0
    batch = (tmp_path / "b.csv").read_text()
    outs.append(batch)
    for text in outs:
        assert str(SEED) not in text
    assert "fixed --seed" in batch.splitlines()[0]  # the seed is not written, but named
    assert str(SEED) in (tmp_path / "a.csv").read_text()  # the CONFIDENTIAL audit keeps it
