"""A skill folder found by its place is skipped when another user can rename a folder on its way."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from test_redteam10_shared_dirs import OTHER, skillyard


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a folder owned by another user")
def test_own_project_folder_inside_another_users_folder_is_skipped(shared: Path, make_skill: Any) -> None:
    """The other user owns `theirs`: they can move `proj` away and put their own in its place at any time."""
    theirs = shared / "theirs"
    make_skill(theirs / "proj" / ".agents" / "skills", "notes", "Checked, then swapped.")
    os.chown(theirs, OTHER, OTHER)
    r = skillyard(theirs / "proj", "list", "--json")
    assert r.returncode == 0, r.stderr
    assert "Checked, then swapped." not in r.stdout and "foreign-root" in r.stdout


def test_own_project_folder_in_a_sticky_shared_folder_is_used(shared: Path, make_skill: Any) -> None:
    """/tmp-like: others may write the folder but move only their own entries."""
    make_skill(shared / "mine" / ".agents" / "skills", "notes", "My project notes.")
    r = skillyard(shared / "mine", "list", "--json")
    assert r.returncode == 0, r.stderr
    assert "My project notes." in r.stdout and "foreign-root" not in r.stdout
