"""A session file (`skillyard call --session FILE`), or a config file, in a folder other users can
write, like /tmp.

Another user can create the file's lock before the person does and hold it (every call would
wait for ever), or create the session file itself with a session id of their choosing (which
names the person's workspace); a config's lock likewise. All are refused with a clear error.
The other user is uid 47212; only root can give it files, so those cases skip otherwise.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
OTHER = 47212
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="only root can make files owned by another user")


def call(session: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "skillyard",
            "call",
            "--session",
            str(session),
            "skills",
            '{"action": "list"}',
        ],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_lock_another_user_made_first_and_holds_is_an_error_not_a_hang(shared: Path) -> None:
    lock = shared / ".s.json.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        os.fchown(fd, OTHER, OTHER)
        os.fchmod(fd, 0o666)
        fcntl.flock(fd, fcntl.LOCK_EX)  # held, as the other user's process would
        r = call(shared / "s.json")
    finally:
        os.close(fd)
    assert r.returncode == 2
    assert "another user owns or can write s.json's lock file" in r.stderr
    assert not (shared / "s.json").exists()


def test_a_session_file_another_user_made_is_not_used(shared: Path) -> None:
    planted = shared / "s.json"
    planted.write_text('{"format": 1, "session_id": "chosen-by-someone-else", "loaded": []}\n')
    os.chown(planted, OTHER, OTHER)
    r = call(planted)
    assert r.returncode == 2
    assert "another user owns it or can write to it" in r.stderr


def test_ones_own_session_file_in_the_shared_folder_works(shared: Path) -> None:
    r = call(shared / "s.json")
    assert r.returncode == 0, r.stderr
    r = call(shared / "s.json")
    assert r.returncode == 0, r.stderr


def test_a_config_lock_another_user_made_first_and_holds_is_an_error_not_a_hang(shared: Path) -> None:
    """`trust add` rewrites the config under `.config.toml.lock`: a config kept in a shared folder."""
    cfg = shared / "config.toml"
    cfg.write_text('[skills]\ndisabled = ["other"]\n')
    fd = os.open(shared / ".config.toml.lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        os.fchown(fd, OTHER, OTHER)
        os.fchmod(fd, 0o666)
        fcntl.flock(fd, fcntl.LOCK_EX)
        r = subprocess.run(
            [sys.executable, "-m", "skillyard", "--config", str(cfg), "trust", "add", "github.com/acme/*"],
            env={**os.environ, "PYTHONPATH": str(SRC)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.close(fd)
    assert r.returncode != 0
    assert "another user owns or can write its lock file" in r.stderr
    assert "acme" not in cfg.read_text()
