"""Reading files someone else names (config, session, a skill's files) without hanging,
swallowing a huge file or being led elsewhere by a link.

A path given on the command line can name a FIFO (a plain read would block for
ever), a device (`/dev/zero` never ends) or a directory; all of these answer
with an OSError whose `strerror` says what is wrong. A path a model or an MCP
client names inside a skill (`open_under`, `read_under`) is also opened one
part at a time without following links, and read only up to a limit.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import NamedTuple

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def is_within(path: str, root: str) -> bool:
    """True when `path` is `root` or below it (both already normalised or resolved)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def pid_gone(name: str) -> bool:
    """Whether `name` (a temp file or folder named `...-PID` or `....PID.tmp`) was left by a process that is gone."""
    pid = name.removesuffix(".tmp").replace("-", ".").rpartition(".")[2]
    if not (pid.isascii() and pid.isdigit()) or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, OverflowError):  # gone, or past any pid there can be
        return True
    except OSError:  # alive, another user's
        pass
    return False


def is_utf8_name(name: str) -> bool:
    """False for a file name that is not UTF-8 (Python holds its bytes as lone surrogates): it cannot
    be written as JSON text, so a listing or result naming it could not be sent at all."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def ours(st: os.stat_result) -> bool:
    """Owned by this user or root, writable by no other user: what may tell skillyard what to trust.
    Group write counts only for another group (a user's private group, umask 002, is theirs alone);
    a link's own mode means nothing."""
    if st.st_uid not in (0, os.geteuid()):
        return False
    return (
        stat.S_ISLNK(st.st_mode)
        or not st.st_mode & 0o002
        and not (st.st_mode & 0o020 and st.st_gid != os.getegid())
    )


def read_regular_file(path: str | os.PathLike[str], max_bytes: int, *, owned: bool = False) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed), at most `max_bytes` of them.

    Raises FileNotFoundError when missing, IsADirectoryError for a directory, and OSError
    for anything else that is not a regular file or is larger than `max_bytes`, or, with
    `owned`, that another user owns or can write (see `ours`).
    """
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", os.fspath(path))
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        if owned and not ours(st):
            raise OSError(errno.EPERM, "another user owns it or can write to it", os.fspath(path))
        if st.st_size > max_bytes:
            raise OSError(errno.EFBIG, f"file is too large (over {max_bytes} bytes)", os.fspath(path))
        data, grew = read_fd_bounded(fd, max_bytes)
        if grew:
            raise OSError(errno.EFBIG, f"file is too large (over {max_bytes} bytes)", os.fspath(path))
        return data
    finally:
        os.close(fd)


_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: the longest relative path a skill file is looked up by (Linux's PATH_MAX)
MAX_REL_CHARS = 4096


def _refuse(rel: str, code: int, why: str) -> OSError:
    return OSError(code, why, rel[:200])


def _segments(rel: str) -> list[str]:
    """`rel` split on `/`; an OSError for anything that is not a plain relative path."""
    if not isinstance(rel, str) or not rel:
        raise _refuse(str(rel), errno.EINVAL, "not a relative path inside the skill")
    if len(rel) > MAX_REL_CHARS:
        raise _refuse(rel, errno.ENAMETOOLONG, "path is too long")
    if "\x00" in rel or rel.startswith("/"):
        raise _refuse(rel, errno.EINVAL, "not a relative path inside the skill")
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise _refuse(rel, errno.EINVAL, "path has an empty, '.' or '..' part")
    try:
        for p in parts:
            os.fsencode(p)
    except UnicodeError:
        raise _refuse(rel, errno.EINVAL, "path is not valid in this file system") from None
    return parts


def open_under(
    root: str | os.PathLike[str],
    rel: str,
    *,
    skip_dirs: frozenset[str] = frozenset(),
    directory: bool = False,
) -> int:
    """A descriptor for `rel` inside the directory `root`, opened one part at a time without
    following a symbolic link anywhere below `root`.

    Each part is opened relative to the one before it (`dir_fd`) with O_NOFOLLOW, so no part
    can be swapped for a link that leads out between a check and the open: what is opened is
    what was checked. The last part must be a regular file (a directory with `directory`);
    a FIFO is opened non-blocking and refused, never read. Parts named in `skip_dirs` are
    refused as directories. `root` itself is trusted (it may be reached through a link).
    Every refusal is an OSError whose `strerror` says why.
    """
    parts = _segments(rel)
    try:
        cur = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except (OSError, ValueError) as e:
        raise _refuse(
            rel, getattr(e, "errno", None) or errno.ENOENT, "the skill directory cannot be opened"
        ) from None
    try:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            if (directory or not last) and part in skip_dirs:
                raise _refuse(rel, errno.ENOENT, f"'{part}' is not part of the skill")
            want_dir = directory or not last
            flags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | (_DIRECTORY if want_dir else _NONBLOCK)
            try:
                nxt = os.open(part, flags, dir_fd=cur)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.EMLINK) or (want_dir and e.errno == errno.ENOTDIR):
                    why = "a symbolic link (not followed)" if _is_link(part, cur) else "not a directory"
                    raise _refuse(rel, e.errno, f"'{part}' is {why}") from None
                raise _refuse(rel, e.errno or errno.EIO, e.strerror or "cannot be opened") from None
            os.close(cur)
            cur = nxt
        st = os.fstat(cur)
        if directory and not stat.S_ISDIR(st.st_mode):
            raise _refuse(rel, errno.ENOTDIR, "not a directory")
        if not directory and not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise _refuse(rel, errno.EINVAL, f"is {kind}")
    except BaseException:
        os.close(cur)
        raise
    return cur


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


class Bounded(NamedTuple):
    """The start of a file: `data` (at most the limit), whether there was more, its size and
    mtime when opened."""

    data: bytes
    truncated: bool
    size: int
    mtime_ns: int


def read_fd_bounded(fd: int, limit: int) -> tuple[bytes, bool]:
    """At most `limit` bytes from `fd`, and whether more were there (at most limit+1 are read)."""
    chunks: list[bytes] = []
    want = limit + 1
    while want > 0:
        chunk = os.read(fd, min(want, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        want -= len(chunk)
    data = b"".join(chunks)
    return data[:limit], len(data) > limit


def read_under(
    root: str | os.PathLike[str],
    rel: str,
    limit: int,
    *,
    skip_dirs: frozenset[str] = frozenset(),
    expect: tuple[int, int] | None = None,
) -> Bounded:
    """The first `limit` bytes of the regular file `rel` inside `root`, and whether it is longer.

    Opened by `open_under` (no link followed below `root`, no FIFO read); with `expect`, the
    file must still be the one a listing saw, by (st_dev, st_ino). Never reads more than
    limit+1 bytes, so a huge file costs no more memory than a small one.
    """
    fd = open_under(root, rel, skip_dirs=skip_dirs)
    try:
        st = os.fstat(fd)
        if expect is not None and (st.st_dev, st.st_ino) != expect:
            raise _refuse(rel, errno.ESTALE, "changed since the skill's files were listed")
        data, more = read_fd_bounded(fd, limit)
        return Bounded(data, more, max(st.st_size, len(data) + more), st.st_mtime_ns)
    finally:
        os.close(fd)
