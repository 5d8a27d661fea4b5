"""The start-up cache between its header and its rows, and under another user's home.

Real registries, real files, a real FIFO and real uids: the cache must never hang or fail a
command, and root starting with a user's HOME (sudo) must leave that user's cache alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_redteam4_cache import OTHER_UID, _root

#: A warm start; then whoever can write the cache's directory puts a FIFO in the file's place
#: before the first skill's row is read (rows are read lazily, on first use).
SWAP = """
import os, sys
from pathlib import Path
from skillyard.discovery import Root
from skillyard.registry import Registry
root, cache = Path(sys.argv[1]), Path(sys.argv[2])
reg = Registry([Root(root, "custom")], cache=cache)
cache.rename(cache.with_name("old"))
os.mkfifo(cache)
print(reg.get("t").tools[0].command)
"""


def test_a_fifo_swapped_in_after_the_header_is_read_never_hangs(tmp_path: Path) -> None:
    from skillyard.discovery import Root
    from skillyard.registry import Registry

    root = _root(tmp_path)
    cache = tmp_path / "cache" / "c.marshal"
    cache.parent.mkdir(mode=0o770)  # group-writable: the file, not its directory, is the boundary
    Registry([Root(root, "custom")], cache=cache)
    assert cache.is_file()
    done = subprocess.run(
        [sys.executable, "-c", SWAP, str(root), str(cache)], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "echo {x}\n"


def _start(root: Path) -> str:
    from skillyard.discovery import Root
    from skillyard.registry import Registry

    return Registry([Root(root, "custom")], cache=True).get("t").tools[0].command


def _files(home: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(home)): (p.lstat().st_uid, p.lstat().st_ino) for p in home.rglob("*")}


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root and a second uid")
@pytest.mark.parametrize("made", [False, True])
def test_root_with_a_users_home_leaves_that_users_cache_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, made: bool
) -> None:
    """root starting with a user's HOME (`sudo -E`) found the user's cache not its own (rightly),
    then replaced it with a file of root's, or made ~/.cache/skillyard as root, 0700: every later
    start of the user's was cold without a word, for good in the second case."""
    root = _root(tmp_path)
    home = tmp_path / "home"
    (home / ".cache").mkdir(parents=True)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(home))
    if made:  # the user has started skillyard before: that start's files, the user's
        assert _start(root) == "echo {x}"
        assert list(home.glob(".cache/skillyard/registry-*.marshal"))
    for p in (home, *home.rglob("*")):
        os.chown(p, OTHER_UID, OTHER_UID, follow_symlinks=False)
    before = _files(home)
    assert _start(root) == "echo {x}"
    assert _files(home) == before  # root made or replaced nothing in the user's home
