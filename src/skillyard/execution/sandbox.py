"""The `sandbox` executor: bubblewrap with minimal binds, no network, no capabilities.

Recipe (docs/execution.md has the reasoning): `/usr` and a few `/etc` files
read-only, merged-usr symlinks, fresh `/proc`, `/dev` and a size-capped tmpfs
`/tmp`, the binds of the spec (workspace read-write, skills read-only), all
namespaces unshared (network too unless the call allows it), `--cap-drop ALL`,
uid/gid 65534, `--disable-userns`, `--die-with-parent`, `--new-session`,
`--clearenv` plus the spec's environment. Arguments travel through a memfd
(`--args`), so environment values never show up in the host's process list.

When skillyard runs as root, the kernel ignores RLIMIT_NPROC, so bwrap itself
is started as the unprivileged host uid 65534 (binds are passed as
pre-opened fds, so that uid needs no path access to the host tree); the
workspace is chowned to that uid by the runner (`host_uid()`).
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from skillyard.execution.base import (
    Bind,
    ExecResult,
    ExecSpec,
    Executor,
    ExecutorUnavailable,
    Limits,
    MiB,
    count_user_processes,
    rlimit_argv,
    rlimit_setter,
    setpriv_argv,
    supervise,
)

#: The unprivileged identity inside the sandbox (and on the host when started as root).
SANDBOX_UID = 65534
SANDBOX_GID = 65534

_ETC_ALWAYS = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime")
_ETC_NETWORK = (
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
)

_probe_lock = threading.Lock()
_probe_cache: dict[tuple[str, bool], str | None] = {}


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


def _system_args(network: bool) -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
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


_identity_lock = threading.Lock()
_identity_dir: str | None = None


def identity_files() -> list[str]:
    """`--ro-bind` args for a minimal /etc/passwd and /etc/group naming only the sandbox user.

    Tools such as git or `id -un` want a passwd entry; the host's files would reveal its users.
    """
    global _identity_dir
    with _identity_lock:
        if _identity_dir is None or not os.path.isdir(_identity_dir):
            d = tempfile.mkdtemp(prefix="skillyard-sandbox-etc-")
            os.chmod(d, 0o755)
            with open(os.path.join(d, "passwd"), "w", encoding="utf-8") as f:
                f.write(f"sandbox:x:{SANDBOX_UID}:{SANDBOX_GID}:skillyard sandbox:/workspace/work:/bin/sh\n")
            with open(os.path.join(d, "group"), "w", encoding="utf-8") as f:
                f.write(f"sandbox:x:{SANDBOX_GID}:\n")
            for n in ("passwd", "group"):
                os.chmod(os.path.join(d, n), 0o644)
            atexit.register(shutil.rmtree, d, True)
            _identity_dir = d
        d = _identity_dir
    if not reachable_by(Path(d), SANDBOX_UID):
        return []
    return ["--ro-bind", f"{d}/passwd", "/etc/passwd", "--ro-bind", f"{d}/group", "/etc/group"]


def _drop_privileges(uid: int, gid: int, then: Callable[[], None]) -> Callable[[], None]:
    def pre() -> None:
        then()
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)

    return pre


class SandboxExecutor(Executor):
    """bubblewrap isolation; raises ExecutorUnavailable when bwrap is missing or refused."""

    name = "sandbox"
    isolated = True

    def __init__(self, bwrap: str | None = None, *, tmp_size_bytes: int = 256 * MiB) -> None:
        self.bwrap = bwrap or find_bwrap()
        self.tmp_size_bytes = tmp_size_bytes
        self._mode: str | None = None  # "drop" (root → uid 65534), "plain", or None until probed
        self.warnings: list[str] = []

    # -- probing -------------------------------------------------------------------------------------------

    def probe(self) -> str | None:
        """None when the sandbox works here, else the reason (cached per process)."""
        if not self.bwrap:
            return "bubblewrap (bwrap) is not installed"
        if self._mode is not None:
            return None
        with _probe_lock:
            drop = os.geteuid() == 0
            reason = self._probe_once(drop)
            if reason is None:
                self._mode = "drop" if drop else "plain"
                return None
            if drop and self._probe_once(False) is None:
                self._mode = "plain"
                self.warnings = [
                    f"sandbox: cannot start bwrap as uid {SANDBOX_UID} ({reason}); running it as root, "
                    "so the process-count limit is not enforced"
                ]
                return None
            return reason

    def _probe_once(self, drop: bool) -> str | None:
        key = (str(self.bwrap), drop)
        if key in _probe_cache:
            return _probe_cache[key]
        argv = [str(self.bwrap), *_system_args(False), *self._ns_args(False), "--", "/usr/bin/true"]
        pre = _drop_privileges(SANDBOX_UID, SANDBOX_GID, lambda: None) if drop else None
        try:
            r = subprocess.run(
                argv, capture_output=True, timeout=15, preexec_fn=pre, env={"PATH": "/usr/bin:/bin"}
            )
            reason = (
                None
                if r.returncode == 0
                else (r.stderr.decode(errors="replace").strip() or f"exit {r.returncode}")
            )
        except (OSError, subprocess.SubprocessError) as e:
            reason = str(e)
        _probe_cache[key] = reason
        return reason

    def host_uid(self) -> int | None:
        if self.probe() is None and self._mode == "drop":
            return SANDBOX_UID
        return None

    def host_uid_for(self, path: Path) -> int | None:
        """The uid owning files of a workspace at `path`: 65534 only when that uid can reach it."""
        uid = self.host_uid()
        if uid is not None and not reachable_by(Path(path).parent, uid):  # the workspace itself gets chowned
            return None
        return uid

    # -- command line --------------------------------------------------------------------------------------

    @property
    def features(self) -> frozenset[str]:
        """Options this bwrap understands (older releases lack --disable-userns, --size, --bind-fd)."""
        return bwrap_features(str(self.bwrap)) if self.bwrap else frozenset()

    def _ns_args(self, network: bool) -> list[str]:
        args = ["--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
        if not network:
            args.append("--unshare-net")
        return args + [
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--uid",
            str(SANDBOX_UID),
            "--gid",
            str(SANDBOX_GID),
            *(["--disable-userns"] if "--disable-userns" in self.features else []),
            "--proc",
            "/proc",
            "--dev",
            "/dev",
        ]

    def build_args(self, spec: ExecSpec, bind_fds: Sequence[int]) -> list[str]:
        """The bwrap options (without the command), binds referring to pre-opened fds."""
        args = _system_args(spec.network) + identity_files()
        args += self._ns_args(spec.network)
        if "--size" in self.features:
            args += ["--size", str(self.tmp_size_bytes)]
        args += ["--tmpfs", "/tmp"]
        if bind_fds:
            for b, fd in zip(spec.binds, bind_fds, strict=True):
                args += ["--bind-fd" if b.writable else "--ro-bind-fd", str(fd), b.target]
        else:  # bwrap without --bind-fd: path binds (reachability is checked before dropping privileges)
            for b in spec.binds:
                args += ["--bind" if b.writable else "--ro-bind", str(b.source), b.target]
        args += ["--remount-ro", "/", "--chdir", spec.cwd, "--clearenv"]  # the root tmpfs itself read-only
        for k, v in spec.env.items():
            args += ["--setenv", k, v]
        return args

    # -- running -------------------------------------------------------------------------------------------

    def run(self, spec: ExecSpec) -> ExecResult:
        spec.validate()
        reason = self.probe()
        if reason is not None:
            raise ExecutorUnavailable(f"sandbox unavailable: {reason}")
        fds: list[int] = []
        argfd = -1
        try:
            if "--bind-fd" in self.features:
                for b in spec.binds:
                    fds.append(_open_bind_source(b))
            argfd = os.memfd_create("skillyard-bwrap-args", 0)
            blob = b"".join(a.encode("utf-8") + b"\0" for a in self.build_args(spec, fds))
            view = memoryview(blob)
            while view:
                view = view[os.write(argfd, view) :]
            os.lseek(argfd, 0, os.SEEK_SET)
            limits: Limits = spec.limits
            blocked = [str(b.source) for b in spec.binds if not reachable_by(Path(b.source), SANDBOX_UID)]
            drop = self._mode == "drop" and not blocked
            warnings = list(self.warnings)
            if self._mode == "drop" and blocked:
                warnings.append(
                    f"sandbox: {blocked[0]} is not reachable by uid {SANDBOX_UID} (a parent directory lacks o+x); "
                    "bwrap ran as root, so the process-count limit is not enforced"
                )
            if drop:
                base = count_user_processes(SANDBOX_UID)
            else:
                base = count_user_processes(os.getuid()) if os.getuid() != 0 else 0
            # Fast path: prlimit (+ setpriv) as exec wrappers; slow path: a preexec function.
            prefix = rlimit_argv(limits, nproc_base=base)
            switch = setpriv_argv(SANDBOX_UID, SANDBOX_GID) if drop else []
            pre: Callable[[], None] | None = None
            if prefix is None or switch is None:
                prefix, switch = [], []
                pre = rlimit_setter(limits, nproc_base=base)
                if drop:
                    pre = _drop_privileges(SANDBOX_UID, SANDBOX_GID, pre)
            result = supervise(
                [*prefix, *switch, str(self.bwrap), "--args", str(argfd), "--", *spec.argv],
                cwd="/",
                env={"PATH": "/usr/bin:/bin"},
                timeout=float(spec.timeout),
                limits=limits,
                stdin=spec.stdin,
                preexec=pre,
                pass_fds=[*fds, argfd],
                executor=self.name,
            )
        finally:
            for fd in [*fds, argfd]:
                if fd >= 0:
                    os.close(fd)
        result.warnings.extend(warnings)
        return result


def reachable_by(path: Path, uid: int) -> bool:
    """True when `uid` (not root, no groups) can traverse every parent of `path` and the path itself."""
    p = Path(os.path.abspath(path))
    for d in [p, *p.parents]:
        try:
            st = os.stat(d)
        except OSError:
            return False
        bit = 0o100 if st.st_uid == uid else 0o001
        if not st.st_mode & bit:
            return False
    return True


def _open_bind_source(b: Bind) -> int:
    src = Path(b.source)
    try:
        return os.open(src, os.O_PATH | os.O_CLOEXEC)
    except OSError as e:
        raise ValueError(f"cannot bind {src}: {e.strerror}") from e
