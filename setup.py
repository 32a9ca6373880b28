"""The one build step pyproject.toml cannot declare: the app goes into the wheel's ``lmdk_app``.

The Streamlit app lives once, at the repository root (``app.py``, ``app_pages/``,
``app_support/``, ``assets/``, ``.streamlit/config.toml``), where ``streamlit run app.py``
and ``./run.sh app`` run it. An installed wheel needs it inside a package, so that
``pip install lmdk-explorer`` followed by ``lmdk explore`` works from any folder: building
the wheel copies :data:`APP_FILES` into the build's ``lmdk_app/`` as real files (the
repository holds no links; they break in zip archives and on Windows). The sdist carries the
same files (MANIFEST.in). Everything else is declared in pyproject.toml.
``tests/cli/test_explore_install.py`` builds the sdist, the wheel from it, installs the wheel
and starts the app.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent

#: the app's files (globs relative to the repository root) and where each group goes in
#: the installed ``lmdk_app`` package
APP_FILES: list[tuple[str, str]] = [
    ("app.py", "."),
    ("app_pages/*.py", "app_pages"),
    ("app_support/*.py", "app_support"),
    ("app_support/*.js", "app_support"),
    ("app_support/*.json", "app_support"),
    ("assets/*.png", "assets"),
    ("assets/leaflet/*", "assets/leaflet"),
    ("assets/sample_tracks/*.gpx", "assets/sample_tracks"),
    # `lmdk explore` passes it as flags (localhost, headless, no usage statistics)
    (".streamlit/config.toml", "streamlit_config.toml"),
]


def app_files() -> list[tuple[Path, str]]:
    """``(source file, path inside lmdk_app)`` of every file of :data:`APP_FILES`."""
    out: list[tuple[Path, str]] = []
    for pattern, target in APP_FILES:
        matches = sorted(p for p in ROOT.glob(pattern) if p.is_file())
        if not matches:
            raise FileNotFoundError(f"the app's {pattern} is missing from {ROOT}")
        for src in matches:
            if target.endswith(".toml"):  # a renamed single file
                out.append((src, target))
            else:
                out.append((src, (Path(target) / src.name).as_posix()))
    return out


class BuildWithApp(build_py):
    """build_py, then the app's files copied into the build's ``lmdk_app/``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install runs the checkout's app in place
        for src, rel in app_files():
            dst = Path(self.build_lib) / "lmdk_app" / rel
            self.mkpath(str(dst.parent))
            self.copy_file(str(src), str(dst), preserve_mode=False)


if __name__ == "__main__":  # as setuptools runs it; tests read APP_FILES without building
    setup(cmdclass={"build_py": BuildWithApp})
