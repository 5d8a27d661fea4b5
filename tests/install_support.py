"""Helpers the install tests share: a git with no user or system configuration, and an install
run in a child process that reports how much its memory grew."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: skip a module when git is missing
needs_git = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="git"
)

GIT_ENV = {
    "PATH": os.environ["PATH"],
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    cp = subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, input=stdin, check=True, capture_output=True)
    return cp.stdout.decode().strip()


_MEASURED = (
    "import json, sys\n"
    "from pathlib import Path\n"
    "from skillyard.install import Installer\n"
    "base = [int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmRSS:')][0]\n"
    "r = Installer(Path(sys.argv[2])).install(sys.argv[1]).to_dict()\n"
    "hwm = [int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM:')][0]\n"
    "print(json.dumps({'result': r, 'grew_mb': (hwm - base) // 1024}))\n"
)


def install_measured(source: str, root: Path, timeout: float = 600) -> dict:
    """`Installer(root).install(source)` in a fresh process: its answer, and by how many MB its
    peak resident size grew over the install."""
    cp = subprocess.run(
        [sys.executable, "-c", _MEASURED, source, str(root)], capture_output=True, text=True, timeout=timeout
    )
    assert cp.returncode == 0, cp.stderr[-2000:]
    return json.loads(cp.stdout)
