"""Python's bytecode cache beside its source: a `.pyc` that is exactly the compiled source.

`pip install` and any local run write `__pycache__/NAME.TAG.pyc` next to every module; a skill
folder checked in place (the bundled skills of an installed skillyard, a skill the user ran) holds
them. Bytecode cannot be reviewed, so a `.pyc` is a critical finding, except when compiling the
source file beside it here gives the very same bytes: then it runs nothing but that source, which
is scanned as the source it is. Anything else (another Python version, another source, a missing
or unreadable source, a cache Python would use even after the source changes) stays critical.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import re
import sys
from pathlib import Path

from skillyard.fsread import open_under, read_fd_bounded

#: `NAME.TAG.pyc` or `NAME.TAG.opt-N.pyc` in a `__pycache__` folder (PEP 3147, PEP 488).
_CACHE_NAME = re.compile(r"(?P<stem>[^/.]+)\.(?P<tag>[^/.]+)(?:\.opt-(?P<opt>[12]))?\.pyc")
#: A source larger than this is not compiled for the comparison (the `.pyc` stays critical).
MAX_SOURCE_BYTES = 1 << 20
_HEADER = 16


def cache_of_source(root: Path | None, rel: str, full: Path, data: bytes) -> str | None:
    """The source file `rel` (a `.pyc` of the skill) is the compiled form of, or None."""
    parent, _, name = rel.rpartition("/")
    folder, _, cache = parent.rpartition("/")
    m = _CACHE_NAME.fullmatch(name)
    if cache != "__pycache__" or m is None or m["tag"] != sys.implementation.cache_tag:
        return None
    if data[:4] != importlib.util.MAGIC_NUMBER or len(data) <= _HEADER:
        return None
    flags = int.from_bytes(data[4:8], "little")
    if flags not in (0, 3):  # timestamp, or a hash Python checks; an unchecked hash outlives edits
        return None
    source_rel = f"{folder}/{m['stem']}.py" if folder else f"{m['stem']}.py"
    source = _read_source(root, source_rel, full.parent.parent / f"{m['stem']}.py")
    if source is None:
        return None
    body = data[_HEADER:]
    optimize = int(m["opt"] or 0)
    where = full.parent.parent / f"{m['stem']}.py"
    # the file name is part of the bytes; whoever compiled it named the source as it was then
    for filename in dict.fromkeys((os.path.abspath(where), os.path.realpath(where))):
        try:
            code = compile(source, filename, "exec", dont_inherit=True, optimize=optimize)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return None
        if marshal.dumps(code) == body:
            return source_rel
    return None


def _read_source(root: Path | None, rel: str, full: Path) -> bytes | None:
    """The source file's bytes, read as the scan reads files: never through a link."""
    try:
        if root is not None:
            fd = open_under(root, rel)
        else:
            fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        try:
            data, more = read_fd_bounded(fd, MAX_SOURCE_BYTES)
        finally:
            os.close(fd)
    except OSError:
        return None
    return None if more else data
