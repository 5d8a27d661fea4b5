"""Hostile packages against the install path, beyond tests/test_install_hygiene.py.

Everything runs the real installer: archives written here, git repositories
made with the git binary in temporary directories.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillyard.install import Installer, TrustPolicy

#: A tar header, built by hand: the standard library refuses to write the hostile ones.
_BLOCK = 512


def _header(name: str, size: int, kind: bytes) -> bytes:
    h = bytearray(_BLOCK)
    h[0 : len(name)] = name.encode()
    h[100:108] = b"0000644\0"
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[156:157] = kind
    h[257:265] = b"ustar\x0000"
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def _long_name_bomb(path: Path, size: int) -> None:
    """A gzip'd tar whose first header announces a GNU long name of `size` bytes (a few hundred KiB packed)."""
    with gzip.open(path, "wb", compresslevel=1) as g:
        g.write(_header("././@LongLink", size, b"L"))
        chunk = b"a" * (1 << 20)
        for _ in range(size // len(chunk)):
            g.write(chunk)
        g.write(_header("SKILL.md", 0, b"0") + b"\0" * (2 * _BLOCK))


def test_tar_header_bomb_is_refused_within_bounded_memory(tmp_path: Path) -> None:
    """tarfile reads a long-name or pax header whole; its size must count against the package limit."""
    bomb = tmp_path / "bomb.tar.gz"
    _long_name_bomb(bomb, 384 << 20)
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from skillyard.install import Installer\n"
        "r = Installer(Path(sys.argv[2])).install(sys.argv[1]).to_dict()\n"
        # VmHWM, not ru_maxrss: the latter keeps the peak of the process before exec (a large pytest).
        "hwm = [int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM:')][0]\n"
        "print(json.dumps({'result': r, 'rss_mb': hwm // 1024}))\n"
    )
    cp = subprocess.run(
        [sys.executable, "-c", script, str(bomb), str(tmp_path / "skills")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert cp.returncode == 0, cp.stderr[-2000:]
    out = json.loads(cp.stdout)
    assert out["result"]["installed"] is False and out["result"]["error"] == "package rejected", out
    assert out["rss_mb"] < 250, out  # the header alone is 384 MiB
    assert not (tmp_path / "skills" / "SKILL.md").exists()


def _git(repo: Path, *args: str, stdin: str | None = None) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, input=stdin, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_checkout_bomb_is_refused_before_checkout(tmp_path: Path) -> None:
    """One 8 MiB blob under 100 names packs into a few KiB and checks out as 800 MiB: refused from the tree."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "SKILL.md").write_text("---\nname: bomb\ndescription: The bomb skill.\n---\nHello.\n")
    (repo / "zeros").write_bytes(bytes(8 << 20))
    blob = _git(repo, "hash-object", "-w", "zeros")
    (repo / "zeros").unlink()
    _git(repo, "add", "SKILL.md")
    _git(
        repo,
        "update-index",
        "--index-info",
        stdin="".join(f"100644 {blob}\tdata/{i}.bin\n" for i in range(100)),
    )
    _git(repo, "commit", "-q", "-m", "bomb")
    root = tmp_path / "root"
    res = Installer(root, TrustPolicy(("local:*",))).install(f"git+file://{repo}").to_dict()
    assert res["installed"] is False and res["error"] == "package rejected", res
    assert "before checkout" in res["reason"], res
    assert not list(root.glob("**/*.bin"))


@pytest.mark.parametrize("tail", ["\n", "\r\n", "\n\n"])
def test_names_with_a_trailing_line_break_are_refused(tail: str) -> None:
    """`$` in a Python regex also matches before a final newline; every name check must not."""
    from skillyard.execution import ExecSpec
    from skillyard.execution.artifacts import ArtifactError, validate_artifact_name
    from skillyard.execution.workspace import WorkspaceError, validate_skill_name
    from skillyard.install.sources import valid_name

    assert valid_name("pdf") and not valid_name("pdf" + tail)
    with pytest.raises(WorkspaceError):
        validate_skill_name("pdf" + tail)
    with pytest.raises(ArtifactError):
        validate_artifact_name("report" + tail)
    with pytest.raises(ValueError, match="invalid environment variable name"):
        ExecSpec(argv=["true"], cwd="/", env={"HOME" + tail: "x"}).validate()


def test_model_env_name_with_a_line_break_never_reaches_the_command(tmp_path: Path) -> None:
    """In a container's env file, `NAME\\n=value` would be a bare `NAME` line: the client's own value."""
    from skillyard.execution import RunRequest, SkillRunner
    from skillyard.model import Skill

    d = tmp_path / "skills" / "names"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: names\ndescription: names\n---\nbody\n")
    skill = Skill(name="names", description="names", path=d / "SKILL.md")
    # the tool's schema refuses the name, as it refuses "1BAD" (a pattern's $ ends the string)
    with pytest.raises(ValueError, match="invalid name 'ODD\\\\n'"):
        RunRequest.from_arguments({"skill": "names", "command": "env", "env": {"ODD\n": "v1"}})
    # and a request built in code, past the schema, still never hands it to the command
    with SkillRunner(executor="local", workspace_root=tmp_path / "ws") as runner:
        req = RunRequest(skill="names", command="env", env={"ODD\n": "v1", "OK": "v2"})
        res = runner.run(skill, req).to_dict()
    assert "OK=v2" in res["stdout"] and "v1" not in res["stdout"], res
    assert any("ignored" in w and "ODD" in w for w in res["warnings"]), res["warnings"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_download_is_capped_while_it_arrives(tmp_path: Path) -> None:
    """The fetched pack is one file under RLIMIT_FSIZE: a repository too big to check out stops
    arriving at the checkout limit instead of filling the disk first."""
    from skillyard.install import Limits

    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "SKILL.md").write_text("---\nname: big\ndescription: The big skill.\n---\nHello.\n")
    (repo / "noise.bin").write_bytes(os.urandom(12 << 20))  # incompressible: the pack is 12 MiB
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "big")
    limits = Limits(max_checkout_bytes=4 << 20)
    res = Installer(tmp_path / "root", TrustPolicy(("local:*",)), limits=limits).install(f"git+file://{repo}")
    out = res.to_dict()
    assert out["installed"] is False and out["error"] == "fetch failed", out
    assert "download passed the limit" in out["reason"], out
