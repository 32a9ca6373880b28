"""Every `lmdk …` command in the code blocks of the README and of `docs/*.md` runs as
written from `examples/`.

The commands are extracted from the pages at test time (so a changed flag in a page is
tested as soon as it is written) and run with the installed `lmdk` in a copy of
`examples/` (outputs land in a temporary folder, not in the repository: `git status`
shows no new file after a block, and every file a block writes is one that
`examples/.gitignore` ignores, for a reader who runs it in `examples/`). The commands
of one code block run in order in the same folder, as a reader pasting the block would
run them (a later command may read an earlier one's output). `lmdk explore` is tested
separately: it must stop its server when it is stopped.
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

ROOT = Path(__file__).resolve().parents[2]
LMDK = Path(sys.executable).with_name("lmdk")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def block_commands(text: str) -> list[list[str]]:
    """The `lmdk …` commands of each fenced bash/sh/console block of a Markdown text,
    continuation lines joined and `$ ` prompts removed (one list per block)."""
    out = []
    for block in re.findall(r"```(?:bash|sh|console)?\n(.*?)```", text, flags=re.S):
        joined = re.sub(r"[ \t]*\\\n\s*", " ", block)
        cmds = []
        for line in joined.splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            if line.startswith("lmdk "):
                cmds.append(line)
        if cmds:
            out.append(cmds)
    return out


BLOCKS = [
    pytest.param(cmds, id=f"{page.relative_to(ROOT)}#{i}")
    for page in PAGES
    for i, cmds in enumerate(block_commands(page.read_text(encoding="utf-8")))
]
COMMANDS = [c for block in BLOCKS for c in block.values[0]]


def test_docs_have_cli_examples():
    assert len(COMMANDS) >= 10, COMMANDS
    readme = block_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert readme, "the README shows no lmdk example"


def test_block_extraction_joins_continuations_and_keeps_blocks_apart():
    text = ("```bash\ncd examples\nlmdk a --x 1 \\\n     --y 2   # note\n```\n"
            "text\n```console\n$ lmdk b\n```\n```python\nlmdk_core.x()\n```\n")
    assert block_commands(text) == [["lmdk a --x 1 --y 2   # note"], ["lmdk b"]]


def _run(command: str, cwd: Path) -> None:
    args = shlex.split(command, comments=True)
    proc = subprocess.run([str(LMDK), *args[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    # exit 0, or 1 for `check` on a violated allocation (documented); never a usage error
    assert proc.returncode in (0, 1), f"{command}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, f"{command}\n{proc.stderr}"
    if proc.returncode == 1:
        assert args[1] == "check", f"{command}\n{proc.stderr}"


def _untracked() -> set[str] | None:
    """The repository's untracked, not ignored files (None outside a git checkout)."""
    proc = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return None
    return {line[3:] for line in proc.stdout.splitlines() if line.startswith("?? ")}


def _not_ignored(paths: list[str]) -> list[str]:
    """Those of ``paths`` (relative to the repository) that git would not ignore."""
    proc = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=ROOT,
                          input="\n".join(paths) + "\n", capture_output=True, text=True,
                          check=False)
    assert proc.returncode in (0, 1), proc.stderr  # 1: none of them is ignored
    return sorted(set(paths) - set(proc.stdout.splitlines()))


@pytest.mark.parametrize("commands", BLOCKS)
def test_documented_commands_run(commands, tmp_path):
    """Each block runs in a copy of `examples/`: the repository stays as it was, and what
    the block writes would be ignored by git had a reader run it in `examples/` itself."""
    before = _untracked()
    work = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", work)
    inputs = {p.relative_to(work) for p in work.rglob("*")}
    for command in commands:
        if command.startswith("lmdk explore"):
            continue
        _run(command, work)
    if before is None:
        pytest.skip("not a git checkout: the commands ran; git's view is not checked")
    new = _untracked() - before
    assert not new, f"running the documented commands left files in the repository: {new}"
    written = [f"examples/{p.relative_to(work).as_posix()}" for p in work.rglob("*")
               if p.is_file() and p.relative_to(work) not in inputs]
    if written:
        assert not _not_ignored(written), (
            "outputs the documented commands write in examples/ that examples/.gitignore "
            f"does not ignore: {_not_ignored(written)}")


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
