"""Staging a skill into a workspace, or into the shared readable copy, is bounded by what the skill holds:
its directories and links count against the entry cap as its files do.

A hostile skill of a few bytes can hold tens of thousands of empty directories or links to its own
SKILL.md; counting regular files alone copied every one of them, on every run's staging."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillyard.execution.workspace import WorkspaceError, WorkspaceManager, readable_copy

#: one more than a skill may hold
OVER = 20_001


def _skill(root: Path) -> Path:
    d = root / "demo"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: demo\ndescription: Demo.\n---\nDemo.\n")
    return d


def _many_dirs(root: Path) -> Path:
    d = _skill(root)
    for i in range(OVER // 100 + 1):
        top = d / f"d{i}"
        top.mkdir()
        for j in range(100):
            (top / f"e{j}").mkdir()
    return d


def _many_links(root: Path) -> Path:
    d = _skill(root)
    for i in range(OVER):
        os.symlink("SKILL.md", d / f"l{i}")
    return d


@pytest.mark.parametrize("build", [_many_dirs, _many_links], ids=["directories", "links"])
def test_a_skill_of_too_many_entries_is_not_staged(tmp_path: Path, build: object) -> None:
    source = build(tmp_path / "skills")  # type: ignore[operator]
    manager = WorkspaceManager(tmp_path / "ws")
    ws = manager.get("s1")
    with pytest.raises(WorkspaceError, match="not staged"):
        ws.stage_skill("demo", source)
    assert [p.name for p in ws.skills_dir.iterdir()] == []  # no half copy left behind


def test_the_readable_copy_is_bounded_the_same_way(tmp_path: Path) -> None:
    source = _many_dirs(tmp_path / "skills")
    with pytest.raises(WorkspaceError, match="not staged"):
        readable_copy(source)


def test_a_skill_just_under_the_cap_is_staged(tmp_path: Path) -> None:
    source = _skill(tmp_path / "skills")
    for i in range(50):
        (source / f"d{i}").mkdir()
        os.symlink("SKILL.md", source / f"l{i}")
    manager = WorkspaceManager(tmp_path / "ws")
    staged = manager.get("s1").stage_skill("demo", source)
    assert (staged / "d49").is_dir() and (staged / "l49").read_text().startswith("---")
