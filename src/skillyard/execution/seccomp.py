"""The seccomp filter every sandboxed command runs under.

bubblewrap takes a compiled BPF program (`--seccomp FD`) and loads it as its
last step before running the command. The program is built with libseccomp
(through `pyseccomp`, a ctypes binding), never assembled by hand: libseccomp
knows each architecture's syscall numbers and rejects foreign-architecture
calls (x32, i386 through `int 0x80`) with the bad-architecture action.

Default allow, and EPERM for what a skill's script never needs and an escape
usually does: tracing other processes, mounting, new namespaces, kernel
keyrings, BPF, perf, io_uring, module loading, kexec, accounting, swap and
reboot (docs/execution.md, "Threat model", says what each one stops).
"""

from __future__ import annotations

import errno
import os
import threading

#: Denied outright with EPERM; one line per kind of escape (docs/execution.md, "Threat model").
DENIED_SYSCALLS: tuple[str, ...] = tuple(
    """
    ptrace process_vm_readv process_vm_writev
    mount umount2 pivot_root move_mount open_tree fsopen fsconfig fsmount fspick mount_setattr
    keyctl add_key request_key
    bpf perf_event_open userfaultfd
    kexec_load kexec_file_load init_module finit_module delete_module
    unshare setns
    io_uring_setup io_uring_enter io_uring_register
    acct swapon swapoff reboot
    open_by_handle_at quotactl syslog iopl ioperm settimeofday clock_settime clock_adjtime vhangup
    """.split()
)

#: clone() flags that create namespaces; a clone carrying any of them fails with EPERM.
CLONE_NAMESPACE_FLAGS: tuple[int, ...] = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
    0x00000080,  # CLONE_NEWTIME
)

#: socket() families no network namespace covers, so "no network" would not stop them: AF_VSOCK
#: reaches the hypervisor and its services from inside a virtual machine.
DENIED_SOCKET_FAMILIES: tuple[int, ...] = (40,)  # AF_VSOCK

#: personality() values above this carry flags such as ADDR_NO_RANDOMIZE or READ_IMPLIES_EXEC;
#: 0 (PER_LINUX), 8 (PER_LINUX32), 0x20000 (UNAME26) and their combination stay allowed.
PERSONALITY_MAX = 0x20008


class SeccompUnavailable(RuntimeError):
    """libseccomp (or its Python binding) is missing, so no filter can be built."""


_lock = threading.Lock()
_program: bytes | None = None


def filter_program() -> bytes:
    """The compiled BPF program (built once per process)."""
    global _program
    with _lock:
        if _program is None:
            _program = _build()
        return _program


def _build() -> bytes:
    try:
        import pyseccomp as sc
    except (ImportError, RuntimeError, OSError) as e:  # pyseccomp raises RuntimeError without libseccomp
        raise SeccompUnavailable(f"libseccomp is not available ({e})") from None
    eperm = sc.ERRNO(errno.EPERM)
    f = sc.SyscallFilter(sc.ALLOW)
    f.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
    for name in DENIED_SYSCALLS:
        _resolve(sc, name)
        f.add_rule(eperm, name)
    _resolve(sc, "clone")
    for flag in CLONE_NAMESPACE_FLAGS:
        f.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory a filter cannot read: ENOSYS makes libc fall back to clone().
    _resolve(sc, "clone3")
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    f.add_rule(eperm, "personality", sc.Arg(0, sc.GT, PERSONALITY_MAX))
    for family in DENIED_SOCKET_FAMILIES:  # the kernel reads an int: bits above 32 must not dodge the rule
        f.add_rule(eperm, "socket", sc.Arg(0, sc.MASKED_EQ, 0xFFFFFFFF, family))
    fd = os.memfd_create("skillyard-seccomp", os.MFD_CLOEXEC)
    try:
        with open(fd, "wb", closefd=False) as out:
            f.export_bpf(out)
        size = os.lseek(fd, 0, os.SEEK_END)
        program = os.pread(fd, size, 0)
    finally:
        os.close(fd)
    if not program or len(program) % 8:
        raise SeccompUnavailable("libseccomp exported an empty or malformed filter")
    return program


def _resolve(sc: object, name: str) -> None:
    """Fail closed on a name libseccomp does not know (a typo would otherwise deny nothing)."""
    nr = sc.resolve_syscall(sc.Arch.NATIVE, name)  # type: ignore[attr-defined]
    if nr == -1:
        raise SeccompUnavailable(f"libseccomp does not know the syscall {name!r}")
