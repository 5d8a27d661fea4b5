"""Reading small user-named files (config, session) without hanging or swallowing a huge file.

A path given on the command line can name a FIFO (a plain read would block for
ever), a device (`/dev/zero` never ends) or a directory; all of these answer
with an OSError whose `strerror` says what is wrong.
"""

from __future__ import annotations

import errno
import os
import stat

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def read_regular_file(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed), at most `max_bytes` of them.

    Raises FileNotFoundError when missing, IsADirectoryError for a directory, and OSError
    for anything else that is not a regular file or is larger than `max_bytes`.
    """
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", os.fspath(path))
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        if st.st_size > max_bytes:
            raise OSError(errno.EFBIG, f"file is too large (over {max_bytes} bytes)", os.fspath(path))
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, 1 << 16):
            total += len(chunk)
            if total > max_bytes:  # grew while we read it
                raise OSError(errno.EFBIG, f"file is too large (over {max_bytes} bytes)", os.fspath(path))
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
