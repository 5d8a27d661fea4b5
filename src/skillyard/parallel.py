"""A second process for big scans: part of the work runs in a fork of this process.

Used for a cold walk of a big root (half of it walked and parsed there) and for a second
start's file checks. Parsing skill files is Python work, so threads cannot share it; a forked
child can, and it starts in about a millisecond because it inherits everything already
imported and listed.
The child hands back plain data (`marshal`, through an anonymous shared mapping), never
objects, and anything unexpected (a crash, a signal, output too large, a missing result)
simply means the caller does that part itself.

A fork is used only where it is safe and pays: on Linux, with two or more usable CPUs,
enough items, and no other thread in the process (a fork copies only the calling thread,
so a lock held by another one would stay held in the child). `SKILLYARD_WORKERS=1` turns
it off.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import marshal
import mmap
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Fewer items than this are done in-process (a fork and the hand-back cost about 2 ms).
MIN_ITEMS = 1_000
#: The shared mapping the child writes into; only the pages it writes are ever backed.
CAPACITY = 256 * 1024 * 1024
#: The least the parent waits for the child after finishing its own part (seconds).
DEADLINE_S = 10.0
ENV = "SKILLYARD_WORKERS"

_READY = b"skillyard-part\0\0"  # written last by the child: the data before it is complete
_HEADER = len(_READY) + 8


def workers() -> int:
    """Processes a scan may use: `SKILLYARD_WORKERS` when set (1 turns forking off), else 2
    when at least two CPUs are usable."""
    raw = os.environ.get(ENV, "").strip()
    if raw:
        try:
            return max(1, min(2, int(raw)))
        except ValueError:
            return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return 2 if cpus >= 2 else 1


def usable(items: int) -> bool:
    """True when `split` would really fork for this many items."""
    return (
        items >= MIN_ITEMS
        and sys.platform == "linux"
        and hasattr(os, "fork")
        and threading.active_count() == 1
        and workers() >= 2
        and _one_os_thread()
    )


def _one_os_thread() -> bool:
    """No thread at all besides this one, counting those a C library started (Python does not
    know about them, the kernel does)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def split(
    items: Sequence[T],
    child: Callable[[Sequence[T]], Any],
    parent: Callable[[Sequence[T]], R],
    *,
    child_share: float = 0.5,
) -> tuple[R, Any | None, Sequence[T]]:
    """Run `child(tail)` in a fork while this process runs `parent(head)`.

    Returns (parent's result, the child's result as marshal data or None when it did not
    arrive, the tail). The caller handles a None by doing the tail itself.
    """
    _reap_finished()
    cut = len(items) - int(len(items) * child_share)
    head, tail = items[:cut], items[cut:]
    # Signals are blocked from before the fork until this process has tracked the child: the
    # copy must never run one of the host's handlers (its KeyboardInterrupt would unwind into
    # the caller's code in a second process), and an interrupt here must not leave a pipe,
    # a mapping or a child behind. Python runs pending handlers after changing the mask, so
    # the mask to restore is read first, without changing anything.
    saved = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, saved)
        raise
    started = _start(child, tail)
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, saved)  # a pending interrupt is raised here, in the try
        if started is None:
            return parent(head), None, tail
        proc, shared, done = started
        begun = time.monotonic()
        mine = parent(head)
        # as long again as this part took, several times over, and never less than DEADLINE_S
        if not _wait_done(done.fileno(), max(DEADLINE_S, 4 * (time.monotonic() - begun))):
            proc.kill()
        return mine, _read(shared), tail
    except BaseException:
        if started is not None:
            started[0].kill()
        raise
    finally:
        if started is not None:
            _release(*started)


def _start(
    child: Callable[[Sequence[T]], Any], tail: Sequence[T]
) -> tuple[_Child, mmap.mmap, io.FileIO] | None:
    """Fork the child (signals are blocked); None when that cannot be done. Never raises.

    The mapping and the pipe's reading end are objects that close themselves when dropped,
    so an interrupt during the clean-up cannot leak them (nor close a descriptor twice)."""
    shared: mmap.mmap | None = None
    done: io.FileIO | None = None
    done_w = -1
    try:
        shared = mmap.mmap(-1, CAPACITY)
        done_r, done_w = os.pipe()
        done = io.FileIO(done_r, "rb")
        pid = os.fork()
    except (OSError, ValueError):
        if done_w >= 0:
            os.close(done_w)
        if done is not None:
            done.close()
        if shared is not None:
            shared.close()
        return None
    if pid == 0:  # the child: never returns into the caller's code
        code = 1
        try:
            done.close()
            code = _child_main(shared, child, tail)
        finally:
            try:
                os.write(done_w, b"\1")  # the parent reads the data now, not after our exit
            finally:
                os._exit(code)
    proc = _Child(pid)
    _UNREAPED.append(proc)  # tracked before anything can go wrong; reaped by _release or later
    os.close(done_w)
    return proc, shared, done


def _release(proc: _Child, shared: mmap.mmap, done: io.FileIO) -> None:
    done.close()
    shared.close()
    _reap_finished()


def _child_main(shared: mmap.mmap, child: Callable[[Sequence[T]], Any], tail: Sequence[T]) -> int:
    try:
        # interrupting or terminating the copy just ends it (no handler of the host's runs)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
        data = marshal.dumps(child(tail))
        if _HEADER + len(data) > len(shared):
            return 3
        shared[_HEADER : _HEADER + len(data)] = data
        shared[len(_READY) : _HEADER] = len(data).to_bytes(8, "little")
        shared[: len(_READY)] = _READY
        return 0
    except BaseException:
        return 2


def _read(shared: mmap.mmap) -> Any | None:
    if shared[: len(_READY)] != _READY:
        return None
    size = int.from_bytes(shared[len(_READY) : _HEADER], "little")
    if _HEADER + size > len(shared):
        return None
    try:
        with memoryview(shared) as view, view[_HEADER : _HEADER + size] as part:
            return marshal.loads(part)  # builds new objects: nothing keeps the mapping alive
    except (ValueError, EOFError, TypeError):
        return None


def _wait_done(fd: int, timeout: float) -> bool:
    """Until the child says it is done (or exits: end of file); False after `timeout` seconds.
    `poll`, not `select`: a busy host may hand out descriptors above 1023."""
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP)
        return bool(poller.poll(int(min(timeout, 86_400) * 1000)))
    except (OSError, ValueError, OverflowError):
        return False


class _Child:
    """A forked child, signalled and reaped through a pidfd where the kernel has them, so a pid
    reused after someone else reaped ours is never touched. The pidfd is held by a file object,
    so however the clean-up is interrupted it is closed once, when dropped at the latest."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.pidfd: io.FileIO | None = None
        try:
            fd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            return
        try:
            self.pidfd = io.FileIO(fd, "rb")
        except (OSError, ValueError):
            os.close(fd)

    def kill(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            if self.pidfd is not None:
                signal.pidfd_send_signal(self.pidfd.fileno(), signal.SIGKILL)
            else:
                os.kill(self.pid, signal.SIGKILL)

    def reap(self, *, block: bool = False) -> bool:
        """True once the child is gone (reaped here, or elsewhere). Never raises."""
        flags = 0 if block else os.WNOHANG
        pidfd = self.pidfd
        if pidfd is not None and pidfd.closed:
            return True  # reaped already (the pid may belong to someone else by now)
        try:
            try:
                if pidfd is None or not hasattr(os, "P_PIDFD"):
                    raise OSError("no pidfd")
                done = os.waitid(os.P_PIDFD, pidfd.fileno(), os.WEXITED | flags) is not None
            except ChildProcessError:
                raise
            except OSError:  # no pidfd, or a kernel without waitid(P_PIDFD)
                done = os.waitpid(self.pid, flags)[0] != 0
        except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored or a host's own handler)
            done = True
        except OSError:
            return False
        if done and pidfd is not None:
            pidfd.close()
        return done


#: Children not reaped yet (a big process takes a few milliseconds to tear down after handing
#: its data over); reaped on the next split and at exit, never waited for in between.
_UNREAPED: list[_Child] = []


def _reap_finished() -> None:
    _UNREAPED[:] = [proc for proc in _UNREAPED if not proc.reap()]


@atexit.register
def _reap_all() -> None:
    while _UNREAPED:
        _UNREAPED.pop().reap(block=True)
