"""The start-up cache as an attacker sees it: a file another user can write chooses what tools run.

A cached row holds a SKILL.toml tool's command, so a cache file or directory that anyone but
this user could have written must be neither read nor written. Every test forges a real cache
file the way an attacker would (same length, so it still decodes) and starts a real registry.
"""

from __future__ import annotations

import os
import random
import struct
import time
import zlib
from pathlib import Path

import pytest

from skillyard.discovery import Root
from skillyard.registry import Registry

TOML = '[skill]\nname = "t"\ndescription = "toml"\n[[tools]]\nname = "echo"\ndescription = "e"\ncommand = "echo {x}"\n'
FORGED = b"id;: {x}"  # same length as the real command: the forged row still decodes
OTHER_UID = 47211


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    (root / "t").mkdir(parents=True)
    (root / "t" / "SKILL.toml").write_text(TOML)
    old = time.time() - 3600  # outside the racy window, so the file is cached
    for p in (root / "t" / "SKILL.toml", root / "t", root):
        os.utime(p, (old, old))
    return root


def _command(root: Path, cache_file: Path) -> str:
    return Registry([Root(root, "custom")], cache=cache_file).get("t").tools[0].command


def _forge(cache_file: Path) -> None:
    """The attacker's edit: a new command, and the file's checksums done again (they catch damage,
    not forgery)."""
    data = cache_file.read_bytes()
    assert data.count(b"echo {x}") == 1
    data = data.replace(b"echo {x}", FORGED)
    (size,) = struct.unpack("<Q", data[8:16])
    header, rows = data[24 : 24 + size], data[24 + size :]
    cache_file.write_bytes(
        data[:8] + struct.pack("<QII", size, zlib.crc32(header), zlib.crc32(rows)) + header + rows
    )


@pytest.fixture
def cached(tmp_path: Path) -> tuple[Path, Path]:
    root = _root(tmp_path)
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir(mode=0o700)
    cache_file = cache_dir / "c.marshal"
    assert _command(root, cache_file) == "echo {x}"
    assert cache_file.is_file()
    return root, cache_file


def test_a_forged_cache_in_a_private_dir_is_what_the_warm_start_reads(cached: tuple[Path, Path]) -> None:
    """The premise: the cache is trusted, so only this user may be able to write it."""
    root, cache_file = cached
    _forge(cache_file)
    assert _command(root, cache_file) == FORGED.decode()


@pytest.mark.parametrize("mode", [0o666, 0o620, 0o602])
def test_a_cache_file_others_can_write_is_not_read(cached: tuple[Path, Path], mode: int) -> None:
    root, cache_file = cached
    _forge(cache_file)
    os.chmod(cache_file, mode)
    assert _command(root, cache_file) == "echo {x}"


def test_a_linked_cache_file_is_not_read(cached: tuple[Path, Path], tmp_path: Path) -> None:
    """Neither a symbolic link (opened without following it) nor a second hard link."""
    root, cache_file = cached
    _forge(cache_file)
    elsewhere = tmp_path / "elsewhere.marshal"
    cache_file.rename(elsewhere)
    cache_file.symlink_to(elsewhere)
    assert _command(root, cache_file) == "echo {x}"
    assert not cache_file.is_symlink()  # that start wrote a cache of its own in the link's place
    _forge(cache_file)
    os.link(cache_file, tmp_path / "hard.marshal")
    assert _command(root, cache_file) == "echo {x}"


def test_saving_into_a_shared_dir_never_writes_through_a_planted_link(tmp_path: Path) -> None:
    """The temporary file's name is predictable (it holds the pid): a link planted there by another
    user of a shared cache dir must not make this user's start truncate the link's target."""
    root = _root(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    cache_file = shared / "c.marshal"
    (shared / f".c.marshal.{os.getpid()}.tmp").symlink_to(victim)
    assert _command(root, cache_file) == "echo {x}"
    assert victim.read_text() == "precious\n"
    assert cache_file.stat().st_mode & 0o077 == 0  # a file of this user's alone
    _forge(cache_file)  # and one that the next start reads (only this user could have written it)
    assert _command(root, cache_file) == FORGED.decode()


def test_the_default_cache_dir_is_created_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = _root(tmp_path)
    Registry([Root(root, "custom")], cache=True)
    made = list((tmp_path / "xdg").glob("skillyard/registry-*.marshal"))
    assert len(made) == 1
    assert made[0].stat().st_mode & 0o077 == 0 and made[0].parent.stat().st_mode & 0o077 == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a second uid to own the planted files")
def test_a_cache_file_another_user_made_is_not_read(cached: tuple[Path, Path], tmp_path: Path) -> None:
    """An attacker who pre-created $XDG_CACHE_HOME/skillyard (say under a shared /tmp) owns it and
    can put a file of theirs, forged, where this user's cache goes."""
    root, cache_file = cached
    os.chown(cache_file.parent, OTHER_UID, OTHER_UID)
    os.chmod(cache_file.parent, 0o777)
    _forge(cache_file)
    os.chown(cache_file, OTHER_UID, OTHER_UID)
    assert _command(root, cache_file) == "echo {x}"


def _edit_keeping_size_and_mtime(path: Path, old: str, new: str) -> None:
    """An edit in place of the same length, then the old mtime put back (`touch -d`): size, mtime
    and inode are all as before; only the ctime, which no user can set, has moved."""
    assert len(old) == len(new)
    st = path.stat()
    with open(path, "r+", encoding="utf-8") as f:
        text = f.read()
        f.seek(0)
        f.write(text.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    now = path.stat()
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino)


def test_an_edit_with_size_and_mtime_put_back_is_seen(cached: tuple[Path, Path]) -> None:
    """The warm start, a full reload and a reload of the changed path all kept the old command."""
    root, cache_file = cached
    running = Registry([Root(root, "custom")], cache=cache_file)
    assert running.get("t").tools[0].command == "echo {x}"
    _edit_keeping_size_and_mtime(root / "t" / "SKILL.toml", "echo {x}", "true {x}")
    assert _command(root, cache_file) == "true {x}"
    running.reload([root / "t" / "SKILL.toml"])
    assert running.get("t").tools[0].command == "true {x}"
    again = Registry([Root(root, "custom")], cache=cache_file)
    _edit_keeping_size_and_mtime(root / "t" / "SKILL.toml", "true {x}", "echo {x}")
    again.reload()
    assert again.get("t").tools[0].command == "echo {x}"


def test_served_digests_and_staged_copies_follow_such_an_edit(tmp_path: Path) -> None:
    """The MCP manifest's digest cache and the workspace's staged copy of a skill were both keyed on
    size and mtime: the served digest went stale, and the next run ran the old script."""
    from skillyard.execution import RunRequest, SkillRunner
    from skillyard.mcp.catalog import SkillCatalog

    root = tmp_path / "r"
    (root / "demo" / "scripts").mkdir(parents=True)
    (root / "demo" / "SKILL.md").write_text("---\nname: demo\ndescription: d\n---\nRun it.\n")
    script = root / "demo" / "scripts" / "go.sh"
    script.write_text("echo before\n")
    reg = Registry.from_roots([root])
    served = SkillCatalog(reg)
    skill = reg.get("demo")

    def digest() -> str:
        (entry,) = [f for f in served.manifest(skill).files if f.rel == "scripts/go.sh"]
        return entry.digest

    first = digest()
    with SkillRunner(executor="local", workspace_root=tmp_path / "ws") as runner:
        req = RunRequest.from_arguments({"skill": "demo", "command": "bash scripts/go.sh"})
        assert runner.run(skill, req, session_id="s").stdout == "before\n"
        _edit_keeping_size_and_mtime(script, "before", "after!")
        assert runner.run(skill, req, session_id="s").stdout == "after!\n"
    assert digest() != first


def test_damaged_bytes_never_change_a_name_or_a_command(cached: tuple[Path, Path]) -> None:
    """The cache had no checksum: one byte flipped in a row turned `echo {x}` into `*cho {x}`, and
    one in the names column registered a skill under a name it does not have, start after start."""
    root, cache_file = cached
    good = cache_file.read_bytes()
    rng = random.Random(4)
    for _ in range(150):
        data = bytearray(good)
        for _ in range(rng.choice([1, 1, 2, 5])):
            data[rng.randrange(len(data))] = rng.randrange(256)
        cache_file.write_bytes(bytes(data))
        reg = Registry([Root(root, "custom")], cache=cache_file)
        assert reg.names() == ["t"]
        assert reg.get("t").tools[0].command == "echo {x}"
