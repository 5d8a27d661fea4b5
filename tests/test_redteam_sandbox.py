"""Hostile `skill_run` requests against the bubblewrap sandbox, beyond tests/test_sandbox_escape.py.

Each test runs the real SkillRunner with bubblewrap; run this file both as root
and as an unprivileged user (docs/execution.md), since the two take different
paths to an unprivileged command.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from skillyard.execution import RunRequest, SandboxExecutor, SkillRunner
from skillyard.model import Skill

_REASON = SandboxExecutor().probe()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=f"sandbox unavailable: {_REASON}")


@pytest.fixture
def base(reachable_tmp: Path) -> Path:
    return reachable_tmp


@pytest.fixture
def skill(hostile_skill: Skill) -> Skill:
    return hostile_skill


def go(base: Path, skill: Skill, command: str, **args: Any) -> dict[str, Any]:
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=20) as runner:
        req = RunRequest.from_arguments({"skill": skill.name, "command": command, **args})
        return runner.run(skill, req, session_id="redteam").to_dict()


def test_loader_variables_never_reach_a_privileged_process(base: Path, skill: Skill) -> None:
    """`env` from the model must only ever reach the unprivileged command.

    With skillyard as root, whatever starts the command runs as host uid 0 before it
    drops; if the dynamic loader of that process honoured LD_PRELOAD (shown here with
    LD_DEBUG_OUTPUT, which writes a file as whoever loads), the model would run code
    as host root. Every file the loader writes must belong to the sandbox uid.
    """
    res = go(
        base,
        skill,
        'unset LD_DEBUG; echo uid=$(id -u); for f in /tmp/lddebug.*; do [ -e "$f" ] && stat -c \'owner=%u\' "$f"; done; true',
        env={"LD_DEBUG": "libs", "LD_DEBUG_OUTPUT": "/tmp/lddebug", "GCONV_PATH": "/tmp"},
    )
    assert res["exit_code"] == 0, res
    # Where the sandbox uid cannot write /tmp, its loader prints to stdout instead; keep our own lines.
    lines = [w for w in res["stdout"].split() if w.startswith(("uid=", "owner="))]
    assert lines[0] == "uid=65534"
    assert set(lines[1:]) <= {"owner=65534"}, lines  # no file written by a process running as uid 0
    assert "owner=65534" in lines or "find library" in res["stdout"]  # the command's loader did see them


def test_model_env_still_reaches_the_command(base: Path, skill: Skill) -> None:
    """Values with quotes, newlines, `$()` and `=` arrive as they were sent."""
    value = "a 'b' \"c\"\n$(id) `x` =y\\z"
    res = go(
        base,
        skill,
        'printf %s "$ODD"; echo; printf %s "$LD_LIBRARY_PATH"',
        env={"ODD": value, "LD_LIBRARY_PATH": "/x"},
    )
    assert res["stdout"] == value + "\n/x", res


def test_tmp_is_writable_and_capped(base: Path, skill: Skill) -> None:
    """TMPDIR is /tmp: the command can use it (as root too), and cannot fill it past its size cap."""
    res = go(
        base,
        skill,
        't=$(mktemp) && echo made; head -c 300000000 /dev/zero > /tmp/fill 2>/dev/null; echo "rc=$?"; '
        "stat -c %s /tmp/fill",
    )
    out = res["stdout"].split()
    assert out[0] == "made", res
    if "--size" in SandboxExecutor().features:  # older bubblewrap cannot cap a tmpfs (docs/execution.md)
        assert out[1] != "rc=0" and int(out[2]) <= 256 * 1024 * 1024, res


def test_host_reach_without_network(base: Path, skill: Skill) -> None:
    """An abstract unix socket of the host, a host pid, inherited descriptors, device nodes.

    (The keyring syscalls are refused by the seccomp filter: tests/test_sandbox_identity.py.)
    """
    import socket

    name = f"skillyard-redteam-{os.getpid()}"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind("\0" + name)
    srv.listen(1)
    try:
        res = go(
            base,
            skill,
            'python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); '
            f"print('ABSTRACT', s.connect_ex(chr(0)+'{name}') == 0)\"; "
            f"kill -0 {os.getpid()} 2>/dev/null && echo SIGNAL-REACHED; "
            "python3 -c \"import os; print('FDS', sorted(int(f) for f in os.listdir('/proc/self/fd')))\"; "
            "ls /dev",
        )
    finally:
        srv.close()
    out = res["stdout"]
    assert "ABSTRACT False" in out, res
    assert "SIGNAL-REACHED" not in out
    assert "FDS [0, 1, 2, 3]" in out  # stdin, stdout, stderr and the listing's own
    devices = set(out.split("FDS")[1].split("\n", 1)[1].split())
    assert devices <= {"core", "fd", "full", "null", "ptmx", "pts", "random", "shm", "stderr", "stdin", "stdout",
                       "tty", "urandom", "zero"}, devices  # fmt: skip


def test_container_client_never_gets_the_request_environment(tmp_path: Path) -> None:
    """The docker/podman client runs on the host, outside any container: `env` from the model
    (LD_PRELOAD, DOCKER_HOST, DOCKER_CONFIG with a credential helper, PATH) must not reach it.

    No daemon is needed to see what the client is handed, so the client here is a stand-in
    script that answers `info` and reports its own environment and the env file it was given.
    """
    from skillyard.execution import ContainerExecutor, ExecSpec

    cli = tmp_path / "fake-docker"
    cli.write_text(
        "#!/bin/bash\n"
        '[ "$1" = info ] && { echo 99.0; exit 0; }\n'
        "env | sed 's/^/CLIENT-ENV /'\n"
        'while [ $# -gt 0 ]; do [ "$1" = --env-file ] && sed "s/^/ENV-FILE /" "$2"; shift; done\n'
    )
    cli.chmod(0o755)
    request_env = {
        "LD_PRELOAD": "/tmp/evil.so",
        "DOCKER_HOST": "tcp://203.0.113.9:2375",
        "DOCKER_CONFIG": "/tmp/attacker-config",
        "PATH": "/tmp/attacker-bin:/usr/bin:/bin",
        "GREETING": "hello 'quoted' $(id)",
    }
    res = ContainerExecutor(runtime=str(cli)).run(ExecSpec(argv=["true"], cwd="/", env=request_env))
    out = res.stdout.decode()
    client = [line for line in out.splitlines() if line.startswith("CLIENT-ENV ")]
    assert not any(v in line for line in client for v in request_env.values()), client
    assert {f"ENV-FILE {k}={v}" for k, v in request_env.items()} <= set(out.splitlines()), out
    with pytest.raises(ValueError, match="line break"):
        ContainerExecutor(runtime=str(cli)).run(ExecSpec(argv=["true"], cwd="/", env={"A": "x\ny"}))


def test_filling_the_workspace_disk_is_stopped(base: Path, skill: Skill) -> None:
    """The workspace lives on a host file system: a run that eats into its reserve is killed.

    The reserve is set to all but 100 MB of what is free now; the command tries to write 400 MB.
    """
    from skillyard.execution import Limits

    st = os.statvfs(base)
    free = st.f_bavail * st.f_frsize
    limits = Limits(min_free_disk_bytes=max(free - 100 * 1024 * 1024, 1))
    command = "for i in $(seq 40); do head -c 10000000 /dev/zero > $WORK_DIR/f$i || break; sleep 0.05; done; echo DONE"
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=60, limits=limits) as runner:
        req = RunRequest.from_arguments({"skill": skill.name, "command": command})
        res = runner.run(skill, req, session_id="disk").to_dict()
        written = sum(f.stat().st_size for f in (base / "ws").glob("*/work/f*"))
    assert "DONE" not in res["stdout"] and res["exit_code"] == -1, res
    assert any("free" in w for w in res["warnings"]), res["warnings"]
    assert written < 400 * 1000 * 1000
