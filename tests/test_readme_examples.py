"""Every `lmdk …` command in the README's code blocks runs as written from `examples/`.

The commands are extracted from the README at test time (so a changed flag in the
README is tested as soon as it is written) and run with the installed `lmdk` in a copy
of `examples/` (outputs land in a temporary folder, not in the repository). `lmdk
explore` is tested separately: it must stop its server when it is stopped.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LMDK = Path(sys.executable).with_name("lmdk")


def readme_commands() -> list[str]:
    """The `lmdk …` commands of the README's fenced code blocks, continuation lines
    joined and trailing comments removed."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```(?:bash|sh|console)?\n(.*?)```", text, flags=re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            if line.startswith("lmdk "):
                out.append(line)
    return out


COMMANDS = readme_commands()


def test_readme_has_cli_examples():
    assert len(COMMANDS) >= 10, COMMANDS


@pytest.mark.parametrize("command", [c for c in COMMANDS if not c.startswith("lmdk explore")])
def test_readme_command_runs(command, tmp_path):
    work = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", work)
    args = shlex.split(command, comments=True)
    proc = subprocess.run([str(LMDK), *args[1:]], cwd=work, capture_output=True, text=True,
                          timeout=300)
    # exit 0, or 1 for `check` on a violated allocation (documented); never a usage error
    assert proc.returncode in (0, 1), f"{command}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    if proc.returncode == 1:
        assert args[1] == "check", proc.stderr


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_explore_stops_its_server_when_stopped():
    """`lmdk explore` replaces itself by streamlit (exec): SIGTERM to the pid the user
    started stops the server and frees the port (no orphan process)."""
    port = 8617 + 1000  # away from the app ports used by browser checks
    proc = subprocess.Popen([str(LMDK), "explore", "--headless", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not _port_open(port):
            assert proc.poll() is None, "lmdk explore exited early"
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        deadline = time.monotonic() + 30
        while _port_open(port) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not _port_open(port), "the server kept running after lmdk explore stopped"
    finally:
        if proc.poll() is None:
            proc.kill()
