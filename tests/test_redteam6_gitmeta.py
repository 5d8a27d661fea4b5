"""A package may not arrive as a live git repository.

A `.git` directory is stripped from every installed skill, but a `.git` FILE (`gitdir: meta`) or a
`.git` link naming a folder of the package makes the installed skill a repository all the same, and
its config runs commands (core.fsmonitor) as soon as git is used in the folder: by the user, a shell
prompt or an editor. Real archives, real directories, the real git binary.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from skillyard.install import Installer, Lockfile, TrustPolicy
from skillyard.install.lockfile import tree_hash
from skillyard.remote import store

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="git"
)

SKILL = "---\nname: gitty\ndescription: The gitty skill.\n---\nHello.\n"


def repo_files(marker: Path, meta: str = "meta") -> dict[str, str]:
    """The files of a git directory whose fsmonitor command creates `marker`."""
    return {
        f"{meta}/HEAD": "ref: refs/heads/main\n",
        f"{meta}/config": f"[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch {marker}; false\n",
        f"{meta}/objects/info/keep": "",
        f"{meta}/refs/heads/keep": "",
    }


def git_status_runs_the_hook(skill: Path, marker: Path) -> bool:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(skill.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CEILING_DIRECTORIES": str(skill.parent),
    }
    subprocess.run(["git", "status"], cwd=skill, env=env, capture_output=True, timeout=60)
    return marker.exists()


def test_a_git_file_in_an_archive_is_not_installed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("SKILL.md", SKILL)
        zf.writestr(".git", "gitdir: meta\n")
        zf.writestr("sub/.GIT", "gitdir: ../meta\n")
        for name, text in repo_files(marker).items():
            zf.writestr(name, text)
    archive = tmp_path / "gitty.zip"
    archive.write_bytes(buf.getvalue())
    root = tmp_path / "root"
    res = Installer(root, TrustPolicy()).install(str(archive))
    assert res.installed, res.to_dict()
    installed = root / "gitty"
    assert not os.path.lexists(installed / ".git")
    assert not os.path.lexists(installed / "sub" / ".GIT")
    assert not git_status_runs_the_hook(installed, marker)
    # the lock entry describes exactly what is on disk
    entry = Lockfile.load(root).get("gitty")
    assert entry is not None and entry.tree_hash == tree_hash(installed).digest


def test_a_git_link_in_a_local_skill_is_not_installed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    src = tmp_path / "src"
    src.mkdir()
    (src / "SKILL.md").write_text(SKILL, "utf-8")
    for name, text in repo_files(marker, ".meta").items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, "utf-8")
    (src / ".git").symlink_to(".meta")
    assert git_status_runs_the_hook(src, marker)  # the source folder itself is such a repository
    marker.unlink()
    root = tmp_path / "root"
    res = Installer(root, TrustPolicy()).install(str(src))
    assert res.installed, res.to_dict()
    assert not os.path.lexists(root / "gitty" / ".git")
    assert not git_status_runs_the_hook(root / "gitty", marker)


def test_the_digest_of_a_source_with_a_git_file_is_the_digest_installed(tmp_path: Path) -> None:
    """What is scanned and shown for approval in place must hash like the copy (installs by the model)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "SKILL.md").write_text(SKILL, "utf-8")
    (src / ".git").write_text("gitdir: /elsewhere\n", "utf-8")
    res = Installer(tmp_path / "root", TrustPolicy()).install(str(src))
    assert res.installed and res.tree_hash == tree_hash(src).digest


def test_a_remote_cannot_sync_a_git_directory(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    files = {"skill://gitty/SKILL.md": SKILL.encode(), "skill://gitty/.git/HEAD": b"ref: refs/heads/main\n"}
    files.update(
        {f"skill://gitty/.git/{n.split('/', 1)[1]}": t.encode() for n, t in repo_files(marker).items()}
    )
    cache = tmp_path / "cache"
    report = store("team", files, cache)
    assert report.skills == ["gitty"], json.dumps(report.to_dict())
    assert sorted(os.listdir(cache / "gitty")) == ["SKILL.md"]
    assert not git_status_runs_the_hook(cache / "gitty", marker)
