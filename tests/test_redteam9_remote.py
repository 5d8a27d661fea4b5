"""`remote sync` writing its cache onto a full disk: a clear error, the previous copy kept whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from namespaces import MOUNT_TMPFS, unshare_prefix

SRC = Path(__file__).resolve().parents[1] / "src"


PREFIX = unshare_prefix("m", MOUNT_TMPFS)

CHILD = r"""
import sys
from pathlib import Path
from skillyard.remote import RemoteError, store
root = Path(sys.argv[1]) / "remote" / "team"
def skill(name, extra=b""):
    md = f"---\nname: {name}\ndescription: A skill the team shares.\n---\nBody.\n".encode()
    files = {f"skill://{name}/SKILL.md": md}
    for i in range(len(extra) and 4):
        files[f"skill://{name}/data{i}.txt"] = extra
    return files
first = store("team", {**skill("alpha"), **skill("beta")}, root)
print("first", ",".join(first.skills))
try:
    store("team", {**skill("alpha"), **skill("gamma", b"word " * 100_000)}, root)
except RemoteError as e:
    print("refused", "No space left" in str(e))
else:
    print("stored")
print("kept", ",".join(sorted(p.name for p in root.iterdir())))
print("left", ",".join(sorted(p.name for p in root.parent.iterdir() if p.name != "team")))
"""


@pytest.mark.skipif(PREFIX is None, reason="needs a private mount namespace where a tmpfs may be mounted")
def test_a_sync_that_fills_the_disk_is_an_error_and_keeps_the_old_copy(tmp_path: Path) -> None:
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    assert PREFIX is not None
    shell = 'mount -t tmpfs -o size=1m tmpfs "$1" && exec "$2" -c "$3" "$1"'
    cp = subprocess.run(
        [*PREFIX, "sh", "-c", shell, "sh", str(mnt), sys.executable, CHILD],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert cp.returncode == 0, cp.stderr[-3000:]
    assert cp.stdout.splitlines() == ["first alpha,beta", "refused True", "kept alpha,beta", "left "]


KILLED = r"""
import os, signal, sys
from pathlib import Path
import skillyard.remote as remote
root = Path(sys.argv[1])
real = remote._write
def dying(dest, files):
    real(dest, files)
    os.kill(os.getpid(), signal.SIGKILL)  # killed with one skill written
remote._write = dying
md = b"---\nname: alpha\ndescription: A skill the team shares.\n---\nBody.\n"
remote.store("team", {"skill://alpha/SKILL.md": md}, root)
"""


def test_what_a_killed_sync_left_is_cleared_by_the_next(tmp_path: Path) -> None:
    from skillyard.remote import store

    root = tmp_path / "remote" / "team"
    md = b"---\nname: alpha\ndescription: A skill the team shares.\n---\nBody.\n"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    for _ in range(3):
        cp = subprocess.run(
            [sys.executable, "-c", KILLED, str(root)], env=env, capture_output=True, timeout=120
        )
        assert cp.returncode == -9, cp.stderr
    assert len(list(root.parent.iterdir())) == 1  # each sync clears what the one killed before it left
    assert store("team", {"skill://alpha/SKILL.md": md}, root).skills == ["alpha"]
    assert [p.name for p in root.parent.iterdir()] == ["team"]
