"""A name that only looks valid (a final line break, which `$` matches before) is not one."""

from __future__ import annotations

from pathlib import Path

from skillyard.remote import store

SKILL = b"---\nname: abc\ndescription: a test skill\n---\nbody\n"


def test_a_remote_skill_name_with_a_final_line_break_is_refused_as_a_name(tmp_path: Path) -> None:
    """A remote's `skill://abc\\n/...` passed the name check: its files were written to a folder named
    `abc\\n` before the skill file's own name turned it down."""
    files = {"skill://abc\n/SKILL.md": SKILL, "skill://ok/SKILL.md": SKILL.replace(b"abc", b"ok")}
    report = store("r", files, tmp_path / "root")
    assert report.skills == ["ok"]
    assert [(r["skill"], r["reason"].split(" in ")[0]) for r in report.refused] == [
        ("abc\n", "not a valid skill name")
    ]
    assert sorted(p.name for p in (tmp_path / "root").iterdir()) == ["ok"]
