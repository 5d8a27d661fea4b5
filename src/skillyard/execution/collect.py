"""Output collection: workspace-relative globs with `**`, limits, MIME sniffing, safe reads.

Every matched file is opened without following symlinks after checking that
its real path stays in the workspace, must be a regular file with a single
link (a hard link could point at a host file), and is read only up to the
per-file cap. Anything refused becomes a warning, never an exception.
"""

from __future__ import annotations

import contextlib
import fnmatch
import itertools
import json
import mimetypes
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import filetype

from skillyard.execution.workspace import ENV_PREFIXES, SANDBOX_WORKSPACE, is_within
from skillyard.fsread import is_utf8_name, read_fd_bounded

DEFAULT_MAX_FILES = 100
DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024
DEFAULT_MAX_TOTAL_BYTES = 64 * 1024 * 1024
#: Bytes read past a limit so that scrubbing sees whole secrets before the text is cut.
SCRUB_MARGIN = 16 * 1024
_MAX_WALK = 50_000
#: Directories deeper than this are not searched (the walk recurses; a command can nest thousands).
_MAX_DEPTH = 128
#: `$NAME/...` or `${NAME}/...` at the start of a pattern, a cwd or an input's `to`.
VAR_PREFIX = re.compile(r"^\$(?:\{(\w+)\}|(\w+))(?=/|$)")
_TEXT_APP = {f"application/{kind}" for kind in ("json", "xml", "javascript", "x-sh", "toml")}


@dataclass(frozen=True, slots=True)
class CollectLimits:
    max_files: int = DEFAULT_MAX_FILES
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES


@dataclass(slots=True)
class CollectedFile:
    name: str  #: workspace-relative, `/`-separated
    data: bytes  #: at most max_file_bytes
    size_bytes: int  #: real size on disk
    mime_type: str
    is_text: bool
    truncated: bool
    #: bytes read past the limit, never returned: scrubbing sees a secret the limit cut in two
    tail: bytes = b""


@dataclass(slots=True)
class Collection:
    files: list[CollectedFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    limits_hit: bool = False


def workspace_var_base(var: str, run_rel: str, skill_rel: str) -> str | None:
    """Workspace-relative directory a `$VAR` prefix stands for (`$OUTPUT_DIR` → `out`); None if unknown."""
    return {
        "WORKSPACE_DIR": "",
        "SKILLS_DIR": "skills",
        "WORK_DIR": "work",
        "OUTPUT_DIR": "out",
        "RUN_DIR": run_rel,
        "SKILL_DIR": skill_rel,
    }.get(var)


def normalise_pattern(pattern: object, run_rel: str, skill_rel: str) -> str | None:
    """Workspace-relative pattern, or None when it is unusable (absolute elsewhere, `..`, empty)."""
    if not isinstance(pattern, str) or not pattern.strip() or "\0" in pattern or len(pattern) > 1024:
        return None
    p = pattern.strip().replace("\\", "/")
    m = VAR_PREFIX.match(p)
    if m:
        var = m.group(1) or m.group(2)
        base = workspace_var_base(var, run_rel, skill_rel)
        if base is None or var not in ENV_PREFIXES:
            return None
        p = (base + p[m.end() :]).lstrip("/")
    elif p.startswith(SANDBOX_WORKSPACE + "/"):
        p = p[len(SANDBOX_WORKSPACE) + 1 :]
    elif p.startswith("/"):
        return None
    while p.startswith("./"):
        p = p[2:]
    parts = [s for s in p.split("/") if s not in ("", ".")]
    if not parts or any(s == ".." for s in parts):
        return None
    # `out/`, `work/` and `inputs/` relative to the skill root lead to the workspace dirs.
    if parts[0] == "inputs":
        parts = ["work", *parts]
    return "/".join(parts)


def _walk(root: str, parts: list[str], rel: str, out: list[str], seen: set[str], budget: list[int]) -> None:
    if budget[0] <= 0 or not parts or rel.count("/") >= _MAX_DEPTH:
        return
    head, rest = parts[0], parts[1:]
    if head == "**" and not rest:  # a trailing `**` means every file below
        rest = ["*"]
        parts = ["**", "*"]
    base = os.path.join(root, rel) if rel else root
    if head == "**":
        _walk(root, rest, rel, out, seen, budget)  # zero directories
        try:
            entries = sorted(_listing(base, budget), key=lambda e: e.name)
        except OSError:
            return
        for e in entries:
            budget[0] -= 1
            if budget[0] <= 0:
                return
            if e.is_dir(follow_symlinks=False):
                _walk(root, parts, f"{rel}/{e.name}" if rel else e.name, out, seen, budget)
        return
    if not any(c in head for c in "*?["):
        names = [head]
    else:
        try:
            names = sorted(e.name for e in _listing(base, budget) if fnmatch.fnmatchcase(e.name, head))
        except OSError:
            return
        if not head.startswith("."):
            names = [n for n in names if not n.startswith(".")]
    for n in names:
        budget[0] -= 1
        if budget[0] <= 0:
            return
        r = f"{rel}/{n}" if rel else n
        full = os.path.join(root, r)
        if rest:
            if os.path.isdir(full) and not os.path.islink(full):
                _walk(root, rest, r, out, seen, budget)
        elif (os.path.isfile(full) or os.path.islink(full)) and r not in seen:
            seen.add(r)
            out.append(r)


def _listing(base: str, budget: list[int]) -> list[os.DirEntry[str]]:
    """At most the walk's remaining budget of `base`'s entries: a directory of millions is never
    held in memory whole (which of them is up to the file system's order)."""
    with os.scandir(base) as it:
        return list(itertools.islice(it, max(budget[0], 0)))


def match(root: Path, pattern: str) -> list[str]:
    """Workspace-relative paths of files matching a normalised pattern (symlinked dirs are not entered)."""
    out: list[str] = []
    _walk(str(root), pattern.split("/"), "", out, set(), [_MAX_WALK])
    return out


def detect_mime(data: bytes, name: str, *, complete: bool = True) -> tuple[str, bool]:
    """(mime type, is_text) from content first, the name only to refine text types."""
    head = data[:8192]
    kind = filetype.guess(head) if head else None
    if kind is not None:
        return kind.mime, False
    if b"\0" in head:
        return "application/octet-stream", False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        # A truncated read may end inside a character; anything else is binary.
        if complete or e.start < len(data) - 4:
            return "application/octet-stream", False
        text = data[: e.start].decode("utf-8")
    guessed, _ = mimetypes.guess_type(name)
    stripped = text.lstrip()
    if complete and stripped[:1] in ("{", "["):
        with contextlib.suppress(ValueError, RecursionError):  # a command's file may nest past the limit
            json.loads(text)
            return "application/json", True
    if guessed and (
        guessed.startswith("text/") or guessed in _TEXT_APP or guessed.endswith(("+json", "+xml"))
    ):
        return guessed, True
    if stripped.startswith("<?xml"):
        return "application/xml", True
    return "text/plain", True


def read_capped(root: Path, rel: str, cap: int) -> tuple[bytes, int] | str:
    """(data ≤ cap, real size) for a contained, single-link regular file; else the reason it was refused."""
    root_real = os.path.realpath(root)
    full = os.path.join(root_real, rel)
    real = os.path.realpath(full)
    if not is_within(real, root_real) or real == root_real:
        return "it leads outside the workspace"
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        return f"it cannot be opened ({e.strerror})"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return "it is not a regular file"
        if st.st_nlink > 1:
            return "it has several hard links (may point outside the workspace)"
        return read_fd_bounded(fd, cap)[0], st.st_size
    finally:
        os.close(fd)


def collect(
    root: Path,
    patterns: list[str],
    *,
    run_rel: str,
    skill_rel: str,
    limits: CollectLimits = CollectLimits(),
    exclude: set[str] | None = None,
) -> Collection:
    """Match, read and classify files; stops at the limits and says so."""
    res = Collection()
    names: list[str] = []
    seen: set[str] = set(exclude or ())
    for pat in patterns:
        norm = normalise_pattern(pat, run_rel, skill_rel)
        if norm is None:
            res.warnings.append(f"output pattern ignored (absolute, '..' or unknown variable): {pat!r}")
            continue
        found = match(root, norm)
        if not found:  # a typo or a step that wrote elsewhere: the caller learns why nothing came back
            res.warnings.append(f"output pattern matched no file: {pat!r}")
        for n in found:
            if not is_utf8_name(n):  # a result naming it could not be sent as JSON at all
                shown = n.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                res.warnings.append(f"output file skipped: {shown}: the name is not UTF-8")
            elif n not in seen:
                seen.add(n)
                names.append(n)
    total = 0
    for n in names:
        if len(res.files) >= limits.max_files:
            res.limits_hit = True
            res.warnings.append(
                f"max_files ({limits.max_files}) reached; {len(names) - len(res.files)} file(s) not collected"
            )
            break
        room = min(limits.max_file_bytes, limits.max_total_bytes - total)
        if room <= 0:
            res.limits_hit = True
            res.warnings.append(
                f"max_total_bytes ({limits.max_total_bytes}) reached; remaining files not collected"
            )
            break
        got = read_capped(root, n, room + SCRUB_MARGIN)
        if isinstance(got, str):
            res.warnings.append(f"output file skipped: {n}: {got}")
            continue
        data, size = got
        data, tail = data[:room], data[room:]
        truncated = size > len(data)
        res.limits_hit |= truncated
        total += len(data)
        mime, is_text = detect_mime(data, n, complete=not truncated)
        res.files.append(CollectedFile(n, data, size, mime, is_text, truncated, tail))
    return res
