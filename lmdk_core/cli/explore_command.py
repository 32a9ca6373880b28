"""``lmdk explore``: start the Streamlit app, from a source checkout or an installed wheel.

The app (``app.py``, ``app_pages/``, ``app_support/``, ``assets/``) is found next to the
engine in a checkout, else in the installed ``lmdk_app`` package. Its Streamlit configuration
(``.streamlit/config.toml`` in a checkout, ``lmdk_app/streamlit_config.toml`` in a
wheel: localhost only, headless, no usage statistics; see SECURITY.md) is passed as
explicit ``--section.key value`` flags, so it applies from whatever folder the command
is started in, above any ``.streamlit/config.toml`` found there.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from lmdk_core.cli.bounded import bounded
from lmdk_core.foundation.errors import InputError

__all__ = ["register", "find_app", "config_flags", "streamlit_command"]

#: the repository root when the engine runs from a source checkout
_CHECKOUT = Path(__file__).resolve().parents[2]


def find_app() -> tuple[Path, Path]:
    """``(app.py, Streamlit configuration file)`` of the checkout, else of the installed
    ``lmdk_app`` package; :class:`InputError` when neither is there."""
    for locate in (_checkout_app, _installed_app):  # the checkout first
        app, config = locate()
        if app is not None and config is not None and app.is_file() and config.is_file():
            return app, config
    raise InputError("the app is not installed (no lmdk_app package and no source checkout "
                     f"at {_CHECKOUT}); reinstall with: pip install lmdk-explorer")


def _checkout_app() -> tuple[Path, Path]:
    """Where a source checkout keeps ``app.py`` and its Streamlit configuration."""
    return _CHECKOUT / "app.py", _CHECKOUT / ".streamlit" / "config.toml"


def _installed_app() -> tuple[Path | None, Path | None]:
    """Where the installed ``lmdk_app`` package keeps them ((None, None) without it)."""
    spec = importlib.util.find_spec("lmdk_app")
    if spec is None or not spec.submodule_search_locations:
        return None, None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return folder / "app.py", folder / "streamlit_config.toml"


def config_flags(config: Path) -> list[str]:
    """Every setting of a Streamlit ``config.toml`` as ``--section.key value`` flags
    (booleans as ``true``/``false``; a list, e.g. ``server.allowedHosts``, as one flag
    per item, as Streamlit's command line takes its options of several values)."""
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    flags: list[str] = []

    def add(prefix: str, table: dict) -> None:
        # nested tables ([theme.light]) become dotted names: --theme.light.textColor
        for key, value in table.items():
            name = f"{prefix}.{key}" if prefix else key
            if isinstance(value, dict):
                add(name, value)
            elif prefix and isinstance(value, list):
                for item in value:
                    flags.extend([f"--{name}", str(item)])
            elif prefix:
                text = ("true" if value else "false") if isinstance(value, bool) else str(value)
                flags.extend([f"--{name}", text])

    add("", data)
    return flags


def streamlit_command(port: int) -> tuple[list[str], Path]:
    """The ``python -m streamlit run …`` command line and the folder to run it in."""
    app, config = find_app()
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), *config_flags(config),
           "--server.port", str(port)]
    return cmd, app.parent


def _explore(args: argparse.Namespace) -> int:
    cmd, folder = streamlit_command(args.port)
    if args.open_browser and not args.headless:
        # the configuration is headless (no first-run e-mail prompt, no browser)
        cmd += ["--server.headless", "false"]
    print(f"lmdk explore: starting the app on http://localhost:{args.port} "
          "(Ctrl-C stops it)", file=sys.stderr, flush=True)
    # Replace this process by streamlit (exec): Ctrl-C, SIGTERM or SIGHUP sent to `lmdk
    # explore` stop the server itself, no orphan keeps the port.
    os.chdir(folder)
    if os.name == "posix":
        os.execv(sys.executable, cmd)
    return subprocess.call(cmd)  # pragma: no cover - Windows has no exec


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``explore`` to the ``lmdk`` sub-commands."""
    p = sub.add_parser(
        "explore", help="start the Streamlit explorer (localhost only, headless)",
        description="Start the Streamlit explorer on this machine. It listens on "
                    "localhost only, sends no usage statistics and opens no browser "
                    "unless --open-browser is given: open the printed address.",
    )
    p.add_argument("--port", type=bounded("port", "--port"), default=8501, help="port to listen on")
    p.add_argument("--headless", action="store_true",
                   help="never open a browser (already the default; kept for scripts)")
    p.add_argument("--open-browser", action="store_true",
                   help="open the app in this machine's web browser once it has started")
    p.set_defaults(handler=_explore)
