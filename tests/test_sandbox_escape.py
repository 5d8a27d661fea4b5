"""Escape suite: what a hostile command must not be able to do from inside a run.

Sandbox checks run through the real SkillRunner with bubblewrap (skipped with a
reason when bwrap is missing or refused); the checks that apply to `local`
(environment, limits, timeout, output collection) run there too.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from skillyard.execution import Limits, RunRequest, SandboxExecutor, SkillRunner
from skillyard.model import Skill

_SANDBOX_REASON = SandboxExecutor().probe()
needs_sandbox = pytest.mark.skipif(
    _SANDBOX_REASON is not None, reason=f"sandbox unavailable: {_SANDBOX_REASON}"
)


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    d = tmp_path / "skills" / "escape"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: escape\ndescription: escape tests\n---\nbody\n", encoding="utf-8")
    # A bounded fork bomb: at most 400 sleeping children, each gone after 2 s.
    (d / "bomb.py").write_text(
        "import os, time\n"
        "n = 0\n"
        "for i in range(400):\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(2)\n"
        "        os._exit(0)\n"
        "    n += 1\n"
        "print('forked', n)\n",
        encoding="utf-8",
    )
    return Skill(name="escape", description="escape tests", path=d / "SKILL.md")


@pytest.fixture
def ws_root(reachable_tmp: Path) -> Path:
    return reachable_tmp


def _runner(kind: str, ws_root: Path, **kw: Any) -> SkillRunner:
    return SkillRunner(executor=kind, workspace_root=ws_root / kind, timeout=20, **kw)


@pytest.fixture(params=["sandbox", "local"])
def kind(request: pytest.FixtureRequest) -> str:
    if request.param == "sandbox" and _SANDBOX_REASON is not None:
        pytest.skip(f"sandbox unavailable: {_SANDBOX_REASON}")
    return str(request.param)


def go(runner: SkillRunner, skill: Skill, command: str, **args: Any) -> dict[str, Any]:
    req = RunRequest.from_arguments({"skill": skill.name, "command": command, **args})
    return runner.run(skill, req, session_id="escape").to_dict()


def _procs_with(marker: str) -> list[int]:
    found = []
    for e in os.scandir("/proc"):
        if e.name.isdigit():
            try:
                with open(f"/proc/{e.name}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(e.name))
            except OSError:
                continue
    return found


def _wait_gone(marker: str, seconds: float = 5.0) -> list[int]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        left = _procs_with(marker)
        if not left:
            return []
        time.sleep(0.05)
    return _procs_with(marker)


# -- sandbox only -------------------------------------------------------------------------------------------


@needs_sandbox
def test_no_network_loopback_other_hosts_or_dns(skill: Skill, ws_root: Path) -> None:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    srv.settimeout(0.5)
    port = srv.getsockname()[1]
    r = _runner("sandbox", ws_root)
    try:
        res = go(
            r,
            skill,
            f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo LOOPBACK-OPEN; "
            "(exec 3<>/dev/tcp/1.1.1.1/53) 2>/dev/null && echo REMOTE-OPEN; "
            "getent ahosts example.com && echo DNS-OK; "
            f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 2)' 2>/dev/null && echo PY-OPEN; "
            "cat /proc/net/dev | tail -n +3 | cut -d: -f1",
        )
        with pytest.raises(TimeoutError):
            srv.accept()
    finally:
        srv.close()
        r.close()
    out = res["stdout"]
    for marker in ("LOOPBACK-OPEN", "REMOTE-OPEN", "DNS-OK", "PY-OPEN"):
        assert marker not in out, res
    assert out.split() == ["lo"]


@needs_sandbox
def test_network_can_be_allowed_per_call(skill: Skill, ws_root: Path) -> None:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    port = srv.getsockname()[1]
    r = _runner("sandbox", ws_root)
    try:
        req = RunRequest.from_arguments(
            {"skill": "escape", "command": f"(exec 3<>/dev/tcp/127.0.0.1/{port}) && echo OPEN"}
        )
        res = r.run(skill, req, session_id="n", network=True).to_dict()
    finally:
        srv.close()
        r.close()
    assert "OPEN" in res["stdout"], res


@needs_sandbox
def test_filesystem_is_read_only_outside_workspace(skill: Skill, ws_root: Path, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text("HOST-SSH-KEY\n")
    r = _runner("sandbox", ws_root)
    try:
        res = go(
            r,
            skill,
            "for p in $SKILL_DIR/x /workspace/skills/new /etc/x /usr/x /root/x "
            f"{home}/x {skill.root}/x /x; do touch $p 2>/dev/null && echo WROTE:$p; done; "
            f"cat {home}/.ssh/id_rsa /root/.bashrc /etc/passwd /etc/shadow 2>/dev/null; ls /root {home} 2>/dev/null; "
            "mknod $WORK_DIR/dev c 1 3 2>/dev/null && echo MKNOD; "
            "cp /bin/bash $WORK_DIR/b && chmod u+s $WORK_DIR/b && $WORK_DIR/b -p -c 'id -u'; "
            "echo ok > $WORK_DIR/allowed && echo WORK-WRITABLE",
        )
    finally:
        r.close()
    out = res["stdout"]
    assert "WROTE" not in out, res
    assert "HOST-SSH-KEY" not in out and "root:" not in out and "MKNOD" not in out
    assert "WORK-WRITABLE" in out
    assert "\n0\n" not in f"\n{out}"  # the setuid copy does not give uid 0
    assert not (home / "x").exists() and not (skill.root / "x").exists()


@needs_sandbox
def test_privileges_dropped_and_pid_namespace(skill: Skill, ws_root: Path) -> None:
    r = _runner("sandbox", ws_root)
    try:
        res = go(
            r,
            skill,
            f"id -u; grep -E '^(NoNewPrivs|CapEff|CapPrm|CapBnd)' /proc/self/status; ls /proc/{os.getpid()} >/dev/null 2>&1 && echo SEES-HOST-PID; ls -d /proc/[0-9]* | wc -l",
        )
    finally:
        r.close()
    lines = res["stdout"].split("\n")
    assert lines[0] != "0" and lines[0] == "65534"
    status = dict(line.split(":\t") for line in lines[1:5])
    assert status["NoNewPrivs"] == "1"
    assert int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0
    assert "SEES-HOST-PID" not in res["stdout"]
    assert int(lines[5]) < 20


@needs_sandbox
def test_fork_bomb_is_stopped(skill: Skill, ws_root: Path) -> None:
    r = _runner("sandbox", ws_root, limits=Limits(max_processes=40))
    try:
        res = go(r, skill, "python3 bomb.py", timeout=30)
    finally:
        r.close()
    assert res["exit_code"] == 0, res
    forked = int(res["stdout"].split()[1])
    assert forked < 400
    assert forked <= 40
    assert not any("not enforced" in w for w in res["warnings"]), res["warnings"]


@needs_sandbox
def test_sandbox_hides_host_env_and_uses_allowlist(
    skill: Skill, ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ESCAPE_TEST_SECRET_TOKEN", "host-only-Secret-99Zx")
    r = _runner("sandbox", ws_root)
    try:
        res = go(r, skill, "env; cat /proc/1/environ | tr '\\0' '\\n'")
    finally:
        r.close()
    assert "ESCAPE_TEST_SECRET_TOKEN" not in res["stdout"] and "host-only-Secret" not in res["stdout"]
    names = {line.split("=", 1)[0] for line in res["stdout"].splitlines() if "=" in line}
    assert names <= {
        "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PWD", "SHLVL", "_", "TMPDIR", "WORKSPACE_DIR",
        "SKILLS_DIR", "WORK_DIR", "OUTPUT_DIR", "RUN_DIR", "SKILL_NAME", "SKILL_DIR", "OLDPWD",
    }, names  # fmt: skip


# -- sandbox and local ----------------------------------------------------------------------------------------


def test_host_env_secret_not_visible(
    kind: str, skill: Skill, ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ESCAPE_FAKE_API_KEY", "fake-Host-Key-123456")
    r = _runner(kind, ws_root)
    try:
        res = go(r, skill, "env; echo ${ESCAPE_FAKE_API_KEY:-unset}")
    finally:
        r.close()
    assert "fake-Host-Key" not in json.dumps(res)
    assert res["stdout"].rstrip().endswith("unset")


def test_background_children_die(kind: str, skill: Skill, ws_root: Path) -> None:
    r = _runner(kind, ws_root)
    try:
        # `setsid` escapes are only contained by the sandbox (PID namespace); see docs/execution.md.
        escape = "(setsid sleep 1000.4321 &);" if kind == "sandbox" else ""
        res = go(r, skill, f"sleep 1000.4321 & sleep 1000.4321 & {escape} echo started; wait", timeout=1)
        assert res["timed_out"] is True and res["exit_code"] == -1 and "started" in res["stdout"]
        assert 900 <= res["duration_ms"] < 15_000
        assert _wait_gone("1000.4321") == []
        res = go(r, skill, "sleep 1000.8765 & echo bye")  # exits at once, leaves a child behind
        assert res["timed_out"] is False and res["stdout"] == "bye\n"
        assert _wait_gone("1000.8765") == []
    finally:
        r.close()


def test_gigabyte_of_stdout_is_capped(kind: str, skill: Skill, ws_root: Path) -> None:
    r = _runner(kind, ws_root)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        res = go(
            r,
            skill,
            "yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | head -c 1000000000; echo done >&2",
            timeout=120,
        )
    finally:
        r.close()
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert res["timed_out"] is False and res["stdout_truncated"] is True
    assert len(res["stdout"].encode()) == 64 * 1024 and set(res["stdout"]) == {"a", "\n"}
    assert res["stderr"] == "done\n"
    assert after - before < 200 * 1024  # KiB: nothing near 1 GB was buffered


def test_memory_and_file_size_limits(kind: str, skill: Skill, ws_root: Path) -> None:
    r = _runner(
        kind, ws_root, limits=Limits(max_memory_bytes=512 * 1024 * 1024, max_file_size_bytes=1024 * 1024)
    )
    try:
        res = go(
            r,
            skill,
            "python3 -c 'x = bytearray(1024 * 1024 * 1024)' 2>&1 | tail -1; "
            "head -c 3000000 /dev/zero > $WORK_DIR/big 2>/dev/null; echo rc=$?; stat -c %s $WORK_DIR/big",
        )
    finally:
        r.close()
    out = res["stdout"]
    assert "MemoryError" in out
    assert "rc=0" not in out and out.rstrip().endswith("1048576")


def test_planted_symlinks_do_not_leak_through_collection(
    kind: str, skill: Skill, ws_root: Path, tmp_path: Path
) -> None:
    host_file = ws_root / "host-secret.txt"
    host_file.write_text("HOST-SIDE-SECRET\n")
    os.chmod(host_file, 0o644)
    r = _runner(kind, ws_root)
    try:
        res = go(
            r,
            skill,
            f"ln -s {host_file} $OUTPUT_DIR/a.txt; ln -s /etc/passwd $OUTPUT_DIR/b.txt; "
            f"ln -s ../../../../../../../../{str(host_file).lstrip('/')} $OUTPUT_DIR/c.txt; "
            "ln -s / $OUTPUT_DIR/root; echo fine > $OUTPUT_DIR/ok.txt",
            output_files=["out/**", "out/root/etc/passwd", "../../etc/passwd", "/etc/passwd", str(host_file)],
            outputs={"globs": ["$OUTPUT_DIR/*"], "inline": True},
        )
    finally:
        r.close()
    dumped = json.dumps(res)
    assert "HOST-SIDE-SECRET" not in dumped and "root:x:0" not in dumped
    assert [f["name"] for f in res["output_files"]] == ["out/ok.txt"]


@pytest.mark.skipif(
    os.geteuid() == 0, reason="the kernel does not apply RLIMIT_NPROC to root; local runs as the caller"
)
def test_fork_bomb_is_stopped_locally_for_ordinary_users(skill: Skill, ws_root: Path) -> None:
    r = _runner("local", ws_root, limits=Limits(max_processes=40))
    try:
        res = go(r, skill, "python3 bomb.py", timeout=30)
    finally:
        r.close()
    assert int(res["stdout"].split()[1]) <= 40
