"""Installs by the model from `git+file://` repositories: the real path must be trusted, as for a
local directory (docs/install.md, Installs by the model, rule 3)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from skillyard.config import Config
from skillyard.registry import Registry
from skillyard.tools import Toolkit

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="git"
)


def make_repo(path: Path, name: str) -> Path:
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\nHi.\n", "utf-8")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "one"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
            cwd=path,
            check=True,
            capture_output=True,
        )
    return path


def install(outside: Path, source: str, sources: tuple[str, ...]) -> dict:
    config = Config(
        model_installs=True,
        trust_sources=sources,
        model_local_paths=(outside / "allowed",),
        install_root_override=outside / "installed",
    )
    kit = Toolkit(Registry.from_roots([outside / "installed"], config), tools=["skills"])
    try:
        return json.loads(kit.call("skills", {"action": "install", "skill": "fresh", "from": source}).content)
    finally:
        kit.close()


def test_a_link_from_a_trusted_folder_does_not_trust_the_repository_it_leads_to(outside_tmp: Path) -> None:
    reviewed = outside_tmp / "allowed" / "reviewed"
    repo = make_repo(outside_tmp / "allowed" / "unreviewed" / "repo", "fresh")
    reviewed.mkdir(parents=True)
    (reviewed / "link").symlink_to(repo)
    only_reviewed = (f"local:{reviewed}/**",)
    for source in (f"local:{reviewed}/link", f"git+file://{reviewed}/link"):
        data = install(outside_tmp, source, only_reviewed)
        assert data["installed"] is False and data["error"] == "untrusted source", (source, data)
        assert str(repo) in data["reason"]
    assert not (outside_tmp / "installed" / "fresh").exists()
    # once the repository's own folder is trusted too: installed, by either kind of pattern
    for extra in (f"local:{repo.parent}/**", f"file://{repo.parent}/**"):
        sources = (*only_reviewed, extra)
        data = install(outside_tmp, f"git+file://{reviewed}/link", sources)
        assert data["installed"] is True, data
        (outside_tmp / "installed" / "fresh" / "SKILL.md").unlink()
        (outside_tmp / "installed" / "fresh").rmdir()
        (outside_tmp / "installed" / "skills.lock").unlink()


def test_the_approval_request_shows_no_password(outside_tmp: Path) -> None:
    from skillyard.tools import InstallRequest

    seen: list[InstallRequest] = []

    def ask(request: InstallRequest) -> bool:
        seen.append(request)
        return False

    config = Config(
        model_installs=True,
        trust_sources=("127.0.0.1:9/**",),
        install_root_override=outside_tmp / "installed",
    )
    kit = Toolkit(
        Registry.from_roots([outside_tmp / "installed"], config), tools=["skills"], approve_install=ask
    )
    try:
        source = "git+http://someone:s3cret@127.0.0.1:9/team/repo"
        data = json.loads(kit.call("skills", {"action": "install", "skill": "fresh", "from": source}).content)
    finally:
        kit.close()
    assert data["error"] == "install declined by the user" and len(seen) == 1, data
    assert seen[0].resolved == "http://127.0.0.1:9/team/repo", seen[0]
    assert seen[0].source == "git+http://127.0.0.1:9/team/repo", seen[0]
