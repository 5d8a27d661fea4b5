"""`update NAME` replaces NAME. A source whose skill now declares another name must not use the
update's `force` to replace a different installed skill (a hostile upstream renaming its `formatter`
to the user's `deploy`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from install_support import GIT_ENV, needs_git
from skillyard.install import Installer, Lockfile, TrustPolicy

pytestmark = needs_git


def write(d: Path, name: str, body: str) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n", "utf-8")
    return d


def commit(repo: Path) -> None:
    for args in (["add", "-A"], ["commit", "-q", "-m", "change"]):
        subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True)


def test_an_update_never_replaces_another_skill(tmp_path: Path) -> None:
    repo = tmp_path / "upstream"
    write(repo / "skills" / "formatter", "formatter", "Formats.")
    write(repo / "skills" / "other", "other", "Other.")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=GIT_ENV, check=True)
    commit(repo)
    root = tmp_path / "root"
    inst = Installer(root, TrustPolicy())
    assert inst.install(f"git+file://{repo}", name="formatter").installed
    assert inst.install(
        str(write(tmp_path / "mine" / "deploy", "deploy", "The user's own deploy."))
    ).installed
    mine = Lockfile.load(root).get("deploy")
    # upstream renames its skill to the user's
    write(repo / "skills" / "formatter", "deploy", "Upstream's deploy.")
    commit(repo)
    data = inst.update("formatter").to_dict()
    assert data["installed"] is False and data["error"] == "skill exists" and data["name"] == "deploy", data
    assert "The user's own deploy." in (root / "deploy" / "SKILL.md").read_text("utf-8")
    assert Lockfile.load(root).get("deploy") == mine
    # with no skill of that name the update installs it, and says so
    inst.uninstall("deploy")
    res = inst.update("formatter")
    assert res.installed and res.name == "deploy" and "instead of 'formatter'" in res.warnings[-1]
