"""The sandbox's in-memory file systems: a command must not fill the host's memory through them.

tmpfs pages are the host's RAM. /tmp is a size-capped tmpfs; bubblewrap's
`--dev` is a tmpfs too, without any size limit, and in a user namespace (skillyard
run by an ordinary user) it belongs to the command, which could write gigabytes
into /dev or /dev/shm. Runs with the real SkillRunner and bubblewrap, as root and
again as an unprivileged user (scripts/test_unprivileged.py).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from skillyard.execution import RunRequest, SandboxExecutor, SkillRunner
from skillyard.model import Skill

_REASON = SandboxExecutor().probe()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=f"sandbox unavailable: {_REASON}")
CAP = 256 * 1024 * 1024  # SandboxExecutor's default tmp_size_bytes

#: Every writable tmpfs the command sees, with its size.
MOUNTS = r"""
import json, os
out = {}
for line in open("/proc/self/mountinfo"):
    left, _, right = line.partition(" - ")
    fields = left.split()
    if right.split()[0] == "tmpfs" and "rw" in fields[5].split(","):
        st = os.statvfs(fields[4])
        out[fields[4]] = st.f_blocks * st.f_frsize
print(json.dumps(out))
"""


@pytest.fixture
def base(reachable_tmp: Path) -> Path:
    return reachable_tmp


@pytest.fixture
def skill(hostile_skill: Skill) -> Skill:
    (hostile_skill.path.parent / "mounts.py").write_text(MOUNTS, encoding="utf-8")
    return hostile_skill


def go(base: Path, skill: Skill, command: str, **args: Any) -> dict[str, Any]:
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=30) as runner:
        req = RunRequest.from_arguments({"skill": skill.name, "command": command, **args})
        return runner.run(skill, req, session_id="redteam8").to_dict()


def test_every_writable_tmpfs_is_size_capped(base: Path, skill: Skill) -> None:
    res = go(base, skill, "python3 mounts.py")
    assert res["exit_code"] == 0, res
    mounts = json.loads(res["stdout"])
    assert "/tmp" in mounts and "/dev/shm" in mounts, mounts
    assert {m: size for m, size in mounts.items() if size > CAP} == {}, mounts


def test_dev_is_read_only_and_dev_shm_is_bounded(base: Path, skill: Skill) -> None:
    res = go(
        base,
        skill,
        "if (echo x > /dev/planted) 2>/dev/null; then echo dev=written; else echo dev=refused; fi; "
        "head -c 400000000 /dev/zero > /dev/shm/fill 2>/dev/null; echo shm=$(stat -c %s /dev/shm/fill)",
    )
    assert res["exit_code"] == 0, res
    lines = res["stdout"].split()
    assert lines[0] == "dev=refused", res
    assert int(lines[1].removeprefix("shm=")) <= CAP, res


def test_posix_shared_memory_works(base: Path, skill: Skill) -> None:
    """What /dev/shm is for: POSIX semaphores (multiprocessing's locks) and shared memory."""
    res = go(
        base,
        skill,
        "python3 -c 'import multiprocessing as m, multiprocessing.shared_memory as s\n"
        "lock = m.Lock(); lock.acquire(); lock.release()\n"
        "b = s.SharedMemory(create=True, size=4096); b.buf[0] = 7; print(b.buf[0]); b.close(); b.unlink()'",
    )
    assert res["exit_code"] == 0 and res["stdout"] == "7\n", res


#: AF_VSOCK, through libc and as a raw syscall whose family has bits set above the int the kernel reads.
VSOCK = r"""
import ctypes, errno, socket
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = []
try:
    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close()
    out.append("created")
except OSError as e:
    out.append(errno.errorcode.get(e.errno, str(e.errno)))
for family in (40, 40 | 1 << 32):
    ctypes.set_errno(0)
    fd = libc.syscall(41, ctypes.c_long(family), ctypes.c_long(1), ctypes.c_long(0))  # socket(2)
    out.append("created" if fd >= 0 else errno.errorcode.get(ctypes.get_errno(), "?"))
print(" ".join(out))
"""


def test_vsock_is_not_a_way_around_the_network_namespace(base: Path, skill: Skill) -> None:
    """vsock is not network-namespaced: from a virtual machine it reaches the hypervisor with the
    network off. Sockets of that family are refused, however the call spells the family."""
    res = go(base, skill, f"python3 -c {shlex.quote(VSOCK)}")
    assert res["exit_code"] == 0, res
    assert res["stdout"].split() == ["EPERM", "EPERM", "EPERM"], res


def test_the_command_cannot_learn_its_session_id(base: Path, skill: Skill) -> None:
    """Where the server has no authentication, a session id is what lets a client use a session (its
    workspace): the host path of the workspace, which the command sees in its mount table, must not
    carry it."""
    session = "s3cr3t-session-0123456789abcdef"
    with SkillRunner(executor="sandbox", workspace_root=base / "ws", timeout=30) as runner:
        req = RunRequest.from_arguments(
            {"skill": skill.name, "command": "cat /proc/self/mountinfo; printenv; ls -R /workspace"}
        )
        res = runner.run(skill, req, session_id=session).to_dict()
    assert res["exit_code"] == 0 and "/workspace" in res["stdout"], res
    for part in (session, "s3cr3t", "0123456789abcdef"):
        assert part not in res["stdout"] + res["stderr"], res["stdout"]
