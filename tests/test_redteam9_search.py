"""The search index snapshot (written to the cache dir after a first search) on a full disk and
when the process writing it is killed: nothing partial is left behind, and the next start searches."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from namespaces import MOUNT_TMPFS, unshare_prefix

SRC = Path(__file__).resolve().parents[1] / "src"

# argv: skills dir, snapshot dir, what to do while the snapshot is written ("fill" or "kill")
CHILD = r"""
import errno, os, signal, sys
from pathlib import Path
from skillyard.registry import Registry
from skillyard.search import SearchIndex
skills, snap, how = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
index = SearchIndex(Registry.from_roots([skills]).skills, snapshot_dir=snap)
if how == "fill":  # leave one page free: the snapshot's first file is larger
    snap.mkdir(parents=True, exist_ok=True)
    fd = os.open(snap.parent / "fill", os.O_WRONLY | os.O_CREAT)
    size = 0
    try:
        while True:
            size += os.write(fd, b"x" * 4096)
    except OSError as e:
        assert e.errno == errno.ENOSPC
    os.ftruncate(fd, (size // 4096 - 1) * 4096)
    os.close(fd)
else:
    os.replace = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
print(index.search("pdf", 3)[0].name)
print(",".join(sorted(p.name for p in snap.iterdir() if p.name.endswith(".tmp"))))
"""


def _skills(root: Path) -> Path:
    for i in range(50):
        d = root / f"s{i}"
        d.mkdir(parents=True)
        text = f"---\nname: s{i}\ndescription: Skill {i} converts pdf files, case {i}.\n---\n"
        (d / "SKILL.md").write_text(text + f"Body text about case {i}. " * 200)
    return root


PREFIX = unshare_prefix("m", MOUNT_TMPFS)
ENV = {**os.environ, "PYTHONPATH": str(SRC)}


@pytest.mark.skipif(PREFIX is None, reason="needs a private mount namespace where a tmpfs may be mounted")
def test_a_snapshot_that_does_not_fit_leaves_no_partial_file(tmp_path: Path) -> None:
    skills = _skills(tmp_path / "skills")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    assert PREFIX is not None
    shell = 'mount -t tmpfs -o size=1m tmpfs "$1" && exec "$2" -c "$3" "$4" "$1/search" fill'
    cp = subprocess.run(
        [*PREFIX, "sh", "-c", shell, "sh", str(mnt), sys.executable, CHILD, str(skills)],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert cp.returncode == 0, cp.stderr[-3000:]
    assert cp.stdout.splitlines() == ["s0", ""]  # the search answered; no temp file is left


def test_what_killed_writers_left_is_cleared_by_the_next_write(tmp_path: Path) -> None:
    skills = _skills(tmp_path / "skills")
    snap = tmp_path / "cache" / "search"
    for _ in range(3):
        cp = subprocess.run(
            [sys.executable, "-c", CHILD, str(skills), str(snap), "kill"],
            env=ENV,
            capture_output=True,
            timeout=120,
        )
        assert cp.returncode == -9, cp.stderr
    assert len(list(snap.iterdir())) <= 1  # each write clears what the one killed before it left
    from skillyard.registry import Registry
    from skillyard.search import SearchIndex

    index = SearchIndex(Registry.from_roots([skills]).skills, snapshot_dir=snap)
    assert index.search("pdf", 3)[0].name == "s0"
    assert not [p.name for p in snap.iterdir() if p.name.endswith(".tmp")]
