"""A git repository whose single tree names a million files: a pack of about 2 MB, 69 MB of
`git ls-tree` listing. The checkout limit (20,000 files) must be found while the listing streams,
not after it was read whole into memory (and split into a million strings)."""

from __future__ import annotations

import os
from pathlib import Path

from install_support import git, install_measured, needs_git

pytestmark = needs_git


def test_a_tree_of_a_million_names_is_refused_while_it_is_listed(tmp_path: Path) -> None:
    repo = tmp_path / "wide"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    skill = b"---\nname: wide\ndescription: A wide repository.\n---\nHi.\n"
    blob = git(repo, "hash-object", "-w", "--stdin", stdin=skill)
    listing = b"".join(b"100644 blob %s\t%07d\n" % (blob.encode(), i) for i in range(1_000_000))
    tree = git(repo, "mktree", stdin=listing + b"100644 blob " + blob.encode() + b"\tSKILL.md\n")
    git(repo, "update-ref", "refs/heads/main", git(repo, "commit-tree", tree, "-m", "wide"))
    out = install_measured(f"git+file://{repo}", tmp_path / "skills", timeout=600)
    assert out["result"]["error"] == "package rejected", out
    assert "refused before checkout" in out["result"]["reason"], out
    assert out["grew_mb"] < 50, out


def test_a_tree_two_thousand_folders_deep_is_refused_before_checkout(tmp_path: Path) -> None:
    """git checks it out; the copy refuses it (nested too deeply); then removing the staging
    directory recursed past Python's limit: RecursionError out of `install`, and the directory left
    behind made every later install and uninstall raise the same while cleaning up."""
    from skillyard.install import Installer, TrustPolicy

    repo = tmp_path / "deep"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    blob = git(repo, "hash-object", "-w", "--stdin", stdin=b"---\nname: deep\ndescription: Deep.\n---\nHi.\n")
    tree = git(repo, "mktree", stdin=f"100644 blob {blob}\tx\n".encode())
    for _ in range(2000):
        tree = git(repo, "mktree", stdin=f"040000 tree {tree}\ta\n".encode())
    top = git(repo, "mktree", stdin=f"040000 tree {tree}\ta\n100644 blob {blob}\tSKILL.md\n".encode())
    git(repo, "update-ref", "refs/heads/main", git(repo, "commit-tree", top, "-m", "deep"))
    root = tmp_path / "skills"
    data = Installer(root, TrustPolicy()).install(f"git+file://{repo}").to_dict()
    assert data["error"] == "package rejected" and "folders deep" in data["reason"], data
    assert os.listdir(root / ".staging") == []
