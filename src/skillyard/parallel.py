"""A second process for big cold scans: part of the work runs in a fork of this process.

Parsing skill files is Python work, so threads cannot share it; a forked child can, and it
starts in about a millisecond because it inherits everything already imported and listed.
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
import marshal
import mmap
import os
import select
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Fewer items than this are done in-process (a fork and the hand-back cost about 2 ms).
MIN_ITEMS = 1_000
#: The shared mapping the child writes into; only the pages it writes are ever backed.
CAPACITY = 256 * 1024 * 1024
#: How long the parent waits for the child after finishing its own part.
DEADLINE_S = 120.0
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
    try:
        shared = mmap.mmap(-1, CAPACITY)
    except (OSError, ValueError):
        return parent(head), None, tail
    try:
        done_r, done_w = os.pipe()
    except OSError:
        shared.close()
        return parent(head), None, tail
    try:
        pid = os.fork()
    except OSError:
        os.close(done_r)
        os.close(done_w)
        shared.close()
        return parent(head), None, tail
    if pid == 0:  # the child: never returns into the caller's code
        code = 1
        try:
            os.close(done_r)
            code = _child_main(shared, child, tail)
        finally:
            with contextlib.suppress(BaseException):
                os.write(done_w, b"\1")  # the parent reads the data now, not after our exit
            os._exit(code)
    os.close(done_w)
    try:
        mine = parent(head)
        if not _wait_done(done_r, DEADLINE_S):
            _stop(pid)
        theirs = _read(shared)
    except BaseException:
        _stop(pid)
        raise
    finally:
        os.close(done_r)
        shared.close()
        _reap_later(pid)
    return mine, theirs, tail


def _child_main(shared: mmap.mmap, child: Callable[[Sequence[T]], Any], tail: Sequence[T]) -> int:
    try:
        # the parent's handlers (an MCP server's, a test runner's) are not ours to run twice
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
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
    """Until the child says it is done (or exits: end of file); False after `timeout` seconds."""
    ready, _, _ = select.select([fd], [], [], timeout)
    return bool(ready)


#: Children that had not exited yet when their data was read (a big process takes a few
#: milliseconds to tear down); reaped on the next split and at exit, never waited for in between.
_UNREAPED: list[int] = []


def _reap_later(pid: int) -> None:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored or a host's own handler)
        return
    if done == 0:
        if not _UNREAPED:
            atexit.unregister(_reap_all)  # registered once, however often this happens
            atexit.register(_reap_all)
        _UNREAPED.append(pid)


def _reap_finished() -> None:
    for pid in list(_UNREAPED):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _UNREAPED.remove(pid)


def _reap_all() -> None:
    while _UNREAPED:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(_UNREAPED.pop(), 0)


def _stop(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
