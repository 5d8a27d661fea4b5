"""A start-up cache of parse results, so a second start does not re-read skill files.

Entries are keyed by path and validated by (mtime_ns, size, inode) from one
`stat`, exactly like an in-process reload. The file holds only plain data
(`marshal`, never pickle), so a tampered cache can at worst produce wrong
metadata for files whose stat it matches, never run code.
"""

from __future__ import annotations

import hashlib
import marshal
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

import platformdirs

from skillyard.model import Diagnostic, InstallOption, Requirements, Skill, ToolArg, ToolSpec

#: Bump when the parser's output for the same bytes may change.
FORMAT = 4
_SKILL_FIELDS = [f.name for f in fields(Skill) if not f.name.startswith("_")]
_INSTALL_FIELDS = [f.name for f in fields(InstallOption)]
_ARG_FIELDS = [f.name for f in fields(ToolArg)]

Row = tuple[Any, ...]
#: path -> (mtime_ns, size, inode, source, skill row or None, diagnostic rows)
Entries = dict[str, tuple[int, int, int, str, Row | None, list[Row]]]


def cache_path(roots: list[str]) -> Path:
    from skillyard import __version__

    key = hashlib.sha256("\0".join([__version__, *roots]).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return Path(platformdirs.user_cache_dir("skillyard")) / f"registry-{key}.v{FORMAT}.marshal"


def load(path: Path) -> Entries:
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if (
        not isinstance(data, dict)
        or data.get("format") != FORMAT
        or not isinstance(data.get("entries"), dict)
    ):
        return {}
    return data["entries"]


def save(path: Path, entries: Entries) -> None:
    """Write atomically; a cache that cannot be written is simply not used next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(marshal.dumps({"format": FORMAT, "entries": entries}))
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------- rows


def skill_to_row(s: Skill) -> Row:
    out: list[Any] = []
    for name in _SKILL_FIELDS:
        v = getattr(s, name)
        if name == "path":
            v = str(v)
        elif name == "requires":
            v = (v.bins, v.any_bins, v.env, v.config, v.os)
        elif name == "install":
            v = tuple(tuple(getattr(o, f) for f in _INSTALL_FIELDS) for o in v)
        elif name == "metadata" and v and v == s.frontmatter.get("metadata"):
            v = _SAME_AS_FRONTMATTER
        elif name == "tools":
            v = tuple(
                (
                    t.name,
                    t.description,
                    t.command,
                    t.kind,
                    tuple(tuple(getattr(a, f) for f in _ARG_FIELDS) for a in t.args),
                    t.timeout,
                )
                for t in v
            )
        out.append(v)
    return tuple(out)


_SAME_AS_FRONTMATTER = "\0frontmatter.metadata"
_PATH_I = _SKILL_FIELDS.index("path")
_META_I = _SKILL_FIELDS.index("metadata")
_FM_I = _SKILL_FIELDS.index("frontmatter")
_REQ_I = _SKILL_FIELDS.index("requires")
_INSTALL_I = _SKILL_FIELDS.index("install")
_TOOLS_I = _SKILL_FIELDS.index("tools")


def skill_from_row(row: Row) -> Skill:
    v = list(row)
    v[_PATH_I] = Path(v[_PATH_I])
    if v[_META_I] == _SAME_AS_FRONTMATTER:
        v[_META_I] = v[_FM_I].get("metadata")
    v[_REQ_I] = Requirements(*v[_REQ_I]) if any(v[_REQ_I]) else Requirements()
    if v[_INSTALL_I]:
        v[_INSTALL_I] = tuple(InstallOption(*o) for o in v[_INSTALL_I])
    if v[_TOOLS_I]:
        v[_TOOLS_I] = tuple(
            ToolSpec(n, d, c, k, tuple(ToolArg(*a) for a in args), t) for n, d, c, k, args, t in v[_TOOLS_I]
        )
    return Skill(*v)


def diag_to_row(d: Diagnostic) -> Row:
    return (d.level, d.code, d.message, d.path, d.line)


def diag_from_row(r: Row) -> Diagnostic:
    return Diagnostic(*r)
