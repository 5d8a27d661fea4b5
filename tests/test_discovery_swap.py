"""A skill file swapped between the walk that found it and the read that parses it is refused, not read.

The walk checks where a skill file (or a link to one) leads; the parse opens it later. A file replaced in
between by a link out of the skill roots must not be read: its text would become the skill's description
and reach the model. Each read compares the inode it opened with the one discovery saw."""

from __future__ import annotations

import os
from pathlib import Path

from skillyard.parsing.skill_md import parse_skill_row
from skillyard.parsing.text import ReadError, read_head
from skillyard.registry import Registry

SECRET = "SECRET-OUTSIDE-THE-ROOTS"
MD = "---\nname: alpha\ndescription: Alpha skill\n---\nbody\n"


def _swap_to_link(target: Path, outside: Path) -> None:
    target.unlink()
    target.symlink_to(outside)


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "secret.md"
    outside.write_text(SECRET + "\n")
    skill = tmp_path / "skills" / "alpha"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(MD)
    return skill / "SKILL.md", outside


def test_read_head_refuses_a_file_replaced_since_the_walk(tmp_path: Path) -> None:
    md, outside = _setup(tmp_path)
    seen = os.lstat(md).st_ino
    _swap_to_link(md, outside)
    try:
        read_head(str(md), seen)
    except ReadError as e:
        assert e.code == "changed"
    else:
        raise AssertionError("a swapped file was read")
    assert SECRET in read_head(str(md)).body_head  # without an inode to hold it to, the path is read


def test_a_swapped_skill_file_is_not_loaded_and_says_why(tmp_path: Path) -> None:
    md, outside = _setup(tmp_path)
    seen = os.lstat(md).st_ino
    _swap_to_link(md, outside)
    row, diags = parse_skill_row(md, "custom", ino=seen)
    assert row is None
    assert [d.code for d in diags] == ["changed"]
    assert all(SECRET not in d.message for d in diags)


def test_a_swapped_skill_toml_is_not_loaded(tmp_path: Path) -> None:
    outside = tmp_path / "secret.toml"
    outside.write_text(f'[skill]\nname = "alpha"\ndescription = "{SECRET}"\n')
    skill = tmp_path / "skills" / "alpha"
    skill.mkdir(parents=True)
    toml = skill / "SKILL.toml"
    toml.write_text('[skill]\nname = "alpha"\ndescription = "Alpha tools"\n')
    seen = os.lstat(toml).st_ino
    _swap_to_link(toml, outside)
    row, diags = parse_skill_row(toml, "custom", ino=seen)
    assert row is None
    assert [d.code for d in diags] == ["changed"]


def test_a_watcher_reload_walks_again_when_a_skill_file_became_a_link_out(tmp_path: Path) -> None:
    md, outside = _setup(tmp_path)
    reg = Registry.from_roots([tmp_path / "skills"])
    assert reg.get("alpha") is not None
    _swap_to_link(md, outside)
    reg.reload([md])  # what a file watcher reports for the swap
    skill = reg.get("alpha")
    assert skill is None or SECRET not in skill.description
    assert any(d.code == "symlink-outside-root" for d in reg.diagnostics)
