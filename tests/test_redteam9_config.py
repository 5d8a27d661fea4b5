"""Config writes (`trust add`, a persisted enable/disable) under a killed writer, a full disk, a private file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from namespaces import MOUNT_TMPFS, unshare_prefix
from skillyard.config import load_config, persist_disabled
from skillyard.install import TrustPolicy

SRC = Path(__file__).resolve().parents[1] / "src"
ENV = {**os.environ, "PYTHONPATH": str(SRC)}
PRIVATE = '[[skills.remote]]\nname = "team"\nurl = "https://skills.example.com/mcp"\nheaders = { Authorization = "Bearer s3cret" }\n'


def strays(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp" in p.name)


def test_a_private_config_stays_private_when_skillyard_rewrites_it(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(PRIVATE)
    cfg.chmod(0o600)  # it holds a bearer token
    old = os.umask(0o022)
    try:
        assert TrustPolicy(config_path=cfg).add("github.com/acme/*")
        persist_disabled(cfg, "demo", True)
    finally:
        os.umask(old)
    assert cfg.stat().st_mode & 0o777 == 0o600
    assert load_config(cfg).remotes[0].headers == (("Authorization", "Bearer s3cret"),)


# Stops right before the written temp file is renamed over the config, until killed.
PAUSED_WRITER = r"""
import os, sys, time
from pathlib import Path
from skillyard.config import persist_disabled
real = os.replace
def paused(a, b):
    print("writing", flush=True)
    time.sleep(600)
os.replace = paused
persist_disabled(Path(sys.argv[1]), "demo", True)
"""


def test_a_writer_killed_mid_write_leaves_nothing_the_next_write_does_not_clear(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[skills]\ndisabled = ["other"]\n')
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-c", PAUSED_WRITER, str(cfg)], stdout=subprocess.PIPE, text=True, env=ENV
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "writing"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert load_config(cfg).disabled == frozenset({"other"})  # the config itself is untouched
    persist_disabled(cfg, "demo", True)  # the next write goes through, and sweeps what the killed ones left
    assert load_config(cfg).disabled == frozenset({"other", "demo"})
    assert strays(tmp_path) == []


PREFIX = unshare_prefix("m", MOUNT_TMPFS)

FULL_DISK = r"""
import errno, os, sys
from pathlib import Path
from skillyard.config import load_config
from skillyard.install import TrustPolicy
mnt = Path(sys.argv[1])
cfg = mnt / "config.toml"
cfg.write_text('[trust]\nsources = ["github.com/acme/*"]\n' + "# padding\n" * 2000)
fd = os.open(mnt / "fill", os.O_WRONLY | os.O_CREAT)
try:
    while True:
        os.write(fd, b"x" * 4096)
except OSError as e:
    assert e.errno == errno.ENOSPC
try:
    TrustPolicy(config_path=cfg).add("github.com/other/*")
except OSError as e:
    print("refused", e.errno == errno.ENOSPC)
else:
    print("written")
print("sources", ",".join(load_config(cfg).trust_sources))
print("strays", ",".join(sorted(p.name for p in mnt.iterdir() if ".tmp" in p.name)))
"""


@pytest.mark.skipif(PREFIX is None, reason="needs a private mount namespace where a tmpfs may be mounted")
def test_a_full_disk_refuses_the_write_and_leaves_the_config_whole(tmp_path: Path) -> None:
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    assert PREFIX is not None
    shell = 'mount -t tmpfs -o size=256k tmpfs "$1" && exec "$2" -c "$3" "$1"'
    cp = subprocess.run(
        [*PREFIX, "sh", "-c", shell, "sh", str(mnt), sys.executable, FULL_DISK],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert cp.returncode == 0, cp.stderr[-3000:]
    assert cp.stdout.splitlines() == ["refused True", "sources github.com/acme/*", "strays "]


HANG_GUARD = r"""
import sys
from pathlib import Path
from skillyard.config import persist_disabled
try:
    persist_disabled(Path(sys.argv[1]), "demo", True)
except OSError as e:
    print("refused", e.strerror)
else:
    print("written")
"""


def test_a_fifo_in_place_of_the_lock_file_is_an_error_not_a_hang(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[skills]\ndisabled = ["other"]\n')
    os.mkfifo(tmp_path / ".config.toml.lock")
    cp = subprocess.run(
        [sys.executable, "-c", HANG_GUARD, str(cfg)], env=ENV, capture_output=True, text=True, timeout=60
    )
    assert cp.stdout.startswith("refused"), cp.stdout + cp.stderr
    assert load_config(cfg).disabled == frozenset({"other"})
