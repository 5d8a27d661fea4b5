"""The install root's `.staging` and its journals, edited by someone else who can write there (an
install root shared by a team) or left behind by a crash: only the install root is ever touched."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from skillyard.install import Installer, Lockfile, TrustPolicy
from skillyard.install.lockfile import tree_hash


def skill(d: Path, name: str) -> Path:
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\nHi.\n", "utf-8")
    return d


def test_a_staging_link_never_leads_the_cleanup_elsewhere(tmp_path: Path) -> None:
    victim = tmp_path / "home"
    (victim / "old-project").mkdir(parents=True)
    (victim / "old-project" / "work.txt").write_text("precious", "utf-8")
    (victim / "notes.txt").write_text("precious", "utf-8")
    long_ago = time.time() - 30 * 86400
    for p in (victim / "old-project", victim / "notes.txt"):
        os.utime(p, (long_ago, long_ago))
    root = tmp_path / "root"
    root.mkdir()
    (root / ".staging").symlink_to(victim)
    inst = Installer(root, TrustPolicy())
    inst.recover()
    data = inst.install(str(skill(tmp_path / "src", "demo"))).to_dict()
    assert data["installed"] is False and "symbolic link" in data["reason"], data
    inst.uninstall("demo")
    assert sorted(os.listdir(victim)) == ["notes.txt", "old-project"]
    assert (victim / "old-project" / "work.txt").read_text("utf-8") == "precious"


def test_a_journal_naming_a_path_outside_the_root_is_ignored(tmp_path: Path) -> None:
    """Readers apply pending journals; one whose name is a path must not make the lockfile vouch
    for (or hash) a folder outside the install root."""
    outside = skill(tmp_path / "outside", "outside")
    root = tmp_path / "root"
    op = root / ".staging" / "op-1-x"
    op.mkdir(parents=True)
    entry = {"source": "local:/x", "kind": "local", "tree_hash": tree_hash(outside).digest}
    for name in (str(outside), "../outside"):
        (op / "journal.json").write_text(json.dumps({"name": name, "new": entry, "old": None}), "utf-8")
        assert Lockfile.load(root).entries == {}, name
    (op / "journal.json").write_text("[" * 100_000, "utf-8")  # unreadable: skipped like invalid JSON
    assert Lockfile.load(root).entries == {}
    assert Installer(root, TrustPolicy()).recover() == []


def test_an_unreadable_lockfile_is_an_answer_from_every_command(tmp_path: Path) -> None:
    """Deep nesting made json raise RecursionError, which no caller expected; `trust accept` let
    even a plain syntax error out. A corrupt skills.lock counts as modified and is never overwritten."""
    from skillyard.install import is_modified

    root = tmp_path / "root"
    inst = Installer(root, TrustPolicy())
    assert inst.install(str(skill(tmp_path / "src", "demo"))).installed
    for text in ("[" * 100_000, "not json"):
        (root / "skills.lock").write_text(text, "utf-8")
        assert is_modified(root, "demo", root / "demo") is True
        answers = [
            inst.install(str(skill(tmp_path / f"src-{len(text)}", "other"))).to_dict(),
            inst.update("demo").to_dict(),
            inst.uninstall("demo"),
            inst.accept("demo"),
        ]
        for a in answers:
            assert a.get("installed", a.get("uninstalled", a.get("accepted"))) is False, a
            assert "skills.lock" in a["reason"], a
        assert (root / "skills.lock").read_text("utf-8") == text
        assert (root / "demo" / "SKILL.md").is_file()


def test_a_skill_named_like_the_lockfile_is_refused(tmp_path: Path) -> None:
    """As the first install into a root, a package declaring `name: skills.lock` was renamed into
    the lockfile's place: the lockfile could not be written, then never read, so every later
    install, update and uninstall failed and every installed skill counted as modified."""
    root = tmp_path / "root"
    inst = Installer(root, TrustPolicy())
    for name in ("skills.lock", "Skills.Lock"):
        data = inst.install(str(skill(tmp_path / name, name))).to_dict()
        assert data["installed"] is False and data["error"] == "invalid skill", data
    assert not (root / "skills.lock").exists() and not (root / "Skills.Lock").exists()
    assert inst.install(str(skill(tmp_path / "after", "after"))).installed
    assert Lockfile.load(root).get("after") is not None
