"""`skills.lock`: what was installed, from where, at which revision, with which tree hash.

The tree hash is the rug-pull and tampering defence: a skill whose files no longer hash to
the recorded value is reported as modified and treated as ineligible until accepted again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import threading
import unicodedata
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skillyard.fsread import read_regular_file
from skillyard.install.fsutil import atomic_write_json
from skillyard.install.hygiene import is_vcs
from skillyard.install.sources import valid_name

LOCK_NAME = "skills.lock"
STAGING_NAME = ".staging"
LOCK_VERSION = 1
MAX_LOCK_BYTES = 256 * 1024 * 1024


def _walk(root: Path) -> list[tuple[str, str]]:
    """(NFC posix relative path, full path) of every non-directory entry, VCS metadata skipped, sorted."""
    out: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        linked = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        dirnames[:] = [d for d in dirnames if not is_vcs(d) and d not in linked]
        for f in (*filenames, *linked):
            if not is_vcs(f):  # skipped like the copy skips them
                out.append((unicodedata.normalize("NFC", prefix + f), os.path.join(dirpath, f)))
    out.sort()
    return out


def _file_digest(full: str) -> str:
    st = os.lstat(full)
    if stat.S_ISLNK(st.st_mode):
        return hashlib.sha256(b"symlink:" + os.fsencode(os.readlink(full))).hexdigest()
    if not stat.S_ISREG(st.st_mode):
        return hashlib.sha256(b"special:" + str(stat.S_IFMT(st.st_mode)).encode()).hexdigest()
    with open(full, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


@dataclass(frozen=True, slots=True)
class TreeHash:
    digest: str  #: "sha256:<hex>"
    files: int
    bytes: int


def tree_hash(root: Path) -> TreeHash:
    """sha256 over the sorted `path:sha256` lines (joined by newlines) of every file under `root`."""
    lines: list[str] = []
    total = 0
    for rel, full in _walk(Path(root)):
        lines.append(f"{rel}:{_file_digest(full)}")
        with contextlib.suppress(OSError):
            total += os.lstat(full).st_size
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
    return TreeHash(f"sha256:{digest}", len(lines), total)


def _signature(root: Path) -> tuple[Any, ...]:
    """Cheap stat-based fingerprint used to cache tree hashes between registry evaluations."""
    sig = []
    for rel, full in _walk(root):
        try:
            st = os.lstat(full)
        except OSError:
            continue
        sig.append((rel, st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode, st.st_ctime_ns))
    return tuple(sig)


_cache_lock = threading.Lock()
_hash_cache: dict[str, tuple[tuple[Any, ...], str]] = {}


def cached_tree_digest(root: Path) -> str:
    key = os.path.realpath(root)
    sig = _signature(Path(root))
    with _cache_lock:
        hit = _hash_cache.get(key)
        if hit and hit[0] == sig:
            return hit[1]
    digest = tree_hash(Path(root)).digest
    with _cache_lock:
        if len(_hash_cache) > 4096:
            _hash_cache.clear()
        _hash_cache[key] = (sig, digest)
    return digest


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(slots=True)
class LockEntry:
    """One installed skill's record."""

    name: str
    source: str
    kind: str
    revision: str | None
    tree_hash: str
    files: int
    bytes: int
    installed_at: str
    scan: dict[str, Any] = field(default_factory=dict)
    selector: str | None = None  #: the --name used to pick the skill inside a multi-skill source
    accepted_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Every field but the name (the lockfile's key); `selector` and `accepted_at` only when set."""
        optional = ("selector", "accepted_at")
        return {k: v for k, v in asdict(self).items() if k != "name" and (v or k not in optional)}

    @classmethod
    def from_dict(cls, name: str, d: dict[str, Any]) -> LockEntry:
        def s(k: str, default: Any = None) -> Any:
            v = d.get(k, default)
            return v if isinstance(v, str) or v is None else str(v)

        def n(k: str) -> int:
            v = d.get(k, 0)
            return v if isinstance(v, int) and not isinstance(v, bool) else 0

        return cls(
            name=name,
            source=s("source", "") or "",
            kind=s("kind", "") or "",
            revision=s("revision"),
            tree_hash=s("tree_hash", "") or "",
            files=n("files"),
            bytes=n("bytes"),
            installed_at=s("installed_at", "") or "",
            scan=d["scan"] if isinstance(d.get("scan"), dict) else {},
            selector=s("selector"),
            accepted_at=s("accepted_at"),
        )


class LockfileError(ValueError):
    """`skills.lock` exists but cannot be read."""


@dataclass(slots=True)
class Lockfile:
    """The parsed `skills.lock` of one install root. Writes are atomic (temp file + rename)."""

    root: Path
    entries: dict[str, LockEntry] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return self.root / LOCK_NAME

    @classmethod
    def load(cls, root: Path, *, apply_journals: bool = True) -> Lockfile:
        """Read the lockfile (empty when absent); pending install journals are applied in memory."""
        root = Path(root)
        lf = cls(root)
        try:  # a FIFO or device planted as skills.lock is refused, not waited on or read forever
            raw = read_regular_file(lf.path, MAX_LOCK_BYTES)
        except FileNotFoundError:
            raw = b""
        except OSError as e:
            raise LockfileError(f"{lf.path}: cannot read: {e.strerror}") from None
        if raw:
            try:
                data = json.loads(raw.decode("utf-8"))
            except (ValueError, RecursionError) as e:  # `[[[...` nested deep, an integer past int()'s limit
                raise LockfileError(f"{lf.path}: not valid JSON: {e}") from None
            skills = data.get("skills") if isinstance(data, dict) else None
            if not isinstance(skills, dict):
                raise LockfileError(f"{lf.path}: missing 'skills' object")
            for name, d in skills.items():
                if isinstance(name, str) and isinstance(d, dict):
                    lf.entries[name] = LockEntry.from_dict(name, d)
        if apply_journals:
            for journal in pending_journals(root):
                lf.reconcile(journal)
        return lf

    def get(self, name: str) -> LockEntry | None:
        return self.entries.get(name)

    def set(self, entry: LockEntry) -> None:
        self.entries[entry.name] = entry

    def remove(self, name: str) -> bool:
        return self.entries.pop(name, None) is not None

    def to_dict(self) -> dict[str, Any]:
        return {"version": LOCK_VERSION, "skills": {n: e.to_dict() for n, e in sorted(self.entries.items())}}

    def save(self) -> None:
        atomic_write_json(self.path, self.to_dict())

    def reconcile(self, journal: dict[str, Any]) -> None:
        """Make the entry for a journal's skill agree with what is on disk after an interrupted commit."""
        name = journal.get("name")
        if not isinstance(name, str) or not valid_name(name):  # a folder of the root, never a path
            return
        target = self.root / name
        new, old = journal.get("new"), journal.get("old")
        if not target.exists():  # an install that did not happen, or an uninstall that did
            self.entries.pop(name, None)
            return
        digest = tree_hash(target).digest
        if isinstance(new, dict) and digest == new.get("tree_hash"):
            self.entries[name] = LockEntry.from_dict(name, new)
        elif isinstance(old, dict) and digest == old.get("tree_hash"):
            self.entries[name] = LockEntry.from_dict(name, old)


def pending_journals(root: Path) -> list[dict[str, Any]]:
    """Journals left by commits that did not finish (a crash between swap and lockfile write)."""
    out = []
    staging = Path(root) / STAGING_NAME
    try:
        dirs = [] if staging.is_symlink() else sorted(staging.iterdir())
    except OSError:
        return out
    for d in dirs:
        j = d / "journal.json"
        try:
            data = json.loads(j.read_text("utf-8"))
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            data["_dir"] = str(d)
            out.append(data)
    return out


def is_modified(install_root: Path, name: str, skill_dir: Path) -> bool | None:
    """True when an installed skill's files differ from its lock entry; None when skillyard did not install it."""
    try:
        entry = Lockfile.load(Path(install_root)).get(name)
    except LockfileError:
        return True  # a corrupt lockfile cannot vouch for anything: fail closed
    if entry is None:
        return None
    try:
        return cached_tree_digest(Path(skill_dir)) != entry.tree_hash
    except OSError:
        return True
