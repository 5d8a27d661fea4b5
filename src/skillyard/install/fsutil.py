"""Filesystem primitives the installer needs to stay crash-safe."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import json
import os
from pathlib import Path
from typing import Any

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_libc: Any = None


def _renameat2() -> Any:
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        except OSError:
            _libc = False
    return getattr(_libc, "renameat2", None) if _libc else None


def exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux `renameat2(RENAME_EXCHANGE)`); False when unsupported.

    With an exchange there is no instant at which the installed name is missing, so a crash
    leaves either the old or the new tree in place, never neither.
    """
    fn = _renameat2()
    if fn is None:
        return False
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(a))


def fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_temp(path: Path, data: bytes) -> Path:
    """`data` in a new fsynced file beside `path`, ready to be renamed over it (nothing left if writing fails)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return tmp


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write via a temp file in the same directory, fsync, rename: readers see old or new, never half."""
    tmp = write_temp(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


def json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_bytes(path, json_bytes(data))
