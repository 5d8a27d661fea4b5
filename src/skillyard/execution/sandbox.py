"""The `sandbox` executor: bubblewrap, seccomp, no network, no capabilities, never host uid 0.

Recipe (docs/execution.md has the reasoning and the threat model): `/usr` and a
few `/etc` files read-only, merged-usr symlinks, fresh `/proc` with `/proc/sys`
read-only, minimal read-only `/dev`, size-capped tmpfs at `/tmp` and `/dev/shm`, the spec's binds
(workspace read-write, skills read-only), pid/ipc/uts/cgroup namespaces (and
the network one unless the call allows network), `--clearenv` plus the spec's
environment, and a seccomp filter (`skillyard.execution.seccomp`). Arguments
travel through a memfd (`--args`), so environment values never show up in the
host's process list.

Two ways to reach an unprivileged command, chosen by who runs skillyard:

- an ordinary user: bubblewrap makes a user namespace in which the command is
  uid/gid 65534, mapped onto the caller's own uid; `--cap-drop ALL` and
  `--disable-userns`;
- root: a user namespace would map the command onto host uid 0 (and host uid 0
  may write sysctls without any capability). So bubblewrap runs as real root
  without a user namespace, keeps only the capabilities the hand-over needs
  (`_SWITCH_CAPS`), and the command starts through `setpriv`, which switches to
  the unprivileged host uid (65534 by default), clears every capability set
  including the bounding set, and sets no-new-privileges. The seccomp filter
  stands in for `--disable-userns` there. setpriv runs as uid 0 with an empty
  environment (its dynamic loader would honour `LD_PRELOAD` and the like): the
  command's environment is a read-only file that a shell, already unprivileged,
  exports before it runs the command.

When a part is missing (bubblewrap, setpriv, libseccomp, user namespaces), the
executor refuses with the reason and the fix; it never runs with less.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

from skillyard.execution.base import (
    Bind,
    ExecResult,
    ExecSpec,
    Executor,
    ExecutorUnavailable,
    MiB,
    count_user_processes,
    memfd,
    supervise,
)
from skillyard.execution.seccomp import SeccompUnavailable, filter_program

#: The unprivileged identity of the command (inside the sandbox, and on the host when skillyard is root).
SANDBOX_UID = 65534
SANDBOX_GID = 65534

_ETC_ALWAYS = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime")
_ETC_NETWORK = tuple(
    "/etc/resolv.conf /etc/hosts /etc/nsswitch.conf /etc/gai.conf /etc/ssl /etc/ca-certificates /etc/pki".split()
)
#: Capabilities bubblewrap keeps, as root, until `setpriv` runs: to enter the workspace (owned by the
#: unprivileged uid, mode 0700), switch uid and empty the bounding set. setpriv then clears them all.
_SWITCH_CAPS = ("CAP_DAC_READ_SEARCH", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")
_SETPRIV_PATHS = ("/usr/bin/setpriv", "/bin/setpriv")
#: As root: where the command's environment (NUL-separated NAME=value) is, and what exports it after the drop.
_ENV_FILE = "/etc/skillyard.env"
_EXPORT_ENV = (
    f'while IFS= read -r -d \'\' kv; do export -- "$kv" 2>/dev/null; done < {_ENV_FILE}; exec -- "$@"'
)

_probe_lock = threading.Lock()
_probe_cache: dict[tuple[str, bool, int, int], str | None] = {}
_features_cache: dict[str, frozenset[str]] = {}


def bwrap_features(bwrap: str) -> frozenset[str]:
    """The `--options` listed by `bwrap --help` (cached per binary)."""
    if bwrap not in _features_cache:
        try:
            r = subprocess.run(
                [bwrap, "--help"], capture_output=True, timeout=10, env={"PATH": "/usr/bin:/bin"}
            )
            text = (r.stdout + r.stderr).decode(errors="replace")
        except (OSError, subprocess.SubprocessError):
            text = ""
        _features_cache[bwrap] = frozenset(re.findall(r"--[a-z][a-z0-9-]+", text))
    return _features_cache[bwrap]


def find_bwrap() -> str | None:
    """Path of the bubblewrap binary, if installed."""
    return shutil.which("bwrap") or (os.path.exists("/usr/bin/bwrap") and "/usr/bin/bwrap") or None


def find_setpriv() -> str | None:
    """setpriv as the sandbox sees it: under /usr, which is the only system tree mounted."""
    return next((os.path.realpath(p) for p in _SETPRIV_PATHS if os.access(p, os.X_OK)), None)


def _system_args(network: bool) -> list[str]:
    # /etc first, world-readable: bwrap would otherwise create it 0700 as a parent of the first /etc bind.
    args = ["--ro-bind", "/usr", "/usr", "--perms", "0755", "--dir", "/etc"]
    for d in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        host = f"/{d}"
        if os.path.islink(host):
            args += ["--symlink", os.readlink(host), host]
        elif os.path.isdir(host):
            args += ["--ro-bind", host, host]
    for p in _ETC_ALWAYS + (_ETC_NETWORK if network else ()):
        if os.path.exists(p):
            args += ["--ro-bind", p, p]
    return args


#: Why each missing part matters, and what fixes it (shown to people and models alike).
_FIX_BWRAP = "install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)"
_FIX_SETPRIV = "install util-linux's setpriv (Debian/Ubuntu: apt install util-linux)"
_FIX_SECCOMP = "install libseccomp (Debian/Ubuntu: apt install libseccomp2) and the pyseccomp package"
_FIX_USERNS = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
    "kernel.apparmor_restrict_unprivileged_userns=0), or run skillyard as root"
)
_FIX_LOCAL = 'or, knowing it gives no isolation, set [execution] executor = "local"'


class SandboxExecutor(Executor):
    """bubblewrap isolation; raises ExecutorUnavailable (with the fix) when any part is missing."""

    name = "sandbox"
    isolated = True

    def __init__(
        self,
        bwrap: str | None = None,
        *,
        tmp_size_bytes: int = 256 * MiB,
        uid: int = SANDBOX_UID,
        gid: int = SANDBOX_GID,
    ) -> None:
        for what, v in (("uid", uid), ("gid", gid)):
            if isinstance(v, bool) or not isinstance(v, int) or not 0 < v < 2**32 - 1:
                raise ValueError(f"sandbox {what} must be a positive integer other than 0 (got {v!r})")
        self.bwrap = bwrap or find_bwrap()
        self.tmp_size_bytes = tmp_size_bytes
        self.uid = uid
        self.gid = gid
        #: True when skillyard runs as root: bwrap without a user namespace, setpriv drops to `uid`.
        self.as_root = os.geteuid() == 0
        self.setpriv = find_setpriv() if self.as_root else None
        self._ok = False

    # -- probing -------------------------------------------------------------------------------------------

    def probe(self) -> str | None:
        """None when the full recipe works here, else "<reason>; fix: <how>" (cached per process)."""
        if self._ok:
            return None
        if not self.bwrap:
            return f"bubblewrap (bwrap) is not installed; fix: {_FIX_BWRAP}"
        missing = {"--seccomp", "--cap-drop"} - self.features
        missing |= (
            {"--ro-bind-data", "--perms"} if self.as_root else {"--unshare-user", "--uid"}
        ) - self.features
        if missing:
            return f"{self.bwrap} is too old (lacks {', '.join(sorted(missing))}); fix: {_FIX_BWRAP}"
        if self.as_root and not self.setpriv:
            return (
                f"setpriv is not installed, so a root host cannot drop to uid {self.uid}; fix: {_FIX_SETPRIV}"
            )
        try:
            filter_program()
        except SeccompUnavailable as e:
            return f"{e}; fix: {_FIX_SECCOMP}"
        key = (str(self.bwrap), self.as_root, self.uid, self.gid)
        with _probe_lock:
            if key not in _probe_cache:
                _probe_cache[key] = self._probe_once()
            reason = _probe_cache[key]
        if reason is None:
            self._ok = True
        return reason

    def _probe_once(self) -> str | None:
        """Run `id -u` with the real recipe: it must work and report the unprivileged uid."""
        spec = ExecSpec(argv=["/usr/bin/id", "-u"], cwd="/", env={"PATH": "/usr/bin:/bin"}, timeout=15)
        try:
            r = self._spawn(spec)
        except (OSError, SeccompUnavailable) as e:
            return f"cannot start bubblewrap ({e}); fix: {_FIX_BWRAP}"
        out = r.stdout.decode(errors="replace").strip()
        if r.exit_code == 0 and out == str(self.uid):
            return None
        detail = (r.stderr.decode(errors="replace").strip() or f"exit {r.exit_code}").splitlines()[-1]
        if r.exit_code == 0:
            return f"the sandboxed probe ran as uid {out!r}, not {self.uid}; refusing to run"
        fix = _FIX_USERNS if not self.as_root else f"{_FIX_BWRAP}; check that root may create namespaces here"
        return f"bubblewrap failed ({detail}); fix: {fix}"

    def host_uid(self) -> int | None:
        """Root hosts hand the workspace to the unprivileged uid the command runs as."""
        return self.uid if self.as_root else None

    # -- command line --------------------------------------------------------------------------------------

    @property
    def features(self) -> frozenset[str]:
        """Options this bwrap understands (older releases lack --disable-userns, --size, --bind-fd)."""
        return bwrap_features(str(self.bwrap)) if self.bwrap else frozenset()

    def _identity_args(self) -> list[str]:
        """`--uid/--gid` in a user namespace, or the capabilities setpriv needs as root."""
        if self.as_root:
            return ["--cap-drop", "ALL", *(word for c in _SWITCH_CAPS for word in ("--cap-add", c))]
        userns = ["--unshare-user", "--cap-drop", "ALL", "--uid", str(self.uid), "--gid", str(self.gid)]
        return userns + (["--disable-userns"] if "--disable-userns" in self.features else [])

    def command_prefix(self) -> list[str]:
        """What runs before the command inside the sandbox: the switch to the unprivileged uid, as root."""
        if not self.as_root:
            return []
        assert self.setpriv is not None
        return [
            self.setpriv,
            f"--reuid={self.uid}",
            f"--regid={self.gid}",
            *"--clear-groups --inh-caps=-all --ambient-caps=-all --bounding-set=-all --no-new-privs --".split(),
            *"/bin/bash --noprofile --norc -c".split(),
            _EXPORT_ENV,
            "skillyard-env",
        ]

    def build_args(
        self, spec: ExecSpec, bind_fds: Sequence[int], data_fds: Sequence[int], seccomp_fd: int
    ) -> list[str]:
        """The bwrap options (without the command); binds refer to pre-opened fds when bwrap has --bind-fd."""
        args = _system_args(spec.network)
        if data_fds:
            args += ["--perms", "0444", "--ro-bind-data", str(data_fds[0]), "/etc/passwd"]
            args += ["--perms", "0444", "--ro-bind-data", str(data_fds[1]), "/etc/group"]
            if self.as_root:
                args += ["--perms", "0444", "--ro-bind-data", str(data_fds[2]), _ENV_FILE]
        args += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
        if not spec.network:
            args.append("--unshare-net")
        args += ["--die-with-parent", "--new-session", *self._identity_args()]
        # /proc/sys and /sys: read-only or absent, whatever bwrap decides for its own /proc covers.
        args += ["--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--dev", "/dev"]
        for tmp in ("/tmp", "/dev/shm"):
            if "--size" in self.features:
                args += ["--size", str(self.tmp_size_bytes)]
            # without --perms: root-owned 0755, which a command started as root cannot write
            if "--perms" in self.features:
                args += ["--perms", "01777"]
            args += ["--tmpfs", tmp]
        # /dev is a tmpfs without a size limit, and the command's own in a user namespace: read-only.
        args += ["--remount-ro", "/dev"]
        if bind_fds:
            for b, fd in zip(spec.binds, bind_fds, strict=True):
                args += ["--bind-fd" if b.writable else "--ro-bind-fd", str(fd), b.target]
        else:
            for b in spec.binds:
                args += ["--bind" if b.writable else "--ro-bind", str(b.source), b.target]
        args += ["--remount-ro", "/", "--seccomp", str(seccomp_fd), "--chdir", spec.cwd, "--clearenv"]
        if not self.as_root:  # as root the environment is a file: nothing of it may reach setpriv (uid 0)
            for k, v in spec.env.items():
                args += ["--setenv", k, v]
        return args

    def _data_files(self, spec: ExecSpec) -> list[bytes]:
        """A passwd and group naming only the sandbox user (tools like git and `id -un` want one), and as
        root the command's environment."""
        passwd = f"sandbox:x:{self.uid}:{self.gid}:skillyard sandbox:/workspace/work:/bin/sh\n"
        group = f"sandbox:x:{self.gid}:\n"
        env = "".join(f"{k}={v}\0" for k, v in spec.env.items()) if self.as_root else None
        return [passwd.encode(), group.encode(), *([env.encode()] if env is not None else [])]

    # -- running -------------------------------------------------------------------------------------------

    def run(self, spec: ExecSpec) -> ExecResult:
        spec.validate()
        reason = self.probe()
        if reason is not None:
            raise ExecutorUnavailable(f"sandbox unavailable: {reason}; {_FIX_LOCAL}")
        return self._spawn(spec)

    def _spawn(self, spec: ExecSpec) -> ExecResult:
        fds: list[int] = []  # every descriptor opened so far, closed whatever happens
        try:
            if "--bind-fd" in self.features:
                for b in spec.binds:
                    fds.append(_open_bind_source(b))
            bind_fds = fds[:]
            if {"--ro-bind-data", "--perms"} <= self.features:
                for blob in self._data_files(spec):
                    fds.append(memfd("skillyard-identity", blob))
            data_fds = fds[len(bind_fds) :]
            fds.append(sfd := memfd("skillyard-seccomp", filter_program()))
            args = self.build_args(spec, bind_fds, data_fds, sfd)
            fds.append(argfd := memfd("skillyard-bwrap-args", b"".join(a.encode() + b"\0" for a in args)))
            return supervise(
                [str(self.bwrap), "--args", str(argfd), "--", *self.command_prefix(), *spec.argv],
                cwd="/",
                env={"PATH": "/usr/bin:/bin"},
                timeout=float(spec.timeout),
                limits=spec.limits,
                stdin=spec.stdin,
                # RLIMIT_NPROC counts every process of the uid the command runs as, so the limit is relative.
                nproc_base=count_user_processes(self.uid if self.as_root else os.getuid()),
                pass_fds=fds,
                executor=self.name,
                workspace=next((b.source for b in spec.binds if b.writable), None),
            )
        finally:
            for fd in fds:
                os.close(fd)


def _open_bind_source(b: Bind) -> int:
    src = Path(b.source)
    try:
        return os.open(src, os.O_PATH | os.O_CLOEXEC)
    except OSError as e:
        raise ValueError(f"cannot bind {src}: {e.strerror}") from e
