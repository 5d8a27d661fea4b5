"""The one writer of the start-up cache and the search snapshot (`cache.write_new`), attacked directly:
a link or another user's file planted at its predictable temporary name, a write that fails half way,
and a cache folder that is a link into a place another user owns."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillyard.cache import write_new

OTHER = 47212
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="only root can make files owned by another user")


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _private(path: Path, data: bytes) -> None:
    st = os.lstat(path)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.geteuid()
    assert path.read_bytes() == data


def test_a_link_planted_at_the_temporary_name_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    path = tmp_path / "cache.bin"
    os.symlink(victim, _tmp(path))
    write_new(path, _tmp(path), [b"new ", b"data"])
    assert victim.read_bytes() == b"keep"
    _private(path, b"new data")
    assert not os.path.lexists(_tmp(path))


def test_a_link_planted_at_the_final_name_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    path = tmp_path / "cache.bin"
    os.symlink(victim, path)
    write_new(path, _tmp(path), [b"data"])
    assert victim.read_bytes() == b"keep"
    _private(path, b"data")


@root_only
def test_another_users_file_at_the_temporary_name_is_not_written_through(tmp_path: Path) -> None:
    path = tmp_path / "cache.bin"
    planted = _tmp(path)
    planted.write_bytes(b"theirs")
    os.chown(planted, OTHER, OTHER)
    planted.chmod(0o666)
    write_new(path, planted, [b"ours"])
    _private(path, b"ours")  # a new file of ours, not theirs rewritten (it would keep their uid)


def test_a_write_that_fails_half_way_leaves_no_partial_file(tmp_path: Path) -> None:
    path = tmp_path / "cache.bin"
    path.write_bytes(b"old")

    def parts() -> Iterator[bytes]:
        yield b"half"
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        write_new(path, _tmp(path), parts())
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache.bin"]


def test_an_interrupt_while_writing_leaves_no_partial_file(tmp_path: Path) -> None:
    path = tmp_path / "cache.bin"

    def parts() -> Iterator[bytes]:
        yield b"half"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_new(path, _tmp(path), parts())
    assert list(tmp_path.iterdir()) == []


@root_only
def test_a_cache_folder_linked_into_another_users_folder_is_not_written(tmp_path: Path) -> None:
    """The folder check follows the link: the other user's folder is what is judged, and refused."""
    from skillyard import cache

    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, OTHER, OTHER)
    home = tmp_path / "home"
    home.mkdir()
    os.symlink(theirs, home / "skillyard")
    cache.save(home / "skillyard" / "cache.bin", cache.Cached())
    assert list(theirs.iterdir()) == []
    cache.save(home / "mine" / "cache.bin", cache.Cached())  # the check can fail: our own place is written
    _private(home / "mine" / "cache.bin", (home / "mine" / "cache.bin").read_bytes())


@root_only
def test_a_cache_folder_another_user_makes_after_the_check_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared parent (root's, writable by all, like /tmp): the folder is free when it is checked, and
    another user makes it before skillyard's `mkdir`. The race is forced by making the folder, with a
    real chown, just before the real `mkdir` runs; what exists after it is judged again."""
    from skillyard import cache

    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    folder = shared / "skillyard"
    real_mkdir = Path.mkdir

    def theirs_first(self: Path, *args: object, **kwargs: object) -> None:
        if self == folder and not folder.exists():
            real_mkdir(folder, 0o777)
            os.chown(folder, OTHER, OTHER)
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", theirs_first)
    cache.save(folder / "cache.bin", cache.Cached())
    assert list(folder.iterdir()) == []
    monkeypatch.undo()
    mine = shared / "mine"
    cache.save(mine / "cache.bin", cache.Cached())  # the check can fail: a folder made by us is written
    _private(mine / "cache.bin", (mine / "cache.bin").read_bytes())
