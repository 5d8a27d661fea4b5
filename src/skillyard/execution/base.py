"""The executor contract and the one process-supervision loop every executor shares.

An executor runs an argv list (never a shell string: callers that want a shell
pass `["bash", "-c", cmd]`) with a given cwd, a fully explicit environment, a
wall-clock timeout, resource limits and a list of host directories to bind.
Output is captured up to a byte cap while the pipes keep being drained, so a
command printing gigabytes costs no memory; the timeout kills the whole
process tree.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import select
import selectors
import shutil
import signal
import subprocess
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

#: Default wall-clock timeout of one run, seconds.
DEFAULT_TIMEOUT = 60.0
#: Hard ceiling for any timeout a caller may ask for, seconds.
MAX_TIMEOUT = 86400.0


def max_timeout_for(timeout: float) -> float:
    """The ceiling for a timeout a request or a skill asks for: 10x the configured one, at least 10 minutes."""
    return max(600.0, 10 * timeout)


#: The warning of a run whose caller gave up (see `run_cancellable`).
CANCELLED = "stopped: the caller cancelled the run; its process tree was killed"
#: Seconds to keep draining pipes after the main process exited (stragglers are killed first).
_DRAIN_GRACE = 2.0
_READ_CHUNK = 64 * KiB
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


#: The stop event of the call running in this context (see `run_cancellable`).
_STOP: ContextVar[threading.Event | None] = ContextVar("skillyard_stop", default=None)


def run_cancellable(stop: threading.Event, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, during which setting `stop` (from any thread) kills the process tree of
    every run it makes at that run's next wake-up (a quarter of a second at most).

    For hosts that give up on a call (an MCP client's `notifications/cancelled`, an agent's task
    cancelled): without it the script went on until its own timeout, working on the user's files after
    they had stopped it, and holding its session and a run slot."""
    token = _STOP.set(stop)
    try:
        return fn(*args, **kwargs)
    finally:
        _STOP.reset(token)


def current_stop() -> threading.Event | None:
    """The stop event `run_cancellable` set for this call, for executors that wait in their own way."""
    return _STOP.get()


class ExecutorUnavailable(RuntimeError):
    """The executor cannot run on this host (missing binary, no daemon, namespaces refused)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits applied to the command (rlimits before exec, capture caps while reading).

    `max_processes` is enforced with RLIMIT_NPROC, which the kernel ignores for
    root; the sandboxed command never runs as root (see docs/execution.md).
    """

    max_processes: int = 256
    max_memory_bytes: int = 4 * GiB
    max_file_size_bytes: int = 1 * GiB
    max_open_files: int = 1024
    cpu_seconds: int | None = None
    stdout_bytes: int = 64 * KiB
    stderr_bytes: int = 64 * KiB
    #: A run is killed when the file system of its workspace has less free (0: never): the workspace
    #: is a host directory, and without a quota a command could fill the host's disk file by file.
    min_free_disk_bytes: int = 1 * GiB
    #: The same for inodes: empty files cost no bytes, and a file system out of inodes is as full.
    min_free_inodes: int = 10_000

    def __post_init__(self) -> None:
        for name in ("max_processes", "max_memory_bytes", "max_file_size_bytes", "max_open_files"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"limits.{name} must be a positive integer (got {v!r})")
        for name in ("stdout_bytes", "stderr_bytes", "min_free_disk_bytes", "min_free_inodes"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"limits.{name} must be a non-negative integer (got {v!r})")
        if self.cpu_seconds is not None and (not isinstance(self.cpu_seconds, int) or self.cpu_seconds <= 0):
            raise ValueError(
                f"limits.cpu_seconds must be a positive integer or None (got {self.cpu_seconds!r})"
            )


@dataclass(frozen=True, slots=True)
class Bind:
    """A host directory made visible to an isolated command at `target` (ignored by `local`)."""

    source: Path
    target: str
    writable: bool = False

    def __post_init__(self) -> None:
        if not self.target.startswith("/") or "\0" in self.target or ".." in self.target.split("/"):
            raise ValueError(f"bind target must be an absolute path without '..': {self.target!r}")


@dataclass(slots=True)
class ExecSpec:
    """One command to run. Paths (`cwd`, env values) are as the command sees them."""

    argv: Sequence[str]
    cwd: str
    env: Mapping[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    limits: Limits = field(default_factory=Limits)
    binds: Sequence[Bind] = ()
    network: bool = False
    stdin: bytes | None = None
    #: Binaries the skill requires; an executor that runs elsewhere (ray) checks them where it runs.
    needs_bins: Sequence[str] = ()

    def validate(self) -> None:
        """Reject malformed specs with a clear message before anything is spawned."""
        if isinstance(self.argv, str | bytes) or not self.argv:
            raise ValueError("argv must be a non-empty list of strings")
        for a in self.argv:
            if not isinstance(a, str) or "\0" in a:
                raise ValueError("argv entries must be strings without NUL bytes")
        if not isinstance(self.cwd, str) or not self.cwd or "\0" in self.cwd:
            raise ValueError("cwd must be a non-empty path string")
        for k, v in self.env.items():
            if not isinstance(k, str) or not _ENV_NAME.fullmatch(k):
                raise ValueError(f"invalid environment variable name: {k!r}")
            if not isinstance(v, str) or "\0" in v:
                raise ValueError(f"environment variable {k} must be a string without NUL bytes")
        t = self.timeout
        if isinstance(t, bool) or not isinstance(t, int | float) or not 0 < t <= MAX_TIMEOUT:
            raise ValueError(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}] (got {t!r})")


@dataclass(slots=True)
class ExecResult:
    """What came back: raw captured bytes (capped), exit status and bookkeeping."""

    stdout: bytes
    stderr: bytes
    exit_code: int
    timed_out: bool
    duration_ms: int
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    executor: str = ""
    warnings: list[str] = field(default_factory=list)

    def text(self, stream: str = "stdout") -> str:
        """Decoded text of a stream, invalid UTF-8 replaced."""
        data = self.stdout if stream == "stdout" else self.stderr
        return data.decode("utf-8", errors="replace")


class Executor(ABC):
    """Runs an ExecSpec. Subclasses only build the argv and the child-side setup."""

    name: str = "abstract"
    #: True when the command sees bind targets instead of host paths.
    isolated: bool = False

    @abstractmethod
    def run(self, spec: ExecSpec) -> ExecResult:
        """Run one command to completion (or timeout) and return its result."""

    def host_uid(self) -> int | None:
        """The host uid the command's files will be created as, when it differs from ours."""
        return None


def _cap(res: int, value: int) -> int:
    """`value` lowered to the hard limit already in force (an unprivileged process cannot raise it)."""
    hard = resource.getrlimit(res)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _capped(limits: Limits, nproc_base: int) -> list[tuple[int, str, int]]:
    """(resource, prlimit option, value) of every limit: process, memory, file-size, open-file and CPU
    limits lowered to the hard limits in force, and no core dumps."""
    wanted = [
        (resource.RLIMIT_NPROC, "nproc", limits.max_processes + nproc_base),
        (resource.RLIMIT_AS, "as", limits.max_memory_bytes),
        (resource.RLIMIT_FSIZE, "fsize", limits.max_file_size_bytes),
        (resource.RLIMIT_NOFILE, "nofile", limits.max_open_files),
        (resource.RLIMIT_CORE, "core", 0),
    ]
    if limits.cpu_seconds:
        wanted.append((resource.RLIMIT_CPU, "cpu", limits.cpu_seconds))
    return [(res, option, _cap(res, value)) for res, option, value in wanted]


def rlimit_setter(limits: Limits, *, nproc_base: int = 0) -> Callable[[], None]:
    """A preexec function setting rlimits in the child before exec (never raises into the child)."""
    pairs = [(res, value) for res, _, value in _capped(limits, nproc_base)]

    def apply() -> None:
        for res, value in pairs:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(res, (value, value))

    return apply


_PRLIMIT = shutil.which("prlimit", path="/usr/bin:/bin:/usr/sbin:/sbin")


def rlimit_argv(limits: Limits, *, nproc_base: int = 0) -> list[str] | None:
    """A `prlimit ... --` prefix setting the same rlimits as `rlimit_setter`, or None without prlimit.

    Starting through prlimit keeps `subprocess` on its vfork path; a preexec function forces a
    full fork of the Python process (docs/performance.md has the cost).
    """
    if not _PRLIMIT:
        return None
    return [_PRLIMIT, *(f"--{option}={v}:{v}" for _, option, v in _capped(limits, nproc_base)), "--"]


def memfd(name: str, data: bytes) -> int:
    """An anonymous in-memory file holding `data`, positioned at its start (handed to a child by number)."""
    fd = os.memfd_create(name, 0)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def count_user_processes(uid: int) -> int:
    """Processes currently owned by `uid` (RLIMIT_NPROC counts them all, so limits are relative)."""
    n = 0
    try:
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    if entry.stat(follow_symlinks=False).st_uid == uid:
                        n += 1
                except OSError:
                    continue
    except OSError:
        return 0
    return n


def _descendants(root_pid: int) -> list[int]:
    """Every live descendant of `root_pid` (by parent links in /proc), for tree kills."""
    children: dict[int, list[int]] = {}
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return []
    for name in entries:
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    out: list[int] = []
    todo = [root_pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, ()):
            out.append(c)
            todo.append(c)
    return out


def kill_tree(proc: subprocess.Popen[bytes], *, descendants: bool = True) -> None:
    """SIGKILL the process group, then any descendant that left it (setsid escapes)."""
    pids = _descendants(proc.pid) if descendants else []
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


def _wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait for exit without `Popen.wait`'s sleep-polling (a pidfd wakes us exactly); TimeoutExpired on timeout."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        proc.wait(timeout=timeout)
        return
    try:
        ready, _, _ = select.select([pidfd], [], [], timeout)
    finally:
        os.close(pidfd)
    if proc.poll() is None:
        if ready:  # exited between select and poll: reap it
            proc.wait(timeout=1)
            return
        raise subprocess.TimeoutExpired(proc.args, timeout)


def supervise(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    timeout: float,
    limits: Limits,
    stdin: bytes | None = None,
    nproc_base: int | None = None,
    pass_fds: Sequence[int] = (),
    on_timeout: Callable[[subprocess.Popen[bytes]], None] | None = None,
    executor: str = "",
    workspace: str | os.PathLike[str] | None = None,
) -> ExecResult:
    """Spawn, capture with caps, enforce the timeout, kill stragglers, and report real timings.

    With `workspace`, the run is killed once its file system has less than
    `limits.min_free_disk_bytes` or `limits.min_free_inodes` free (checked at every wake-up, at least four times a second).

    With `nproc_base` the command starts under the rlimits of `limits` (through prlimit, else a
    preexec function); RLIMIT_NPROC counts every process of the user, so it is `nproc_base` more.
    """
    start = time.monotonic()
    stop = current_stop()
    if stop is not None and stop.is_set():  # cancelled while the run was being set up: nothing starts
        return ExecResult(b"", b"", -1, False, 0, executor=executor, warnings=[CANCELLED])
    preexec = None
    if nproc_base is not None:
        prefix = rlimit_argv(limits, nproc_base=nproc_base)
        argv = [*prefix, *argv] if prefix else argv
        preexec = None if prefix else rlimit_setter(limits, nproc_base=nproc_base)
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=preexec,
            pass_fds=tuple(pass_fds),
            close_fds=True,
        )
    except (OSError, subprocess.SubprocessError) as e:
        msg = f"failed to start {argv[0]!r}: {e}"
        return ExecResult(
            b"", msg.encode(), 127, False, int((time.monotonic() - start) * 1000), executor=executor
        )
    if stdin is not None and proc.stdin is not None:
        # A writer thread: a child that prints before reading its input must not block us (or the timeout).
        pipe = proc.stdin

        def feed() -> None:
            with contextlib.suppress(OSError, ValueError):  # a child that stops reading ends its input
                pipe.write(stdin[: 16 * MiB])
            with contextlib.suppress(OSError):
                pipe.close()

        threading.Thread(target=feed, name="skillyard-stdin", daemon=True).start()
    assert proc.stdout is not None and proc.stderr is not None
    bufs = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    caps = {proc.stdout.fileno(): limits.stdout_bytes, proc.stderr.fileno(): limits.stderr_bytes}
    over = {proc.stdout.fileno(): False, proc.stderr.fileno(): False}
    sel = selectors.DefaultSelector()
    for f in (proc.stdout, proc.stderr):
        os.set_blocking(f.fileno(), False)
        sel.register(f.fileno(), selectors.EVENT_READ)
    deadline = start + timeout
    timed_out = False
    warnings: list[str] = []
    exited_at: float | None = None
    try:
        while sel.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
                kill_tree(proc, descendants=False)  # stragglers holding the pipes (`cmd &`)
            if exited_at is None and workspace is not None and (low := _disk_low(workspace, limits)):
                warnings.append(f"stopped: the workspace's file system had less than {low} free")
                kill_tree(proc)
                exited_at = now
            if exited_at is None and stop is not None and stop.is_set():
                warnings.append(CANCELLED)
                if on_timeout is not None:
                    on_timeout(proc)
                kill_tree(proc)
                exited_at = now
            if now >= deadline and exited_at is None:
                timed_out = True
                if on_timeout is not None:
                    on_timeout(proc)
                kill_tree(proc)
                exited_at = now
            if exited_at is not None and now >= exited_at + _DRAIN_GRACE:
                break
            wait = (deadline if exited_at is None else exited_at + _DRAIN_GRACE) - now
            for key, _ in sel.select(timeout=max(0.0, min(wait, 0.25))):
                fd = key.fd
                try:
                    data = os.read(fd, _READ_CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(fd)
                    continue
                buf = bufs[fd]
                room = caps[fd] - len(buf)
                if room > 0:
                    buf += data[:room]
                if len(data) > max(room, 0):
                    over[fd] = True
        # Pipes are closed; the process may still run with its output closed, so it keeps its deadline
        # (and listens for a stop, a quarter of a second at a time).
        while proc.poll() is None and not timed_out and CANCELLED not in warnings:
            left = max(0.0, deadline - time.monotonic())
            try:
                _wait_exit(proc, left if stop is None else min(left, 0.25))
            except subprocess.TimeoutExpired:
                if stop is not None and stop.is_set():
                    warnings.append(CANCELLED)
                elif time.monotonic() >= deadline:
                    timed_out = True
                else:
                    continue
                if on_timeout is not None:
                    on_timeout(proc)
                kill_tree(proc)
        if exited_at is None:
            kill_tree(proc, descendants=False)
    except BaseException:
        kill_tree(proc)
        raise
    finally:
        sel.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            kill_tree(proc)
            proc.wait()
        for f in (proc.stdout, proc.stderr):
            f.close()
    duration_ms = int((time.monotonic() - start) * 1000)
    rc = proc.returncode
    if timed_out or rc is None or warnings:
        code = -1
    elif rc < 0:
        code = 128 - rc  # shell convention: 128 + signal number
    else:
        code = rc
    fds = list(bufs)
    return ExecResult(
        stdout=bytes(bufs[fds[0]]),
        stderr=bytes(bufs[fds[1]]),
        exit_code=code,
        timed_out=timed_out,
        duration_ms=duration_ms,
        stdout_truncated=over[fds[0]],
        stderr_truncated=over[fds[1]],
        executor=executor,
        warnings=warnings,
    )


def _disk_low(path: str | os.PathLike[str], limits: Limits) -> str:
    """What the workspace's file system has less of than the reserve ("" when neither)."""
    try:
        st = os.statvfs(path)
    except OSError:
        return ""
    if st.f_bavail * st.f_frsize < limits.min_free_disk_bytes:
        return f"{limits.min_free_disk_bytes} bytes"
    # f_files is 0 where inodes are not counted (btrfs)
    return f"{limits.min_free_inodes} inodes" if st.f_files and st.f_favail < limits.min_free_inodes else ""
