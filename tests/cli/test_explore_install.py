"""`lmdk explore` starts the app with the app's own Streamlit configuration from any
folder, from a source checkout and from an installed wheel.

The wheel test builds the sdist and the wheel from it (the app's files inside, as real
files: the repository holds no symbolic links), installs it (without dependencies) into a fresh
virtual environment that sees the test environment's packages, starts `lmdk explore`
from an empty temporary folder and loads the app in chromium: the Home page renders
and the Map page draws its Leaflet map (so `app.py`, `app_pages/`, `app_support/`, `assets/`
and the configuration are all in the wheel).
"""

from __future__ import annotations

import os
import shutil
import site
import stat
import subprocess
import sys
import tarfile
import tomllib
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest

from lmdk_core.cli import explore_command, main
from tests.browser import CHROMIUM, CHROMIUM_ARGS, free_port, require_chromium, stop_process

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())


def test_config_is_private_and_silent():
    """The first run asks nothing (no e-mail prompt) and reports nothing."""
    assert CONFIG["server"]["headless"] is True
    assert CONFIG["browser"]["gatherUsageStats"] is False
    assert CONFIG["server"]["address"] == "localhost"


def test_config_flags_carry_every_setting():
    flags = explore_command.config_flags(ROOT / ".streamlit" / "config.toml")
    pairs: dict[str, str | list[str]] = {}
    for name, text in zip(flags[::2], flags[1::2], strict=True):
        if name in pairs:  # a list setting: one flag per item
            pairs[name] = [*([pairs[name]] if isinstance(pairs[name], str) else pairs[name]),
                           text]
        else:
            pairs[name] = text

    def leaves(prefix, table):
        for key, value in table.items():
            if isinstance(value, dict):
                yield from leaves(f"{prefix}.{key}", value)
            else:
                yield f"{prefix}.{key}", value

    seen = 0
    for section, values in CONFIG.items():
        for name, value in leaves(section, values):
            expected = (("true" if value else "false") if isinstance(value, bool) else
                        [str(v) for v in value] if isinstance(value, list) and len(value) > 1
                        else str(value[0]) if isinstance(value, list) else str(value))
            assert pairs[f"--{name}"] == expected
            seen += 1
    assert seen == len(pairs)
    # nested tables ([theme.light]) are dotted names Streamlit accepts, not '--theme.light'
    assert "--theme.light" not in pairs and pairs["--theme.light.textColor"] == "#111111"
    assert pairs["--server.headless"] == "true"
    assert pairs["--browser.gatherUsageStats"] == "false"
    assert pairs["--server.allowedHosts"] == ["localhost", "127.0.0.1", "::1"]


def test_explore_passes_the_configuration_from_any_folder(tmp_path, monkeypatch):
    """Started from a folder with its own `.streamlit/config.toml`, `lmdk explore` still
    runs the app headless, on localhost, without usage statistics (explicit flags win
    over any config file)."""
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "config.toml").write_text(
        '[server]\naddress = "0.0.0.0"\nheadless = false\n'
        "[browser]\ngatherUsageStats = true\n")
    monkeypatch.chdir(tmp_path)
    seen = {}

    def fake_exec(path, cmd):
        seen["cmd"], seen["cwd"] = cmd, os.getcwd()
        raise SystemExit(0)

    monkeypatch.setattr(os, "execv", fake_exec)
    with pytest.raises(SystemExit):
        main(["explore", "--port", "8999"])
    cmd = seen["cmd"]
    assert cmd[1:4] == ["-m", "streamlit", "run"] and cmd[4].endswith("app.py")
    pairs = dict(zip(cmd[5::2], cmd[6::2], strict=True))
    assert pairs["--server.headless"] == "true"
    assert pairs["--server.address"] == "localhost"
    assert pairs["--browser.gatherUsageStats"] == "false"
    assert pairs["--server.port"] == "8999"
    assert Path(seen["cwd"]) == Path(cmd[4]).parent


def test_explore_open_browser_is_explicit(monkeypatch):
    seen = {}
    monkeypatch.setattr(os, "execv", lambda p, cmd: seen.setdefault("cmd", cmd) and exit(0))
    cwd = os.getcwd()
    try:
        with pytest.raises(SystemExit):
            main(["explore", "--open-browser"])
    finally:
        os.chdir(cwd)
    assert seen["cmd"][-2:] == ["--server.headless", "false"]


def test_the_repository_holds_no_links():
    """The app lives once, at the root; no git symlink (they break in zip archives and on
    Windows): setup.py copies the app into the wheel's `lmdk_app/`."""
    listed = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    if listed.returncode != 0 or not listed.stdout:
        pytest.skip("not a git checkout")
    links = [line.split("\t", 1)[1] for line in listed.stdout.splitlines()
             if line.startswith("120000 ")]
    assert not links, f"symbolic links in the repository: {links}"
    assert sorted(p.name for p in (ROOT / "lmdk_app").iterdir()
                  if p.name != "__pycache__") == ["__init__.py"]


def _run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc


@pytest.mark.slow
@pytest.mark.browser
def test_lmdk_explore_from_an_installed_wheel(tmp_path):
    """Build the wheel, install it in a fresh venv, run `lmdk explore` from an empty
    folder; /_stcore/health answers 200, the Home page renders, the Map draws Leaflet."""
    require_chromium()
    # build from a copy: a stale build/ in the source folder could put deleted files into
    # the wheel
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis",
        ".pytest_cache", ".ruff_cache", ".mypy_cache", "artifacts", "benchmarks", "tests"))
    # the sdist, with a setuptools as new as pyproject.toml asks (the test environment's
    # may be older), then the wheel from the unpacked sdist, as `python -m build` does
    builder = tmp_path / "build-env"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(builder)
    _run([sys.executable, "-m", "pip", "--python", str(builder / "bin" / "python"), "install",
          "-q", "--disable-pip-version-check", "setuptools>=77"])
    sdists = tmp_path / "sdist"
    _run([str(builder / "bin" / "python"), "-c",
          f"from setuptools import build_meta; build_meta.build_sdist({str(sdists)!r})"],
         cwd=src)
    (sdist,) = sdists.glob("lmdk_explorer-*.tar.gz")
    with tarfile.open(sdist) as tar:
        members = tar.getmembers()
        assert not [m.name for m in members if not (m.isfile() or m.isdir())]
        tar.extractall(sdists, filter="data")
    (unpacked,) = (p for p in sdists.iterdir() if p.is_dir())
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
          "--disable-pip-version-check", "-w", str(dist), str(unpacked)])
    (wheel,) = dist.glob("lmdk_explorer-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        infos = {i.filename: i for i in archive.infolist()}
        links = [n for n, i in infos.items() if stat.S_ISLNK(i.external_attr >> 16)]
        assert not links, links
        # PEP 561: the engine's type hints are part of the package
        assert "lmdk_core/py.typed" in infos
        # the app's files, as they are in the repository
        shipped = {"lmdk_app/app.py": ROOT / "app.py",
                   "lmdk_app/streamlit_config.toml": ROOT / ".streamlit" / "config.toml"}
        shipped |= {f"lmdk_app/{p.relative_to(ROOT).as_posix()}": p
                    for p in [*(ROOT / "app_pages").glob("*.py"),
                              *(ROOT / "app_support").glob("*.py"),
                              *(ROOT / "app_support").glob("*.js"),
                              *(ROOT / "app_support").glob("*.json"),
                              *(ROOT / "assets").rglob("*")] if p.is_file()}
        assert shipped.keys() <= infos.keys(), sorted(shipped.keys() - infos.keys())
        changed = [n for n, p in shipped.items() if archive.read(n) != p.read_bytes()]
        assert not changed, changed

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    py = env_dir / "bin" / "python"
    purelib = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                         "['purelib'])"]).stdout.strip())
    # no PYTHONPATH: pip would find this checkout's metadata there and install nothing
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q",
          "--disable-pip-version-check", str(wheel)], env=env)
    # then the dependencies: the test environment's site-packages, added after the
    # install (pip would take this checkout's own install there for the package) and as
    # plain paths (its .pth files, among them an editable install of this checkout, do
    # not run)
    (purelib / "zz_test_env.pth").write_text("\n".join(site.getsitepackages()) + "\n")

    work = tmp_path / "elsewhere"
    work.mkdir()
    where = _run([str(py), "-c", "import lmdk_core, lmdk_app; print(lmdk_core.__file__); "
                                 "print(lmdk_app.APP_DIR)"], cwd=work, env=env).stdout
    assert str(ROOT) not in where and str(env_dir) in where, where

    port = free_port(8640)
    log = open(tmp_path / "explore.log", "w")  # noqa: SIM115
    proc = subprocess.Popen([str(env_dir / "bin" / "lmdk"), "explore", "--port", str(port)],
                            cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        import time

        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline:
            assert proc.poll() is None, (tmp_path / "explore.log").read_text()
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    status = r.status
                    break
            except OSError:
                time.sleep(0.5)
        assert status == 200, (tmp_path / "explore.log").read_text()

        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url + "/")
            # the Home page's title (the skip links, hidden until focused, also say Landmark)
            page.get_by_role("heading", name="Landmark Privacy Explorer").first.wait_for(
                timeout=90_000)
            page.goto(url + "/map")
            page.wait_for_function("() => !!(window.__lmdkTrackMap && "
                                   "window.__lmdkTrackMap.points)", timeout=120_000)
            exceptions = page.locator("[data-testid=stException]").count()
            browser.close()
        assert exceptions == 0, (tmp_path / "explore.log").read_text()
        assert not errors, errors
    finally:
        stop_process(proc, 20)
        log.close()
    text = (tmp_path / "explore.log").read_text()
    assert "Email" not in text and "Traceback" not in text, text
