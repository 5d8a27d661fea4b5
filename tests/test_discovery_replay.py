"""Replaying a walk from directory mtimes: same result as a real walk, or no replay at all."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from skillyard import discovery
from skillyard.discovery import MAX_DEPTH, Root, Walker, replay_walk, walk_root
from skillyard.eligibility import Host
from skillyard.registry import Registry


@pytest.fixture(autouse=True)
def no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Directories these tests just made count as settled (their ctime is always "just now",
    `utime` cannot move it); the racy window has its own test below."""
    monkeypatch.setattr(discovery, "RACY_NS", 0)


def _host() -> Host:
    return Host(env={"PATH": ""}, os_name="linux", path="")


def _age(root: Path, seconds: int = 60) -> None:
    """Every directory and file under root modified a while ago (so none of them is racy)."""
    past = time.time_ns() - seconds * 1_000_000_000
    for dirpath, dirnames, filenames in os.walk(root):
        for n in filenames:
            os.utime(os.path.join(dirpath, n), ns=(past, past), follow_symlinks=False)
        for n in dirnames:
            os.utime(os.path.join(dirpath, n), ns=(past, past), follow_symlinks=False)
    os.utime(root, ns=(past, past))


def _walk(root: Path):
    return walk_root(Root(root, "custom"), [os.path.realpath(root)])


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Roots walked for real (a replay does not call walk_root)."""
    seen: list[str] = []
    real = Walker.top_entries

    def spy(self: Walker):
        seen.append(self.top)
        return real(self)

    monkeypatch.setattr(Walker, "top_entries", spy)
    return seen


def _tree(root: Path, make_skill) -> None:
    make_skill(root, "a")
    make_skill(root / "group", "b")
    make_skill(root / "group" / "deeper", "c", files={"notes/x.md": "x"})
    (root / "group" / "empty").mkdir(parents=True)
    (root / "README.md").write_text("not a skill")


def test_replay_equals_walk_when_nothing_changed(tmp_path: Path, make_skill) -> None:
    root = tmp_path / "r"
    _tree(root, make_skill)
    _age(root)
    first = _walk(root)
    assert first.replayable and first.paths
    again = replay_walk(str(root), first.paths, first.listed_dirs)
    assert again is not None
    assert again.paths == first.paths == _walk(root).paths
    assert [(s.st_ino, s.st_mtime_ns, s.st_size) for s in again.stats] == [
        (s.st_ino, s.st_mtime_ns, s.st_size) for s in first.stats
    ]


def test_a_walk_right_after_a_change_is_not_replayable(tmp_path: Path, make_skill, monkeypatch) -> None:
    monkeypatch.setattr(discovery, "RACY_NS", 2_000_000_000)
    root = tmp_path / "r"
    _tree(root, make_skill)  # just written: the same clock tick could still change them unseen
    assert not _walk(root).replayable


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda r, mk: mk(r, "new"), id="skill added at the top"),
        pytest.param(lambda r, mk: mk(r / "group" / "empty", "new"), id="skill added in a listed dir"),
        pytest.param(
            lambda r, mk: (r / "group" / "empty" / "SKILL.md").write_text("---\nname: e\n---\n"),
            id="a listed dir became a skill",
        ),
        pytest.param(lambda r, mk: (r / "a" / "SKILL.md").unlink(), id="skill file removed"),
        pytest.param(lambda r, mk: os.rename(r / "a", r / "z"), id="skill dir renamed"),
        pytest.param(
            lambda r, mk: (
                (r / "a" / "SKILL.md").chmod(0o000)
                if os.geteuid()
                else os.rename(r / "a" / "SKILL.md", r / "a" / "skill.md")
            ),
            id="skill file renamed or hidden",
        ),
    ],
)
def test_structural_changes_are_never_replayed(tmp_path: Path, make_skill, change) -> None:
    root = tmp_path / "r"
    _tree(root, make_skill)
    _age(root)
    first = _walk(root)
    change(root, make_skill)
    replayed = replay_walk(str(root), first.paths, first.listed_dirs)
    fresh = _walk(root)
    # either no replay, or exactly what a walk finds (a permission change is found by the lstat)
    assert replayed is None or replayed.paths == fresh.paths
    assert replayed is None or fresh.paths == first.paths


def test_in_place_edit_is_replayed_with_the_new_stat(tmp_path: Path, make_skill) -> None:
    root = tmp_path / "r"
    _tree(root, make_skill)
    _age(root)
    first = _walk(root)
    p = root / "a" / "SKILL.md"
    with open(p, "a") as f:  # appending changes no directory
        f.write("\nmore\n")
    replayed = replay_walk(str(root), first.paths, first.listed_dirs)
    assert replayed is not None
    i = replayed.paths.index(str(p))
    assert replayed.stats[i].st_size == p.stat().st_size != first.stats[i].st_size


def test_a_skill_file_at_the_depth_limit_is_seen(tmp_path: Path, make_skill) -> None:
    root = tmp_path / "r"
    deep = root.joinpath(*[f"d{i}" for i in range(MAX_DEPTH)])
    deep.mkdir(parents=True)
    make_skill(root, "a")
    _age(root)
    first = _walk(root)
    assert first.replayable
    # the deepest directory is looked into for a skill file but never listed
    make_skill(deep.parent, "late", dirname=deep.name)
    assert replay_walk(str(root), first.paths, first.listed_dirs) is None
    assert str(deep / "SKILL.md") in _walk(root).paths


def test_lowercase_skill_file_gaining_a_preferred_one_is_not_replayed(tmp_path: Path) -> None:
    root = tmp_path / "r"
    (root / "x").mkdir(parents=True)
    (root / "x" / "skill.md").write_text("---\nname: x\ndescription: lower\n---\n")
    _age(root)
    first = _walk(root)
    assert first.paths == [str(root / "x" / "skill.md")]
    (root / "x" / "SKILL.md").write_text("---\nname: x\ndescription: upper\n---\n")
    assert replay_walk(str(root), first.paths, first.listed_dirs) is None


def test_symlinks_make_a_walk_not_replayable(tmp_path: Path, make_skill) -> None:
    root = tmp_path / "r"
    make_skill(tmp_path / "elsewhere", "x")
    make_skill(root, "a")
    os.symlink(tmp_path / "elsewhere" / "x", root / "x")
    _age(root)
    assert not _walk(root).replayable


@pytest.mark.parametrize(
    "listed",
    [[("/nonexistent-dir", 1, 2)], [(1, 2, 3)], [("x",)], "garbage"],
)
def test_malformed_saved_walks_are_refused(tmp_path: Path, make_skill, listed) -> None:
    root = tmp_path / "r"
    make_skill(root, "a")
    assert replay_walk(str(root), [str(root / "a" / "SKILL.md")], listed) is None
    assert replay_walk(str(root), [str(root / "missing" / "SKILL.md")], []) is None
    assert replay_walk(str(root), [None], []) is None  # type: ignore[list-item]


def test_second_start_replays_the_cached_walk(tmp_path: Path, make_skill, walks: list[str]) -> None:
    root = tmp_path / "r"
    _tree(root, make_skill)
    _age(root)
    cache_file = tmp_path / "cache"
    cold = Registry([Root(root, "custom")], host=_host(), cache=cache_file)
    assert walks == [str(root)]
    warm = Registry([Root(root, "custom")], host=_host(), cache=cache_file)
    assert walks == [str(root)]  # not walked again
    assert warm.names() == cold.names() == ["a", "b", "c"]

    make_skill(root / "group" / "empty", "d")  # a directory's entries changed: walk for real
    later = Registry([Root(root, "custom")], host=_host(), cache=cache_file)
    assert walks == [str(root), str(root)] and later.names() == ["a", "b", "c", "d"]


def test_reload_without_paths_replays_and_still_sees_edits(tmp_path: Path, make_skill, walks) -> None:
    root = tmp_path / "r"
    _tree(root, make_skill)
    _age(root)
    reg = Registry([Root(root, "custom")], host=_host())
    p = root / "a" / "SKILL.md"
    p.write_text(p.read_text().replace("useful", "handy"))
    diff = reg.reload()
    assert walks == [str(root)] and diff.updated == ["a"] and "handy" in reg.get("a").description
    make_skill(root, "e")
    diff = reg.reload()
    assert walks == [str(root), str(root)] and "e" in reg


def test_dangling_symlinks_make_a_walk_not_replayable(tmp_path: Path, make_skill) -> None:
    """A link whose target appears later changes no directory the walk looked into."""
    root = tmp_path / "r"
    make_skill(root, "alpha")
    os.symlink(root / ".store" / "beta", root / "beta")  # leads nowhere yet
    assert not _walk(root).replayable
    (root / ".store" / "beta").mkdir(parents=True)
    make_skill(root / ".store", "beta")
    assert "beta" in Registry([Root(root, "custom")], host=_host()).names()

    other = tmp_path / "o"
    make_skill(other, "alpha")
    (other / "gamma").mkdir()
    os.symlink(other / ".later.md", other / "gamma" / "SKILL.md")  # a dangling skill file
    assert not _walk(other).replayable


def test_a_permission_change_on_a_listed_directory_is_seen(tmp_path: Path, make_skill) -> None:
    root = tmp_path / "r"
    _tree(root, make_skill)
    first = _walk(root)
    assert first.replayable
    (root / "group").chmod(0o711)  # no entry changed, so no mtime moved: the ctime did
    assert replay_walk(str(root), first.paths, first.listed_dirs) is None


@pytest.mark.parametrize(
    "forged",
    [
        pytest.param(lambda r: ["/etc/SKILL.md"], id="outside the root"),
        pytest.param(lambda r: ["a/SKILL.md"], id="relative"),
        pytest.param(lambda r: [f"{r}/a/../group/b/SKILL.md"], id="dot-dot"),
        pytest.param(lambda r: [f"{r}/.hidden/x/SKILL.md"], id="hidden"),
        pytest.param(lambda r: [f"{r}//a/SKILL.md"], id="empty component"),
        pytest.param(lambda r: [f"{r}/a/nested/SKILL.md"], id="inside a skill"),
        pytest.param(lambda r: [f"{r}/a/README.md"], id="not a skill file name"),
        pytest.param(lambda r: [f"{r}/a/SKILL.md", 7], id="not a string"),
    ],
)
def test_a_forged_saved_walk_cannot_add_files(tmp_path: Path, make_skill, forged) -> None:
    root = tmp_path / "r"
    _tree(root, make_skill)
    make_skill(root / "a" / "nested", "n")  # supporting content of skill a, never a skill
    (root / ".hidden" / "x").mkdir(parents=True)
    (root / ".hidden" / "x" / "SKILL.md").write_text("---\nname: x\ndescription: d\n---\n")
    (root / "a" / "README.md").write_text("---\nname: r\ndescription: d\n---\n")
    first = _walk(root)
    assert replay_walk(str(root), forged(str(root)), first.listed_dirs) is None


@pytest.mark.parametrize(
    "listed",
    [
        pytest.param(lambda r, saved: [("/", *saved[0][1:])], id="a directory outside the root"),
        pytest.param(lambda r, saved: [(r, 2**70, 0)], id="overflowing numbers"),
        pytest.param(lambda r, saved: [], id="nothing looked into"),
    ],
)
def test_forged_listed_directories_are_refused(tmp_path: Path, make_skill, listed) -> None:
    root = tmp_path / "r"
    _tree(root, make_skill)
    first = _walk(root)
    assert replay_walk(str(root), first.paths, listed(str(root), first.listed_dirs)) is None


def test_a_file_replaced_by_a_copy_with_the_same_size_and_time_is_seen(tmp_path: Path, make_skill) -> None:
    root = tmp_path / "r"
    make_skill(root, "a", description="Version one of this skill.")
    reg = Registry([Root(root, "custom")], host=_host())
    p = root / "a" / "SKILL.md"
    st = p.stat()
    new = root / "a" / "SKILL.md.new"
    new.write_text(p.read_text().replace("one", "two"))
    os.utime(new, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(new, p)  # same size, same mtime, another inode (as `mv`, `cp -p` or tar leave it)
    assert p.stat().st_size == st.st_size and p.stat().st_mtime_ns == st.st_mtime_ns
    reg.reload()
    assert reg.get("a").description == "Version two of this skill."


def test_roots_below_hidden_directories_are_replayed(tmp_path: Path, make_skill, walks: list[str]) -> None:
    root = tmp_path / ".agents" / "skills"  # where most default roots live
    _tree(root, make_skill)
    cache_file = tmp_path / "cache"
    Registry([Root(root, "custom")], host=_host(), cache=cache_file)
    Registry([Root(root, "custom")], host=_host(), cache=cache_file)
    assert walks == [str(root)]  # the second start replayed the saved walk


@pytest.mark.parametrize(
    "forged",
    [
        pytest.param(lambda r: "/etc/SKILL.md", id="outside"),
        pytest.param(lambda r: f"{r}/.x/SKILL.md", id="hidden"),
        pytest.param(lambda r: f"{r}/a/../b/SKILL.md", id="dot-dot"),
        pytest.param(lambda r: f"{r}/node_modules/SKILL.md", id="ignored"),
        pytest.param(lambda r: f"{r}/a/deeper/SKILL.md", id="inside a skill"),
        pytest.param(lambda r: f"{r}//a/SKILL.md", id="empty part"),
        pytest.param(lambda r: f"{r}/a\n/SKILL.md", id="line break"),
        pytest.param(lambda r: 42, id="not a string"),
    ],
)
def test_a_forged_flat_walk_cannot_add_files(tmp_path: Path, make_skill, forged) -> None:
    """The whole-list checks for the usual flat root refuse what the per-path checks refuse."""
    root = tmp_path / "r"
    for name in ("a", "b"):
        make_skill(root, name)
    make_skill(root / "a", "deeper")
    for odd in (".x", "node_modules"):
        (root / odd).mkdir()
        (root / odd / "SKILL.md").write_text("---\nname: odd\ndescription: d\n---\n")
    first = _walk(root)
    assert first.listed_dirs[0][0] == str(root) and len(first.listed_dirs) == 1
    assert replay_walk(str(root), first.paths, first.listed_dirs) is not None
    assert replay_walk(str(root), [*first.paths, forged(str(root))], first.listed_dirs) is None
