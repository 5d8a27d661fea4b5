"""Runs hostile probes through skillyard's sandbox and prints what happened, as JSON.

Started by tests/test_sandbox_identity.py as root and as an unprivileged user,
with skills and workspaces laid out under a private (0700) or an ordinary
(0755) directory. It uses skillyard's public pieces exactly as a host would:
`SkillRunner` for `skill_run` and `run_tool` for a SKILL.toml tool.

Usage: python sandbox_driver.py BASE_DIR LAYOUT   (LAYOUT: private | ordinary)
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

from skillyard.execution import RunRequest, SkillRunner
from skillyard.model import Skill, ToolArg, ToolSpec
from skillyard.toml_tools import run_tool

#: Runs inside the sandbox with /usr/bin/python3: each denied syscall must fail with EPERM.
SYSCALL_PROBE = r"""
import ctypes, errno, json, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = dict(ptrace=101, process_vm_readv=310, process_vm_writev=311, mount=165, umount2=166,
          pivot_root=155, move_mount=429, open_tree=428, fsopen=430, fsconfig=431, fsmount=432,
          fspick=433, mount_setattr=442, keyctl=250, add_key=248, request_key=249, bpf=321,
          perf_event_open=298, userfaultfd=323, kexec_load=246, kexec_file_load=320,
          init_module=175, finit_module=313, delete_module=176, unshare=272, setns=308,
          io_uring_setup=425, io_uring_enter=426, io_uring_register=427, acct=163, swapon=167,
          swapoff=168, reboot=169, personality=135)
ARGS = dict(unshare=(0x10000000,), personality=(0x0040000,), setns=(0, 0x10000000),
            fsopen=(ctypes.c_char_p(b"tmpfs"), 0), mount=(ctypes.c_char_p(b"none"), ctypes.c_char_p(b"/tmp"), ctypes.c_char_p(b"tmpfs"), 0, 0),
            ptrace=(16, 1), swapoff=(ctypes.c_char_p(b"/nonexistent"),), io_uring_setup=(1, 0))
out = {}
for name, nr in NR.items():
    ctypes.set_errno(0)
    r = libc.syscall(nr, *ARGS.get(name, ()))
    out[name] = "ok" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
ctypes.set_errno(0)
r = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)  # clone(CLONE_NEWUSER | SIGCHLD)
if r == 0:
    os._exit(0)
out["clone_newuser"] = "ok" if r > 0 else errno.errorcode.get(ctypes.get_errno(), "?")
ctypes.set_errno(0)
r = libc.syscall(435, 0, 0)  # clone3(NULL, 0)
out["clone3"] = "ok" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
print(json.dumps(out))
"""

#: The shell part: identity, capability sets, kernel knobs (writing back the current value).
SHELL_PROBE = r"""
echo "uid=$(id -u)"; echo "gid=$(id -g)"; echo "groups=$(id -G)"
echo "uid_map=$(tr -s ' ' < /proc/self/uid_map | tr '\n' ';')"
grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status
v=$(cat /proc/sys/vm/swappiness)
if (echo "$v" > /proc/sys/vm/swappiness) 2>/dev/null; then echo "sysctl=written"; else echo "sysctl=refused"; fi
if (cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern) 2>/dev/null; then echo "core_pattern=written"; else echo "core_pattern=refused"; fi
if [ -e /sys/kernel ]; then
  if (echo x > /sys/kernel/uevent_helper) 2>/dev/null; then echo "sys=written"; else echo "sys=refused"; fi
else echo "sys=absent"; fi
if (echo h > /proc/sysrq-trigger) 2>/dev/null; then echo "sysrq=written"; else echo "sysrq=refused"; fi
if unshare -U true 2>/dev/null; then echo "unshare_cmd=ok"; else echo "unshare_cmd=refused"; fi
if mount -t tmpfs none /tmp 2>/dev/null; then echo "mount_cmd=ok"; else echo "mount_cmd=refused"; fi
echo "env_paths=$WORKSPACE_DIR:$SKILL_DIR:$HOME"
echo made > out/owner-check.txt
"""


def _layout(base: Path, layout: str) -> tuple[Path, Path]:
    """A parent directory as users have them: private (0700, like /root) or ordinary (0755)."""
    parent = base / layout
    parent.mkdir()
    os.chmod(parent, 0o700 if layout == "private" else 0o755)
    skill_dir = parent / "skills" / "probe"
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text(
        "---\nname: probe\ndescription: probes\n---\nbody\n", encoding="utf-8"
    )
    (skill_dir / "syscalls.py").write_text(SYSCALL_PROBE, encoding="utf-8")
    (skill_dir / "probe.sh").write_text(SHELL_PROBE, encoding="utf-8")
    if layout == "private":  # files only their owner can read, as umask 077 leaves them
        for p in skill_dir.iterdir():
            os.chmod(p, 0o600)
        os.chmod(skill_dir, 0o700)
    return skill_dir, parent / "workspaces"


def _host_uids_of(marker: str, seen: dict[str, int], stop: threading.Event) -> None:
    """Watch the host's /proc for the sandboxed command and record its real host uid."""
    while not stop.is_set():
        for e in os.scandir("/proc"):
            if not e.name.isdigit():
                continue
            try:
                with open(f"/proc/{e.name}/cmdline", "rb") as f:
                    if marker.encode() not in f.read():
                        continue
                with open(f"/proc/{e.name}/status", encoding="utf-8") as f:
                    for line in f:
                        if line.startswith("Uid:"):
                            name = Path(f"/proc/{e.name}/comm").read_text().strip()
                            seen[name] = max(seen.get(name, -1), min(int(x) for x in line.split()[1:]))
            except (OSError, ValueError):
                continue
        time.sleep(0.02)


def main() -> None:
    base, layout = Path(sys.argv[1]), sys.argv[2]
    skill_dir, ws_root = _layout(base, layout)
    skill = Skill(name="probe", description="probes", path=skill_dir / "SKILL.md")
    runner = SkillRunner(executor="sandbox", workspace_root=ws_root, timeout=30)
    report: dict[str, object] = {"layout": layout, "skillyard_uid": os.getuid()}
    try:
        res = runner.run(
            skill,
            RunRequest.from_arguments({"skill": "probe", "command": "bash probe.sh; python3 syscalls.py"}),
            session_id="probe",
        ).to_dict()
        report["run"] = res
        ws = next(ws_root.glob("ws_*"))
        owner = ws / "out" / "owner-check.txt"
        report["file_owner"] = owner.stat().st_uid if owner.exists() else None
        # The command's processes, as the host sees them, while one of them sleeps.
        marker = "skillyard-uid-marker-7f3a"
        seen: dict[str, int] = {}
        stop = threading.Event()
        watcher = threading.Thread(target=_host_uids_of, args=(marker, seen, stop), daemon=True)
        watcher.start()
        runner.run(
            skill,
            RunRequest.from_arguments({"skill": "probe", "command": f"sleep 1.5; echo {marker}"}),
            session_id="probe",
        )
        stop.set()
        watcher.join()
        report["host_uids"] = seen
    finally:
        runner.close()
    spec = ToolSpec(
        name="whoami",
        description="who runs SKILL.toml tools",
        command="id -u; cat syscalls.py > /dev/null && echo readable; touch x 2>/dev/null || echo skill-read-only",
        args=(ToolArg(name="unused", type="string", required=False),),
    )
    text, is_error = run_tool(skill, spec, {}, executor="sandbox", timeout=30)
    report["toml_tool"] = {"text": text, "is_error": is_error}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
