"""What a person's commands leave on disk for other local users to read: the copies of a remote's
skills, fetched with the person's credentials (`[[skills.remote]] headers`), stay theirs alone."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
OTHER = 47212


@pytest.fixture
def open_data_home() -> Any:
    """A data dir other users can reach (a home that is 0755, as Debian made them for long)."""
    d = Path(tempfile.mkdtemp(prefix="skillyard-data-home-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_a_synced_remote_copy_is_not_readable_by_other_users(
    tmp_path: Path, make_skill: Any, open_data_home: Path
) -> None:
    served = tmp_path / "team-skills"
    make_skill(
        served, "alpha", "Alpha from the private team server", files={"references/api.md": "internal\n"}
    )
    cfg = tmp_path / "project" / "config.toml"
    cfg.parent.mkdir()
    command = json.dumps([sys.executable, "-m", "skillyard", "--root", str(served), "serve"])
    cfg.write_text(f'[[skills.remote]]\nname = "team"\ncommand = {command}\ntimeout = 60\n')
    old = os.umask(0o022)  # the usual umask: what is not made private on purpose is readable by all
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "skillyard", "--config", str(cfg), "remote", "sync", "--json"],
            cwd=cfg.parent,
            env={**os.environ, "PYTHONPATH": str(SRC), "XDG_DATA_HOME": str(open_data_home)},
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    finally:
        os.umask(old)
    assert proc.returncode == 0, proc.stderr
    root = Path(json.loads(proc.stdout)["remotes"][0]["root"])
    assert (root / "alpha" / "references" / "api.md").read_text() == "internal\n"
    assert stat.S_IMODE(root.stat().st_mode) & 0o077 == 0
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv:  # and for real, as another user who can reach the folder
        assert all(d.stat().st_mode & 0o001 for d in root.parents)  # only the copy's own mode stops them
        r = subprocess.run(
            [
                setpriv,
                f"--reuid={OTHER}",
                f"--regid={OTHER}",
                "--clear-groups",
                "cat",
                str(root / "alpha" / "SKILL.md"),
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert r.returncode != 0 and "Permission denied" in r.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="the copies exist for root's sandbox only")
def test_the_copy_a_root_sandbox_reads_a_skill_toml_tool_from_is_roots_alone(tmp_path: Path) -> None:
    """Its path shows in the running tool's /proc/PID/mountinfo, which every user can read; the copy
    is world-readable (the sandboxed uid reads it), so only its folder can keep other users out."""
    from skillyard.execution.sandbox import SandboxExecutor
    from skillyard.execution.workspace import readable_copy
    from skillyard.model import ToolSpec
    from skillyard.parsing import parse_skill
    from skillyard.toml_tools import run_tool

    if (reason := SandboxExecutor().probe()) is not None:
        pytest.skip(f"bubblewrap cannot run here: {reason}")
    d = tmp_path / "private-tool"  # under pytest's 0700 folder, as root's own skills are
    d.mkdir()
    (d / "SKILL.toml").write_text('[skill]\nname = "private-tool"\ndescription = "Reads its own notes."\n')
    (d / "notes.txt").write_text("root's own notes\n")
    (d / "notes.txt").chmod(0o600)
    skill, diags = parse_skill(str(d / "SKILL.toml"))
    assert skill is not None, diags
    text, err = run_tool(skill, ToolSpec("show", "show", "cat notes.txt"), {}, executor="sandbox")
    assert not err and "root's own notes" in text, text
    copy = readable_copy(d)  # the copy that run used
    assert (copy / "notes.txt").read_text() == "root's own notes\n"
    setpriv = shutil.which("setpriv")
    assert setpriv is not None
    r = subprocess.run(
        [setpriv, f"--reuid={OTHER}", f"--regid={OTHER}", "--clear-groups", "cat", str(copy / "notes.txt")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode != 0 and "Permission denied" in r.stderr
