"""What the MCP server serves of the registry: `skill://` URIs, per-skill file manifests, file bytes.

The MCP Skills extension (SEP-2640) lists every file of a skill with a sha256
digest and size. Hashing every file of every skill up front would make the
first `skills/list` page of a large catalog slow, so manifests are built per
skill when a page (or `skills/get`, or a read) asks for them, and digests are
cached by (path, mtime, size, inode, ctime) so an unchanged file is never hashed twice.

Which skills are served (documented in docs/mcp.md):
- only eligible skills (an ineligible skill's instructions would not work here);
- only SKILL.md skills: a SKILL.toml-only skill has no SKILL.md to point the
  entry at, so it is left out of the extension (its tools are still tools);
- only skills whose frontmatter `name` equals the registry name and satisfies
  the naming rule `^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`, because the entry's
  frontmatter must be the author's mapping verbatim and the URI's final
  segment must equal `frontmatter.name`;
- a skill over 512 files or 16 MiB is served with `resources: "dynamic"` (its
  files stay readable, without integrity data) and a warning is logged.
"""

from __future__ import annotations

import base64
import bisect
import errno
import hashlib
import json
import logging
import mimetypes
import os
import re
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from skillyard.fsread import is_utf8_name, open_under, read_under
from skillyard.model import SKIPPED_DIRS, Skill
from skillyard.skill_files import list_files

if TYPE_CHECKING:
    from skillyard.registry import Registry

log = logging.getLogger("skillyard.mcp")

SCHEME = "skill"
SKILL_FILE = "SKILL.md"
MAX_RESOURCES = 512
MAX_TOTAL_BYTES = 16 * 1024 * 1024
#: the longest URI accepted at all (longer ones are refused before any parsing)
MAX_URI_CHARS = 4096
NAME_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?\Z")
DIRECTORY_MIME = "inode/directory"

_TEXT_MIME = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".py": "text/x-python",
    ".sh": "text/x-shellscript",
    ".bash": "text/x-shellscript",
    ".json": "application/json",
    ".toml": "application/toml",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".js": "text/javascript",
    ".ts": "text/plain",
    ".csv": "text/csv",
    ".html": "text/html",
    ".xml": "application/xml",
}


class CatalogError(Exception):
    """A request that names something not served (maps to JSON-RPC -32602)."""


def mime_type(rel: str) -> str:
    """A mime type from the file name; SKILL.md is always text/markdown."""
    lower = rel.lower()
    dot = lower.rfind(".")
    if dot >= 0 and lower[dot:] in _TEXT_MIME:
        return _TEXT_MIME[lower[dot:]]
    guess, _ = mimetypes.guess_type(rel, strict=False)
    return guess or "application/octet-stream"


def skill_uri(name: str, rel: str = SKILL_FILE) -> str:
    return f"{SCHEME}://{name}/{rel}" if rel else f"{SCHEME}://{name}"


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One manifest entry: the URI-relative path, the file on disk, its size and digest."""

    rel: str
    path: str
    size: int
    digest: str

    def to_wire(self, name: str) -> dict[str, Any]:
        return {"uri": skill_uri(name, self.rel), "digest": self.digest, "size": self.size}


@dataclass(frozen=True, slots=True)
class Manifest:
    """A skill's files as served: a complete list, or `"dynamic"` with the reason."""

    files: tuple[FileEntry, ...] | Literal["dynamic"]
    reason: str | None = None

    def resources(self, name: str) -> list[dict[str, Any]] | Literal["dynamic"]:
        if self.files == "dynamic":
            return "dynamic"
        return [f.to_wire(name) for f in self.files]


def encode_cursor(kind: str, key: str) -> str:
    """An opaque cursor of this `kind` pointing after `key`."""
    raw = json.dumps({"k": kind, "a": key}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(kind: str, cursor: str | None) -> str | None:
    """The position a cursor of this `kind` points after; a malformed cursor is a CatalogError."""
    if cursor is None:
        return None
    if not isinstance(cursor, str) or len(cursor) > 2048:
        raise CatalogError("Invalid cursor")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
    except (ValueError, RecursionError):  # binascii.Error is a ValueError
        raise CatalogError("Invalid cursor") from None
    if not isinstance(data, dict) or data.get("k") != kind or not isinstance(data.get("a"), str):
        raise CatalogError("Invalid cursor")
    return data["a"]


def _valid_rel(rel: str) -> bool:
    """A `/`-separated relative path with no empty, `.`/`..`, hidden-walk or odd segments."""
    if not rel or len(rel) > 1024 or "\x00" in rel or "\\" in rel or rel.startswith("/"):
        return False
    return all(seg not in ("", ".", "..") for seg in rel.split("/"))


class SkillCatalog:
    """The served view of a registry: which skills, their manifests, their files and directories."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._lock = threading.RLock()
        self._digests: OrderedDict[tuple[str, int, int, int, int], str] = OrderedDict()
        self._sorted_version = -1
        self._sorted: list[Skill] = []
        self._sorted_names: list[str] = []
        self._warned: set[tuple[str, str]] = set()

    # ------------------------------------------------------------ which skills

    def why_not_served(self, skill: Skill) -> str | None:
        """None when the skill is served via the extension, else the reason it is not."""
        if skill.format != "md":
            return "no SKILL.md (SKILL.toml skills are served as tools only)"
        fm_name = skill.frontmatter.get("name") if isinstance(skill.frontmatter, dict) else None
        if fm_name != skill.name:
            return "frontmatter 'name' is missing or differs from the skill name"
        if not NAME_RE.match(skill.name):
            return f"name {skill.name!r} does not satisfy the naming rule"
        if not isinstance(skill.frontmatter.get("description"), str):
            return "frontmatter 'description' is not a string"
        try:
            eligible = self.registry.eligibility(skill).eligible
        except KeyError:
            return "no longer in the registry"
        if not eligible:
            return "not eligible on this host"
        return None

    def is_served(self, skill: Skill) -> bool:
        return self.why_not_served(skill) is None

    def served_skill(self, name: str) -> Skill | None:
        skill = self.registry.get(name)
        return skill if skill is not None and self.is_served(skill) else None

    def _by_name(self) -> tuple[list[Skill], list[str]]:
        """All registry skills sorted by name, cached per registry version (stable pagination)."""
        with self._lock:
            version = self.registry.version
            if version != self._sorted_version:
                self._sorted = sorted(self.registry.skills, key=lambda s: s.name)
                self._sorted_names = [s.name for s in self._sorted]
                self._sorted_version = version
            return self._sorted, self._sorted_names

    def page(
        self, after: str | None, limit: int, predicate: Any = None, *, inclusive: bool = False
    ) -> tuple[list[Skill], str | None]:
        """Up to `limit` served skills sorted by name, after `after` (or from it, `inclusive`); plus the next position."""
        skills, names = self._by_name()
        if after is None:
            start = 0
        else:
            start = (bisect.bisect_left if inclusive else bisect.bisect_right)(names, after)
        out: list[Skill] = []
        i = start
        while i < len(skills) and len(out) < limit:
            s = skills[i]
            if self.is_served(s) and (predicate is None or predicate(s)):
                out.append(s)
            i += 1
        # a full page with skills left to look at gets a cursor (the next page may turn out empty)
        more = len(out) == limit and i < len(skills)
        return out, (out[-1].name if out and more else None)

    # ------------------------------------------------------------ manifests

    def _digest(self, skill: Skill, path: str, st: os.stat_result) -> str:
        key = (path, st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)  # ctime: `touch -d` after an edit
        with self._lock:
            hit = self._digests.get(key)
            if hit is not None:
                self._digests.move_to_end(key)
                return hit
        h = hashlib.sha256()
        fd = open_under(
            skill.root, os.path.relpath(path, skill.root).replace(os.sep, "/"), skip_dirs=SKIPPED_DIRS
        )
        try:
            now = os.fstat(fd)
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                raise OSError(errno.ESTALE, "changed since it was listed", path)
            left = MAX_TOTAL_BYTES + 1  # a file grown past the limit is hashed no further
            while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
                h.update(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
        digest = "sha256:" + h.hexdigest()
        with self._lock:
            self._digests[key] = digest
            while len(self._digests) > 65_536:  # one per file version served
                self._digests.popitem(last=False)
        return digest

    def _listed_files(self, skill: Skill) -> list[tuple[str, str]]:
        """(uri-relative path, path on disk) for every file; the skill file is always `SKILL.md`."""
        own = skill.path.name
        out: list[tuple[str, str]] = []
        for rel in list_files(skill, max_files=MAX_RESOURCES + 2):
            if rel == own:
                out.append((SKILL_FILE, str(skill.path)))
            elif rel == SKILL_FILE:
                # a second, differently-cased skill file next to the real one: never served as SKILL.md
                continue
            else:
                out.append((rel, str(skill.root / rel)))
        out.sort(key=lambda t: t[0])
        return out

    def manifest(self, skill: Skill) -> Manifest:
        """The skill's files with digests and sizes, or `"dynamic"` when over the SEP-2640 limits."""
        listed = self._listed_files(skill)
        if len(listed) > MAX_RESOURCES:
            return self._dynamic(skill, f"more than {MAX_RESOURCES} files")
        stats: list[tuple[str, str, os.stat_result]] = []
        total = 0
        for rel, path in listed:
            try:
                st = os.stat(path, follow_symlinks=False)
            except OSError:
                continue  # vanished between walk and stat
            if not stat.S_ISREG(st.st_mode):
                continue
            total += st.st_size
            if total > MAX_TOTAL_BYTES:
                return self._dynamic(skill, f"more than {MAX_TOTAL_BYTES} bytes")
            stats.append((rel, path, st))
        files: list[FileEntry] = []
        for rel, path, st in stats:
            try:
                files.append(FileEntry(rel, path, st.st_size, self._digest(skill, path, st)))
            except OSError:
                continue
        return Manifest(tuple(files))

    def _dynamic(self, skill: Skill, reason: str) -> Manifest:
        key = (str(skill.root), reason)
        if key not in self._warned:
            self._warned.add(key)
            log.warning('skill %s has %s: served with resources "dynamic" (no digests)', skill.name, reason)
        return Manifest("dynamic", reason)

    def entry(self, skill: Skill) -> tuple[dict[str, Any], Manifest]:
        """The SEP-2640 Skill entry (same in list and get) and the manifest it was built from."""
        man = self.manifest(skill)
        return (
            {
                "uri": skill_uri(skill.name),
                "frontmatter": skill.frontmatter,
                "resources": man.resources(skill.name),
            },
            man,
        )

    # ------------------------------------------------------------ URIs and files

    @staticmethod
    def split_uri(uri: Any) -> tuple[str, str]:
        """`skill://<name>/<rel>` -> (name, rel); rel is '' for the skill root. Anything else is a CatalogError."""
        if not isinstance(uri, str) or len(uri) > MAX_URI_CHARS:
            raise CatalogError("Invalid skill URI")
        prefix = f"{SCHEME}://"
        if not uri.startswith(prefix):
            raise CatalogError(f"Not a {SCHEME}:// URI: {uri[:200]}")
        rest = uri[len(prefix) :]
        if "?" in rest or "#" in rest or "%" in rest:
            raise CatalogError(f"Unsupported characters in skill URI: {uri[:200]}")
        name, _, rel = rest.partition("/")
        if not NAME_RE.match(name):
            raise CatalogError(f"No skill is served at {uri[:200]}")
        return name, rel

    def skill_for_uri(self, uri: Any) -> Skill:
        """The served skill a `skill://<name>/SKILL.md` URI names (skills/get)."""
        name, rel = self.split_uri(uri)
        skill = self.served_skill(name)
        if rel != SKILL_FILE or skill is None:
            raise CatalogError(f"No skill is served at {str(uri)[:200]}")
        return skill

    @staticmethod
    def _disk_rel(skill: Skill, rel: str) -> str | None:
        """The path inside the skill directory `rel` names (the skill file for SKILL.md); None if never served."""
        if rel == SKILL_FILE:
            return skill.path.name
        if not _valid_rel(rel) or rel == skill.path.name:
            return None
        return rel

    def read(self, uri: Any) -> tuple[bytes, str, Skill, str]:
        """(bytes, mime type, skill, rel) of a served file; anything else is a CatalogError.

        The file is opened under the skill directory one part at a time without following a
        link (`open_under`, the manifest's rules: no link, no SKIPPED_DIRS, a regular file),
        and at most MAX_TOTAL_BYTES + 1 bytes are read.
        """
        name, rel = self.split_uri(uri)
        skill = self.served_skill(name)
        disk = None if skill is None else self._disk_rel(skill, rel)
        if skill is None or disk is None:
            raise CatalogError(f"Unknown resource: {str(uri)[:200]}")
        try:
            got = read_under(skill.root, disk, MAX_TOTAL_BYTES, skip_dirs=SKIPPED_DIRS)
        except OSError:
            raise CatalogError(f"Unknown resource: {str(uri)[:200]}") from None
        if got.truncated:
            raise CatalogError(f"Resource exceeds the {MAX_TOTAL_BYTES}-byte limit: {str(uri)[:200]}")
        return got.data, mime_type(rel), skill, rel

    def directory(self, uri: Any) -> tuple[Skill, str, list[tuple[str, bool, int | None]]]:
        """Direct children of a served skill directory: (rel path, is_dir, size) sorted by rel."""
        name, rel = self.split_uri(uri)
        rel = rel.removesuffix("/")
        skill = self.served_skill(name)
        bad = CatalogError(f"{str(uri)[:200]} is not a directory resource")
        if skill is None or (rel and not _valid_rel(rel)):
            raise bad
        try:
            # opened part by part without following links, then listed through the descriptor
            target = (
                open_under(skill.root, rel, skip_dirs=SKIPPED_DIRS, directory=True)
                if rel
                else os.open(
                    skill.root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
                )
            )
        except OSError:
            raise bad from None
        own = skill.path.name
        out: list[tuple[str, bool, int | None]] = []
        try:
            with os.scandir(target) as it:
                for e in it:
                    child = f"{rel}/{e.name}" if rel else e.name
                    try:
                        if e.is_symlink() or not is_utf8_name(e.name):
                            continue
                        if e.is_dir(follow_symlinks=False):
                            if e.name not in SKIPPED_DIRS:
                                out.append((child, True, None))
                        elif e.is_file(follow_symlinks=False):
                            is_skill_file = not rel and e.name in (own, SKILL_FILE)
                            if is_skill_file and e.name != own:
                                continue  # a second, differently-cased skill file: never served
                            size = e.stat(follow_symlinks=False).st_size
                            out.append((SKILL_FILE if is_skill_file else child, False, size))
                    except OSError:
                        continue
        except OSError:
            raise bad from None
        finally:
            os.close(target)
        out.sort(key=lambda t: t[0])
        return skill, rel, out
